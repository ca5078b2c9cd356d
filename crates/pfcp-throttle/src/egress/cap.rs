//! The hard cap at the Max EMR (see the [module docs](super), "Hard cap"): a token bucket
//! whose priority ladder decides *which* requests get the capacity, and a tick-aligned
//! admission window that bounds *how much* they get, exactly.
//!
//! The common decision (a full bucket, the window far from its budget) does no `Instant`
//! arithmetic but one addition, no division and no 128-bit arithmetic: `Instant`
//! subtraction costs more than the rest of a decision, so the bucket keeps an instant at
//! which it is surely full again, and only a decision before it measures the time elapsed.
//! The divisions and the 128-bit arithmetic are left to the window check near the budget and
//! to the updates once per tick and once per boundary change.

use core::time::Duration;
use std::time::Instant;

use super::window::{Counts, WindowSums};

/// Token units per message in the bucket (nanosecond resolution at any rate). `i64` holds
/// `burst * SCALE` for any `u32` burst (at most 4.3e18, below `i64::MAX`, 9.2e18).
const SCALE: i64 = 1_000_000_000;
const NANOS_PER_SEC: u128 = 1_000_000_000;
/// The boundary value while no priority is estimated to exceed the Max EMR.
pub(super) const NO_BOUNDARY: u8 = 16;
/// Upper clamp of the window budget: far beyond any count a window can reach, and low
/// enough that the room arithmetic cannot overflow an `i64`.
const MAX_BUDGET: i64 = 1 << 62;

/// Tokens (in 1/SCALE) a request of priority `q` needs in the bucket under boundary
/// `boundary` (see the module docs, "Hard cap"). In 128 bits, because `spread * q` exceeds
/// `i64` for a burst near `u32::MAX`; it runs only when the boundary changes.
fn tokens_needed(burst: u32, boundary: u8, q: u8) -> i128 {
    let scale = i128::from(SCALE);
    let spread = i128::from(burst.saturating_sub(1)) * scale;
    let q = i128::from(q);
    let b = i128::from(boundary);
    if boundary >= NO_BOUNDARY {
        scale + spread * q / 15
    } else if q < b {
        // The lower quarter, as a ladder: in a cluster of arrivals that drains the
        // bucket, the highest priorities go last.
        scale + spread / 4 * q / b
    } else if q == b {
        scale + spread / 2
    } else {
        // The upper half of the bucket above the boundary's threshold, as a ladder.
        let half = (spread - spread / 2) / 2;
        scale + spread / 2 + half + (spread - spread / 2 - half) * (q - b - 1) / (15 - b).max(1)
    }
}

/// The cap of one throttle.
#[derive(Debug, Clone)]
pub(super) struct Cap {
    /// Bucket in 1/SCALE messages, between -capacity and capacity.
    tokens: i64,
    capacity: i64,
    max_rate: u64,
    burst: u32,
    /// When the bucket was last refilled: the latest time seen, so that time going backwards
    /// adds nothing.
    last_refill: Instant,
    /// An instant at or after which the bucket is surely full: never earlier than
    /// `last_refill`, nor than the exact instant (`last_refill + (capacity - tokens) /
    /// max_rate`), and later than it by at most the rounding of `token_time`, under a
    /// nanosecond per message taken since the bucket was last full. From then on a refill is
    /// the fast path: no time arithmetic, and the same result as the exact one. `None` if
    /// not representable (then every refill is exact until the bucket is full again).
    full_at: Option<Instant>,
    /// The time one token takes to accrue, rounded up: `full_at` moves by this much per
    /// message taken.
    token_time: Duration,
    /// The time the bucket takes from a burst of debt to full, rounded up.
    full_span: Duration,
    /// The boundary priority (0..=15), or [`NO_BOUNDARY`].
    boundary: u8,
    /// Tokens a request of each priority needs under the current boundary: recomputed when
    /// the boundary changes, so a decision does no division.
    needed: [i64; 16],
    /// The most messages one tick-aligned window may admit: `max_rate x window`, rounded
    /// down, at least 1.
    budget: i64,
    /// The room at the start of the current tick: the budget less what the other `n - 1`
    /// ticks of the window ending with this tick admitted. Every tick-aligned window that
    /// contains the current tick and ends later holds a subset of those ticks (the later
    /// ones have admitted nothing yet), so keeping this one within the budget is enough.
    open: i64,
    /// While the current tick has admitted fewer messages than this, the window has at
    /// least a full bucket of places free whatever the reserve, so the bucket alone
    /// decides. The fast path of the window check is this one comparison.
    fast_limit: u32,
    /// The least the window check cuts the bucket to: the boundary priority's step,
    /// `1 + (burst - 1) / 2` tokens.
    keep: i64,
    /// Unthrottled messages (answers, `on_send`) in the last tick: the rate the reserve
    /// expects for the rest of the current tick.
    fixed_last: u64,
    window_ns: u128,
    tick_ns: u64,
}

