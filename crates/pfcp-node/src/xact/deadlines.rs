//! A queue of deadlines in time order, for timers that are armed in that order.
//!
//! Every deadline of the transaction layer is "now + a constant" (T1, the response cache
//! TTL), so with a clock that does not go back each new one is the latest: arming is a
//! `push_back`. Removing a timer that has not fired (a response arrived, a request was
//! answered) is left to the owner's notion of liveness: a stale entry stays until it reaches
//! the front, where [`Deadlines::clean`] drops it, and the whole queue is compacted when
//! stale entries outnumber live ones. This replaced B-trees keyed by `(Instant, id)`, whose
//! searches were the largest single user-space cost of the endpoint on loopback
//! (`docs/benchmarks.md`, pfcp-node).

use std::collections::VecDeque;
use std::time::Instant;

/// Stale entries tolerated beyond the live ones before a compaction (so a small queue is
/// never compacted over and over).
const SLACK: usize = 32;

/// Deadlines with their items, earliest first. See the module docs.
#[derive(Debug)]
pub(super) struct Deadlines<T> {
    items: VecDeque<(Instant, T)>,
}

impl<T: Copy> Deadlines<T> {
    pub(super) fn new() -> Self {
        Deadlines {
            items: VecDeque::new(),
        }
    }

    /// Arm `item` at `at`: O(1) when `at` is not before the latest deadline; otherwise (a
    /// caller whose clock went back) a binary search and a shift keep the order.
    pub(super) fn push(&mut self, at: Instant, item: T) {
        match self.items.back() {
            Some(&(last, _)) if at < last => {
                let i = self.items.partition_point(|&(d, _)| d <= at);
                self.items.insert(i, (at, item));
            }
            _ => self.items.push_back((at, item)),
        }
    }

    /// The earliest entry (which may be stale).
    pub(super) fn first(&self) -> Option<(Instant, T)> {
        self.items.front().copied()
    }

    /// Take the earliest entry.
    pub(super) fn pop_first(&mut self) -> Option<(Instant, T)> {
        self.items.pop_front()
    }

    /// Entries, stale ones included.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    /// Drop the stale entries at the front (those `live` rejects), so that [`Self::first`]
    /// names a live deadline; and drop every stale entry when they are more than the `live_count`
    /// live ones (plus a little slack): the queue never holds more than about twice what is
    /// live, at an amortised O(1) per removal.
    pub(super) fn clean(&mut self, live_count: usize, mut live: impl FnMut(Instant, T) -> bool) {
        while let Some(&(at, item)) = self.items.front() {
            if live(at, item) {
                break;
            }
            self.items.pop_front();
        }
        if self.items.len() > live_count.saturating_mul(2).saturating_add(SLACK) {
            self.items.retain(|&(at, item)| live(at, item));
        }
        // Give back what a burst left (the ring buffer never shrinks by itself), with the
        // same hysteresis.
        let len = self.items.len();
        if self.items.capacity() > len.saturating_mul(4).max(SLACK * 4) {
            self.items.shrink_to(len.saturating_mul(2));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    use pfcp_test_support::clock::origin as t0;

    #[test]
    fn keeps_time_order_even_when_armed_out_of_order() {
        let t = t0();
        let ms = Duration::from_millis;
        let mut d = Deadlines::new();
        d.push(t + ms(10), 1);
        d.push(t + ms(30), 3);
        d.push(t + ms(20), 2);
        d.push(t + ms(20), 4);
        d.push(t + ms(5), 0);
        let order: Vec<u32> = std::iter::from_fn(|| d.pop_first().map(|(_, i)| i)).collect();
        assert_eq!(order, [0, 1, 2, 4, 3]);
    }

    #[test]
    fn stale_entries_are_dropped_at_the_front_and_compacted() {
        let t = t0();
        let mut d = Deadlines::new();
        for i in 0..1000u32 {
            d.push(t + Duration::from_millis(u64::from(i)), i);
        }
        // One item in three lives: the stale front (0) goes, and the queue is compacted.
        d.clean(333, |_, i| i % 3 == 1);
        assert_eq!(d.first().map(|(_, i)| i), Some(1));
        assert_eq!(d.len(), 333);
        // Few stale entries: only the front is cleaned.
        d.clean(331, |_, i| i % 3 == 1 && i != 1 && i != 502);
        assert_eq!(d.first().map(|(_, i)| i), Some(4));
        assert_eq!(d.len(), 332);
    }
}
