//! The signalling router's Per Connection Egress Message Throttling (seed 003), one test per
//! sentence it states as a rule, named by the sentence, through the public API; and its
//! two-route-group example run in simulated time, with the figures (admitted rate and level
//! per connection, what went to the non-preferred group, what was shed per class) printed
//! and checked. The figures are in `docs/benchmarks.md` ("Seed scenarios").

// The figures are parallel arrays indexed by connection (and router priority).
#![allow(clippy::needless_range_loop)]

use std::time::{Duration, Instant};

use pfcp_throttle::egress::{
    EgressConfig, EgressConfigSets, EgressDecision, EgressThrottle, MessageKind, ThresholdPair,
    ThrottleReason,
};
use pfcp_throttle::peer::{PeerThrottles, Refusal};
use pfcp_throttle::routing::{Forwarding, RouteFailureReason, RouteGroup, RouteList};
use pfcp_throttle::{
    Classifier, LossThrottle, MessagePriority, RequestClass, RouterPriority, UNPRIORITISED,
};

use pfcp_test_support::clock::origin as t0;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn router(x: u8) -> RouterPriority {
    RouterPriority::new(x).unwrap()
}

/// Max EMR 1000/s with the guide's three pairs: 60/55, 80/75, 100/90 %.
fn three_levels() -> EgressConfig {
    let mut c = EgressConfig::new(1000);
    c.thresholds = [
        Some(ThresholdPair::new(60, 55)),
        Some(ThresholdPair::new(80, 75)),
        Some(ThresholdPair::new(100, 90)),
    ];
    c
}

/// Drives `conn` with `rate` answers per second for `secs` from `from`; returns the end.
fn answers(conn: &mut EgressThrottle, from: Instant, rate: u64, secs: u64) -> Instant {
    let gap = Duration::from_nanos(1_000_000_000 / rate);
    let mut t = from;
    for _ in 0..rate * secs {
        t += gap;
        conn.on_send(MessageKind::Answer, t);
    }
    conn.handle_timeout(t);
    t
}

#[test]
fn if_tt_x_is_exceeded_only_requests_with_priority_below_x_are_throttled() {
    // "If TT-x (where x can be 1, 2 or 3) of a Connection is exceeded, only Requests with
    // Priority below x are throttled while Requests with Priority x or greater are allowed
    // over the Connection." Level-only mode, so that the levels alone decide.
    for (x, answer_rate) in [(1u8, 700), (2, 850), (3, 1050)] {
        let start = t0();
        let mut conn = EgressThrottle::new(three_levels().with_hard_cap(false), start).unwrap();
        let now = answers(&mut conn, start, answer_rate, 3);
        assert_eq!(conn.level(), x, "{answer_rate} answers/s");
        for r in 0..=4u8 {
            let class = router(r).class();
            let d = conn.decide(MessageKind::Request, class, now);
            if r < x {
                assert_eq!(
                    d,
                    EgressDecision::Throttle(ThrottleReason::Level(x)),
                    "{r} at {x}"
                );
            } else {
                assert!(d.is_send(), "router priority {r} at level {x}");
            }
        }
        // Every PFCP priority of a band is treated like its router priority.
        for v in 0..=15u8 {
            let p = MessagePriority::new(v).unwrap();
            let sent = conn.check(MessageKind::Request, p, now).is_ok();
            assert_eq!(
                sent,
                RouterPriority::from_pfcp(p).value() >= x,
                "PFCP {v} at {x}"
            );
        }
    }
}

