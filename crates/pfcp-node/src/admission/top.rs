//! How long priority 0 (eMPS and emergency requests, by the classifier's defaults) may wait:
//! its own long bound while its load fits or its backlog is a cluster the UP function clears,
//! the others' bound while it holds a surplus
//! ([`AdmissionConfig::top_priority_max_wait`](super::AdmissionConfig::top_priority_max_wait),
//! `docs/overload-control.md`, "Priority 0, and CPs that drew the same classes").

use std::time::{Duration, Instant};

/// A backlog of priority 0 within this many times the others' wait bound of work (30
/// requests at 1000/s and 15 ms) is a cluster, while its smoothed arrivals fit. The window
/// test alone tripped at 0.65 of the capacity when 16 CP functions' emergency sessions came
/// in a cluster (200 in 200 ms) and refused requests that waited 15.2 ms behind 15 others, a
/// backlog the UP function clears in 15 ms.
const SURPLUS_BOUNDS: u32 = 2;
/// Priority 0's backlog is taken for a cluster only while its smoothed arrivals are below this
/// share of the capacity: at 10x they hover at the capacity, and there the window alone
/// decides (a backlog kept at the mark would serve its oldest late).
const RELEASE: f64 = 0.9;
/// Priority 0's backlog is taken for a cluster only while its arrivals over the last
/// interval's length are at most this share of the capacity. A cluster the UP function clears
/// came in at about the capacity (108 and 92 in two intervals, stop 23); the first moment of a
/// storm at 10x comes in above it while the smoothed arrivals still lag from before, and taken
/// for a cluster its backlog was served newest first, the oldest 50-120 ms late (stop 30).
/// 1.05 lost emergency requests at a storm's onset at 5x in `pfcp sim`; 1.2 left the onsets at
/// 10x as before.
const CLUSTER_PEAK: f64 = 1.1;
/// Weight of the newest interval in priority 0's smoothed arrivals.
const SMOOTHING: f64 = 0.25;

/// Priority 0's arrivals, and the verdict on whether its load fits.
#[derive(Debug, Clone, Default)]
pub(super) struct TopPriority {
    /// Offered in the current interval.
    arrived: u64,
    /// Offered in the last closed interval.
    previous: f64,
    /// More were offered over the last interval's length (the current interval's and a
    /// pro-rata share of the previous one's) than the UP function serves in an interval: no
    /// burst it clears within one.
    overloaded: bool,
    /// Per interval, smoothed over intervals (weight [`SMOOTHING`]).
    smoothed: f64,
    /// Over the last interval's length, as counted at the last arrival.
    window: f64,
}

impl TopPriority {
    /// One arrived at `now`, in the interval that ends at `interval_end`; `capacity`: requests
    /// per interval, if known.
    pub(super) fn arrival(
        &mut self,
        now: Instant,
        interval_end: Instant,
        interval: Duration,
        capacity: Option<f64>,
    ) {
        self.arrived += 1;
        let left = interval_end.saturating_duration_since(now).as_secs_f64()
            / interval.as_secs_f64().max(1e-9);
        self.window = self.arrived as f64 + self.previous * left.min(1.0);
        self.overloaded = capacity.is_some_and(|c| self.window > c);
    }

    /// The interval ended: the window starts again with the interval just closed.
    pub(super) fn close_interval(&mut self, capacity: Option<f64>) {
        let top = std::mem::take(&mut self.arrived) as f64;
        self.previous = top;
        self.overloaded = capacity.is_some_and(|c| top > c);
        self.smoothed += SMOOTHING * (top - self.smoothed);
    }

    /// Whether priority 0 holds a surplus the UP function cannot serve, so that it waits no
    /// longer than the others (`bound`): the window says its load does not fit, unless its
    /// smoothed arrivals are below [`RELEASE`] of the capacity, the window's at most
    /// [`CLUSTER_PEAK`] of it, and its `backlog` is within [`SURPLUS_BOUNDS`] times `bound` of
    /// work at one request per `step`. That is a cluster, which the UP function clears.
    pub(super) fn surplus(
        &self,
        backlog: usize,
        step: Option<Duration>,
        bound: Option<Duration>,
        capacity: Option<f64>,
    ) -> bool {
        if !self.overloaded {
            return false;
        }
        let (Some(step), Some(bound), Some(capacity)) = (step, bound, capacity) else {
            return true;
        };
        let short =
            backlog as f64 * step.as_secs_f64() <= f64::from(SURPLUS_BOUNDS) * bound.as_secs_f64();
        let cluster =
            short && self.smoothed < RELEASE * capacity && self.window <= CLUSTER_PEAK * capacity;
        !cluster
    }
}
