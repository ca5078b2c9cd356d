//! Outgoing requests (TS 29.244 clause 6.4): responses matched by (peer, sequence number),
//! byte-identical retransmission every T1 and timeout after `1 + N1` transmissions, the
//! Version Not Supported Response matching nothing, sequence number allocation (mod 2^24,
//! skipping outstanding numbers), the checks of `send_request`, `cancel`, `fail_peer`, and a
//! malformed response discarded (Rel-16) or failing the request (Rel-18, clause 7.6).

use super::*;

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
            // Reported, for the egress rate of the connection.
            assert_eq!(
                events(&mut x),
                vec![Event::Retransmitted { id, peer: up() }]
            );
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
fn response_counts_transmissions() {
    let now = t0();
    let mut x = Transactions::new(cfg());
    let s = x.next_sequence(up());
    let id = x.send_request(up(), heartbeat_req(s), now).unwrap();
    x.handle_timeout(now + T1);
    x.handle_timeout(now + T1 * 2);
    assert_eq!(transmits(&mut x).len(), 3);
    let again = events(&mut x);
    assert_eq!(again, vec![Event::Retransmitted { id, peer: up() }; 2]);
    x.handle_datagram(up(), heartbeat_rsp(s), now + T1 * 2);
    assert!(matches!(
        events(&mut x).as_slice(),
        [Event::Response { id: i, transmissions: 3, .. }] if *i == id
    ));
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
