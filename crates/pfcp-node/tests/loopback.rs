#![cfg(feature = "tokio")]
//! Loopback integration tests on real UDP sockets: association and heartbeat, unassociated
//! peers rejected, session requests through the application, restart detection, malformed
//! input answered per clause 7.6.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use pfcp_node::{Endpoint, EndpointConfig, LocalNode, PeerEvent, TransactionConfig};
use pfcp_overload::NodeKey;
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::{FSeid, NodeId, RecoveryTimeStamp};
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{Cause, Header, Message, MessageType};
use tokio::net::UdpSocket;
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(5);

fn any_port() -> SocketAddr {
    (Ipv4Addr::LOCALHOST, 0).into()
}

fn config(local: LocalNode) -> EndpointConfig {
    EndpointConfig::new(local)
        .with_transactions(
            TransactionConfig::default()
                .with_t1(Duration::from_millis(200))
                .with_n1(2),
        )
        .with_heartbeat_interval(None)
}

fn up_node() -> LocalNode {
    LocalNode::up(
        NodeKey::fqdn("upf1.example.net"),
        RecoveryTimeStamp(0xE8F4_A2B0),
    )
}

fn cp_node() -> LocalNode {
    LocalNode::cp(
        NodeKey::Ip(Ipv4Addr::LOCALHOST.into()),
        RecoveryTimeStamp(0xE8F4_0000),
    )
}

/// The IEs of a minimal Session Establishment Request (digest 4.14), CP SEID 1.
fn establishment_ies() -> Bytes {
    let hex = "003c000500c000020a\
               0039000d020000000000000001c000020a\
               0001001f003800020001001d0004000000ff000200050014000100006c000400000001\
               0003000d006c000400000001002c000102";
    Bytes::from(parse_hex(hex).unwrap())
}

#[tokio::test]
async fn association_heartbeat_and_session_round_trip() {
    let (up, mut up_ch) = Endpoint::bind(config(up_node()), any_port()).await.unwrap();
    let (cp, mut cp_ch) = Endpoint::bind(config(cp_node()), any_port()).await.unwrap();

    cp.associate(up.local_addr()).await.unwrap();
    let e = timeout(WAIT, up_ch.events.recv()).await.unwrap().unwrap();
    assert!(
        matches!(e, PeerEvent::Associated { node, .. } if node == NodeKey::Ip(Ipv4Addr::LOCALHOST.into()))
    );
    let e = timeout(WAIT, cp_ch.events.recv()).await.unwrap().unwrap();
    assert!(
        matches!(e, PeerEvent::Associated { node, .. } if node == NodeKey::fqdn("upf1.example.net"))
    );
    cp.heartbeat(up.local_addr()).await.unwrap();

    // The UP application answers Session Establishment Requests.
    let up_app = tokio::spawn(async move {
        let req = up_ch.incoming.recv().await.unwrap();
        let msg = req.message().unwrap();
        assert_eq!(
            msg.message_type(),
            MessageType::SESSION_ESTABLISHMENT_REQUEST
        );
        let cp_seid = msg.f_seid().unwrap().unwrap().seid;
        let header = Header::new(MessageType::SESSION_ESTABLISHMENT_RESPONSE)
            .with_seid(cp_seid)
            .with_sequence(msg.header().sequence);
        let up_fseid = FSeid {
            seid: 0x55,
            ipv4: Some(Ipv4Addr::LOCALHOST),
            ipv6: None,
        };
        let b = MessageBuilder::new(header)
            .ie(NodeId::Ipv4(Ipv4Addr::LOCALHOST))
            .ie(Cause::REQUEST_ACCEPTED)
            .ie(up_fseid);
        let mut out = BytesMut::zeroed(b.encoded_len());
        b.encode_into(&mut out).unwrap();
        req.respond(out.freeze()).await.unwrap();
    });
    let resp = cp
        .request(
            up.local_addr(),
            Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0),
            establishment_ies(),
        )
        .await
        .unwrap();
    let m = Message::decode(&resp).unwrap();
    assert_eq!(m.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
    assert_eq!(m.header().seid, Some(1));
    assert_eq!(m.f_seid().unwrap().unwrap().seid, 0x55);
    up_app.await.unwrap();
}

