//! The tables `pfcp sim` prints at the end of a run: the load sweep, the step, the restart and
//! the real-time comparison, each with labelled columns and a legend of what they are. A
//! section without runs is left out.

use std::fmt::Write as _;

use pfcp_sim::{RunResult, Scenario};

use super::report::{Point, RealReport, Report, StepReport};

/// `x` as a load, e.g. `2x`, `0.5x`, `1.25x`.
pub(super) fn load(x: f64) -> String {
    format!("{}x", (x * 100.0).round() / 100.0)
}

/// `x` (a share) as a whole percentage, e.g. `13 %`.
fn percent(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

/// A difference with its sign and three decimals; one that rounds to zero is `+0.000`.
fn signed(x: f64) -> String {
    let x = if x.abs() < 0.0005 { 0.0 } else { x };
    format!("{x:+.3}")
}

/// Seconds with one decimal, or `-` when there is no figure.
fn secs(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{x:.1} s"))
}

/// A lag-1 autocorrelation in words: how one control interval's rate follows the last.
pub(super) fn pattern(lag1: f64) -> &'static str {
    if lag1 < -0.5 {
        "alternating"
    } else if lag1 > 0.5 {
        "drifting"
    } else {
        "irregular"
    }
}

/// The priority class's success beside its offered load, e.g. `0.769 at 1.25x`; `-` if the
/// class offered nothing.
fn priority_cell(p: &Point) -> String {
    match (p.priority_success, p.priority_load) {
        (Some(s), Some(l)) => format!("{s:.3} at {l:.2}x"),
        _ => "-".into(),
    }
}

/// `text` wrapped at spaces to lines of at most `width` characters (a longer word stays
/// whole), each line but the first indented by `indent`.
pub(super) fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split(' ') {
        if line > 0 && line + 1 + word.len() > width {
            out.push('\n');
            out.push_str(indent);
            line = indent.len();
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.len();
    }
    out
}

