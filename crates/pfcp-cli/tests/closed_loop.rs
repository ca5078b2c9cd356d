//! The closed loop on real sockets, as a user runs it (project issue "pfcp sim and a closed
//! loop that holds capacity", sections 1 and 4): one `pfcp up` and two `pfcp cp` processes on
//! loopback, default flags but the capacity, offering 5x its capacity. The capacity is 300
//! requests/s because the test suite runs the debug build (at 1000/s the unoptimised
//! processes, not the loop, are the bottleneck). The ratios are asserted with a margin below
//! what `docs/benchmarks.md` records for the release build at 1000/s (goodput 0.97-0.98,
//! emergency 1.000), because the runs share a small machine with the rest of the suite; the
//! figures themselves come from the benchmarks and `pfcp sim`, not from here.

mod procs;

use std::thread;

use procs::{free_udp_port, n, pfcp, start_up, summary, summary_any};
use serde_json::Value;

const CAPACITY: u64 = 300;
const SECS: u64 = 5;

#[test]
fn two_cps_at_5x_keep_goodput_and_emergency_and_rank_arp() {
    let up = start_up(&["--capacity", &CAPACITY.to_string()]);
    let runs: Vec<_> = (0..2)
        .map(|i| {
            let addr = up.addr.clone();
            thread::spawn(move || {
                let seed = (i + 1).to_string();
                let secs = SECS.to_string();
                let rate = (5 * CAPACITY / 2).to_string();
                summary(&pfcp(&[
                    "cp",
                    "--up",
                    &addr,
                    "--rate",
                    &rate,
                    "--duration-secs",
                    &secs,
                    "--seed",
                    &seed,
                    "--warmup-secs",
                    "2",
                    "--json",
                ]))
            })
        })
        .collect();
    let summaries: Vec<Value> = runs.into_iter().map(|r| r.join().unwrap()).collect();
    let sum = |path: &str| summaries.iter().map(|s| n(s, path)).sum::<u64>();
    let offered = sum("/offered");
    assert!(
        offered >= 5 * CAPACITY * SECS * 9 / 10,
        "the pacers fell behind: {offered}"
    );
    // Goodput against the ideal min(offered, capacity): the UP kept serving at capacity.
    let goodput = sum("/succeeded") as f64 / (CAPACITY * SECS) as f64;
    assert!((0.85..=1.05).contains(&goodput), "goodput {goodput:.3}");
    // Emergency load is 5 % of 5x, a quarter of the capacity: it fits, so it succeeds
    // (clause 6.2.4.5.1: priority traffic is exempt while the reduction can be met without).
    let success = |class: &str| {
        sum(&format!("/by_class/{class}/succeeded")) as f64
            / sum(&format!("/by_class/{class}/offered")).max(1) as f64
    };
    let (emergency, arp2, arp12) = (success("emergency"), success("arp2"), success("arp12"));
    println!(
        "goodput {goodput:.3}, success emergency {emergency:.3} arp2 {arp2:.3} arp12 {arp12:.3}"
    );
    assert!(emergency >= 0.95, "emergency success {emergency:.3}");
    // A higher ARP class is never less successful than a lower one.
    assert!(arp2 >= arp12, "arp2 {arp2:.3} < arp12 {arp12:.3}");
    assert!(
        emergency >= arp2,
        "emergency {emergency:.3} < arp2 {arp2:.3}"
    );
    // After the warm-up (`--warmup-secs`): the steady state, a subset of the whole run.
    let steady_rate: f64 = summaries
        .iter()
        .map(|s| {
            s["steady"]["succeeded_per_sec"]
                .as_f64()
                .unwrap_or_else(|| panic!("no steady section: {s}"))
        })
        .sum();
    for s in &summaries {
        assert!(n(s, "/steady/offered") < n(s, "/offered"), "{s}");
        assert!(n(s, "/steady/succeeded") <= n(s, "/succeeded"), "{s}");
    }
    let steady_emergency = sum("/steady/by_class/emergency/succeeded") as f64
        / sum("/steady/by_class/emergency/offered").max(1) as f64;
    println!("steady state: {steady_rate:.1} successes/s, emergency {steady_emergency:.3}");
    assert!(
        steady_rate >= 0.85 * CAPACITY as f64,
        "steady goodput {steady_rate:.1}/s"
    );
    assert!(steady_emergency >= 0.95, "{steady_emergency:.3}");
    // The UP's queue bounds the wait (15 ms by default): the latency of what succeeds stays
    // near it under 5x. The margin is for the debug build on a shared machine (the release
    // build at 1000/s measures 15-16 ms; with the 200 ms wait of before, 100-200 ms).
    let p99 = summaries
        .iter()
        .map(|s| {
            s["steady"]["latency_ms"]["p99"]
                .as_f64()
                .unwrap_or(f64::MAX)
        })
        .fold(0.0, f64::max);
    println!("steady state: worst p99 of successes {p99:.1} ms");
    assert!(p99 <= 80.0, "steady p99 {p99:.1} ms");
}

#[test]
fn clause_6_2_6_a_restarted_up_is_associated_again_and_its_sessions_restored() {
    let addr = format!("127.0.0.1:{}", free_udp_port());
    let listen = |secs: &str| {
        procs::start_at(&[
            "up",
            "--listen",
            &addr,
            "--capacity",
            "300",
            "--duration-secs",
            secs,
        ])
    };
    let first = listen("3");
    let cp = {
        let addr = addr.clone();
        thread::spawn(move || {
            pfcp(&[
                "cp",
                "--up",
                &addr,
                "--rate",
                "150",
                "--duration-secs",
                "8",
                // Sessions held for 300 ms: a few dozen are established when the UP stops,
                // whatever the machine's load (with none held, whether any is depends on the
                // moment: it failed once under load).
                "--hold-ms",
                "300",
                "--json",
            ])
        })
    };
    // The UP stops after 3 s; a new one (another Recovery Time Stamp) takes its address.
    drop(first.wait_exit(std::time::Duration::from_secs(10)));
    let _second = listen("10");
    let out = cp.join().unwrap();
    let s = summary_any(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The restart is a UP function lost during the run: exit status 4, said in words.
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("a UP function was lost during the run: the UP function")
            && !stderr.contains("Some("),
        "{stderr}"
    );
    assert!(
        s["up_events"].as_array().is_some_and(|e| !e.is_empty()),
        "{s}"
    );
    // Its sessions were reported lost and established again, as restorations.
    assert!(n(&s, "/sessions_lost") > 0, "{stderr}");
    assert!(n(&s, "/sessions_restored") > 0, "{stderr}");
    // And the run succeeds again within 2 s of the UP being back: the last seconds of the
    // progress lines count successes.
    let per_second: Vec<u64> = stderr
        .lines()
        .filter(|l| l.contains("s] offered"))
        .filter_map(|l| {
            l.split("succeeded")
                .nth(1)?
                .split('|')
                .next()?
                .trim()
                .parse()
                .ok()
        })
        .collect();
    assert!(per_second.len() >= 7, "{per_second:?}");
    assert!(
        per_second.iter().rev().take(2).all(|&x| x > 0),
        "{per_second:?}"
    );
}
