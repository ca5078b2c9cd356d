//! The report of `pfcp sim`: what both engines measured, as JSON (`report.json`); the tables
//! printed at the end of a run are in `table`.

use pfcp_sim::{RunResult, Sample, Scenario};
use serde::Serialize;

/// Everything a run of `pfcp sim` measured.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The tool and its version.
    pub tool: String,
    /// The scenario.
    pub scenario: Scenario,
    /// The UP functions' total capacity, requests per second.
    pub capacity: f64,
    /// Virtual time, the scenario as given.
    pub virtual_time: VirtualReport,
    /// Real time on loopback, the scenario at small scale (if run).
    pub real_time: Option<RealReport>,
    /// Seconds the whole run took.
    pub elapsed_secs: f64,
    /// The class whose success the tables and the plot show beside the goodput: `emergency`
    /// if the mix has it, else `emps`; none if the mix has neither.
    pub priority_class: Option<String>,
}

/// The virtual-time runs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct VirtualReport {
    /// One run per strategy and load.
    pub sweep: Vec<RunResult>,
    /// The step, per strategy.
    pub step: Vec<StepReport>,
    /// The restart, per strategy.
    pub restart: Vec<RunResult>,
    /// CP functions coming and going, per strategy.
    pub churn: Vec<RunResult>,
    /// The figures of the sweep's table, one per run of [`VirtualReport::sweep`] in its order.
    pub points: Vec<Point>,
}

/// One steady run's figures, as the tables show them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The strategy.
    pub strategy: String,
    /// The offered load, a multiple of the capacity.
    pub load: f64,
    /// Successful requests per second over the ideal `min(offered, capacity)`.
    pub goodput_ratio: f64,
    /// Share of the priority class's requests that succeeded (`Report::priority_class`), if
    /// it offered any.
    pub priority_success: Option<f64>,
    /// The priority class's offered requests per second as a multiple of the capacity: its
    /// establishments, and the modifications and deletions of its sessions.
    pub priority_load: Option<f64>,
    /// 99th percentile latency of the successful requests, milliseconds.
    pub p99_ms: f64,
}

impl Point {
    /// The figures of `r`, a run against `capacity` requests per second, with `priority` the
    /// priority class's name.
    pub fn of(r: &RunResult, capacity: f64, priority: Option<&str>) -> Point {
        let tally = priority.and_then(|name| {
            r.by_class
                .iter()
                .find(|(n, t)| n == name && t.offered > 0)
                .map(|(_, t)| t)
        });
        Point {
            strategy: r.strategy.clone(),
            load: r.load,
            goodput_ratio: r.goodput_ratio(),
            priority_success: tally.map(|t| t.success()),
            priority_load: tally
                .map(|t| t.offered as f64 / r.measured_secs.max(1e-9) / capacity.max(1e-9)),
            p99_ms: r.latency.p99,
        }
    }
}

/// The class whose success is shown beside the goodput: `emergency` if `scenario`'s mix has
/// it, else `emps`.
pub fn priority_class(scenario: &Scenario) -> Option<String> {
    let classes = scenario.classes().ok()?;
    ["emergency", "emps"]
        .into_iter()
        .find(|name| classes.iter().any(|c| c.name == *name))
        .map(str::to_owned)
}

/// A step run with what it shows.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// The run.
    pub run: RunResult,
    /// Seconds after the step up until the rate the CPs admit (the arrivals at the UP
    /// functions) stays within 5 % of the capacity around its steady value.
    pub settle_up_secs: Option<f64>,
    /// The same after the step back down.
    pub settle_down_secs: Option<f64>,
    /// Spread (max - min) of the arrivals in the second half of the high phase, as a share of
    /// the capacity.
    pub oscillation: f64,
    /// [`StepReport::settle_up_secs`] for the rate the UP functions admit (serve).
    pub served_settle_up_secs: Option<f64>,
    /// [`StepReport::settle_down_secs`] for the rate the UP functions serve.
    pub served_settle_down_secs: Option<f64>,
    /// [`StepReport::oscillation`] for the rate the UP functions serve.
    pub served_oscillation: f64,
    /// Standard deviation of the arrivals from one control interval to the next over the
    /// same samples as [`StepReport::oscillation`], as a share of the capacity: the noise the
    /// spread is made of.
    pub arrivals_sd: f64,
    /// Lag-1 autocorrelation of those arrivals: about 0 for noise, near -1 for a period-2
    /// swing of the loop, near +1 for a slow drift.
    pub arrivals_lag1: f64,
    /// Spread (max - min) of the means of 5 consecutive intervals over the same samples, as
    /// a share of the capacity: a swing of the loop shows here, noise averages out.
    pub arrivals_mean_spread: f64,
}

