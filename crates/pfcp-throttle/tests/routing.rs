//! Alternate routing across route groups through the public API: the two-group, four-peer
//! example of the DSR guide (seed 003) with real egress throttles, and property tests of the
//! routing rules.

use std::time::{Duration, Instant};

use pfcp_throttle::egress::{EgressConfig, EgressThrottle, MessageKind, ThresholdPair};
use pfcp_throttle::routing::{RouteFailureReason, RouteGroup, RouteList, Routed};
use pfcp_wire::MessagePriority;
use proptest::prelude::*;

use pfcp_test_support::clock::origin as t0;

const HSS: [&str; 4] = ["HSS-1", "HSS-2", "HSS-3", "HSS-4"];

/// Four connections with the DSR guide's three pairs (60/55, 80/75, 100/90 % of 1000/s) and
/// the default cut-offs: level 1 throttles priorities 12..=15, level 2 8..=15, level 3
/// 4..=15.
struct Network {
    base: Instant,
    conns: Vec<EgressThrottle>,
    /// Background rate (answers per second) and next send time per connection, in ns.
    background: Vec<(u64, u64)>,
}

impl Network {
    fn new() -> Self {
        let base = t0();
        let mut config = EgressConfig::new(1000);
        config.thresholds = [
            Some(ThresholdPair::new(60, 55)),
            Some(ThresholdPair::new(80, 75)),
            Some(ThresholdPair::new(100, 90)),
        ];
        Network {
            base,
            conns: (0..4)
                .map(|_| EgressThrottle::new(config, base).unwrap())
                .collect(),
            background: vec![(0, 0); 4],
        }
    }

    /// Sets the background load of each connection from `at_ns` on.
    fn set_background(&mut self, rates: [u64; 4], at_ns: u64) {
        for (bg, rate) in self.background.iter_mut().zip(rates) {
            *bg = (rate, at_ns);
        }
    }

    /// Sends the background traffic due before `to_ns`.
    fn run_until(&mut self, to_ns: u64) {
        for (conn, (rate, next)) in self.conns.iter_mut().zip(self.background.iter_mut()) {
            if *rate == 0 {
                continue;
            }
            while *next < to_ns {
                conn.on_send(MessageKind::Answer, self.base + Duration::from_nanos(*next));
                *next += 1_000_000_000 / *rate;
            }
        }
    }

    fn levels(&mut self, at_ns: u64) -> Vec<u8> {
        let now = self.base + Duration::from_nanos(at_ns);
        self.conns
            .iter_mut()
            .map(|c| {
                c.handle_timeout(now);
                c.level()
            })
            .collect()
    }

    /// Routes one request of `priority` at `at_ns`: the admission is each peer's real egress
    /// throttle.
    fn route(
        &mut self,
        routes: &mut RouteList<usize>,
        priority: u8,
        draw: u64,
        at_ns: u64,
    ) -> Result<Routed<usize>, pfcp_throttle::RouteFailure> {
        self.run_until(at_ns);
        let now = self.base + Duration::from_nanos(at_ns);
        let prio = MessagePriority::new(priority).unwrap();
        let conns = &mut self.conns;
        let result = routes.route(draw, &mut |peer: &usize| {
            conns[*peer]
                .decide(MessageKind::Request, prio, now)
                .is_send()
        });
        if let Ok(r) = &result {
            // Answered at once: the pending count is not under test here.
            self.conns[r.peer].on_transaction_end();
        }
        result
    }
}

/// Per priority, which peers got the requests (None: discarded).
fn route_all(
    net: &mut Network,
    routes: &mut RouteList<usize>,
    from_ns: u64,
) -> Vec<Vec<Option<usize>>> {
    let mut draw = 0x0123_4567_89AB_CDEFu64;
    let mut at = from_ns;
    (0..16u8)
        .map(|priority| {
            (0..8)
                .map(|_| {
                    draw = draw.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    at += 5_000_000;
                    match net.route(routes, priority, draw, at) {
                        Ok(r) => {
                            assert_eq!(r.group, r.peer / 2);
                            Some(r.peer)
                        }
                        Err(f) => {
                            assert_eq!(f.reason, RouteFailureReason::AllRefused);
                            assert_eq!(f.attempts, 4);
                            assert_eq!(f.cause().0, 74);
                            None
                        }
                    }
                })
                .collect()
        })
        .collect()
}

