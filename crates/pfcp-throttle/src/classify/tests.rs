//! Classifier tests: one per rule of the PFCP table, the adjustments reported, the context
//! type, the QCI / 5QI rule, and the state tracker.

use std::borrow::Cow;
use std::time::Duration;

use super::*;

fn classify(ctx: RequestContext<'_>) -> Classification {
    Classifier::default().classify(&ctx)
}

fn est() -> RequestContext<'static> {
    RequestContext::new(Procedure::SessionEstablishment)
}

fn set(list: &[Adjustment]) -> AdjustmentSet {
    list.iter().copied().collect()
}

#[test]
fn clause_6_2_4_5_1_emergency_and_emps_are_highest_and_exempt() {
    let c = classify(est().with_emergency(true).with_low_access_priority(true));
    assert_eq!(c.rule, Rule::Emergency);
    assert_eq!(c.class.priority, MessagePriority::HIGHEST);
    assert!(c.class.exempt);
    assert!(c.adjustments.is_empty(), "fixed rules take no adjustment");
    let c = classify(est().with_emps(true));
    assert_eq!(c.rule, Rule::Emps);
    assert!(c.class.exempt);
}

#[test]
fn clause_6_2_4_5_2_highest_arp_of_the_bearers_counts() {
    let c = classify(est().with_arp([9, 3, 12]));
    assert_eq!(c.rule, Rule::Arp);
    assert_eq!(c.class.priority.value(), 3);
    assert_eq!(c.base.value(), 3);
    // Invalid ARP levels (0, > 15) are ignored.
    let c = classify(est().with_arp([0, 16]));
    assert_eq!(c.rule, Rule::Default);
    assert_eq!(c.class.priority.value(), 8);
}

#[test]
fn lapi_ranks_low_and_overrides_apply_first() {
    let c = classify(est().with_low_access_priority(true).with_arp([2]));
    assert_eq!(c.rule, Rule::LowAccessPriority);
    assert_eq!(c.class.priority.value(), 14);
    let mut cfg = ClassifierConfig::default();
    cfg.dnn_overrides.push(("ims".into(), 2));
    cfg.snssai_overrides.push((Snssai { sst: 1, sd: None }, 5));
    let k = Classifier::new(cfg);
    let c = k.classify(&est().with_dnn("IMS").with_low_access_priority(true));
    assert_eq!((c.rule, c.class.priority.value()), (Rule::Dnn, 2));
    // An owned DNN classifies the same as a borrowed one.
    let owned = est().with_dnn(String::from("ims"));
    assert_eq!(k.classify(&owned), c);
    let c = k.classify(&est().with_snssai(Snssai { sst: 1, sd: None }));
    assert_eq!((c.rule, c.class.priority.value()), (Rule::Snssai, 5));
}

#[test]
fn diameter_c_2_state_rules_order_the_procedures() {
    let p = |ctx: RequestContext<'_>| classify(ctx.with_arp([8])).class.priority.value();
    let state = RequestState::UNKNOWN;
    let new = p(est());
    let deletion = p(RequestContext::new(Procedure::SessionDeletion));
    // The procedure says the session exists: no flag needed.
    let established = p(RequestContext::new(Procedure::SessionModification));
    let later = p(RequestContext::new(Procedure::SessionModification)
        .with_state(state.with_follows_admitted(true)));
    let additional = p(est().with_state(state.with_additional_session(true)));
    let restoration = p(est().with_state(state.with_restoration(true)));
    // Releasing resources ranks high; established work above new; a later step of admitted
    // work above plain established work; additional sessions and restoration storms below
    // a UE's first session (0 is the highest priority).
    assert!(deletion < new && established < new && later < established);
    assert!(additional > new && restoration > additional);
    assert_eq!(
        (new, deletion, established, later, additional, restoration),
        (8, 4, 6, 3, 10, 12)
    );
}

