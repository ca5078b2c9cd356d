//! Fuzz harnesses for `pfcp-wire`, `pfcp-overload` and `pfcp-throttle`.
//!
//! The checks live in plain modules that the crates' integration tests include with `#[path]`
//! to replay the corpus and the regressions under `cargo test` on stable: one copy of each
//! harness, two drivers (libFuzzer here, the test suite there).
//!
//! * [`harness`] (`src/harness.rs`, one module per target in `src/harness/`): the codec
//!   targets, replayed by `crates/pfcp-wire/tests/fuzz_corpus.rs`.
//! * [`overload`] (`src/overload.rs`, the CP and UP models in `src/overload/`):
//!   `overload_events`, replayed by `crates/pfcp-overload/tests/fuzz_corpus.rs`.
//! * [`throttle`] (`src/throttle.rs`, the run and the routing checks in `src/throttle/`):
//!   `throttle`, replayed by `crates/pfcp-throttle/tests/fuzz_corpus.rs`.

#![forbid(unsafe_code)]

pub mod harness;
pub mod overload;
pub mod throttle;
pub mod throttle_c2;
pub mod throttle_egress;
pub mod throttle_loss;

pub use harness::{datagram, decode_message, roundtrip, typed_ie, TARGETS};
pub use overload::overload_events;
pub use throttle::throttle;
