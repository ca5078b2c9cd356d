//! The owned form of the typed session IEs through serde (JSON): what a node stores or logs
//! comes back equal and encodes to the same octets. (The octets come from the spec layouts
//! of `tests/session_ies.rs`; here only the JSON trip is under test.)
#![cfg(feature = "serde")]

use std::net::Ipv4Addr;

use pfcp_wire::encode::Encode;
use pfcp_wire::ie::{
    ApplyAction, CreateFar, CreatePdr, DestinationInterface, FTeid, FarId, ForwardingParameters,
    IntoOwned, NetworkInstance, OuterHeaderCreation, Pdi, PdrId, Precedence, Qfi, SdfFilter,
    SourceInterface, UeIpAddress, UrrId,
};
use pfcp_wire::owned::{IeContent, OwnedMessage};
use pfcp_wire::Message;

#[test]
fn owned_rules_survive_json() {
    let pdr = CreatePdr::new(
        PdrId(2),
        Pdi::new(SourceInterface::CORE)
            .with_local_f_teid(FTeid::choose_ipv4(Some(3)))
            .with_network_instance(NetworkInstance::new(b"internet"))
            .with_ue_ip_address(UeIpAddress::ipv4(Ipv4Addr::new(10, 45, 0, 2), true))
            .with_sdf_filter(SdfFilter::flow(b"permit out ip from any to assigned"))
            .with_qfi(Qfi::new(9).unwrap()),
    )
    .with_precedence(Precedence(100))
    .with_far_id(FarId(2))
    .with_urr_id(UrrId(7))
    .into_owned();
    let far = CreateFar::new(FarId(2), ApplyAction::FORW)
        .with_forwarding_parameters(
            ForwardingParameters::new(DestinationInterface::ACCESS).with_outer_header_creation(
                OuterHeaderCreation::gtpu_ipv4(0xab, Ipv4Addr::new(192, 0, 2, 9)),
            ),
        )
        .into_owned();
    let json = serde_json::to_string(&pdr).unwrap();
    assert!(
        json.contains("\"network_instance\":\"696e7465726e6574\""),
        "{json}"
    );
    let back: CreatePdr<'static> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, pdr);
    let back_far: CreateFar<'static> =
        serde_json::from_str(&serde_json::to_string(&far).unwrap()).unwrap();
    assert_eq!(back_far, far);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    pdr.encode(&mut a).unwrap();
    back.encode(&mut b).unwrap();
    assert_eq!(a, b);
}

#[test]
fn owned_messages_keep_short_and_long_values() {
    // Digest 4.14's Session Establishment Request plus an SDF Filter longer than the inline
    // value storage: both kinds of value come back through JSON.
    let pdr = CreatePdr::new(
        PdrId(1),
        Pdi::new(SourceInterface::ACCESS).with_sdf_filter(SdfFilter::flow(
            b"permit out ip from 10.0.0.0/8 to assigned",
        )),
    );
    let mut v = Vec::new();
    pdr.encode(&mut v).unwrap();
    // Session Establishment Request header (S=1, SEID 0, sequence 1), Length patched below.
    let mut msg = pfcp_wire::owned::parse_hex("2132000c000000000000000000000100").unwrap();
    msg.extend(&v);
    let len = (msg.len() - 4) as u16;
    msg[2..4].copy_from_slice(&len.to_be_bytes());
    let m = Message::decode(&msg).unwrap();
    let owned = OwnedMessage::from_message(&m).unwrap();
    let json = serde_json::to_string(&owned).unwrap();
    let back: OwnedMessage = serde_json::from_str(&json).unwrap();
    assert_eq!(back, owned);
    assert_eq!(back.to_bytes().unwrap(), msg);
    let ies = owned.to_ies();
    let IeContent::Grouped(members) = &ies[0].content else {
        panic!("Create PDR is grouped")
    };
    assert!(matches!(&members[0].content, IeContent::Raw(v) if v.as_slice() == [0, 1]));
}

