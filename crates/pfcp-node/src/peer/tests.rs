//! Association and heartbeat tests against messages built from the spec layouts.

use std::net::Ipv4Addr;

use pfcp_wire::owned::parse_hex;

use super::*;

#[allow(clippy::disallowed_methods)] // Tests need a base instant; the code never reads the clock.
fn t0() -> Instant {
    Instant::now()
}

fn up() -> LocalNode {
    LocalNode::up(
        NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into()),
        RecoveryTimeStamp(0xE8F4_A2B0),
    )
}

fn peer() -> SocketAddr {
    "127.0.0.2:8805".parse().unwrap()
}

// Digest 1.6: Heartbeat Request seq 0xABCD, Recovery Time Stamp 0xE8F4A2B0.
const HEARTBEAT: &str = "2001000c00abcd0000600004e8f4a2b0";
// Digest 4.11: Association Setup Request from a CP with LOAD|OVRL, seq 1.
const SETUP: &str = "2005001a00000100003c000500c000020a00600004e8f4a2b000590001 03";

fn msg(hex: &str) -> Vec<u8> {
    parse_hex(&hex.replace(' ', "")).unwrap()
}

#[test]
fn clause_6_2_2_2_heartbeat_answered_even_from_unknown_peers() {
    let mut peers = Peers::new(8);
    let b = msg(HEARTBEAT);
    let m = Message::decode(&b).unwrap();
    let a = peers
        .handle_request(&up(), peer(), &m, t0())
        .unwrap()
        .unwrap();
    let r = a.response.unwrap();
    let rm = Message::decode(&r).unwrap();
    assert_eq!(rm.message_type(), MessageType::HEARTBEAT_RESPONSE);
    assert_eq!(rm.header().sequence.value(), 0xABCD);
    assert_eq!(
        rm.recovery_time_stamp().unwrap(),
        Some(RecoveryTimeStamp(0xE8F4_A2B0))
    );
    rm.validate().unwrap();
    assert!(a.events.is_empty());
}

#[test]
fn clause_6_2_6_setup_associates_and_a_changed_stamp_is_a_restart() {
    let mut peers = Peers::new(8);
    let b = msg(SETUP);
    let m = Message::decode(&b).unwrap();
    let a = peers
        .handle_request(&up(), peer(), &m, t0())
        .unwrap()
        .unwrap();
    assert!(matches!(
        a.events.as_slice(),
        [PeerEvent::Associated { .. }]
    ));
    assert!(peers.is_associated(&peer()));
    let info = peers.get(&peer()).unwrap();
    assert!(info.cp_features.unwrap().contains(CpFunctionFeatures::OVRL));
    let r = a.response.unwrap();
    let rm = Message::decode(&r).unwrap();
    rm.validate().unwrap();
    assert_eq!(rm.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
    // A heartbeat with another Recovery Time Stamp: the peer restarted.
    let mut hb = msg(HEARTBEAT);
    let n = hb.len();
    hb[n - 1] ^= 1;
    let m = Message::decode(&hb).unwrap();
    let a = peers
        .handle_request(&up(), peer(), &m, t0())
        .unwrap()
        .unwrap();
    assert!(matches!(a.events.as_slice(), [PeerEvent::Restarted { .. }]));
    assert!(!peers.is_associated(&peer()));
}

#[test]
fn update_and_release_need_an_association() {
    let mut peers = Peers::new(8);
    // Association Release Request: Node ID only (Table 7.4.4.5-1).
    let rel = msg("2009000d00000200003c000500c000020a");
    let m = Message::decode(&rel).unwrap();
    let a = peers
        .handle_request(&up(), peer(), &m, t0())
        .unwrap()
        .unwrap();
    let r = a.response.unwrap();
    let rm = Message::decode(&r).unwrap();
    assert_eq!(
        rm.cause().unwrap(),
        Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION)
    );
    let setup = msg(SETUP);
    let m = Message::decode(&setup).unwrap();
    peers
        .handle_request(&up(), peer(), &m, t0())
        .unwrap()
        .unwrap();
    let m = Message::decode(&rel).unwrap();
    let a = peers
        .handle_request(&up(), peer(), &m, t0())
        .unwrap()
        .unwrap();
    assert!(matches!(a.events.as_slice(), [PeerEvent::Released { .. }]));
    let r = a.response.unwrap();
    assert_eq!(
        Message::decode(&r).unwrap().cause().unwrap(),
        Some(Cause::REQUEST_ACCEPTED)
    );
}

#[test]
fn setup_without_node_id_is_rejected_with_66_and_offending_ie() {
    let mut peers = Peers::new(8);
    // Association Setup Request with only a Recovery Time Stamp.
    let b = msg("2005000c00000300 00600004e8f4a2b0");
    let m = Message::decode(&b).unwrap();
    let a = peers
        .handle_request(&up(), peer(), &m, t0())
        .unwrap()
        .unwrap();
    let r = a.response.unwrap();
    let rm = Message::decode(&r).unwrap();
    assert_eq!(rm.cause().unwrap(), Some(Cause::MANDATORY_IE_MISSING));
    assert_eq!(
        rm.offending_ie().unwrap(),
        Some(OffendingIe(pfcp_wire::IeType::NODE_ID))
    );
    assert!(!peers.is_associated(&peer()));
}

#[test]
fn clause_7_6_error_response_for_a_session_request() {
    // Session Establishment Request (S=1, MP=1 priority 5, seq 2) without any IE.
    let b = msg("2332000c000000000000000000000250");
    let m = Message::decode(&b).unwrap();
    let e = m.validate().unwrap_err();
    let r = error_response(&up(), &e, Some(7)).unwrap().unwrap();
    let rm = Message::decode(&r).unwrap();
    assert_eq!(
        rm.message_type(),
        MessageType::SESSION_ESTABLISHMENT_RESPONSE
    );
    assert_eq!(rm.header().seid, Some(7));
    assert_eq!(rm.header().sequence.value(), 2);
    assert_eq!(rm.header().priority.map(|p| p.value()), Some(5));
    assert_eq!(rm.cause().unwrap(), Some(Cause::MANDATORY_IE_MISSING));
    assert_eq!(
        rm.offending_ie().unwrap(),
        Some(OffendingIe(pfcp_wire::IeType::NODE_ID))
    );
    rm.validate().unwrap();
}
