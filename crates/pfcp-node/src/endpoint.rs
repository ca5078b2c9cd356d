//! The tokio UDP endpoint: one task owns the socket and all protocol state; handles talk to
//! it through channels.
//!
//! * **One clock.** The driver reads time only in [`now`], from tokio's clock, so tests can run
//!   with `tokio::time::pause()`.
//! * **Requests out**: [`Endpoint::request`] allocates the sequence number, sends, retransmits
//!   after T1 up to N1 times ([`crate::xact`]) and resolves with the response or
//!   [`Error::Timeout`].
//! * **Requests in**: Heartbeat and Association requests are answered by the endpoint
//!   ([`crate::peer`]); session requests from a peer without an association are rejected with
//!   Cause 72; malformed requests get the Cause and Offending IE `pfcp-wire` maps (7.6); a wrong
//!   version gets Version Not Supported Response; everything else goes to the application as
//!   [`Incoming`] through a bounded channel (when it is full the request is rejected with
//!   Cause 74: the application is congested).
//! * **Guard rails**: per-source ingress rate ([`crate::guard`]), bounded peers, transactions
//!   and response cache, datagrams capped at 64 KiB; every answer is at most as large as needed
//!   (no amplification: a response never carries more than the Cause, the Node ID where
//!   mandatory, the Offending IE and the overload information).

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::{Cause, DecodeErrorKind, Header, Message, MessageType, SequenceNumber};
use tokio::net::UdpSocket;
use tokio::sync::{mpsc, oneshot};
use tracing::{debug, info, warn};

use crate::admission::{AdmissionConfig, Admit, QueuedRequest, UpAdmission};
use crate::cp::{CpConfig, CpDecision, CpOverloadControl, Destination};
use crate::guard::{GuardConfig, IngressGuard};
use crate::peer::{self, LocalNode, PeerEvent, Peers};
use crate::xact::{Event, TransactionConfig, Transactions, TxId};
use pfcp_overload::NodeKey;
use pfcp_throttle::classify::{Procedure, Snssai};
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
    responses: mpsc::Sender<Outgoing>,
}

impl Incoming {
    /// The decoded message (decoding was checked before delivery, so this succeeds).
    pub fn message(&self) -> Result<Message<'_>, pfcp_wire::DecodeError> {
        Message::decode(&self.bytes)
    }

    /// Send the response (an encoded message whose header copies the request's sequence
    /// number). It is cached to answer retransmissions of the request.
    pub async fn respond(self, response: Bytes) -> Result<(), Error> {
        self.responses
            .send(Outgoing::Response {
                peer: self.peer,
                sequence: self.sequence,
                bytes: response,
            })
            .await
            .map_err(|_| Error::Closed)
    }
}

