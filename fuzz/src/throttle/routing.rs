//! The routing checks of the `throttle` harness: the rules [`RouteList::new`] must follow, and
//! `route`, `route_within` and `forward` checked against the groups, the draw and the
//! admission answers.

use pfcp_throttle::{
    Forwarding, RouteFailure, RouteFailureReason, RouteList, RouteListError, Routed,
};

use super::AdmitSpec;

pub(super) fn expected_route_list(
    groups: &[Vec<(u8, u32)>],
    max: u32,
) -> Result<(), RouteListError> {
    if max == 0 {
        return Err(RouteListError::ZeroAttempts);
    }
    let mut seen = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for (i, (p, _)) in group.iter().enumerate() {
            if seen.contains(p) {
                return Err(RouteListError::DuplicatePeer { group: g, index: i });
            }
            seen.push(*p);
        }
    }
    Ok(())
}

pub(super) fn route(routes: &mut RouteList<u8>, draw: u64, admit: &AdmitSpec, within: Option<u32>) {
    let groups: Vec<Vec<(u8, u32)>> = routes.groups().iter().map(|g| g.peers().to_vec()).collect();
    let max = within.unwrap_or(routes.max_forwarding_attempts());
    let run = |routes: &mut RouteList<u8>| {
        let mut calls: Vec<(u8, bool)> = Vec::new();
        let mut admission = |p: &u8| {
            let yes = match admit {
                AdmitSpec::Mask(m) => m >> (p % 64) & 1 == 1,
                AdmitSpec::Calls(v) => v.get(calls.len()).copied().unwrap_or(false),
            };
            calls.push((*p, yes));
            yes
        };
        let res = match within {
            Some(n) => routes.route_within(n, draw, &mut admission),
            None => routes.route(draw, &mut admission),
        };
        (res, calls)
    };
    let (res, calls) = run(routes);
    check_route(&groups, max, &res, &calls);
    // The picks come from the draw alone, and both admission patterns answer by peer or by
    // call number: the same draw routes the same way.
    assert_eq!(
        run(routes),
        (res, calls),
        "routing is not deterministic for one draw"
    );
}

/// `forward` after the peers of `history` failed: the limit counts forwardings, the peers
/// used are skipped, the routed peer is recorded.
pub(super) fn forward(routes: &mut RouteList<u8>, draw: u64, admit: &AdmitSpec, history: &[u8]) {
    let groups: Vec<Vec<(u8, u32)>> = routes.groups().iter().map(|g| g.peers().to_vec()).collect();
    let mut fwd = Forwarding::new();
    for p in history.iter().take(8) {
        fwd.record(*p);
    }
    let before = fwd.clone();
    let max = routes.max_forwarding_attempts();
    let mut calls: Vec<(u8, bool)> = Vec::new();
    let mut admission = |p: &u8| {
        let yes = match admit {
            AdmitSpec::Mask(m) => m >> (p % 64) & 1 == 1,
            AdmitSpec::Calls(v) => v.get(calls.len()).copied().unwrap_or(false),
        };
        calls.push((*p, yes));
        yes
    };
    let res = routes.forward(&mut fwd, draw, &mut admission);
    for (p, _) in &calls {
        assert!(!before.peers().contains(p), "peer {p} asked again");
    }
    // The skipped peers are out of the eligible set for the model.
    let groups: Vec<Vec<(u8, u32)>> = groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|&(p, w)| (p, if before.peers().contains(&p) { 0 } else { w }))
                .collect()
        })
        .collect();
    check_route(&groups, max.saturating_sub(before.forwards()), &res, &calls);
    match &res {
        Ok(r) => {
            assert_eq!(fwd.forwards(), before.forwards() + 1);
            assert_eq!(fwd.peers().last(), Some(&r.peer));
        }
        Err(_) => assert_eq!(fwd, before, "a failed forwarding was recorded"),
    }
}

fn check_route(
    groups: &[Vec<(u8, u32)>],
    max: u32,
    res: &Result<Routed<u8>, RouteFailure>,
    calls: &[(u8, bool)],
) {
    let locate = |p: u8| -> (usize, usize, u32) {
        for (g, group) in groups.iter().enumerate() {
            if let Some(i) = group.iter().position(|(q, _)| *q == p) {
                return (g, i, group[i].1);
            }
        }
        panic!("admission asked about unknown peer {p}");
    };
    let attempts = match res {
        Ok(r) => r.attempts,
        Err(f) => f.attempts,
    };
    assert_eq!(
        attempts as usize,
        calls.len(),
        "attempts vs admission checks"
    );
    // Refused checks are not forwardings: the checks are bounded by the eligible peers only.
    let n_eligible: usize = groups
        .iter()
        .map(|g| g.iter().filter(|(_, w)| *w > 0).count())
        .sum();
    assert!(
        calls.len() <= n_eligible,
        "{attempts} checks, {n_eligible} eligible"
    );
    let mut last_group = 0;
    for (n, (p, _)) in calls.iter().enumerate() {
        assert!(
            !calls[..n].iter().any(|(q, _)| q == p),
            "peer {p} asked twice"
        );
        let (g, _, w) = locate(*p);
        assert!(w > 0, "peer {p} of weight 0 asked");
        assert!(g >= last_group, "went back to group {g}");
        last_group = g;
    }
    let asked = |p: u8| calls.iter().any(|(q, _)| *q == p);
    let eligible = |g: usize| groups[g].iter().filter(|(_, w)| *w > 0).map(|(p, _)| *p);
    match res {
        Ok(r) => {
            let (last, rest) = calls.split_last().expect("routed without asking");
            assert_eq!(*last, (r.peer, true), "routed to a peer that did not admit");
            assert!(
                rest.iter().all(|(_, yes)| !yes),
                "an admitting peer was skipped"
            );
            assert!(r.attempts >= 1);
            let (g, i, w) = locate(r.peer);
            assert_eq!((g, i), (r.group, r.index), "group/index of the routed peer");
            assert!(w > 0);
            for g in 0..r.group {
                for p in eligible(g) {
                    assert!(
                        asked(p),
                        "group {g} peer {p} untried before group {}",
                        r.group
                    );
                }
            }
        }
        Err(f) => {
            assert!(
                calls.iter().all(|(_, yes)| !yes),
                "failed after an admission"
            );
            assert_eq!(f.cause().0, 74);
            let _ = f.to_string();
            let all: Vec<u8> = (0..groups.len()).flat_map(eligible).collect();
            match f.reason {
                RouteFailureReason::NoEligiblePeer => {
                    assert!(calls.is_empty());
                    assert!(all.is_empty(), "no eligible peer among {all:?}");
                }
                RouteFailureReason::AllRefused => {
                    assert!(!all.is_empty());
                    for p in &all {
                        assert!(asked(*p), "peer {p} never asked but all refused");
                    }
                }
                RouteFailureReason::MaxAttempts => {
                    // Only a request with no forwarding left, before any check.
                    assert_eq!(max, 0, "MaxAttempts with {max} forwardings left");
                    assert!(calls.is_empty(), "MaxAttempts after checks");
                    assert!(!all.is_empty(), "MaxAttempts with no eligible peer");
                }
            }
        }
    }
}
