//! The value types of UP admission: queued requests, outcomes, configuration, errors and
//! counters.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use pfcp_overload::{LoadReporterConfig, NodeKey, ReporterConfig, ReporterConfigError};
use pfcp_throttle::ClassifierConfig;
use pfcp_wire::ie::FqdnError;
use pfcp_wire::{Cause, EncodeError, MessagePriority, MessageType, SequenceNumber};

use super::PeerKey;

/// A request waiting for admission: what the endpoint needs to process or answer it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedRequest {
    /// Where it came from (the response goes back there, clause 4.2).
    pub peer: SocketAddr,
    /// Its header sequence number (the response copies it).
    pub sequence: SequenceNumber,
    /// Its message type.
    pub message_type: MessageType,
    /// The priority it is handled with: its own (MP=1) or the configured default.
    pub priority: MessagePriority,
    /// The request's octets (one message, header included).
    pub bytes: Bytes,
    /// The CP function's Node ID, if the endpoint knows it (from the association).
    pub node: Option<NodeKey>,
}

impl QueuedRequest {
    /// The reporters' key for the sender: its Node ID, or its IP address as a Node ID.
    pub fn peer_key(&self) -> PeerKey {
        self.node
            .clone()
            .unwrap_or_else(|| NodeKey::Ip(self.peer.ip()))
    }
}

/// The outcome of [`UpAdmission::offer`](crate::admission::UpAdmission::offer).
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub enum Admit {
    /// Queued. If the queue was full, `evicted` is the lower-priority request that made room:
    /// answer it with cause 74 ([`UpAdmission::build_rejection`](crate::admission::UpAdmission::build_rejection)).
    Queued {
        /// The request evicted to make room, to be rejected with cause 74.
        evicted: Option<QueuedRequest>,
    },
    /// Refused: answer with `cause` (always 74, "PFCP entity in congestion").
    Rejected {
        /// The refused request.
        request: QueuedRequest,
        /// The cause to answer with.
        cause: Cause,
    },
    /// Not subject to admission (Heartbeat, Association, responses, unknown types): handle it
    /// directly, now.
    Bypass(QueuedRequest),
}

