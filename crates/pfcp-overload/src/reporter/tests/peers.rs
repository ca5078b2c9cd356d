//! Unit tests of what each peer is told: the grid, the numbers, the provisional OCI, the
//! inclusion policies and a restarted count, one rule each.

use std::time::Duration;

use pfcp_wire::{Cause, MessageType};

use super::super::*;
use super::overloaded;
use crate::sequence::is_after;
use crate::{OciOrigin, OciOutcome, OverloadTable};

const MOD: MessageType = MessageType::SESSION_MODIFICATION_RESPONSE;
const EST: MessageType = MessageType::SESSION_ESTABLISHMENT_RESPONSE;

/// The default law on a UP function of 100 requests an interval.
fn adaptive() -> ReporterConfig {
    ReporterConfig::default().with_capacity(Some(100.0))
}

/// Clause 6.2.4.3.2.3: the law moves its share by small amounts, yet no peer is told a change
/// of 1 or 2 points; a peer whose level did not move gets nothing new.
#[test]
fn clause_6_2_4_3_2_3_no_peer_sees_a_change_of_1_or_2_points() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(adaptive());
    for p in 0..16 {
        r.set_peer_ovrl(p, true);
    }
    let mut told: Vec<Option<(u32, u8)>> = vec![None; 16];
    let mut news = 0;
    // Arrivals wandering around the target under a deep cut: the law's share moves a little
    // every interval.
    for (k, arrived) in [1000, 97, 120, 80, 110, 90, 125, 75, 100, 130, 70, 104]
        .into_iter()
        .enumerate()
    {
        let t = now + Duration::from_millis(200 * k as u64);
        r.handle_measurement(&overloaded(arrived), t);
        for p in 0..16u8 {
            let Some(oci) = r.oci_for(&p, MOD, None, t) else {
                continue;
            };
            let (seq, metric) = (oci.sequence_number.0, oci.metric.percent());
            assert_eq!(metric % 3, 0, "{metric} is off the grid");
            if let Some((old_seq, old)) = told[usize::from(p)] {
                assert!(is_after(seq, old_seq));
                assert!(metric.abs_diff(old) >= 3, "peer {p}: {old} -> {metric}");
                news += 1;
            }
            told[usize::from(p)] = Some((seq, metric));
        }
    }
    assert!(news > 0, "the law moved some peers");
}

/// Clause 6.2.4.3.2.1 end to end: each CP function holds what it was told and applies every
/// new number; the numbers a peer gets only grow, and each comes with a change of its metric.
#[test]
fn clause_6_2_4_3_2_1_every_number_a_peer_gets_is_news_to_its_cp() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(adaptive());
    let up = crate::NodeKey::fqdn("upf1.example.net");
    let mut cps: Vec<OverloadTable> = (0..8).map(|_| OverloadTable::default()).collect();
    for p in 0..8 {
        r.set_peer_ovrl(p, true);
    }
    let origin = OciOrigin::new(up.clone(), Some([192, 0, 2, 1].into()));
    let mut last: Vec<Option<u8>> = vec![None; 8];
    for (k, arrived) in [600, 120, 110, 130, 90, 60, 125, 118, 20, 20]
        .into_iter()
        .enumerate()
    {
        let t = now + Duration::from_millis(200 * k as u64);
        r.handle_measurement(&overloaded(arrived), t);
        for p in 0..8u8 {
            if let Some(oci) = r.oci_for(&p, MOD, None, t) {
                let cp = &mut cps[usize::from(p)];
                let out = cp.handle_oci(&origin, &oci, t);
                assert!(matches!(out, OciOutcome::Applied { .. }), "{out:?}");
                assert_ne!(last[usize::from(p)], Some(oci.metric.percent()));
                last[usize::from(p)] = Some(oci.metric.percent());
            }
            let asked = r.metric_for(&p).unwrap();
            assert_eq!(cps[usize::from(p)].reduction(origin.entity, &up, t), asked);
        }
    }
}

