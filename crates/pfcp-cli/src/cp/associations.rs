//! The PFCP associations of a run: set up with every `--up` before the load, released at the
//! end (TS 29.244 clauses 6.2.6 and 6.2.8), and the short-lived probe that learns the UP
//! functions' Node IDs for the `--redirect` route list.
//!
//! Session requests need an established association (clause 6.2.6.1), and the Node ID the UP
//! function gives in its Association Setup Response is what its node-scoped OCIs and the
//! route list are keyed by.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use pfcp_node::{Endpoint, EndpointConfig, LocalNode, PeerEvent, TransactionConfig};
use pfcp_overload::NodeKey;
use pfcp_wire::{Header, MessageType};
use tokio::sync::mpsc;

use super::exit::{association_failed, Failure};
use crate::io_error_text;

/// Associate with every UP function in turn; their Node IDs. On failure the caller releases
/// the associations made. While a UP function does not answer (each Association Setup
/// Request is sent up to N1 + 1 times, T1 apart), a line a second says so (`quiet`: none).
pub(super) async fn associate_all(
    endpoint: &Endpoint,
    events: &mut mpsc::Receiver<PeerEvent>,
    ups: &[SocketAddr],
    t1: Duration,
    quiet: bool,
) -> Result<Vec<NodeKey>, Failure> {
    let mut nodes: Vec<NodeKey> = Vec::with_capacity(ups.len());
    for &up in ups {
        let second = Duration::from_secs(1);
        let mut ticks = tokio::time::interval_at(crate::now() + second, second);
        let mut waited = 0u64;
        let setup = endpoint.associate(up);
        tokio::pin!(setup);
        let result = loop {
            tokio::select! {
                r = &mut setup => break r,
                _ = ticks.tick() => {
                    waited += 1;
                    if !quiet {
                        eprintln!(
                            "pfcp cp: associating with {up}: no answer yet after {waited} s"
                        );
                    }
                }
            }
        };
        result.map_err(|e| association_failed(up, &e, t1))?;
        // The endpoint reports the association before it answers `associate`.
        let mut node = None;
        while let Ok(e) = events.try_recv() {
            if let PeerEvent::Associated { peer, node: n } = e {
                if peer == up {
                    node = Some(n);
                }
            }
        }
        let node = node.unwrap_or(NodeKey::Ip(up.ip()));
        if let Some(i) = nodes.iter().position(|n| *n == node) {
            let other = ups.get(i).map(ToString::to_string).unwrap_or_default();
            return Err(Failure::run(format!(
                "{other} and {up} have the same Node ID {node}: give each UP function its own --node-id"
            )));
        }
        nodes.push(node);
    }
    Ok(nodes)
}

/// Learn the UP functions' Node IDs (for the route list) through a short-lived association
/// from another socket, released at once so that the UP functions forget it.
pub(super) async fn probe(
    local: &LocalNode,
    xact: &TransactionConfig,
    listen: SocketAddr,
    ups: &[SocketAddr],
    node_ie: &[u8],
) -> Result<Vec<NodeKey>, Failure> {
    let config = EndpointConfig::new(local.clone())
        .with_transactions(xact.clone())
        .with_heartbeat_interval(None);
    let addr = SocketAddr::new(listen.ip(), 0);
    let (endpoint, mut channels) = Endpoint::bind(config, addr)
        .await
        .map_err(|e| Failure::run(format!("cannot bind {addr}: {}", io_error_text(&e))))?;
    let nodes = associate_all(&endpoint, &mut channels.events, ups, xact.t1, false).await;
    release_all(&endpoint, node_ie, ups).await;
    nodes
}

/// Release the associations (best effort, 1 s per UP function at most).
pub(super) async fn release_all(endpoint: &Endpoint, node_ie: &[u8], ups: &[SocketAddr]) {
    for &up in ups {
        let header = Header::new(MessageType::ASSOCIATION_RELEASE_REQUEST);
        let request = endpoint.request(up, header, Bytes::copy_from_slice(node_ie));
        let _ = tokio::time::timeout(Duration::from_secs(1), request).await;
    }
}
