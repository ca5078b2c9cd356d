//! Client and server [`Transactions`] over a simulated UDP link with seeded loss, delay,
//! reordering and duplication, on a fake clock (TS 29.244 clause 6.4).
//!
//! The clock jumps to the earliest of: both sides' `poll_timeout`, the next link delivery,
//! the next scheduled send and the next server answer. The server answers every
//! `Event::Request` exactly once (after an optional processing delay) and counts them per
//! (peer, sequence) and per request identity.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use pfcp_node::xact::{Event, TransactionConfig, Transactions, TxId};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::RecoveryTimeStamp;
use pfcp_wire::{Header, Message, MessageType, SequenceNumber};
use proptest::prelude::*;

use pfcp_test_support::clock::origin as t0;
use pfcp_test_support::rng::SplitMix64;

/// SplitMix64: small, deterministic, good enough for link decisions.
struct Rng(SplitMix64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        self.0.unit()
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform in [0, d).
    fn duration_below(&mut self, d: Duration) -> Duration {
        let n = d.as_nanos() as u64;
        if n == 0 {
            Duration::ZERO
        } else {
            Duration::from_nanos(self.next_u64() % n)
        }
    }
}

/// One direction of the link (both directions use the same parameters, independently).
///
/// Per datagram: lost with probability `loss`; otherwise delivered after
/// `min_delay + U[0, jitter) (+ U[0, reorder_extra) with probability reorder)`, and with
/// probability `dup` a second copy is delivered too, with its own delay. Loss is decided once
/// per datagram, before duplication.
#[derive(Debug, Clone, Copy)]
struct Link {
    loss: f64,
    dup: f64,
    min_delay: Duration,
    jitter: Duration,
    reorder: f64,
    reorder_extra: Duration,
}

impl Link {
    fn delay(&self, rng: &mut Rng) -> Duration {
        let mut d = self.min_delay + rng.duration_below(self.jitter);
        if rng.chance(self.reorder) {
            d += rng.duration_below(self.reorder_extra);
        }
        d
    }

    fn max_delay(&self) -> Duration {
        self.min_delay + self.jitter + self.reorder_extra
    }
}

#[derive(Debug, Clone)]
struct Scenario {
    link: Link,
    clients: usize,
    requests_per_client: usize,
    gap: Duration,
    t1: Duration,
    n1: u32,
    max_processing: Duration,
    seed: u64,
}

struct Delivery {
    at: Instant,
    serial: u64,
    /// 0: the server; 1..: clients.
    to: usize,
    from: SocketAddr,
    bytes: Bytes,
}

impl PartialEq for Delivery {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.serial) == (other.at, other.serial)
    }
}
impl Eq for Delivery {}
impl PartialOrd for Delivery {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Delivery {
    /// Reversed: `BinaryHeap` pops the earliest.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.serial).cmp(&(self.at, self.serial))
    }
}

/// A server answer waiting for its processing delay (earliest first).
#[derive(PartialEq, Eq)]
struct Answer {
    at: Instant,
    serial: u64,
    peer: SocketAddr,
    sequence: SequenceNumber,
    tag: u32,
}
impl PartialOrd for Answer {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Answer {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.serial).cmp(&(self.at, self.serial))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Response(u32),
    Timeout(u32),
}

#[derive(Debug, Default)]
struct Report {
    requests: usize,
    completed: usize,
    timed_out: usize,
    unmatched_responses: usize,
    replayed: usize,
    dropped_in_progress: usize,
    server_requests: usize,
}

fn server_addr() -> SocketAddr {
    "10.0.0.1:8805".parse().unwrap()
}

fn client_addr(c: usize) -> SocketAddr {
    SocketAddr::new([10, 0, 1, c as u8].into(), 40_000 + c as u16)
}