/// How the real-time engine scaled `full` into `small`: what changed, as one sentence.
pub(super) fn scaling(full: &Scenario, small: &Scenario) -> String {
    let rates = |s: &Scenario| {
        s.ups
            .iter()
            .map(|u| format!("{:.0}", u.capacity))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    let mut parts = vec![if full.capacity() == small.capacity() {
        format!(
            "capacity {:.0} requests/s as given (UP functions {})",
            small.capacity(),
            rates(small)
        )
    } else {
        format!(
            "capacity {:.0} -> {:.0} requests/s (UP functions {})",
            full.capacity(),
            small.capacity(),
            rates(small)
        )
    }];
    if full.cps != small.cps {
        parts.push(format!("{} -> {} CP functions", full.cps, small.cps));
    }
    if full.sessions_per_cp != small.sessions_per_cp {
        parts.push(format!(
            "{} -> {} session slots per CP function",
            full.sessions_per_cp, small.sessions_per_cp
        ));
    }
    if full.t1_ms != small.t1_ms || full.n1 != small.n1 {
        parts.push(format!(
            "T1 {} -> {} ms, N1 {} -> {}",
            full.t1_ms, small.t1_ms, full.n1, small.n1
        ));
    }
    parts.push(format!(
        "{} s warm-up and {} s measured per load",
        small.sweep.warmup_secs, small.sweep.measure_secs
    ));
    format!(
        "{}; loads as multiples of the capacity: {}",
        parts.join(", "),
        small
            .sweep
            .loads
            .iter()
            .map(|&x| load(x))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

impl Report {
    /// The tables printed at the end of a run.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let sc = &self.scenario;
        let _ = writeln!(
            out,
            "\npfcp sim: scenario {}, seed {}: {} UP function(s), {:.0} requests/s in all, {} CP function(s), mix {}, refusal cost {}, control interval {} ms",
            sc.name,
            sc.seed,
            sc.ups.len(),
            self.capacity,
            sc.cps,
            sc.mix,
            sc.rejection_cost,
            sc.interval_ms
        );
        self.render_sweep(&mut out);
        self.render_step(&mut out);
        self.render_restart(&mut out);
        self.render_profiles(&mut out);
        self.render_churn(&mut out);
        if let Some(rt) = &self.real_time {
            self.render_real(rt, &mut out);
        }
        out
    }

    /// The strategies' names in the scenario's order, then any other a run names.
    fn strategy_order<'a>(&self, points: impl Iterator<Item = &'a str>) -> Vec<String> {
        let mut names: Vec<String> = self
            .scenario
            .strategies
            .iter()
            .map(|s| s.name().to_owned())
            .collect();
        for p in points {
            if !names.iter().any(|n| n == p) {
                names.push(p.to_owned());
            }
        }
        names
    }

    /// The header of the priority class's column (`emergency success`), if there is one.
    fn priority_header(&self) -> Option<String> {
        self.priority_class.as_ref().map(|c| format!("{c} success"))
    }

    fn render_sweep(&self, out: &mut String) {
        let v = &self.virtual_time;
        if v.points.is_empty() {
            return;
        }
        let sweep = &self.scenario.sweep;
        let _ = writeln!(
            out,
            "\nvirtual time, load sweep: {} s warm-up, {} s measured per load",
            sweep.warmup_secs, sweep.measure_secs
        );
        let prio = self.priority_header();
        let _ = write!(
            out,
            "{:>6}  {:>7}  {:<15}  {:>13}",
            "load", "ideal/s", "strategy", "goodput/ideal"
        );
        if let Some(h) = &prio {
            let _ = write!(out, "  {h:>18}");
        }
        let _ = writeln!(out, "  {:>7}", "p99 ms");
        let mut loads: Vec<f64> = v.points.iter().map(|p| p.load).collect();
        loads.sort_by(f64::total_cmp);
        loads.dedup();
        let order = self.strategy_order(v.points.iter().map(|p| p.strategy.as_str()));
        for &x in &loads {
            let mut first = true;
            for name in &order {
                let Some((p, r)) = v
                    .points
                    .iter()
                    .zip(&v.sweep)
                    .find(|(p, _)| p.load == x && p.strategy == *name)
                else {
                    continue;
                };
                let (l, ideal) = if first {
                    (load(x), format!("{:.0}", r.ideal))
                } else {
                    (String::new(), String::new())
                };
                first = false;
                let _ = write!(
                    out,
                    "{l:>6}  {ideal:>7}  {:<15}  {:>13.3}",
                    p.strategy, p.goodput_ratio
                );
                if prio.is_some() {
                    let _ = write!(out, "  {:>18}", priority_cell(p));
                }
                let _ = writeln!(out, "  {:>7.1}", p.p99_ms);
            }
        }
        let _ = writeln!(
            out,
            "  load: offered requests as a multiple of the capacity ({:.0} requests/s); ideal/s: min(offered, capacity)",
            self.capacity
        );
        let _ = writeln!(
            out,
            "  goodput/ideal: successful requests per second over the ideal"
        );
        if let (Some(h), Some(c)) = (&prio, &self.priority_class) {
            let _ = writeln!(
                out,
                "  {h}: share of the {c} class's requests that succeeded, at its offered rate as a multiple of"
            );
            let _ = writeln!(
                out,
                "    the capacity (its sessions' modifications and deletions included)"
            );
        }
        let _ = writeln!(
            out,
            "  p99 ms: 99th percentile latency of the successful requests, milliseconds"
        );
    }

    fn render_step(&self, out: &mut String) {
        let v = &self.virtual_time;
        let Some(spec) = &self.scenario.step else {
            return;
        };
        if v.step.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\nvirtual time, load step: {} for {} s, {} for {} s, then {} for {} s",
            load(spec.before),
            spec.phase_secs,
            load(spec.during),
            spec.phase_secs,
            load(spec.before),
            spec.phase_secs
        );
        let _ = writeln!(
            out,
            "  {:<15}  {:<8}  {:>9}  {:>11}  {:>6}  {:>9}  {:>5}  {:<11}  {:>13}",
            "strategy",
            "rate",
            "settle up",
            "settle down",
            "swing",
            "1 s swing",
            "noise",
            "pattern",
            "goodput/ideal"
        );
        // The statistics of the high phase's second half need samples: 2 for the noise, 5
        // for the averages.
        let interval_secs = self.scenario.interval_ms as f64 / 1000.0;
        let samples = (spec.phase_secs / 2.0 / interval_secs.max(1e-9)).floor();
        let shown = Shown {
            noise: samples >= 2.0,
            averages: samples >= 5.0,
        };
        let order = self.strategy_order(v.step.iter().map(|s| s.run.strategy.as_str()));
        for name in &order {
            let Some(st) = v.step.iter().find(|s| s.run.strategy == *name) else {
                continue;
            };
            step_rows(st, shown, out);
        }
        let interval = self.scenario.interval_ms;
        let _ = writeln!(
            out,
            "  arriving: requests reaching the UP functions (after the CP functions' throttling); served: what they serve"
        );
        let _ = writeln!(
            out,
            "  settle up, settle down: seconds after the step until the rate stays within 5 % of the capacity of its level"
        );
        let _ = writeln!(
            out,
            "  swing: highest minus lowest rate per control interval ({interval} ms) in the high phase's second half, % of the capacity"
        );
        let _ = writeln!(
            out,
            "  1 s swing: the same over averages of 5 intervals ({} s): a swing of the control loop stays, noise averages out",
            5.0 * interval as f64 / 1000.0
        );
        let _ = writeln!(
            out,
            "  noise: standard deviation of the rate from one interval to the next, % of the capacity"
        );
        let _ = writeln!(
            out,
            "  pattern: alternating (successive intervals correlate below -0.5), drifting (above +0.5), else irregular"
        );
    }

    fn render_restart(&self, out: &mut String) {
        let v = &self.virtual_time;
        let Some(spec) = &self.scenario.restart else {
            return;
        };
        if v.restart.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\nvirtual time, UP function {} restarts: down at {} s for {} s, {} offered, {} s run",
            spec.up,
            spec.at_secs,
            spec.down_secs,
            load(spec.load),
            spec.run_secs
        );
        let _ = writeln!(
            out,
            "  {:<15}  {:>13}  {:>8}  {:>13}  {:>16}  {:>14}",
            "strategy",
            "sessions lost",
            "restored",
            "goodput/ideal",
            "answered locally",
            "others refused"
        );
        let order = self.strategy_order(v.restart.iter().map(|r| r.strategy.as_str()));
        for name in &order {
            let Some(r) = v.restart.iter().find(|r| r.strategy == *name) else {
                continue;
            };
            let _ = writeln!(
                out,
                "  {:<15}  {:>13}  {:>8}  {:>13.3}  {:>16}  {:>14}",
                r.strategy,
                r.sessions.lost,
                r.sessions.restored,
                r.goodput_ratio(),
                r.total.unassociated,
                r.refused_by_others()
            );
        }
        let _ = writeln!(
            out,
            "  sessions lost: the restarted UP function's sessions; restored: established again after it came back"
        );
        let _ = writeln!(
            out,
            "  answered locally: requests the CP functions answered themselves with cause 72 (no association)"
        );
        let _ = writeln!(
            out,
            "  others refused: requests the UP functions that did not restart refused; ideal: {}",
            v.restart.first().map_or("", |r| r.ideal_basis.as_str())
        );
    }

    /// Per CP profile, where the scenario mixes them: goodput share, emergency success, what
    /// their headers carried.
    fn render_profiles(&self, out: &mut String) {
        let v = &self.virtual_time;
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
    fn render_churn(&self, out: &mut String) {
        for r in &self.virtual_time.churn {
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

    fn render_real(&self, rt: &RealReport, out: &mut String) {
        let _ = writeln!(
            out,
            "\nreal time on loopback: the scenario at small scale, and the same small scenario in virtual time"
        );
        let _ = writeln!(
            out,
            "  {}",
            wrap(&scaling(&self.scenario, &rt.scenario), 98, "    ")
        );
        let prio = self.priority_header();
        // Over real, virtual and difference; over the real-time run's own columns.
        let _ = write!(out, "{:25}{:^27}", "", "goodput/ideal");
        let _ = writeln!(
            out,
            "{:>width$}",
            "real time",
            width = if prio.is_some() { 29 } else { 9 }
        );
        let _ = write!(
            out,
            "{:>6}  {:<15}  {:>5}  {:>7}  {:>10}",
            "load", "strategy", "real", "virtual", "difference"
        );
        if let Some(h) = &prio {
            let _ = write!(out, "  {h:>18}");
        }
        let _ = writeln!(out, "  {:>7}", "p99 ms");
        let order = self.strategy_order(rt.points.iter().map(|p| p.strategy.as_str()));
        let mut loads: Vec<f64> = rt.points.iter().map(|p| p.load).collect();
        loads.sort_by(f64::total_cmp);
        loads.dedup();
        for &x in &loads {
            let mut first = true;
            for name in &order {
                let Some(p) = rt
                    .points
                    .iter()
                    .find(|p| p.load == x && p.strategy == *name)
                else {
                    continue;
                };
                let twin = rt
                    .virtual_points
                    .iter()
                    .find(|v| v.load == x && v.strategy == *name);
                let l = if first { load(x) } else { String::new() };
                first = false;
                let _ = write!(
                    out,
                    "{l:>6}  {:<15}  {:>5.3}  {:>7}  {:>10}",
                    p.strategy,
                    p.goodput_ratio,
                    twin.map_or("-".into(), |v| format!("{:.3}", v.goodput_ratio)),
                    twin.map_or("-".into(), |v| signed(p.goodput_ratio - v.goodput_ratio)),
                );
                if prio.is_some() {
                    let _ = write!(out, "  {:>18}", priority_cell(p));
                }
                let _ = writeln!(out, "  {:>7.1}", p.p99_ms);
            }
        }
        let _ = writeln!(
            out,
            "  goodput/ideal: successful requests per second over min(offered, capacity), on loopback (real) and in"
        );
        let _ = writeln!(
            out,
            "    virtual time; difference: real minus virtual; the last columns are the real-time run's"
        );
    }
}

/// Which of the step's statistics have the samples they need.
#[derive(Debug, Clone, Copy)]
struct Shown {
    /// The noise and the pattern (2 intervals).
    noise: bool,
    /// The 1 s swing (5 intervals).
    averages: bool,
}

/// The step's two rows of one strategy: the arrivals and what was served; `-` for a
/// statistic without the samples it needs.
fn step_rows(st: &StepReport, shown: Shown, out: &mut String) {
    let dash = || "-".to_owned();
    let _ = writeln!(
        out,
        "  {:<15}  {:<8}  {:>9}  {:>11}  {:>6}  {:>9}  {:>5}  {:<11}  {:>13.3}",
        st.run.strategy,
        "arriving",
        secs(st.settle_up_secs),
        secs(st.settle_down_secs),
        percent(st.oscillation),
        if shown.averages {
            percent(st.arrivals_mean_spread)
        } else {
            dash()
        },
        if shown.noise {
            percent(st.arrivals_sd)
        } else {
            dash()
        },
        if shown.noise {
            pattern(st.arrivals_lag1)
        } else {
            "-"
        },
        st.run.goodput_ratio()
    );
    let _ = writeln!(
        out,
        "  {:<15}  {:<8}  {:>9}  {:>11}  {:>6}",
        "",
        "served",
        secs(st.served_settle_up_secs),
        secs(st.served_settle_down_secs),
        percent(st.served_oscillation)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_patterns_read_as_words() {
        assert_eq!(load(0.5), "0.5x");
        assert_eq!(load(10.0), "10x");
        assert_eq!(load(1.2549), "1.25x");
        assert_eq!(pattern(-0.9), "alternating");
        assert_eq!(pattern(0.0), "irregular");
        assert_eq!(pattern(0.8), "drifting");
        assert_eq!(signed(-0.0001), "+0.000");
        assert_eq!(signed(-0.07), "-0.070");
    }

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        assert_eq!(wrap("aa bb cc dd", 5, "  "), "aa bb\n  cc\n  dd");
        assert_eq!(wrap("a verylongword b", 4, ""), "a\nverylongword\nb");
        assert_eq!(wrap("short", 80, "    "), "short");
    }

    #[test]
    fn scaling_names_what_changed() {
        let full = Scenario::default();
        let small = full.small();
        let text = scaling(&full, &small);
        // The default's UP functions are 1500 and 500 requests/s; the small scenario keeps
        // their proportion at 800 in all.
        assert!(
            text.starts_with("capacity 2000 -> 800 requests/s (UP functions 600 + 200)"),
            "{text}"
        );
        assert!(text.contains("8 -> 4 CP functions"), "{text}");
        assert!(text.contains("T1 3000 -> 500 ms, N1 3 -> 2"), "{text}");
        assert!(text.ends_with("0.5x, 2x, 5x"), "{text}");
    }
}