/// The real-time runs and their virtual-time twins.
#[derive(Debug, Clone, Serialize)]
pub struct RealReport {
    /// The small scenario both engines ran.
    pub scenario: Scenario,
    /// Real time on loopback.
    pub runs: Vec<RunResult>,
    /// Virtual time, the same scenario.
    pub virtual_runs: Vec<RunResult>,
    /// How far apart they are, per run.
    pub difference: Vec<Difference>,
    /// The small scenario's capacity over the scenario's: what the rates were scaled by
    /// (loads stay multiples of the capacity).
    pub capacity_scale: f64,
    /// The figures of the real-time runs, one per run of [`RealReport::runs`] in its order.
    pub points: Vec<Point>,
    /// The same for [`RealReport::virtual_runs`].
    pub virtual_points: Vec<Point>,
}

/// One run in both engines.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    /// The strategy.
    pub strategy: String,
    /// The load.
    pub load: f64,
    /// Goodput as a share of the ideal, real time.
    pub real: f64,
    /// The same, virtual time.
    pub virtual_time: f64,
    /// `real - virtual_time`.
    pub delta: f64,
}

impl RealReport {
    /// The real runs and their twins, paired; `full_capacity` is the capacity of the scenario
    /// `scenario` was made small from, `priority` the priority class.
    pub fn new(
        scenario: Scenario,
        runs: Vec<RunResult>,
        virtual_runs: Vec<RunResult>,
        full_capacity: f64,
        priority: Option<&str>,
    ) -> Self {
        let difference = runs
            .iter()
            .filter_map(|r| {
                let v = virtual_runs
                    .iter()
                    .find(|v| v.strategy == r.strategy && v.load == r.load)?;
                Some(Difference {
                    strategy: r.strategy.clone(),
                    load: r.load,
                    real: r.goodput_ratio(),
                    virtual_time: v.goodput_ratio(),
                    delta: r.goodput_ratio() - v.goodput_ratio(),
                })
            })
            .collect();
        let capacity = scenario.capacity();
        let points = runs
            .iter()
            .map(|r| Point::of(r, capacity, priority))
            .collect();
        let virtual_points = virtual_runs
            .iter()
            .map(|r| Point::of(r, capacity, priority))
            .collect();
        RealReport {
            capacity_scale: capacity / full_capacity.max(1e-9),
            scenario,
            runs,
            virtual_runs,
            difference,
            points,
            virtual_points,
        }
    }
}

impl StepReport {
    /// What the step run `run` of `phase_secs` phases shows, for `capacity` per second.
    pub fn new(run: RunResult, phase_secs: f64, capacity: f64) -> Self {
        let s = &run.series;
        let arrived = |x: &Sample| x.arrived;
        let served = |x: &Sample| x.served;
        let high = high_phase(s, phase_secs, arrived);
        let (arrivals_sd, arrivals_lag1) = noise(&high, capacity);
        StepReport {
            settle_up_secs: settle(s, phase_secs, 2.0 * phase_secs, capacity, arrived),
            settle_down_secs: settle(s, 2.0 * phase_secs, 3.0 * phase_secs, capacity, arrived),
            oscillation: range(&high, capacity),
            served_settle_up_secs: settle(s, phase_secs, 2.0 * phase_secs, capacity, served),
            served_settle_down_secs: settle(
                s,
                2.0 * phase_secs,
                3.0 * phase_secs,
                capacity,
                served,
            ),
            served_oscillation: range(&high_phase(s, phase_secs, served), capacity),
            arrivals_sd,
            arrivals_lag1,
            arrivals_mean_spread: mean_spread(&high, 5, capacity),
            run,
        }
    }
}

/// `rate` over the second half of the high phase.
fn high_phase(s: &[Sample], phase_secs: f64, rate: impl Fn(&Sample) -> f64) -> Vec<f64> {
    s.iter()
        .filter(|x| x.t > 1.5 * phase_secs && x.t <= 2.0 * phase_secs)
        .map(rate)
        .collect()
}

/// Standard deviation of `x` as a share of `capacity`, and its lag-1 autocorrelation (0 for
/// fewer than 2 samples or a constant series).
fn noise(x: &[f64], capacity: f64) -> (f64, f64) {
    if x.len() < 2 {
        return (0.0, 0.0);
    }
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let cov = x
        .windows(2)
        .map(|w| match w {
            [a, b] => (a - mean) * (b - mean),
            _ => 0.0,
        })
        .sum::<f64>()
        / n;
    let lag1 = if var > 0.0 { cov / var } else { 0.0 };
    (var.sqrt() / capacity.max(1e-9), lag1)
}

