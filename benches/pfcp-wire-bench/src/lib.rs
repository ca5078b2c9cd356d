//! Benchmarks of `pfcp-wire` against rs-pfcp 0.5 (see `docs/benchmarks.md`):
//!
//! * `benches/codec.rs`: the hand-written message set (header, walk, typed OCI/LCI, encode);
//! * `benches/corpus.rs`: the oracle corpus (valid messages and real captures both codecs
//!   accept): decode, validate, the one-pass view, typed session IEs, the owned form;
//! * `examples/icount.rs` with `benches/icount.sh`: instruction counts under callgrind.
//!
//! Not published; the library's own tests never build rs-pfcp.
