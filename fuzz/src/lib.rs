//! Fuzz harnesses for `pfcp-wire`.
//!
//! The checks live in [`harness`] (`src/harness.rs`), which `crates/pfcp-wire/tests/fuzz_corpus.rs`
//! includes with `#[path]` to replay the corpus and the regressions under `cargo test` on
//! stable: one copy of the harness, two drivers (libFuzzer here, the test suite there).

#![forbid(unsafe_code)]

pub mod harness;

pub use harness::{datagram, decode_message, roundtrip, typed_ie, TARGETS};