#[test]
fn every_adjustment_that_fired_is_reported() {
    // An Establishment at a second UP function of a procedure whose first step was
    // admitted, for an additional session of the UE.
    let c = classify(
        est().with_arp([7]).with_state(
            RequestState::UNKNOWN
                .with_follows_admitted(true)
                .with_additional_session(true)
                .with_restoration(true),
        ),
    );
    assert_eq!(c.rule, Rule::Arp);
    assert_eq!(
        c.adjustments,
        set(&[
            Adjustment::NotRegistered,
            Adjustment::FollowsAdmitted,
            Adjustment::AdditionalSession,
            Adjustment::Restoration
        ])
    );
    assert_eq!(c.step, -3 + 2 + 4);
    assert_eq!(c.class.priority.value(), 10);
    assert_eq!(
        c.to_string(),
        "p10 arp not_registered+follows_admitted+additional_session+restoration"
    );
    assert_eq!(
        c.adjustments.to_string(),
        "not_registered+follows_admitted+additional_session+restoration"
    );
    // On any later request the last two do not fire (C.2 lowers "this SAR" and "such MAR
    // messages" only): the same facts on a Modification.
    let c = classify(
        RequestContext::new(Procedure::SessionModification)
            .with_arp([7])
            .with_state(
                RequestState::UNKNOWN
                    .with_follows_admitted(true)
                    .with_additional_session(true)
                    .with_restoration(true),
            ),
    );
    assert_eq!(
        c.adjustments,
        set(&[Adjustment::Registered, Adjustment::FollowsAdmitted])
    );
    assert_eq!(c.to_string(), "p2 arp registered+follows_admitted");
    // Release replaces the registration step.
    let c = classify(RequestContext::new(Procedure::SessionDeletion));
    assert_eq!(c.adjustments, set(&[Adjustment::Release]));
    // The caller's overrides win over the procedure's defaults.
    let c = classify(
        RequestContext::new(Procedure::SessionDeletion).with_state(
            RequestState::UNKNOWN
                .with_releases_resources(false)
                .with_registration(Registration::RegisteredElsewhere),
        ),
    );
    assert_eq!(c.adjustments, set(&[Adjustment::RegisteredElsewhere]));
    let c = classify(est().with_emergency(true));
    assert_eq!(c.to_string(), "p0! emergency");
}

#[test]
fn priority_0_is_reserved_for_exempt_classes() {
    let c = classify(
        RequestContext::new(Procedure::SessionDeletion)
            .with_arp([1])
            .with_state(RequestState::UNKNOWN.with_follows_admitted(true)),
    );
    assert_eq!(c.class.priority.value(), 1);
    assert_eq!(c.step, -7);
    assert!(!c.class.exempt);
}

#[test]
fn clause_7_2_2_4_1_defaults_and_responses() {
    let k = Classifier::default();
    assert_eq!(k.received_request(None), MessagePriority::LOWEST);
    let p5 = MessagePriority::new(5).unwrap();
    assert_eq!(k.received_request(Some(p5)), p5);
    assert_eq!(Classifier::response(p5), p5);
    // Heartbeat and association are never throttled and rank highest.
    let c = k.classify(&RequestContext {
        procedure: Procedure::of(MessageType::HEARTBEAT_REQUEST),
        ..RequestContext::default()
    });
    assert_eq!(c.class.priority, MessagePriority::HIGHEST);
    assert_eq!(c.rule, Rule::NotThrottled);
    assert!(!Procedure::Heartbeat.is_throttled());
    assert!(Procedure::SessionEstablishment.is_throttled());
}

// ---------------------------------------------------------------------------------------
// QCI and 5QI (TS 29.244 6.2.4.5.1 "QCI")

/// The standardized values of TS 23.203 Table 6.1.7-A (QCI) and TS 23.501 Table 5.7.4-1
/// (5QI), by resource type, copied from the tables; mission-critical are the values whose
/// example services the tables name "Mission Critical" and the delay-critical GBR values of
/// discrete automation, intelligent transport and electricity distribution (82-85).
const MISSION_CRITICAL: &[u8] = &[65, 67, 69, 70, 82, 83, 84, 85];
const GBR_QCI: &[u8] = &[1, 2, 3, 4, 66, 71, 72, 73, 74, 75, 76];
const GBR_5QI: &[u8] = &[1, 2, 3, 4, 66, 71, 72, 73, 74, 75, 76, 86, 87, 88, 89, 90];
const NON_GBR: &[u8] = &[5, 6, 7, 8, 9, 10, 79, 80];

