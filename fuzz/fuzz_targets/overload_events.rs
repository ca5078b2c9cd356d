//! `cargo fuzz run overload_events`: see `fuzz/src/overload.rs` for what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pfcp_fuzz::overload_events(data));
