//! TS 29.273 Annex C.2 (message prioritisation over SWx), one test per sentence of the annex,
//! named by the sentence, through the public API: the SWx table as the annex states it for a
//! 3GPP AAA server towards an HSS, and the PFCP table's counterpart of each state-aware rule.
//! Where a sentence says what is throttled first, the classes go through a real
//! [`LossThrottle`]. Each rule fires only on the request its sentence names; the tests of the
//! interactions between two sentences say which two.

use std::time::Duration;

use pfcp_throttle::classify::{
    Adjustment, Classification, Registration, RequestState, Rule, ServerAssignmentType,
    StateTracker, SwxRules, TrackerConfig,
};
use pfcp_throttle::{
    Classifier, LossConfig, LossThrottle, Procedure, RequestClass, RequestContext, SwxClassifier,
    SwxRequest,
};

const SAT: ServerAssignmentType = ServerAssignmentType::REGISTRATION;

fn swx(request: SwxRequest) -> Classification {
    SwxClassifier::default().classify(&request)
}

fn registered() -> RequestState {
    RequestState::UNKNOWN.with_registration(Registration::Registered)
}

/// Every C.2 state: each fact unknown, false or true (registration: unknown or one of three).
fn every_state() -> Vec<RequestState> {
    let flags = [None, Some(false), Some(true)];
    let registrations = [
        None,
        Some(Registration::NotRegistered),
        Some(Registration::RegisteredElsewhere),
        Some(Registration::Registered),
    ];
    let mut out = Vec::new();
    for registration in registrations {
        for additional_session in flags {
            for restoration in flags {
                for releases_resources in flags {
                    out.push(RequestState {
                        registration,
                        follows_admitted: None,
                        additional_session,
                        restoration,
                        releases_resources,
                    });
                }
            }
        }
    }
    out
}

/// Every SWx command: a MAR and a SAR of each Server-Assignment-Type.
fn every_command() -> Vec<SwxRequest> {
    let mut out = vec![SwxRequest::mar()];
    out.extend((0..=14).map(|t| SwxRequest::sar(ServerAssignmentType(t))));
    out
}

fn value(c: Classification) -> u8 {
    c.class.priority.value()
}

/// A Loss throttle at `reduction` % fed an even mix of `classes` (in that order, repeated):
/// the share of each class that was throttled.
fn shed_shares(reduction: u8, classes: &[RequestClass]) -> Vec<f64> {
    let mut t = LossThrottle::new(LossConfig::default().with_escalate_after(None));
    t.set_reduction(reduction);
    let mut shed = vec![0u32; classes.len()];
    let rounds = 2000;
    for _ in 0..rounds {
        for (i, c) in classes.iter().enumerate() {
            if !t.decide(*c).is_send() {
                shed[i] += 1;
            }
        }
    }
    shed.iter()
        .map(|&n| f64::from(n) / f64::from(rounds))
        .collect()
}

/// `low` is a candidate for throttling before `high`: at a reduction that one of the two
/// classes can cover (each is half the traffic; 40 % asked), `low` takes it all.
fn low_is_throttled_first(low: Classification, high: Classification) {
    assert!(
        low.class.priority.value() > high.class.priority.value() || high.class.exempt,
        "{low} does not rank below {high}"
    );
    let shares = shed_shares(40, &[low.class, high.class]);
    assert!(shares[0] > 0.75, "{low}: {:.3} shed", shares[0]);
    assert!(shares[1] < 0.02, "{high}: {:.3} shed", shares[1]);
}

use pfcp_test_support::clock::origin as t0;

mod swx_table {
    use super::*;