enum Outgoing {
    Response {
        peer: SocketAddr,
        sequence: SequenceNumber,
        bytes: Bytes,
    },
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
            arp_levels: &self.arp_levels,
            low_access_priority: self.low_access_priority,
            dnn: self.dnn.as_deref(),
            snssai: self.snssai,
            established: self.established,
            later_step: self.later_step,
            restoration: self.restoration,
            additional_session: self.additional_session,
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
    commands: mpsc::Sender<Command>,
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
    pub async fn bind(
        config: EndpointConfig,
        addr: SocketAddr,
    ) -> io::Result<(Endpoint, Channels)> {
        let socket = UdpSocket::bind(addr).await?;
        let local_addr = socket.local_addr()?;
        let (cmd_tx, cmd_rx) = mpsc::channel(1024);
        let (in_tx, in_rx) = mpsc::channel(config.incoming_capacity.max(1));
        let (ev_tx, ev_rx) = mpsc::channel(1024);
        let (out_tx, out_rx) = mpsc::channel(1024);
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
        let driver = Driver {
            report_egress: config.report_egress,
            report_throttles: HashMap::new(),
            pending_report: HashMap::new(),
            max_peers: config.max_peers,
            admission,
            cp,
            pending_dest: HashMap::new(),
            node_addrs: HashMap::new(),
            draws: 0x9E37_79B9_7F4A_7C15 ^ u64::from(local_addr.port()),
            socket,
            xact: Transactions::new(config.transactions.clone()),
            peers: Peers::new(config.max_peers),
            guard: IngressGuard::new(config.guard),
            local: config.local.clone(),
            heartbeat_interval: config.heartbeat_interval,
            next_heartbeat: config.heartbeat_interval.map(|i| now() + i),
            commands: cmd_rx,
            incoming: in_tx,
            events: ev_tx,
            responses_tx: out_tx,
            responses: out_rx,
            pending: HashMap::new(),
            direct: Vec::new(),
        };
        tokio::spawn(driver.run());
        info!(%local_addr, "pfcp endpoint bound");
        Ok((
            Endpoint {
                commands: cmd_tx,
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
        self.commands
            .send(Command::Request {
                peer,
                header,
                ies,
                profile,
                reply,
            })
            .await
            .map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)?
    }

    /// Establish a PFCP association with `peer` (Association Setup Request).
    pub async fn associate(&self, peer: SocketAddr) -> Result<(), Error> {
        let (reply, rx) = oneshot::channel();
        self.commands
            .send(Command::Associate { peer, reply })
            .await
            .map_err(|_| Error::Closed)?;
        let bytes = rx.await.map_err(|_| Error::Closed)??;
        let msg = Message::decode(&bytes)?;
        match msg.cause()? {
            Some(c) if c.is_acceptance() == Some(true) => Ok(()),
            Some(c) => Err(Error::Rejected(c)),
            None => Err(Error::Rejected(Cause::MANDATORY_IE_MISSING)),
        }
    }

    /// Send a Heartbeat Request now and wait for the response.
    pub async fn heartbeat(&self, peer: SocketAddr) -> Result<(), Error> {
        let (reply, rx) = oneshot::channel();
        self.commands
            .send(Command::Heartbeat { peer, reply })
            .await
            .map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)?.map(|_| ())
    }
}

struct Driver {
    /// Configuration of the per-CP egress throttles for Session Report Requests.
    report_egress: Option<pfcp_throttle::EgressConfig>,
    /// Those throttles, per CP address (bounded by the peer table size).
    report_throttles: HashMap<SocketAddr, pfcp_throttle::EgressThrottle>,
    /// The egress throttle that admitted each outstanding Session Report Request.
    pending_report: HashMap<TxId, SocketAddr>,
    max_peers: usize,
    admission: Option<UpAdmission>,
    cp: Option<CpOverloadControl>,
    /// Destination of each outstanding CP request (to feed its OCI/LCI and free its slot).
    pending_dest: HashMap<TxId, Destination>,
    /// Address of each associated UP function, for redirection.
    node_addrs: HashMap<NodeKey, SocketAddr>,
    /// State of the splitmix64 generator for throttling draws (seeded, no global RNG).
    draws: u64,
    socket: UdpSocket,
    xact: Transactions,
    peers: Peers,
    guard: IngressGuard,
    local: LocalNode,
    heartbeat_interval: Option<Duration>,
    next_heartbeat: Option<Instant>,
    commands: mpsc::Receiver<Command>,
    incoming: mpsc::Sender<Incoming>,
    events: mpsc::Sender<PeerEvent>,
    responses_tx: mpsc::Sender<Outgoing>,
    responses: mpsc::Receiver<Outgoing>,
    pending: HashMap<TxId, Pending>,
    /// Datagrams sent outside the transaction layer (Version Not Supported Response).
    direct: Vec<(SocketAddr, Bytes)>,
}

/// Largest UDP payload read (IPv4 maximum).
const MAX_DATAGRAM: usize = 65_535;
/// Datagrams taken from the socket per wake-up beyond the first.
const RECV_BATCH: usize = 31;

impl Driver {
    async fn run(mut self) {
        let mut buf = vec![0u8; MAX_DATAGRAM];
        let mut commands_open = true;
        // One timer for the task's life, moved only when the next deadline changes (a new
        // `sleep_until` per loop turn re-registers with the timer wheel every time).
        let idle = tokio::time::Instant::now() + Duration::from_secs(86_400);
        let timer = tokio::time::sleep_until(idle);
        tokio::pin!(timer);
        loop {
            let deadline = [
                self.xact.poll_timeout(),
                self.next_heartbeat,
                self.admission.as_ref().and_then(UpAdmission::poll_timeout),
                self.cp.as_ref().and_then(CpOverloadControl::poll_timeout),
            ]
            .into_iter()
            .flatten()
            .min();
            let target = deadline.map(tokio::time::Instant::from_std);
            if let Some(t) = target {
                if timer.deadline() != t {
                    timer.as_mut().reset(t);
                }
            }
            tokio::select! {
                r = self.socket.recv_from(&mut buf) => match r {
                    Ok((n, from)) => {
                        let payload = Bytes::copy_from_slice(buf.get(..n).unwrap_or_default());
                        self.on_datagram(from, payload);
                        // Take what else is already queued in the socket before the events
                        // are drained and the answers flushed: one wake-up, one batch.
                        for _ in 0..RECV_BATCH {
                            match self.socket.try_recv_from(&mut buf) {
                                Ok((n, from)) => {
                                    let payload =
                                        Bytes::copy_from_slice(buf.get(..n).unwrap_or_default());
                                    self.on_datagram(from, payload);
                                    self.drain_events();
                                }
                                Err(_) => break,
                            }
                        }
                    }
                    Err(e) => warn!(error = %e, "recv_from failed"),
                },
                c = self.commands.recv(), if commands_open => match c {
                    Some(c) => self.on_command(c),
                    None => commands_open = false,
                },
                Some(o) = self.responses.recv() => self.on_outgoing(o),
                _ = &mut timer, if target.is_some() => self.on_timeout(),
            }
            self.drain_events();
            self.flush().await;
            if !commands_open && self.incoming.is_closed() && self.pending.is_empty() {
                debug!("pfcp endpoint stopping: no handle left");
                return;
            }
        }
    }

