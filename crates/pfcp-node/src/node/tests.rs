use super::*;
use bytes::Bytes;
use pfcp_wire::ie::RecoveryTimeStamp;

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
