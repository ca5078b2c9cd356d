//! Scenario tests of the sans-IO `Node` in virtual time (project issue "a sans-IO Node",
//! sections 2-4): CP and UP nodes wired back to back in memory, no sockets, no sleeps; each
//! test states the protocol rule it holds the node to.

#![allow(clippy::disallowed_methods)] // One clock read per test: the origin of virtual time.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_node::{
    AdmissionConfig, CpConfig, LocalNode, Node, NodeConfig, NodeEvent, PeerEvent, RequestId,
    RequestProfile, Response, ResponseOrigin,
};
use pfcp_overload::NodeKey;
use pfcp_sim::responder::{Answer, Responder};
use pfcp_sim::traffic::{build_request, Step};
use pfcp_wire::ie::{NodeId, RecoveryTimeStamp};
use pfcp_wire::{Cause, Encode, MessagePriority, MessageType};

const UP: &str = "192.0.2.1:8805";
const CP: &str = "198.51.100.1:8805";

fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap()
}

/// A CP node and a UP node (which answers sessions with pfcp-sim's responder), a link of
/// `delay` each way, and a clock.
struct Pair {
    t0: Instant,
    now: Instant,
    delay: Duration,
    cp: Node,
    up: Node,
    up_up: bool,
    responder: Responder,
    wire: VecDeque<(Instant, bool, Bytes)>,
    outcomes: Vec<(RequestId, Result<Response, pfcp_node::RequestError>)>,
    cp_events: Vec<PeerEvent>,
}

fn up_node(rts: u32, capacity: f64, now: Instant) -> (Node, Responder) {
    let key = NodeKey::fqdn("upf1.example.net");
    let local = LocalNode::up(key.clone(), RecoveryTimeStamp(rts));
    let admission = AdmissionConfig::new(key).with_service_rate(Some(capacity));
    let node = Node::new(
        NodeConfig::new(local.clone()).with_admission(admission),
        now,
    )
    .unwrap();
    let mut ie = Vec::new();
    NodeId::Fqdn(pfcp_wire::ie::Fqdn::from_dotted("upf1.example.net").unwrap())
        .encode(&mut ie)
        .unwrap();
    (node, Responder::new(local, ie, addr(UP).ip()))
}

fn cp_node(now: Instant) -> Node {
    // An FQDN Node ID: the UP's cause-74 rejections must carry the OCI to it too.
    let local = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(7));
    Node::new(NodeConfig::new(local).with_cp(CpConfig::default()), now).unwrap()
}

impl Pair {
    fn new(capacity: f64) -> Pair {
        let t0 = Instant::now();
        let (up, responder) = up_node(1000, capacity, t0);
        Pair {
            t0,
            now: t0,
            delay: Duration::from_millis(1),
            cp: cp_node(t0),
            up,
            up_up: true,
            responder,
            wire: VecDeque::new(),
            outcomes: Vec::new(),
            cp_events: Vec::new(),
        }
    }

