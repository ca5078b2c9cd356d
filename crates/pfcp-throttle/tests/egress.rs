//! Egress throttle (PCEMT style) through the public API: admitted rate under overload
//! (perf-anchors S5 targets) in every tick-aligned window, limit mode by priority, and
//! property tests of the configuration checks, the level hysteresis, the cap's bucket and its
//! admission window.

use std::time::Duration;

use pfcp_throttle::egress::{
    EgressConfig, EgressConfigError, EgressDecision, EgressThrottle, MessageKind, ThresholdPair,
    ThrottleReason,
};
use pfcp_wire::MessagePriority;
use proptest::prelude::*;

use pfcp_test_support::clock::origin as t0;
use pfcp_test_support::rng::XorShift;

fn p(v: u8) -> MessagePriority {
    MessagePriority::new(v).unwrap()
}

/// Interarrival in ns for `rate` msg/s, uniformly jittered by +-50 %.
fn gap(rng: &mut XorShift, rate: f64) -> u64 {
    (1e9 / rate * (0.5 + rng.unit())) as u64
}

struct Outcome {
    /// Messages admitted (answers plus requests sent) in the measurement interval.
    admitted: u64,
    /// Admitted per 100 ms bin of the measurement interval (tick aligned).
    bins: Vec<u64>,
    /// Per second of the measurement interval: admitted, priority-0 requests offered, sent.
    seconds: Vec<[u64; 3]>,
    /// Requests offered and sent per priority in the measurement interval.
    offered: [u64; 16],
    sent: [u64; 16],
    level_changes: u64,
    level: u8,
}

/// One connection, `secs` seconds of requests at `request_factor` x Max EMR with priorities
/// from `mix`, plus answers at `answer_factor` x Max EMR, all with jittered arrivals. The
/// admitted rate is measured after a warm-up of `warm` seconds.
fn simulate(
    config: EgressConfig,
    request_factor: f64,
    answer_factor: f64,
    warm: u64,
    secs: u64,
    mix: impl FnMut(&mut XorShift) -> u8,
) -> Outcome {
    simulate_profile(config, |_| request_factor, answer_factor, warm, secs, mix)
}

/// [`simulate`] with a request factor that depends on the time (ns since the start).
fn simulate_profile(
    config: EgressConfig,
    request_factor: impl Fn(u64) -> f64,
    answer_factor: f64,
    warm: u64,
    secs: u64,
    mut mix: impl FnMut(&mut XorShift) -> u8,
) -> Outcome {
    let base = t0();
    let max = f64::from(config.max_rate);
    let mut t = EgressThrottle::new(config, base).unwrap();
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let end = (warm + secs) * 1_000_000_000;
    let warm_ns = warm * 1_000_000_000;
    let mut next_req = gap(&mut rng, max * request_factor(0));
    let mut next_ans = if answer_factor > 0.0 {
        gap(&mut rng, max * answer_factor)
    } else {
        u64::MAX
    };
    let mut out = Outcome {
        admitted: 0,
        bins: vec![0; (secs * 10) as usize],
        seconds: vec![[0; 3]; secs as usize],
        offered: [0; 16],
        sent: [0; 16],
        level_changes: 0,
        level: 0,
    };
    loop {
        let now_ns = next_req.min(next_ans);
        if now_ns >= end {
            break;
        }
        let now = base + Duration::from_nanos(now_ns);
        let sent = if next_ans <= next_req {
            next_ans += gap(&mut rng, max * answer_factor);
            let d = t.decide(MessageKind::Answer, p(0), now);
            assert!(d.is_send());
            true
        } else {
            next_req += gap(&mut rng, max * request_factor(now_ns));
            let prio = mix(&mut rng);
            let measured = now_ns >= warm_ns;
            let second = ((now_ns.saturating_sub(warm_ns)) / 1_000_000_000) as usize;
            if measured {
                out.offered[usize::from(prio)] += 1;
                if prio == 0 {
                    out.seconds[second][1] += 1;
                }
            }
            let d = t.decide(MessageKind::Request, p(prio), now);
            if d.is_send() {
                if measured {
                    out.sent[usize::from(prio)] += 1;
                    if prio == 0 {
                        out.seconds[second][2] += 1;
                    }
                }
                // Transactions end at once (no pending limit configured anyway).
                t.on_transaction_end();
            }
            d.is_send()
        };
        if sent && now_ns >= warm_ns {
            out.admitted += 1;
            out.bins[((now_ns - warm_ns) / 100_000_000) as usize] += 1;
            out.seconds[((now_ns - warm_ns) / 1_000_000_000) as usize][0] += 1;
        }
    }
    out.level_changes = t.stats().level_changes;
    out.level = t.level();
    out
}

