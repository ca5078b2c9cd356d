use std::net::{Ipv4Addr, SocketAddr};

use pfcp_wire::ie::{ControlSequenceNumber, Metric, OciFlags, Timer};

use pfcp_overload::ReporterConfig;
use pfcp_throttle::ClassifierConfig;
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::{
    CpFunctionFeatures, LoadControlInformation, NodeId, OverloadControlInformation,
};
use pfcp_wire::{Message, SequenceNumber};

use super::*;

#[allow(clippy::disallowed_methods)] // Tests need an arbitrary base instant; the module never reads the clock.
fn base() -> Instant {
    Instant::now()
}

const MS: Duration = Duration::from_millis(1);

fn cp_addr() -> SocketAddr {
    SocketAddr::from((Ipv4Addr::new(192, 0, 2, 10), 40_000))
}

fn cp_node() -> NodeKey {
    NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 10).into())
}

fn up_node() -> NodeKey {
    NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into())
}

/// The minimal Session Establishment Request of digest section 4.14 (TS 29.244 clause 7.2.2
/// header, Table 7.5.2.1-1 IEs): MP=1 priority 5, SEID 0, seq 2, CP F-SEID SEID 1.
const SER: [u8; 94] = [
    0x23, 0x32, 0x00, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x02, 0x50, // header
    0x00, 0x3c, 0x00, 0x05, 0x00, 0xc0, 0x00, 0x02, 0x0a, // Node ID 192.0.2.10
    0x00, 0x39, 0x00, 0x0d, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xc0, 0x00, 0x02,
    0x0a, // CP F-SEID
    0x00, 0x01, 0x00, 0x1f, // Create PDR
    0x00, 0x38, 0x00, 0x02, 0x00, 0x01, // PDR ID 1
    0x00, 0x1d, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, // Precedence 255
    0x00, 0x02, 0x00, 0x05, 0x00, 0x14, 0x00, 0x01, 0x00, // PDI{Source Interface Access}
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x03, 0x00, 0x0d, // Create FAR
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x2c, 0x00, 0x01, 0x02, // Apply Action FORW
];

fn prio(p: u8) -> MessagePriority {
    MessagePriority::new(p).unwrap()
}

/// A request with header fields only (enough for admission and for building its rejection).
fn request(t: MessageType, seq: u32, priority: Option<u8>) -> QueuedRequest {
    let mut header = Header::new(t).with_sequence(SequenceNumber::new(seq).unwrap());
    if t.is_session() == Some(true) {
        header = header.with_seid(0xAB);
        if let Some(p) = priority {
            header = header.with_priority(prio(p));
        }
    }
    let b = MessageBuilder::new(header);
    let mut buf = vec![0u8; b.encoded_len()];
    b.encode_into(&mut buf).unwrap();
    QueuedRequest {
        peer: cp_addr(),
        sequence: SequenceNumber::new(seq).unwrap(),
        message_type: t,
        priority: prio(priority.unwrap_or(8)),
        bytes: Bytes::from(buf),
        node: Some(cp_node()),
    }
}

fn modification(seq: u32, p: u8) -> QueuedRequest {
    request(MessageType::SESSION_MODIFICATION_REQUEST, seq, Some(p))
}

fn admission(config: AdmissionConfig, now: Instant) -> UpAdmission {
    UpAdmission::new(config, now).unwrap()
}

/// The control interval these tests' timings are written for (the default until it became
/// 200 ms).
const INTERVAL: Duration = Duration::from_millis(100);

fn config() -> AdmissionConfig {
    AdmissionConfig::new(up_node())
        .with_reporter(AdmissionConfig::default_reporter().with_interval(INTERVAL))
}

#[test]
fn dequeues_by_priority_then_fifo() {
    let t0 = base();
    let mut up = admission(config(), t0);
    for (seq, p) in [(1, 8), (2, 3), (3, 15), (4, 0), (5, 3)] {
        assert_eq!(
            up.offer(modification(seq, p), t0),
            Admit::Queued { evicted: None }
        );
    }
    assert_eq!(up.len(), 5);
    let order: Vec<u32> = std::iter::from_fn(|| up.pop(t0))
        .map(|r| r.sequence.value())
        .collect();
    assert_eq!(order, [4, 2, 5, 1, 3]);
    assert!(up.is_empty());
}