    /// Move datagrams and events until both nodes are quiet at the current instant, then
    /// deliver what is due, repeatedly, up to `until`.
    fn run_until(&mut self, until: Instant) {
        let mut turns = 0u64;
        loop {
            turns += 1;
            if turns > 2_000_000 {
                panic!(
                    "no progress at {:?}: cp {:?} up {:?} wire {}",
                    self.now.duration_since(self.t0),
                    self.cp
                        .poll_timeout()
                        .map(|t| t.saturating_duration_since(self.t0)),
                    self.up
                        .poll_timeout()
                        .map(|t| t.saturating_duration_since(self.t0)),
                    self.wire.len()
                );
            }
            self.pump();
            let next_wire = self.wire.front().map(|(t, _, _)| *t);
            let next = [
                next_wire,
                self.cp.poll_timeout(),
                self.up_up.then(|| self.up.poll_timeout()).flatten(),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(t) = next.filter(|t| *t <= until) else {
                self.now = until;
                return;
            };
            self.now = self.now.max(t);
            if next_wire == Some(t) {
                let (_, to_up, bytes) = self.wire.pop_front().unwrap();
                if to_up {
                    if self.up_up {
                        self.up.handle_datagram(addr(CP), bytes, self.now);
                    }
                } else {
                    self.cp.handle_datagram(addr(UP), bytes, self.now);
                }
                continue;
            }
            self.cp.handle_timeout(self.now);
            if self.up_up {
                self.up.handle_timeout(self.now);
            }
        }
    }

    fn pump(&mut self) {
        loop {
            let mut any = false;
            while let Some(t) = self.cp.poll_transmit() {
                any = true;
                self.wire.push_back((self.now + self.delay, true, t.bytes));
            }
            while let Some(t) = self.up.poll_transmit() {
                any = true;
                if self.up_up {
                    self.wire.push_back((self.now + self.delay, false, t.bytes));
                }
            }
            while let Some(e) = self.cp.poll_event() {
                any = true;
                match e {
                    NodeEvent::Outcome { id, result } => self.outcomes.push((id, result)),
                    NodeEvent::Peer(p) => self.cp_events.push(p),
                    _ => {}
                }
            }
            while let Some(e) = self.up.poll_event() {
                any = true;
                if let NodeEvent::Request(req) = e {
                    let up = &self.up;
                    let answer = self
                        .responder
                        .answer(&req, |s| up.session(s).is_some())
                        .unwrap();
                    match answer {
                        Answer::Respond(b, _) => {
                            self.up.respond(&req.reference, b, self.now).unwrap()
                        }
                        Answer::Reject(c) => self.up.reject(&req.reference, c, self.now).unwrap(),
                    }
                }
            }
            if !any {
                return;
            }
        }
    }

    fn after(&mut self, d: Duration) {
        let until = self.now + d;
        self.run_until(until);
    }

    fn request(
        &mut self,
        step: Step,
        cp_seid: u64,
        up_seid: u64,
        profile: &RequestProfile,
    ) -> RequestId {
        let node_ie = {
            let mut v = Vec::new();
            NodeId::Fqdn(pfcp_wire::ie::Fqdn::from_dotted("smf1.example.net").unwrap())
                .encode(&mut v)
                .unwrap();
            v
        };
        let (h, ies) = build_request(step, cp_seid, up_seid, &node_ie, addr(CP).ip()).unwrap();
        self.cp
            .send_request(addr(UP), h, &ies, profile, self.now)
            .unwrap()
    }

    fn outcome(&self, id: RequestId) -> Option<&Result<Response, pfcp_node::RequestError>> {
        self.outcomes.iter().find(|(i, _)| *i == id).map(|(_, r)| r)
    }

    fn associate(&mut self) {
        let id = self.cp.associate(addr(UP), self.now).unwrap();
        self.after(Duration::from_millis(10));
        assert!(self.outcome(id).unwrap().as_ref().unwrap().is_accepted());
    }

    fn up_seid_of(&self, id: RequestId) -> u64 {
        let r = self.outcome(id).unwrap().as_ref().unwrap();
        r.message().unwrap().f_seid().unwrap().unwrap().seid
    }
}

#[test]
fn clause_6_2_6_a_restarted_up_is_set_up_again_and_its_sessions_reported_lost() {
    let mut p = Pair::new(1000.0);
    p.associate();
    let est = p.request(Step::Establish, 11, 0, &RequestProfile::default());
    p.after(Duration::from_millis(20));
    let up_seid = p.up_seid_of(est);
    assert!(p.cp.session(11).is_some(), "the CP's session table has it");
    // The UP goes away for 3 s, then comes back on the same address with a new Recovery
    // Time Stamp and nothing of the old association.
    p.up_up = false;
    p.after(Duration::from_secs(3));
    let (up, responder) = up_node(2000, 1000.0, p.now);
    p.up = up;
    p.responder = responder;
    p.up_up = true;
    let back = p.now;
    // The next request on the old session gets Cause 72: the CP learns the association is
    // gone, reports the session lost, and sets the association up again at once.
    let m = p.request(Step::Modify, 11, up_seid, &RequestProfile::default());
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
    assert!(p.cp.peers().is_associated(&addr(UP)), "associated again");
    // And a new establishment succeeds within 2 s of the UP being back.
    let e2 = p.request(Step::Establish, 12, 0, &RequestProfile::default());
    p.after(Duration::from_millis(20));
    assert!(p.outcome(e2).unwrap().as_ref().unwrap().is_accepted());
    assert!(p.now.duration_since(back) < Duration::from_secs(2));
    let _ = p.t0;
}

#[test]
fn a_silent_restart_is_seen_by_the_next_heartbeat() {
    let mut p = Pair::new(1000.0);
    p.associate();
    // The UP restarts between two heartbeats, no request in between.
    p.after(Duration::from_secs(1));
    let (up, responder) = up_node(3000, 1000.0, p.now);
    p.up = up;
    p.responder = responder;
    // The default heartbeat interval is 5 s: within it the CP sees the new stamp.
    p.after(Duration::from_secs(6));
    assert!(p
        .cp_events
        .iter()
        .any(|e| matches!(e, PeerEvent::Restarted { .. })));
    assert!(p.cp.peers().is_associated(&addr(UP)), "associated again");
    assert!(p.up.peers().is_associated(&addr(CP)), "the new UP knows it");
}

#[test]
fn a_burst_of_2000_establishments_gets_2000_answers_priority_0_first() {
    let mut p = Pair::new(2000.0);
    p.associate();
    let mut ids = Vec::new();
    for i in 0..2000u64 {
        let profile = if i % 10 == 0 {
            RequestProfile::emergency()
        } else {
            RequestProfile::default().with_arp(&[12])
        };
        ids.push((
            i % 10 == 0,
            p.request(Step::Establish, 100 + i, 0, &profile),
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
    let mut p = Pair::new(100.0);
    p.associate();
    let arp = RequestProfile::default().with_arp(&[9]);
    let mut ids = Vec::new();
    for i in 0..400u64 {
        ids.push(p.request(Step::Establish, 1 + i, 0, &arp));
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
    // The UP refuses most of 400 at 100/s (they wait longer than the queue's 200 ms), and its
    // OCI reaches the CP although the CP's Node ID is an FQDN (the UP's per-peer state is keyed
    // by Node ID, learned in the association).
    let rejected = responses
        .iter()
        .filter(|r| r.cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION))
        .count();
    assert!(rejected > 300, "{rejected}");
    assert!(responses.iter().any(|r| r
        .message()
        .unwrap()
        .overload_control_information()
        .unwrap()
        .is_some()));
    let upf = pfcp_node::cp::Destination::node(NodeKey::fqdn("upf1.example.net"));
    assert!(p.cp.cp().unwrap().reduction(&upf, p.now) > 0);
    // And the CP applies it: it throttles locally, in the shape of the UP's rejection.
    let mut locals = 0;
    for i in 0..50u64 {
        let id = p.request(Step::Establish, 10_000 + i, 0, &arp);
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
