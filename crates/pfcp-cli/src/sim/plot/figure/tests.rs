//! The plot's data: ticks, colours, the priority success, the real-time points and the
//! step, on reports made here.

use pfcp_sim::{Scenario, Tally};

use super::super::super::report::{RealReport, StepReport, VirtualReport};
use super::*;

/// A steady run: `goodput` per second against `ideal`, its emergency class 9 of 10.
fn steady(strategy: Strategy, load: f64, goodput: f64, ideal: f64) -> RunResult {
    RunResult {
        strategy: strategy.name().into(),
        load,
        measured_secs: 1.0,
        goodput,
        ideal,
        by_class: vec![(
            "emergency".into(),
            Tally {
                offered: 10,
                succeeded: 9,
                ..Tally::default()
            },
        )],
        ..RunResult::default()
    }
}

/// A step run of 1x, 10x, 1x of 2 s phases against `cap`, sampled every 0.5 s: arrivals
/// at `high` times the capacity in the high phase, the capacity otherwise.
fn step_run(strategy: Strategy, cap: f64, high: f64) -> StepReport {
    let series = (1..=12)
        .map(|i| {
            let t = f64::from(i) * 0.5;
            let in_high = t > 2.0 && t <= 4.0;
            Sample {
                t,
                offered: if in_high { 10.0 } else { 1.0 },
                arrived: if in_high { high * cap } else { cap },
                served: cap,
                succeeded: cap,
                metric: vec![if in_high { 50 } else { 0 }],
                queue: vec![0],
            }
        })
        .collect();
    let run = RunResult {
        strategy: strategy.name().into(),
        load: 10.0,
        series,
        ..RunResult::default()
    };
    StepReport::new(run, 2.0, cap)
}

/// A report of `strategies` (in that order) at 0.5x, 2x and 10x of 1000/s, a step, and
/// with `real` a real-time run of each at 2x of 400/s.
fn report(strategies: &[Strategy], real: bool) -> Report {
    let cap = 1000.0;
    let mut scenario = Scenario::default();
    scenario.ups.truncate(1);
    if let Some(u) = scenario.ups.first_mut() {
        u.capacity = cap;
    }
    scenario.strategies = strategies.to_vec();
    if let Some(step) = &mut scenario.step {
        step.phase_secs = 2.0;
    }
    let mut v = VirtualReport::default();
    for (k, &s) in strategies.iter().enumerate() {
        for x in [0.5, 2.0, 10.0] {
            let ideal = (x * cap).min(cap);
            v.sweep
                .push(steady(s, x, ideal * (1.0 - 0.1 * k as f64), ideal));
        }
        // The first strategy's arrivals go to 10x, far above the axis.
        v.step
            .push(step_run(s, cap, if k == 0 { 10.0 } else { 1.2 }));
    }
    let prio = Some("emergency");
    v.points = v.sweep.iter().map(|r| Point::of(r, cap, prio)).collect();
    let real_time = real.then(|| {
        let mut small = scenario.small();
        small.strategies = strategies.to_vec();
        if let Some(u) = small.ups.first_mut() {
            u.capacity = 400.0;
        }
        let runs: Vec<RunResult> = strategies
            .iter()
            .map(|&s| steady(s, 2.0, 380.0, 400.0))
            .collect();
        RealReport::new(small, runs.clone(), runs, cap, prio)
    });
    Report {
        tool: "test".into(),
        capacity: cap,
        scenario,
        virtual_time: v,
        real_time,
        elapsed_secs: 0.0,
        priority_class: Some("emergency".into()),
    }
}

#[test]
fn load_ticks_are_one_two_five_each_label_once() {
    // The default sweep (0.5x .. 10x) with the plot's margins.
    assert_eq!(load_ticks(0.4, 12.5), [0.5, 1.0, 2.0, 5.0, 10.0]);
    let labels: Vec<String> = load_ticks(0.4, 12.5).into_iter().map(tick_label).collect();
    assert_eq!(labels, ["0.5x", "1x", "2x", "5x", "10x"]);
    for (lo, hi) in [
        (0.001, 1000.0),
        (0.003, 0.02),
        (0.3, 1.5),
        (1.6, 3.75),
        (0.4, 3.75),
        (0.8, 1.25),
    ] {
        let ticks = load_ticks(lo, hi);
        let mut labels: Vec<String> = ticks.iter().map(|&x| tick_label(x)).collect();
        let n = labels.len();
        labels.dedup();
        assert_eq!(labels.len(), n, "{lo}..{hi}: {labels:?}");
        assert!(ticks.iter().all(|&x| x >= lo && x <= hi), "{ticks:?}");
        assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
        assert!(ticks.len() >= 2, "{lo}..{hi}: {ticks:?}");
    }
    // A narrower range gets finer steps.
    assert_eq!(load_ticks(0.4, 3.75), [0.5, 0.7, 1.0, 1.5, 2.0, 3.0]);
    assert_eq!(load_ticks(0.8, 1.25), [0.8, 0.9, 1.0, 1.2]);
    assert_eq!(tick_label(0.005), "0.005x");
}