    #[test]
    fn the_reduction_the_hss_requests_applies_to_mar_and_sar_requests() {
        // "When the HSS is overloaded, the 3GPP AAA server will receive overload reports from
        // the HSS requesting a reduction of the requests sent by the 3GPP AAA server. This
        // will apply to MAR and SAR requests."
        let mut t = LossThrottle::default();
        t.set_reduction(25);
        let mut sent = 0;
        for i in 0..4000 {
            let request = if i % 2 == 0 {
                SwxRequest::mar()
            } else {
                SwxRequest::sar(SAT)
            };
            if t.decide(swx(request).class).is_send() {
                sent += 1;
            }
        }
        assert!((2999..=3001).contains(&sent), "{sent} of 4000 sent at 25 %");
    }

    #[test]
    fn lower_priority_messages_are_candidates_for_throttling_before_higher_priority_messages() {
        // "The 3GPP AAA server can consider some messages with a lower or a higher priority;
        // lower priority messages will be candidates for throttling before higher priority
        // messages."
        let low = swx(SwxRequest::mar());
        let high = swx(SwxRequest::mar().with_state(registered()));
        low_is_throttled_first(low, high);
    }

    #[test]
    fn the_aaa_server_can_take_into_account_if_it_has_already_registered_the_user() {
        // "The 3GPP AAA server can take into account if it has already registered the user"
        let not = swx(SwxRequest::mar());
        let yes = swx(SwxRequest::mar().with_state(registered()));
        assert!(not.adjustments.contains(Adjustment::NotRegistered));
        assert!(yes.adjustments.contains(Adjustment::Registered));
        assert_ne!(value(not), value(yes));
        // The tracker supplies it from the successful SAR (per user on SWx).
        let mut users: StateTracker<&str, &str, ()> =
            StateTracker::new(TrackerConfig::default().with_registration_per_ue(true));
        let now = t0();
        assert_eq!(users.state(None, Some(&"imsi-1"), now).registration, None);
        users.on_established("sta-1", Some("imsi-1"), None, now);
        let state = users.state(None, Some(&"imsi-1"), now);
        assert_eq!(swx(SwxRequest::mar().with_state(state)), yes);
    }

    #[test]
    fn emergency_pdn_connection_requests_have_the_highest_priority_and_are_the_last_to_be_throttled(
    ) {
        // "Diameter requests related to PDN connections for emergency services have the
        // highest priority. Depending on regional/national requirements and network operator
        // policy, these Diameter requests are the last to be throttled, when the 3GPP AAA
        // Server has to apply traffic reduction"
        for request in [
            SwxRequest::mar(),
            SwxRequest::sar(SAT),
            SwxRequest::sar(ServerAssignmentType::PGW_UPDATE),
        ] {
            let e = swx(request
                .with_emergency(true)
                .with_aaa_failure_indication(true));
            assert_eq!(
                (e.rule, value(e), e.class.exempt),
                (Rule::Emergency, 0, true)
            );
            assert!(
                e.adjustments.is_empty(),
                "no state lowers an emergency request"
            );
        }
        // The last to be throttled: every other class goes first, even the highest of them
        // (a deregistration), and emergency only once the reduction needs it.
        let emergency = swx(SwxRequest::mar().with_emergency(true)).class;
        let dereg = swx(SwxRequest::sar(ServerAssignmentType::USER_DEREGISTRATION)).class;
        let shares = shed_shares(40, &[emergency, dereg]);
        assert!(shares[0] < 0.02 && shares[1] > 0.75, "{shares:?}");
        let shares = shed_shares(75, &[emergency, dereg]);
        assert!(
            shares[1] > 0.99 && (0.45..0.55).contains(&shares[0]),
            "{shares:?}"
        );
        // "Depending on ... operator policy": the exemption is configurable.
        let policy = SwxClassifier::new(SwxRules::default().with_emergency(1, false));
        let e = policy.classify(&SwxRequest::mar().with_emergency(true));
        assert_eq!((value(e), e.class.exempt), (1, false));
    }