impl Cap {
    /// A full bucket and an empty window at `now`, the start of the first tick.
    pub(super) fn new(
        max_rate: u32,
        burst: u32,
        window_ns: u128,
        tick_ns: u64,
        now: Instant,
    ) -> Self {
        let capacity = i64::from(burst) * SCALE;
        // Nanoseconds for `units` tokens (in 1/SCALE) to accrue at `max_rate` per second,
        // rounded up (at most 2 x u32::MAX x 1e9 ns: it fits a u64).
        let time_for = |units: u128| {
            let ns = units.div_ceil(u128::from(max_rate.max(1)));
            Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
        };
        let budget = u128::from(max_rate) * window_ns / NANOS_PER_SEC;
        let budget = i64::try_from(budget)
            .unwrap_or(MAX_BUDGET)
            .clamp(1, MAX_BUDGET);
        let mut cap = Cap {
            tokens: capacity,
            capacity,
            max_rate: u64::from(max_rate),
            burst,
            last_refill: now,
            full_at: Some(now),
            token_time: time_for(SCALE.unsigned_abs().into()),
            full_span: time_for(2 * u128::from(capacity.unsigned_abs())),
            boundary: NO_BOUNDARY,
            needed: [0; 16],
            budget,
            open: budget,
            fast_limit: 0,
            keep: SCALE + (capacity - SCALE) / 2,
            fixed_last: 0,
            window_ns,
            tick_ns,
        };
        cap.set_ladder(NO_BOUNDARY);
        cap.update_fast_limit();
        cap
    }

    /// The boundary priority, or [`NO_BOUNDARY`].
    pub(super) fn boundary(&self) -> u8 {
        self.boundary
    }

    /// The bucket's tokens and capacity (in 1/SCALE messages), for the unit tests.
    #[cfg(test)]
    pub(super) fn bucket(&self) -> (i64, i64) {
        (self.tokens, self.capacity)
    }

    /// Adds the tokens accrued up to `now`. Time going backwards adds nothing.
    #[inline]
    pub(super) fn refill(&mut self, now: Instant) {
        if self.full_at.is_some_and(|full| now >= full) {
            // Surely full (and `now >= last_refill`): what the exact refill gives.
            self.tokens = self.capacity;
            self.last_refill = now;
            self.full_at = Some(now);
        } else {
            self.refill_exact(now);
        }
    }