#[tokio::test]
async fn clause_6_2_6_1_session_request_without_association_gets_72() {
    let (up, _up_ch) = Endpoint::bind(config(up_node()), any_port()).await.unwrap();
    let (cp, _cp_ch) = Endpoint::bind(config(cp_node()), any_port()).await.unwrap();
    let resp = cp
        .request(
            up.local_addr(),
            Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0),
            establishment_ies(),
        )
        .await
        .unwrap();
    let m = Message::decode(&resp).unwrap();
    assert_eq!(
        m.message_type(),
        MessageType::SESSION_ESTABLISHMENT_RESPONSE
    );
    assert_eq!(
        m.cause().unwrap(),
        Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION)
    );
    // SEID of the response: the CP's, from the CP F-SEID of the request.
    assert_eq!(m.header().seid, Some(1));
    m.validate().unwrap();
}

#[tokio::test]
async fn request_to_a_silent_peer_times_out_after_n1() {
    let silent = UdpSocket::bind(any_port()).await.unwrap();
    let (cp, _ch) = Endpoint::bind(config(cp_node()), any_port()).await.unwrap();
    let err = cp
        .heartbeat(silent.local_addr().unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(err, pfcp_node::Error::Timeout { transmissions: 3 }),
        "{err}"
    );
    // Three copies reached the socket, byte-identical.
    let mut buf = [0u8; 64];
    let mut copies = Vec::new();
    while let Ok(Ok((n, _))) = timeout(Duration::from_millis(50), silent.recv_from(&mut buf)).await
    {
        copies.push(buf[..n].to_vec());
    }
    assert_eq!(copies.len(), 3);
    assert!(copies.windows(2).all(|w| w[0] == w[1]));
}

/// A hand-driven peer: raw socket, messages from the spec layouts.
async fn raw_exchange(sock: &UdpSocket, to: SocketAddr, hex: &str) -> Vec<u8> {
    sock.send_to(&parse_hex(hex).unwrap(), to).await.unwrap();
    let mut buf = vec![0u8; 2048];
    let (n, _) = timeout(WAIT, sock.recv_from(&mut buf))
        .await
        .unwrap()
        .unwrap();
    buf.truncate(n);
    buf
}

#[tokio::test]
async fn restart_is_detected_from_the_recovery_time_stamp() {
    let (up, mut ch) = Endpoint::bind(config(up_node()), any_port()).await.unwrap();
    let peer = UdpSocket::bind(any_port()).await.unwrap();
    // Association Setup Request (digest 4.11), then a heartbeat with another stamp.
    let r = raw_exchange(
        &peer,
        up.local_addr(),
        "2005001a00000100003c000500c000020a00600004e8f4a2b000590001 03"
            .replace(' ', "")
            .as_str(),
    )
    .await;
    assert_eq!(
        Message::decode(&r).unwrap().cause().unwrap(),
        Some(Cause::REQUEST_ACCEPTED)
    );
    assert!(matches!(
        timeout(WAIT, ch.events.recv()).await.unwrap(),
        Some(PeerEvent::Associated { .. })
    ));
    let r = raw_exchange(
        &peer,
        up.local_addr(),
        "2001000c00000200006000041111 2222"
            .replace(' ', "")
            .as_str(),
    )
    .await;
    assert_eq!(
        Message::decode(&r).unwrap().message_type(),
        MessageType::HEARTBEAT_RESPONSE
    );
    assert!(matches!(
        timeout(WAIT, ch.events.recv()).await.unwrap(),
        Some(PeerEvent::Restarted { .. })
    ));
}

#[tokio::test]
async fn clause_7_6_malformed_and_wrong_version() {
    let (up, _ch) = Endpoint::bind(config(up_node()), any_port()).await.unwrap();
    let peer = UdpSocket::bind(any_port()).await.unwrap();
    // Version 2 heartbeat: Version Not Supported Response (type 11, header only).
    let r = raw_exchange(
        &peer,
        up.local_addr(),
        "4001000c00000300006000041111 2222"
            .replace(' ', "")
            .as_str(),
    )
    .await;
    assert_eq!(r, parse_hex("200b000400000300").unwrap());
    // Session Establishment Request with an IE overrunning the message: Cause 68.
    let r = raw_exchange(
        &peer,
        up.local_addr(),
        "2132 0015 0000000000000000 000004 00 003c000900c000020a"
            .replace(' ', "")
            .as_str(),
    )
    .await;
    let m = Message::decode(&r).unwrap();
    assert_eq!(
        m.message_type(),
        MessageType::SESSION_ESTABLISHMENT_RESPONSE
    );
    assert_eq!(m.cause().unwrap(), Some(Cause::INVALID_LENGTH));
    assert_eq!(m.header().sequence.value(), 4);
}
