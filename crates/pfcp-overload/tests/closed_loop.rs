//! Deterministic closed loop, no sockets: N CP senders apply the reduction advertised by one UP
//! of capacity C, with one interval of feedback delay, through the real OCI path (reporter ->
//! `oci_for` -> encoded OCI -> `Message` decode -> `OverloadTable`).
//!
//! Timeline per interval k: senders send (offered minus their Loss drops, using the reduction
//! they know at the start of k); the UP serves up to C, queues up to Q, rejects the rest, and
//! at the end of k feeds its measurement to the reporter. Responses during k+1 carry the OCI
//! published at the end of k; senders apply it from k+2: one full interval of delay.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use pfcp_overload::{
    Measurement, NodeKey, OciOrigin, OverloadReporter, OverloadTable, ReporterConfig,
};
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::{Cause, Header, Message, MessageType, SequenceNumber};

const C: u64 = 1000; // requests per interval the UP serves
const Q: u64 = 500; // queue bound (half an interval of work)
const N: usize = 10; // CP senders
const T: Duration = Duration::from_millis(100);

/// One CP function: an exact Loss throttle (credit accumulator) fed by its overload table.
struct Sender {
    table: OverloadTable,
    credit: u64,
    reduction: u8,
}

impl Sender {
    fn send(&mut self, offered: u64) -> u64 {
        let mut sent = 0;
        for _ in 0..offered {
            self.credit += u64::from(self.reduction);
            if self.credit >= 100 {
                self.credit -= 100;
            } else {
                sent += 1;
            }
        }
        sent
    }
}

struct Loop {
    senders: Vec<Sender>,
    up: OverloadReporter<usize>,
    backlog: u64,
    now: Instant,
    upf: NodeKey,
    entity: IpAddr,
    seq: u32,
}

impl Loop {
    fn new() -> Self {
        let mut up = OverloadReporter::new(ReporterConfig::feed_forward());
        for i in 0..N {
            up.set_peer_ovrl(i, true);
        }
        #[allow(clippy::disallowed_methods)] // An arbitrary base: the loop's clock is simulated.
        let now = Instant::now();
        Loop {
            senders: (0..N)
                .map(|_| Sender {
                    table: OverloadTable::default(),
                    credit: 0,
                    reduction: 0,
                })
                .collect(),
            up,
            backlog: 0,
            now,
            upf: NodeKey::fqdn("upf1.example.net"),
            entity: Ipv4Addr::new(192, 0, 2, 1).into(),
            seq: 0,
        }
    }

    /// Run one interval at `offered` requests in total; returns (admitted, published metric).
    fn step(&mut self, offered: u64) -> (u64, u8) {
        let share = offered / N as u64;
        // Senders use what they learned up to the start of the interval.
        let mut admitted = 0;
        for s in &mut self.senders {
            s.reduction = s.table.reduction(Some(self.entity), &self.upf, self.now);
            admitted += s.send(share);
        }
        // Responses during this interval carry the OCI published at the end of the last one.
        for i in 0..N {
            self.deliver_response(i);
        }
        // The UP.
        let work = self.backlog + admitted;
        let served = work.min(C);
        self.backlog = (work - served).min(Q);
        self.now += T;
        self.up.handle_measurement(
            &Measurement {
                arrived: admitted,
                served,
                backlog: self.backlog,
            },
            self.now,
        );
        for s in &mut self.senders {
            s.table.handle_timeout(self.now);
        }
        (admitted, self.up.metric())
    }

