//! The tokio UDP endpoint: the protocol state of one socket, shared by a driver task (which
//! reads datagrams and fires timers) and the handles (which send requests and responses from
//! their own tasks); see `endpoint/driver.rs` for how they share it.
//!
//! * **One clock.** The endpoint reads time only in [`now`], from tokio's clock, so tests can
//!   run with `tokio::time::pause()`.
//! * **Requests out**: [`Endpoint::request`] allocates the sequence number, encodes and sends
//!   in the caller's task, retransmits after T1 up to N1 times ([`crate::xact`]) and resolves
//!   with the response or [`Error::Timeout`].
//! * **Requests in**: Heartbeat and Association requests are answered by the endpoint
//!   ([`crate::peer`]); session requests from a peer without an association are rejected with
//!   Cause 72; malformed requests get the Cause and Offending IE `pfcp-wire` maps (7.6); a wrong
//!   version gets Version Not Supported Response; everything else goes to the application:
//!   to its [`RequestHandler`], called in the driver task, if it has one
//!   ([`Endpoint::bind_with_handler`]), else (or when the handler defers) as [`Incoming`]
//!   through a bounded channel (when it is full the request is rejected with Cause 74: the
//!   application is congested).
//! * **Guard rails**: per-source ingress rate ([`crate::guard`]), bounded peers, transactions
//!   and response cache, datagrams capped at 64 KiB; every answer is at most as large as needed
//!   (no amplification: a response never carries more than the Cause, the Node ID where
//!   mandatory, the Offending IE and the overload information).
//! * **Throughput**: a current-thread runtime (or the endpoint on a thread of its own) suits
//!   it best: the driver task and the application's tasks then hand over without cross-thread
//!   wake-ups (`docs/benchmarks.md`, pfcp-node).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::{Cause, DecodeErrorKind, Header, Message, MessageType, SequenceNumber};
use tokio::net::UdpSocket;
use tokio::sync::{mpsc, oneshot};
use tracing::info;

mod driver;
mod handler;
mod inbound;
mod outbound;
use driver::{Driver, Shared};
pub use handler::{HandlerReply, RequestHandler, RequestView};

use crate::admission::{AdmissionConfig, Admit, QueuedRequest, UpAdmission};
use crate::cp::{CpConfig, CpDecision, CpOverloadControl, Destination};
use crate::guard::{GuardConfig, IngressGuard};
use crate::peer::{self, LocalNode, PeerEvent, Peers};
use crate::xact::{Event, TransactionConfig, Transactions, Transmit, TxId};
use pfcp_overload::NodeKey;
use pfcp_throttle::classify::{ArpLevels, Procedure, Registration, RequestState, Snssai};
use pfcp_throttle::RequestContext;

/// The endpoint's only clock read: tokio's clock, so paused-time tests work.
pub fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

/// Configuration of an [`Endpoint`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EndpointConfig {
    /// This node.
    pub local: LocalNode,
    /// Retransmission and cache settings.
    pub transactions: TransactionConfig,
    /// Ingress rate guard per source.
    pub guard: GuardConfig,
    /// Most peers tracked. Default 4096.
    pub max_peers: usize,
    /// Heartbeat interval towards associated peers; `None` disables. Default 60 s.
    pub heartbeat_interval: Option<Duration>,
    /// Capacity of the channel of incoming requests to the application. Default 1024.
    pub incoming_capacity: usize,
    /// UP self-protection and OCI/LCI reporting (a UP function). Default `None`.
    pub admission: Option<AdmissionConfig>,
    /// CP overload control: OCI/LCI state, throttling, redirection (a CP function). Default
    /// `None`.
    pub cp: Option<CpConfig>,
    /// Alternate UP functions for redirecting throttled Session Establishment Requests (CP).
    /// Default `None`.
    pub routes: Option<pfcp_throttle::routing::RouteList<Destination>>,
    /// Egress throttle of each connection towards a CP function for this UP's own requests
    /// (Session Report Requests), so that a burst of usage reports cannot overload the CP.
    /// Default `None`.
    pub report_egress: Option<pfcp_throttle::EgressConfig>,
}

impl EndpointConfig {
    /// Defaults for `local`.
    pub fn new(local: LocalNode) -> Self {
        EndpointConfig {
            local,
            transactions: TransactionConfig::default(),
            guard: GuardConfig::default(),
            max_peers: 4096,
            heartbeat_interval: Some(Duration::from_secs(60)),
            incoming_capacity: 1024,
            admission: None,
            cp: None,
            routes: None,
            report_egress: None,
        }
    }