fn message(t: MessageType, seq: SequenceNumber, tag: u32) -> Bytes {
    let h = Header::new(t).with_sequence(seq);
    let mut out = BytesMut::new();
    let mut w = MessageWriter::begin(&mut out, &h).unwrap();
    w.ie(&RecoveryTimeStamp(tag)).unwrap();
    w.finish().unwrap();
    out.freeze()
}

fn tag_of(bytes: &[u8]) -> u32 {
    Message::decode(bytes)
        .unwrap()
        .recovery_time_stamp()
        .unwrap()
        .unwrap()
        .0
}

/// Request identity: client and index, carried in the request and echoed by the response.
fn tag(client: usize, index: usize) -> u32 {
    (client * 1_000_000 + index) as u32
}

/// Run one scenario to the end (every request decided, every cache expired) and check the
/// invariants on the way.
fn run(sc: &Scenario) -> Report {
    let base = t0();
    let config = TransactionConfig::default().with_t1(sc.t1).with_n1(sc.n1);
    let ttl = config.response_cache_ttl;
    // Every copy must reach the server within its cache window, or "processed once" cannot
    // hold (and is not promised): last copy at n1*T1 plus the largest delay.
    assert!(sc.t1 * sc.n1 + sc.link.max_delay() < ttl);
    let mut server = Transactions::new(config.clone());
    // Node 0 is the server; clients at 1..=clients.
    let mut clients: Vec<Transactions> = (0..sc.clients)
        .map(|_| Transactions::new(config.clone()))
        .collect();
    let mut rng = Rng(SplitMix64(sc.seed));
    let mut wire: BinaryHeap<Delivery> = BinaryHeap::new();
    let mut answers: BinaryHeap<Answer> = BinaryHeap::new();
    let mut serial = 0u64;

    let n = sc.requests_per_client;
    let mut next_send = vec![0usize; sc.clients];
    // Per (client, index): the request bytes, its id, wire transmissions, outcome.
    let mut sent_bytes: Vec<Vec<Option<Bytes>>> = vec![vec![None; n]; sc.clients];
    let mut wire_count: Vec<Vec<u32>> = vec![vec![0; n]; sc.clients];
    let mut outcome: Vec<Vec<Option<Outcome>>> = vec![vec![None; n]; sc.clients];
    let mut by_id: Vec<HashMap<TxId, usize>> = vec![HashMap::new(); sc.clients];
    let mut by_seq: Vec<HashMap<SequenceNumber, usize>> = vec![HashMap::new(); sc.clients];
    let mut processed: HashMap<(SocketAddr, SequenceNumber), u32> = HashMap::new();
    let mut processed_tags: HashMap<u32, u32> = HashMap::new();
    let mut report = Report {
        requests: sc.clients * n,
        ..Report::default()
    };

    let send_time = |c: usize, i: usize| base + sc.gap * i as u32 + Duration::from_micros(c as u64);
    let mut now = base;
    let mut steps = 0u64;
    loop {
        steps += 1;
        assert!(steps < 50_000_000, "simulation does not terminate");
        // 1. New requests due.
        for c in 0..sc.clients {
            while next_send[c] < n && send_time(c, next_send[c]) <= now {
                let i = next_send[c];
                next_send[c] += 1;
                let x = &mut clients[c];
                let s = x.next_sequence(server_addr());
                let b = message(MessageType::HEARTBEAT_REQUEST, s, tag(c, i));
                let id = x.send_request(server_addr(), b.clone(), now).unwrap();
                sent_bytes[c][i] = Some(b);
                by_id[c].insert(id, i);
                assert!(by_seq[c].insert(s, i).is_none(), "no wrap in this test");
            }
        }
        // 2. Deliveries due.
        while wire.peek().is_some_and(|d| d.at <= now) {
            let d = wire.pop().unwrap();
            if d.to == 0 {
                server.handle_datagram(d.from, d.bytes, now);
            } else {
                clients[d.to - 1].handle_datagram(d.from, d.bytes, now);
            }
        }
        // 3. Timers.
        server.handle_timeout(now);
        for x in &mut clients {
            x.handle_timeout(now);
        }
        // 4. Server answers due.
        while answers.peek().is_some_and(|a| a.at <= now) {
            let a = answers.pop().unwrap();
            let r = message(MessageType::HEARTBEAT_RESPONSE, a.sequence, a.tag);
            server.send_response(a.peer, a.sequence, r, now).unwrap();
        }
        // 5. Drain events and transmits until quiet.
        loop {
            let mut busy = false;
            while let Some(e) = server.poll_event() {
                busy = true;
                match e {
                    Event::Request {
                        peer,
                        sequence,
                        message_type,
                        bytes,
                    } => {
                        assert_eq!(message_type, MessageType::HEARTBEAT_REQUEST);
                        let t = tag_of(&bytes);
                        *processed.entry((peer, sequence)).or_default() += 1;
                        *processed_tags.entry(t).or_default() += 1;
                        assert_eq!(processed[&(peer, sequence)], 1, "processed twice");
                        assert_eq!(processed_tags[&t], 1, "request {t} processed twice");
                        report.server_requests += 1;
                        let delay = rng.duration_below(sc.max_processing);
                        if delay.is_zero() {
                            let r = message(MessageType::HEARTBEAT_RESPONSE, sequence, t);
                            server.send_response(peer, sequence, r, now).unwrap();
                        } else {
                            serial += 1;
                            answers.push(Answer {
                                at: now + delay,
                                serial,
                                peer,
                                sequence,
                                tag: t,
                            });
                        }
                    }
                    Event::DuplicateRequest { replayed, .. } => {
                        if replayed {
                            report.replayed += 1;
                        } else {
                            report.dropped_in_progress += 1;
                        }
                    }
                    e => panic!("server: unexpected {e:?}"),
                }
            }
            for (c, x) in clients.iter_mut().enumerate() {
                while let Some(e) = x.poll_event() {
                    busy = true;
                    match e {
                        Event::Response {
                            id,
                            peer,
                            bytes,
                            transmissions,
                        } => {
                            assert_eq!(peer, server_addr());
                            let i = by_id[c][&id];
                            assert_eq!(outcome[c][i], None, "decided twice");
                            assert_eq!(tag_of(&bytes), tag(c, i), "wrong answer");
                            let m = Message::decode(&bytes).unwrap();
                            assert_eq!(by_seq[c][&m.header().sequence], i);
                            assert!((1..=1 + sc.n1).contains(&transmissions));
                            outcome[c][i] = Some(Outcome::Response(transmissions));
                            report.completed += 1;
                        }
                        Event::Timeout {
                            id, transmissions, ..
                        } => {
                            let i = by_id[c][&id];
                            assert_eq!(outcome[c][i], None, "decided twice");
                            assert_eq!(transmissions, 1 + sc.n1, "timeout after 1 + N1");
                            outcome[c][i] = Some(Outcome::Timeout(transmissions));
                            report.timed_out += 1;
                        }
                        Event::UnmatchedResponse { .. } => report.unmatched_responses += 1,
                        // Reported for egress rates; the transmits themselves are checked.
                        Event::Retransmitted { .. } => {}
                        e => panic!("client: unexpected {e:?}"),
                    }
                }
            }
            while let Some(t) = server.poll_transmit() {
                busy = true;
                let to = (1..=sc.clients)
                    .find(|&c| client_addr(c) == t.peer)
                    .unwrap();
                send(
                    &mut wire,
                    &mut rng,
                    &mut serial,
                    &sc.link,
                    now,
                    to,
                    server_addr(),
                    t.bytes,
                );
            }
            for (c, x) in clients.iter_mut().enumerate() {
                while let Some(t) = x.poll_transmit() {
                    busy = true;
                    assert_eq!(t.peer, server_addr());
                    let m = Message::decode(&t.bytes).unwrap();
                    let i = by_seq[c][&m.header().sequence];
                    // Byte-identical retransmissions.
                    assert_eq!(sent_bytes[c][i].as_ref(), Some(&t.bytes));
                    assert!(outcome[c][i].is_none(), "sent after completion");
                    wire_count[c][i] += 1;
                    let from = client_addr(c + 1);
                    send(
                        &mut wire,
                        &mut rng,
                        &mut serial,
                        &sc.link,
                        now,
                        0,
                        from,
                        t.bytes,
                    );
                }
            }
            if !busy {
                break;
            }
        }
        // 6. Advance the fake clock.
        let next_sends = (0..sc.clients)
            .filter(|&c| next_send[c] < n)
            .map(|c| send_time(c, next_send[c]));
        let next = [
            server.poll_timeout(),
            wire.peek().map(|d| d.at),
            answers.peek().map(|a| a.at),
        ]
        .into_iter()
        .flatten()
        .chain(clients.iter().filter_map(Transactions::poll_timeout))
        .chain(next_sends)
        .min();
        match next {
            Some(t) => {
                assert!(t > now, "every deadline at or before now was handled");
                now = t;
            }
            None => break,
        }
    }

    // Everything decided, with the transmissions the wire saw; nothing left behind.
    for c in 0..sc.clients {
        for i in 0..n {
            let o = outcome[c][i].unwrap_or_else(|| panic!("request {c}/{i} undecided"));
            let (Outcome::Response(k) | Outcome::Timeout(k)) = o;
            assert_eq!(k, wire_count[c][i], "reported vs sent transmissions");
        }
        assert_eq!(clients[c].outstanding(), 0);
        assert_eq!(clients[c].cached_responses(), 0);
    }
    assert_eq!(server.cached_responses(), 0);
    assert_eq!(server.pending_requests(), 0);
    assert_eq!(server.outstanding(), 0);
    assert!(processed.values().all(|&k| k == 1));
    assert_eq!(report.completed + report.timed_out, report.requests);
    report
}

