//! Print the sweep of the default scenario (a quick look; `pfcp sim` is the full report).
#![allow(clippy::disallowed_methods)] // The example reads the clock once for the origin.

use std::time::Instant;

use pfcp_sim::{run, Plan, Scenario, Strategy};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut scenario = Scenario::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if std::env::var_os("SIM_ONE_UP").is_some() {
        scenario.ups.truncate(1);
        scenario.ups[0].capacity = 2000.0;
    }
    if let Some(cps) = args.first().and_then(|a| a.parse().ok()) {
        scenario.cps = cps;
    }
    let strategies: Vec<Strategy> = match args.get(1).map(String::as_str) {
        Some("toolkit") => vec![Strategy::Toolkit],
        _ => Strategy::ALL.to_vec(),
    };
    let classes = scenario.validate()?;
    let origin = Instant::now();
    for s in strategies {
        for &x in &scenario.sweep.loads {
            let t = Instant::now();
            let r = run(&scenario, &classes, s, &Plan::Steady(x), origin)?;
            println!(
                "{:16} x={x:>4}: goodput {:.3} of ideal ({:.0}/s), emergency {:.3}, arp2 {:.3}, arp12 {:.3}, p99 {:.1} ms, spread {:?}, thr {} rej {} to {} ({:.1?})",
                s.name(),
                r.goodput_ratio(),
                r.goodput,
                r.class_success("emergency").unwrap_or(f64::NAN),
                r.class_success("arp2").unwrap_or(f64::NAN),
                r.class_success("arp12").unwrap_or(f64::NAN),
                r.latency.p99,
                r.sessions_per_up,
                r.total.throttled,
                r.total.rejected,
                r.total.timed_out,
                t.elapsed()
            );
        }
    }
    Ok(())
}
