//! Runs one codec operation N times, for instruction counts under callgrind (repeatable on a
//! noisy machine, unlike wall time). Same message set and operations as `benches/codec.rs`.
//!
//! ```text
//! cargo build --release -p pfcp-wire-bench --example icount
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/icount wire-walk sess_est_req 10000
//! ```
//!
//! Instructions per operation = (Ir at N - Ir at 0) / N, which removes process start-up and
//! setup (`benches/pfcp-wire-bench/benches/icount.sh` does this for every pair).
//!
//! `icount gate` runs the conformance gate; `icount list` prints the valid (op, message) pairs;
//! `icount info` prints each message's size and IE count.

use std::hint::black_box;
use std::process::ExitCode;

#[path = "../benches/common/mod.rs"]
mod common;
use common::Msg;
#[path = "../benches/typed_common/mod.rs"]
mod typed_common;

const OPS: [&str; 18] = [
    "wire-header",
    "rs-header",
    "floor-header",
    "wire-walk",
    "wire-top",
    "rs-parse",
    "rs-parse-children",
    "floor-walk",
    "wire-oci-lci",
    "wire-lci",
    "rs-lci",
    "wire-encode",
    "rs-encode",
    "rs-marshal-prebuilt",
    "wire-typed",
    "wire-typed-parse",
    "rs-typed",
    "wire-typed-encode",
];

/// Whether `op` applies to `m` (rs-pfcp ops only where rs-pfcp parses or builds the message).
fn applies(op: &str, m: Msg) -> bool {
    let rs = op.starts_with("rs-");
    let typed = op.ends_with("lci");
    let typed_encode = op == "wire-typed-encode";
    (!rs || m.rs_parses())
        && (!typed || m.has_oci_lci())
        && (!typed_encode || m != Msg::SessEstRspRej)
}

fn run(op: &str, m: Msg, n: u64) -> u64 {
    let bytes = m.bytes();
    let p = &common::P;
    let mut acc = 0u64;
    match op {
        "wire-header" => (0..n).for_each(|_| acc ^= common::wire_header(black_box(&bytes))),
        "rs-header" => (0..n).for_each(|_| acc ^= common::rs_header(black_box(&bytes))),
        "floor-header" => (0..n).for_each(|_| acc ^= common::bare_header(black_box(&bytes))),
        "wire-walk" => (0..n).for_each(|_| acc ^= common::wire_decode_walk(black_box(&bytes))),
        "wire-top" => (0..n).for_each(|_| acc ^= common::wire_decode_top(black_box(&bytes))),
        "rs-parse" => (0..n).for_each(|_| acc ^= common::rs_parse_walk(black_box(&bytes))),
        "rs-parse-children" => {
            (0..n).for_each(|_| acc ^= common::rs_parse_walk_children(black_box(&bytes)))
        }
        "floor-walk" => (0..n).for_each(|_| acc ^= common::bare_walk(black_box(&bytes))),
        "wire-oci-lci" => (0..n).for_each(|_| acc ^= common::wire_typed_oci_lci(black_box(&bytes))),
        "wire-lci" => (0..n).for_each(|_| acc ^= common::wire_typed_lci(black_box(&bytes))),
        "rs-lci" => (0..n).for_each(|_| acc ^= common::rs_typed_lci(black_box(&bytes))),
        "wire-encode" => {
            let mut buf = vec![0u8; 4096];
            for _ in 0..n {
                let k = common::wire_encode(m, black_box(p), &mut buf).expect("encode");
                acc ^= k as u64;
            }
        }
        "rs-encode" => {
            let mut buf = Vec::with_capacity(4096);
            for _ in 0..n {
                acc ^= common::rs_encode(m, black_box(p), &mut buf) as u64;
            }
        }
        "rs-marshal-prebuilt" => {
            let msg = common::rs_build(m, p).expect("rs-pfcp builds it");
            let mut buf = Vec::with_capacity(4096);
            for _ in 0..n {
                acc ^= common::rs_marshal_prebuilt(black_box(msg.as_ref()), &mut buf) as u64;
            }
        }
        "wire-typed" => (0..n).for_each(|_| acc ^= typed_common::wire_typed(black_box(&bytes))),
        "wire-typed-parse" => {
            (0..n).for_each(|_| acc ^= typed_common::wire_typed_parse(black_box(&bytes)))
        }
        "rs-typed" => (0..n).for_each(|_| acc ^= common::rs_typed(black_box(&bytes))),
        "wire-typed-encode" => {
            let mut buf = vec![0u8; 4096];
            for _ in 0..n {
                let k = common::wire_typed_encode(m, black_box(p), &mut buf).expect("typed");
                acc ^= k as u64;
            }
        }
        _ => unreachable!("checked by main"),
    }
    acc
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gate"] => {
            for note in common::conformance_gate() {
                println!("{note}");
            }
            println!("conformance gate passed");
            ExitCode::SUCCESS
        }
        ["info"] => {
            println!("message\toctets\ties_all_levels\ties_top_level\trs_pfcp_parses");
            for m in Msg::ALL {
                let bytes = m.bytes();
                let msg = pfcp_wire::Message::decode(&bytes).expect("decode");
                let top = msg.ies().count();
                let (name, n, all, rs) = (m.name(), bytes.len(), msg.ie_count(), m.rs_parses());
                println!("{name}\t{n}\t{all}\t{top}\t{rs}");
            }
            ExitCode::SUCCESS
        }
        ["list"] => {
            for op in OPS {
                for m in Msg::ALL.into_iter().filter(|&m| applies(op, m)) {
                    println!("{op} {}", m.name());
                }
            }
            ExitCode::SUCCESS
        }
        [op, msg, n] => {
            let (Some(m), true, Ok(n)) = (Msg::from_name(msg), OPS.contains(op), n.parse()) else {
                eprintln!("usage: icount <op> <message> <iterations> | gate | list | info");
                return ExitCode::FAILURE;
            };
            if !applies(op, m) {
                eprintln!("{op} does not apply to {msg}");
                return ExitCode::FAILURE;
            }
            println!("{}", run(op, m, n));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: icount <op> <message> <iterations> | gate | list | info");
            ExitCode::FAILURE
        }
    }
}
