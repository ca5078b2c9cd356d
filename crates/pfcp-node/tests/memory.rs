//! Memory per outstanding transaction, per cached response and per peer, measured with a
//! counting global allocator (`allocation-counter`, which counts per thread, so the test
//! harness's other threads never pollute a figure). Each figure is the **net heap bytes still
//! held** after building the state inside `measure` (`bytes_current`), divided by the number
//! of items; the containers' growth policy is part of it (hash tables and B-trees at 10 000
//! entries, queues drained after every call as the endpoint does).
//!
//! Two views per item:
//!
//! * **bookkeeping**: the messages are `Bytes::from_static` (allocated before the
//!   measurement, never freed), so only the state the layer adds is counted: records, indexes,
//!   timer entries, per-peer counters;
//! * **with message**: the messages are encoded inside the measurement as the endpoint does
//!   (`BytesMut` with the builder's capacity, frozen, cloned for the transmit queue), so the
//!   kept copy of the request (outstanding, kept for byte-identical retransmission) or of the
//!   response (cached, to answer duplicates) and its shared-buffer header are counted too.
//!
//! The assertions are upper bounds documenting the design, not tight limits; run with
//! `--nocapture` to see the figures:
//! `cargo test -p pfcp-node --test memory -- --nocapture --test-threads 1`.

#[cfg(feature = "tokio")]
mod common;

use std::net::{Ipv4Addr, SocketAddr};

use allocation_counter::measure;
use bytes::Bytes;
use pfcp_node::xact::{
    approx_bytes_per_cached_response, approx_bytes_per_outstanding,
    approx_bytes_per_pending_request,
};
use pfcp_node::{
    peer, GuardConfig, IngressGuard, LocalNode, Peers, TransactionConfig, Transactions,
};
use pfcp_overload::NodeKey;
use pfcp_wire::ie::RecoveryTimeStamp;
use pfcp_wire::{Message, SequenceNumber};

const N: usize = 10_000;

use pfcp_test_support::clock::origin as t0;

fn addr(i: usize) -> SocketAddr {
    let i = u32::try_from(i).unwrap();
    SocketAddr::from((Ipv4Addr::from(0x0a00_0000 + i), 8805))
}

fn cp_node() -> LocalNode {
    LocalNode::cp(
        NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into()),
        RecoveryTimeStamp(0xE8F4_0000),
    )
}

fn up_node() -> LocalNode {
    LocalNode::up(
        NodeKey::fqdn("upf1.example.net"),
        RecoveryTimeStamp(0xE8F4_A2B0),
    )
}

fn seq(i: usize) -> SequenceNumber {
    SequenceNumber::wrapping(u32::try_from(i).unwrap())
}

/// `b` as a `'static` buffer: cloning and slicing it never allocates, dropping never frees.
fn leak(b: &Bytes) -> Bytes {
    Bytes::from_static(Box::leak(b.to_vec().into_boxed_slice()))
}

/// Transactions that can hold N of everything.
fn transactions() -> Transactions {
    Transactions::new(
        TransactionConfig::default()
            .with_max_outstanding(N)
            .with_max_outstanding_per_peer(N)
            .with_max_cached_responses(N)
            .with_max_pending_requests(N),
    )
}

fn per_item(bytes: i64) -> f64 {
    bytes as f64 / N as f64
}

/// Outgoing requests: N Heartbeat Requests outstanding, to one peer or to N peers.
fn outstanding(spread: bool, with_message: bool) -> f64 {
    let local = cp_node();
    let prebuilt: Vec<Bytes> = (0..N)
        .map(|i| leak(&peer::heartbeat_request(&local, seq(i)).unwrap()))
        .collect();
    let now = t0();
    let mut x = transactions();
    let info = measure(|| {
        for (i, pre) in prebuilt.iter().enumerate() {
            let to = if spread { addr(i) } else { addr(0) };
            let bytes = if with_message {
                peer::heartbeat_request(&local, seq(i)).unwrap()
            } else {
                pre.clone()
            };
            x.send_request(to, bytes, now).unwrap();
            while x.poll_transmit().is_some() {}
        }
    });
    assert_eq!(x.outstanding(), N);
    per_item(info.bytes_current)
}