#[test]
fn the_load_axis_has_ticks_below_1x_and_up_to_the_highest_load() {
    let fig = Figure::of(&report(&Strategy::ALL, false));
    let s = fig.sweep.unwrap();
    assert!(s.x_range.0 < 0.5 && s.x_range.1 > 10.0, "{:?}", s.x_range);
    assert_eq!(s.ticks, [0.5, 1.0, 2.0, 5.0, 10.0]);
}

#[test]
fn a_strategy_has_one_colour_whatever_the_scenario_order() {
    let colours = |fig: &Figure| -> Vec<(String, RGBColor)> {
        let mut c: Vec<(String, RGBColor)> = fig
            .legend
            .iter()
            .map(|k| (k.text.clone(), k.colour))
            .collect();
        c.sort_by(|a, b| a.0.cmp(&b.0));
        c
    };
    let forward = Figure::of(&report(&Strategy::ALL, false));
    let mut reversed_order = Strategy::ALL.to_vec();
    reversed_order.reverse();
    let reversed = Figure::of(&report(&reversed_order, false));
    assert_eq!(colours(&forward), colours(&reversed));
    // Every panel draws a strategy in its legend colour.
    for fig in [&forward, &reversed] {
        let s = fig.sweep.as_ref().unwrap();
        let st = fig.step.as_ref().unwrap();
        let prio = &s.priority.as_ref().unwrap().1;
        for c in s.goodput.iter().chain(prio).chain(&st.arriving) {
            let key = fig.legend.iter().find(|k| k.text == c.strategy).unwrap();
            assert_eq!(key.colour, c.colour, "{}", c.strategy);
        }
    }
    // Four strategies, four colours, none the capacity line's grey.
    let mut distinct: Vec<RGBColor> = colours(&forward).into_iter().map(|c| c.1).collect();
    distinct.dedup();
    assert_eq!(distinct.len(), 4);
    assert!(!distinct.contains(&GREY));
}

#[test]
fn the_priority_success_and_the_real_time_points_are_plotted() {
    let fig = Figure::of(&report(&[Strategy::NoControl, Strategy::Toolkit], true));
    let s = fig.sweep.unwrap();
    let (class, prio) = s.priority.unwrap();
    assert_eq!(class, "emergency");
    assert_eq!(prio.len(), 2);
    // 9 of 10 emergency requests at every load.
    assert!(prio
        .iter()
        .all(|c| c.points == [(0.5, 0.9), (2.0, 0.9), (10.0, 0.9)]));
    // Real time: 380/s of 400/s at 2x, as markers of each strategy, and their key.
    assert_eq!(s.real_goodput.len(), 2);
    for c in &s.real_goodput {
        assert_eq!(c.points, [(2.0, 0.95)]);
    }
    assert!(s.real_priority.iter().all(|c| c.points == [(2.0, 0.9)]));
    assert!(fig.legend.iter().any(|k| k.triangle));
    // Without real-time runs, no marker and no key for one.
    let fig = Figure::of(&report(&[Strategy::Toolkit], false));
    assert!(fig.sweep.unwrap().real_goodput.is_empty());
    assert!(!fig.legend.iter().any(|k| k.triangle));
}

#[test]
fn the_step_shows_every_strategy_the_capacity_the_phases_and_the_offered_rate() {
    let fig = Figure::of(&report(&Strategy::ALL, false));
    let st = fig.step.unwrap();
    let names: Vec<&str> = st.arriving.iter().map(|c| c.strategy.as_str()).collect();
    assert_eq!(names, Strategy::ALL.map(Strategy::name));
    assert_eq!(st.succeeded.len(), 4);
    assert_eq!(st.metric.len(), 4);
    assert_eq!(st.capacity, 1000.0);
    assert_eq!(st.end, 6.0);
    let marks: Vec<(f64, &str)> = st.phases.iter().map(|m| (m.t, m.label.as_str())).collect();
    assert_eq!(marks, [(2.0, "step up to 10x"), (4.0, "down to 1x")]);
    // The first strategy's 10x arrivals are above the axis (at most 3x): clipped, and
    // their peak said; the others' 1.2x are drawn as they are.
    assert!(st.top <= 3.0 * 1000.0 * 1.08 + 1e-9 && st.top >= 1.2 * 1000.0);
    assert_eq!(st.arriving.first().unwrap().off_scale_peak, Some(10_000.0));
    assert!(st
        .arriving
        .iter()
        .skip(1)
        .all(|c| c.off_scale_peak.is_none()));
    assert!(st
        .arriving
        .iter()
        .all(|c| c.points.iter().all(|p| p.1 <= st.top)));
    // The offered rate: 10x is clipped and labelled with its value, 1x labelled as is.
    assert!(st.offered.iter().all(|p| p.1 <= st.top));
    let texts: Vec<&str> = st.offered_labels.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "offered 1x = 1000/s",
            "offered 10x = 10000/s, off the scale"
        ]
    );
}
