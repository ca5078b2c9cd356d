//! Unit tests of the egress throttle: configuration checks, level hysteresis, priority
//! cut-offs and lazy ticking; the cap and the pending limit in [`cap`].

use super::*;

mod cap;

fn p(v: u8) -> MessagePriority {
    MessagePriority::new(v).unwrap()
}

use pfcp_test_support::clock::origin as t0;

use pfcp_test_support::rng::XorShift;

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

/// The three DSR pairs of perf-anchors S5: 60/55, 80/75, 100/90 % of the Max EMR.
fn s5_config() -> EgressConfig {
    let mut c = EgressConfig::new(1000);
    c.thresholds = [
        Some(ThresholdPair::new(60, 55)),
        Some(ThresholdPair::new(80, 75)),
        Some(ThresholdPair::new(100, 90)),
    ];
    c
}

/// Offers answers evenly at `rate` msg/s on `[from, to)` (offsets from `base`), calling
/// `handle_timeout` on every tick as well, and records `(time, level)` after every tick.
fn drive(
    t: &mut EgressThrottle,
    base: Instant,
    rate: u64,
    from: Duration,
    to: Duration,
    levels: &mut Vec<(Duration, u8)>,
) {
    let step = 1_000_000_000u64
        .checked_div(rate)
        .map_or(Duration::MAX, Duration::from_nanos);
    let mut next_msg = from;
    let mut next_tick = t.origin.duration_since(base) + Duration::from_nanos(t.next_tick);
    loop {
        if next_tick >= to && next_msg >= to {
            break;
        }
        if next_tick <= next_msg {
            t.handle_timeout(base + next_tick);
            levels.push((next_tick, t.level()));
            next_tick += t.config.tick;
        } else {
            t.on_send(MessageKind::Answer, base + next_msg);
            next_msg = next_msg.saturating_add(step);
        }
    }
}

#[test]
fn defaults_and_dsr_s5_sets_are_valid() {
    assert_eq!(EgressConfig::new(1000).validate(), Ok(()));
    assert_eq!(s5_config().validate(), Ok(()));
    assert_eq!(EgressConfig::new(1000).levels(), 1);
    assert_eq!(s5_config().levels(), 3);
    let mut c = EgressConfig::new(10);
    c.thresholds = [
        Some(ThresholdPair::new(2, 1)),
        Some(ThresholdPair::new(3, 2)),
        None,
    ];
    c.max_pending = Some(1);
    c.burst = 1;
    c.convergence_time = c.tick * MAX_WINDOW_TICKS;
    c.level_cutoff = [p(5), p(5), p(0)];
    assert_eq!(c.validate(), Ok(()));
}

