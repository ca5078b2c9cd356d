use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use pfcp_overload::Scope;
use pfcp_overload::{IgnoreReason, LciOutcome, OciOutcome};
use pfcp_throttle::MessageKind;
use pfcp_throttle::{EgressConfig, RouteGroup, RouteList, ThrottleReason};
use pfcp_wire::encode::{MessageBuilder, MessageWriter};
use pfcp_wire::ie::{
    ControlSequenceNumber, FSeid, LoadControlInformation, Metric, NodeId, OciFlags,
    OverloadControlInformation, Timer,
};
use pfcp_wire::{Cause, Header, IeType, SequenceNumber};

use super::*;

mod ahead;
mod hold;
mod probe;

#[allow(clippy::disallowed_methods)] // Tests need an arbitrary base instant; the module never reads the clock.
fn base() -> Instant {
    Instant::now()
}

fn upf(n: u8) -> NodeKey {
    NodeKey::fqdn(&format!("upf{n}.example.net"))
}

fn ip(last: u8) -> IpAddr {
    Ipv4Addr::new(198, 51, 100, last).into()
}

fn oci(seq: u32, metric: u8, validity: Timer, aoci: bool) -> OverloadControlInformation {
    OverloadControlInformation {
        sequence_number: ControlSequenceNumber(seq),
        metric: Metric::from_raw(metric),
        period_of_validity: validity,
        flags: aoci.then_some(OciFlags::AOCI),
    }
}

fn lci(seq: u32, load: u8) -> LoadControlInformation {
    LoadControlInformation {
        sequence_number: ControlSequenceNumber(seq),
        metric: Metric::from_raw(load),
    }
}

/// A response (or Session Report Request) from a UP function, encoded with the real codec.
fn message(
    t: MessageType,
    cause: Option<Cause>,
    up_fseid: Option<IpAddr>,
    oci: Option<OverloadControlInformation>,
    lci: Option<LoadControlInformation>,
) -> Vec<u8> {
    let header = Header::new(t)
        .with_seid(0x10)
        .with_sequence(SequenceNumber::new(7).unwrap());
    let node = (t == MessageType::SESSION_ESTABLISHMENT_RESPONSE)
        .then_some(NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)));
    let fseid = up_fseid.map(|a| FSeid {
        seid: 0x99,
        ipv4: match a {
            IpAddr::V4(a) => Some(a),
            IpAddr::V6(_) => None,
        },
        ipv6: match a {
            IpAddr::V6(a) => Some(a),
            IpAddr::V4(_) => None,
        },
    });
    let b = MessageBuilder::new(header)
        .ie(node)
        .ie(cause)
        .ie(fseid)
        .ie(lci)
        .ie(oci);
    let mut buf = vec![0u8; b.encoded_len()];
    b.encode_into(&mut buf).unwrap();
    buf
}

fn feed(
    cp: &mut CpOverloadControl,
    from: &Destination,
    bytes: &[u8],
    now: Instant,
) -> ResponseOutcome {
    let msg = Message::decode(bytes).unwrap();
    cp.handle_response(from, &msg, now)
}

fn low<'a>() -> RequestContext<'a> {
    RequestContext {
        arp: [9].into(),
        ..RequestContext::default()
    }
}

fn emergency<'a>() -> RequestContext<'a> {
    RequestContext {
        emergency: true,
        ..RequestContext::default()
    }
}

/// The decision path as the tests ask it: a request of `mt` to `dest` with `ctx` and `draw`.
trait DecideFor {
    fn decide_for(
        &mut self,
        dest: &Destination,
        mt: MessageType,
        ctx: &RequestContext<'_>,
        now: Instant,
        draw: u64,
    ) -> CpDecision;
    /// The same, for a Session Establishment Request that may be redirected.
    fn redirectable_for(
        &mut self,
        dest: &Destination,
        mt: MessageType,
        ctx: &RequestContext<'_>,
        now: Instant,
        draw: u64,
    ) -> CpDecision;
}