fn describe(routed: &[Vec<Option<usize>>]) -> String {
    routed
        .iter()
        .enumerate()
        .map(|(p, peers)| {
            let names: Vec<&str> = peers.iter().map(|x| x.map_or("-", |i| HSS[i])).collect();
            format!("p{p}: {}", names.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn seed_003_two_route_groups_four_hss() {
    // "A Route List is configured with two Route Groups. The Preferred Route Group contains
    // HSS-1 and HSS-2, each with one Connection; the Non-Preferred Route Group contains HSS-3
    // and HSS-4." With throttle threshold X = 2, DSR's "Requests with Priority below X" are
    // the PFCP priorities the level-2 cut-off throttles, 8..=15 (PFCP 0 is the highest), and
    // "Priority X or greater" are 0..=7.
    let groups = vec![
        RouteGroup::new().with_peer(0usize, 1).with_peer(1, 1),
        RouteGroup::new().with_peer(2usize, 1).with_peer(3, 1),
    ];
    let mut routes = RouteList::new(groups, 4).unwrap();
    let mut net = Network::new();
    let s = 1_000_000_000u64;

    // HSS-1 and HSS-2 exceed TT-2 (850 msg/s >= 80 %); HSS-3 and HSS-4 are lightly loaded.
    net.set_background([850, 850, 100, 100], 0);
    net.run_until(2 * s);
    assert_eq!(net.levels(2 * s), [2, 2, 0, 0]);
    let routed = route_all(&mut net, &mut routes, 2 * s);
    println!("HSS-1/2 above TT-2:\n{}", describe(&routed));
    for (p, peers) in routed.iter().enumerate() {
        for peer in peers {
            let peer = peer.expect("routed");
            if p <= 7 {
                assert!(peer < 2, "p{p} stays on HSS-1/HSS-2, got {}", HSS[peer]);
            } else {
                assert!(peer >= 2, "p{p} goes to HSS-3/HSS-4, got {}", HSS[peer]);
            }
        }
    }
    // Both peers of each group carry traffic (weighted random choice).
    let used: Vec<bool> = (0..4)
        .map(|i| routed.iter().flatten().any(|&x| x == Some(i)))
        .collect();
    assert_eq!(used, [true; 4]);
    assert_eq!(net.levels(3 * s - 1), [2, 2, 0, 0]);

    // "If both HSS-3 and HSS-4 exceed Throttle Threshold X, Requests with Priority less than
    // X are discarded."
    net.set_background([850, 850, 850, 850], 3 * s);
    net.run_until(5 * s);
    assert_eq!(net.levels(5 * s), [2, 2, 2, 2]);
    let routed = route_all(&mut net, &mut routes, 5 * s);
    println!("all four above TT-2:\n{}", describe(&routed));
    for (p, peers) in routed.iter().enumerate() {
        for peer in peers {
            if p <= 7 {
                assert!(peer.is_some_and(|i| i < 2), "p{p}: {peer:?}");
            } else {
                assert_eq!(*peer, None, "p{p} discarded");
            }
        }
    }

    // A finer case: HSS-3/HSS-4 only above TT-1 (level 1 throttles 12..=15). Priorities
    // 8..=11 still overflow to them, 12..=15 are discarded.
    net.set_background([850, 850, 650, 650], 6 * s);
    net.run_until(9 * s);
    assert_eq!(net.levels(9 * s), [2, 2, 1, 1]);
    let routed = route_all(&mut net, &mut routes, 9 * s);
    for (p, peers) in routed.iter().enumerate() {
        for peer in peers {
            match p {
                0..=7 => assert!(peer.is_some_and(|i| i < 2), "p{p}: {peer:?}"),
                8..=11 => assert!(peer.is_some_and(|i| i >= 2), "p{p}: {peer:?}"),
                _ => assert_eq!(*peer, None, "p{p}"),
            }
        }
    }
}

/// Groups of (weight, admits) per peer; peer ids are (group, index).
fn groups() -> impl Strategy<Value = Vec<Vec<(u32, bool)>>> {
    prop::collection::vec(
        prop::collection::vec(
            (
                prop_oneof![Just(0u32), 1u32..5, Just(u32::MAX)],
                any::<bool>(),
            ),
            0..5,
        ),
        0..5,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Never routes to a peer whose admission refuses, asks each peer at most once (refused
    /// checks are not forwardings: only a request with no forwarding left is refused
    /// unasked), and uses a group only after every eligible peer of the groups before it
    /// refused.
    #[test]
    fn routing_rules(
        spec in groups(),
        max_attempts in 1u32..12,
        forwards_left in 0u32..3,
        draw in any::<u64>(),
    ) {
        let list: Vec<RouteGroup<(usize, usize)>> = spec
            .iter()
            .enumerate()
            .map(|(g, peers)| {
                peers.iter().enumerate().fold(RouteGroup::new(), |acc, (i, &(w, _))| {
                    acc.with_peer((g, i), w)
                })
            })
            .collect();
        let mut routes = RouteList::new(list, max_attempts).unwrap();
        let mut asked: Vec<(usize, usize)> = Vec::new();
        let result = routes.route_within(forwards_left, draw, &mut |&(g, i): &(usize, usize)| {
            asked.push((g, i));
            spec[g][i].1
        });
        let eligible = |g: usize, i: usize| spec[g][i].0 > 0;
        // Each peer asked at most once, only eligible ones, groups in order.
        for (n, &(g, i)) in asked.iter().enumerate() {
            prop_assert!(eligible(g, i));
            prop_assert!(!asked[..n].contains(&(g, i)));
            if n > 0 {
                prop_assert!(asked[n - 1].0 <= g);
            }
        }
        let all_eligible_asked_before = |group: usize| {
            spec.iter().enumerate().take(group).all(|(g, peers)| {
                peers.iter().enumerate().all(|(i, _)| !eligible(g, i) || asked.contains(&(g, i)))
            })
        };
        match result {
            Ok(r) => {
                prop_assert!(spec[r.group][r.index].1, "routed to a refusing peer");
                prop_assert_eq!(r.peer, (r.group, r.index));
                prop_assert_eq!(asked.last(), Some(&r.peer));
                prop_assert!(asked[..asked.len() - 1].iter().all(|&(g, i)| !spec[g][i].1));
                prop_assert_eq!(r.attempts as usize, asked.len());
                prop_assert!(forwards_left > 0);
                // Preference order: a lower group only after every eligible peer above refused,
                // and within the group only after the earlier picks refused.
                prop_assert!(all_eligible_asked_before(r.group));
            }
            Err(f) => {
                prop_assert_eq!(f.attempts as usize, asked.len());
                prop_assert!(asked.iter().all(|&(g, i)| !spec[g][i].1));
                let n_eligible = spec
                    .iter()
                    .enumerate()
                    .map(|(g, peers)| (0..peers.len()).filter(|&i| eligible(g, i)).count())
                    .sum::<usize>();
                match f.reason {
                    RouteFailureReason::NoEligiblePeer => {
                        prop_assert_eq!(n_eligible, 0);
                        prop_assert_eq!(f.attempts, 0);
                    }
                    RouteFailureReason::AllRefused => {
                        prop_assert_eq!(asked.len(), n_eligible);
                        prop_assert!(n_eligible > 0);
                    }
                    RouteFailureReason::MaxAttempts => {
                        prop_assert_eq!(forwards_left, 0);
                        prop_assert_eq!(f.attempts, 0);
                        prop_assert!(n_eligible > 0);
                    }
                }
            }
        }
        // The same draw routes the same way.
        let again =
            routes.route_within(forwards_left, draw, &mut |&(g, i): &(usize, usize)| spec[g][i].1);
        prop_assert_eq!(again, result);
    }
}
