//! The value types of the CP pipeline: destinations, decisions, outcomes, configuration,
//! errors and counters.

use std::fmt;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use pfcp_overload::{LciOutcome, LoadConfig, NodeKey, OciOutcome, OverloadConfig, UpSelector};
use pfcp_throttle::{
    ClassifierConfig, EgressConfig, EgressConfigError, EgressConfigSets, LossConfig,
    RequestContext, ThrottleReason, Throttled,
};
use pfcp_wire::{Cause, MessagePriority, MessageType};

use super::HoldTicket;

/// A UP destination: the UP function (Node ID) and, for requests on an existing session, the
/// PFCP entity (the IP address of the UP F-SEID) the request goes to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Destination {
    /// The UP function's Node ID.
    pub node: NodeKey,
    /// The UP PFCP entity's address, if the request concerns a session it holds.
    pub entity: Option<IpAddr>,
}

impl Destination {
    /// The UP function itself (Session Establishment Requests, node-related requests).
    pub fn node(node: NodeKey) -> Self {
        Destination { node, entity: None }
    }

    /// A PFCP entity of the UP function (requests on a session it holds).
    pub fn entity(node: NodeKey, entity: IpAddr) -> Self {
        Destination {
            node,
            entity: Some(entity),
        }
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.entity {
            Some(ip) => write!(f, "{} (entity {ip})", self.node),
            None => write!(f, "{}", self.node),
        }
    }
}

/// How the Loss throttles decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LossMode {
    /// [`LossThrottle::decide`](pfcp_throttle::LossThrottle::decide): paced, exact to a request (default).
    #[default]
    Deterministic,
    /// [`LossThrottle::decide`](pfcp_throttle::LossThrottle::decide) with the caller's draw ([`LossRequest::with_draw`](pfcp_throttle::LossRequest::with_draw)): Annex A.1 random mode.
    Random,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RejectReason {
    /// The Loss throttle of the destination (the UP's overload reduction).
    Loss(Throttled),
    /// The egress throttle of the UP function's connection.
    Egress(ThrottleReason),
    /// Redirected to an alternate UP function whose address the node does not know (it has
    /// no association with it yet).
    NoAlternateAddress,
    /// A UP function's Session Report Request refused by the egress throttle of its
    /// connection to the CP function, for this reason (the level that shed it, the cap, the
    /// pending limit).
    ReportEgress(ThrottleReason),
    /// The Loss throttle let it through, but its place went to an eMPS or emergency request
    /// to the same UP function, sent ahead of it ([`CpConfig::exempt_ahead_max`]) or held
    /// for it ([`CpConfig::exempt_hold`]); it counts as the Loss throttle's drop, with this
    /// reduction and class.
    Yielded(Throttled),
}

/// The outcome of [`CpPolicy::decide`](crate::cp::CpPolicy::decide).
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum CpDecision {
    /// Send it to `dest` with `priority` in the header (MP=1; not encoded on node-related
    /// messages, which have no priority octet).
    Send {
        /// The message priority.
        priority: MessagePriority,
        /// The destination (as asked).
        dest: Destination,
        /// An eMPS or emergency request (the exempt class, clause 6.2.4.5.1).
        exempt: bool,
    },
    /// Send it to the alternate UP function `to` instead (Session Establishment Requests
    /// only).
    Redirect {
        /// The alternate destination whose throttles admitted it.
        to: Destination,
        /// The message priority.
        priority: MessagePriority,
        /// An eMPS or emergency request (the exempt class, clause 6.2.4.5.1).
        exempt: bool,
    },
    /// Do not send it: fail it locally as though the UP function had rejected it (clause
    /// 6.2.4.4) with `cause`, 74 "PFCP entity in congestion" (locally generated).
    Reject {
        /// Which throttle refused it (of the original destination).
        reason: RejectReason,
        /// The cause to report upward.
        cause: Cause,
    },
    /// Keep it, unsent, until
    /// [`CpPolicy::poll_hold`](crate::cp::CpPolicy::poll_hold) gives its
    /// ticket's outcome, at `until` at the latest: an eMPS or emergency request the Loss
    /// throttle shed, waiting for the place of a lower-priority request to the same UP function
    /// ([`CpConfig::exempt_hold`], clause 6.2.4.5.1). On
    /// [`HoldOutcome::Send`](crate::cp::HoldOutcome::Send) send it to `dest` with `priority`;
    /// on [`HoldOutcome::Reject`](crate::cp::HoldOutcome::Reject) fail it locally with cause
    /// 74, as for [`CpDecision::Reject`].
    Hold {
        /// Names the request in its outcome.
        ticket: HoldTicket,
        /// When the hold ends, if no place came.
        until: Instant,
        /// The message priority to send it with.
        priority: MessagePriority,
        /// The destination (as asked).
        dest: Destination,
    },
}

