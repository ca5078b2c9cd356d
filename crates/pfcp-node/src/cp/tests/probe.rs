//! Probes ([`CpConfig::probe_gap_factor`], [`CpConfig::probe_fall_factor`]): a CP function that the Loss throttle holds to a
//! trickle still sends now and then, and sheds what the OCI asks over a run.

use super::*;

/// At 90 %: a request every millisecond for 3 s, then `offers` requests `gap_ms` apart (the
/// CP's demand fell). The pipeline's counters at the fall, the instants of the requests sent
/// after it, and the counters at the end.
fn run_fall(config: CpConfig, gap_ms: u64, offers: u64) -> (CpStats, Vec<Duration>, CpStats) {
    let t0 = base();
    let mut cp = CpOverloadControl::new(config).unwrap();
    overload_node(&mut cp, &upf(1), 1, 90, t0);
    let dest = Destination::node(upf(1));
    for i in 0..3000u64 {
        let now = t0 + Duration::from_millis(i);
        let _ = cp.decide_for(&dest, SER, &low(), now, i);
    }
    let fall = t0 + Duration::from_secs(3);
    let at_fall = cp.stats();
    let mut sent = Vec::new();
    for k in 0..offers {
        let now = fall + Duration::from_millis(gap_ms * k);
        if cp.decide_for(&dest, SER, &low(), now, k).is_send() {
            sent.push(now - fall);
        }
    }
    (at_fall, sent, cp.stats())
}

/// A hundredfold fall: one request every 100 ms for 60 s.
fn run(config: CpConfig) -> (CpStats, Vec<Duration>, CpStats) {
    run_fall(config, 100, 600)
}

#[test]
fn a_cp_whose_demand_falls_probes_early_and_keeps_the_reduction() {
    // The probes of a long silence alone (those after a fall of demand have their own test).
    let gap_only = CpConfig::default().with_probe_fall_factor(None);
    let (before, with, with_stats) = run(gap_only.clone());
    let (_, without, without_stats) = run(gap_only.with_probe_gap_factor(None));
    // Before the fall the Loss throttle sends every tenth request, one every 10 ms: never 16
    // times that apart, so no probe. After it, it sends every tenth request, one a second:
    // without probes the CP can go a second without hearing from the UP function.
    assert_eq!(before.sent, 300, "{before:?}");
    assert_eq!(before.probes, 0, "{before:?}");
    assert_eq!(without_stats.probes, 0);
    let gaps: Vec<Duration> = without.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        gaps.iter().all(|g| *g == Duration::from_secs(1)),
        "{gaps:?}"
    );
    // With them, a silence of 16 x 10 ms ends at the next request (100 ms apart).
    let first = with.first().copied().unwrap_or_default();
    assert!(
        first <= Duration::from_millis(260),
        "first send {first:?} after the fall"
    );
    assert!(with_stats.probes >= 1, "{with_stats:?}");
    // The moving average of the gaps then follows the new rhythm: few probes, and the
    // reduction over the run is the one asked for (60 of 600 sent, as without probes).
    assert!(with_stats.probes <= 3, "{with_stats:?}");
    assert!((with.len() as i64 - 60).abs() <= 1, "{} sent", with.len());
    assert!(
        (without.len() as i64 - 60).abs() <= 1,
        "{} sent",
        without.len()
    );
}

#[test]
fn a_probe_gap_factor_of_zero_is_refused() {
    let config = CpConfig::default().with_probe_gap_factor(Some(0));
    assert_eq!(
        CpOverloadControl::new(config).err(),
        Some(CpConfigError::ProbeGapFactor)
    );
}

/// A tenfold fall, as in a step from 10x to 1x: one request every 10 ms for 20 s.
fn run_tenfold(config: CpConfig) -> (CpStats, Vec<Duration>, CpStats) {
    run_fall(config, 10, 2000)
}

