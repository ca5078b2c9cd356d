//! The typed messages (`pfcp_wire::msg`) on byte vectors written from the spec's layouts
//! (TS 29.244 clause 7.2.2 header, clause 8.2 IEs; `pfcp-spec-digest.md` sections 1.6 and 4.14,
//! each decoded by scapy), and their verdicts (clause 7.6): what a node answers with.

use std::net::Ipv4Addr;
use std::time::Duration;

use pfcp_wire::ie::{
    ApplyAction, ControlSequenceNumber, CreateFar, CreatePdr, FSeid, FarId, LoadControlInformation,
    Metric, NodeId, OciFlags, OffendingIe, OverloadControlInformation, Pdi, PdrId, Precedence,
    RecoveryTimeStamp, SourceInterface, Timer,
};
use pfcp_wire::msg::{
    AnyMessage, HeartbeatRequest, SessionEstablishmentRequest, SessionEstablishmentResponse,
    SessionReportRequest, TypedMessage,
};
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{Cause, DecodeErrorKind, IeType, Message, MessagePriority, RawIe, SequenceNumber};

fn hex(s: &str) -> Vec<u8> {
    parse_hex(&s.replace([' ', '\n'], "")).expect("hex")
}

/// Digest 1.6: Heartbeat Request, sequence 0x00ABCD, Recovery Time Stamp 0xE8F4A2B0.
const HEARTBEAT: &str = "20 01 00 0c 00 ab cd 00 00 60 00 04 e8 f4 a2 b0";

/// Digest 4.14: the minimal Session Establishment Request (MP=1 priority 5, SEID 0, seq 2).
const MINIMAL_SER: &str = "23 32 00 5a 00 00 00 00 00 00 00 00 00 00 02 50
    00 3c 00 05 00 c0 00 02 0a
    00 39 00 0d 02 00 00 00 00 00 00 00 01 c0 00 02 0a
    00 01 00 1f 00 38 00 02 00 01 00 1d 00 04 00 00 00 ff 00 02 00 05 00 14 00 01 00
                00 6c 00 04 00 00 00 01
    00 03 00 0d 00 6c 00 04 00 00 00 01 00 2c 00 01 02";

/// Digest 1.6: Session Establishment Response, MP=1 priority 3, SEID 1, seq 0x102, rejected
/// with Cause 74 and carrying an OCI (AOCI=1) and then an LCI.
const REJECTED_SERSP_HEADER: &str = "23 33 00 46 00 00 00 00 00 00 00 01 00 01 02 30";
const NODE_192_0_2_1: &str = "00 3c 00 05 00 c0 00 02 01";
const CAUSE_74: &str = "00 13 00 01 4a";
const OCI: &str = "00 36 00 17 00 34 00 04 00 00 00 05 00 35 00 01 1e
    00 37 00 01 22 00 6e 00 01 01";
const LCI: &str = "00 33 00 0d 00 34 00 04 00 00 00 07 00 35 00 01 37";

#[test]
fn heartbeat_request_of_the_digest() {
    let b = hex(HEARTBEAT);
    let hb = HeartbeatRequest::parse(&b).unwrap();
    assert_eq!(hb.recovery_time_stamp, RecoveryTimeStamp(0xE8F4_A2B0));
    assert_eq!(hb.header.sequence.value(), 0xABCD);
    assert!(hb.source_ip_address.is_none() && hb.other.is_empty());
    let built = HeartbeatRequest::new(RecoveryTimeStamp(0xE8F4_A2B0))
        .with_sequence(SequenceNumber::new(0xABCD).unwrap());
    assert_eq!(built.to_vec().unwrap(), b);
    assert_eq!(built.encoded_len(), b.len());
    assert_eq!(built, hb);
}