#[test]
fn requests_with_priority_x_or_greater_are_allowed_exempt_requests_pass_the_cap_too() {
    // At level 3 with the cap on and the connection far above its Max EMR, the router's
    // highest priority (the exempt class: emergency, eMPS) still goes; the cap used to
    // refuse it where the level alone would pass it.
    let start = t0();
    let mut conn = EgressThrottle::new(three_levels(), start).unwrap();
    let now = answers(&mut conn, start, 1500, 2);
    assert_eq!(conn.level(), 3);
    let emergency = RequestClass::exempt(MessagePriority::HIGHEST);
    let plain_zero = RequestClass::new(MessagePriority::HIGHEST);
    let mut sent = [0u32; 2];
    for i in 0..200u64 {
        let t = now + Duration::from_micros(i * 500);
        conn.on_send(MessageKind::Answer, t);
        sent[0] += u32::from(conn.decide(MessageKind::Request, emergency, t).is_send());
        sent[1] += u32::from(conn.decide(MessageKind::Request, plain_zero, t).is_send());
    }
    assert_eq!(sent[0], 200, "every exempt request sent");
    assert!(
        sent[1] < 10,
        "the cap holds the rest: {} of 200 sent",
        sent[1]
    );
    assert_eq!(conn.stats().sent_exempt, 200);
}

#[test]
fn without_a_message_priority_configuration_all_requests_are_assigned_a_priority_of_0() {
    // "If a Message Priority Configuration Set is not assigned to the Connection to specify
    // the Priority, load shedding is still performed but it is primarily restricted to
    // Requests as all Requests are assigned a Priority of 0." Priority 0 is the router's
    // lowest: a request without a priority is shed at level 1 already.
    let classifier = Classifier::default();
    let unprioritised = classifier.received_request(None);
    assert_eq!(unprioritised, UNPRIORITISED);
    assert_eq!(
        RouterPriority::from_pfcp(unprioritised),
        RouterPriority::LOWEST
    );
    assert_eq!(RequestClass::default(), RequestClass::new(UNPRIORITISED));
    let start = t0();
    let mut conn = EgressThrottle::new(three_levels(), start).unwrap();
    let now = answers(&mut conn, start, 700, 3);
    assert_eq!(conn.level(), 1);
    assert_eq!(
        conn.decide(MessageKind::Request, RequestClass::default(), now),
        EgressDecision::Throttle(ThrottleReason::Level(1))
    );
    // "primarily restricted to Requests": the answers still go.
    assert!(conn
        .decide(MessageKind::Answer, RequestClass::default(), now)
        .is_send());
}

#[test]
fn the_emr_is_the_egress_request_rate_plus_the_egress_answer_rate() {
    // "The Egress Message Rate (EMR) on a Connection being throttled is equivalent to the
    // egress Request rate + the egress Answer rate on the Connection." Everything the
    // connection carries counts: first transmissions, answers, retransmissions, Heartbeat
    // and association messages.
    let start = t0();
    let mut conn = EgressThrottle::new(three_levels(), start).unwrap();
    let gap = ms(4); // 250 of each kind per second: 1000 msg/s in all
    let mut t = start;
    for _ in 0..500 {
        t += gap;
        let _ = conn.decide(MessageKind::Request, MessagePriority::HIGHEST, t);
        conn.on_transaction_end();
        conn.on_send(MessageKind::Answer, t);
        conn.on_send(MessageKind::Retransmission, t);
        conn.on_send(MessageKind::Management, t);
    }
    conn.handle_timeout(t + ms(1));
    let s = conn.stats();
    assert_eq!(s.counted(), 2000);
    assert_eq!(
        (s.sent_answers, s.sent_retransmissions, s.sent_management),
        (500, 500, 500)
    );
    assert!(
        (990.0..=1010.0).contains(&conn.measured_rate()),
        "{}",
        conn.measured_rate()
    );
    assert_eq!(conn.level(), 3, "1000 msg/s is TT-3 (100 %)");
    // A request counted but not sent still counts in the offered rate; a refused check
    // does not.
    assert_eq!(
        MessageKind::of(pfcp_wire::MessageType::HEARTBEAT_REQUEST),
        MessageKind::Management
    );
}