impl DecideFor for CpOverloadControl {
    fn decide_for(
        &mut self,
        dest: &Destination,
        mt: MessageType,
        ctx: &RequestContext<'_>,
        now: Instant,
        draw: u64,
    ) -> CpDecision {
        let req = CpRequest::new(dest, mt, ctx.reborrow()).with_draw(draw);
        self.decide(&req, now)
    }

    fn redirectable_for(
        &mut self,
        dest: &Destination,
        mt: MessageType,
        ctx: &RequestContext<'_>,
        now: Instant,
        draw: u64,
    ) -> CpDecision {
        let req = CpRequest::new(dest, mt, ctx.reborrow())
            .with_redirect(true)
            .with_draw(draw);
        self.decide(&req, now)
    }
}

fn cp() -> CpOverloadControl {
    CpOverloadControl::new(CpConfig::default()).unwrap()
}

const SER: MessageType = MessageType::SESSION_ESTABLISHMENT_REQUEST;
const SMR: MessageType = MessageType::SESSION_MODIFICATION_REQUEST;
const MIN: Duration = Duration::from_secs(60);

fn minutes(n: u32) -> Timer {
    Timer::from_duration(n * MIN).unwrap()
}

/// A whole window of calm low-priority traffic to `dest`: the throttle's long-run share of
/// exempt traffic is then small (see `exempt_fits`), and the first reduction starts its
/// window afresh.
fn calm_history(cp: &mut CpOverloadControl, dest: &Destination, now: Instant) {
    for i in 0..1000 {
        assert!(cp.decide_for(dest, SER, &low(), now, i).is_send());
    }
}

/// An accepted Session Establishment Response from `node` with a node-scoped OCI of `metric`.
fn overload_node(cp: &mut CpOverloadControl, node: &NodeKey, seq: u32, metric: u8, now: Instant) {
    let bytes = message(
        MessageType::SESSION_ESTABLISHMENT_RESPONSE,
        Some(Cause::REQUEST_ACCEPTED),
        Some(ip(1)),
        Some(oci(seq, metric, minutes(2), true)),
        None,
    );
    let out = feed(cp, &Destination::node(node.clone()), &bytes, now);
    assert!(
        matches!(out.oci, Some(OciOutcome::Applied { .. })),
        "{out:?}"
    );
}

#[test]
fn oci_of_50_percent_sheds_low_priority_and_keeps_emergency() {
    let now = base();
    let mut cp = cp();
    let dest = Destination::node(upf(1));
    overload_node(&mut cp, &upf(1), 1, 50, now);
    assert_eq!(cp.reduction(&dest, now), 50);
    let (mut low_rejected, mut emergency_rejected) = (0, 0);
    for i in 0..2040 {
        let is_emergency = i % 51 == 0;
        let ctx = if is_emergency { emergency() } else { low() };
        match cp.decide_for(&dest, SER, &ctx, now, i) {
            CpDecision::Send {
                priority, dest: d, ..
            } => {
                assert_eq!(d, dest);
                assert_eq!(priority.value(), if is_emergency { 0 } else { 9 });
            }
            CpDecision::Reject { reason, cause } => {
                assert_eq!(cause, Cause::PFCP_ENTITY_IN_CONGESTION);
                match reason {
                    RejectReason::Loss(t) => assert_eq!(t.reduction, 50),
                    other => panic!("{other:?}"),
                }
                if is_emergency {
                    emergency_rejected += 1;
                } else {
                    low_rejected += 1;
                }
            }
            other => panic!("no route list: {other:?}"),
        }
    }
    // 2000 low + 40 emergency: the 1020 to shed come from the low-priority ones (51 %).
    assert_eq!(emergency_rejected, 0);
    assert!((960..=1080).contains(&low_rejected), "{low_rejected}");
    assert_eq!(cp.stats().rejected, low_rejected);
    assert_eq!(cp.loss_throttle(&dest.node).unwrap().reduction(), 50);
}

