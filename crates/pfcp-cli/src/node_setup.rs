//! What `pfcp up`, `pfcp cp` and `pfcp sim` need to run a node: the tokio runtime, the Node
//! ID from the command line and its IE, the process's Recovery Time Stamp, the loopback
//! address of a family. (In a module of their own so that the tools use it, not each other.)

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use pfcp_overload::NodeKey;
use pfcp_wire::ie::RecoveryTimeStamp;
use pfcp_wire::Encode;

use crate::io_error_text;

/// The tokio runtime of `pfcp cp` and `pfcp sim`.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {}", io_error_text(&e)))
}

/// A Node ID given on the command line: an IP address, else an FQDN.
pub(crate) fn node_key(text: &str) -> Result<NodeKey, String> {
    text.parse::<NodeKey>()
        .map_err(|e| format!("--node-id {e}"))
}

/// The encoded Node ID IE of `node`.
pub(crate) fn node_id_ie(node: &NodeKey) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(32);
    node.encode(&mut out)
        .map_err(|e| format!("Node ID {node}: {e}"))?;
    Ok(out)
}

/// This process's Recovery Time Stamp: when it started, in seconds since 1900 (clause
/// 8.2.65), from one read of the wall clock ([`crate::start_time`]). It differs from one run to
/// the next, also in a container where every run is PID 1 (a peer that sees it change resets
/// what it learned and sets the association up again, clause 6.2.2).
pub(crate) fn recovery_time_stamp() -> RecoveryTimeStamp {
    crate::start_time()
}

/// The loopback address of `ip`'s family.
pub(crate) fn loopback_like(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
    }
}
