//! The surplus a bounded queue needs: the target load sized to how bursty the arrivals are
//! ([`AdmissionConfig::adapt_target_load`](super::AdmissionConfig::adapt_target_load); the
//! reasoning and the measured figures are in `docs/overload-control.md`, "The surplus follows
//! the burstiness of the arrivals").
//!
//! A queue that bounds every wait to `K` service times and is fed `T` times its capacity idles
//! about `(T - 1) e^-x` of the time, `x = 2 (T - 1) K / (T c²)`, where `c²` is the arrivals'
//! index of dispersion (the heavy-traffic diffusion approximation of a queue between two
//! barriers). Holding `x` at [`IDLE_EXPONENT`] gives `T = 1 / (1 - x c² / 2K)`: smooth
//! arrivals need a small surplus, bursty ones a larger one. The index is measured as the
//! variance over the mean of the arrival counts in 10 ms bins over each control interval,
//! smoothed over the intervals of an overload episode.

use std::time::{Duration, Instant};

/// Length of a bin: about the wait bound. Fixed rather than a share of the interval, so that the
/// index (and [`IDLE_EXPONENT`], calibrated on it) means the same at any control interval.
const BIN: Duration = Duration::from_millis(10);
/// Least bins per control interval (a shorter interval gets shorter bins).
const MIN_BINS: u32 = 10;
/// The `x` held, chosen in `pfcp sim`: 16 paced CP functions, whose counts show an index of
/// about 0.58 over 10 ms, get 1.24, one CP function (about 0.25) 1.09. With 8.6 (1.2 and
/// 1.08) a single 200 ms period dipped to 0.91 C in 3 of 192 seeds of a 16-CP step
/// to 10x; with 10 in none, for 0.1-0.3 points of goodput (`docs/overload-control.md`).
const IDLE_EXPONENT: f64 = 10.0;
/// Memory of the smoothed index: an interval's index weighs its share of this (a twentieth at
/// 100 ms). Shorter, the target's noise left 16 CPs' served rate outside 5 % of its steady
/// value more often after a step (32 of 48 seeds settled within two 100 ms intervals with a
/// tenth, 41 with a twentieth).
const MEMORY: Duration = Duration::from_secs(2);
/// An interval's index counts for at most this multiple of the prior's: the first interval of a
/// storm, arrivals rising within it, is no measure of their burstiness.
const MAX_INDEX: f64 = 2.0;
/// The range of the target.
const RANGE: (f64, f64) = (1.0, 1.5);
/// Least arrivals in an interval for its index to count.
const MIN_ARRIVALS: f64 = 10.0;

/// Arrival counts per bin, and the target they give.
#[derive(Debug, Clone)]
pub(super) struct Surplus {
    /// Length of a bin.
    len: Duration,
    /// Bins per control interval.
    per_interval: u32,
    /// Weight of an interval's index in the smoothed one.
    weight: f64,
    /// End of the bin being counted.
    end: Instant,
    current: u64,
    /// Bins closed in the current interval, and the sums of their counts and squares.
    bins: u32,
    sum: f64,
    sum_sq: f64,
    /// The smoothed index of the current overload episode.
    smoothed: Option<f64>,
}

impl Surplus {
    /// Bins of [`BIN`] (at least [`MIN_BINS`] per `interval`) starting at `now`.
    pub(super) fn new(interval: Duration, now: Instant) -> Self {
        let per_interval = u32::try_from(interval.as_nanos() / BIN.as_nanos())
            .unwrap_or(u32::MAX)
            .max(MIN_BINS);
        let len = (interval / per_interval).max(Duration::from_nanos(1));
        Surplus {
            len,
            per_interval,
            weight: (interval.as_secs_f64() / MEMORY.as_secs_f64()).clamp(0.01, 0.5),
            end: now.checked_add(len).unwrap_or(now),
            current: 0,
            bins: 0,
            sum: 0.0,
            sum_sq: 0.0,
            smoothed: None,
        }
    }

    /// One request arrived at `now`.
    pub(super) fn record(&mut self, now: Instant) {
        self.advance(now);
        self.current += 1;
    }

    fn advance(&mut self, now: Instant) {
        let mut closed = 0;
        while self.end <= now {
            if closed > 2 * self.per_interval {
                // A long gap: restart the grid; the empty bins of a silence are no burstiness.
                self.current = 0;
                self.end = now.checked_add(self.len).unwrap_or(now);
                return;
            }
            let count = std::mem::take(&mut self.current) as f64;
            self.bins += 1;
            self.sum += count;
            self.sum_sq += count * count;
            closed += 1;
            match self.end.checked_add(self.len) {
                Some(next) => self.end = next,
                None => return,
            }
        }
    }

