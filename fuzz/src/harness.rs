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
//!   accessors, errors are in bounds and format.
//! * [`roundtrip`]: decode, copy to the owned form, encode, decode again: same value; the IE
//!   octets come back byte for byte and only header spare bits may change.
//! * [`datagram`]: the FO chain: contiguous, non-overlapping, bounded, covering the input when
//!   nothing failed; tighter resource limits never accept more.
//! * [`typed_ie`]: every typed decoder on an arbitrary IE body; decoded values re-encode to an
//!   IE of exactly `encoded_len` octets that decodes to the same value.

#![forbid(unsafe_code)]

use std::fmt::Debug;

use pfcp_wire::encode::{Encode, SliceSink};
use pfcp_wire::header::{NODE_HEADER_LEN, SESSION_HEADER_LEN};
use pfcp_wire::ie::{
    ControlSequenceNumber, CpFunctionFeatures, CreateFar, CreatePdr, CreatedPdr, FSeid, IeIter,
    LoadControlInformation, Metric, NodeId, OciFlags, OffendingIe, OverloadControlInformation,
    RecoveryTimeStamp, Timer, UpFunctionFeatures, IE_HEADER_LEN,
};
use pfcp_wire::owned::OwnedMessage;
use pfcp_wire::presence::mandatory_ies;
use pfcp_wire::{
    Cause, Datagram, DecodeError, DecodeErrorKind, DecodeLimits, EncodeError, IeType, Message,
    RawIe, TypedIe,
};

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

// ---------------------------------------------------------------------------------------------
// decode_message

/// Decode `data` as a datagram and as one message and check everything that can be read.
pub fn decode_message(data: &[u8]) {
    let mut it = Datagram::new(data);
    for item in it.by_ref().take(item_bound(data)) {
        match item {
            Ok(m) => check_message(data, &m),
            Err(e) => check_error(data, &e),
        }
    }
    assert!(
        it.next().is_none(),
        "Datagram yields more items than the input can hold"
    );
    match Message::decode(data) {
        Ok(m) => {
            assert_eq!(m.as_bytes().len(), data.len());
            check_message(data, &m);
        }
        Err(e) => check_error(data, &e),
    }
    check_decode_view(data);
}

/// `Message::decode_view` (one walk) is `decode` then `view`, result for result, with the
/// default limits and with tight ones (depth and IE count errors found mid-walk).
fn check_decode_view(data: &[u8]) {
    for limits in [
        DecodeLimits::DEFAULT,
        DecodeLimits::new(2, 4),
        DecodeLimits::new(1, 1),
        DecodeLimits::new(0, 0),
    ] {
        let two = Message::decode_with_limits(data, limits).and_then(|m| m.view());
        let one = Message::decode_view_with_limits(data, limits);
        assert_eq!(one, two, "decode_view vs decode + view, {limits:?}");
        if let Ok(v) = one {
            assert_eq!(
                v.message.ie_count(),
                two.map_or(0, |w| w.message.ie_count())
            );
        }
    }
}

