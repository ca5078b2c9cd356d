//! Storm onsets over many seeds: one UP function of 1000 requests/s, N CP functions stepping
//! from one load to another and back (`pfcp sim`'s step, 4 s phases), the toolkit strategy.
//! Prints, per seed, the emergency requests lost, goodput, p99 and the slowest success; then
//! the seeds that lost emergency requests. Used for `docs/throttle.md`'s onset tables.
//!
//! `cargo run --release -p pfcp-sim --example onset -- BEFORE DURING CPS FIRST_SEED LAST_SEED`
#![allow(clippy::disallowed_methods)] // The example reads the clock once for the origin.

use std::time::Instant;

use pfcp_sim::scenario::StepSpec;
use pfcp_sim::{run, Plan, Scenario, Strategy};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let arg = |i: usize, default: f64| args.get(i).copied().unwrap_or(default);
    let mut scenario = Scenario::default();
    scenario.ups.truncate(1);
    scenario.ups[0].capacity = 1000.0;
    scenario.cps = arg(2, 16.0) as usize;
    let plan = Plan::Step(StepSpec {
        before: arg(0, 0.5),
        during: arg(1, 5.0),
        phase_secs: 4.0,
    });
    let (first, last) = (arg(3, 1.0) as u64, arg(4, 24.0) as u64);
    let mut losing = Vec::new();
    for seed in first..=last {
        scenario.seed = seed;
        let classes = scenario.validate()?;
        let r = run(
            &scenario,
            &classes,
            Strategy::Toolkit,
            &plan,
            Instant::now(),
        )?;
        let lost = r
            .by_class
            .iter()
            .find(|(n, _)| n == "emergency")
            .map_or(0, |(_, t)| t.offered - t.succeeded);
        if std::env::var_os("SERIES").is_some() {
            for s in &r.series {
                println!("t={:5.1} offered {:5.2}x arrived {:6.0}/s served {:6.0}/s ok {:6.0}/s metric {:?} queue {:?}", s.t, s.offered, s.arrived, s.served, s.succeeded, s.metric, s.queue);
            }
        }
        if lost > 0 {
            losing.push((seed, lost));
        }
        println!(
            "seed {seed:3}: emergency lost {lost:3}, goodput {:.4}, p99 {:.1} ms, max {:.1} ms",
            r.goodput_ratio(),
            r.latency.p99,
            r.latency.max
        );
    }
    println!(
        "seeds losing emergency requests: {} {losing:?}",
        losing.len()
    );
    Ok(())
}