    fn on_datagram(&mut self, from: SocketAddr, payload: Bytes) {
        let t = now();
        // Responses are not rate-guarded: they only count if they match a request this node
        // sent (the transaction layer discards the rest cheaply), and dropping one would only
        // stall that request for T1. Requests and anything unreadable pass the guard.
        let is_response = payload
            .get(1)
            .is_some_and(|&ty| !MessageType(ty).is_request() && MessageType(ty).is_known());
        if !is_response && !self.guard.admit(from, t) {
            return;
        }
        metrics::counter!("pfcp_datagrams_received_total").increment(1);
        self.xact.handle_datagram(from, payload, t);
    }

    fn on_command(&mut self, c: Command) {
        let t = now();
        match c {
            Command::Request {
                peer,
                mut header,
                ies,
                profile,
                reply,
            } => {
                let mut peer = peer;
                let mut dest = None;
                if let Some(cp) = self.cp.as_mut() {
                    let node = self
                        .peers
                        .get(&peer)
                        .and_then(|p| p.node.clone())
                        .unwrap_or(NodeKey::Ip(peer.ip()));
                    let d = Destination {
                        node,
                        entity: profile.entity,
                    };
                    let t_msg = header.message_type;
                    let ctx = profile.context(Procedure::of(t_msg));
                    self.draws = self.draws.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let draw = splitmix(self.draws);
                    let decision = if profile.redirectable {
                        cp.decide_redirectable(&d, t_msg, &ctx, t, draw)
                    } else {
                        cp.decide(&d, t_msg, &ctx, t, draw)
                    };
                    match decision {
                        CpDecision::Send { priority, dest: to } => {
                            if header.seid.is_some() && header.priority.is_none() {
                                header = header.with_priority(priority);
                            }
                            dest = Some(to);
                        }
                        CpDecision::Redirect { to, priority } => {
                            match self.node_addrs.get(&to.node) {
                                Some(addr) => {
                                    peer = *addr;
                                    if header.seid.is_some() && header.priority.is_none() {
                                        header = header.with_priority(priority);
                                    }
                                    info!(%peer, dest = %to, "request redirected");
                                    dest = Some(to);
                                }
                                None => {
                                    cp.transaction_ended(&to);
                                    let _ = reply.send(Err(Error::Throttled {
                                        cause: Cause::PFCP_ENTITY_IN_CONGESTION,
                                    }));
                                    return;
                                }
                            }
                        }
                        CpDecision::Reject { cause, reason } => {
                            debug!(%peer, ?reason, "request throttled");
                            let _ = reply.send(Err(Error::Throttled { cause }));
                            return;
                        }
                    }
                }
                let report = header.message_type == MessageType::SESSION_REPORT_REQUEST
                    && self.report_egress.is_some();
                if report && !self.admit_report(peer, &header, t) {
                    let _ = reply.send(Err(Error::Throttled {
                        cause: Cause::PFCP_ENTITY_IN_CONGESTION,
                    }));
                    return;
                }
                let seq = self.xact.next_sequence(peer);
                let sent = encode_with(&header.with_sequence(seq), &ies)
                    .map_err(Error::from)
                    .and_then(|b| self.xact.send_request(peer, b, t).map_err(Error::from));
                match sent {
                    Ok(id) => {
                        self.pending.insert(id, Pending::App(reply));
                        if let Some(d) = dest {
                            self.pending_dest.insert(id, d);
                        }
                        if report {
                            self.pending_report.insert(id, peer);
                        }
                    }
                    Err(e) => {
                        if let (Some(cp), Some(d)) = (self.cp.as_mut(), dest) {
                            cp.transaction_ended(&d);
                        }
                        if report {
                            self.report_ended(&peer);
                        }
                        let _ = reply.send(Err(e));
                    }
                }
            }
            Command::Associate { peer, reply } => {
                let seq = self.xact.next_sequence(peer);
                let sent = peer::association_setup_request(&self.local, seq)
                    .map_err(Error::from)
                    .and_then(|b| self.xact.send_request(peer, b, t).map_err(Error::from));
                match sent {
                    Ok(id) => {
                        self.pending.insert(id, Pending::Associate(peer, reply));
                    }
                    Err(e) => {
                        let _ = reply.send(Err(e));
                    }
                }
            }
            Command::Heartbeat { peer, reply } => self.send_heartbeat(peer, Some(reply), t),
        }
    }