    /// With an egress throttle per CP connection for this UP's Session Report Requests.
    #[must_use]
    pub fn with_report_egress(mut self, e: pfcp_throttle::EgressConfig) -> Self {
        self.report_egress = Some(e);
        self
    }

    /// With a route list of alternate UP functions (CP side, used with
    /// [`RequestProfile::redirectable`]).
    #[must_use]
    pub fn with_routes(mut self, routes: pfcp_throttle::routing::RouteList<Destination>) -> Self {
        self.routes = Some(routes);
        self
    }

    /// With UP self-protection and overload/load reporting.
    #[must_use]
    pub fn with_admission(mut self, a: AdmissionConfig) -> Self {
        self.admission = Some(a);
        self
    }

    /// With CP overload control.
    #[must_use]
    pub fn with_cp(mut self, c: CpConfig) -> Self {
        self.cp = Some(c);
        self
    }

    /// With transaction settings.
    #[must_use]
    pub fn with_transactions(mut self, t: TransactionConfig) -> Self {
        self.transactions = t;
        self
    }

    /// With the ingress guard settings.
    #[must_use]
    pub fn with_guard(mut self, g: GuardConfig) -> Self {
        self.guard = g;
        self
    }

    /// With a heartbeat interval (`None`: no heartbeats).
    #[must_use]
    pub fn with_heartbeat_interval(mut self, i: Option<Duration>) -> Self {
        self.heartbeat_interval = i;
        self
    }