#[test]
fn qos_classes_follow_the_standardized_tables() {
    for v in 0..=255u8 {
        let expect = |gbr: &[u8]| {
            if MISSION_CRITICAL.contains(&v) {
                Some(QosClass::MissionCritical)
            } else if gbr.contains(&v) {
                Some(QosClass::Gbr)
            } else if NON_GBR.contains(&v) {
                Some(QosClass::NonGbr)
            } else {
                None
            }
        };
        assert_eq!(QosClass::of_qci(v), expect(GBR_QCI), "QCI {v}");
        assert_eq!(QosClass::of_5qi(v), expect(GBR_5QI), "5QI {v}");
    }
}

#[test]
fn qos_ids_are_a_set_of_any_value() {
    let s = QosIds::from_values(&[200, 9, 0, 255, 9, 128, 127]);
    assert_eq!(s.iter().collect::<Vec<_>>(), [0, 9, 127, 128, 200, 255]);
    assert!(s.contains(255) && s.contains(0) && !s.contains(1) && !s.contains(254));
    assert!(QosIds::NONE.is_empty() && !QosIds::single(128).is_empty());
    let mut t = QosIds::NONE;
    t.insert(3);
    assert_eq!(t, QosIds::from([3u8]));
    assert_eq!(QosIds::from([3u8, 70]), [70u8, 3].into_iter().collect());
}

#[test]
fn clause_6_2_4_5_1_mission_critical_and_gbr_qos_rank_higher_than_the_arp_alone() {
    // Mission-critical: 2, whatever the ARP below it; a 5QI and a QCI alike.
    for v in MISSION_CRITICAL {
        let c = classify(est().with_five_qi([*v]).with_arp([9]));
        assert_eq!(
            (c.rule, c.class.priority.value()),
            (Rule::Qos, 2),
            "5QI {v}"
        );
        let c = classify(est().with_qci([*v]));
        assert_eq!(
            (c.rule, c.class.priority.value()),
            (Rule::Qos, 2),
            "QCI {v}"
        );
        assert!(!c.class.exempt, "only emergency and eMPS are exempt");
    }
    // Other GBR: 5, above the no-ARP default (8) and the ARP levels below 5.
    for v in GBR_5QI.iter().filter(|v| !MISSION_CRITICAL.contains(v)) {
        let c = classify(est().with_five_qi([*v]));
        assert_eq!(
            (c.rule, c.class.priority.value()),
            (Rule::Qos, 5),
            "5QI {v}"
        );
        let c = classify(est().with_five_qi([*v]).with_arp([12]));
        assert_eq!(
            (c.rule, c.class.priority.value()),
            (Rule::Qos, 5),
            "5QI {v}"
        );
    }
    // A more important ARP keeps its rank; a tie is the ARP's.
    let c = classify(est().with_qci([1]).with_arp([3]));
    assert_eq!((c.rule, c.class.priority.value()), (Rule::Arp, 3));
    let c = classify(est().with_qci([1]).with_arp([5]));
    assert_eq!((c.rule, c.class.priority.value()), (Rule::Arp, 5));
    // Non-GBR and unstandardized values leave the base to the ARP or the default.
    for v in NON_GBR.iter().chain(&[0u8, 11, 128, 254, 255]) {
        assert_eq!(
            classify(est().with_five_qi([*v]).with_qci([*v]).with_arp([9])),
            classify(est().with_arp([9])),
            "{v}"
        );
        let c = classify(est().with_five_qi([*v]));
        assert_eq!(
            (c.rule, c.class.priority.value()),
            (Rule::Default, 8),
            "{v}"
        );
    }
    // Several flows: the most important counts (here the 5QI 82 of a delay-critical flow).
    let c = classify(est().with_five_qi([9, 1, 82]).with_qci([8]));
    assert_eq!((c.rule, c.class.priority.value()), (Rule::Qos, 2));
    let c = classify(est().with_qci([1]).with_five_qi([69]));
    assert_eq!(c.class.priority.value(), 2);
    // The C.2 adjustments apply on top, still clamped to 1..=15.
    let c = classify(RequestContext::new(Procedure::SessionModification).with_five_qi([65]));
    assert_eq!(c.to_string(), "p1 qos registered");
    let c = classify(
        est()
            .with_qci([2])
            .with_state(RequestState::UNKNOWN.with_restoration(true)),
    );
    assert_eq!(c.to_string(), "p9 qos not_registered+restoration");
    // The rules before it stay before it.
    let c = classify(est().with_five_qi([69]).with_low_access_priority(true));
    assert_eq!(c.rule, Rule::LowAccessPriority);
    let c = classify(est().with_five_qi([69]).with_emergency(true));
    assert_eq!(c.to_string(), "p0! emergency");
}

