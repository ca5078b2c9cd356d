//! Property tests of the sending end of overload control (TS 29.244 clause 6.2.4): the UP-side
//! `OverloadReporter` under random measurements, time advances, `oci_for` and
//! `oci_for_refusal` calls, restarts of its count and peer changes (`support::up::run_up`),
//! checked after every event against the test's own record of what each scope of each peer
//! was sent: the published metric moves by at least the step; a scope gets a new number only
//! with a change of at least the grid's step or when its validity is due for extension, and
//! that number is serially newer; every emitted OCI round-trips and goes only to OVRL peers on
//! messages 51/53/55/56 as the inclusion policy says; and, end to end through each peer's
//! `OverloadTable`, reporter and receiver agree and a lowered metric reaches every scope.

mod support;

use std::time::{Duration, Instant};

use pfcp_overload::{IgnoreReason, InclusionPolicy, OciOutcome, Scope};
use pfcp_wire::ie::Timer;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use support::rx::lapsed;
use support::up::{rejected_establishment, run_up, up_case, up_case_adaptive, Held, UpOp, UpStep};
use support::{oci_round_trip, run, Coverage, ModelOrder};

// ------------------------------------------------------------------------------------------
// Sending end: properties
// ------------------------------------------------------------------------------------------

/// Every published metric of the feed-forward law is a multiple of the step and at most
/// `max_metric`; consecutive distinct published values differ by at least the step; only a
/// measurement changes it, and `handle_measurement` says so exactly when it does.
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

/// When the validity of what a scope holds is due for extension: `refresh_before` ahead of
/// its end (halfway through when that leaves nothing), halfway through for a provisional OCI.
fn refresh_due(s: &UpStep<'_>, h: &Held) -> Option<Instant> {
    h.validity?;
    let lead = if h.provisional {
        // The provisional validity as the Timer encodes it.
        h.validity? / 2
    } else {
        // The configured validity (the Timer may round it up: the refresh comes early).
        let validity = s.cfg.validity;
        match validity.saturating_sub(s.cfg.refresh_before) {
            Duration::ZERO => validity / 2,
            lead => lead,
        }
    };
    h.at.checked_add(lead)
}

/// The reporter's numbers only move forward (serially; a restart excepted), and a scope of a
/// peer gets a new number only with new content or to extend its validity (clause
/// 6.2.4.3.2.1): its metric changed by at least the grid's step (6.2.4.3.2.3: never 1 or 2
/// points under the default law), or its refresh was due, or the provisional OCI was issued
/// again (its metric rose, or half its validity passed since it was issued). Every metric told
/// lies on the grid, at most `max_told`.
fn check_numbers(s: &UpStep<'_>) -> Result<(), TestCaseError> {
    if !matches!(s.op, UpOp::Restart) && s.after.seq != s.before.seq {
        let order = ModelOrder::of(s.before.seq, s.after.seq, 0);
        prop_assert!(
            matches!(order, ModelOrder::Newer { .. }),
            "{} -> {}",
            s.before.seq,
            s.after.seq
        );
        if let ModelOrder::Newer { wrapped: true } = order {
            s.cov.hit("numbers wrapped");
        }
    }
    // The provisional OCI is issued again with an unchanged or lower metric only once half
    // its validity has passed.
    if let (Some((bm, bs, issued)), Some((am, as_, _))) =
        (s.before.provisional, s.after.provisional)
    {
        if as_ != bs && am > 0 && am <= bm {
            let pv = Duration::from_secs(s.case.provisional_validity_s);
            prop_assert!(s.now >= issued + pv / 2, "provisional issued again early");
            s.cov.hit("provisional issued again");
        }
    }
    let Some(e) = s.emitted else {
        return Ok(());
    };
    let Some(oci) = e.oci else {
        return Ok(());
    };
    let step = s.cfg.metric_step();
    let metric = oci.metric.percent();
    prop_assert_eq!(metric % step, 0, "{} off the grid of {}", metric, step);
    prop_assert!(
        metric <= s.cfg.max_told(),
        "{} above {}",
        metric,
        s.cfg.max_told()
    );
    let Some(p) = s.shadow.get(&e.peer) else {
        return Ok(());
    };
    let key = (oci.aoci(), oci.sequence_number.0);
    if p.sent.contains(&key) {
        return Ok(());
    }
    let Some(h) = p.held[usize::from(oci.aoci())] else {
        s.cov.hit("first news to a scope");
        return Ok(());
    };
    prop_assert!(
        matches!(
            ModelOrder::of(h.seq, oci.sequence_number.0, 0),
            ModelOrder::Newer { .. }
        ),
        "scope holds {}, sent {}",
        h.seq,
        oci.sequence_number.0
    );
    if metric != h.metric {
        prop_assert!(
            metric.abs_diff(h.metric) >= step,
            "{} -> {} with a grid of {}",
            h.metric,
            metric,
            step
        );
        s.cov.hit(if step >= 3 {
            "changed by a grid step"
        } else {
            "changed on a fine grid"
        });
        return Ok(());
    }
    let reissued = s
        .after
        .provisional
        .is_some_and(|(_, seq, _)| seq == oci.sequence_number.0 && seq != h.seq);
    let due = refresh_due(s, &h).is_some_and(|t| s.now >= t);
    prop_assert!(
        due || reissued,
        "new number {} for unchanged {} % at {:?} after {:?}",
        oci.sequence_number.0,
        metric,
        s.now.duration_since(h.at),
        h
    );
    s.cov.hit(if due {
        "refresh"
    } else {
        "provisional refreshed"
    });
    Ok(())
}

