//! `pfcp sim`: the end-to-end overload experiment. How a UP function fares under a signalling
//! storm with and without this toolkit, measured two ways on one scenario ([`pfcp_sim`]):
//!
//! * **virtual time**: every CP and UP function a real sans-IO node in one process,
//!   deterministic from the seed, the whole scenario: the load sweep, the step, the restart,
//!   every strategy;
//! * **real time**: the same functions as tokio endpoints on loopback UDP sockets, the scenario
//!   at small scale ([`Scenario::small`]), and that small scenario in virtual time too, to say
//!   how far the two engines are apart.
//!
//! It prints a table, and writes `report.json` (everything measured) and `report.svg` (goodput
//! against offered load per strategy with the ideal; the step over time) into `--out`.
//!
//! ## Modules
//!
//! `realtime` (the loopback engine), `report` (the JSON report and the tables), `plot` (the
//! SVG). This file: the command line, the runs and the files.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use pfcp_sim::traffic::Class;
use pfcp_sim::{run, Plan, RunResult, Scenario, Strategy};

use crate::now;

mod plot;
mod realtime;
pub mod report;

use report::{RealReport, Report, StepReport, VirtualReport};

/// Which engines `pfcp sim` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engines {
    /// Virtual time only (the whole scenario; seconds).
    Virtual,
    /// Real time on loopback only (the scenario at small scale).
    Real,
    /// Both, and how far apart they are.
    Both,
}

/// Arguments of `pfcp sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// Scenario file, TOML or JSON (by its extension; `--print-scenario` shows the fields).
    /// Default: the embedded scenario.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Directory the report (report.json, report.svg) is written to.
    #[arg(long, default_value = "sim-report", value_name = "DIR")]
    pub out: PathBuf,
    /// Which engines run.
    #[arg(long, value_enum, default_value = "both")]
    pub engine: Engines,
    /// Seed of every draw (overrides the scenario's).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Threads for the virtual-time runs.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub jobs: usize,
    /// Serve the sweep's progress (`pfcp_sim_*`: each finished point's goodput and emergency
    /// success) and the simulated nodes' counters, summed over every run, at a Prometheus
    /// scrape endpoint on ADDR while the experiment runs.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<std::net::SocketAddr>,
    /// Write every datagram of the real-time runs to FILE, a pcap that Wireshark dissects:
    /// each function then binds port 8805 on its own loopback address (UP i of run r at
    /// 127.1.r.i, CP i at 127.2.r.i).
    #[arg(long, value_name = "FILE")]
    pub pcap: Option<PathBuf>,
    /// Print the scenario (the default, or --scenario's) as TOML and exit.
    #[arg(long)]
    pub print_scenario: bool,
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

