//! The control laws of the reporter: how the Overload Reduction Metric follows from one
//! interval's measurement (clause 6.2.4.4.2.1: "based e.g. on the traffic reduction factor
//! that is currently in use, the current system utilization and the desired system
//! utilization, and/or the rate of the current overall received traffic"). The reasoning and
//! the measured figures are in `docs/overload-control.md`.

use std::hash::Hash;
use std::time::Instant;

use super::{admitted_share, Measurement, OverloadReporter};

/// What the UP function counted over a window shorter than the control interval, for
/// [`OverloadReporter::handle_window`]: the arrivals while a throttled CP function is heard
/// from least, at the end of an overload.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WindowMeasurement {
    /// Requests that arrived during the window.
    pub arrived: u64,
    /// Of those, priority (eMPS, emergency) requests, which the CP functions do not shed
    /// while the rest can make up the reduction (clause 6.2.4.5.1).
    pub exempt: u64,
    /// Requests waiting at the end of the window.
    pub backlog: u64,
    /// The window's length in control intervals (e.g. 0.5); at most 1.
    pub intervals: f64,
}

/// How the reporter computes the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ControlLaw {
    /// Feed-forward from the demand each CP function's traffic shows under the metric it was
    /// told ([`OverloadReporter::record_arrival`]), trimmed by an integral on what actually
    /// arrives: `a = (A / D) x exp(trim)`, `trim += 0.15 x ln(A / arrived)` near the target,
    /// where `a` is the admitted share (`1 - metric/100`), `A` the target arrivals (capacity x
    /// target utilisation, less the backlog drain) and `D` the reconstructed demand. The
    /// feed-forward settles a step in one interval after the metric reaches the CPs; the trim
    /// corrects whatever the CPs do not shed as asked (exempt traffic, peers without OVRL,
    /// rounding, throttle lag). Published when the admitted share changes by at least
    /// [`ReporterConfig::min_change`](super::ReporterConfig::min_change). The default.
    #[default]
    Adaptive,
    /// The first law of this crate: demand reconstructed from the arrivals and the metric
    /// published [`ReporterConfig::feedback_delay`](super::ReporterConfig::feedback_delay) + 1
    /// intervals earlier, published in [`ReporterConfig::step`](super::ReporterConfig::step)s
    /// (raise at once, lower after a dwell). Exact only if every CP sheds exactly the metric
    /// at a known delay; kept for comparison.
    FeedForward,
    /// A plain utilisation law, the occupancy-based control of the SIP overload literature:
    /// the admitted share is multiplied by `0.9 / occupancy` every interval, the occupancy
    /// being the served share of the capacity (at most 1). Slow to follow a large step (it
    /// cannot see how far beyond capacity the demand is); the baseline `pfcp sim` compares
    /// against.
    Utilisation,
}

/// Gain of the integral trim, per interval (in the log of the admitted share). With the
/// metric dithered across peers the trim's steps reach the arrivals in proportion, and a lower
/// gain follows less of the arrivals' noise than 0.25 did (`docs/overload-control.md`, "Why
/// the loop settles").
const TRIM_GAIN: f64 = 0.15;
/// The trim integrates only while the arrivals are within this factor (in log) of the target:
/// beyond, the feed-forward is the better guide and the trim would wind up during a transient.
const TRIM_BAND: f64 = 0.5;
/// Most the trim may scale the feed-forward by, either way.
const TRIM_LIMIT: f64 = 1.386_294_361_119_890_6; // ln 4
/// The share of demand left to priority traffic is this much above its own arrivals, so that
/// a prioritised throttle meets the reduction before its boundary reaches the exempt class.
const EXEMPT_MARGIN: f64 = 1.5;
/// The backlog drain leaves at least this share of the target.
const MIN_TARGET: f64 = 0.5;
/// Occupancy the [`ControlLaw::Utilisation`] law aims at.
const OCCUPANCY_TARGET: f64 = 0.9;