#[test]
fn validate_rejects_every_invalid_form_with_the_field_at_fault() {
    use EgressConfigError as E;
    let pair = |t, a| Some(ThresholdPair::new(t, a));
    let cases: Vec<(&str, EgressConfig, EgressConfigError)> = vec![
        ("max_rate 0", EgressConfig::new(0), E::MaxRate),
        (
            "tick 0",
            EgressConfig {
                tick: Duration::ZERO,
                ..EgressConfig::new(1000)
            },
            E::Tick,
        ),
        (
            "convergence 0",
            EgressConfig {
                convergence_time: Duration::ZERO,
                ..EgressConfig::new(1000)
            },
            E::ConvergenceTime {
                convergence_time: Duration::ZERO,
                tick: ms(100),
            },
        ),
        (
            "convergence too long",
            EgressConfig {
                convergence_time: ms(100) * (MAX_WINDOW_TICKS + 1),
                ..EgressConfig::new(1000)
            },
            E::ConvergenceTime {
                convergence_time: ms(100) * (MAX_WINDOW_TICKS + 1),
                tick: ms(100),
            },
        ),
        (
            "burst 0",
            EgressConfig {
                burst: 0,
                ..EgressConfig::new(1000)
            },
            E::Burst,
        ),
        (
            "max_pending 0",
            EgressConfig {
                max_pending: Some(0),
                ..EgressConfig::new(1000)
            },
            E::MaxPending,
        ),
        (
            "no first pair",
            EgressConfig {
                thresholds: [None, None, None],
                ..EgressConfig::new(1000)
            },
            E::MissingFirstPair,
        ),
        (
            "only level 2",
            EgressConfig {
                thresholds: [None, pair(80, 70), None],
                ..EgressConfig::new(1000)
            },
            E::MissingFirstPair,
        ),
        (
            "level 3 without level 2",
            EgressConfig {
                thresholds: [pair(60, 50), None, pair(90, 80)],
                ..EgressConfig::new(1000)
            },
            E::PairWithoutLower { level: 3 },
        ),
        (
            "TT-1 1 %",
            EgressConfig {
                thresholds: [pair(1, 1), None, None],
                ..EgressConfig::new(1000)
            },
            E::ThrottleRange { level: 1, value: 1 },
        ),
        (
            "TT-2 101 %",
            EgressConfig {
                thresholds: [pair(60, 50), pair(101, 70), None],
                ..EgressConfig::new(1000)
            },
            E::ThrottleRange {
                level: 2,
                value: 101,
            },
        ),
        (
            "AT-1 0 %",
            EgressConfig {
                thresholds: [pair(60, 0), None, None],
                ..EgressConfig::new(1000)
            },
            E::AbatementRange { level: 1, value: 0 },
        ),
        (
            "AT-3 100 %",
            EgressConfig {
                thresholds: [pair(60, 50), pair(80, 70), pair(100, 100)],
                ..EgressConfig::new(1000)
            },
            E::AbatementRange {
                level: 3,
                value: 100,
            },
        ),
        (
            "AT-1 = TT-1",
            EgressConfig {
                thresholds: [pair(60, 60), None, None],
                ..EgressConfig::new(1000)
            },
            E::AbatementNotBelowThrottle {
                level: 1,
                throttle: 60,
                abatement: 60,
            },
        ),
        (
            "AT-2 > TT-2",
            EgressConfig {
                thresholds: [pair(60, 50), pair(80, 90), None],
                ..EgressConfig::new(1000)
            },
            E::AbatementNotBelowThrottle {
                level: 2,
                throttle: 80,
                abatement: 90,
            },
        ),
        (
            "TT-2 = TT-1",
            EgressConfig {
                thresholds: [pair(80, 50), pair(80, 70), None],
                ..EgressConfig::new(1000)
            },
            E::ThrottleNotIncreasing {
                level: 2,
                value: 80,
                lower: 80,
            },
        ),
        (
            "TT-3 < TT-2",
            EgressConfig {
                thresholds: [pair(60, 50), pair(90, 70), pair(85, 80)],
                ..EgressConfig::new(1000)
            },
            E::ThrottleNotIncreasing {
                level: 3,
                value: 85,
                lower: 90,
            },
        ),
        (
            "AT-2 = AT-1",
            EgressConfig {
                thresholds: [pair(60, 50), pair(80, 50), None],
                ..EgressConfig::new(1000)
            },
            E::AbatementNotIncreasing {
                level: 2,
                value: 50,
                lower: 50,
            },
        ),
        (
            "AT-3 < AT-2",
            EgressConfig {
                thresholds: [pair(60, 50), pair(80, 75), pair(100, 70)],
                ..EgressConfig::new(1000)
            },
            E::AbatementNotIncreasing {
                level: 3,
                value: 70,
                lower: 75,
            },
        ),
        (
            "cut-off 2 above 1",
            EgressConfig {
                level_cutoff: [p(7), p(9), p(3)],
                ..EgressConfig::new(1000)
            },
            E::CutoffNotMonotonic {
                level: 2,
                value: 9,
                lower: 7,
            },
        ),
        (
            "cut-off 3 above 2",
            EgressConfig {
                level_cutoff: [p(11), p(7), p(8)],
                ..EgressConfig::new(1000)
            },
            E::CutoffNotMonotonic {
                level: 3,
                value: 8,
                lower: 7,
            },
        ),
    ];
    for (name, config, expected) in cases {
        assert_eq!(config.validate(), Err(expected), "{name}");
        assert_eq!(
            EgressThrottle::new(config, t0()).err(),
            Some(expected),
            "{name}"
        );
        // Every message names its field.
        let msg = expected.to_string();
        assert!(
            [
                "max_rate",
                "tick",
                "convergence_time",
                "burst",
                "max_pending",
                "thresholds",
                "level_cutoff"
            ]
            .iter()
            .any(|f| msg.starts_with(f)),
            "{name}: {msg}"
        );
    }
}