    /// Pass a Session Report Request through the egress throttle of the connection to `peer`
    /// (created on first use). Its answers to that CP count in the same measured rate.
    fn admit_report(&mut self, peer: SocketAddr, header: &Header, t: Instant) -> bool {
        let Some(cfg) = self.report_egress else {
            return true;
        };
        if !self.report_throttles.contains_key(&peer) {
            if self.report_throttles.len() >= self.max_peers {
                return true;
            }
            match pfcp_throttle::EgressThrottle::new(cfg, t) {
                Ok(th) => {
                    self.report_throttles.insert(peer, th);
                }
                Err(e) => {
                    warn!(error = %e, "invalid report egress configuration");
                    return true;
                }
            }
        }
        // A report without MP gets the classifier's default for requests (8).
        let priority = header
            .priority
            .unwrap_or_else(|| pfcp_throttle::Classifier::default().received_request(None));
        match self.report_throttles.get_mut(&peer) {
            Some(th) => {
                let d = th.decide(pfcp_throttle::MessageKind::Request, priority, t);
                let ok = matches!(d, pfcp_throttle::EgressDecision::Send);
                if !ok {
                    metrics::counter!("pfcp_requests_throttled_total", "reason" => "report_egress")
                        .increment(1);
                    debug!(%peer, ?d, "session report throttled");
                }
                ok
            }
            None => true,
        }
    }

    fn report_ended(&mut self, peer: &SocketAddr) {
        if let Some(th) = self.report_throttles.get_mut(peer) {
            th.on_transaction_end();
        }
    }

