//! What the plot shows, as data: the panels, their ticks, every curve with its colour and
//! points, the marks and the labels. `plot` only draws it, so what a reader sees is tested
//! here without an SVG.

use pfcp_sim::{RunResult, Sample, Strategy};
use plotters::style::RGBColor;

use super::super::report::{Point, Report};
use super::super::table::load;

/// Grey, for what is no strategy (the capacity line) or a strategy this version does not know.
pub(crate) const GREY: RGBColor = RGBColor(0x70, 0x70, 0x70);

/// The colour of a strategy, the same in every report whatever the scenario's order
/// (colour-blind safe: Okabe and Ito's palette).
pub(crate) fn strategy_colour(name: &str) -> RGBColor {
    match Strategy::ALL.into_iter().find(|s| s.name() == name) {
        Some(Strategy::NoControl) => RGBColor(0xd5, 0x5e, 0x00),
        Some(Strategy::SelfProtection) => RGBColor(0xe6, 0x9f, 0x00),
        Some(Strategy::RandomLoss) => RGBColor(0xcc, 0x79, 0xa7),
        Some(Strategy::Toolkit) => RGBColor(0x00, 0x72, 0xb2),
        None => GREY,
    }
}

/// One strategy's points in a panel.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Curve {
    /// The strategy's name.
    pub strategy: String,
    /// The curve's highest value when it is above the panel's axis (drawn clipped at the top).
    pub off_scale_peak: Option<f64>,
    /// [`strategy_colour`].
    pub colour: RGBColor,
    /// (x, y), in x order.
    pub points: Vec<(f64, f64)>,
}

/// The two panels against offered load: goodput, and the priority class's success.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SweepPanels {
    /// What the lines are (engine, scale and capacity), for the captions.
    pub lines_from: String,
    /// The x axis (load, logarithmic).
    pub x_range: (f64, f64),
    /// Where the x axis has a tick and a label (see [`load_ticks`]).
    pub ticks: Vec<f64>,
    /// The goodput panel's y axis: at least 1.15, more if a run's goodput was above it.
    pub goodput_top: f64,
    /// Goodput over the capacity, per strategy (lines).
    pub goodput: Vec<Curve>,
    /// The priority class and its success per strategy (lines), if the mix has one.
    pub priority: Option<(String, Vec<Curve>)>,
    /// The real-time runs' goodput over their capacity (markers), per strategy.
    pub real_goodput: Vec<Curve>,
    /// The real-time runs' priority success (markers), per strategy.
    pub real_priority: Vec<Curve>,
}

/// A vertical mark on the step's time axis.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mark {
    /// Seconds.
    pub t: f64,
    /// What happens there.
    pub label: String,
}

/// A label at a point of a panel.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Label {
    /// Where (x, y), data coordinates; the text's bottom-left corner.
    pub at: (f64, f64),
    /// The text.
    pub text: String,
}

/// The step over time: the rate reaching the UP functions, the rate that succeeded, and the
/// published overload metric, every strategy in each.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StepPanels {
    /// The run's length, seconds.
    pub end: f64,
    /// The y axis of the two rate panels, requests per second (rates above are clipped, and
    /// their legend entry says so).
    pub top: f64,
    /// The capacity line, requests per second.
    pub capacity: f64,
    /// The step up and the step down.
    pub phases: Vec<Mark>,
    /// The offered rate, clipped at [`StepPanels::top`].
    pub offered: Vec<(f64, f64)>,
    /// The offered rate's values, by its line (a clipped value said in words).
    pub offered_labels: Vec<Label>,
    /// Requests reaching the UP functions per second, per strategy.
    pub arriving: Vec<Curve>,
    /// Requests that succeeded per second, per strategy.
    pub succeeded: Vec<Curve>,
    /// The highest Overload Reduction Metric any UP function published, per strategy.
    pub metric: Vec<Curve>,
}

/// An entry of the figure's legend.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Key {
    /// What it names.
    pub text: String,
    /// Its colour.
    pub colour: RGBColor,
    /// A line (a strategy), or the real-time runs' triangle.
    pub triangle: bool,
}

/// Everything the plot shows; a panel without runs is absent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Figure {
    /// The legend above the panels: every strategy drawn, in the scenario's order, and the
    /// real-time runs' marker if there are any; the same colours in every panel.
    pub legend: Vec<Key>,
    /// Against offered load.
    pub sweep: Option<SweepPanels>,
    /// The step over time.
    pub step: Option<StepPanels>,
}