/// The least and the most messages admitted in any tick-aligned window of `n` ticks of the
/// measurement interval (the bins are the ticks).
fn window_range(bins: &[u64], n: usize) -> (u64, u64) {
    let sums: Vec<u64> = bins.windows(n).map(|w| w.iter().sum()).collect();
    (
        sums.iter().copied().min().unwrap_or(0),
        sums.iter().copied().max().unwrap_or(0),
    )
}

fn uniform(rng: &mut XorShift) -> u8 {
    (rng.next() >> 60) as u8
}

/// The S5 mix: DSR priorities 0..=4 at 40/30/20/5/5 %, DSR 4 the highest. In PFCP terms
/// (0 highest) DSR x is priority `(4 - x) * 3`: 12, 9, 6, 3, 0.
fn s5_mix(rng: &mut XorShift) -> u8 {
    match rng.next() % 100 {
        0..=39 => 12,
        40..=69 => 9,
        70..=89 => 6,
        90..=94 => 3,
        _ => 0,
    }
}

/// Share of the admitted requests that the ideal would have given to a higher priority: fill
/// the same number of admitted requests from priority 0 down and count what went elsewhere.
/// 0 means strict priority order (no inversion).
fn misplaced(o: &Outcome) -> f64 {
    let admitted: u64 = o.sent.iter().sum();
    let mut left = admitted;
    let mut extra = 0;
    for (&offered, &sent) in o.offered.iter().zip(&o.sent) {
        let ideal = offered.min(left);
        left -= ideal;
        extra += sent.saturating_sub(ideal);
    }
    extra as f64 / admitted.max(1) as f64
}

fn success(o: &Outcome, v: usize) -> f64 {
    o.sent[v] as f64 / o.offered[v].max(1) as f64
}

#[test]
fn s5_admitted_rate_stays_at_the_max_emr_under_overload() {
    // Default configuration (TT-1 100 %, AT-1 80 %, level 1 throttles 12..=15, burst 16,
    // convergence time 1 s), Max EMR 1000/s, requests of uniform priority plus answers at 20 %
    // of the Max EMR that the cap must leave room for. 60 s measured after a 2 s warm-up.
    let config = EgressConfig::new(1000);
    for factor in [1.5, 3.0, 10.0] {
        let o = simulate(config, factor, 0.2, 2, 60, uniform);
        let ratio = o.admitted as f64 / (1000.0 * 60.0);
        let (min_bin, max_bin) = window_range(&o.bins, 1);
        // Every tick-aligned window of one convergence time (10 ticks).
        let (min_window, max_window) = window_range(&o.bins, 10);
        let per_priority: Vec<String> = (0..12).map(|v| format!("{:.2}", success(&o, v))).collect();
        println!(
            "{factor}x: admitted {:.3} % of Max EMR over 60 s; per 1 s window (tick-aligned) \
             {min_window}..{max_window} (budget 1000); per 100 ms tick {min_bin}..{max_bin}; \
             level {} ({} changes); misplaced {:.2} %; success p0..p11 {}",
            ratio * 100.0,
            o.level,
            o.level_changes,
            misplaced(&o) * 100.0,
            per_priority.join(" ")
        );
        assert!((0.98..=1.0).contains(&ratio), "{factor}x: {ratio}");
        // The admission window: never above max_rate x T, and within 2 % of it. (With the
        // token bucket alone a window could take max_rate x T + burst: 1016.)
        assert!(max_window <= 1000, "{factor}x: {max_window}");
        assert!(min_window >= 980, "{factor}x: {min_window}");
        assert_eq!(o.level, 1);
        assert_eq!(
            o.level_changes, 1,
            "{factor}x: no flapping at a steady overload"
        );
        // Level 1 throttles 12..=15; the cap sheds the lowest of the rest first.
        for v in 12..16 {
            assert_eq!(o.sent[v], 0, "{factor}x priority {v}");
        }
        // 0.995 and 3 % with the token bucket alone. An exact window cannot lend a cluster of
        // priority-0 arrivals the capacity of the next window, as the bucket's burst did,
        // and the ladder keeps the window's last places for the higher priorities only while
        // the tick lasts (see `Cap::window_admits`): priority 0 loses up to 0.7 % at 10x,
        // and up to 3.2 % of the admitted requests go out of order at 3x (2.8 % before).
        assert!(success(&o, 0) >= 0.99, "{factor}x");
        assert!(misplaced(&o) <= 0.035, "{factor}x");
    }
}