#[test]
fn random_mode_sheds_the_same_share() {
    let now = base();
    let mut cp =
        CpOverloadControl::new(CpConfig::default().with_loss_mode(LossMode::Random)).unwrap();
    let dest = Destination::node(upf(1));
    overload_node(&mut cp, &upf(1), 1, 50, now);
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut rejected = 0;
    for _ in 0..4000 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        if cp.decide_for(&dest, SER, &low(), now, x >> 11).is_reject() {
            rejected += 1;
        }
    }
    assert!((1800..=2200).contains(&rejected), "{rejected}");
}

#[test]
fn expiry_restores_full_traffic() {
    let now = base();
    let mut cp = cp();
    let dest = Destination::node(upf(1));
    let bytes = message(
        MessageType::SESSION_DELETION_RESPONSE,
        Some(Cause::REQUEST_ACCEPTED),
        None,
        Some(oci(
            1,
            50,
            Timer::from_duration(Duration::from_secs(2)).unwrap(),
            true,
        )),
        None,
    );
    feed(&mut cp, &Destination::entity(upf(1), ip(1)), &bytes, now);
    let rejected = (0..100)
        .filter(|&i| cp.decide_for(&dest, SER, &low(), now, i).is_reject())
        .count();
    assert!((45..=55).contains(&rejected), "{rejected}");
    let expiry = now + Duration::from_secs(2);
    assert_eq!(cp.poll_timeout(), Some(expiry));
    cp.handle_timeout(expiry);
    assert_eq!(cp.poll_timeout(), None);
    assert_eq!(cp.stats().oci_expired, 1);
    // The link's view is the one writer: the next decision reads 0.
    assert_eq!(cp.reduction(&dest, expiry), 0);
    assert!((0..100).all(|i| cp.decide_for(&dest, SER, &low(), expiry, i).is_send()));
}

#[test]
fn expired_state_stops_throttling_even_before_handle_timeout() {
    let now = base();
    let mut cp = cp();
    let dest = Destination::node(upf(1));
    let bytes = message(
        MessageType::SESSION_DELETION_RESPONSE,
        Some(Cause::REQUEST_ACCEPTED),
        None,
        Some(oci(
            1,
            100,
            Timer::from_duration(Duration::from_secs(2)).unwrap(),
            true,
        )),
        None,
    );
    feed(&mut cp, &dest, &bytes, now);
    assert!(cp.decide_for(&dest, SER, &low(), now, 0).is_reject());
    let later = now + Duration::from_secs(3);
    assert!(cp.decide_for(&dest, SER, &low(), later, 0).is_send());
}

#[test]
fn redirects_establishments_to_a_second_up_when_the_first_is_throttled() {
    let now = base();
    let routes = RouteList::new(
        vec![RouteGroup::new()
            .with_peer(Destination::node(upf(1)), 1)
            .with_peer(Destination::node(upf(2)), 1)],
        1,
    )
    .unwrap();
    let mut cp = cp().with_routes(routes);
    let first = Destination::node(upf(1));
    // A rejected Session Establishment Response with cause 74 and a 100 % node OCI (AOCI).
    let bytes = message(
        MessageType::SESSION_ESTABLISHMENT_RESPONSE,
        Some(Cause::PFCP_ENTITY_IN_CONGESTION),
        None,
        Some(oci(1, 100, minutes(1), true)),
        None,
    );
    feed(&mut cp, &first, &bytes, now);
    for draw in 0..50 {
        match cp.redirectable_for(&first, SER, &low(), now, draw) {
            CpDecision::Redirect { to, priority, .. } => {
                assert_eq!(to, Destination::node(upf(2)));
                assert_eq!(priority.value(), 9);
            }
            other => panic!("expected a redirect: {other:?}"),
        }
    }
    assert_eq!(cp.stats().redirected, 50);
    // The skipped primary cost no forwarding attempt (the limit is 1) and its weight is back.
    assert_eq!(cp.routes_mut().unwrap().groups()[0].peers()[0].1, 1);
    // Without permission, or for other requests: a local rejection.
    assert!(cp.decide_for(&first, SER, &low(), now, 1).is_reject());
    let entity = Destination::entity(upf(1), ip(1));
    assert!(cp
        .redirectable_for(&entity, SMR, &low(), now, 1)
        .is_reject());
    // Both throttled: rejected, with the first destination's reason.
    overload_node(&mut cp, &upf(2), 1, 100, now);
    match cp.redirectable_for(&first, SER, &low(), now, 3) {
        CpDecision::Reject {
            reason: RejectReason::Loss(t),
            ..
        } => assert_eq!(t.reduction, 100),
        other => panic!("{other:?}"),
    }
}