    /// With at most `n` peers.
    #[must_use]
    pub fn with_max_peers(mut self, n: usize) -> Self {
        self.max_peers = n;
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
    /// No response after N1 retransmissions.
    #[error("no response after {transmissions} transmissions")]
    Timeout {
        /// Transmissions made (1 + N1).
        transmissions: u32,
    },
    /// The peer answered with a rejection.
    #[error("rejected by the peer: {0}")]
    Rejected(Cause),
    /// The endpoint task has stopped.
    #[error("endpoint closed")]
    Closed,
    /// Not sent: the destination's overload throttles refused it; treat it as though the UP
    /// function had rejected it with `cause` (clause 6.2.4.4).
    #[error("throttled locally ({cause})")]
    Throttled {
        /// Cause 74, locally generated.
        cause: Cause,
    },
    /// The endpoint could not be configured.
    #[error("configuration: {0}")]
    Config(String),
    /// The message could not be encoded.
    #[error("encode: {0}")]
    Encode(#[from] pfcp_wire::EncodeError),
    /// The peer's response could not be decoded.
    #[error("bad response: {0}")]
    Decode(#[from] pfcp_wire::DecodeError),
    /// The transaction layer refused the request.
    #[error("transaction: {0}")]
    Xact(#[from] crate::xact::XactError),
    /// Socket error.
    #[error("io: {0}")]
    Io(#[from] io::Error),
}

/// A request from a peer, for the application to answer with [`Incoming::respond`].
#[derive(Debug)]
pub struct Incoming {
    /// Source address and port (the response goes back there).
    pub peer: SocketAddr,
    /// The request's header sequence number.
    pub sequence: SequenceNumber,
    /// The message (one complete PFCP message).
    pub bytes: Bytes,
    shared: Weak<Shared>,
}

impl Incoming {
    /// The decoded message (decoding was checked before delivery, so this succeeds).
    pub fn message(&self) -> Result<Message<'_>, pfcp_wire::DecodeError> {
        Message::decode(&self.bytes)
    }

    /// Send the response (an encoded message whose header copies the request's sequence
    /// number). It is cached to answer retransmissions of the request. The endpoint's work
    /// (OCI/LCI, cache, the send itself) is done in the caller's task: nothing waits.
    pub async fn respond(self, response: Bytes) -> Result<(), Error> {
        let shared = self.shared.upgrade().ok_or(Error::Closed)?;
        tokio::task::coop::consume_budget().await;
        shared.with_state(|d, t| d.respond_app(self.peer, self.sequence, response, t))
    }
}

/// What a CP function knows about a request, for its priority and throttling (an owned form
/// of [`RequestContext`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestProfile {
    /// Emergency session.
    pub emergency: bool,
    /// eMPS session.
    pub emps: bool,
    /// ARP priority levels of the bearers / QoS flows concerned.
    pub arp_levels: Vec<u8>,
    /// Low Access Priority UE.
    pub low_access_priority: bool,
    /// DNN.
    pub dnn: Option<String>,
    /// S-NSSAI.
    pub snssai: Option<Snssai>,
    /// The session is established.
    pub established: bool,
    /// A later step of an admitted procedure.
    pub later_step: bool,
    /// A re-establishment after a peer restart.
    pub restoration: bool,
    /// An additional session of a served UE.
    pub additional_session: bool,
    /// The UP PFCP entity (UP F-SEID address) of the session, for entity-scoped overload.
    pub entity: Option<std::net::IpAddr>,
    /// Allow redirection of a throttled Session Establishment Request to an alternate UP.
    pub redirectable: bool,
}

impl RequestProfile {
    /// An emergency request.
    #[must_use]
    pub fn emergency() -> Self {
        RequestProfile {
            emergency: true,
            ..RequestProfile::default()
        }
    }

    /// With ARP priority levels.
    #[must_use]
    pub fn with_arp(mut self, levels: &[u8]) -> Self {
        self.arp_levels = levels.to_vec();
        self
    }

    /// With redirection allowed.
    #[must_use]
    pub fn with_redirect(mut self, redirectable: bool) -> Self {
        self.redirectable = redirectable;
        self
    }

    /// With the session's UP entity.
    #[must_use]
    pub fn with_entity(mut self, entity: std::net::IpAddr) -> Self {
        self.entity = Some(entity);
        self
    }

    fn context(&self, procedure: Option<Procedure>) -> RequestContext<'_> {
        RequestContext {
            procedure,
            emergency: self.emergency,
            emps: self.emps,
            arp: ArpLevels::from_levels(&self.arp_levels),
            low_access_priority: self.low_access_priority,
            dnn: self.dnn.as_deref().map(std::borrow::Cow::Borrowed),
            snssai: self.snssai,
            // A flag left false is "not known": the classifier's table decides.
            state: RequestState {
                registration: self.established.then_some(Registration::Registered),
                follows_admitted: self.later_step.then_some(true),
                additional_session: self.additional_session.then_some(true),
                restoration: self.restoration.then_some(true),
                releases_resources: None,
            },
        }
    }
}

enum Command {
    Request {
        peer: SocketAddr,
        header: Header,
        ies: Bytes,
        profile: RequestProfile,
        reply: oneshot::Sender<Result<Bytes, Error>>,
    },
    Associate {
        peer: SocketAddr,
        reply: oneshot::Sender<Result<Bytes, Error>>,
    },
    Heartbeat {
        peer: SocketAddr,
        reply: oneshot::Sender<Result<Bytes, Error>>,
    },
    SetRoutes(Option<pfcp_throttle::routing::RouteList<Destination>>),
}

enum Pending {
    App(oneshot::Sender<Result<Bytes, Error>>),
    Associate(SocketAddr, oneshot::Sender<Result<Bytes, Error>>),
    Heartbeat(SocketAddr, Option<oneshot::Sender<Result<Bytes, Error>>>),
}

/// A handle to a running endpoint. Cheap to clone; the task stops when every handle and the
/// incoming receiver are dropped.
#[derive(Debug, Clone)]
pub struct Endpoint {
    shared: Arc<Shared>,
    /// Never sent on: the task sees every handle gone when the channel closes.
    _alive: mpsc::Sender<()>,
    local_addr: SocketAddr,
    local: Arc<LocalNode>,
}

/// The receiving halves an application reads.
#[derive(Debug)]
pub struct Channels {
    /// Session and other requests for the application.
    pub incoming: mpsc::Receiver<Incoming>,
    /// Peer state changes (associated, restarted, released, failed).
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
        let socket = UdpSocket::bind(addr).await?;
        let local_addr = socket.local_addr()?;
        let (alive_tx, alive_rx) = mpsc::channel(1);
        let (wake_tx, wake_rx) = mpsc::channel(1);
        let (in_tx, in_rx) = mpsc::channel(config.incoming_capacity.max(1));
        let (ev_tx, ev_rx) = mpsc::channel(1024);
        let local = Arc::new(config.local.clone());
        let admission = match config.admission.clone() {
            Some(a) => Some(
                UpAdmission::new(a, now())
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?,
            ),
            None => None,
        };
        let cp = match config.cp.clone() {
            Some(c) => {
                let mut cp = CpOverloadControl::new(c)
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
                cp.set_routes(config.routes.clone());
                Some(cp)
            }
            None => None,
        };
        let shared = Arc::new_cyclic(|weak| Shared {
            socket,
            wake: wake_tx,
            state: std::sync::Mutex::new(Driver {
                report_egress: config.report_egress,
                report_throttles: HashMap::new(),
                pending_report: HashMap::default(),
                max_peers: config.max_peers,
                admission,
                cp,
                pending_dest: HashMap::default(),
                node_addrs: HashMap::new(),
                draws: 0x9E37_79B9_7F4A_7C15 ^ u64::from(local_addr.port()),
                xact: Transactions::new(config.transactions.clone()),
                peers: Peers::new(config.max_peers),
                guard: IngressGuard::new(config.guard),
                local: config.local.clone(),
                heartbeat_interval: config.heartbeat_interval,
                next_heartbeat: config.heartbeat_interval.map(|i| now() + i),
                incoming: in_tx,
                events: ev_tx,
                pending: HashMap::default(),
                handler,
                backlog: VecDeque::new(),
                armed: None,
                closed: false,
                shared: weak.clone(),
            }),
        });
        tokio::spawn(driver::run(shared.clone(), alive_rx, wake_rx));
        info!(%local_addr, "pfcp endpoint bound");
        Ok((
            Endpoint {
                shared,
                _alive: alive_tx,
                local_addr,
                local,
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

    /// Send a request: `header` without a sequence number (the endpoint allocates it) and
    /// `ies`, the encoded IEs. Resolves with the response message.
    pub async fn request(
        &self,
        peer: SocketAddr,
        header: Header,
        ies: Bytes,
    ) -> Result<Bytes, Error> {
        self.request_with(peer, header, ies, RequestProfile::default())
            .await
    }

    /// [`Endpoint::request`] with the session context the CP's overload control uses for the
    /// priority (when the header has none) and the throttling decision. A throttled request
    /// is not sent: it fails with [`Error::Throttled`] or, if `profile.redirectable`, goes to
    /// an alternate UP function of the route list.
    pub async fn request_with(
        &self,
        peer: SocketAddr,
        header: Header,
        ies: Bytes,
        profile: RequestProfile,
    ) -> Result<Bytes, Error> {
        let (reply, rx) = oneshot::channel();
        self.command(Command::Request {
            peer,
            header,
            ies,
            profile,
            reply,
        })
        .await?;
        rx.await.map_err(|_| Error::Closed)?
    }

    /// Establish a PFCP association with `peer` (Association Setup Request).
    pub async fn associate(&self, peer: SocketAddr) -> Result<(), Error> {
        let (reply, rx) = oneshot::channel();
        self.command(Command::Associate { peer, reply }).await?;
        let bytes = rx.await.map_err(|_| Error::Closed)??;
        let msg = Message::decode(&bytes)?;
        match msg.cause()? {
            Some(c) if c.is_acceptance() == Some(true) => Ok(()),
            Some(c) => Err(Error::Rejected(c)),
            None => Err(Error::Rejected(Cause::MANDATORY_IE_MISSING)),
        }
    }

    /// Replace the route list of alternate UP functions (CP side), e.g. once associations
    /// have told the Node IDs; `None` disables redirection.
    pub async fn set_routes(
        &self,
        routes: Option<pfcp_throttle::routing::RouteList<Destination>>,
    ) -> Result<(), Error> {
        self.command(Command::SetRoutes(routes)).await
    }

    /// Send a Heartbeat Request now and wait for the response.
    pub async fn heartbeat(&self, peer: SocketAddr) -> Result<(), Error> {
        let (reply, rx) = oneshot::channel();
        self.command(Command::Heartbeat { peer, reply }).await?;
        rx.await.map_err(|_| Error::Closed)?.map(|_| ())
    }

    /// Carry out `c` in the caller's task (see the `driver` module): a request is encoded
    /// and sent before this returns; its answer comes back through the reply channel in `c`.
    /// It counts against the task's cooperative budget, so a task that fires a burst of
    /// requests yields now and then and lets the runtime's other tasks (a receiving peer in
    /// the same process, the driver) run, as a channel to the driver task did.
    async fn command(&self, c: Command) -> Result<(), Error> {
        tokio::task::coop::consume_budget().await;
        self.shared.with_state(|d, t| d.on_command(c, t))
    }
}
