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
//! ## Sequence numbers and validity
//!
//! The Overload Control Sequence Number changes only when the content changes or when the
//! Period of Validity must be extended (6.2.4.3.2): while overloaded, [`OverloadReporter::
//! poll_timeout`] fires [`ReporterConfig::refresh_before`] ahead of expiry and
//! [`OverloadReporter::handle_timeout`] re-issues the same metric with a new number. Numbers
//! come from a counter or, as 6.2.4.3.2 allows, from seconds since an epoch (survives restarts
//! without storage).
//!
//! ## Inclusion ([`OverloadReporter::oci_for`])
//!
//! Only towards peers that advertised OVRL in CP Function Features (6.2.4.2), only on Session
//! Establishment/Modification/Deletion Responses and Session Report Requests, only until the
//! peer has the current sequence number ([`InclusionPolicy::UntilCurrent`], or on every
//! eligible message with [`InclusionPolicy::EveryMessage`]), and with AOCI where the spec
//! requires it: a rejected Session Establishment Response (8.2.76). When the overload ends,
//! metric 0 goes to every peer that was told a non-zero value, and to no one else.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::time::Instant;

use pfcp_wire::ie::{ControlSequenceNumber, Metric, OciFlags, OverloadControlInformation, Timer};
use pfcp_wire::{Cause, MessageType};

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

#[derive(Debug, Clone, Copy, Default)]
struct PeerState {
    ovrl: bool,
    told_entity: Option<u32>,
    told_node: Option<u32>,
    told_nonzero: bool,
    /// The metric this peer was last told (it applies it from then on).
    applied: u8,
    /// Requests from it since the last flush ([`OverloadReporter::record_arrival`]).
    arrived: u64,
    /// Demand reconstructed from its arrivals earlier in the interval, under older metrics.
    demand: f64,
    /// Its place in the dither order, in `[0, 1)` ([`ReporterConfig::dither`]).
    rank: f64,
}

impl PeerState {
    /// The share of its traffic the peer sends while applying its metric.
    fn admitted(&self) -> f64 {
        admitted_share(self.applied)
    }

    /// Fold the arrivals so far into the demand, under the metric in force, and start
    /// counting under `metric`.
    fn told(&mut self, metric: u8) {
        self.demand += self.arrived as f64 / self.admitted();
        self.arrived = 0;
        self.applied = metric;
    }
}

/// Place `k` of a low-discrepancy order in `[0, 1)`: however many peers there are, any
/// fraction of them lies below that fraction of the range, within about one peer.
fn dither_rank(k: u64) -> f64 {
    const GOLDEN: f64 = 0.618_033_988_749_894_8;
    // The first peer sits at the middle: alone, it is told the rounded metric.
    (0.5 + k as f64 * GOLDEN).fract()
}

/// The published metric and the share around which peers are dithered.
#[derive(Debug, Clone, Copy)]
struct Dither {
    published: u8,
    fine: f64,
    on: bool,
    max: u8,
}

impl Dither {
    /// The metric of the peer at `rank` (see [`ReporterConfig::dither`]).
    fn metric(self, rank: f64) -> u8 {
        if self.published == 0 || !self.on {
            return self.published;
        }
        let lo = self.fine.floor();
        let metric = if rank < self.fine - lo { lo + 1.0 } else { lo };
        metric.clamp(1.0, f64::from(self.max)) as u8
    }
}

/// The share of traffic a CP function sends under `metric` (a metric of 100 would admit none;
/// the reporter never publishes above 99 for this reason).
fn admitted_share(metric: u8) -> f64 {
    1.0 - f64::from(metric.min(99)) / 100.0
}

