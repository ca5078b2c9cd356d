//! Property tests: generated valid messages and typed IEs survive encode → decode unchanged,
//! encoders write exactly `encoded_len()` octets, every truncation of a valid message is an
//! error, FO bundles iterate back to their messages, and `Timer::from_duration` rounds up to
//! the nearest representable period.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::{select, subsequence};

use pfcp_wire::encode::{Encode, MessageWriter, SliceSink};
use pfcp_wire::ie::{
    ControlSequenceNumber, CpFunctionFeatures, FSeid, Fqdn, IeIter, LoadControlInformation, Metric,
    NodeId, OciFlags, OffendingIe, OverloadControlInformation, RecoveryTimeStamp, Timer, TimerUnit,
    UpFunctionFeatures, FQDN_MAX_WIRE_LEN, TIMER_MAX_FINITE,
};
use pfcp_wire::owned::{IeContent, OwnedIe, OwnedMessage};
use pfcp_wire::{
    Cause, Datagram, DecodeErrorKind, Header, IeType, Message, MessagePriority, MessageType,
    SequenceNumber,
};

// ---------------------------------------------------------------------------------------------
// Strategies: messages

/// Every IE type TS 29.244 defines as grouped (the table stops below 400).
fn grouped_types() -> Vec<IeType> {
    (1..400).map(IeType).filter(|t| t.is_grouped()).collect()
}

fn grouped_type() -> impl Strategy<Value = IeType> {
    select(grouped_types())
}

/// A non-vendor, non-grouped type: mostly the spec's range, sometimes any unknown one.
fn plain_type() -> impl Strategy<Value = IeType> {
    prop_oneof![3 => 0u16..=400, 1 => 0u16..0x8000]
        .prop_map(IeType)
        .prop_filter("grouped types get children", |t| !t.is_grouped())
}

fn raw_ie(ie_type: IeType, body: Vec<u8>) -> OwnedIe {
    OwnedIe {
        ie_type,
        enterprise_id: None,
        content: IeContent::Raw(body.into()),
    }
}

fn leaf_ie() -> impl Strategy<Value = OwnedIe> {
    prop_oneof![
        6 => (plain_type(), vec(any::<u8>(), 0..24)).prop_map(|(t, v)| raw_ie(t, v)),
        2 => (0x8000u16..=u16::MAX, any::<u16>(), vec(any::<u8>(), 0..16)).prop_map(
            |(t, eid, v)| OwnedIe {
                ie_type: IeType(t),
                enterprise_id: Some(eid),
                content: IeContent::Raw(v.into()),
            }
        ),
        1 => grouped_type().prop_map(|t| OwnedIe {
            ie_type: t,
            enterprise_id: None,
            content: IeContent::Grouped(Vec::new()),
        }),
    ]
}

/// An IE tree: grouped types hold child IEs (up to 4 levels below), other types raw bodies,
/// vendor types an Enterprise ID.
fn ie_tree(depth: u32) -> impl Strategy<Value = OwnedIe> {
    leaf_ie().prop_recursive(depth, 48, 6, |inner| {
        (grouped_type(), vec(inner, 0..6)).prop_map(|(t, children)| OwnedIe {
            ie_type: t,
            enterprise_id: None,
            content: IeContent::Grouped(children),
        })
    })
}

/// A message of any of the 25 types, its header consistent with the type (SEID and priority
/// only on session messages), within the 16-bit Message Length.
fn message_with(ies: impl Strategy<Value = Vec<OwnedIe>>) -> impl Strategy<Value = OwnedMessage> {
    (
        select(MessageType::ALL),
        any::<u64>(),
        0u32..=0x00FF_FFFF,
        option::of(0u8..=15),
        any::<bool>(),
        ies,
    )
        .prop_map(|(t, seid, seq, prio, follow_on, ies)| {
            let session = t.is_session() == Some(true);
            let mut m = OwnedMessage::new(t, SequenceNumber::new(seq).unwrap());
            m.seid = session.then_some(seid);
            m.priority = prio
                .filter(|_| session)
                .map(|p| MessagePriority::new(p).unwrap());
            m.follow_on = follow_on;
            // Trees this small stay far below every 16-bit Length.
            m.with_ies(&ies).expect("generated IEs fit")
        })
        .prop_filter("fits the 16-bit Message Length", |m| {
            m.encoded_len() <= usize::from(u16::MAX) + 4
        })
}

fn message() -> impl Strategy<Value = OwnedMessage> {
    message_with(vec(ie_tree(4), 0..8))
}

/// Smaller messages, for properties that decode every prefix.
fn small_message() -> impl Strategy<Value = OwnedMessage> {
    message_with(vec(ie_tree(2), 0..4))
}

