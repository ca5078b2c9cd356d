//! `pfcp sim`: the end-to-end overload experiment. How a UP function fares under a signalling
//! storm with and without this toolkit, measured two ways on one scenario ([`pfcp_sim`]):
//!
//! * **virtual time**: every CP and UP function a real sans-IO node in one process,
//!   deterministic from the seed, the whole scenario: the load sweep, the step, the restart,
//!   every strategy;
//! * **real time**: the same functions as tokio endpoints on loopback UDP sockets, the scenario
//!   at small scale ([`Scenario::small`]), and that small scenario in virtual time too, to say
//!   how far the two engines are apart. With `--engine both` it runs the comparison's loads
//!   and strategies (`Scenario::small`'s), with `--engine real` the scenario's own; the
//!   loads stay multiples of the capacity, and the output says how the scenario was scaled.
//!
//! It prints the tables, and writes `report.json` (everything measured) and `report.svg`
//! (goodput and the priority class's success against offered load per strategy, the real-time
//! points among them; the step over time) into `--out`. That directory is checked, and an
//! earlier report in it removed, before any run.
//!
//! ## Modules
//!
//! `realtime` (the loopback engine), `report` (the JSON report), `table` (the tables), `plot`
//! (the SVG), `output` (the `--out` directory and the files), `progress` (the bar on
//! stderr). This file: the command line and the runs.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pfcp_sim::traffic::Class;
use pfcp_sim::{run, Plan, RunResult, Scenario, Strategy};

use crate::now;

mod output;
mod plot;
mod progress;
mod realtime;
pub mod report;
mod table;

use output::OutDir;
use progress::Progress;
use report::{Point, RealReport, Report, StepReport, VirtualReport};

/// The examples at the end of `pfcp sim --help`.
pub const EXAMPLES: &str = "\
Examples:
  pfcp sim                                   the embedded scenario in both engines, about a minute
  pfcp sim --engine virtual --out results    virtual time only (seconds), into results/
  pfcp sim --print-scenario > my.toml        the scenario as TOML, to edit ...
  pfcp sim --scenario my.toml --seed 7       ... and run with another seed
  pfcp sim --engine real --real-loads 1,3    real time only, at 1x and 3x the (scaled) capacity
  pfcp sim --pcap sim.pcap                   also capture the real-time runs: wireshark sim.pcap
  pfcp sim --metrics 127.0.0.1:9187 --quiet  a Prometheus scrape endpoint, no progress bar

Output: the tables on stdout, DIR/report.json and DIR/report.svg (DIR from --out); a report
of an earlier run in DIR is removed when the run starts. Progress on stderr (a terminal only).";

/// Which engines `pfcp sim` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engines {
    /// Virtual time only: the whole scenario, in seconds.
    Virtual,
    /// Real time on loopback only: the scenario's loads and strategies at small scale.
    Real,
    /// Both: the whole scenario in virtual time, then a comparison on loopback.
    Both,
}

/// Arguments of `pfcp sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// Scenario file, TOML or JSON (by its extension; --print-scenario shows the fields).
    /// Default: the embedded scenario.
    #[arg(long, value_name = "FILE", help_heading = "Scenario")]
    pub scenario: Option<PathBuf>,
    /// Seed of every draw (overrides the scenario's).
    #[arg(long, value_name = "N", help_heading = "Scenario")]
    pub seed: Option<u64>,
    /// Print the scenario (the default, or --scenario's) as TOML and exit.
    #[arg(long, help_heading = "Scenario")]
    pub print_scenario: bool,
    /// Which engines run.
    #[arg(long, value_enum, default_value = "both", help_heading = "Engines")]
    pub engine: Engines,
    /// Loads of the real-time runs, multiples of the capacity, comma-separated. Default: the
    /// scenario's sweep with --engine real; 0.5, 2 and 5 with --engine both.
    #[arg(
        long,
        value_name = "LOADS",
        value_delimiter = ',',
        help_heading = "Engines"
    )]
    pub real_loads: Option<Vec<f64>>,
    /// Threads for the virtual-time runs.
    #[arg(long, default_value_t = 2, value_name = "N", help_heading = "Engines")]
    pub jobs: usize,
    /// Directory the report (report.json, report.svg) is written to; created if missing,
    /// checked before the runs, and an earlier report in it removed.
    #[arg(
        long,
        default_value = "sim-report",
        value_name = "DIR",
        help_heading = "Output"
    )]
    pub out: PathBuf,
    /// No progress on stderr (only errors). The bar is never drawn when stderr is not a
    /// terminal.
    #[arg(long, short, help_heading = "Output")]
    pub quiet: bool,
    /// Write every datagram of the real-time runs to FILE, a pcap that Wireshark dissects:
    /// each function then binds port 8805 on its own loopback address (UP i of run r at
    /// 127.1.r.i, CP i at 127.2.r.i).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub pcap: Option<PathBuf>,
    /// Serve each finished run's goodput and emergency success (pfcp_sim_* gauges, labelled
    /// by engine, scale, plan, strategy and load) and the simulated nodes' counters, summed
    /// over every run, at a Prometheus scrape endpoint on ADDR while the experiment runs.
    #[arg(long, value_name = "ADDR", help_heading = "Output")]
    pub metrics: Option<std::net::SocketAddr>,
}