/// A demand estimate further than this (in log) from the smoothed one is a step: taken at
/// once. Closer, it is noise (Poisson arrivals vary by a few per cent per interval): smoothed.
const STEP_BAND: f64 = 0.4;
/// Weight of a new demand estimate within the step band: an eighth, since at a deep cut one
/// metric point moves the arrivals by a tenth of the capacity, and half weight turned the
/// one-interval bursts of 16 CPs into such points (the spread of arrivals in a step's high
/// phase fell from 0.70 to 0.45 of the capacity with a quarter, and the dithered metric
/// follows less noise still with an eighth; `docs/overload-control.md`).
const DEMAND_SMOOTHING: f64 = 0.125;
/// Weight of a new interval in the smoothed priority arrivals.
const SMOOTHING: f64 = 0.5;
/// Most the admitted share may grow in one interval: a CP function that sheds more than asked
/// for a moment (a throttle paying off its credit, a burst of local rejections) shows a dip of
/// arrivals that is no fall of demand; following it at once would open the gates to the
/// whole demand for an interval.
const MAX_RELAX: f64 = 4.0;
/// Arrivals below this share of the target, with an empty queue, lift [`MAX_RELAX`].
const DEMAND_FELL: f64 = 0.5;

/// The continuous state of the laws between intervals.
#[derive(Debug, Clone, Copy)]
pub(super) struct LawState {
    /// The admitted share the law asked for last (before rounding to a metric).
    admit: f64,
    /// The integral trim, in the log of the admitted share.
    trim: f64,
    /// The smoothed demand estimate (0: none yet).
    demand: f64,
    /// The smoothed arrivals of priority traffic per interval.
    exempt: f64,
}

impl Default for LawState {
    fn default() -> Self {
        LawState {
            admit: 1.0,
            trim: 0.0,
            demand: 0.0,
            exempt: 0.0,
        }
    }
}

impl<P: Hash + Eq + Clone> OverloadReporter<P> {
    /// The lowest admitted share the configuration allows.
    fn min_admit(&self) -> f64 {
        admitted_share(self.config.max_metric.min(99))
    }

    /// Whether `backlog` is no more than the queue the configuration tolerates
    /// ([`ReporterConfig::backlog_target`](super::ReporterConfig::backlog_target)): with arrivals below half the target, such a queue
    /// empties within a fraction of an interval, so the UP function is about to idle.
    fn within_backlog_target(&self, backlog: u64) -> bool {
        backlog as f64 <= self.config.backlog_target
    }

    /// The [`ControlLaw::Adaptive`] metric for measurement `m` and reconstructed `demand`.
    pub(super) fn adaptive(&mut self, m: &Measurement, demand: f64) -> u8 {
        let Some(capacity) = self.capacity_est else {
            return 0;
        };
        let excess = (m.backlog as f64 - self.config.backlog_target).max(0.0);
        let arrived = m.arrived as f64;
        let now_exempt = std::mem::take(&mut self.exempt) as f64;
        // A target above the capacity leaves a surplus for a queue that bounds every wait to
        // shed, the lowest priorities first (see `ReporterConfig::target_load`; the UP function may
        // size it, `set_target_load`).
        let full = capacity * self.target_load;
        // The drain never takes more than half the capacity: a backlog is worth some latency,
        // not a cut so deep that priority traffic, exempt only while the rest can make up the
        // reduction (6.2.4.5.1), is throttled to drain it.
        let target = (full - excess / self.config.drain_intervals.max(1.0)).max(full * MIN_TARGET);
        let smoothed = self.law.demand;
        let demand = if smoothed > 0.0 && demand > 0.0 && (demand / smoothed).ln().abs() < STEP_BAND
        {
            smoothed + DEMAND_SMOOTHING * (demand - smoothed)
        } else {
            // A step of demand: what the trim learned (how far the CPs' shedding departs from
            // the metric) belonged to the old traffic.
            self.law.trim = 0.0;
            demand
        };
        self.law.demand = demand;
        let ff = if demand > 0.0 { target / demand } else { 1.0 };
        if arrived > 0.0 {
            // What the peers were told departs from the law's share by the grid: what their
            // levels admit is what should arrive. The trim learns how the CPs depart from what
            // they were told, not the grid's rounding (alone on the grid, a peer would otherwise
            // be walked from one level to the next and back).
            let error = (target * self.quantisation() / arrived).ln();
            if error.abs() < TRIM_BAND {
                self.law.trim = (self.law.trim + TRIM_GAIN * error).clamp(-TRIM_LIMIT, TRIM_LIMIT);
            }
        }
        // Priority requests come in bursts (an emergency session's modification and deletion
        // follow its establishment): smoothed, their share of the demand is what the rest of
        // the traffic must make room for.
        self.law.exempt = if self.law.exempt > 0.0 {
            SMOOTHING * now_exempt + (1.0 - SMOOTHING) * self.law.exempt
        } else {
            now_exempt
        };
        let exempt = self.law.exempt.max(now_exempt * SMOOTHING);
        let mut min = self.min_admit();
        // The room priority traffic may take: what the UP function serves, less the backlog
        // drain. Not the target when it lies above the capacity: the surplus is the bounded
        // queue's to shed, and only the lower priorities leave it early.
        let room = target.min(capacity);
        if exempt > 0.0 && exempt < room && demand > 0.0 {
            // Priority traffic fits: ask for no reduction the rest cannot make up alone.
            min = min.max(((EXEMPT_MARGIN * exempt).min(room) / demand).min(1.0));
        }
        // Arrivals below half the target with no more queued than tolerated are a fall of
        // demand, not a throttle paying off its credit (a few requests per CP): the cap would
        // only hold the CPs back an interval longer after a storm.
        let fell = arrived < DEMAND_FELL * target && self.within_backlog_target(m.backlog);
        let mut a = ff * self.law.trim.exp();
        if !fell {
            a = a.min(self.law.admit * MAX_RELAX);
        }
        if self.published == 0 && excess <= 0.0 && arrived <= target {
            // Open, and what arrives fits with no backlog: a demand rebuilt above the
            // target then comes from peers that have not heard the opening yet (each request
            // of theirs counts for the share they were told to shed, a probe too), not from
            // the traffic. Raise on what actually arrives.
            a = 1.0;
        }
        if a >= 1.0 {
            // Not overloaded: the trim must not wind up while nothing is shed.
            a = 1.0;
            self.law.trim = self.law.trim.min(0.0) * 0.5;
        } else if a < min {
            a = min;
            self.law.trim = self.law.trim.max((min / ff.max(1e-9)).ln().min(0.0));
        }
        self.law.admit = a;
        metric_of(a)
    }

