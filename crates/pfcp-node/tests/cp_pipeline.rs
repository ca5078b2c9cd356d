//! The CP pipeline against two emulated UP functions, every message through the real codec:
//! the CP decides (throttle, redirect, reject locally), the UPs admit and serve
//! ([`UpAdmission`] with a service rate), answer with encoded Session Establishment
//! Responses carrying their OCI/LCI (accepted) or cause 74 (rejected), and the CP feeds the
//! decoded responses back. Deterministic: simulated time in 1 ms steps, seeded draws.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_node::admission::{AdmissionConfig, Admit, QueuedRequest, UpAdmission};
use pfcp_node::cp::{CpConfig, CpDecision, CpOverloadControl, CpRequest, Destination};
use pfcp_overload::{NodeKey, ReporterConfig};
use pfcp_throttle::{RequestContext, RouteGroup, RouteList};
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::{FSeid, NodeId};
use pfcp_wire::{Cause, Header, IeType, Message, MessageType, SequenceNumber};

#[allow(clippy::disallowed_methods)] // Tests need an arbitrary base instant; the code never reads the clock.
fn base() -> Instant {
    Instant::now()
}

const MS: Duration = Duration::from_millis(1);
const SER: MessageType = MessageType::SESSION_ESTABLISHMENT_REQUEST;
const SERSP: MessageType = MessageType::SESSION_ESTABLISHMENT_RESPONSE;
/// Marks an emergency session in the CP SEID, so the test can follow it through the UPs.
const EMERGENCY: u64 = 1 << 63;

/// Create PDR and Create FAR of the minimal request of digest section 4.14.
const TEMPLATE: [u8; 94] = [
    0x23, 0x32, 0x00, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x02, 0x50, 0x00, 0x3c, 0x00, 0x05,
    0x00, 0xc0, 0x00, 0x02, 0x0a, 0x00, 0x39, 0x00, 0x0d, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xc0,
    0x00, 0x02, 0x0a, 0x00, 0x01, 0x00, 0x1f, 0x00, 0x38, 0x00, 0x02, 0x00, 0x01, 0x00, 0x1d, 0x00,
    0x04, 0x00, 0x00, 0x00, 0xff, 0x00, 0x02, 0x00, 0x05, 0x00, 0x14, 0x00, 0x01, 0x00, 0x00, 0x6c,
    0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x03, 0x00, 0x0d, 0x00, 0x6c, 0x00, 0x04, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x2c, 0x00, 0x01, 0x02,
];

const SMF_IP: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 10);

fn smf() -> NodeKey {
    NodeKey::Ip(SMF_IP.into())
}

struct Up {
    node: NodeKey,
    ip: Ipv4Addr,
    admission: UpAdmission,
    served: u64,
    served_emergency: u64,
    rejected: u64,
}

impl Up {
    fn new(n: u8, rate: f64, now: Instant) -> Up {
        let ip = Ipv4Addr::new(198, 51, 100, n);
        let node = NodeKey::Ip(ip.into());
        // One PFCP entity per UP function: node-scoped OCIs (AOCI=1), which throttle
        // establishments at the CP.
        let mut admission = UpAdmission::new(
            AdmissionConfig::new(node.clone())
                .with_service_rate(Some(rate))
                .with_queue_capacity(50)
                .with_reporter(ReporterConfig::default().with_node_scoped(true)),
            now,
        )
        .unwrap();
        admission.set_peer_support(smf(), true, true);
        Up {
            node,
            ip,
            admission,
            served: 0,
            served_emergency: 0,
            rejected: 0,
        }
    }

    fn dest(&self) -> Destination {
        Destination::node(self.node.clone())
    }