/// Configuration of an [`UpAdmission`](crate::admission::UpAdmission).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AdmissionConfig {
    /// This UP function's Node ID, for the responses that require one (Session Establishment
    /// Response, clause 7.5.3.1).
    pub node_id: NodeKey,
    /// Most requests waiting. Default 1024.
    pub queue_capacity: usize,
    /// Requests per second the service model serves; `None` (default): the caller dequeues
    /// with [`UpAdmission::pop`](crate::admission::UpAdmission::pop) and reports [`UpAdmission::served`](crate::admission::UpAdmission::served).
    pub service_rate: Option<f64>,
    /// Longest a request may wait before it is taken out for rejection with cause 74. Default
    /// [`AdmissionConfig::DEFAULT_MAX_WAIT`] (15 ms): it bounds the latency of every request
    /// served, whatever the load. The queue is by priority, so under sustained load the lowest
    /// priorities would otherwise wait until their CP retransmits (T1, seconds); answered at
    /// once, the CP learns and moves on. The reporter of [`AdmissionConfig::default_reporter`]
    /// steers the arrivals a fifth above the capacity, so that this short queue is never
    /// starved and sheds the surplus (see `docs/overload-control.md`, "Bounded wait"). `None`:
    /// no limit; then give the reporter a target load below 1. With a service model the limit
    /// is at least 4 service times (at 1000 requests per second, 4 ms). Requests of message priority
    /// 0 have their own limit, [`AdmissionConfig::top_priority_max_wait`].
    pub max_wait: Option<Duration>,
    /// Longest a request of message priority 0 may wait (eMPS and emergency requests, by the
    /// classifier's defaults) while their own load fits. Default
    /// [`AdmissionConfig::DEFAULT_TOP_PRIORITY_MAX_WAIT`] (200 ms), and with a service model
    /// at least 8 service times: they are the last traffic to shed (clause 6.2.4.5.1), so a
    /// burst of them that the UP function clears within 100 ms is served, not refused for
    /// the latency bound of the rest. `None`: no limit. Their load does not fit, and they wait
    /// no longer than [`AdmissionConfig::max_wait`], while more of them arrived over the last
    /// 100 ms (at most the control interval) than the UP function serves in that time (checked
    /// at each arrival), unless their arrivals smoothed over intervals are below 0.9 of the
    /// capacity, those over the last 100 ms at most 1.1 of what it serves then, and their backlog
    /// is within twice `max_wait` of work (a cluster the UP function clears): their surplus
    /// cannot be served, and waiting would delay the rest of them. While the oldest of them has waited longer than the others may, the newest is
    /// taken up first: a burst is still served in full, and the first moment of a storm,
    /// before the test trips, adds no wait to what is served (`docs/overload-control.md`,
    /// "Bounded wait").
    pub top_priority_max_wait: Option<Duration>,
    /// The classifier; only [`ClassifierConfig::request_default`] (priority of a request
    /// without MP, default 15) is used here.
    pub classifier: ClassifierConfig,
    /// The Overload Reduction Metric reporter; its `interval` is the control interval. If
    /// `service_rate` is set and `capacity` is not, the capacity is `service_rate x interval`.
    /// Default [`AdmissionConfig::default_reporter`].
    pub reporter: ReporterConfig,
    /// The Load Metric reporter.
    pub load_reporter: LoadReporterConfig,
    /// Weight of the newest interval in the smoothed utilisation behind the Load Metric,
    /// in `(0, 1]`. Default 0.5.
    pub load_smoothing: f64,
    /// Work one refusal costs, as a share of serving one request (`0.0..=1.0`): each Cause-74
    /// rejection delays the service model by that much (decoding, building and sending the
    /// rejection is not free on a real UP function: with cost `r` and CP functions that ignore
    /// OCI, goodput falls as `(1 - r x) / (1 - r)` at `x` times capacity). Only with
    /// `service_rate`. Default 0.
    pub rejection_cost: f64,
    /// What a full queue does to a request it cannot hold. Default [`WhenFull::Reject`].
    pub when_full: WhenFull,
    /// In which order admitted requests are served, and so what bounds admission. Default
    /// [`ServiceOrder::Priority`].
    pub service_order: ServiceOrder,
    /// After how long the count of OCI sequence numbers starts again, once, from the
    /// reporter's configured start ([`OverloadReporter::restart_sequence`](pfcp_overload::OverloadReporter::restart_sequence)):
    /// a UP function that restarted without a new Recovery Time Stamp, as seen from its CP
    /// functions (`UpProfile::sequence_reset_after`, for experiments). Default `None`.
    pub sequence_reset_after: Option<Duration>,
    /// Take the OCI sequence numbers from the clock: the wall clock's NTP seconds (seconds
    /// since 1900, as the Recovery Time Stamp, clause 8.2.65) at the instant the admission is
    /// created, counting from there ([`SequenceMode::ntp_seconds`](pfcp_overload::SequenceMode::ntp_seconds);
    /// clause 6.2.4.3.2: "e.g. ... a time stamp"). It overrides the reporter's `sequence`.
    /// Default `None`: the reporter's own.
    pub oci_clock: Option<u32>,
    /// Size the reporter's target load to how bursty the arrivals are, while overloaded:
    /// from the configured target (1.2 by default) at the start of an overload episode, to
    /// `1 / (1 - 10 c² / 2K)` within 1 to 1.5, where `c²` is the arrivals' index of
    /// dispersion over 10 ms and `K` the wait bound in service times; back to the configured
    /// target when the episode ends. An episode runs while a metric is in force or more
    /// arrives in an interval than the capacity. Smooth arrivals (one CP function
    /// behind a throttle) keep the queue fed with a smaller surplus than the bursts of many,
    /// and each request of surplus is refused at a cost. Only with `max_wait`, a known
    /// capacity and a configured target above 1. Default true (`docs/overload-control.md`,
    /// "The surplus follows the burstiness of the arrivals").
    pub adapt_target_load: bool,
}

