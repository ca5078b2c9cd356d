//! Transaction-layer unit tests (TS 29.244 clause 6.4, digest 6.5).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::RecoveryTimeStamp;
use pfcp_wire::{DecodeErrorKind, Header, MessageType, SequenceNumber};

use super::*;

#[allow(clippy::disallowed_methods)] // Tests need a base instant; the code never reads the clock.
fn t0() -> Instant {
    Instant::now()
}

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

#[test]
fn defaults_and_derived_ttl() {
    let c = TransactionConfig::default();
    assert_eq!(c.t1, Duration::from_secs(3));
    assert_eq!(c.n1, 3);
    assert_eq!(c.response_cache_ttl, Duration::from_secs(13));
    assert_eq!(c.max_outstanding, 65_536);
    assert_eq!(c.max_outstanding_per_peer, 4096);
    assert_eq!(c.max_cached_responses, 65_536);
    // The TTL follows T1/N1 until set explicitly.
    let c = c.with_t1(Duration::from_secs(2)).with_n1(4);
    assert_eq!(c.response_cache_ttl, Duration::from_secs(11));
    let c = c
        .with_response_cache_ttl(Duration::from_secs(60))
        .with_t1(T1);
    assert_eq!(c.response_cache_ttl, Duration::from_secs(60));
}

#[test]
fn response_matched_by_peer_and_sequence_stops_retransmission() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = x.next_sequence(up());
    let req = heartbeat_req(s);
    let id = x.send_request(up(), req.clone(), now).unwrap();
    assert_eq!(
        transmits(&mut x),
        vec![Transmit {
            peer: up(),
            bytes: req
        }]
    );
    assert_eq!(x.outstanding(), 1);
    assert_eq!(x.outstanding_to(up()), 1);
    assert_eq!(x.poll_timeout(), Some(now + T1));

    // Same sequence from another peer, or another sequence from the peer: not a match.
    x.handle_datagram(up2(), heartbeat_rsp(s), now);
    x.handle_datagram(up(), heartbeat_rsp(s.next()), now);
    assert_eq!(
        events(&mut x),
        vec![
            Event::UnmatchedResponse {
                peer: up2(),
                sequence: s
            },
            Event::UnmatchedResponse {
                peer: up(),
                sequence: s.next()
            },
        ]
    );

    let rsp = heartbeat_rsp(s);
    x.handle_datagram(up(), rsp.clone(), now + Duration::from_millis(5));
    assert_eq!(
        events(&mut x),
        vec![Event::Response {
            id,
            peer: up(),
            bytes: rsp.clone(),
            transmissions: 1
        }]
    );
    assert_eq!(x.outstanding(), 0);
    assert_eq!(x.outstanding_to(up()), 0);
    assert_eq!(x.poll_timeout(), None);
    x.handle_timeout(now + T1 * 10);
    assert!(transmits(&mut x).is_empty());
    assert!(events(&mut x).is_empty());
    // A duplicate response after completion is unmatched (clause 6.4).
    x.handle_datagram(up(), rsp, now + T1);
    assert_eq!(
        events(&mut x),
        vec![Event::UnmatchedResponse {
            peer: up(),
            sequence: s
        }]
    );
    assert_eq!(x.stats().responses_matched, 1);
    assert_eq!(x.stats().unmatched_responses, 3);
}

