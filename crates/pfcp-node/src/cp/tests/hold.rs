//! Priority requests held for a place (`CpConfig::exempt_hold`, clause 6.2.4.5.1), with
//! holds on and nothing sent ahead (`CpConfig::exempt_ahead_max` 0).

use super::*;

/// Holds of 500 ms, nothing sent ahead, no probes: every send below is the throttle's own
/// decision.
fn cp_without_probes() -> CpOverloadControl {
    CpOverloadControl::new(
        CpConfig::default()
            .with_probe_gap_factor(None)
            .with_probe_fall_factor(None)
            .with_exempt_ahead_max(0)
            .with_exempt_hold(Some(Duration::from_millis(500))),
    )
    .unwrap()
}

/// Offer emergency establishments to `dest` until one is held; the other decisions.
fn until_held(
    cp: &mut CpOverloadControl,
    dest: &Destination,
    now: Instant,
) -> (HoldTicket, Instant, Vec<CpDecision>) {
    let mut others = Vec::new();
    for i in 0..1000 {
        match cp.decide_for(dest, SER, &emergency(), now, i) {
            CpDecision::Hold {
                ticket,
                until,
                dest: d,
                priority,
            } => {
                assert_eq!(&d, dest);
                assert_eq!(priority.value(), 0);
                return (ticket, until, others);
            }
            other => others.push(other),
        }
    }
    panic!("no emergency request held: {others:?}");
}

#[test]
fn clause_6_2_4_5_1_a_shed_emergency_request_takes_the_place_of_a_lower_one() {
    let now = base();
    let mut cp = cp_without_probes();
    let dest = Destination::node(upf(1));
    calm_history(&mut cp, &dest, now);
    overload_node(&mut cp, &upf(1), 1, 50, now);
    // Emergency traffic alone in the new window, half of it to shed: the throttle reaches
    // the exempt class once its first bucket is counted, and holds what it sheds.
    let (ticket, until, before) = until_held(&mut cp, &dest, now);
    assert!(before.iter().all(CpDecision::is_send), "{before:?}");
    assert_eq!(until, now + Duration::from_millis(500));
    assert_eq!(cp.stats().held, 1);
    assert_eq!(cp.poll_hold(), None, "nothing decided yet");
    // Low-priority requests follow: those the throttle sheds are rejected as usual, and the
    // first one it lets through gives its place to the held request.
    let mut shed = 0;
    loop {
        match cp.decide_for(&dest, SER, &low(), now, 0) {
            CpDecision::Reject {
                reason: RejectReason::Loss(_),
                ..
            } => shed += 1,
            CpDecision::Reject {
                reason: RejectReason::Yielded(t),
                cause,
            } => {
                assert_eq!(cause, Cause::PFCP_ENTITY_IN_CONGESTION);
                assert_eq!((t.reduction, t.class.exempt), (50, false));
                break;
            }
            other => panic!("held request pending, a low one sent: {other:?}"),
        }
        assert!(shed < 200, "no low-priority request let through");
    }
    assert_eq!(cp.poll_hold(), Some((ticket, HoldOutcome::Send)));
    assert_eq!(cp.poll_hold(), None);
    assert_eq!((cp.stats().held, cp.stats().held_sent), (1, 1));
    // The throttle's books: one sent in the other's place, the reduction unchanged.
    let stats = cp.loss_throttle(&upf(1)).unwrap().stats();
    assert_eq!(
        stats.sent_anyway.last(),
        Some(&1),
        "the exempt rank: {stats:?}"
    );
    assert_eq!(stats.sent_anyway.iter().sum::<u64>(), 1);
    assert_eq!(stats.unsent.iter().sum::<u64>(), 1);
    assert_eq!(stats.unsent.last(), Some(&0));
    // Nothing held: the next low request the throttle lets through is sent.
    assert!((0..200).any(|_| cp.decide_for(&dest, SER, &low(), now, 0).is_send()));
}

