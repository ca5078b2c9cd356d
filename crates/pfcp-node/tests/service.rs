//! The `tower` adapter on real loopback UDP: a CP [`Endpoint`] driven through
//! [`RequestService`] with `ServiceExt::oneshot`, towards a UP [`Endpoint`] whose application
//! answers Session Establishment Requests (TS 29.244 clauses 7.4.2, 7.5.2, 7.5.3).

mod common;

use std::net::Ipv4Addr;

use bytes::{Bytes, BytesMut};
use pfcp_node::service::{Request, RequestService};
use pfcp_node::{Endpoint, Error, PeerEvent, RequestProfile, XactError};
use pfcp_wire::encode::{IeList, MessageBuilder};
use pfcp_wire::ie::{FSeid, Fqdn, NodeId, RecoveryTimeStamp};
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{Cause, Header, IeType, Message, MessageType, SequenceNumber};
use tokio::time::timeout;
use tower::ServiceExt;

use common::{accepted_by, associated_pair, endpoint_config, next_event, serve, Pair, WAIT};
use pfcp_test_support::node::{any_port, cp_local, up_local};

fn encoded<L: IeList>(b: MessageBuilder<L>) -> Bytes {
    let mut out = BytesMut::zeroed(b.encoded_len());
    b.encode_into(&mut out).unwrap();
    out.freeze()
}

/// The minimal Session Establishment Request of digest section 4.14; its Create PDR and
/// Create FAR are reused by [`establishment`].
const SER: &str = "2332005a 0000000000000000 00000250 003c000500c000020a\
                   0039000d020000000000000001c000020a\
                   0001001f003800020001001d0004000000ff000200050014000100006c000400000001\
                   0003000d006c000400000001002c000102";

/// A Session Establishment Request with CP F-SEID SEID `cp_seid` and a sequence number that
/// the endpoint will replace.
fn establishment(cp_seid: u64) -> Bytes {
    let template = parse_hex(&SER.replace(' ', "")).unwrap();
    let template = Message::decode(&template).unwrap();
    let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST)
        .with_seid(0)
        .with_sequence(SequenceNumber::new(0xABCDE).unwrap());
    let m = encoded(
        MessageBuilder::new(header)
            .ie(NodeId::Ipv4(Ipv4Addr::LOCALHOST))
            .ie(FSeid {
                seid: cp_seid,
                ipv4: Some(Ipv4Addr::LOCALHOST),
                ipv6: None,
            })
            .ie(template.find(IeType::CREATE_PDR).unwrap())
            .ie(template.find(IeType::CREATE_FAR).unwrap()),
    );
    Message::decode(&m).unwrap().validate().unwrap();
    m
}

/// A UP endpoint whose application accepts every Session Establishment Request (UP SEID =
/// CP SEID + 1000), and the CP endpoint associated with it.
async fn pair() -> (Endpoint, Endpoint) {
    let Pair {
        up,
        up_channels,
        cp,
        mut cp_channels,
    } = associated_pair(endpoint_config(up_local()), endpoint_config(cp_local())).await;
    serve(up_channels, |msg| {
        let Ok(Some(f)) = msg.f_seid() else {
            return None;
        };
        let node_id = NodeId::Fqdn(Fqdn::from_dotted("upf1.example.net").unwrap());
        Some(accepted_by(msg, node_id, f.seid + 1000))
    });
    let e = next_event(&mut cp_channels.events).await;
    assert!(matches!(e, PeerEvent::Associated { .. }));
    // Keep the CP's channels open for the test's lifetime (the endpoint stops without them
    // and without handles).
    tokio::spawn(async move { while cp_channels.events.recv().await.is_some() {} });
    (up, cp)
}

#[tokio::test]
async fn heartbeat_and_establishment_through_the_service() {
    let (up, cp) = pair().await;
    let service = RequestService::new(cp.clone());

    // Heartbeat Request (Table 7.4.2.1-1): answered by the UP endpoint itself.
    let hb = encoded(
        MessageBuilder::new(Header::new(MessageType::HEARTBEAT_REQUEST))
            .ie(cp.local_node().recovery_time_stamp),
    );
    let rsp = timeout(
        WAIT,
        service.clone().oneshot(Request::new(up.local_addr(), hb)),
    )
    .await
    .unwrap()
    .unwrap();
    let m = Message::decode(&rsp.bytes).unwrap();
    assert_eq!(m.message_type(), MessageType::HEARTBEAT_RESPONSE);
    assert_eq!(
        m.recovery_time_stamp().unwrap(),
        Some(RecoveryTimeStamp(0xE8F4_A2B0))
    );

    // Session Establishment Requests, concurrently through clones of the service, one with a
    // profile: answered by the UP's application.
    let mut calls = Vec::new();
    for cp_seid in 1..=8u64 {
        let mut req = Request::new(up.local_addr(), establishment(cp_seid));
        if cp_seid % 2 == 0 {
            req = req.with_profile(RequestProfile::emergency());
        }
        calls.push(tokio::spawn(service.clone().oneshot(req)));
    }
    for (cp_seid, call) in (1..=8u64).zip(calls) {
        let rsp = timeout(WAIT, call).await.unwrap().unwrap().unwrap();
        let m = Message::decode(&rsp.bytes).unwrap();
        m.validate().unwrap();
        assert_eq!(
            m.message_type(),
            MessageType::SESSION_ESTABLISHMENT_RESPONSE
        );
        assert_eq!(m.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
        // The response to this request: addressed to its CP SEID, with its UP F-SEID.
        assert_eq!(m.header().seid, Some(cp_seid));
        assert_eq!(m.f_seid().unwrap().unwrap().seid, cp_seid + 1000);
        // The endpoint allocated the sequence number: not the one in the request octets.
        assert_ne!(m.header().sequence.value(), 0xABCDE);
    }
}

#[tokio::test]
async fn errors_are_the_endpoints() {
    let (up, cp) = pair().await;
    let service = RequestService::from(cp.clone());
    // A response is not a request: refused before anything is sent.
    let rsp = encoded(
        MessageBuilder::new(Header::new(MessageType::HEARTBEAT_RESPONSE)).ie(RecoveryTimeStamp(1)),
    );
    let e = service
        .clone()
        .oneshot(Request::new(up.local_addr(), rsp))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Xact(XactError::NotARequest)), "{e}");
    // Octets that are not a PFCP message.
    let e = service
        .clone()
        .oneshot(Request::new(
            up.local_addr(),
            Bytes::from_static(&[0x20, 0x01]),
        ))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Decode(_)), "{e}");
    // A peer that never answers: the transaction times out after N1 retransmissions.
    let silent = tokio::net::UdpSocket::bind(any_port()).await.unwrap();
    let hb = encoded(
        MessageBuilder::new(Header::new(MessageType::HEARTBEAT_REQUEST)).ie(RecoveryTimeStamp(1)),
    );
    let e = timeout(
        WAIT,
        service.oneshot(Request::new(silent.local_addr().unwrap(), hb)),
    )
    .await
    .unwrap()
    .unwrap_err();
    assert!(matches!(e, Error::Timeout { transmissions: 3 }), "{e}");
}
