//! The overflow metric and the reporter's provisional OCI: refusals before the reporter has a
//! metric (TS 29.244 clauses 6.2.4.3, 8.2.76), the hand-over to the reporter's law, and the CP
//! function's view of the numbers.

use std::collections::HashSet;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use pfcp_overload::{OciOrigin, OciOutcome, OverloadConfig, OverloadTable, ReporterConfigError};

use bytes::Bytes;
use pfcp_overload::NodeKey;
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::OverloadControlInformation;
use pfcp_wire::{Cause, Header, Message, MessagePriority, MessageType, SequenceNumber};

use super::super::{AdmissionConfig, AdmissionConfigError, Admit, QueuedRequest, UpAdmission};
use super::*;

#[allow(clippy::disallowed_methods)] // Tests need an arbitrary base instant; the module never reads the clock.
fn base() -> Instant {
    Instant::now()
}

const MS: Duration = Duration::from_millis(1);
/// The control interval these tests' timings are written for (the default until it became
/// 200 ms).
const INTERVAL: Duration = Duration::from_millis(100);
const REFUSED: Option<Cause> = Some(Cause::PFCP_ENTITY_IN_CONGESTION);
const ACCEPTED: Option<Cause> = Some(Cause::REQUEST_ACCEPTED);
const RSP: MessageType = MessageType::SESSION_MODIFICATION_RESPONSE;

fn cp_node() -> NodeKey {
    NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 10).into())
}

fn up_node() -> NodeKey {
    NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into())
}

/// A Session Modification Request with MP priority `p` (header only: enough for admission).
fn modification(seq: u32, p: u8) -> QueuedRequest {
    let sequence = SequenceNumber::new(seq).unwrap();
    let priority = MessagePriority::new(p).unwrap();
    let header = Header::new(MessageType::SESSION_MODIFICATION_REQUEST)
        .with_seid(0xAB)
        .with_sequence(sequence)
        .with_priority(priority);
    let b = MessageBuilder::new(header);
    let mut buf = vec![0u8; b.encoded_len()];
    b.encode_into(&mut buf).unwrap();
    QueuedRequest {
        peer: SocketAddr::from((Ipv4Addr::new(192, 0, 2, 10), 40_000)),
        sequence,
        message_type: MessageType::SESSION_MODIFICATION_REQUEST,
        priority,
        bytes: Bytes::from(buf),
        node: Some(cp_node()),
    }
}

/// A target load of 1 (the overflow metric is then the refused share) and no wait limit (the
/// requests queued stay for as long as a test runs).
fn share_config() -> AdmissionConfig {
    AdmissionConfig::new(up_node())
        .with_max_wait(None)
        .with_reporter(
            AdmissionConfig::default_reporter()
                .with_target_load(1.0)
                .with_interval(INTERVAL),
        )
}

fn admission(config: AdmissionConfig, now: Instant) -> UpAdmission {
    let mut up = UpAdmission::new(config, now).unwrap();
    up.set_peer_support(cp_node(), true, true);
    up
}

/// Offer one request at `now`; if it (or the request it evicted) is refused, the OCI that
/// `oci_for` hands out for the cause-74 response, checked to be in the encoded rejection.
fn offer(
    up: &mut UpAdmission,
    seq: u32,
    now: Instant,
) -> Option<Option<OverloadControlInformation>> {
    let refused = match up.offer(modification(seq, 8), now) {
        Admit::Queued { evicted } => evicted,
        Admit::Rejected { request, .. } => Some(request),
        Admit::Bypass(r) => panic!("modifications are admitted: {r:?}"),
    }?;
    let oci = up.oci_for(&refused.peer_key(), RSP, REFUSED, now);
    // The rejection carries it, and a decoder reads it back.
    let bytes = up.build_rejection(&refused, oci, None).unwrap();
    let msg = Message::decode(&bytes).unwrap();
    msg.validate().unwrap();
    assert_eq!(msg.overload_control_information().unwrap(), oci);
    Some(oci)
}

/// Offer `n` requests at `now` (sequence numbers from `from`) and return the OCI of every
/// refusal, each of which must carry one.
fn burst(up: &mut UpAdmission, from: u32, n: u32, now: Instant) -> Vec<OverloadControlInformation> {
    (from..from + n)
        .filter_map(|seq| offer(up, seq, now))
        .map(|oci| oci.expect("every refusal carries an OCI"))
        .collect()
}