/// Run `pfcp sim`; errors are one line on stderr.
pub fn main(args: &SimArgs) -> ExitCode {
    match run_all(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pfcp sim: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The scenario of `--scenario`, or the default.
pub fn load_scenario(path: Option<&PathBuf>) -> Result<Scenario, String> {
    let Some(path) = path else {
        return Ok(Scenario::default());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: {}", path.display(), crate::io_error_text(&e)))?;
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json {
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    } else {
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The scenario the real-time runs (and their virtual-time twins) run: `scenario` at small
/// scale; with `--engine real` its own loads and strategies, with `--real-loads` those loads.
fn small_scenario(scenario: &Scenario, args: &SimArgs) -> Result<Scenario, String> {
    let mut small = scenario.small();
    if args.engine == Engines::Real {
        small.sweep.loads = scenario.sweep.loads.clone();
        small.strategies = scenario.strategies.clone();
    }
    if let Some(loads) = &args.real_loads {
        if loads.is_empty() || loads.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
            return Err("--real-loads: give loads above 0, e.g. 0.5,2,5".into());
        }
        small.sweep.loads = loads.clone();
    }
    Ok(small)
}

/// One virtual-time run to make.
struct Job<'a> {
    scenario: &'a Scenario,
    classes: &'a [Class],
    strategy: Strategy,
    plan: Plan,
    /// A twin of a real-time run (the small scenario).
    small: bool,
}

impl Job<'_> {
    /// What it is, for the progress bar.
    fn describe(&self) -> String {
        let what = match &self.plan {
            Plan::Steady(x) => table::load(*x),
            Plan::Step(_) => "step".into(),
            Plan::Restart(_) => "restart".into(),
            Plan::Churn(c) => format!("churn of {} CP functions", c.associations),
        };
        let scale = if self.small { ", small scale" } else { "" };
        format!("virtual time: {} at {what}{scale}", self.strategy.name())
    }
}

fn run_all(args: &SimArgs) -> Result<(), String> {
    let mut scenario = load_scenario(args.scenario.as_ref())?;
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    if args.print_scenario {
        to_stdout(&toml::to_string(&scenario).map_err(|e| e.to_string())?);
        return Ok(());
    }
    let classes = scenario.validate().map_err(|e| format!("scenario: {e}"))?;
    let want_virtual = args.engine != Engines::Real;
    let want_real = args.engine != Engines::Virtual;
    if args.pcap.is_some() && !want_real {
        return Err("--pcap records the real-time runs: not with --engine virtual".into());
    }
    if args.real_loads.is_some() && !want_real {
        return Err("--real-loads: not with --engine virtual".into());
    }
    let small = small_scenario(&scenario, args)?;
    let small_classes = small
        .validate()
        .map_err(|e| format!("small scenario: {e}"))?;
    // The exporter's listener runs on the runtime the real-time runs use; a busy address
    // fails here, before an earlier report is removed.
    let runtime = crate::node_setup::runtime()?;
    if args.metrics.is_some() {
        let _inside = runtime.enter();
        crate::meter::install_with_exporter(args.metrics)?;
    }
    // The files before the runs: a run's results are never lost to an unwritable directory.
    let prepared = OutDir::prepare(&args.out)?;
    let pcap = match (&args.pcap, want_real) {
        (Some(p), true) => Some(Arc::new(crate::pcap_out::PcapOut::create(p)?)),
        _ => None,
    };
    let say = |line: String| {
        if !args.quiet {
            eprintln!("pfcp sim: {line}");
        }
    };
    if !prepared.removed.is_empty() {
        say(format!(
            "removed {} of an earlier run from {}",
            prepared.removed.join(" and "),
            args.out.display()
        ));
    }
    let started = now();
    let mut jobs: Vec<Job<'_>> = Vec::new();
    if want_virtual {
        for &s in &scenario.strategies {
            let job = |plan| Job {
                scenario: &scenario,
                classes: &classes,
                strategy: s,
                plan,
                small: false,
            };
            for &x in &scenario.sweep.loads {
                jobs.push(job(Plan::Steady(x)));
            }
            if let Some(st) = &scenario.step {
                jobs.push(job(Plan::Step(st.clone())));
            }
            if let Some(r) = &scenario.restart {
                jobs.push(job(Plan::Restart(r.clone())));
            }
            if let Some(c) = &scenario.churn {
                jobs.push(job(Plan::Churn(c.clone())));
            }
        }
    }
    let real_jobs: Vec<(Strategy, f64)> = if want_real {
        small
            .strategies
            .iter()
            .flat_map(|&s| small.sweep.loads.iter().map(move |&x| (s, x)))
            .collect()
    } else {
        Vec::new()
    };
    for &(s, x) in &real_jobs {
        jobs.push(Job {
            scenario: &small,
            classes: &small_classes,
            strategy: s,
            plan: Plan::Steady(x),
            small: true,
        });
    }
    let twins = real_jobs.len();
    say(format!(
        "{} virtual-time runs on {} threads{}",
        jobs.len(),
        args.jobs.max(1),
        match twins {
            0 => String::new(),
            n if n == jobs.len() => " (the real-time runs' twins, small scale)".into(),
            n => format!(" ({n} of them the real-time runs' twins, small scale)"),
        }
    ));
    if want_real {
        say(table::wrap(
            &format!(
                "then {} real-time runs on loopback, {} s each and the requests in flight, the scenario at small scale: {}",
                real_jobs.len(),
                small.sweep.warmup_secs + small.sweep.measure_secs,
                table::scaling(&scenario, &small)
            ),
            88,
            "  ",
        ));
        if args.engine == Engines::Real && (scenario.step.is_some() || scenario.restart.is_some()) {
            say("the step and the restart run in virtual time only: not with --engine real".into());
        }
    }
    let progress = Progress::new(jobs.len() + real_jobs.len(), args.quiet)?;
    let results = run_virtual(&jobs, args.jobs.max(1), &progress)?;
    let mut virtual_time = VirtualReport::default();
    let mut virtual_small = Vec::new();
    for (job, r) in jobs.iter().zip(results) {
        match &job.plan {
            Plan::Steady(_) if job.small => virtual_small.push(r),
            Plan::Steady(_) => virtual_time.sweep.push(r),
            Plan::Step(st) => {
                virtual_time
                    .step
                    .push(StepReport::new(r, st.phase_secs, scenario.capacity()))
            }
            Plan::Restart(_) => virtual_time.restart.push(r),
            Plan::Churn(_) => virtual_time.churn.push(r),
        }
    }
    let priority = report::priority_class(&scenario);
    virtual_time.points = virtual_time
        .sweep
        .iter()
        .map(|r| Point::of(r, scenario.capacity(), priority.as_deref()))
        .collect();
    let mut captured = None;
    let real_time = if want_real {
        let mut runs = Vec::new();
        for (n, &(s, x)) in real_jobs.iter().enumerate() {
            progress.running(format!(
                "real time: {} at {} ({} of {})",
                s.name(),
                table::load(x),
                n + 1,
                real_jobs.len()
            ));
            let r = runtime.block_on(realtime::run(
                &small,
                &small_classes,
                s,
                x,
                n as u32,
                pcap.as_ref(),
            ))?;
            publish(&r, "real", "small", "steady");
            runs.push(r);
            progress.done();
        }
        if let (Some(out), Some(path)) = (&pcap, &args.pcap) {
            captured = Some((path.clone(), out.finish()?));
        }
        Some(RealReport::new(
            small.clone(),
            runs,
            virtual_small,
            scenario.capacity(),
            priority.as_deref(),
        ))
    } else {
        None
    };
    progress.finish();
    let report = Report {
        tool: format!("pfcp sim {}", env!("CARGO_PKG_VERSION")),
        capacity: scenario.capacity(),
        scenario,
        virtual_time,
        real_time,
        elapsed_secs: now().duration_since(started).as_secs_f64(),
        priority_class: priority,
    };
    let written = prepared.out.write(&report)?;
    let mut text = report.render();
    if let Some((path, n)) = captured {
        text.push_str(&format!(
            "\ncapture: {} ({n} datagrams of the real-time runs; PFCP on port 8805)\n",
            path.display()
        ));
    }
    let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    text.push_str(&format!(
        "\nreport: {} ({:.0} s)\n",
        names.join(" and "),
        report.elapsed_secs
    ));
    to_stdout(&text);
    Ok(())
}

/// Write `text` to stdout. A reader that went away (`pfcp sim | head`) is no error: the
/// report is in its files.
fn to_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// The virtual-time runs, on `threads` threads; results in the order of `jobs`.
fn run_virtual(
    jobs: &[Job<'_>],
    threads: usize,
    progress: &Progress,
) -> Result<Vec<RunResult>, String> {
    let origin = now().into_std();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<RunResult, String>>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else {
                    return;
                };
                progress.running(job.describe());
                let r = run(job.scenario, job.classes, job.strategy, &job.plan, origin)
                    .map_err(|e| e.to_string());
                if let Ok(r) = &r {
                    let plan = match job.plan {
                        Plan::Steady(_) => "steady",
                        Plan::Step(_) => "step",
                        Plan::Restart(_) => "restart",
                        Plan::Churn(_) => "churn",
                    };
                    let scale = if job.small { "small" } else { "full" };
                    publish(r, "virtual", scale, plan);
                }
                if let Ok(mut all) = results.lock() {
                    if let Some(slot) = all.get_mut(i) {
                        *slot = Some(r);
                    }
                }
                progress.done();
            });
        }
    });
    let all = results
        .into_inner()
        .map_err(|_| "a run panicked".to_string())?;
    all.into_iter()
        .map(|r| r.unwrap_or_else(|| Err("a run did not finish".into())))
        .collect()
}