    fn send_heartbeat(
        &mut self,
        peer: SocketAddr,
        reply: Option<oneshot::Sender<Result<Bytes, Error>>>,
        t: Instant,
    ) {
        let seq = self.xact.next_sequence(peer);
        let sent = peer::heartbeat_request(&self.local, seq)
            .map_err(Error::from)
            .and_then(|b| self.xact.send_request(peer, b, t).map_err(Error::from));
        match sent {
            Ok(id) => {
                self.pending.insert(id, Pending::Heartbeat(peer, reply));
            }
            Err(e) => {
                if let Some(r) = reply {
                    let _ = r.send(Err(e));
                }
            }
        }
    }

    fn on_outgoing(&mut self, o: Outgoing) {
        let Outgoing::Response {
            peer,
            sequence,
            bytes,
        } = o;
        let bytes = self.piggyback(peer, bytes);
        if let Some(th) = self.report_throttles.get_mut(&peer) {
            th.on_send(pfcp_throttle::MessageKind::Answer, now());
        }
        if let Err(e) = self.xact.send_response(peer, sequence, bytes, now()) {
            warn!(%peer, error = %e, "response not sent");
        }
    }

    /// Append this UP's OCI/LCI to an application's response when the inclusion policy says
    /// so (messages 51, 53, 55; clause 6.2.3.3, 6.2.4.3).
    fn piggyback(&mut self, peer: SocketAddr, bytes: Bytes) -> Bytes {
        let Some(adm) = self.admission.as_mut() else {
            return bytes;
        };
        let Ok(msg) = Message::decode(&bytes) else {
            return bytes;
        };
        let t = msg.message_type();
        if !t.may_carry_oci()
            || msg
                .find(pfcp_wire::IeType::OVERLOAD_CONTROL_INFORMATION)
                .is_some()
        {
            return bytes;
        }
        let cause = msg.cause().ok().flatten();
        let key = self
            .peers
            .get(&peer)
            .and_then(|p| p.node.clone())
            .unwrap_or(NodeKey::Ip(peer.ip()));
        let oci = adm.oci_for(&key, t, cause, now());
        let lci = adm.lci_for(&key, t);
        if oci.is_none() && lci.is_none() {
            return bytes;
        }
        append_ies(&bytes, lci, oci).unwrap_or(bytes)
    }

    fn on_timeout(&mut self) {
        let t = now();
        self.xact.handle_timeout(t);
        if let Some(cp) = self.cp.as_mut() {
            cp.handle_timeout(t);
        }
        if let Some(adm) = self.admission.as_mut() {
            adm.handle_timeout(t);
        }
        self.serve_ready(t);
        if let (Some(at), Some(interval)) = (self.next_heartbeat, self.heartbeat_interval) {
            if t >= at {
                let peers: Vec<SocketAddr> = self.peers.associated().map(|(a, _)| *a).collect();
                for p in peers {
                    self.send_heartbeat(p, None, t);
                }
                self.next_heartbeat = Some(t + interval);
            }
        }
    }

    fn drain_events(&mut self) {
        while let Some(e) = self.xact.poll_event() {
            match e {
                Event::Request {
                    peer,
                    sequence,
                    message_type,
                    bytes,
                } => self.on_request(peer, sequence, message_type, bytes),
                Event::Response {
                    id, bytes, peer, ..
                } => self.on_response(id, peer, bytes),
                Event::Timeout {
                    id,
                    peer,
                    transmissions,
                } => self.on_request_timeout(id, peer, transmissions),
                Event::Malformed { peer, error } => self.on_malformed(peer, &error),
                other => debug!(event = ?other, "transaction event"),
            }
        }
    }