#[test]
fn a_held_request_is_rejected_when_its_hold_ends() {
    let now = base();
    let mut cp = cp_without_probes();
    let dest = Destination::node(upf(1));
    calm_history(&mut cp, &dest, now);
    overload_node(&mut cp, &upf(1), 1, 50, now);
    let (ticket, until, _) = until_held(&mut cp, &dest, now);
    assert_eq!(cp.poll_timeout(), Some(until));
    let rejected = cp.stats().rejected;
    cp.handle_timeout(until - Duration::from_millis(1));
    assert_eq!(cp.poll_hold(), None, "not yet");
    cp.handle_timeout(until);
    match cp.poll_hold() {
        Some((t, HoldOutcome::Reject(why))) => {
            assert_eq!(t, ticket);
            assert_eq!(why.reduction, 50);
            assert!(why.class.exempt);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(cp.stats().rejected, rejected + 1);
    assert_eq!(
        cp.poll_timeout(),
        Some(now + 2 * MIN),
        "only the OCI's validity left"
    );
}

#[test]
fn a_held_request_goes_when_its_reduction_ends() {
    let now = base();
    let mut cp = cp_without_probes();
    let dest = Destination::node(upf(1));
    calm_history(&mut cp, &dest, now);
    overload_node(&mut cp, &upf(1), 1, 50, now);
    let (ticket, _, _) = until_held(&mut cp, &dest, now);
    let later = now + Duration::from_millis(50);
    overload_node(&mut cp, &upf(1), 2, 0, later);
    cp.handle_timeout(later);
    assert_eq!(cp.poll_hold(), Some((ticket, HoldOutcome::Send)));
    assert_eq!(cp.stats().held_sent, 1);
}

#[test]
fn held_requests_are_bounded_and_only_while_the_window_is_short() {
    let now = base();
    let mut cp = cp_without_probes();
    let dest = Destination::node(upf(1));
    calm_history(&mut cp, &dest, now);
    overload_node(&mut cp, &upf(1), 1, 50, now);
    let mut held_at = Vec::new();
    let mut rejected_at = Vec::new();
    for i in 0..1200u64 {
        match cp.decide_for(&dest, SER, &emergency(), now, i) {
            CpDecision::Hold { .. } => held_at.push(i),
            CpDecision::Reject { .. } => rejected_at.push(i),
            CpDecision::Send { .. } => {}
            other => panic!("{other:?}"),
        }
    }
    // At most 16 held per UP function, all among the first half window of 1000 requests.
    assert_eq!(held_at.len(), 16, "{held_at:?}");
    assert!(held_at.iter().all(|&i| i < 500), "{held_at:?}");
    // Past them, and once the window is half full, shed exempt requests are rejected at once.
    assert!(rejected_at.iter().any(|&i| i >= 500));
    assert_eq!(cp.stats().held, 16);
    // A reset rejects what was held.
    cp.reset_peer(&upf(1));
    let outcomes: Vec<_> = std::iter::from_fn(|| cp.poll_hold()).collect();
    assert_eq!(outcomes.len(), 16);
    assert!(outcomes
        .iter()
        .all(|(_, o)| matches!(o, HoldOutcome::Reject(_))));
}

#[test]
fn without_a_hold_shed_emergency_requests_are_rejected_at_once() {
    let now = base();
    let mut cp = CpOverloadControl::new(
        CpConfig::default()
            .with_exempt_hold(None)
            .with_exempt_ahead_max(0),
    )
    .unwrap();
    let dest = Destination::node(upf(1));
    overload_node(&mut cp, &upf(1), 1, 50, now);
    let decisions: Vec<CpDecision> = (0..300)
        .map(|i| cp.decide_for(&dest, SER, &emergency(), now, i))
        .collect();
    assert!(decisions.iter().any(CpDecision::is_reject));
    assert!(!decisions
        .iter()
        .any(|d| matches!(d, CpDecision::Hold { .. })));
    assert_eq!(cp.stats().held, 0);
}

/// Where the exempt traffic is more than the reduction leaves over the throttle's whole
/// history (10x the capacity, an emergency share above the allowance), a hold only delays a
/// rejection, or a success by hundreds of milliseconds: shed exempt requests are rejected at
/// once.
#[test]
fn when_the_exempt_share_exceeds_what_the_reduction_leaves_nothing_is_held() {
    let now = base();
    let mut cp = cp_without_probes();
    let dest = Destination::node(upf(1));
    // 200 requests, 60 % emergency, before the reduction of 50 % (it leaves 50 %).
    for i in 0..200u64 {
        let ctx = if i % 5 < 3 { emergency() } else { low() };
        assert!(cp.decide_for(&dest, SER, &ctx, now, i).is_send());
    }
    overload_node(&mut cp, &upf(1), 1, 50, now);
    let decisions: Vec<CpDecision> = (0..300)
        .map(|i| cp.decide_for(&dest, SER, &emergency(), now, i))
        .collect();
    assert!(decisions.iter().any(CpDecision::is_reject), "{decisions:?}");
    assert_eq!(cp.stats().held, 0);
}