/// A refusal before the law has a metric carries the provisional OCI: node-scoped, the short
/// validity, a number of the reporter's own count; the same number while its metric does
/// not rise and half its validity has not passed; a new one when it rises or ages.
#[test]
fn a_refusal_without_a_metric_carries_the_provisional_oci() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(adaptive());
    r.set_peer_ovrl(1, true);
    r.set_peer_ovrl(2, false);
    assert_eq!(r.metric(), 0);
    // No cut due, a peer without OVRL, a message that cannot carry one: nothing.
    assert!(r.oci_for_refusal(&1, MOD, None, now).is_none());
    assert!(r.oci_for_refusal(&2, MOD, Some(20), now).is_none());
    assert!(r
        .oci_for_refusal(&1, MessageType::HEARTBEAT_RESPONSE, Some(20), now)
        .is_none());
    let first = r.oci_for_refusal(&1, MOD, Some(20), now).unwrap();
    // Rounded up to the grid.
    assert_eq!(first.metric.percent(), 21);
    assert!(first.aoci());
    assert_eq!(
        first.period_of_validity.duration(),
        Some(Duration::from_secs(2))
    );
    assert_eq!(first.sequence_number.0, r.sequence_number());
    let p = r.provisional(now).unwrap();
    assert_eq!((p.metric, p.sequence_number), (21, first.sequence_number.0));
    // Less, or the same: the OCI in force, on every refusal (the same number: no news).
    let t = now + Duration::from_millis(300);
    assert_eq!(r.oci_for_refusal(&1, MOD, Some(10), t), Some(first));
    assert_eq!(r.provisional(t).unwrap().sequence_number, p.sequence_number);
    // An accepted answer does not repeat it.
    assert!(r
        .oci_for(&1, MOD, Some(Cause::REQUEST_ACCEPTED), t)
        .is_none());
    // More: a new number at once.
    let higher = r.oci_for_refusal(&1, MOD, Some(40), t).unwrap();
    assert_eq!(higher.metric.percent(), 42);
    assert!(is_after(higher.sequence_number.0, first.sequence_number.0));
    // Past half the validity: issued again, a new number extends it.
    let t = t + Duration::from_millis(1000);
    let again = r.oci_for_refusal(&1, MOD, Some(10), t).unwrap();
    assert_eq!(again.metric.percent(), 12);
    assert!(is_after(again.sequence_number.0, higher.sequence_number.0));
}

/// After a control interval without a refusal the provisional OCI ends (metric 0, a new
/// number) for the peers that hold it, and only for them; the law's first publication
/// supersedes it with a newer number.
#[test]
fn the_provisional_oci_ends_after_a_calm_interval_and_gives_way_to_the_law() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(adaptive());
    r.set_peer_ovrl(1, true);
    r.set_peer_ovrl(2, true);
    let p = r.oci_for_refusal(&1, MOD, Some(30), now).unwrap();
    // Peer 2 was never refused: an accepted answer tells it nothing.
    assert!(r.oci_for(&2, MOD, None, now).is_none());
    // Within the interval: no end yet.
    let t = now + Duration::from_millis(150);
    assert!(r.oci_for(&1, MOD, None, t).is_none());
    let t = now + Duration::from_millis(200);
    let end = r.oci_for(&1, MOD, None, t).unwrap();
    assert_eq!(end.metric.percent(), 0);
    assert!(end.aoci());
    assert!(is_after(end.sequence_number.0, p.sequence_number.0));
    assert!(r.oci_for(&1, MOD, None, t).is_none());
    assert!(r.oci_for(&2, MOD, None, t).is_none());
    // A new episode, then the law publishes: its number is newer, and it takes over.
    let t = t + Duration::from_millis(100);
    let p = r.oci_for_refusal(&2, MOD, Some(30), t).unwrap();
    r.handle_measurement(&overloaded(200), t);
    assert!(r.provisional(t).is_none());
    let law = r.oci_for(&2, MOD, None, t).unwrap();
    assert!(is_after(law.sequence_number.0, p.sequence_number.0));
    assert_eq!(law.metric.percent(), r.metric_for(&2).unwrap());
    // A refusal now carries the law's OCI: peer 2 has it on its entity scope, and its node
    // scope, which holds the provisional metric, is brought up to date.
    let node = r.oci_for_refusal(&2, MOD, Some(90), t).unwrap();
    assert!(node.aoci());
    assert_eq!(node.metric, law.metric);
    assert!(r.oci_for_refusal(&2, MOD, Some(90), t).is_none());
}

