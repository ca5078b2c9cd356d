//! Per-peer ingress rate guard: one flooding source cannot starve the others.
//!
//! A token bucket per source address (rate and burst configurable), in a table bounded in
//! size: when full, buckets idle the longest are dropped first (a dropped bucket starts full
//! again, so the worst a bounded table does is forgive an old burst). Sans-IO: `now` is a
//! parameter.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Configuration of an [`IngressGuard`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct GuardConfig {
    /// Datagrams per second allowed per source. Default 20 000.
    pub rate: f64,
    /// Burst allowance per source, datagrams. Default 2 000.
    pub burst: f64,
    /// Most sources tracked. Default 16 384.
    pub max_sources: usize,
}

impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            rate: 20_000.0,
            burst: 2_000.0,
            max_sources: 16_384,
        }
    }
}

impl GuardConfig {
    /// With `rate` datagrams per second per source.
    #[must_use]
    pub fn with_rate(mut self, rate: f64) -> Self {
        self.rate = rate;
        self
    }
    /// With `burst` datagrams.
    #[must_use]
    pub fn with_burst(mut self, burst: f64) -> Self {
        self.burst = burst;
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
}

/// Token buckets per source.
#[derive(Debug)]
pub struct IngressGuard {
    config: GuardConfig,
    /// Keyed by addresses a peer chooses: a seeded fast hasher (foldhash), not SipHash (the
    /// lookup runs for every datagram) and not an unseeded one (collision flooding).
    buckets: HashMap<SocketAddr, Bucket, foldhash::fast::RandomState>,
    dropped: u64,
}

impl IngressGuard {
    /// A guard with `config`.
    pub fn new(config: GuardConfig) -> Self {
        IngressGuard {
            config,
            buckets: HashMap::default(),
            dropped: 0,
        }
    }

    /// Whether a datagram from `source` at `now` may be processed.
    pub fn admit(&mut self, source: SocketAddr, now: Instant) -> bool {
        if !self.buckets.contains_key(&source) && self.buckets.len() >= self.config.max_sources {
            self.evict_idle();
        }
        let burst = self.config.burst.max(1.0);
        let b = self.buckets.entry(source).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.config.rate).min(burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            self.dropped += 1;
            metrics::counter!("pfcp_ingress_dropped_total").increment(1);
            false
        }
    }

    /// Datagrams refused so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
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

    /// Time after which an idle bucket is full again (nothing lost by dropping it).
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
        let admitted = (0..1000).filter(|_| g.admit(flood, now)).count();
        assert_eq!(admitted, 10);
        assert!(g.admit(quiet, now));
        // One second later the flooder gets its rate back (100/s, capped at the burst).
        let later = now + Duration::from_secs(1);
        let admitted = (0..1000).filter(|_| g.admit(flood, later)).count();
        assert_eq!(admitted, 10);
        assert_eq!(g.dropped(), 1980);
    }

    #[test]
    fn bounded_table() {
        let mut g = IngressGuard::new(GuardConfig::default().with_max_sources(16));
        let now = t0();
        for i in 0..1000u16 {
            let a = SocketAddr::from(([10, 0, (i >> 8) as u8, i as u8], 8805));
            assert!(g.admit(a, now + Duration::from_millis(u64::from(i))));
            assert!(g.len() <= 16);
        }
    }
}
