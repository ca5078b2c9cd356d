use super::*;
use bytes::Bytes;
use pfcp_wire::ie::RecoveryTimeStamp;
use pfcp_wire::Message;

use pfcp_test_support::clock::origin as t0;

#[test]
fn an_empty_datagram_changes_nothing() {
    let now = t0();
    let local = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(1));
    let mut n = Node::new(NodeConfig::new(local), now).unwrap();
    let from: SocketAddr = "192.0.2.9:8805".parse().unwrap();
    n.handle_datagram(from, Bytes::new(), now);
    assert!(n.poll_transmit().is_none());
    assert!(n.poll_event().is_none());
}

#[test]
fn a_retransmitted_heartbeat_is_answered_again_and_nothing_is_cached() {
    let now = t0();
    let local = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(7));
    let mut n = Node::new(NodeConfig::new(local), now).unwrap();
    let from: SocketAddr = "192.0.2.9:8805".parse().unwrap();
    let cp = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(3));
    let request = crate::peer::heartbeat_request(&cp, SequenceNumber::wrapping(42)).unwrap();
    let mut answers = Vec::new();
    for _ in 0..2 {
        n.handle_datagram(from, request.clone(), now);
        while let Some(t) = n.poll_transmit() {
            answers.push(t);
        }
    }
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0].bytes, answers[1].bytes);
    let msg = Message::decode(&answers[0].bytes).unwrap();
    assert_eq!(msg.message_type(), MessageType::HEARTBEAT_RESPONSE);
    assert_eq!(msg.header().sequence, SequenceNumber::wrapping(42));
    assert_eq!(
        msg.recovery_time_stamp().unwrap(),
        Some(RecoveryTimeStamp(7))
    );
    assert_eq!(n.stats().heartbeats_answered, 2);
    assert_eq!(n.xact.cached_responses(), 0);
    assert_eq!(n.xact.pending_requests(), 0);
}
