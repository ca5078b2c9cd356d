//! The clock of the egress throttle: the ticks that close the per-tick counts into the
//! window, recompute the measured rate and move the congestion level (module docs,
//! "Congestion levels" and "Time").

use core::time::Duration;
use std::time::Instant;

use super::{EgressThrottle, NANOS_PER_SEC};

impl EgressThrottle {
    /// Processes every tick up to `now`. Once the window is empty and a zero rate has been
    /// seen, every following tick sees the same zero rate. Such ticks are skipped, up to the
    /// next instant the level can fall (its abatement timer, which the first zero tick
    /// started) or up to `now`. That gives the same levels and counters as processing
    /// every tick, at a cost of about one window plus two ticks per level.
    #[cold]
    #[inline(never)]
    pub(super) fn advance(&mut self, now: Instant) {
        let t = self.clock(now);
        while self.ticking && self.next_tick <= t {
            if self.window.is_idle() && self.last_zero {
                let limit = match usize::from(self.level).checked_sub(1) {
                    None => t,
                    Some(index) => match self.below_since.get(index).copied().flatten() {
                        // An abatement time that ends past what the clock counts never runs
                        // out: the level cannot fall, skip to `t` (fuzz-found: this used to
                        // fall back to one tick at a time, a hang on a long gap).
                        Some(since) => self
                            .abatement_ns
                            .and_then(|a| since.checked_add(a))
                            .map_or(t, |end| end.min(t)),
                        None => self.next_tick,
                    },
                };
                // `tick_ns > 0` (validated); the skip ends at or before `limit <= t`.
                let behind = limit.saturating_sub(self.next_tick) / self.tick_ns.max(1);
                if behind > 0 {
                    self.next_tick += behind * self.tick_ns;
                    self.stats.ticks += behind;
                }
            }
            let at = self.next_tick;
            self.tick(at);
            let next = at.checked_add(self.tick_ns).and_then(|ns| {
                let instant = self.origin.checked_add(Duration::from_nanos(ns))?;
                Some((ns, instant))
            });
            match next {
                Some((ns, instant)) => {
                    self.next_tick = ns;
                    self.next_tick_at = instant;
                }
                None => self.ticking = false,
            }
        }
    }

    /// One tick at time `at`: close the current tick's counts into the window, then
    /// recompute the level and the cap.
    fn tick(&mut self, at: u64) {
        self.stats.ticks += 1;
        let (recent, last) = self.window.close_tick();
        self.last_zero = self.window.sums.total == 0;
        self.update_level(at);
        self.cap.on_tick(&self.window.sums, recent, &last);
    }

    /// Whether the measured rate is at least `percent` % of the Max EMR (exact integers:
    /// `sum / window >= percent / 100 * max_rate`).
    fn rate_at_least(&self, percent: u8) -> bool {
        u128::from(self.window.sums.total) * 100 * NANOS_PER_SEC
            >= u128::from(percent) * u128::from(self.config.max_rate) * self.window_ns
    }

    fn update_level(&mut self, at: u64) {
        let mut up = 0u8;
        let mut below = [false; 3];
        for ((level, pair), b) in (1u8..).zip(self.config.thresholds).zip(below.iter_mut()) {
            if let Some(pair) = pair {
                if self.rate_at_least(pair.throttle) {
                    up = level;
                }
                *b = !self.rate_at_least(pair.abatement);
            }
        }
        for (since, b) in self.below_since.iter_mut().zip(below) {
            if b {
                since.get_or_insert(at);
            } else {
                *since = None;
            }
        }
        let before = self.level;
        if up > self.level {
            self.level = up;
        } else {
            while let Some(index) = usize::from(self.level).checked_sub(1) {
                let expired = self
                    .below_since
                    .get(index)
                    .copied()
                    .flatten()
                    .zip(self.abatement_ns)
                    .is_some_and(|(since, a)| at.saturating_sub(since) >= a);
                if !expired {
                    break;
                }
                self.level -= 1;
            }
        }
        if self.level != before {
            self.stats.level_changes += 1;
            self.level_cut = usize::from(self.level)
                .checked_sub(1)
                .and_then(|i| self.config.level_cutoff.get(i))
                .map_or(15, |cut| cut.value());
        }
    }
}
