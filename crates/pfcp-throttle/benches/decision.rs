//! Per-decision cost of the throttles, side by side with `governor` in the same run.
//!
//! pfcp-throttle:
//!
//! * `loss/decide/r0`, `loss/decide/r30`: one `LossThrottle::decide` at reduction 0 % (the
//!   common case: the peer is not overloaded) and 30 %, on a 16-class mix (priorities 0..=15,
//!   a few exempt) read from a precomputed array;
//! * `loss/decide_with_draw/r30` (`decide` with a draw): the Annex A.1 random mode, the draws precomputed too;
//! * `egress/decide`: one `EgressThrottle::decide` for a request, the connection at half its
//!   Max EMR (level 0, the cap admitting); `egress/decide+on_send`: the same plus one
//!   `on_send` of an answer (two messages per iteration); `egress/decide/overload`: offered at
//!   twice the Max EMR (level 3, the cap shedding); `egress/decide+clock`: `egress/decide` with
//!   `now` read from `Instant::now()` in the loop, as a caller would, for a like-for-like
//!   comparison with governor, which reads its clock inside `check`; `egress/check+commit`:
//!   the two steps of a route candidate (`check`, then `commit` of the permit) at the load of
//!   `egress/decide`. The decision goes to
//!   `black_box` by reference: by value, the compiler stored its two bytes (variant and
//!   level) one at a time and read them back as one 16-bit word, a failed store-to-load
//!   forwarding that cost 2-4 ns per iteration here and that no caller matching on the
//!   decision pays;
//! * `classify`: one `Classifier::classify` on 16 precomputed contexts (ARP lists, flags,
//!   DNNs looked up in a 4-entry override table);
//! * `route/2x2/admit`, `route/2x2/overflow`: one `RouteList::route` over 2 groups of 2 peers,
//!   every peer admitting, and the preferred group refusing (3 admission checks).
//!
//! governor 0.6 (GCRA, the usual Rust rate limiter), same process, same run:
//!
//! * `governor/direct`: `RateLimiter::direct(Quota::per_second(..)).check()`, a quota so
//!   large that every check passes (the allow path, like the throttles above);
//! * `governor/keyed64`: `RateLimiter::keyed(..).check_key(&k)`, the default (dashmap) keyed
//!   limiter with 64 keys, the keys from a precomputed array.
//!
//! governor reads a clock inside every check (its default clock, `quanta`); pfcp-throttle is
//! sans-IO and takes `now` as a parameter, so the egress benchmarks build `now` by adding a
//! precomputed offset to a base instant (cheaper than reading a clock), except
//! `egress/decide+clock`. `LossThrottle`, `Classifier` and `RouteList` need no time at all.
//!
//! Run: `cargo bench -p pfcp-throttle --bench decision -- --warm-up-time 1 --measurement-time 3`

use std::borrow::Cow;
use std::hint::black_box;
use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use governor::{Quota, RateLimiter};
use pfcp_throttle::classify::{ArpLevels, Registration, RequestState};
use pfcp_throttle::egress::{EgressConfig, EgressThrottle, MessageKind, ThresholdPair};
use pfcp_throttle::{
    Classifier, ClassifierConfig, LossRequest, LossThrottle, Procedure, RequestClass,
    RequestContext, RouteGroup, RouteList,
};
use pfcp_wire::MessagePriority;

/// Length of the precomputed input arrays (a power of two: the index is masked).
const N: usize = 4096;
const MASK: usize = N - 1;

/// The base of the simulated clock: one arbitrary real `Instant` to offset from (the crate
/// never reads the clock; clippy forbids `Instant::now` workspace-wide).
#[allow(clippy::disallowed_methods)]
fn base_instant() -> Instant {
    Instant::now()
}

/// The clock as a caller reads it (`egress/decide+clock` only).
#[allow(clippy::disallowed_methods)]
fn clock() -> Instant {
    Instant::now()
}

/// xorshift64: deterministic inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn p(v: u8) -> MessagePriority {
    MessagePriority::new(v).expect("0..=15")
}

/// A 16-class mix: every priority 0..=15, one request in 32 exempt.
fn class_mix() -> Vec<RequestClass> {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    (0..N)
        .map(|_| {
            let r = rng.next();
            let prio = p((r % 16) as u8);
            if (r >> 8) % 32 == 0 {
                RequestClass::exempt(prio)
            } else {
                RequestClass::new(prio)
            }
        })
        .collect()
}