fn check_message(data: &[u8], m: &Message<'_>) {
    let bytes = m.as_bytes();
    let start = offset_in(data, bytes, "message");
    assert_eq!(start, m.offset(), "message offset");
    let h = m.header();
    assert_eq!(
        usize::from(h.length) + 4,
        bytes.len(),
        "Message Length vs octets"
    );
    assert_eq!(h.message_type, m.message_type());
    let first = bytes.first().copied().unwrap_or_default();
    assert_eq!(first >> 5, 1, "decoded a version other than 1");
    assert_eq!(
        h.seid.is_some(),
        first & 0x01 != 0,
        "SEID presence vs S flag"
    );
    assert_eq!(h.follow_on, first & 0x04 != 0, "FO flag");
    if h.seid.is_none() {
        assert!(h.priority.is_none(), "priority on a node header");
    }
    assert_eq!(
        h.priority.is_some(),
        first & 0x03 == 0x03,
        "priority vs S and MP"
    );
    assert_eq!(
        h.encoded_len() + m.body().len(),
        bytes.len(),
        "header length + body"
    );
    let body_at = offset_in(data, m.body(), "message body");
    assert_eq!(body_at, start + h.encoded_len());
    let s = m.summary();
    assert_eq!(
        (s.version, s.message_type, s.seid, s.sequence, s.priority),
        (1, h.message_type, h.seid, h.sequence, h.priority)
    );

    // Every IE, all levels: framing was checked by decode, so nothing below may fail, and the
    // count must be the one decode reported.
    let mut count = 0usize;
    walk(data, m.ies(), 1, &mut count);
    assert_eq!(count, m.ie_count(), "ie_count vs IEs walked");

    let cause = accessor(data, m, m.cause());
    if let Some(c) = cause {
        assert_ne!(c.0, 0, "Cause 0 decoded");
        let _ = (c.effective(), c.name(), c.to_string());
    }
    let node = accessor(data, m, m.node_id());
    if let Some(n) = node {
        check_node_id(&n);
    }
    let fseid = accessor(data, m, m.f_seid());
    if let Some(f) = fseid {
        assert!(
            f.ipv4.is_some() || f.ipv6.is_some(),
            "F-SEID without address"
        );
    }
    let rts = accessor(data, m, m.recovery_time_stamp());
    if let Some(t) = rts {
        check_rts(t);
    }
    let oci = accessor(data, m, m.overload_control_information());
    if let Some(o) = oci {
        assert!(o.metric.percent() <= 100);
        assert_eq!(o.aoci(), o.flags.is_some_and(|f| f.aoci()));
    }
    let lci = accessor(data, m, m.load_control_information());
    if let Some(l) = lci {
        assert!(l.metric.percent() <= 100);
    }
    let _ = accessor(data, m, m.offending_ie());
    let cp = accessor(data, m, m.cp_function_features());
    if let Some(f) = cp {
        check_cp_features(&f);
    }
    let up = accessor(data, m, m.up_function_features());
    if let Some(f) = up {
        check_up_features(&f);
    }

    let typed = m.check_typed_ies();
    match &typed {
        Ok(()) => {
            // Stricter than every accessor: none of them may fail then.
            assert!(m.cause().is_ok() && m.node_id().is_ok() && m.f_seid().is_ok());
            assert!(m.recovery_time_stamp().is_ok() && m.offending_ie().is_ok());
            assert!(m.overload_control_information().is_ok());
            assert!(m.load_control_information().is_ok());
            assert!(m.cp_function_features().is_ok() && m.up_function_features().is_ok());
        }
        Err(e) => {
            check_error(data, e);
            assert_eq!(
                e.header,
                Some(m.summary()),
                "check_typed_ies error lacks the header"
            );
            let top = e.path.outermost().expect("typed IE error without a path");
            assert!(
                m.ies().flatten().any(|ie| ie.ie_type() == top),
                "check_typed_ies blames IE {top} the message does not have"
            );
        }
    }

    check_view(data, m);

    match m.validate() {
        Ok(()) => {
            let t = m.message_type();
            assert_eq!(
                t.is_session(),
                Some(h.seid.is_some()),
                "validate accepted {t}"
            );
            for &ie in mandatory_ies(t) {
                assert!(m.find(ie).is_some(), "validate accepted {t} without {ie}");
            }
        }
        Err(e) => {
            check_error(data, &e);
            assert_eq!(
                e.header,
                Some(m.summary()),
                "validate error lacks the header"
            );
            let t = m.message_type();
            match e.kind {
                DecodeErrorKind::UnknownMessageType(c) => {
                    assert_eq!(c, t.0);
                    assert!(!t.is_known());
                }
                DecodeErrorKind::SFlagMismatch => {
                    assert_eq!(t.is_session(), Some(h.seid.is_none()));
                }
                DecodeErrorKind::MissingMandatory(ie) => {
                    assert!(mandatory_ies(t).contains(&ie));
                    assert!(
                        m.find(ie).is_none(),
                        "validate says {ie} is missing but it is there"
                    );
                }
                _ => {
                    // A malformed mandatory IE: check_typed_ies must have failed too.
                    let top = e.path.outermost().expect("validate error without a path");
                    assert!(
                        mandatory_ies(t).contains(&top),
                        "{e}: {top} is not mandatory"
                    );
                    assert!(
                        typed.is_err(),
                        "validate failed on {top}, check_typed_ies did not"
                    );
                }
            }
        }
    }
}

