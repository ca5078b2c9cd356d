//! The overload experiment at deployment scale, in virtual time: memory that follows the
//! sessions alive, CP functions of other profiles (no overload control, fixed priorities), CP
//! functions that come and go, and the ideal of a run in which a UP function restarts. Each
//! test states the property it holds the simulation (or the toolkit in it) to.

use pfcp_sim::record::TableSample;
use pfcp_sim::scenario::{ChurnSpec, CpGroup, CpProfile, RestartSpec, UpSpec};
use pfcp_sim::traffic::Step;
use pfcp_sim::{run, Plan, RunResult, Scenario, Strategy};

fn up(capacity: f64) -> UpSpec {
    UpSpec::new(capacity, 256)
}

fn go(s: &Scenario, strategy: Strategy, plan: &Plan) -> RunResult {
    let classes = s.validate().unwrap();
    run(
        s,
        &classes,
        strategy,
        plan,
        pfcp_test_support::clock::origin(),
    )
    .unwrap()
}

/// A cap on the sessions a CP function has at once costs nothing until it is reached: with
/// room for 2^30 sessions each, the CP functions allocate the slots of the sessions they had
/// alive at once, which is what they had with 5000, and the run is the same run.
///
/// A session is alive from its establishment until its deletion is answered, and a CP function
/// starts one only when no session waits for its next step, so it has at most one more
/// session alive than it has requests in flight; a request is in flight at most T1 x (N1 + 1).
#[test]
fn session_memory_follows_the_sessions_alive_not_the_cap() {
    let mut s = Scenario {
        cps: 8,
        ..Scenario::default()
    };
    s.sweep.warmup_secs = 1.0;
    s.sweep.measure_secs = 2.0;
    let capped = go(&s, Strategy::Toolkit, &Plan::Steady(2.0));
    s.sessions_per_cp = 1 << 30;
    let huge = go(&s, Strategy::Toolkit, &Plan::Steady(2.0));
    assert_eq!(capped.total.skipped, 0, "the cap of 5000 was never reached");
    assert_eq!(huge.total, capped.total);
    assert_eq!(huge.by_class, capped.by_class);
    assert_eq!(huge.session_slots, capped.session_slots);
    let per_cp_rate = 2.0 * s.capacity() / s.cps as f64;
    let in_flight_span = s.t1_ms as f64 / 1000.0 * f64::from(s.n1 + 1);
    let bound = (per_cp_rate * in_flight_span) as u64 + 1;
    let slots = huge.session_slots;
    assert!(
        slots.max_per_cp > 0 && slots.max_per_cp <= bound,
        "{slots:?}, bound {bound}"
    );
    assert!(slots.total <= bound * s.cps as u64, "{slots:?}");
}

/// 12 CP functions on one UP function at 5x: 4 without overload control, 4 with fixed
/// priorities, 4 with this toolkit's.
fn mixed() -> Scenario {
    let mut s = Scenario {
        cps: 12,
        ups: vec![up(1000.0)],
        cp_groups: vec![
            CpGroup {
                count: 4,
                profile: CpProfile::NoOverloadControl,
            },
            CpGroup {
                count: 4,
                profile: CpProfile::FixedPriority,
            },
        ],
        ..Scenario::default()
    };
    s.sweep.warmup_secs = 2.0;
    s.sweep.measure_secs = 4.0;
    s
}

/// A CP function without overload control never throttles (the OCI it is sent does nothing to
/// it) and puts no message priority in any header; one with fixed priorities marks every
/// establishment 0 and every other request 12, whatever the class; this toolkit's marks each
/// request with its class's priority. The headers are read back from the datagrams sent.
#[test]
fn each_profile_throttles_and_marks_as_it_should() {
    let s = mixed();
    let r = go(&s, Strategy::Toolkit, &Plan::Steady(5.0));
    let none = r.profile(CpProfile::NoOverloadControl).unwrap();
    let fixed = r.profile(CpProfile::FixedPriority).unwrap();
    let toolkit = r.profile(CpProfile::Toolkit).unwrap();
    assert_eq!((none.cps, fixed.cps, toolkit.cps), (4, 4, 4));
    // The UP function was overloaded: the CP functions with overload control throttled.
    assert!(toolkit.total.throttled > 0 && fixed.total.throttled > 0);
    assert_eq!(none.total.throttled, 0);
    for (step, w) in &none.wire {
        assert!(w.sent > 0, "{step:?}");
        assert_eq!(w.unmarked, w.sent, "{step:?}: {w:?}");
    }
    for (step, w) in &fixed.wire {
        let expected = if *step == Step::Establish { 0 } else { 12 };
        assert!(w.sent > 0, "{step:?}");
        assert_eq!(w.by_priority[expected], w.sent, "{step:?}: {w:?}");
    }
    for (step, w) in &toolkit.wire {
        assert_eq!(w.unmarked, 0, "{step:?}: {w:?}");
        let used = w.by_priority.iter().filter(|&&n| n > 0).count();
        assert!(used >= 2, "{step:?}: one priority for three classes {w:?}");
    }
    // The shares are of all three groups' figures.
    let share: f64 = r.by_profile.iter().map(|p| p.goodput_share).sum();
    assert!((share - 1.0).abs() < 1e-9, "{share}");
}