    /// An accepted Session Establishment Response to `req` with the OCI/LCI due.
    fn accept(&mut self, req: &QueuedRequest, cp_seid: u64, now: Instant) -> Vec<u8> {
        let peer = req.peer_key();
        let oci = self
            .admission
            .oci_for(&peer, SERSP, Some(Cause::REQUEST_ACCEPTED), now);
        let lci = self.admission.lci_for(&peer, SERSP);
        let header = Header::new(SERSP)
            .with_seid(cp_seid)
            .with_sequence(req.sequence)
            .with_priority(req.priority);
        let b = MessageBuilder::new(header)
            .ie(NodeId::Ipv4(self.ip))
            .ie(Cause::REQUEST_ACCEPTED)
            .ie(FSeid {
                seid: u64::from(req.sequence.value()),
                ipv4: Some(self.ip),
                ipv6: None,
            })
            .ie(lci)
            .ie(oci);
        let mut buf = vec![0u8; b.encoded_len()];
        b.encode_into(&mut buf).unwrap();
        buf
    }

    /// The cause-74 rejection of `req`.
    fn reject(&mut self, req: &QueuedRequest, now: Instant) -> Vec<u8> {
        self.rejected += 1;
        let peer = req.peer_key();
        let oci = self
            .admission
            .oci_for(&peer, SERSP, Some(Cause::PFCP_ENTITY_IN_CONGESTION), now);
        let lci = self.admission.lci_for(&peer, SERSP);
        self.admission
            .build_rejection(req, oci, lci)
            .unwrap()
            .to_vec()
    }
}

fn cp_seid_of(req: &QueuedRequest) -> u64 {
    Message::decode(&req.bytes)
        .unwrap()
        .f_seid()
        .unwrap()
        .unwrap()
        .seid
}

/// A valid Session Establishment Request.
fn establishment(seq: SequenceNumber, priority: pfcp_wire::MessagePriority, cp_seid: u64) -> Bytes {
    let template = Message::decode(&TEMPLATE).unwrap();
    let header = Header::new(SER)
        .with_seid(0)
        .with_sequence(seq)
        .with_priority(priority);
    let b = MessageBuilder::new(header)
        .ie(NodeId::Ipv4(SMF_IP))
        .ie(FSeid {
            seid: cp_seid,
            ipv4: Some(SMF_IP),
            ipv6: None,
        })
        .ie(template.find(IeType::CREATE_PDR).unwrap())
        .ie(template.find(IeType::CREATE_FAR).unwrap());
    let mut buf = vec![0u8; b.encoded_len()];
    b.encode_into(&mut buf).unwrap();
    Bytes::from(buf)
}

#[derive(Default, Debug)]
struct Tally {
    offered: u64,
    emergency_offered: u64,
    local_rejects: u64,
    local_rejects_emergency: u64,
    redirected: u64,
    up_rejects: u64,
}

struct World {
    now: Instant,
    t0: Instant,
    cp: CpOverloadControl,
    ups: Vec<Up>,
    seq: SequenceNumber,
    rng: u64,
    tally: Tally,
    reductions: Vec<u8>,
}

impl World {
    fn new() -> World {
        let t0 = base();
        let ups = vec![Up::new(1, 1000.0, t0), Up::new(2, 3000.0, t0)];
        let routes =
            RouteList::new(vec![RouteGroup::new().with_peer(ups[1].dest(), 1)], 2).unwrap();
        // Driven decision by decision, without keeping requests: no holds.
        let cp = CpOverloadControl::new(CpConfig::default().with_exempt_hold(None))
            .unwrap()
            .with_routes(routes);
        World {
            now: t0,
            t0,
            cp,
            ups,
            seq: SequenceNumber::new(1).unwrap(),
            rng: 0x9E37_79B9_7F4A_7C15,
            tally: Tally::default(),
            reductions: Vec::new(),
        }
    }