#[test]
fn refusals_in_the_first_interval_carry_an_overflow_oci() {
    let t0 = base();
    let mut up = admission(
        AdmissionConfig::new(up_node())
            .with_service_rate(Some(1000.0))
            .with_queue_capacity(2),
        t0,
    );
    // 10 arrivals at once, room for 2: 8 refusals before any interval has closed.
    let ocis = burst(&mut up, 0, 10, t0 + MS);
    assert_eq!(up.overload_metric(), 0, "the reporter has no metric yet");
    assert_eq!(ocis.len(), 8);
    let metrics: Vec<u8> = ocis.iter().map(|o| o.metric.percent()).collect();
    // The cut that brings the offered requests to 1.2 times what the queue kept (the default
    // target load), rounded up to the reporter's 3-point grid: 1 - 1.2 x 2/3 = 20 %,
    // 1 - 1.2 x 2/4 = 40 %, ... 1 - 1.2 x 2/10 = 76 %.
    assert_eq!(metrics, [21, 42, 54, 60, 66, 72, 75, 78]);
    for (prev, o) in ocis.iter().zip(&ocis[1..]) {
        // A new number when the value rises, the same one when it does not.
        let newer = o.sequence_number.0 > prev.sequence_number.0;
        assert_eq!(
            newer,
            o.metric.percent() > prev.metric.percent(),
            "{ocis:?}"
        );
        assert!(o.sequence_number.0 >= prev.sequence_number.0);
    }
    for o in &ocis {
        assert!(o.aoci(), "node-scoped");
        assert_eq!(
            o.period_of_validity.duration(),
            Some(Duration::from_secs(2))
        );
    }
    // The reporter's own count: its first number, then one per rise.
    assert_eq!(ocis[0].sequence_number.0, 1);
    let last = ocis.last().unwrap();
    assert_eq!(last.sequence_number.0, up.reporter().sequence_number());
    let p = up.reporter().provisional(t0 + MS).unwrap();
    assert_eq!((p.metric, p.sequence_number), (78, last.sequence_number.0));
    assert_eq!(up.stats().provisional_oci_issued, 8);
}

#[test]
fn the_reporter_takes_over_with_newer_numbers_at_the_cp() {
    let t0 = base();
    let mut up = admission(
        share_config()
            .with_service_rate(Some(1000.0))
            .with_queue_capacity(200),
        t0,
    );
    let mut cp = OverloadTable::new(OverloadConfig::default());
    let origin = OciOrigin::new(up_node(), Some(Ipv4Addr::new(192, 0, 2, 1).into()));
    // 3x the capacity in the first interval, room for 200: each rise of the refused share
    // is news, up to a third (33.3 %, 36 on the grid).
    let ocis = burst(&mut up, 0, 300, t0 + MS);
    assert_eq!(up.stats().rejected, 100);
    assert_eq!(ocis.len(), 100);
    assert_eq!(ocis.last().map(|o| o.metric.percent()), Some(36));
    let mut applied = 0;
    for o in &ocis {
        if let OciOutcome::Applied { metric, .. } = cp.handle_oci(&origin, o, t0 + MS) {
            assert_eq!(metric, o.metric.percent());
            applied += 1;
        }
    }
    // Only the rises were new information.
    let distinct = ocis
        .iter()
        .map(|o| o.sequence_number.0)
        .collect::<HashSet<_>>()
        .len();
    assert_eq!(applied, distinct);
    let last = ocis.last().unwrap();
    assert_eq!(
        cp.reduction(None, &up_node(), t0 + MS),
        last.metric.percent()
    );
    // The interval closes: the reporter publishes a measured metric, which the next refusal
    // carries, with a newer number and its own validity, and which the CP function takes as
    // newer.
    let now = t0 + 100 * MS;
    up.handle_timeout(now);
    assert!(up.overload_metric() > 0);
    assert!(up.reporter().provisional(now).is_none());
    let reporter = (300..)
        .find_map(|seq| offer(&mut up, seq, now))
        .unwrap()
        .unwrap();
    // One peer: the level of the grid nearest the law's metric.
    assert_eq!(
        Some(reporter.metric.percent()),
        up.reporter().metric_for(&cp_node())
    );
    assert_eq!(
        reporter.period_of_validity.duration(),
        Some(Duration::from_secs(30))
    );
    assert!(reporter.sequence_number.0 > last.sequence_number.0);
    assert!(matches!(
        cp.handle_oci(&origin, &reporter, now),
        OciOutcome::Applied { .. }
    ));
    assert_eq!(
        cp.reduction(None, &up_node(), now),
        reporter.metric.percent(),
        "the measured metric replaced the overflow estimate"
    );
    // From here on the reporter's inclusion policy, unchanged: the peer has the current
    // number, so the next refusal needs none.
    let next = (500..).find_map(|seq| offer(&mut up, seq, now)).unwrap();
    assert_eq!(next, None);
}