/// With the free riders advertising no OVRL, the CP functions with overload control still get
/// their emergency sessions through at 5x (what the report shows per profile).
#[test]
fn the_supporting_cps_keep_their_emergency_sessions_beside_free_riders() {
    let s = mixed();
    let r = go(&s, Strategy::Toolkit, &Plan::Steady(5.0));
    let e = r.supporting_emergency_success().unwrap();
    assert!(e >= 0.9, "emergency success of the supporting CPs {e:.3}");
    let none = r.profile(CpProfile::NoOverloadControl).unwrap();
    assert!(none.emergency_success.unwrap() < e, "{none:?}");
}

/// 600 CP functions over 20 s against one UP function, 20 at a time, each for two thirds of a
/// second; half release their associations, half vanish. T1 500 ms and N1 1, so the UP
/// function finds a vanished one gone within a heartbeat interval (5 s) and 1 s.
fn churning() -> (Scenario, ChurnSpec) {
    let spec = ChurnSpec {
        associations: 600,
        live: 20,
        load: 2.0,
        run_secs: 20.0,
        vanish: 0.5,
    };
    let s = Scenario {
        ups: vec![up(1000.0)],
        t1_ms: 500,
        n1: 1,
        churn: Some(spec.clone()),
        ..Scenario::default()
    };
    (s, spec)
}

/// Churn: every CP function lives its life (associated, released or vanished, replaced), the
/// UP function sees every release and finds the vanished ones by their heartbeats, its tables
/// of associations, sessions and transactions stop growing once it does, and the engine holds
/// no more nodes than are alive or leaving.
#[test]
fn churn_keeps_the_tables_bounded() {
    let (s, spec) = churning();
    let r = go(&s, Strategy::Toolkit, &Plan::Churn(spec.clone()));
    let c = r.churn.as_ref().unwrap();
    assert_eq!(c.started, 600);
    assert_eq!(c.associations_accepted, 600, "{c:?}");
    assert!(c.released > 200 && c.vanished > 200, "{c:?}");
    assert_eq!(c.releases_seen, c.released);
    assert!(c.failures_seen > 0);
    // A vanished CP function holds its association and sessions at the UP function until a
    // heartbeat round (every 5 s) goes unanswered for T1 x (N1 + 1).
    let detection = 5.0 + 2.0 * 0.5 + 0.5;
    let at = |t: f64| -> Option<&TableSample> { c.tables.iter().rev().find(|x| x.t <= t) };
    for x in &c.tables {
        let since = at(x.t - detection).map_or(0, |o| o.vanished);
        let undetected = (x.vanished - since) as usize;
        let up = x.ups[0];
        assert!(
            up.associated <= x.live_cps + x.leaving_cps + undetected,
            "{:.1} s: {up:?}, {} live, {} leaving, {undetected} vanished lately",
            x.t,
            x.live_cps,
            x.leaving_cps
        );
        assert!(x.engine_nodes <= 1 + spec.live + x.leaving_cps + 1, "{x:?}");
    }
    // Growth stops: the last third holds no more than the middle third, give or take a tenth.
    type Field = fn(&TableSample) -> usize;
    let third = |k: f64, f: Field| -> usize {
        c.tables
            .iter()
            .filter(|x| x.t > k * spec.run_secs / 3.0 && x.t <= (k + 1.0) * spec.run_secs / 3.0)
            .map(f)
            .max()
            .unwrap_or(0)
    };
    let fields: [(&str, Field); 4] = [
        ("associated", |x| x.ups[0].associated),
        ("sessions", |x| x.ups[0].sessions),
        ("cached responses", |x| x.ups[0].cached_responses),
        ("pending requests", |x| x.ups[0].pending_requests),
    ];
    for (name, f) in fields {
        let (middle, last) = (third(1.0, f), third(2.0, f));
        assert!(
            last as f64 <= 1.1 * middle as f64 + 5.0,
            "{name}: {middle} in the middle third, {last} in the last"
        );
    }
}

/// Churn: a CP function that joins while the UP function is overloaded learns its reduction
/// from the answers to its first requests; every live CP function checked twice or more while
/// the UP function published a metric above 0 had a reduction above 0.
#[test]
fn every_live_cp_is_throttled_while_the_up_is_overloaded() {
    let (s, spec) = churning();
    let r = go(&s, Strategy::Toolkit, &Plan::Churn(spec));
    let t = r.churn.unwrap().throttle;
    assert!(t.lives_checked > 300, "{t:?}");
    assert_eq!(t.lives_never_throttled, 0, "{t:?}");
    assert!(t.checks_throttled as f64 >= 0.8 * t.checks as f64, "{t:?}");
}

