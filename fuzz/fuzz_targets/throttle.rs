//! `cargo fuzz run throttle`: see `fuzz/src/throttle.rs` for what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pfcp_fuzz::throttle(data));