impl CpDecision {
    /// Where to send the request, `None` for a rejection.
    pub fn destination(&self) -> Option<&Destination> {
        match self {
            CpDecision::Send { dest, .. } => Some(dest),
            CpDecision::Redirect { to, .. } => Some(to),
            CpDecision::Reject { .. } | CpDecision::Hold { .. } => None,
        }
    }

    /// Whether the request goes to the destination it was meant for.
    pub fn is_send(&self) -> bool {
        matches!(self, CpDecision::Send { .. })
    }

    /// Whether the request was rejected locally.
    pub fn is_reject(&self) -> bool {
        matches!(self, CpDecision::Reject { .. })
    }
}

/// What [`CpPolicy::handle_message`](crate::cp::CpPolicy::handle_message) did with a message's OCI and LCI (`None`:
/// the message carried none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseOutcome {
    /// The OCI's fate.
    pub oci: Option<OciOutcome>,
    /// The LCI's fate.
    pub lci: Option<LciOutcome>,
}

/// Configuration of the CP pipeline ([`CpPolicy`](crate::cp::CpPolicy) and its links).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CpConfig {
    /// The overload table.
    pub overload: OverloadConfig,
    /// The load table.
    pub load: LoadConfig,
    /// UP selection for new sessions.
    pub selector: UpSelector,
    /// The priority classifier.
    pub classifier: ClassifierConfig,
    /// Every Loss throttle's configuration.
    pub loss: LossConfig,
    /// How the Loss throttles decide. Default deterministic.
    pub loss_mode: LossMode,
    /// The egress configuration of the UP functions without an assignment in
    /// [`CpConfig::egress_sets`] (their default set); `None` (default): none.
    pub egress: Option<EgressConfig>,
    /// Egress configuration sets assigned per UP function (per PFCP association: the router's
    /// "Egress Throttling Configuration Sets can be configured and assigned to Connections"),
    /// each with the set's Max EMR or the UP function's own
    /// ([`EgressConfigSets::assign_with_max_rate`], and [`EgressConfigSets::assign_peer`] for
    /// "the total capacity of the Peer" divided by its connections). Default: none.
    pub egress_sets: EgressConfigSets<NodeKey>,
    /// Most destinations with a Loss throttle, and most UP functions with an egress throttle
    /// (at least 1). Default 4096.
    pub max_destinations: usize,
    /// Probes (TS 29.244 6.2.4.3.1: OCI rides only on the UP function's own messages, so a CP
    /// function hears of a change only in answer to what it sends). A request the Loss
    /// throttle sheds is sent anyway when nothing went to its UP function for this many times
    /// the usual gap between sends there (a moving average), and at least
    /// [`CpConfig::probe_min_gap`]. The Loss throttle takes the drop back
    /// ([`LossThrottle::send_anyway`](pfcp_throttle::LossThrottle::send_anyway)) and sheds it
    /// from the next requests, so the reduction over a run is unchanged: a probe moves a send
    /// earlier. It bounds how long a CP function whose demand fell stays deaf to the end of an
    /// overload: with 16 CPs after a step from 10x to 1x of a UP function's capacity the rate
    /// it serves settled in 0.4-0.5 s instead of 0.7-1.1 s (`docs/overload-control.md`, "The
    /// step down"). At 16 a steady overload of paced traffic sees almost none. `None`: never.
    /// Default `Some(16)`; `Some(0)` is refused.
    pub probe_gap_factor: Option<u32>,
    /// Probes after a fall of the CP's own demand: while its offers to a UP function (sent
    /// or shed) come this many times further apart than over the last hundred or so (a short
    /// moving average of their gaps against a long one), a shed request goes as a probe after
    /// a silence of two usual gaps between sends (and at least [`CpConfig::probe_min_gap`]).
    /// A CP whose demand fell tenfold under 88 % sends a request every 130 ms or so; the UP
    /// function lowers its metric within 50 ms of such a fall, and this lets the CP hear it
    /// within a gap or two of its old rhythm. As for [`CpConfig::probe_gap_factor`] the Loss
    /// throttle takes the drops back (within its credit). With 16 CPs after a step from 10x to
    /// 1x the served rate settled within 0.2 s in 44 of 48 seeds instead of none (with the
    /// reporter's rule of raising an open metric on arrivals, not on a rebuilt demand;
    /// `docs/overload-control.md`, "Probes after a fall"). A CP function of a pool of
    /// hundreds, whose usual gap between sends is long (more than 200 ms), is told its demand
    /// fell when its offers as a whole (to every UP function) come suddenly this many times
    /// further apart than just before, and probes after a silence of at most 400 ms: in a storm
    /// it offers each UP function too few requests for the long average to learn their
    /// rhythm, and the two usual gaps it would wait are seconds (with 1000 CP functions before
    /// one UP function, the step 1x -> 10x -> 1x of `pfcp sim` went from 0.725 to 0.934 of
    /// the ideal). `None`: never. Default `Some(4)`; `Some(0)` and `Some(1)` are refused.
    pub probe_fall_factor: Option<u32>,
    /// The shortest silence towards a UP function that a probe may end (see
    /// [`CpConfig::probe_gap_factor`]). Default 20 ms.
    pub probe_min_gap: Duration,
    /// How long an eMPS or emergency request the Loss throttle sheds, and that cannot go
    /// ahead ([`CpConfig::exempt_ahead_max`]), waits for a place ([`CpDecision::Hold`]),
    /// while the throttle has counted less than half its window
    /// ([`LossThrottle::window_count`](pfcp_throttle::LossThrottle::window_count)). Clause
    /// 6.2.4.5.1 exempts priority traffic "up to the point where the requested traffic
    /// reduction cannot be achieved without throttling" it; the throttle judges that on the
    /// window it has counted, which right after a storm starts holds a hundred or two
    /// requests, and the exempt share of so few spreads far beyond its mean (emergency
    /// sessions bring three requests each). When a lower-priority request to the same UP
    /// function passes the throttle during the hold, it is rejected instead
    /// ([`RejectReason::Yielded`]) and the held request goes in its place, so the UP function
    /// receives what the reduction allows and no more; a held request whose reduction ends
    /// is sent. Nor is a request held while the exempt share of all the throttle counted
    /// since it began is more than the reduction leaves. A held request that finds its place
    /// late is a slow success (with 16 `pfcp cp` at 10x, one CP's own p99 reached 98 ms), so
    /// holds are off by default: sending ahead does their work at a storm's onset without the
    /// wait (`docs/throttle.md`, "Sending priority requests ahead"). `None` (or zero): no
    /// holds. Default `None`.
    pub exempt_hold: Option<Duration>,
    /// Most requests held per UP function; more are shed at once. Default 16.
    pub exempt_hold_max: usize,
    /// Most eMPS and emergency requests per UP function **sent ahead** of a lower-priority
    /// place (clause 6.2.4.5.1): a request of the exempt class that the Loss throttle sheds is
    /// sent at once, and the next lower-priority request to the same UP function that the
    /// throttle lets through is rejected instead ([`RejectReason::Yielded`]). The two trade
    /// places, so the UP function receives as many requests as the reduction allows; only
    /// which ones, and when, changes. The throttle's boundary between classes is estimated
    /// on its window of recent requests, and at a storm's onset that window holds a hundred
    /// or two, whose exempt share spreads far beyond its mean (emergency sessions bring three
    /// requests each): the throttle then sheds priority requests while lower-priority ones
    /// still pass. Sending ahead corrects that inversion without the wait of a hold
    /// ([`CpConfig::exempt_hold`]). Up to this many places are owed at once; more exempt
    /// requests are shed (or held, if holds are on). The places still owed when the UP
    /// function's reduction ends, or it is reset, are forgiven: at most this many requests
    /// beyond the reduction, once. `pfcp sim`, 16 CPs starting at 5x of one UP function:
    /// emergency requests throttled in 18 of 48 seeds with neither, 0 with this
    /// (`docs/throttle.md`, "Sending priority requests ahead"). 0: off. Default 16.
    pub exempt_ahead_max: u32,
}