/// A finished run, for `--metrics` (no-ops without a recorder). `scale` tells the scenario's
/// own runs (`full`) from the small scenario's (`small`: the real-time runs and their
/// virtual-time twins), which share strategies and loads with them.
fn publish(r: &RunResult, engine: &'static str, scale: &'static str, plan: &'static str) {
    let labels = [
        ("engine", engine.to_string()),
        ("scale", scale.to_string()),
        ("plan", plan.to_string()),
        ("strategy", r.strategy.clone()),
        ("load", format!("{}", r.load)),
    ];
    metrics::gauge!("pfcp_sim_goodput_ratio", &labels).set(r.goodput_ratio());
    if let Some(e) = r.class_success("emergency").or(r.class_success("emps")) {
        metrics::gauge!("pfcp_sim_emergency_success_ratio", &labels).set(e);
    }
    metrics::counter!("pfcp_sim_points_total", "engine" => engine, "scale" => scale).increment(1);
    // The simulated nodes' counters, summed over every run.
    for (m, v) in pfcp_node::node::METRICS.iter().zip(&r.node_counters) {
        if *v > 0.0 {
            let labels: Vec<metrics::Label> = m
                .labels
                .iter()
                .map(|(k, v)| metrics::Label::new(*k, *v))
                .collect();
            metrics::counter!(m.name, labels).increment(*v as u64);
        }
    }
}
