//! The endpoint set-up of pfcp-node's real-UDP tests and of `benches/endpoint.rs`: tokio
//! [`Endpoint`]s on free loopback ports, a CP endpoint associated with a UP endpoint, the UP
//! application that accepts every Session Establishment Request, and a raw socket peer.
//!
//! A module of the tests rather than part of `pfcp-test-support`: that crate depends on
//! pfcp-node without its default features, so that `cargo test -p pfcp-node
//! --no-default-features` builds no tokio, and everything here is tokio. Its includers gate
//! `mod common;` on the `tokio` feature; the bench includes it by path.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use pfcp_node::{
    Channels, Endpoint, EndpointConfig, Error, LocalNode, PeerEvent, RequestHandler,
    RequestProfile, Response,
};
use pfcp_test_support::ies::minimal_establishment_ies;
use pfcp_test_support::node::{any_port, quick_transactions};
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::{FSeid, NodeId};
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{Cause, Header, Message, MessageType};
use tokio::net::UdpSocket;
use tokio::sync::mpsc;
use tokio::time::timeout;

/// How long a test waits for a datagram or an event before it fails.
#[allow(dead_code)] // The bench and the tests that never wait on the network do not use it.
pub(crate) const WAIT: Duration = Duration::from_secs(5);

/// The endpoint configuration of `local` the tests start from: heartbeats off, so that no
/// datagram or event arrives that the test did not cause, and [`quick_transactions`], so that
/// a lost request fails the test within a second. Tests (and the bench) that need other
/// timers replace them with `with_transactions`.
pub(crate) fn endpoint_config(local: LocalNode) -> EndpointConfig {
    EndpointConfig::new(local)
        .with_transactions(quick_transactions())
        .with_heartbeat_interval(None)
}

/// An endpoint with `config` on a free port of 127.0.0.1.
pub(crate) async fn bind(config: EndpointConfig) -> (Endpoint, Channels) {
    Endpoint::bind(config, any_port()).await.unwrap()
}

/// [`bind`] with a request handler answering inside the endpoint's task.
#[allow(dead_code)] // Only loopback.rs and the bench answer from a handler.
pub(crate) async fn bind_with_handler<H: RequestHandler>(
    config: EndpointConfig,
    handler: H,
) -> (Endpoint, Channels) {
    Endpoint::bind_with_handler(config, any_port(), handler)
        .await
        .unwrap()
}

/// A UP endpoint and a CP endpoint associated with it, with their channels: the endpoints
/// stop once their handles and incoming receivers are dropped, so the pair keeps all four.
#[allow(dead_code)] // Only the tests with a CP endpoint towards a UP endpoint build one.
pub(crate) struct Pair {
    /// The UP endpoint.
    pub(crate) up: Endpoint,
    /// The UP endpoint's channels: its application's requests and its peer events (the
    /// association with the CP among them, not yet read).
    pub(crate) up_channels: Channels,
    /// The CP endpoint, associated with [`Pair::up`].
    pub(crate) cp: Endpoint,
    /// The CP endpoint's channels (the association's event not yet read).
    pub(crate) cp_channels: Channels,
}

/// Bind a UP endpoint with `up` and a CP endpoint with `cp`, and associate the CP with the
/// UP (clause 6.2.6). The association events are left in the channels for the test to read.
#[allow(dead_code)] // Only the tests with a CP endpoint towards a UP endpoint build one.
pub(crate) async fn associated_pair(up: EndpointConfig, cp: EndpointConfig) -> Pair {
    let (up, up_channels) = bind(up).await;
    let (cp, cp_channels) = bind(cp).await;
    cp.associate(up.local_addr()).await.unwrap();
    Pair {
        up,
        up_channels,
        cp,
        cp_channels,
    }
}

/// The next peer event, within [`WAIT`].
#[allow(dead_code)] // Not every test reads peer events.
pub(crate) async fn next_event(events: &mut mpsc::Receiver<PeerEvent>) -> PeerEvent {
    timeout(WAIT, events.recv()).await.unwrap().unwrap()
}