#[test]
fn retransmissions_are_byte_identical_at_t1_and_timeout_after_1_plus_n1() {
    for n1 in [0u32, 1, 3, 5] {
        let now = t0();
        let mut x = Transactions::new(cfg().with_n1(n1));
        let s = x.next_sequence(up());
        let req = msg_with(
            MessageType::SESSION_MODIFICATION_REQUEST,
            s,
            Some(7),
            9,
            false,
        );
        let id = x.send_request(up(), req.clone(), now).unwrap();
        let mut sent = transmits(&mut x).len() as u32;
        let mut t = now;
        for k in 1..=n1 {
            assert_eq!(x.poll_timeout(), Some(t + T1));
            // Not a nanosecond early.
            x.handle_timeout(t + T1 - Duration::from_nanos(1));
            assert!(transmits(&mut x).is_empty());
            t += T1;
            x.handle_timeout(t);
            let tx = transmits(&mut x);
            assert_eq!(
                tx,
                vec![Transmit {
                    peer: up(),
                    bytes: req.clone()
                }],
                "retransmission {k}"
            );
            sent += 1;
            assert!(events(&mut x).is_empty());
        }
        assert_eq!(x.poll_timeout(), Some(t + T1));
        x.handle_timeout(t + T1);
        assert!(transmits(&mut x).is_empty());
        assert_eq!(
            events(&mut x),
            vec![Event::Timeout {
                id,
                peer: up(),
                transmissions: 1 + n1
            }]
        );
        assert_eq!(sent, 1 + n1);
        assert_eq!(x.outstanding(), 0);
        assert_eq!(x.poll_timeout(), None);
        assert_eq!(x.stats().timeouts, 1);
        assert_eq!(x.stats().retransmissions, u64::from(n1));
    }
}

#[test]
fn late_handle_timeout_fires_each_deadline_once() {
    // Called long after every deadline: one retransmission per call, never a burst.
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = x.next_sequence(up());
    x.send_request(up(), heartbeat_req(s), now).unwrap();
    transmits(&mut x);
    x.handle_timeout(now + T1 * 100);
    assert_eq!(transmits(&mut x).len(), 1);
    assert_eq!(x.poll_timeout(), Some(now + T1 * 101));
}

#[test]
fn response_counts_transmissions() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = x.next_sequence(up());
    let id = x.send_request(up(), heartbeat_req(s), now).unwrap();
    x.handle_timeout(now + T1);
    x.handle_timeout(now + T1 * 2);
    assert_eq!(transmits(&mut x).len(), 3);
    x.handle_datagram(up(), heartbeat_rsp(s), now + T1 * 2);
    assert!(matches!(
        events(&mut x).as_slice(),
        [Event::Response { id: i, transmissions: 3, .. }] if *i == id
    ));
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

#[test]
fn duplicate_requests_are_answered_from_the_cache_never_delivered_twice() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = seq(0x1234);
    let rsp = serve_one(&mut x, s, now);
    assert_eq!(x.cached_responses(), 1);
    assert_eq!(x.pending_requests(), 0);
    for k in 1..=3u32 {
        x.handle_datagram(cp(), heartbeat_req(s), now + T1 * k);
        assert_eq!(
            events(&mut x),
            vec![Event::DuplicateRequest {
                peer: cp(),
                sequence: s,
                replayed: true
            }]
        );
        // The very same bytes (and the same buffer: zero-copy).
        let tx = transmits(&mut x);
        assert_eq!(
            tx,
            vec![Transmit {
                peer: cp(),
                bytes: rsp.clone()
            }]
        );
        assert_eq!(tx[0].bytes.as_ptr(), rsp.as_ptr());
    }
    // Answering again is refused: all replies to one request are the same.
    assert_eq!(
        x.send_response(cp(), s, heartbeat_rsp(s), now),
        Err(XactError::AlreadyAnswered)
    );
    assert_eq!(x.stats().requests_received, 1);
    assert_eq!(x.stats().duplicates_replayed, 3);
}

#[test]
fn duplicate_of_a_request_in_progress_is_dropped() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = seq(5);
    x.handle_datagram(cp(), heartbeat_req(s), now);
    assert!(matches!(events(&mut x).as_slice(), [Event::Request { .. }]));
    assert_eq!(x.pending_requests(), 1);
    x.handle_datagram(cp(), heartbeat_req(s), now + T1);
    assert_eq!(
        events(&mut x),
        vec![Event::DuplicateRequest {
            peer: cp(),
            sequence: s,
            replayed: false
        }]
    );
    assert!(transmits(&mut x).is_empty());
    // The same sequence number from another peer is another request.
    x.handle_datagram(up2(), heartbeat_req(s), now + T1);
    assert!(matches!(
        events(&mut x).as_slice(),
        [Event::Request { peer, .. }] if *peer == up2()
    ));
    // Answered later: now duplicates are replayed.
    x.send_response(cp(), s, heartbeat_rsp(s), now + T1)
        .unwrap();
    transmits(&mut x);
    x.handle_datagram(cp(), heartbeat_req(s), now + T1 * 2);
    assert_eq!(transmits(&mut x).len(), 1);
    assert_eq!(x.stats().duplicates_dropped, 1);
}

