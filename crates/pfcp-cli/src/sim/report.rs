//! The report of `pfcp sim`: what both engines measured, as JSON (`report.json`) and as the
//! tables printed at the end of a run.

use std::fmt::Write as _;

use pfcp_sim::{RunResult, Sample, Scenario, Strategy};
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
    /// The real runs and their twins, paired.
    pub fn new(scenario: Scenario, runs: Vec<RunResult>, virtual_runs: Vec<RunResult>) -> Self {
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
        RealReport {
            scenario,
            runs,
            virtual_runs,
            difference,
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

/// `x` as a load, e.g. `2x`, `0.5x`.
fn load(x: f64) -> String {
    format!("{}x", (x * 100.0).round() / 100.0)
}

impl Report {
    /// The tables printed at the end of a run.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let v = &self.virtual_time;
        let strategies: Vec<Strategy> = self.scenario.strategies.clone();
        let _ = writeln!(
            out,
            "\npfcp sim: {} UP function(s), {:.0} requests/s in all, {} CP function(s), mix {}, refusal cost {}, control interval {} ms",
            self.scenario.ups.len(),
            self.capacity,
            self.scenario.cps,
            self.scenario.mix,
            self.scenario.rejection_cost,
            self.scenario.interval_ms
        );
        let _ = writeln!(out, "\nvirtual time: goodput as a share of the ideal min(offered, capacity); emergency success; p99 of successes");
        let _ = write!(out, "{:>6} {:>8}", "load", "ideal/s");
        for s in &strategies {
            let _ = write!(out, " | {:>26}", s.name());
        }
        out.push('\n');
        let mut loads: Vec<f64> = v.sweep.iter().map(|r| r.load).collect();
        loads.sort_by(f64::total_cmp);
        loads.dedup();
        for &x in &loads {
            let ideal = v
                .sweep
                .iter()
                .find(|r| r.load == x)
                .map_or(0.0, |r| r.ideal);
            let _ = write!(out, "{:>6} {:>8.0}", load(x), ideal);
            for s in &strategies {
                match v
                    .sweep
                    .iter()
                    .find(|r| r.load == x && r.strategy == s.name())
                {
                    Some(r) => {
                        let e = r.class_success("emergency").or(r.class_success("emps"));
                        let _ = write!(
                            out,
                            " | {:>6.3} {:>8} {:>8.1} ms",
                            r.goodput_ratio(),
                            e.map_or("-".into(), |e| format!("{e:.3}")),
                            r.latency.p99
                        );
                    }
                    None => {
                        let _ = write!(out, " | {:>26}", "-");
                    }
                }
            }
            out.push('\n');
        }
        if !v.step.is_empty() {
            let _ = writeln!(out, "\nvirtual time, step: settling (within 5 % of capacity) and spread in the high phase of the rate the CPs admit (arrivals) and the UPs admit (served)");
            for st in &v.step {
                let f = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.1} s"));
                let _ = writeln!(
                    out,
                    "  {:>16}: arrivals up {:>6}, down {:>6}, spread {:.2} (sd {:.2}, lag-1 {:+.2}, means of 5 intervals {:.2}); served up {:>6}, down {:>6}, spread {:.2}; goodput {:.3} of ideal",
                    st.run.strategy,
                    f(st.settle_up_secs),
                    f(st.settle_down_secs),
                    st.oscillation,
                    st.arrivals_sd,
                    st.arrivals_lag1,
                    st.arrivals_mean_spread,
                    f(st.served_settle_up_secs),
                    f(st.served_settle_down_secs),
                    st.served_oscillation,
                    st.run.goodput_ratio()
                );
            }
        }
        if !v.restart.is_empty() {
            let _ = writeln!(
                out,
                "\nvirtual time, UP restart: sessions lost and restored, goodput over the run (ideal: {})",
                v.restart.first().map_or("", |r| r.ideal_basis.as_str())
            );
            for r in &v.restart {
                let _ = writeln!(
                    out,
                    "  {:>16}: {} lost, {} restored, goodput {:.3} of ideal, {} answered locally with cause 72, {} refused by the UP functions that did not restart",
                    r.strategy,
                    r.sessions.lost,
                    r.sessions.restored,
                    r.goodput_ratio(),
                    r.total.unassociated,
                    r.refused_by_others()
                );
            }
        }
        render_profiles(&mut out, v);
        render_churn(&mut out, &v.churn);
        if let Some(rt) = &self.real_time {
            let _ = writeln!(
                out,
                "\nreal time on loopback ({}: {:.0} requests/s, {} CP functions) against virtual time, goodput / ideal",
                rt.scenario.name,
                rt.scenario.capacity(),
                rt.scenario.cps
            );
            for d in &rt.difference {
                let _ = writeln!(
                    out,
                    "  {:>16} {:>5}: real {:.3}, virtual {:.3}, difference {:+.3}",
                    d.strategy,
                    load(d.load),
                    d.real,
                    d.virtual_time,
                    d.delta
                );
            }
        }
        out
    }
}