#[allow(clippy::too_many_arguments)]
fn send(
    wire: &mut BinaryHeap<Delivery>,
    rng: &mut Rng,
    serial: &mut u64,
    link: &Link,
    now: Instant,
    to: usize,
    from: SocketAddr,
    bytes: Bytes,
) {
    if rng.chance(link.loss) {
        return;
    }
    let copies = if rng.chance(link.dup) { 2 } else { 1 };
    for _ in 0..copies {
        *serial += 1;
        wire.push(Delivery {
            at: now + link.delay(rng),
            serial: *serial,
            to,
            from,
            bytes: bytes.clone(),
        });
    }
}

/// The scenario of the completion-rate checks: 30 % loss each way, N1 = 3, T1 = 3 s, one-way
/// delay 5 ms to 1.4 s (heavy reordering: requests leave every 10 ms), immediate answers.
fn lossy(loss: f64, dup: f64, seed: u64) -> Scenario {
    Scenario {
        link: Link {
            loss,
            dup,
            min_delay: Duration::from_millis(5),
            jitter: Duration::from_millis(1395),
            reorder: 0.0,
            reorder_extra: Duration::ZERO,
        },
        clients: 1,
        requests_per_client: 6000,
        gap: Duration::from_millis(10),
        t1: Duration::from_secs(3),
        n1: 3,
        max_processing: Duration::ZERO,
        seed,
    }
}

