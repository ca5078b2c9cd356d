//! UP self-protection through the public API: real request octets in, cause-74 rejections
//! out (decoded and validated with pfcp-wire), and the queue discipline checked against a
//! reference model.

#[cfg(feature = "tokio")]
mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_node::admission::{AdmissionConfig, Admit, QueuedRequest, ServiceOrder, UpAdmission};
use pfcp_overload::NodeKey;
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::{FSeid, NodeId};
use pfcp_wire::{Cause, Header, IeType, Message, MessagePriority, MessageType, SequenceNumber};
use proptest::prelude::*;

#[allow(clippy::disallowed_methods)] // Tests need an arbitrary base instant; the code never reads the clock.
fn base() -> Instant {
    Instant::now()
}

const MS: Duration = Duration::from_millis(1);

/// The minimal Session Establishment Request of digest section 4.14: its Create PDR and
/// Create FAR are reused by [`establishment`].
const SER: [u8; 94] = [
    0x23, 0x32, 0x00, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x02, 0x50, 0x00, 0x3c, 0x00, 0x05,
    0x00, 0xc0, 0x00, 0x02, 0x0a, 0x00, 0x39, 0x00, 0x0d, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xc0,
    0x00, 0x02, 0x0a, 0x00, 0x01, 0x00, 0x1f, 0x00, 0x38, 0x00, 0x02, 0x00, 0x01, 0x00, 0x1d, 0x00,
    0x04, 0x00, 0x00, 0x00, 0xff, 0x00, 0x02, 0x00, 0x05, 0x00, 0x14, 0x00, 0x01, 0x00, 0x00, 0x6c,
    0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x03, 0x00, 0x0d, 0x00, 0x6c, 0x00, 0x04, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x2c, 0x00, 0x01, 0x02,
];

fn smf() -> (SocketAddr, NodeKey) {
    let ip = Ipv4Addr::new(192, 0, 2, 10);
    (SocketAddr::from((ip, 8805)), NodeKey::Ip(ip.into()))
}

/// A valid Session Establishment Request with sequence `seq`, priority `p` (MP=1) and CP
/// SEID `cp_seid`.
fn establishment(seq: u32, p: u8, cp_seid: u64) -> Bytes {
    let template = Message::decode(&SER).unwrap();
    let pdr = template.find(IeType::CREATE_PDR).unwrap();
    let far = template.find(IeType::CREATE_FAR).unwrap();
    let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST)
        .with_seid(0)
        .with_sequence(SequenceNumber::new(seq).unwrap())
        .with_priority(MessagePriority::new(p).unwrap());
    let b = MessageBuilder::new(header)
        .ie(NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 10)))
        .ie(FSeid {
            seid: cp_seid,
            ipv4: Some(Ipv4Addr::new(192, 0, 2, 10)),
            ipv6: None,
        })
        .ie(pdr)
        .ie(far);
    let mut buf = vec![0u8; b.encoded_len()];
    b.encode_into(&mut buf).unwrap();
    Message::decode(&buf).unwrap().validate().unwrap();
    Bytes::from(buf)
}

/// Check a rejection against its request and return the decoded OCI's AOCI flag, if any.
fn check_rejection(bytes: &[u8], request: &QueuedRequest, cp_seid: u64) -> Option<bool> {
    let msg = Message::decode(bytes).unwrap();
    msg.validate().unwrap();
    msg.check_typed_ies().unwrap();
    assert_eq!(
        msg.message_type(),
        MessageType::SESSION_ESTABLISHMENT_RESPONSE
    );
    assert_eq!(msg.header().sequence, request.sequence);
    assert_eq!(msg.header().seid, Some(cp_seid));
    assert_eq!(msg.header().priority, Some(request.priority));
    assert_eq!(msg.cause().unwrap(), Some(Cause::PFCP_ENTITY_IN_CONGESTION));
    assert_eq!(
        msg.node_id().unwrap(),
        Some(NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)))
    );
    msg.overload_control_information()
        .unwrap()
        .map(|oci| oci.aoci())
}

