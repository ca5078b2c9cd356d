//! What pfcp-node's tests share (feature `node`): the loopback address to bind, transaction
//! timers short enough for a test, and the two local nodes the tests use.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use pfcp_node::{LocalNode, TransactionConfig};
use pfcp_overload::NodeKey;
use pfcp_wire::ie::RecoveryTimeStamp;

/// Any free port on 127.0.0.1.
pub fn any_port() -> SocketAddr {
    (Ipv4Addr::LOCALHOST, 0).into()
}

/// T1 200 ms and N1 2: a lost request fails within 0.6 s.
pub fn quick_transactions() -> TransactionConfig {
    TransactionConfig::default()
        .with_t1(Duration::from_millis(200))
        .with_n1(2)
}

/// A UP function `upf1.example.net` with a fixed Recovery Time Stamp.
pub fn up_local() -> LocalNode {
    LocalNode::up(
        NodeKey::fqdn("upf1.example.net"),
        RecoveryTimeStamp(0xE8F4_A2B0),
    )
}

/// A CP function whose Node ID is 127.0.0.1, with a fixed Recovery Time Stamp.
pub fn cp_local() -> LocalNode {
    LocalNode::cp(
        NodeKey::Ip(Ipv4Addr::LOCALHOST.into()),
        RecoveryTimeStamp(0xE8F4_0000),
    )
}