fn draws() -> Vec<u32> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..N).map(|_| (rng.next() >> 32) as u32).collect()
}

fn bench_loss(c: &mut Criterion) {
    let mix = class_mix();
    let draws = draws();
    let mut g = c.benchmark_group("loss");
    for reduction in [0u8, 30] {
        let mut t = LossThrottle::default();
        t.set_reduction(reduction);
        let mut i = 0usize;
        g.bench_function(format!("decide/r{reduction}"), |b| {
            b.iter(|| {
                let class = mix[i & MASK];
                i = i.wrapping_add(1);
                black_box(t.decide(black_box(class)))
            })
        });
    }
    let mut t = LossThrottle::default();
    t.set_reduction(30);
    let mut i = 0usize;
    g.bench_function("decide_with_draw/r30", |b| {
        b.iter(|| {
            let (class, draw) = (mix[i & MASK], draws[i & MASK]);
            i = i.wrapping_add(1);
            black_box(t.decide(LossRequest::new(black_box(class)).with_draw(black_box(draw))))
        })
    });
    g.finish();
}

/// Max EMR 10 000/s with the DSR guide's three pairs (60/55, 80/75, 100/90 %).
fn egress_config() -> EgressConfig {
    let mut config = EgressConfig::new(10_000);
    config.thresholds = [
        Some(ThresholdPair::new(60, 55)),
        Some(ThresholdPair::new(80, 75)),
        Some(ThresholdPair::new(100, 90)),
    ];
    config
}

fn bench_egress(c: &mut Criterion) {
    let mix = class_mix();
    let base = base_instant();
    let mut g = c.benchmark_group("egress");
    // (name, simulated time between iterations, answer too, level expected). At a Max EMR of
    // 10 000/s, a request every 200 us is 50 %; a request and an answer every 400 us is 50 %
    // too; a request every 50 us is 200 %. Two simulated seconds first, so the measured rate
    // and the level have settled before timing (and in `cargo test --benches`).
    for (name, gap_ns, with_answer, congested) in [
        ("decide", 200_000u64, false, false),
        ("decide+on_send", 400_000, true, false),
        ("decide/overload", 50_000, false, true),
    ] {
        let mut t = EgressThrottle::new(egress_config(), base).expect("valid");
        let mut i = 0u64;
        let step = |t: &mut EgressThrottle, i: &mut u64| {
            *i += 1;
            let now = base + Duration::from_nanos(*i * gap_ns);
            let prio = mix[*i as usize & MASK].priority;
            let d = t.decide(MessageKind::Request, black_box(prio), now);
            if with_answer {
                t.on_send(MessageKind::Answer, now);
            }
            d
        };
        while i * gap_ns < 2_000_000_000 {
            let _ = step(&mut t, &mut i);
        }
        assert_eq!(t.level() > 0, congested, "{name}: level {}", t.level());
        g.bench_function(name, |b| {
            b.iter(|| {
                let d = step(&mut t, &mut i);
                black_box(&d);
            })
        });
    }
    // The two steps of a route candidate: `check`, then `commit` of the permit, at the load
    // of `egress/decide` (half the Max EMR).
    let mut t = EgressThrottle::new(egress_config(), base).expect("valid");
    let mut i = 0u64;
    let gap_ns = 200_000u64;
    let step = |t: &mut EgressThrottle, i: &mut u64| {
        *i += 1;
        let now = base + Duration::from_nanos(*i * gap_ns);
        let prio = mix[*i as usize & MASK].priority;
        match t.check(MessageKind::Request, black_box(prio), now) {
            Ok(permit) => {
                t.commit(permit, now);
                true
            }
            Err(_) => false,
        }
    };
    while i * gap_ns < 2_000_000_000 {
        let _ = step(&mut t, &mut i);
    }
    assert_eq!(t.level(), 0, "check+commit: level {}", t.level());
    g.bench_function("check+commit", |b| {
        b.iter(|| {
            let sent = step(&mut t, &mut i);
            black_box(&sent);
        })
    });
    // The caller reads the clock for each decision: real time, so the offered rate is
    // whatever the loop achieves (far above the Max EMR: the level-3 / cap path).
    let mut t = EgressThrottle::new(egress_config(), base).expect("valid");
    let mut i = 0usize;
    g.bench_function("decide+clock", |b| {
        b.iter(|| {
            i = i.wrapping_add(1);
            let prio = mix[i & MASK].priority;
            let d = t.decide(MessageKind::Request, black_box(prio), clock());
            black_box(&d);
        })
    });
    g.finish();
}

