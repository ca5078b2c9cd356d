//! Property tests of the sending end of overload control (TS 29.244 clause 6.2.4): the UP-side
//! `OverloadReporter` under random measurements, time advances, refreshes, `oci_for` calls and
//! peer changes (`support::up::run_up`), checked after every event: the published metric moves
//! by at least the step and never above `max_metric`, the sequence number changes exactly with
//! the published metric or a refresh, every emitted OCI round-trips and goes only to OVRL peers
//! on messages 51/53/55/56, and, end to end through each peer's `OverloadTable`, reporter and
//! receiver agree and a lowered metric reaches every scope.

mod support;

use pfcp_overload::sequence::{compare, DEFAULT_WRAP_WINDOW};
use pfcp_overload::{IgnoreReason, OciOutcome, Scope, SequenceMode};
use pfcp_wire::ie::Timer;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use support::rx::lapsed;
use support::up::{rejected_establishment, run_up, up_case, up_case_adaptive, UpOp, UpStep};
use support::{oci_round_trip, run, Coverage};

// ------------------------------------------------------------------------------------------
// Sending end: properties
// ------------------------------------------------------------------------------------------

/// Every published metric is a multiple of the step and at most `max_metric`; consecutive
/// distinct published values differ by at least the step; only a measurement changes it, and
/// `handle_measurement` says so exactly when it does.
fn check_steps(s: &UpStep<'_>) -> Result<(), TestCaseError> {
    let step = s.case.step.max(1);
    let (b, a) = (s.before.metric, s.after.metric);
    prop_assert_eq!(a % step, 0, "published {} with step {}", a, step);
    prop_assert!(
        a <= s.case.max_metric,
        "published {} above max {}",
        a,
        s.case.max_metric
    );
    if a != b {
        prop_assert!(a.abs_diff(b) >= step, "{} -> {} with step {}", b, a, step);
        s.cov.hit(if a > b { "raised" } else { "lowered" });
        if a == 0 {
            s.cov.hit("back to zero");
        }
    }
    match s.measured {
        Some(Some(v)) => {
            prop_assert_eq!(v, a);
            prop_assert_ne!(v, b, "handle_measurement reported a change that is none");
        }
        Some(None) => prop_assert_eq!(a, b, "a silent change"),
        None => prop_assert_eq!(a, b, "{:?} changed the metric", s.op),
    }
    Ok(())
}

#[test]
fn reporter_never_publishes_a_change_smaller_than_its_step_nor_above_max_metric() {
    let cov = Coverage::default();
    let cases = run(up_case(), |case| run_up(&case, &cov, &check_steps));
    cov.require(cases, &["raised", "lowered", "back to zero"]);
}

/// The sequence number of the published OCI changes exactly when the published metric
/// changes or a refresh is due and handled (by the timer or by building an OCI, which
/// refreshes first so no lapsed number goes out): +1 in Counter mode (strictly increasing, wrapping
/// only from `u32::MAX` to 0, which the receiver takes as a wrap), newer for the receiver in
/// EpochSeconds mode. The first OCI carries the configured start.
fn check_sequence_changes(s: &UpStep<'_>) -> Result<(), TestCaseError> {
    let (b, a) = (s.before, s.after);
    let refresh_due = matches!(
        s.op,
        UpOp::Timeout | UpOp::TimeoutAtDeadline | UpOp::OciFor { .. }
    ) && b.poll.is_some_and(|t| s.now >= t);
    prop_assert_eq!(
        a.poll.is_some(),
        a.metric > 0,
        "refresh timer without overload"
    );
    match (b.published_seq(), a.published_seq()) {
        (None, None) => prop_assert_eq!(b.seq, a.seq),
        (None, Some(first)) => {
            prop_assert!(
                matches!(s.measured, Some(Some(_))),
                "first OCI without a publication"
            );
            let expected = match s.cfg.sequence {
                SequenceMode::Counter(start) => start,
                SequenceMode::EpochSeconds { epoch, offset } => {
                    offset.wrapping_add(s.now.saturating_duration_since(epoch).as_secs() as u32)
                }
            };
            prop_assert_eq!(first, expected);
            s.cov.hit("first publication");
        }
        (Some(_), None) => prop_assert!(false, "the published OCI disappeared"),
        (Some(old), Some(new)) => {
            let content = a.metric != b.metric;
            prop_assert_eq!(
                old != new,
                content || refresh_due,
                "seq {} -> {}, metric {} -> {}, refresh due {}",
                old,
                new,
                b.metric,
                a.metric,
                refresh_due
            );
            if old != new {
                match s.cfg.sequence {
                    SequenceMode::Counter(_) => {
                        prop_assert_eq!(new, old.wrapping_add(1));
                        prop_assert!(new > old || (old == u32::MAX && new == 0));
                        if new < old {
                            s.cov.hit("counter wrapped");
                        }
                    }
                    SequenceMode::EpochSeconds { .. } => {
                        prop_assert!(
                            compare(old, new, DEFAULT_WRAP_WINDOW).is_newer(),
                            "{} -> {}",
                            old,
                            new
                        );
                        s.cov.hit("epoch sequence advanced");
                    }
                }
            }
            if refresh_due {
                prop_assert_eq!(a.metric, b.metric, "a refresh changed the metric");
                let lead = s.cfg.validity.saturating_sub(s.cfg.refresh_before);
                prop_assert_eq!(a.poll, Some(s.now + lead));
                s.cov.hit("refresh");
            }
        }
    }
    Ok(())
}