impl AdmissionConfig {
    /// The default [`AdmissionConfig::max_wait`].
    pub const DEFAULT_MAX_WAIT: Duration = Duration::from_millis(15);
    /// The default [`AdmissionConfig::top_priority_max_wait`].
    pub const DEFAULT_TOP_PRIORITY_MAX_WAIT: Duration = Duration::from_millis(200);
    /// The target load of [`AdmissionConfig::default_reporter`]: arrivals at 1.2 times the
    /// capacity.
    pub const DEFAULT_TARGET_LOAD: f64 = 1.2;

    /// The reporter configuration [`AdmissionConfig::new`] starts from: node-scoped OCIs
    /// (AOCI=1, clause 8.2.76) and a target load of [`AdmissionConfig::DEFAULT_TARGET_LOAD`],
    /// the rest [`ReporterConfig::default`]. A UP function that sets its own reporter (a
    /// validity, an interval) starts from this one to keep the pairing with the bounded wait.
    pub fn default_reporter() -> ReporterConfig {
        // The admission queue measures the whole UP function, so its OCI is node-scoped: a
        // CP then applies it to new sessions too, whose PFCP entity is not known yet.
        // Entity-scoped OCIs would leave establishments unthrottled while the metric,
        // computed on all traffic, kept rising.
        ReporterConfig::default()
            .with_node_scoped(true)
            .with_target_load(Self::DEFAULT_TARGET_LOAD)
    }

    /// Defaults for a UP function with Node ID `node_id`.
    pub fn new(node_id: NodeKey) -> Self {
        AdmissionConfig {
            node_id,
            queue_capacity: 1024,
            service_rate: None,
            max_wait: Some(Self::DEFAULT_MAX_WAIT),
            top_priority_max_wait: Some(Self::DEFAULT_TOP_PRIORITY_MAX_WAIT),
            classifier: ClassifierConfig::default(),
            reporter: Self::default_reporter(),
            load_reporter: LoadReporterConfig::default(),
            load_smoothing: 0.5,
            rejection_cost: 0.0,
            when_full: WhenFull::Reject,
            service_order: ServiceOrder::Priority,
            sequence_reset_after: None,
            oci_clock: None,
            adapt_target_load: true,
        }
    }
    /// With `adapt_target_load` set (see the field).
    #[must_use]
    pub fn with_adapt_target_load(mut self, adapt: bool) -> Self {
        self.adapt_target_load = adapt;
        self
    }
    /// With `rejection_cost` set (see the field).
    #[must_use]
    pub fn with_rejection_cost(mut self, cost: f64) -> Self {
        self.rejection_cost = cost;
        self
    }
    /// With `when_full` set (see the field).
    #[must_use]
    pub fn with_when_full(mut self, when_full: WhenFull) -> Self {
        self.when_full = when_full;
        self
    }
    /// With `service_order` set (see the field).
    #[must_use]
    pub fn with_service_order(mut self, order: ServiceOrder) -> Self {
        self.service_order = order;
        self
    }
    /// With `queue_capacity` set (see the field).
    #[must_use]
    pub fn with_queue_capacity(mut self, queue_capacity: usize) -> Self {
        self.queue_capacity = queue_capacity;
        self
    }
    /// With `service_rate` set (see the field).
    #[must_use]
    pub fn with_service_rate(mut self, service_rate: Option<f64>) -> Self {
        self.service_rate = service_rate;
        self
    }
    /// With `max_wait` set (see the field).
    #[must_use]
    pub fn with_max_wait(mut self, max_wait: Option<Duration>) -> Self {
        self.max_wait = max_wait;
        self
    }
    /// With `top_priority_max_wait` set (see the field).
    #[must_use]
    pub fn with_top_priority_max_wait(mut self, max_wait: Option<Duration>) -> Self {
        self.top_priority_max_wait = max_wait;
        self
    }
    /// With `classifier` set (see the field).
    #[must_use]
    pub fn with_classifier(mut self, classifier: ClassifierConfig) -> Self {
        self.classifier = classifier;
        self
    }
    /// With `reporter` set (see the field).
    #[must_use]
    pub fn with_reporter(mut self, reporter: ReporterConfig) -> Self {
        self.reporter = reporter;
        self
    }
    /// With `load_reporter` set (see the field).
    #[must_use]
    pub fn with_load_reporter(mut self, load_reporter: LoadReporterConfig) -> Self {
        self.load_reporter = load_reporter;
        self
    }
    /// With `load_smoothing` set (see the field).
    #[must_use]
    pub fn with_load_smoothing(mut self, load_smoothing: f64) -> Self {
        self.load_smoothing = load_smoothing;
        self
    }
    /// With `oci_clock` set (see the field).
    #[must_use]
    pub fn with_oci_clock(mut self, ntp_seconds: Option<u32>) -> Self {
        self.oci_clock = ntp_seconds;
        self
    }
    /// With `sequence_reset_after` set (see the field).
    #[must_use]
    pub fn with_sequence_reset_after(mut self, after: Option<Duration>) -> Self {
        self.sequence_reset_after = after;
        self
    }
}

