//! Transaction-layer unit tests (TS 29.244 clause 6.4, digest 6.5).
//!
//! Shared helpers; the tests are in one module per subject.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::RecoveryTimeStamp;
use pfcp_wire::{DecodeErrorKind, Header, MessageType, SequenceNumber};

use super::*;

use pfcp_test_support::clock::origin as t0;

const T1: Duration = Duration::from_secs(3);

fn cp() -> SocketAddr {
    "192.0.2.1:8805".parse().unwrap()
}

fn up() -> SocketAddr {
    "192.0.2.2:8805".parse().unwrap()
}

fn up2() -> SocketAddr {
    "192.0.2.3:8805".parse().unwrap()
}

fn seq(v: u32) -> SequenceNumber {
    SequenceNumber::new(v).unwrap()
}

/// A message of `t` with `seq`, a session header if `seid` is given, and one Recovery Time
/// Stamp IE carrying `tag` (to tell contents apart).
fn msg_with(t: MessageType, s: SequenceNumber, seid: Option<u64>, tag: u32, fo: bool) -> Bytes {
    let mut h = Header::new(t).with_sequence(s).with_follow_on(fo);
    if let Some(seid) = seid {
        h = h.with_seid(seid);
    }
    let mut out = BytesMut::new();
    let mut w = MessageWriter::begin(&mut out, &h).unwrap();
    w.ie(&RecoveryTimeStamp(tag)).unwrap();
    w.finish().unwrap();
    out.freeze()
}

fn heartbeat_req(s: SequenceNumber) -> Bytes {
    msg_with(MessageType::HEARTBEAT_REQUEST, s, None, 1, false)
}

fn heartbeat_rsp(s: SequenceNumber) -> Bytes {
    msg_with(MessageType::HEARTBEAT_RESPONSE, s, None, 2, false)
}

fn events(x: &mut Transactions) -> Vec<Event> {
    std::iter::from_fn(|| x.poll_event()).collect()
}

fn transmits(x: &mut Transactions) -> Vec<Transmit> {
    std::iter::from_fn(|| x.poll_transmit()).collect()
}

fn concat(parts: &[&Bytes]) -> Bytes {
    let mut b = BytesMut::new();
    for p in parts {
        b.extend_from_slice(p);
    }
    b.freeze()
}

fn cfg() -> TransactionConfig {
    TransactionConfig::default()
}

/// The server side: a request delivered once, answered, duplicates replayed.
fn serve_one(x: &mut Transactions, s: SequenceNumber, now: Instant) -> Bytes {
    x.handle_datagram(cp(), heartbeat_req(s), now);
    let ev = events(x);
    assert_eq!(
        ev,
        vec![Event::Request {
            peer: cp(),
            sequence: s,
            message_type: MessageType::HEARTBEAT_REQUEST,
            bytes: heartbeat_req(s)
        }]
    );
    let rsp = heartbeat_rsp(s);
    x.send_response(cp(), s, rsp.clone(), now).unwrap();
    assert_eq!(
        transmits(x),
        vec![Transmit {
            peer: cp(),
            bytes: rsp.clone()
        }]
    );
    rsp
}

mod datagrams;
mod incoming;
mod limits;
mod outgoing;
mod timers;
