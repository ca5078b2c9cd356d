//! Virtual time: one real [`Instant`] as the origin, everything else offsets from it.

use std::time::{Duration, Instant};

/// An arbitrary base instant for tests: the only clock read of a test, whose value nothing
/// depends on (the code under test never reads the clock; clippy forbids `Instant::now`
/// workspace-wide).
#[allow(clippy::disallowed_methods)]
pub fn origin() -> Instant {
    Instant::now()
}

/// A clock that moves only when told: an origin and the current instant.
#[derive(Debug, Clone, Copy)]
pub struct VirtualClock {
    origin: Instant,
    now: Instant,
}

impl Default for VirtualClock {
    fn default() -> Self {
        VirtualClock::new()
    }
}

impl VirtualClock {
    /// A clock at its origin ([`origin`]).
    pub fn new() -> Self {
        let origin = origin();
        VirtualClock {
            origin,
            now: origin,
        }
    }

    /// The instant it started at.
    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// The current instant.
    pub fn now(&self) -> Instant {
        self.now
    }

    /// The instant `d` after the origin (the clock does not move).
    pub fn at(&self, d: Duration) -> Instant {
        self.origin + d
    }

    /// Time since the origin.
    pub fn elapsed(&self) -> Duration {
        self.now.duration_since(self.origin)
    }

    /// Move on by `d`; returns the new instant.
    pub fn advance(&mut self, d: Duration) -> Instant {
        self.now += d;
        self.now
    }

    /// Move to `t` if it is later; returns the current instant.
    pub fn advance_to(&mut self, t: Instant) -> Instant {
        self.now = self.now.max(t);
        self.now
    }
}
