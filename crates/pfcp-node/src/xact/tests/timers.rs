//! Deadlines (TS 29.244 clause 6.4): a late `handle_timeout` fires each deadline once, the
//! response cache and unanswered requests expire after the cache TTL, `poll_timeout` is the
//! earliest deadline, and a zero T1 cannot loop.

use super::*;

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
