//! The configuration of an [`OverloadReporter`](super::OverloadReporter): how the metric is
//! computed, published and sequenced (TS 29.244 clause 6.2.4.3), and its checks.

use std::fmt;
use std::time::{Duration, Instant};

use pfcp_wire::ie::Timer;

use super::ControlLaw;

/// How sequence numbers are allocated (clause 6.2.4.3.2: "e.g. ... a time stamp").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SequenceMode {
    /// A counter starting at the given value, +1 per number issued.
    Counter(u32),
    /// Whole seconds since `epoch` (plus `offset`), forced strictly increasing (in serial
    /// order, across the 32-bit wrap too). With the wall clock's NTP seconds at `epoch` as the
    /// offset ([`SequenceMode::ntp_seconds`]), numbers keep growing across restarts without
    /// storage, and cross the wrap in February 2036.
    EpochSeconds {
        /// The instant that maps to `offset`.
        epoch: Instant,
        /// The number at `epoch`.
        offset: u32,
    },
}

impl SequenceMode {
    /// Numbers from the clock: `ntp_seconds` (seconds since 1900, the first 32 bits of an NTP
    /// timestamp, as in the Recovery Time Stamp, clause 8.2.65) at the instant `now`. The
    /// caller reads the wall clock; the reporter never does.
    pub fn ntp_seconds(now: Instant, ntp_seconds: u32) -> SequenceMode {
        SequenceMode::EpochSeconds {
            epoch: now,
            offset: ntp_seconds,
        }
    }
}

/// Which messages to a peer carry the OCI (clause 6.2.4.2 leaves it to the implementation:
/// "in every message, ... or periodically", possibly a subset of the eligible messages).
/// Whatever the policy, only Session Establishment, Modification and Deletion Responses and
/// Session Report Requests carry one, only towards peers with OVRL, and a new sequence number
/// is taken only when what the peer is told changes or its validity must be extended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InclusionPolicy {
    /// Until the peer has been sent the current information (then again on a change or a
    /// refresh). Saves octets; relies on the validity period to end stale state. The default.
    UntilCurrent,
    /// On every eligible message while the peer is told of an overload (and once more with
    /// its end).
    EveryMessage,
    /// Only on responses that reject a request (any Cause other than an acceptance): the
    /// overload shows only where the UP function refuses. Its end then reaches the peer only
    /// on a later rejection, or by the validity running out.
    Rejections,
    /// On every `n`-th eligible message to the peer (the first, the `n + 1`-th, ...), with the
    /// current information. `n` of 0 reads as 1.
    EveryNth(u32),
    /// At most one OCI per peer per period, with the current information, on the first
    /// eligible message after the period.
    Periodic(Duration),
    /// Never: the UP function rejects with Cause 74 alone (self-protection without overload
    /// control).
    Never,
}