/// 1 s of establishments at 4x (4 per ms, priorities cycling 0..=15) against a UP function of
/// 1000/s with room for 20: every refusal is a valid cause-74 response with an OCI; returns
/// the priorities served.
fn storm_at_4x(order: ServiceOrder) -> Vec<u8> {
    let t0 = base();
    let (addr, node) = smf();
    let mut up = UpAdmission::new(
        AdmissionConfig::new(NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into()))
            .with_service_order(order)
            .with_service_rate(Some(1000.0))
            .with_queue_capacity(20),
        t0,
    )
    .unwrap();
    up.set_peer_support(node.clone(), true, true);
    let mut served_priorities = Vec::new();
    let (mut rejections, mut with_oci) = (0, 0);
    // 1 s at 4 requests per ms (4x), priorities cycling 0..=15; seq doubles as CP SEID.
    for ms in 0..1000u32 {
        let now = t0 + ms * MS;
        for k in 0..4u32 {
            let seq = ms * 4 + k;
            let p = (seq % 16) as u8;
            let req = up
                .request_from(
                    addr,
                    establishment(seq, p, u64::from(seq) + 1),
                    Some(node.clone()),
                )
                .unwrap();
            let refused = match up.offer(req, now) {
                Admit::Queued { evicted } => evicted,
                Admit::Rejected { request, cause } => {
                    assert_eq!(cause, Cause::PFCP_ENTITY_IN_CONGESTION);
                    Some(request)
                }
                Admit::Bypass(r) => panic!("establishments are admitted: {r:?}"),
            };
            if let Some(r) = refused {
                let rsp = MessageType::SESSION_ESTABLISHMENT_RESPONSE;
                let oci = up.oci_for(
                    &r.peer_key(),
                    rsp,
                    Some(Cause::PFCP_ENTITY_IN_CONGESTION),
                    now,
                );
                let lci = up.lci_for(&r.peer_key(), rsp);
                let bytes = up.build_rejection(&r, oci, lci).unwrap();
                let cp_seid = u64::from(r.sequence.value()) + 1;
                if let Some(aoci) = check_rejection(&bytes, &r, cp_seid) {
                    assert!(aoci, "AOCI on every OCI in a rejected establishment");
                    with_oci += 1;
                }
                rejections += 1;
            }
        }
        while let Some(r) = up.poll_ready(now) {
            served_priorities.push(r.priority.value());
        }
        up.handle_timeout(now);
    }
    assert!(up.overload_metric() >= 70, "{}", up.overload_metric());
    assert!(with_oci >= 1);
    assert_eq!(up.stats().served as usize, served_priorities.len());
    assert!(
        served_priorities.len() >= 990,
        "{}",
        served_priorities.len()
    );
    assert_eq!(rejections, up.stats().rejected + up.stats().evicted);
    served_priorities
}

/// Strict priority at 4x: only the upper quarter of the priorities, whose load is the
/// capacity, gets service.
#[test]
fn overloaded_up_in_strict_priority_serves_the_upper_quarter() {
    let served = storm_at_4x(ServiceOrder::Priority);
    let high = served.iter().filter(|&&p| p < 4).count();
    assert!(
        high * 100 >= served.len() * 90,
        "{high} of {}",
        served.len()
    );
}

/// Arrival order at 4x: priority 0 is served in full (250 of 250), and the lower a quarter of
/// the priorities, the less of it is served: refusals fall on the lowest first. (Not as
/// sharply as in strict priority: a request admitted in a lull is served ahead of a later one
/// of a higher priority, so the upper quarter, whose load is the capacity, gets about 0.8.)
#[test]
fn overloaded_up_in_arrival_order_refuses_the_lowest_priorities_first() {
    let served = storm_at_4x(ServiceOrder::Arrival);
    let top = served.iter().filter(|&&p| p == 0).count();
    assert_eq!(top, 250);
    let quarters: Vec<usize> = (0..4)
        .map(|q| served.iter().filter(|&&p| p / 4 == q).count())
        .collect();
    assert!(
        quarters.windows(2).all(|w| w[0] >= w[1]) && quarters[0] > 4 * quarters[1],
        "served by quarter of the priorities: {quarters:?}"
    );
}

