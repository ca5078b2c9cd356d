//! The C.2 state (TS 29.273 Annex C.2) a CP `Node` keeps from what it sees, through the node
//! in virtual time ([`NodeConfig::with_state_tracker`]): each test is named by the sentence
//! of C.2 whose PFCP counterpart it holds, and checks both the classification the node
//! reports (the adjustments that fired) and the priority the request carried on the wire
//! (the UP's response copies it, TS 29.244 7.2.2.4.1).

use std::time::Duration;

use pfcp_e2e::net::{up_addr, Net, UpSpec};
use pfcp_node::{CpConfig, NodeConfig, PeerEvent, RequestId, RequestProfile};
use pfcp_sim::traffic::Step;
use pfcp_throttle::{Adjustment, Classification, RequestState, TrackerConfig};
use pfcp_wire::{Header, MessagePriority, MessageType};

fn net(tracker: bool) -> Net {
    let mut cp = NodeConfig::new(Net::cp_local())
        .with_cp(CpConfig::default())
        .with_heartbeat_interval(Some(Duration::from_millis(100)));
    if tracker {
        cp = cp.with_state_tracker(TrackerConfig::default());
    }
    let mut n = Net::new(cp, &[UpSpec::default()]);
    n.associate_all();
    n
}

/// Asserts the CP reported an event matching `pred`.
fn assert_saw(n: &Net, pred: impl Fn(&PeerEvent) -> bool) {
    assert!(n.cp_events.iter().any(pred), "{:?}", n.cp_events);
}

fn arp9() -> RequestProfile {
    RequestProfile::default().with_arp(&[9])
}

/// The priority the request carried, as the UP's response copies it.
fn wire_priority(n: &Net, id: RequestId) -> Option<MessagePriority> {
    let r = n.outcome(id)?.as_ref().ok()?;
    r.message().ok()?.header().priority
}

fn up_seid(n: &Net, id: RequestId) -> u64 {
    let r = n.outcome(id).unwrap().as_ref().unwrap();
    assert!(r.is_accepted(), "{r:?}");
    r.message().unwrap().f_seid().unwrap().unwrap().seid
}

/// How the node classifies a request of `message_type` on its session `cp_seid` (the
/// header SEID is the UP's, `up_seid`).
fn classify(
    n: &Net,
    message_type: MessageType,
    up_seid: Option<u64>,
    profile: &RequestProfile,
) -> Classification {
    let mut h = Header::new(message_type);
    if let Some(s) = up_seid {
        h = h.with_seid(s);
    }
    n.cp.classify(up_addr(0), &h, &[], profile, n.now).unwrap()
}

/// Establishes session `cp_seid` with `profile`: the UP's SEID.
fn establish(n: &mut Net, cp_seid: u64, profile: &RequestProfile) -> (RequestId, u64) {
    let id = n.establish(0, cp_seid, profile);
    n.after(Duration::from_millis(5));
    (id, up_seid(n, id))
}

#[test]
fn after_a_not_throttled_and_successful_first_step_the_subsequent_requests_have_a_higher_priority()
{
    let mut with = net(true);
    let mut without = net(false);
    let mut priorities = Vec::new();
    for n in [&mut with, &mut without] {
        let (_, up) = establish(n, 1, &arp9());
        let c = classify(
            n,
            MessageType::SESSION_MODIFICATION_REQUEST,
            Some(up),
            &arp9(),
        );
        let m = n.send(0, Step::Modify, 1, up, &arp9());
        n.after(Duration::from_millis(5));
        assert_eq!(wire_priority(n, m), Some(c.class.priority), "{c}");
        priorities.push((c, wire_priority(n, m)));
    }
    let (tracked, plain) = (&priorities[0], &priorities[1]);
    assert!(
        tracked.0.adjustments.contains(Adjustment::FollowsAdmitted),
        "{}",
        tracked.0
    );
    assert!(
        !plain.0.adjustments.contains(Adjustment::FollowsAdmitted),
        "{}",
        plain.0
    );
    assert!(
        tracked.1 < plain.1,
        "higher priority (smaller value): {tracked:?} {plain:?}"
    );
}

