//! Print the step run's time series (a quick look).
#![allow(clippy::disallowed_methods)] // The example reads the clock once for the origin.

use std::time::Instant;

use pfcp_sim::scenario::StepSpec;
use pfcp_sim::{run, Plan, Scenario, Strategy};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut scenario = Scenario::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if std::env::var_os("SIM_ONE_UP").is_some() {
        scenario.ups.truncate(1);
        scenario.ups[0].capacity = 2000.0;
    }
    let before: f64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let during: f64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10.0);
    if let Some(cps) = args.get(2).and_then(|a| a.parse().ok()) {
        scenario.cps = cps;
    }
    let classes = scenario.validate()?;
    let plan = Plan::Step(StepSpec {
        before,
        during,
        phase_secs: 4.0,
    });
    let r = run(
        &scenario,
        &classes,
        Strategy::Toolkit,
        &plan,
        Instant::now(),
    )?;
    for s in &r.series {
        println!(
            "t={:5.1} offered {:5.2}x arrived {:6.0}/s served {:6.0}/s ok {:6.0}/s metric {:?} queue {:?}",
            s.t, s.offered, s.arrived, s.served, s.succeeded, s.metric, s.queue
        );
    }
    Ok(())
}
