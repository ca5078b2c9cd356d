//! Incoming requests and duplicates (TS 29.244 clause 6.4, digest 6.5): a request is
//! delivered once; a duplicate is dropped while in progress and answered from the response
//! cache once answered; a retransmission bundled differently (FO bit, clause 7.2.1A) is still
//! a duplicate; a reused sequence number with new content is a new request; the checks of
//! `send_response`.

use super::*;

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