/// An alternate that is itself in overload takes no redirected establishment, however small
/// its reduction: its Loss throttle would let (1 - reduction) of them through on top of its own
/// traffic, and with every UP function overloaded a refused request tried at each in turn
/// got through nearly always (ten UP functions at 5x: twice their capacity arrived).
#[test]
fn no_redirect_to_an_alternate_in_overload() {
    let now = base();
    let routes = RouteList::new(
        vec![RouteGroup::new()
            .with_peer(Destination::node(upf(1)), 1)
            .with_peer(Destination::node(upf(2)), 1)
            .with_peer(Destination::node(upf(3)), 1)],
        2,
    )
    .unwrap();
    let mut cp = cp().with_routes(routes);
    let first = Destination::node(upf(1));
    overload_node(&mut cp, &upf(1), 1, 100, now);
    // Both alternates at a reduction of 5 %: nothing is redirected.
    overload_node(&mut cp, &upf(2), 1, 5, now);
    overload_node(&mut cp, &upf(3), 1, 5, now);
    for draw in 0..40 {
        assert!(cp
            .redirectable_for(&first, SER, &low(), now, draw)
            .is_reject());
    }
    assert_eq!(cp.stats().redirected, 0);
    // Once one of them is out of overload (metric 0), it takes them all.
    overload_node(&mut cp, &upf(3), 2, 0, now);
    for draw in 0..40 {
        match cp.redirectable_for(&first, SER, &low(), now, draw) {
            CpDecision::Redirect { to, .. } => assert_eq!(to, Destination::node(upf(3))),
            other => panic!("expected a redirect to upf3: {other:?}"),
        }
    }
}

#[test]
fn aoci_node_scope_versus_entity_scope() {
    let now = base();
    let mut cp = cp();
    let a = upf(1);
    let (x, y) = (ip(1), ip(2));
    let at_x = Destination::entity(a.clone(), x);
    let at_y = Destination::entity(a.clone(), y);
    let node = Destination::node(a.clone());
    // AOCI=0 on a Session Modification Response from entity x: entity x only.
    let bytes = message(
        MessageType::SESSION_MODIFICATION_RESPONSE,
        Some(Cause::REQUEST_ACCEPTED),
        None,
        Some(oci(1, 60, Timer::INFINITE, false)),
        None,
    );
    let out = feed(&mut cp, &at_x, &bytes, now);
    assert!(matches!(
        out.oci,
        Some(OciOutcome::Applied { scope: Scope::Entity(e), metric: 60, .. }) if e == x
    ));
    assert_eq!(
        (
            cp.reduction(&at_x, now),
            cp.reduction(&at_y, now),
            cp.reduction(&node, now)
        ),
        (60, 0, 0)
    );
    assert!((0..100).all(|i| cp.decide_for(&at_y, SMR, &low(), now, i).is_send()));
    // AOCI=1 from entity y: the whole node, every entity (the larger of the two applies).
    let bytes = message(
        MessageType::SESSION_MODIFICATION_RESPONSE,
        Some(Cause::REQUEST_ACCEPTED),
        None,
        Some(oci(1, 30, Timer::INFINITE, true)),
        None,
    );
    let out = feed(&mut cp, &at_y, &bytes, now);
    assert!(matches!(
        out.oci,
        Some(OciOutcome::Applied {
            scope: Scope::Node(_),
            metric: 30,
            ..
        })
    ));
    assert_eq!(
        (
            cp.reduction(&at_x, now),
            cp.reduction(&at_y, now),
            cp.reduction(&node, now)
        ),
        (60, 30, 30)
    );
    let rejected = (0..1000)
        .filter(|&i| cp.decide_for(&at_y, SMR, &low(), now, i).is_reject())
        .count();
    assert!((280..=320).contains(&rejected), "{rejected}");
    // Each decision read its reduction from the link: the throttle last decided at 30.
    assert_eq!(cp.loss_throttle(&at_y.node).unwrap().reduction(), 30);
    // An accepted establishment without AOCI: the entity of its UP F-SEID, not the node.
    let b = upf(2);
    let bytes = message(
        MessageType::SESSION_ESTABLISHMENT_RESPONSE,
        Some(Cause::REQUEST_ACCEPTED),
        Some(ip(9)),
        Some(oci(1, 40, Timer::INFINITE, false)),
        None,
    );
    feed(&mut cp, &Destination::node(b.clone()), &bytes, now);
    assert_eq!(
        cp.reduction(&Destination::entity(b.clone(), ip(9)), now),
        40
    );
    assert_eq!(cp.reduction(&Destination::node(b), now), 0);
    // A non-compliant rejected establishment (no AOCI, no UP F-SEID): the node.
    let c = upf(3);
    let bytes = message(
        MessageType::SESSION_ESTABLISHMENT_RESPONSE,
        Some(Cause::PFCP_ENTITY_IN_CONGESTION),
        None,
        Some(oci(1, 20, Timer::INFINITE, false)),
        None,
    );
    feed(&mut cp, &Destination::node(c.clone()), &bytes, now);
    assert_eq!(cp.reduction(&Destination::node(c), now), 20);
}