/// One UP function of 1000/s at 0.8x goes down for 1 s of a 10 s run. Down, it has no
/// capacity: the ideal is what was offered while it was up, about 0.8 x 1000 x 9 s over 10 s
/// (the load starts 50 ms in), not the 0.8 x 1000 of a UP function that never stops, of which
/// a run could reach at most 0.9. The toolkit reaches about the whole of it: only the requests
/// offered into the outage are lost, and a few of those are answered after it, on their
/// retransmission.
#[test]
fn the_restart_ideal_has_no_capacity_while_the_up_is_down() {
    let s = Scenario {
        ups: vec![up(1000.0)],
        ..Scenario::default()
    };
    let restart = RestartSpec {
        up: 0,
        load: 0.8,
        at_secs: 4.0,
        down_secs: 1.0,
        run_secs: 10.0,
    };
    let r = go(&s, Strategy::Toolkit, &Plan::Restart(restart));
    let offered_up = 0.8 * 1000.0 * (10.0 - 1.0 - 0.05) / 10.0;
    assert!(
        (r.ideal - offered_up).abs() <= 0.01 * offered_up,
        "ideal {} against {offered_up}",
        r.ideal
    );
    assert_eq!(r.ideal_basis, pfcp_sim::record::INTERVAL_IDEAL);
    assert!(r.goodput_ratio() >= 0.95, "{}", r.goodput_ratio());
    assert_eq!(r.restarted_up, Some(0));
    assert_eq!(r.refused_by_others(), 0);
}

/// Two UP functions of 1000/s at 0.4x (800/s): the one left carries the whole load while the
/// other is down, so the ideal is everything offered, and the UP function that did not
/// restart, at 0.8 of its capacity during the outage, refuses nothing.
#[test]
fn the_up_that_stays_refuses_nothing_when_it_can_carry_the_load() {
    let s = Scenario {
        cps: 8,
        ups: vec![up(1000.0), up(1000.0)],
        ..Scenario::default()
    };
    let restart = RestartSpec {
        up: 0,
        load: 0.4,
        at_secs: 4.0,
        down_secs: 1.0,
        run_secs: 10.0,
    };
    let r = go(&s, Strategy::Toolkit, &Plan::Restart(restart));
    let offered = r.total.offered as f64 / r.measured_secs;
    assert!(
        (r.ideal - offered).abs() < 1e-9,
        "{} against {offered}",
        r.ideal
    );
    assert_eq!(r.refused_by_others(), 0, "{:?}", r.refused_per_up);
    assert!(r.goodput_ratio() >= 0.95, "{}", r.goodput_ratio());
}

/// The criteria of the overload loop at deployment scale, on the topologies where they hold
/// (docs/overload-control.md, "`pfcp sim` at deployment scale", names those where they do
/// not yet): one UP function before 32 CP functions and ten UP functions before 16, from 1.3x
/// to 5x. Goodput at least 0.95 of the ideal, every emergency request through (its load, 0.65x
/// at 5x, fits), p99 of successes within 20 ms. Shorter runs than the scenario files' (CI
/// time): 2 s of warm-up, 4 s measured.
#[test]
fn the_loop_holds_its_criteria_with_32_cps_and_with_ten_ups() {
    let mut one_up = Scenario {
        name: "1up-32cps".into(),
        cps: 32,
        ups: vec![up(1000.0)],
        ..Scenario::default()
    };
    let mut ten_ups = Scenario {
        name: "10ups-16cps".into(),
        cps: 16,
        ups: (0..10).map(|_| up(1000.0)).collect(),
        ..Scenario::default()
    };
    for s in [&mut one_up, &mut ten_ups] {
        s.sessions_per_cp = 5000;
        s.sweep.warmup_secs = 2.0;
        s.sweep.measure_secs = 4.0;
        for x in [1.3, 2.0, 5.0] {
            let r = go(s, Strategy::Toolkit, &Plan::Steady(x));
            let g = r.goodput_ratio();
            assert!(g >= 0.95, "{} at {x}x: goodput {g:.3}", s.name);
            assert_eq!(
                r.class_success("emergency"),
                Some(1.0),
                "{} at {x}x: emergency",
                s.name
            );
            assert!(
                r.latency.p99 <= 20.0,
                "{} at {x}x: p99 {} ms",
                s.name,
                r.latency.p99
            );
        }
    }
}

