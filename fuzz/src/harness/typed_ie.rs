//! The `typed_ie` target: every typed IE decoder on one IE built from the input, and the
//! re-encoding of whatever decodes.

use std::fmt::Debug;

use pfcp_wire::encode::Encode;
use pfcp_wire::ie::{
    ControlSequenceNumber, CpFunctionFeatures, FSeid, IeIter, LoadControlInformation, Metric,
    NodeId, OciFlags, OffendingIe, OverloadControlInformation, RecoveryTimeStamp, Timer,
    UpFunctionFeatures, IE_HEADER_LEN,
};
use pfcp_wire::{Cause, DecodeError, DecodeErrorKind, IeType, RawIe, TypedIe};

use super::{
    check_cp_features, check_error, check_node_id, check_rts, check_timer, check_up_features,
};

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