/// Ticks of a logarithmic load axis from `lo` to `hi`: 1, 2 and 5 times the powers of ten
/// within it; finer steps where that gives fewer than four. Each has its own label
/// ([`tick_label`]).
pub(crate) fn load_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let within = |mantissas: &[f64]| -> Vec<f64> {
        let (Some(first), Some(last)) =
            (finite_exponent(lo.max(1e-6)), finite_exponent(hi.max(1e-6)))
        else {
            return Vec::new();
        };
        let mut ticks = Vec::new();
        for e in first..=last {
            for m in mantissas {
                // Rounded to six significant digits: 0.1 * 5 must read 0.5, not 0.5000000001.
                let v = round_significant(m * 10f64.powi(e));
                if v >= lo && v <= hi {
                    ticks.push(v);
                }
            }
        }
        ticks
    };
    let steps: [&[f64]; 3] = [
        &[1.0, 2.0, 5.0],
        &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0],
        &[1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ];
    let mut ticks = Vec::new();
    for mantissas in steps {
        ticks = within(mantissas);
        if ticks.len() >= 4 {
            break;
        }
    }
    ticks
}

/// A tick's label: the load with as many digits as it has, e.g. `0.5x`, `10x`, `0.005x`.
pub(crate) fn tick_label(x: f64) -> String {
    format!("{}x", round_significant(x))
}

/// The power of ten at or below `x`.
fn finite_exponent(x: f64) -> Option<i32> {
    let e = x.log10().floor();
    (e.is_finite() && e.abs() < 300.0).then_some(e as i32)
}

fn round_significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(5 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// A steady run as the panels against offered load read it.
struct Row<'a> {
    strategy: &'a str,
    load: f64,
    /// Goodput over the capacity of its scenario.
    goodput: f64,
    /// The priority class's success.
    success: Option<f64>,
}

/// The rows of `runs` against `capacity`, with their `points` (the same runs' figures).
fn rows<'a>(runs: &'a [RunResult], points: &[Point], capacity: f64) -> Vec<Row<'a>> {
    runs.iter()
        .zip(points)
        .map(|(r, p)| Row {
            strategy: &r.strategy,
            load: r.load,
            goodput: r.goodput / capacity.max(1e-9),
            success: p.priority_success,
        })
        .collect()
}

/// One curve per strategy of `order` that has rows, a row's y from `y` (none: left out).
fn curves(rows: &[Row<'_>], order: &[String], y: fn(&Row<'_>) -> Option<f64>) -> Vec<Curve> {
    order
        .iter()
        .filter_map(|name| {
            let mut pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.strategy == name)
                .filter_map(|r| Some((r.load, y(r)?)))
                .collect();
            if pts.is_empty() {
                return None;
            }
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            Some(Curve {
                strategy: name.clone(),
                off_scale_peak: None,
                colour: strategy_colour(name),
                points: pts,
            })
        })
        .collect()
}

impl Figure {
    /// What `report` shows.
    pub(crate) fn of(report: &Report) -> Figure {
        let sweep = sweep(report);
        let step = step(report);
        let drawn: Vec<&Curve> = sweep
            .iter()
            .flat_map(|s| s.goodput.iter().chain(&s.real_goodput))
            .chain(step.iter().flat_map(|s| s.arriving.iter()))
            .collect();
        let order = strategy_order(report, drawn.iter().map(|c| c.strategy.as_str()));
        let mut legend: Vec<Key> = order
            .iter()
            .filter(|name| drawn.iter().any(|c| c.strategy == **name))
            .map(|name| Key {
                text: name.clone(),
                colour: strategy_colour(name),
                triangle: false,
            })
            .collect();
        if sweep.as_ref().is_some_and(|s| !s.real_goodput.is_empty()) {
            legend.push(Key {
                text: "real time on loopback, small scale".into(),
                colour: plotters::style::BLACK,
                triangle: true,
            });
        }
        Figure {
            legend,
            sweep,
            step,
        }
    }
}

/// Every strategy a report names: the scenario's, in its order, then any other.
fn strategy_order<'a>(report: &Report, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut order: Vec<String> = report
        .scenario
        .strategies
        .iter()
        .map(|s| s.name().to_owned())
        .collect();
    for n in names {
        if !order.iter().any(|o| o == n) {
            order.push(n.to_owned());
        }
    }
    order
}