#[test]
fn retransmission_bundled_differently_is_still_a_duplicate() {
    // Clause 7.2.1A: retransmissions need not be re-bundled the same way (FO may differ).
    let now = t0();
    let mut x = Transactions::new(cfg());
    let t = MessageType::SESSION_REPORT_REQUEST;
    let a = msg_with(t, seq(1), Some(1), 1, true);
    let b = msg_with(t, seq(2), Some(1), 2, false);
    x.handle_datagram(cp(), concat(&[&a, &b]), now);
    assert_eq!(events(&mut x).len(), 2);
    // Message 1 alone, FO=0 now.
    x.handle_datagram(cp(), msg_with(t, seq(1), Some(1), 1, false), now + T1);
    assert_eq!(
        events(&mut x),
        vec![Event::DuplicateRequest {
            peer: cp(),
            sequence: seq(1),
            replayed: false
        }]
    );
}

#[test]
fn reused_sequence_with_new_content_is_a_new_request() {
    // A peer that restarted and counts from the same number again.
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = seq(1);
    serve_one(&mut x, s, now);
    let other = msg_with(MessageType::HEARTBEAT_REQUEST, s, None, 0xBEEF, false);
    x.handle_datagram(cp(), other.clone(), now + T1);
    assert_eq!(
        events(&mut x),
        vec![Event::Request {
            peer: cp(),
            sequence: s,
            message_type: MessageType::HEARTBEAT_REQUEST,
            bytes: other
        }]
    );
    assert!(transmits(&mut x).is_empty());
    assert_eq!(x.cached_responses(), 0);
    assert_eq!(x.pending_requests(), 1);
    assert_eq!(x.stats().sequence_reuses, 1);
}

#[test]
fn cache_expires_after_ttl() {
    let now = t0();
    let ttl = Duration::from_secs(13);
    let mut x = Transactions::new(cfg());
    let s = seq(77);
    serve_one(&mut x, s, now);
    assert_eq!(x.poll_timeout(), Some(now + ttl));
    x.handle_timeout(now + ttl - Duration::from_nanos(1));
    assert_eq!(x.cached_responses(), 1);
    x.handle_timeout(now + ttl);
    assert_eq!(x.cached_responses(), 0);
    assert_eq!(x.poll_timeout(), None);
    // After the TTL a copy is a new request (the peer gave up long ago).
    x.handle_datagram(cp(), heartbeat_req(s), now + ttl);
    assert!(matches!(events(&mut x).as_slice(), [Event::Request { .. }]));
}

#[test]
fn unanswered_requests_expire_too() {
    let now = t0();
    let mut x = Transactions::new(cfg().with_response_cache_ttl(Duration::from_secs(20)));
    x.handle_datagram(cp(), heartbeat_req(seq(3)), now);
    events(&mut x);
    assert_eq!(x.pending_requests(), 1);
    assert_eq!(x.poll_timeout(), Some(now + Duration::from_secs(20)));
    x.handle_timeout(now + Duration::from_secs(20));
    assert_eq!(x.pending_requests(), 0);
    // A late answer still goes out, uncached.
    x.send_response(
        cp(),
        seq(3),
        heartbeat_rsp(seq(3)),
        now + Duration::from_secs(21),
    )
    .unwrap();
    assert_eq!(transmits(&mut x).len(), 1);
    assert_eq!(x.cached_responses(), 0);
    assert_eq!(x.stats().responses_untracked, 1);
}