#[test]
fn without_refusals_nothing_changes_on_the_wire() {
    let t0 = base();
    let mut up = admission(
        share_config()
            .with_service_rate(Some(1000.0))
            .with_queue_capacity(1000),
        t0,
    );
    // 3x in the first interval, all queued: no refusal, so no overflow OCI.
    for seq in 0..300 {
        assert_eq!(
            up.offer(modification(seq, 8), t0 + MS),
            Admit::Queued { evicted: None }
        );
    }
    let now = t0 + 100 * MS;
    up.handle_timeout(now);
    assert!(up.overload_metric() > 0);
    let oci = up.oci_for(&cp_node(), RSP, ACCEPTED, now).unwrap();
    // The law's first number (the count's start), its level for the peer.
    assert_eq!(oci.sequence_number.0, 1);
    let law = up.reporter().current_oci(true).unwrap();
    assert_eq!(oci.sequence_number, law.sequence_number);
    assert_eq!(
        Some(oci.metric.percent()),
        up.reporter().metric_for(&cp_node())
    );
    assert_eq!(up.stats().provisional_oci_issued, 0);
}

#[test]
fn only_peers_with_ovrl_and_only_types_that_carry_oci() {
    let t0 = base();
    let mut up = admission(share_config().with_queue_capacity(0), t0);
    let other = NodeKey::fqdn("smf2.example.net");
    up.set_peer_support(other.clone(), false, true);
    let now = t0 + MS;
    let _ = up.offer(modification(1, 8), now);
    assert!(up.oci_for(&other, RSP, REFUSED, now).is_none());
    let unknown = NodeKey::fqdn("smf3.example.net");
    assert!(up.oci_for(&unknown, RSP, REFUSED, now).is_none());
    // A PFD Management Response cannot carry an OCI (clause 7.4.3.2).
    let pfd = MessageType::PFD_MANAGEMENT_RESPONSE;
    assert!(up.oci_for(&cp_node(), pfd, REFUSED, now).is_none());
    assert!(up.oci_for(&cp_node(), RSP, REFUSED, now).is_some());
    up.remove_peer(&cp_node());
    assert!(up.oci_for(&cp_node(), RSP, REFUSED, now).is_none());
}

#[test]
fn refreshed_while_refusals_go_on_and_expires_when_they_stop() {
    let t0 = base();
    // No service rate and nothing dequeued: the reporter never learns a capacity, so its
    // metric stays 0 and only the overflow OCI speaks.
    let mut up = admission(share_config().with_queue_capacity(1), t0);
    let first = burst(&mut up, 0, 5, t0 + MS);
    assert_eq!(first.len(), 4);
    let a = *first.last().unwrap();
    assert_eq!(a.metric.percent(), 81); // 4 of 5, 80 % rounded up to the grid
                                        // Within half the validity (1 s), nothing new: the same OCI (say, for the same rejection
                                        // sent again), which a CP function that has it ignores without restarting its timer.
    assert_eq!(up.oci_for(&cp_node(), RSP, REFUSED, t0 + 900 * MS), Some(a));
    // More refusals raise it at once, with a new number.
    let raised = burst(&mut up, 5, 1, t0 + 950 * MS);
    assert_eq!(raised[0].metric.percent(), 84); // 5 of 6, 83.3 %
    assert!(raised[0].sequence_number.0 > a.sequence_number.0);
    // Still young 150 ms later.
    let young = up.oci_for(&cp_node(), RSP, REFUSED, t0 + 1100 * MS);
    assert_eq!(young, Some(raised[0]));
    // Past half its validity: re-derived, with a new number that extends the validity.
    let refreshed = up
        .oci_for(&cp_node(), RSP, REFUSED, t0 + 1960 * MS)
        .unwrap();
    assert!(refreshed.sequence_number.0 > raised[0].sequence_number.0);
    assert_eq!(refreshed.metric.percent(), 84);
    // No more refusals: past its validity it is not handed out any more.
    let late = t0 + 3960 * MS;
    assert!(up.oci_for(&cp_node(), RSP, ACCEPTED, late).is_none());
    assert_eq!(up.overload_metric(), 0);
}

