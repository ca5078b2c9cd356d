//! Association and heartbeat tests against messages built from the spec layouts.

use std::net::Ipv4Addr;

use pfcp_wire::owned::parse_hex;

use super::*;

use pfcp_test_support::clock::origin as t0;

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

/// The CP function at [`peer`] with Recovery Time Stamp `rts`.
fn cp(rts: u32) -> LocalNode {
    LocalNode::cp(
        NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 10).into()),
        RecoveryTimeStamp(rts),
    )
}

fn seq(n: u32) -> SequenceNumber {
    SequenceNumber::new(n).unwrap()
}

/// What `peers` does with `bytes` from `from`: its events and whether it answered.
fn request_from(peers: &mut Peers, from: SocketAddr, bytes: &[u8]) -> (Vec<PeerEvent>, bool) {
    let m = Message::decode(bytes).unwrap();
    let a = peers
        .handle_request(&up(), from, &m, t0())
        .unwrap()
        .unwrap();
    (a.events, a.response.is_some())
}

fn request(peers: &mut Peers, bytes: &[u8]) -> (Vec<PeerEvent>, bool) {
    request_from(peers, peer(), bytes)
}

fn heartbeat_with(rts: u32) -> Bytes {
    heartbeat_request(&cp(rts), seq(7)).unwrap()
}

fn setup_with(rts: u32) -> Bytes {
    association_setup_request(&cp(rts), seq(8)).unwrap()
}

fn kinds(events: &[PeerEvent]) -> Vec<&'static str> {
    events
        .iter()
        .map(|e| match e {
            PeerEvent::Associated { .. } => "associated",
            PeerEvent::Restarted { .. } => "restarted",
            PeerEvent::Released { .. } => "released",
            PeerEvent::Failed { .. } => "failed",
            PeerEvent::NotAssociated { .. } => "not associated",
            PeerEvent::SessionsLost { .. } => "sessions lost",
            PeerEvent::FeaturesUpdated { .. } => "features updated",
            PeerEvent::ReleaseRequested { .. } => "release requested",
            PeerEvent::NodeReport { .. } => "node report",
        })
        .collect()
}

#[test]
fn clause_6_2_2_unassociated_heartbeats_are_answered_and_reset_nothing() {
    let mut peers = Peers::new(8);
    // Unknown peer: answered, nothing recorded (no entry, so no slot of the table taken).
    let (events, answered) = request(&mut peers, &heartbeat_with(1));
    assert!(answered && events.is_empty());
    assert!(peers.is_empty());
    // Associated, then released: the peer is known but has no association any more.
    assert_eq!(
        kinds(&request(&mut peers, &setup_with(1)).0),
        ["associated"]
    );
    let rel = msg("2009000d00000200003c000500c000020a");
    assert_eq!(kinds(&request(&mut peers, &rel).0), ["released"]);
    // A heartbeat with another stamp (e.g. forged with the peer's address): answered, and
    // neither a restart nor a change of the stored stamp.
    let (events, answered) = request(&mut peers, &heartbeat_with(2));
    assert!(answered && events.is_empty());
    let info = peers.get(&peer()).unwrap();
    assert_eq!(info.recovery_time_stamp, Some(RecoveryTimeStamp(1)));
    assert!(!info.associated);
    // The same through the public hook.
    assert_eq!(
        peers.observe_recovery(peer(), RecoveryTimeStamp(3), t0()),
        None
    );
}

#[test]
fn heartbeats_from_many_unassociated_sources_do_not_fill_the_table() {
    let mut peers = Peers::new(2);
    for port in 1..=100u16 {
        let from = SocketAddr::from((Ipv4Addr::new(198, 51, 100, 1), port));
        let (events, answered) = request_from(&mut peers, from, &heartbeat_with(u32::from(port)));
        assert!(answered && events.is_empty());
    }
    assert!(peers.is_empty());
    // A real CP function can still associate.
    assert_eq!(
        kinds(&request(&mut peers, &setup_with(1)).0),
        ["associated"]
    );
}