#[test]
fn s5_one_tick_windows() {
    // The same overloads with a convergence time of one tick (100 ms): the admission window
    // is then each tick on its own, with a budget of 100 messages, and a place left at the
    // end of a tick is lost to it. The bucket's level moves by up to about half a burst
    // within a tick, so a tick admits 89-100 % of its budget; the upper bound stays exact.
    let mut config = EgressConfig::new(1000);
    config.convergence_time = config.tick;
    for factor in [1.5, 3.0, 10.0] {
        let o = simulate(config, factor, 0.2, 2, 60, uniform);
        let ratio = o.admitted as f64 / (1000.0 * 60.0);
        let (min_window, max_window) = window_range(&o.bins, 1);
        println!(
            "one-tick windows {factor}x: admitted {:.3} % of Max EMR over 60 s; per 100 ms \
             window {min_window}..{max_window} (budget 100); misplaced {:.2} %; success p0 {:.4}",
            ratio * 100.0,
            misplaced(&o) * 100.0,
            success(&o, 0)
        );
        assert!((0.97..=1.0).contains(&ratio), "{factor}x: {ratio}");
        assert!(max_window <= 100, "{factor}x: {max_window}");
        assert!(min_window >= 89, "{factor}x: {min_window}");
        assert!(success(&o, 0) >= 0.96, "{factor}x");
    }
}

#[test]
fn s5_limit_mode_sheds_lowest_priority_first() {
    // Limit mode: every cut-off at 15, so the levels only report and the cap sheds. The S5
    // mix; the ideal fills from the highest priority: at 1.5x p0..p9 take 0.9 of the Max EMR
    // and p12 the rest (success 0.17); at 3x p0..p6 take 0.9, p9 the rest (0.11), p12 nothing;
    // at 10x p0 and p3 fill it.
    let mut config = EgressConfig::new(1000);
    config.level_cutoff = [p(15), p(15), p(15)];
    for factor in [1.5, 3.0, 10.0] {
        let o = simulate(config, factor, 0.0, 2, 60, s5_mix);
        let ratio = o.admitted as f64 / (1000.0 * 60.0);
        let (min_window, max_window) = window_range(&o.bins, 10);
        let per_priority: Vec<String> = [0usize, 3, 6, 9, 12]
            .iter()
            .map(|&v| format!("p{v} {:.3}", success(&o, v)))
            .collect();
        println!(
            "limit mode {factor}x: admitted {:.3} %; per 1 s window {min_window}..{max_window}; \
             misplaced {:.2} %; success {}",
            ratio * 100.0,
            misplaced(&o) * 100.0,
            per_priority.join(", ")
        );
        assert!((0.98..=1.0).contains(&ratio), "{factor}x: {ratio}");
        assert!(max_window <= 1000, "{factor}x: {max_window}");
        assert!(min_window >= 980, "{factor}x: {min_window}");
        // S5's highest priority ("priority 4", p0 here) is all but never shed at 1.5x and 3x
        // (never, with the token bucket alone: see `s5_admitted_rate_...` for what the exact
        // window costs it). At 10x, p0 and p3 fill exactly the Max EMR, the hardest case for
        // an admission without a queue: their random clusters drain the bucket and p6 takes
        // the lulls.
        let (p0_min, misplaced_max) = if factor <= 3.0 {
            (0.998, 0.03)
        } else {
            (0.99, 0.10)
        };
        assert!(success(&o, 0) >= p0_min, "{factor}x");
        assert!(misplaced(&o) <= misplaced_max, "{factor}x");
    }
}