fn run_all(args: &SimArgs) -> Result<(), String> {
    let mut scenario = load_scenario(args.scenario.as_ref())?;
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    if args.print_scenario {
        print!("{}", toml::to_string(&scenario).map_err(|e| e.to_string())?);
        return Ok(());
    }
    let classes = scenario.validate().map_err(|e| format!("scenario: {e}"))?;
    if args.pcap.is_some() && args.engine == Engines::Virtual {
        return Err("--pcap records the real-time runs: not with --engine virtual".into());
    }
    // The exporter's listener runs on the runtime the real-time runs use.
    let runtime = crate::up::runtime()?;
    if args.metrics.is_some() {
        let _inside = runtime.enter();
        crate::meter::install_with_exporter(args.metrics)?;
    }
    let started = now();
    let small = scenario.small();
    let small_classes = small
        .validate()
        .map_err(|e| format!("small scenario: {e}"))?;
    let want_virtual = args.engine != Engines::Real;
    let want_real = args.engine != Engines::Virtual;
    let mut jobs: Vec<(&Scenario, &[Class], Strategy, Plan)> = Vec::new();
    if want_virtual {
        for &s in &scenario.strategies {
            for &x in &scenario.sweep.loads {
                jobs.push((&scenario, &classes, s, Plan::Steady(x)));
            }
            if let Some(st) = &scenario.step {
                jobs.push((&scenario, &classes, s, Plan::Step(st.clone())));
            }
            if let Some(r) = &scenario.restart {
                jobs.push((&scenario, &classes, s, Plan::Restart(r.clone())));
            }
            if let Some(c) = &scenario.churn {
                jobs.push((&scenario, &classes, s, Plan::Churn(c.clone())));
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
    if want_real {
        for &(s, x) in &real_jobs {
            jobs.push((&small, &small_classes, s, Plan::Steady(x)));
        }
    }
    let bar = ProgressBar::new((jobs.len() + real_jobs.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} runs, {elapsed} {msg}")
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
    );
    bar.set_prefix("pfcp sim");
    eprintln!(
        "pfcp sim: {} virtual-time runs, {} real-time runs on loopback",
        jobs.len(),
        real_jobs.len()
    );
    let results = run_virtual(&jobs, args.jobs.max(1), &bar)?;
    let mut virtual_time = VirtualReport::default();
    let mut virtual_small = Vec::new();
    for ((sc, _, _, plan), r) in jobs.iter().zip(results) {
        let is_small = std::ptr::eq(*sc, &small);
        match plan {
            Plan::Steady(_) if is_small => virtual_small.push(r),
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
    let mut captured = None;
    let real_time = if want_real {
        let pcap = match &args.pcap {
            Some(p) => Some(std::sync::Arc::new(crate::pcap_out::PcapOut::create(p)?)),
            None => None,
        };
        let mut runs = Vec::new();
        for (n, &(s, x)) in real_jobs.iter().enumerate() {
            bar.set_message(format!("real time: {} at {x}x", s.name()));
            let r = runtime.block_on(realtime::run(
                &small,
                &small_classes,
                s,
                x,
                n as u32,
                pcap.as_ref(),
            ))?;
            publish(&r, "real", "steady");
            runs.push(r);
            bar.inc(1);
        }
        if let (Some(out), Some(path)) = (&pcap, &args.pcap) {
            captured = Some((path.clone(), out.finish()?));
        }
        Some(RealReport::new(small.clone(), runs, virtual_small))
    } else {
        None
    };
    bar.finish_and_clear();
    let report = Report {
        tool: format!("pfcp sim {}", env!("CARGO_PKG_VERSION")),
        capacity: scenario.capacity(),
        scenario,
        virtual_time,
        real_time,
        elapsed_secs: now().duration_since(started).as_secs_f64(),
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("{}: {}", args.out.display(), crate::io_error_text(&e)))?;
    let json_path = args.out.join("report.json");
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(&json_path, json)
        .map_err(|e| format!("{}: {}", json_path.display(), crate::io_error_text(&e)))?;
    let svg_path = args.out.join("report.svg");
    if !report.virtual_time.sweep.is_empty() {
        plot::draw(&report, &svg_path)?;
    }
    print!("{}", report.render());
    if let Some((path, n)) = captured {
        println!(
            "\ncapture: {} ({n} datagrams of the real-time runs; PFCP on port 8805)",
            path.display()
        );
    }
    println!(
        "\nreport: {} and {} ({:.0} s)",
        json_path.display(),
        svg_path.display(),
        report.elapsed_secs
    );
    Ok(())
}

/// The virtual-time runs, on `threads` threads; results in the order of `jobs` (before the
/// real-time jobs, which the bar counts too).
fn run_virtual(
    jobs: &[(&Scenario, &[Class], Strategy, Plan)],
    threads: usize,
    bar: &ProgressBar,
) -> Result<Vec<RunResult>, String> {
    let origin = now().into_std();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<RunResult, String>>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((sc, classes, s, plan)) = jobs.get(i) else {
                    return;
                };
                let r = run(sc, classes, *s, plan, origin).map_err(|e| e.to_string());
                if let Ok(r) = &r {
                    let kind = match plan {
                        Plan::Steady(_) => "steady",
                        Plan::Step(_) => "step",
                        Plan::Restart(_) => "restart",
                        Plan::Churn(_) => "churn",
                    };
                    publish(r, "virtual", kind);
                }
                if let Ok(mut all) = results.lock() {
                    if let Some(slot) = all.get_mut(i) {
                        *slot = Some(r);
                    }
                }
                bar.inc(1);
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

/// A finished point, for `--metrics` (no-ops without a recorder).
fn publish(r: &RunResult, engine: &'static str, plan: &'static str) {
    let labels = [
        ("engine", engine.to_string()),
        ("plan", plan.to_string()),
        ("strategy", r.strategy.clone()),
        ("load", format!("{}", r.load)),
    ];
    metrics::gauge!("pfcp_sim_goodput_ratio", &labels).set(r.goodput_ratio());
    if let Some(e) = r.class_success("emergency").or(r.class_success("emps")) {
        metrics::gauge!("pfcp_sim_emergency_success_ratio", &labels).set(e);
    }
    metrics::counter!("pfcp_sim_points_total", "engine" => engine).increment(1);
}
