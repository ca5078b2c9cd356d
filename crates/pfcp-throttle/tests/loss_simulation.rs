//! Seeded simulation table: per-class admitted and throttled counts at reductions of 10 % to
//! 90 % over a fixed mix of priorities and an exempt share, compared with the snapshot in
//! `tests/snapshots/loss_simulation.txt`. Regenerate after an intended change with
//! `UPDATE_SNAPSHOTS=1 cargo test -p pfcp-throttle --test loss_simulation` and review the diff.
//!
//! Besides the snapshot, the table is checked for the properties it must show: the total
//! within one point of the target, lower classes shed first, exempt shed only when the rest
//! cannot cover.

use std::fmt::Write as _;

use pfcp_throttle::{LossConfig, LossThrottle, RequestClass};
use pfcp_wire::MessagePriority;

/// The mix: (priority, exempt, weight in 1/100).
const MIX: [(u8, bool, u64); 6] = [
    (0, true, 5),    // emergency / eMPS
    (2, false, 10),  // deletions
    (5, false, 15),  // established-session work
    (8, false, 30),  // new sessions
    (11, false, 25), // additional sessions
    (14, false, 15), // low access priority
];
const N: u64 = 20_000;

/// The largest deviation, in requests, of the drops in any window of 100 consecutive
/// counted requests from the target `m`.
fn worst_window(drops: &[bool], m: u8) -> f64 {
    let mut worst: f64 = 0.0;
    let mut sum: usize = drops.iter().take(100).filter(|d| **d).count();
    for i in 100..=drops.len() {
        worst = worst.max((sum as f64 - f64::from(m)).abs());
        if let (Some(&gone), Some(&new)) = (drops.get(i - 100), drops.get(i)) {
            sum = sum + usize::from(new) - usize::from(gone);
        }
    }
    worst
}

fn table(config: LossConfig) -> String {
    let exact = config.exact_window;
    let mut out = String::from("reduction | class | offered | throttled | shed %\n");
    for m in (10..=90).step_by(10) {
        let mut t = LossThrottle::new(config);
        t.set_reduction(m);
        let mut drops = Vec::with_capacity(N as usize);
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut offered = [0u64; MIX.len()];
        let mut shed = [0u64; MIX.len()];
        for _ in 0..N {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut pick = (x >> 33) % 100;
            let mut i = 0;
            for (j, (_, _, w)) in MIX.iter().enumerate() {
                if pick < *w {
                    i = j;
                    break;
                }
                pick -= w;
            }
            let (p, exempt, _) = MIX[i];
            let p = MessagePriority::new(p).unwrap();
            let class = if exempt {
                RequestClass::exempt(p)
            } else {
                RequestClass::new(p)
            };
            offered[i] += 1;
            let dropped = !t.decide(class).is_send();
            // Exact mode counts only the non-exempt requests: its windows are of those.
            if !(exact && exempt) {
                drops.push(dropped);
            }
            shed[i] += u64::from(dropped);
        }
        let total_shed: u64 = shed.iter().sum();
        let non_exempt: u64 = offered
            .iter()
            .zip(MIX)
            .filter(|(_, c)| !c.1)
            .map(|(o, _)| o)
            .sum();
        let worst = worst_window(&drops, m);
        if exact {
            // Window-exact mode: M % of the non-exempt requests, within one request over every
            // run; class-blind, so every non-exempt class sheds about M % (sampling noise).
            let target = u64::from(m) * non_exempt;
            assert!(total_shed * 100 + 100 > target && total_shed * 100 < target + 100);
            assert_eq!(shed[0], 0, "{m}%: exempt shed in exact mode");
            for k in 1..MIX.len() {
                let frac = shed[k] as f64 / offered[k] as f64;
                assert!(
                    (frac - f64::from(m) / 100.0).abs() < 0.03,
                    "{m}%: class {k} {frac}"
                );
            }
            assert!(worst <= 1.0, "{m}%: worst window {worst}");
            write_rows(&mut out, m, &offered, &shed, total_shed, worst);
            continue;
        }
        // Properties of the row.
        assert!(
            (total_shed as i64 - i64::from(m) * N as i64 / 100).abs() <= N as i64 / 100,
            "{m}%: {total_shed}"
        );
        // The default mode's stated bound on any window (docs/throttle.md).
        assert!(worst <= 8.0, "{m}%: worst window {worst}");
        // Exempt traffic is untouched while the rest covers the reduction with a margin of a
        // few points (the boundary follows a sliding window, so a thin margin can briefly
        // reach the exempt class).
        if u64::from(m + 8) * N <= 100 * non_exempt {
            assert_eq!(shed[0], 0, "{m}%: exempt shed while coverable");
        }
        for k in 1..MIX.len() - 1 {
            // Higher priority (smaller index here) never sheds a larger share than lower.
            let hi = shed[k] as f64 / offered[k] as f64;
            let lo = shed[k + 1] as f64 / offered[k + 1] as f64;
            assert!(hi <= lo + 0.01, "{m}%: class {k} sheds {hi} > next {lo}");
        }
        write_rows(&mut out, m, &offered, &shed, total_shed, worst);
    }
    out
}

fn write_rows(
    out: &mut String,
    m: u8,
    offered: &[u64; MIX.len()],
    shed: &[u64; MIX.len()],
    total_shed: u64,
    worst: f64,
) {
    for (i, (p, exempt, _)) in MIX.iter().enumerate() {
        let label = if *exempt {
            format!("exempt p{p}")
        } else {
            format!("p{p}")
        };
        writeln!(
            out,
            "{m:>9} | {label:>9} | {:>7} | {:>9} | {:>6.1}",
            offered[i],
            shed[i],
            100.0 * shed[i] as f64 / offered[i] as f64
        )
        .unwrap();
    }
    writeln!(
        out,
        "{m:>9} | {:>9} | {N:>7} | {total_shed:>9} | {:>6.1} | worst window of 100: {worst:.0} requests off",
        "total",
        100.0 * total_shed as f64 / N as f64
    )
    .unwrap();
}

#[test]
fn simulation_table_matches_snapshot() {
    let mut got = String::from("# default mode (priority first, bounded lag)\n");
    got.push_str(&table(LossConfig::default()));
    got.push_str(
        "\n# window-exact mode (LossConfig::exact_window): M % of the non-exempt requests\n",
    );
    got.push_str(&table(LossConfig::default().with_exact_window(true)));
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/snapshots/loss_simulation.txt"
    );
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(path, &got).unwrap();
    }
    let want = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        got, want,
        "snapshot differs: run with UPDATE_SNAPSHOTS=1 and review"
    );
}
