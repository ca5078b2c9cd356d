//! How long priority 0 (eMPS and emergency requests, by the classifier's defaults) may wait:
//! its own long bound while its load fits or its backlog is a cluster the UP function clears,
//! the others' bound while it holds a surplus
//! ([`AdmissionConfig::top_priority_max_wait`](super::AdmissionConfig::top_priority_max_wait),
//! `docs/overload-control.md`, "Priority 0").

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
/// came in at about the capacity (108 and 92 in two intervals); the first moment of a
/// storm at 10x comes in above it while the smoothed arrivals still lag from before, and taken
/// for a cluster its backlog was served newest first, the oldest 50-120 ms late.
/// 1.05 lost emergency requests at a storm's onset at 5x in `pfcp sim`; 1.2 left the onsets at
/// 10x as before.
const CLUSTER_PEAK: f64 = 1.1;
/// Weight of the newest interval in priority 0's smoothed arrivals.
const SMOOTHING: f64 = 0.25;
/// Length of the window over which a burst of priority 0 is weighed against the capacity, at
/// most the control interval. Fixed rather than the interval: over a longer window a burst
/// averages out against more capacity and priority 0 waits its long bound more often (`pfcp
/// sim`, 300 requests/s, 2 CPs at 5x, 200 ms interval, seeds 1-12, the surplus's `x` at 8.6:
/// p99 of the successes 24-81 ms with the interval as the window, 17-59 ms with 100 ms).
const WINDOW: Duration = Duration::from_millis(100);

/// Priority 0's arrivals, and the verdict on whether its load fits.
#[derive(Debug, Clone, Default)]
pub(super) struct TopPriority {
    /// Offered in the current control interval.
    arrived: u64,
    /// Offered in the current window, and in the one before.
    in_window: u64,
    previous: f64,
    /// End of the current window (`None` before the first arrival).
    window_end: Option<Instant>,
    /// More were offered over the last window's length (the current window's and a pro-rata
    /// share of the previous one's) than the UP function serves in that time: no burst it
    /// clears within one.
    overloaded: bool,
    /// Per interval, smoothed over intervals (weight [`SMOOTHING`]).
    smoothed: f64,
    /// Over the last window's length, as counted at the last arrival, and what the UP function
    /// serves in that time.
    window: f64,
    window_capacity: Option<f64>,
}

impl TopPriority {
    /// One arrived at `now`; `interval`: the control interval, `capacity`: requests per
    /// interval, if known.
    pub(super) fn arrival(&mut self, now: Instant, interval: Duration, capacity: Option<f64>) {
        self.arrived += 1;
        self.roll(now, interval, capacity);
        self.in_window += 1;
        self.weigh(now, interval);
    }

    /// Move the window on to `now`; `capacity` per `interval` gives the window's.
    fn roll(&mut self, now: Instant, interval: Duration, capacity: Option<f64>) {
        let len = window(interval);
        self.window_capacity =
            capacity.map(|c| c * len.as_secs_f64() / interval.as_secs_f64().max(1e-9));
        let mut end = self
            .window_end
            .unwrap_or_else(|| now.checked_add(len).unwrap_or(now));
        let mut rolled = 0;
        while end <= now {
            self.previous = if rolled == 0 {
                self.in_window as f64
            } else {
                0.0
            };
            self.in_window = 0;
            rolled += 1;
            end = match end.checked_add(len) {
                Some(next) if rolled < 2 => next,
                // A silence of two windows or more: start afresh at `now`.
                _ => now.checked_add(len).unwrap_or(now),
            };
        }
        self.window_end = Some(end);
    }

    /// Weigh the window as it stands at `now`.
    fn weigh(&mut self, now: Instant, interval: Duration) {
        let len = window(interval).as_secs_f64();
        let left = self.window_end.map_or(0.0, |end| {
            end.saturating_duration_since(now).as_secs_f64() / len
        });
        self.window = self.in_window as f64 + self.previous * left.min(1.0);
        self.overloaded = self.window_capacity.is_some_and(|c| self.window > c);
    }

    /// The control interval ended at `end`: priority 0's arrivals over it go into the smoothed
    /// arrivals, and the window is weighed as it stands then.
    pub(super) fn close_interval(
        &mut self,
        end: Instant,
        interval: Duration,
        capacity: Option<f64>,
    ) {
        let top = std::mem::take(&mut self.arrived) as f64;
        self.smoothed += SMOOTHING * (top - self.smoothed);
        if self.window_end.is_some() {
            self.roll(end, interval, capacity);
            self.weigh(end, interval);
        }
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
        let (Some(step), Some(bound), Some(capacity), Some(in_window)) =
            (step, bound, capacity, self.window_capacity)
        else {
            return true;
        };
        let short =
            backlog as f64 * step.as_secs_f64() <= f64::from(SURPLUS_BOUNDS) * bound.as_secs_f64();
        let cluster =
            short && self.smoothed < RELEASE * capacity && self.window <= CLUSTER_PEAK * in_window;
        !cluster
    }
}

/// The window for a control interval of `interval`.
fn window(interval: Duration) -> Duration {
    WINDOW.min(interval).max(Duration::from_nanos(1))
}
