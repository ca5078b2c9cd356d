//! One CP [`Node`] and several UP [`Node`]s (each answering sessions with pfcp-sim's
//! [`Responder`]) on an in-memory link in virtual time: the harness of the egress-throttling
//! scenarios (`tests/egress.rs`), where one CP function's connections to several UP functions
//! carry its requests, its answers, its retransmissions and its Heartbeats; of the C.2 state
//! (`tests/c2_node.rs`); and, as [`Net::pair`], of the two-node scenarios (`tests/node.rs`:
//! restarts, heartbeats, bursts against a UP's admission) and the memory measurement
//! (`examples/memory.rs`).
//!
//! A UP's other traffic towards the CP, when a test needs it, is its Heartbeat Requests every
//! [`UpSpec::heartbeat`]: the CP's Heartbeat Responses are answers on its connection to that
//! UP, counted in the connection's egress rate and never throttled.

#![allow(clippy::unwrap_used)] // Test support: a failure here is a failed test.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_node::admission::UpProfile;
use pfcp_node::{
    AdmissionConfig, CpConfig, LocalNode, Node, NodeConfig, NodeEvent, PeerEvent, RequestError,
    RequestId, RequestProfile, Response,
};
use pfcp_overload::NodeKey;
use pfcp_sim::responder::{Answer, Responder};
use pfcp_sim::traffic::{build_request, Step};
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::{NodeId, OverloadControlInformation, RecoveryTimeStamp};
use pfcp_wire::{Cause, Encode, Header};

/// The CP's address.
pub const CP_ADDR: &str = "198.51.100.1:8805";

/// The CP's address, parsed.
pub fn cp_addr() -> SocketAddr {
    CP_ADDR.parse().unwrap()
}

/// The address of UP `i` (0-based): 192.0.2.(i+1):8805.
pub fn up_addr(i: usize) -> SocketAddr {
    SocketAddr::from(([192, 0, 2, (i + 1) as u8], 8805))
}

/// The Node ID of UP `i`: `upf(i+1).example.net`.
pub fn up_key(i: usize) -> NodeKey {
    NodeKey::fqdn(&format!("upf{}.example.net", i + 1))
}

/// One end of the link.
///
/// The wire holds these, not `SocketAddr`s (32 bytes each), so that its entries are no larger
/// than a two-node link needs: `examples/memory.rs` counts the wire's buffer in its figure per
/// association.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The CP, at [`CP_ADDR`].
    Cp,
    /// UP `i`, at [`up_addr`]`(i)`.
    Up(u8),
}

impl End {
    /// Its address.
    pub fn addr(self) -> SocketAddr {
        match self {
            End::Cp => cp_addr(),
            End::Up(i) => up_addr(usize::from(i)),
        }
    }

    /// The end at `addr`: the CP's address, or any port of a UP's (192.0.2.1 to .255, whether
    /// the net has that UP or not).
    pub fn at(addr: SocketAddr) -> Option<End> {
        if addr == cp_addr() {
            return Some(End::Cp);
        }
        match addr.ip() {
            std::net::IpAddr::V4(v4) if v4.octets()[..3] == [192, 0, 2] => {
                v4.octets()[3].checked_sub(1).map(End::Up)
            }
            _ => None,
        }
    }
}

/// How a UP of the net behaves.
#[derive(Debug, Clone, Copy)]
pub struct UpSpec {
    /// Its Heartbeat interval towards the CP (its other traffic), `None`: none.
    pub heartbeat: Option<Duration>,
    /// Whether it answers at all (a dead UP makes the CP retransmit).
    pub alive: bool,
    /// The service rate of its admission, session requests per second (TS 29.244 6.2.4.3: what
    /// waits too long in its priority queue is refused with Cause 74 and its OCI); `None`: no
    /// admission, every session request reaches the responder at once.
    pub service_rate: Option<f64>,
    /// The overload and load control behaviour of its admission (`None`: this toolkit's).
    pub profile: Option<UpProfile>,
}

impl Default for UpSpec {
    fn default() -> Self {
        UpSpec {
            heartbeat: None,
            alive: true,
            service_rate: None,
            profile: None,
        }
    }
}