fn count_ies(ies: &[OwnedIe]) -> usize {
    ies.iter()
        .map(|ie| {
            1 + match &ie.content {
                IeContent::Raw(_) => 0,
                IeContent::Grouped(c) => count_ies(c),
            }
        })
        .sum()
}

fn encode(m: &OwnedMessage) -> Vec<u8> {
    let bytes = m.to_bytes().expect("a valid message encodes");
    assert_eq!(
        bytes.len(),
        m.encoded_len(),
        "encoded_len vs octets written"
    );
    bytes
}

fn decode_owned(bytes: &[u8]) -> OwnedMessage {
    let msg = Message::decode(bytes).unwrap_or_else(|e| panic!("does not decode: {e}"));
    OwnedMessage::from_message(&msg).expect("from_message")
}

// ---------------------------------------------------------------------------------------------
// Strategies: typed IEs

fn timer() -> impl Strategy<Value = Timer> {
    any::<u8>().prop_map(Timer)
}

fn metric() -> impl Strategy<Value = Metric> {
    prop_oneof![
        3 => (0u8..=100).prop_map(|p| Metric::new(p).unwrap()),
        1 => any::<u8>().prop_map(Metric::from_raw),
    ]
}

fn oci() -> impl Strategy<Value = OverloadControlInformation> {
    (
        any::<u32>(),
        metric(),
        timer(),
        option::of(any::<u8>().prop_map(OciFlags)),
    )
        .prop_map(|(seq, metric, timer, flags)| OverloadControlInformation {
            sequence_number: ControlSequenceNumber(seq),
            metric,
            period_of_validity: timer,
            flags,
        })
}

fn lci() -> impl Strategy<Value = LoadControlInformation> {
    (any::<u32>(), metric()).prop_map(|(seq, metric)| LoadControlInformation {
        sequence_number: ControlSequenceNumber(seq),
        metric,
    })
}

/// Owned material for a Node ID (which borrows its FQDN).
#[derive(Debug, Clone)]
enum NodeIdSpec {
    V4(Ipv4Addr),
    V6(Ipv6Addr),
    /// Dotted name from LDH labels.
    Dotted(String),
    /// Wire form from labels of any octets.
    Wire(Vec<u8>),
}

impl NodeIdSpec {
    fn node_id(&self) -> NodeId<'_> {
        match self {
            NodeIdSpec::V4(a) => NodeId::Ipv4(*a),
            NodeIdSpec::V6(a) => NodeId::Ipv6(*a),
            NodeIdSpec::Dotted(s) => NodeId::Fqdn(Fqdn::from_dotted(s).unwrap()),
            NodeIdSpec::Wire(w) => NodeId::Fqdn(Fqdn::from_wire(w).unwrap()),
        }
    }
}

fn node_id() -> impl Strategy<Value = NodeIdSpec> {
    let dotted = vec("[a-z0-9][a-z0-9-]{0,62}", 1..=4)
        .prop_map(|labels| labels.join("."))
        .prop_filter("FQDN fits 254 octets", |s| s.len() < FQDN_MAX_WIRE_LEN);
    let wire = vec(vec(any::<u8>(), 1..=63), 1..=4)
        .prop_map(|labels| {
            let mut w = Vec::new();
            for l in labels {
                w.push(l.len() as u8);
                w.extend(l);
            }
            w
        })
        .prop_filter("FQDN fits 254 octets", |w| w.len() <= FQDN_MAX_WIRE_LEN);
    prop_oneof![
        any::<[u8; 4]>().prop_map(|a| NodeIdSpec::V4(a.into())),
        any::<[u8; 16]>().prop_map(|a| NodeIdSpec::V6(a.into())),
        dotted.prop_map(NodeIdSpec::Dotted),
        wire.prop_map(NodeIdSpec::Wire),
    ]
}

fn fseid() -> impl Strategy<Value = FSeid> {
    (any::<u64>(), any::<[u8; 4]>(), any::<[u8; 16]>(), 1u8..=3).prop_map(
        |(seid, v4, v6, which)| FSeid {
            seid,
            ipv4: (which & 2 != 0).then(|| v4.into()),
            ipv6: (which & 1 != 0).then(|| v6.into()),
        },
    )
}

fn cause() -> impl Strategy<Value = Cause> {
    (1u8..=255).prop_map(Cause)
}