/// Expected completion probability for this link model.
///
/// With one-way delays below T1/2, each of the `1 + N1` copies of a request is answered (if at
/// all) before the next copy leaves, and before the final timeout. The server answers every
/// arriving copy exactly once: the first with a fresh response, later ones from the response
/// cache (which outlives the last copy), and with no processing delay no copy meets the
/// request in progress. Round k succeeds iff copy k reaches the server and one of the replies
/// it triggers comes back. Without duplication that is `p = (1-l)(1-l)`; with duplication
/// probability `d` (decided after loss, the copy sharing the original's fate), a delivered
/// request arrives twice with probability `d` and triggers two replies, each lost
/// independently:
///
/// `p = (1-l) * ((1-d)(1-l) + d(1-l^2))`,  completion `= 1 - (1-p)^(1+N1)`.
///
/// For l = 0.3, d = 0: p = 0.49 and completion = 1 - 0.51^4 = 0.932348.
fn expected_completion(loss: f64, dup: f64, n1: u32) -> f64 {
    let ok = 1.0 - loss;
    let p = ok * ((1.0 - dup) * ok + dup * (1.0 - loss * loss));
    1.0 - (1.0 - p).powi(1 + n1 as i32)
}

fn check_rate(loss: f64, dup: f64, seed: u64) {
    let sc = lossy(loss, dup, seed);
    assert!(sc.link.max_delay() < sc.t1 / 2);
    let r = run(&sc);
    let measured = r.completed as f64 / r.requests as f64;
    let expected = expected_completion(loss, dup, sc.n1);
    println!(
        "loss {loss} dup {dup}: completion {measured:.4} (expected {expected:.4}) over {} \
         requests; {} timed out, {} replayed, {} unmatched responses",
        r.requests, r.timed_out, r.replayed, r.unmatched_responses
    );
    assert!(
        (measured - expected).abs() <= 0.02,
        "measured {measured:.4} vs expected {expected:.4}"
    );
}

