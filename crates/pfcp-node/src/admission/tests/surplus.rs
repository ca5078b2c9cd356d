//! The target load follows how bursty the arrivals are
//! ([`AdmissionConfig::adapt_target_load`]).

use super::*;

/// An admission serving 1000 requests/s with the default bound (15 ms) and target (1.2), fed
/// 2000 requests/s for `secs` by `arrivals(ms)` (requests offered in that millisecond), the
/// model polled every millisecond: the reporter's target load at the end. (The arrivals do
/// not follow the metric; `pfcp-overload`'s tests check that the law steers to the target.)
fn target_after(adapt: bool, secs: u32, arrivals: impl Fn(u32) -> u32) -> f64 {
    let t0 = base();
    let mut up = admission(
        config()
            .with_service_rate(Some(1000.0))
            .with_adapt_target_load(adapt),
        t0,
    );
    up.set_peer_support(cp_node(), true, false);
    let mut seq = 0;
    for ms in 0..secs * 1000 {
        let now = t0 + ms * MS;
        for _ in 0..arrivals(ms) {
            seq += 1;
            let _ = up.offer(modification(seq, 8), now);
        }
        while up.poll_ready(now).is_some() {}
        while up.poll_expired().is_some() {}
        up.handle_timeout(now);
    }
    assert!(up.overload_metric() > 0, "overloaded throughout");
    up.reporter().target_load()
}

#[test]
fn paced_arrivals_lower_the_surplus_and_bursts_raise_it() {
    // Two requests every millisecond: counts per 10 ms bin never vary.
    let paced = target_after(true, 4, |_| 2);
    assert!(paced < 1.05, "paced: {paced}");
    // The same rate in bursts of 40 every 20 ms.
    let bursty = target_after(true, 4, |ms| if ms % 20 == 0 { 40 } else { 0 });
    assert!(bursty > 1.3, "bursty: {bursty}");
    // Not adapted: the configured target.
    let fixed = target_after(false, 4, |_| 2);
    assert_eq!(fixed, AdmissionConfig::DEFAULT_TARGET_LOAD);
}

/// Arrivals between the capacity and the configured target (1.1x against 1.2) call for no
/// metric, yet their surplus is refused: the sizing runs on them too, and the metric follows
/// the smaller target. (Before, only a metric started an episode: the target stayed at 1.2 and
/// the UP function refused a tenth of what came, at a cost, for as long as it lasted.)
#[test]
fn arrivals_above_the_capacity_size_the_surplus_without_a_metric() {
    let t0 = base();
    let mut up = admission(config().with_service_rate(Some(1000.0)), t0);
    up.set_peer_support(cp_node(), true, false);
    let mut seq = 0;
    let mut first_metric = None;
    for ms in 0..4000u32 {
        let now = t0 + ms * MS;
        // 1.1 requests per ms, paced: 1.1x.
        for _ in 0..((ms + 1) * 11 / 10 - ms * 11 / 10) {
            seq += 1;
            let _ = up.offer(modification(seq, 8), now);
        }
        while up.poll_ready(now).is_some() {}
        while up.poll_expired().is_some() {}
        up.handle_timeout(now);
        if first_metric.is_none() && up.overload_metric() > 0 {
            first_metric = Some(ms);
        }
    }
    let target = up.reporter().target_load();
    assert!(target < 1.1, "sized below the arrivals: {target}");
    assert!(
        first_metric.is_some_and(|ms| ms < 3000),
        "the metric follows: {first_metric:?}"
    );
}