    fn on_request(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        message_type: MessageType,
        bytes: Bytes,
    ) {
        let t = now();
        let Ok(msg) = Message::decode(&bytes) else {
            return;
        };
        if let Some(answer) = self.peers.handle_request(&self.local, peer, &msg, t) {
            match answer {
                Ok(a) => {
                    if let Some(r) = a.response {
                        self.respond(peer, sequence, r);
                    }
                    for e in a.events {
                        self.on_peer_event(e);
                    }
                }
                Err(e) => warn!(%peer, error = %e, "node response not built"),
            }
            return;
        }
        // Unknown message types are discarded silently (7.6.1).
        if !message_type.is_known() {
            return;
        }
        let cp_seid = if message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST {
            msg.f_seid().ok().flatten().map(|f| f.seid)
        } else {
            msg.header().seid
        };
        if let Err(e) = msg.validate() {
            if let Ok(Some(r)) = peer::error_response(&self.local, &e, cp_seid) {
                self.respond(peer, sequence, r);
            }
            return;
        }
        let rejection = |cause| {
            message_type.response_type().map(|rt| {
                peer::session_or_node_rejection(
                    &self.local,
                    rt,
                    sequence,
                    cp_seid,
                    msg.header().priority,
                    cause,
                    None,
                )
            })
        };
        if message_type.is_session() == Some(true) && !self.peers.is_associated(&peer) {
            // Clause 6.2.6.1: session messages need an established association.
            metrics::counter!("pfcp_requests_rejected_total", "cause" => "72").increment(1);
            if let Some(Ok(r)) = rejection(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION) {
                self.respond(peer, sequence, r);
            }
            return;
        }
        // A Session Report Request from a UP carries its OCI/LCI like a response does.
        if let Some(cp) = self.cp.as_mut() {
            if message_type == MessageType::SESSION_REPORT_REQUEST {
                let node = self
                    .peers
                    .get(&peer)
                    .and_then(|p| p.node.clone())
                    .unwrap_or(NodeKey::Ip(peer.ip()));
                let _ = cp.handle_response(&Destination::entity(node, peer.ip()), &msg, t);
            }
        }
        let rejection = rejection(Cause::PFCP_ENTITY_IN_CONGESTION);
        if let Some(adm) = self.admission.as_mut() {
            let node = self.peers.get(&peer).and_then(|p| p.node.clone());
            if let Ok(req) = adm.request_from(peer, bytes.clone(), node) {
                match adm.offer(req, t) {
                    Admit::Queued { evicted } => {
                        if let Some(ev) = evicted {
                            self.reject_admission(ev);
                        }
                    }
                    Admit::Rejected { request, .. } => self.reject_admission(request),
                    Admit::Bypass(req) => self.deliver(req.peer, req.sequence, req.bytes, None),
                }
                self.serve_ready(t);
                return;
            }
        }
        self.deliver(peer, sequence, bytes, rejection.and_then(Result::ok));
    }

    /// Hand a request to the application; when its channel is full, refuse with Cause 74
    /// rather than queue without bound.
    fn deliver(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        bytes: Bytes,
        rejection: Option<Bytes>,
    ) {
        let incoming = Incoming {
            peer,
            sequence,
            bytes: bytes.clone(),
            responses: self.responses_tx.clone(),
        };
        if self.incoming.try_send(incoming).is_err() {
            metrics::counter!("pfcp_requests_rejected_total", "cause" => "74").increment(1);
            if let Some(r) = rejection {
                self.respond(peer, sequence, r);
            } else if let Some(adm) = self.admission.as_ref() {
                if let Ok(req) = adm.request_from(peer, bytes, None) {
                    self.reject_admission(req);
                }
            }
        }
    }

    /// Dequeue what the UP's service model allows now, and reject what waited too long.
    fn serve_ready(&mut self, t: Instant) {
        loop {
            let Some(adm) = self.admission.as_mut() else {
                return;
            };
            if let Some(expired) = adm.poll_expired() {
                self.reject_admission(expired);
                continue;
            }
            match adm.poll_ready(t) {
                Some(req) => self.deliver(req.peer, req.sequence, req.bytes, None),
                None => return,
            }
        }
    }

