//! The configuration of a [`Node`](super::Node) and why one is refused.

use std::time::Duration;

use pfcp_overload::NodeKey;
use pfcp_throttle::routing::RouteList;
use pfcp_throttle::{EgressConfig, EgressConfigSets, TrackerConfig};

use crate::admission::{AdmissionConfig, AdmissionConfigError};
use crate::cp::{CpConfig, CpConfigError, Destination};
use crate::guard::GuardConfig;
use crate::peer::LocalNode;
use crate::xact::TransactionConfig;

/// What this node does with the message priority of the PFCP header (MP flag and the 4-bit
/// priority, clause 7.2.2.4.1). Clause 6.2.4.5.2 leaves both to operator policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PriorityPolicy {
    /// Set the priority the CP's classifier gives on every session request this node sends
    /// that has none (MP=1; node-related messages have no priority octet). Default `true`: a
    /// UP function's self-protection can only rank what is marked.
    pub set_on_requests: bool,
    /// Rank received requests by their header priority. `false`: every received request ranks
    /// as one without MP (the classifier's default), for a UP function that does not trust its
    /// CP functions' marking. Default `true` (the CP functions of one operator's network).
    pub trust_received: bool,
}

impl Default for PriorityPolicy {
    fn default() -> Self {
        PriorityPolicy {
            set_on_requests: true,
            trust_received: true,
        }
    }
}

impl PriorityPolicy {
    /// With `set_on_requests` (see the field).
    #[must_use]
    pub fn with_set_on_requests(mut self, on: bool) -> Self {
        self.set_on_requests = on;
        self
    }

    /// With `trust_received` (see the field).
    #[must_use]
    pub fn with_trust_received(mut self, on: bool) -> Self {
        self.trust_received = on;
        self
    }
}

/// Configuration of a [`Node`](super::Node).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct NodeConfig {
    /// This node.
    pub local: LocalNode,
    /// Retransmission and cache settings.
    pub transactions: TransactionConfig,
    /// Ingress rate guard per source.
    pub guard: GuardConfig,
    /// Most peers tracked. Default 4096.
    pub max_peers: usize,
    /// Most sessions tracked ([`Node::sessions`](super::Node::session)). Default 1 048 576.
    pub max_sessions: usize,
    /// Heartbeat interval towards associated peers; `None` disables. Default 5 s, so that a
    /// peer that restarted between two requests is noticed within seconds (clause 6.2.2: a
    /// changed Recovery Time Stamp in the Heartbeat Response).
    pub heartbeat_interval: Option<Duration>,
    /// How often a lost association this node set up is set up again while the peer does not
    /// accept it (the first attempt is immediate); `None`: never by itself. Default 1 s.
    pub reassociate_interval: Option<Duration>,
    /// Header message priority policy.
    pub priority: PriorityPolicy,
    /// UP self-protection and OCI/LCI reporting (a UP function). Default `None`.
    pub admission: Option<AdmissionConfig>,
    /// CP overload control: OCI/LCI state, throttling, redirection (a CP function). Default
    /// `None`.
    pub cp: Option<CpConfig>,
    /// Alternate UP functions for redirecting throttled Session Establishment Requests (CP).
    /// Default `None`.
    pub routes: Option<RouteList<Destination>>,
    /// Egress throttle of each connection towards a CP function for this UP's own requests
    /// (Session Report Requests), so that a burst of usage reports cannot overload the CP.
    /// Default `None`.
    pub report_egress: Option<EgressConfig>,
    /// Egress Throttling Configuration Sets for those connections, assigned per CP function
    /// by its Node ID (the router's "configured and assigned to Connections"); a CP function
    /// with no assignment gets the sets' default, else [`NodeConfig::report_egress`]. Default
    /// `None`.
    pub report_egress_sets: Option<EgressConfigSets<NodeKey>>,
    /// The state behind the C.2 rules (TS 29.273 Annex C.2), kept by a CP node from what it
    /// sees: sessions established, first steps admitted and accepted, peer restarts, releases
    /// ([`StateTracker`](pfcp_throttle::StateTracker), see
    /// [`Node::state_tracker`](super::Node::state_tracker)). Default `None`: the classifier
    /// sees only what each [`RequestProfile`](super::RequestProfile) says.
    pub state_tracker: Option<TrackerConfig>,
    /// Seed of the node's pseudo-random draws (throttling in random mode, UP selection,
    /// alternate routing). The node never reads a global RNG; give each node its own seed.
    /// Default 0.
    pub seed: u64,
}

impl NodeConfig {
    /// Defaults for `local`.
    pub fn new(local: LocalNode) -> Self {
        NodeConfig {
            local,
            transactions: TransactionConfig::default(),
            guard: GuardConfig::default(),
            max_peers: 4096,
            max_sessions: 1 << 20,
            heartbeat_interval: Some(Duration::from_secs(5)),
            reassociate_interval: Some(Duration::from_secs(1)),
            priority: PriorityPolicy::default(),
            admission: None,
            cp: None,
            routes: None,
            report_egress: None,
            report_egress_sets: None,
            state_tracker: None,
            seed: 0,
        }
    }

    /// With an egress throttle per CP connection for this UP's Session Report Requests.
    #[must_use]
    pub fn with_report_egress(mut self, e: EgressConfig) -> Self {
        self.report_egress = Some(e);
        self
    }

    /// With configuration sets per CP connection for this UP's Session Report Requests (see
    /// [`NodeConfig::report_egress_sets`]).
    #[must_use]
    pub fn with_report_egress_sets(mut self, sets: EgressConfigSets<NodeKey>) -> Self {
        self.report_egress_sets = Some(sets);
        self
    }

    /// With a route list of alternate UP functions (CP side).
    #[must_use]
    pub fn with_routes(mut self, routes: RouteList<Destination>) -> Self {
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

    /// With a re-association interval (`None`: lost associations are not set up again).
    #[must_use]
    pub fn with_reassociate_interval(mut self, i: Option<Duration>) -> Self {
        self.reassociate_interval = i;
        self
    }

    /// With a message priority policy.
    #[must_use]
    pub fn with_priority_policy(mut self, p: PriorityPolicy) -> Self {
        self.priority = p;
        self
    }

    /// With at most `n` peers.
    #[must_use]
    pub fn with_max_peers(mut self, n: usize) -> Self {
        self.max_peers = n;
        self
    }

    /// With at most `n` sessions tracked.
    #[must_use]
    pub fn with_max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = n;
        self
    }

    /// With a C.2 state tracker (CP side, see the field).
    #[must_use]
    pub fn with_state_tracker(mut self, t: TrackerConfig) -> Self {
        self.state_tracker = Some(t);
        self
    }

    /// With the seed of the node's draws.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

/// Why a [`NodeConfig`] was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NodeConfigError {
    /// The admission configuration is invalid.
    #[error("admission: {0}")]
    Admission(#[from] AdmissionConfigError),
    /// The CP configuration is invalid.
    #[error("cp: {0}")]
    Cp(#[from] CpConfigError),
    /// The report egress configuration is invalid.
    #[error("report_egress: {0}")]
    ReportEgress(#[from] pfcp_throttle::EgressConfigError),
    /// The local Node ID is an FQDN that cannot be encoded.
    #[error("local node ID: {0}")]
    NodeId(#[from] pfcp_wire::ie::FqdnError),
    /// An interval is zero.
    #[error("{0} must be longer than zero")]
    ZeroInterval(&'static str),
}
