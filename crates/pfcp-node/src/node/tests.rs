use super::*;
use bytes::Bytes;
use pfcp_wire::ie::RecoveryTimeStamp;
use pfcp_wire::{Cause, Header, Message};
use std::net::IpAddr;

use pfcp_test_support::clock::origin as t0;

#[test]
fn an_empty_datagram_changes_nothing() {
    let now = t0();
    let local = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(1));
    let mut n = Node::new(NodeConfig::new(local), now).unwrap();
    let from: SocketAddr = "192.0.2.9:8805".parse().unwrap();
    n.handle_datagram(from, Bytes::new(), now);
    assert!(n.poll_transmit().is_none());
    assert!(n.poll_event().is_none());
}

#[test]
fn a_retransmitted_heartbeat_is_answered_again_and_nothing_is_cached() {
    let now = t0();
    let local = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(7));
    let mut n = Node::new(NodeConfig::new(local), now).unwrap();
    let from: SocketAddr = "192.0.2.9:8805".parse().unwrap();
    let cp = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(3));
    let request = crate::peer::heartbeat_request(&cp, SequenceNumber::wrapping(42)).unwrap();
    let mut answers = Vec::new();
    for _ in 0..2 {
        n.handle_datagram(from, request.clone(), now);
        while let Some(t) = n.poll_transmit() {
            answers.push(t);
        }
    }
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0].bytes, answers[1].bytes);
    let msg = Message::decode(&answers[0].bytes).unwrap();
    assert_eq!(msg.message_type(), MessageType::HEARTBEAT_RESPONSE);
    assert_eq!(msg.header().sequence, SequenceNumber::wrapping(42));
    assert_eq!(
        msg.recovery_time_stamp().unwrap(),
        Some(RecoveryTimeStamp(7))
    );
    assert_eq!(n.stats().heartbeats_answered, 2);
    assert_eq!(n.xact.cached_responses(), 0);
    assert_eq!(n.xact.pending_requests(), 0);
}

/// A hand-written UP function with one PFCP entity: its F-SEIDs carry its signalling address,
/// and its OCIs the spec's default scope (no AOCI flag: the PFCP entity, clause 6.2.4.3.1).
/// It answers every Session Establishment Request with an acceptance and an OCI of `metric`.
struct OneEntityUp {
    addr: SocketAddr,
    local: LocalNode,
    metric: u8,
}

impl OneEntityUp {
    /// Answer everything `cp` sent (Association Setup, establishments); the establishments
    /// answered.
    fn answer(&self, cp: &mut Node, now: Instant) -> usize {
        use pfcp_wire::encode::MessageBuilder;
        use pfcp_wire::ie::{
            ControlSequenceNumber, FSeid, Metric, OverloadControlInformation, Timer,
        };
        let mut answered = 0;
        let sent: Vec<_> = std::iter::from_fn(|| cp.poll_transmit()).collect();
        for t in sent {
            let msg = Message::decode(&t.bytes).unwrap();
            let h = *msg.header();
            let reply = match h.message_type {
                MessageType::ASSOCIATION_SETUP_REQUEST => crate::peer::messages::node_response(
                    &self.local,
                    MessageType::ASSOCIATION_SETUP_RESPONSE,
                    h.sequence,
                    Cause::REQUEST_ACCEPTED,
                    None,
                    true,
                )
                .unwrap(),
                MessageType::SESSION_ESTABLISHMENT_REQUEST => {
                    answered += 1;
                    let cp_seid = msg.f_seid().unwrap().unwrap().seid;
                    let IpAddr::V4(ip) = self.addr.ip() else {
                        unreachable!("an IPv4 test address")
                    };
                    let header = Header::new(MessageType::SESSION_ESTABLISHMENT_RESPONSE)
                        .with_seid(cp_seid)
                        .with_sequence(h.sequence);
                    let b = MessageBuilder::new(header)
                        .ie(self.local.node_id.to_node_id().unwrap())
                        .ie(Cause::REQUEST_ACCEPTED)
                        .ie(FSeid {
                            seid: 1000 + answered as u64,
                            ipv4: Some(ip),
                            ipv6: None,
                        })
                        .ie(OverloadControlInformation {
                            sequence_number: ControlSequenceNumber(1),
                            metric: Metric::from_raw(self.metric),
                            period_of_validity: Timer::INFINITE,
                            flags: None,
                        });
                    let mut buf = vec![0; b.encoded_len()];
                    b.encode_into(&mut buf).unwrap();
                    Bytes::from(buf)
                }
                _ => continue,
            };
            cp.handle_datagram(self.addr, reply, now);
        }
        while cp.poll_event().is_some() {}
        answered
    }
}

/// Clause 6.2.4.3.1: an OCI without AOCI belongs to the PFCP entity of the UP F-SEID's
/// address. A UP function with one entity signals from that address, so the OCI concerns
/// every request sent there, new sessions included: at a metric of 50 about half of the
/// establishments are throttled (none were, when only requests on existing sessions counted
/// as sent to the entity).
#[test]
fn clause_6_2_4_3_1_the_default_scope_throttles_new_sessions_to_that_entity() {
    let now = t0();
    let up = OneEntityUp {
        addr: "192.0.2.1:8805".parse().unwrap(),
        local: LocalNode::up(
            NodeKey::Ip("192.0.2.1".parse().unwrap()),
            RecoveryTimeStamp(9),
        ),
        metric: 50,
    };
    let local = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(3));
    let mut cp = Node::new(
        NodeConfig::new(local).with_cp(crate::CpConfig::default()),
        now,
    )
    .unwrap();
    cp.associate(up.addr, now).unwrap();
    up.answer(&mut cp, now);
    assert!(cp.peers().is_associated(&up.addr));
    let profile = RequestProfile::default().with_arp(&[9]);
    let establish = |cp: &mut Node, seid: u64| {
        use pfcp_wire::ie::FSeid;
        let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
        let mut ies = Vec::new();
        let f = FSeid {
            seid,
            ipv4: Some("192.0.2.10".parse().unwrap()),
            ipv6: None,
        };
        pfcp_wire::Encode::encode(&cp.local().node_id.to_node_id().unwrap(), &mut ies).unwrap();
        pfcp_wire::Encode::encode(&f, &mut ies).unwrap();
        cp.send_request(up.addr, header, &ies, &profile, now)
            .unwrap();
    };
    // The first one is answered with the OCI.
    establish(&mut cp, 1);
    assert_eq!(up.answer(&mut cp, now), 1);
    let entity = Destination::entity(up.local.node_id.clone(), up.addr.ip());
    assert_eq!(cp.reduction(&entity, now), 50);
    let mut sent = 0;
    for seid in 2..202 {
        establish(&mut cp, seid);
        sent += up.answer(&mut cp, now);
    }
    assert!((90..=110).contains(&sent), "{sent} of 200 sent");
}
