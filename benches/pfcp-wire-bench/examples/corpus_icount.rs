//! Runs one operation of `benches/corpus.rs` over the whole oracle corpus N times, for
//! instruction counts under callgrind (repeatable where wall time on a shared machine is not).
//!
//! ```text
//! bash benches/pfcp-wire-bench/benches/corpus_icount.sh [N]
//! ```
//!
//! `corpus_icount OP N`; `corpus_icount list` prints the operations.

use std::hint::black_box;
use std::process::ExitCode;

use pfcp_wire::owned::OwnedMessage;
use pfcp_wire::Message;

#[path = "../benches/corpus_common/mod.rs"]
mod corpus_common;
use corpus_common::*;
#[path = "../benches/typed_common/mod.rs"]
mod typed_common;

const OPS: &[&str] = &[
    "rs-parse",
    "wire-walk",
    "wire-validate",
    "wire-typed-reads",
    #[cfg(feature = "after")]
    "wire-view",
    #[cfg(feature = "after")]
    "wire-view-rules",
    #[cfg(feature = "decode-view")]
    "wire-decode-view",
    #[cfg(feature = "decode-view")]
    "wire-decode-view-rules",
    "wire-owned",
    "rs-encode",
    "wire-encode",
    #[cfg(feature = "after")]
    "rs-session-ies",
    #[cfg(feature = "after")]
    "wire-session-ies",
    "tlv-slices",
    "tlv-nom",
    "wire-typed",
    "rs-typed",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(op) = args.first() else {
        eprintln!("usage: corpus_icount OP N | list");
        return ExitCode::from(2);
    };
    if op == "list" {
        for o in OPS {
            println!("{o}");
        }
        return ExitCode::SUCCESS;
    }
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let msgs = corpus();
    let owned: Vec<OwnedMessage> = msgs
        .iter()
        .map(|b| OwnedMessage::from_message(&Message::decode(b).expect("decode")).expect("owned"))
        .collect();
    let parsed: Vec<_> = msgs
        .iter()
        .map(|b| rs_pfcp::message::parse(b).expect("rs parse"))
        .collect();
    let bodies: Vec<&[u8]> = msgs
        .iter()
        .map(|b| Message::decode(b).expect("decode").body())
        .collect();
    #[cfg(feature = "after")]
    let ies = session_ies(&msgs);
    let mut buf = Vec::with_capacity(65_536);
    let mut acc = 0u64;
    for _ in 0..n {
        acc = acc.wrapping_add(match op.as_str() {
            "rs-parse" => rs_parse(&msgs),
            "wire-walk" => wire_walk(&msgs),
            "wire-validate" => wire_validate(&msgs),
            "wire-typed-reads" => wire_typed_reads(&msgs),
            #[cfg(feature = "after")]
            "wire-view" => wire_view(&msgs, false),
            #[cfg(feature = "after")]
            "wire-view-rules" => wire_view(&msgs, true),
            #[cfg(feature = "decode-view")]
            "wire-decode-view" => wire_decode_view(&msgs, false),
            #[cfg(feature = "decode-view")]
            "wire-decode-view-rules" => wire_decode_view(&msgs, true),
            "wire-owned" => wire_owned(&msgs),
            "rs-encode" => rs_encode(&parsed, &mut buf) as u64,
            "wire-encode" => wire_encode(&owned, &mut buf) as u64,
            #[cfg(feature = "after")]
            "rs-session-ies" => rs_session_ies(&ies),
            #[cfg(feature = "after")]
            "wire-session-ies" => wire_session_ies(&ies),
            "tlv-slices" => tlv_slices(&bodies),
            "tlv-nom" => tlv_nom(&bodies),
            "wire-typed" => typed_common::wire_typed_all(&msgs),
            "rs-typed" => rs_typed(&msgs),
            other => {
                eprintln!("unknown op {other}");
                return ExitCode::from(2);
            }
        });
    }
    black_box(acc);
    ExitCode::SUCCESS
}