    fn draw(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn up_index(&self, dest: &Destination) -> usize {
        self.ups.iter().position(|u| u.dest() == *dest).unwrap()
    }

    /// Deliver a UP's response to the CP (decoded, validated, fed back).
    fn deliver(&mut self, from: usize, bytes: &[u8]) {
        let msg = Message::decode(bytes).unwrap();
        msg.validate().unwrap();
        let dest = self.ups[from].dest();
        let out = self.cp.handle_response(&dest, &msg, self.now);
        if let Some(o) = out.oci {
            // Every OCI a UP sends is new, except that a cause-74 rejection repeats the
            // overflow OCI in force (admission module docs): the same number, which the CP
            // ignores without restarting its timer (clause 6.2.4.3.2 NOTE 1). Never stale.
            let refusal = msg.cause().unwrap() == Some(Cause::PFCP_ENTITY_IN_CONGESTION);
            let repeat = matches!(
                o,
                pfcp_overload::OciOutcome::Ignored {
                    reason: pfcp_overload::IgnoreReason::Duplicate,
                    ..
                }
            );
            assert!(
                matches!(o, pfcp_overload::OciOutcome::Applied { .. }) || (refusal && repeat),
                "every OCI a UP sends is new (or a refusal's repeat): {o:?}"
            );
        }
        if msg.cause().unwrap() == Some(Cause::PFCP_ENTITY_IN_CONGESTION) {
            self.tally.up_rejects += 1;
        }
    }

    /// One new session request towards UP 0 (1 in 20 an emergency).
    fn request(&mut self) {
        let emergency = self.tally.offered % 20 == 0;
        self.tally.offered += 1;
        let ctx = if emergency {
            self.tally.emergency_offered += 1;
            RequestContext {
                emergency: true,
                ..RequestContext::default()
            }
        } else {
            RequestContext {
                arp: [9].into(),
                ..RequestContext::default()
            }
        };
        let primary = self.ups[0].dest();
        let draw = self.draw();
        let req = CpRequest::new(&primary, SER, ctx)
            .with_redirect(true)
            .with_draw(draw);
        let (to, priority) = match self.cp.decide(&req, self.now) {
            CpDecision::Send { priority, dest, .. } => (dest, priority),
            CpDecision::Redirect { to, priority, .. } => {
                self.tally.redirected += 1;
                (to, priority)
            }
            CpDecision::Reject { cause, .. } => {
                assert_eq!(cause, Cause::PFCP_ENTITY_IN_CONGESTION);
                self.tally.local_rejects += 1;
                if emergency {
                    self.tally.local_rejects_emergency += 1;
                }
                return;
            }
            other => panic!("no hold configured: {other:?}"),
        };
        let seq = self.seq;
        self.seq = seq.next();
        let cp_seid = u64::from(seq.value()) | if emergency { EMERGENCY } else { 0 };
        let i = self.up_index(&to);
        let bytes = establishment(seq, priority, cp_seid);
        let addr = SocketAddr::from((SMF_IP, 8805));
        let up = &mut self.ups[i];
        let req = up.admission.request_from(addr, bytes, Some(smf())).unwrap();
        let refused = match up.admission.offer(req, self.now) {
            Admit::Queued { evicted } => evicted,
            Admit::Rejected { request, .. } => Some(request),
            Admit::Bypass(r) => panic!("{r:?}"),
        };
        if let Some(r) = refused {
            assert_eq!(
                cp_seid_of(&r) & EMERGENCY,
                0,
                "an emergency request was refused"
            );
            let bytes = self.ups[i].reject(&r, self.now);
            self.deliver(i, &bytes);
        }
    }

    /// Run `ms` milliseconds with `per_ms` requests offered per millisecond.
    fn run(&mut self, ms: u32, per_ms: u32) {
        for _ in 0..ms {
            for _ in 0..per_ms {
                self.request();
            }
            for i in 0..self.ups.len() {
                while let Some(req) = self.ups[i].admission.poll_ready(self.now) {
                    let cp_seid = cp_seid_of(&req);
                    self.ups[i].served += 1;
                    if cp_seid & EMERGENCY != 0 {
                        self.ups[i].served_emergency += 1;
                    }
                    let bytes = self.ups[i].accept(&req, cp_seid, self.now);
                    self.deliver(i, &bytes);
                }
                self.ups[i].admission.handle_timeout(self.now);
            }
            self.cp.handle_timeout(self.now);
            if self.now.duration_since(self.t0).as_millis() % 100 == 0 {
                let d = self.ups[0].dest();
                self.reductions.push(self.cp.reduction(&d, self.now));
            }
            self.now += MS;
        }
    }
}

#[test]
fn cp_throttles_and_redirects_towards_an_overloaded_up() {
    let mut w = World::new();
    // 3 establishments per ms towards UP 1, which serves 1 per ms: 3x.
    w.run(3000, 3);
    let onset = std::mem::take(&mut w.tally);
    let served_before = w.ups[0].served;
    let rejected_before = w.ups[0].rejected;
    w.run(2000, 3);
    let steady = std::mem::take(&mut w.tally);
    let up1_served = w.ups[0].served - served_before;
    let up1_rejected = w.ups[0].rejected - rejected_before;

    // The UP function asked for about two thirds less, and the CP applies it.
    let r = w.cp.reduction(&w.ups[0].dest(), w.now);
    assert!(
        (55..=80).contains(&r),
        "reduction {r}, history {:?}",
        w.reductions
    );
    // UP 1 works near capacity (the published metric moves in 5-point steps) while its own
    // rejections stay rare: the shedding happens at
    // the CP, before the requests are sent.
    assert!(
        up1_served >= 1800,
        "UP 1 served {up1_served} in 2 s, reductions {:?}",
        w.reductions
    );
    assert!(
        up1_rejected * 20 <= steady.offered,
        "UP 1 rejected {up1_rejected} of {} offered",
        steady.offered
    );
    // What UP 1 cannot take goes to UP 2 (the route list), and nothing is lost.
    assert!(steady.redirected * 2 >= steady.offered, "{steady:?}");
    assert_eq!(
        steady.local_rejects, 0,
        "UP 2 has room for every redirect: {steady:?}"
    );
    // Emergency sessions are never refused, by the CP or by a UP.
    for t in [&onset, &steady] {
        assert_eq!(t.local_rejects_emergency, 0, "{t:?}");
    }
    // The CP's own view of UP 2: loaded but not overloaded.
    assert_eq!(w.cp.reduction(&w.ups[1].dest(), w.now), 0);
    assert!(w
        .cp
        .link(&w.ups[1].node)
        .and_then(|l| l.load(w.now))
        .is_some());

    // Idle, then half of UP 1's capacity: the CP learns that the overload ended from the
    // zero OCI on UP 1's first response, and sends everything to UP 1 again.
    w.run(3000, 0);
    assert_eq!(w.ups[0].admission.overload_metric(), 0);
    let calm_start = w.ups[0].served;
    for _ in 0..1000 {
        w.run(1, 1);
        w.run(1, 0);
    }
    let calm = std::mem::take(&mut w.tally);
    assert_eq!(w.cp.reduction(&w.ups[0].dest(), w.now), 0);
    assert_eq!(calm.local_rejects, 0, "{calm:?}");
    assert!(calm.redirected <= 3, "{calm:?}");
    assert_eq!(w.ups[0].served - calm_start + calm.redirected, 1000);
    // Every emergency session was served, by one UP or the other.
    let emergency_served: u64 = w.ups.iter().map(|u| u.served_emergency).sum();
    assert!(w.ups.iter().all(|u| u.admission.is_empty()));
    assert_eq!(
        emergency_served,
        onset.emergency_offered + steady.emergency_offered + calm.emergency_offered
    );
}

#[test]
fn without_a_route_list_throttled_requests_fail_locally() {
    let mut w = World::new();
    w.cp.set_routes(None);
    w.run(3000, 3);
    let t = &w.tally;
    // About two thirds shed at the CP, locally, with cause 74; emergencies still all sent.
    assert_eq!(t.redirected, 0);
    assert!(t.local_rejects * 2 >= t.offered, "{t:?}");
    assert_eq!(t.local_rejects_emergency, 0, "{t:?}");
    assert_eq!(w.ups[1].served, 0);
    // UP 1's own rejections are the onset transient only.
    assert!(
        w.ups[0].rejected * 10 <= t.offered,
        "{} of {t:?}",
        w.ups[0].rejected
    );
}