/// Per CP profile, where the scenario mixes them: goodput share, emergency success, what
/// their headers carried.
fn render_profiles(out: &mut String, v: &VirtualReport) {
    let runs = v.sweep.iter().chain(&v.restart).chain(&v.churn);
    let mixed: Vec<&RunResult> = runs.filter(|r| r.by_profile.len() > 1).collect();
    if mixed.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nvirtual time, CP profiles: share of the goodput (of the offers), emergency success, session requests sent without a message priority");
    for r in mixed {
        let _ = write!(out, "  {:>16} {:>5}:", r.strategy, load(r.load));
        for p in &r.by_profile {
            let sent: u64 = p.wire.iter().map(|(_, w)| w.sent).sum();
            let unmarked: u64 = p.wire.iter().map(|(_, w)| w.unmarked).sum();
            let _ = write!(
                out,
                " {} ({} CPs) {:.3} ({:.3}), {}, {unmarked} of {sent} unmarked;",
                p.profile.name(),
                p.cps,
                p.goodput_share,
                p.offered_share,
                p.emergency_success
                    .map_or("-".into(), |e| format!("{e:.3}"))
            );
        }
        let _ = writeln!(
            out,
            " emergency success of the CPs with overload control {}",
            r.supporting_emergency_success()
                .map_or("-".into(), |e| format!("{e:.3}"))
        );
    }
}

/// The churn runs: lives, the UP functions' largest tables, whether the live CP functions
/// were throttled.
fn render_churn(out: &mut String, runs: &[RunResult]) {
    for r in runs {
        let Some(c) = &r.churn else {
            continue;
        };
        let _ = writeln!(
            out,
            "\nvirtual time, CP churn ({}): {} CP functions of {:.2} s lives, {} released, {} vanished; associations {} accepted, {} refused; the UPs saw {} releases and {} heartbeat failures; goodput {:.3} of ideal",
            r.strategy,
            c.started,
            c.life_secs,
            c.released,
            c.vanished,
            c.associations_accepted,
            c.associations_refused,
            c.releases_seen,
            c.failures_seen,
            r.goodput_ratio()
        );
        for (u, p) in c.peak.iter().enumerate() {
            let _ = writeln!(
                out,
                "  UP {}: at most {} peers known, {} associated, {} sessions, {} guard sources, {} cached responses",
                u + 1,
                p.peers,
                p.associated,
                p.sessions,
                p.guard_sources,
                p.cached_responses
            );
        }
        let t = &c.throttle;
        let _ = writeln!(
            out,
            "  throttled while overloaded: {} of {} CP lives checked ({} checked twice or more never), {} of {} checks",
            t.lives_throttled, t.lives_checked, t.lives_never_throttled, t.checks_throttled, t.checks
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