    /// Close the control interval ending at `end`: the target load for the next one, or
    /// `None` to leave it where it is. `configured` is the reporter's configured target, the
    /// episode's start; `bound` the queue's wait bound in service times. Outside overload
    /// (`overloaded` false) the episode ends and the configured target returns.
    pub(super) fn close_interval(
        &mut self,
        end: Instant,
        overloaded: bool,
        configured: f64,
        bound: f64,
    ) -> Option<f64> {
        self.advance(end);
        let bins = f64::from(std::mem::take(&mut self.bins));
        let sum = std::mem::take(&mut self.sum);
        let sum_sq = std::mem::take(&mut self.sum_sq);
        if !overloaded {
            return self.smoothed.take().map(|_| configured);
        }
        if !(bound > 0.0 && configured > 1.0) || bins < 2.0 || sum < MIN_ARRIVALS {
            return None;
        }
        let mean = sum / bins;
        let index = ((sum_sq - bins * mean * mean) / (bins - 1.0)).max(0.0) / mean;
        // The index the configured target stands for: where an episode starts.
        let prior = (1.0 - 1.0 / configured) * 2.0 * bound / IDLE_EXPONENT;
        let smoothed = self.smoothed.unwrap_or(prior);
        let smoothed = smoothed + self.weight * (index.min(MAX_INDEX * prior) - smoothed);
        self.smoothed = Some(smoothed);
        let share = (IDLE_EXPONENT * smoothed / (2.0 * bound)).min(1.0 - 1.0 / RANGE.1);
        Some((1.0 / (1.0 - share)).clamp(RANGE.0, RANGE.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    /// 15 ms at 1000 requests per second.
    const BOUND: f64 = 15.0;

    #[allow(clippy::disallowed_methods)] // An arbitrary base instant; the module never reads the clock.
    fn base() -> Instant {
        Instant::now()
    }

    /// Feed `intervals` of 100 ms with `per_bin(interval, bin)` arrivals in each 10 ms bin;
    /// the targets returned at each interval's end.
    fn run(
        s: &mut Surplus,
        t0: Instant,
        intervals: u32,
        overloaded: bool,
        per_bin: impl Fn(u32, u32) -> u32,
    ) -> Vec<Option<f64>> {
        (0..intervals)
            .map(|i| {
                for b in 0..10 {
                    let start = t0 + (i * 100 + b * 10) * MS;
                    let n = per_bin(i, b);
                    for k in 0..n {
                        s.record(start + (k * 10_000 / n.max(1)) * Duration::from_micros(1));
                    }
                }
                s.close_interval(t0 + (i + 1) * 100 * MS, overloaded, 1.2, BOUND)
            })
            .collect()
    }

    #[test]
    fn paced_arrivals_need_a_smaller_surplus_than_bursts() {
        let t0 = base();
        let mut paced = Surplus::new(100 * MS, t0);
        let even = run(&mut paced, t0, 60, true, |_, _| 12);
        let last = even.last().copied().flatten().unwrap_or(f64::NAN);
        // Counts of 12 in every bin: no dispersion at all, so the target falls towards 1.
        assert!(last < 1.05, "paced: {last}");
        assert!(even.windows(2).all(|w| w[1] <= w[0]), "falls steadily");

        let mut bursty = Surplus::new(100 * MS, t0);
        // 120 requests an interval in two bins of 60: an index of 53, counted as twice the
        // prior's, so the target climbs towards its ceiling.
        let bursts = run(
            &mut bursty,
            t0,
            60,
            true,
            |_, b| if b % 5 == 0 { 60 } else { 0 },
        );
        let last = bursts.last().copied().flatten().unwrap_or(f64::NAN);
        assert!(last > 1.45 && last <= RANGE.1, "bursty: {last}");
        assert!(bursts.windows(2).all(|w| w[1] >= w[0]), "rises steadily");
    }

    #[test]
    fn an_episode_starts_at_the_configured_target_and_ends_there() {
        let t0 = base();
        let mut s = Surplus::new(100 * MS, t0);
        // Arrivals of the index the configured target stands for keep it: the first interval
        // moves it only by the smoothing's share of the distance.
        let first = run(&mut s, t0, 1, true, |_, _| 12);
        let first = first[0].unwrap_or(f64::NAN);
        assert!(first < 1.2 && first > 1.18, "{first}");
        // Not overloaded: the configured target comes back once, then nothing changes.
        let t1 = t0 + 100 * MS;
        assert_eq!(run(&mut s, t1, 1, false, |_, _| 12), vec![Some(1.2)]);
        assert_eq!(run(&mut s, t1 + 100 * MS, 1, false, |_, _| 12), vec![None]);
    }

    #[test]
    fn too_few_arrivals_or_no_bound_leave_the_target() {
        let t0 = base();
        let mut s = Surplus::new(100 * MS, t0);
        assert_eq!(
            run(&mut s, t0, 1, true, |_, b| u32::from(b == 0)),
            vec![None]
        );
        let mut unbounded = Surplus::new(100 * MS, t0);
        unbounded.record(t0);
        assert_eq!(
            unbounded.close_interval(t0 + 100 * MS, true, 1.2, 0.0),
            None
        );
        // A target of 1 or below configured (a queue without a wait bound): left alone.
        assert_eq!(
            unbounded.close_interval(t0 + 200 * MS, true, 0.97, BOUND),
            None
        );
    }

    /// The index is taken over 10 ms bins and smoothed over about two seconds whatever the
    /// interval: the same arrivals give about the same target after two seconds at 100 ms
    /// and at 200 ms intervals (over tenths of 200 ms, 20 ms bins, the bursts below would not
    /// show at all).
    #[test]
    fn bins_and_memory_do_not_depend_on_the_interval() {
        let t0 = base();
        let target_after_2s = |interval_ms: u32| {
            let mut s = Surplus::new(interval_ms * MS, t0);
            let mut last = None;
            for i in 0..2000 / interval_ms {
                for b in 0..interval_ms / 10 {
                    // 24 requests every other 10 ms bin.
                    let start = t0 + (i * interval_ms + b * 10) * MS;
                    for k in 0..if b % 2 == 0 { 24 } else { 0 } {
                        s.record(start + k * 400 * Duration::from_micros(1));
                    }
                }
                last = s.close_interval(t0 + (i + 1) * interval_ms * MS, true, 1.2, BOUND);
            }
            last.unwrap_or(f64::NAN)
        };
        let (short, long) = (target_after_2s(100), target_after_2s(200));
        assert!(short > 1.25, "bursty arrivals raise the target: {short}");
        assert!((short - long).abs() < 0.02, "100 ms {short}, 200 ms {long}");
    }
}