#[test]
fn minimal_establishment_request_of_the_digest() {
    let b = hex(MINIMAL_SER);
    let req = SessionEstablishmentRequest::parse(&b).unwrap();
    let ip = Ipv4Addr::new(192, 0, 2, 10);
    assert_eq!(req.node_id, NodeId::Ipv4(ip));
    assert_eq!(
        req.cp_f_seid,
        FSeid {
            seid: 1,
            ipv4: Some(ip),
            ipv6: None
        }
    );
    assert_eq!(req.header.seid, Some(0));
    assert_eq!(req.header.priority, MessagePriority::new(5));
    let pdrs: Vec<_> = req.create_pdrs.iter().collect();
    assert_eq!(pdrs.len(), 1);
    assert_eq!(pdrs[0].pdr_id, PdrId(1));
    assert_eq!(pdrs[0].precedence, Some(Precedence(255)));
    assert_eq!(pdrs[0].pdi.source_interface, SourceInterface::ACCESS);
    assert_eq!(
        req.create_fars.first().unwrap().apply_action,
        ApplyAction::FORW
    );
    assert!(req.create_urrs.is_empty() && req.pdn_type.is_none() && req.create_bar.is_none());

    // Built from values (the rules too), it is the digest's octets.
    let pdrs = [CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS))
        .with_precedence(Precedence(255))
        .with_far_id(FarId(1))];
    let fars = [CreateFar::new(FarId(1), ApplyAction::FORW)];
    let fseid = FSeid {
        seid: 1,
        ipv4: Some(ip),
        ipv6: None,
    };
    let built = SessionEstablishmentRequest::new(NodeId::Ipv4(ip), fseid, &pdrs, &fars)
        .with_sequence(SequenceNumber::new(2).unwrap())
        .with_priority(MessagePriority::new(5).unwrap());
    assert_eq!(built.to_vec().unwrap(), b);
    assert_eq!(built, req);
    // The decoded message encodes to its own octets too.
    assert_eq!(req.to_vec().unwrap(), b);
}

/// The digest's rejection carries the OCI before the LCI; Table 7.5.3.1-1 lists the LCI
/// first, and the builder writes the table's order: the same IEs, the two swapped.
#[test]
fn rejected_establishment_response_of_the_digest() {
    let b = hex(&[REJECTED_SERSP_HEADER, NODE_192_0_2_1, CAUSE_74, OCI, LCI].join(" "));
    let rsp = SessionEstablishmentResponse::parse(&b).unwrap();
    assert_eq!(rsp.cause, Cause::PFCP_ENTITY_IN_CONGESTION);
    assert_eq!(rsp.node_id, NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)));
    assert!(rsp.up_f_seid.is_none() && rsp.created_pdrs.is_empty());
    let oci = rsp.overload_control_information.unwrap();
    assert_eq!(oci.metric.percent(), 30);
    assert_eq!(
        oci.period_of_validity.duration(),
        Some(Duration::from_secs(120))
    );
    assert!(oci.aoci());
    assert_eq!(rsp.load_control_information.unwrap().metric.percent(), 55);

    let built = SessionEstablishmentResponse::new(
        NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)),
        Cause::PFCP_ENTITY_IN_CONGESTION,
    )
    .with_load_control_information(LoadControlInformation {
        sequence_number: ControlSequenceNumber(7),
        metric: Metric::new(55).unwrap(),
    })
    .with_overload_control_information(OverloadControlInformation {
        sequence_number: ControlSequenceNumber(5),
        metric: Metric::new(30).unwrap(),
        period_of_validity: Timer::from_duration(Duration::from_secs(120)).unwrap(),
        flags: Some(OciFlags::AOCI),
    })
    .with_seid(1)
    .with_sequence(SequenceNumber::new(0x102).unwrap())
    .with_priority(MessagePriority::new(3).unwrap());
    let table_order = hex(&[REJECTED_SERSP_HEADER, NODE_192_0_2_1, CAUSE_74, LCI, OCI].join(" "));
    assert_eq!(built.to_vec().unwrap(), table_order);
    assert_eq!(rsp.to_vec().unwrap(), table_order);
    assert_eq!(built, rsp);
}

/// The SER of the digest with its Create FAR (the last 17 octets) cut, the Message Length
/// fixed.
fn ser_without_far() -> Vec<u8> {
    let mut b = hex(MINIMAL_SER);
    b.truncate(b.len() - 17);
    let len = (b.len() - 4) as u16;
    b[2..4].copy_from_slice(&len.to_be_bytes());
    b
}

/// `bytes` with `ie` (complete TLV octets) appended and the Message Length fixed.
fn with_ie(bytes: &[u8], ie: &str) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b.extend(hex(ie));
    let len = (b.len() - 4) as u16;
    b[2..4].copy_from_slice(&len.to_be_bytes());
    b
}