/// `Message::view` agrees with `validate` (Ok exactly when it is, the same error when not)
/// and with the accessors (every field is what the accessor gives when it succeeds; a field
/// is left out only for a malformed IE, which the view counts).
fn check_view(data: &[u8], m: &Message<'_>) {
    let view = m.view();
    match (&view, m.validate()) {
        (Ok(_), Err(e)) => panic!("view accepted what validate refuses: {e}"),
        (Err(v), Ok(())) => panic!("view refused what validate accepts: {v}"),
        (Err(v), Err(e)) => {
            check_error(data, v);
            assert_eq!(*v, e, "view and validate disagree");
        }
        (Ok(_), Ok(())) => {}
    }
    let Ok(v) = view else { return };
    assert_eq!(v.message, *m);
    let mut bad = 0;
    fn same<T: PartialEq + Debug>(
        field: &Option<T>,
        got: Result<Option<T>, DecodeError>,
        bad: &mut usize,
    ) {
        match got {
            Ok(g) => assert_eq!(*field, g, "view field vs accessor"),
            Err(_) => *bad += 1,
        }
    }
    same(&v.cause, m.cause(), &mut bad);
    same(&v.node_id, m.node_id(), &mut bad);
    same(&v.f_seid, m.f_seid(), &mut bad);
    same(&v.recovery_time_stamp, m.recovery_time_stamp(), &mut bad);
    same(
        &v.overload_control_information,
        m.overload_control_information(),
        &mut bad,
    );
    same(
        &v.load_control_information,
        m.load_control_information(),
        &mut bad,
    );
    assert!(
        v.ignored >= bad,
        "view ignored {} IEs, {bad} accessors failed",
        v.ignored
    );
    let pdrs: Vec<Result<CreatePdr<'_>, DecodeError>> = v.create_pdrs().collect();
    let by_type = m
        .ies()
        .flatten()
        .filter(|ie| ie.ie_type() == IeType::CREATE_PDR)
        .count();
    assert_eq!(pdrs.len(), by_type, "view's Create PDRs");
    for (p, ie) in pdrs.iter().zip(
        m.ies()
            .flatten()
            .filter(|ie| ie.ie_type() == IeType::CREATE_PDR),
    ) {
        assert_eq!(*p, ie.decode_as::<CreatePdr<'_>>());
    }
    let _ = (
        v.create_fars().count(),
        v.created_pdrs().flatten().count(),
        v.usage_reports_srr().flatten().count(),
    );
    let _: Option<CreateFar<'_>> = v.create_fars().flatten().next();
    let _: Option<CreatedPdr<'_>> = v.created_pdrs().flatten().next();
}

/// Walk an IE list; grouped IEs recursively (must not fail: decode checked their framing),
/// other IEs one level deep as if grouped (may fail; only bounds are checked).
fn walk(data: &[u8], ies: IeIter<'_>, depth: usize, count: &mut usize) {
    for ie in ies {
        let ie = ie.unwrap_or_else(|e| panic!("framing-checked IE list failed: {e}"));
        *count += 1;
        check_raw_ie(data, &ie, depth);
        if ie.ie_type().is_grouped() {
            walk(data, ie.children(), depth + 1, count);
        } else {
            for child in ie.children() {
                match child {
                    Ok(c) => check_raw_ie(data, &c, depth + 1),
                    Err(e) => {
                        check_error(data, &e);
                        assert!(e.offset >= ie.value_offset());
                        assert!(e.offset <= ie.offset() + ie.encoded_len());
                        assert_eq!(e.path.outermost(), ie.path().outermost());
                    }
                }
            }
        }
    }
}

fn check_raw_ie(data: &[u8], ie: &RawIe<'_>, depth: usize) {
    let at = ie.offset();
    let end = at + ie.encoded_len();
    assert!(
        end <= data.len(),
        "IE at {at} ends at {end}, past the input"
    );
    let value_at = offset_in(data, ie.value(), "IE value");
    assert_eq!(value_at, ie.value_offset(), "IE value offset");
    assert_eq!(value_at + ie.value().len(), end, "IE value end");
    let t = ie.ie_type().0.to_be_bytes();
    let l = ie.length().to_be_bytes();
    assert_eq!(
        data.get(at..at + 4),
        Some(&[t[0], t[1], l[0], l[1]][..]),
        "IE header octets"
    );
    match ie.enterprise_id() {
        Some(eid) => {
            assert!(ie.ie_type().is_vendor());
            assert_eq!(data.get(at + 4..at + 6), Some(&eid.to_be_bytes()[..]));
        }
        None => assert!(!ie.ie_type().is_vendor()),
    }
    assert_eq!(ie.path().depth(), depth, "IE path depth");
    if depth <= pfcp_wire::error::IE_PATH_CAPACITY {
        assert_eq!(ie.path().innermost(), Some(ie.ie_type()));
    }
    let _ = format!("{ie:?} {} {}", ie.ie_type(), ie.path());
}

/// Check a typed accessor's result against decoding the first IE of its type by hand.
fn accessor<'a, T>(data: &[u8], m: &Message<'a>, got: Result<Option<T>, DecodeError>) -> Option<T>
where
    T: TypedIe<'a> + PartialEq + Debug,
{
    let first = m.ies().flatten().find(|ie| ie.ie_type() == T::IE_TYPE);
    assert_eq!(first, m.find(T::IE_TYPE));
    let by_hand = first.map(|ie| ie.decode_as::<T>()).transpose();
    assert_eq!(
        got,
        by_hand,
        "accessor for {} disagrees with decode_as",
        T::IE_TYPE
    );
    match got {
        Ok(v) => {
            let _ = format!("{v:?}");
            v
        }
        Err(e) => {
            check_error(data, &e);
            let ie = first.expect("accessor error without the IE");
            assert_eq!(e.path.outermost(), Some(T::IE_TYPE), "{e}");
            assert!(e.offset >= ie.offset() && e.offset < ie.offset() + ie.encoded_len());
            None
        }
    }
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

// ---------------------------------------------------------------------------------------------
// roundtrip

/// Decode → owned → encode → decode for every message of the datagram.
pub fn roundtrip(data: &[u8]) {
    for m in Datagram::new(data).take(item_bound(data)).flatten() {
        roundtrip_message(&m);
    }
}

fn roundtrip_message(m: &Message<'_>) {
    let original = m.as_bytes();
    let owned = OwnedMessage::from_message(m)
        .unwrap_or_else(|e| panic!("from_message failed on a decoded message: {e}"));
    let bytes = owned
        .to_bytes()
        .unwrap_or_else(|e| panic!("re-encoding a decoded message failed: {e}"));
    assert_eq!(owned.encoded_len(), bytes.len(), "encoded_len vs to_bytes");
    assert_eq!(
        bytes.len(),
        original.len(),
        "re-encoding changed the length"
    );

    // Into a caller's buffer: exactly encoded_len octets suffice, one fewer does not.
    let mut exact = vec![0u8; bytes.len()];
    assert_eq!(
        owned.encode(&mut SliceSink::new(&mut exact)),
        Ok(bytes.len())
    );
    assert_eq!(exact, bytes, "SliceSink and Vec encodings differ");
    let mut short = vec![0u8; bytes.len() - 1];
    assert!(matches!(
        owned.encode(&mut SliceSink::new(&mut short)),
        Err(EncodeError::BufferTooSmall { .. })
    ));

    let again = Message::decode(&bytes)
        .unwrap_or_else(|e| panic!("re-encoded message does not decode: {e}"));
    let owned2 = OwnedMessage::from_message(&again)
        .unwrap_or_else(|e| panic!("from_message failed on the re-encoding: {e}"));
    assert_eq!(owned2, owned, "decode(encode(decode(b))) != decode(b)");
    assert_eq!(again.ie_count(), m.ie_count());
    assert_eq!(again.header().seid, m.header().seid);
    assert_eq!(again.header().priority, m.header().priority);
    assert_eq!(again.header().sequence, m.header().sequence);
    assert_eq!(again.header().follow_on, m.header().follow_on);
    // The IEs are copied byte for byte, whatever their content.
    assert_eq!(again.body(), m.body(), "re-encoding changed the IE octets");
    assert_eq!(
        owned2.to_bytes().ok().as_ref(),
        Some(&bytes),
        "encoding is not idempotent"
    );

    if bytes == original {
        return;
    }
    // Not canonical: only the header's spare bits (and MP on a node header) may differ.
    let hl = m.header().encoded_len();
    let canonical = canonical_header(original, hl);
    assert_eq!(
        bytes.get(..hl),
        canonical.get(..hl),
        "header re-encoded differently than by clearing spare bits"
    );
}

/// The header of `msg` with the bits pfcp-wire ignores cleared: octet 1 spare bits, MP on a
/// node header, the spare octet of a node header, the spare nibble after the priority (or the
/// whole octet 16 without MP).
fn canonical_header(msg: &[u8], hl: usize) -> [u8; SESSION_HEADER_LEN] {
    let mut h = [0u8; SESSION_HEADER_LEN];
    for (d, s) in h.iter_mut().zip(msg.iter().take(hl)) {
        *d = *s;
    }
    let session = h[0] & 0x01 != 0;
    let mp = h[0] & 0x02 != 0;
    h[0] &= if session { 0xE7 } else { 0xE5 };
    let last = hl - 1;
    h[last] = if session && mp { h[last] & 0xF0 } else { 0 };
    h
}

// ---------------------------------------------------------------------------------------------
// datagram

/// The FO chain: contiguous, bounded, non-overlapping, covering the input when all is well.
pub fn datagram(data: &[u8]) {
    let bound = item_bound(data);
    let mut it = Datagram::new(data);
    let mut items = Vec::new();
    for item in it.by_ref().take(bound) {
        items.push(item);
    }
    assert!(
        it.next().is_none(),
        "Datagram yields more items than the input can hold"
    );
    assert!(it.next().is_none(), "Datagram resumes after the end");
    assert!(!items.is_empty(), "a datagram yields at least one item");

    let mut next_at = 0usize;
    let mut last_fo: Option<bool> = None;
    let mut error = None;
    for (i, item) in items.iter().enumerate() {
        assert!(error.is_none(), "item {i} after an error");
        match item {
            Ok(m) => {
                assert!(last_fo != Some(false), "message after one with FO=0");
                let at = offset_in(data, m.as_bytes(), "message");
                assert_eq!(
                    at, next_at,
                    "message {i} is not contiguous with the previous one"
                );
                assert_eq!(m.offset(), at);
                assert!(m.as_bytes().len() >= NODE_HEADER_LEN);
                next_at = at + m.as_bytes().len();
                last_fo = Some(m.header().follow_on);
                // The same octets on their own decode to the same message.
                let alone = Message::decode(m.as_bytes())
                    .unwrap_or_else(|e| panic!("message {i} does not decode alone: {e}"));
                assert_eq!(alone.header(), m.header());
                assert_eq!(alone.ie_count(), m.ie_count());
            }
            Err(e) => {
                check_error(data, e);
                assert!(
                    e.offset >= next_at,
                    "error at {} inside message before",
                    e.offset
                );
                match e.kind {
                    DecodeErrorKind::TrailingData { count } => {
                        assert_eq!(last_fo, Some(false));
                        assert_eq!(count, data.len() - next_at);
                        assert!(count > 0);
                    }
                    DecodeErrorKind::Truncated { available: 0, .. } if last_fo == Some(true) => {
                        assert_eq!(next_at, data.len(), "FO=1 at the end");
                    }
                    _ => {}
                }
                error = Some(*e);
            }
        }
    }
    if error.is_none() {
        assert_eq!(next_at, data.len(), "messages do not cover the datagram");
        assert_eq!(last_fo, Some(false), "last message has FO=1 yet no error");
    }

    // A whole-input Message::decode succeeds exactly when the first message fills the input.
    let whole = Message::decode(data);
    let first_fills = matches!(items.first(), Some(Ok(m)) if m.as_bytes().len() == data.len());
    assert_eq!(
        whole.is_ok(),
        first_fills,
        "Message::decode vs Datagram on the whole input"
    );

    // Tighter limits never accept more: each message they accept is accepted at the same
    // place with the default limits, within the tighter counts.
    let tight = DecodeLimits::new(3, 12);
    for (i, item) in Datagram::with_limits(data, tight).take(bound).enumerate() {
        match item {
            Ok(m) => {
                assert!(m.ie_count() <= 12);
                match items.get(i) {
                    Some(Ok(d)) => {
                        assert_eq!(d.offset(), m.offset());
                        assert_eq!(d.ie_count(), m.ie_count());
                    }
                    other => panic!("tight limits accepted message {i}, defaults gave {other:?}"),
                }
            }
            Err(e) => {
                check_error(data, &e);
                break;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// typed_ie

/// The octets of one IE of type `ie_type` with `body` (truncated to fit the Length field).
fn ie_bytes(ie_type: u16, body: &[u8]) -> Vec<u8> {
    let body = body.get(..usize::from(u16::MAX)).unwrap_or(body);
    let mut v = Vec::with_capacity(IE_HEADER_LEN + body.len());
    v.extend_from_slice(&ie_type.to_be_bytes());
    v.extend_from_slice(&(body.len() as u16).to_be_bytes());
    v.extend_from_slice(body);
    v
}

/// The single IE in `bytes` (which holds exactly one); `Err` if it does not frame.
fn only_ie(bytes: &[u8]) -> Result<RawIe<'_>, DecodeError> {
    let mut it = IeIter::new(bytes, 0);
    let ie = it.next().expect("an IE list with octets yields an item")?;
    assert!(it.next().is_none(), "one IE's octets yield a second item");
    assert_eq!(ie.encoded_len(), bytes.len());
    Ok(ie)
}

/// Decode `raw` as `$t` (must fail unless the type matches), then the same body under `$t`'s
/// own type; re-encode what decodes and decode that again.
macro_rules! typed {
    ($raw:expr, $body:expr, $t:ty $(, $check:expr)?) => {{
        let raw: &RawIe<'_> = $raw;
        let as_given = raw.decode_as::<$t>();
        let own_type = <$t as TypedIe<'_>>::IE_TYPE;
        let buf = ie_bytes(own_type.0, $body);
        let ie = only_ie(&buf).expect("a non-vendor IE always frames");
        let decoded = ie.decode_as::<$t>();
        assert_eq!(
            <$t as TypedIe<'_>>::check(&ie),
            decoded.as_ref().map(|_| ()).map_err(|e| *e),
            "{}: check and decode disagree",
            stringify!($t)
        );
        if raw.ie_type() == own_type {
            assert_eq!(as_given, decoded, "same IE decodes differently");
        } else {
            assert!(
                matches!(as_given, Err(ref e) if matches!(e.kind, DecodeErrorKind::InvalidValue(_))),
                "decode_as::<{}> accepted IE type {}",
                stringify!($t),
                raw.ie_type()
            );
        }
        match decoded {
            Ok(v) => {
                $( ($check)(&v); )?
                let mut out = Vec::new();
                v.encode(&mut out)
                    .unwrap_or_else(|e| panic!("{}: decoded value does not encode: {e}", stringify!($t)));
                assert_eq!(v.encoded_len(), out.len(), "{}: encoded_len", stringify!($t));
                let again = only_ie(&out)
                    .unwrap_or_else(|e| panic!("{}: re-encoding does not frame: {e}", stringify!($t)));
                assert_eq!(again.ie_type(), own_type);
                let back = again
                    .decode_as::<$t>()
                    .unwrap_or_else(|e| panic!("{}: re-encoding does not decode: {e}", stringify!($t)));
                assert_eq!(back, v, "{}: decode(encode(v)) != v", stringify!($t));
            }
            Err(e) => {
                check_error(&buf, &e);
                assert!(e.offset < buf.len());
                assert_eq!(e.path.outermost(), Some(own_type), "{e}");
            }
        }
    }};
}

/// Run every typed decoder on an IE built from `data`: type from the first two octets, the
/// rest as the body.
pub fn typed_ie(data: &[u8]) {
    let [t0, t1, body @ ..] = data else {
        return;
    };
    let ie_type = u16::from_be_bytes([*t0, *t1]);
    let buf = ie_bytes(ie_type, body);
    let raw = match only_ie(&buf) {
        Ok(raw) => raw,
        Err(e) => {
            // Only a vendor IE too short for its Enterprise ID fails to frame.
            assert!(IeType(ie_type).is_vendor() && body.len() < 2, "{e}");
            check_error(&buf, &e);
            return;
        }
    };
    typed!(&raw, body, Cause, |c: &Cause| assert_ne!(c.0, 0));
    typed!(&raw, body, NodeId<'_>, check_node_id);
    typed!(&raw, body, FSeid, |f: &FSeid| assert!(
        f.ipv4.is_some() || f.ipv6.is_some()
    ));
    typed!(&raw, body, RecoveryTimeStamp, |t: &RecoveryTimeStamp| {
        check_rts(*t)
    });
    typed!(&raw, body, OffendingIe);
    typed!(&raw, body, CpFunctionFeatures, check_cp_features);
    typed!(&raw, body, UpFunctionFeatures, check_up_features);
    typed!(&raw, body, ControlSequenceNumber);
    typed!(&raw, body, Metric, |m: &Metric| assert!(m.percent() <= 100));
    typed!(&raw, body, Timer, |t: &Timer| check_timer(*t));
    typed!(&raw, body, OciFlags);
    typed!(
        &raw,
        body,
        OverloadControlInformation,
        |o: &OverloadControlInformation| { check_timer(o.period_of_validity) }
    );
    typed!(&raw, body, LoadControlInformation);
    session_ies(&raw, body);
}

/// The typed IEs of the session messages (`pfcp_wire::ie`'s rule IEs and their members).
fn session_ies(raw: &RawIe<'_>, body: &[u8]) {
    use pfcp_wire::ie::*;
    typed!(raw, body, SourceInterface);
    typed!(raw, body, DestinationInterface);
    typed!(raw, body, FTeid, |f: &FTeid| {
        if let FTeid::Assigned { ipv4, ipv6, .. } = f {
            assert!(ipv4.is_some() || ipv6.is_some(), "F-TEID without address");
        }
    });
    typed!(raw, body, UeIpAddress);
    typed!(raw, body, OuterHeaderCreation);
    typed!(raw, body, OuterHeaderRemoval);
    typed!(raw, body, NetworkInstance<'_>);
    typed!(raw, body, ApplicationId<'_>);
    typed!(raw, body, SdfFilter<'_>);
    typed!(raw, body, GateStatus);
    typed!(raw, body, Mbr);
    typed!(raw, body, Gbr);
    typed!(raw, body, Qfi, |q: &Qfi| assert!(q.value() <= 63));
    typed!(raw, body, ApplyAction);
    typed!(raw, body, MeasurementMethod);
    typed!(raw, body, ReportingTriggers);
    typed!(raw, body, UsageReportTrigger);
    typed!(raw, body, ReportType);
    typed!(raw, body, VolumeThreshold);
    typed!(raw, body, VolumeQuota);
    typed!(raw, body, VolumeMeasurement);
    typed!(raw, body, PdrId);
    typed!(raw, body, FarId);
    typed!(raw, body, UrrId);
    typed!(raw, body, QerId);
    typed!(raw, body, BarId);
    typed!(raw, body, Precedence);
    typed!(raw, body, UrSeqn);
    typed!(raw, body, TimeThreshold);
    typed!(raw, body, TimeQuota);
    typed!(raw, body, DurationMeasurement);
    typed!(raw, body, QerCorrelationId);
    typed!(raw, body, DownlinkDataNotificationDelay);
    typed!(raw, body, CreatePdr<'_>, check_owned);
    typed!(raw, body, Pdi<'_>, check_owned);
    typed!(raw, body, CreateFar<'_>, check_owned);
    typed!(raw, body, ForwardingParameters<'_>, check_owned);
    typed!(raw, body, DuplicatingParameters);
    typed!(raw, body, CreateUrr);
    typed!(raw, body, CreateQer);
    typed!(raw, body, CreateBar);
    typed!(raw, body, CreatedPdr<'_>, check_owned);
    typed!(raw, body, UpdatePdr<'_>, check_owned);
    typed!(raw, body, UpdateFar<'_>, check_owned);
    typed!(raw, body, UpdateForwardingParameters<'_>, check_owned);
    typed!(raw, body, UpdateUrr);
    typed!(raw, body, UpdateQer);
    typed!(raw, body, UpdateBar);
    typed!(raw, body, RemovePdr);
    typed!(raw, body, RemoveFar);
    typed!(raw, body, RemoveUrr);
    typed!(raw, body, RemoveQer);
    typed!(raw, body, RemoveBar);
    typed!(raw, body, UsageReportSrr);
    typed!(raw, body, UsageReportSmr);
    typed!(raw, body, UsageReportSdr);
    typed!(raw, body, DownlinkDataReport<'_>, check_owned);
}

/// The owned form of a decoded value is equal to it and encodes to the same octets.
fn check_owned<T>(v: &T)
where
    T: pfcp_wire::ie::IntoOwned + Clone + PartialEq<T> + Encode + Debug,
    T::Owned: Encode + Debug,
{
    let owned = v.clone().into_owned();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    v.encode(&mut a).expect("decoded value encodes");
    owned.encode(&mut b).expect("owned value encodes");
    assert_eq!(a, b, "owned form encodes differently: {owned:?}");
}
