//! Per-source ingress rate guard: one flooding source cannot starve the others.
//!
//! A token bucket per source address, in a table bounded in size: when full, buckets idle the
//! longest are dropped first (a dropped bucket starts full again, so the worst a bounded table
//! does is forgive an old burst). Sans-IO: `now` is a parameter.
//!
//! Two limits, because a drop here is silent (the datagram is never read, so it cannot be
//! ranked or answered):
//!
//! * **Unassociated sources** ([`GuardConfig::rate`], [`GuardConfig::burst`]): anyone can send
//!   from any address; only Heartbeat and Association Setup have any business arriving from
//!   them.
//! * **Associated peers** ([`GuardConfig::associated_rate`]): their requests are ranked by
//!   priority and refused with a response by the UP's admission (clause 6.2.4.5.1), which must
//!   see them. Only a flood far beyond what the node can serve is dropped unread. `None`: no
//!   limit (the [`Node`](crate::node::Node) derives one from the admission's service rate).
//!
//! Drops are counted in total and per source ([`IngressGuard::dropped_from`]).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Configuration of an [`IngressGuard`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct GuardConfig {
    /// Datagrams per second allowed per unassociated source. Default 20 000.
    pub rate: f64,
    /// Burst allowance per unassociated source, datagrams. Default 2 000.
    pub burst: f64,
    /// Datagrams per second allowed per associated peer; `None`: no limit (the default; a
    /// [`Node`](crate::node::Node) with a UP service rate sets 1000 times that rate, at least
    /// 50 times [`GuardConfig::rate`]). The burst allowance is a tenth of a second of it.
    pub associated_rate: Option<f64>,
    /// Most sources tracked. Default 16 384.
    pub max_sources: usize,
}

impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            rate: 20_000.0,
            burst: 2_000.0,
            associated_rate: None,
            max_sources: 16_384,
        }
    }
}

impl GuardConfig {
    /// With `rate` datagrams per second per unassociated source.
    #[must_use]
    pub fn with_rate(mut self, rate: f64) -> Self {
        self.rate = rate;
        self
    }
    /// With `burst` datagrams per unassociated source.
    #[must_use]
    pub fn with_burst(mut self, burst: f64) -> Self {
        self.burst = burst;
        self
    }
    /// With `rate` datagrams per second per associated peer (`None`: unlimited).
    #[must_use]
    pub fn with_associated_rate(mut self, rate: Option<f64>) -> Self {
        self.associated_rate = rate;
        self
    }
    /// With at most `max_sources` tracked.
    #[must_use]
    pub fn with_max_sources(mut self, max_sources: usize) -> Self {
        self.max_sources = max_sources;
        self
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
    dropped: u64,
}

/// Token buckets per source.
///
/// # Examples
///
/// ```
/// use std::time::{Duration, Instant};
/// use pfcp_node::{GuardConfig, IngressGuard};
///
/// let mut guard = IngressGuard::new(GuardConfig::default().with_rate(100.0).with_burst(10.0));
/// let flood = "198.51.100.7:8805".parse()?;
/// let now = Instant::now();
/// // An unassociated source gets its burst, then nothing until its bucket refills ...
/// assert_eq!((0..50).filter(|_| guard.admit(flood, false, now)).count(), 10);
/// assert_eq!(guard.dropped_from(&flood), 40);
/// // ... and does not starve another source.
/// assert!(guard.admit("192.0.2.10:8805".parse()?, false, now));
/// // A second later its bucket is full again: the burst, no more.
/// let later = now + Duration::from_secs(1);
/// assert_eq!((0..50).filter(|_| guard.admit(flood, false, later)).count(), 10);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct IngressGuard {
    config: GuardConfig,
    /// Keyed by addresses a peer chooses: a seeded fast hasher (foldhash), not SipHash (the
    /// lookup runs for every datagram) and not an unseeded one (collision flooding).
    buckets: HashMap<SocketAddr, Bucket, foldhash::fast::RandomState>,
    dropped: u64,
    dropped_associated: u64,
}

