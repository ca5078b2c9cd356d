//! Priority 0's wait: a burst that fits waits, overload does not, a backlog is served newest
//! first ([`AdmissionConfig::top_priority_max_wait`]).

use super::*;

/// Priority-0 requests offered at `per_ms` per millisecond from `from_ms` to `to_ms` (plus
/// `burst` at `from_ms`) and served by the model at 1000/s, polled every millisecond: the
/// requests refused for their wait (at the offer, for the wait ahead of them, or expired
/// after it), and the longest wait of one served.
struct TopRun {
    t0: Instant,
    seq: u32,
    offered_at: std::collections::HashMap<u32, Instant>,
}

impl TopRun {
    /// A default admission serving 1000 requests/s (100 per control interval), and a run.
    fn at_1000_per_sec() -> (UpAdmission, TopRun) {
        let t0 = base();
        let up = admission(config().with_service_rate(Some(1000.0)), t0);
        let run = TopRun {
            t0,
            seq: 0,
            offered_at: Default::default(),
        };
        (up, run)
    }

    fn run(
        &mut self,
        up: &mut UpAdmission,
        from_ms: u32,
        to_ms: u32,
        per_ms: f64,
        burst: u32,
    ) -> (u32, Duration) {
        let (mut credit, mut expired, mut max_wait) = (0.0, 0u32, Duration::ZERO);
        let mut burst_left = burst;
        for ms in from_ms..to_ms {
            let now = self.t0 + ms * MS;
            credit += per_ms;
            while credit >= 1.0 || burst_left > 0 {
                if burst_left > 0 {
                    burst_left -= 1;
                } else {
                    credit -= 1.0;
                }
                self.seq += 1;
                self.offered_at.insert(self.seq, now);
                if let Admit::Rejected { .. } = up.offer(modification(self.seq, 0), now) {
                    expired += 1;
                }
            }
            up.handle_timeout(now);
            while up.poll_expired().is_some() {
                expired += 1;
            }
            while let Some(r) = up.poll_ready(now) {
                max_wait = max_wait.max(now - self.offered_at[&r.sequence.value()]);
            }
            while up.poll_expired().is_some() {
                expired += 1;
            }
        }
        (expired, max_wait)
    }
}

/// A burst of priority 0 that the UP function clears within a control interval waits for it
/// (90 requests at 1000/s: 90 ms); of a larger one (150), what would wait beyond 15 ms is
/// refused: more than an interval's capacity at once is no burst that fits.
#[test]
fn priority_0_waits_long_only_for_a_burst_that_fits_in_an_interval() {
    let (mut up, mut r) = TopRun::at_1000_per_sec();
    let (expired, waited) = r.run(&mut up, 0, 1000, 0.0, 90);
    assert_eq!(expired, 0);
    assert!(waited >= 85 * MS && waited <= 91 * MS, "{waited:?}");
    let (expired, waited) = r.run(&mut up, 1000, 2000, 0.0, 150);
    assert!(waited <= 16 * MS, "{waited:?}");
    assert!((130..=136).contains(&expired), "{expired}");
}

/// The burst window is 100 ms whatever the control interval: at 200 ms a burst of 150 at
/// 1000/s is still more than the UP function serves in 100 ms, and what would wait beyond
/// 15 ms is refused (weighed against the interval's 200 it waited 150 ms); a burst of 90 still
/// waits for it.
#[test]
fn the_burst_window_is_100_ms_at_any_interval() {
    let t0 = base();
    let mut up = admission(
        AdmissionConfig::new(up_node())
            .with_reporter(AdmissionConfig::default_reporter().with_interval(200 * MS))
            .with_service_rate(Some(1000.0)),
        t0,
    );
    let mut r = TopRun {
        t0,
        seq: 0,
        offered_at: Default::default(),
    };
    let (expired, waited) = r.run(&mut up, 0, 1000, 0.0, 150);
    assert!(waited <= 16 * MS, "{waited:?}");
    assert!((130..=136).contains(&expired), "{expired}");
    let (expired, waited) = r.run(&mut up, 1000, 2000, 0.0, 90);
    assert_eq!(expired, 0);
    assert!(waited >= 85 * MS && waited <= 91 * MS, "{waited:?}");
}

/// Priority 0 beyond the capacity (1.5 per ms at 1000/s) is no burst: once more of it has
/// come within an interval's length than the UP serves in one (after 67 ms), its surplus is
/// refused after 15 ms rather than waiting 200. Until then the backlog grows by half a
/// request per ms: waits of up to a third of an interval.
#[test]
fn priority_0_beyond_the_capacity_waits_no_longer_than_the_rest() {
    let (mut up, mut r) = TopRun::at_1000_per_sec();
    let (_, waited) = r.run(&mut up, 0, 100, 1.5, 0);
    assert!(waited >= 15 * MS && waited <= 34 * MS, "{waited:?}");
    let (expired, waited) = r.run(&mut up, 100, 1000, 1.5, 0);
    assert!(expired > 400, "{expired}");
    assert!(waited <= 16 * MS, "{waited:?}");
}