#[test]
fn a_missing_mandatory_ie_is_cause_66_naming_it() {
    let b = ser_without_far();
    let e = SessionEstablishmentRequest::parse(&b).unwrap_err();
    assert_eq!(
        e.kind,
        DecodeErrorKind::MissingMandatory(IeType::CREATE_FAR)
    );
    assert_eq!(e.cause(), Cause::MANDATORY_IE_MISSING);
    assert_eq!(e.offending_ie(), Some(IeType::CREATE_FAR));
    // The header to answer with.
    let h = e.header.unwrap();
    assert_eq!((h.sequence.value(), h.seid), (2, Some(0)));
    // Exactly `validate`'s error.
    let m = Message::decode(&b).unwrap();
    assert_eq!(m.validate().unwrap_err(), e);
    assert_eq!(SessionEstablishmentRequest::decode(&m).unwrap_err(), e);
    assert_eq!(AnyMessage::parse(&b).unwrap_err(), e);
}

#[test]
fn a_malformed_mandatory_ie_is_validates_error() {
    // Node ID of type 3 (reserved, clause 8.2.38).
    let b = hex(&MINIMAL_SER.replace("00 3c 00 05 00 c0", "00 3c 00 05 03 c0"));
    let m = Message::decode(&b).unwrap();
    let e = SessionEstablishmentRequest::decode(&m).unwrap_err();
    assert_eq!(m.validate().unwrap_err(), e);
    assert_eq!(e.offending_ie(), Some(IeType::NODE_ID));
    assert_eq!(e.cause(), Cause::MANDATORY_IE_INCORRECT);
}

#[test]
fn a_malformed_later_rule_rejects_the_request() {
    // A second Create PDR whose PDR ID has 1 octet instead of 2 (clause 8.2.36): `validate`
    // checks the first only; the typed message decodes every rule.
    let b = with_ie(
        &hex(MINIMAL_SER),
        "00 01 00 0e 00 38 00 01 02 00 02 00 05 00 14 00 01 00",
    );
    let m = Message::decode(&b).unwrap();
    m.validate().unwrap();
    let e = SessionEstablishmentRequest::decode(&m).unwrap_err();
    assert_eq!(e.offending_ie(), Some(IeType::CREATE_PDR));
    assert_eq!(e.path.innermost(), Some(IeType::PDR_ID));
    assert_eq!(e.cause(), Cause::INVALID_LENGTH);
}

#[test]
fn a_malformed_conditional_ie_rejects_the_message() {
    // UP F-SEID (C) with neither V4 nor V6 (clause 8.2.37).
    let b = with_ie(
        &hex(&[REJECTED_SERSP_HEADER, NODE_192_0_2_1, CAUSE_74].join(" ")),
        "00 39 00 09 00 00 00 00 00 00 00 00 01",
    );
    let m = Message::decode(&b).unwrap();
    m.validate().unwrap();
    let e = SessionEstablishmentResponse::decode(&m).unwrap_err();
    assert_eq!(e.offending_ie(), Some(IeType::F_SEID));
}

#[test]
fn a_malformed_optional_ie_is_left_out() {
    // An OCI without its Timer (Table 7.5.3.4-1): optional, so ignored (clause 7.6).
    let b = with_ie(
        &hex(&[REJECTED_SERSP_HEADER, NODE_192_0_2_1, CAUSE_74].join(" ")),
        "00 36 00 0d 00 34 00 04 00 00 00 05 00 35 00 01 1e",
    );
    let rsp = SessionEstablishmentResponse::parse(&b).unwrap();
    assert!(rsp.overload_control_information.is_none());
    assert!(rsp.other.is_empty());
    // It is not written again.
    assert_eq!(
        rsp.to_vec().unwrap(),
        with_ie(
            &hex(&[REJECTED_SERSP_HEADER, NODE_192_0_2_1].join(" ")),
            CAUSE_74
        )
    );
}

#[test]
fn a_repeated_single_ie_counts_once() {
    // A second Recovery Time Stamp after the first: clause 7.6.10, the first one counts.
    let b = with_ie(&hex(HEARTBEAT), "00 60 00 04 00 00 00 01");
    let hb = HeartbeatRequest::parse(&b).unwrap();
    assert_eq!(hb.recovery_time_stamp, RecoveryTimeStamp(0xE8F4_A2B0));
    assert!(hb.other.is_empty());
}

