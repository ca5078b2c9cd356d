//! Received datagrams (TS 29.244 clauses 7.2.1A and 7.6): an FO bundle is unpacked into one
//! event per message (zero-copy), a bundle with a bad tail keeps its good head, a request
//! with trailing octets is only malformed (clause 7.6: answered with Cause 68, not
//! processed), and short, unknown-type and unsupported-version messages are malformed.

use super::*;

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