#[test]
fn replaces_the_reporters_older_zero_while_in_force() {
    let t0 = base();
    let mut up = admission(
        share_config()
            .with_service_rate(Some(1000.0))
            .with_queue_capacity(10),
        t0,
    );
    // Overload in the first interval; the peer is told the measured metric.
    for seq in 0..300 {
        let _ = up.offer(modification(seq, 2), t0 + MS);
        while up.poll_ready(t0 + MS).is_some() {}
    }
    up.handle_timeout(t0 + 100 * MS);
    let told = up
        .oci_for(&cp_node(), RSP, ACCEPTED, t0 + 100 * MS)
        .unwrap();
    assert!(told.metric.percent() > 0);
    // Calm until the reporter publishes 0 (after its dwell); the peer is not told yet.
    let mut t = t0 + 100 * MS;
    while up.overload_metric() > 0 {
        t += 100 * MS;
        while up.poll_ready(t).is_some() {}
        up.handle_timeout(t);
        assert!(t < t0 + Duration::from_secs(5));
    }
    let zero_seq = up.reporter().sequence_number();
    // A sudden burst refused within the interval: the overflow OCI, newer than the zero.
    let overflow = burst(&mut up, 1000, 30, t + MS);
    let o = *overflow.last().unwrap();
    assert!(o.metric.percent() > 0);
    assert!(o.sequence_number.0 > zero_seq);
    // A normal response to the peer, which holds the provisional OCI: the law's older zero
    // does not go (it would end the CP function's reduction early), nor anything else.
    assert_eq!(up.oci_for(&cp_node(), RSP, ACCEPTED, t + 2 * MS), None);
    assert_eq!(
        up.reporter()
            .provisional(t + 2 * MS)
            .map(|p| p.sequence_number),
        Some(o.sequence_number.0)
    );
}

#[test]
fn metric_is_the_cut_to_the_target_rounded_up_to_a_step() {
    // Target load 1: the cut is the refused share.
    let c = ReporterConfig::feed_forward(); // step 5, max 95
    assert_eq!(overflow_metric(3, 1, &c), Some(35)); // 33.3 % -> 35
    assert_eq!(overflow_metric(10, 5, &c), Some(50));
    assert_eq!(overflow_metric(100, 1, &c), Some(5)); // at least one step
    assert_eq!(overflow_metric(10, 10, &c), Some(95)); // the reporter's ceiling
                                                       // Refusals of requests offered before the episode (expired from the queue): no cut.
    assert_eq!(overflow_metric(0, 3, &c), None);
    // A refusal admission did not count: one step.
    assert_eq!(overflow_metric(0, 0, &c), Some(5));
    assert_eq!(overflow_metric(7, 0, &c), Some(5));
    assert_eq!(overflow_metric(u64::MAX, u64::MAX, &c), Some(95));
    let c = ReporterConfig::feed_forward()
        .with_step(10)
        .with_max_metric(100);
    assert_eq!(overflow_metric(1000, 1, &c), Some(10));
    assert_eq!(overflow_metric(4, 3, &c), Some(80)); // 75 -> 80
    assert_eq!(overflow_metric(1, 1, &c), Some(100));
    let c = ReporterConfig::feed_forward()
        .with_step(0)
        .with_max_metric(200);
    assert_eq!(overflow_metric(3, 1, &c), Some(34)); // step 0 reads as 1; never above 100
    let c = ReporterConfig::feed_forward().with_max_metric(4); // below one step: never asks
    assert_eq!(overflow_metric(3, 1, &c), None);
    // The default law: its 3-point grid, at most its highest level (93 below 95).
    let c = ReporterConfig::default().with_target_load(1.0);
    assert_eq!(overflow_metric(3, 1, &c), Some(36)); // 33.3 % -> 36
    assert_eq!(overflow_metric(100, 1, &c), Some(3));
    assert_eq!(overflow_metric(10, 10, &c), Some(93));
    // Target load 1.2: a surplus of up to a fifth above the capacity is the queue's to shed.
    let c = ReporterConfig::feed_forward().with_target_load(1.2);
    assert_eq!(overflow_metric(120, 20, &c), None); // 1 - 1.2 x 100/120 = 0
    assert_eq!(overflow_metric(150, 30, &c), Some(5)); // 1 - 1.2 x 120/150 = 4 % -> 5
    assert_eq!(overflow_metric(1000, 900, &c), Some(90)); // 1 - 1.2 x 0.1 = 88 % -> 90
    assert_eq!(overflow_metric(200, 100, &c), Some(40)); // 1 - 1.2 x 0.5 = 40 %
    assert_eq!(overflow_metric(10, 10, &c), Some(95));
}