    #[test]
    fn the_mar_of_a_user_not_registered_and_not_establishing_an_emergency_pdn_connection_gets_a_lower_priority(
    ) {
        // "if the user is not already registered in the 3GPP AAA server and the user is not
        // establishing a PDN connection for emergency services, the 3GPP AAA server gives a
        // lower priority to the MAR command to be sent to the HSS."
        let mar = swx(SwxRequest::mar());
        assert_eq!(mar.rule, Rule::Command);
        assert!(mar.adjustments.contains(Adjustment::NotRegistered));
        let registered_mar = swx(SwxRequest::mar().with_state(registered()));
        let emergency = swx(SwxRequest::mar().with_emergency(true));
        low_is_throttled_first(mar, registered_mar);
        low_is_throttled_first(mar, emergency);
    }

    #[test]
    fn not_registered_for_non_3gpp_access_and_attaching_on_a_non_3gpp_access() {
        // "the user is not registered for non 3GPP access in the HSS and is doing an attach
        // on a non 3GPP access;" — a user the AAA server has never seen: the tracker has no
        // evidence, the table's default (not registered) applies.
        let tracker: StateTracker<&str, &str, ()> =
            StateTracker::new(TrackerConfig::default().with_registration_per_ue(true));
        let state = tracker.state(Some(&"swm-1"), Some(&"imsi-2"), t0());
        assert_eq!(state, RequestState::UNKNOWN);
        let attach = swx(SwxRequest::mar().with_state(state));
        assert_eq!(attach, swx(SwxRequest::mar()));
        assert!(attach.adjustments.contains(Adjustment::NotRegistered));
        assert_eq!(value(attach), 8);
    }

    #[test]
    fn not_registered_for_non_3gpp_access_and_handing_over_from_a_3gpp_access_a_throttled_mar_keeps_the_pdn_connection_on_3gpp(
    ) {
        // "the user is not registered for non 3GPP access in the HSS and is doing an handover
        // from a 3GPP access; if the MAR command is throttled, the PDN connection will be
        // then maintained in the 3GPP access;"
        let handover = swx(SwxRequest::mar());
        assert_eq!(handover, swx(SwxRequest::mar()), "ranks as an attach");
        // Throttled: no MAR goes to the HSS (the AAA server fails the access procedure, the
        // PDN connection stays on 3GPP), and the request says why.
        let mut t = LossThrottle::default();
        t.set_reduction(100);
        match t.decide(handover.class) {
            pfcp_throttle::Decision::Throttle(why) => {
                assert_eq!((why.reduction, why.class), (100, handover.class));
            }
            pfcp_throttle::Decision::Send => panic!("a MAR sent at 100 %"),
        }
    }

    #[test]
    fn registered_in_the_hss_with_another_aaa_server_apart_restoration_is_a_new_session() {
        // "the user is registered in the HSS but with another 3GPP AAA server, apart a
        // restoration case (see further), this relates to a new session."
        let elsewhere = swx(SwxRequest::mar().with_state(
            RequestState::UNKNOWN.with_registration(Registration::RegisteredElsewhere),
        ));
        assert!(elsewhere
            .adjustments
            .contains(Adjustment::RegisteredElsewhere));
        assert_eq!(
            value(elsewhere),
            value(swx(SwxRequest::mar())),
            "as a new session"
        );
        low_is_throttled_first(elsewhere, swx(SwxRequest::mar().with_state(registered())));
        // Apart restoration: that case ranks lower still (see the restoration test).
        let restoration = swx(SwxRequest::mar()
            .with_aaa_failure_indication(true)
            .with_state(
                RequestState::UNKNOWN.with_registration(Registration::RegisteredElsewhere),
            ));
        assert!(value(restoration) > value(elsewhere));
    }