/// In a backlog of priority 0 beyond the others' bound (a burst that fits), the newest
/// request is taken up first: it waits a service time, not the burst, while the burst is still
/// served in full. A storm's first moment then adds no tail to the latency of what is served.
#[test]
fn a_priority_0_backlog_serves_its_newest_first() {
    let (mut up, mut r) = TopRun::at_1000_per_sec();
    let t0 = r.t0;
    let (expired, _) = r.run(&mut up, 0, 30, 0.0, 60);
    assert_eq!(expired, 0);
    let late = 9_999;
    let _ = up.offer(modification(late, 0), t0 + 30 * MS);
    let mut served_late = None;
    let mut served = 0;
    for ms in 30..200 {
        let now = t0 + ms * MS;
        up.handle_timeout(now);
        while let Some(q) = up.poll_ready(now) {
            served += 1;
            if q.sequence.value() == late {
                served_late = Some(ms);
            }
        }
        assert!(
            up.poll_expired().is_none(),
            "a burst that fits is not refused"
        );
    }
    assert!(
        served_late.is_some_and(|ms| ms <= 31),
        "the newest waits a service time at most: {served_late:?}"
    );
    assert_eq!(served + 30, 61, "the whole burst is served");
}

/// A cluster of priority 0 that crosses the window's capacity while its backlog stays short
/// (0.8 per ms, and 28 at once: 108 within an interval's length, 28 ms of work queued) is a
/// burst: it is served in full, though some of it waits longer than the others may. On
/// loopback, 16 CP functions' emergency sessions came in such clusters at 0.65 of the
/// capacity, and the window alone refused requests that had waited 15.2 ms.
#[test]
fn a_short_backlog_of_priority_0_is_served_though_the_window_crossed_the_capacity() {
    let (mut up, mut r) = TopRun::at_1000_per_sec();
    let (expired, _) = r.run(&mut up, 0, 300, 0.8, 0);
    assert_eq!(expired, 0);
    let (expired, waited) = r.run(&mut up, 300, 1000, 0.8, 28);
    assert_eq!(expired, 0, "a backlog of 28 ms of work is no surplus");
    assert!(
        waited > 15 * MS,
        "some waited beyond the others' bound: {waited:?}"
    );
    assert!(up.is_empty());
}

/// Near the capacity (0.95 per ms, smoothed over intervals) a cluster is no such burst: the
/// window decides, and what would wait beyond the others' bound is refused.
#[test]
fn near_the_capacity_a_cluster_of_priority_0_is_held_to_the_others_bound() {
    let (mut up, mut r) = TopRun::at_1000_per_sec();
    let (expired, _) = r.run(&mut up, 0, 2000, 0.95, 0);
    assert_eq!(expired, 0);
    let (expired, waited) = r.run(&mut up, 2000, 2020, 0.95, 20);
    assert!(expired > 0, "the cluster's tail is refused");
    assert!(waited <= 16 * MS, "{waited:?}");
}

/// Priority 0 above the capacity on average (Poisson arrivals at 1.2 per ms, a fixed seed,
/// as the CPs send it at 10x): its surplus is refused, and nothing served waits much beyond
/// the others' bound, though the window of its arrivals fits now and then.
#[test]
fn priority_0_above_the_capacity_on_average_is_held_to_the_others_bound() {
    let (mut up, mut r) = TopRun::at_1000_per_sec();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut uniform = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut expired, mut waited) = (0, Duration::ZERO);
    for ms in 0..5000 {
        // Poisson(1.2) by inversion.
        let (mut k, mut p, u) = (0, (-1.2f64).exp(), uniform());
        let mut cdf = p;
        while u > cdf && k < 20 {
            k += 1;
            p *= 1.2 / f64::from(k);
            cdf += p;
        }
        let (e, w) = r.run(&mut up, ms, ms + 1, 0.0, k);
        if ms >= 1000 {
            expired += e;
            waited = waited.max(w);
        }
    }
    // 4 s offer about 4 800 against 4 000 served: the surplus is refused.
    assert!((700..=1000).contains(&expired), "{expired}");
    assert!(waited <= 16 * MS, "{waited:?}");
}

/// The first moment of a storm from idle (priority 0 at 1.2 per ms) is no cluster, though
/// its smoothed arrivals still lag from before and its backlog is short (20 requests at
/// 100 ms): once more than 1.1 of the capacity has come within an interval's length, what
/// would wait beyond the others' bound is refused. Taken for a cluster, its backlog was served
/// newest first, and in `pfcp sim` at 10x the oldest 50-120 ms late.
#[test]
fn a_storm_s_first_moment_above_the_capacity_is_no_cluster() {
    let (mut up, mut r) = TopRun::at_1000_per_sec();
    let (expired, waited) = r.run(&mut up, 0, 140, 1.2, 0);
    assert!(expired > 0, "the backlog's oldest are refused");
    assert!(waited <= 16 * MS, "{waited:?}");
}