    /// Answer a request refused by the UP's admission with Cause 74 and the OCI/LCI.
    fn reject_admission(&mut self, req: QueuedRequest) {
        let Some(adm) = self.admission.as_mut() else {
            return;
        };
        let t = now();
        let rt = req.message_type.response_type();
        let key = req.peer_key();
        let (oci, lci) = match rt {
            Some(rt) => (
                adm.oci_for(&key, rt, Some(Cause::PFCP_ENTITY_IN_CONGESTION), t),
                adm.lci_for(&key, rt),
            ),
            None => (None, None),
        };
        match adm.build_rejection(&req, oci, lci) {
            Ok(r) => self.respond(req.peer, req.sequence, r),
            Err(e) => warn!(peer = %req.peer, error = %e, "rejection not built"),
        }
    }

    fn respond(&mut self, peer: SocketAddr, sequence: SequenceNumber, bytes: Bytes) {
        if let Err(e) = self.xact.send_response(peer, sequence, bytes, now()) {
            warn!(%peer, error = %e, "response not sent");
        }
    }

    fn on_response(&mut self, id: TxId, peer: SocketAddr, bytes: Bytes) {
        let t = now();
        if let Some(p) = self.pending_report.remove(&id) {
            self.report_ended(&p);
        }
        if let (Some(cp), Some(dest)) = (self.cp.as_mut(), self.pending_dest.remove(&id)) {
            if let Ok(msg) = Message::decode(&bytes) {
                // The UP F-SEID of an accepted establishment names the entity for later OCIs.
                let _ = cp.handle_response(&dest, &msg, t);
            }
            cp.transaction_ended(&dest);
        }
        match self.pending.remove(&id) {
            Some(Pending::App(reply)) => {
                let _ = reply.send(Ok(bytes));
            }
            Some(Pending::Associate(p, reply)) => {
                if let Ok(msg) = Message::decode(&bytes) {
                    for e in self.peers.handle_setup_response(p, &msg, t) {
                        self.on_peer_event(e);
                    }
                }
                let _ = reply.send(Ok(bytes));
            }
            Some(Pending::Heartbeat(p, reply)) => {
                if let Ok(msg) = Message::decode(&bytes) {
                    if let Some(e) = self.peers.handle_heartbeat_response(p, &msg, t) {
                        self.on_peer_event(e);
                    }
                }
                if let Some(r) = reply {
                    let _ = r.send(Ok(bytes));
                }
            }
            None => debug!(%peer, "response for an abandoned request"),
        }
    }

    fn on_request_timeout(&mut self, id: TxId, peer: SocketAddr, transmissions: u32) {
        if let Some(p) = self.pending_report.remove(&id) {
            self.report_ended(&p);
        }
        if let (Some(cp), Some(dest)) = (self.cp.as_mut(), self.pending_dest.remove(&id)) {
            cp.transaction_ended(&dest);
        }
        match self.pending.remove(&id) {
            Some(Pending::App(reply)) | Some(Pending::Associate(_, reply)) => {
                let _ = reply.send(Err(Error::Timeout { transmissions }));
            }
            Some(Pending::Heartbeat(p, reply)) => {
                // Path failure: the peer stopped answering (6.2.2).
                if let Some(e) = self.peers.fail(p) {
                    self.on_peer_event(e);
                }
                if let Some(r) = reply {
                    let _ = r.send(Err(Error::Timeout { transmissions }));
                }
            }
            None => debug!(%peer, "timeout for an abandoned request"),
        }
    }

    fn on_malformed(&mut self, peer: SocketAddr, error: &pfcp_wire::DecodeError) {
        metrics::counter!("pfcp_malformed_total").increment(1);
        if let DecodeErrorKind::UnsupportedVersion { .. } = error.kind {
            // Clause 7.6.2: answer with Version Not Supported Response (header only).
            let mut out = BytesMut::with_capacity(8);
            let seq = error.header.map(|h| h.sequence).unwrap_or_default();
            let h = Header::new(MessageType::VERSION_NOT_SUPPORTED_RESPONSE).with_sequence(seq);
            if let Ok(w) = MessageWriter::begin(&mut out, &h) {
                if w.finish().is_ok() {
                    self.transmit_direct(peer, out.freeze());
                }
            }
            return;
        }
        let cp_seid = error.header.and_then(|h| h.seid);
        if let (Ok(Some(r)), Some(h)) = (
            peer::error_response(&self.local, error, cp_seid),
            error.header,
        ) {
            self.respond(peer, h.sequence, r);
        }
    }