#[test]
fn the_max_emr_of_each_connection_is_the_peer_capacity_divided_by_its_connections() {
    // "For Peers that are deployed with multiple Connections, it is recommended as a
    // guideline to set the Max EMR on each Connection by dividing the total capacity of the
    // Peer by the number of Connections to the Peer."
    assert_eq!(EgressConfig::max_rate_per_connection(3000, 4), Some(750));
    assert_eq!(EgressConfig::max_rate_per_connection(1001, 2), Some(500));
    assert_eq!(EgressConfig::max_rate_per_connection(3, 4), None);
    assert_eq!(EgressConfig::max_rate_per_connection(3000, 0), None);
    let c = three_levels().for_connection_of(3000, 4).unwrap();
    assert_eq!((c.max_rate, c.thresholds), (750, three_levels().thresholds));
}

#[test]
fn egress_throttling_configuration_sets_are_configured_and_assigned_to_connections() {
    // "Egress Throttling Configuration Sets can be configured and assigned to Connections
    // to control egress throttling behavior." and "The allowed maximum egress message rate
    // (Max EMR) can be configured per Connection."
    let mut sets = EgressConfigSets::new();
    let hss = sets.add("hss", three_levels()).unwrap();
    let small = sets.add("small", EgressConfig::new(100)).unwrap();
    assert!(
        sets.add("hss", EgressConfig::new(5)).is_err(),
        "names are unique"
    );
    assert!(
        sets.add("bad", EgressConfig::new(0)).is_err(),
        "sets are validated"
    );
    sets.assign("hss1-a", hss).unwrap();
    sets.assign_with_max_rate("hss1-b", hss, 400).unwrap();
    assert_eq!(
        sets.assign_peer(["hss2-a", "hss2-b", "hss2-c"], small, 900)
            .unwrap(),
        300
    );
    assert_eq!(sets.config_for(&"hss1-a"), Some(three_levels()));
    assert_eq!(
        sets.config_for(&"hss1-b"),
        Some(three_levels().with_max_rate(400))
    );
    assert_eq!(sets.config_for(&"hss2-c").map(|c| c.max_rate), Some(300));
    assert_eq!(sets.config_for(&"unknown"), None);
    sets.set_default(Some(small));
    assert_eq!(sets.config_for(&"unknown"), Some(EgressConfig::new(100)));
    let conn = sets.throttle_for(&"hss1-b", t0()).unwrap();
    assert_eq!(conn.config().max_rate, 400);
}

#[test]
fn alternate_routing_is_attempted_only_if_the_maximum_per_message_forwarding_allowed_is_not_exceeded(
) {
    // "Alternate Routing Across Route Groups is attempted only if the Maximum Per Message
    // Forwarding Allowed ... is not exceeded." A refused check is not a forwarding: with a
    // limit of 1 the request still overflows past every refusing peer of the preferred group.
    let mut routes = RouteList::new(
        vec![
            RouteGroup::new()
                .with_peer("HSS-1", 1)
                .with_peer("HSS-2", 1),
            RouteGroup::new().with_peer("HSS-3", 1),
        ],
        1,
    )
    .unwrap();
    let routed = routes.route(7, &mut |p: &&str| *p == "HSS-3").unwrap();
    assert_eq!((routed.peer, routed.attempts), ("HSS-3", 3));
    // Sent once: a retry after HSS-3 failed is not attempted.
    let mut history = Forwarding::new();
    history.record(routed.peer);
    let again = routes.forward(&mut history, 8, &mut |_: &&str| true);
    assert_eq!(again.unwrap_err().reason, RouteFailureReason::MaxAttempts);
}