#[test]
fn a_cp_whose_demand_fell_tenfold_probes_after_two_gaps_and_keeps_the_reduction() {
    let (before, with, with_stats) = run_tenfold(CpConfig::default());
    let (_, without, without_stats) = run_tenfold(CpConfig::default().with_probe_fall_factor(None));
    // Steady offers, one a millisecond: no fall, no probe.
    assert_eq!(before.sent, 300, "{before:?}");
    assert_eq!(before.probes, 0, "{before:?}");
    // Without fall probes the first send after the fall is the throttle's own, a few offers
    // on (where its credit stood), then one every ten offers (100 ms).
    let first_without = without.first().copied().unwrap_or_default();
    assert!(
        first_without >= Duration::from_millis(40),
        "first send {first_without:?} after the fall"
    );
    // With them a silence of two usual gaps (10 ms each, and at least the 20 ms minimum)
    // ends at the next offer.
    let first = with.first().copied().unwrap_or_default();
    assert!(
        first <= Duration::from_millis(30),
        "first send {first:?} after the fall"
    );
    assert_eq!(without_stats.probes, 0, "{without_stats:?}");
    // At most the credit's 6 probes: each is a drop owed, paid back by the next requests.
    assert!((1..=6).contains(&with_stats.probes), "{with_stats:?}");
    // Then the Loss throttle takes them back and the rhythm is its own again: 200 of 2000
    // sent over the run, as without them, one every 100 ms in the last 10 s.
    let late_sends = with
        .iter()
        .filter(|t| **t > Duration::from_secs(10))
        .count();
    assert!((late_sends as i64 - 100).abs() <= 1, "{late_sends}");
    assert!((with.len() as i64 - 200).abs() <= 1, "{} sent", with.len());
    assert!(
        (without.len() as i64 - 200).abs() <= 1,
        "{} sent",
        without.len()
    );
}

#[test]
fn a_probe_fall_factor_below_two_is_refused() {
    for k in [0, 1] {
        let config = CpConfig::default().with_probe_fall_factor(Some(k));
        assert_eq!(
            CpOverloadControl::new(config).err(),
            Some(CpConfigError::ProbeFallFactor)
        );
    }
    assert!(CpOverloadControl::new(CpConfig::default().with_probe_fall_factor(Some(2))).is_ok());
}

/// A CP function of a pool of hundreds: one request a second for 30 s, then, under a
/// metric of 90, a storm of ten a second for 6 s (60 offers: the long average of its gaps
/// still remembers the calm), then one a second again (the storm ended; the UP function's
/// metric has fallen, but the CP hears it only with a response). The instants of the sends
/// after the fall, the counters at the fall and at the end.
fn run_pool_member(config: CpConfig) -> (CpStats, Vec<Duration>, CpStats) {
    let t0 = base();
    let mut cp = CpOverloadControl::new(config).unwrap();
    let dest = Destination::node(upf(1));
    let mut n = 0u64;
    let mut offer = |cp: &mut CpOverloadControl, now: Instant| {
        n += 1;
        cp.decide_for(&dest, SER, &low(), now, n).is_send()
    };
    for i in 0..30u64 {
        offer(&mut cp, t0 + Duration::from_secs(i));
    }
    let storm = t0 + Duration::from_secs(30);
    overload_node(&mut cp, &upf(1), 1, 90, storm);
    for i in 0..60u64 {
        offer(&mut cp, storm + Duration::from_millis(100 * i));
    }
    let fall = storm + Duration::from_secs(6);
    let at_fall = cp.stats();
    let mut sent = Vec::new();
    for k in 0..100u64 {
        let now = fall + Duration::from_secs(k);
        if offer(&mut cp, now) {
            sent.push(now - fall);
        }
    }
    (at_fall, sent, cp.stats())
}

#[test]
fn a_sparse_cp_whose_demand_fell_probes_at_its_next_offer_and_keeps_the_reduction() {
    let (before, with, with_stats) = run_pool_member(CpConfig::default());
    let (_, without, without_stats) =
        run_pool_member(CpConfig::default().with_probe_fall_factor(None));
    // In the storm it sends one request in ten, one a second: no probe (its offers come
    // closer together, not further apart).
    assert_eq!(before.probes, 0, "{before:?}");
    // Without fall probes its first send after the fall is the throttle's own, about ten
    // offers (ten seconds) on: it hears of the end of the overload that late.
    let first_without = without.first().copied().unwrap_or_default();
    assert!(
        first_without >= Duration::from_secs(3),
        "first send {first_without:?} after the fall"
    );
    assert_eq!(without_stats.probes, 0, "{without_stats:?}");
    // With them, its offers as a whole jumped from 100 ms apart to a second: the next offer
    // goes as a probe, the silence since its last send being beyond 400 ms.
    let first = with.first().copied().unwrap_or_default();
    assert!(
        first <= Duration::from_secs(1),
        "first send {first:?} after the fall"
    );
    assert!((1..=6).contains(&with_stats.probes), "{with_stats:?}");
    // The reduction over the run is the one asked for: 10 of 100 sent, as without probes.
    assert!((with.len() as i64 - 10).abs() <= 1, "{} sent", with.len());
    assert!(
        (without.len() as i64 - 10).abs() <= 1,
        "{} sent",
        without.len()
    );
}
