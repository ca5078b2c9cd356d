//! Windows shorter than the control interval, in which a fall of demand (the end of an overload
//! or part of it) shows first ([`OverloadReporter::handle_window`](pfcp_overload::OverloadReporter::handle_window)).

use std::time::{Duration, Instant};

/// Buckets per control interval.
pub(super) const BUCKETS_PER_INTERVAL: u32 = 4;
/// Buckets in a window: half an interval, long enough that arrivals at the target are tens
/// of requests, short enough that a fall of demand is seen within an interval.
const BUCKETS_PER_WINDOW: usize = 2;

/// Arrivals per bucket over the last window, on a grid of `len`.
#[derive(Debug, Clone)]
pub(super) struct FallWindow {
    len: Duration,
    /// End of the bucket being counted.
    end: Instant,
    /// (arrived, exempt) of the bucket being counted.
    current: (u64, u64),
    /// The buckets closed last, newest first; fewer than a window's after a restart.
    closed: Vec<(u64, u64)>,
}

impl FallWindow {
    /// A grid of `interval / BUCKETS_PER_INTERVAL` starting at `now`.
    pub(super) fn new(interval: Duration, now: Instant) -> Self {
        let len = (interval / BUCKETS_PER_INTERVAL).max(Duration::from_nanos(1));
        FallWindow {
            len,
            end: now.checked_add(len).unwrap_or(now),
            current: (0, 0),
            closed: Vec::with_capacity(BUCKETS_PER_WINDOW),
        }
    }

    /// The window's length as a share of the control interval.
    pub(super) fn intervals() -> f64 {
        BUCKETS_PER_WINDOW as f64 / f64::from(BUCKETS_PER_INTERVAL)
    }

    /// One request arrived (`exempt`: of priority 0).
    pub(super) fn record(&mut self, exempt: bool) {
        self.current.0 += 1;
        if exempt {
            self.current.1 += 1;
        }
    }

    /// When the bucket being counted ends.
    pub(super) fn next_end(&self) -> Instant {
        self.end
    }

    /// Close the buckets that ended by `now`. Returns the last window's (arrived, exempt)
    /// when a bucket closed, the window is whole, and `now` is within half a bucket of its
    /// end: a window closed late is not to be trusted (a process that stalled has its
    /// requests still in the socket, uncounted).
    pub(super) fn advance(&mut self, now: Instant) -> Option<(u64, u64)> {
        if self.end > now {
            return None;
        }
        let mut closed = 0u32;
        while self.end <= now {
            if closed > BUCKETS_PER_INTERVAL {
                // A long gap: restart the grid at `now`.
                self.closed.clear();
                self.current = (0, 0);
                self.end = now.checked_add(self.len).unwrap_or(now);
                return None;
            }
            self.closed.insert(0, std::mem::take(&mut self.current));
            self.closed.truncate(BUCKETS_PER_WINDOW);
            closed += 1;
            let ended = self.end;
            match self.end.checked_add(self.len) {
                Some(next) => self.end = next,
                None => return None,
            }
            if self.end > now {
                let on_time = now.saturating_duration_since(ended) <= self.len / 2;
                if !on_time || self.closed.len() < BUCKETS_PER_WINDOW {
                    return None;
                }
                let sum = self
                    .closed
                    .iter()
                    .fold((0, 0), |(a, e), (x, y)| (a + x, e + y));
                return Some(sum);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[allow(clippy::disallowed_methods)] // An arbitrary base instant; the module never reads the clock.
    fn base() -> Instant {
        Instant::now()
    }

    #[test]
    fn a_window_is_the_last_two_buckets_closed_on_time() {
        let t0 = base();
        let mut w = FallWindow::new(100 * MS, t0);
        w.record(false);
        assert_eq!(w.advance(t0 + 25 * MS), None, "one bucket is no window");
        w.record(false);
        w.record(true);
        assert_eq!(w.advance(t0 + 50 * MS), Some((3, 1)));
        w.record(false);
        assert_eq!(w.advance(t0 + 60 * MS), None, "no bucket closed");
        assert_eq!(w.advance(t0 + 75 * MS), Some((3, 1)), "2 + 1 arrivals");
        assert_eq!(w.next_end(), t0 + 100 * MS);
    }

    #[test]
    fn a_window_closed_late_or_after_a_gap_is_not_returned() {
        let t0 = base();
        let mut w = FallWindow::new(100 * MS, t0);
        assert_eq!(w.advance(t0 + 50 * MS), Some((0, 0)));
        // 13 ms after the bucket's end: more than half a bucket late.
        assert_eq!(w.advance(t0 + 88 * MS), None);
        // A gap of more than an interval restarts the grid: two buckets before a window.
        assert_eq!(w.advance(t0 + 500 * MS), None);
        assert_eq!(w.next_end(), t0 + 525 * MS);
        assert_eq!(w.advance(t0 + 525 * MS), None);
        assert_eq!(w.advance(t0 + 550 * MS), Some((0, 0)));
    }
}
