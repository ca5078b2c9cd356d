//! A CP `Node`'s egress throttling per UP connection, through the node in virtual time: the
//! signalling router's Per Connection Egress Message Throttling (seed 003) with the Loss
//! throttle of TS 29.244 6.2.4.4, alternate routing across route groups and the C.2 state
//! (TS 29.273 Annex C.2). Each test is named by the sentence of the router document (or of
//! C.2) it holds the node to; `seed_003_*` reproduces the document's two-route-group example
//! and prints its figures (`docs/benchmarks.md`, "Through the node").

use std::time::Duration;

use pfcp_e2e::net::{up_addr, up_key, Net, UpSpec};
use pfcp_node::{
    CpConfig, Destination, NodeConfig, RejectReason, RequestProfile, ResponseOrigin,
    TransactionConfig,
};
use pfcp_test_support::ies::oci;
use pfcp_throttle::egress::ThresholdPair;
use pfcp_throttle::routing::{RouteGroup, RouteList};
use pfcp_throttle::{EgressConfig, EgressConfigSets, RouterPriority, ThrottleReason};
use pfcp_wire::ie::Timer;

/// Max EMR `max_rate` with the router's three pairs at 60/55, 80/75 and 100/90 %.
fn three_levels(max_rate: u32) -> EgressConfig {
    let mut c = EgressConfig::new(max_rate);
    c.thresholds = [
        Some(ThresholdPair::new(60, 55)),
        Some(ThresholdPair::new(80, 75)),
        Some(ThresholdPair::new(100, 90)),
    ];
    c
}

/// A CP with `cp`, no Heartbeats of its own, T1 long enough that no retransmission happens
/// unless a test wants one.
fn cp_config(cp: CpConfig) -> NodeConfig {
    NodeConfig::new(Net::cp_local())
        .with_cp(cp)
        .with_heartbeat_interval(None)
        .with_transactions(TransactionConfig::default().with_t1(Duration::from_secs(30)))
}

/// An establishment of router priority `x` (0 lowest .. 3; its PFCP priority as the ARP
/// level, which the classifier maps one to one for a new session).
fn router(x: u8) -> RequestProfile {
    let p = RouterPriority::new(x).unwrap().to_pfcp().value();
    RequestProfile::default().with_arp(&[p])
}

/// What became of the requests of one class.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    offered: u64,
    /// Answered by the UP at address index 0..4.
    to: [u64; 4],
    /// Refused locally (Cause 74), by the Loss throttle / by the egress throttle.
    loss: u64,
    egress: u64,
    /// No answer after 1 + N1 transmissions.
    timed_out: u64,
    /// No outcome yet.
    in_flight: u64,
}

impl Tally {
    fn shed(&self) -> u64 {
        self.loss + self.egress
    }
}

/// Offers `rate` requests per second for `secs` seconds, the `k`-th one `pick(k)` = (UP
/// index, class index, profile); tallies the classes of the requests offered from `from_s`
/// seconds on.
fn offer(
    net: &mut Net,
    rate: u64,
    secs: u64,
    from_s: u64,
    mut pick: impl FnMut(u64) -> (usize, usize, RequestProfile),
    seid: &mut u64,
) -> Vec<Tally> {
    let start = net.now;
    let n = rate * secs;
    let mut sent = Vec::with_capacity(n as usize);
    for k in 0..n {
        let at = start + Duration::from_nanos(k * 1_000_000_000 / rate);
        net.run_until(at);
        let (up, class, profile) = pick(k);
        *seid += 1;
        let id = net.establish(up, *seid, &profile);
        sent.push((
            id,
            class,
            at.duration_since(start) >= Duration::from_secs(from_s),
        ));
    }
    net.after(Duration::from_millis(50));
    let mut tallies = Vec::new();
    for (id, class, counted) in sent {
        if !counted {
            continue;
        }
        if tallies.len() <= class {
            tallies.resize(class + 1, Tally::default());
        }
        let t = &mut tallies[class];
        t.offered += 1;
        match net.outcome(id) {
            Some(Ok(r)) => match r.origin {
                ResponseOrigin::Peer => {
                    let i = (0..4).find(|i| up_addr(*i) == r.peer).unwrap();
                    t.to[i] += 1;
                }
                ResponseOrigin::Throttled(RejectReason::Loss(_)) => t.loss += 1,
                ResponseOrigin::Throttled(_) => t.egress += 1,
                o => panic!("unexpected origin {o:?}"),
            },
            Some(Err(pfcp_node::RequestError::Timeout { .. })) => t.timed_out += 1,
            None => t.in_flight += 1,
            o => panic!("no answer: {o:?}"),
        }
    }
    tallies
}

