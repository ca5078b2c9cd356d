//! pfcp-wire vs rs-pfcp 0.5 on the same bytes (perf-anchors scenario S1).
//!
//! ```text
//! cargo bench -p pfcp-wire-bench --bench codec -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! Groups (each benchmark id is `<implementation>/<message>`):
//!
//! * `decode_header`: the header only.
//! * `decode_walk`: full decode, then every IE at every level touched. pfcp-wire:
//!   `Message::decode` + recursive walk, and `Message::decode` + top-level IEs only
//!   (`pfcp-wire/top`). rs-pfcp: `message::parse` + every top-level IE (`parse`: rs-pfcp does
//!   not look inside grouped IEs), and the same plus every grouped IE's children through
//!   rs-pfcp's own IE parser (`parse+children`, the same work as pfcp-wire's walk).
//! * `decode_typed_oci_lci`: decode, then the typed OCI and LCI. rs-pfcp 0.5 cannot decode a
//!   spec-correct OCI (its Timer IE wants 4 octets), so the comparison is on the LCI alone.
//! * `decode_typed`: the typed messages (`pfcp_wire::msg`): `AnyMessage::parse` (decode and
//!   type in one walk) and every field read, the rules down to their repeated members
//!   (`pfcp-wire/typed`), against rs-pfcp's `message::parse` (`rs-pfcp/parse`, which types
//!   nothing) and against that plus rs-pfcp's typed decoder of every IE it has one for
//!   (`rs-pfcp/parse+typed`, the same work but the OCI, which rs-pfcp cannot type).
//! * `bare_tlv_walk`: a minimal hand-written TLV walk over the same bytes (the floor).
//! * `encode`: from application values into a reused buffer. pfcp-wire: `MessageWriter` with
//!   typed IEs, and through the typed messages' builders (`pfcp-wire/typed`). rs-pfcp: typed
//!   IEs + message builder + `marshal_into` (`build+marshal`), and
//!   `marshal_into` of a message built beforehand (`marshal-prebuilt`).
//!
//! A conformance gate runs first: both encoders must produce each vector byte for byte and
//! both decoders must parse it (except where rs-pfcp cannot; it prints why).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};

mod common;
use common::Msg;
mod typed_common;

const WIRE: &str = "pfcp-wire";

fn decode_header(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode_header");
    for m in [Msg::HbReq, Msg::SessEstReq, Msg::SessEstRsp] {
        let bytes = m.bytes();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::new(WIRE, m.name()), &bytes, |b, x| {
            b.iter(|| common::wire_header(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("rs-pfcp", m.name()), &bytes, |b, x| {
            b.iter(|| common::rs_header(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("floor", m.name()), &bytes, |b, x| {
            b.iter(|| common::bare_header(black_box(x)))
        });
    }
    g.finish();
}

fn decode_walk(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode_walk");
    for m in Msg::ALL {
        let bytes = m.bytes();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::new(WIRE, m.name()), &bytes, |b, x| {
            b.iter(|| common::wire_decode_walk(black_box(x)))
        });
        g.bench_with_input(
            BenchmarkId::new("pfcp-wire/top", m.name()),
            &bytes,
            |b, x| b.iter(|| common::wire_decode_top(black_box(x))),
        );
        if m.rs_parses() {
            g.bench_with_input(
                BenchmarkId::new("rs-pfcp/parse", m.name()),
                &bytes,
                |b, x| b.iter(|| common::rs_parse_walk(black_box(x))),
            );
            g.bench_with_input(
                BenchmarkId::new("rs-pfcp/parse+children", m.name()),
                &bytes,
                |b, x| b.iter(|| common::rs_parse_walk_children(black_box(x))),
            );
        }
    }
    g.finish();
}

fn decode_typed_oci_lci(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode_typed_oci_lci");
    for m in Msg::ALL.into_iter().filter(|m| m.has_oci_lci()) {
        let bytes = m.bytes();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("pfcp-wire/oci+lci", m.name()),
            &bytes,
            |b, x| b.iter(|| common::wire_typed_oci_lci(black_box(x))),
        );
        g.bench_with_input(
            BenchmarkId::new("pfcp-wire/lci", m.name()),
            &bytes,
            |b, x| b.iter(|| common::wire_typed_lci(black_box(x))),
        );
        if m.rs_parses() {
            g.bench_with_input(BenchmarkId::new("rs-pfcp/lci", m.name()), &bytes, |b, x| {
                b.iter(|| common::rs_typed_lci(black_box(x)))
            });
        }
    }
    g.finish();
}

fn decode_typed(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode_typed");
    for m in Msg::ALL {
        let bytes = m.bytes();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("pfcp-wire/typed", m.name()),
            &bytes,
            |b, x| b.iter(|| typed_common::wire_typed(black_box(x))),
        );
        if m.rs_parses() {
            g.bench_with_input(
                BenchmarkId::new("rs-pfcp/parse", m.name()),
                &bytes,
                |b, x| b.iter(|| common::rs_parse_walk(black_box(x))),
            );
            g.bench_with_input(
                BenchmarkId::new("rs-pfcp/parse+typed", m.name()),
                &bytes,
                |b, x| b.iter(|| common::rs_typed(black_box(x))),
            );
        }
    }
    g.finish();
}

fn bare_tlv_walk(c: &mut Criterion) {
    let mut g = c.benchmark_group("bare_tlv_walk");
    for m in Msg::ALL {
        let bytes = m.bytes();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::new("floor", m.name()), &bytes, |b, x| {
            b.iter(|| common::bare_walk(black_box(x)))
        });
    }
    g.finish();
}

fn encode(c: &mut Criterion) {
    let mut g = c.benchmark_group("encode");
    for m in Msg::ALL {
        let len = m.bytes().len();
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_function(BenchmarkId::new(WIRE, m.name()), |b| {
            let mut buf = vec![0u8; 4096];
            b.iter(|| common::wire_encode(m, black_box(&common::P), &mut buf).expect("encode"))
        });
        if m != Msg::SessEstRspRej {
            g.bench_function(BenchmarkId::new("pfcp-wire/typed", m.name()), |b| {
                let mut buf = vec![0u8; 4096];
                b.iter(|| common::wire_typed_encode(m, black_box(&common::P), &mut buf))
            });
        }
        if let Some(prebuilt) = common::rs_build(m, &common::P) {
            g.bench_function(BenchmarkId::new("rs-pfcp/build+marshal", m.name()), |b| {
                let mut buf = Vec::with_capacity(4096);
                b.iter(|| common::rs_encode(m, black_box(&common::P), &mut buf))
            });
            g.bench_function(
                BenchmarkId::new("rs-pfcp/marshal-prebuilt", m.name()),
                |b| {
                    let mut buf = Vec::with_capacity(4096);
                    b.iter(|| common::rs_marshal_prebuilt(black_box(prebuilt.as_ref()), &mut buf))
                },
            );
        }
    }
    g.finish();
}

fn main() {
    for note in common::conformance_gate() {
        eprintln!("conformance: {note}");
    }
    eprintln!("conformance: all vectors agree (pfcp-wire and rs-pfcp encoders, both decoders)");
    let mut c = Criterion::default().configure_from_args();
    decode_header(&mut c);
    decode_walk(&mut c);
    decode_typed_oci_lci(&mut c);
    decode_typed(&mut c);
    bare_tlv_walk(&mut c);
    encode(&mut c);
    c.final_summary();
}