impl UpSpec {
    /// A UP function as deployed: an admission serving `rate` session requests per second and
    /// the node's default Heartbeat interval (a restart between two requests is then seen by
    /// the Heartbeats, as in a real network).
    pub fn admitting(rate: f64) -> UpSpec {
        let defaults = NodeConfig::new(LocalNode::up(up_key(0), RecoveryTimeStamp(0)));
        UpSpec {
            heartbeat: defaults.heartbeat_interval,
            alive: true,
            service_rate: Some(rate),
            profile: None,
        }
    }
}

/// A UP function of the net.
pub struct Up {
    /// The node.
    pub node: Node,
    /// Its session answers.
    pub responder: Responder,
    /// Whether it receives and answers.
    pub alive: bool,
    /// An OCI it adds to each of its session responses (as an overloaded UP function does,
    /// TS 29.244 6.2.4.3), if any.
    pub oci: Option<OverloadControlInformation>,
    /// What it was built from, so that a restart builds the same UP again.
    spec: UpSpec,
}

/// The CP, its UPs, the link and the clock.
pub struct Net {
    /// The origin of virtual time.
    pub t0: Instant,
    /// Now.
    pub now: Instant,
    /// One-way delay of the link.
    pub delay: Duration,
    /// The CP node.
    pub cp: Node,
    /// The UP nodes.
    pub ups: Vec<Up>,
    /// Datagrams in flight: (arrival, from, to, bytes), in arrival order (one delay).
    pub wire: VecDeque<(Instant, End, End, Bytes)>,
    /// The outcomes of the CP's requests.
    pub outcomes: Vec<(RequestId, Result<Response, RequestError>)>,
    /// The CP's peer events.
    pub cp_events: Vec<PeerEvent>,
    /// Requests the CP answered (Session Report Requests and the like).
    pub cp_answered: u64,
    /// The outcomes of the UPs' own requests (Session Report Requests), by UP index.
    pub up_outcomes: Vec<(usize, RequestId, Result<Response, RequestError>)>,
}

fn node_ie(name: &str) -> Vec<u8> {
    let mut ie = Vec::new();
    NodeId::Fqdn(pfcp_wire::ie::Fqdn::from_dotted(name).unwrap())
        .encode(&mut ie)
        .unwrap();
    ie
}

/// UP `i` of `spec` with Recovery Time Stamp `rts`, created at `now`, and its responder.
fn up_node(i: usize, spec: &UpSpec, rts: u32, now: Instant) -> (Node, Responder) {
    let key = up_key(i);
    let name = format!("upf{}.example.net", i + 1);
    let local = LocalNode::up(key.clone(), RecoveryTimeStamp(rts));
    let mut config = NodeConfig::new(local.clone()).with_heartbeat_interval(spec.heartbeat);
    if let Some(rate) = spec.service_rate {
        let admission = AdmissionConfig::new(key).with_service_rate(Some(rate));
        // A clock's numbers count from the Recovery Time Stamp (NTP seconds of the start).
        let admission = spec.profile.unwrap_or_default().apply(admission, rts);
        config = config.with_admission(admission);
    }
    let node = Node::new(config, now).unwrap();
    (node, Responder::new(local, node_ie(&name), up_addr(i).ip()))
}

/// `message` with `ie` appended as its last IE, the header's length patched (octets 3-4,
/// TS 29.244 7.2.1: the length after the first four octets).
fn with_ie(message: &Bytes, ie: &impl Encode) -> Bytes {
    let mut v = message.to_vec();
    ie.encode(&mut v).unwrap();
    let len = u16::try_from(v.len() - 4).unwrap().to_be_bytes();
    v.splice(2..4, len);
    Bytes::from(v)
}

