//! The procedures a node starts (TS 29.244 clauses 6.2.7 Association Update, 6.2.8
//! Association Release, 6.2.9 Node Report, 6.3.5 Session Report), through two sans-IO `Node`s
//! wired back to back in memory; and the node's answers to such requests written from the
//! message layouts.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_node::node::{Node, NodeConfig, NodeEvent};
use pfcp_node::procedures::ReleasePreparation;
use pfcp_node::procedures::{AssociationUpdate, NodeReport, NodeReportType, RemoteGtpuPeer};
use pfcp_node::{
    IncomingRequest, LocalNode, PeerEvent, RequestError, RequestId, RequestProfile, Response,
    ResponseOrigin,
};
use pfcp_overload::NodeKey;
use pfcp_test_support::clock::origin;
use pfcp_wire::ie::{
    ApplyAction, CreateFar, CreatePdr, FSeid, FarId, NodeId, Pdi, PdrId, RecoveryTimeStamp,
    ReportType, SourceInterface, Timer, TimerUnit, UpFunctionFeatures, UrSeqn, UrrId,
    UsageReportSrr, UsageReportTrigger,
};
use pfcp_wire::msg::{
    SessionEstablishmentRequest, SessionEstablishmentResponse, SessionReportRequest,
    SessionReportResponse,
};
use pfcp_wire::{Cause, Header, Message, MessageType, SequenceNumber};

const UP: &str = "192.0.2.1:8805";
const CP: &str = "192.0.2.10:8805";

fn up_addr() -> SocketAddr {
    UP.parse().unwrap()
}

fn cp_addr() -> SocketAddr {
    CP.parse().unwrap()
}

/// A UP node and a CP node in memory, the CP associated with the UP; what each reported.
struct Pair {
    up: Node,
    cp: Node,
    now: Instant,
    up_events: Vec<NodeEvent>,
    cp_events: Vec<NodeEvent>,
}

impl Pair {
    fn new() -> Pair {
        let now = origin();
        let up = Node::new(
            NodeConfig::new(LocalNode::up(
                NodeKey::fqdn("upf1.example.net"),
                RecoveryTimeStamp(3_900_000_000),
            )),
            now,
        )
        .unwrap();
        let cp = Node::new(
            NodeConfig::new(LocalNode::cp(
                NodeKey::fqdn("smf1.example.net"),
                RecoveryTimeStamp(3_900_000_001),
            )),
            now,
        )
        .unwrap();
        let mut pair = Pair {
            up,
            cp,
            now,
            up_events: Vec::new(),
            cp_events: Vec::new(),
        };
        pair.cp.associate(up_addr(), now).unwrap();
        pair.pump();
        assert!(pair.cp.peers().is_associated(&up_addr()));
        pair.up_events.clear();
        pair.cp_events.clear();
        pair
    }

    /// Carry datagrams both ways until both nodes are quiet; keep their events.
    fn pump(&mut self) {
        for _ in 0..8 {
            let mut moved = false;
            while let Some(t) = self.cp.poll_transmit() {
                assert_eq!(t.peer, up_addr());
                self.up.handle_datagram(cp_addr(), t.bytes, self.now);
                moved = true;
            }
            while let Some(t) = self.up.poll_transmit() {
                assert_eq!(t.peer, cp_addr());
                self.cp.handle_datagram(up_addr(), t.bytes, self.now);
                moved = true;
            }
            self.up_events
                .extend(std::iter::from_fn(|| self.up.poll_event()));
            self.cp_events
                .extend(std::iter::from_fn(|| self.cp.poll_event()));
            if !moved {
                return;
            }
        }
    }

    /// Time passes by `d` for both.
    fn advance(&mut self, d: Duration) {
        self.now += d;
        self.up.handle_timeout(self.now);
        self.cp.handle_timeout(self.now);
        self.pump();
    }

