//! The sending end (UP function): compute the Overload Reduction Metric from measurements and
//! decide which messages carry the OCI (TS 29.244 clauses 6.2.4.2, 6.2.4.3; digest 6.2).
//!
//! ## Control law
//!
//! The default law, [`ControlLaw::Adaptive`], is described there and in
//! `docs/overload-control.md`; with [`ReporterConfig::dither`] each peer is told one of the two
//! whole metrics around its share ([`OverloadReporter::metric_for`]). What follows is the first
//! law, [`ControlLaw::FeedForward`] ([`ReporterConfig::feed_forward`]).
//!
//! Once per control interval `T` the UP reports a [`Measurement`]: requests that *arrived*
//! (what the CP functions sent after their own throttling), requests *served*, and the
//! *backlog* left in its queue. The reporter then:
//!
//! 1. **Reconstructs the demand** the CPs would send without throttling:
//!    `D = arrived / (1 - m_applied/100)`, where `m_applied` is the metric the CPs were applying
//!    during the interval: the one published [`ReporterConfig::feedback_delay`] + 1 intervals
//!    earlier (OCI reaches the CPs piggybacked on later messages).
//! 2. **Knows its capacity** `C`: [`ReporterConfig::capacity`] if configured, else learned as
//!    an average of the served count over intervals in which the UP was saturated (a backlog
//!    remained), so it tracks the real service rate.
//! 3. **Corrects on queueing**: the admitted target is
//!    `A = C x target_load - excess_backlog / drain_intervals`, a proportional term with
//!    gain `1/drain_intervals` (default 1/5 per interval, below the 1/4 at which a loop with one
//!    interval of feedback delay is critically damped), so a backlog built during the onset
//!    drains without windup or ringing.
//! 4. **Predicts the cut** `m = 100 x (1 - A/D)`, clamped to `[0, max_metric]`.
//! 5. **Publishes in steps**: the value is rounded to a multiple of [`ReporterConfig::step`]
//!    (so every published change is at least one step, and 1-2 point jitter never reaches the
//!    peers); a higher value is published at once (raise fast), a lower one only after
//!    [`ReporterConfig::dwell`] consecutive intervals that all asked for less (lower slowly,
//!    by the largest of those values).
//!
//! With exact measurements this is a dead-beat feed-forward (one interval after the metric
//! reaches the CPs, admitted = target) plus a damped backlog correction; the closed-loop test
//! (`tests/closed_loop.rs`) measures settling at 2x, 5x and 10x overload.
//!
//! ## What a peer is told
//!
//! Each peer is told a metric on a grid ([`ReporterConfig::metric_step`], 3 points for the
//! default law), so no peer ever sees a change of 1 or 2 points (6.2.4.3.2.3); with
//! [`ReporterConfig::dither`] the peers are spread over the two levels around the law's share
//! ([`OverloadReporter::metric_for`]).
//!
//! ## Sequence numbers and validity
//!
//! The reporter owns every Overload Control Sequence Number it sends: the law's, and the
//! provisional OCIs of refusals before the law has a metric ([`OverloadReporter::
//! oci_for_refusal`]). What each scope (entity, node) of each peer holds is remembered: a peer
//! gets a new number only when what it is told changes, or when its Period of Validity must be
//! extended ([`ReporterConfig::refresh_before`] ahead of its end, 6.2.4.3.2.1: "shall not be
//! incremented otherwise"). Numbers come from a counter or, as 6.2.4.3.2 allows, from seconds
//! since an epoch (survives restarts without storage); they only move forward in serial order
//! ([`crate::sequence`]), so any number a peer gets is newer than the ones it got before.
//! [`OverloadReporter::restart_sequence`] starts the count again, as a restart does.
//!
//! ## Inclusion ([`OverloadReporter::oci_for`])
//!
//! Only towards peers that advertised OVRL in CP Function Features (6.2.4.2), only on Session
//! Establishment/Modification/Deletion Responses and Session Report Requests, on the messages
//! the [`InclusionPolicy`] picks (by default until the peer has the current information), and
//! with AOCI where the spec requires it: a rejected Session Establishment Response (8.2.76).
//! When the overload ends, metric 0 goes to every scope of a peer that holds a non-zero value,
//! and to no one else.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::time::Instant;

use pfcp_wire::ie::{ControlSequenceNumber, Metric, OciFlags, OverloadControlInformation, Timer};