#[test]
fn full_queue_refuses_lowest_priority_first() {
    let t0 = base();
    let mut up = admission(config().with_queue_capacity(3), t0);
    for (seq, p) in [(1, 5), (2, 5), (3, 10)] {
        assert!(matches!(
            up.offer(modification(seq, p), t0),
            Admit::Queued { evicted: None }
        ));
    }
    // Not higher than the lowest queued (10): the newcomer is refused with cause 74.
    for (seq, p) in [(4, 10), (5, 12)] {
        match up.offer(modification(seq, p), t0) {
            Admit::Rejected { request, cause } => {
                assert_eq!(request.sequence.value(), seq);
                assert_eq!(cause, Cause::PFCP_ENTITY_IN_CONGESTION);
            }
            other => panic!("expected a rejection, got {other:?}"),
        }
    }
    // Higher: the lowest queued request is evicted and handed back for rejection.
    match up.offer(modification(6, 2), t0) {
        Admit::Queued {
            evicted: Some(evicted),
        } => assert_eq!(evicted.sequence.value(), 3),
        other => panic!("expected an eviction, got {other:?}"),
    }
    // Now the lowest is 5: of two equal, the newest (served last) goes.
    match up.offer(modification(7, 4), t0) {
        Admit::Queued {
            evicted: Some(evicted),
        } => assert_eq!(evicted.sequence.value(), 2),
        other => panic!("expected an eviction, got {other:?}"),
    }
    assert!(matches!(
        up.offer(modification(8, 5), t0),
        Admit::Rejected { .. }
    ));
    let order: Vec<u32> = std::iter::from_fn(|| up.pop(t0))
        .map(|r| r.sequence.value())
        .collect();
    assert_eq!(order, [6, 7, 1]);
    let s = up.stats();
    assert_eq!((s.offered, s.queued, s.rejected, s.evicted), (8, 5, 3, 2));
}

#[test]
fn zero_capacity_rejects_everything_admitted() {
    let t0 = base();
    let mut up = admission(config().with_queue_capacity(0), t0);
    assert!(matches!(
        up.offer(modification(1, 0), t0),
        Admit::Rejected { .. }
    ));
}

#[test]
fn heartbeat_association_and_responses_bypass_admission() {
    let t0 = base();
    let mut up = admission(config().with_queue_capacity(0), t0);
    for t in [
        MessageType::HEARTBEAT_REQUEST,
        MessageType::ASSOCIATION_SETUP_REQUEST,
        MessageType::ASSOCIATION_UPDATE_REQUEST,
        MessageType::ASSOCIATION_RELEASE_REQUEST,
        MessageType::SESSION_REPORT_RESPONSE,
        MessageType::HEARTBEAT_RESPONSE,
    ] {
        let r = request(t, 9, None);
        assert_eq!(up.offer(r.clone(), t0), Admit::Bypass(r), "{t}");
    }
    assert_eq!(up.stats().bypassed, 6);
    assert_eq!(up.stats().offered, 0);
    // Session Set Deletion and PFD Management requests are admitted (throttled procedures).
    for t in [
        MessageType::SESSION_SET_DELETION_REQUEST,
        MessageType::PFD_MANAGEMENT_REQUEST,
    ] {
        assert!(matches!(
            up.offer(request(t, 1, None), t0),
            Admit::Rejected { .. }
        ));
    }
}

#[test]
fn request_without_mp_gets_the_default_priority() {
    let t0 = base();
    let up = admission(
        config().with_classifier(ClassifierConfig::default().with_request_default(11)),
        t0,
    );
    let plain = request(MessageType::SESSION_DELETION_REQUEST, 7, None);
    let r = up.request_from(cp_addr(), plain.bytes, None).unwrap();
    assert_eq!(r.priority, prio(11));
    assert_eq!(r.sequence.value(), 7);
    assert_eq!(r.peer_key(), cp_node());
    let r = up
        .request_from(cp_addr(), Bytes::from_static(&SER), Some(cp_node()))
        .unwrap();
    assert_eq!(r.priority, prio(5));
    assert_eq!(r.message_type, MessageType::SESSION_ESTABLISHMENT_REQUEST);
    assert!(up
        .request_from(cp_addr(), Bytes::from_static(&[0x21, 0x32]), None)
        .is_err());
}