#[test]
fn transactions_per_outstanding_request() {
    let one_peer = outstanding(false, false);
    let one_peer_msg = outstanding(false, true);
    let n_peers = outstanding(true, false);
    let n_peers_msg = outstanding(true, true);
    println!(
        "Transactions, per outstanding Heartbeat Request ({N} outstanding): \
         bookkeeping {one_peer:.0} B (one peer), {n_peers:.0} B (each to its own peer); \
         with the kept 16-octet request {one_peer_msg:.0} B / {n_peers_msg:.0} B; \
         approx_bytes_per_outstanding() = {}",
        approx_bytes_per_outstanding()
    );
    // Design: a few hundred bytes of bookkeeping per outstanding request, under 1 KiB with
    // the kept request and a per-peer counter.
    assert!(one_peer < 512.0, "{one_peer}");
    assert!(n_peers < 768.0, "{n_peers}");
    assert!(one_peer_msg < 1024.0, "{one_peer_msg}");
    assert!(n_peers_msg < 1024.0, "{n_peers_msg}");
}

/// Incoming requests: N Heartbeat Requests from N peers delivered (in progress), then
/// answered (cached). Returns (per in-progress request, per cached response).
fn incoming(with_message: bool) -> (f64, f64) {
    let cp = cp_node();
    let up = up_node();
    let requests: Vec<Bytes> = (0..N)
        .map(|i| leak(&peer::heartbeat_request(&cp, seq(i)).unwrap()))
        .collect();
    let responses: Vec<Bytes> = (0..N)
        .map(|i| {
            let req = requests.get(i).unwrap();
            let msg = Message::decode(req).unwrap();
            let mut peers = Peers::new(1);
            let answer = peers
                .handle_request(&up, addr(i), &msg, t0())
                .unwrap()
                .unwrap();
            leak(&answer.response.unwrap())
        })
        .collect();
    let now = t0();
    let mut x = transactions();
    let delivered = measure(|| {
        for (i, req) in requests.iter().enumerate() {
            x.handle_datagram(addr(i), req.clone(), now);
            while x.poll_event().is_some() {}
        }
    });
    assert_eq!(x.pending_requests(), N);
    let mut peers = Peers::new(N);
    let answered = measure(|| {
        for (i, req) in requests.iter().enumerate() {
            let response = if with_message {
                // As the endpoint does: the peer layer builds the response.
                let msg = Message::decode(req).unwrap();
                peers
                    .handle_request(&up, addr(i), &msg, now)
                    .unwrap()
                    .unwrap()
                    .response
                    .unwrap()
            } else {
                responses.get(i).unwrap().clone()
            };
            x.send_response(addr(i), seq(i), response, now).unwrap();
            while x.poll_transmit().is_some() {}
        }
        if with_message {
            // Only the cache is measured: the peer table goes (its own test measures it).
            peers = Peers::new(0);
        }
    });
    drop(peers);
    assert_eq!(x.cached_responses(), N);
    assert_eq!(x.pending_requests(), 0);
    (
        per_item(delivered.bytes_current),
        per_item(delivered.bytes_current + answered.bytes_current),
    )
}

#[test]
fn transactions_per_pending_request_and_cached_response() {
    let (pending, cached) = incoming(false);
    let (_, cached_msg) = incoming(true);
    println!(
        "Transactions, incoming ({N} Heartbeat Requests from {N} peers): in progress \
         {pending:.0} B per request (the request itself is not kept); response cache \
         {cached:.0} B per cached response (bookkeeping), {cached_msg:.0} B with the kept \
         16-octet Heartbeat Response; approx_bytes_per_pending_request() = {}, \
         approx_bytes_per_cached_response() = {}",
        approx_bytes_per_pending_request(),
        approx_bytes_per_cached_response()
    );
    assert!(pending < 512.0, "{pending}");
    assert!(cached < 512.0, "{cached}");
    assert!(cached_msg < 1024.0, "{cached_msg}");
}