fn level(net: &Net, i: usize) -> u8 {
    net.cp
        .up_link(&up_key(i))
        .and_then(|l| l.egress_throttle())
        .map_or(0, |e| e.level())
}

/// The CP's egress throttle of its connection to UP `i` (the test set one up).
fn egress(net: &Net, i: usize) -> &pfcp_throttle::EgressThrottle {
    net.cp
        .up_link(&up_key(i))
        .and_then(|l| l.egress_throttle())
        .expect("the connection has an egress throttle")
}

/// A CP with `egress` on its connection to one UP function, associated.
fn one_up(egress: EgressConfig) -> Net {
    let mut net = Net::new(
        cp_config(CpConfig::default().with_egress(Some(egress))),
        &[UpSpec::default()],
    );
    net.associate_all();
    net
}

#[test]
fn if_tt_x_is_exceeded_only_requests_with_priority_below_x_are_throttled() {
    // Level-only mode (no cap): the levels alone shed. Max EMR 100/s; the offered rate of
    // each phase sits between two throttle thresholds: 70/s (level 1), 90/s (2), 120/s (3).
    let mut egress = three_levels(100);
    egress.hard_cap = false;
    let mut net = one_up(egress);
    let mut seid = 0;
    let mut figures = Vec::new();
    for (rate, want) in [(70u64, 1u8), (90, 2), (120, 3)] {
        let t = offer(
            &mut net,
            rate,
            4,
            2,
            |k| ((0), (k % 4) as usize, router((k % 4) as u8)),
            &mut seid,
        );
        assert_eq!(level(&net, 0), want, "at {rate}/s");
        for (x, c) in t.iter().enumerate() {
            let sent = c.to[0];
            if (x as u8) < want {
                assert_eq!(sent, 0, "router priority {x} below level {want}: {c:?}");
                assert_eq!(c.egress, c.offered);
            } else {
                assert_eq!(
                    sent, c.offered,
                    "router priority {x} >= level {want}: {c:?}"
                );
            }
        }
        figures.push((want, rate, t));
    }
    for (l, rate, t) in &figures {
        let sent: Vec<String> = t.iter().map(|c| format!("{}", c.to[0] / 2)).collect();
        let shed: u64 = t.iter().map(Tally::shed).sum();
        eprintln!(
            "level {l} (offered {rate}/s): admitted/s by router priority 0..3: {} ; shed/s {}",
            sent.join(" / "),
            shed / 2
        );
    }
}

#[test]
fn requests_with_priority_x_or_greater_are_allowed_emergency_requests_pass_every_level() {
    // The cap on, 150/s of the lowest priority against a Max EMR of 100/s: level 3 and the
    // cap both refuse; the emergency requests among them (router priority 4) all go.
    let mut net = one_up(three_levels(100));
    let mut seid = 0;
    let t = offer(
        &mut net,
        150,
        4,
        1,
        |k| {
            if k % 10 == 0 {
                (0, 1, RequestProfile::emergency())
            } else {
                (0, 0, router(0))
            }
        },
        &mut seid,
    );
    assert_eq!(level(&net, 0), 3);
    assert!(t[0].egress > t[0].offered * 9 / 10, "{:?}", t[0]);
    assert_eq!(t[1].to[0], t[1].offered, "emergency: {:?}", t[1]);
    let stats = egress(&net, 0).stats();
    assert!(stats.sent_exempt >= t[1].offered);
}

