//! The sans-IO PFCP node: the whole protocol policy of one local PFCP endpoint (IP address and
//! port) of a CP or UP function, with no socket and no clock.
//!
//! [`Node`] owns the transactions ([`crate::xact`]), the peers and their associations
//! ([`crate::peer`]), the ingress guard ([`crate::guard`]), UP self-protection
//! ([`crate::admission`]), CP overload control ([`crate::cp`]), the session table
//! ([`crate::session`]), the OCI/LCI piggybacking and the error answers of clause 7.6. In the
//! manner of quinn-proto's `Endpoint`, it reads no clock and does no I/O: every input carries
//! `now`, and everything it wants done comes out of `poll_*`.
//!
//! ## Inputs
//!
//! * [`Node::handle_datagram`]: a UDP payload received from a peer.
//! * [`Node::send_request`] (and [`Node::associate`], [`Node::heartbeat`], the node
//!   procedures [`Node::update_association`], [`Node::release_association`],
//!   [`Node::send_node_report`], [`Node::send_session_report`]): a request the application
//!   sends; its outcome comes back as [`NodeEvent::Outcome`].
//! * [`Node::respond`] / [`Node::reject`]: the application's answer to a
//!   [`NodeEvent::Request`].
//! * [`Node::handle_timeout`]: time passed; call it at [`Node::poll_timeout`] (early calls are
//!   harmless, late ones delay retransmissions and the UP's service).
//!
//! ## Outputs, and the polling order
//!
//! After any input, drain in this order:
//!
//! 1. [`Node::poll_transmit`] until `None`: datagrams to send (a send that fails is a lost
//!    datagram; the transaction layer retransmits requests).
//! 2. [`Node::poll_event`] until `None`: requests to answer, outcomes of the application's
//!    requests, peer events. Answering a request (or sending one) from here queues more
//!    transmits: go back to 1 until both are empty.
//! 3. [`Node::poll_timeout`]: when to call [`Node::handle_timeout`] next. It may move earlier
//!    after any input; read it last.
//!
//! [`Node::stats`] and the getters may be read at any time.
//!
//! ## What the node does by itself
//!
//! * **Node messages**: Heartbeat, Association Setup/Update/Release and Node Report requests
//!   are answered ([`crate::peer`]; an Update's features or release request and a Node Report
//!   are reported as peer events); heartbeats go to associated peers every
//!   [`NodeConfig::heartbeat_interval`]. A Heartbeat Request alone in its datagram is
//!   answered afresh every time, retransmissions too, and kept out of the transaction
//!   layer's tables: its answer does not change, and a stream of heartbeats must not evict
//!   the cached responses of session requests.
//! * **Errors** (clause 7.6): a malformed request is answered with the Cause and Offending IE
//!   `pfcp-wire` maps; a wrong version with Version Not Supported Response; unknown message
//!   types are discarded; a session request from a peer without an association gets Cause 72
//!   (clause 6.2.6.1).
//! * **UP self-protection** (with [`NodeConfig::admission`]): session requests wait in the
//!   admission's priority queue and reach the application at its service rate; what it cannot
//!   hold is refused with Cause 74 and the OCI/LCI. Every response to a CP function with OVRL or
//!   LOAD carries the OCI/LCI when the inclusion policy says so (clauses 6.2.3.3, 6.2.4.3), the
//!   application's responses included; so do this UP's Session Report Requests.
//! * **CP overload control** (with [`NodeConfig::cp`]): every request the application sends
//!   passes the destination UP function's throttles ([`crate::cp`]); a refused one is
//!   redirected (Session Establishment, [`RequestProfile::redirectable`], with a route list)
//!   or answered locally in the shape of the UP's rejection: a [`Response`] with Cause 74 and
//!   [`ResponseOrigin::Throttled`].
//! * **Sessions** ([`crate::session`]): accepted Session Establishment and Deletion Responses
//!   keep the table; a CP's requests on a session are scoped to the UP entity of its F-SEID, and
//!   an OCI in a Session Report Request too (clause 6.2.4.3.1).
//! * **Restarts** (clauses 6.2.2, 6.2.6, 6.2.7): a changed Recovery Time Stamp, a heartbeat
//!   failure, a release or Cause 72 from an associated peer ends the association; the peer's
//!   outstanding requests fail, what was learned from it is reset, its sessions are reported
//!   lost ([`PeerEvent::SessionsLost`](crate::peer::PeerEvent::SessionsLost)), and an association this node set up is set up again at
//!   once, then every [`NodeConfig::reassociate_interval`] until the peer accepts. While it is
//!   down, session requests to that peer are answered locally with Cause 72
//!   ([`ResponseOrigin::NoAssociation`]).
//! * **Message priority** ([`PriorityPolicy`], clause 6.2.4.5.2): set on the session requests
//!   sent (from the classifier), trusted or not on those received, and copied from a request
//!   to its response, the application's responses included.
//!
//! ## Example
//!
//! A UP node and a CP node wired back to back in memory:
//!
//! ```
//! use std::net::SocketAddr;
//! use std::time::{Duration, Instant};
//! use pfcp_node::node::{Node, NodeConfig, NodeEvent};
//! use pfcp_node::{AdmissionConfig, CpConfig, LocalNode};
//! use pfcp_overload::NodeKey;
//! use pfcp_wire::ie::RecoveryTimeStamp;
//!
//! let t0 = Instant::now();
//! let up_addr: SocketAddr = "192.0.2.1:8805".parse()?;
//! let cp_addr: SocketAddr = "192.0.2.10:8805".parse()?;
//! let upf = NodeKey::fqdn("upf1.example.net");
//! let mut up = Node::new(
//!     NodeConfig::new(LocalNode::up(upf.clone(), RecoveryTimeStamp(3_900_000_000)))
//!         .with_admission(AdmissionConfig::new(upf)),
//!     t0,
//! )?;
//! let mut cp = Node::new(
//!     NodeConfig::new(LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(3_900_000_001)))
//!         .with_cp(CpConfig::default()),
//!     t0,
//! )?;
//! let setup = cp.associate(up_addr, t0)?;
//! // Carry datagrams until both are quiet.
//! let mut outcome = None;
//! for _ in 0..4 {
//!     while let Some(t) = cp.poll_transmit() {
//!         up.handle_datagram(cp_addr, t.bytes, t0);
//!     }
//!     while let Some(t) = up.poll_transmit() {
//!         cp.handle_datagram(up_addr, t.bytes, t0);
//!     }
//!     while let Some(e) = cp.poll_event() {
//!         if let NodeEvent::Outcome { id, result } = e {
//!             assert_eq!(id, setup);
//!             outcome = Some(result?);
//!         }
//!     }
//! }
//! assert!(outcome.is_some_and(|r| r.is_accepted()));
//! assert!(cp.peers().is_associated(&up_addr) && up.peers().is_associated(&cp_addr));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use pfcp_overload::{Candidate, CandidateView, NodeKey};
use pfcp_throttle::routing::RouteList;
use pfcp_throttle::{EgressConfig, EgressConfigSets, EgressThrottle};
use pfcp_wire::ie::FSeid;
use pfcp_wire::{MessageType, SequenceNumber};

