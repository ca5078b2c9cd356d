#![cfg(feature = "tokio")]
//! Loopback integration tests on real UDP sockets: association and heartbeat, unassociated
//! peers rejected, session requests through the application, restart detection, malformed
//! input answered per clause 7.6.
//! Requests answered by a `RequestHandler` inside the endpoint take the same response path
//! (response cache, OCI piggybacking under admission overload).

mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use pfcp_node::{PeerEvent, RequestProfile};
use pfcp_overload::NodeKey;
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{Cause, Header, Message, MessageType};
use tokio::net::UdpSocket;
use tokio::time::timeout;

use common::{
    accepted, associated_pair, bind, bind_with_handler, endpoint_config as config, establish,
    establishment_ies, next_event, raw_exchange, Pair, ASSOCIATION_SETUP, WAIT,
};
use pfcp_test_support::node::{any_port, cp_local as cp_node, up_local as up_node};

#[tokio::test]
async fn association_heartbeat_and_session_round_trip() {
    let Pair {
        up,
        mut up_channels,
        cp,
        mut cp_channels,
    } = associated_pair(config(up_node()), config(cp_node())).await;
    let e = next_event(&mut up_channels.events).await;
    assert!(
        matches!(e, PeerEvent::Associated { node, .. } if node == NodeKey::Ip(Ipv4Addr::LOCALHOST.into()))
    );
    let e = next_event(&mut cp_channels.events).await;
    assert!(
        matches!(e, PeerEvent::Associated { node, .. } if node == NodeKey::fqdn("upf1.example.net"))
    );
    cp.heartbeat(up.local_addr()).await.unwrap();

    // The UP application answers Session Establishment Requests.
    let up_app = tokio::spawn(async move {
        let req = up_channels.incoming.recv().await.unwrap();
        let msg = req.message().unwrap();
        assert_eq!(
            msg.message_type(),
            MessageType::SESSION_ESTABLISHMENT_REQUEST
        );
        let response = accepted(&msg);
        req.respond(response).await.unwrap();
    });
    let resp = establish(&cp, up.local_addr(), RequestProfile::default())
        .await
        .unwrap();
    let m = Message::decode(&resp.bytes).unwrap();
    assert_eq!(m.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
    assert_eq!(m.header().seid, Some(1));
    assert_eq!(m.f_seid().unwrap().unwrap().seid, 0x55);
    up_app.await.unwrap();
}

#[tokio::test]
async fn clause_6_2_6_1_session_request_without_association_gets_72() {
    let (up, _up_ch) = bind(config(up_node())).await;
    let (cp, _cp_ch) = bind(config(cp_node())).await;
    let resp = establish(&cp, up.local_addr(), RequestProfile::default())
        .await
        .unwrap();
    let m = Message::decode(&resp.bytes).unwrap();
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
    let (cp, _ch) = bind(config(cp_node())).await;
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

#[tokio::test]
async fn restart_is_detected_from_the_recovery_time_stamp() {
    let (up, mut ch) = bind(config(up_node())).await;
    let peer = UdpSocket::bind(any_port()).await.unwrap();
    // Association Setup Request (digest 4.11), then a heartbeat with another stamp.
    let r = raw_exchange(&peer, up.local_addr(), ASSOCIATION_SETUP).await;
    assert_eq!(
        Message::decode(&r).unwrap().cause().unwrap(),
        Some(Cause::REQUEST_ACCEPTED)
    );
    assert!(matches!(
        next_event(&mut ch.events).await,
        PeerEvent::Associated { .. }
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
        next_event(&mut ch.events).await,
        PeerEvent::Restarted { .. }
    ));
}

#[tokio::test]
async fn clause_7_6_malformed_and_wrong_version() {
    let (up, _ch) = bind(config(up_node())).await;
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

/// A Session Establishment Request with sequence number `seq` (the IEs of
/// [`establishment_ies`]: CP SEID 1), as a peer sends it.
fn establishment_request(seq: u32) -> Vec<u8> {
    use pfcp_wire::encode::MessageWriter;
    use pfcp_wire::SequenceNumber;
    let h = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST)
        .with_seid(0)
        .with_sequence(SequenceNumber::new(seq).unwrap());
    let mut out = Vec::new();
    let mut w = MessageWriter::begin(&mut out, &h).unwrap();
    w.raw_ies(&establishment_ies()).unwrap();
    w.finish().unwrap();
    out
}

/// A request answered by a `RequestHandler` takes the response path of channel answers: the
/// response is cached, so a retransmission of the request gets the same octets back without
/// a second call of the handler.
#[tokio::test]
async fn handler_answers_are_cached_for_retransmissions() {
    use pfcp_node::endpoint::{HandlerReply, RequestView};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let handler = move |req: &RequestView<'_>| {
        counted.fetch_add(1, Ordering::SeqCst);
        assert_eq!(
            req.message_type(),
            MessageType::SESSION_ESTABLISHMENT_REQUEST
        );
        assert_eq!(
            req.node(),
            Some(&NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 10).into()))
        );
        HandlerReply::Respond(accepted(req.message()))
    };
    let (up, _ch) = bind_with_handler(config(up_node()), handler).await;
    let peer = UdpSocket::bind(any_port()).await.unwrap();
    let r = raw_exchange(&peer, up.local_addr(), ASSOCIATION_SETUP).await;
    assert_eq!(
        Message::decode(&r).unwrap().cause().unwrap(),
        Some(Cause::REQUEST_ACCEPTED)
    );
    let request = establishment_request(7);
    let mut buf = vec![0u8; 2048];
    let mut answers = Vec::new();
    for _ in 0..2 {
        peer.send_to(&request, up.local_addr()).await.unwrap();
        let (n, _) = timeout(WAIT, peer.recv_from(&mut buf))
            .await
            .unwrap()
            .unwrap();
        answers.push(buf[..n].to_vec());
    }
    assert_eq!(
        answers[0], answers[1],
        "the retransmission gets the cached response"
    );
    let m = Message::decode(&answers[0]).unwrap();
    assert_eq!(m.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
    assert_eq!(m.header().sequence.value(), 7);
    assert_eq!(m.header().seid, Some(1));
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the handler ran once");
}