    #[test]
    fn after_a_not_throttled_and_successful_mar_the_subsequent_sars_have_a_higher_priority() {
        // "after a not throttled and successful MAR, the subsequent requests (SARs) have a
        // higher priority, otherwise it would mean that the initial MAR command processed by
        // the (overloaded) HSS has been useless."
        let now = t0();
        let mut tracker: StateTracker<&str, &str, ()> =
            StateTracker::new(TrackerConfig::default().with_registration_per_ue(true));
        let mut hss = LossThrottle::default();
        hss.set_reduction(30);
        // The MAR is admitted (not throttled) and the HSS answers with success.
        let mar =
            swx(SwxRequest::mar().with_state(tracker.state(Some(&"sta-9"), Some(&"u9"), now)));
        assert!(hss.decide(mar.class).is_send());
        tracker.on_first_step_succeeded("sta-9", now);
        let sar =
            swx(SwxRequest::sar(SAT).with_state(tracker.state(Some(&"sta-9"), Some(&"u9"), now)));
        assert!(sar.adjustments.contains(Adjustment::FollowsAdmitted));
        // Above every MAR, registered or not, so the HSS's work on the MAR is not wasted.
        low_is_throttled_first(mar, sar);
        low_is_throttled_first(swx(SwxRequest::mar().with_state(registered())), sar);
        // A SAR without an admitted MAR before it does not rank so high.
        let plain = swx(SwxRequest::sar(SAT));
        assert!(value(plain) > value(sar));
        // The follow-up ends with the procedure.
        tracker.on_procedure_complete(&"sta-9");
        let later = tracker.state(Some(&"sta-9"), Some(&"u9"), now + Duration::from_secs(1));
        assert_eq!(later.follows_admitted, None);
        // The subsequent requests are SARs: a MAR is the first step, and the flag does not
        // raise it.
        let flagged =
            swx(SwxRequest::mar().with_state(RequestState::UNKNOWN.with_follows_admitted(true)));
        assert_eq!(flagged, swx(SwxRequest::mar()));
    }

    #[test]
    fn after_a_not_throttled_and_successful_mar_every_subsequent_sar_ranks_above_that_mar() {
        // "... otherwise it would mean that the initial MAR command processed by the
        // (overloaded) HSS has been useless": whatever else is known of the user (registered
        // or not, an additional PDN connection, a restoration, the AAA-Failure-Indication on
        // both requests), the SAR after an admitted MAR ranks above the MAR, so the throttle
        // that admitted the MAR admits the SAR.
        for state in every_state() {
            for indication in [false, true] {
                let mar = swx(SwxRequest::mar()
                    .with_aaa_failure_indication(indication)
                    .with_state(state));
                for sar in every_command().into_iter().skip(1) {
                    let follow_up = swx(sar
                        .with_aaa_failure_indication(indication)
                        .with_state(state.with_follows_admitted(true)));
                    assert!(
                        value(follow_up) < value(mar),
                        "{follow_up} after {mar} ({state:?}, {sar:?})"
                    );
                }
            }
        }
    }

    #[test]
    fn the_mar_or_sar_of_a_registered_user_gets_a_higher_priority_to_maintain_the_service() {
        // "if the user is registered in the 3GPP AAA server, the 3GPP AAA server gives a
        // higher priority to the MAR or SAR commands to be sent to the HSS as to maintain the
        // service to the user;"
        for request in [
            SwxRequest::mar(),
            SwxRequest::sar(ServerAssignmentType::AAA_USER_DATA_REQUEST),
            SwxRequest::sar(ServerAssignmentType::PGW_UPDATE),
        ] {
            let yes = swx(request.with_state(registered()));
            let not = swx(request);
            assert!(yes.adjustments.contains(Adjustment::Registered), "{yes}");
            low_is_throttled_first(not, yes);
        }
    }

