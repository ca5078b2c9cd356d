//! The tokio UDP endpoint: a thin shell around one sans-IO [`Node`]. It holds the socket, the
//! timer, the clock read and the channels; the protocol is the node's, through its public API
//! only (`endpoint/driver.rs` shows the whole of it).
//!
//! * **One clock.** The endpoint reads time only in [`now`], from tokio's clock, so tests can
//!   run with `tokio::time::pause()`.
//! * **Requests out**: [`Endpoint::request`] hands the request to [`Node::send_request`] in the
//!   caller's task (encoded and sent before the future first waits) and resolves with its
//!   [`Response`]: the peer's, or the one the node generated when its overload control refused
//!   the request or the peer has no association ([`Response::is_local`]; the same shape as a
//!   peer's rejection, clause 6.2.4.4). [`Error::Timeout`] when nothing came back.
//! * **Requests in**: what the node delivers ([`NodeEvent::Request`]) goes to the
//!   application's [`RequestHandler`], called in the driver task, if it has one
//!   ([`Endpoint::bind_with_handler`]), else (or when the handler defers) as [`Incoming`]
//!   through a bounded channel; when it is full the request is rejected with Cause 74 (the
//!   application is congested; a UP's rejection carries its OCI/LCI).
//! * **Socket**: receive and send buffers set large ([`SocketConfig`], clamped by the OS and
//!   reported by [`Endpoint::socket_buffers`]), datagrams read in batches per wake-up, the
//!   kernel's drops of this socket counted ([`Endpoint::kernel_drops`], Linux).
//! * **Throughput**: a current-thread runtime (or the endpoint on a thread of its own) suits
//!   it best: the driver task and the application's tasks then hand over without cross-thread
//!   wake-ups (`docs/benchmarks.md`, pfcp-node).

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_throttle::routing::RouteList;
use pfcp_wire::{Cause, Header, Message, SequenceNumber};
use tokio::net::UdpSocket;
use tokio::sync::{mpsc, oneshot};
use tracing::info;

mod driver;
mod handler;
mod procedures;
mod socket;
use driver::{Shared, Shell};
pub use handler::{HandlerReply, RequestHandler, RequestView};
pub use socket::{SocketBuffers, SocketConfig};

use crate::admission::AdmissionConfig;
use crate::cp::{CpConfig, Destination};
use crate::guard::GuardConfig;
use crate::node::{
    IncomingRequest, Node, NodeConfig, NodeEvent, PriorityPolicy, RequestError, RequestRef,
    Response,
};
use crate::peer::{LocalNode, PeerEvent};
use crate::xact::TransactionConfig;

pub use crate::node::RequestProfile;

/// The endpoint's only clock read: tokio's clock, so paused-time tests work.
pub fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

/// Configuration of an [`Endpoint`]: the node's, the socket's and the channels'.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EndpointConfig {
    /// The node.
    pub node: NodeConfig,
    /// The UDP socket.
    pub socket: SocketConfig,
    /// Capacity of the channel of incoming requests to the application. Default 1024.
    pub incoming_capacity: usize,
    /// Called with every datagram the socket received or sent, e.g. to write a capture.
    /// Default none.
    pub capture: Option<Capture>,
}

/// A datagram the endpoint's socket received or sent, for [`EndpointConfig::capture`].
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Captured<'a> {
    /// Where it came from: the peer for a received datagram, the endpoint for a sent one.
    pub from: SocketAddr,
    /// Where it went.
    pub to: SocketAddr,
    /// The UDP payload.
    pub bytes: &'a [u8],
}

