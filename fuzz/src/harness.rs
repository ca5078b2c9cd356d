//! The checks behind the fuzz targets, shared with `crates/pfcp-wire/tests/fuzz_corpus.rs`.
//!
//! Each public function takes arbitrary bytes and panics (with a message saying which
//! contract broke) if `pfcp-wire` misbehaves on them. They use only `std` and `pfcp-wire`, so
//! the same file compiles inside the fuzz crate and, through `#[path]`, inside pfcp-wire's
//! integration tests.
//!
//! * [`decode_message`]: decoding is total and self-consistent: every IE view lies inside the
//!   input at the offset it claims, framing-checked IEs never fail to iterate, every typed
//!   accessor agrees with decoding the IE it names, `validate`/`check_typed_ies` agree with the
//!   accessors, errors are in bounds and format; and the typed messages (`harness/typed.rs`):
//!   one walk equals two steps, `validate`'s verdict kept, a decoded message built again
//!   re-decodes equal.
//! * [`roundtrip()`]: decode, copy to the owned form, encode, decode again: same value; the IE
//!   octets come back byte for byte and only header spare bits may change.
//! * [`datagram()`]: the FO chain: contiguous, non-overlapping, bounded, covering the input when
//!   nothing failed; tighter resource limits never accept more.
//! * [`typed_ie()`]: every typed decoder on an arbitrary IE body; decoded values re-encode to an
//!   IE of exactly `encoded_len` octets that decodes to the same value.
//!
//! This file holds what the targets share (the target table, the checks of an error, of an
//! offset and of single decoded values); each target has its module in `harness/`: `decode`,
//! `roundtrip`, `datagram` and `typed_ie`.

#![forbid(unsafe_code)]

use pfcp_wire::header::NODE_HEADER_LEN;
use pfcp_wire::ie::{CpFunctionFeatures, NodeId, RecoveryTimeStamp, Timer, UpFunctionFeatures};
use pfcp_wire::{DecodeError, DecodeErrorKind};

// The children are named by path, relative to this file, so that they resolve the same way in
// the fuzz crate and in pfcp-wire's test, which includes this file with `#[path]` (a file
// loaded so looks for its children beside itself, not in `harness/`).
#[path = "harness/datagram.rs"]
mod datagram;
#[path = "harness/decode.rs"]
mod decode;
#[path = "harness/roundtrip.rs"]
mod roundtrip;
#[path = "harness/typed.rs"]
mod typed;
#[path = "harness/typed_ie.rs"]
mod typed_ie;

pub use datagram::datagram;
pub use decode::decode_message;
pub use roundtrip::roundtrip;
pub use typed_ie::typed_ie;

/// A harness: panics if `pfcp-wire` breaks a contract on the input.
pub type Harness = fn(&[u8]);

/// Every harness by fuzz target name (`fuzz/fuzz_targets/<name>.rs`, `fuzz/corpus/<name>/`).
pub const TARGETS: &[(&str, Harness)] = &[
    ("decode_message", decode_message),
    ("roundtrip", roundtrip),
    ("datagram", datagram),
    ("typed_ie", typed_ie),
];

/// Most items a `Datagram` over `data` may yield: one per 8-octet minimal message, plus one
/// error.
fn item_bound(data: &[u8]) -> usize {
    data.len() / NODE_HEADER_LEN + 1
}

/// Offset of `part` inside `whole`, asserting that `part` is a sub-slice of it (same memory,
/// not merely equal bytes).
fn offset_in(whole: &[u8], part: &[u8], what: &str) -> usize {
    let start = (part.as_ptr() as usize)
        .checked_sub(whole.as_ptr() as usize)
        .unwrap_or_else(|| panic!("{what} starts before the input"));
    assert!(
        start + part.len() <= whole.len(),
        "{what} ({start}..{}) runs past the input ({} octets)",
        start + part.len(),
        whole.len()
    );
    start
}

/// Checks every error must pass: in bounds, formats, maps to a Cause.
fn check_error(data: &[u8], e: &DecodeError) {
    assert!(
        e.offset <= data.len(),
        "error offset {} past the input ({} octets): {e:?}",
        e.offset,
        data.len()
    );
    let shown = e.to_string();
    assert!(shown.contains(&format!("offset {}", e.offset)), "{shown}");
    let _ = format!("{e:?} {} {}", e.kind, e.path);
    let cause = e.cause();
    assert!(
        cause.is_acceptance() == Some(false),
        "{e}: cause {cause} is not a rejection"
    );
    if let DecodeErrorKind::MissingMandatory(t) = e.kind {
        assert_eq!(e.offending_ie(), Some(t));
    }
    assert!(std::error::Error::source(e).is_some());
}

fn check_node_id(n: &NodeId<'_>) {
    let shown = n.to_string();
    assert!(!shown.is_empty());
    if let NodeId::Fqdn(f) = n {
        let mut wire = 0;
        for label in f.labels() {
            assert!(
                (1..=63).contains(&label.len()),
                "FQDN label of {} octets",
                label.len()
            );
            wire += 1 + label.len();
        }
        assert_eq!(wire, f.wire_len(), "FQDN labels vs wire length");
        assert!(wire <= pfcp_wire::ie::FQDN_MAX_WIRE_LEN);
    }
}

fn check_rts(t: RecoveryTimeStamp) {
    if let Some(d) = t.since_unix_epoch() {
        assert_eq!(
            RecoveryTimeStamp::from_unix(d),
            t,
            "Recovery Time Stamp era round trip"
        );
    }
}

fn check_timer(t: Timer) {
    assert_eq!(
        Timer::new(t.unit(), t.value()),
        Some(t),
        "Timer unit/value round trip"
    );
    match t.duration() {
        None => assert!(t.is_infinite()),
        Some(d) => {
            // Every finite duration a Timer can carry is exactly representable again.
            let again = Timer::from_duration(d).expect("finite timer duration out of range");
            assert_eq!(again.duration(), Some(d), "Timer::from_duration({d:?})");
        }
    }
}

fn check_cp_features(f: &CpFunctionFeatures) {
    assert_eq!(
        CpFunctionFeatures::from_octets(f.octets()).as_ref(),
        Some(f)
    );
    for feat in f.iter() {
        assert!(f.contains(feat));
    }
    let _ = format!("{f:?}");
}

fn check_up_features(f: &UpFunctionFeatures) {
    assert_eq!(
        UpFunctionFeatures::from_octets(f.octets()).as_ref(),
        Some(f)
    );
    for feat in f.iter() {
        assert!(f.contains(feat));
    }
    let _ = format!("{f:?}");
}