#[test]
fn the_qos_table_is_configurable_per_value_range_and_class() {
    let qos = QosPriorities::default()
        .with_classes(Some(1), Some(6), Some(10))
        .with_five_qi(vec![QosRange::new(128, 254, 11), QosRange::value(9, 12)])
        .with_qci(vec![QosRange::value(1, 3)]);
    let k = Classifier::new(ClassifierConfig::default().with_qos(qos));
    let p = |ctx: RequestContext<'_>| {
        let c = k.classify(&ctx);
        (c.rule, c.class.priority.value())
    };
    assert_eq!(p(est().with_five_qi([65])), (Rule::Qos, 1));
    assert_eq!(p(est().with_five_qi([2])), (Rule::Qos, 6));
    assert_eq!(p(est().with_five_qi([8])), (Rule::Qos, 10), "non-GBR class");
    assert_eq!(
        p(est().with_five_qi([9])),
        (Rule::Qos, 12),
        "a value before its class"
    );
    assert_eq!(
        p(est().with_five_qi([200])),
        (Rule::Qos, 11),
        "an operator range"
    );
    assert_eq!(p(est().with_five_qi([200]).with_arp([9])), (Rule::Arp, 9));
    // The QCI table is its own: QCI 1 has its value, 5QI 1 its class.
    assert_eq!(p(est().with_qci([1])), (Rule::Qos, 3));
    assert_eq!(p(est().with_five_qi([1])), (Rule::Qos, 6));
    // Off: QoS never changes a classification.
    let off = Classifier::new(ClassifierConfig::default().with_qos(QosPriorities::OFF));
    let c = off.classify(&est().with_five_qi([69]).with_qci([1]));
    assert_eq!((c.rule, c.class.priority.value()), (Rule::Default, 8));
    // A priority above 15 reads as 15.
    let high = QosPriorities::OFF.with_five_qi(vec![QosRange::value(9, 99)]);
    assert_eq!(high.five_qi_priority(9), Some(15));
    assert_eq!(high.five_qi_priority(8), None);
    assert_eq!(
        QosPriorities::default().class_priority(QosClass::NonGbr),
        None
    );
    // An empty range holds nothing.
    assert!(!QosRange::new(9, 8, 1).contains(9) && !QosRange::new(9, 8, 1).contains(8));
}