/// The callback of [`EndpointConfig::capture`]. It runs in the endpoint task for every
/// datagram, before a received one is handled and after a sent one left: keep it short (a
/// buffered write), it delays everything else the endpoint does.
#[derive(Clone)]
pub struct Capture(Arc<dyn Fn(&Captured<'_>) + Send + Sync>);

impl Capture {
    /// A capture calling `f`.
    pub fn new(f: impl Fn(&Captured<'_>) + Send + Sync + 'static) -> Self {
        Capture(Arc::new(f))
    }

    pub(crate) fn record(&self, from: SocketAddr, to: SocketAddr, bytes: &[u8]) {
        (self.0)(&Captured { from, to, bytes });
    }
}

impl fmt::Debug for Capture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Capture(..)")
    }
}

impl EndpointConfig {
    /// Defaults for `local`.
    pub fn new(local: LocalNode) -> Self {
        EndpointConfig {
            node: NodeConfig::new(local),
            socket: SocketConfig::default(),
            incoming_capacity: 1024,
            capture: None,
        }
    }

    /// With a node configuration.
    #[must_use]
    pub fn with_node(mut self, node: NodeConfig) -> Self {
        self.node = node;
        self
    }

    /// With socket settings.
    #[must_use]
    pub fn with_socket(mut self, socket: SocketConfig) -> Self {
        self.socket = socket;
        self
    }

    /// With every datagram received and sent passed to `capture` (see the field).
    #[must_use]
    pub fn with_capture(mut self, capture: Capture) -> Self {
        self.capture = Some(capture);
        self
    }

    /// With an egress throttle per CP connection for this UP's Session Report Requests.
    #[must_use]
    pub fn with_report_egress(mut self, e: pfcp_throttle::EgressConfig) -> Self {
        self.node = self.node.with_report_egress(e);
        self
    }

    /// With report egress configuration sets per CP function
    /// ([`NodeConfig::report_egress_sets`]).
    #[must_use]
    pub fn with_report_egress_sets(
        mut self,
        sets: pfcp_throttle::EgressConfigSets<pfcp_overload::NodeKey>,
    ) -> Self {
        self.node = self.node.with_report_egress_sets(sets);
        self
    }

    /// With the seed of the node's draws ([`NodeConfig::with_seed`]). Nodes started together
    /// with one seed draw in lockstep (the same Loss shedding, the same UP selection steps);
    /// give each its own.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.node = self.node.with_seed(seed);
        self
    }

    /// With the C.2 state tracker of a CP (TS 29.273 Annex C.2; see
    /// [`NodeConfig::state_tracker`]).
    #[must_use]
    pub fn with_state_tracker(mut self, t: pfcp_throttle::TrackerConfig) -> Self {
        self.node = self.node.with_state_tracker(t);
        self
    }

    /// With a route list of alternate UP functions (CP side, used with
    /// [`RequestProfile::redirectable`]).
    #[must_use]
    pub fn with_routes(mut self, routes: RouteList<Destination>) -> Self {
        self.node = self.node.with_routes(routes);
        self
    }

    /// With UP self-protection and overload/load reporting.
    #[must_use]
    pub fn with_admission(mut self, a: AdmissionConfig) -> Self {
        self.node = self.node.with_admission(a);
        self
    }

    /// With CP overload control.
    #[must_use]
    pub fn with_cp(mut self, c: CpConfig) -> Self {
        self.node = self.node.with_cp(c);
        self
    }

    /// With transaction settings.
    #[must_use]
    pub fn with_transactions(mut self, t: TransactionConfig) -> Self {
        self.node = self.node.with_transactions(t);
        self
    }

    /// With the ingress guard settings.
    #[must_use]
    pub fn with_guard(mut self, g: GuardConfig) -> Self {
        self.node = self.node.with_guard(g);
        self
    }

    /// With a heartbeat interval (`None`: no heartbeats).
    #[must_use]
    pub fn with_heartbeat_interval(mut self, i: Option<Duration>) -> Self {
        self.node = self.node.with_heartbeat_interval(i);
        self
    }

    /// With a message priority policy.
    #[must_use]
    pub fn with_priority_policy(mut self, p: PriorityPolicy) -> Self {
        self.node = self.node.with_priority_policy(p);
        self
    }

    /// With at most `n` peers.
    #[must_use]
    pub fn with_max_peers(mut self, n: usize) -> Self {
        self.node = self.node.with_max_peers(n);
        self
    }

    /// With an incoming channel of `n` requests.
    #[must_use]
    pub fn with_incoming_capacity(mut self, n: usize) -> Self {
        self.incoming_capacity = n;
        self
    }
}