/// `max_wait_ms` under `[[ups]]` is the UP function's wait bound: at its capacity, from 100 CP
/// functions whose offers fall at random phases, a longer bound refuses fewer requests (a
/// burst waits instead) and the p99 of the successes grows with it.
#[test]
fn a_longer_wait_bound_refuses_less_at_the_capacity_and_waits_longer() {
    let at = |max_wait_ms: Option<f64>| {
        let mut u = up(1000.0);
        u.max_wait_ms = max_wait_ms;
        let mut s = Scenario {
            cps: 100,
            ups: vec![u],
            ..Scenario::default()
        };
        s.sweep.warmup_secs = 1.0;
        s.sweep.measure_secs = 3.0;
        go(&s, Strategy::Toolkit, &Plan::Steady(1.0))
    };
    let (default, long) = (at(None), at(Some(40.0)));
    assert!(default.total.rejected > 0, "{:?}", default.total);
    assert!(
        long.total.rejected * 2 < default.total.rejected,
        "40 ms {:?}, 15 ms {:?}",
        long.total,
        default.total
    );
    assert!(default.latency.max <= 15.0 + 5.0, "{:?}", default.latency);
    assert!(long.latency.max > default.latency.max, "{:?}", long.latency);
    assert!(long.goodput_ratio() > default.goodput_ratio());
}

/// `oci_validity_secs` under `[[ups]]` is its OCIs' Period of Validity. After a storm, a CP
/// function that sends the UP function 1 request in 20 hears of the end of the overload only
/// with the response to one: 300 CP functions at 1x after 10x hold their reduction for seconds.
/// With a validity of 2 s it lapses within 2 s of its last refresh, and the run's goodput is
/// higher than with the default 30 s.
#[test]
fn a_short_validity_lets_a_large_pool_hear_the_end_of_a_storm_sooner() {
    let at = |validity: Option<u64>| {
        let mut u = up(1000.0);
        u.oci_validity_secs = validity;
        let s = Scenario {
            cps: 300,
            ups: vec![u],
            ..Scenario::default()
        };
        let step = pfcp_sim::scenario::StepSpec {
            before: 1.0,
            during: 10.0,
            phase_secs: 4.0,
        };
        go(&s, Strategy::Toolkit, &Plan::Step(step))
    };
    let (default, short) = (at(None), at(Some(2)));
    assert!(
        short.goodput_ratio() > default.goodput_ratio() + 0.01,
        "2 s {:.3}, 30 s {:.3}",
        short.goodput_ratio(),
        default.goodput_ratio()
    );
}

/// The two fields take only what they can mean: a bound above zero, a validity the Timer IE
/// holds exactly (clause 8.2.35).
#[test]
fn the_wait_bound_and_the_validity_are_checked() {
    let check = |f: &dyn Fn(&mut UpSpec)| {
        let mut u = up(1000.0);
        f(&mut u);
        Scenario {
            ups: vec![u],
            ..Scenario::default()
        }
        .validate()
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    assert_eq!(check(&|u| u.max_wait_ms = Some(20.0)), Ok(()));
    assert_eq!(check(&|u| u.oci_validity_secs = Some(2)), Ok(()));
    assert_eq!(check(&|u| u.oci_validity_secs = Some(120)), Ok(()));
    for bad in [0.0, -1.0, f64::NAN, 1e9] {
        let e = check(&|u| u.max_wait_ms = Some(bad)).unwrap_err();
        assert!(e.contains("ups[0]") && e.contains("max_wait_ms"), "{e}");
    }
    for bad in [0, 3, 63] {
        let e = check(&|u| u.oci_validity_secs = Some(bad)).unwrap_err();
        assert!(
            e.contains("ups[0]") && e.contains("oci_validity_secs"),
            "{e}"
        );
    }
}

/// A UP function that refuses with Cause 74 and sends no OCI (the `cause-74-only` profile):
/// the CP functions derive a reduction from its refusals (`cp/implicit.rs`), so at 5x it
/// serves sessions with its capacity instead of spending it on refusals (0.56 of the ideal
/// when they send everything), and their emergency sessions still go first.
#[test]
fn cps_hold_back_from_a_up_function_that_refuses_without_oci() {
    let mut u = up(1000.0);
    u.profile = Some("cause-74-only".into());
    let mut s = Scenario {
        cps: 32,
        ups: vec![u],
        sessions_per_cp: 5000,
        ..Scenario::default()
    };
    s.sweep.warmup_secs = 2.0;
    s.sweep.measure_secs = 4.0;
    let r = go(&s, Strategy::Toolkit, &Plan::Steady(5.0));
    assert!(r.goodput_ratio() >= 0.95, "{}", r.goodput_ratio());
    let emergency = r.class_success("emergency").unwrap_or(0.0);
    assert!(emergency >= 0.99, "{emergency}");
    // What the CP functions throttled, the UP function did not have to refuse: most of the
    // surplus never left them.
    assert!(r.total.throttled > 2 * r.total.rejected, "{:?}", r.total);
}
