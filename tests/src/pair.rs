//! Two nodes back to back in virtual time: a CP [`Node`] and a UP [`Node`] (answering with
//! pfcp-sim's [`Responder`]) joined by an in-memory link, driven by one loop. Shared by the
//! scenario tests (`tests/node.rs`) and the memory measurement (`examples/memory.rs`).

#![allow(clippy::unwrap_used)] // Test support: a failure here is a failed test.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_node::{
    AdmissionConfig, CpConfig, LocalNode, Node, NodeConfig, NodeEvent, PeerEvent, RequestId,
    RequestProfile, Response,
};
use pfcp_overload::NodeKey;
use pfcp_sim::responder::{Answer, Responder};
use pfcp_sim::traffic::{build_request, Step};
use pfcp_wire::ie::{NodeId, RecoveryTimeStamp};
use pfcp_wire::Encode;

pub const UP: &str = "192.0.2.1:8805";
pub const CP: &str = "198.51.100.1:8805";

pub fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap()
}

/// A CP node and a UP node (which answers sessions with pfcp-sim's responder), a link of
/// `delay` each way, and a clock.
pub struct Pair {
    pub t0: Instant,
    pub now: Instant,
    pub delay: Duration,
    pub cp: Node,
    pub up: Node,
    pub up_up: bool,
    pub responder: Responder,
    pub wire: VecDeque<(Instant, bool, Bytes)>,
    pub outcomes: Vec<(RequestId, Result<Response, pfcp_node::RequestError>)>,
    pub cp_events: Vec<PeerEvent>,
}

pub fn up_node(rts: u32, capacity: f64, now: Instant) -> (Node, Responder) {
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

pub fn cp_node(now: Instant) -> Node {
    // An FQDN Node ID: the UP's cause-74 rejections must carry the OCI to it too.
    let local = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(7));
    Node::new(NodeConfig::new(local).with_cp(CpConfig::default()), now).unwrap()
}

impl Pair {
    pub fn new(capacity: f64) -> Pair {
        let t0 = pfcp_test_support::clock::origin();
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
    pub fn run_until(&mut self, until: Instant) {
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

    pub fn pump(&mut self) {
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

    pub fn after(&mut self, d: Duration) {
        let until = self.now + d;
        self.run_until(until);
    }

    pub fn request(
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

    pub fn outcome(&self, id: RequestId) -> Option<&Result<Response, pfcp_node::RequestError>> {
        self.outcomes.iter().find(|(i, _)| *i == id).map(|(_, r)| r)
    }

    pub fn associate(&mut self) {
        let id = self.cp.associate(addr(UP), self.now).unwrap();
        self.after(Duration::from_millis(10));
        assert!(self.outcome(id).unwrap().as_ref().unwrap().is_accepted());
    }

    pub fn up_seid_of(&self, id: RequestId) -> u64 {
        let r = self.outcome(id).unwrap().as_ref().unwrap();
        r.message().unwrap().f_seid().unwrap().unwrap().seid
    }
}