    /// The share the peers' levels admit over the share the law asked for (1 when nothing is
    /// published or no peer gets OCIs): with many peers spread over the grid about 1, alone
    /// the ratio of the nearest level's share to the law's.
    fn quantisation(&self) -> f64 {
        if self.published == 0 || self.config.law != ControlLaw::Adaptive {
            return 1.0;
        }
        let levels = self.levels();
        let (mut sum, mut n) = (0.0, 0u32);
        for p in self.peers.values().filter(|p| p.ovrl) {
            sum += admitted_share(levels.metric(p.rank));
            n += 1;
        }
        let asked = (1.0 - self.fine / 100.0).clamp(0.01, 1.0);
        if n == 0 {
            1.0
        } else {
            (sum / f64::from(n) / asked).clamp(0.5, 2.0)
        }
    }

    /// Lower the metric within a control interval when a window of it shows the demand fell:
    /// with no more queued than
    /// [`ReporterConfig::backlog_target`](super::ReporterConfig::backlog_target) and arrivals
    /// below half the target, the reporter rebuilds the demand under the metric in force
    /// (exempt requests at face value; at least what the exempt requests show, scaled by
    /// their share of the demand over the last intervals, less two standard deviations of
    /// their count) and publishes at once
    /// the metric that brings it to the target: 0 if it fits (the overload ends), the share
    /// the non-exempt part needs otherwise (a fall from 10x to 4x lowers 90 % to 76 %), rather
    /// than at the interval's end. Returns the metric if it published one. Only
    /// [`ControlLaw::Adaptive`] acts on windows, and it only ever lowers the metric.
    ///
    /// Why only this, and only opening (`docs/overload-control.md`, "Hearing the end sooner"):
    /// a CP function that sheds most of its traffic sends little, so it hears a lower metric
    /// late (clause 6.2.4.2: OCI rides on the UP function's answers); a CP function that sends
    /// its whole demand hears a raise within milliseconds, so an opening that was wrong is
    /// undone by the next interval's law at little cost. A window far from the target cannot
    /// come from the arrivals' noise: at the target they are tens of requests a window. The
    /// demand rebuilt from a window is noisier than an interval's (a few requests under a
    /// deep cut), which is why it may lower the metric but never raise it.
    ///
    /// The caller must not pass a window it measured late (a process that stalled has the
    /// window's requests still in its socket).
    pub fn handle_window(&mut self, w: &WindowMeasurement, now: Instant) -> Option<u8> {
        if self.config.law != ControlLaw::Adaptive
            || self.published == 0
            || !self.within_backlog_target(w.backlog)
        {
            return None;
        }
        let capacity = self.capacity_est?;
        if !(w.intervals > 0.0 && w.intervals <= 1.0) {
            return None;
        }
        let target = capacity * self.target_load * w.intervals;
        let arrived = w.arrived as f64;
        let exempt = w.exempt.min(w.arrived) as f64;
        let share = (1.0 - self.fine / 100.0).max(admitted_share(99));
        // Priority requests scaled by their share of the demand: when the throttles' boundary
        // lies in the priority class, the few other requests they let through say nothing of
        // the demand, and a dip of priority requests alone (the follow-ups of sessions refused
        // in a storm's first moment) is no fall of the rest. Their count less two standard
        // deviations (Poisson), so that a window's one or two say nothing either.
        let by_exempt = if self.law.exempt > 0.0 && self.law.demand > 0.0 {
            (exempt - 2.0 * exempt.sqrt()).max(0.0) * self.law.demand / self.law.exempt
        } else {
            0.0
        };
        let demand = (exempt + (arrived - exempt) / share).max(by_exempt);
        if arrived >= DEMAND_FELL * target {
            return None;
        }
        // The share of the non-exempt demand that brings the arrivals to the target.
        let a = if demand < target {
            1.0
        } else {
            ((target - exempt) / (demand - exempt).max(1e-9)).clamp(self.min_admit(), 1.0)
        };
        // Below half the target the share at least about doubles; never a raise.
        if a <= share {
            return None;
        }
        self.law.admit = a;
        self.law.demand = demand / w.intervals;
        let metric = metric_of(a).min(self.config.max_metric.min(99));
        if metric == 0 {
            self.law.trim = self.law.trim.min(0.0) * 0.5;
            self.publish_fine(0, 0.0, now);
        } else {
            let fine = if self.config.dither {
                (100.0 * (1.0 - a)).clamp(0.0, f64::from(self.config.max_metric.min(99)))
            } else {
                f64::from(metric)
            };
            self.publish_fine(metric, fine, now);
        }
        Some(metric)
    }