/// N peers associated through Association Setup Requests, each with its own Node ID.
fn associated_peers(fqdn: bool) -> f64 {
    let up = up_node();
    let requests: Vec<Bytes> = (0..N)
        .map(|i| {
            let node = if fqdn {
                NodeKey::fqdn(&format!("smf{i:05}.n4.region1.operator.example.net"))
            } else {
                NodeKey::Ip(addr(i).ip())
            };
            let local = LocalNode::cp(node, RecoveryTimeStamp(0xE8F4_0000));
            leak(&peer::association_setup_request(&local, seq(i)).unwrap())
        })
        .collect();
    let now = t0();
    let mut peers = Peers::new(N);
    let info = measure(|| {
        for (i, req) in requests.iter().enumerate() {
            let msg = Message::decode(req).unwrap();
            let answer = peers.handle_request(&up, addr(i), &msg, now).unwrap();
            assert!(answer.unwrap().response.is_some());
        }
    });
    assert_eq!(peers.associated().count(), N);
    per_item(info.bytes_current)
}

#[test]
fn peers_per_associated_peer() {
    let ip = associated_peers(false);
    let fqdn = associated_peers(true);
    println!(
        "Peers, per associated peer ({N} peers): {ip:.0} B with an IPv4 Node ID, {fqdn:.0} B \
         with a 40-character FQDN Node ID"
    );
    assert!(ip < 512.0, "{ip}");
    assert!(fqdn < 512.0, "{fqdn}");
}

#[test]
fn ingress_guard_per_source() {
    let now = t0();
    let mut guard = IngressGuard::new(GuardConfig::default().with_max_sources(N));
    let info = measure(|| {
        for i in 0..N {
            assert!(guard.admit(addr(i), false, now));
        }
    });
    assert_eq!(guard.len(), N);
    let per_source = per_item(info.bytes_current);
    println!("IngressGuard, per source ({N} sources): {per_source:.0} B");
    assert!(per_source < 256.0, "{per_source}");
}

/// Through the tokio endpoint handle.
#[cfg(feature = "tokio")]
mod endpoint {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Poll;
    use std::time::Duration;

    use allocation_counter::measure;
    use pfcp_node::TransactionConfig;
    use pfcp_test_support::node::any_port;

    use super::{cp_node, per_item, N};
    use crate::common::{bind, endpoint_config};

    /// A request in flight through the endpoint handle.
    type InFlight<'a> = Pin<Box<dyn Future<Output = Result<(), pfcp_node::Error>> + 'a>>;

    /// N Heartbeat Requests in flight through `Endpoint::heartbeat` to a peer that never
    /// answers: everything the endpoint and the caller hold per request (the caller's boxed
    /// future, the command, the oneshot reply channel, the driver's pending entry, the
    /// transaction and the kept request).
    #[test]
    fn endpoint_per_outstanding_request() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (cp, _ch, silent) = rt.block_on(async {
            // T1 60 s: no retransmission may add to what is measured.
            let config = endpoint_config(cp_node()).with_transactions(
                TransactionConfig::default()
                    .with_t1(Duration::from_secs(60))
                    .with_max_outstanding_per_peer(N),
            );
            let (cp, ch) = bind(config).await;
            let silent = tokio::net::UdpSocket::bind(any_port()).await.unwrap();
            (cp, ch, silent)
        });
        let to = silent.local_addr().unwrap();
        // The silent peer drains its socket (so no datagram is lost) and counts.
        let received = Arc::new(AtomicUsize::new(0));
        let counter = received.clone();
        let mut buf = vec![0u8; 2048];
        rt.spawn(async move {
            while silent.recv_from(&mut buf).await.is_ok() {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        });
        let mut futures: Vec<InFlight<'_>> = Vec::with_capacity(N);
        let future_size = {
            let f = cp.heartbeat(to);
            std::mem::size_of_val(&f)
        };
        let info = measure(|| {
            rt.block_on(async {
                for _ in 0..N {
                    futures.push(Box::pin(cp.heartbeat(to)));
                }
                for _ in 0..2000 {
                    std::future::poll_fn(|cx| {
                        for f in &mut futures {
                            assert!(f.as_mut().poll(cx).is_pending());
                        }
                        Poll::Ready(())
                    })
                    .await;
                    if received.load(Ordering::Relaxed) >= N {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            });
        });
        assert_eq!(received.load(Ordering::Relaxed), N);
        let per_request = per_item(info.bytes_current);
        println!(
            "Endpoint::heartbeat, per outstanding request ({N} in flight): {per_request:.0} B in \
             total, of which {future_size} B is the caller's boxed future (plus 8 B in the test's \
             Vec of futures); the rest is the endpoint's (command, oneshot, pending entry, \
             transaction, kept request)"
        );
        assert!(per_request < 2048.0, "{per_request}");
        drop(futures);
    }
}