    /// The CP establishes session `cp_seid`; the UP answers with UP SEID `up_seid`.
    fn establish(&mut self, cp_seid: u64, up_seid: u64) {
        let pdrs =
            [CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS)).with_far_id(FarId(1))];
        let fars = [CreateFar::new(FarId(1), ApplyAction::FORW)];
        let cp_ip = Ipv4Addr::new(192, 0, 2, 10);
        let req = SessionEstablishmentRequest::new(
            NodeId::Ipv4(cp_ip),
            FSeid {
                seid: cp_seid,
                ipv4: Some(cp_ip),
                ipv6: None,
            },
            &pdrs,
            &fars,
        )
        .to_vec()
        .unwrap();
        let body = Message::decode(&req).unwrap().body().to_vec();
        let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
        let id = self
            .cp
            .send_request(
                up_addr(),
                header,
                &body,
                &RequestProfile::default(),
                self.now,
            )
            .unwrap();
        self.pump();
        let request = take_request(
            &mut self.up_events,
            MessageType::SESSION_ESTABLISHMENT_REQUEST,
        );
        let got = SessionEstablishmentRequest::parse(&request.bytes).unwrap();
        let rsp = SessionEstablishmentResponse::new(
            NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)),
            Cause::REQUEST_ACCEPTED,
        )
        .with_up_f_seid(FSeid {
            seid: up_seid,
            ipv4: Some(Ipv4Addr::new(192, 0, 2, 1)),
            ipv6: None,
        })
        .with_seid(got.cp_f_seid.seid)
        .with_sequence(request.reference.sequence)
        .to_vec()
        .unwrap();
        self.up
            .respond(&request.reference, rsp.into(), self.now)
            .unwrap();
        self.pump();
        assert!(take_outcome(&mut self.cp_events, id).unwrap().is_accepted());
    }
}

/// The request of type `t` among `events` (taken out).
fn take_request(events: &mut Vec<NodeEvent>, t: MessageType) -> IncomingRequest {
    let i = events
        .iter()
        .position(|e| matches!(e, NodeEvent::Request(r) if r.reference.message_type == t))
        .unwrap_or_else(|| panic!("no {t} among {events:?}"));
    match events.remove(i) {
        NodeEvent::Request(r) => r,
        _ => unreachable!(),
    }
}

/// The outcome of `id` among `events` (taken out).
fn take_outcome(events: &mut Vec<NodeEvent>, id: RequestId) -> Result<Response, RequestError> {
    let i = events
        .iter()
        .position(|e| matches!(e, NodeEvent::Outcome { id: i, .. } if *i == id))
        .unwrap_or_else(|| panic!("no outcome of {id} among {events:?}"));
    match events.remove(i) {
        NodeEvent::Outcome { result, .. } => result,
        _ => unreachable!(),
    }
}

fn peer_events(events: &[NodeEvent]) -> Vec<&PeerEvent> {
    events
        .iter()
        .filter_map(|e| match e {
            NodeEvent::Peer(p) => Some(p),
            _ => None,
        })
        .collect()
}