#[test]
fn eligible_connections_of_the_other_route_groups_are_used_after_the_current_group_is_exhausted() {
    // "Eligible Peers or Connections from the other priority Route Groups of the Route List
    // can be used to deliver a Request after all the Peers or Connections in the current
    // Route Group are exhausted."
    let mut routes = RouteList::new(
        vec![
            RouteGroup::new().with_peer(0u8, 1).with_peer(1, 1),
            RouteGroup::new().with_peer(2u8, 1),
        ],
        1,
    )
    .unwrap();
    for draw in 0..50u64 {
        let mut asked = Vec::new();
        let r = routes
            .route(draw, &mut |p: &u8| {
                asked.push(*p);
                *p == 2
            })
            .unwrap();
        assert_eq!(r.peer, 2);
        let mut first = asked[..2].to_vec();
        first.sort_unstable();
        assert_eq!(first, [0, 1], "both preferred peers asked first");
    }
}

/// Loss at `reduction` % (window-exact or the default mode) in front of a connection at
/// level 1 (700 answers/s of other traffic, level-only), 70 requests/s of which a fifth is
/// router priority 0 (the level sheds it) and the rest priority 3. The share of the requests
/// not sent, with the two deciding together (`PeerThrottles`) and one after the other.
fn shed_share(reduction: u8, exact: bool) -> (f64, f64) {
    let run = |together: bool| {
        let start = t0();
        let config = three_levels().with_hard_cap(false);
        let loss = LossThrottle::new(pfcp_throttle::LossConfig::default().with_exact_window(exact));
        let mut peer = PeerThrottles::new(
            loss.clone(),
            Some(EgressThrottle::new(config, start).unwrap()),
        );
        peer.loss_mut().set_reduction(reduction);
        let mut alone_loss = loss;
        alone_loss.set_reduction(reduction);
        let mut alone_egress = EgressThrottle::new(config, start).unwrap();
        let (mut sent, mut offered) = (0u32, 0u32);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..28_000u64 {
            let t = start + Duration::from_nanos(i * 1_000_000_000 / 700);
            peer.on_send(MessageKind::Answer, t);
            alone_egress.on_send(MessageKind::Answer, t);
            if i % 10 != 0 || t < start + Duration::from_secs(2) {
                continue;
            }
            // A fifth router priority 0, in a random order (a periodic one would line up with
            // the window-exact drop pattern).
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let class = if x % 5 == 0 { router(0) } else { router(3) }.class();
            offered += 1;
            let ok = if together {
                peer.decide(class, t).is_ok()
            } else {
                alone_loss.decide(class).is_send()
                    && alone_egress
                        .decide(MessageKind::Request, class, t)
                        .is_send()
            };
            sent += u32::from(ok);
            peer.on_transaction_end();
            alone_egress.on_transaction_end();
        }
        assert_eq!(peer.egress().unwrap().level(), 1);
        1.0 - f64::from(sent) / f64::from(offered)
    };
    (run(true), run(false))
}

#[test]
fn the_loss_and_egress_throttles_together_shed_what_the_reduction_asks_not_the_sum() {
    // The peer asks a 30 % reduction; the connection's level sheds a fifth of the requests
    // (router priority 0). A class-blind (window-exact) Loss throttle that takes the
    // requests the level refused for sent sheds its 30 % on top: 30 % + 70 % x 1/5 = 44 %.
    // Told they were not sent, it sheds only what the reduction still asks: 30 % in all.
    let (together, alone) = shed_share(30, true);
    println!(
        "window-exact Loss at 30 %: shed together {together:.3}, one after the other {alone:.3}"
    );
    assert!((0.29..0.32).contains(&together), "together {together:.3}");
    assert!(
        (0.42..0.46).contains(&alone),
        "one after the other {alone:.3}"
    );
    // The default mode sheds the lowest priorities first, as the levels do, so there the two
    // orders agree: the level's 20 % are part of the 30 %.
    let (together, alone) = shed_share(30, false);
    println!(
        "default-mode Loss at 30 %: shed together {together:.3}, one after the other {alone:.3}"
    );
    assert!((0.29..0.32).contains(&together), "together {together:.3}");
    assert!(
        (0.29..0.32).contains(&alone),
        "one after the other {alone:.3}"
    );
    // Below the level's share, the level alone decides.
    let (together, alone) = shed_share(10, true);
    println!(
        "window-exact Loss at 10 %: shed together {together:.3}, one after the other {alone:.3}"
    );
    assert!(
        (0.19..0.22).contains(&together),
        "together at 10 % {together:.3}"
    );
}