/// What the UP measured over one control interval.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Measurement {
    /// Requests that arrived (were offered to the UP) during the interval.
    pub arrived: u64,
    /// Requests served (processed) during the interval.
    pub served: u64,
    /// Requests waiting at the end of the interval.
    pub backlog: u64,
}

/// Place `k` of a low-discrepancy order in `[0, 1)`: however many peers there are, any
/// fraction of them lies below that fraction of the range, within about one peer.
fn dither_rank(k: u64) -> f64 {
    const GOLDEN: f64 = 0.618_033_988_749_894_8;
    // The first peer sits at the middle: alone, it is told the nearest level.
    (0.5 + k as f64 * GOLDEN).fract()
}

/// What the peers are told, copied out of the reporter so that `oci_for` can hold a peer's
/// state mutably while it asks.
#[derive(Debug, Clone, Copy)]
struct Levels {
    /// The law's metric, rounded (0: not overloaded).
    published: u8,
    /// The law's metric before rounding: the value the peers are spread around.
    fine: f64,
    /// Spread the peers over the two levels around `fine` by their rank.
    dither: bool,
    /// The law publishes on its own grid ([`ControlLaw::FeedForward`]'s steps).
    stepped: bool,
    /// The grid of the levels, in points.
    step: u8,
    /// The highest level.
    top: u8,
}

impl Levels {
    /// The metric of the peer at `rank` (see [`ReporterConfig::dither`]).
    fn metric(self, rank: f64) -> u8 {
        if self.published == 0 {
            return 0;
        }
        if self.stepped {
            return self.published.min(self.top);
        }
        let step = f64::from(self.step.max(1));
        let fine = self.fine.clamp(0.0, f64::from(self.top));
        let lo = (fine / step).floor() * step;
        // Alone, or undithered, a peer sits at the middle: the nearest level.
        let rank = if self.dither { rank } else { 0.5 };
        let metric = if rank < (fine - lo) / step {
            lo + step
        } else {
            lo
        };
        metric.clamp(0.0, f64::from(self.top)) as u8
    }
}

/// The share of traffic a CP function sends under `metric` (a metric of 100 would admit none;
/// the reporter never publishes above 99 for this reason).
fn admitted_share(metric: u8) -> f64 {
    1.0 - f64::from(metric.min(99)) / 100.0
}

/// The UP side of overload control: metric computation, sequence numbers and per-peer
/// inclusion.
///
/// # Examples
///
/// Only a peer that advertised OVRL in its CP Function Features hears the OCI (clause 6.2.4.2).
///
/// ```
/// use std::time::Instant;
/// use pfcp_overload::{Measurement, OverloadReporter, ReporterConfig};
/// use pfcp_wire::{Cause, MessageType};
///
/// let config = ReporterConfig::feed_forward().with_capacity(Some(100.0));
/// config.validate()?;
/// let mut up: OverloadReporter<&str> = OverloadReporter::new(config);
/// up.set_peer_ovrl("smf1", true);
/// up.set_peer_ovrl("smf2", false);
/// let now = Instant::now();
/// // 300 requests arrived in the interval for a capacity of 100: a reduction is published.
/// let metric = up.handle_measurement(&Measurement { arrived: 300, served: 100, backlog: 0 }, now);
/// assert!(metric.is_some_and(|m| m > 0));
///
/// let ty = MessageType::SESSION_ESTABLISHMENT_RESPONSE;
/// let accepted = Some(Cause::REQUEST_ACCEPTED);
/// let oci = up.oci_for(&"smf1", ty, accepted, now).ok_or("smf1 supports OVRL")?;
/// assert_eq!(Some(oci.metric.percent()), metric);
/// assert!(up.oci_for(&"smf2", ty, accepted, now).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct OverloadReporter<P> {
    config: ReporterConfig,
    published: u8,
    /// The last number issued.
    seq: u32,
    seq_started: bool,
    /// The number the law's state was published with, and when.
    law_seq: Option<u32>,
    published_at: Option<Instant>,
    history: VecDeque<u8>,
    lower_wishes: VecDeque<u8>,
    capacity_est: Option<f64>,
    peers: HashMap<P, peers::PeerState>,
    /// Peers ever tracked: the next one's place in the dither order.
    peers_seen: u64,
    /// The metric the law asked for, before rounding (`published` is its rounding).
    fine: f64,
    law: law::LawState,
    /// The provisional OCI of the refusals while the law has no metric.
    provisional: Option<peers::Provisional>,
    /// The last refusal that asked for a provisional OCI.
    last_refusal: Option<Instant>,
    /// Arrivals from peers without state (no association, table full) since the last interval.
    untracked: u64,
    /// Arrivals recorded per peer since the last interval (all of them, untracked included).
    recorded: u64,
    /// Arrivals of priority (eMPS, emergency) requests since the last interval.
    exempt: u64,
    /// The target load in force ([`OverloadReporter::set_target_load`]).
    target_load: f64,
}