#[test]
fn service_rate_paces_dequeues() {
    let t0 = base();
    // Pacing alone: the requests waiting past a second are not taken out here.
    let mut up = admission(
        config().with_service_rate(Some(1000.0)).with_max_wait(None),
        t0,
    );
    for seq in 0..50 {
        let _ = up.offer(modification(seq, 8), t0);
    }
    assert!(up.poll_ready(t0).is_some());
    assert!(up.poll_ready(t0).is_none());
    assert_eq!(up.poll_timeout(), Some(t0 + MS));
    // A coarse poller gets the full rate: 10 more by t0 + 10 ms.
    let mut n = 0;
    while up.poll_ready(t0 + 10 * MS).is_some() {
        n += 1;
    }
    assert_eq!(n, 10);
    assert_eq!(up.poll_timeout(), Some(t0 + 11 * MS));
    // Drain; then an idle second banks no service credit.
    while up.poll_ready(t0 + Duration::from_secs(1)).is_some() {}
    assert!(up.is_empty());
    let t1 = t0 + Duration::from_secs(2);
    for seq in 0..5 {
        let _ = up.offer(modification(seq, 8), t1);
    }
    assert!(up.poll_ready(t1).is_some());
    assert!(up.poll_ready(t1).is_none());
    assert!(up.poll_ready(t1 + MS).is_some());
    assert_eq!(up.stats().served, 52);
}

#[test]
fn served_counts_for_callers_with_their_own_workers() {
    let t0 = base();
    let mut up = admission(config(), t0);
    let _ = up.offer(modification(1, 8), t0);
    let r = up.pop(t0).unwrap();
    assert_eq!(up.stats().served, 0);
    up.served(t0 + MS);
    assert_eq!(r.sequence.value(), 1);
    assert_eq!(up.stats().served, 1);
    // Without a service rate, poll_ready serves at once.
    let _ = up.offer(modification(2, 8), t0 + MS);
    let _ = up.offer(modification(3, 8), t0 + MS);
    assert!(up.poll_ready(t0 + MS).is_some());
    assert!(up.poll_ready(t0 + MS).is_some());
    assert_eq!(up.stats().served, 3);
}

#[test]
fn max_wait_takes_stale_requests_out() {
    // 10 requests/s (a service every 100 ms), 8 at once: the service model would take up the
    // fifth at 400 ms. A limit of 50 ms is raised to 4 service times, 400 ms: the first four
    // are served, the other four expire (waited 400 ms or more), whether the caller polls at
    // every service or only once, late: the wait is judged on the model's clock. (Strict
    // priority admits by count; in arrival order the four would be refused at once, see
    // `arrival_order_admits_only_what_it_serves_within_the_bound`.)
    for late in [false, true] {
        let t0 = base();
        let mut up = admission(
            config()
                .with_service_order(ServiceOrder::Priority)
                .with_service_rate(Some(10.0))
                .with_max_wait(Some(50 * MS)),
            t0,
        );
        for seq in 1..=8 {
            let _ = up.offer(modification(seq, 8), t0);
        }
        let polls: Vec<u32> = if late {
            vec![0, 900]
        } else {
            (0..=9).map(|k| k * 100).collect()
        };
        let mut served = Vec::new();
        let mut expired = Vec::new();
        for ms in polls {
            let now = t0 + ms * MS;
            up.handle_timeout(now);
            loop {
                if let Some(r) = up.poll_expired() {
                    expired.push(r.sequence.value());
                } else if let Some(r) = up.poll_ready(now) {
                    served.push(r.sequence.value());
                } else {
                    break;
                }
            }
            // What the last poll_ready took out on its way.
            while let Some(r) = up.poll_expired() {
                expired.push(r.sequence.value());
            }
        }
        assert_eq!(
            (&served, &expired),
            (&vec![1, 2, 3, 4], &vec![5, 6, 7, 8]),
            "late: {late}"
        );
        assert_eq!(expired, [5, 6, 7, 8], "late: {late}");
        assert!(up.is_empty());
        assert_eq!(up.stats().expired, 4);
    }
}