/// In which order the admission queue serves what it admitted, and so how it decides what to
/// admit (clause 6.2.4.5.1: under overload the UP function may reject requests, the message
/// priority of clause 7.2.2.4.1 deciding which).
///
/// The two orders trade goodput against the differentiation of the priorities below 0
/// (`docs/overload-control.md`, "Service order", has the measured figures):
///
/// ```
/// use std::net::Ipv4Addr;
/// use pfcp_node::admission::{AdmissionConfig, ServiceOrder};
/// use pfcp_overload::NodeKey;
///
/// let upf = NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into());
/// assert_eq!(AdmissionConfig::new(upf.clone()).service_order, ServiceOrder::Priority);
/// let fifo = AdmissionConfig::new(upf).with_service_order("arrival".parse()?);
/// assert_eq!(fifo.service_order, ServiceOrder::Arrival);
/// # Ok::<(), pfcp_node::admission::UnknownServiceOrder>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ServiceOrder {
    /// Strictly by message priority, oldest first within one. Admission is bounded by
    /// [`AdmissionConfig::queue_capacity`] only; a request that waits beyond its bound
    /// ([`AdmissionConfig::max_wait`]) expires and is refused. A higher priority that fits
    /// is never refused while a lower one is served. The default.
    #[default]
    Priority,
    /// Message priority 0 first, the rest in order of arrival. A request is admitted only if
    /// the work queued ahead of it (and the service in progress) lets it be taken up within
    /// its wait bound; when it does not fit, it evicts the newest request of the lowest
    /// priority queued below its own, or is refused. Nothing admitted is overtaken, so far
    /// fewer requests expire and the server idles less: more goodput when many CP functions
    /// each send a few requests (3.5 points at 200 CP functions and 1.3x), at the price of
    /// a weaker preference among the priorities below 0 (an admitted low-priority request
    /// is served before a later high-priority one).
    Arrival,
}

impl ServiceOrder {
    /// The names [`FromStr`](std::str::FromStr) takes and [`Display`](std::fmt::Display)
    /// writes: `arrival`, `priority`.
    pub const NAMES: [&'static str; 2] = ["arrival", "priority"];
}

impl std::fmt::Display for ServiceOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ServiceOrder::Arrival => "arrival",
            ServiceOrder::Priority => "priority",
        })
    }
}

impl std::str::FromStr for ServiceOrder {
    type Err = UnknownServiceOrder;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "arrival" => Ok(ServiceOrder::Arrival),
            "priority" => Ok(ServiceOrder::Priority),
            _ => Err(UnknownServiceOrder(s.to_owned())),
        }
    }
}

/// A name that is no [`ServiceOrder`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown service order {0:?}: expected arrival or priority")]
pub struct UnknownServiceOrder(pub String);

