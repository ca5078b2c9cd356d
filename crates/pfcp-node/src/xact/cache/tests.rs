//! The response cache against a plain model (a list in insertion order), and its ring's
//! bounds under removals out of order.

use super::super::{Event, TransactionConfig, Transactions, Transmit};
use super::*;
use proptest::prelude::*;

use pfcp_test_support::clock::origin as t0;

fn peer(i: u8) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, i], 8805))
}

fn seq(v: u32) -> SequenceNumber {
    SequenceNumber::wrapping(v)
}

fn response(tag: u64) -> Bytes {
    Bytes::copy_from_slice(&tag.to_be_bytes())
}

const TTL: Duration = Duration::from_secs(5);

#[derive(Debug, Clone)]
enum Op {
    Insert { peer: u8, seq: u32, fp: u64 },
    Remove { peer: u8, seq: u32 },
    RemovePeer { peer: u8 },
    Advance { ms: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..3u8, 0..8u32, 0..4u64).prop_map(|(peer, seq, fp)| Op::Insert { peer, seq, fp }),
        2 => (0..3u8, 0..8u32).prop_map(|(peer, seq)| Op::Remove { peer, seq }),
        1 => (0..3u8).prop_map(|peer| Op::RemovePeer { peer }),
        2 => (0..3000u64).prop_map(|ms| Op::Advance { ms }),
    ]
}

/// (peer, sequence, fingerprint, response tag, expiry), oldest first.
type Model = VecDeque<(u8, u32, u64, u64, Instant)>;

fn check(cache: &ResponseCache, model: &Model, max: usize) {
    assert_eq!(cache.len(), model.len());
    assert_eq!(cache.next_expiry(), model.front().map(|m| m.4));
    for p in 0..3u8 {
        for s in 0..8u32 {
            let want = model
                .iter()
                .find(|m| m.0 == p && m.1 == s)
                .map(|m| (m.2, response(m.3)));
            let got = cache.get(peer(p), seq(s)).map(|(fp, r)| (fp, r.clone()));
            assert_eq!(got, want, "peer {p} sequence {s}");
            assert_eq!(cache.contains(peer(p), seq(s)), want.is_some());
        }
    }
    // Dead slots stay bounded by the live ones (one eviction's worth of lag).
    assert!(cache.ring_len() <= 2 * cache.len() + SLACK + 2);
    assert!(cache.ring_len() <= 2 * max + SLACK + 2);
    // Peer numbers are held exactly by the peers with cached responses.
    let peers: std::collections::HashSet<u8> = model.iter().map(|m| m.0).collect();
    assert_eq!(cache.peer_numbers.len(), peers.len());
}

proptest! {
    #[test]
    fn behaves_as_an_insertion_ordered_list(
        max in 1..6usize,
        ops in proptest::collection::vec(op(), 1..200),
    ) {
        let mut now = t0();
        let mut cache = ResponseCache::new();
        let mut model = Model::new();
        let mut tag = 0u64;
        for op in ops {
            match op {
                Op::Insert { peer: p, seq: s, fp } => {
                    tag += 1;
                    let mut evicted = 0;
                    while model.len() >= max {
                        model.pop_front();
                        evicted += 1;
                    }
                    model.retain(|m| !(m.0 == p && m.1 == s));
                    model.push_back((p, s, fp, tag, now + TTL));
                    let got = cache.insert(peer(p), seq(s), fp, response(tag), now + TTL, max);
                    prop_assert_eq!(got, evicted);
                }
                Op::Remove { peer: p, seq: s } => {
                    let before = model.len();
                    model.retain(|m| !(m.0 == p && m.1 == s));
                    prop_assert_eq!(cache.remove(peer(p), seq(s)), model.len() != before);
                }
                Op::RemovePeer { peer: p } => {
                    let before = model.len();
                    model.retain(|m| m.0 != p);
                    prop_assert_eq!(cache.remove_peer(peer(p)), before - model.len());
                }
                Op::Advance { ms } => {
                    now += Duration::from_millis(ms);
                    model.retain(|m| m.4 > now);
                    cache.expire(now);
                }
            }
            check(&cache, &model, max);
        }
    }
}