// ---------------------------------------------------------------------------------------------
// The two-route-group example

const HSS: [&str; 4] = ["HSS-1", "HSS-2", "HSS-3", "HSS-4"];

/// How a route list candidate is asked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ask {
    /// `PeerThrottles::admit`: a refusal is not offered load on that connection.
    Admit,
    /// `PeerThrottles::decide`: every refusal counts on the connection (the old behaviour).
    Decide,
}

/// Figures of one measured interval.
#[derive(Debug, Default)]
struct Figures {
    /// Per connection: (lowest level, highest level) sampled every 100 ms.
    levels: [(u8, u8); 4],
    /// Per connection: messages carried per second (requests and answers).
    carried: [f64; 4],
    /// Per connection and router priority 0..=3: requests per second admitted.
    requests: [[f64; 4]; 4],
    /// Per router priority: requests offered, to the preferred group, to the non-preferred
    /// group, shed (no connection took them).
    per_class: [[u64; 4]; 4],
}

struct Network {
    start: Instant,
    peers: Vec<PeerThrottles>,
    routes: RouteList<usize>,
    /// Background answers per second per connection, and the next one's time (ns).
    background: [(u64, u64); 4],
    now_ns: u64,
    draw: u64,
    ask: Ask,
}

impl Network {
    fn new(ask: Ask) -> Network {
        let start = t0();
        Network {
            start,
            peers: (0..4)
                .map(|_| {
                    PeerThrottles::new(
                        LossThrottle::default(),
                        Some(EgressThrottle::new(three_levels(), start).unwrap()),
                    )
                })
                .collect(),
            // Requests are sent once: the limit never stops an overflow (refused checks are
            // not forwardings).
            routes: RouteList::new(
                vec![
                    RouteGroup::new().with_peer(0usize, 1).with_peer(1, 1),
                    RouteGroup::new().with_peer(2usize, 1).with_peer(3, 1),
                ],
                1,
            )
            .unwrap(),
            background: [(0, 0); 4],
            now_ns: 0,
            draw: 0x0123_4567_89AB_CDEF,
            ask,
        }
    }

    fn at(&self, ns: u64) -> Instant {
        self.start + Duration::from_nanos(ns)
    }

    fn set_background(&mut self, rates: [u64; 4]) {
        for (bg, rate) in self.background.iter_mut().zip(rates) {
            *bg = (rate, self.now_ns);
        }
    }