/// Clause 6.2.4.3: a UP function in overload advertises OCI. A burst in the first control
/// interval, before the reporter has measured anything: every cause-74 rejection carries a
/// node-scoped OCI with a metric above 0, which a decoder reads back. (With a target load of
/// 1: above it, the first few refusals are the surplus the target leaves to the queue, and
/// carry none; the unit tests of the overflow metric cover that.)
#[test]
fn a_burst_in_the_first_interval_gets_an_oci_on_every_rejection() {
    let t0 = base();
    let (addr, node) = smf();
    let mut up = UpAdmission::new(
        AdmissionConfig::new(NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into()))
            .with_service_rate(Some(1000.0))
            .with_queue_capacity(8)
            .with_reporter(AdmissionConfig::default_reporter().with_target_load(1.0)),
        t0,
    )
    .unwrap();
    up.set_peer_support(node.clone(), true, true);
    let mut rejections = 0;
    let mut sequences = Vec::new();
    // 200 establishments within 50 ms (4x the service rate), priorities cycling 0..=15.
    for ms in 0..50u32 {
        let now = t0 + ms * MS;
        for k in 0..4u32 {
            let seq = 1 + ms * 4 + k;
            let req = up
                .request_from(
                    addr,
                    establishment(seq, (seq % 16) as u8, u64::from(seq)),
                    Some(node.clone()),
                )
                .unwrap();
            let refused = match up.offer(req, now) {
                Admit::Queued { evicted } => evicted,
                Admit::Rejected { request, .. } => Some(request),
                Admit::Bypass(r) => panic!("establishments are admitted: {r:?}"),
            };
            let Some(r) = refused else { continue };
            let rsp = MessageType::SESSION_ESTABLISHMENT_RESPONSE;
            let cause = Some(Cause::PFCP_ENTITY_IN_CONGESTION);
            let oci = up.oci_for(&r.peer_key(), rsp, cause, now);
            let lci = up.lci_for(&r.peer_key(), rsp);
            let bytes = up.build_rejection(&r, oci, lci).unwrap();
            let aoci = check_rejection(&bytes, &r, u64::from(r.sequence.value()));
            assert_eq!(
                aoci,
                Some(true),
                "a node-scoped OCI on rejection {rejections}"
            );
            let got = Message::decode(&bytes)
                .unwrap()
                .overload_control_information()
                .unwrap()
                .unwrap();
            assert!(got.metric.percent() > 0);
            assert!(got.period_of_validity.duration() <= Some(Duration::from_secs(2)));
            sequences.push(got.sequence_number.0);
            rejections += 1;
        }
        while up.poll_ready(now).is_some() {}
    }
    // All of it in the first interval, where the reporter has no metric yet.
    assert_eq!(up.overload_metric(), 0);
    assert!(rejections >= 100, "{rejections}");
    // Numbers never go backwards: a CP function applies each rise and ignores repeats.
    assert!(sequences.windows(2).all(|w| w[0] <= w[1]), "{sequences:?}");
}

/// The same through a UP [`pfcp_node::Endpoint`] on real UDP: a CP function associates
/// (advertising OVRL) and sends a burst at once; every cause-74 response it gets back carries
/// the OCI.
#[cfg(feature = "tokio")]
#[tokio::test]
async fn endpoint_rejections_in_the_first_interval_carry_an_oci() {
    use common::{bind, endpoint_config, raw_exchange, ASSOCIATION_SETUP};
    use pfcp_node::LocalNode;
    use pfcp_overload::ReporterConfig;
    use pfcp_test_support::node::any_port;
    use pfcp_wire::ie::RecoveryTimeStamp;
    use tokio::net::UdpSocket;
    use tokio::time::timeout;

    let up_node = NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into());
    // A first control interval of 5 s, so the whole burst surely falls in it.
    let reporter = ReporterConfig::default()
        .with_node_scoped(true)
        .with_interval(Duration::from_secs(5));
    let config = endpoint_config(LocalNode::up(up_node.clone(), RecoveryTimeStamp(7)))
        .with_admission(
            AdmissionConfig::new(up_node)
                .with_service_rate(Some(10.0))
                .with_queue_capacity(2)
                .with_reporter(reporter),
        );
    let (up, _channels) = bind(config).await;
    let cp = UdpSocket::bind(any_port()).await.unwrap();
    // Its CP Function Features advertise OVRL: without it the rejections would carry no OCI.
    let rsp = raw_exchange(&cp, up.local_addr(), ASSOCIATION_SETUP).await;
    let rsp = Message::decode(&rsp).unwrap();
    assert_eq!(rsp.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
    let mut buf = vec![0u8; 2048];
    // 20 establishments at once: one is served, two wait, the rest are refused.
    for seq in 2..22u32 {
        let req = establishment(seq, 8, u64::from(seq));
        cp.send_to(&req, up.local_addr()).await.unwrap();
    }
    let mut refused = 0;
    while let Ok(Ok(n)) = timeout(Duration::from_millis(500), cp.recv(&mut buf)).await {
        let msg = Message::decode(&buf[..n]).unwrap();
        msg.validate().unwrap();
        assert_eq!(
            msg.message_type(),
            MessageType::SESSION_ESTABLISHMENT_RESPONSE
        );
        assert_eq!(msg.cause().unwrap(), Some(Cause::PFCP_ENTITY_IN_CONGESTION));
        let oci = msg.overload_control_information().unwrap();
        let oci = oci.unwrap_or_else(|| panic!("cause 74 without OCI: {msg:?}"));
        assert!(oci.metric.percent() > 0 && oci.aoci());
        refused += 1;
    }
    assert!(refused >= 10, "{refused}");
}