#[test]
fn thresholds_from_parts_requires_complete_pairs() {
    assert_eq!(
        EgressConfig::thresholds_from_parts([Some(100), None, None], [Some(80), None, None]),
        Ok([Some(ThresholdPair::new(100, 80)), None, None])
    );
    assert_eq!(
        EgressConfig::thresholds_from_parts([Some(60), Some(80), None], [Some(55), None, None]),
        Err(EgressConfigError::IncompletePair { level: 2 })
    );
    assert_eq!(
        EgressConfig::thresholds_from_parts([Some(60), None, None], [Some(55), None, Some(90)]),
        Err(EgressConfigError::IncompletePair { level: 3 })
    );
    assert_eq!(
        EgressConfig::thresholds_from_parts([None; 3], [Some(1), None, None]),
        Err(EgressConfigError::IncompletePair { level: 1 })
    );
}

#[test]
fn level_rises_when_the_measured_rate_reaches_tt() {
    // TT-1 100 % of 1000/s. 990/s never raises it; 1000/s does, once a full window of 1 s
    // at that rate has been measured.
    let base = t0();
    let mut t = EgressThrottle::new(EgressConfig::new(1000), base).unwrap();
    let mut levels = Vec::new();
    drive(&mut t, base, 990, ms(0), ms(5000), &mut levels);
    assert!(levels.iter().all(|&(_, l)| l == 0));
    let mut t = EgressThrottle::new(EgressConfig::new(1000), base).unwrap();
    let mut levels = Vec::new();
    drive(&mut t, base, 1000, ms(0), ms(5000), &mut levels);
    let first = levels.iter().find(|&&(_, l)| l == 1).unwrap().0;
    assert_eq!(first, ms(1000), "one convergence time after the start");
    assert_eq!(t.stats().level_changes, 1);
    assert!((t.measured_rate() - 1000.0).abs() < 1e-9);
}

#[test]
fn level_falls_only_after_abatement_time_below_at() {
    let base = t0();
    let mut t = EgressThrottle::new(s5_config(), base).unwrap();
    let mut levels = Vec::new();
    // 950/s: level 2 (>= 80 %, < 100 %).
    drive(&mut t, base, 950, ms(0), ms(3000), &mut levels);
    assert_eq!(t.level(), 2);
    // Then 700/s: below AT-2 (75 %), above TT-1 (60 %). The window average first crosses
    // 75 % on the tick where at most 1/2 of the window is still at 950 (950x+700(1-x) < 750
    // for x < 0.2): 900 ms after the step. Level 2 holds for abatement_time (1 s) more.
    drive(&mut t, base, 700, ms(3000), ms(8000), &mut levels);
    let fell = levels
        .iter()
        .find(|&&(at, l)| at > ms(3000) && l < 2)
        .unwrap();
    assert_eq!(fell.1, 1);
    assert_eq!(fell.0, ms(3000 + 900 + 1000));
    assert_eq!(t.level(), 1);
    // Silence: the window average goes below AT-1 (55 %) on the third tick (490/s), and
    // level 1 falls one abatement time later.
    drive(&mut t, base, 0, ms(8000), ms(12_000), &mut levels);
    let fell = levels
        .iter()
        .find(|&&(at, l)| at > ms(8000) && l == 0)
        .unwrap();
    assert_eq!(fell.0, ms(8000 + 300 + 1000));
    // 0 -> 1 -> 2 while the window filled, then 2 -> 1 -> 0.
    assert_eq!(t.stats().level_changes, 4);
}