/// Spread (max - min) of the means of `k` consecutive samples of `x` (a sliding window), as a
/// share of `capacity`; 0 with fewer than `k` samples.
fn mean_spread(x: &[f64], k: usize, capacity: f64) -> f64 {
    let means: Vec<f64> = x
        .windows(k.max(1))
        .map(|w| w.iter().sum::<f64>() / w.len() as f64)
        .collect();
    range(&means, capacity)
}

/// Spread (max - min) of `x` as a share of `capacity`; 0 when empty.
fn range(x: &[f64], capacity: f64) -> f64 {
    match (
        x.iter().copied().reduce(f64::max),
        x.iter().copied().reduce(f64::min),
    ) {
        (Some(hi), Some(lo)) => (hi - lo) / capacity.max(1e-9),
        _ => 0.0,
    }
}

/// Seconds after `from` until `rate` stays within 5 % of the capacity around its steady value
/// (the mean of the phase's second half) up to `to`.
fn settle(
    s: &[Sample],
    from: f64,
    to: f64,
    capacity: f64,
    rate: impl Fn(&Sample) -> f64,
) -> Option<f64> {
    let phase: Vec<&Sample> = s.iter().filter(|x| x.t > from && x.t <= to).collect();
    let tail: Vec<f64> = phase
        .iter()
        .filter(|x| x.t > (from + to) / 2.0)
        .map(|x| rate(x))
        .collect();
    if tail.is_empty() {
        return None;
    }
    let steady = tail.iter().sum::<f64>() / tail.len() as f64;
    let band = 0.05 * capacity.max(steady);
    // The last sample outside the band; settled at the end of the one after.
    let last_out = phase.iter().rposition(|x| (rate(x) - steady).abs() > band);
    Some(match last_out {
        None => phase.first().map_or(0.0, |x| x.t - from),
        Some(i) => phase.get(i).map_or(0.0, |x| x.t - from),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfcp_sim::Tally;

    #[test]
    fn a_point_gives_the_priority_class_its_load_beside_its_success() {
        // 15000 emergency requests offered in 6 s against 2000/s: 2500/s, 1.25x.
        let tally = |offered, succeeded| Tally {
            offered,
            succeeded,
            ..Tally::default()
        };
        let r = RunResult {
            strategy: "toolkit".into(),
            load: 10.0,
            measured_secs: 6.0,
            goodput: 1900.0,
            ideal: 2000.0,
            by_class: vec![
                ("emergency".into(), tally(15_000, 11_535)),
                ("arp12".into(), tally(90_000, 0)),
            ],
            ..RunResult::default()
        };
        let p = Point::of(&r, 2000.0, Some("emergency"));
        assert_eq!(p.priority_load, Some(1.25));
        assert_eq!(p.priority_success, Some(0.769));
        assert_eq!(p.goodput_ratio, 0.95);
        // A class the mix lacks, or none, leaves both out.
        let none = Point::of(&r, 2000.0, Some("emps"));
        assert_eq!((none.priority_load, none.priority_success), (None, None));
        assert_eq!(Point::of(&r, 2000.0, None).priority_load, None);
        // The mix names the class: emergency first, else emps.
        let mut sc = Scenario::default();
        assert_eq!(priority_class(&sc).as_deref(), Some("emergency"));
        sc.mix = "emps=1,arp2=9".into();
        assert_eq!(priority_class(&sc).as_deref(), Some("emps"));
        sc.mix = "arp2=1".into();
        assert_eq!(priority_class(&sc), None);
    }

    #[test]
    fn noise_tells_a_swing_from_a_constant() {
        // A period-2 swing of +-10 around 100: sd 10, lag-1 -1 (n-1 of n products).
        let swing: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 110.0 } else { 90.0 })
            .collect();
        let (sd, lag1) = noise(&swing, 100.0);
        assert!((sd - 0.1).abs() < 1e-12, "{sd}");
        assert!((lag1 + 0.9).abs() < 1e-12, "{lag1}");
        // A constant has neither.
        assert_eq!(noise(&[5.0; 8], 100.0), (0.0, 0.0));
        // A ramp drifts: positive lag-1.
        let ramp: Vec<f64> = (0..20).map(f64::from).collect();
        assert!(noise(&ramp, 1.0).1 > 0.8);
    }

    #[test]
    fn means_average_a_swing_out_and_keep_a_drift() {
        let swing: Vec<f64> = (0..20)
            .map(|i| if i % 2 == 0 { 110.0 } else { 90.0 })
            .collect();
        // Means of 5 alternate between 102 and 98.
        assert!((mean_spread(&swing, 5, 100.0) - 0.04).abs() < 1e-12);
        let step: Vec<f64> = (0..10).map(|i| if i < 5 { 100.0 } else { 150.0 }).collect();
        assert!((mean_spread(&step, 5, 100.0) - 0.5).abs() < 1e-12);
        assert_eq!(mean_spread(&[1.0, 2.0], 5, 1.0), 0.0);
    }
}