#[test]
fn lci_steers_select_up() {
    let now = base();
    let mut cp = cp();
    let cands = [
        Candidate {
            node: upf(1),
            weight: 1,
        },
        Candidate {
            node: upf(2),
            weight: 1,
        },
    ];
    for (n, load) in [(1, 90), (2, 10)] {
        let bytes = message(
            MessageType::SESSION_DELETION_RESPONSE,
            Some(Cause::REQUEST_ACCEPTED),
            None,
            None,
            Some(lci(1, load)),
        );
        let out = feed(&mut cp, &Destination::entity(upf(n), ip(n)), &bytes, now);
        assert_eq!(out.lci, Some(LciOutcome::Applied { load }));
        assert_eq!(out.oci, None);
    }
    // Scores 10 x 100 and 90 x 100: upf2 gets exactly 90 % of 10 000 evenly spaced draws
    // (a draw is read as a fraction of 2^64; rounded up, draw `d` reads as `d / 10 000`).
    let picks = |cp: &mut CpOverloadControl| {
        (0..10_000u64)
            .map(|d| (u128::from(d) << 64).div_ceil(10_000) as u64)
            .filter(|&d| cp.select_up(&cands, now, d) == Some(1))
            .count()
    };
    assert_eq!(picks(&mut cp), 9000);
    // Loads reversed (newer sequence numbers): the choice follows.
    for (n, load) in [(1, 10), (2, 90)] {
        let bytes = message(
            MessageType::SESSION_REPORT_REQUEST,
            None,
            None,
            None,
            Some(lci(2, load)),
        );
        feed(&mut cp, &Destination::entity(upf(n), ip(n)), &bytes, now);
    }
    assert_eq!(picks(&mut cp), 1000);
    // An overloaded UP is weighed by what its OCI leaves: at 60 %, 90 x 40 against 10 x 100.
    overload_node(&mut cp, &upf(1), 1, 60, now);
    assert_eq!(picks(&mut cp), 10_000 * 1000 / 4600);
    // One that asks for all its traffic to stop is avoided whatever its load.
    overload_node(&mut cp, &upf(1), 2, 100, now);
    assert_eq!(picks(&mut cp), 10_000);
    assert_eq!(cp.select_up(&[], now, 0), None);
}