/// Configuration of an [`OverloadReporter`](super::OverloadReporter).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use pfcp_overload::{ReporterConfig, ReporterConfigError};
///
/// let config = ReporterConfig::default()
///     .with_interval(Duration::from_millis(100))
///     .with_capacity(Some(100.0));
/// config.validate()?;
///
/// // Receivers read a metric above 100 as 0 (clause 8.2.34): refused.
/// let bad = config.with_max_metric(101);
/// assert_eq!(bad.validate(), Err(ReporterConfigError::MaxMetric(101)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ReporterConfig {
    /// Control interval `T` (how often [`OverloadReporter::handle_measurement`](super::OverloadReporter::handle_measurement) is called).
    /// Default 200 ms: long enough that a UP function of 1000 requests/s counts about 200
    /// arrivals an interval, whose noise then stays within a few per cent of its capacity
    /// (`docs/overload-control.md`, "The control interval").
    pub interval: Duration,
    /// Requests per interval the UP can serve, if known. Default `None`: learned.
    pub capacity: Option<f64>,
    /// Arrivals the metric steers to, as a share of the capacity, in `(0, 2]`. Default 0.97:
    /// for a UP function whose queue is unbounded in time, the headroom absorbs the randomness
    /// of arrivals, so that the queue (and the latency) stays short while it runs at 97 % of
    /// its capacity. Above 1 only where the queueing delay of *every* request kept is bounded,
    /// priority requests included, and the surplus shed cheaply (`pfcp-node`'s admission with
    /// its `max_wait` steers to 1.2; the surplus may then be of any priority, since the queue
    /// sheds whatever waits too long, the lowest priorities first): a short queue that
    /// is never starved keeps the server busy through the bursts a closed loop cannot smooth,
    /// and a refusal costs a fraction of a served request, so a surplus costs far less
    /// goodput than a shortfall (`docs/overload-control.md`, "Bounded wait").
    pub target_load: f64,
    /// Backlog (requests) tolerated before the drain term acts, and the most that may be
    /// queued when arrivals below half the target are taken for a fall of demand
    /// ([`ControlLaw::Adaptive`]). Default 0.
    pub backlog_target: f64,
    /// Intervals over which to drain an excess backlog. Default 5.
    pub drain_intervals: f64,
    /// Intervals between publishing a metric and the CPs applying it, beyond the one in which
    /// it is published. Default 1.
    pub feedback_delay: usize,
    /// Publishing granularity in points of the [`ControlLaw::FeedForward`] law, and the
    /// least change it tells a peer. Default 5.
    pub step: u8,
    /// The grid of the metrics a peer is told under the [`ControlLaw::Adaptive`] and
    /// [`ControlLaw::Utilisation`] laws, in points: every metric told is a multiple of it, so
    /// every change a peer sees is at least that large (clause 6.2.4.3.2.3: the UP function
    /// should refrain from changes with a granularity of 1 or 2 points). With
    /// [`ReporterConfig::dither`] the peers are spread over the two levels around the law's
    /// share, so that together they admit it. Default 3; 1 or 2 only for comparison
    /// (`docs/overload-control.md`, "The law's steps").
    pub peer_step: u8,
    /// Highest metric ever published. Default 95 (keeps a trickle to measure demand with); a
    /// peer is told at most the highest level of its grid below it (93 with the default
    /// `peer_step`).
    pub max_metric: u8,
    /// Intervals a lower value must be asked for before it is published. Default 3.
    pub dwell: usize,
    /// Period of Validity advertised. Default 30 s.
    pub validity: Duration,
    /// How long before expiry the validity is refreshed while overloaded. Default 5 s. If it
    /// is not below `validity`, the refresh comes halfway through the validity.
    pub refresh_before: Duration,
    /// Sequence number allocation. Default a counter from 1.
    pub sequence: SequenceMode,
    /// Inclusion policy. Default [`InclusionPolicy::UntilCurrent`].
    pub inclusion: InclusionPolicy,
    /// Period of Validity of a *provisional* OCI: the one a refusal carries while the law has
    /// no metric yet ([`OverloadReporter::oci_for_refusal`](super::OverloadReporter::oci_for_refusal)).
    /// Default 2 s, the finest the Timer IE encodes beyond 0 (clause 8.2.35): it only bridges
    /// until the law's first metric, and a one-off burst must not throttle the CP functions
    /// for long.
    pub provisional_validity: Duration,
    /// Always set AOCI (node-scoped OCI), for a UP function with one PFCP entity per node or
    /// one that measures load for the whole node. Default false.
    pub node_scoped: bool,
    /// Most peers tracked. Default 65536.
    pub max_peers: usize,
    /// How the metric is computed from the measurements. Default [`ControlLaw::Adaptive`].
    pub law: ControlLaw,
    /// Least relative change of the admitted share worth publishing, for the
    /// [`ControlLaw::Adaptive`] and [`ControlLaw::Utilisation`] laws (default 0.02: a new metric
    /// is published when the share of traffic the CP functions admit would change by 2 % or
    /// more; see `docs/overload-control.md` for why this replaces fixed steps).
    pub min_change: f64,
    /// Dither the metric across peers ([`ControlLaw::Adaptive`] only). The law's admitted share
    /// usually lies between two levels of the grid ([`ReporterConfig::peer_step`]); each peer
    /// is told one of the two by its fixed place in a low-discrepancy order (the golden
    /// ratio's), so that the share of peers told the upper one is the fraction between them.
    /// The CP functions together then admit the law's share, not the nearest level's: at a
    /// metric of 88 one point is a twelfth of what they admit, and a change told to all of
    /// them at once moved the arrivals by a tenth of the capacity. Each peer still gets a
    /// whole metric on the grid (clause 8.2.34, 6.2.4.3.2.3), a new sequence number only when
    /// its own metric changes or its validity is extended (6.2.4.3.2.1); a single peer gets
    /// the nearest level. Without dithering every peer gets the nearest level. Default true.
    pub dither: bool,
}