/// A caller that polls late must not let a request that arrived after the service model was
/// free jump ahead of an older one of lower priority: at the instant service was available,
/// only the older one was there.
#[test]
fn late_polls_serve_what_had_arrived_when_service_was_free() {
    let t0 = base();
    let mut up = admission(config().with_service_rate(Some(1000.0)), t0);
    let _ = up.offer(modification(1, 8), t0);
    assert_eq!(up.poll_ready(t0).unwrap().sequence.value(), 1);
    // Service is free again at t0 + 1 ms; the caller next polls at t0 + 5 ms, when a
    // low-priority request from t0 + 0.5 ms and a high-priority one from t0 + 3 ms wait.
    let _ = up.offer(modification(2, 12), t0 + MS / 2);
    let _ = up.offer(modification(3, 1), t0 + 3 * MS);
    let now = t0 + 5 * MS;
    let order: Vec<u32> = std::iter::from_fn(|| up.poll_ready(now))
        .map(|r| r.sequence.value())
        .collect();
    // 2 from 1 ms (its own arrival was earlier), 3 from 3 ms (its arrival): no idle gap.
    assert_eq!(order, [2, 3]);
    // Free since 4 ms: a request offered now is served now, and the next one a service later.
    let _ = up.offer(modification(4, 8), now);
    let _ = up.offer(modification(5, 8), now);
    assert_eq!(up.poll_ready(now).unwrap().sequence.value(), 4);
    assert!(up.poll_ready(now).is_none());
    assert_eq!(up.poll_ready(now + MS).unwrap().sequence.value(), 5);
}

/// Emulates a CP that applies the published metric (one interval late) to an offered load of
/// `factor` x capacity; returns the metric at the end of each interval.
fn drive(up: &mut UpAdmission, t0: Instant, from: u32, to: u32, factor: u64) -> Vec<u8> {
    let mut seq = 0;
    let mut credit = 0u64;
    let mut metrics = Vec::new();
    for interval in from..to {
        let m = u64::from(up.overload_metric());
        for ms in 0..100u32 {
            let now = t0 + (interval * 100 + ms) * MS;
            // `factor` requests per ms offered, `m` % of them shed by the CP.
            for _ in 0..factor {
                credit += m;
                if credit >= 100 {
                    credit -= 100;
                    continue;
                }
                seq += 1;
                let _ = up.offer(modification(seq, 8), now);
            }
            while up.poll_ready(now).is_some() {}
        }
        let end = t0 + (interval + 1) * 100 * MS;
        up.handle_timeout(end);
        // The next response to the CP carries the new OCI, as the node piggybacks it: the
        // reporter then knows which metric the CP's next arrivals were shed with.
        let _ = up.oci_for(
            &cp_node(),
            MessageType::SESSION_MODIFICATION_RESPONSE,
            Some(Cause::REQUEST_ACCEPTED),
            end,
        );
        metrics.push(up.overload_metric());
    }
    metrics
}

#[test]
fn reporter_sees_the_measurements() {
    let t0 = base();
    // 1000 requests/s = 100 per 100 ms interval; offered 3 per ms = 3x. The target stays
    // at the configured 1.2 (`tests/surplus.rs` has the paced arrivals lower it).
    let mut up = admission(
        config()
            .with_service_rate(Some(1000.0))
            .with_queue_capacity(200)
            .with_adapt_target_load(false),
        t0,
    );
    up.set_peer_support(cp_node(), true, true);
    assert_eq!(up.poll_timeout(), Some(t0 + 100 * MS));
    let overload = drive(&mut up, t0, 0, 30, 3);
    let peak = *overload.iter().max().unwrap();
    assert!(peak >= 60, "metric under 3x load: {overload:?}");
    // Settles at the cut that brings 3x down to the default target load of 1.2 times the
    // capacity (1 - 1.2/3 = 60 %): the requests the bounded wait keeps queued are its
    // operating level, not a backlog to drain (before, 61 throughout).
    let last = *overload.last().unwrap();
    assert!((59..=61).contains(&last), "{overload:?}");
    // No oscillation once settled: every metric of the last second within 2 points.
    let settled = &overload[20..];
    let (lo, hi) = (settled.iter().min().unwrap(), settled.iter().max().unwrap());
    assert!(hi - lo <= 2, "{overload:?}");
    assert!(up.load_metric().unwrap() >= 90);
    // The OCI the CP was last given says so.
    let oci = up
        .reporter()
        .current_oci(up.config().reporter.node_scoped)
        .unwrap();
    assert_eq!(oci.metric.percent(), last);
    // The admission measures the whole node: its OCI is node-scoped by default.
    assert!(oci.aoci());
    // Load gone: back to 0.
    let calm = drive(&mut up, t0, 30, 60, 0);
    assert_eq!(*calm.last().unwrap(), 0, "{calm:?}");
    assert!(up.load_metric().unwrap() <= 5);
    assert_eq!(up.stats().offered, up.stats().queued + up.stats().rejected);
}