#[test]
fn fo_bundle_is_unpacked_into_one_event_per_message() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    // We have a Session Modification Request outstanding to the peer ...
    let s = x.next_sequence(up());
    let id = x
        .send_request(
            up(),
            msg_with(
                MessageType::SESSION_MODIFICATION_REQUEST,
                s,
                Some(1),
                0,
                false,
            ),
            now,
        )
        .unwrap();
    transmits(&mut x);
    // ... and it bundles its response with two Session Report Requests (clause 7.2.1A).
    let r1 = msg_with(
        MessageType::SESSION_REPORT_REQUEST,
        seq(100),
        Some(2),
        1,
        true,
    );
    let rsp = msg_with(
        MessageType::SESSION_MODIFICATION_RESPONSE,
        s,
        Some(2),
        2,
        true,
    );
    let r2 = msg_with(
        MessageType::SESSION_REPORT_REQUEST,
        seq(101),
        Some(3),
        3,
        false,
    );
    let payload = concat(&[&r1, &rsp, &r2]);
    x.handle_datagram(up(), payload.clone(), now);
    let ev = events(&mut x);
    assert_eq!(
        ev,
        vec![
            Event::Request {
                peer: up(),
                sequence: seq(100),
                message_type: MessageType::SESSION_REPORT_REQUEST,
                bytes: r1.clone()
            },
            Event::Response {
                id,
                peer: up(),
                bytes: rsp.clone(),
                transmissions: 1
            },
            Event::Request {
                peer: up(),
                sequence: seq(101),
                message_type: MessageType::SESSION_REPORT_REQUEST,
                bytes: r2.clone()
            },
        ]
    );
    // Zero-copy: every event's bytes point into the datagram.
    let base = payload.as_ptr() as usize;
    let mut offset = 0;
    for (e, len) in ev.iter().zip([r1.len(), rsp.len(), r2.len()]) {
        let b = match e {
            Event::Request { bytes, .. } | Event::Response { bytes, .. } => bytes,
            _ => unreachable!(),
        };
        assert_eq!(b.as_ptr() as usize, base + offset);
        assert_eq!(b.len(), len);
        offset += len;
    }
}