#[test]
fn levels_fall_in_steps_or_at_once_as_their_timers_run_out() {
    // With a 1 s window, the rate passes AT-3, AT-2 and AT-1 on different ticks: the level
    // steps down 3, 2, 1, 0, each one abatement time after its own crossing.
    let base = t0();
    let mut t = EgressThrottle::new(s5_config(), base).unwrap();
    let mut levels = Vec::new();
    drive(&mut t, base, 1100, ms(0), ms(3000), &mut levels);
    assert_eq!(t.level(), 3);
    drive(&mut t, base, 0, ms(3000), ms(8000), &mut levels);
    let changes: Vec<(Duration, u8)> = levels
        .windows(2)
        .filter(|w| w[0].1 != w[1].1 && w[1].0 > ms(3000))
        .map(|w| w[1])
        .collect();
    // 1100/s falls by 110/s per tick: < 900 after 2 ticks (880), < 750 after 4 (660), < 550
    // after 6 (440).
    assert_eq!(
        changes,
        vec![(ms(4200), 2), (ms(4400), 1), (ms(4600), 0)],
        "{levels:?}"
    );
    // With a one-tick window the rate drops to zero at once: 3 -> 0 in one change.
    let mut c = s5_config();
    c.convergence_time = c.tick;
    let mut t = EgressThrottle::new(c, base).unwrap();
    let mut levels = Vec::new();
    drive(&mut t, base, 1100, ms(0), ms(3000), &mut levels);
    assert_eq!(t.level(), 3);
    let before = t.stats().level_changes;
    drive(&mut t, base, 0, ms(3000), ms(8000), &mut levels);
    assert_eq!(t.stats().level_changes - before, 1);
    let fell = levels
        .iter()
        .find(|&&(at, l)| at > ms(3000) && l == 0)
        .unwrap();
    assert_eq!(fell.0, ms(3000 + 100 + 1000));
}

#[test]
fn no_flapping_at_a_steady_rate_between_at_and_tt() {
    // DSR's warning: "an abatement threshold too close to its onset causes level
    // oscillation". Between AT and TT the level must not move at all.
    let base = t0();
    for (rate, start_level) in [(850u64, 0u8), (900, 1)] {
        let mut t = EgressThrottle::new(EgressConfig::new(1000), base).unwrap();
        let mut levels = Vec::new();
        if start_level == 1 {
            // Enter level 1 with a spike, then settle between AT-1 (80 %) and TT-1 (100 %).
            drive(&mut t, base, 1500, ms(0), ms(1500), &mut levels);
            assert_eq!(t.level(), 1);
        }
        let changes_before = t.stats().level_changes;
        let from = if start_level == 1 { ms(1500) } else { ms(0) };
        drive(&mut t, base, rate, from, from + ms(60_000), &mut levels);
        let changes = t.stats().level_changes - changes_before;
        println!("steady {rate}/s from level {start_level}: {changes} level changes in 60 s");
        assert_eq!(changes, 0);
        assert_eq!(t.level(), start_level);
    }
}