use crate::admission::UpAdmission;
use crate::cp::{CpPolicy, Destination, HoldTicket, UpLink};
use crate::guard::IngressGuard;
use crate::peer::{LocalNode, Peers};
use crate::session::{Session, Sessions};
use crate::xact::{Event, Transactions, Transmit, TxId};
use held::HeldRequest;

mod answer;
mod config;
mod counters;
mod egress;
mod held;
mod inbound;
mod outbound;
mod procedures;
mod responses;
mod state;
mod types;
pub use config::{NodeConfig, NodeConfigError, PriorityPolicy};
pub use counters::{LinkMetric, Metric, MetricKind, LINK_METRICS, METRICS};
pub use state::CpStateTracker;
pub use types::{
    IncomingRequest, NodeEvent, NodeStats, RequestError, RequestId, RequestProfile, RequestRef,
    Response, ResponseOrigin,
};

/// A table keyed by our own sequential [`TxId`]s: a fixed fast hash (nothing for a peer to aim
/// at).
type TxMap<V> = HashMap<TxId, V, foldhash::fast::FixedState>;

/// What an outstanding request of this node is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// The application's request.
    App(RequestId),
    /// An Association Setup Request: the application's (`Some`) or the node's own
    /// re-association.
    Associate(Option<RequestId>),
    /// A Heartbeat Request: the application's (`Some`) or the node's periodic one.
    Heartbeat(Option<RequestId>),
    /// The application's Association Release Request (the association ends when it is
    /// accepted).
    Release(RequestId),
}