#[test]
fn a_sar_for_an_additional_session_of_a_registered_user_may_get_a_lower_priority() {
    // The PFCP counterpart: a further PDU session of a UE the CP already serves.
    let mut n = net(true);
    let ue = arp9().with_ue(42);
    let (first, _) = establish(&mut n, 1, &ue);
    let c = classify(
        &n,
        MessageType::SESSION_ESTABLISHMENT_REQUEST,
        None,
        &ue.clone().with_session(2),
    );
    assert!(c.adjustments.contains(Adjustment::AdditionalSession), "{c}");
    let (second, _) = establish(&mut n, 2, &ue);
    assert!(
        wire_priority(&n, second) > wire_priority(&n, first),
        "lower priority"
    );
    // Another UE's first session is not additional.
    let other = classify(
        &n,
        MessageType::SESSION_ESTABLISHMENT_REQUEST,
        None,
        &arp9().with_ue(7).with_session(3),
    );
    assert!(
        !other.adjustments.contains(Adjustment::AdditionalSession),
        "{other}"
    );
}

#[test]
fn in_a_restoration_procedure_a_lower_priority_may_be_given_to_the_re_establishments() {
    // The PFCP counterpart of C.2's restoration: the sessions a restarted UP function lost,
    // re-established (the storm C.2 warns about ranks below new work).
    let mut n = net(true);
    let (first, _) = establish(&mut n, 1, &arp9());
    n.restart_up(0, 5000);
    n.after(Duration::from_millis(500));
    assert_saw(&n, |e| matches!(e, PeerEvent::Restarted { .. }));
    assert!(n.cp.peers().is_associated(&up_addr(0)), "associated again");
    let c = classify(
        &n,
        MessageType::SESSION_ESTABLISHMENT_REQUEST,
        None,
        &arp9().with_session(1),
    );
    assert!(c.adjustments.contains(Adjustment::Restoration), "{c}");
    let fresh = classify(
        &n,
        MessageType::SESSION_ESTABLISHMENT_REQUEST,
        None,
        &arp9().with_session(9),
    );
    assert!(
        !fresh.adjustments.contains(Adjustment::Restoration),
        "{fresh}"
    );
    // The re-establishment goes with that lower priority; once accepted, the session is no
    // longer a restoration.
    let (again, up) = establish(&mut n, 1, &arp9());
    assert!(
        wire_priority(&n, again) > wire_priority(&n, first),
        "lower priority"
    );
    let after = classify(
        &n,
        MessageType::SESSION_MODIFICATION_REQUEST,
        Some(up),
        &arp9(),
    );
    assert!(
        !after.adjustments.contains(Adjustment::Restoration),
        "{after}"
    );
}

#[test]
fn the_sessions_of_a_up_function_that_stopped_answering_heartbeats_are_restorations_too() {
    // A server failure without a restart seen: the UP function goes silent, the CP's
    // heartbeats fail (6.2.2), its sessions are lost and re-established later. C.2 ranks
    // those re-establishments as restorations, as after a detected restart.
    let mut n = net(true);
    let (first, _) = establish(&mut n, 1, &arp9());
    n.ups[0].alive = false;
    for _ in 0..60 {
        n.after(Duration::from_secs(1));
        if n.cp_events
            .iter()
            .any(|e| matches!(e, PeerEvent::Failed { .. }))
        {
            break;
        }
    }
    assert_saw(&n, |e| matches!(e, PeerEvent::Failed { .. }));
    assert_saw(
        &n,
        |e| matches!(e, PeerEvent::SessionsLost { sessions, .. } if sessions.len() == 1),
    );
    let c = classify(
        &n,
        MessageType::SESSION_ESTABLISHMENT_REQUEST,
        None,
        &arp9().with_session(1),
    );
    assert!(c.adjustments.contains(Adjustment::Restoration), "{c}");
    // The UP function answers again (same Recovery Time Stamp): the CP sets the
    // association up again, and the re-establishment goes with the lower priority.
    n.ups[0].alive = true;
    for _ in 0..60 {
        n.after(Duration::from_secs(1));
        if n.cp.peers().is_associated(&up_addr(0)) {
            break;
        }
    }
    assert!(n.cp.peers().is_associated(&up_addr(0)), "associated again");
    let (again, _) = establish(&mut n, 1, &arp9());
    assert!(
        wire_priority(&n, again) > wire_priority(&n, first),
        "lower priority"
    );
}