    /// The refill before `full_at`: the time elapsed since the last refill, at `max_rate`.
    #[inline(never)]
    fn refill_exact(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last_refill);
        if elapsed.is_zero() {
            return;
        }
        self.last_refill = now;
        // Saturates far above the capacity, where the `min` cuts anyway.
        let ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let add = i64::try_from(ns.saturating_mul(self.max_rate)).unwrap_or(i64::MAX);
        self.tokens = self.tokens.saturating_add(add).min(self.capacity);
        if self.tokens == self.capacity {
            self.full_at = Some(now);
        }
    }

    /// Takes the token of a message sent. The bucket may go into debt by one burst.
    #[inline]
    pub(super) fn take(&mut self) {
        let tokens = self.tokens - SCALE;
        if tokens >= -self.capacity {
            self.tokens = tokens;
            self.full_at = self.full_at.and_then(|at| at.checked_add(self.token_time));
        } else {
            self.tokens = -self.capacity;
            self.full_at = self.last_refill.checked_add(self.full_span);
        }
    }

    /// Cuts the bucket down to `tokens` (the window check), moving `full_at` accordingly.
    fn cut(&mut self, tokens: i64) {
        if tokens < self.tokens {
            self.tokens = tokens;
            let missing = u128::from(self.capacity.abs_diff(tokens));
            let ns = missing.div_ceil(u128::from(self.max_rate.max(1)));
            let ns = Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX));
            self.full_at = self.last_refill.checked_add(ns);
        }
    }

    /// Whether a request of priority `q` may be sent at `now`, `admitted` messages having been
    /// admitted in the current tick, which ends at `tick_end`: the bucket must hold the tokens
    /// its priority needs, and near the window's budget the window must have as many places
    /// free (see [`Cap::window_admits`]).
    #[inline]
    pub(super) fn admits(&mut self, q: u8, admitted: u32, now: Instant, tick_end: Instant) -> bool {
        // `q & 15` is `q` (a PFCP priority): the mask only lets the compiler drop the
        // bounds check.
        let Some(&needed) = self.needed.get(usize::from(q & 15)) else {
            return false;
        };
        self.tokens >= needed
            && (admitted < self.fast_limit || {
                let left = tick_end.saturating_duration_since(now).as_nanos();
                self.window_admits(needed, admitted, u64::try_from(left).unwrap_or(u64::MAX))
            })
    }

    /// The window check near its budget, `admitted` messages having been admitted in the
    /// current tick and `left` ns remaining of it.
    ///
    /// The free places are those the budget leaves after holding back the reserve for the
    /// unthrottled messages still to come in the tick ([`Cap::reserve`]). A request needs
    /// at least one, so no request overfills the window. Early in the tick it needs more:
    /// as many places as its priority needs tokens, the bucket's ladder applied to the
    /// window, so that its last places are kept for the higher priorities as the bucket's
    /// last tokens are. That step shrinks in proportion to the time left and is one place
    /// at the end of the tick, where a place nobody takes is lost to the window. It applies
    /// only if the tick opened with at least two bursts of room: in a smaller window the
    /// step would keep the last places from the boundary priority too, or, with one place,
    /// from everyone.
    ///
    /// The bucket is also cut down to the free places, though never below the boundary's
    /// step (`keep`), and the cut is kept. Tokens that accrued behind a full window would
    /// otherwise open the next tick with a burst in which any priority passes the ladder,
    /// and the window would go to whoever comes first. Keeping the boundary's step leaves
    /// the bucket's pacing of the boundary and the priorities above it as it was.
    #[inline(never)]
    fn window_admits(&mut self, needed: i64, admitted: u32, left: u64) -> bool {
        let left = left.min(self.tick_ns);
        let free = self
            .open
            .saturating_sub(i64::from(admitted))
            .saturating_sub(self.reserve(left));
        // In tokens (1/SCALE places); `free.max(0)` so the products below are unsigned.
        let free = free.max(0).saturating_mul(SCALE);
        self.cut(free.max(self.keep));
        // `free >= SCALE + (needed - SCALE) * left / tick`, multiplied out (no division).
        // Each side stays below 2^127 (`free` < 2^63, `tick` < 2^64).
        let tick = u128::from(self.tick_ns);
        let ladder = self.open >= 2 * i64::from(self.burst);
        let step = if ladder {
            u128::try_from(needed - SCALE).unwrap_or(0)
        } else {
            0
        };
        let places = u128::from(SCALE.unsigned_abs()) * tick + step * u128::from(left);
        u128::from(free.unsigned_abs()) * tick >= places && self.tokens >= needed
    }

    /// Places held back for the unthrottled messages still to come in the current tick, of
    /// which `left` ns remain: as many as the last tick had, pro rata, rounded up, plus one
    /// while any are expected. Answers are never throttled, so a request admitted into the
    /// last free place would let a later answer push the window over its budget; the one
    /// extra place absorbs an answer that comes earlier than its share.
    fn reserve(&self, left: u64) -> i64 {
        let left = left.min(self.tick_ns);
        let tick = self.tick_ns.max(1);
        let expected = match self.fixed_last.checked_mul(left) {
            Some(p) => u128::from(p.div_ceil(tick)),
            None => (u128::from(self.fixed_last) * u128::from(left)).div_ceil(u128::from(tick)),
        };
        let expected = i64::try_from(expected).unwrap_or(MAX_BUDGET);
        expected.saturating_add(i64::from(expected > 0))
    }

    /// A tick has closed: `sums` are the counts of the window that just ended, `recent` the
    /// messages admitted in its `n - 1` most recent ticks (which the window ending with the
    /// tick now starting shares) and `last` the counts of the tick just closed.
    pub(super) fn on_tick(&mut self, sums: &WindowSums, recent: u64, last: &Counts) {
        let recent = i64::try_from(recent).unwrap_or(MAX_BUDGET);
        self.open = self.budget.saturating_sub(recent);
        // The last tick rather than the window average, so that the reserve follows a
        // change in the answer rate within one tick.
        self.fixed_last = u64::from(last.fixed);
        self.update_boundary(sums);
        self.update_fast_limit();
    }

    /// See `fast_limit`: the window leaves at least `burst` places after the largest
    /// reserve (a whole tick's) while `admitted < open - reserve - burst + 1`.
    fn update_fast_limit(&mut self) {
        let fast = self
            .open
            .saturating_sub(self.reserve(self.tick_ns))
            .saturating_sub(i64::from(self.burst))
            .saturating_add(1);
        self.fast_limit = u32::try_from(fast.max(0)).unwrap_or(u32::MAX);
    }

    /// Fills the Max EMR over the window with the answers and other unthrottled messages
    /// first, then with the request demand of priority 0, 1, ...: the first priority that no
    /// longer fits is the boundary.
    fn update_boundary(&mut self, sums: &WindowSums) {
        let budget = u128::from(self.max_rate) * self.window_ns;
        let mut used = u128::from(sums.fixed) * NANOS_PER_SEC;
        let mut boundary = NO_BOUNDARY;
        for (q, &n) in (0u8..).zip(sums.demand.iter()) {
            used += u128::from(n) * NANOS_PER_SEC;
            if used > budget {
                boundary = q;
                break;
            }
        }
        if boundary != self.boundary {
            self.set_ladder(boundary);
        }
    }

    /// Sets the boundary and the thresholds of its ladder.
    fn set_ladder(&mut self, boundary: u8) {
        self.boundary = boundary;
        let burst = self.burst;
        for (q, needed) in (0u8..).zip(&mut self.needed) {
            // At most `burst * SCALE`: it fits.
            *needed = i64::try_from(tokens_needed(burst, boundary, q)).unwrap_or(i64::MAX);
        }
    }
}