#[test]
fn answers_are_never_throttled_but_count_in_the_emr() {
    // The UP's Heartbeat Requests every 11 ms: about 90 answers/s from the CP, 90 % of the
    // Max EMR, so the connection goes to level 2 on answers alone.
    let spec = UpSpec {
        heartbeat: Some(Duration::from_millis(11)),
        ..UpSpec::default()
    };
    let mut net = Net::new(
        cp_config(CpConfig::default().with_egress(Some(three_levels(100)))),
        &[spec],
    );
    net.associate_all();
    net.after(Duration::from_secs(2));
    let mut seid = 0;
    let t = offer(
        &mut net,
        4,
        3,
        0,
        |k| (0, (k % 2) as usize, router(3 * (k % 2) as u8)),
        &mut seid,
    );
    let stats = *egress(&net, 0).stats();
    let answered = net.ups[0]
        .node
        .peers()
        .get(&pfcp_e2e::net::cp_addr())
        .is_some();
    assert!(answered);
    // Every Heartbeat Response was counted and sent (the UP kept its association: no
    // heartbeat of it failed).
    assert!(stats.sent_answers > 5 * 80, "{stats:?}");
    assert_eq!(stats.sent_answers, stats.offered_answers);
    assert!(net.ups[0]
        .node
        .peers()
        .is_associated(&pfcp_e2e::net::cp_addr()));
    assert_eq!(level(&net, 0), 2, "{stats:?}");
    // Level 2 throttles router priority 0 (PFCP 15) and lets 3 through.
    assert_eq!(t[0].egress, t[0].offered, "{:?}", t[0]);
    assert_eq!(t[1].to[0], t[1].offered, "{:?}", t[1]);
}

#[test]
fn retransmissions_count_in_the_emr() {
    // A UP that never answers: each of 20 requests/s is sent 1 + N1 = 4 times (T1 200 ms), so
    // the connection carries about 80 messages/s while only 20/s are first transmissions
    // (20 % of the Max EMR, below TT-1). The retransmissions lift the level.
    let mut net = Net::new(
        cp_config(CpConfig::default().with_egress(Some(three_levels(100)))).with_transactions(
            TransactionConfig::default()
                .with_t1(Duration::from_millis(200))
                .with_n1(3),
        ),
        &[UpSpec {
            alive: false,
            ..UpSpec::default()
        }],
    );
    let mut seid = 0;
    let t = offer(&mut net, 20, 4, 0, |_| (0, 0, router(3)), &mut seid);
    // Sent (none shed: 20/s of router priority 3 pass every level), never answered.
    assert_eq!(t[0].timed_out + t[0].in_flight, t[0].offered, "{:?}", t[0]);
    // Never associated: the UP function is known by its address.
    let link = net.cp.peers().up_link(&up_addr(0)).unwrap();
    let egress = link.egress_throttle().unwrap();
    let stats = egress.stats();
    let xact = net.cp.transactions().stats();
    assert!(xact.retransmissions > 150, "{xact:?}");
    assert_eq!(stats.sent_retransmissions, xact.retransmissions);
    assert!(
        egress.level() >= 2,
        "level {} with {stats:?}",
        egress.level()
    );
    // Now a request of router priority 0 is throttled by that level, not by its own rate.
    seid += 1;
    let id = net.establish(0, seid, &router(0));
    net.after(Duration::from_millis(1));
    let r = net.outcome(id).unwrap().as_ref().unwrap();
    assert!(matches!(
        r.origin,
        ResponseOrigin::Throttled(RejectReason::Egress(ThrottleReason::Level(_)))
    ));
}

#[test]
fn the_loss_and_egress_throttles_together_shed_what_the_oci_asks_not_the_sum() {
    // The UP asks a 30 % reduction (node-scoped OCI on every response). The Loss throttle in
    // its class-blind window-exact mode; the connection (Max EMR 100/s, one pair 60/55 %,
    // level-only) at level 1, which sheds the fifth of the requests of router priority 0.
    // One after the other they would shed 30 % + 70 % x 1/5 = 44 %; together 30 %.
    let mut egress = EgressConfig::new(100);
    egress.thresholds = [Some(ThresholdPair::new(60, 55)), None, None];
    egress.hard_cap = false;
    let cp = CpConfig::default().with_egress(Some(egress));
    let loss = cp.loss.with_exact_window(true);
    let mut net = Net::new(cp_config(cp.with_loss(loss)), &[UpSpec::default()]);
    net.ups[0].oci = Some(oci(1, 30, Timer::INFINITE, true));
    net.associate_all();
    let mut seid = 0;
    let t = offer(
        &mut net,
        100,
        8,
        3,
        |k| {
            let low = k % 5 == 0;
            (0, usize::from(!low), router(if low { 0 } else { 3 }))
        },
        &mut seid,
    );
    assert_eq!(level(&net, 0), 1);
    let offered: u64 = t.iter().map(|c| c.offered).sum();
    let shed: u64 = t.iter().map(Tally::shed).sum();
    let share = shed as f64 / offered as f64;
    eprintln!(
        "Loss 30 % + level 1: shed {:.1} % ({} by Loss, {} by egress; router 0: {:?}, router 3: {:?})",
        100.0 * share,
        t.iter().map(|c| c.loss).sum::<u64>(),
        t.iter().map(|c| c.egress).sum::<u64>(),
        t[0],
        t[1]
    );
    assert!((0.28..=0.32).contains(&share), "shed {share}");
    let loss = net.cp.up_link(&up_key(0)).unwrap().loss_throttle().stats();
    assert!(loss.unsent.iter().sum::<u64>() > 0, "{loss:?}");
}

