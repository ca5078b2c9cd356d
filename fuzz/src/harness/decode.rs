//! The `decode_message` target: a datagram and a whole input decoded, and everything that can
//! be read from a decoded message (headers, every IE at every level, the typed accessors, the
//! one-pass view, `validate`) checked against the input and against each other.

use std::fmt::Debug;

use pfcp_wire::ie::{CreateFar, CreatePdr, CreatedPdr, IeIter};
use pfcp_wire::presence::mandatory_ies;
use pfcp_wire::{
    Datagram, DecodeError, DecodeErrorKind, DecodeLimits, IeType, Message, RawIe, TypedIe,
};

use super::{
    check_cp_features, check_error, check_node_id, check_rts, check_up_features, item_bound,
    offset_in,
};

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
    super::typed::check_typed(data);
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