#[test]
fn clause_6_2_8_release_accepted_ends_the_association_and_its_sessions_on_both_sides() {
    let mut p = Pair::new();
    p.establish(0x11, 0x22);
    assert_eq!(p.cp.session_count(), 1);
    assert_eq!(p.up.session_count(), 1);
    let id = p.cp.release_association(up_addr(), p.now).unwrap();
    p.pump();
    let rsp = take_outcome(&mut p.cp_events, id).unwrap();
    assert!(rsp.is_accepted());
    assert_eq!(rsp.origin, ResponseOrigin::Peer);
    assert_eq!(
        Message::decode(&rsp.bytes).unwrap().message_type(),
        MessageType::ASSOCIATION_RELEASE_RESPONSE
    );
    // Both sides: released, then the session they held, by their own SEID.
    for (events, local_seid) in [(&p.cp_events, 0x11), (&p.up_events, 0x22)] {
        let kinds = peer_events(events);
        assert!(
            matches!(kinds.first(), Some(PeerEvent::Released { .. })),
            "{kinds:?}"
        );
        match kinds.get(1) {
            Some(PeerEvent::SessionsLost { sessions, .. }) => {
                assert_eq!(sessions.len(), 1);
                assert_eq!(sessions[0].local_seid, local_seid);
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(!p.cp.peers().is_associated(&up_addr()));
    assert!(!p.up.peers().is_associated(&cp_addr()));
    assert_eq!((p.cp.session_count(), p.up.session_count()), (0, 0));
    // Released on purpose: the CP does not set the association up again.
    p.cp_events.clear();
    p.advance(Duration::from_secs(120));
    assert!(!p.cp.peers().is_associated(&up_addr()));
    assert!(p.cp_events.is_empty(), "{:?}", p.cp_events);
}

#[test]
fn clause_6_2_8_release_without_an_association_is_answered_locally_with_cause_72() {
    let mut p = Pair::new();
    let stranger: SocketAddr = "198.51.100.9:8805".parse().unwrap();
    let id = p.cp.release_association(stranger, p.now).unwrap();
    assert!(p.cp.poll_transmit().is_none(), "nothing is sent");
    let rsp = take_outcome(&mut std::iter::from_fn(|| p.cp.poll_event()).collect(), id).unwrap();
    assert_eq!(rsp.cause, Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION));
    assert_eq!(rsp.origin, ResponseOrigin::NoAssociation);
    assert_eq!(
        Message::decode(&rsp.bytes).unwrap().message_type(),
        MessageType::ASSOCIATION_RELEASE_RESPONSE
    );
}

/// The CP releases its association; the UP's answer to it is replaced by one written from
/// the layout of Table 7.4.4.6-1 (Node ID 192.0.2.1, Cause `cause`). The outcome's Cause.
fn release_answered_with(p: &mut Pair, cause: u8) -> Option<Cause> {
    let id = p.cp.release_association(up_addr(), p.now).unwrap();
    let request = p.cp.poll_transmit().unwrap();
    let seq = Message::decode(&request.bytes)
        .unwrap()
        .header()
        .sequence
        .value();
    let seq = seq.to_be_bytes();
    // Message Length: 4 (sequence, spare) + Node ID 9 + Cause 5.
    let mut answer = vec![0x20, 0x0a, 0x00, 0x12, seq[1], seq[2], seq[3], 0x00];
    answer.extend_from_slice(&[0x00, 0x3c, 0x00, 0x05, 0x00, 192, 0, 2, 1]);
    answer.extend_from_slice(&[0x00, 0x13, 0x00, 0x01, cause]);
    p.cp.handle_datagram(up_addr(), Bytes::from(answer), p.now);
    p.cp_events.extend(std::iter::from_fn(|| p.cp.poll_event()));
    take_outcome(&mut p.cp_events, id).unwrap().cause
}

#[test]
fn clause_6_2_8_a_release_the_peer_rejects_leaves_the_association() {
    let mut p = Pair::new();
    p.establish(0x11, 0x22);
    // Cause 64, Request rejected.
    assert_eq!(
        release_answered_with(&mut p, 64),
        Some(Cause::REQUEST_REJECTED)
    );
    assert!(p.cp.peers().is_associated(&up_addr()));
    assert_eq!(p.cp.session_count(), 1);
    assert!(peer_events(&p.cp_events).is_empty());
}

#[test]
fn clause_6_2_8_a_release_answered_with_cause_72_ends_the_association_too() {
    let mut p = Pair::new();
    p.establish(0x11, 0x22);
    assert_eq!(
        release_answered_with(&mut p, 72),
        Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION)
    );
    assert!(!p.cp.peers().is_associated(&up_addr()));
    assert_eq!(p.cp.session_count(), 0);
    assert!(matches!(
        peer_events(&p.cp_events).as_slice(),
        [PeerEvent::Released { .. }, PeerEvent::SessionsLost { .. }]
    ));
}

#[test]
fn clause_6_2_7_up_asks_for_release_with_a_graceful_period_and_the_cp_releases() {
    let mut p = Pair::new();
    let period = Timer::new(TimerUnit::OneMinute, 2).unwrap();
    let update = AssociationUpdate::release(
        ReleasePreparation::release()
            .with_urss(true)
            .with_graceful_release_period(period),
    );
    let id = p.up.update_association(cp_addr(), &update, p.now).unwrap();
    p.pump();
    assert!(take_outcome(&mut p.up_events, id).unwrap().is_accepted());
    match peer_events(&p.cp_events).as_slice() {
        [PeerEvent::ReleaseRequested {
            peer,
            node,
            preparation,
        }] => {
            assert_eq!(*peer, up_addr());
            assert_eq!(node.as_ref(), Some(&NodeKey::fqdn("upf1.example.net")));
            assert!(preparation.sarr && preparation.urss);
            assert_eq!(preparation.graceful_release_period, Some(period));
        }
        other => panic!("{other:?}"),
    }
    // Still associated until the CP releases it.
    assert!(p.cp.peers().is_associated(&up_addr()));
    let id = p.cp.release_association(up_addr(), p.now).unwrap();
    p.pump();
    assert!(take_outcome(&mut p.cp_events, id).unwrap().is_accepted());
    assert!(!p.up.peers().is_associated(&cp_addr()));
}

#[test]
fn clause_6_2_7_features_update_is_kept_and_reported() {
    let mut p = Pair::new();
    // BUCP (octet 5 bit 1) and FTUP (octet 5 bit 5), clause 8.2.25.
    let features = UpFunctionFeatures::from_octets(&[0x11, 0x00]).unwrap();
    p.up.set_up_features(features);
    let id =
        p.up.update_association(cp_addr(), &AssociationUpdate::features(), p.now)
            .unwrap();
    p.pump();
    assert!(take_outcome(&mut p.up_events, id).unwrap().is_accepted());
    match peer_events(&p.cp_events).as_slice() {
        [PeerEvent::FeaturesUpdated {
            up_features,
            cp_features: None,
            ..
        }] => assert_eq!(*up_features, Some(features)),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        p.cp.peers().get(&up_addr()).and_then(|i| i.up_features),
        Some(features)
    );
}

#[test]
fn clause_6_2_9_node_report_answered_by_the_cp_node_and_reported_not_delivered() {
    let mut p = Pair::new();
    let gnb = RemoteGtpuPeer::ipv4(Ipv4Addr::new(198, 51, 100, 7));
    let id =
        p.up.send_node_report(cp_addr(), &NodeReport::path_failure([gnb]), p.now)
            .unwrap();
    p.pump();
    let rsp = take_outcome(&mut p.up_events, id).unwrap();
    assert!(rsp.is_accepted());
    assert_eq!(
        Message::decode(&rsp.bytes).unwrap().message_type(),
        MessageType::NODE_REPORT_RESPONSE
    );
    assert!(
        !p.cp_events
            .iter()
            .any(|e| matches!(e, NodeEvent::Request(_))),
        "a Node Report Request no longer reaches the application as a request"
    );
    match peer_events(&p.cp_events).as_slice() {
        [PeerEvent::NodeReport {
            peer,
            report,
            message,
            ..
        }] => {
            assert_eq!(*peer, up_addr());
            assert!(report.report_type.contains(NodeReportType::UPFR));
            assert_eq!(report.path_failure, [gnb]);
            assert_eq!(
                Message::decode(message).unwrap().message_type(),
                MessageType::NODE_REPORT_REQUEST
            );
        }
        other => panic!("{other:?}"),
    }
    let id =
        p.up.send_node_report(cp_addr(), &NodeReport::path_recovery([gnb]), p.now)
            .unwrap();
    p.pump();
    assert!(take_outcome(&mut p.up_events, id).unwrap().is_accepted());
    assert!(peer_events(&p.cp_events).iter().any(
        |e| matches!(e, PeerEvent::NodeReport { report, .. } if report.path_recovery == [gnb])
    ));
}

/// A Node Report Request of seq 5 from the layout of Table 7.4.5.1.1-1 with `ies` after the
/// Node ID (IPv4 192.0.2.1).
fn node_report_request(ies: &[u8]) -> Bytes {
    let mut b = vec![0x20, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00];
    b.extend_from_slice(&[0x00, 0x3c, 0x00, 0x05, 0x00, 192, 0, 2, 1]);
    b.extend_from_slice(ies);
    let len = (b.len() - 4) as u16;
    b[2..4].copy_from_slice(&len.to_be_bytes());
    b.into()
}

/// The Cause and Offending IE of the CP node's answer to `request` from `from`.
fn answer_of(
    cp: &mut Node,
    from: SocketAddr,
    request: Bytes,
    now: Instant,
) -> (Cause, Option<u16>) {
    cp.handle_datagram(from, request, now);
    let t = cp.poll_transmit().expect("an answer");
    let m = Message::decode(&t.bytes).unwrap();
    assert_eq!(m.message_type(), MessageType::NODE_REPORT_RESPONSE);
    assert_eq!(m.header().sequence.value(), 5);
    (
        m.cause().unwrap().unwrap(),
        m.offending_ie().unwrap().map(|o| o.0 .0),
    )
}

#[test]
fn clause_6_2_9_node_reports_refused_as_clause_7_6_says() {
    let mut p = Pair::new();
    // UPFR without its User Plane Path Failure Report: Cause 67, Offending IE 102.
    let r = node_report_request(&[0x00, 0x65, 0x00, 0x01, 0x01]);
    assert_eq!(
        answer_of(&mut p.cp, up_addr(), r, p.now),
        (Cause::CONDITIONAL_IE_MISSING, Some(102))
    );
    // No Node Report Type: Cause 66, Offending IE 101.
    let r = node_report_request(&[]);
    assert_eq!(
        answer_of(&mut p.cp, up_addr(), r, p.now),
        (Cause::MANDATORY_IE_MISSING, Some(101))
    );
    // A complete report from a peer with no association: Cause 72.
    let ok = [
        0x00, 0x65, 0x00, 0x01, 0x01, // Node Report Type: UPFR
        0x00, 0x66, 0x00, 0x09, // User Plane Path Failure Report
        0x00, 0x67, 0x00, 0x05, 0x02, 198, 51, 100, 7, // Remote GTP-U Peer, V4
    ];
    let stranger: SocketAddr = "198.51.100.20:8805".parse().unwrap();
    assert_eq!(
        answer_of(&mut p.cp, stranger, node_report_request(&ok), p.now),
        (Cause::NO_ESTABLISHED_PFCP_ASSOCIATION, None)
    );
    // None of them was reported; the one from the associated UP is.
    assert!(std::iter::from_fn(|| p.cp.poll_event()).next().is_none());
    let mut ok_again = node_report_request(&ok).to_vec();
    ok_again[6] = 6; // another sequence number
    p.cp.handle_datagram(up_addr(), ok_again.into(), p.now);
    let events: Vec<NodeEvent> = std::iter::from_fn(|| p.cp.poll_event()).collect();
    assert!(matches!(
        events.as_slice(),
        [NodeEvent::Peer(PeerEvent::NodeReport { report, .. })]
            if report.path_failure == [RemoteGtpuPeer::ipv4(Ipv4Addr::new(198, 51, 100, 7))]
    ));
}

#[test]
fn clause_6_3_5_session_report_goes_to_the_session_cp_with_its_seid() {
    let mut p = Pair::new();
    p.establish(0x0A0B, 0x77);
    let usage = [UsageReportSrr::new(
        UrrId(3),
        UrSeqn(9),
        UsageReportTrigger::PERIO,
    )];
    let report = SessionReportRequest::new(ReportType::USAR)
        .with_usage_reports(&usage)
        .with_sequence(SequenceNumber::new(99).unwrap());
    let id = p.up.send_session_report(0x77, &report, p.now).unwrap();
    p.pump();
    let request = take_request(&mut p.cp_events, MessageType::SESSION_REPORT_REQUEST);
    let got = SessionReportRequest::parse(&request.bytes).unwrap();
    // The CP's SEID, the node's sequence number, the usage report as given.
    assert_eq!(got.header.seid, Some(0x0A0B));
    assert_ne!(got.header.sequence.value(), 99);
    assert_eq!(got.report_type, ReportType::USAR);
    let reports: Vec<UsageReportSrr> = got.usage_reports.iter().collect();
    assert_eq!(reports, usage);
    assert_eq!(request.reference.seid, Some(0x0A0B));
    let rsp = SessionReportResponse::new(Cause::REQUEST_ACCEPTED)
        .with_seid(0x77)
        .with_sequence(request.reference.sequence)
        .to_vec()
        .unwrap();
    p.cp.respond(&request.reference, rsp.into(), p.now).unwrap();
    p.pump();
    let outcome = take_outcome(&mut p.up_events, id).unwrap();
    assert!(outcome.is_accepted());
    assert_eq!(
        Message::decode(&outcome.bytes).unwrap().message_type(),
        MessageType::SESSION_REPORT_RESPONSE
    );
    // A session the UP does not hold: nothing sent.
    assert!(matches!(
        p.up.send_session_report(0x78, &report, p.now),
        Err(RequestError::UnknownSession(0x78))
    ));
    assert!(p.up.poll_transmit().is_none());
}

#[test]
fn clause_6_2_6_a_cause_72_to_a_report_sent_before_a_new_association_ends_nothing() {
    let mut p = Pair::new();
    p.establish(0x11, 0x22);
    let report = SessionReportRequest::new(ReportType::USAR);
    let first = p.up.send_session_report(0x22, &report, p.now).unwrap();
    let second = p.up.send_session_report(0x22, &report, p.now).unwrap();
    let sent: Vec<_> = std::iter::from_fn(|| p.up.poll_transmit()).collect();
    assert_eq!(sent.len(), 2);
    // The CP function restarts at the same address; the reports reach the new one before it
    // has an association: Cause 72 to both (clause 6.2.6.1).
    p.cp = Node::new(
        NodeConfig::new(LocalNode::cp(
            NodeKey::fqdn("smf1.example.net"),
            RecoveryTimeStamp(3_900_000_777),
        )),
        p.now,
    )
    .unwrap();
    for t in sent {
        p.cp.handle_datagram(up_addr(), t.bytes, p.now);
    }
    let answers: Vec<_> = std::iter::from_fn(|| p.cp.poll_transmit()).collect();
    assert_eq!(answers.len(), 2);
    for a in &answers {
        let m = Message::decode(&a.bytes).unwrap();
        assert_eq!(m.message_type(), MessageType::SESSION_REPORT_RESPONSE);
        assert_eq!(
            m.cause().unwrap(),
            Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION)
        );
    }
    let mut answers = answers.into_iter();
    // The first answer ends the UP's association and the session with it.
    p.up.handle_datagram(cp_addr(), answers.next().unwrap().bytes, p.now);
    p.up_events.extend(std::iter::from_fn(|| p.up.poll_event()));
    let r = take_outcome(&mut p.up_events, first).unwrap();
    assert_eq!(r.cause, Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION));
    assert!(!p.up.peers().is_associated(&cp_addr()));
    assert_eq!(p.up.session_count(), 0);
    // The new CP function associates; then the second answer, to a report sent under the old
    // association, arrives: the new association stays.
    p.cp.associate(up_addr(), p.now).unwrap();
    p.pump();
    assert!(p.up.peers().is_associated(&cp_addr()));
    p.up_events.clear();
    p.up.handle_datagram(cp_addr(), answers.next().unwrap().bytes, p.now);
    p.up_events.extend(std::iter::from_fn(|| p.up.poll_event()));
    let r = take_outcome(&mut p.up_events, second).unwrap();
    assert_eq!(r.cause, Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION));
    assert!(p.up.peers().is_associated(&cp_addr()));
    assert!(peer_events(&p.up_events).is_empty(), "{:?}", p.up_events);
}
