//! Scenario tests of the sans-IO `Node` in virtual time (project issue "a sans-IO Node",
//! sections 2-4): CP and UP nodes wired back to back in memory, no sockets, no sleeps; each
//! test states the protocol rule it holds the node to.

use std::time::Duration;

use pfcp_node::{PeerEvent, RequestProfile, Response, ResponseOrigin};
use pfcp_overload::NodeKey;
use pfcp_sim::traffic::Step;
use pfcp_wire::{Cause, MessagePriority, MessageType};

use pfcp_e2e::net::{cp_addr, up_addr, Net};

#[test]
fn clause_6_2_6_a_restarted_up_is_set_up_again_and_its_sessions_reported_lost() {
    let mut p = Net::pair(1000.0);
    p.associate(0);
    let est = p.send(0, Step::Establish, 11, 0, &RequestProfile::default());
    p.after(Duration::from_millis(20));
    let up_seid = p.up_seid_of(est);
    assert!(p.cp.session(11).is_some(), "the CP's session table has it");
    // The UP goes away for 3 s, then comes back on the same address with a new Recovery
    // Time Stamp and nothing of the old association.
    p.ups[0].alive = false;
    p.after(Duration::from_secs(3));
    p.restart_up(0, 2000);
    p.ups[0].alive = true;
    let back = p.now;
    // The next request on the old session gets Cause 72: the CP learns the association is
    // gone, reports the session lost, and sets the association up again at once.
    let m = p.send(0, Step::Modify, 11, up_seid, &RequestProfile::default());
    p.after(Duration::from_millis(50));
    let r = p.outcome(m).unwrap().as_ref().unwrap();
    assert_eq!(r.cause, Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION));
    assert!(p
        .cp_events
        .iter()
        .any(|e| matches!(e, PeerEvent::NotAssociated { .. })));
    let lost: Vec<u64> = p
        .cp_events
        .iter()
        .filter_map(|e| match e {
            PeerEvent::SessionsLost { sessions, .. } => Some(sessions.iter().map(|s| s.local_seid)),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(lost, vec![11]);
    assert!(p.cp.session(11).is_none());
    assert!(p.cp.peers().is_associated(&up_addr(0)), "associated again");
    // And a new establishment succeeds within 2 s of the UP being back.
    let e2 = p.send(0, Step::Establish, 12, 0, &RequestProfile::default());
    p.after(Duration::from_millis(20));
    assert!(p.outcome(e2).unwrap().as_ref().unwrap().is_accepted());
    assert!(p.now.duration_since(back) < Duration::from_secs(2));
}

#[test]
fn a_silent_restart_is_seen_by_the_next_heartbeat() {
    let mut p = Net::pair(1000.0);
    p.associate(0);
    // The UP restarts between two heartbeats, no request in between.
    p.after(Duration::from_secs(1));
    p.restart_up(0, 3000);
    // The default heartbeat interval is 5 s: within it the CP sees the new stamp.
    p.after(Duration::from_secs(6));
    assert!(p
        .cp_events
        .iter()
        .any(|e| matches!(e, PeerEvent::Restarted { .. })));
    assert!(p.cp.peers().is_associated(&up_addr(0)), "associated again");
    assert!(
        p.ups[0].node.peers().is_associated(&cp_addr()),
        "the new UP knows it"
    );
}

#[test]
fn a_burst_of_2000_establishments_gets_2000_answers_priority_0_first() {
    let mut p = Net::pair(2000.0);
    p.associate(0);
    let mut ids = Vec::new();
    for i in 0..2000u64 {
        let profile = if i % 10 == 0 {
            RequestProfile::emergency()
        } else {
            RequestProfile::default().with_arp(&[12])
        };
        ids.push((
            i % 10 == 0,
            p.send(0, Step::Establish, 100 + i, 0, &profile),
        ));
    }
    p.after(Duration::from_secs(2));
    let mut answered = 0;
    let mut priority_accepted = 0;
    for (emergency, id) in &ids {
        let r = p
            .outcome(*id)
            .expect("every request is answered")
            .as_ref()
            .unwrap();
        assert!(
            !r.is_local(),
            "the first burst is sent: the UP has said nothing yet"
        );
        assert!(r.is_accepted() || r.cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION));
        answered += 1;
        if *emergency && r.is_accepted() {
            priority_accepted += 1;
        }
    }
    assert_eq!(answered, 2000);
    assert_eq!(priority_accepted, 200, "priority 0 is served first");
}