/// The JSON shape of the owned message, pinned: the header fields (`null` for absent
/// options), then the IEs as trees (`value` in hex, or `ies` for grouped types, and
/// `enterprise_id` only on vendor IEs). The wire-backed form writes what the tree form wrote.
#[test]
fn owned_message_json_shape_is_pinned() {
    // Session Establishment Request (S=1, MP=1 priority 5) with a Create PDR { PDR ID, PDI {
    // Source Interface } } and a vendor IE (Enterprise ID 10415).
    let b = pfcp_wire::owned::parse_hex(
        "23320028000000000000000100000250\
         0001000f003800020001000200050014000100\
         800200052 8af010203"
            .replace(' ', "")
            .as_str(),
    )
    .unwrap();
    let m = Message::decode(&b).unwrap();
    let owned = OwnedMessage::from_message(&m).unwrap();
    let json = serde_json::to_string(&owned).unwrap();
    assert_eq!(json, EXPECTED_JSON);
    let back: OwnedMessage = serde_json::from_str(&json).unwrap();
    assert_eq!(back.to_bytes().unwrap(), b);
    // Left-out options and FO read as absent; unknown keys are ignored.
    let node: OwnedMessage = serde_json::from_str(
        r#"{"frame":3,"message_type":1,"sequence":7,"ies":[{"type":96,"value":"e51d5f00"}]}"#,
    )
    .unwrap();
    assert_eq!(
        node.to_bytes().unwrap(),
        pfcp_wire::owned::parse_hex("2001000c0000070000600004e51d5f00").unwrap()
    );
}

const EXPECTED_JSON: &str = concat!(
    r#"{"message_type":50,"seid":1,"sequence":2,"priority":5,"follow_on":false,"ies":["#,
    r#"{"type":1,"ies":[{"type":56,"value":"0001"},{"type":2,"ies":[{"type":20,"value":"00"}]}]},"#,
    r#"{"type":32770,"enterprise_id":10415,"value":"010203"}]}"#
);

/// Node ID and the feature bitmaps (clauses 8.2.38, 8.2.25, 8.2.58) read back from their
/// serde form to the same octets; the octets are the spec layouts.
#[test]
fn node_ids_and_features_survive_json() {
    use pfcp_wire::ie::{AnyTypedIe, CpFunctionFeatures, IeIter, NodeId, UpFunctionFeatures};
    use pfcp_wire::IeType;
    // Node ID, FQDN "upf1.example.net" (digest 4.7), IPv4 192.0.2.1, IPv6 2001:db8::1.
    let fqdn = pfcp_wire::owned::parse_hex("003c0012020475706631076578616d706c65036e6574").unwrap();
    let v4 = pfcp_wire::owned::parse_hex("003c000500c0000201").unwrap();
    let v6 = pfcp_wire::owned::parse_hex("003c00110120010db8000000000000000000000001").unwrap();
    // UP Function Features BUCP|FTUP (octet 5 bits 1 and 5) and EPFAR (octet 6 bit 8);
    // CP Function Features LOAD|OVRL.
    let up = pfcp_wire::owned::parse_hex("002b00021180").unwrap();
    let cp = pfcp_wire::owned::parse_hex("0059000103").unwrap();
    let forms = [
        (&fqdn, r#"{"fqdn":"upf1.example.net"}"#),
        (&v4, r#"{"ipv4":"192.0.2.1"}"#),
        (&v6, r#"{"ipv6":"2001:db8::1"}"#),
        (
            &up,
            r#"{"features":["BUCP","FTUP","EPFAR"],"octets":"1180"}"#,
        ),
        (&cp, r#"{"features":["LOAD","OVRL"],"octets":"03"}"#),
    ];
    for (octets, json) in forms {
        let ie = IeIter::new(octets, 0).next().unwrap().unwrap();
        let typed = AnyTypedIe::decode(&ie).unwrap().unwrap();
        assert_eq!(serde_json::to_string(&typed).unwrap(), json);
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        let back = AnyTypedIe::deserialize_as(ie.ie_type(), &value)
            .unwrap()
            .unwrap();
        assert_eq!(back, typed);
        let mut out = Vec::new();
        back.encode(&mut out).unwrap();
        assert_eq!(&out, octets);
    }
    // Features by name alone: the shortest bitmap holding them.
    let named: UpFunctionFeatures = serde_json::from_str(r#"{"features":["FTUP"]}"#).unwrap();
    assert_eq!(named.octets(), &[0x10, 0x00]);
    let named: CpFunctionFeatures = serde_json::from_str(r#"{"features":["OVRL"]}"#).unwrap();
    assert_eq!(named.octets(), &[0x02]);
    assert!(serde_json::from_str::<CpFunctionFeatures>(r#"{"features":["NOPE"]}"#).is_err());
    assert!(serde_json::from_str::<NodeId<'_>>(r#"{"fqdn":"a..b"}"#).is_err());
    // A type without a typed form reads as None.
    let v = serde_json::json!(1);
    assert!(AnyTypedIe::deserialize_as(IeType::PDN_TYPE, &v)
        .unwrap()
        .is_none());
}