fn bench_classify(c: &mut Criterion) {
    let config = ClassifierConfig::default().with_dnn_overrides(vec![
        ("ims".to_string(), 2),
        ("sos".to_string(), 1),
        ("iot.m2m".to_string(), 13),
        ("internet.corp".to_string(), 6),
    ]);
    let classifier = Classifier::new(config);
    let arps: [&[u8]; 4] = [&[9], &[5, 9, 15], &[], &[1, 2, 3, 4, 5, 6, 7, 8]];
    let dnns = [Some("internet"), Some("IMS"), None, Some("iot.m2m")];
    let procedures = [
        Some(Procedure::SessionEstablishment),
        Some(Procedure::SessionModification),
        Some(Procedure::SessionDeletion),
        Some(Procedure::SessionReport),
    ];
    let contexts: Vec<RequestContext<'static>> = (0..16usize)
        .map(|k| {
            let state = RequestState {
                follows_admitted: (k % 5 == 1).then_some(true),
                additional_session: (k % 7 == 2).then_some(true),
                restoration: (k == 9).then_some(true),
                registration: (k % 3 == 0).then_some(Registration::NotRegistered),
                ..RequestState::UNKNOWN
            };
            RequestContext {
                procedure: procedures[k % 4],
                emergency: k == 7,
                emps: k == 11,
                arp: ArpLevels::from_levels(arps[(k / 4) % 4]),
                low_access_priority: k == 13,
                dnn: dnns[(k + 1) % 4].map(Cow::Borrowed),
                state,
                ..RequestContext::default()
            }
        })
        .collect();
    let mut i = 0usize;
    c.bench_function("classify", |b| {
        b.iter(|| {
            let ctx = &contexts[i & 15];
            i = i.wrapping_add(1);
            black_box(classifier.classify(black_box(ctx)))
        })
    });
}

fn bench_route(c: &mut Criterion) {
    let mut draws = Rng(0xD1B5_4A32_D192_ED03);
    let draws: Vec<u64> = (0..N).map(|_| draws.next()).collect();
    let mut g = c.benchmark_group("route");
    for (name, preferred_admits) in [("2x2/admit", true), ("2x2/overflow", false)] {
        let mut routes = RouteList::new(
            vec![
                RouteGroup::new().with_peer(0u8, 1).with_peer(1, 3),
                RouteGroup::new().with_peer(2, 2).with_peer(3, 2),
            ],
            4,
        )
        .expect("valid");
        let mut i = 0usize;
        g.bench_function(name, |b| {
            b.iter(|| {
                let draw = draws[i & MASK];
                i = i.wrapping_add(1);
                let mut admit = |peer: &u8| preferred_admits || *peer >= 2;
                black_box(routes.route(black_box(draw), &mut admit))
            })
        });
    }
    g.finish();
}

fn bench_governor(c: &mut Criterion) {
    let quota = Quota::per_second(NonZeroU32::new(u32::MAX).expect("non-zero"));
    let mut g = c.benchmark_group("governor");
    let direct = RateLimiter::direct(quota);
    g.bench_function("direct", |b| b.iter(|| black_box(direct.check())));
    let keyed = RateLimiter::keyed(quota);
    let mut rng = Rng(0x6A09_E667_F3BC_C909);
    let keys: Vec<u32> = (0..N).map(|_| (rng.next() % 64) as u32).collect();
    for k in 0..64u32 {
        assert!(keyed.check_key(&k).is_ok());
    }
    let mut i = 0usize;
    g.bench_function("keyed64", |b| {
        b.iter(|| {
            let k = keys[i & MASK];
            i = i.wrapping_add(1);
            black_box(keyed.check_key(black_box(&k)))
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    bench_loss,
    bench_egress,
    bench_classify,
    bench_route,
    bench_governor
);
criterion_main!(benches);