#[test]
fn the_wait_bound_is_the_queues_operating_level_not_a_backlog_to_drain() {
    let t0 = base();
    // 1000 requests/s and the default 15 ms bound: 15 requests may wait.
    let up = admission(config().with_service_rate(Some(1000.0)), t0);
    assert_eq!(up.reporter().config().backlog_target, 15.0);
    let bound = |ms| {
        config()
            .with_service_rate(Some(2000.0))
            .with_max_wait(Some(Duration::from_millis(ms)))
    };
    assert_eq!(
        admission(bound(10), t0).reporter().config().backlog_target,
        20.0
    );
    // A larger configured target is kept.
    let reporter = AdmissionConfig::default_reporter().with_backlog_target(50.0);
    let up = admission(bound(10).with_reporter(reporter), t0);
    assert_eq!(up.reporter().config().backlog_target, 50.0);
    // Without a wait bound, or without a known capacity, the configured one (0).
    let unbounded = config().with_service_rate(Some(1000.0)).with_max_wait(None);
    assert_eq!(
        admission(unbounded, t0).reporter().config().backlog_target,
        0.0
    );
    assert_eq!(
        admission(config(), t0).reporter().config().backlog_target,
        0.0
    );
}

#[test]
fn intervals_close_at_the_next_call_even_if_handle_timeout_is_late() {
    let t0 = base();
    let mut up = admission(config().with_service_rate(Some(1000.0)), t0);
    // 300 arrivals in the first interval, none served: a 3x measurement at once.
    for seq in 0..300 {
        let _ = up.offer(modification(seq, 8), t0 + MS);
    }
    // No handle_timeout: the next offer, in the second interval, closes the first.
    let _ = up.offer(modification(300, 8), t0 + 150 * MS);
    assert!(up.overload_metric() > 0);
}

fn overloaded(t0: Instant) -> UpAdmission {
    let mut up = admission(
        config()
            .with_service_rate(Some(1000.0))
            .with_queue_capacity(10)
            // The queue stays full until the request offered 100 ms later.
            .with_max_wait(None),
        t0,
    );
    up.set_peer_features(
        cp_node(),
        &CpFunctionFeatures::empty()
            .with(CpFunctionFeatures::OVRL)
            .with(CpFunctionFeatures::LOAD),
    );
    // Priority 2: higher than the establishment request offered later.
    for seq in 0..300 {
        let _ = up.offer(modification(seq, 2), t0 + MS);
        while up.poll_ready(t0 + MS).is_some() {}
    }
    up.handle_timeout(t0 + 100 * MS);
    assert!(up.overload_metric() > 0);
    up
}

#[test]
fn rejection_of_establishment_carries_node_id_cause_74_and_aoci() {
    let t0 = base();
    let mut up = overloaded(t0);
    let now = t0 + 101 * MS;
    let ser = up
        .request_from(cp_addr(), Bytes::from_static(&SER), Some(cp_node()))
        .unwrap();
    let (request, cause) = match up.offer(ser, now) {
        Admit::Rejected { request, cause } => (request, cause),
        other => panic!("queue is full of equal priorities: {other:?}"),
    };
    let peer = request.peer_key();
    let rsp = MessageType::SESSION_ESTABLISHMENT_RESPONSE;
    let oci = up.oci_for(&peer, rsp, Some(cause), now);
    let lci = up.lci_for(&peer, rsp);
    assert!(oci.is_some() && lci.is_some());
    let bytes = up.build_rejection(&request, oci, lci).unwrap();
    let msg = Message::decode(&bytes).unwrap();
    msg.validate().unwrap();
    let h = msg.header();
    assert_eq!(h.message_type, rsp);
    assert_eq!(h.sequence.value(), 2);
    assert_eq!(h.seid, Some(1), "the CP F-SEID's SEID");
    assert_eq!(h.priority, Some(prio(5)));
    assert_eq!(
        msg.node_id().unwrap(),
        Some(NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)))
    );
    assert_eq!(msg.cause().unwrap(), Some(Cause::PFCP_ENTITY_IN_CONGESTION));
    let got = msg.overload_control_information().unwrap().unwrap();
    assert!(
        got.aoci(),
        "clause 8.2.76: AOCI on a rejected establishment"
    );
    // One peer: the level of the 3-point grid nearest the law's metric.
    assert_eq!(Some(got.metric.percent()), up.reporter().metric_for(&peer));
    assert_eq!(got.metric.percent() % 3, 0);
    assert!(got.metric.percent().abs_diff(up.overload_metric()) <= 1);
    assert_eq!(
        msg.load_control_information().unwrap().unwrap(),
        lci.unwrap()
    );
    msg.check_typed_ies().unwrap();
}