#[test]
fn bundle_with_a_bad_tail_keeps_the_good_head() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let r1 = msg_with(
        MessageType::SESSION_REPORT_REQUEST,
        seq(1),
        Some(2),
        1,
        true,
    );
    let mut bad = msg_with(
        MessageType::SESSION_REPORT_REQUEST,
        seq(2),
        Some(2),
        2,
        false,
    )
    .to_vec();
    bad.truncate(bad.len() - 2); // Length claims more than there is
    let payload = concat(&[&r1, &Bytes::from(bad)]);
    x.handle_datagram(up(), payload, now);
    let ev = events(&mut x);
    assert_eq!(ev.len(), 2);
    assert!(matches!(&ev[0], Event::Request { sequence, .. } if *sequence == seq(1)));
    match &ev[1] {
        Event::Malformed { peer, error } => {
            assert_eq!(*peer, up());
            assert!(matches!(
                error.kind,
                DecodeErrorKind::LengthExceedsData { .. }
            ));
            assert_eq!(error.header.unwrap().sequence, seq(2));
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn request_with_trailing_octets_is_only_malformed() {
    // Clause 7.6: UDP length differs from the header Length: answer Cause 68, don't process.
    let now = t0();
    let mut x = Transactions::new(cfg());
    let mut b = heartbeat_req(seq(9)).to_vec();
    b.extend_from_slice(&[0, 0, 0]);
    x.handle_datagram(cp(), Bytes::from(b), now);
    let ev = events(&mut x);
    match ev.as_slice() {
        [Event::Malformed { error, .. }] => {
            assert_eq!(error.kind, DecodeErrorKind::TrailingData { count: 3 });
            let h = error.header.unwrap();
            assert_eq!(h.sequence, seq(9));
            assert_eq!(h.message_type, MessageType::HEARTBEAT_REQUEST);
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(x.pending_requests(), 0);
    // The endpoint's rejection goes out (untracked, uncached).
    x.send_response(cp(), seq(9), heartbeat_rsp(seq(9)), now)
        .unwrap();
    assert_eq!(transmits(&mut x).len(), 1);
}

#[test]
fn short_and_unknown_messages_are_malformed() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    x.handle_datagram(cp(), Bytes::from_static(&[0x20, 0x01, 0x00]), now);
    x.handle_datagram(cp(), Bytes::new(), now);
    x.handle_datagram(
        cp(),
        msg_with(MessageType(99), seq(4), Some(0), 0, false),
        now,
    );
    let ev = events(&mut x);
    assert_eq!(ev.len(), 3);
    assert!(
        matches!(&ev[0], Event::Malformed { error, .. } if matches!(error.kind, DecodeErrorKind::Truncated { .. }))
    );
    assert!(
        matches!(&ev[1], Event::Malformed { error, .. } if matches!(error.kind, DecodeErrorKind::Truncated { .. }))
    );
    assert!(matches!(&ev[2], Event::Malformed { error, .. }
        if error.kind == DecodeErrorKind::UnknownMessageType(99) && error.header.unwrap().sequence == seq(4)));
    // Unsupported version: the header summary is there for a Version Not Supported Response.
    let mut v2 = heartbeat_req(seq(8)).to_vec();
    v2[0] = 0x40;
    x.handle_datagram(cp(), Bytes::from(v2), now);
    assert!(
        matches!(events(&mut x).as_slice(), [Event::Malformed { error, .. }]
        if error.kind == DecodeErrorKind::UnsupportedVersion { version: 2 })
    );
    assert_eq!(x.stats().malformed, 4);
}

#[test]
fn version_not_supported_is_its_own_event_and_matches_nothing() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = x.next_sequence(up());
    x.send_request(up(), heartbeat_req(s), now).unwrap();
    let vns = msg_with(
        MessageType::VERSION_NOT_SUPPORTED_RESPONSE,
        s,
        None,
        0,
        false,
    );
    x.handle_datagram(up(), vns, now);
    assert_eq!(
        events(&mut x),
        vec![Event::VersionNotSupported { peer: up() }]
    );
    assert_eq!(x.outstanding(), 1);
}

#[test]
fn sequence_allocation_skips_outstanding_numbers_and_wraps() {
    let now = t0();
    let start = seq(0xFF_FFFE);
    let mut x = Transactions::new(cfg().with_initial_sequence(start));
    let a = x.next_sequence(up());
    assert_eq!(a, seq(0xFF_FFFE));
    x.send_request(up(), heartbeat_req(a), now).unwrap();
    let b = x.next_sequence(up());
    assert_eq!(b, seq(0xFF_FFFF));
    x.send_request(up(), heartbeat_req(b), now).unwrap();
    let c = x.next_sequence(up());
    assert_eq!(c, seq(0), "wraps 0xFFFFFF -> 0");
    x.send_request(up(), heartbeat_req(c), now).unwrap();
    // Run the counter once round: 0xFFFFFE, 0xFFFFFF and 0 are outstanding to up() and are
    // skipped for it, but not for another peer.
    let mut y = Transactions::new(cfg().with_initial_sequence(seq(0xFF_FFFD)));
    for s in [a, b, c] {
        y.send_request(up(), heartbeat_req(s), now).unwrap();
    }
    assert_eq!(y.next_sequence(up()), seq(0xFF_FFFD));
    assert_eq!(y.next_sequence(up()), seq(1));
    let mut z = Transactions::new(cfg().with_initial_sequence(seq(0xFF_FFFE)));
    for s in [a, b, c] {
        z.send_request(up(), heartbeat_req(s), now).unwrap();
    }
    assert_eq!(z.next_sequence(up2()), seq(0xFF_FFFE));
    assert_eq!(z.next_sequence(up()), seq(1));
    // Numbers are freed on completion.
    let mut w = Transactions::new(cfg());
    let s0 = w.next_sequence(up());
    w.send_request(up(), heartbeat_req(s0), now).unwrap();
    w.handle_datagram(up(), heartbeat_rsp(s0), now);
    assert_eq!(w.outstanding(), 0);
    w.send_request(up(), heartbeat_req(s0), now).unwrap();
}

#[test]
fn send_request_checks_the_message() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    assert_eq!(
        x.send_request(up(), heartbeat_rsp(seq(1)), now),
        Err(XactError::NotARequest)
    );
    assert_eq!(
        x.send_request(
            up(),
            msg_with(
                MessageType::VERSION_NOT_SUPPORTED_RESPONSE,
                seq(1),
                None,
                0,
                false
            ),
            now
        ),
        Err(XactError::NotARequest)
    );
    assert!(matches!(
        x.send_request(up(), Bytes::from_static(&[0x20, 1]), now),
        Err(XactError::InvalidMessage(_))
    ));
    let mut long = heartbeat_req(seq(1)).to_vec();
    long.push(0);
    assert!(matches!(
        x.send_request(up(), Bytes::from(long), now),
        Err(XactError::InvalidMessage(e)) if matches!(e.kind, DecodeErrorKind::TrailingData { .. })
    ));
    assert_eq!(
        x.send_request(
            up(),
            msg_with(
                MessageType::SESSION_REPORT_REQUEST,
                seq(1),
                Some(1),
                0,
                true
            ),
            now
        ),
        Err(XactError::FollowOn)
    );
    x.send_request(up(), heartbeat_req(seq(1)), now).unwrap();
    assert_eq!(
        x.send_request(up(), heartbeat_req(seq(1)), now),
        Err(XactError::SequenceInUse)
    );
    x.send_request(up2(), heartbeat_req(seq(1)), now).unwrap();
    assert_eq!(x.outstanding(), 2);
    assert_eq!(transmits(&mut x).len(), 2);
}

#[test]
fn limits_overall_and_per_peer() {
    let now = t0();
    let mut x = Transactions::new(
        cfg()
            .with_max_outstanding(3)
            .with_max_outstanding_per_peer(2),
    );
    let send = |x: &mut Transactions, p: SocketAddr| {
        let s = x.next_sequence(p);
        x.send_request(p, heartbeat_req(s), now)
    };
    let a = send(&mut x, up()).unwrap();
    send(&mut x, up()).unwrap();
    assert_eq!(
        send(&mut x, up()),
        Err(XactError::TooManyOutstandingForPeer)
    );
    send(&mut x, up2()).unwrap();
    assert_eq!(send(&mut x, up2()), Err(XactError::TooManyOutstanding));
    assert_eq!(send(&mut x, cp()), Err(XactError::TooManyOutstanding));
    assert_eq!(x.outstanding(), 3);
    assert!(x.cancel(a));
    send(&mut x, up()).unwrap();
    // Limits on our requests do not stop requests from peers.
    x.handle_datagram(cp(), heartbeat_req(seq(1)), now);
    assert!(matches!(events(&mut x).as_slice(), [Event::Request { .. }]));
    let mut z = Transactions::new(cfg().with_max_outstanding_per_peer(0));
    assert_eq!(
        send(&mut z, up()),
        Err(XactError::TooManyOutstandingForPeer)
    );
    assert_eq!(z.outstanding_to(up()), 0);
}

#[test]
fn response_cache_is_bounded_oldest_evicted() {
    let now = t0();
    let mut x = Transactions::new(cfg().with_max_cached_responses(2));
    for (k, s) in [seq(1), seq(2), seq(3)].into_iter().enumerate() {
        serve_one(&mut x, s, now + Duration::from_millis(k as u64));
    }
    assert_eq!(x.cached_responses(), 2);
    assert_eq!(x.stats().cache_evictions, 1);
    // 2 and 3 are replayed; 1 was evicted, so it is delivered again (memory is bounded).
    x.handle_datagram(cp(), heartbeat_req(seq(3)), now);
    x.handle_datagram(cp(), heartbeat_req(seq(2)), now);
    x.handle_datagram(cp(), heartbeat_req(seq(1)), now);
    let ev = events(&mut x);
    assert!(matches!(
        ev[0],
        Event::DuplicateRequest { replayed: true, .. }
    ));
    assert!(matches!(
        ev[1],
        Event::DuplicateRequest { replayed: true, .. }
    ));
    assert!(matches!(ev[2], Event::Request { .. }));

    let mut off = Transactions::new(cfg().with_max_cached_responses(0));
    serve_one(&mut off, seq(1), now);
    assert_eq!(off.cached_responses(), 0);
    assert_eq!(off.pending_requests(), 0);
}

#[test]
fn pending_requests_are_bounded() {
    let now = t0();
    let mut x = Transactions::new(cfg().with_max_pending_requests(2));
    for s in 1..=3 {
        x.handle_datagram(cp(), heartbeat_req(seq(s)), now);
    }
    assert_eq!(events(&mut x).len(), 3, "all delivered");
    assert_eq!(x.pending_requests(), 2);
    assert_eq!(x.stats().pending_evictions, 1);
    // The forgotten one is still answered.
    x.send_response(cp(), seq(1), heartbeat_rsp(seq(1)), now)
        .unwrap();
    assert_eq!(transmits(&mut x).len(), 1);
}

#[test]
fn send_response_checks() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = seq(10);
    x.handle_datagram(cp(), heartbeat_req(s), now);
    events(&mut x);
    assert_eq!(
        x.send_response(cp(), s, heartbeat_req(s), now),
        Err(XactError::NotAResponse)
    );
    assert_eq!(
        x.send_response(cp(), s, heartbeat_rsp(seq(11)), now),
        Err(XactError::SequenceMismatch {
            expected: s,
            found: seq(11)
        })
    );
    assert_eq!(
        x.send_response(
            cp(),
            s,
            msg_with(MessageType::ASSOCIATION_SETUP_RESPONSE, s, None, 0, false),
            now
        ),
        Err(XactError::WrongResponseType {
            request: MessageType::HEARTBEAT_REQUEST,
            found: MessageType::ASSOCIATION_SETUP_RESPONSE
        })
    );
    assert!(matches!(
        x.send_response(cp(), s, Bytes::from_static(&[1, 2, 3]), now),
        Err(XactError::InvalidMessage(_))
    ));
    assert!(transmits(&mut x).is_empty());
    assert_eq!(x.pending_requests(), 1);
    x.send_response(cp(), s, heartbeat_rsp(s), now).unwrap();
    assert_eq!(x.pending_requests(), 0);
    assert_eq!(x.cached_responses(), 1);
    assert_eq!(x.stats().responses_sent, 1);
}