#[derive(Debug, Clone)]
enum Op {
    Offer(u8),
    Pop,
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![3 => (0u8..16).prop_map(Op::Offer), 1 => Just(Op::Pop)],
        0..200,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The queue against a reference model: FIFO per priority, 0 first (strict priority) or
    /// priority 0 first and then the oldest (arrival order); when full, a newcomer evicts the
    /// newest request of the lowest queued priority if it ranks strictly higher, else it is
    /// rejected. Without a service rate or a configured capacity, only the count bounds the
    /// queue; the requests arrive 1 µs apart, well within the wait bound.
    #[test]
    fn queue_matches_the_reference_model(
        capacity in 0usize..12,
        ops in ops(),
        strict in any::<bool>(),
    ) {
        let t0 = base();
        let (addr, node) = smf();
        let order = if strict { ServiceOrder::Priority } else { ServiceOrder::Arrival };
        let mut up = UpAdmission::new(
            AdmissionConfig::new(NodeKey::fqdn("upf.example"))
                .with_queue_capacity(capacity)
                .with_service_order(order),
            t0,
        )
        .unwrap();
        let mut model: Vec<(u8, u32)> = Vec::new(); // (priority, seq) in arrival order
        for (seq, op) in (0u32..).zip(ops) {
            let now = t0 + Duration::from_micros(u64::from(seq));
            match op {
                Op::Offer(p) => {
                    let header = Header::new(MessageType::SESSION_DELETION_REQUEST)
                        .with_seid(1)
                        .with_sequence(SequenceNumber::new(seq).unwrap())
                        .with_priority(MessagePriority::new(p).unwrap());
                    let b = MessageBuilder::new(header);
                    let mut buf = vec![0u8; b.encoded_len()];
                    b.encode_into(&mut buf).unwrap();
                    let req = up.request_from(addr, Bytes::from(buf), Some(node.clone())).unwrap();
                    let got = up.offer(req, now);
                    let expected_evicted = if model.len() < capacity {
                        model.push((p, seq));
                        None
                    } else {
                        let lowest = model.iter().map(|e| e.0).max();
                        match lowest {
                            Some(l) if p < l => {
                                let i = model.iter().rposition(|e| e.0 == l).unwrap();
                                let e = model.remove(i);
                                model.push((p, seq));
                                Some(Some(e.1))
                            }
                            _ => Some(None),
                        }
                    };
                    match (got, expected_evicted) {
                        (Admit::Queued { evicted: None }, None) => {}
                        (Admit::Queued { evicted: Some(e) }, Some(Some(s))) => {
                            prop_assert_eq!(e.sequence.value(), s)
                        }
                        (Admit::Rejected { request, .. }, Some(None)) => {
                            prop_assert_eq!(request.sequence.value(), seq)
                        }
                        (got, want) => prop_assert!(false, "got {:?}, model {:?}", got, want),
                    }
                }
                Op::Pop => {
                    // The model is in arrival order: the first of priority 0 if any, else the
                    // first (arrival) or the first of the best priority (strict).
                    let i = model.iter().position(|e| e.0 == 0).or_else(|| {
                        if strict {
                            let best = model.iter().map(|e| e.0).min()?;
                            model.iter().position(|e| e.0 == best)
                        } else if model.is_empty() {
                            None
                        } else {
                            Some(0)
                        }
                    });
                    let expected = i.map(|i| model.remove(i).1);
                    prop_assert_eq!(up.pop(now).map(|r| r.sequence.value()), expected);
                }
            }
            prop_assert_eq!(up.len(), model.len());
            prop_assert!(up.len() <= capacity);
        }
    }
}