impl Default for CpConfig {
    fn default() -> Self {
        CpConfig {
            overload: OverloadConfig::default(),
            load: LoadConfig::default(),
            selector: UpSelector::default(),
            classifier: ClassifierConfig::default(),
            // Six requests of credit, escalation after two: enough to pace drops through a
            // class mix's noise, too little to build a debt that would be paid later as a dip
            // of traffic the UP function reads as a fall of demand (a boundary lagging a change
            // of mix keeps the credit growing meanwhile). Bounds of 2-8 did not change the
            // sim's step (`docs/throttle.md`).
            loss: LossConfig::default()
                .with_max_credit(6)
                .with_escalate_after(Some(2)),
            loss_mode: LossMode::Deterministic,
            egress: None,
            egress_sets: EgressConfigSets::new(),
            max_destinations: 4096,
            probe_gap_factor: Some(16),
            probe_fall_factor: Some(4),
            probe_min_gap: Duration::from_millis(20),
            exempt_hold: None,
            exempt_hold_max: 16,
            exempt_ahead_max: 16,
        }
    }
}

impl CpConfig {
    /// With `overload` set (see the field).
    #[must_use]
    pub fn with_overload(mut self, overload: OverloadConfig) -> Self {
        self.overload = overload;
        self
    }
    /// With `load` set (see the field).
    #[must_use]
    pub fn with_load(mut self, load: LoadConfig) -> Self {
        self.load = load;
        self
    }
    /// With `selector` set (see the field).
    #[must_use]
    pub fn with_selector(mut self, selector: UpSelector) -> Self {
        self.selector = selector;
        self
    }
    /// With `classifier` set (see the field).
    #[must_use]
    pub fn with_classifier(mut self, classifier: ClassifierConfig) -> Self {
        self.classifier = classifier;
        self
    }
    /// With `loss` set (see the field).
    #[must_use]
    pub fn with_loss(mut self, loss: LossConfig) -> Self {
        self.loss = loss;
        self
    }
    /// With `loss_mode` set (see the field).
    #[must_use]
    pub fn with_loss_mode(mut self, loss_mode: LossMode) -> Self {
        self.loss_mode = loss_mode;
        self
    }
    /// With `egress` set (see the field).
    #[must_use]
    pub fn with_egress(mut self, egress: Option<EgressConfig>) -> Self {
        self.egress = egress;
        self
    }
    /// With `egress_sets` set (see the field).
    #[must_use]
    pub fn with_egress_sets(mut self, egress_sets: EgressConfigSets<NodeKey>) -> Self {
        self.egress_sets = egress_sets;
        self
    }
    /// With `max_destinations` set (see the field).
    #[must_use]
    pub fn with_max_destinations(mut self, max_destinations: usize) -> Self {
        self.max_destinations = max_destinations;
        self
    }
    /// With `probe_gap_factor` set (see the field).
    #[must_use]
    pub fn with_probe_gap_factor(mut self, probe_gap_factor: Option<u32>) -> Self {
        self.probe_gap_factor = probe_gap_factor;
        self
    }
    /// With `probe_fall_factor` set (see the field).
    #[must_use]
    pub fn with_probe_fall_factor(mut self, probe_fall_factor: Option<u32>) -> Self {
        self.probe_fall_factor = probe_fall_factor;
        self
    }
    /// With `probe_min_gap` set (see the field).
    #[must_use]
    pub fn with_probe_min_gap(mut self, probe_min_gap: Duration) -> Self {
        self.probe_min_gap = probe_min_gap;
        self
    }
    /// With `exempt_hold` set (see the field).
    #[must_use]
    pub fn with_exempt_hold(mut self, exempt_hold: Option<Duration>) -> Self {
        self.exempt_hold = exempt_hold;
        self
    }
    /// With `exempt_hold_max` set (see the field).
    #[must_use]
    pub fn with_exempt_hold_max(mut self, exempt_hold_max: usize) -> Self {
        self.exempt_hold_max = exempt_hold_max;
        self
    }
    /// With `exempt_ahead_max` set (see the field).
    #[must_use]
    pub fn with_exempt_ahead_max(mut self, exempt_ahead_max: u32) -> Self {
        self.exempt_ahead_max = exempt_ahead_max;
        self
    }
}

