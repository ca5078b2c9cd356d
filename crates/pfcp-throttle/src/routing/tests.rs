//! Unit tests of alternate routing: construction checks, weighted choice, overflow across
//! groups and the forwarding limit.

use super::*;

fn list(groups: &[&[(&'static str, u32)]], attempts: u32) -> RouteList<&'static str> {
    let groups = groups
        .iter()
        .map(|g| {
            g.iter()
                .fold(RouteGroup::new(), |acc, &(p, w)| acc.with_peer(p, w))
        })
        .collect();
    RouteList::new(groups, attempts).unwrap()
}

use pfcp_test_support::rng::XorShift;

#[test]
fn construction_checks() {
    let g = || RouteGroup::new().with_peer("a", 1);
    assert_eq!(
        RouteList::new(vec![g()], 0).err(),
        Some(RouteListError::ZeroAttempts)
    );
    assert_eq!(
        RouteList::new(
            vec![g(), RouteGroup::new().with_peer("b", 1).with_peer("a", 2)],
            3
        )
        .err(),
        Some(RouteListError::DuplicatePeer { group: 1, index: 1 })
    );
    assert_eq!(
        RouteList::new(
            vec![RouteGroup::new().with_peer("a", 1).with_peer("a", 1)],
            3
        )
        .err(),
        Some(RouteListError::DuplicatePeer { group: 0, index: 1 })
    );
    let mut l = RouteList::new(vec![g()], 3).unwrap();
    assert_eq!(
        l.set_max_forwarding_attempts(0),
        Err(RouteListError::ZeroAttempts)
    );
    assert_eq!(l.set_max_forwarding_attempts(5), Ok(()));
    assert_eq!(l.max_forwarding_attempts(), 5);
    assert_eq!(l.groups().len(), 1);
    // An empty list routes nothing, without asking.
    let mut empty: RouteList<u32> = RouteList::new(Vec::new(), 1).unwrap();
    let failure = empty.route(1, &mut |_: &u32| -> bool { unreachable!() });
    assert_eq!(
        failure,
        Err(RouteFailure {
            reason: RouteFailureReason::NoEligiblePeer,
            attempts: 0
        })
    );
}

#[test]
fn picks_in_proportion_to_the_weights() {
    let mut l = list(&[&[("a", 1), ("b", 3), ("z", 0)]], 1);
    let mut rng = XorShift(5);
    let mut counts = [0u32; 2];
    for _ in 0..40_000 {
        let r = l.route(rng.next(), &mut |_: &&str| true).unwrap();
        assert_eq!(r.attempts, 1);
        counts[usize::from(r.peer == "b")] += 1;
    }
    let share_b = f64::from(counts[1]) / 40_000.0;
    assert!((share_b - 0.75).abs() < 0.01, "{share_b}");
}

#[test]
fn weight_zero_is_never_eligible() {
    let mut l = list(&[&[("a", 0), ("b", 0)], &[("c", 0)]], 5);
    let mut asked = 0;
    let r = l.route(9, &mut |_: &&str| {
        asked += 1;
        true
    });
    assert_eq!(asked, 0);
    assert_eq!(r.unwrap_err().reason, RouteFailureReason::NoEligiblePeer);
    // Weights come from the caller (e.g. load control) and can change.
    assert!(l.set_weight(&"b", 2));
    assert!(!l.set_weight(&"x", 2));
    assert_eq!(l.route(9, &mut |_: &&str| true).unwrap().peer, "b");
    assert!(l.set_weight_at(1, 0, 1));
    assert!(!l.set_weight_at(1, 1, 1));
    assert!(!l.set_weight_at(2, 0, 1));
    assert!(l.set_weight(&"b", 0));
    let r = l.route(9, &mut |_: &&str| true).unwrap();
    assert_eq!((r.peer, r.group, r.index, r.attempts), ("c", 1, 0, 1));
}

#[test]
fn overflows_to_the_next_group_only_when_the_group_is_exhausted() {
    let mut l = list(&[&[("a", 1), ("b", 1)], &[("c", 1), ("d", 1)]], 10);
    for draw in 0..200u64 {
        let mut asked = Vec::new();
        let r = l
            .route(draw, &mut |p: &&'static str| {
                asked.push(*p);
                *p == "b" || *p == "d"
            })
            .unwrap();
        assert_eq!(r.peer, "b");
        assert_eq!(r.group, 0);
        assert_eq!(r.attempts as usize, asked.len());
        let mut asked = Vec::new();
        let r = l
            .route(draw, &mut |p: &&'static str| {
                asked.push(*p);
                p.starts_with(['c', 'd'])
            })
            .unwrap();
        assert_eq!(r.group, 1);
        assert_eq!(r.attempts, 3);
        assert_eq!(
            asked[..2]
                .iter()
                .filter(|p| **p == "a" || **p == "b")
                .count(),
            2
        );
    }
}

#[test]
fn refused_checks_are_not_forwardings() {
    // DSR: alternate routing "is attempted only if the Maximum Per Message Forwarding
    // Allowed ... is not exceeded"; a refused check forwards nothing.
    let mut l = list(&[&[("a", 1), ("b", 1), ("c", 1)], &[("d", 1)]], 1);
    let never = &mut |_: &&str| false;
    // A limit of one forwarding still lets every eligible peer be asked once.
    assert_eq!(
        l.route(3, never),
        Err(RouteFailure {
            reason: RouteFailureReason::AllRefused,
            attempts: 4
        })
    );
    let r = l.route(3, &mut |p: &&str| *p == "d").unwrap();
    assert_eq!((r.peer, r.group, r.attempts), ("d", 1, 4));
    // No forwarding left: nobody is asked.
    assert_eq!(
        l.route_within(0, 3, &mut |_: &&str| panic!("asked")),
        Err(RouteFailure {
            reason: RouteFailureReason::MaxAttempts,
            attempts: 0
        })
    );
}

#[test]
fn forward_counts_sends_and_skips_the_peers_used() {
    let mut l = list(&[&[("a", 1), ("b", 1)], &[("c", 1)]], 2);
    let mut history = Forwarding::new();
    let first = l.route(11, &mut |_: &&str| true).unwrap();
    history.record(first.peer);
    // It failed downstream: forward again, never to the same peer.
    let mut asked: Vec<&'static str> = Vec::new();
    let again = l
        .forward(&mut history, 12, &mut |p: &&'static str| {
            asked.push(*p);
            true
        })
        .unwrap();
    assert_ne!(again.peer, first.peer);
    assert!(!asked.contains(&first.peer));
    assert_eq!(history.forwards(), 2);
    assert_eq!(history.peers(), [first.peer, again.peer]);
    // Sent twice: the limit is reached, whatever is left.
    let r = l.forward(&mut history, 13, &mut |_: &&str| panic!("asked"));
    assert_eq!(r.unwrap_err().reason, RouteFailureReason::MaxAttempts);
    assert_eq!(history.forwards(), 2, "a failure is not recorded");
}

#[test]
fn equal_draws_give_equal_routes() {
    let mut l = list(
        &[&[("a", 5), ("b", 7), ("c", 1)], &[("d", 2), ("e", 2)]],
        10,
    );
    let mut rng = XorShift(77);
    for _ in 0..1000 {
        let draw = rng.next();
        let refuse = rng.next();
        let admit = |p: &&str| (refuse >> (p.as_bytes()[0] - b'a')) & 1 == 0;
        let mut a1 = admit;
        let mut a2 = admit;
        assert_eq!(l.route(draw, &mut a1), l.route(draw, &mut a2));
    }
}

/// An admission holding per-peer state, as a caller with one throttle per peer would.
struct Budget {
    left: [u32; 3],
}

impl Admission<usize> for Budget {
    fn admit(&mut self, peer: &usize) -> bool {
        match self.left.get_mut(*peer) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}

#[test]
fn a_stateful_admission_is_asked_once_per_peer() {
    let groups = vec![
        RouteGroup::new().with_peer(0usize, 1).with_peer(1, 1),
        RouteGroup::new().with_peer(2usize, 1),
    ];
    let mut l = RouteList::new(groups, 3).unwrap();
    let mut budget = Budget { left: [2, 1, 5] };
    let mut per_group = [0u32; 2];
    for draw in 0..8u64 {
        match l.route(draw.wrapping_mul(0x9E37_79B9_7F4A_7C15), &mut budget) {
            Ok(r) => per_group[r.group] += 1,
            Err(f) => panic!("{f}"),
        }
    }
    // Group 0 takes its 3, group 1 the other 5; no budget was spent without a route.
    assert_eq!(per_group, [3, 5]);
    assert_eq!(budget.left, [0, 0, 0]);
    let f = l.route(1, &mut budget).unwrap_err();
    assert_eq!(f.reason, RouteFailureReason::AllRefused);
    assert_eq!(f.attempts, 3);
    assert_eq!(f.cause(), Cause::PFCP_ENTITY_IN_CONGESTION);
    assert_eq!(
        f.to_string(),
        "request not routed: every eligible peer refused after 3 attempt(s)"
    );
}