impl Default for ReporterConfig {
    fn default() -> Self {
        ReporterConfig {
            interval: Self::DEFAULT_INTERVAL,
            capacity: None,
            target_load: 0.97,
            backlog_target: 0.0,
            drain_intervals: 5.0,
            feedback_delay: 1,
            step: 5,
            peer_step: 3,
            max_metric: 95,
            dwell: 3,
            validity: Duration::from_secs(30),
            refresh_before: Duration::from_secs(5),
            sequence: SequenceMode::Counter(1),
            inclusion: InclusionPolicy::UntilCurrent,
            provisional_validity: Duration::from_secs(2),
            node_scoped: false,
            max_peers: 65_536,
            law: ControlLaw::Adaptive,
            min_change: 0.02,
            dither: true,
        }
    }
}

impl ReporterConfig {
    /// The default [`ReporterConfig::interval`].
    pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(200);

    /// Check every field against its documented range. [`OverloadReporter::new`](super::OverloadReporter::new) takes any
    /// value without panicking (a `max_metric` above 100 is capped, a zero step reads as 1, a
    /// NaN share gives no reduction at all), so an application that builds the configuration
    /// from operator input calls this first, to refuse what would not do what it says.
    ///
    /// [`OverloadReporter::new`](super::OverloadReporter::new): super::OverloadReporter::new
    pub fn validate(&self) -> Result<(), ReporterConfigError> {
        use ReporterConfigError as E;
        if self.interval.is_zero() {
            return Err(E::ZeroInterval);
        }
        if let Some(c) = self.capacity {
            if !(c.is_finite() && c > 0.0) {
                return Err(E::Capacity(c));
            }
        }
        let u = self.target_load;
        if !(u > 0.0 && u <= 2.0) {
            return Err(E::TargetLoad(u));
        }
        if !(self.backlog_target.is_finite() && self.backlog_target >= 0.0) {
            return Err(E::BacklogTarget(self.backlog_target));
        }
        if !(self.drain_intervals.is_finite() && self.drain_intervals >= 1.0) {
            return Err(E::DrainIntervals(self.drain_intervals));
        }
        if self.step == 0 || self.step > 100 {
            return Err(E::Step(self.step));
        }
        if self.peer_step == 0 || self.peer_step > 33 {
            return Err(E::PeerStep(self.peer_step));
        }
        if self.max_metric > 100 {
            return Err(E::MaxMetric(self.max_metric));
        }
        match Timer::from_duration(self.validity) {
            Some(t) if !self.validity.is_zero() && t != Timer::INFINITE => {}
            _ => return Err(E::Validity(self.validity)),
        }
        if !(self.min_change.is_finite() && (0.0..1.0).contains(&self.min_change)) {
            return Err(E::MinChange(self.min_change));
        }
        match Timer::from_duration(self.provisional_validity) {
            Some(t) if !self.provisional_validity.is_zero() && t != Timer::INFINITE => {}
            _ => return Err(E::ProvisionalValidity(self.provisional_validity)),
        }
        Ok(())
    }