#[test]
fn a_peer_gets_a_new_number_only_with_new_content_or_a_refresh() {
    let cov = Coverage::default();
    let cases = run(prop_oneof![up_case(), up_case_adaptive()], |case| {
        run_up(&case, &cov, &check_numbers)
    });
    cov.require(
        cases,
        &[
            "first news to a scope",
            "changed by a grid step",
            "changed on a fine grid",
            "refresh",
            "numbers wrapped",
        ],
    );
}

/// Every OCI the reporter emits encodes and decodes back equal, says what the reporter means
/// (the law's level for the peer or the provisional metric, the configured validity), goes
/// only to a registered OVRL peer, only on message types 51/53/55/56, on the messages the
/// inclusion policy picks, with AOCI where the spec requires it, metric 0 only to a scope that
/// holds a reduction, and never twice with the same number to one scope under
/// `UntilCurrent` (but the provisional OCI in force, on every refusal). Conversely, under `UntilCurrent` a peer that lacks what the law asks of it
/// gets it on the next eligible message.
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
    let rejected_est = rejected_establishment(e.msg_type, e.cause);
    let policy = s.cfg.inclusion;
    let Some(oci) = e.oci else {
        if !e.msg_type.may_carry_oci() {
            s.cov.hit("ineligible message type");
        } else if peer.is_none() {
            s.cov.hit("unregistered peer");
        } else if !registered_ovrl {
            s.cov.hit("peer without OVRL");
        }
        // Liveness: a peer whose primary scope does not hold what the law asks gets it.
        let live = policy == InclusionPolicy::UntilCurrent
            && e.msg_type.may_carry_oci()
            && registered_ovrl
            && s.after.provisional.is_none()
            && s.before.provisional.is_none();
        if let (true, Some(p), Some(asked)) = (live, peer, s.reporter.metric_for(&e.peer)) {
            let node = s.cfg.node_scoped || rejected_est;
            let held =
                p.held[usize::from(node)].filter(|h| h.validity.is_none_or(|v| s.now < h.at + v));
            match held {
                None => prop_assert_eq!(asked, 0, "peer {} not told {}", e.peer, asked),
                Some(h) => {
                    prop_assert_eq!(h.metric, asked, "peer {} holds a stale metric", e.peer);
                    prop_assert!(
                        asked == 0 || refresh_due(s, &h).is_none_or(|t| s.now < t),
                        "peer {}'s refresh is due",
                        e.peer
                    );
                }
            }
            s.cov.hit("nothing owed");
        }
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
    let p = peer.cloned().unwrap_or_default();
    // The inclusion policy.
    match policy {
        InclusionPolicy::UntilCurrent | InclusionPolicy::EveryMessage => {}
        InclusionPolicy::Rejections => {
            prop_assert!(
                e.cause.is_some_and(|c| c.is_acceptance() == Some(false)),
                "an OCI on an accepting answer"
            );
            s.cov.hit("on a rejection");
        }
        InclusionPolicy::EveryNth(n) => {
            prop_assert_eq!(p.eligible % u64::from(n.max(1)), 0, "not an n-th message");
            s.cov.hit("every n-th");
        }
        InclusionPolicy::Periodic(period) => {
            prop_assert!(
                p.last_included.is_none_or(|t| s.now >= t + period),
                "two OCIs within {:?}",
                period
            );
            s.cov.hit("periodic");
        }
        _ => prop_assert!(false, "an OCI under {:?}", policy),
    }
    let told = back.metric.percent();
    let key = (back.aoci(), back.sequence_number.0);
    if p.sent.contains(&key) {
        // A repeat: the very OCI the scope holds; under `UntilCurrent` only the provisional
        // OCI in force, on a refusal.
        let provisional_repeat = e.refusal
            && s.after
                .provisional
                .is_some_and(|(_, seq, _)| back.aoci() && seq == key.1);
        prop_assert!(
            policy != InclusionPolicy::UntilCurrent || provisional_repeat,
            "{:?} sent twice to peer {}",
            key,
            e.peer
        );
        let held = p.held[usize::from(back.aoci())];
        prop_assert!(
            held.is_some_and(|h| h.seq == key.1
                && h.metric == told
                && back.period_of_validity == h.timer),
            "a repeat of {:?} that the scope does not hold ({:?})",
            back,
            held
        );
        prop_assert!(told > 0, "a zero OCI repeated");
        s.cov.hit("repeated");
        return Ok(());
    }
    let provisional = s
        .after
        .provisional
        .is_some_and(|(m, seq, _)| back.aoci() && seq == back.sequence_number.0 && m == told);
    let pv = Duration::from_secs(s.case.provisional_validity_s);
    let validity = if provisional { pv } else { s.cfg.validity };
    prop_assert_eq!(
        back.period_of_validity,
        Timer::from_duration(validity).unwrap_or(Timer::INFINITE)
    );
    if provisional {
        s.cov.hit("provisional");
    } else if e.refusal && s.before.metric == 0 {
        // A refusal while the law has no metric carries only the provisional OCI, or the law's
        // state to a scope that holds something else.
        prop_assert!(told == 0 || s.after.provisional.is_none());
    } else {
        // The law's level for the peer.
        prop_assert_eq!(Some(told), s.reporter.metric_for(&e.peer));
        if told != 0 && told != s.reporter.metric() {
            s.cov.hit("dithered");
        }
    }
    let required_aoci = s.cfg.node_scoped || rejected_est || provisional;
    if required_aoci {
        prop_assert!(
            back.aoci(),
            "AOCI missing on {:?} {:?}",
            e.msg_type,
            e.cause
        );
        s.cov.hit("AOCI");
    } else if back.aoci() {
        // Only to bring a node scope the peer holds up to date.
        prop_assert!(
            p.held[1].is_some_and(|h| h.metric != told || p.sent.contains(&(true, h.seq))),
            "AOCI set on {:?} {:?} without need",
            e.msg_type,
            e.cause
        );
        s.cov.hit("node scope brought up to date");
    }
    let scope = p.held[usize::from(back.aoci())];
    if told == 0 {
        prop_assert!(
            scope.is_some_and(|h| h.metric > 0 && h.validity.is_none_or(|v| s.now < h.at + v)),
            "zero OCI to a scope of peer {} that holds no reduction",
            e.peer
        );
        s.cov.hit("zero emitted");
    }
    Ok(())
}