    #[test]
    fn a_sar_pgw_update_for_an_additional_s6b_session_may_get_a_lower_priority() {
        // "nevertheless, if a SAR indicates a PGW_UPDATE and is related to an additional
        // Diameter session over S6b for the user, so to establish an additional PDN
        // connection, a lower priority may be given to this SAR;"
        let now = t0();
        let mut users: StateTracker<&str, &str, ()> =
            StateTracker::new(TrackerConfig::default().with_registration_per_ue(true));
        users.on_established("s6b-1", Some("imsi-3"), None, now);
        // The SAR for the first PDN connection's S6b session: registered, not additional.
        let first = swx(
            SwxRequest::sar(ServerAssignmentType::PGW_UPDATE).with_state(users.state(
                Some(&"s6b-1"),
                Some(&"imsi-3"),
                now,
            )),
        );
        // A new S6b session of the same user: registered and additional.
        let state = users.state(Some(&"s6b-2"), Some(&"imsi-3"), now);
        assert_eq!(state.additional_session, Some(true));
        assert_eq!(state.registration, Some(Registration::Registered));
        let additional = swx(SwxRequest::sar(ServerAssignmentType::PGW_UPDATE).with_state(state));
        assert!(additional
            .adjustments
            .contains(Adjustment::AdditionalSession));
        assert!(additional.adjustments.contains(Adjustment::Registered));
        low_is_throttled_first(additional, first);
        // The table's choice: it ranks as the new work it is, with a first attach, not above.
        assert_eq!(value(additional), value(swx(SwxRequest::mar())));
        // "this SAR" only: a SAR of another type for the same session is not lowered.
        for t in [
            ServerAssignmentType::REGISTRATION,
            ServerAssignmentType::AAA_USER_DATA_REQUEST,
            ServerAssignmentType::RESTORATION,
        ] {
            let c = swx(SwxRequest::sar(t).with_state(state));
            assert!(
                !c.adjustments.contains(Adjustment::AdditionalSession),
                "{c}"
            );
            assert_eq!(c, swx(SwxRequest::sar(t).with_state(registered())));
        }
    }

    #[test]
    fn a_registered_users_mar_for_a_second_pdn_connection_is_not_lowered_by_the_pgw_update_rule() {
        // The interaction of "if the user is registered ... a higher priority to the MAR or
        // SAR commands" with "... a lower priority may be given to this SAR": the lower
        // priority is the PGW_UPDATE SAR's, not the MAR's. The registered user's MAR for an
        // additional S6b session ranks as a registered user's MAR, above a new attach.
        let now = t0();
        let mut users: StateTracker<&str, &str, ()> =
            StateTracker::new(TrackerConfig::default().with_registration_per_ue(true));
        users.on_established("s6b-1", Some("imsi-4"), None, now);
        let state = users.state(Some(&"s6b-2"), Some(&"imsi-4"), now);
        assert_eq!(state.additional_session, Some(true));
        let mar = swx(SwxRequest::mar().with_state(state));
        assert!(
            !mar.adjustments.contains(Adjustment::AdditionalSession),
            "{mar}"
        );
        assert_eq!(mar, swx(SwxRequest::mar().with_state(registered())));
        low_is_throttled_first(swx(SwxRequest::mar()), mar);
    }

    #[test]
    fn a_mar_of_a_restoration_after_the_failure_of_the_old_aaa_server_may_get_a_lower_priority() {
        // "in a restoration procedure due to the failure of the old 3GPP AAA server, the new
        // 3GPP AAA server is informed of such a restoration procedure by the presence of the
        // AAA-Failure-Indication AVP in the request received from the access. As restoration
        // procedures may be a source of a high signalling traffic and contribute to a HSS
        // overload, the new 3GPP AAA server may give a lower priority to such MAR messages;"
        let restoration = swx(SwxRequest::mar().with_aaa_failure_indication(true));
        assert!(restoration.adjustments.contains(Adjustment::Restoration));
        low_is_throttled_first(restoration, swx(SwxRequest::mar()));
        // The lowest of the table.
        assert_eq!(value(restoration), 12);
        // The caller may override the indication.
        let overridden = swx(SwxRequest::mar()
            .with_aaa_failure_indication(true)
            .with_state(RequestState::UNKNOWN.with_restoration(false)));
        assert!(!overridden.adjustments.contains(Adjustment::Restoration));
        // "such MAR messages" only: no SAR is lowered by the indication or the flag.
        for sar in every_command().into_iter().skip(1) {
            for c in [
                swx(sar.with_aaa_failure_indication(true)),
                swx(sar.with_state(RequestState::UNKNOWN.with_restoration(true))),
            ] {
                assert!(!c.adjustments.contains(Adjustment::Restoration), "{c}");
                assert_eq!(c, swx(sar));
            }
        }
    }