impl IngressGuard {
    /// A guard with `config`.
    pub fn new(config: GuardConfig) -> Self {
        IngressGuard {
            config,
            buckets: HashMap::default(),
            dropped: 0,
            dropped_associated: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &GuardConfig {
        &self.config
    }

    /// Whether a datagram from `source` at `now` may be processed; `associated`: the source is
    /// an associated peer (the higher limit applies).
    pub fn admit(&mut self, source: SocketAddr, associated: bool, now: Instant) -> bool {
        let (rate, burst) = if associated {
            match self.config.associated_rate {
                Some(r) => (r, (r / 10.0).max(self.config.burst)),
                None => return true,
            }
        } else {
            (self.config.rate, self.config.burst)
        };
        if !self.buckets.contains_key(&source) && self.buckets.len() >= self.config.max_sources {
            self.evict_idle();
        }
        let burst = burst.max(1.0);
        let b = self.buckets.entry(source).or_insert(Bucket {
            tokens: burst,
            at: now,
            dropped: 0,
        });
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * rate).min(burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            b.dropped += 1;
            self.dropped += 1;
            if associated {
                self.dropped_associated += 1;
            }
            false
        }
    }

    /// Datagrams refused so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Of [`IngressGuard::dropped`], those from associated peers.
    pub fn dropped_associated(&self) -> u64 {
        self.dropped_associated
    }

    /// Datagrams refused from `source` (while its bucket is tracked).
    pub fn dropped_from(&self, source: &SocketAddr) -> u64 {
        self.buckets.get(source).map_or(0, |b| b.dropped)
    }

    /// The sources with drops, most drops first (at most `n`).
    pub fn top_dropped(&self, n: usize) -> Vec<(SocketAddr, u64)> {
        let mut v: Vec<(SocketAddr, u64)> = self
            .buckets
            .iter()
            .filter(|(_, b)| b.dropped > 0)
            .map(|(a, b)| (*a, b.dropped))
            .collect();
        v.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }

    /// Sources tracked.
    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    /// Whether no source is tracked.
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }

    fn evict_idle(&mut self) {
        // Drop the eighth of the table idle the longest: amortised O(1) per insertion.
        let n = (self.buckets.len() / 8).max(1);
        let mut ages: Vec<(Instant, SocketAddr)> =
            self.buckets.iter().map(|(a, b)| (b.at, *a)).collect();
        ages.sort_unstable();
        for (_, a) in ages.into_iter().take(n) {
            self.buckets.remove(&a);
        }
    }

    /// Time after which an idle unassociated bucket is full again (nothing lost by dropping
    /// it).
    pub fn refill_time(&self) -> Duration {
        Duration::from_secs_f64(self.config.burst.max(1.0) / self.config.rate.max(1e-9))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::disallowed_methods)] // Tests need a base instant.
    fn t0() -> Instant {
        Instant::now()
    }

    #[test]
    fn a_flooding_source_is_limited_and_others_are_not() {
        let mut g = IngressGuard::new(GuardConfig::default().with_rate(100.0).with_burst(10.0));
        let now = t0();
        let flood: SocketAddr = "10.0.0.1:8805".parse().unwrap();
        let quiet: SocketAddr = "10.0.0.2:8805".parse().unwrap();
        let admitted = (0..1000).filter(|_| g.admit(flood, false, now)).count();
        assert_eq!(admitted, 10);
        assert!(g.admit(quiet, false, now));
        // One second later the flooder gets its rate back (100/s, capped at the burst).
        let later = now + Duration::from_secs(1);
        let admitted = (0..1000).filter(|_| g.admit(flood, false, later)).count();
        assert_eq!(admitted, 10);
        assert_eq!(g.dropped(), 1980);
        assert_eq!(g.dropped_from(&flood), 1980);
        assert_eq!(g.dropped_from(&quiet), 0);
        assert_eq!(g.top_dropped(4), vec![(flood, 1980)]);
    }

    #[test]
    fn associated_peers_get_the_flood_limit_only() {
        let config = GuardConfig::default()
            .with_rate(100.0)
            .with_burst(10.0)
            .with_associated_rate(Some(10_000.0));
        let mut g = IngressGuard::new(config);
        let now = t0();
        let cp: SocketAddr = "10.0.0.1:8805".parse().unwrap();
        // A burst of 1000 fits the associated burst (a tenth of a second at 10 000/s).
        assert_eq!((0..1000).filter(|_| g.admit(cp, true, now)).count(), 1000);
        // A flood beyond it is cut.
        assert_eq!((0..5000).filter(|_| g.admit(cp, true, now)).count(), 0);
        // Unlimited without an associated rate.
        let mut open = IngressGuard::new(GuardConfig::default().with_rate(1.0).with_burst(1.0));
        assert!((0..100_000).all(|_| open.admit(cp, true, now)));
        assert!(!(0..2).all(|_| open.admit(cp, false, now)));
    }

    #[test]
    fn bounded_table() {
        let mut g = IngressGuard::new(GuardConfig::default().with_max_sources(16));
        let now = t0();
        for i in 0..1000u16 {
            let a = SocketAddr::from(([10, 0, (i >> 8) as u8, i as u8], 8805));
            assert!(g.admit(a, false, now + Duration::from_millis(u64::from(i))));
            assert!(g.len() <= 16);
        }
    }
}