/// Why a [`CpConfig`] was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CpConfigError {
    /// The egress configuration is invalid.
    #[error("egress: {0}")]
    Egress(#[from] EgressConfigError),
    /// `max_destinations` is 0.
    #[error("max_destinations must be at least 1")]
    MaxDestinations,
    /// `probe_gap_factor` is `Some(0)`.
    #[error("probe_gap_factor must be at least 1 (None: no probes)")]
    ProbeGapFactor,
    /// `probe_fall_factor` is `Some(0)` or `Some(1)` (a fall of at most onefold is none).
    #[error("probe_fall_factor must be at least 2 (None: no probes after a fall)")]
    ProbeFallFactor,
}

/// Counters since creation. The pipeline calls no `metrics` facade: the embedding exports
/// these (the tokio endpoint does, with the `metrics` feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct CpStats {
    /// Requests sent to their destination.
    pub sent: u64,
    /// Of [`CpStats::sent`], those the Loss throttle had shed and that went as probes
    /// ([`CpConfig::probe_gap_factor`], [`CpConfig::probe_fall_factor`]).
    pub probes: u64,
    /// Requests redirected to an alternate UP function.
    pub redirected: u64,
    /// Requests rejected locally (held ones when their hold ends without a place, and those
    /// that yielded their place to a priority request included).
    pub rejected: u64,
    /// eMPS and emergency requests held for a place ([`CpDecision::Hold`]).
    pub held: u64,
    /// Of [`CpStats::held`], those sent (counted in [`CpStats::sent`] too).
    pub held_sent: u64,
    /// Of [`CpStats::held`], those rejected when their hold ended or their UP function's state
    /// was reset (counted in [`CpStats::rejected`] too).
    pub held_expired: u64,
    /// eMPS and emergency requests the Loss throttle shed that went ahead of a lower-priority
    /// place ([`CpConfig::exempt_ahead_max`]; counted in [`CpStats::sent`] too).
    pub sent_ahead: u64,
    /// Lower-priority requests rejected in the place of one sent ahead (counted in
    /// [`CpStats::rejected`] too).
    pub gave_way: u64,
    /// eMPS and emergency requests the UP function refused (cause 74 in its response,
    /// [`CpPolicy::exempt_refused`](crate::cp::CpPolicy::exempt_refused)).
    pub exempt_refused: u64,
    /// Messages not subject to throttling (responses, Heartbeat, Association).
    pub bypassed: u64,
    /// Requests refused by their destination's throttles, by throttle.
    pub throttled: ThrottledCounts,
    /// OCIs received, by what became of them.
    pub oci: OciCounts,
    /// Overload states whose Period of Validity ran out.
    pub oci_expired: u64,
    /// Overload states evicted from a full table.
    pub oci_evicted: u64,
    /// LCIs received, by what became of them.
    pub lci: LciCounts,
    /// UP functions' states reset (restart, release, failure: the link ended).
    pub peer_resets: u64,
    /// UP selections that chose a UP function.
    pub selections: u64,
    /// UP selections that found none.
    pub selections_none: u64,
    /// Links ended to make room for another ([`CpConfig::max_destinations`], standalone
    /// pipeline).
    pub links_evicted: u64,
}