fn cp_features() -> impl Strategy<Value = CpFunctionFeatures> {
    let all = CpFunctionFeatures::ALL.to_vec();
    prop_oneof![
        vec(any::<u8>(), 1..=32).prop_map(|o| CpFunctionFeatures::from_octets(&o).unwrap()),
        subsequence(all.clone(), 0..=all.len()).prop_map(|fs| {
            fs.into_iter()
                .fold(CpFunctionFeatures::empty(), CpFunctionFeatures::with)
        }),
    ]
}

fn up_features() -> impl Strategy<Value = UpFunctionFeatures> {
    let all = UpFunctionFeatures::ALL.to_vec();
    prop_oneof![
        vec(any::<u8>(), 1..=32).prop_map(|o| UpFunctionFeatures::from_octets(&o).unwrap()),
        subsequence(all.clone(), 0..=all.len()).prop_map(|fs| {
            fs.into_iter()
                .fold(UpFunctionFeatures::empty(), UpFunctionFeatures::with)
        }),
    ]
}

/// Encode `$v` as an IE (into a Vec and into an exact slice), check the length, decode it
/// with `IeIter` + `decode_as::<$t>` and compare.
macro_rules! assert_ie_roundtrip {
    ($v:expr, $t:ty) => {{
        let v: $t = $v;
        let mut out = Vec::new();
        v.encode(&mut out).unwrap();
        prop_assert_eq!(v.encoded_len(), out.len());
        let mut exact = vec![0u8; out.len()];
        v.encode(&mut SliceSink::new(&mut exact)).unwrap();
        prop_assert_eq!(&exact, &out);
        let mut it = IeIter::new(&out, 0);
        let ie = it.next().expect("one IE").expect("frames");
        prop_assert!(it.next().is_none());
        prop_assert_eq!(ie.ie_type(), <$t as pfcp_wire::TypedIe<'_>>::IE_TYPE);
        let back = ie.decode_as::<$t>();
        prop_assert_eq!(back, Ok(v));
    }};
}

// ---------------------------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// decode(encode(m)) == m, and the encoding has exactly encoded_len() octets.
    #[test]
    fn message_roundtrip(m in message()) {
        let bytes = encode(&m);
        let msg = Message::decode(&bytes).unwrap();
        prop_assert_eq!(msg.ie_count(), count_ies(&m.to_ies()));
        prop_assert_eq!(msg.header().seid, m.seid);
        prop_assert_eq!(msg.header().priority, m.priority);
        prop_assert_eq!(OwnedMessage::from_message(&msg).unwrap(), m.clone());
        // The owned form's encoding is canonical: encoding again gives the same octets.
        prop_assert_eq!(encode(&decode_owned(&bytes)), bytes.clone());
        // Into a caller's buffer: exactly encoded_len suffices, one octet less does not.
        let mut exact = vec![0u8; bytes.len()];
        prop_assert_eq!(m.encode(&mut SliceSink::new(&mut exact)), Ok(bytes.len()));
        prop_assert_eq!(&exact, &bytes);
        let mut short = vec![0u8; bytes.len() - 1];
        prop_assert!(m.encode(&mut SliceSink::new(&mut short)).is_err());
    }

    /// Every strict prefix of a valid message is an error, from Message::decode and from
    /// Datagram (which then yields no message at all).
    #[test]
    fn truncations_are_errors(m in small_message()) {
        let bytes = encode(&m);
        for cut in 0..bytes.len() {
            let prefix = &bytes[..cut];
            prop_assert!(Message::decode(prefix).is_err(), "prefix of {} octets decoded", cut);
            let items: Vec<_> = Datagram::new(prefix).collect();
            prop_assert_eq!(items.len(), 1, "prefix of {} octets", cut);
            prop_assert!(items[0].is_err(), "prefix of {} octets", cut);
        }
        // One octet too many: trailing data for Message::decode; for Datagram too when FO=0
        // (the message first, then the error), a truncated next message when FO=1.
        let mut longer = bytes.clone();
        longer.push(0);
        let e = Message::decode(&longer).unwrap_err();
        prop_assert_eq!(e.kind, DecodeErrorKind::TrailingData { count: 1 });
        let items: Vec<_> = Datagram::new(&longer).collect();
        prop_assert_eq!(items.len(), 2);
        prop_assert!(items[0].is_ok());
        let e = items[1].unwrap_err();
        prop_assert_eq!(e.offset, bytes.len());
        if m.follow_on {
            prop_assert!(
                matches!(e.kind, DecodeErrorKind::Truncated { available: 1, .. }),
                "{:?}",
                e.kind
            );
        } else {
            prop_assert_eq!(e.kind, DecodeErrorKind::TrailingData { count: 1 });
        }
    }

    /// N messages bundled with FO=1 on all but the last iterate back to the same N messages;
    /// cut anywhere, the bundle yields the messages entirely before the cut, then one error.
    #[test]
    fn fo_bundles(mut msgs in vec(small_message(), 1..6)) {
        let n = msgs.len();
        for (i, m) in msgs.iter_mut().enumerate() {
            m.follow_on = i + 1 < n;
        }
        let mut bundle = Vec::new();
        let mut ends = Vec::new();
        for m in &msgs {
            bundle.extend(encode(m));
            ends.push(bundle.len());
        }
        let got: Vec<OwnedMessage> = Datagram::new(&bundle)
            .map(|r| OwnedMessage::from_message(&r.unwrap()).unwrap())
            .collect();
        prop_assert_eq!(&got, &msgs);

        for cut in (0..bundle.len()).step_by(7) {
            let items: Vec<_> = Datagram::new(&bundle[..cut]).collect();
            let complete = ends.iter().filter(|&&e| e <= cut).count();
            prop_assert_eq!(items.len(), complete + 1, "cut at {}", cut);
            prop_assert!(items[..complete].iter().all(Result::is_ok));
            prop_assert!(items[complete].is_err());
        }

        // FO=1 on the last message too: the messages, then an error for the missing one.
        msgs[n - 1].follow_on = true;
        let mut dangling = bundle.clone();
        let last_start = ends.len().checked_sub(2).map_or(0, |i| ends[i]);
        dangling[last_start] |= 0x04;
        let items: Vec<_> = Datagram::new(&dangling).collect();
        prop_assert_eq!(items.len(), n + 1);
        prop_assert!(items[n].is_err());
    }

    /// Typed IEs written by MessageWriter come back through the message accessors.
    #[test]
    fn accessors_return_what_was_written(
        spec in node_id(), c in cause(), o in oci(), l in lci(), f in fseid(),
        rts in any::<u32>(), seq in 0u32..=0x00FF_FFFF, prio in 0u8..=15,
    ) {
        let header = Header::new(MessageType::SESSION_ESTABLISHMENT_RESPONSE)
            .with_seid(f.seid)
            .with_sequence(SequenceNumber::new(seq).unwrap())
            .with_priority(MessagePriority::new(prio).unwrap());
        let node = spec.node_id();
        let mut buf = Vec::new();
        let mut w = MessageWriter::begin(&mut buf, &header).unwrap();
        w.ie(&node).unwrap()
            .ie(&c).unwrap()
            .ie(&f).unwrap()
            .ie(&o).unwrap()
            .ie(&l).unwrap()
            .ie(&RecoveryTimeStamp(rts)).unwrap();
        let n = w.finish().unwrap();
        prop_assert_eq!(n, buf.len());
        let msg = Message::decode(&buf).unwrap();
        prop_assert_eq!(msg.node_id().unwrap(), Some(node));
        prop_assert_eq!(msg.cause().unwrap(), Some(c));
        prop_assert_eq!(msg.f_seid().unwrap(), Some(f));
        prop_assert_eq!(msg.overload_control_information().unwrap(), Some(o));
        prop_assert_eq!(msg.load_control_information().unwrap(), Some(l));
        prop_assert_eq!(msg.recovery_time_stamp().unwrap(), Some(RecoveryTimeStamp(rts)));
        prop_assert_eq!(msg.header().priority, MessagePriority::new(prio));
        prop_assert!(msg.validate().is_ok());
        prop_assert!(msg.check_typed_ies().is_ok());
    }

    #[test]
    fn oci_roundtrip(v in oci()) {
        assert_ie_roundtrip!(v, OverloadControlInformation);
    }

    #[test]
    fn lci_roundtrip(v in lci()) {
        assert_ie_roundtrip!(v, LoadControlInformation);
    }

    #[test]
    fn timer_roundtrip(v in timer()) {
        assert_ie_roundtrip!(v, Timer);
    }

    #[test]
    fn metric_roundtrip(v in metric()) {
        assert_ie_roundtrip!(v, Metric);
        prop_assert!(v.percent() <= 100);
    }

    #[test]
    fn node_id_roundtrip(spec in node_id()) {
        let v = spec.node_id();
        assert_ie_roundtrip!(v, NodeId<'_>);
        if let NodeIdSpec::Dotted(s) = &spec {
            prop_assert_eq!(&v.to_string(), s);
        }
    }

    #[test]
    fn fseid_roundtrip(v in fseid()) {
        assert_ie_roundtrip!(v, FSeid);
    }

    #[test]
    fn cause_roundtrip(v in cause()) {
        assert_ie_roundtrip!(v, Cause);
    }

    #[test]
    fn recovery_time_stamp_roundtrip(v in any::<u32>()) {
        assert_ie_roundtrip!(RecoveryTimeStamp(v), RecoveryTimeStamp);
    }

    #[test]
    fn small_ies_roundtrip(seq in any::<u32>(), flags in any::<u8>(), offending in any::<u16>()) {
        assert_ie_roundtrip!(ControlSequenceNumber(seq), ControlSequenceNumber);
        assert_ie_roundtrip!(OciFlags(flags), OciFlags);
        assert_ie_roundtrip!(OffendingIe(IeType(offending)), OffendingIe);
    }

    #[test]
    fn cp_features_roundtrip(v in cp_features()) {
        assert_ie_roundtrip!(v, CpFunctionFeatures);
        for f in v.iter() {
            prop_assert!(v.contains(f));
        }
    }

    #[test]
    fn up_features_roundtrip(v in up_features()) {
        assert_ie_roundtrip!(v, UpFunctionFeatures);
        for f in v.iter() {
            prop_assert!(v.contains(f));
        }
    }

    /// from_duration never shortens, and picks the smallest representable period at or above
    /// the request.
    #[test]
    fn timer_from_duration_rounds_up_minimally(
        secs in 0u64..=TIMER_MAX_FINITE.as_secs(), nanos in prop_oneof![Just(0u32), 0u32..1_000_000_000],
    ) {
        let d = Duration::new(secs, nanos).min(TIMER_MAX_FINITE);
        let t = Timer::from_duration(d).expect("within TIMER_MAX_FINITE");
        let got = t.duration().expect("finite");
        prop_assert!(got >= d, "{:?} -> {:?}", d, got);
        for r in representable() {
            prop_assert!(r < d || r >= got, "{:?} -> {:?}, but {:?} fits", d, got, r);
        }
    }

    #[test]
    fn timer_from_duration_refuses_beyond_max(extra in 1u64..=u64::from(u32::MAX)) {
        let d = TIMER_MAX_FINITE + Duration::from_nanos(extra);
        prop_assert_eq!(Timer::from_duration(d), None);
    }

    /// Any finite Timer's duration is converted back to that duration exactly.
    #[test]
    fn timer_durations_convert_back(t in timer()) {
        if let Some(d) = t.duration() {
            prop_assert_eq!(Timer::from_duration(d).and_then(Timer::duration), Some(d));
        } else {
            prop_assert!(t.is_infinite());
        }
    }
}

/// Every finite duration a Timer can hold.
fn representable() -> impl Iterator<Item = Duration> {
    [
        TimerUnit::TwoSeconds,
        TimerUnit::OneMinute,
        TimerUnit::TenMinutes,
        TimerUnit::OneHour,
        TimerUnit::TenHours,
    ]
    .into_iter()
    .flat_map(|u| (0..=31).map(move |v| Timer::new(u, v).unwrap().duration().unwrap()))
}

/// Exhaustive: every exactly representable duration round-trips to itself.
#[test]
fn timer_exact_durations_roundtrip() {
    let mut n = 0;
    for d in representable() {
        let t = Timer::from_duration(d).unwrap();
        assert_eq!(t.duration(), Some(d), "{d:?}");
        n += 1;
    }
    assert_eq!(n, 5 * 32);
}

/// The FQDN length limits at their edges: 254 wire octets (63+63+63+61-octet labels) is the
/// longest accepted, 255 is refused both ways.
#[test]
fn fqdn_length_edges() {
    let label = |n: usize| "a".repeat(n);
    let longest = [label(63), label(63), label(63), label(61)].join(".");
    let f = Fqdn::from_dotted(&longest).unwrap();
    assert_eq!(f.wire_len(), FQDN_MAX_WIRE_LEN);
    let node = NodeId::Fqdn(f);
    let mut out = Vec::new();
    node.encode(&mut out).unwrap();
    assert_eq!(out.len(), node.encoded_len());
    let back: NodeId<'_> = IeIter::new(&out, 0)
        .next()
        .unwrap()
        .unwrap()
        .decode_as()
        .unwrap();
    assert_eq!(back, node);
    assert_eq!(back.to_string(), longest);

    let too_long = [label(63), label(63), label(63), label(62)].join(".");
    assert!(Fqdn::from_dotted(&too_long).is_err());
    let mut wire = Vec::new();
    for n in [63, 63, 63, 62] {
        wire.push(n as u8);
        wire.extend(label(n).bytes());
    }
    assert_eq!(wire.len(), FQDN_MAX_WIRE_LEN + 1);
    assert!(Fqdn::from_wire(&wire).is_err());
    assert!(Fqdn::from_dotted(&label(64)).is_err());
}