/// An outstanding request of this node.
#[derive(Debug, Clone)]
struct Outstanding {
    purpose: Purpose,
    message_type: MessageType,
    /// The request's header SEID (the peer's SEID of the session).
    seid: Option<u64>,
    /// The CP pipeline's destination (its OCI/LCI are fed, its egress slot freed).
    dest: Option<Destination>,
    /// Passed this UP's report egress throttle towards the peer.
    report: bool,
    /// This node's F-SEID in a Session Establishment Request (the session recorded when the
    /// response accepts it).
    f_seid: Option<FSeid>,
    /// The session's key and UE in the C.2 state tracker, if it has one.
    tracked: Option<(u64, Option<u64>)>,
    /// An eMPS or emergency request ([`CpPolicy::exempt_refused`] on its refusal).
    exempt: bool,
    /// The association with the peer it was sent under ([`Peers::epoch`]): a Cause 72 answer
    /// ends only that one, not one set up since.
    epoch: u32,
}

/// A PFCP node, sans-IO: see the [module docs](self).
#[derive(Debug)]
pub struct Node {
    local: LocalNode,
    heartbeat_interval: Option<Duration>,
    reassociate_interval: Option<Duration>,
    priority: PriorityPolicy,
    xact: Transactions,
    peers: Peers,
    guard: IngressGuard,
    admission: Option<UpAdmission>,
    cp: Option<CpPolicy>,
    /// Whether an association was ever kept up ([`Node::associate`]): only then do the peers
    /// have re-association deadlines to look for.
    keeps: bool,
    sessions: Sessions,
    report_egress: Option<EgressConfig>,
    report_egress_sets: Option<EgressConfigSets<NodeKey>>,
    tracker: Option<CpStateTracker>,
    outstanding: TxMap<Outstanding>,
    /// Requests the CP pipeline holds for a place (module `held`).
    held: HashMap<HoldTicket, HeldRequest>,
    next_heartbeat: Option<Instant>,
    /// Datagrams sent outside the transaction layer (Version Not Supported Response).
    backlog: VecDeque<Transmit>,
    events: VecDeque<NodeEvent>,
    next_request: u64,
    draws: u64,
    /// A Weyl sequence for the UP selection (see [`Node::select_up`]), and its step.
    selections: u64,
    selection_step: u64,
    stats: NodeStats,
}

/// The least flood limit of an associated peer derived from the service rate, in multiples of
/// the unassociated rate ([`GuardConfig::rate`](crate::guard::GuardConfig::rate)).
const ASSOCIATED_FLOOR: f64 = 50.0;

/// Most datagrams waiting in the backlog beyond which Version Not Supported Responses are not
/// sent (they are a courtesy).
const MAX_BACKLOG: usize = 1024;