    /// `secs` of requests at `rate` per second (router priorities 0..=3 in turn) plus the
    /// background answers; figures kept after `warm` seconds.
    fn run(&mut self, secs: u64, warm: u64, rate: u64) -> Figures {
        let mut f = Figures {
            levels: [(u8::MAX, 0); 4],
            ..Figures::default()
        };
        let begin = self.now_ns;
        let measure_from = begin + warm * 1_000_000_000;
        let end = begin + secs * 1_000_000_000;
        let gap = 1_000_000_000 / rate;
        let mut next_sample = measure_from;
        let mut k = 0u64;
        while self.now_ns < end {
            self.now_ns += gap;
            let now_ns = self.now_ns;
            // Background answers due.
            for (peer, (bg, next)) in self.peers.iter_mut().zip(self.background.iter_mut()) {
                while *bg > 0 && *next < now_ns {
                    peer.on_send(
                        MessageKind::Answer,
                        self.start + Duration::from_nanos(*next),
                    );
                    *next += 1_000_000_000 / *bg;
                }
            }
            let r = (k % 4) as u8;
            k += 1;
            let class = router(r).class();
            self.draw = self
                .draw
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let now = self.at(now_ns);
            let ask = self.ask;
            let peers = &mut self.peers;
            let routed = self.routes.route(self.draw, &mut |p: &usize| match ask {
                Ask::Admit => peers[*p].admit(class, now).is_ok(),
                Ask::Decide => peers[*p].decide(class, now).is_ok(),
            });
            let measuring = now_ns >= measure_from;
            if measuring {
                f.per_class[usize::from(r)][0] += 1;
            }
            match routed {
                Ok(to) => {
                    // Answered at once: the pending limit is not under test.
                    self.peers[to.peer].on_transaction_end();
                    if measuring {
                        f.per_class[usize::from(r)][1 + to.group] += 1;
                        f.requests[to.peer][usize::from(r)] += 1.0;
                    }
                }
                Err(e) => {
                    assert_eq!(e.reason, RouteFailureReason::AllRefused);
                    if measuring {
                        f.per_class[usize::from(r)][3] += 1;
                    }
                }
            }
            if measuring && now_ns >= next_sample {
                next_sample += 100_000_000;
                for (lv, p) in f.levels.iter_mut().zip(&mut self.peers) {
                    let e = p.egress_mut().unwrap();
                    e.handle_timeout(now);
                    *lv = (lv.0.min(e.level()), lv.1.max(e.level()));
                }
            }
        }
        let span = (end - measure_from) as f64 / 1e9;
        for (i, requests) in f.requests.iter_mut().enumerate() {
            for v in requests.iter_mut() {
                *v /= span;
            }
            // What the connection carried: the requests admitted and the background answers.
            f.carried[i] = requests.iter().sum::<f64>() + self.background[i].0 as f64;
        }
        f
    }
}

fn print(title: &str, f: &Figures) {
    println!("{title}");
    println!("  connection  levels  carried/s  requests/s by router priority 0 1 2 3");
    for i in 0..4 {
        println!(
            "  {:<10}  {}..{}    {:>7.0}    {:>5.0} {:>5.0} {:>5.0} {:>5.0}",
            HSS[i],
            f.levels[i].0,
            f.levels[i].1,
            f.carried[i],
            f.requests[i][0],
            f.requests[i][1],
            f.requests[i][2],
            f.requests[i][3]
        );
    }
    println!("  router priority  offered  preferred  non-preferred  shed");
    for (r, c) in f.per_class.iter().enumerate() {
        println!(
            "  {r:<15}  {:>7}  {:>9}  {:>13}  {:>4}",
            c[0], c[1], c[2], c[3]
        );
    }
}

