//! The node's message-priority policy ([`PriorityPolicy`], TS 29.244 6.2.4.5.2: whether to set
//! and whether to use the header's message priority is operator policy) through sans-IO
//! `Node`s in virtual time: each flag off and on, so that each test would fail if the flag did
//! nothing.

use std::time::Duration;

use pfcp_e2e::net::{cp_addr, up_addr, up_key, End, Net, UpSpec};
use pfcp_node::{
    AdmissionConfig, CpConfig, LocalNode, Node, NodeConfig, PriorityPolicy, RequestId,
    RequestProfile,
};
use pfcp_sim::traffic::{build_request, Step};
use pfcp_wire::ie::{Fqdn, NodeId, RecoveryTimeStamp};
use pfcp_wire::{Cause, Encode, Header, Message, MessagePriority, MessageType};

/// The headers of the session requests the CP put on the link so far.
fn cp_requests_on_the_wire(n: &Net) -> Vec<Header> {
    n.wire
        .iter()
        .filter(|(_, from, _, _)| *from == End::Cp)
        .filter_map(|(_, _, _, bytes)| Message::decode(bytes).ok())
        .map(|m| *m.header())
        .filter(|h| h.message_type.is_session() == Some(true))
        .collect()
}

#[test]
fn a_cp_with_set_on_requests_off_sends_no_message_priority() {
    let arp9 = RequestProfile::default().with_arp(&[9]);
    for set in [true, false] {
        let cp = NodeConfig::new(Net::cp_local())
            .with_cp(CpConfig::default())
            .with_priority_policy(PriorityPolicy::default().with_set_on_requests(set));
        let mut n = Net::new(cp, &[UpSpec::default()]);
        n.associate_all();
        let e1 = n.establish(0, 1, &arp9);
        let e2 = n.establish(0, 2, &RequestProfile::emergency());
        n.pump();
        let sent = cp_requests_on_the_wire(&n);
        assert_eq!(sent.len(), 2, "set_on_requests {set}");
        let priorities: Vec<Option<u8>> = sent
            .iter()
            .map(|h| h.priority.map(MessagePriority::value))
            .collect();
        if set {
            // The classifier's: ARP 9 on a new session, and the emergency class (0).
            assert_eq!(priorities, [Some(9), Some(0)]);
        } else {
            assert_eq!(priorities, [None, None], "no MP on any request");
        }
        // And the UP's responses copy what the requests carried (7.2.2.4.1).
        n.after(Duration::from_millis(5));
        for (id, expect) in [(e1, priorities[0]), (e2, priorities[1])] {
            let r = n.outcome(id).unwrap().as_ref().unwrap();
            assert!(r.is_accepted(), "{r:?}");
            let got = r.message().unwrap().header().priority;
            assert_eq!(
                got.map(MessagePriority::value),
                expect,
                "set_on_requests {set}"
            );
        }
    }
}

/// A UP function serving `rate` session requests per second, as [`UpSpec::admitting`] builds
/// it, with `policy`.
fn up_with_policy(rate: f64, policy: PriorityPolicy, n: &Net) -> Node {
    let config = NodeConfig::new(LocalNode::up(up_key(0), RecoveryTimeStamp(1000)))
        .with_heartbeat_interval(UpSpec::admitting(rate).heartbeat)
        .with_admission(AdmissionConfig::new(up_key(0)).with_service_rate(Some(rate)))
        .with_priority_policy(policy);
    Node::new(config, n.now).unwrap()
}

/// The CP sends a Session Establishment Request for its session `cp_seid` to the UP with
/// `priority` already in the header (a CP function's own marking, which the node keeps).
fn establish_marked(n: &mut Net, cp_seid: u64, priority: MessagePriority) -> RequestId {
    let mut node_ie = Vec::new();
    NodeId::Fqdn(Fqdn::from_dotted("smf1.example.net").unwrap())
        .encode(&mut node_ie)
        .unwrap();
    let (h, ies) = build_request(Step::Establish, cp_seid, 0, &node_ie, cp_addr().ip()).unwrap();
    assert_eq!(h.message_type, MessageType::SESSION_ESTABLISHMENT_REQUEST);
    let profile = RequestProfile::default().with_arp(&[12]);
    n.cp.send_request(up_addr(0), h.with_priority(priority), &ies, &profile, n.now)
        .unwrap()
}

#[test]
fn a_up_with_trust_received_off_ranks_every_request_at_its_default_priority() {
    // A burst of 2000 establishments of one low-importance class (ARP 12) at a UP function
    // that serves 2000/s: every other one comes marked MP=0 by the CP function, the others
    // with the priority the CP's classifier gives (12). The UP's queue holds 15 ms of work,
    // so it accepts a small part of the burst.
    let mut accepted = Vec::new();
    for trust in [true, false] {
        let mut n = Net::pair(2000.0);
        let policy = PriorityPolicy::default().with_trust_received(trust);
        n.ups[0].node = up_with_policy(2000.0, policy, &n);
        n.associate(0);
        let mut ids = Vec::new();
        for i in 0..2000u64 {
            let marked = i % 2 == 0;
            let id = if marked {
                establish_marked(&mut n, 100 + i, MessagePriority::HIGHEST)
            } else {
                n.establish(0, 100 + i, &RequestProfile::default().with_arp(&[12]))
            };
            ids.push((marked, id));
        }
        n.after(Duration::from_secs(2));
        let (mut marked_ok, mut other_ok) = (0u32, 0u32);
        for (marked, id) in &ids {
            let r = n
                .outcome(*id)
                .expect("every request is answered")
                .as_ref()
                .unwrap();
            assert!(
                !r.is_local(),
                "the burst is sent: the UP has said nothing yet"
            );
            assert!(r.is_accepted() || r.cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION));
            if r.is_accepted() {
                if *marked {
                    marked_ok += 1;
                } else {
                    other_ok += 1;
                }
            }
        }
        accepted.push((trust, marked_ok, other_ok));
    }
    let [(_, trusted_marked, trusted_other), (_, untrusted_marked, untrusted_other)] = accepted[..]
    else {
        unreachable!()
    };
    // Trusted: the marked half goes first, and the UP accepts almost only it.
    assert!(
        trusted_marked > 0 && trusted_other * 10 <= trusted_marked,
        "{accepted:?}"
    );
    // Not trusted: both halves rank at the default priority, and neither gets precedence:
    // the accepted requests split about evenly between them.
    let total = untrusted_marked + untrusted_other;
    assert!(total > 0, "{accepted:?}");
    let share = f64::from(untrusted_marked) / f64::from(total);
    assert!((0.35..=0.65).contains(&share), "{accepted:?}");
}