/// Requests refused by a destination's throttles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ThrottledCounts {
    /// By the Loss throttle (the OCI's reduction).
    pub loss: u64,
    /// By the egress throttle's level.
    pub egress_level: u64,
    /// By the egress throttle's rate cap.
    pub egress_rate: u64,
    /// By the egress throttle's limit of requests pending.
    pub egress_pending: u64,
}

/// OCIs received, by outcome (TS 29.244 clause 6.2.4.3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct OciCounts {
    /// Applied.
    pub applied: u64,
    /// The sequence number already applied.
    pub duplicate: u64,
    /// An older sequence number.
    pub stale: u64,
    /// Undecodable.
    pub malformed: u64,
    /// In a message that may not carry one.
    pub unexpected_message: u64,
    /// No room in the overload table.
    pub table_full: u64,
    /// The number of an overload state whose validity ran out.
    pub expired_number: u64,
    /// Ignored for another reason.
    pub other: u64,
}

/// LCIs received, by outcome (TS 29.244 clause 6.2.3.3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct LciCounts {
    /// Applied.
    pub applied: u64,
    /// The sequence number already applied.
    pub duplicate: u64,
    /// An older sequence number.
    pub stale: u64,
    /// Undecodable.
    pub malformed: u64,
    /// In a message that may not carry one.
    pub unexpected_message: u64,
    /// Ignored for another reason.
    pub other: u64,
}