impl Node {
    /// A node with no peers yet, its timers starting at `now`.
    pub fn new(config: NodeConfig, now: Instant) -> Result<Node, NodeConfigError> {
        for (name, d) in [
            ("heartbeat_interval", config.heartbeat_interval),
            ("reassociate_interval", config.reassociate_interval),
        ] {
            if d.is_some_and(|d| d.is_zero()) {
                return Err(NodeConfigError::ZeroInterval(name));
            }
        }
        if let Some(e) = &config.report_egress {
            e.validate()?;
        }
        if let NodeKey::Fqdn(name) = &config.local.node_id {
            pfcp_wire::ie::Fqdn::from_dotted(name)?;
        }
        let admission = match config.admission {
            Some(a) => Some(UpAdmission::new(a, now)?),
            None => None,
        };
        // The C.2 state serves the CP's classification only.
        let tracker = config
            .state_tracker
            .filter(|_| config.cp.is_some())
            .map(CpStateTracker::new);
        let cp = match config.cp {
            Some(c) => {
                let mut cp = CpPolicy::new(c)?;
                cp.set_routes(config.routes);
                Some(cp)
            }
            None => None,
        };
        let mut guard_config = config.guard;
        if guard_config.associated_rate.is_none() {
            // An associated CP's requests are ranked by admission, not dropped unread: only a
            // flood far beyond what the UP serves is (1000 times its service rate), and never
            // below what one socket can carry (50 times the unassociated rate, 1 000 000/s by
            // default): its Heartbeats are answered whatever the session service rate.
            guard_config.associated_rate = admission
                .as_ref()
                .and_then(|a| a.config().service_rate)
                .map(|r| (r * 1000.0).max(guard_config.rate * ASSOCIATED_FLOOR));
        }
        Ok(Node {
            heartbeat_interval: config.heartbeat_interval,
            reassociate_interval: config.reassociate_interval,
            priority: config.priority,
            xact: Transactions::new(config.transactions),
            peers: Peers::new(config.max_peers),
            guard: IngressGuard::new(guard_config),
            admission,
            cp,
            keeps: false,
            sessions: Sessions::new(config.max_sessions),
            report_egress: config.report_egress,
            report_egress_sets: config.report_egress_sets,
            tracker,
            outstanding: TxMap::default(),
            held: HashMap::new(),
            next_heartbeat: config.heartbeat_interval.and_then(|i| now.checked_add(i)),
            backlog: VecDeque::new(),
            events: VecDeque::new(),
            next_request: 0,
            draws: config.seed ^ GOLDEN,
            selections: splitmix64(config.seed ^ 0x5E1E_C7ED_0F0F_0F0F),
            selection_step: selection_step(config.seed),
            stats: NodeStats::default(),
            local: config.local,
        })
    }

    /// This node.
    pub fn local(&self) -> &LocalNode {
        &self.local
    }

    /// The peers and their associations.
    pub fn peers(&self) -> &Peers {
        &self.peers
    }

    /// The transaction layer (its counters and sizes).
    pub fn transactions(&self) -> &Transactions {
        &self.xact
    }

    /// The ingress guard (its drop counters).
    pub fn guard(&self) -> &IngressGuard {
        &self.guard
    }

    /// UP self-protection, if configured.
    pub fn admission(&self) -> Option<&UpAdmission> {
        self.admission.as_ref()
    }

    /// UP self-protection, to feed it the UP's own load measure
    /// ([`UpAdmission::report_utilisation`]) or to dequeue for its own workers.
    pub fn admission_mut(&mut self) -> Option<&mut UpAdmission> {
        self.admission.as_mut()
    }

    /// CP overload control's policy (its counters, classifier, route list), if configured.
    pub fn cp(&self) -> Option<&CpPolicy> {
        self.cp.as_ref()
    }

    /// What this CP function knows of the UP function that last associated with Node ID
    /// `node` (its overload view and throttles), once something was sent or counted there.
    pub fn up_link(&self, node: &NodeKey) -> Option<&UpLink> {
        self.peers.up_link_of(node)
    }

    /// The reduction (percent) a request to `dest` meets at `now` ([`UpLink::reduction`]); 0
    /// before anything was sent there.
    pub fn reduction(&self, dest: &Destination, now: Instant) -> u8 {
        self.up_link(&dest.node)
            .map_or(0, |l| l.reduction(dest.entity, now))
    }

    /// The session this node knows by its own SEID.
    pub fn session(&self, local_seid: u64) -> Option<&Session> {
        self.sessions.get(local_seid)
    }

    /// The egress throttle of this UP function's connection to the CP function at `peer`
    /// ([`NodeConfig::report_egress`], [`NodeConfig::report_egress_sets`]: its Session
    /// Report Requests pass it, its answers and
    /// other messages count in it), once the first report towards `peer` created it.
    pub fn report_egress_throttle(&self, peer: &SocketAddr) -> Option<&EgressThrottle> {
        self.peers.record_at(peer)?.report.as_deref()
    }