#[test]
fn s5_steps_settle_within_the_convergence_time() {
    // 0.5x for 5 s, 10x for 10 s, 1.5x for 10 s (uniform priorities, default configuration,
    // convergence time 1 s). On the step up the cap binds at once, and its full ladder
    // protects priority 0 (90 % in that second) until the boundary estimate catches up. On
    // the step down the estimate is too strict for up to one convergence time: the bucket
    // climbs to the lower priorities' thresholds and sometimes overflows (96.6 % in that
    // second). Every other second of overload admits 98-100 %: never more, since each second
    // is a tick-aligned window of the admission cap (before it, up to one burst more).
    let config = EgressConfig::new(1000);
    let profile = |ns: u64| match ns / 1_000_000_000 {
        0..=4 => 0.5,
        5..=14 => 10.0,
        _ => 1.5,
    };
    let o = simulate_profile(config, profile, 0.0, 0, 25, uniform);
    let admitted: Vec<u64> = o.seconds.iter().map(|s| s[0]).collect();
    let p0: Vec<String> = o
        .seconds
        .iter()
        .map(|s| format!("{:.2}", s[2] as f64 / s[1].max(1) as f64))
        .collect();
    println!("steps: admitted per second {admitted:?}");
    println!("steps: priority-0 success per second {}", p0.join(" "));
    for (second, s) in o.seconds.iter().enumerate() {
        let (low, p0_min) = match second {
            0..=4 => (400, 1.0),
            5 => (980, 0.85),
            15 => (950, 0.97),
            _ => (980, 0.97),
        };
        let high = if second < 5 { 600 } else { 1000 };
        assert!((low..=high).contains(&s[0]), "second {second}: {}", s[0]);
        assert!(
            s[2] as f64 >= p0_min * s[1] as f64,
            "second {second}: p0 {s:?}"
        );
    }
}

#[test]
fn s5_threshold_mode_levels_at_steady_loads() {
    // The three DSR pairs; each steady load lands on one level and stays there.
    let mut config = EgressConfig::new(1000);
    config.thresholds = [
        Some(ThresholdPair::new(60, 55)),
        Some(ThresholdPair::new(80, 75)),
        Some(ThresholdPair::new(100, 90)),
    ];
    config.convergence_time = Duration::from_millis(200);
    for (factor, level) in [(0.5, 0u8), (0.7, 1), (0.9, 2), (1.5, 3), (3.0, 3)] {
        let o = simulate(config, factor, 0.0, 2, 30, uniform);
        let ratio = o.admitted as f64 / (1000.0 * 30.0);
        println!(
            "threshold mode {factor}x: level {} ({} changes), admitted {:.1} %",
            o.level,
            o.level_changes,
            ratio * 100.0
        );
        assert_eq!(o.level, level, "{factor}x");
        assert!(o.level_changes <= u64::from(level), "{factor}x");
        assert!(ratio <= 1.0);
    }
}

/// An independent statement of the configuration rules, for the property test.
fn reference_valid(c: &EgressConfig) -> bool {
    let window_ok = !c.tick.is_zero() && {
        let ticks = c.convergence_time.as_nanos().div_ceil(c.tick.as_nanos());
        (1..=1024).contains(&ticks)
    };
    let pairs: Vec<ThresholdPair> = c.thresholds.iter().map_while(|p| *p).collect();
    let contiguous = c.thresholds.iter().skip(pairs.len()).all(|p| p.is_none());
    let pairs_ok = !pairs.is_empty()
        && contiguous
        && pairs.iter().all(|p| {
            (2..=100).contains(&p.throttle)
                && (1..=99).contains(&p.abatement)
                && p.abatement < p.throttle
        })
        && pairs
            .windows(2)
            .all(|w| w[0].throttle < w[1].throttle && w[0].abatement < w[1].abatement);
    let cut = c.level_cutoff;
    c.max_rate > 0
        && window_ok
        && c.burst > 0
        && c.max_pending != Some(0)
        && pairs_ok
        && cut[0] >= cut[1]
        && cut[1] >= cut[2]
}

fn percent() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(0u8),
        Just(1),
        Just(2),
        Just(99),
        Just(100),
        Just(101),
        0u8..=110
    ]
}

fn any_config() -> impl Strategy<Value = EgressConfig> {
    (
        (0u32..3, 0u64..3, 0u64..6, 0u32..3),
        prop::array::uniform3(prop::option::weighted(0.8, (percent(), percent()))),
        prop::array::uniform3(0u8..16),
        prop::option::of(0u32..3),
    )
        .prop_map(|((rate, tick, conv, burst), pairs, cut, pending)| {
            let mut c = EgressConfig::new(rate * 500);
            c.tick = Duration::from_millis(tick * 50);
            c.convergence_time = Duration::from_millis(conv * 40);
            c.burst = burst;
            c.thresholds = pairs.map(|o| o.map(|(t, a)| ThresholdPair::new(t, a)));
            c.level_cutoff = cut.map(p);
            c.max_pending = pending;
            c
        })
}