#[test]
fn cancel_stops_retransmission_without_event() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = x.next_sequence(up());
    let id = x.send_request(up(), heartbeat_req(s), now).unwrap();
    transmits(&mut x);
    assert!(x.cancel(id));
    assert!(!x.cancel(id));
    assert!(!x.cancel(TxId(999)));
    x.handle_timeout(now + T1 * 10);
    assert!(transmits(&mut x).is_empty());
    assert!(events(&mut x).is_empty());
    assert_eq!(x.poll_timeout(), None);
    // Its response is now unmatched.
    x.handle_datagram(up(), heartbeat_rsp(s), now);
    assert!(matches!(
        events(&mut x).as_slice(),
        [Event::UnmatchedResponse { .. }]
    ));
}

#[test]
fn fail_peer_times_out_its_requests_and_forgets_its_cache() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let mut ids = Vec::new();
    for _ in 0..3 {
        let s = x.next_sequence(up());
        ids.push(x.send_request(up(), heartbeat_req(s), now).unwrap());
    }
    let s_other = x.next_sequence(up2());
    let other = x.send_request(up2(), heartbeat_req(s_other), now).unwrap();
    x.handle_timeout(now + T1);
    transmits(&mut x);
    // Requests from up(): one answered, one in progress.
    x.handle_datagram(up(), heartbeat_req(seq(500)), now);
    x.send_response(up(), seq(500), heartbeat_rsp(seq(500)), now)
        .unwrap();
    x.handle_datagram(up(), heartbeat_req(seq(501)), now);
    x.handle_datagram(up2(), heartbeat_req(seq(502)), now);
    x.send_response(up2(), seq(502), heartbeat_rsp(seq(502)), now)
        .unwrap();
    events(&mut x);
    transmits(&mut x);
    assert_eq!(x.cached_responses(), 2);

    assert_eq!(x.fail_peer(up()), 3);
    let ev = events(&mut x);
    let expected: Vec<Event> = ids
        .iter()
        .map(|&id| Event::Timeout {
            id,
            peer: up(),
            transmissions: 2,
        })
        .collect();
    assert_eq!(ev, expected);
    assert_eq!(x.outstanding(), 1);
    assert_eq!(x.outstanding_to(up()), 0);
    assert_eq!(x.cached_responses(), 1);
    assert_eq!(x.pending_requests(), 0);
    assert_eq!(x.fail_peer(up()), 0);
    // The restarted peer's request with an old number is new to us.
    x.handle_datagram(up(), heartbeat_req(seq(500)), now);
    assert!(matches!(events(&mut x).as_slice(), [Event::Request { .. }]));
    // up2() is untouched.
    x.handle_datagram(up2(), heartbeat_rsp(s_other), now);
    assert!(matches!(
        events(&mut x).as_slice(),
        [Event::Response { id, .. }] if *id == other
    ));
    assert_eq!(x.stats().failed_by_peer, 3);
}