#[test]
fn completion_rate_under_30_percent_loss_each_way() {
    check_rate(0.3, 0.0, 0x5EED_0001);
}

#[test]
fn completion_rate_under_30_percent_loss_and_10_percent_duplication() {
    check_rate(0.3, 0.1, 0x5EED_0002);
}

#[test]
fn lossless_link_completes_everything_at_first_transmission() {
    let mut sc = lossy(0.0, 0.0, 1);
    sc.requests_per_client = 500;
    let r = run(&sc);
    assert_eq!(r.completed, 500);
    assert_eq!(r.replayed, 0);
    assert_eq!(r.server_requests, 500);
}

#[test]
fn two_clients_with_the_same_sequence_numbers_are_kept_apart() {
    // Both clients count from 0: the server keys by (address and port, sequence).
    let mut sc = lossy(0.2, 0.1, 7);
    sc.clients = 2;
    sc.requests_per_client = 1000;
    sc.max_processing = Duration::from_millis(800);
    let r = run(&sc);
    assert!(r.completed > 1800, "{r:?}");
    assert!(r.dropped_in_progress > 0, "{r:?}");
}

#[test]
fn dead_server_every_request_times_out_after_1_plus_n1() {
    let mut sc = lossy(1.0, 0.0, 3);
    sc.requests_per_client = 200;
    let r = run(&sc);
    assert_eq!(r.timed_out, 200);
    assert_eq!(r.server_requests, 0);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn invariants_hold_on_any_link(
        loss in 0.0f64..0.5,
        dup in 0.0f64..0.2,
        reorder in 0.0f64..0.5,
        jitter_ms in 0u64..1000,
        extra_ms in 0u64..2000,
        processing_ms in 0u64..2000,
        n1 in 0u32..5,
        clients in 1usize..3,
        seed in any::<u64>(),
    ) {
        let sc = Scenario {
            link: Link {
                loss,
                dup,
                min_delay: Duration::from_millis(1),
                jitter: Duration::from_millis(jitter_ms),
                reorder,
                reorder_extra: Duration::from_millis(extra_ms),
            },
            clients,
            requests_per_client: 150,
            gap: Duration::from_millis(20),
            t1: Duration::from_secs(3),
            n1,
            max_processing: Duration::from_millis(processing_ms),
            seed,
        };
        // `run` asserts: every request answered with the right response or timed out after
        // exactly 1 + N1 transmissions, byte-identical retransmissions, reported transmissions
        // equal to those on the wire, no request processed twice, all state expired at the end.
        let r = run(&sc);
        prop_assert_eq!(r.completed + r.timed_out, r.requests);
        prop_assert!(r.server_requests <= r.requests);
    }
}