#[test]
fn clause_7_2_2_4_1_responses_carry_the_request_priority_and_74_carries_the_oci_to_an_fqdn_cp() {
    let mut p = Net::pair(100.0);
    p.associate(0);
    let arp = RequestProfile::default().with_arp(&[9]);
    let mut ids = Vec::new();
    // 400 over 200 ms: the storm outlasts the first control interval, so its later
    // refusals carry the reporter's OCI, not only the short-lived overflow OCI.
    for i in 0..400u64 {
        ids.push(p.send(0, Step::Establish, 1 + i, 0, &arp));
        if i % 2 == 1 {
            p.after(Duration::from_millis(1));
        }
    }
    p.after(Duration::from_secs(3));
    let responses: Vec<&Response> = ids
        .iter()
        .filter_map(|id| p.outcome(*id))
        .filter_map(|r| r.as_ref().ok())
        .filter(|r| r.origin == ResponseOrigin::Peer)
        .collect();
    assert!(!responses.is_empty());
    // The CP's classifier set a priority on the requests; every response copies it, the
    // responder's (which set none) and the node's own rejections alike.
    let priority = |r: &Response| r.message().unwrap().header().priority;
    let first = priority(responses[0]).expect("MP set");
    assert!(responses.iter().all(|r| priority(r) == Some(first)));
    assert!(first.is_higher_than(MessagePriority::LOWEST));
    // The UP refuses most of 400 at 100/s (they would wait longer than the queue's 15 ms), and its
    // OCI reaches the CP although the CP's Node ID is an FQDN (the UP's per-peer state is keyed
    // by Node ID, learned in the association).
    let rejected = responses
        .iter()
        .filter(|r| r.cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION))
        .count();
    // Fewer than in one burst: once the OCI arrives, the CP sheds most of the storm itself.
    assert!(rejected > 50, "{rejected}");
    assert!(responses.iter().any(|r| r
        .message()
        .unwrap()
        .overload_control_information()
        .unwrap()
        .is_some()));
    let upf = pfcp_node::cp::Destination::node(NodeKey::fqdn("upf1.example.net"));
    assert!(p.cp.reduction(&upf, p.now) > 0);
    // And the CP applies it: it throttles locally, in the shape of the UP's rejection.
    let mut locals = 0;
    for i in 0..50u64 {
        let id = p.send(0, Step::Establish, 10_000 + i, 0, &arp);
        p.after(Duration::from_millis(1));
        if let Some(Ok(r)) = p.outcome(id) {
            if r.is_local() {
                assert_eq!(r.cause, Some(Cause::PFCP_ENTITY_IN_CONGESTION));
                assert_eq!(
                    r.message().unwrap().message_type(),
                    MessageType::SESSION_ESTABLISHMENT_RESPONSE
                );
                locals += 1;
            }
        }
    }
    assert!(locals > 0);
}

#[test]
fn clause_6_2_4_3_the_ups_session_report_request_carries_its_new_oci_and_lci() {
    use pfcp_node::cp::Destination;
    use pfcp_wire::{Header, Message};
    let mut p = Net::pair(100.0);
    p.associate(0);
    let arp = RequestProfile::default().with_arp(&[9]);
    let first = p.send(0, Step::Establish, 1, 0, &arp);
    p.after(Duration::from_millis(50));
    assert!(p.outcome(first).unwrap().as_ref().unwrap().is_accepted());
    let upf = Destination::node(NodeKey::fqdn("upf1.example.net"));
    // A storm: the UP's rejections teach the CP its reduction. Over 200 ms, past the first
    // control interval: the reporter's OCI (valid 30 s) follows the overflow OCI (2 s).
    for i in 0..400u64 {
        p.send(0, Step::Establish, 100 + i, 0, &arp);
        if i % 2 == 1 {
            p.after(Duration::from_millis(1));
        }
    }
    p.after(Duration::from_secs(2));
    let told = p.cp.reduction(&upf, p.now);
    assert!(told > 0, "{told}");
    // Then quiet: the UP publishes a lower metric, which no response has carried yet.
    p.after(Duration::from_secs(6));
    let admission = p.ups[0].node.admission().unwrap();
    let current = admission.reporter().current_oci(true).unwrap();
    assert!(current.metric.percent() < told, "{current:?} vs {told}");
    assert_eq!(p.cp.reduction(&upf, p.now), told);
    // A usage report on the first session (Report Type USAR, Table 7.5.8.1-1) carries it.
    let h = Header::new(MessageType::SESSION_REPORT_REQUEST).with_seid(1);
    let up = &mut p.ups[0].node;
    up.send_request(
        cp_addr(),
        h,
        &[0x00, 0x27, 0x00, 0x01, 0x02],
        &RequestProfile::default(),
        p.now,
    )
    .unwrap();
    let sent = up.poll_transmit().unwrap();
    let report = Message::decode(&sent.bytes).unwrap();
    assert_eq!(report.message_type(), MessageType::SESSION_REPORT_REQUEST);
    let oci = report.overload_control_information().unwrap().unwrap();
    // The reporter's metric (its number goes out shifted past the overflow OCIs of the storm,
    // so that the CP takes it as newer: checked below, where the CP applies it).
    assert_eq!(oci.metric, current.metric);
    // Its load fell too, and the LCI goes with it (the CP supports LOAD).
    let lci = report.load_control_information().unwrap().unwrap();
    let load = p.ups[0].node.admission().unwrap().load_metric();
    assert_eq!(Some(lci.metric.percent()), load);
    // The CP applies it on receipt, before its application answers the report.
    p.cp.handle_datagram(up_addr(0), sent.bytes.clone(), p.now);
    let entity = Destination {
        node: NodeKey::fqdn("upf1.example.net"),
        entity: Some(up_addr(0).ip()),
    };
    let after = p.cp.reduction(&entity, p.now);
    assert_eq!(after, current.metric.percent(), "{oci:?}");
}