#[test]
fn malformed_response_rel16_discard_or_rel18_fail() {
    let now = t0();
    for fail in [false, true] {
        let mut x = Transactions::new(cfg().with_fail_on_malformed_response(fail));
        let s = x.next_sequence(up());
        let id = x.send_request(up(), heartbeat_req(s), now).unwrap();
        let mut bad = heartbeat_rsp(s).to_vec();
        bad.push(0);
        x.handle_datagram(up(), Bytes::from(bad), now);
        let ev = events(&mut x);
        if fail {
            assert!(matches!(ev.as_slice(),
                [Event::MalformedResponse { id: i, transmissions: 1, .. }] if *i == id));
            assert_eq!(x.outstanding(), 0);
        } else {
            assert!(matches!(ev.as_slice(), [Event::Malformed { .. }]));
            assert_eq!(x.outstanding(), 1);
        }
    }
}

#[test]
fn full_queues_drop_datagrams() {
    let now = t0();
    let mut x = Transactions::new(cfg().with_max_queued(2));
    for s in 1..=4 {
        x.handle_datagram(cp(), heartbeat_req(seq(s)), now);
    }
    assert_eq!(events(&mut x).len(), 2);
    assert_eq!(x.stats().datagrams_dropped, 2);
    x.handle_datagram(cp(), heartbeat_req(seq(3)), now);
    assert_eq!(events(&mut x).len(), 1);
}