fn sweep(report: &Report) -> Option<SweepPanels> {
    let v = &report.virtual_time;
    let rt = report.real_time.as_ref();
    // The lines: the scenario's sweep, or with the real-time engine alone its twins.
    let (lines, lines_from) = if !v.sweep.is_empty() {
        (
            rows(&v.sweep, &v.points, report.capacity),
            format!("virtual time, capacity {:.0}/s", report.capacity),
        )
    } else {
        let rt = rt?;
        let cap = rt.scenario.capacity();
        (
            rows(&rt.virtual_runs, &rt.virtual_points, cap),
            format!("virtual time at small scale, capacity {cap:.0}/s"),
        )
    };
    let real = rt.map_or(Vec::new(), |r| {
        rows(&r.runs, &r.points, r.scenario.capacity())
    });
    let all = lines.iter().chain(&real);
    let order = strategy_order(report, all.clone().map(|r| r.strategy));
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
        (lo.min(r.load), hi.max(r.load))
    });
    if !lo.is_finite() {
        return None;
    }
    let x_range = ((lo / 1.25).min(0.8), (hi * 1.25).max(1.25));
    let goodput = |r: &Row<'_>| Some(r.goodput);
    let success = |r: &Row<'_>| r.success;
    let goodput_top = lines
        .iter()
        .chain(&real)
        .map(|r| r.goodput * 1.05)
        .fold(1.15, f64::max);
    Some(SweepPanels {
        lines_from,
        x_range,
        ticks: load_ticks(x_range.0, x_range.1),
        goodput_top,
        goodput: curves(&lines, &order, goodput),
        priority: report
            .priority_class
            .clone()
            .map(|c| (c, curves(&lines, &order, success))),
        real_goodput: curves(&real, &order, goodput),
        real_priority: curves(&real, &order, success),
    })
}

fn step(report: &Report) -> Option<StepPanels> {
    let v = &report.virtual_time;
    let spec = report.scenario.step.as_ref()?;
    if v.step.is_empty() {
        return None;
    }
    let cap = report.capacity.max(1e-9);
    let p = spec.phase_secs;
    // The three phases; a run's drain after them is left out.
    let end = 3.0 * p;
    let within = |x: &&Sample| x.t <= end + 1e-9;
    let highest = v
        .step
        .iter()
        .flat_map(|s| s.run.series.iter().filter(within))
        .map(|x| x.arrived.max(x.succeeded))
        .fold(cap, f64::max);
    let top = highest.clamp(1.5 * cap, 3.0 * cap) * 1.08;
    let order = strategy_order(report, v.step.iter().map(|s| s.run.strategy.as_str()));
    let per_strategy = |rate: &dyn Fn(&Sample) -> f64, clip: bool| -> Vec<Curve> {
        order
            .iter()
            .filter_map(|name| {
                let st = v.step.iter().find(|s| s.run.strategy == *name)?;
                let peak = st
                    .run
                    .series
                    .iter()
                    .filter(within)
                    .map(rate)
                    .fold(0.0, f64::max);
                let clipped = clip && peak > top;
                Some(Curve {
                    strategy: name.clone(),
                    off_scale_peak: clipped.then_some(peak),
                    colour: strategy_colour(name),
                    points: st
                        .run
                        .series
                        .iter()
                        .filter(within)
                        .map(|x| (x.t, if clip { rate(x).min(top) } else { rate(x) }))
                        .collect(),
                })
            })
            .collect()
    };
    let (before, during) = (spec.before * cap, spec.during * cap);
    let offered_at = |rate: f64, t: f64| Label {
        // A clipped rate's label sits below the top, clear of the phase marks' labels.
        at: (t, rate.min(top) * if rate > top { 0.88 } else { 1.0 }),
        text: if rate > top {
            format!("offered {} = {rate:.0}/s, off the scale", load(rate / cap))
        } else {
            format!("offered {} = {rate:.0}/s", load(rate / cap))
        },
    };
    Some(StepPanels {
        end,
        top,
        capacity: cap,
        phases: vec![
            Mark {
                t: p,
                label: format!("step up to {}", load(spec.during)),
            },
            Mark {
                t: 2.0 * p,
                label: format!("down to {}", load(spec.before)),
            },
        ],
        offered: [
            (0.0, before),
            (p, before),
            (p, during),
            (2.0 * p, during),
            (2.0 * p, before),
            (end, before),
        ]
        .into_iter()
        .map(|(t, r)| (t, r.min(top)))
        .collect(),
        offered_labels: vec![
            offered_at(before, 0.02 * end),
            offered_at(during, p + 0.02 * end),
        ],
        arriving: per_strategy(&|x| x.arrived, true),
        succeeded: per_strategy(&|x| x.succeeded, true),
        metric: per_strategy(
            &|x| f64::from(x.metric.iter().copied().max().unwrap_or(0)),
            false,
        ),
    })
}

#[cfg(test)]
mod tests;