#[test]
fn requests_without_qci_or_5qi_classify_as_without_the_qos_rule() {
    // Any context without QoS values, under the default table and under one with the QoS
    // rule off: the same classification, field for field.
    let on = Classifier::default();
    let off = Classifier::new(ClassifierConfig::default().with_qos(QosPriorities::OFF));
    let mut rng = pfcp_test_support::rng::XorShift(0x0C2A_11CE);
    let procedures = [
        None,
        Some(Procedure::Heartbeat),
        Some(Procedure::Association),
        Some(Procedure::PfdManagement),
        Some(Procedure::NodeReport),
        Some(Procedure::SessionSet),
        Some(Procedure::SessionEstablishment),
        Some(Procedure::SessionModification),
        Some(Procedure::SessionDeletion),
        Some(Procedure::SessionReport),
    ];
    let flag = |r: u64| match r % 3 {
        0 => None,
        1 => Some(false),
        _ => Some(true),
    };
    for _ in 0..20_000 {
        let mut arp = ArpLevels::NONE;
        for _ in 0..rng.below(3) {
            arp.insert(rng.below(17) as u8);
        }
        let ctx = RequestContext {
            procedure: procedures[rng.below(procedures.len() as u64) as usize],
            emergency: rng.below(20) == 0,
            emps: rng.below(20) == 0,
            arp,
            low_access_priority: rng.below(10) == 0,
            state: RequestState {
                registration: match rng.below(4) {
                    0 => None,
                    1 => Some(Registration::NotRegistered),
                    2 => Some(Registration::RegisteredElsewhere),
                    _ => Some(Registration::Registered),
                },
                follows_admitted: flag(rng.next()),
                additional_session: flag(rng.next()),
                restoration: flag(rng.next()),
                releases_resources: flag(rng.next()),
            },
            ..RequestContext::default()
        };
        assert_eq!(on.classify(&ctx), off.classify(&ctx), "{ctx:?}");
    }
}

#[test]
fn arp_levels_are_a_set_of_valid_levels() {
    let a = ArpLevels::from_levels(&[15, 0, 4, 16, 4, 9]);
    assert_eq!(a.iter().collect::<Vec<_>>(), [4, 9, 15]);
    assert_eq!(a.highest(), Some(4));
    assert!(ArpLevels::NONE.is_empty());
    assert_eq!(ArpLevels::single(0), ArpLevels::NONE);
    let mut b = ArpLevels::NONE;
    assert!(b.insert(15));
    assert!(!b.insert(16));
    assert_eq!(b.highest(), Some(15));
    assert_eq!(ArpLevels::from([3u8, 1]), [1u8, 3].into_iter().collect());
}

#[test]
fn a_context_is_owned_or_borrowed() {
    let owned: RequestContext<'static> = est().with_dnn(String::from("internet"));
    let borrowed = owned.reborrow();
    assert!(matches!(borrowed.dnn, Some(Cow::Borrowed("internet"))));
    assert_eq!(borrowed, owned);
    let again = borrowed.into_owned();
    assert!(matches!(again.dnn, Some(Cow::Owned(_))));
    assert_eq!(again, owned);
    // The QoS values go with every copy.
    let qos = est().with_qci([1]).with_five_qi([69, 9]);
    assert_eq!(qos.reborrow(), qos);
    assert_eq!(qos.clone().into_owned(), qos);
}

#[test]
fn request_state_overrides_field_by_field() {
    let tracked = RequestState::UNKNOWN
        .with_registration(Registration::Registered)
        .with_restoration(true);
    let caller = RequestState::UNKNOWN.with_restoration(false);
    let s = caller.or(tracked);
    assert_eq!(s.registration, Some(Registration::Registered));
    assert_eq!(s.restoration, Some(false));
    assert_eq!(s.follows_admitted, None);
}

// ---------------------------------------------------------------------------------------
// The state tracker

use pfcp_test_support::clock::origin as t0;

type Tracker = StateTracker<u32, &'static str, &'static str>;

#[test]
fn tracker_first_step_admitted_then_follow_ups_rank_higher() {
    let now = t0();
    let mut t = Tracker::new(TrackerConfig::default());
    assert_eq!(t.state(Some(&1), Some(&"ue"), now), RequestState::UNKNOWN);
    t.on_established(1, Some("ue"), Some("upf-a"), now);
    t.on_first_step_succeeded(1, now);
    let s = t.state(Some(&1), None, now + Duration::from_secs(1));
    assert_eq!(s.follows_admitted, Some(true));
    assert_eq!(s.registration, Some(Registration::Registered));
    // The window closes ...
    let s = t.state(Some(&1), None, now + Duration::from_secs(31));
    assert_eq!(s.follows_admitted, None);
    // ... or the procedure ends.
    t.on_first_step_succeeded(1, now);
    t.on_procedure_complete(&1);
    assert_eq!(t.state(Some(&1), None, now).follows_admitted, None);
    let c = Classifier::default().classify(
        &RequestContext::new(Procedure::SessionModification)
            .with_state(RequestState::UNKNOWN.or(t.state(Some(&1), None, now))),
    );
    assert_eq!(c.adjustments, set(&[Adjustment::Registered]));
}