#[test]
fn seed_003_two_route_groups_throttled_requests_go_to_the_non_preferred_group() {
    // "For example, a Route List is configured with two Route Groups. The Preferred Route
    // Group contains two HSSs, HSS-1 and HSS-2 each with one Connection and the Non-Preferred
    // Route Group contains HSS-3 and HSS-4, each with one Connection. If the Connection(s) to
    // both HSS-1 and HSS-2 exceed Throttle Threshold X, Requests with Priority below X are
    // routed to HSS-3 and HSS-4, while Requests with Priorities equal to or greater than X
    // continue to be routed to HSS-1 & HSS-2. If both, HSS-3 and HSS-4 exceed Throttle
    // Threshold X, Requests with Priority less than X are discarded."
    //
    // 800 requests/s, router priorities 0..=3 (200/s each). HSS-1/2 carry 650 answers/s of
    // other traffic: with priorities 2 and 3 they carry 850 msg/s, above TT-2 (80 %) and
    // below TT-3, so X = 2.
    let mut net = Network::new(Ask::Admit);
    net.set_background([650, 650, 100, 100]);
    let a = net.run(6, 3, 800);
    print(
        "HSS-1/2 above TT-2, HSS-3/4 light (refusals not counted):",
        &a,
    );
    for i in 0..2 {
        assert_eq!(a.levels[i], (2, 2), "{} stays at level 2", HSS[i]);
    }
    for i in 2..4 {
        assert_eq!(a.levels[i], (0, 0), "{} not congested", HSS[i]);
    }
    for (r, c) in a.per_class.iter().enumerate() {
        if r < 2 {
            assert_eq!(
                (c[1], c[2], c[3]),
                (0, c[0], 0),
                "router {r}: all to HSS-3/4"
            );
        } else {
            assert_eq!(
                (c[1], c[2], c[3]),
                (c[0], 0, 0),
                "router {r}: all on HSS-1/2"
            );
        }
    }
    // Both connections of each group share their part.
    for i in 0..4 {
        assert!(
            a.requests[i].iter().sum::<f64>() > 150.0,
            "{}: {:?}",
            HSS[i],
            a.requests[i]
        );
    }

    // The same network with every refusal counted on the connection that refused (the
    // behaviour before `check`/`admit`): the diverted requests keep HSS-1/2 above TT-3, and
    // priority 2 is pushed to the non-preferred group too.
    let mut old = Network::new(Ask::Decide);
    old.set_background([650, 650, 100, 100]);
    let o = old.run(6, 3, 800);
    print("the same, every refusal counted as offered load:", &o);
    assert_eq!(
        o.levels[0].1, 3,
        "HSS-1 driven to level 3 by traffic it does not carry"
    );
    assert!(
        o.per_class[2][2] > o.per_class[2][0] / 2,
        "priority 2 diverted"
    );

    // "If both, HSS-3 and HSS-4 exceed Throttle Threshold X, Requests with Priority less
    // than X are discarded."
    net.set_background([650, 650, 820, 820]);
    let b = net.run(6, 3, 800);
    print("all four above TT-2:", &b);
    for i in 0..4 {
        assert_eq!(b.levels[i], (2, 2), "{} at level 2", HSS[i]);
    }
    for (r, c) in b.per_class.iter().enumerate() {
        if r < 2 {
            assert_eq!((c[1], c[2], c[3]), (0, 0, c[0]), "router {r}: discarded");
        } else {
            assert_eq!((c[1], c[2], c[3]), (c[0], 0, 0), "router {r}: on HSS-1/2");
        }
    }

    // A finer case: HSS-3/4 only above TT-1 (level 1). Priority 1 still overflows to them,
    // priority 0 is discarded.
    net.set_background([650, 650, 650, 650]);
    let c = net.run(6, 3, 800);
    print("HSS-3/4 above TT-1 only:", &c);
    for i in 2..4 {
        assert_eq!(c.levels[i], (1, 1), "{} at level 1", HSS[i]);
    }
    assert_eq!(c.per_class[0][3], c.per_class[0][0], "router 0 discarded");
    assert_eq!(c.per_class[1][2], c.per_class[1][0], "router 1 to HSS-3/4");
    assert_eq!(
        c.per_class[2][1] + c.per_class[3][1],
        c.per_class[2][0] + c.per_class[3][0]
    );
}