/// One request for [`CpPolicy::decide`](crate::cp::CpPolicy::decide): where it goes, what it
/// is, what the classifier sees of it, whether it may be redirected, and a uniformly random
/// draw from the caller's generator (for [`LossMode::Random`] and the route list's picks).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CpRequest<'a> {
    /// The UP function and PFCP entity it goes to.
    pub dest: &'a Destination,
    /// Its message type.
    pub message_type: MessageType,
    /// What the classifier sees (its `procedure` left `None` is the message type's).
    pub context: RequestContext<'a>,
    /// A Session Establishment Request that may be redirected to an alternate UP function.
    pub redirectable: bool,
    /// A uniformly random `u64`.
    pub draw: u64,
}

impl<'a> CpRequest<'a> {
    /// A request of `message_type` to `dest` with the classifier's `context`, not
    /// redirectable, draw 0.
    pub fn new(
        dest: &'a Destination,
        message_type: MessageType,
        context: RequestContext<'a>,
    ) -> Self {
        CpRequest {
            dest,
            message_type,
            context,
            redirectable: false,
            draw: 0,
        }
    }

    /// With `redirectable` set (see the field).
    #[must_use]
    pub fn with_redirect(mut self, redirectable: bool) -> Self {
        self.redirectable = redirectable;
        self
    }

    /// With `draw` set (see the field).
    #[must_use]
    pub fn with_draw(mut self, draw: u64) -> Self {
        self.draw = draw;
        self
    }
}