/// The worked Session Establishment Response of digest section 1.6, with LCI before OCI as
/// in Table 7.5.3.1-1.
#[test]
fn rejection_matches_the_digest_vector() {
    let t0 = base();
    let up = admission(config(), t0);
    let mut req = up
        .request_from(cp_addr(), Bytes::from_static(&SER), None)
        .unwrap();
    req.sequence = SequenceNumber::new(0x102).unwrap();
    let mut ser = SER;
    ser[12..16].copy_from_slice(&[0x00, 0x01, 0x02, 0x30]);
    req.bytes = Bytes::copy_from_slice(&ser);
    let oci = OverloadControlInformation {
        sequence_number: ControlSequenceNumber(5),
        metric: Metric::new(30).unwrap(),
        period_of_validity: Timer(0x22),
        flags: Some(OciFlags::AOCI),
    };
    let lci = LoadControlInformation {
        sequence_number: ControlSequenceNumber(7),
        metric: Metric::new(55).unwrap(),
    };
    let bytes = up.build_rejection(&req, Some(oci), Some(lci)).unwrap();
    #[rustfmt::skip]
    let expected: &[u8] = &[
        0x23, 0x33, 0x00, 0x46, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0x01, 0x02, 0x30,
        0x00, 0x3c, 0x00, 0x05, 0x00, 0xc0, 0x00, 0x02, 0x01,
        0x00, 0x13, 0x00, 0x01, 0x4a,
        0x00, 0x33, 0x00, 0x0d,
        0x00, 0x34, 0x00, 0x04, 0x00, 0x00, 0x00, 0x07,
        0x00, 0x35, 0x00, 0x01, 0x37,
        0x00, 0x36, 0x00, 0x17,
        0x00, 0x34, 0x00, 0x04, 0x00, 0x00, 0x00, 0x05,
        0x00, 0x35, 0x00, 0x01, 0x1e,
        0x00, 0x37, 0x00, 0x01, 0x22,
        0x00, 0x6e, 0x00, 0x01, 0x01,
    ];
    assert_eq!(&bytes[..], expected);
}

#[test]
fn rejection_response_types_and_headers() {
    let t0 = base();
    let up = admission(config().with_queue_capacity(0), t0);
    let cases = [
        (MessageType::SESSION_MODIFICATION_REQUEST, true, false),
        (MessageType::SESSION_DELETION_REQUEST, true, false),
        (MessageType::SESSION_SET_DELETION_REQUEST, false, true),
        (MessageType::PFD_MANAGEMENT_REQUEST, false, false),
        (MessageType::SESSION_ESTABLISHMENT_REQUEST, true, true),
    ];
    for (t, session, node_id) in cases {
        let req = request(t, 42, Some(6));
        let bytes = up.build_rejection(&req, None, None).unwrap();
        let msg = Message::decode(&bytes).unwrap();
        msg.validate().unwrap();
        assert_eq!(Some(msg.message_type()), t.response_type());
        assert_eq!(msg.header().sequence.value(), 42);
        assert_eq!(msg.cause().unwrap(), Some(Cause::PFCP_ENTITY_IN_CONGESTION));
        assert_eq!(msg.node_id().unwrap().is_some(), node_id, "{t}");
        if session {
            // No CP F-SEID known: SEID 0 (clause 7.2.2.4.2); the request's priority.
            assert_eq!(msg.header().seid, Some(0), "{t}");
            assert_eq!(msg.header().priority, Some(prio(6)), "{t}");
        } else {
            assert_eq!(msg.header().seid, None, "{t}");
            assert_eq!(msg.header().priority, None, "{t}");
        }
    }
    // The CP's SEID from the session context; no MP on the request: none on the response.
    let req = request(MessageType::SESSION_MODIFICATION_REQUEST, 5, None);
    let bytes = up.build_rejection_to(&req, Some(0x77), None, None).unwrap();
    let msg = Message::decode(&bytes).unwrap();
    assert_eq!(msg.header().seid, Some(0x77));
    assert_eq!(msg.header().priority, None);
    // An OCI passed for a type that cannot carry it is left out.
    let oci = OverloadControlInformation {
        sequence_number: ControlSequenceNumber(1),
        metric: Metric::new(10).unwrap(),
        period_of_validity: Timer::INFINITE,
        flags: None,
    };
    let req = request(MessageType::PFD_MANAGEMENT_REQUEST, 5, None);
    let bytes = up.build_rejection(&req, Some(oci), None).unwrap();
    let msg = Message::decode(&bytes).unwrap();
    assert!(msg.overload_control_information().unwrap().is_none());
    // Responses have no response.
    let rsp = request(MessageType::SESSION_REPORT_RESPONSE, 5, None);
    assert_eq!(
        up.build_rejection(&rsp, None, None),
        Err(RejectionError::NotARequest(
            MessageType::SESSION_REPORT_RESPONSE
        ))
    );
}