#[test]
fn reporter_sequence_number_changes_exactly_with_the_published_metric_or_a_refresh() {
    let cov = Coverage::default();
    let cases = run(up_case(), |case| {
        run_up(&case, &cov, &check_sequence_changes)
    });
    cov.require(
        cases,
        &[
            "first publication",
            "refresh",
            "counter wrapped",
            "epoch sequence advanced",
        ],
    );
}

/// Every OCI the reporter emits (`oci_for`, `current_oci`; feed-forward and dithered adaptive
/// laws) encodes and decodes back equal, says what the reporter means (metric within 0..=100
/// and what `metric_for` tells that peer, current sequence number, configured
/// validity, AOCI where the spec requires it), and goes only to a registered OVRL peer, only
/// on message types 51/53/55/56, never twice with the same number to one scope of a peer
/// under `UntilCurrent`, and with metric 0 only to a peer that was told a non-zero one.
/// Conversely, a peer that lacks the current non-zero OCI gets it on the next eligible message.
fn check_emitted(s: &UpStep<'_>) -> Result<(), TestCaseError> {
    for aoci in [false, true] {
        let current = s.reporter.current_oci(aoci);
        prop_assert_eq!(current.is_some(), s.after.published_seq().is_some());
        if let Some(oci) = current {
            prop_assert_eq!(oci_round_trip(&oci), oci);
            prop_assert_eq!(oci.aoci(), aoci);
        }
    }
    let Some(e) = s.emitted else {
        return Ok(());
    };
    let peer = s.shadow.get(&e.peer);
    let registered_ovrl = peer.is_some_and(|p| p.ovrl);
    let required_aoci = s.cfg.node_scoped || rejected_establishment(e.msg_type, e.cause);
    let Some(oci) = e.oci else {
        if !e.msg_type.may_carry_oci() {
            s.cov.hit("ineligible message type");
        } else if peer.is_none() {
            s.cov.hit("unregistered peer");
        } else if !registered_ovrl {
            s.cov.hit("peer without OVRL");
        }
        // Liveness: a peer missing the current non-zero OCI for the scope gets it.
        let missing = peer.is_some_and(|p| !p.sent.contains(&(required_aoci, s.after.seq)));
        let owed = e.msg_type.may_carry_oci()
            && registered_ovrl
            && s.after.published_seq().is_some()
            && s.after.metric > 0
            && missing;
        prop_assert!(!owed, "peer {} not sent the current OCI", e.peer);
        return Ok(());
    };
    s.cov.hit("emitted");
    prop_assert!(e.msg_type.may_carry_oci(), "OCI on {:?}", e.msg_type);
    prop_assert!(registered_ovrl, "OCI to peer {} without OVRL", e.peer);
    let back = oci_round_trip(&oci);
    prop_assert_eq!(back, oci);
    prop_assert_eq!(
        back.metric.raw(),
        back.metric.percent(),
        "metric {} reads as 0",
        back.metric.raw()
    );
    // The peer's own metric: the published one, or with the dithered adaptive law one of the
    // two whole metrics around what the law asked for, never 0 while overloaded.
    let told = back.metric.percent();
    prop_assert_eq!(Some(told), s.reporter.metric_for(&e.peer));
    prop_assert!(told.abs_diff(s.reporter.metric()) <= 1, "told {told}");
    prop_assert_eq!(told == 0, s.reporter.metric() == 0);
    if told != s.reporter.metric() {
        s.cov.hit("dithered");
    }
    prop_assert_eq!(back.sequence_number.0, s.reporter.sequence_number());
    prop_assert_eq!(
        back.period_of_validity,
        Timer::from_duration(s.cfg.validity).unwrap_or(Timer::INFINITE)
    );
    let p = peer.cloned().unwrap_or_default();
    if required_aoci {
        prop_assert!(
            back.aoci(),
            "AOCI missing on {:?} {:?}",
            e.msg_type,
            e.cause
        );
        s.cov.hit("AOCI");
    } else if back.aoci() {
        // Only to bring a node scope the peer was told about up to date, once the entity
        // scope has the current number.
        let seq = back.sequence_number.0;
        prop_assert!(
            p.sent.contains(&(false, seq)) && p.sent.iter().any(|k| k.0 && k.1 != seq),
            "AOCI set on {:?} {:?} without need",
            e.msg_type,
            e.cause
        );
        s.cov.hit("node scope brought up to date");
    }
    let key = (back.aoci(), back.sequence_number.0);
    if back.metric.percent() == 0 {
        prop_assert!(
            p.told_nonzero,
            "zero OCI to peer {} never told of an overload",
            e.peer
        );
        s.cov.hit("zero emitted");
    }
    if !s.case.every_message || back.metric.percent() == 0 {
        prop_assert!(
            !p.sent.contains(&key),
            "{:?} sent twice to peer {}",
            key,
            e.peer
        );
    }
    Ok(())
}