/// Offered rate profile: (messages per second, length in ticks) segments.
fn profile() -> impl Strategy<Value = Vec<(u32, u32)>> {
    prop::collection::vec((0u32..1600, 1u32..40), 1..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// `validate` accepts exactly the configurations the rules allow, and names the field.
    #[test]
    fn validate_matches_the_rules(c in any_config()) {
        let got = c.validate();
        prop_assert_eq!(got.is_ok(), reference_valid(&c), "{:?} -> {:?}", c, got);
        if let Err(e) = got {
            let msg = e.to_string();
            prop_assert!(
                ["max_rate", "tick", "convergence_time", "burst", "max_pending", "thresholds",
                 "level_cutoff"].iter().any(|f| msg.starts_with(f)),
                "{}", msg
            );
            prop_assert_eq!(EgressThrottle::new(c, t0()).err(), Some(e));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Hysteresis: the level rises only on reaching a TT, falls only below the AT of the level
    /// left and only after holding that level (or higher) for the abatement time, and does
    /// not move while the rate stays between AT-L and TT-(L+1).
    #[test]
    fn levels_follow_the_thresholds_with_a_minimum_dwell(
        segments in profile(),
        n_pairs in 1usize..=3,
        abatement_ms in 0u64..2000,
        conv_ticks in 1u32..12,
    ) {
        let all = [
            ThresholdPair::new(60, 55),
            ThresholdPair::new(80, 75),
            ThresholdPair::new(100, 90),
        ];
        let mut c = EgressConfig::new(1000);
        c.thresholds = [None; 3];
        for (slot, pair) in c.thresholds.iter_mut().zip(all).take(n_pairs) {
            *slot = Some(pair);
        }
        c.abatement_time = Duration::from_millis(abatement_ms);
        c.convergence_time = c.tick * conv_ticks;
        let base = t0();
        let mut t = EgressThrottle::new(c, base).unwrap();
        let tick = c.tick;
        let mut now = Duration::ZERO;
        // Last instant each level was entered from below.
        let mut entered = [Duration::ZERO; 4];
        let mut level = 0u8;
        for (rate, ticks) in segments {
            let step = if rate == 0 { u64::MAX } else { 1_000_000_000 / u64::from(rate) };
            let seg_end = now + tick * ticks;
            let mut next_msg = now.as_nanos() as u64;
            let mut next_tick = now + tick;
            while next_tick <= seg_end {
                while (next_msg as u128) < next_tick.as_nanos() {
                    t.on_send(MessageKind::Answer, base + Duration::from_nanos(next_msg));
                    next_msg = next_msg.saturating_add(step);
                }
                t.handle_timeout(base + next_tick);
                let r = t.measured_rate();
                let new = t.level();
                prop_assert!(usize::from(new) <= n_pairs);
                let tt = |x: u8| all[usize::from(x) - 1].throttle as f64 * 10.0;
                let at = |x: u8| all[usize::from(x) - 1].abatement as f64 * 10.0;
                if new > level {
                    prop_assert!(r >= tt(new) - 1e-6, "rose to {} at {}/s", new, r);
                    for x in level + 1..=new {
                        entered[usize::from(x)] = next_tick;
                    }
                }
                if new < level {
                    for x in new + 1..=level {
                        prop_assert!(r < at(x) + 1e-6, "left {} at {}/s", x, r);
                        let held = next_tick - entered[usize::from(x)];
                        prop_assert!(held >= c.abatement_time, "level {} held {:?}", x, held);
                    }
                }
                let below_next = usize::from(level) == n_pairs || r < tt(level + 1) - 1e-6;
                if level > 0 && r >= at(level) + 1e-6 && below_next {
                    prop_assert_eq!(new, level, "moved between AT and TT at {}/s", r);
                }
                if level == 0 && r < tt(1) - 1e-6 {
                    prop_assert_eq!(new, 0);
                }
                level = new;
                next_tick += tick;
            }
            now = seg_end;
        }
    }

    /// The cap: with requests only, the messages admitted in any interval [s, t] are at most
    /// `max_rate * (t - s) + burst`; answers are always sent.
    #[test]
    fn cap_bounds_any_interval_and_never_drops_answers(
        max_rate in 50u32..3000,
        burst in 1u32..40,
        seed in any::<u64>(),
        max_gap_us in 1u64..5000,
        with_answers in any::<bool>(),
    ) {
        let mut c = EgressConfig::new(max_rate);
        c.burst = burst;
        c.level_cutoff = [p(15), p(15), p(15)];
        let base = t0();
        let mut t = EgressThrottle::new(c, base).unwrap();
        let mut rng = XorShift(seed | 1);
        let mut now_ns = 0u64;
        // f(k) = k - max_rate * t_k over admitted messages; the bound says
        // f(j) - f(i) + 1 <= burst for every i <= j.
        let mut k = 0f64;
        let mut min_f = f64::INFINITY;
        for _ in 0..5000 {
            now_ns += rng.next() % (max_gap_us * 1000 + 1);
            let now = base + Duration::from_nanos(now_ns);
            let answer = with_answers && rng.next() % 4 == 0;
            let kind = if answer { MessageKind::Answer } else { MessageKind::Request };
            let d = t.decide(kind, p((rng.next() % 16) as u8), now);
            if answer {
                prop_assert!(d.is_send());
            } else if d.is_send() {
                t.on_transaction_end();
                if !with_answers {
                    k += 1.0;
                    let f = k - f64::from(max_rate) * now_ns as f64 / 1e9;
                    min_f = min_f.min(f - 1.0);
                    prop_assert!(f - min_f <= f64::from(burst) + 1e-6, "{} > {}", f - min_f, burst);
                }
            } else {
                prop_assert_eq!(d, EgressDecision::Throttle(ThrottleReason::RateLimit));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The admission window: when a request is admitted, the tick-aligned window of the
    /// convergence time that ends with its tick holds, with it, at most
    /// `B = max(1, max_rate x T)` messages, answers included. So with requests only, no
    /// tick-aligned window ever admits more than `B`.
    #[test]
    fn admission_window_never_exceeds_its_budget(
        max_rate in 1u32..3000,
        burst in 1u32..40,
        tick_ms in 1u64..150,
        ticks in 1u32..12,
        seed in any::<u64>(),
        max_gap_us in 1u64..3000,
        answers_one_in in prop::option::of(2u64..6),
    ) {
        let mut c = EgressConfig::new(max_rate);
        c.burst = burst;
        c.tick = Duration::from_millis(tick_ms);
        c.convergence_time = c.tick * ticks;
        c.level_cutoff = [p(15), p(15), p(15)];
        let window_ns = u128::from(tick_ms) * 1_000_000 * u128::from(ticks);
        let budget = (u128::from(max_rate) * window_ns / 1_000_000_000).max(1) as u64;
        let base = t0();
        let mut t = EgressThrottle::new(c, base).unwrap();
        let mut rng = XorShift(seed | 1);
        let n = ticks as usize;
        // Admitted per tick, by tick index from the throttle's creation.
        let mut per_tick: Vec<u64> = Vec::new();
        let mut now_ns = 0u64;
        for _ in 0..5000 {
            now_ns += rng.next() % (max_gap_us * 1000 + 1);
            let k = (now_ns / (tick_ms * 1_000_000)) as usize;
            if per_tick.len() <= k {
                per_tick.resize(k + 1, 0);
            }
            let answer = answers_one_in.is_some_and(|one_in| rng.next() % one_in == 0);
            let kind = if answer { MessageKind::Answer } else { MessageKind::Request };
            let now = base + Duration::from_nanos(now_ns);
            if t.decide(kind, p((rng.next() % 16) as u8), now).is_send() {
                per_tick[k] += 1;
                if !answer {
                    t.on_transaction_end();
                    let held: u64 = per_tick[(k + 1).saturating_sub(n)..=k].iter().sum();
                    prop_assert!(held <= budget, "{} > {} at tick {}", held, budget, k);
                }
            }
        }
        if answers_one_in.is_none() {
            for w in per_tick.windows(n) {
                prop_assert!(w.iter().sum::<u64>() <= budget);
            }
        }
    }
}

#[test]
fn config_error_is_a_std_error() {
    let e: Box<dyn std::error::Error> = Box::new(EgressConfigError::MaxRate);
    assert_eq!(
        e.to_string(),
        "max_rate (Max EMR) must be at least 1 message/s"
    );
}