/// A CP whose Session Establishment Requests may move along `groups` (UP indices), with the
/// egress set of each UP.
fn routed_cp(groups: &[&[usize]], egress: EgressConfig, attempts: u32) -> NodeConfig {
    let groups = groups
        .iter()
        .map(|g| {
            g.iter().fold(RouteGroup::new(), |group, i| {
                group.with_peer(Destination::node(up_key(*i)), 1)
            })
        })
        .collect();
    let routes = RouteList::new(groups, attempts).unwrap();
    cp_config(CpConfig::default().with_egress(Some(egress))).with_routes(routes)
}

fn busy(rate_per_s: u64) -> UpSpec {
    UpSpec {
        heartbeat: Some(Duration::from_nanos(1_000_000_000 / rate_per_s)),
        ..UpSpec::default()
    }
}

#[test]
fn forwarding_attempts_are_counted_only_when_a_request_is_sent_and_a_refused_check_is_not_offered_load(
) {
    // Preferred group UP1, UP2 at level 1 (70 answers/s each of a Max EMR of 100/s); UP3 idle.
    // A Maximum Per Message Forwarding Allowed of 1 still lets the lowest priority pass both
    // refusing peers of the preferred group and reach UP3 ("alternate routing ... only if
    // the Maximum Per Message Forwarding Allowed ... is not exceeded": two refused checks
    // are not two forwardings).
    let mut net = Net::new(
        routed_cp(&[&[0, 1], &[2]], three_levels(100), 1),
        &[busy(70), busy(70), UpSpec::default()],
    );
    net.associate_all();
    net.after(Duration::from_secs(2));
    let mut seid = 0;
    // 50/s of router priority 0, redirectable, for 3 s, alternately to UP1 and UP2.
    let t = offer(
        &mut net,
        50,
        3,
        0,
        |k| ((k % 2) as usize, 0, router(0).with_redirect(true)),
        &mut seid,
    );
    assert_eq!(
        t[0].to[2], t[0].offered,
        "every one went to UP3: {:?}",
        t[0]
    );
    for i in 0..2 {
        let e = egress(&net, i);
        let s = e.stats();
        // The refusals were checks, not offered load: the level stays where the answers put
        // it, and no request was counted on the preferred connections.
        assert!(s.checks_refused >= t[0].offered / 2, "{s:?}");
        assert_eq!(s.offered_requests, 0, "{s:?}");
        assert_eq!(e.level(), 1, "{s:?}");
    }
}

