//! Configuration and bounds: the defaults (T1, N1 and the response-cache TTL derived from them,
//! TS 29.244 clause 6.4), the limits on outstanding requests overall and per peer, the bounded
//! response cache (oldest evicted) and pending requests, full queues dropping datagrams, and
//! the memory estimates.

use super::*;

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