/// Each [`InclusionPolicy`] puts the OCI on the messages it says, with the same number while
/// nothing changes.
#[test]
fn each_inclusion_policy_emits_what_it_says() {
    let now = crate::test_now();
    let run = |policy: InclusionPolicy, causes: &[(u64, Option<Cause>)]| {
        let mut r: OverloadReporter<u8> = OverloadReporter::new(adaptive().with_inclusion(policy));
        r.set_peer_ovrl(1, true);
        r.handle_measurement(&overloaded(1000), now);
        causes
            .iter()
            .map(|&(ms, cause)| {
                r.oci_for(&1, MOD, cause, now + Duration::from_millis(ms))
                    .map(|o| (o.sequence_number.0, o.metric.percent()))
            })
            .collect::<Vec<_>>()
    };
    let ok = Some(Cause::REQUEST_ACCEPTED);
    let no = Some(Cause::PFCP_ENTITY_IN_CONGESTION);
    let msgs: Vec<(u64, Option<Cause>)> = (0..6).map(|k| (k * 100, ok)).collect();
    let sent = |v: &[Option<(u32, u8)>]| v.iter().map(Option::is_some).collect::<Vec<_>>();
    let until = run(InclusionPolicy::UntilCurrent, &msgs);
    assert_eq!(sent(&until), [true, false, false, false, false, false]);
    let every = run(InclusionPolicy::EveryMessage, &msgs);
    assert_eq!(sent(&every), [true; 6]);
    assert!(
        every.iter().all(|o| *o == every[0]),
        "one number: {every:?}"
    );
    let nth = run(InclusionPolicy::EveryNth(3), &msgs);
    assert_eq!(sent(&nth), [true, false, false, true, false, false]);
    let periodic = run(InclusionPolicy::Periodic(Duration::from_millis(250)), &msgs);
    assert_eq!(sent(&periodic), [true, false, false, true, false, false]);
    let mixed = [(0, ok), (100, no), (200, ok), (300, no)];
    let rejections = run(InclusionPolicy::Rejections, &mixed);
    assert_eq!(sent(&rejections), [false, true, false, true]);
    assert_eq!(rejections[1], rejections[3]);
    assert_eq!(sent(&run(InclusionPolicy::Never, &mixed)), [false; 4]);
    // Never: no provisional OCI either.
    let mut r: OverloadReporter<u8> =
        OverloadReporter::new(adaptive().with_inclusion(InclusionPolicy::Never));
    r.set_peer_ovrl(1, true);
    assert!(r.oci_for_refusal(&1, EST, Some(50), now).is_none());
}

/// A count that starts again (a restarted UP function): the next number is the configured
/// start, and every peer is told afresh. Its CP function, which holds a higher number,
/// ignores it until it learns of the restart: a jump back beyond its window, or a reset of
/// the peer (a changed Recovery Time Stamp).
#[test]
fn a_restarted_count_starts_from_its_start_and_tells_every_peer_afresh() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> =
        OverloadReporter::new(adaptive().with_sequence(SequenceMode::Counter(10_000)));
    r.set_peer_ovrl(1, true);
    r.handle_measurement(&overloaded(1000), now);
    let before = r.oci_for(&1, MOD, None, now).unwrap();
    assert_eq!(before.sequence_number.0, 10_000);
    r.restart_sequence();
    let after = r.oci_for(&1, MOD, None, now).unwrap();
    assert_eq!(after.sequence_number.0, 10_000);
    assert_eq!(after.metric, before.metric);
    let mut r: OverloadReporter<u8> = OverloadReporter::new(adaptive());
    r.set_peer_ovrl(1, true);
    for k in 0..5000u64 {
        // A long overload: thousands of numbers (a measurement moving the law each time).
        let t = now + Duration::from_millis(200 * k);
        r.handle_measurement(&overloaded(if k % 2 == 0 { 1000 } else { 10 }), t);
    }
    let high = r.sequence_number();
    assert!(high > 4096, "{high}");
    let t = now + Duration::from_secs(1000);
    let told = r.oci_for(&1, MOD, None, t).unwrap();
    r.restart_sequence();
    let reset = r.oci_for(&1, MOD, None, t).unwrap();
    assert_eq!(reset.sequence_number.0, 1);
    let up = crate::NodeKey::fqdn("upf1.example.net");
    let origin = OciOrigin::new(up, None);
    let mut cp = OverloadTable::default();
    cp.handle_oci(&origin, &told, t);
    // Behind by more than 4096: processed as a reset.
    assert!(matches!(
        cp.handle_oci(&origin, &reset, t),
        OciOutcome::Applied { .. }
    ));
}