#[test]
fn poll_timeout_is_the_earliest_deadline() {
    let now = t0();
    let mut x = Transactions::new(cfg().with_response_cache_ttl(Duration::from_secs(1)));
    assert_eq!(x.poll_timeout(), None);
    let s = x.next_sequence(up());
    x.send_request(up(), heartbeat_req(s), now).unwrap();
    assert_eq!(x.poll_timeout(), Some(now + T1));
    x.handle_datagram(
        cp(),
        heartbeat_req(seq(1)),
        now + Duration::from_millis(500),
    );
    assert_eq!(x.poll_timeout(), Some(now + Duration::from_millis(1500)));
    x.handle_timeout(now + Duration::from_millis(1500));
    assert_eq!(x.poll_timeout(), Some(now + T1));
}

#[test]
fn tiny_t1_cannot_loop() {
    let now = t0();
    let mut x = Transactions::new(cfg().with_t1(Duration::ZERO).with_n1(u32::MAX));
    let s = x.next_sequence(up());
    x.send_request(up(), heartbeat_req(s), now).unwrap();
    x.handle_timeout(now + Duration::from_secs(1));
    assert_eq!(transmits(&mut x).len(), 2);
}

#[test]
fn memory_estimates() {
    let out = approx_bytes_per_outstanding();
    let pending = approx_bytes_per_pending_request();
    let cached = approx_bytes_per_cached_response();
    println!(
        "bytes per outstanding request {out} (+ message), per pending request {pending}, \
         per cached response {cached} (+ response); size_of Outgoing {}, Pending {}, cache slot {}, \
         Event {}",
        size_of::<Outgoing>(),
        size_of::<Pending>(),
        size_of::<cache::Slot>(),
        size_of::<Event>()
    );
    assert!((200..=600).contains(&out), "{out}");
    assert!((100..=400).contains(&cached), "{cached}");
}