impl<P: Hash + Eq + Clone> OverloadReporter<P> {
    /// A reporter that is not overloaded.
    pub fn new(config: ReporterConfig) -> Self {
        OverloadReporter {
            capacity_est: config.capacity,
            target_load: config.target_load,
            seq: first_number(config.sequence),
            config,
            published: 0,
            seq_started: false,
            law_seq: None,
            published_at: None,
            history: VecDeque::new(),
            lower_wishes: VecDeque::new(),
            peers: HashMap::new(),
            peers_seen: 0,
            fine: 0.0,
            law: law::LawState::default(),
            provisional: None,
            last_refusal: None,
            untracked: 0,
            recorded: 0,
            exempt: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ReporterConfig {
        &self.config
    }

    /// The law's metric, rounded (0 = not overloaded). The peers are told levels of the grid
    /// around it ([`OverloadReporter::metric_for`]).
    pub fn metric(&self) -> u8 {
        self.published
    }

    /// The metric the law tells `peer` now: with [`ReporterConfig::dither`] the level of the
    /// grid ([`ReporterConfig::metric_step`]) just below or above what the law asked for, by
    /// the peer's place in the dither order; without, the nearest level. `None` for a peer not
    /// tracked. (A provisional OCI in force tells refused peers its own metric instead.)
    pub fn metric_for(&self, peer: &P) -> Option<u8> {
        let levels = self.levels();
        self.peers.get(peer).map(|p| levels.metric(p.rank))
    }

    fn levels(&self) -> Levels {
        Levels {
            published: self.published,
            fine: self.fine,
            dither: self.config.dither && self.config.law == ControlLaw::Adaptive,
            stepped: self.config.law == ControlLaw::FeedForward,
            step: self.config.metric_step(),
            top: self.config.max_told(),
        }
    }

    /// The last sequence number issued (by the law, a provisional OCI or a peer's refresh).
    pub fn sequence_number(&self) -> u32 {
        self.seq
    }

    /// The capacity in use (configured or learned), requests per interval.
    pub fn capacity(&self) -> Option<f64> {
        self.capacity_est
    }

    /// Record what a peer advertised in CP Function Features (Association Setup/Update):
    /// only peers with OVRL get OCIs (clause 6.2.4.2).
    pub fn set_peer_ovrl(&mut self, peer: P, ovrl: bool) {
        if let Some(p) = self.peers.get_mut(&peer) {
            p.ovrl = ovrl;
        } else if self.peers.len() < self.config.max_peers {
            let rank = dither_rank(self.peers_seen);
            self.peers_seen += 1;
            self.peers.insert(peer, peers::PeerState::new(ovrl, rank));
        }
    }

    /// Whether `peer` advertised OVRL (as last recorded by [`OverloadReporter::set_peer_ovrl`]
    /// and not removed since): only such peers get OCIs (clause 6.2.4.2).
    pub fn peer_ovrl(&self, peer: &P) -> bool {
        self.peers.get(peer).is_some_and(|p| p.ovrl)
    }

    /// Forget a peer (association released).
    pub fn remove_peer(&mut self, peer: &P) {
        self.peers.remove(peer);
    }

    /// One request subject to overload control arrived from `peer`. With these counts the
    /// [`ControlLaw::Adaptive`] law reconstructs the demand from what each peer was told, so
    /// it needs no assumption on when the CP functions apply a new metric. Without them it
    /// takes [`Measurement::arrived`] and the metric in force.
    pub fn record_arrival(&mut self, peer: &P) {
        self.recorded += 1;
        match self.peers.get_mut(peer) {
            Some(p) => p.arrived += 1,
            None => self.untracked += 1,
        }
    }

    /// The request just recorded is priority traffic (eMPS or emergency: the CP functions
    /// mark it with the highest message priority and exempt it from throttling while the rest
    /// can make up the reduction, clause 6.2.4.5.1). The [`ControlLaw::Adaptive`] law then
    /// never asks for a reduction that only throttling it could reach, unless it alone exceeds
    /// the target.
    pub fn record_exempt(&mut self) {
        self.exempt += 1;
    }

    /// The arrivals the metric steers to, as a share of the capacity:
    /// [`ReporterConfig::target_load`] unless [`OverloadReporter::set_target_load`] changed it.
    pub fn target_load(&self) -> f64 {
        self.target_load
    }

    /// Steer to `target_load` (a share of the capacity, in `(0, 2]` as
    /// [`ReporterConfig::target_load`]) from the next measurement on; a value outside that
    /// range is ignored. For a UP function whose queue bounds every wait and that sizes the
    /// surplus it needs to how bursty its arrivals are (`pfcp-node`'s admission does; see
    /// `docs/overload-control.md`, "The surplus follows the burstiness of the arrivals").
    pub fn set_target_load(&mut self, target_load: f64) {
        if target_load > 0.0 && target_load <= 2.0 {
            self.target_load = target_load;
        }
    }

    /// Feed one interval's measurement; returns the newly published metric if it changed.
    pub fn handle_measurement(&mut self, m: &Measurement, now: Instant) -> Option<u8> {
        // The metric in force at the CPs during the interval just measured (FeedForward).
        let applied = self
            .history
            .get(self.config.feedback_delay)
            .copied()
            .unwrap_or(0);
        let saturated = m.backlog > 0;
        if self.config.capacity.is_none() && saturated && m.served > 0 {
            let served = m.served as f64;
            self.capacity_est = Some(match self.capacity_est {
                Some(c) => 0.5 * c + 0.5 * served,
                None => served,
            });
        }
        let demand = self.take_demand(m);
        let changed = match self.config.law {
            ControlLaw::FeedForward => {
                let wanted = self.wanted_metric(m, applied);
                self.publish_rule(wanted, now)
            }
            ControlLaw::Adaptive => {
                let wanted = self.adaptive(m, demand);
                self.publish_relative(wanted, now)
            }
            ControlLaw::Utilisation => {
                let wanted = self.occupancy(m);
                self.publish_relative(wanted, now)
            }
        };
        self.exempt = 0;
        self.history.push_front(self.published);
        // Saturating: `feedback_delay` is a public field with no upper bound (fuzz-found).
        self.history
            .truncate(self.config.feedback_delay.saturating_add(1));
        changed
    }

    /// The demand of the interval just ended: each peer's arrivals divided by the share it
    /// admits under the metric it was told, when arrivals were recorded per peer; else the
    /// arrivals under the metric in force. Resets the per-peer counts.
    fn take_demand(&mut self, m: &Measurement) -> f64 {
        let recorded = std::mem::take(&mut self.recorded);
        let mut demand = std::mem::take(&mut self.untracked) as f64;
        for p in self.peers.values_mut() {
            demand += p.take_demand();
        }
        if recorded == 0 {
            demand = m.arrived as f64 / admitted_share(self.published);
        }
        demand
    }

    fn wanted_metric(&self, m: &Measurement, applied: u8) -> u8 {
        let Some(capacity) = self.capacity_est else {
            return 0;
        };
        let demand = m.arrived as f64 / admitted_share(applied);
        let excess = (m.backlog as f64 - self.config.backlog_target).max(0.0);
        let target = capacity * self.target_load - excess / self.config.drain_intervals.max(1.0);
        if demand <= 0.0 || target >= demand {
            return 0;
        }
        let m = 100.0 * (1.0 - target.max(0.0) / demand);
        let max = f64::from(self.config.max_metric.min(100));
        m.clamp(0.0, max).round() as u8
    }

    fn publish_rule(&mut self, wanted: u8, now: Instant) -> Option<u8> {
        let step = self.config.step.max(1);
        // Round to the nearest multiple of the step, within the maximum (never above 100: a
        // metric above 100 reads as 0 at the receiver, clause 8.2.34).
        let q = ((u16::from(wanted) + u16::from(step) / 2) / u16::from(step) * u16::from(step))
            .min(u16::from(self.config.max_metric.min(100) / step * step)) as u8;
        if q > self.published {
            self.lower_wishes.clear();
            return Some(self.publish(q, now));
        }
        if q == self.published {
            self.lower_wishes.clear();
            return None;
        }
        self.lower_wishes.push_back(q);
        if self.lower_wishes.len() >= self.config.dwell.max(1) {
            let value = self.lower_wishes.iter().copied().max().unwrap_or(q);
            self.lower_wishes.clear();
            return Some(self.publish(value, now));
        }
        None
    }

    fn publish(&mut self, metric: u8, now: Instant) -> u8 {
        self.publish_fine(metric, f64::from(metric), now)
    }

    /// Publish `metric`, the rounding of `fine`, the value the peers are spread around. It
    /// takes a new number, the law's state from now on: newer than any provisional OCI.
    fn publish_fine(&mut self, metric: u8, fine: f64, now: Instant) -> u8 {
        self.published = metric;
        self.fine = fine;
        let seq = self.next_sequence(now);
        self.law_seq = Some(seq);
        self.published_at = Some(now);
        metric
    }

    /// Issue the next number: serially after every number issued so far.
    fn next_sequence(&mut self, now: Instant) -> u32 {
        if !self.seq_started {
            self.seq_started = true;
            self.seq = match self.config.sequence {
                SequenceMode::Counter(start) => start,
                SequenceMode::EpochSeconds { epoch, offset } => clock_number(epoch, offset, now),
            };
            return self.seq;
        }
        let next = self.seq.wrapping_add(1);
        self.seq = match self.config.sequence {
            SequenceMode::Counter(_) => next,
            SequenceMode::EpochSeconds { epoch, offset } => {
                let secs = clock_number(epoch, offset, now);
                // Strictly increasing even when several numbers fall in one second.
                if crate::sequence::is_after(secs, self.seq) {
                    secs
                } else {
                    next
                }
            }
        };
        self.seq
    }

    /// Start the count of sequence numbers again, as a UP function that restarts does: the
    /// next number is the configured start ([`SequenceMode::Counter`]) or the clock's, and
    /// what every peer was told is forgotten (each is told afresh). The law's state and its
    /// measurements are kept. A CP function that holds a higher number processes the lower
    /// one only once it knows of the restart ([`crate::sequence`]: a changed Recovery Time
    /// Stamp, a jump back beyond its reset window, or the end of the stored validity).
    pub fn restart_sequence(&mut self) {
        self.seq = first_number(self.config.sequence);
        self.seq_started = false;
        self.law_seq = None;
        self.provisional = None;
        for p in self.peers.values_mut() {
            p.forget_told();
        }
    }

    /// The OCI describing the law's current state (its rounded metric, the number it was
    /// published with), if the law has ever published one. What a peer is told may differ (a
    /// level of the grid, another number: [`OverloadReporter::oci_for`]).
    pub fn current_oci(&self, aoci: bool) -> Option<OverloadControlInformation> {
        self.published_at?;
        let seq = self.law_seq?;
        Some(OverloadControlInformation {
            sequence_number: ControlSequenceNumber(seq),
            metric: Metric::from_raw(self.published),
            period_of_validity: timer(self.config.validity),
            flags: aoci.then_some(OciFlags::AOCI),
        })
    }
}

/// The number a count starts from, before any is issued.
fn first_number(mode: SequenceMode) -> u32 {
    match mode {
        SequenceMode::Counter(start) => start,
        SequenceMode::EpochSeconds { offset, .. } => offset,
    }
}

/// The clock's number at `now`: `offset` plus the whole seconds since `epoch`, on the circle.
fn clock_number(epoch: Instant, offset: u32, now: Instant) -> u32 {
    offset.wrapping_add(now.saturating_duration_since(epoch).as_secs() as u32)
}

/// The Timer IE of a Period of Validity (an infinite one beyond what it encodes).
fn timer(validity: std::time::Duration) -> Timer {
    Timer::from_duration(validity).unwrap_or(Timer::INFINITE)
}

mod config;
mod law;
mod peers;
pub use config::{InclusionPolicy, ReporterConfig, ReporterConfigError, SequenceMode};
pub use law::{ControlLaw, WindowMeasurement};
pub use peers::ProvisionalOci;

#[cfg(test)]
mod tests;