    /// The [`ControlLaw::Utilisation`] metric for measurement `m`.
    pub(super) fn occupancy(&mut self, m: &Measurement) -> u8 {
        let Some(capacity) = self.capacity_est else {
            return 0;
        };
        let occupancy = (m.served as f64 / capacity.max(1e-9)).min(1.0);
        let a = if occupancy <= 0.0 {
            1.0
        } else {
            (self.law.admit * OCCUPANCY_TARGET / occupancy).clamp(self.min_admit(), 1.0)
        };
        self.law.admit = a;
        metric_of(a)
    }

    /// Publish `wanted` if it changes the admitted share by at least `min_change` (relative),
    /// or ends or starts an overload. With [`ReporterConfig::dither`](super::ReporterConfig::dither)
    /// under the adaptive law the share compared (and dithered around) is the law's own, not
    /// its rounding, so a change that leaves `wanted` as it was may still be published. Returns
    /// the rounded metric if that changed.
    pub(super) fn publish_relative(&mut self, wanted: u8, now: Instant) -> Option<u8> {
        let max = self.config.max_metric.min(99);
        let wanted = wanted.min(max);
        let fine = if wanted > 0 && self.config.dither && self.config.law == ControlLaw::Adaptive {
            (100.0 * (1.0 - self.law.admit)).clamp(0.0, f64::from(max))
        } else {
            f64::from(wanted)
        };
        let old = 1.0 - self.fine / 100.0;
        let new = 1.0 - fine / 100.0;
        let change = (new - old).abs() / old.max(1e-9);
        let starts_or_ends = (wanted == 0) != (self.published == 0);
        let worth = wanted > 0 && fine != self.fine && change >= self.config.min_change;
        if !(starts_or_ends || worth) {
            return None;
        }
        let before = self.published;
        self.publish_fine(wanted, fine, now);
        (wanted != before).then_some(wanted)
    }
}

/// The metric that admits share `a`.
fn metric_of(a: f64) -> u8 {
    (100.0 * (1.0 - a)).round().clamp(0.0, 99.0) as u8
}