    #[test]
    fn a_sar_after_an_admitted_restoration_mar_ranks_above_a_new_attach() {
        // The interaction of the restoration sentence ("a lower priority ... to such MAR
        // messages") with "after a not throttled and successful MAR, the subsequent requests
        // (SARs) have a higher priority": the restoration's MAR ranks low, but once admitted
        // and answered, its SAR (RESTORATION, the access's request still carrying the
        // AAA-Failure-Indication) ranks as any SAR after an admitted MAR, above a new
        // attach's MAR, or the HSS's work on the restoration MAR would be wasted.
        let now = t0();
        let mut users: StateTracker<&str, &str, ()> =
            StateTracker::new(TrackerConfig::default().with_registration_per_ue(true));
        let elsewhere = RequestState::UNKNOWN.with_registration(Registration::RegisteredElsewhere);
        let mar = swx(SwxRequest::mar()
            .with_aaa_failure_indication(true)
            .with_state(elsewhere.or(users.state(Some(&"sta-5"), Some(&"imsi-5"), now))));
        assert!(mar.adjustments.contains(Adjustment::Restoration), "{mar}");
        let mut hss = LossThrottle::default();
        assert!(hss.decide(mar.class).is_send(), "admitted");
        users.on_first_step_succeeded("sta-5", now);
        let sar = swx(SwxRequest::sar(ServerAssignmentType::RESTORATION)
            .with_aaa_failure_indication(true)
            .with_state(elsewhere.or(users.state(Some(&"sta-5"), Some(&"imsi-5"), now))));
        assert!(
            sar.adjustments.contains(Adjustment::FollowsAdmitted),
            "{sar}"
        );
        assert!(!sar.adjustments.contains(Adjustment::Restoration), "{sar}");
        low_is_throttled_first(swx(SwxRequest::mar()), sar);
        low_is_throttled_first(mar, sar);
    }

    #[test]
    fn the_deregistration_of_the_user_has_a_higher_priority_as_releasing_resources_in_the_hss() {
        // "the deregistration of the user by the 3GPP AAA server has a higher priority as
        // releasing resources in the HSS."
        let registered_sar =
            swx(SwxRequest::sar(ServerAssignmentType::AAA_USER_DATA_REQUEST)
                .with_state(registered()));
        for t in [
            ServerAssignmentType::TIMEOUT_DEREGISTRATION,
            ServerAssignmentType::USER_DEREGISTRATION,
            ServerAssignmentType::TIMEOUT_DEREGISTRATION_STORE_SERVER_NAME,
            ServerAssignmentType::USER_DEREGISTRATION_STORE_SERVER_NAME,
            ServerAssignmentType::ADMINISTRATIVE_DEREGISTRATION,
            ServerAssignmentType::DEREGISTRATION_TOO_MUCH_DATA,
        ] {
            assert!(t.is_deregistration(), "{:?}", t.name());
            let d = swx(SwxRequest::sar(t).with_state(registered()));
            assert!(
                d.adjustments.contains(Adjustment::Release),
                "{:?}",
                t.name()
            );
            assert!(
                !d.adjustments.contains(Adjustment::Registered),
                "release replaces it"
            );
            low_is_throttled_first(registered_sar, d);
        }
        for t in [
            SAT,
            ServerAssignmentType::PGW_UPDATE,
            ServerAssignmentType::RESTORATION,
        ] {
            assert!(!t.is_deregistration());
            let c = swx(SwxRequest::sar(t));
            assert!(
                !c.adjustments.contains(Adjustment::Release),
                "{:?}",
                t.name()
            );
        }
    }
}