    /// Every connection's report egress throttle ([`Node::report_egress_throttle`]), in no
    /// particular order.
    pub fn report_egress_throttles(
        &self,
    ) -> impl Iterator<Item = (&SocketAddr, &EgressThrottle)> + '_ {
        self.peers
            .records()
            .filter_map(|p| p.report.as_deref().map(|r| (&p.addr, r)))
    }

    /// Sessions tracked.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Counters.
    pub fn stats(&self) -> NodeStats {
        self.stats
    }

    /// Replace (or remove) the route list of alternate UP functions (CP side).
    pub fn set_routes(&mut self, routes: Option<RouteList<Destination>>) {
        if let Some(cp) = self.cp.as_mut() {
            cp.set_routes(routes);
        }
    }

    /// Choose the UP function for a new session among `candidates` (peer address and static
    /// weight), by their load (LCI) and overload (OCI) as this CP knows them (clause 6.2.3,
    /// [`UpSelector`](pfcp_overload::UpSelector)); `None` if none can be chosen. Without CP
    /// overload control, in proportion to the static weights.
    ///
    /// The draws are a Weyl sequence, not random: the sessions follow the scores with an
    /// error of a session or two over any run, where random draws give a binomial split that
    /// a UP function at its capacity refuses in part (the default scenario of `pfcp sim` at
    /// 0.9x: goodput 0.983-0.986 with random draws, 0.993-0.996 with these). Each node has its
    /// own start and step, from its seed (see `selection_step`).
    pub fn select_up(
        &mut self,
        candidates: &[(SocketAddr, u32)],
        now: Instant,
    ) -> Option<SocketAddr> {
        self.selections = self.selections.wrapping_add(self.selection_step);
        let draw = self.selections;
        let Some(cp) = self.cp.as_mut() else {
            let total: u64 = candidates.iter().map(|(_, w)| u64::from(*w)).sum();
            if total == 0 {
                return None;
            }
            // The draw as a fraction of 2^64 (a remainder would undo the sequence's spread).
            let mut pick = ((u128::from(draw) * u128::from(total)) >> 64) as u64;
            return candidates.iter().find_map(|(a, w)| {
                if pick < u64::from(*w) {
                    return Some(*a);
                }
                pick -= u64::from(*w);
                None
            });
        };
        let peers = &self.peers;
        let keyed: Vec<Candidate> = candidates
            .iter()
            .map(|(addr, weight)| Candidate {
                node: peers
                    .get(addr)
                    .and_then(|p| p.node.clone())
                    .unwrap_or(NodeKey::Ip(addr.ip())),
                weight: *weight,
            })
            .collect();
        let views = |i: usize| {
            let (addr, _) = candidates.get(i)?;
            let link = peers.up_link(addr)?;
            Some(CandidateView {
                load: link.load(now),
                node_reduction: link.overload().node_reduction(link.node(), now),
            })
        };
        let index_of = |n: &NodeKey| keyed.iter().position(|c| &c.node == n);
        cp.select_up(&keyed, |n| index_of(n).and_then(views), now, draw)
            .and_then(|i| candidates.get(i))
            .map(|(a, _)| *a)
    }

    /// The next datagram to send.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.backlog
            .pop_front()
            .or_else(|| self.xact.poll_transmit())
    }

    /// The next event for the application.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<NodeEvent> {
        self.events.pop_front()
    }

    /// When [`Node::handle_timeout`] should be called next (it may be in the past: then now).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        // Only a node that keeps associations up, or a CP function, has deadlines in its
        // peer records (a UP function with thousands of CP peers scans none).
        let records = (self.keeps || self.cp.is_some())
            .then(|| {
                self.peers
                    .records()
                    .filter_map(|p| {
                        let kept = p.kept.and_then(|k| k.next);
                        let link = p.up.as_ref().and_then(|l| l.poll_timeout());
                        kept.into_iter().chain(link).min()
                    })
                    .min()
            })
            .flatten();
        [
            self.xact.poll_timeout(),
            self.next_heartbeat,
            self.admission.as_ref().and_then(UpAdmission::poll_timeout),
            records,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Process everything due at or before `now`: retransmissions and request timeouts,
    /// expiry of overload states, the UP's service and control intervals, heartbeats and
    /// re-associations.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.xact.handle_timeout(now);
        if let Some(cp) = self.cp.as_mut() {
            for link in self.peers.records_mut().filter_map(|p| p.up.as_deref_mut()) {
                cp.handle_timeout(link, now);
            }
        }
        self.settle_holds(now);
        if let Some(adm) = self.admission.as_mut() {
            adm.handle_timeout(now);
        }
        self.serve_ready(now);
        if let (Some(at), Some(interval)) = (self.next_heartbeat, self.heartbeat_interval) {
            if now >= at {
                let idle: Vec<SocketAddr> = self
                    .peers
                    .records()
                    .filter(|p| p.info.associated && p.heartbeat.is_none())
                    .map(|p| p.addr)
                    .collect();
                for p in idle {
                    if let Ok(tx) = self.send_heartbeat(p, None, now) {
                        if let Some(r) = self.peers.record_at_mut(&p) {
                            r.heartbeat = Some(tx);
                        }
                    }
                }
                self.next_heartbeat = now.checked_add(interval);
            }
        }
        let due: Vec<SocketAddr> = self
            .peers
            .records()
            .filter(|p| p.kept.is_some_and(|k| k.next.is_some_and(|t| t <= now)))
            .map(|p| p.addr)
            .collect();
        for peer in due {
            self.reassociate(peer, now);
        }
        self.drain_xact(now);
    }

    /// The next pseudo-random draw (SplitMix64 over the configured seed).
    fn draw(&mut self) -> u64 {
        self.draws = self.draws.wrapping_add(GOLDEN);
        splitmix64(self.draws)
    }

    /// The Node ID of the peer at `addr` (from its association), or its IP address as one.
    fn node_of(&self, addr: SocketAddr) -> NodeKey {
        self.peers
            .get(&addr)
            .and_then(|p| p.node.clone())
            .unwrap_or(NodeKey::Ip(addr.ip()))
    }

    fn next_request_id(&mut self) -> RequestId {
        let id = RequestId(self.next_request);
        self.next_request = self.next_request.wrapping_add(1);
        id
    }

    /// Act on the transaction layer's events (new requests and matched responses do not come
    /// this way from `handle_datagram`: the intake hands them over decoded).
    fn drain_xact(&mut self, now: Instant) {
        while let Some(e) = self.xact.poll_event() {
            match e {
                Event::Timeout {
                    id,
                    peer,
                    transmissions,
                } => self.on_request_timeout(id, peer, transmissions, now),
                Event::MalformedResponse {
                    id,
                    peer,
                    error,
                    transmissions,
                } => self.on_malformed_response(id, peer, error, transmissions, now),
                Event::Malformed { peer, error } => self.on_malformed(peer, &error, now),
                Event::Retransmitted { id, peer } => self.on_retransmitted(id, peer, now),
                Event::DuplicateRequest {
                    peer,
                    replayed: true,
                    ..
                } => self.count_egress(peer, pfcp_throttle::MessageKind::Answer, now),
                other => tracing::trace!(event = ?other, "transaction event"),
            }
        }
    }

    /// A sequence number `seq` of a request, for messages built here.
    fn sequence_for(&mut self, peer: SocketAddr) -> SequenceNumber {
        self.xact.next_sequence(peer)
    }
}

/// 2^64 divided by the golden ratio, made odd: the step of SplitMix64's state and the best
/// spread Weyl sequence.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The step of a node's Weyl sequence for the UP selection: a noble number, whose continued
/// fraction has partial quotients of 1 or 2 (ten of them, from the seed) and then only 1s, as
/// the golden ratio's. Every such step spreads any run of picks within 2-3 of the shares
/// (bounded partial quotients), and CPs get different ones: with one step for all, CP
/// functions whose sessions come paced at the same rate repeat each other's pattern at a fixed
/// offset, and those that collide at a UP function collide every time (`pfcp sim` at 0.5x:
/// p99 8 ms with the golden ratio for all).
fn selection_step(seed: u64) -> u64 {
    let quotients = splitmix64(seed ^ 0x0123_4567_89AB_CDEF);
    let mut x = (1.0 + 5f64.sqrt()) / 2.0;
    for i in 0..10 {
        x = (1 + ((quotients >> i) & 1)) as f64 + 1.0 / x;
    }
    // 1/x is in (1/3, 1): its 64-bit fraction, made odd.
    ((1.0 / x) * 18_446_744_073_709_551_616.0) as u64 | 1
}

/// SplitMix64's output function.
fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