/// The UP side of overload control: metric computation and per-peer inclusion.
#[derive(Debug, Clone)]
pub struct OverloadReporter<P> {
    config: ReporterConfig,
    published: u8,
    seq: u32,
    seq_started: bool,
    published_at: Option<Instant>,
    history: VecDeque<u8>,
    lower_wishes: VecDeque<u8>,
    capacity_est: Option<f64>,
    peers: HashMap<P, PeerState>,
    /// Peers ever tracked: the next one's place in the dither order.
    peers_seen: u64,
    /// The metric the law asked for, before rounding (`published` is its rounding).
    fine: f64,
    law: law::LawState,
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
        let seq = match config.sequence {
            SequenceMode::Counter(start) => start,
            SequenceMode::EpochSeconds { offset, .. } => offset,
        };
        OverloadReporter {
            capacity_est: config.capacity,
            target_load: config.target_load,
            config,
            published: 0,
            seq,
            seq_started: false,
            published_at: None,
            history: VecDeque::new(),
            lower_wishes: VecDeque::new(),
            peers: HashMap::new(),
            peers_seen: 0,
            fine: 0.0,
            law: law::LawState::default(),
            untracked: 0,
            recorded: 0,
            exempt: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ReporterConfig {
        &self.config
    }

    /// The metric currently published (0 = not overloaded). With
    /// [`ReporterConfig::dither`] the peers are told this value or the one next to it
    /// ([`OverloadReporter::metric_for`]).
    pub fn metric(&self) -> u8 {
        self.published
    }

    /// The metric `peer` is told now: [`OverloadReporter::metric`], or with
    /// [`ReporterConfig::dither`] the whole metric just below or above what the law asked
    /// for, by the peer's place in the dither order (never 0 while overloaded). `None` for a
    /// peer not tracked.
    pub fn metric_for(&self, peer: &P) -> Option<u8> {
        let dither = self.dither();
        self.peers.get(peer).map(|p| dither.metric(p.rank))
    }

    /// What [`OverloadReporter::metric_for`] needs besides the peer's rank, copied out so that
    /// `oci_for` can hold the peer's state mutably while it asks.
    fn dither(&self) -> Dither {
        Dither {
            published: self.published,
            fine: self.fine,
            on: self.config.dither && self.config.law == ControlLaw::Adaptive,
            max: self.config.max_metric.clamp(1, 99),
        }
    }

    /// The current sequence number.
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
            self.peers.insert(
                peer,
                PeerState {
                    ovrl,
                    rank,
                    ..PeerState::default()
                },
            );
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

    /// `peer` was sent an OCI with `metric` outside [`OverloadReporter::oci_for`] (e.g. the
    /// UP's own overflow OCI): it applies that metric from now on.
    pub fn note_sent(&mut self, peer: &P, metric: u8) {
        if let Some(p) = self.peers.get_mut(peer) {
            p.told(metric);
        }
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
            demand += p.demand + p.arrived as f64 / p.admitted();
            p.demand = 0.0;
            p.arrived = 0;
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

    /// Publish `metric`, the rounding of `fine`, the value the peers are dithered around.
    fn publish_fine(&mut self, metric: u8, fine: f64, now: Instant) -> u8 {
        self.published = metric;
        self.fine = fine;
        self.next_sequence(now);
        self.published_at = Some(now);
        metric
    }

    fn next_sequence(&mut self, now: Instant) {
        if !self.seq_started {
            self.seq_started = true;
            if let SequenceMode::EpochSeconds { epoch, offset } = self.config.sequence {
                let secs = now.saturating_duration_since(epoch).as_secs();
                self.seq = offset.wrapping_add(secs as u32);
            }
            return;
        }
        let next = self.seq.wrapping_add(1);
        self.seq = match self.config.sequence {
            SequenceMode::Counter(_) => next,
            SequenceMode::EpochSeconds { epoch, offset } => {
                let secs =
                    offset.wrapping_add(now.saturating_duration_since(epoch).as_secs() as u32);
                // Strictly increasing even when several changes fall in one second.
                if secs.wrapping_sub(next) < u32::MAX / 2 {
                    secs
                } else {
                    next
                }
            }
        };
    }

    /// The OCI describing the current state, if one has ever been published.
    pub fn current_oci(&self, aoci: bool) -> Option<OverloadControlInformation> {
        self.published_at?;
        // The zero OCI gets the full validity too: the receiver keeps it that long, so a late
        // retransmission carrying an older non-zero OCI cannot re-arm the overload.
        let validity = self.config.validity;
        Some(OverloadControlInformation {
            sequence_number: ControlSequenceNumber(self.seq),
            metric: Metric::from_raw(self.published),
            period_of_validity: Timer::from_duration(validity).unwrap_or(Timer::INFINITE),
            flags: aoci.then_some(OciFlags::AOCI),
        })
    }

    /// The OCI to piggyback on the next message of `message_type` (with `cause`, for
    /// responses) to `peer`, per the inclusion policy; records that the peer was told.
    ///
    /// A refresh that is due (see [`Self::poll_timeout`]) happens here first, so an
    /// application that polls the timer late never sends a number whose validity has run
    /// out: the CP would ignore it (6.2.4.3.2.1 NOTE 1) and end the overload early.
    pub fn oci_for(
        &mut self,
        peer: &P,
        message_type: MessageType,
        cause: Option<Cause>,
        now: Instant,
    ) -> Option<OverloadControlInformation> {
        self.handle_timeout(now);
        if !message_type.may_carry_oci() {
            return None;
        }
        let rejected_establishment = message_type == MessageType::SESSION_ESTABLISHMENT_RESPONSE
            && cause.is_some_and(|c| c.is_acceptance() == Some(false));
        let mut aoci = self.config.node_scoped || rejected_establishment;
        let seq = self.seq;
        let policy = self.config.inclusion;
        self.published_at?;
        let dither = self.dither();
        let peer_state = self.peers.get_mut(peer)?;
        let metric = dither.metric(peer_state.rank);
        if !peer_state.ovrl {
            return None;
        }
        if metric == 0 && !peer_state.told_nonzero {
            return None;
        }
        // The peer's node scope (AOCI=1, e.g. from a rejected establishment) holds an older
        // number while its entity scope is current: send the current OCI node-scoped (AOCI may
        // be set on any message, 8.2.76). Otherwise a lowered metric or the end of the overload
        // never reaches the node scope and the CP, which applies the larger of the two, keeps
        // the old reduction until its validity runs out.
        if !aoci
            && peer_state.told_entity == Some(seq)
            && peer_state.told_node.is_some_and(|s| s != seq)
        {
            aoci = true;
        }
        let told = if aoci {
            &mut peer_state.told_node
        } else {
            &mut peer_state.told_entity
        };
        let has_current = *told == Some(seq);
        let include = match policy {
            InclusionPolicy::UntilCurrent => !has_current,
            InclusionPolicy::EveryMessage => metric > 0 || !has_current,
        };
        if !include {
            return None;
        }
        *told = Some(seq);
        peer_state.told(metric);
        if metric > 0 {
            peer_state.told_nonzero = true;
        } else if peer_state.told_entity.is_none_or(|s| s == seq)
            && peer_state.told_node.is_none_or(|s| s == seq)
        {
            // Every scope the peer heard about now has the zero: nothing more to say.
            peer_state.told_nonzero = false;
        }
        let mut oci = self.current_oci(aoci)?;
        oci.metric = Metric::from_raw(metric);
        Some(oci)
    }

    /// When the validity must be refreshed (while overloaded).
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.published == 0 {
            return None;
        }
        let at = self.published_at?;
        let validity = self.config.validity;
        let mut lead = validity.saturating_sub(self.config.refresh_before);
        // With `refresh_before >= validity` the lead would be zero: the timer would be due
        // again right after every refresh, a busy loop that bumps the sequence number
        // (fuzz-found). Refresh halfway through the validity instead; a validity too short to
        // halve (a stopped timer) is never refreshed.
        if lead.is_zero() {
            lead = validity / 2;
            if lead.is_zero() {
                return None;
            }
        }
        // A refresh beyond the representable instants (a huge validity) never comes.
        at.checked_add(lead)
    }

    /// Refresh the validity if due: same metric, new sequence number (6.2.4.3.2: extending
    /// validity needs a new number even when nothing else changed).
    pub fn handle_timeout(&mut self, now: Instant) {
        if let Some(t) = self.poll_timeout() {
            if now >= t {
                let (metric, fine) = (self.published, self.fine);
                self.publish_fine(metric, fine, now);
            }
        }
    }
}

mod config;
mod law;
pub use config::{InclusionPolicy, ReporterConfig, ReporterConfigError, SequenceMode};
pub use law::{ControlLaw, WindowMeasurement};

#[cfg(test)]
mod tests;