/// What a full admission queue does with a request it cannot hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum WhenFull {
    /// Answer it with Cause 74 and the OCI/LCI (clause 6.2.4.5.1, self-protection): the CP
    /// function learns at once, and does not retransmit.
    #[default]
    Reject,
    /// Drop it without an answer, as a plain FIFO with a bounded queue does (the CP function
    /// retransmits after T1). Only for comparison: this is what overload control avoids.
    Drop,
}

/// Why an [`AdmissionConfig`] was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AdmissionConfigError {
    /// `service_rate` is not a positive, finite number.
    #[error("service_rate must be a positive finite number of requests per second, got {0}")]
    ServiceRate(f64),
    /// `reporter.interval` is zero.
    #[error("reporter.interval must be longer than zero")]
    Interval,
    /// `rejection_cost` is outside `0.0..=1.0`.
    #[error("rejection_cost must be in 0.0..=1.0, got {0}")]
    RejectionCost(f64),
    /// `load_smoothing` is outside `(0, 1]`.
    #[error("load_smoothing must be in (0, 1], got {0}")]
    LoadSmoothing(f64),
    /// `node_id` is an FQDN that cannot be encoded.
    #[error("node_id: {0}")]
    NodeId(#[from] FqdnError),
    /// Another field of `reporter` is out of its range ([`ReporterConfig::validate`]).
    #[error("reporter: {0}")]
    Reporter(#[from] ReporterConfigError),
}

/// Why [`UpAdmission::build_rejection`](crate::admission::UpAdmission::build_rejection) failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RejectionError {
    /// The message type has no response (it is not a request).
    #[error("{0} is not a request: there is no response to build")]
    NotARequest(MessageType),
    /// The configured Node ID cannot be encoded.
    #[error("node_id: {0}")]
    NodeId(#[from] FqdnError),
    /// Encoding failed.
    #[error(transparent)]
    Encode(#[from] EncodeError),
}

/// Counters since creation, typed: what the endpoint and the tools export (see the
/// [module docs](crate::admission#tracing-and-counters)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct AdmissionStats {
    /// Requests subject to admission that were offered.
    pub offered: u64,
    /// Requests handed back as [`Admit::Bypass`].
    pub bypassed: u64,
    /// Requests queued.
    pub queued: u64,
    /// Requests refused on arrival (queue full of equal or higher priorities).
    pub rejected: u64,
    /// Queued requests evicted by a higher-priority arrival.
    pub evicted: u64,
    /// Queued requests taken out after [`AdmissionConfig::max_wait`] (or
    /// [`AdmissionConfig::top_priority_max_wait`]).
    pub expired: u64,
    /// Requests served.
    pub served: u64,
    /// Requests dropped without an answer ([`WhenFull::Drop`]).
    pub dropped: u64,
    /// OCIs handed out for piggybacking ([`UpAdmission::oci_for`](crate::admission::UpAdmission::oci_for)).
    pub oci_sent: u64,
    /// LCIs handed out for piggybacking ([`UpAdmission::lci_for`](crate::admission::UpAdmission::lci_for)).
    pub lci_sent: u64,
    /// Provisional OCIs issued for refusals before the reporter had a metric (each a new
    /// sequence number: a new episode, a rise, or an extension of its validity).
    pub provisional_oci_issued: u64,
    /// Ends of a provisional OCI told after a control interval without refusals.
    pub provisional_oci_ended: u64,
    /// Changes of the published Overload Reduction Metric.
    pub overload_metric_published: u64,
    /// The highest Overload Reduction Metric published.
    pub overload_metric_peak: u8,
    /// Changes of the published Load Metric.
    pub load_metric_published: u64,
}

impl AdmissionStats {
    /// The reporter published `metric`.
    pub(crate) fn published(&mut self, metric: u8) {
        self.overload_metric_published += 1;
        self.overload_metric_peak = self.overload_metric_peak.max(metric);
    }
}