#[test]
fn a_refused_check_is_not_offered_load_but_a_refused_decision_is() {
    let start = t0();
    let mut conn = EgressThrottle::new(three_levels().with_hard_cap(false), start).unwrap();
    let now = answers(&mut conn, start, 850, 3);
    assert_eq!(conn.level(), 2);
    let low = router(0).class();
    let before = conn.stats().counted();
    for i in 0..100 {
        let t = now + Duration::from_micros(i);
        assert_eq!(
            conn.check(MessageKind::Request, low, t),
            Err(ThrottleReason::Level(2))
        );
    }
    assert_eq!(
        conn.stats().counted(),
        before,
        "checks refused are not counted"
    );
    assert_eq!(conn.stats().checks_refused, 100);
    let _ = conn.decide(MessageKind::Request, low, now);
    assert_eq!(conn.stats().counted(), before + 1, "a decision is");
    // A passed check counts once committed.
    let permit = conn
        .check(MessageKind::Request, router(3).class(), now)
        .unwrap();
    conn.commit(permit, now);
    assert_eq!(conn.stats().counted(), before + 2);
    assert_eq!(conn.pending(), 1);
    // Loss and egress: an egress refusal is a drop for the Loss throttle, not a second one.
    let mut peer = PeerThrottles::new(LossThrottle::default(), Some(conn));
    peer.loss_mut().set_reduction(10);
    match peer.admit(low, now) {
        Err(Refusal::Egress(ThrottleReason::Level(2))) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(peer.loss().stats().unsent[low.rank()], 1);
}

#[test]
fn a_request_sent_anyway_still_meets_the_egress_throttle() {
    // The caller overrides the Loss throttle (a CP function's probe): the connection's egress
    // throttle still decides, and what it refuses is a drop for the Loss throttle again.
    let start = t0();
    let egress = EgressThrottle::new(EgressConfig::new(100), start).unwrap();
    let mut peer = PeerThrottles::new(LossThrottle::default(), Some(egress));
    let class = router(1).class();
    peer.loss_mut().set_reduction(100);
    assert!(matches!(peer.decide(class, start), Err(Refusal::Loss(_))));
    assert_eq!(peer.send_anyway(class, start, false), Ok(()));
    // Answers fill the connection (they count in its rate, never refused); then override
    // another Loss refusal: the cap refuses it.
    for _ in 0..200 {
        peer.on_send(MessageKind::Answer, start);
    }
    assert!(matches!(peer.decide(class, start), Err(Refusal::Loss(_))));
    assert!(matches!(
        peer.send_anyway(class, start, false),
        Err(Refusal::Egress(_))
    ));
    let loss = peer.loss().stats();
    let rank = class.rank();
    assert_eq!(loss.sent_anyway[rank], 2);
    assert_eq!(loss.unsent[rank], 1);
    assert_eq!(loss.throttled[rank], 0);
}

#[test]
fn a_request_sent_ahead_meets_the_egress_throttle_and_its_place_frees_the_pending_slot() {
    // An emergency request the Loss throttle shed goes ahead of a later one (a CP function
    // keeping clause 6.2.4.5.1's order): the connection's egress throttle still decides, a
    // refusal leaves the Loss throttle's books as they were (it had shed the request), and
    // the request that gives its place back frees its pending slot.
    let start = t0();
    let mut config = EgressConfig::new(100);
    config.max_pending = Some(2);
    let egress = EgressThrottle::new(config, start).unwrap();
    let mut peer = PeerThrottles::new(LossThrottle::default(), Some(egress));
    let class = router(1).class();
    peer.loss_mut().set_reduction(100);
    assert!(matches!(peer.decide(class, start), Err(Refusal::Loss(_))));
    assert_eq!(peer.send_ahead(class, start, false), Ok(()));
    let rank = class.rank();
    assert_eq!(peer.loss().stats().sent_anyway[rank], 1);
    assert_eq!(peer.loss().stats().throttled[rank], 0);
    // A second one fills the pending limit; a third is refused by it.
    assert!(matches!(peer.decide(class, start), Err(Refusal::Loss(_))));
    assert_eq!(peer.send_ahead(class, start, false), Ok(()));
    assert!(matches!(peer.decide(class, start), Err(Refusal::Loss(_))));
    assert!(matches!(
        peer.send_ahead(class, start, false),
        Err(Refusal::Egress(ThrottleReason::PendingLimit))
    ));
    let loss = peer.loss().stats();
    assert_eq!(
        (
            loss.sent_anyway[rank],
            loss.throttled[rank],
            loss.unsent[rank]
        ),
        (2, 1, 0)
    );
    // A place given back frees a slot: the next request sent ahead goes.
    peer.give_way(class);
    assert_eq!(peer.loss().stats().unsent[rank], 1);
    assert!(matches!(peer.decide(class, start), Err(Refusal::Loss(_))));
    assert_eq!(peer.send_ahead(class, start, false), Ok(()));
}