    /// The least change of the metric a peer is told, in points, and the grid every metric it
    /// is told lies on: [`ReporterConfig::step`] for the [`ControlLaw::FeedForward`] law,
    /// [`ReporterConfig::peer_step`] for the others (0 reads as 1).
    pub fn metric_step(&self) -> u8 {
        match self.law {
            ControlLaw::FeedForward => self.step.clamp(1, 100),
            _ => self.peer_step.clamp(1, 100),
        }
    }

    /// The highest metric a peer is told: the highest multiple of
    /// [`ReporterConfig::metric_step`] at or below `max_metric`, and 99 (100 would admit
    /// nothing) except for the [`ControlLaw::FeedForward`] law, which may publish 100.
    pub fn max_told(&self) -> u8 {
        let step = self.metric_step();
        let max = match self.law {
            ControlLaw::FeedForward => self.max_metric.min(100),
            _ => self.max_metric.min(99),
        };
        max / step * step
    }

    /// The first law of this crate with its own defaults ([`ControlLaw::FeedForward`]: a
    /// target load of 1, backlog drained over 5 intervals, 5-point steps, a dwell of 3):
    /// for comparisons and for callers that relied on it.
    pub fn feed_forward() -> Self {
        ReporterConfig {
            law: ControlLaw::FeedForward,
            target_load: 1.0,
            drain_intervals: 5.0,
            ..ReporterConfig::default()
        }
    }

    /// With `interval` set (see the field).
    #[must_use]
    pub fn with_interval(mut self, interval: Duration) -> Self {
        self.interval = interval;
        self
    }
    /// With `capacity` set (see the field).
    #[must_use]
    pub fn with_capacity(mut self, capacity: Option<f64>) -> Self {
        self.capacity = capacity;
        self
    }
    /// With `target_load` set (see the field).
    #[must_use]
    pub fn with_target_load(mut self, target_load: f64) -> Self {
        self.target_load = target_load;
        self
    }
    /// With `backlog_target` set (see the field).
    #[must_use]
    pub fn with_backlog_target(mut self, backlog_target: f64) -> Self {
        self.backlog_target = backlog_target;
        self
    }
    /// With `drain_intervals` set (see the field).
    #[must_use]
    pub fn with_drain_intervals(mut self, drain_intervals: f64) -> Self {
        self.drain_intervals = drain_intervals;
        self
    }
    /// With `feedback_delay` set (see the field).
    #[must_use]
    pub fn with_feedback_delay(mut self, feedback_delay: usize) -> Self {
        self.feedback_delay = feedback_delay;
        self
    }
    /// With `step` set (see the field).
    #[must_use]
    pub fn with_step(mut self, step: u8) -> Self {
        self.step = step;
        self
    }
    /// With `max_metric` set (see the field).
    #[must_use]
    pub fn with_max_metric(mut self, max_metric: u8) -> Self {
        self.max_metric = max_metric;
        self
    }
    /// With `dwell` set (see the field).
    #[must_use]
    pub fn with_dwell(mut self, dwell: usize) -> Self {
        self.dwell = dwell;
        self
    }
    /// With `validity` set (see the field).
    #[must_use]
    pub fn with_validity(mut self, validity: Duration) -> Self {
        self.validity = validity;
        self
    }
    /// With `refresh_before` set (see the field).
    #[must_use]
    pub fn with_refresh_before(mut self, refresh_before: Duration) -> Self {
        self.refresh_before = refresh_before;
        self
    }
    /// With `sequence` set (see the field).
    #[must_use]
    pub fn with_sequence(mut self, sequence: SequenceMode) -> Self {
        self.sequence = sequence;
        self
    }
    /// With `peer_step` set (see the field).
    #[must_use]
    pub fn with_peer_step(mut self, peer_step: u8) -> Self {
        self.peer_step = peer_step;
        self
    }
    /// With `provisional_validity` set (see the field).
    #[must_use]
    pub fn with_provisional_validity(mut self, validity: Duration) -> Self {
        self.provisional_validity = validity;
        self
    }
    /// With `inclusion` set (see the field).
    #[must_use]
    pub fn with_inclusion(mut self, inclusion: InclusionPolicy) -> Self {
        self.inclusion = inclusion;
        self
    }
    /// With `node_scoped` set (see the field).
    #[must_use]
    pub fn with_node_scoped(mut self, node_scoped: bool) -> Self {
        self.node_scoped = node_scoped;
        self
    }
    /// With `max_peers` set (see the field).
    #[must_use]
    pub fn with_max_peers(mut self, max_peers: usize) -> Self {
        self.max_peers = max_peers;
        self
    }
    /// With `law` set (see the field).
    #[must_use]
    pub fn with_law(mut self, law: ControlLaw) -> Self {
        self.law = law;
        self
    }
    /// With `min_change` set (see the field).
    #[must_use]
    pub fn with_min_change(mut self, min_change: f64) -> Self {
        self.min_change = min_change;
        self
    }
    /// With `dither` set (see the field).
    #[must_use]
    pub fn with_dither(mut self, dither: bool) -> Self {
        self.dither = dither;
        self
    }
}