/// Under admission overload, the responses a handler builds get the UP's OCI appended like
/// channel responses (clause 6.2.4.3), and what admission refuses is answered with cause 74
/// without reaching the handler.
#[tokio::test]
async fn handler_answers_carry_the_oci_under_admission_overload() {
    use pfcp_node::endpoint::{HandlerReply, RequestView};
    use pfcp_node::AdmissionConfig;
    use pfcp_overload::{InclusionPolicy, ReporterConfig};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let handler = move |req: &RequestView<'_>| {
        counted.fetch_add(1, Ordering::SeqCst);
        HandlerReply::Respond(accepted(req.message()))
    };
    // 20 requests/s, 4 waiting at most: a burst of 40 overloads it at once. (The service
    // model lets the first few through at once, before anything is refused and the metric
    // rises; those are answered without an OCI. The queue drains within 200 ms, so the
    // interval is 100 ms: the metric comes before the last answers.)
    let admission = AdmissionConfig::new(NodeKey::fqdn("upf1.example.net"))
        .with_service_rate(Some(20.0))
        .with_queue_capacity(4)
        .with_reporter(
            ReporterConfig::default()
                .with_node_scoped(true)
                .with_inclusion(InclusionPolicy::EveryMessage)
                .with_interval(Duration::from_millis(100)),
        );
    let cfg = config(up_node()).with_admission(admission);
    let (up, _ch) = bind_with_handler(cfg, handler).await;
    let peer = UdpSocket::bind(any_port()).await.unwrap();
    raw_exchange(&peer, up.local_addr(), ASSOCIATION_SETUP).await;
    const BURST: u32 = 40;
    for seq in 10..10 + BURST {
        peer.send_to(&establishment_request(seq), up.local_addr())
            .await
            .unwrap();
    }
    let (mut accepted_n, mut accepted_with_oci, mut rejected) = (0, 0, 0);
    let mut buf = vec![0u8; 2048];
    for _ in 0..BURST {
        let (n, _) = timeout(WAIT, peer.recv_from(&mut buf))
            .await
            .unwrap()
            .unwrap();
        let m = Message::decode(&buf[..n]).unwrap();
        m.validate().unwrap();
        match m.cause().unwrap() {
            Some(Cause::REQUEST_ACCEPTED) => {
                accepted_n += 1;
                if let Some(oci) = m.overload_control_information().unwrap() {
                    assert!(oci.metric.percent() > 0, "{oci:?}");
                    accepted_with_oci += 1;
                }
            }
            Some(Cause::PFCP_ENTITY_IN_CONGESTION) => rejected += 1,
            other => panic!("unexpected cause {other:?}"),
        }
    }
    assert_eq!(accepted_n + rejected, BURST);
    assert!(rejected > 0, "the burst overloads admission");
    assert_eq!(calls.load(Ordering::SeqCst), accepted_n as usize);
    assert!(
        accepted_with_oci > 0,
        "{accepted_with_oci} of {accepted_n} accepted responses carried an OCI"
    );
}