impl Net {
    /// A CP with `cp` (its local node: `smf1.example.net`) and one UP per spec, not yet
    /// associated.
    pub fn new(cp: NodeConfig, ups: &[UpSpec]) -> Net {
        let t0 = pfcp_test_support::clock::origin();
        let ups = ups
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                let (node, responder) = up_node(i, spec, 1000 + i as u32, t0);
                Up {
                    node,
                    responder,
                    alive: spec.alive,
                    oci: None,
                    spec: *spec,
                }
            })
            .collect();
        Net {
            t0,
            now: t0,
            delay: Duration::from_micros(100),
            cp: Node::new(cp, t0).unwrap(),
            ups,
            wire: VecDeque::new(),
            outcomes: Vec::new(),
            cp_events: Vec::new(),
            cp_answered: 0,
            up_outcomes: Vec::new(),
        }
    }

    /// Two nodes back to back: a CP with the default CP function configuration and one UP
    /// ([`UpSpec::admitting`] `rate`), 1 ms apart.
    pub fn pair(rate: f64) -> Net {
        // An FQDN Node ID: the UP's cause-74 rejections must carry the OCI to it too.
        let cp = NodeConfig::new(Net::cp_local()).with_cp(CpConfig::default());
        let mut net = Net::new(cp, &[UpSpec::admitting(rate)]);
        // A millisecond, not the default 100 µs: the two-node scenarios' queueing and timing
        // were written for it.
        net.delay = Duration::from_millis(1);
        net
    }

    /// The CP's local node for [`Net::new`].
    pub fn cp_local() -> LocalNode {
        LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(7))
    }

    /// UP `i` restarts: a new node on the same address with a new Recovery Time Stamp
    /// (`rts`) and nothing of its sessions or associations (TS 29.244 6.2.2: the CP detects
    /// it from the Recovery Time Stamp), built from its [`UpSpec`] again. Whether it is
    /// [`Up::alive`] does not change.
    pub fn restart_up(&mut self, i: usize, rts: u32) {
        let up = &mut self.ups[i];
        (up.node, up.responder) = up_node(i, &up.spec, rts, self.now);
    }

    /// Associate the CP with UP `i` and run 10 ms; the setup must have been accepted.
    pub fn associate(&mut self, i: usize) {
        let id = self.cp.associate(up_addr(i), self.now).unwrap();
        self.after(Duration::from_millis(10));
        assert!(self.outcome(id).unwrap().as_ref().unwrap().is_accepted());
    }

    /// Associate the CP with every UP that is alive.
    pub fn associate_all(&mut self) {
        for i in 0..self.ups.len() {
            if self.ups[i].alive {
                self.cp.associate(up_addr(i), self.now).unwrap();
            }
        }
        self.after(Duration::from_millis(10));
    }

    /// Move datagrams and events until every node is quiet at the current instant.
    pub fn pump(&mut self) {
        loop {
            let mut any = false;
            let at = self.now + self.delay;
            while let Some(t) = self.cp.poll_transmit() {
                any = true;
                // To an address off the net: lost.
                if let Some(to) = End::at(t.peer) {
                    self.wire.push_back((at, End::Cp, to, t.bytes));
                }
            }
            for i in 0..self.ups.len() {
                let from = End::Up(u8::try_from(i).unwrap());
                while let Some(t) = self.ups[i].node.poll_transmit() {
                    any = true;
                    if let Some(to) = End::at(t.peer).filter(|_| self.ups[i].alive) {
                        self.wire.push_back((at, from, to, t.bytes));
                    }
                }
            }
            while let Some(e) = self.cp.poll_event() {
                any = true;
                match e {
                    NodeEvent::Outcome { id, result } => self.outcomes.push((id, result)),
                    NodeEvent::Peer(p) => self.cp_events.push(p),
                    NodeEvent::Request(req) => {
                        // A UP's request (a Session Report Request): accepted.
                        let r = &req.reference;
                        let Some(rt) = r.message_type.response_type() else {
                            continue;
                        };
                        let mut h = Header::new(rt).with_sequence(r.sequence);
                        if r.seid.is_some() {
                            h = h.with_seid(req.remote_seid.unwrap_or(0));
                        }
                        let b = MessageBuilder::new(h).ie(Cause::REQUEST_ACCEPTED);
                        let mut buf = vec![0; b.encoded_len()];
                        b.encode_into(&mut buf).unwrap();
                        self.cp.respond(r, Bytes::from(buf), self.now).unwrap();
                        self.cp_answered += 1;
                    }
                    _ => {}
                }
            }
            for i in 0..self.ups.len() {
                while let Some(e) = self.ups[i].node.poll_event() {
                    any = true;
                    if let NodeEvent::Outcome { id, result } = e {
                        self.up_outcomes.push((i, id, result));
                        continue;
                    }
                    if let NodeEvent::Request(req) = e {
                        let up = &mut self.ups[i];
                        let node = &up.node;
                        let answer = up
                            .responder
                            .answer(&req, |s| node.session(s).is_some())
                            .unwrap();
                        match answer {
                            Answer::Respond(b, _) => {
                                let b = match &up.oci {
                                    Some(oci) => with_ie(&b, oci),
                                    None => b,
                                };
                                up.node.respond(&req.reference, b, self.now).unwrap()
                            }
                            Answer::Reject(c) => {
                                up.node.reject(&req.reference, c, self.now).unwrap()
                            }
                        }
                    }
                }
            }
            if !any {
                return;
            }
        }
    }

    /// Deliver what is due and fire the timers, repeatedly, up to `until`.
    pub fn run_until(&mut self, until: Instant) {
        let mut turns = 0u64;
        loop {
            turns += 1;
            // A bound on the work of one run, so that a livelock (a timer that never moves
            // on) fails with the state rather than hangs.
            if turns > 2_000_000 {
                let since = |t: Instant| t.saturating_duration_since(self.t0);
                panic!(
                    "no progress at {:?}: cp {:?} ups {:?} wire {}",
                    since(self.now),
                    self.cp.poll_timeout().map(since),
                    self.ups
                        .iter()
                        .map(|u| u.node.poll_timeout().map(since))
                        .collect::<Vec<_>>(),
                    self.wire.len()
                );
            }
            self.pump();
            let next_wire = self.wire.front().map(|(t, ..)| *t);
            let up_timers = self
                .ups
                .iter()
                .filter(|u| u.alive)
                .filter_map(|u| u.node.poll_timeout())
                .min();
            let next = [next_wire, self.cp.poll_timeout(), up_timers]
                .into_iter()
                .flatten()
                .min();
            let Some(t) = next.filter(|t| *t <= until) else {
                self.now = until;
                return;
            };
            self.now = self.now.max(t);
            if next_wire == Some(t) {
                let (_, from, to, bytes) = self.wire.pop_front().unwrap();
                match to {
                    End::Cp => self.cp.handle_datagram(from.addr(), bytes, self.now),
                    End::Up(i) => {
                        if let Some(up) = self.ups.get_mut(usize::from(i)).filter(|u| u.alive) {
                            up.node.handle_datagram(from.addr(), bytes, self.now);
                        }
                    }
                }
                continue;
            }
            self.cp.handle_timeout(self.now);
            for up in self.ups.iter_mut().filter(|u| u.alive) {
                up.node.handle_timeout(self.now);
            }
        }
    }

    /// Run for `d`.
    pub fn after(&mut self, d: Duration) {
        let until = self.now + d;
        self.run_until(until);
    }

    /// The CP sends a Session Establishment Request for its session `cp_seid` to UP `i`.
    pub fn establish(&mut self, i: usize, cp_seid: u64, profile: &RequestProfile) -> RequestId {
        self.send(i, Step::Establish, cp_seid, 0, profile)
    }

    /// The CP sends a request of `step` for its session `cp_seid` (the UP's `up_seid`) to UP
    /// `i`.
    pub fn send(
        &mut self,
        i: usize,
        step: Step,
        cp_seid: u64,
        up_seid: u64,
        profile: &RequestProfile,
    ) -> RequestId {
        let (h, ies) = build_request(
            step,
            cp_seid,
            up_seid,
            &node_ie("smf1.example.net"),
            cp_addr().ip(),
        )
        .unwrap();
        self.cp
            .send_request(up_addr(i), h, &ies, profile, self.now)
            .unwrap()
    }

    /// The outcome of request `id`, if it has come.
    pub fn outcome(&self, id: RequestId) -> Option<&Result<Response, RequestError>> {
        self.outcomes.iter().find(|(i, _)| *i == id).map(|(_, r)| r)
    }

    /// The UP's SEID of the session establishment `id` (the F-SEID of its response); the
    /// response must have come and carry one.
    pub fn up_seid_of(&self, id: RequestId) -> u64 {
        let r = self.outcome(id).unwrap().as_ref().unwrap();
        r.message().unwrap().f_seid().unwrap().unwrap().seid
    }
}