    fn transmit_direct(&mut self, peer: SocketAddr, bytes: Bytes) {
        self.direct.push((peer, bytes));
    }

    fn on_peer_event(&mut self, e: PeerEvent) {
        match &e {
            PeerEvent::Associated { peer, node } => {
                self.node_addrs.insert(node.clone(), *peer);
                let features = self.peers.get(peer).and_then(|p| p.cp_features);
                if let (Some(adm), Some(f)) = (self.admission.as_mut(), features) {
                    adm.set_peer_features(node.clone(), &f);
                }
            }
            PeerEvent::Restarted { peer, node }
            | PeerEvent::Failed { peer, node }
            | PeerEvent::Released { peer, node } => {
                if !matches!(e, PeerEvent::Released { .. }) {
                    // A restarted or failed peer: its outstanding transactions fail (6.2.2).
                    self.xact.fail_peer(*peer);
                }
                // What was learned from it is reset (6.2.4.3.2: a restart resets sequencing),
                // unless another address of the same node is still associated: a release or
                // failure of one of a node's addresses must not drop the node's state.
                let node = node.clone().unwrap_or(NodeKey::Ip(peer.ip()));
                let restarted = matches!(e, PeerEvent::Restarted { .. });
                let node_alive = self
                    .peers
                    .associated()
                    .any(|(a, p)| a != peer && p.node.as_ref() == Some(&node));
                if node_alive && !restarted {
                    info!(event = ?e, "peer event (node still associated elsewhere)");
                    let _ = self.events.try_send(e);
                    return;
                }
                if let Some(cp) = self.cp.as_mut() {
                    cp.reset_peer(&node);
                }
                if let Some(adm) = self.admission.as_mut() {
                    adm.remove_peer(&node);
                }
            }
        }
        info!(event = ?e, "peer event");
        let _ = self.events.try_send(e);
    }

    async fn flush(&mut self) {
        while let Some(tx) = self.xact.poll_transmit() {
            if let Err(e) = self.socket.send_to(&tx.bytes, tx.peer).await {
                warn!(peer = %tx.peer, error = %e, "send_to failed");
            }
        }
        for (peer, bytes) in std::mem::take(&mut self.direct) {
            if let Err(e) = self.socket.send_to(&bytes, peer).await {
                warn!(%peer, error = %e, "send_to failed");
            }
        }
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `message` with the LCI and OCI appended and the Message Length patched (IE order is free,
/// clause 8.1.2).
fn append_ies(
    message: &[u8],
    lci: Option<pfcp_wire::ie::LoadControlInformation>,
    oci: Option<pfcp_wire::ie::OverloadControlInformation>,
) -> Option<Bytes> {
    use pfcp_wire::Encode;
    let extra = lci.encoded_len() + oci.encoded_len();
    let mut out = BytesMut::with_capacity(message.len() + extra);
    out.extend_from_slice(message);
    lci.encode(&mut out).ok()?;
    oci.encode(&mut out).ok()?;
    let len = u16::try_from(out.len().checked_sub(4)?).ok()?;
    out.get_mut(2..4)?.copy_from_slice(&len.to_be_bytes());
    Some(out.freeze())
}

/// A message from a header (with its sequence number) and pre-encoded IEs.
fn encode_with(header: &Header, ies: &[u8]) -> Result<Bytes, pfcp_wire::EncodeError> {
    let mut out = BytesMut::with_capacity(header.encoded_len() + ies.len());
    let mut w = MessageWriter::begin(&mut out, header)?;
    w.raw_ies(ies)?;
    w.finish()?;
    Ok(out.freeze())
}