#[test]
fn seed_003_two_route_groups_throttled_requests_go_to_the_non_preferred_group() {
    // The router's example: a route list of two route groups, HSS-1/2 preferred, HSS-3/4
    // not, one connection each (here UP1..UP4, Max EMR 1000/s, pairs 60/55, 80/75, 100/90 %);
    // 800 requests/s of router priorities 0..=3 (200/s each) to HSS-1/2; other traffic on each
    // connection as answers to the UP's Heartbeats. Three phases, 6 s each, the last 3 s
    // counted.
    let phases: [(&str, [u64; 4], u8, u8); 3] = [
        (
            "HSS-1/2 above TT-2, HSS-3/4 light",
            [650, 650, 100, 100],
            2,
            0,
        ),
        ("HSS-3/4 above TT-2 too", [650, 650, 820, 820], 2, 2),
        ("HSS-3/4 above TT-1 only", [650, 650, 650, 650], 2, 1),
    ];
    for (title, background, x_pref, x_alt) in phases {
        let ups: Vec<UpSpec> = background.iter().map(|r| busy(*r)).collect();
        let mut net = Net::new(routed_cp(&[&[0, 1], &[2, 3]], three_levels(1000), 4), &ups);
        net.associate_all();
        net.after(Duration::from_secs(1));
        let mut seid = 0;
        let t = offer(
            &mut net,
            800,
            6,
            3,
            |k| {
                (
                    (k % 2) as usize,
                    ((k / 2) % 4) as usize,
                    router(((k / 2) % 4) as u8).with_redirect(true),
                )
            },
            &mut seid,
        );
        eprintln!(
            "{title}: levels {:?}",
            (0..4).map(|i| level(&net, i)).collect::<Vec<_>>()
        );
        for (x, c) in t.iter().enumerate() {
            eprintln!(
                "  router priority {x}: offered {}/s, to HSS-1/2 {}/s, to HSS-3/4 {}/s, shed {}/s",
                c.offered / 3,
                (c.to[0] + c.to[1]) / 3,
                (c.to[2] + c.to[3]) / 3,
                c.shed() / 3
            );
        }
        assert_eq!(
            (level(&net, 0), level(&net, 1)),
            (x_pref, x_pref),
            "{title}"
        );
        assert_eq!((level(&net, 2), level(&net, 3)), (x_alt, x_alt), "{title}");
        for (x, c) in t.iter().enumerate() {
            let x = x as u8;
            let pref = c.to[0] + c.to[1];
            let alt = c.to[2] + c.to[3];
            if x >= x_pref {
                // "Requests with Priorities equal to or greater than X continue to be routed
                // to HSS-1 & HSS-2."
                assert_eq!(pref, c.offered, "{title}, priority {x}: {c:?}");
            } else if x >= x_alt {
                // "Requests with Priority below X are routed to HSS-3 and HSS-4."
                assert_eq!(alt, c.offered, "{title}, priority {x}: {c:?}");
            } else {
                // "If both, HSS-3 and HSS-4 exceed Throttle Threshold X, Requests with
                // Priority less than X are discarded."
                assert_eq!(c.shed(), c.offered, "{title}, priority {x}: {c:?}");
            }
        }
    }
}

#[test]
fn the_connection_counts_heartbeats_and_association_messages_as_management() {
    let mut net = Net::new(
        cp_config(CpConfig::default().with_egress(Some(three_levels(100))))
            .with_heartbeat_interval(Some(Duration::from_millis(100))),
        &[UpSpec::default()],
    );
    net.associate_all();
    net.after(Duration::from_secs(1));
    let stats = egress(&net, 0).stats();
    // The Association Setup Request (sent before the association named the UP function,
    // counted on its connection all the same) and a Heartbeat Request every 100 ms from
    // t = 100 ms to t = 1 s: 1 + 10.
    assert_eq!(stats.sent_management, 11, "{stats:?}");
    assert_eq!(stats.offered_requests, 0);
}