#[test]
fn ies_the_table_does_not_list_are_kept_and_written_last() {
    // Before the Recovery Time Stamp: a vendor IE (32769, Enterprise ID 18681), an IE of a
    // later release (400) and a Cause (a Heartbeat Request has none).
    let extra = "80 01 00 04 48 f9 aa bb 01 90 00 01 07 00 13 00 01 01";
    let b = hex(&format!(
        "20 01 00 1e 00 ab cd 00 {extra} 00 60 00 04 e8 f4 a2 b0"
    ));
    let hb = HeartbeatRequest::parse(&b).unwrap();
    let other: Vec<RawIe<'_>> = hb.other.iter().collect();
    let types: Vec<u16> = other.iter().map(|ie| ie.ie_type().0).collect();
    assert_eq!(types, [32769, 400, 19]);
    assert_eq!(other[0].enterprise_id(), Some(18681));
    assert_eq!(other[0].value(), [0xaa, 0xbb]);
    // The table's IEs first, then the others as received.
    assert_eq!(
        hb.to_vec().unwrap(),
        hex(&format!(
            "20 01 00 1e 00 ab cd 00 00 60 00 04 e8 f4 a2 b0 {extra}"
        ))
    );
}

#[test]
fn the_message_type_and_the_s_flag_are_checked() {
    let b = hex(HEARTBEAT);
    let e = SessionReportRequest::parse(&b).unwrap_err();
    assert!(matches!(
        e.kind,
        DecodeErrorKind::UnexpectedMessageType { .. }
    ));
    // A Heartbeat Request with S=1 (and the 8 SEID octets).
    let s1 = hex("21 01 00 14 00 00 00 00 00 00 00 09 00 ab cd 00 00 60 00 04 e8 f4 a2 b0");
    let m = Message::decode(&s1).unwrap();
    let e = HeartbeatRequest::decode(&m).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::SFlagMismatch);
    assert_eq!(m.validate().unwrap_err(), e);
    // An unknown type: what validate says.
    let unknown = hex("20 63 00 04 00 00 01 00");
    let m = Message::decode(&unknown).unwrap();
    assert_eq!(m.typed().unwrap_err(), m.validate().unwrap_err());
    assert_eq!(
        AnyMessage::parse(&unknown).unwrap_err(),
        m.validate().unwrap_err()
    );
}

#[test]
fn raw_ies_are_whole_tlvs() {
    let ie = RawIe::from_tlv(&[0x00, 0x28, 0x00, 0x02, 0x00, 0x3c]).unwrap();
    assert_eq!(
        ie.decode_as::<OffendingIe>().unwrap(),
        OffendingIe(IeType::NODE_ID)
    );
    // Short, long, two IEs, a grouped IE whose member overruns it.
    for bad in [
        &[0x00, 0x28, 0x00][..],
        &[0x00, 0x28, 0x00, 0x02, 0x00],
        &[0x00, 0x28, 0x00, 0x01, 0x00, 0x00],
        &[0x00, 0x36, 0x00, 0x05, 0x00, 0x34, 0x00, 0x04, 0x00],
        &[],
    ] {
        assert!(RawIe::from_tlv(bad).is_err(), "{bad:02x?}");
    }
}

#[test]
fn encoding_into_a_short_buffer_fails() {
    let hb = HeartbeatRequest::new(RecoveryTimeStamp(1));
    let mut buf = [0u8; 15];
    assert!(hb.encode_into(&mut buf).is_err());
    let mut buf = [0u8; 16];
    assert_eq!(hb.encode_into(&mut buf), Ok(16));
    assert_eq!(
        TypedMessage::header(&hb).message_type,
        HeartbeatRequest::MESSAGE_TYPE
    );
}

/// A typed message is moved whole (out of a `Result`, into an `AnyMessage`): its repeated IEs
/// are 32-octet views, so that the largest message stays under 1.5 KiB.
#[test]
fn the_views_stay_small() {
    use pfcp_wire::ie::CreatePdr;
    use pfcp_wire::msg::{IeList, OtherIes};
    assert!(std::mem::size_of::<IeList<'_, CreatePdr<'_>>>() <= 32);
    assert!(std::mem::size_of::<OtherIes<'_>>() <= 40);
    assert!(std::mem::size_of::<AnyMessage<'_>>() <= 1536);
}