#[test]
fn invalid_validity_is_refused() {
    let t0 = base();
    let with = |v| {
        share_config().with_reporter(
            AdmissionConfig::default_reporter()
                .with_interval(INTERVAL)
                .with_provisional_validity(v),
        )
    };
    for v in [Duration::ZERO, Duration::from_secs(10 * 3600 * 40)] {
        assert!(matches!(
            UpAdmission::new(with(v), t0),
            Err(AdmissionConfigError::Reporter(
                ReporterConfigError::ProvisionalValidity(_)
            ))
        ));
    }
    // Rounded up to what the Timer IE encodes: 3 s -> 4 s (2 x 2 s).
    let mut up = admission(with(Duration::from_secs(3)).with_queue_capacity(0), t0);
    let oci = burst(&mut up, 0, 1, t0).pop().unwrap();
    assert_eq!(
        oci.period_of_validity.duration(),
        Some(Duration::from_secs(4))
    );
}

#[test]
fn epoch_numbers_start_from_the_epoch_clock_and_stay_below_the_reporters() {
    let epoch = base();
    let t0 = epoch + Duration::from_secs(1000);
    let sequence = pfcp_overload::SequenceMode::EpochSeconds { epoch, offset: 5 };
    let mut up = admission(
        share_config()
            .with_service_rate(Some(1000.0))
            .with_queue_capacity(10)
            .with_reporter(
                ReporterConfig::feed_forward()
                    .with_node_scoped(true)
                    .with_sequence(sequence)
                    .with_interval(INTERVAL),
            ),
        t0,
    );
    let ocis = burst(&mut up, 0, 300, t0 + MS);
    // From the epoch clock (5 + 1000 s), not from the count's unstarted number (5): newer
    // than what a previous run of this UP function sent before its restart.
    assert_eq!(ocis[0].sequence_number.0, 1005);
    assert!(ocis.iter().all(|o| o.sequence_number.0 >= 1005), "{ocis:?}");
    let last = ocis.last().unwrap().sequence_number.0;
    up.handle_timeout(t0 + 100 * MS);
    assert!(up.overload_metric() > 0);
    let reporter = (300..).find_map(|seq| offer(&mut up, seq, t0 + 100 * MS));
    let reporter = reporter.unwrap().unwrap();
    assert!(reporter.sequence_number.0 > last);
}

#[test]
fn an_episode_ends_at_the_cp_after_a_control_interval_without_refusals() {
    let t0 = base();
    // No service rate and nothing dequeued: the reporter's metric stays 0, and only the
    // overflow OCI speaks.
    let mut up = admission(share_config().with_queue_capacity(1), t0);
    let mut cp = OverloadTable::new(OverloadConfig::default());
    let origin = OciOrigin::new(up_node(), None);
    let refused = burst(&mut up, 0, 5, t0 + MS);
    let told = *refused.last().unwrap();
    assert_eq!(told.metric.percent(), 81);
    assert!(matches!(
        cp.handle_oci(&origin, &told, t0 + MS),
        OciOutcome::Applied { .. }
    ));
    assert_eq!(cp.reduction(None, &up_node(), t0 + MS), 81);
    // Within a control interval (100 ms) of the last refusal, an accepted request's response
    // says nothing: the surge may go on.
    assert_eq!(up.oci_for(&cp_node(), RSP, ACCEPTED, t0 + 60 * MS), None);
    // A whole interval without refusals: the end, node-scoped and newer, so the CP function
    // stops reducing now instead of when the 2 s validity runs out.
    let now = t0 + 101 * MS;
    let end = up.oci_for(&cp_node(), RSP, ACCEPTED, now).unwrap();
    assert_eq!(end.metric.percent(), 0);
    assert!(end.aoci());
    assert!(end.sequence_number.0 > told.sequence_number.0);
    assert!(matches!(
        cp.handle_oci(&origin, &end, now),
        OciOutcome::Applied { .. }
    ));
    assert_eq!(cp.reduction(None, &up_node(), now), 0);
    assert_eq!(up.stats().provisional_oci_ended, 1);
    // Told once.
    assert_eq!(up.oci_for(&cp_node(), RSP, ACCEPTED, now + MS), None);
    // A new surge gets a new overflow OCI, newer than the end.
    let again = burst(&mut up, 10, 3, now + 2 * MS);
    assert!(again[0].metric.percent() > 0);
    assert!(again[0].sequence_number.0 > end.sequence_number.0);
}

#[test]
fn the_end_is_not_sent_once_the_overflow_oci_has_expired() {
    let t0 = base();
    let mut up = admission(share_config().with_queue_capacity(1), t0);
    let refused = burst(&mut up, 0, 5, t0 + MS);
    assert!(refused.last().unwrap().metric.percent() > 0);
    // The CP function dropped it by itself after its validity (2 s).
    assert_eq!(
        up.oci_for(&cp_node(), RSP, ACCEPTED, t0 + MS + Duration::from_secs(2)),
        None
    );
}