#[test]
fn an_associated_peers_heartbeat_restart_is_reported_once() {
    let mut peers = Peers::new(8);
    request(&mut peers, &setup_with(1));
    // Same stamp: alive, nothing to report.
    assert!(request(&mut peers, &heartbeat_with(1)).0.is_empty());
    // Another stamp: restarted, the association ends, the new stamp is kept.
    let (events, answered) = request(&mut peers, &heartbeat_with(2));
    assert!(answered);
    assert!(matches!(
        events.as_slice(),
        [PeerEvent::Restarted { peer: p, node: Some(n) }]
            if *p == peer() && *n == NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 10).into())
    ));
    assert!(!peers.is_associated(&peer()));
    assert_eq!(
        peers.get(&peer()).unwrap().recovery_time_stamp,
        Some(RecoveryTimeStamp(2))
    );
    // No association any more: later stamps change nothing until a new setup.
    assert!(request(&mut peers, &heartbeat_with(3)).0.is_empty());
    assert!(request(&mut peers, &heartbeat_with(2)).0.is_empty());
}

#[test]
fn clause_6_2_6_2_setup_from_an_associated_peer_with_another_stamp_is_a_restart() {
    let mut peers = Peers::new(8);
    assert_eq!(
        kinds(&request(&mut peers, &setup_with(1)).0),
        ["associated"]
    );
    // The same stamp again: a plain re-establishment.
    assert_eq!(
        kinds(&request(&mut peers, &setup_with(1)).0),
        ["associated"]
    );
    // Another stamp: the peer restarted. The old association's state is reset first, then
    // the new association replaces it.
    let (events, answered) = request(&mut peers, &setup_with(2));
    assert!(answered);
    assert_eq!(kinds(&events), ["restarted", "associated"]);
    assert!(peers.is_associated(&peer()));
    let info = peers.get(&peer()).unwrap();
    assert_eq!(info.recovery_time_stamp, Some(RecoveryTimeStamp(2)));
    assert!(info.cp_features.unwrap().contains(CpFunctionFeatures::OVRL));
    // And the new stamp is the reference from now on.
    assert!(request(&mut peers, &heartbeat_with(2)).0.is_empty());
}

#[test]
fn setup_without_an_association_is_new_whatever_the_stamp_was() {
    let mut peers = Peers::new(8);
    request(&mut peers, &setup_with(1));
    let rel = msg("2009000d00000200003c000500c000020a");
    request(&mut peers, &rel);
    // Its old state was reset at the release: nothing to report but the association.
    assert_eq!(
        kinds(&request(&mut peers, &setup_with(5)).0),
        ["associated"]
    );
    assert_eq!(
        peers.get(&peer()).unwrap().recovery_time_stamp,
        Some(RecoveryTimeStamp(5))
    );
}

#[test]
fn answers_to_our_own_setup_and_heartbeat_follow_the_same_policy() {
    let mut peers = Peers::new(8);
    let response = |rts: u32, cause: Cause| {
        node_response(
            &cp(rts),
            MessageType::ASSOCIATION_SETUP_RESPONSE,
            seq(9),
            cause,
            None,
            true,
        )
        .unwrap()
    };
    let handle = |peers: &mut Peers, b: &[u8]| {
        peers.handle_setup_response(peer(), &Message::decode(b).unwrap(), t0())
    };
    // Rejected by a peer we have no association with: nothing recorded.
    let rejected = response(1, Cause::NO_RESOURCES_AVAILABLE);
    assert!(handle(&mut peers, &rejected).is_empty());
    assert!(peers.is_empty());
    assert_eq!(
        kinds(&handle(&mut peers, &response(1, Cause::REQUEST_ACCEPTED))),
        ["associated"]
    );
    // Heartbeat Responses: the same stamp is silence, another one a restart.
    let hb = |peers: &mut Peers, rts: u32| {
        let b = heartbeat_message(&cp(rts), MessageType::HEARTBEAT_RESPONSE, seq(10)).unwrap();
        peers.handle_heartbeat_response(peer(), &Message::decode(&b).unwrap(), t0())
    };
    assert_eq!(hb(&mut peers, 1), None);
    // Setting up again with a restarted peer: restart, then the new association.
    assert_eq!(
        kinds(&handle(&mut peers, &response(2, Cause::REQUEST_ACCEPTED))),
        ["restarted", "associated"]
    );
    assert!(matches!(
        hb(&mut peers, 3),
        Some(PeerEvent::Restarted { .. })
    ));
    assert!(!peers.is_associated(&peer()));
    // No association now: a Heartbeat Response with yet another stamp changes nothing.
    assert_eq!(hb(&mut peers, 4), None);
    // A rejected setup answer from an associated peer that restarted still reports it.
    handle(&mut peers, &response(4, Cause::REQUEST_ACCEPTED));
    assert_eq!(
        kinds(&handle(&mut peers, &response(5, Cause::REQUEST_REJECTED))),
        ["restarted"]
    );
    assert!(!peers.is_associated(&peer()));
    // An unknown address's Heartbeat Response creates nothing.
    let other: SocketAddr = "127.0.0.3:8805".parse().unwrap();
    let b = heartbeat_message(&cp(1), MessageType::HEARTBEAT_RESPONSE, seq(11)).unwrap();
    let m = Message::decode(&b).unwrap();
    assert_eq!(peers.handle_heartbeat_response(other, &m, t0()), None);
    assert!(peers.get(&other).is_none());
}

