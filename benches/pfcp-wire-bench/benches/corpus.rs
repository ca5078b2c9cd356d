//! pfcp-wire vs rs-pfcp 0.5 on the oracle corpus: every message of `valid.jsonl` (scapy-built,
//! checked by tshark and scapy) and `captures.jsonl` (open5gs, bisdn pfcpcore, go-pfcp) that
//! both codecs accept, in one criterion run.
//!
//! ```text
//! cargo bench -p pfcp-wire-bench --bench corpus -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! One iteration processes every message; `docs/benchmarks.md` divides by the count. Groups:
//!
//! * `node_path`: what a node does with a message. `rs-pfcp/parse`: `message::parse`.
//!   pfcp-wire: `decode+walk` (every IE, grouped opened), `+validate`, `+typed-reads` (the
//!   accessors: OCI, LCI, Cause, Node ID, F-SEID, Recovery Time Stamp: the issue's rows), and
//!   `view` (`Message::decode` + `Message::view`: validation, those reads and the session
//!   rules in one walk), `view+rules` (the same, every rule iterated down to its members),
//!   `decode_view` and `decode_view+rules` (`Message::decode_view`: decode and view in one
//!   walk).
//! * `owned`: `OwnedMessage::from_message` vs `message::parse`; `encode`: `OwnedMessage::encode`
//!   vs `marshal_into` of the parsed message, both into a reused buffer.
//! * `session_ies`: the session rule IEs of the corpus (Create PDR, FAR, QER, URR, Created
//!   PDR, Update FAR, Usage Report, Report Type), each decoded from its octets: pfcp-wire's
//!   typed decoders vs rs-pfcp's `unmarshal` of the same IE.
//! * `typed`: the typed messages: `AnyMessage::parse` and every field read
//!   (`pfcp-wire/typed`), against rs-pfcp's `message::parse` and against that plus rs-pfcp's
//!   typed decoder of every IE it has one for (`rs-pfcp/parse+typed`).
//! * `tlv`: the TLV walk with the crate's slice patterns vs the same walk with nom's `be_u16`
//!   and `take` (the choice recorded in `docs/benchmarks.md`).

use criterion::{Criterion, Throughput};
use pfcp_wire::owned::OwnedMessage;
use pfcp_wire::{IeType, Message};

mod corpus_common;
use corpus_common::*;
mod typed_common;

fn main() {
    let msgs = corpus();
    let n = msgs.len() as u64;
    let mut c = Criterion::default().configure_from_args();

    let mut g = c.benchmark_group("node_path");
    g.throughput(Throughput::Elements(n));
    g.bench_function("rs-pfcp/parse", |b| b.iter(|| rs_parse(&msgs)));
    g.bench_function("pfcp-wire/decode+walk", |b| b.iter(|| wire_walk(&msgs)));
    g.bench_function("pfcp-wire/+validate", |b| b.iter(|| wire_validate(&msgs)));
    g.bench_function("pfcp-wire/+typed-reads", |b| {
        b.iter(|| wire_typed_reads(&msgs))
    });
    #[cfg(feature = "after")]
    g.bench_function("pfcp-wire/view", |b| b.iter(|| wire_view(&msgs, false)));
    #[cfg(feature = "after")]
    g.bench_function("pfcp-wire/view+rules", |b| {
        b.iter(|| wire_view(&msgs, true))
    });
    #[cfg(feature = "decode-view")]
    g.bench_function("pfcp-wire/decode_view", |b| {
        b.iter(|| wire_decode_view(&msgs, false))
    });
    #[cfg(feature = "decode-view")]
    g.bench_function("pfcp-wire/decode_view+rules", |b| {
        b.iter(|| wire_decode_view(&msgs, true))
    });
    g.finish();

    let mut g = c.benchmark_group("owned");
    g.throughput(Throughput::Elements(n));
    g.bench_function("rs-pfcp/parse", |b| b.iter(|| rs_parse(&msgs)));
    g.bench_function("pfcp-wire/from_message", |b| b.iter(|| wire_owned(&msgs)));
    g.finish();

    let owned: Vec<OwnedMessage> = msgs
        .iter()
        .map(|b| OwnedMessage::from_message(&Message::decode(b).expect("decode")).expect("owned"))
        .collect();
    let parsed: Vec<_> = msgs
        .iter()
        .map(|b| rs_pfcp::message::parse(b).expect("rs parse"))
        .collect();
    let exact = owned
        .iter()
        .zip(&msgs)
        .filter(|(o, b)| o.to_bytes().ok().as_ref() == Some(*b))
        .count();
    let rs_exact = parsed
        .iter()
        .zip(&msgs)
        .filter(|(p, b)| p.marshal() == **b)
        .count();
    eprintln!("byte-exact re-encoding: pfcp-wire {exact} of {n}, rs-pfcp {rs_exact} of {n}");
    let mut g = c.benchmark_group("encode");
    g.throughput(Throughput::Elements(n));
    g.bench_function("rs-pfcp/marshal_into", |b| {
        let mut buf = Vec::with_capacity(65_536);
        b.iter(|| rs_encode(&parsed, &mut buf))
    });
    g.bench_function("pfcp-wire/owned-encode", |b| {
        let mut buf = Vec::with_capacity(65_536);
        b.iter(|| wire_encode(&owned, &mut buf))
    });
    g.finish();

    #[cfg(feature = "after")]
    {
        let ies = session_ies(&msgs);
        let rs_ok = ies
            .iter()
            .filter(|(t, b)| rs_session_ies(&[(*t, b.clone())]) > 0 || *t == IeType::REPORT_TYPE)
            .count();
        eprintln!(
            "session IEs: {} (rs-pfcp decodes {rs_ok} of them)",
            ies.len()
        );
        let mut g = c.benchmark_group("session_ies");
        g.throughput(Throughput::Elements(ies.len() as u64));
        g.bench_function("rs-pfcp/unmarshal", |b| b.iter(|| rs_session_ies(&ies)));
        g.bench_function("pfcp-wire/typed", |b| b.iter(|| wire_session_ies(&ies)));
        g.finish();
    }

    let mut g = c.benchmark_group("typed");
    g.throughput(Throughput::Elements(n));
    g.bench_function("rs-pfcp/parse", |b| b.iter(|| rs_parse(&msgs)));
    g.bench_function("rs-pfcp/parse+typed", |b| b.iter(|| rs_typed(&msgs)));
    g.bench_function("pfcp-wire/typed", |b| {
        b.iter(|| typed_common::wire_typed_all(&msgs))
    });
    g.finish();

    let bodies: Vec<&[u8]> = msgs
        .iter()
        .map(|b| Message::decode(b).expect("decode").body())
        .collect();
    let mut g = c.benchmark_group("tlv");
    g.throughput(Throughput::Elements(n));
    g.bench_function("slice-patterns", |b| b.iter(|| tlv_slices(&bodies)));
    g.bench_function("nom", |b| b.iter(|| tlv_nom(&bodies)));
    g.finish();

    c.final_summary();
}