/// A UP function whose numbers come from its clock, started near the 32-bit wrap: the
/// numbers cross it and its CP functions keep applying them.
#[test]
fn clock_numbers_cross_the_wrap_and_stay_newer() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(
        adaptive().with_sequence(SequenceMode::ntp_seconds(now, u32::MAX - 2)),
    );
    r.set_peer_ovrl(1, true);
    let up = crate::NodeKey::fqdn("upf1.example.net");
    let origin = OciOrigin::new(up.clone(), None);
    let mut cp = OverloadTable::default();
    let mut seen = Vec::new();
    for (k, arrived) in [1000, 300, 1000, 300, 1000, 300, 40, 40]
        .into_iter()
        .enumerate()
    {
        let t = now + Duration::from_secs(k as u64);
        r.handle_measurement(&overloaded(arrived), t);
        if let Some(oci) = r.oci_for(&1, MOD, None, t) {
            seen.push(oci.sequence_number.0);
            assert!(matches!(
                cp.handle_oci(&origin, &oci, t),
                OciOutcome::Applied { .. }
            ));
            assert_eq!(cp.reduction(None, &up, t), oci.metric.percent());
        }
    }
    assert!(
        seen.contains(&(u32::MAX - 2)) && seen.iter().any(|&s| s < 10),
        "{seen:?}"
    );
}

/// Alone on the grid, a peer admits what its level admits, not the law's share: arrivals
/// exactly as its level admits are no error for the trim, and the law keeps it at that level
/// (a trim on the grid's rounding would walk it from one level to the next and back).
#[test]
fn a_lone_peer_that_sheds_what_its_level_says_stays_there() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(adaptive().with_target_load(1.0));
    r.set_peer_ovrl(1, true);
    let mut told = Vec::new();
    let mut applied = 0u8;
    for k in 0..40u64 {
        let t = now + Duration::from_millis(200 * k);
        // A demand of 5x: the peer sends what its metric admits.
        let arrived = (500.0 * (1.0 - f64::from(applied) / 100.0)).round() as u64;
        for _ in 0..arrived {
            r.record_arrival(&1);
        }
        r.handle_measurement(&overloaded(arrived), t);
        if let Some(oci) = r.oci_for(&1, MOD, None, t) {
            applied = oci.metric.percent();
            told.push(applied);
        }
    }
    // 1 - 100/500 = 80 %: the nearest level is 81; told once, never changed.
    assert_eq!(told, [81], "{told:?}");
}

/// The CP applies the Period of Validity as the Timer encodes it, rounded up (63 s is sent as
/// 2 minutes): what a scope holds lapses then, not at the configured 63 s, and the end of the
/// overload still goes to a peer between the two.
#[test]
fn clause_8_2_35_a_scope_holds_its_reduction_for_the_encoded_validity() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(
        adaptive()
            .with_validity(Duration::from_secs(63))
            .with_refresh_before(Duration::from_secs(3)),
    );
    r.set_peer_ovrl(1, true);
    r.handle_measurement(&overloaded(300), now);
    let told = r.oci_for(&1, MOD, None, now).unwrap();
    assert_eq!(
        told.period_of_validity.duration(),
        Some(Duration::from_secs(120))
    );
    // Nothing goes to the peer for 70 s; then the demand falls and the law opens.
    let t = now + Duration::from_secs(70);
    r.handle_measurement(&overloaded(10), t);
    assert_eq!(r.metric(), 0);
    let up = crate::NodeKey::fqdn("upf1.example.net");
    let origin = OciOrigin::new(up.clone(), None);
    let mut cp = OverloadTable::default();
    cp.handle_oci(&origin, &told, now);
    assert!(cp.reduction(None, &up, t) > 0, "the CP still holds it");
    let end = r.oci_for(&1, MOD, None, t).unwrap();
    assert_eq!(end.metric.percent(), 0);
    cp.handle_oci(&origin, &end, t);
    assert_eq!(cp.reduction(None, &up, t), 0);
}