#[test]
fn malformed_oci_is_ignored_and_the_message_still_processed() {
    let now = base();
    let mut cp = cp();
    let dest = Destination::entity(upf(1), ip(1));
    // OCI without its mandatory Overload Reduction Metric, then a valid LCI.
    let header = Header::new(MessageType::SESSION_MODIFICATION_RESPONSE).with_seid(1);
    let mut buf = Vec::new();
    let mut w = MessageWriter::begin(&mut buf, &header).unwrap();
    w.ie(&Cause::REQUEST_ACCEPTED).unwrap();
    let mut g = w.group(IeType::OVERLOAD_CONTROL_INFORMATION).unwrap();
    g.ie(&ControlSequenceNumber(3)).unwrap();
    g.ie(&Timer::INFINITE).unwrap();
    g.finish().unwrap();
    w.ie(&lci(4, 35)).unwrap();
    w.finish().unwrap();
    let msg = Message::decode(&buf).unwrap();
    msg.validate().unwrap();
    let out = cp.handle_response(&dest, &msg, now);
    assert!(matches!(
        out.oci,
        Some(OciOutcome::Ignored {
            reason: IgnoreReason::Malformed(_),
            ..
        })
    ));
    assert_eq!(out.lci, Some(LciOutcome::Applied { load: 35 }));
    assert_eq!(cp.link(&upf(1)).and_then(|l| l.load(now)), Some(35));
    assert_eq!(cp.reduction(&dest, now), 0);
    assert!((0..50).all(|i| cp.decide_for(&dest, SMR, &low(), now, i).is_send()));
    assert_eq!((cp.stats().oci.malformed, cp.stats().lci.applied), (1, 1));
    // A metric above 100 is not an error: it reads as 0 (clause 8.2.34).
    let bytes = message(
        MessageType::SESSION_MODIFICATION_RESPONSE,
        Some(Cause::REQUEST_ACCEPTED),
        None,
        Some(oci(5, 200, Timer::INFINITE, false)),
        None,
    );
    let out = feed(&mut cp, &dest, &bytes, now);
    assert!(matches!(
        out.oci,
        Some(OciOutcome::Applied { metric: 0, .. })
    ));
}

#[test]
fn heartbeat_association_and_responses_are_never_throttled() {
    let now = base();
    let mut cp = cp();
    let dest = Destination::node(upf(1));
    overload_node(&mut cp, &upf(1), 1, 100, now);
    for t in [
        MessageType::HEARTBEAT_REQUEST,
        MessageType::ASSOCIATION_SETUP_REQUEST,
        MessageType::ASSOCIATION_UPDATE_REQUEST,
        MessageType::ASSOCIATION_RELEASE_REQUEST,
        MessageType::SESSION_REPORT_RESPONSE,
    ] {
        for i in 0..20 {
            assert!(cp.decide_for(&dest, t, &low(), now, i).is_send(), "{t}");
        }
    }
    assert_eq!(cp.stats().bypassed, 100);
    let offered: u64 = cp
        .loss_throttle(&dest.node)
        .map_or(0, |l| l.stats().offered.iter().sum());
    assert_eq!(offered, 0, "nothing offered to the Loss throttle");
    assert!(cp.decide_for(&dest, SER, &low(), now, 0).is_reject());
    // Heartbeats get priority 0 (not encoded on node messages).
    match cp.decide_for(&dest, MessageType::HEARTBEAT_REQUEST, &low(), now, 0) {
        CpDecision::Send { priority, .. } => assert_eq!(priority.value(), 0),
        other => panic!("{other:?}"),
    }
}