#[test]
fn priority_cutoffs_per_level() {
    let base = t0();
    let cutoffs = [11u8, 7, 3];
    for (rate, level) in [(650u64, 1u8), (850, 2), (1050, 3)] {
        let mut t = EgressThrottle::new(s5_config(), base).unwrap();
        let mut levels = Vec::new();
        drive(&mut t, base, rate, ms(0), ms(2000), &mut levels);
        assert_eq!(t.level(), level);
        let cut = cutoffs[usize::from(level) - 1];
        for v in 0..16u8 {
            let d = t.decide(MessageKind::Request, p(v), base + ms(2000));
            let by_level = d == EgressDecision::Throttle(ThrottleReason::Level(level));
            assert_eq!(by_level, v > cut, "level {level} priority {v}: {d:?}");
        }
    }
    // A configured mapping: level 1 throttles only 15. (100 ms of silence refill the bucket
    // that the 1200/s of answers emptied; the level holds for the abatement time.)
    let mut c = EgressConfig::new(1000);
    c.level_cutoff = [p(14), p(14), p(14)];
    let mut t = EgressThrottle::new(c, base).unwrap();
    drive(&mut t, base, 1200, ms(0), ms(2000), &mut Vec::new());
    let now = base + ms(2100);
    assert_eq!(
        t.decide(MessageKind::Request, p(15), now),
        EgressDecision::Throttle(ThrottleReason::Level(1))
    );
    assert!(t.decide(MessageKind::Request, p(14), now).is_send());
}

#[test]
fn lazy_ticking_equals_a_timer_driven_caller() {
    // Same traffic; one caller arms the timer, the other never does.
    let base = t0();
    let mut lazy = EgressThrottle::new(s5_config(), base).unwrap();
    let mut timed = EgressThrottle::new(s5_config(), base).unwrap();
    let mut rng = XorShift(11);
    let mut now = Duration::ZERO;
    for _ in 0..40_000 {
        now += Duration::from_micros(rng.next() % 2500);
        let at = base + now;
        while let Some(due) = timed.poll_timeout() {
            if due > at {
                break;
            }
            timed.handle_timeout(due);
        }
        let prio = p((rng.next() % 16) as u8);
        let kind = if rng.next() % 5 == 0 {
            MessageKind::Answer
        } else {
            MessageKind::Request
        };
        assert_eq!(lazy.decide(kind, prio, at), timed.decide(kind, prio, at));
        assert_eq!(lazy.level(), timed.level());
        if rng.next() % 3 == 0 {
            lazy.on_transaction_end();
            timed.on_transaction_end();
        }
    }
    assert_eq!(lazy.stats(), timed.stats());
}

#[test]
fn idle_hours_cost_one_window_and_clear_the_level() {
    let base = t0();
    let mut t = EgressThrottle::new(s5_config(), base).unwrap();
    drive(&mut t, base, 1200, ms(0), ms(2000), &mut Vec::new());
    assert_eq!(t.level(), 3);
    assert!(t.poll_timeout().is_some());
    let changes = t.stats().level_changes;
    let later = base + Duration::from_secs(3 * 3600);
    t.handle_timeout(later);
    assert_eq!(t.level(), 0);
    assert_eq!(t.measured_rate(), 0.0);
    assert_eq!(t.poll_timeout(), None);
    // Every tick is accounted for, although only about one window was processed one by one,
    // and the level stepped down 3, 2, 1, 0 as it would have tick by tick.
    assert_eq!(t.stats().ticks, 3 * 3600 * 10);
    assert_eq!(t.stats().level_changes - changes, 3);
    // The bucket is full again.
    let (tokens, capacity) = t.cap.bucket();
    assert_eq!(tokens, capacity);
}

#[test]
fn time_going_backwards_is_no_time() {
    let base = t0() + Duration::from_secs(10);
    let mut t = EgressThrottle::new(EgressConfig::new(1000), base).unwrap();
    for _ in 0..16 {
        assert!(t.decide(MessageKind::Request, p(0), base).is_send());
    }
    let earlier = base - Duration::from_secs(5);
    assert!(!t.decide(MessageKind::Request, p(0), earlier).is_send());
    t.handle_timeout(earlier);
    assert_eq!(t.stats().ticks, 0);
}

#[test]
fn message_kind_of_pfcp_types() {
    assert_eq!(
        MessageKind::of(MessageType::SESSION_ESTABLISHMENT_REQUEST),
        MessageKind::Request
    );
    assert_eq!(
        MessageKind::of(MessageType::SESSION_ESTABLISHMENT_RESPONSE),
        MessageKind::Answer
    );
    assert_eq!(MessageKind::of(MessageType(200)), MessageKind::Answer);
}