#[test]
fn fqdn_node_id_in_rejection() {
    let t0 = base();
    let up = admission(AdmissionConfig::new(NodeKey::fqdn("upf1.example.net")), t0);
    let req = up
        .request_from(cp_addr(), Bytes::from_static(&SER), None)
        .unwrap();
    let bytes = up.build_rejection(&req, None, None).unwrap();
    let msg = Message::decode(&bytes).unwrap();
    msg.validate().unwrap();
    let id = msg.node_id().unwrap().unwrap();
    assert_eq!(
        NodeKey::from_node_id(&id),
        NodeKey::fqdn("upf1.example.net")
    );
}

#[test]
fn invalid_configurations_are_refused() {
    let t0 = base();
    for rate in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            UpAdmission::new(config().with_service_rate(Some(rate)), t0),
            Err(AdmissionConfigError::ServiceRate(_))
        ));
    }
    assert!(matches!(
        UpAdmission::new(config().with_load_smoothing(0.0), t0),
        Err(AdmissionConfigError::LoadSmoothing(_))
    ));
    assert!(matches!(
        UpAdmission::new(
            config().with_reporter(ReporterConfig::feed_forward().with_interval(Duration::ZERO)),
            t0
        ),
        Err(AdmissionConfigError::Interval)
    ));
    assert!(matches!(
        UpAdmission::new(AdmissionConfig::new(NodeKey::Fqdn("a..b".into())), t0),
        Err(AdmissionConfigError::NodeId(_))
    ));
    // The reporter's own ranges: a metric above 100 reads as 0 % at the CP (8.2.34).
    let mut reporter = ReporterConfig::default();
    reporter.max_metric = 101;
    assert!(matches!(
        UpAdmission::new(config().with_reporter(reporter), t0),
        Err(AdmissionConfigError::Reporter(
            pfcp_overload::ReporterConfigError::MaxMetric(101)
        ))
    ));
}

#[test]
fn oci_only_to_peers_with_ovrl() {
    let t0 = base();
    let mut up = overloaded(t0);
    let other = NodeKey::fqdn("smf2.example.net");
    up.set_peer_support(other.clone(), false, false);
    let rsp = MessageType::SESSION_DELETION_RESPONSE;
    let now = t0 + 101 * MS;
    assert!(up
        .oci_for(&other, rsp, Some(Cause::REQUEST_ACCEPTED), now)
        .is_none());
    assert!(up.lci_for(&other, rsp).is_none());
    // Heartbeat responses never carry them.
    assert!(up
        .oci_for(&cp_node(), MessageType::HEARTBEAT_RESPONSE, None, now)
        .is_none());
    up.remove_peer(&cp_node());
    assert!(up
        .oci_for(&cp_node(), rsp, Some(Cause::REQUEST_ACCEPTED), now)
        .is_none());
}

#[test]
fn own_load_measure_replaces_the_service_utilisation() {
    let t0 = base();
    let mut up = admission(config().with_service_rate(Some(1000.0)), t0);
    up.set_peer_support(cp_node(), false, true);
    up.report_utilisation(0.42);
    assert_eq!(up.load_metric(), Some(42));
    // Idle intervals no longer pull it to 0.
    up.handle_timeout(t0 + Duration::from_secs(1));
    assert_eq!(up.load_metric(), Some(42));
    let lci = up
        .lci_for(&cp_node(), MessageType::SESSION_DELETION_RESPONSE)
        .unwrap();
    assert_eq!(lci.metric.percent(), 42);
}

mod order;
mod surplus;
mod top_priority;