/// The IEs of a minimal Session Establishment Request (digest 4.14), CP SEID 1.
#[allow(dead_code)] // The tests without session requests do not use it.
pub(crate) fn establishment_ies() -> Bytes {
    Bytes::from(minimal_establishment_ies())
}

/// Send a Session Establishment Request with [`establishment_ies`] from `cp` to `up` (SEID
/// 0 in the header: the UP has no session yet) and wait for its response.
#[allow(dead_code)] // Only the tests whose CP establishes sessions use it.
pub(crate) async fn establish(
    cp: &Endpoint,
    up: SocketAddr,
    profile: RequestProfile,
) -> Result<Response, Error> {
    let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
    cp.request_with(up, header, establishment_ies(), profile)
        .await
}

/// [`accepted_by`] a UP with Node ID 127.0.0.1 that allocates UP SEID 0x55.
#[allow(dead_code)] // Only loopback.rs and the bench answer as this UP.
pub(crate) fn accepted(request: &Message<'_>) -> Bytes {
    accepted_by(request, NodeId::Ipv4(Ipv4Addr::LOCALHOST), 0x55)
}

/// The Session Establishment Response accepting `request` (clause 7.5.3): addressed to the
/// SEID of the request's CP F-SEID (0 without one, as the endpoint's own session responses),
/// with the request's message priority, then Node ID `node_id`, Cause Request accepted and
/// UP F-SEID `up_seid` on 127.0.0.1.
#[allow(dead_code)] // Only the tests with a UP application use it.
pub(crate) fn accepted_by(request: &Message<'_>, node_id: NodeId<'_>, up_seid: u64) -> Bytes {
    let cp_seid = request.f_seid().ok().flatten().map_or(0, |f| f.seid);
    let mut header = Header::new(MessageType::SESSION_ESTABLISHMENT_RESPONSE)
        .with_seid(cp_seid)
        .with_sequence(request.header().sequence);
    if let Some(p) = request.header().priority {
        header = header.with_priority(p);
    }
    let b = MessageBuilder::new(header)
        .ie(node_id)
        .ie(Cause::REQUEST_ACCEPTED)
        .ie(FSeid {
            seid: up_seid,
            ipv4: Some(Ipv4Addr::LOCALHOST),
            ipv6: None,
        });
    let mut out = BytesMut::zeroed(b.encoded_len());
    b.encode_into(&mut out).unwrap();
    out.freeze()
}

/// Spawn an application task: it answers every request that arrives on `channels` with what
/// `answer` builds from it, and leaves unanswered the ones `answer` returns `None` for and
/// those that do not decode. It holds all of `channels` until the endpoint stops, so that the
/// peer events stay open too. A response that cannot be sent is left to the peer's
/// retransmission or timeout, which is what the tests look at.
#[allow(dead_code)] // Only the tests with an application task use it.
pub(crate) fn serve(
    channels: Channels,
    mut answer: impl FnMut(&Message<'_>) -> Option<Bytes> + Send + 'static,
) {
    tokio::spawn(async move {
        let mut channels = channels;
        while let Some(req) = channels.incoming.recv().await {
            let Ok(msg) = req.message() else { continue };
            let Some(response) = answer(&msg) else {
                continue;
            };
            let _ = req.respond(response).await;
        }
    });
}

/// Association Setup Request from a raw peer (digest 4.11): Node ID 192.0.2.10, CP Function
/// Features LOAD and OVRL.
#[allow(dead_code)] // Only the tests with a raw peer use it.
pub(crate) const ASSOCIATION_SETUP: &str =
    "2005001a00000100003c000500c000020a00600004e8f4a2b00059000103";

/// Send the message in `hex` from the raw socket `sock` to `to`, and return the first
/// datagram that comes back within [`WAIT`].
#[allow(dead_code)] // Only the tests with a raw peer use it.
pub(crate) async fn raw_exchange(sock: &UdpSocket, to: SocketAddr, hex: &str) -> Vec<u8> {
    sock.send_to(&parse_hex(hex).unwrap(), to).await.unwrap();
    let mut buf = vec![0u8; 2048];
    let (n, _) = timeout(WAIT, sock.recv_from(&mut buf))
        .await
        .unwrap()
        .unwrap();
    buf.truncate(n);
    buf
}