/// `HandlerReply::Defer` hands the request to the incoming channel as without a handler;
/// `HandlerReply::Reject` answers with the cause, in a response the endpoint builds.
#[tokio::test]
async fn handler_defers_to_the_channel_and_rejects() {
    use pfcp_node::endpoint::{HandlerReply, RequestView};
    // Odd sequence numbers go to the application task, even ones are rejected.
    let handler = |req: &RequestView<'_>| {
        if req.sequence().value() % 2 == 1 {
            HandlerReply::Defer
        } else {
            HandlerReply::Reject(Cause::REQUEST_REJECTED)
        }
    };
    let (up, mut up_ch) = bind_with_handler(config(up_node()), handler).await;
    let peer = UdpSocket::bind(any_port()).await.unwrap();
    raw_exchange(&peer, up.local_addr(), ASSOCIATION_SETUP).await;
    let app = tokio::spawn(async move {
        let req = up_ch.incoming.recv().await.unwrap();
        let response = accepted(&req.message().unwrap());
        req.respond(response).await.unwrap();
    });
    let r = raw_exchange(&peer, up.local_addr(), &hex(&establishment_request(3))).await;
    let m = Message::decode(&r).unwrap();
    assert_eq!(m.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
    app.await.unwrap();
    let r = raw_exchange(&peer, up.local_addr(), &hex(&establishment_request(4))).await;
    let m = Message::decode(&r).unwrap();
    m.validate().unwrap();
    assert_eq!(m.cause().unwrap(), Some(Cause::REQUEST_REJECTED));
    assert_eq!(m.header().sequence.value(), 4);
    assert_eq!(m.header().seid, Some(1), "the CP SEID, from the CP F-SEID");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn the_capture_sees_every_datagram_sent_and_received() {
    use std::sync::{Arc, Mutex};
    type Seen = Arc<Mutex<Vec<(SocketAddr, SocketAddr, Vec<u8>)>>>;
    let seen: Seen = Arc::default();
    let capture = {
        let seen = seen.clone();
        pfcp_node::Capture::new(move |d| {
            seen.lock().unwrap().push((d.from, d.to, d.bytes.to_vec()));
        })
    };
    let pair = associated_pair(config(up_node()), config(cp_node()).with_capture(capture)).await;
    let (up, cp) = (&pair.up, &pair.cp);
    cp.heartbeat(up.local_addr()).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    let (c, u) = (cp.local_addr(), up.local_addr());
    let kinds: Vec<(SocketAddr, SocketAddr, MessageType)> = seen
        .iter()
        .map(|(f, t, b)| (*f, *t, Message::decode(b).unwrap().message_type()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (c, u, MessageType::ASSOCIATION_SETUP_REQUEST),
            (u, c, MessageType::ASSOCIATION_SETUP_RESPONSE),
            (c, u, MessageType::HEARTBEAT_REQUEST),
            (u, c, MessageType::HEARTBEAT_RESPONSE),
        ]
    );
}