/// Why a [`ReporterConfig`] was refused by [`ReporterConfig::validate`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum ReporterConfigError {
    /// `interval` is zero.
    ZeroInterval,
    /// `capacity` is not a positive, finite number of requests per interval.
    Capacity(f64),
    /// `target_load` is outside `(0, 2]`.
    TargetLoad(f64),
    /// `backlog_target` is negative or not finite.
    BacklogTarget(f64),
    /// `drain_intervals` is below 1 or not finite.
    DrainIntervals(f64),
    /// `step` is 0 or above 100 points.
    Step(u8),
    /// `peer_step` is 0 or above 33 points (a grid with a level between 0 and 99 needs at
    /// most 33).
    PeerStep(u8),
    /// `max_metric` is above 100: receivers read such a metric as 0 (clause 8.2.34).
    MaxMetric(u8),
    /// `validity` is zero, or not encodable as a finite Timer (clause 8.2.35): the CP would
    /// drop the OCI at once, or keep it for ever.
    Validity(Duration),
    /// `min_change` is outside `[0, 1)`.
    MinChange(f64),
    /// `provisional_validity` is zero or not encodable as a finite Timer (clause 8.2.35).
    ProvisionalValidity(Duration),
}

impl fmt::Display for ReporterConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ZeroInterval => write!(f, "interval must be longer than zero"),
            Self::Capacity(c) => write!(f, "capacity must be a positive finite number, got {c}"),
            Self::TargetLoad(u) => {
                write!(f, "target_load must be in (0, 2], got {u}")
            }
            Self::BacklogTarget(b) => {
                write!(
                    f,
                    "backlog_target must be a finite number of requests >= 0, got {b}"
                )
            }
            Self::DrainIntervals(d) => {
                write!(f, "drain_intervals must be finite and >= 1, got {d}")
            }
            Self::Step(s) => write!(f, "step must be 1..=100 points, got {s}"),
            Self::MaxMetric(m) => write!(f, "max_metric must be at most 100, got {m}"),
            Self::Validity(v) => write!(
                f,
                "validity must be above zero and encodable as a finite Timer, got {v:?}"
            ),
            Self::MinChange(m) => write!(f, "min_change must be in [0, 1), got {m}"),
            Self::PeerStep(s) => write!(f, "peer_step must be 1..=33 points, got {s}"),
            Self::ProvisionalValidity(v) => write!(
                f,
                "provisional_validity must be above zero and encodable as a finite Timer, got {v:?}"
            ),
        }
    }
}

impl std::error::Error for ReporterConfigError {}
