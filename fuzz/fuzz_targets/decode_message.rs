//! `cargo fuzz run decode_message`: see `fuzz/src/harness.rs` for what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pfcp_fuzz::decode_message(data));
