//! The sliding window of per-tick counts behind the measured rate, the cap's demand estimate
//! and its admission window: one [`Counts`] per completed tick in a ring, their sums kept up
//! to date, and the counts of the tick in progress.

/// Messages counted in one tick.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counts {
    /// Every message (the measured rate).
    pub(super) total: u32,
    /// Answers and messages sent through `on_send`: they take tokens and are never throttled.
    pub(super) fixed: u32,
    /// Messages admitted: requests sent plus every fixed message (the admission window).
    pub(super) admitted: u32,
    /// Requests per priority that reached the cap (passed the level and pending checks).
    pub(super) demand: [u32; 16],
}

/// [`Counts`] summed over the completed ticks of the window.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WindowSums {
    pub(super) total: u64,
    pub(super) fixed: u64,
    pub(super) admitted: u64,
    pub(super) demand: [u64; 16],
}

impl WindowSums {
    /// Replaces the counts `old` of one tick by `new`.
    fn replace(&mut self, old: &Counts, new: &Counts) {
        // `old` was added when it was stored, so each subtraction stays non-negative.
        self.total = self.total - u64::from(old.total) + u64::from(new.total);
        self.fixed = self.fixed - u64::from(old.fixed) + u64::from(new.fixed);
        self.admitted = self.admitted - u64::from(old.admitted) + u64::from(new.admitted);
        for ((sum, &o), &n) in self.demand.iter_mut().zip(&old.demand).zip(&new.demand) {
            *sum = *sum - u64::from(o) + u64::from(n);
        }
    }
}

/// The last `n` completed ticks and the current one.
#[derive(Debug, Clone)]
pub(super) struct Window {
    /// Counts per completed tick, a ring over the window.
    slots: Vec<Counts>,
    /// The oldest slot: the next one to be overwritten.
    cursor: usize,
    /// Counts of the current (incomplete) tick.
    pub(super) current: Counts,
    /// Sums over the ring.
    pub(super) sums: WindowSums,
}

impl Window {
    /// An empty window of `ticks` ticks (at least one).
    pub(super) fn new(ticks: u32) -> Self {
        Window {
            slots: vec![Counts::default(); usize::try_from(ticks.max(1)).unwrap_or(1)],
            cursor: 0,
            current: Counts::default(),
            sums: WindowSums::default(),
        }
    }

    /// Nothing counted in the window nor in the current tick.
    pub(super) fn is_idle(&self) -> bool {
        self.sums.total == 0 && self.current.total == 0
    }

    /// Closes the current tick into the ring, in place of the oldest one. Returns the
    /// messages admitted in the `n - 1` most recent completed ticks (with the tick that now
    /// starts, they make up the next tick-aligned window the admission cap has to keep within
    /// its budget) and the counts of the tick just closed.
    pub(super) fn close_tick(&mut self) -> (u64, Counts) {
        let current = core::mem::take(&mut self.current);
        if let Some(slot) = self.slots.get_mut(self.cursor) {
            self.sums.replace(slot, &current);
            *slot = current;
        }
        self.cursor = (self.cursor + 1) % self.slots.len().max(1);
        // The slot at the cursor is the oldest tick, the one that drops out of the window
        // when the tick now starting closes.
        let oldest = self
            .slots
            .get(self.cursor)
            .map_or(0, |s| u64::from(s.admitted));
        // `oldest` is one of the ticks summed: the difference cannot go below zero.
        (self.sums.admitted.saturating_sub(oldest), current)
    }
}