#[test]
fn tracker_additional_session_of_a_ue_with_one() {
    let now = t0();
    let mut t = Tracker::new(TrackerConfig::default());
    t.on_established(1, Some("ue"), Some("upf-a"), now);
    let s = t.state(Some(&2), Some(&"ue"), now);
    assert_eq!(s.additional_session, Some(true));
    assert_eq!(
        s.registration, None,
        "the new session itself is not established"
    );
    // The first session itself is not additional; another UE's is not either.
    assert_eq!(t.state(Some(&1), None, now).additional_session, None);
    assert_eq!(
        t.state(Some(&3), Some(&"other"), now).additional_session,
        None
    );
    // Once released, the UE's next session is a first one again.
    t.on_released(&1);
    assert_eq!(t.state(Some(&2), Some(&"ue"), now).additional_session, None);
    assert_eq!(t.sessions_of(&"ue"), 0);
    // Per UE (Diameter): a registered user's new session is registered and additional.
    let mut d = Tracker::new(TrackerConfig::default().with_registration_per_ue(true));
    d.on_established(1, Some("user"), None, now);
    let s = d.state(Some(&2), Some(&"user"), now);
    assert_eq!(s.registration, Some(Registration::Registered));
    assert_eq!(s.additional_session, Some(true));
    assert_eq!(
        d.state(None, Some(&"user"), now).registration,
        Some(Registration::Registered)
    );
}

#[test]
fn tracker_restoration_after_a_peer_restart() {
    let now = t0();
    let mut t = Tracker::new(TrackerConfig::default());
    t.on_established(1, Some("ue1"), Some("upf-a"), now);
    t.on_established(2, Some("ue2"), Some("upf-b"), now);
    t.on_peer_restart(&"upf-a", now);
    let s = t.state(Some(&1), None, now + Duration::from_secs(1));
    assert_eq!(s.restoration, Some(true));
    assert_eq!(s.registration, None, "the session was lost");
    assert_eq!(t.state(Some(&2), None, now).restoration, None);
    assert_eq!(t.stats().sessions_lost, 1);
    // Re-established: no longer a restoration.
    t.on_established(1, Some("ue1"), Some("upf-a"), now);
    assert_eq!(t.state(Some(&1), None, now).restoration, None);
    // The window runs out.
    t.on_peer_restart(&"upf-b", now);
    let late = now + Duration::from_secs(301);
    assert_eq!(t.state(Some(&2), None, late).restoration, None);
    t.prune(late);
    assert_eq!(t.len(), 1);
    let c = Classifier::default()
        .classify(&est().with_state(t.state(Some(&1), None, now).or(RequestState::UNKNOWN)));
    assert!(!c.adjustments.contains(Adjustment::Restoration));
}

#[test]
fn tracker_is_bounded() {
    let now = t0();
    let mut t = Tracker::new(TrackerConfig::default().with_max_sessions(3));
    for s in 0..10u32 {
        t.on_established(s, Some(if s % 2 == 0 { "even" } else { "odd" }), None, now);
        assert!(t.len() <= 3);
    }
    assert_eq!(t.stats().evicted, 7);
    // The newest three remain, and the UE counts follow the evictions.
    assert_eq!(t.sessions_of(&"even") + t.sessions_of(&"odd"), 3);
    assert_eq!(t.state(Some(&0), None, now), RequestState::UNKNOWN);
    assert_eq!(
        t.state(Some(&9), None, now).registration,
        Some(Registration::Registered)
    );
    // A touched session moves to the back of the eviction order.
    t.on_first_step_succeeded(7, now);
    t.on_established(10, None, None, now);
    assert!(t.state(Some(&7), None, now).follows_admitted.is_some());
    assert_eq!(t.state(Some(&8), None, now), RequestState::UNKNOWN);
}