/// A full table makes room for a new peer by dropping the least recently heard peer without
/// an association (counted as evicted), and refuses one only when every record is an
/// associated peer (counted as refused: Cause 73 "No resources available" to its setup).
#[test]
fn a_full_table_evicts_idle_peers_and_refuses_only_when_every_peer_is_associated() {
    let mut peers = Peers::new(2);
    let at = |port: u16| SocketAddr::from((Ipv4Addr::new(198, 51, 100, 1), port));
    let release = msg("2009000d00000200003c000500c000020a");
    // Two CP functions associate, the first releases: its record stays idle.
    assert_eq!(
        kinds(&request_from(&mut peers, at(1), &setup_with(1)).0),
        ["associated"]
    );
    assert_eq!(
        kinds(&request_from(&mut peers, at(2), &setup_with(1)).0),
        ["associated"]
    );
    assert_eq!(
        kinds(&request_from(&mut peers, at(1), &release).0),
        ["released"]
    );
    assert_eq!(peers.len(), 2);
    // A third one takes the idle record's place.
    assert_eq!(
        kinds(&request_from(&mut peers, at(3), &setup_with(1)).0),
        ["associated"]
    );
    assert_eq!(peers.len(), 2);
    assert!(peers.get(&at(1)).is_none());
    assert!(peers.is_associated(&at(2)) && peers.is_associated(&at(3)));
    assert_eq!(peers.stats().evicted, 1);
    // A fourth finds only associated peers: refused with Cause 73, nobody dropped.
    let setup = setup_with(1);
    let m = Message::decode(&setup).unwrap();
    let a = peers
        .handle_request(&up(), at(4), &m, t0())
        .unwrap()
        .unwrap();
    assert!(a.events.is_empty());
    let r = a.response.unwrap();
    let rm = Message::decode(&r).unwrap();
    assert_eq!(rm.cause().unwrap(), Some(Cause::NO_RESOURCES_AVAILABLE));
    assert_eq!(peers.stats().refused, 1);
    assert!(peers.is_associated(&at(2)) && peers.is_associated(&at(3)));
}

/// A handle outlives its record harmlessly: the slot's next record has another generation.
#[test]
fn a_stale_peer_id_finds_nothing() {
    let mut peers = Peers::new(4);
    let a = SocketAddr::from((Ipv4Addr::new(198, 51, 100, 1), 1));
    let b = SocketAddr::from((Ipv4Addr::new(198, 51, 100, 1), 2));
    let first = peers.insert(a, t0()).unwrap();
    assert!(peers.remove(first).is_some());
    let second = peers.insert(b, t0()).unwrap();
    assert_ne!(first, second);
    assert!(peers.record(first).is_none());
    assert!(peers.remove(first).is_none());
    assert_eq!(peers.record(second).map(|p| p.addr), Some(b));
    assert_eq!(peers.id(&a), None);
}