#[test]
fn egress_throttling_configuration_sets_are_assigned_to_the_ups_connections_per_cp_function() {
    // "Egress Throttling Configuration Sets can be configured and assigned to Connections",
    // on the UP side: UP1 assigns the CP function (by its Node ID) a set of Max EMR 10/s,
    // level-only; UP2 has only a default set of 1000/s. Both report 20 times a second.
    let mut net = Net::new(cp_config(CpConfig::default()), &[UpSpec::default(); 2]);
    let mut small = EgressConfig::new(10);
    small.thresholds = three_levels(10).thresholds;
    small.hard_cap = false;
    for (i, assigned) in [(0usize, true), (1, false)] {
        let mut sets = EgressConfigSets::new();
        let big = sets.add("big", three_levels(1000)).unwrap();
        sets.set_default(Some(big));
        if assigned {
            let id = sets.add("small", small).unwrap();
            sets.assign(Net::cp_local().node_id, id).unwrap();
        }
        let local = pfcp_node::LocalNode::up(up_key(i), pfcp_wire::ie::RecoveryTimeStamp(1000));
        net.ups[i].node = pfcp_node::Node::new(
            NodeConfig::new(local)
                .with_heartbeat_interval(None)
                .with_report_egress_sets(sets),
            net.now,
        )
        .unwrap();
    }
    net.associate_all();
    for k in 0..60u64 {
        net.run_until(net.now + Duration::from_millis(50));
        for i in 0..2 {
            // Report Type (39) USAR, no MP: the lowest priority (router 0).
            let h = pfcp_wire::Header::new(pfcp_wire::MessageType::SESSION_REPORT_REQUEST)
                .with_seid(k + 1);
            net.ups[i]
                .node
                .send_request(
                    pfcp_e2e::net::cp_addr(),
                    h,
                    &[0x00, 0x27, 0x00, 0x01, 0x02],
                    &RequestProfile::default(),
                    net.now,
                )
                .unwrap();
        }
    }
    net.after(Duration::from_millis(50));
    let cp = pfcp_e2e::net::cp_addr();
    let (t1, t2) = (
        net.ups[0].node.report_egress_throttle(&cp).unwrap(),
        net.ups[1].node.report_egress_throttle(&cp).unwrap(),
    );
    assert_eq!((t1.config().max_rate, t1.config().hard_cap), (10, false));
    assert_eq!(t2.config().max_rate, 1000);
    assert!(t1.stats().throttled_level > 0, "{:?}", t1.stats());
    assert_eq!(t2.stats().throttled_level + t2.stats().throttled_rate, 0);
    // UP1's refusals name the level that shed them; UP2 sent every report.
    let refused: Vec<_> = net
        .up_outcomes
        .iter()
        .filter_map(|(i, _, r)| {
            r.as_ref()
                .ok()
                .filter(|r| r.is_local())
                .map(|r| (*i, r.origin))
        })
        .collect();
    assert!(!refused.is_empty());
    assert!(
        refused.iter().all(|(i, o)| *i == 0
            && matches!(
                o,
                ResponseOrigin::Throttled(RejectReason::ReportEgress(ThrottleReason::Level(_)))
            )),
        "{refused:?}"
    );
    let answered = |up: usize| {
        net.up_outcomes
            .iter()
            .filter(|(i, _, r)| *i == up && r.as_ref().is_ok_and(|r| !r.is_local()))
            .count()
    };
    assert_eq!(answered(1), 60);
    assert_eq!(answered(0) + refused.len(), 60);
}

#[test]
fn session_report_responses_are_answers_counted_in_the_emr_and_never_throttled() {
    // The UP reports 20 times a second on a connection whose Max EMR is 10/s: the CP's
    // Session Report Responses alone take it to level 3, and every one of them is sent.
    let mut net = one_up(three_levels(10));
    let mut reports = 0u64;
    for k in 0..60u64 {
        net.run_until(net.now + Duration::from_millis(50));
        let h =
            pfcp_wire::Header::new(pfcp_wire::MessageType::SESSION_REPORT_REQUEST).with_seid(k + 1);
        // Report Type (39) USAR: the one mandatory IE (Table 7.5.8.1-1).
        let ies = [0x00, 0x27, 0x00, 0x01, 0x02];
        let to = pfcp_e2e::net::cp_addr();
        net.ups[0]
            .node
            .send_request(to, h, &ies, &RequestProfile::default(), net.now)
            .unwrap();
        reports += 1;
    }
    net.after(Duration::from_millis(50));
    let stats = *egress(&net, 0).stats();
    assert_eq!(net.cp_answered, reports);
    assert_eq!(stats.sent_answers, reports, "{stats:?}");
    assert_eq!(level(&net, 0), 3, "{stats:?}");
    // Every report was answered: nothing outstanding or timed out at the UP.
    let up = net.ups[0].node.transactions();
    assert_eq!((up.outstanding(), up.stats().timeouts), (0, 0));
    // A request of router priority 2 is refused at that level; the answers were not.
    let id = net.establish(0, 1, &router(2));
    net.after(Duration::from_millis(5));
    let r = net.outcome(id).unwrap().as_ref().unwrap();
    assert!(matches!(
        r.origin,
        ResponseOrigin::Throttled(RejectReason::Egress(ThrottleReason::Level(3)))
    ));
}