#[test]
fn reset_peer_flushes_its_state() {
    let now = base();
    let mut cp = cp();
    let dest = Destination::node(upf(1));
    let other = Destination::node(upf(2));
    overload_node(&mut cp, &upf(1), 9, 100, now);
    overload_node(&mut cp, &upf(2), 1, 100, now);
    assert!(cp.decide_for(&dest, SER, &low(), now, 0).is_reject());
    assert!(cp.decide_for(&other, SER, &low(), now, 0).is_reject());
    cp.reset_peer(&upf(1));
    assert!(cp.loss_throttle(&dest.node).is_none());
    assert_eq!(cp.reduction(&dest, now), 0);
    assert!(cp.decide_for(&dest, SER, &low(), now, 0).is_send());
    assert!(cp.decide_for(&other, SER, &low(), now, 0).is_reject());
    // After a restart any sequence number is accepted again.
    overload_node(&mut cp, &upf(1), 1, 40, now);
    assert_eq!(cp.reduction(&dest, now), 40);
}

#[test]
fn egress_throttle_caps_a_connection() {
    let now = base();
    let mut config = EgressConfig::new(10);
    config.burst = 4;
    let mut cp = CpOverloadControl::new(CpConfig::default().with_egress(Some(config))).unwrap();
    let dest = Destination::node(upf(1));
    let decisions: Vec<CpDecision> = (0..20)
        .map(|i| cp.decide_for(&dest, SER, &low(), now, i))
        .collect();
    let sent = decisions.iter().filter(|d| d.is_send()).count();
    assert!((1..=4).contains(&sent), "{decisions:?}");
    assert!(decisions.iter().any(|d| matches!(
        d,
        CpDecision::Reject {
            reason: RejectReason::Egress(ThrottleReason::RateLimit),
            ..
        }
    )));
    // Heartbeats are counted but never refused.
    assert!(cp
        .decide_for(&dest, MessageType::HEARTBEAT_REQUEST, &low(), now, 0)
        .is_send());
    cp.on_send(&dest.node, MessageKind::Retransmission, now);
    cp.transaction_ended(&dest);
    let egress = cp.egress_throttle(&upf(1)).unwrap();
    // The retransmission is recorded as one, the heartbeat as a management message.
    assert_eq!(egress.stats().sent_requests as usize, sent);
    assert_eq!(egress.stats().sent_retransmissions, 1);
    assert_eq!(egress.stats().sent_management, 1);
    cp.handle_timeout(now + Duration::from_secs(1));
    assert!(cp
        .decide_for(&dest, SER, &low(), now + Duration::from_secs(1), 0)
        .is_send());
}

#[test]
fn destinations_are_bounded() {
    let now = base();
    let mut cp = CpOverloadControl::new(CpConfig::default().with_max_destinations(2)).unwrap();
    for n in 1..=3u8 {
        let dest = Destination::node(upf(n));
        assert!(cp
            .decide_for(&dest, SER, &low(), now + Duration::from_millis(n.into()), 0)
            .is_send());
    }
    // The least recently used (upf1) made room.
    assert!(cp.loss_throttle(&upf(1)).is_none());
    assert!(cp.loss_throttle(&upf(3)).is_some());
    assert!(matches!(
        CpOverloadControl::new(CpConfig::default().with_max_destinations(0)),
        Err(CpConfigError::MaxDestinations)
    ));
    let mut bad = EgressConfig::new(0);
    bad.burst = 1;
    assert!(matches!(
        CpOverloadControl::new(CpConfig::default().with_egress(Some(bad))),
        Err(CpConfigError::Egress(_))
    ));
}

#[test]
fn duplicate_oci_changes_nothing() {
    let now = base();
    let mut cp = cp();
    overload_node(&mut cp, &upf(1), 3, 50, now);
    let bytes = message(
        MessageType::SESSION_ESTABLISHMENT_RESPONSE,
        Some(Cause::REQUEST_ACCEPTED),
        Some(ip(1)),
        Some(oci(3, 10, minutes(2), true)),
        None,
    );
    let out = feed(&mut cp, &Destination::node(upf(1)), &bytes, now + MIN);
    assert!(matches!(
        out.oci,
        Some(OciOutcome::Ignored {
            reason: IgnoreReason::Duplicate,
            ..
        })
    ));
    assert_eq!(cp.reduction(&Destination::node(upf(1)), now + MIN), 50);
    // Validity not restarted by the duplicate.
    assert_eq!(cp.poll_timeout(), Some(now + 2 * MIN));
}