#[test]
fn every_emitted_oci_round_trips_and_only_ovrl_peers_get_one_on_messages_51_53_55_56() {
    let cov = Coverage::default();
    let cases = run(prop_oneof![up_case(), up_case_adaptive()], |case| {
        run_up(&case, &cov, &check_emitted)
    });
    cov.require(
        cases,
        &[
            "emitted",
            "zero emitted",
            "AOCI",
            "node scope brought up to date",
            "ineligible message type",
            "unregistered peer",
            "peer without OVRL",
            "dithered",
        ],
    );
}

/// End to end (feed-forward and dithered adaptive laws): a CP's `OverloadTable` fed with every
/// OCI the reporter sends it applies each one (a re-send of the current one under `EveryMessage` is a duplicate), stores the metric
/// sent, and once the peer has received two messages that may carry an entity-scoped OCI
/// since the last change, it sheds no more than the UP currently asks for: a lowered metric
/// (or the end of the overload) reaches every scope the peer was told about, including the
/// node scope of a rejected Session Establishment Response.
fn check_end_to_end(s: &UpStep<'_>) -> Result<(), TestCaseError> {
    let Some(e) = s.emitted else {
        return Ok(());
    };
    let cp = &s.cps[e.peer];
    if let Some(oci) = e.oci {
        let sent_before = s
            .shadow
            .get(&e.peer)
            .is_some_and(|p| p.sent.contains(&(oci.aoci(), oci.sequence_number.0)));
        // The CP still holds this very OCI only if it was sent before and has not lapsed
        // (a re-send under `EveryMessage`); anything else the reporter sends is news to it.
        let still_held = e.cp_before.is_some_and(|b| {
            b.sequence_number == oci.sequence_number.0 && !lapsed(b.expires, s.now)
        });
        prop_assert!(
            !still_held || sent_before,
            "the CP holds a number never sent"
        );
        match &e.cp_outcome {
            Some(OciOutcome::Applied { scope, metric, .. }) => {
                prop_assert!(!still_held, "a duplicate was applied");
                prop_assert_eq!(*metric, oci.metric.percent());
                prop_assert_eq!(cp.get(scope).map(|e| e.metric), Some(*metric));
                prop_assert_eq!(matches!(scope, Scope::Node(_)), oci.aoci());
                if sent_before {
                    s.cov.hit("re-sent after the CP's entry lapsed");
                }
            }
            Some(OciOutcome::Ignored {
                reason: IgnoreReason::Duplicate,
                ..
            }) => {
                prop_assert!(still_held, "the CP found a fresh OCI a duplicate");
                prop_assert!(s.case.every_message, "a re-send under UntilCurrent");
                s.cov.hit("re-sent under EveryMessage");
            }
            other => prop_assert!(false, "the CP did not apply an OCI: {:?}", other),
        }
    }
    if s.entity_msgs >= 2 {
        let r = cp.reduction(Some(s.up_entity), s.up_node, s.now);
        // What the UP asks of this peer (dithered: the published metric or the one next to it).
        let asked = s
            .reporter
            .metric_for(&e.peer)
            .unwrap_or(s.reporter.metric());
        prop_assert!(
            r <= asked,
            "peer {} sheds {} % while the UP asks for {} %",
            e.peer,
            r,
            asked
        );
        if s.shadow
            .get(&e.peer)
            .is_some_and(|p| p.sent.iter().any(|(aoci, _)| *aoci))
        {
            s.cov.hit("settled after a node-scoped OCI");
        }
    }
    Ok(())
}

#[test]
fn reporter_and_receiver_agree_and_a_lowered_metric_reaches_every_scope() {
    let cov = Coverage::default();
    let cases = run(prop_oneof![up_case(), up_case_adaptive()], |case| {
        run_up(&case, &cov, &check_end_to_end)
    });
    cov.require(
        cases,
        &[
            "re-sent under EveryMessage",
            "settled after a node-scoped OCI",
        ],
    );
}
