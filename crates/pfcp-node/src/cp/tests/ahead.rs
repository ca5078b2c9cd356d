//! Priority requests sent ahead of a lower-priority place (`CpConfig::exempt_ahead_max`,
//! clause 6.2.4.5.1).

use super::*;

/// Sending ahead on (the default), no holds, no probes: every other send below is the
/// throttle's own decision.
fn cp_sending_ahead() -> CpOverloadControl {
    CpOverloadControl::new(
        CpConfig::default()
            .with_probe_gap_factor(None)
            .with_probe_fall_factor(None),
    )
    .unwrap()
}

/// `n` requests to `dest`, two emergency ones in five (40 %): the decisions on the emergency
/// ones and on the others.
fn storm(
    cp: &mut CpOverloadControl,
    dest: &Destination,
    n: u64,
    now: Instant,
) -> (Vec<CpDecision>, Vec<CpDecision>) {
    let (mut exempt, mut others) = (Vec::new(), Vec::new());
    for i in 0..n {
        if i % 5 < 2 {
            exempt.push(cp.decide_for(dest, SER, &emergency(), now, i));
        } else {
            others.push(cp.decide_for(dest, SER, &low(), now, i));
        }
    }
    (exempt, others)
}

#[test]
fn clause_6_2_4_5_1_a_shed_emergency_request_goes_ahead_and_a_lower_one_gives_way() {
    let now = base();
    let mut cp = cp_sending_ahead();
    let dest = Destination::node(upf(1));
    calm_history(&mut cp, &dest, now);
    // A reduction of 70 % leaves 30 %; the window's first requests are 40 % emergency: the
    // throttle sheds every low-priority request and some emergency ones, which a short
    // window cannot tell from noise (40 % against 30 % is within two standard errors of a
    // few hundred requests counted in threes).
    overload_node(&mut cp, &upf(1), 1, 70, now);
    let (exempt, others) = storm(&mut cp, &dest, 200, now);
    assert!(exempt.iter().all(CpDecision::is_send), "{exempt:?}");
    assert!(others.iter().all(CpDecision::is_reject));
    let ahead = cp.stats().sent_ahead;
    assert!((1..=16).contains(&ahead), "{ahead}");
    // The reduction falls to 30 %: the low-priority requests the throttle lets through give
    // their places back, one each, and then are sent.
    overload_node(&mut cp, &upf(1), 2, 30, now);
    let mut gave_way = 0;
    let mut sent = 0;
    for i in 0..200 {
        match cp.decide_for(&dest, SER, &low(), now, i) {
            CpDecision::Reject {
                reason: RejectReason::Yielded(t),
                cause,
            } => {
                assert_eq!(cause, Cause::PFCP_ENTITY_IN_CONGESTION);
                assert_eq!((t.reduction, t.class.exempt), (30, false));
                assert_eq!(sent, 0, "a place given back after a send");
                gave_way += 1;
            }
            CpDecision::Send { .. } => sent += 1,
            CpDecision::Reject {
                reason: RejectReason::Loss(_),
                ..
            } => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(gave_way, ahead);
    assert!(sent > 0);
    assert_eq!((cp.stats().gave_way, cp.stats().held), (ahead, 0));
    // The throttle's books: the drops moved from the exempt rank to the low one.
    let stats = cp.loss_throttle(&upf(1)).unwrap().stats();
    assert_eq!(stats.sent_anyway.last(), Some(&ahead));
    assert_eq!(stats.throttled.last(), Some(&0));
    assert_eq!(stats.unsent.iter().sum::<u64>(), ahead);
}

#[test]
fn no_more_than_the_bound_goes_ahead_and_only_while_the_window_is_short() {
    let now = base();
    let mut cp = CpOverloadControl::new(
        CpConfig::default()
            .with_probe_gap_factor(None)
            .with_probe_fall_factor(None)
            .with_exempt_ahead_max(4),
    )
    .unwrap();
    let dest = Destination::node(upf(1));
    calm_history(&mut cp, &dest, now);
    overload_node(&mut cp, &upf(1), 1, 70, now);
    // No low-priority request passes to give a place back: four go ahead, the others shed
    // later are rejected.
    let (exempt, _) = storm(&mut cp, &dest, 400, now);
    assert_eq!(cp.stats().sent_ahead, 4);
    assert!(exempt.iter().any(CpDecision::is_reject));
    // Past half the window the throttle's judgement stands: the places owed are forgiven,
    // and no low-priority request gives its place when the reduction falls.
    let _ = storm(&mut cp, &dest, 200, now);
    assert_eq!(cp.stats().sent_ahead, 4);
    overload_node(&mut cp, &upf(1), 2, 30, now);
    let decisions: Vec<CpDecision> = (0..100)
        .map(|i| cp.decide_for(&dest, SER, &low(), now, i))
        .collect();
    assert!(decisions.iter().any(CpDecision::is_send));
    assert_eq!(cp.stats().gave_way, 0, "{decisions:?}");
}

/// Where the window's exempt share is far above what the reduction leaves (emergency traffic
/// alone against a reduction of 50 %: at 10x the capacity the emergency load alone can exceed
/// what is left), the throttle is right and nothing goes ahead: a request sent there would
/// never find its place, only add to what the UP function must refuse.
#[test]
fn when_the_exempt_share_is_surely_above_what_the_reduction_leaves_nothing_goes_ahead() {
    let now = base();
    let mut cp = cp_sending_ahead();
    let dest = Destination::node(upf(1));
    calm_history(&mut cp, &dest, now);
    overload_node(&mut cp, &upf(1), 1, 50, now);
    let decisions: Vec<CpDecision> = (0..300)
        .map(|i| cp.decide_for(&dest, SER, &emergency(), now, i))
        .collect();
    assert!(decisions.iter().any(CpDecision::is_reject));
    assert_eq!(cp.stats().sent_ahead, 0);
}

#[test]
fn the_places_owed_are_forgiven_when_the_reduction_ends_or_the_peer_is_reset() {
    let now = base();
    let dest = Destination::node(upf(1));
    for reset in [false, true] {
        let mut cp = cp_sending_ahead();
        calm_history(&mut cp, &dest, now);
        overload_node(&mut cp, &upf(1), 1, 70, now);
        let _ = storm(&mut cp, &dest, 200, now);
        assert!(cp.stats().sent_ahead > 0);
        if reset {
            cp.reset_peer(&upf(1));
        } else {
            overload_node(&mut cp, &upf(1), 2, 0, now);
        }
        assert!((0..50).all(|i| cp.decide_for(&dest, SER, &low(), now, i).is_send()));
        assert_eq!(cp.stats().gave_way, 0);
    }
}

/// Once the UP function has refused one of this CP's priority requests (cause 74), its
/// priority traffic does not fit there: for 2 s no shed one goes ahead, and then they do
/// again.
#[test]
fn after_the_up_function_refused_a_priority_request_none_goes_ahead_for_two_seconds() {
    let now = base() + Duration::from_secs(5);
    let dest = Destination::node(upf(1));
    let mut sent_ahead = Vec::new();
    for refused_ago in [
        None,
        Some(Duration::from_millis(1_990)),
        Some(Duration::from_secs(2)),
    ] {
        let mut cp = cp_sending_ahead();
        calm_history(&mut cp, &dest, now);
        if let Some(ago) = refused_ago {
            cp.exempt_refused(&upf(1), now - ago);
            assert_eq!(cp.stats().exempt_refused, 1);
        }
        overload_node(&mut cp, &upf(1), 1, 70, now);
        let (exempt, _) = storm(&mut cp, &dest, 200, now);
        if cp.stats().sent_ahead == 0 {
            // What would have gone ahead is rejected, as the throttle decided.
            assert!(exempt.iter().any(|d| matches!(
                d,
                CpDecision::Reject {
                    reason: RejectReason::Loss(_),
                    ..
                }
            )));
        }
        sent_ahead.push(cp.stats().sent_ahead);
    }
    assert!(sent_ahead[0] > 0, "{sent_ahead:?}");
    assert_eq!(sent_ahead[1], 0, "{sent_ahead:?}");
    assert_eq!(sent_ahead[2], sent_ahead[0], "{sent_ahead:?}");
}