    /// A Session Modification Response from the UP to sender `i`, with whatever OCI the
    /// inclusion policy gives, encoded and decoded for real.
    fn deliver_response(&mut self, i: usize) {
        let msg_type = MessageType::SESSION_MODIFICATION_RESPONSE;
        let oci = self
            .up
            .oci_for(&i, msg_type, Some(Cause::REQUEST_ACCEPTED), self.now);
        self.seq = self.seq.wrapping_add(1);
        let header = Header::new(msg_type)
            .with_seid(i as u64 + 1)
            .with_sequence(SequenceNumber::wrapping(self.seq));
        let b = MessageBuilder::new(header)
            .ie(Cause::REQUEST_ACCEPTED)
            .ie(oci);
        let mut buf = vec![0u8; b.encoded_len()];
        b.encode_into(&mut buf).unwrap();
        let msg = Message::decode(&buf).unwrap();
        let origin = OciOrigin::new(self.upf.clone(), Some(self.entity));
        self.senders[i]
            .table
            .handle_message(&origin, &msg, self.now);
    }
}

/// First interval from which every later admitted value stays within 5 % of C, and the
/// spread (max - min) of admitted load from there on.
fn settling(admitted: &[u64]) -> (Option<usize>, u64) {
    let ok = |a: u64| a.abs_diff(C) * 100 <= 5 * C;
    let mut settle = None;
    for k in (0..admitted.len()).rev() {
        if ok(admitted[k]) {
            settle = Some(k);
        } else {
            break;
        }
    }
    let spread = settle.map_or(u64::MAX, |k| {
        let tail = &admitted[k..];
        tail.iter().max().unwrap() - tail.iter().min().unwrap()
    });
    (settle, spread)
}

/// Intervals within which the admitted load must settle (onset: 2 intervals before the first
/// OCI takes effect, then up to `dwell` + delay intervals of backlog drain).
const SETTLE_BOUND: usize = 12;

fn run_overload(factor: u64) -> (Option<usize>, u64, u8) {
    let mut l = Loop::new();
    let admitted: Vec<u64> = (0..100).map(|_| l.step(factor * C).0).collect();
    let (settle, spread) = settling(&admitted);
    println!(
        "{factor}x: settled at interval {settle:?}, spread {spread} ({}% of C), metric {}, first 15: {:?}",
        spread * 100 / C,
        l.up.metric(),
        &admitted[..15]
    );
    (settle, spread, l.up.metric())
}

#[test]
fn settles_within_5_percent_at_2x_5x_10x() {
    for (factor, metric) in [(2, 50), (5, 80), (10, 90)] {
        let (settle, spread, m) = run_overload(factor);
        let settle = settle.unwrap_or(usize::MAX);
        assert!(settle <= SETTLE_BOUND, "{factor}x settled at {settle}");
        // No oscillation beyond 5 % of C once settled.
        assert!(spread * 100 <= 5 * C, "{factor}x spread {spread}");
        assert_eq!(m, metric, "{factor}x steady metric");
    }
}

#[test]
fn step_up_and_back_returns_to_zero_and_peers_are_told() {
    let mut l = Loop::new();
    for _ in 0..20 {
        let (a, m) = l.step(C / 2);
        assert_eq!((a, m), (C / 2, 0), "no false throttling at 0.5x");
    }
    let mut admitted = Vec::new();
    for _ in 0..60 {
        admitted.push(l.step(10 * C).0);
    }
    let (settle, spread) = settling(&admitted);
    assert!(settle.is_some_and(|k| k <= SETTLE_BOUND), "{settle:?}");
    assert!(spread * 100 <= 5 * C);
    assert_eq!(l.up.metric(), 90);
    // Back to 0.5x: the metric returns to 0 after the dwell, and every peer gets the zero.
    let mut back = Vec::new();
    for _ in 0..20 {
        back.push(l.step(C / 2));
    }
    println!("back to 0.5x: {back:?}");
    assert_eq!(l.up.metric(), 0);
    let zero_at = back.iter().position(|&(_, m)| m == 0).unwrap();
    assert!(zero_at <= 4, "metric back to 0 after {zero_at} intervals");
    for (i, s) in l.senders.iter().enumerate() {
        assert_eq!(
            s.table.reduction(Some(l.entity), &l.upf, l.now),
            0,
            "sender {i} still throttles"
        );
    }
    // Full traffic again.
    assert_eq!(back.last().map(|b| b.0), Some(C / 2));
}