#[test]
fn every_emitted_oci_round_trips_and_only_ovrl_peers_get_one_as_the_policy_says() {
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
            "provisional",
            "on a rejection",
            "every n-th",
            "periodic",
            "repeated",
            "nothing owed",
        ],
    );
}

/// End to end: a CP's `OverloadTable` fed with every OCI the reporter sends it applies each
/// new one (a repeat of the current one is a duplicate), stores the metric sent, and once the
/// peer has received two messages that may carry an entity-scoped OCI since the last change
/// of what the UP asks of it (under `UntilCurrent` or `EveryMessage`, no provisional OCI in
/// force), it sheds no more than the UP asks: a lowered metric (or the end of the overload)
/// reaches every scope the peer was told about, including the node scope of a rejected
/// Session Establishment Response.
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
                prop_assert!(!sent_before, "a repeat was news to the CP");
                prop_assert_eq!(*metric, oci.metric.percent());
                prop_assert_eq!(cp.get(scope).map(|e| e.metric), Some(*metric));
                prop_assert_eq!(matches!(scope, Scope::Node(_)), oci.aoci());
            }
            Some(OciOutcome::Ignored {
                reason: IgnoreReason::Duplicate,
                ..
            }) => {
                prop_assert!(still_held, "the CP found a fresh OCI a duplicate");
                prop_assert!(
                    s.cfg.inclusion != InclusionPolicy::UntilCurrent || e.refusal,
                    "a repeat under UntilCurrent"
                );
                s.cov.hit("repeat is a duplicate");
            }
            other => prop_assert!(false, "the CP did not apply an OCI: {:?}", other),
        }
    }
    let settles = matches!(
        s.cfg.inclusion,
        InclusionPolicy::UntilCurrent | InclusionPolicy::EveryMessage
    ) && s.before.provisional.is_none()
        && s.after.provisional.is_none();
    if settles && s.entity_msgs >= 2 {
        let r = cp.reduction(Some(s.up_entity), s.up_node, s.now);
        let asked = s.reporter.metric_for(&e.peer).unwrap_or(0);
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
        &["repeat is a duplicate", "settled after a node-scoped OCI"],
    );
}