/// Errors of the endpoint API.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No response after N1 retransmissions (or the peer failed while it was outstanding).
    #[error("no response after {transmissions} transmissions")]
    Timeout {
        /// Transmissions made (1 + N1).
        transmissions: u32,
    },
    /// The peer rejected an association ([`Endpoint::associate`]).
    #[error("rejected by the peer: {0}")]
    Rejected(Cause),
    /// The endpoint task has stopped.
    #[error("endpoint closed")]
    Closed,
    /// The endpoint could not be configured.
    #[error("configuration: {0}")]
    Config(#[from] crate::node::NodeConfigError),
    /// The request could not be sent or got no usable response.
    #[error("{0}")]
    Request(RequestError),
    /// The peer's response could not be decoded.
    #[error("bad response: {0}")]
    Decode(#[from] pfcp_wire::DecodeError),
    /// The response could not be sent.
    #[error("transaction: {0}")]
    Xact(#[from] crate::xact::XactError),
    /// Socket error.
    #[error("io: {0}")]
    Io(#[from] io::Error),
}

impl From<RequestError> for Error {
    fn from(e: RequestError) -> Self {
        match e {
            RequestError::Timeout { transmissions } => Error::Timeout { transmissions },
            other => Error::Request(other),
        }
    }
}

/// A request from a peer, for the application to answer with [`Incoming::respond`] or
/// [`Incoming::reject`].
#[derive(Debug)]
pub struct Incoming {
    /// Source address and port (the response goes back there).
    pub peer: SocketAddr,
    /// The request's header sequence number.
    pub sequence: SequenceNumber,
    /// The message (one complete PFCP message).
    pub bytes: Bytes,
    /// The request as the node delivered it (what answering it needs, the peer's Node ID).
    pub request: IncomingRequest,
    shared: Weak<Shared>,
}

impl Incoming {
    /// The decoded message (decoding was checked before delivery, so this succeeds).
    pub fn message(&self) -> Result<Message<'_>, pfcp_wire::DecodeError> {
        Message::decode(&self.bytes)
    }

    /// Send the response (an encoded message whose header copies the request's sequence
    /// number) through [`Node::respond`], in the caller's task: nothing waits.
    pub async fn respond(self, response: Bytes) -> Result<(), Error> {
        let shared = self.shared.upgrade().ok_or(Error::Closed)?;
        tokio::task::coop::consume_budget().await;
        let r = self.request.reference;
        shared
            .with_node(|n, t| n.respond(&r, response, t))?
            .map_err(Error::from)
    }

    /// Reject the request with `cause` through [`Node::reject`].
    pub async fn reject(self, cause: Cause) -> Result<(), Error> {
        let shared = self.shared.upgrade().ok_or(Error::Closed)?;
        tokio::task::coop::consume_budget().await;
        let r = self.request.reference;
        shared
            .with_node(|n, t| n.reject(&r, cause, t))?
            .map_err(Error::from)
    }

    /// What answering it needs.
    pub fn reference(&self) -> &RequestRef {
        &self.request.reference
    }
}

/// A handle to a running endpoint. Cheap to clone; the task stops when every handle and the
/// incoming receiver are dropped.
///
/// # Examples
///
/// A CP and a UP function on loopback: the CP sets up an association (clause 6.2.6) and
/// sends a Heartbeat, both answered by the UP endpoint's node itself.
///
/// ```
/// use pfcp_node::{Endpoint, EndpointConfig, LocalNode};
/// use pfcp_overload::NodeKey;
/// use pfcp_wire::ie::RecoveryTimeStamp;
///
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// runtime.block_on(async {
///     let upf = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(0xe8f4_a2b0));
///     let smf = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(0xe8f4_0000));
///     let (up, _up_channels) = Endpoint::bind(EndpointConfig::new(upf), "127.0.0.1:0".parse()?).await?;
///     let (cp, _cp_channels) = Endpoint::bind(EndpointConfig::new(smf), "127.0.0.1:0".parse()?).await?;
///
///     cp.associate(up.local_addr()).await?;
///     cp.heartbeat(up.local_addr()).await?;
///     assert!(cp.inspect(|node| node.peers().is_associated(&up.local_addr()))?);
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Endpoint {
    shared: Arc<Shared>,
    /// Never sent on: the task sees every handle gone when the channel closes.
    _alive: mpsc::Sender<()>,
    local_addr: SocketAddr,
    local: Arc<LocalNode>,
    buffers: SocketBuffers,
}

/// The receiving halves an application reads.
#[derive(Debug)]
pub struct Channels {
    /// Session and other requests for the application.
    pub incoming: mpsc::Receiver<Incoming>,
    /// Peer state changes (associated, restarted, released, failed, sessions lost) and what
    /// peers report in node messages (features updated, release requested, node reports;
    /// clauses 6.2.7-6.2.9).
    pub events: mpsc::Receiver<PeerEvent>,
}

impl Endpoint {
    /// Bind a UDP socket at `addr` and start the endpoint task on the current tokio runtime.
    /// Requests for the application come through [`Channels::incoming`].
    pub async fn bind(
        config: EndpointConfig,
        addr: SocketAddr,
    ) -> io::Result<(Endpoint, Channels)> {
        Self::start(config, addr, None).await
    }

    /// [`Endpoint::bind`] with a [`RequestHandler`] that answers requests inside the endpoint
    /// task, with no channel hop; the requests it returns [`HandlerReply::Defer`] for come
    /// through [`Channels::incoming`] as usual. See [`RequestHandler`] for what runs
    /// before it and what its answers go through.
    ///
    /// The task stops when every [`Endpoint`] handle and the incoming receiver are dropped:
    /// an application that answers everything in its handler keeps a handle (or the
    /// [`Channels`]) for as long as the endpoint should run.
    pub async fn bind_with_handler<H: RequestHandler>(
        config: EndpointConfig,
        addr: SocketAddr,
        handler: H,
    ) -> io::Result<(Endpoint, Channels)> {
        Self::start(config, addr, Some(Box::new(handler))).await
    }

    async fn start(
        config: EndpointConfig,
        addr: SocketAddr,
        handler: Option<Box<dyn RequestHandler>>,
    ) -> io::Result<(Endpoint, Channels)> {
        let node = Node::new(config.node, now())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        let socket = UdpSocket::bind(addr).await?;
        let buffers = socket::configure(&socket, &config.socket);
        let local_addr = socket.local_addr()?;
        let (alive_tx, alive_rx) = mpsc::channel(1);
        let (wake_tx, wake_rx) = mpsc::channel(1);
        let (in_tx, in_rx) = mpsc::channel(config.incoming_capacity.max(1));
        let (ev_tx, ev_rx) = mpsc::channel(1024);
        let local = Arc::new(node.local().clone());
        let drops = socket::DropCounter::new(&socket);
        let shared = Arc::new_cyclic(|weak| Shared {
            socket,
            wake: wake_tx,
            drops,
            state: std::sync::Mutex::new(Shell::new(
                node,
                handler,
                in_tx,
                ev_tx,
                weak.clone(),
                config.capture.map(|c| (c, local_addr)),
            )),
        });
        tokio::spawn(driver::run(shared.clone(), alive_rx, wake_rx));
        info!(
            %local_addr,
            recv_buffer = buffers.recv,
            send_buffer = buffers.send,
            "pfcp endpoint bound"
        );
        Ok((
            Endpoint {
                shared,
                _alive: alive_tx,
                local_addr,
                local,
                buffers,
            },
            Channels {
                incoming: in_rx,
                events: ev_rx,
            },
        ))
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// This node.
    pub fn local_node(&self) -> &LocalNode {
        &self.local
    }

    /// The socket's buffer sizes as the OS set them (it may clamp what was asked).
    pub fn socket_buffers(&self) -> SocketBuffers {
        self.buffers
    }

    /// Datagrams the kernel dropped on this socket because its receive buffer was full, since
    /// it was bound; `None` where the OS does not say (only Linux does, here).
    pub fn kernel_drops(&self) -> Option<u64> {
        self.shared.drops.read()
    }

    /// Run `f` on the node (its counters, peers, sessions, admission) at the endpoint's now.
    pub fn inspect<R>(&self, f: impl FnOnce(&Node) -> R) -> Result<R, Error> {
        self.shared.with_node(|n, _| f(n))
    }

    /// Send a request: `header` without a sequence number (the node allocates it) and `ies`,
    /// the encoded IEs. Resolves with the response (see [`Endpoint::request_with`]).
    pub async fn request(
        &self,
        peer: SocketAddr,
        header: Header,
        ies: Bytes,
    ) -> Result<Response, Error> {
        self.request_with(peer, header, ies, RequestProfile::default())
            .await
    }

    /// [`Endpoint::request`] with the session context the CP's overload control uses for the
    /// priority and the throttling decision ([`Node::send_request`]). A request the node's
    /// overload control refuses resolves with a local response (Cause 74,
    /// [`Response::is_local`]), in the shape of the UP's rejection; one it redirects resolves
    /// with the alternate UP function's response.
    pub async fn request_with(
        &self,
        peer: SocketAddr,
        header: Header,
        ies: Bytes,
        profile: RequestProfile,
    ) -> Result<Response, Error> {
        tokio::task::coop::consume_budget().await;
        let (reply, rx) = oneshot::channel();
        self.shared.with_shell(|s, t| {
            let id = s.node.send_request(peer, header, &ies, &profile, t)?;
            s.replies.insert(id, reply);
            Ok::<(), Error>(())
        })??;
        rx.await.map_err(|_| Error::Closed)?
    }

    /// Establish a PFCP association with `peer` (Association Setup Request); the node keeps it
    /// up from then on ([`Node::associate`]).
    pub async fn associate(&self, peer: SocketAddr) -> Result<(), Error> {
        tokio::task::coop::consume_budget().await;
        let (reply, rx) = oneshot::channel();
        self.shared.with_shell(|s, t| {
            let id = s.node.associate(peer, t)?;
            s.replies.insert(id, reply);
            Ok::<(), Error>(())
        })??;
        let response = rx.await.map_err(|_| Error::Closed)??;
        match response.cause {
            Some(c) if c.is_acceptance() == Some(true) => Ok(()),
            Some(c) => Err(Error::Rejected(c)),
            None => Err(Error::Rejected(Cause::MANDATORY_IE_MISSING)),
        }
    }

    /// Replace the route list of alternate UP functions (CP side), e.g. once associations
    /// have told the Node IDs; `None` disables redirection.
    pub fn set_routes(&self, routes: Option<RouteList<Destination>>) -> Result<(), Error> {
        self.shared.with_node(|n, _| n.set_routes(routes))
    }

    /// Choose the UP function for a new session among `candidates` (address, static weight)
    /// by load and overload ([`Node::select_up`]).
    pub fn select_up(&self, candidates: &[(SocketAddr, u32)]) -> Result<Option<SocketAddr>, Error> {
        self.shared.with_node(|n, t| n.select_up(candidates, t))
    }

    /// Send a Heartbeat Request now and wait for the response.
    pub async fn heartbeat(&self, peer: SocketAddr) -> Result<(), Error> {
        tokio::task::coop::consume_budget().await;
        let (reply, rx) = oneshot::channel();
        self.shared.with_shell(|s, t| {
            let id = s.node.heartbeat(peer, t)?;
            s.replies.insert(id, reply);
            Ok::<(), Error>(())
        })??;
        rx.await.map_err(|_| Error::Closed)?.map(|_| ())
    }
}

impl fmt::Display for SocketBuffers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "receive {} KiB, send {} KiB",
            self.recv / 1024,
            self.send / 1024
        )
    }
}

// Handles and the incoming channel hold the node through `Shared`; dispatching what the node
// reports is the shell's.
impl Shell {
    fn dispatch(&mut self, e: NodeEvent, now: Instant) {
        match e {
            NodeEvent::Request(request) => self.deliver(request, now),
            NodeEvent::Outcome { id, result } => {
                if let Some(reply) = self.replies.remove(&id) {
                    let _ = reply.send(result.map_err(Error::from));
                }
            }
            NodeEvent::Peer(e) => {
                let _ = self.events.try_send(e);
            }
        }
    }
}
