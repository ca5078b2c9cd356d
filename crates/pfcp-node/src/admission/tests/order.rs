//! The service orders ([`ServiceOrder`]): which request is taken up next, and what arrival
//! order admits.

use super::*;

/// In arrival order a request is admitted only if what is queued ahead lets it
/// be served within its bound: the setting of `max_wait_takes_stale_requests_out` (10/s, 8 at
/// once, a bound of 400 ms) queues four, the fifth would wait 400 ms and is refused at once,
/// and nothing expires, however late the caller polls.
#[test]
fn arrival_order_admits_only_what_it_serves_within_the_bound() {
    for late in [false, true] {
        let t0 = base();
        let mut up = admission(
            config()
                .with_service_order(ServiceOrder::Arrival)
                .with_service_rate(Some(10.0))
                .with_max_wait(Some(50 * MS)),
            t0,
        );
        let mut refused = Vec::new();
        for seq in 1..=8 {
            match up.offer(modification(seq, 8), t0) {
                Admit::Queued { evicted: None } => {}
                Admit::Rejected { request, cause } => {
                    assert_eq!(cause, Cause::PFCP_ENTITY_IN_CONGESTION);
                    refused.push(request.sequence.value());
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(refused, [5, 6, 7, 8]);
        let polls: Vec<u32> = if late {
            vec![0, 900]
        } else {
            (0..=9).map(|k| k * 100).collect()
        };
        let mut served = Vec::new();
        for ms in polls {
            let now = t0 + ms * MS;
            up.handle_timeout(now);
            assert!(up.poll_expired().is_none(), "late: {late}");
            served.extend(std::iter::from_fn(|| up.poll_ready(now)).map(|r| r.sequence.value()));
        }
        assert_eq!(served, [1, 2, 3, 4], "late: {late}");
        let s = up.stats();
        assert_eq!((s.rejected, s.expired, s.served), (4, 0, 4), "late: {late}");
    }
}

/// Arrival order serves priority 0 first and the rest oldest first; strict priority serves
/// by priority. Five requests in 0.4 ms at 1000/s, taken up after the first one's service.
#[test]
fn arrival_order_serves_priority_0_first_then_the_oldest() {
    for (order, expected) in [
        (ServiceOrder::Arrival, [4, 2, 3, 5]),
        (ServiceOrder::Priority, [4, 3, 5, 2]),
    ] {
        let t0 = base();
        let mut up = admission(
            config()
                .with_service_order(order)
                .with_service_rate(Some(1000.0)),
            t0,
        );
        let _ = up.offer(modification(1, 8), t0);
        assert_eq!(up.poll_ready(t0).map(|r| r.sequence.value()), Some(1));
        for (seq, p, at) in [(2, 12, 1), (3, 2, 2), (4, 0, 3), (5, 5, 4)] {
            let offered = up.offer(modification(seq, p), t0 + at * MS / 10);
            assert_eq!(offered, Admit::Queued { evicted: None });
        }
        let now = t0 + 5 * MS;
        let served: Vec<u32> = std::iter::from_fn(|| up.poll_ready(now))
            .map(|r| r.sequence.value())
            .collect();
        assert_eq!(served, expected, "{order:?}");
    }
}

/// In arrival order a newcomer that does not fit within the bound evicts the newest request
/// of a lower priority, or is refused: 1000/s and a bound of 15 ms hold 15 requests; the 16th
/// of the same priority is refused, one of a higher priority takes the place of the newest,
/// and everything admitted is served within the bound (nothing expires). They arrive 10 µs
/// apart (at one instant, ties go to the higher priority).
#[test]
fn arrival_order_refuses_the_lowest_priority_when_the_bound_is_full() {
    let t0 = base();
    let at = |seq: u32| t0 + seq * MS / 100;
    let mut up = admission(
        config()
            .with_service_order(ServiceOrder::Arrival)
            .with_service_rate(Some(1000.0)),
        t0,
    );
    for seq in 1..=15 {
        assert_eq!(
            up.offer(modification(seq, 12), at(seq)),
            Admit::Queued { evicted: None }
        );
    }
    assert!(matches!(
        up.offer(modification(16, 12), at(16)),
        Admit::Rejected { .. }
    ));
    match up.offer(modification(17, 3), at(17)) {
        Admit::Queued {
            evicted: Some(evicted),
        } => assert_eq!(evicted.sequence.value(), 15),
        other => panic!("expected an eviction, got {other:?}"),
    }
    let mut served = Vec::new();
    for ms in 1..=20 {
        let now = t0 + ms * MS;
        up.handle_timeout(now);
        served.extend(std::iter::from_fn(|| up.poll_ready(now)).map(|r| r.sequence.value()));
    }
    let expected: Vec<u32> = (1..=14).chain([17]).collect();
    assert_eq!(served, expected);
    let s = up.stats();
    assert_eq!((s.rejected, s.evicted, s.expired), (1, 1, 0));
}