#[test]
fn removals_out_of_order_are_compacted_and_positions_stay_right() {
    let now = t0();
    let mut cache = ResponseCache::new();
    let n = 1000u32;
    for s in 0..n {
        let p = (s % 2) as u8;
        cache.insert(
            peer(p),
            seq(s),
            u64::from(s),
            response(u64::from(s)),
            now + TTL,
            4096,
        );
    }
    // Every other slot dies (one peer fails), then two in three of the rest.
    assert_eq!(cache.remove_peer(peer(1)), 500);
    for s in (0..n).step_by(2).filter(|s| s % 3 != 0) {
        assert!(cache.remove(peer(0), seq(s)));
    }
    assert_eq!(cache.len(), 167);
    assert!(cache.ring_len() <= 2 * 167 + SLACK, "{}", cache.ring_len());
    for s in (0..n).step_by(2) {
        let got = cache.get(peer(0), seq(s)).map(|(fp, r)| (fp, r.clone()));
        let want = (s % 3 == 0).then(|| (u64::from(s), response(u64::from(s))));
        assert_eq!(got, want, "{s}");
    }
    // The number of peer 1 was freed and is reused.
    cache.insert(peer(2), seq(1), 7, response(7), now + TTL, 4096);
    assert_eq!(cache.peers.len(), 2);
    assert_eq!(cache.get(peer(2), seq(1)).map(|(fp, _)| fp), Some(7));
}

#[test]
fn expiry_follows_insertion_and_a_clock_gone_back_expires_later_not_earlier() {
    let now = t0();
    let ms = Duration::from_millis;
    let mut cache = ResponseCache::new();
    cache.insert(peer(0), seq(1), 0, response(1), now + ms(100), 10);
    cache.insert(peer(0), seq(2), 0, response(2), now + ms(300), 10);
    // Armed earlier than the latest: takes the latest, so the ring stays in order.
    cache.insert(peer(0), seq(3), 0, response(3), now + ms(200), 10);
    assert_eq!(cache.next_expiry(), Some(now + ms(100)));
    // Before the first expiry ever armed nothing expires.
    cache.expire(now);
    assert_eq!(cache.len(), 3);
    cache.expire(now + ms(250));
    assert_eq!(cache.len(), 2);
    assert_eq!(cache.next_expiry(), Some(now + ms(300)));
    cache.expire(now + ms(300));
    assert_eq!(cache.len(), 0);
    assert_eq!(cache.next_expiry(), None);
    // Everything given back once empty.
    assert!(cache.peer_numbers.is_empty() && cache.peers.is_empty() && cache.index.is_empty());
}

/// A Heartbeat Request (`t` = 1) or Response (2) with sequence `s` and Recovery Time Stamp
/// `stamp` (other stamps, other content).
fn heartbeat(t: u8, s: u32, stamp: u32) -> Bytes {
    let [_, s2, s1, s0] = s.to_be_bytes();
    let mut v = vec![
        0x20, t, 0x00, 0x0c, s2, s1, s0, 0x00, 0x00, 0x60, 0x00, 0x04,
    ];
    v.extend_from_slice(&stamp.to_be_bytes());
    Bytes::from(v)
}

#[test]
fn through_transactions_reuse_and_failed_peers_keep_the_ring_small_and_right() {
    let now = t0();
    let mut x = Transactions::new(TransactionConfig::default());
    let serve = |x: &mut Transactions, p: u8, s: u32, stamp: u32| {
        x.handle_datagram(peer(p), heartbeat(1, s, stamp), now);
        while x.poll_event().is_some() {}
        x.send_response(peer(p), seq(s), heartbeat(2, s, stamp), now)
            .unwrap();
        while x.poll_transmit().is_some() {}
    };
    for s in 0..100 {
        serve(&mut x, (s % 2) as u8, s, 0);
    }
    // Peer 0 restarts its numbering 1 000 times over sequence 4 (new content each time).
    for stamp in 1..=1000 {
        serve(&mut x, 0, 4, stamp);
    }
    assert_eq!(x.stats().sequence_reuses, 1000);
    assert_eq!(x.cached_responses(), 100);
    assert!(x.cache.ring_len() <= 2 * 100 + SLACK);
    // Peer 1 fails: its slots die in the middle of the ring.
    x.fail_peer(peer(1));
    assert_eq!(x.cached_responses(), 50);
    // Every answer of peer 0 is still replayed, the reused one with its latest response.
    for s in (0..100).step_by(2) {
        let stamp = if s == 4 { 1000 } else { 0 };
        x.handle_datagram(peer(0), heartbeat(1, s, stamp), now);
        let t: Vec<Transmit> = std::iter::from_fn(|| x.poll_transmit()).collect();
        assert_eq!(t.len(), 1, "{s}");
        assert_eq!(t.first().map(|t| &t.bytes), Some(&heartbeat(2, s, stamp)));
    }
    // Peer 1's old numbers are new requests again.
    while x.poll_event().is_some() {}
    x.handle_datagram(peer(1), heartbeat(1, 1, 0), now);
    assert!(matches!(x.poll_event(), Some(Event::Request { .. })));
}