/// The PFCP table's counterpart of each state-aware sentence (the PFCP rows of the table in
/// the crate docs of `classify`).
mod pfcp_counterparts {
    use super::*;

    fn pfcp(ctx: RequestContext<'_>) -> Classification {
        Classifier::default().classify(&ctx.with_arp([8]))
    }

    fn establishment() -> RequestContext<'static> {
        RequestContext::new(Procedure::SessionEstablishment)
    }

    #[test]
    fn the_deregistration_of_the_user_has_a_higher_priority_as_releasing_resources_in_the_hss() {
        // Session Deletion releases the UP function's resources.
        let deletion = pfcp(RequestContext::new(Procedure::SessionDeletion));
        assert!(deletion.adjustments.contains(Adjustment::Release));
        low_is_throttled_first(
            pfcp(RequestContext::new(Procedure::SessionModification)),
            deletion,
        );
    }

    #[test]
    fn the_mar_or_sar_of_a_registered_user_gets_a_higher_priority_to_maintain_the_service() {
        // Work on an established session ranks above new work, without the caller saying
        // so: the procedure implies the session exists.
        let modification = pfcp(RequestContext::new(Procedure::SessionModification));
        let report = pfcp(RequestContext::new(Procedure::SessionReport));
        assert!(modification.adjustments.contains(Adjustment::Registered));
        assert!(report.adjustments.contains(Adjustment::Registered));
        low_is_throttled_first(pfcp(establishment()), modification);
    }

    #[test]
    fn the_mar_of_a_user_not_registered_and_not_establishing_an_emergency_pdn_connection_gets_a_lower_priority(
    ) {
        let new = pfcp(establishment());
        assert!(new.adjustments.contains(Adjustment::NotRegistered));
        low_is_throttled_first(new, pfcp(establishment().with_emergency(true)));
    }

    #[test]
    fn after_a_not_throttled_and_successful_mar_the_subsequent_sars_have_a_higher_priority() {
        // The Session Establishment was admitted and accepted: the Modification that
        // completes the procedure (e.g. with the downlink F-TEID) ranks above other work.
        let now = t0();
        let mut sessions: StateTracker<u64, &str, &str> =
            StateTracker::new(TrackerConfig::default());
        sessions.on_established(7, Some("supi-7"), Some("upf-a"), now);
        sessions.on_first_step_succeeded(7, now);
        let follow_up = pfcp(
            RequestContext::new(Procedure::SessionModification).with_state(sessions.state(
                Some(&7),
                None,
                now,
            )),
        );
        assert!(follow_up.adjustments.contains(Adjustment::FollowsAdmitted));
        low_is_throttled_first(
            pfcp(RequestContext::new(Procedure::SessionModification)),
            follow_up,
        );
    }

    #[test]
    fn a_sar_pgw_update_for_an_additional_s6b_session_may_get_a_lower_priority() {
        // An additional PDU session of a UE that has one ranks below its first.
        let now = t0();
        let mut sessions: StateTracker<u64, &str, &str> =
            StateTracker::new(TrackerConfig::default());
        sessions.on_established(1, Some("supi-1"), Some("upf-a"), now);
        let second =
            pfcp(establishment().with_state(sessions.state(Some(&2), Some(&"supi-1"), now)));
        assert!(second.adjustments.contains(Adjustment::AdditionalSession));
        low_is_throttled_first(second, pfcp(establishment()));
        // "this SAR" only: the requests on the additional session once it is established
        // rank as on any session, even where the caller still says "additional".
        let flagged = RequestState::UNKNOWN.with_additional_session(true);
        for procedure in [
            Procedure::SessionModification,
            Procedure::SessionReport,
            Procedure::SessionDeletion,
        ] {
            let c = pfcp(RequestContext::new(procedure).with_state(flagged));
            assert!(
                !c.adjustments.contains(Adjustment::AdditionalSession),
                "{c}"
            );
            assert_eq!(c, pfcp(RequestContext::new(procedure)));
        }
    }

    #[test]
    fn a_mar_of_a_restoration_after_the_failure_of_the_old_aaa_server_may_get_a_lower_priority() {
        // The UP function restarted: re-establishing its sessions is a restoration storm.
        let now = t0();
        let mut sessions: StateTracker<u64, &str, &str> =
            StateTracker::new(TrackerConfig::default());
        sessions.on_established(1, Some("supi-1"), Some("upf-a"), now);
        sessions.on_peer_restart(&"upf-a", now);
        let again = pfcp(establishment().with_state(sessions.state(Some(&1), None, now)));
        assert!(again.adjustments.contains(Adjustment::Restoration));
        low_is_throttled_first(again, pfcp(establishment()));
    }

    #[test]
    fn a_request_after_an_admitted_re_establishment_ranks_above_a_new_establishment() {
        // The interaction of "such MAR messages" (the restoration's first request only) with
        // "after a not throttled and successful MAR, the subsequent requests ... have a
        // higher priority": once the re-establishment was admitted and accepted, the
        // Modification that completes it ranks above new work, even where the caller still
        // marks it as part of the restoration.
        let now = t0();
        let mut sessions: StateTracker<u64, &str, &str> =
            StateTracker::new(TrackerConfig::default());
        sessions.on_established(1, Some("supi-1"), Some("upf-a"), now);
        sessions.on_peer_restart(&"upf-a", now);
        let again = pfcp(establishment().with_state(sessions.state(Some(&1), None, now)));
        assert!(again.adjustments.contains(Adjustment::Restoration));
        sessions.on_established(1, Some("supi-1"), Some("upf-a"), now);
        sessions.on_first_step_succeeded(1, now);
        let marked = RequestState::UNKNOWN
            .with_restoration(true)
            .or(sessions.state(Some(&1), None, now));
        let modification =
            pfcp(RequestContext::new(Procedure::SessionModification).with_state(marked));
        assert!(
            !modification.adjustments.contains(Adjustment::Restoration),
            "{modification}"
        );
        assert!(modification
            .adjustments
            .contains(Adjustment::FollowsAdmitted));
        low_is_throttled_first(pfcp(establishment()), modification);
        low_is_throttled_first(again, modification);
    }

    #[test]
    fn after_an_admitted_establishment_every_later_request_ranks_above_that_establishment() {
        // The PFCP counterpart of "otherwise ... the initial MAR ... has been useless": for
        // every state, a Modification, Report or Deletion that follows an admitted
        // Establishment ranks above the Establishment with the same facts.
        for state in every_state() {
            let first = pfcp(establishment().with_state(state));
            for procedure in [
                Procedure::SessionModification,
                Procedure::SessionReport,
                Procedure::SessionDeletion,
            ] {
                let later = pfcp(
                    RequestContext::new(procedure).with_state(state.with_follows_admitted(true)),
                );
                assert!(
                    value(later) < value(first),
                    "{later} after {first} ({state:?})"
                );
            }
        }
    }

    #[test]
    fn emergency_pdn_connection_requests_have_the_highest_priority_and_are_the_last_to_be_throttled(
    ) {
        let e = pfcp(RequestContext::new(Procedure::SessionModification).with_emergency(true));
        assert_eq!(
            (e.rule, value(e), e.class.exempt),
            (Rule::Emergency, 0, true)
        );
        let shares = shed_shares(
            40,
            &[
                e.class,
                pfcp(RequestContext::new(Procedure::SessionDeletion)).class,
            ],
        );
        assert!(shares[0] < 0.02 && shares[1] > 0.75, "{shares:?}");
    }
}