#[test]
fn a_released_association_leaves_no_restorations() {
    // A release is planned (6.2.8): the CP's later establishments are new work.
    let mut n = net(true);
    let (_, _) = establish(&mut n, 1, &arp9());
    // The UP function releases the association: Association Release Request with its Node
    // ID (Table 7.4.4.5-1; IE type 60, FQDN type 2).
    let mut ies = vec![0x00, 0x3c, 0x00, 0x12, 0x02];
    ies.extend_from_slice(b"\x04upf1\x07example\x03net");
    n.ups[0]
        .node
        .send_request(
            pfcp_e2e::net::cp_addr(),
            Header::new(MessageType::ASSOCIATION_RELEASE_REQUEST),
            &ies,
            &RequestProfile::default(),
            n.now,
        )
        .unwrap();
    n.after(Duration::from_millis(50));
    assert_saw(&n, |e| matches!(e, PeerEvent::Released { .. }));
    let c = classify(
        &n,
        MessageType::SESSION_ESTABLISHMENT_REQUEST,
        None,
        &arp9().with_session(1),
    );
    assert!(!c.adjustments.contains(Adjustment::Restoration), "{c}");
}

#[test]
fn the_release_of_resources_has_a_higher_priority_and_the_released_session_is_forgotten() {
    let mut n = net(true);
    let (_, up) = establish(&mut n, 1, &arp9());
    let modify = classify(
        &n,
        MessageType::SESSION_MODIFICATION_REQUEST,
        Some(up),
        &arp9(),
    );
    let delete = classify(&n, MessageType::SESSION_DELETION_REQUEST, Some(up), &arp9());
    assert!(delete.adjustments.contains(Adjustment::Release), "{delete}");
    assert!(
        delete.class.priority < modify.class.priority,
        "{delete} vs {modify}"
    );
    assert_eq!(n.cp.state_tracker().unwrap().len(), 1);
    let d = n.send(0, Step::Delete, 1, up, &arp9());
    n.after(Duration::from_millis(5));
    assert!(n.outcome(d).unwrap().as_ref().unwrap().is_accepted());
    assert_eq!(n.cp.state_tracker().unwrap().len(), 0, "forgotten");
}

#[test]
fn the_caller_overrides_what_the_node_tracked() {
    let mut n = net(true);
    let (_, up) = establish(&mut n, 1, &arp9());
    let tracked = classify(
        &n,
        MessageType::SESSION_MODIFICATION_REQUEST,
        Some(up),
        &arp9(),
    );
    assert!(
        tracked.adjustments.contains(Adjustment::FollowsAdmitted),
        "{tracked}"
    );
    let said = arp9().with_state(RequestState::UNKNOWN.with_follows_admitted(false));
    let c = classify(
        &n,
        MessageType::SESSION_MODIFICATION_REQUEST,
        Some(up),
        &said,
    );
    assert!(!c.adjustments.contains(Adjustment::FollowsAdmitted), "{c}");
    let m = n.send(0, Step::Modify, 1, up, &said);
    n.after(Duration::from_millis(5));
    assert_eq!(wire_priority(&n, m), Some(c.class.priority));
}
