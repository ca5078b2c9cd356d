//! Property tests of the Loss throttle (TS 29.244 6.2.4.4, 6.2.4.5.1).

use pfcp_throttle::loss::RANKS;
use pfcp_throttle::{LossConfig, LossThrottle, RequestClass};
use pfcp_wire::MessagePriority;
use proptest::prelude::*;

fn class(p: u8, exempt: bool) -> RequestClass {
    let p = MessagePriority::new(p % 16).unwrap();
    if exempt {
        RequestClass::exempt(p)
    } else {
        RequestClass::new(p)
    }
}

/// The next request's class from the mix (xorshift state `x`): priority `p` with weight
/// `weights[p]`, exempt with `exempt_w`.
fn next_class(x: &mut u64, weights: &[u32; 16], exempt_w: u32) -> RequestClass {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    let total: u32 = weights.iter().sum::<u32>() + exempt_w;
    let mut pick = ((*x >> 32) % u64::from(total.max(1))) as u32;
    for (p, &w) in weights.iter().enumerate() {
        if pick < w {
            return class(p as u8, false);
        }
        pick -= w;
    }
    class(0, true)
}

/// A traffic mix: weights per priority (and an exempt share), drawn per request from a
/// deterministic generator seeded by proptest.
fn run(
    m: u8,
    weights: &[u32; 16],
    exempt_w: u32,
    seed: u64,
    n: usize,
    cfg: LossConfig,
) -> (Vec<bool>, Vec<RequestClass>, LossThrottle) {
    let mut t = LossThrottle::new(cfg);
    t.set_reduction(m);
    let mut x = seed | 1;
    let mut drops = Vec::with_capacity(n);
    let mut classes = Vec::with_capacity(n);
    for _ in 0..n {
        let c = next_class(&mut x, weights, exempt_w);
        classes.push(c);
        drops.push(!t.decide(c).is_send());
    }
    (drops, classes, t)
}

fn mix() -> impl Strategy<Value = ([u32; 16], u32)> {
    (prop::array::uniform16(0u32..10), 0u32..5)
        .prop_filter("some traffic", |(w, e)| w.iter().sum::<u32>() + e > 0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Exempt requests are throttled only when the rest cannot cover the reduction.
    #[test]
    fn exemption(m in 1u8..=99, (w, e) in mix(), seed in any::<u64>()) {
        let non_exempt: u32 = w.iter().sum();
        let total = non_exempt + e;
        prop_assume!(e > 0 && non_exempt > 0);
        // Coverable with a margin for the mix's sampling noise.
        prop_assume!(u64::from(m) * u64::from(total) + 10 * u64::from(total) <= 100 * u64::from(non_exempt));
        let (drops, classes, _) = run(m, &w, e, seed, 4000, LossConfig::default());
        let exempt_drops = drops.iter().zip(&classes).skip(1000).filter(|(d, c)| **d && c.exempt).count();
        prop_assert_eq!(exempt_drops, 0);
    }

    /// No priority inversions with escalation off: no escalated drop at all, and per-rank shed
    /// fractions are ordered (a higher-priority class never sheds more than a lower one, up to
    /// two points of boundary movement).
    #[test]
    fn no_inversion_beyond_tolerance(m in 1u8..=99, (w, e) in mix(), seed in any::<u64>()) {
        let cfg = LossConfig::default().with_escalate_after(None);
        let (drops, classes, t) = run(m, &w, e, seed, 4000, cfg);
        prop_assert_eq!(t.stats().escalated, 0);
        // Per rank shed fractions are ordered: a higher rank never sheds more than a lower one
        // (beyond 2 points of boundary movement).
        let mut offered = [0u32; RANKS];
        let mut shed = [0u32; RANKS];
        for (d, c) in drops.iter().zip(&classes).skip(1000) {
            offered[c.rank()] += 1;
            shed[c.rank()] += u32::from(*d);
        }
        let frac: Vec<Option<f64>> = (0..RANKS).map(|r| (offered[r] >= 50).then(|| f64::from(shed[r]) / f64::from(offered[r]))).collect();
        for lo in 0..RANKS {
            for hi in lo + 1..RANKS {
                if let (Some(a), Some(b)) = (frac[lo], frac[hi]) {
                    prop_assert!(b <= a + 0.02, "rank {} sheds {} > rank {} {}", hi, b, lo, a);
                }
            }
        }
    }

    /// Long-run exactness in both modes.
    #[test]
    fn long_run_total(m in 0u8..=100, (w, e) in mix(), seed in any::<u64>(), escalate in proptest::option::of(1u32..8)) {
        let cfg = LossConfig::default().with_escalate_after(escalate);
        let (drops, _, _) = run(m, &w, e, seed, 5000, cfg);
        let got = drops.iter().filter(|d| **d).count() as i64;
        prop_assert!((got - i64::from(m) * 50).abs() <= 50, "{} of 5000 at {}%", got, m);
    }

    /// Window-exact mode: for any mix and any schedule of reductions, the drops of every run of
    /// non-exempt requests differ from the sum of the reductions in force (over 100) by less
    /// than one request, so every window of 100 or more is within one percentage point.
    #[test]
    fn exact_mode_every_window(
        (w, e) in mix(),
        seed in any::<u64>(),
        schedule in prop::collection::vec((0u8..=100, 1usize..400), 1..8),
    ) {
        let mut t = LossThrottle::new(LossConfig::default().with_exact_window(true));
        let mut x = seed | 1;
        // e(t) = sum(M)/100 - drops, in 1/100 request, after each counted request.
        let mut error = 0i64;
        let (mut lo, mut hi) = (0i64, 0i64);
        for (m, n) in schedule {
            t.set_reduction(m);
            for _ in 0..n {
                let c = next_class(&mut x, &w, e);
                let dropped = !t.decide(c).is_send();
                if c.exempt {
                    prop_assert!(!dropped, "exempt throttled");
                    continue;
                }
                error += i64::from(m) - 100 * i64::from(dropped);
                lo = lo.min(error);
                hi = hi.max(error);
            }
        }
        // The range of e over the whole run bounds every window's deviation (e(b) - e(a)).
        prop_assert!(hi - lo < 100, "error range {} to {} (1/100 request)", lo, hi);
    }
}
