//! Property tests of both ends of overload and load control (TS 29.244 clauses 6.2.3, 6.2.4).
//!
//! Each test drives a state machine with a random sequence of events over a small set of peers
//! and scopes, and checks one property after *every* event. The state machines are shared; the
//! tests differ in the property they check, and are named after it.
//!
//! * Receiving end: OCI arrivals (random sequence number chosen relative to the stored one,
//!   metric, Timer unit and value, AOCI, sometimes carried in an encoded message of a random
//!   type), time advances, `handle_timeout`, `reset_peer`.
//! * Sending end: random measurements, time advances, refreshes, `oci_for` with random message
//!   types, causes and peers (some without OVRL, some never registered), peers joining and
//!   leaving; every emitted OCI is delivered, encoded and decoded, to a per-peer
//!   [`OverloadTable`].
//! * Load control: `LoadReporter` with random utilisations, `LoadTable` with random LCIs.
//!
//! proptest picks a fresh seed per run and shrinks failures; `PROPTEST_CASES` scales the runs.
//! Every test also counts the situations its property is about (duplicates, wraps, expiries,
//! evictions, refreshes, ...) and fails if the generator never produced them, so that no
//! property can pass vacuously.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Debug;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::{Duration, Instant};

use pfcp_overload::sequence::{compare, SequenceOrder, DEFAULT_WRAP_WINDOW};
use pfcp_overload::{
    IgnoreReason, InclusionPolicy, LciOutcome, LoadConfig, LoadReporter, LoadReporterConfig,
    LoadTable, Measurement, NodeKey, OciOrigin, OciOutcome, OverloadConfig, OverloadEvent,
    OverloadReporter, OverloadTable, ReporterConfig, Scope, SequenceMode,
};
use pfcp_wire::encode::{Encode, MessageBuilder};
use pfcp_wire::ie::{
    ControlSequenceNumber, IeIter, LoadControlInformation, Metric, OciFlags,
    OverloadControlInformation, Timer,
};
use pfcp_wire::{Cause, Header, Message, MessageType, SequenceNumber};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

// ------------------------------------------------------------------------------------------
// Harness
// ------------------------------------------------------------------------------------------

/// The base of every simulated clock in this file. The crate is sans-IO and clippy forbids
/// `Instant::now` workspace-wide; the tests only need one arbitrary real `Instant` to offset
/// simulated time from, and nothing depends on its value.
#[allow(clippy::disallowed_methods)]
fn base_instant() -> Instant {
    Instant::now()
}

/// Run `test` on random values of `strategy` (proptest's default case count, which honours
/// `PROPTEST_CASES`), shrinking on failure. Returns the number of cases.
fn run<S>(strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) -> u32
where
    S: Strategy,
    S::Value: Debug,
{
    let config = ProptestConfig {
        // Failures are turned into named regression tests at the end of this file instead.
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let cases = config.cases;
    let mut runner = TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
    cases
}

/// How often each interesting situation occurred, over all cases of one test.
#[derive(Default)]
struct Coverage(RefCell<BTreeMap<&'static str, u64>>);

impl Coverage {
    fn hit(&self, what: &'static str) {
        *self.0.borrow_mut().entry(what).or_default() += 1;
    }

    /// Fail if a situation the property is about never happened (with enough cases that each
    /// of them is all but certain).
    fn require(&self, cases: u32, required: &[&'static str]) {
        if cases < 64 {
            return;
        }
        let seen = self.0.borrow();
        for r in required {
            assert!(
                seen.get(r).copied().unwrap_or(0) > 0,
                "the generator never produced `{r}`; seen: {seen:?}"
            );
        }
    }
}

/// A message of type `t` carrying a Cause and `ie`, encoded.
fn message_with<E: Encode>(t: MessageType, ie: E) -> Vec<u8> {
    let header = Header::new(t)
        .with_seid(0x1234)
        .with_sequence(SequenceNumber::wrapping(7));
    let b = MessageBuilder::new(header)
        .ie(Cause::REQUEST_ACCEPTED)
        .ie(ie);
    let mut buf = vec![0u8; b.encoded_len()];
    let n = b.encode_into(&mut buf).expect("message encodes");
    assert_eq!(n, buf.len());
    buf
}

/// Encode `oci` alone, check the announced length, decode it back with `IeIter` + `decode_as`.
fn oci_round_trip(oci: &OverloadControlInformation) -> OverloadControlInformation {
    let mut buf = Vec::new();
    oci.encode(&mut buf).expect("OCI encodes");
    assert_eq!(buf.len(), oci.encoded_len());
    let mut iter = IeIter::new(&buf, 0);
    let ie = iter.next().expect("one IE").expect("IE header decodes");
    assert!(iter.next().is_none(), "exactly one IE");
    ie.decode_as().expect("OCI decodes")
}

fn lci_round_trip(lci: &LoadControlInformation) -> LoadControlInformation {
    let mut buf = Vec::new();
    lci.encode(&mut buf).expect("LCI encodes");
    assert_eq!(buf.len(), lci.encoded_len());
    let ie = IeIter::new(&buf, 0)
        .next()
        .expect("one IE")
        .expect("IE header decodes");
    ie.decode_as().expect("LCI decodes")
}

/// The peers and scopes of the receiving-end tests.
struct Universe {
    nodes: Vec<NodeKey>,
    /// The same keys as `nodes`, spelled differently (FQDNs compare case-insensitively).
    aliases: Vec<NodeKey>,
    /// A node that never sends anything.
    ghost: NodeKey,
    entities: Vec<IpAddr>,
    scopes: Vec<Scope>,
}

impl Universe {
    fn new() -> Self {
        let nodes = vec![
            NodeKey::fqdn("upf-a.example.net"),
            NodeKey::fqdn("UPF-B.Example.NET."),
            NodeKey::Ip(Ipv4Addr::new(198, 51, 100, 7).into()),
        ];
        let aliases = vec![
            NodeKey::fqdn("UPF-A.EXAMPLE.NET."),
            NodeKey::fqdn("upf-b.example.net"),
            NodeKey::from(IpAddr::from(Ipv4Addr::new(198, 51, 100, 7))),
        ];
        let entities: Vec<IpAddr> = vec![
            Ipv4Addr::new(192, 0, 2, 1).into(),
            Ipv4Addr::new(192, 0, 2, 2).into(),
            Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1).into(),
            Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2).into(),
        ];
        let scopes = entities
            .iter()
            .map(|ip| Scope::Entity(*ip))
            .chain(nodes.iter().map(|n| Scope::Node(n.clone())))
            .collect();
        Universe {
            nodes,
            aliases,
            ghost: NodeKey::fqdn("ghost.example.net"),
            entities,
            scopes,
        }
    }

    fn index(&self, scope: &Scope) -> usize {
        self.scopes
            .iter()
            .position(|s| s == scope)
            .expect("scope of the universe")
    }
}

// ------------------------------------------------------------------------------------------
// Receiving end: generators
// ------------------------------------------------------------------------------------------

/// A sequence number, relative to the one stored for the target scope (1000 if none), so that
/// duplicates, newer, older and wrapped numbers are all frequent.
#[derive(Debug, Clone)]
enum SeqPick {
    Any(u32),
    Same,
    Plus(u32),
    Minus(u32),
    NearMax(u32),
    NearZero(u32),
}

impl SeqPick {
    fn resolve(&self, stored: Option<u32>) -> u32 {
        let s = stored.unwrap_or(1000);
        match *self {
            SeqPick::Any(x) => x,
            SeqPick::Same => s,
            SeqPick::Plus(d) => s.wrapping_add(d),
            SeqPick::Minus(d) => s.wrapping_sub(d),
            SeqPick::NearMax(d) => u32::MAX - d,
            SeqPick::NearZero(d) => d,
        }
    }
}

fn seq_pick() -> impl Strategy<Value = SeqPick> {
    prop_oneof![
        2 => any::<u32>().prop_map(SeqPick::Any),
        3 => Just(SeqPick::Same),
        3 => (1u32..4).prop_map(SeqPick::Plus),
        2 => (1u32..4).prop_map(SeqPick::Minus),
        1 => (0u32..3).prop_map(SeqPick::NearMax),
        1 => (0u32..3).prop_map(SeqPick::NearZero),
    ]
}

/// A Timer octet (clause 8.2.35): mostly short 2-second periods so that expiry happens, plus
/// stopped, infinite, minutes and any unit/value at all.
fn timer_octet() -> impl Strategy<Value = u8> {
    prop_oneof![
        6 => 1u8..=31,
        1 => Just(0x00u8),
        1 => Just(0xE0u8),
        1 => 0x20u8..=0x23,
        1 => any::<u8>(),
    ]
}

/// Message types around the four that may carry OCI/LCI (51, 53, 55, 56).
fn carrier() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![
        3 => Just(None),
        1 => prop::sample::select(vec![50u8, 51, 52, 53, 54, 55, 56, 57]).prop_map(Some),
    ]
}

#[derive(Debug, Clone)]
enum RxOp {
    Oci {
        node: usize,
        entity: Option<usize>,
        aoci: bool,
        seq: SeqPick,
        metric: u8,
        timer: u8,
        carrier: Option<u8>,
    },
    Advance(u64),
    Timeout,
    TimeoutAtDeadline,
    Reset(usize),
}

fn rx_op() -> impl Strategy<Value = RxOp> {
    let oci = (
        0..3usize,
        prop::option::weighted(0.7, 0..4usize),
        any::<bool>(),
        seq_pick(),
        prop_oneof![4 => 0u8..=100, 1 => any::<u8>()],
        timer_octet(),
        carrier(),
    )
        .prop_map(
            |(node, entity, aoci, seq, metric, timer, carrier)| RxOp::Oci {
                node,
                entity,
                aoci,
                seq,
                metric,
                timer,
                carrier,
            },
        );
    prop_oneof![
        8 => oci,
        3 => prop_oneof![4 => 0u64..3_000, 2 => 3_000u64..70_000, 1 => Just(7_200_000u64)]
            .prop_map(RxOp::Advance),
        2 => Just(RxOp::Timeout),
        1 => Just(RxOp::TimeoutAtDeadline),
        1 => (0..3usize).prop_map(RxOp::Reset),
    ]
}

#[derive(Debug, Clone)]
struct RxCase {
    max_entries: usize,
    wrap_window: u32,
    max_events: usize,
    ops: Vec<RxOp>,
}

fn rx_case() -> impl Strategy<Value = RxCase> {
    (
        prop_oneof![3 => 0usize..=8, 1 => Just(4096usize)],
        prop_oneof![2 => Just(DEFAULT_WRAP_WINDOW), 1 => Just(0u32), 1 => 0u32..10],
        prop_oneof![3 => Just(1024usize), 1 => 0usize..4],
        prop::collection::vec(rx_op(), 1..60),
    )
        .prop_map(|(max_entries, wrap_window, max_events, ops)| RxCase {
            max_entries,
            wrap_window,
            max_events,
            ops,
        })
}

// ------------------------------------------------------------------------------------------
// Receiving end: state machine
// ------------------------------------------------------------------------------------------

/// `OverloadTable::get` of one scope.
type Stored = Option<(u32, u8, Option<Instant>)>;

/// What the table holds, scope by scope (in `Universe::scopes` order).
#[derive(Debug, Clone, PartialEq)]
struct RxSnap {
    entries: Vec<Stored>,
    poll: Option<Instant>,
    len: usize,
}

impl RxSnap {
    fn of(t: &OverloadTable, u: &Universe) -> Self {
        RxSnap {
            entries: u.scopes.iter().map(|s| t.get(s)).collect(),
            poll: t.poll_timeout(),
            len: t.len(),
        }
    }

    /// The entries still valid at `now` (an expired entry that `handle_timeout` has not
    /// removed yet reads as absent).
    fn live(&self, now: Instant) -> Vec<Stored> {
        self.entries
            .iter()
            .map(|e| e.filter(|e| !lapsed(e.2, now)))
            .collect()
    }
}

fn lapsed(expires: Option<Instant>, now: Instant) -> bool {
    expires.is_some_and(|t| t <= now)
}

/// The reduction an entry contributes at `t`.
fn contribution(e: Stored, t: Instant) -> u8 {
    e.filter(|e| !lapsed(e.2, t)).map_or(0, |e| e.1)
}

#[derive(Debug)]
enum RxEvent {
    Oci {
        scope: Scope,
        oci: OverloadControlInformation,
        carrier: Option<MessageType>,
        outcome: Option<OciOutcome>,
        /// The same OCI given to a clone of the table on which `handle_timeout(now)` ran first.
        twin: Box<(Option<OciOutcome>, RxSnap)>,
    },
    Advance,
    Timeout,
    Reset(NodeKey),
}

struct RxStep<'a> {
    u: &'a Universe,
    config: &'a OverloadConfig,
    table: &'a OverloadTable,
    event: &'a RxEvent,
    now: Instant,
    before: &'a RxSnap,
    after: &'a RxSnap,
    /// Node of the last OCI applied to each scope, before the event (what `reset_peer` uses).
    owners: &'a HashMap<Scope, NodeKey>,
    /// Expiry of the last OCI applied to each scope, after the event.
    applied: &'a HashMap<Scope, Option<Instant>>,
    /// The latest explicit `handle_timeout`, after the event.
    last_timeout: Option<Instant>,
    /// Events drained after the event, and whether none was dropped.
    events: &'a [OverloadEvent],
    events_complete: bool,
    cov: &'a Coverage,
}

fn deliver_oci(
    table: &mut OverloadTable,
    origin: &OciOrigin,
    oci: &OverloadControlInformation,
    carrier: Option<MessageType>,
    now: Instant,
) -> Option<OciOutcome> {
    match carrier {
        None => Some(table.handle_oci(origin, oci, now)),
        Some(t) => {
            let bytes = message_with(t, oci);
            let msg = Message::decode(&bytes).expect("message decodes");
            table.handle_message(origin, &msg, now)
        }
    }
}

type RxCheck = dyn Fn(&RxStep<'_>) -> Result<(), TestCaseError>;

fn run_rx(case: &RxCase, cov: &Coverage, check: &RxCheck) -> Result<(), TestCaseError> {
    let u = Universe::new();
    let config = OverloadConfig::default()
        .with_max_entries(case.max_entries)
        .with_wrap_window(case.wrap_window)
        .with_max_events(case.max_events);
    let mut table = OverloadTable::new(config.clone());
    let mut now = base_instant();
    let mut owners: HashMap<Scope, NodeKey> = HashMap::new();
    let mut applied: HashMap<Scope, Option<Instant>> = HashMap::new();
    let mut last_timeout = None;
    for op in &case.ops {
        let before = RxSnap::of(&table, &u);
        let owners_before = owners.clone();
        let dropped = table.events_dropped();
        let event = match op {
            RxOp::Oci {
                node,
                entity,
                aoci,
                seq,
                metric,
                timer,
                carrier,
            } => {
                let origin = OciOrigin::new(u.nodes[*node].clone(), entity.map(|e| u.entities[e]));
                let scope = origin.scope(*aoci);
                let stored = table.get(&scope).map(|s| s.0);
                let oci = OverloadControlInformation {
                    sequence_number: ControlSequenceNumber(seq.resolve(stored)),
                    metric: Metric::from_raw(*metric),
                    period_of_validity: Timer(*timer),
                    flags: aoci.then_some(OciFlags::AOCI),
                };
                let carrier = carrier.map(MessageType);
                let mut twin = table.clone();
                twin.handle_timeout(now);
                let twin_outcome = deliver_oci(&mut twin, &origin, &oci, carrier, now);
                let outcome = deliver_oci(&mut table, &origin, &oci, carrier, now);
                if let Some(OciOutcome::Applied { scope, expires, .. }) = &outcome {
                    owners.insert(scope.clone(), origin.node.clone());
                    applied.insert(scope.clone(), *expires);
                }
                RxEvent::Oci {
                    scope,
                    oci,
                    carrier,
                    outcome,
                    twin: Box::new((twin_outcome, RxSnap::of(&twin, &u))),
                }
            }
            RxOp::Advance(ms) => {
                now += Duration::from_millis(*ms);
                RxEvent::Advance
            }
            RxOp::Timeout | RxOp::TimeoutAtDeadline => {
                if matches!(op, RxOp::TimeoutAtDeadline) {
                    if let Some(t) = table.poll_timeout() {
                        now = now.max(t);
                    }
                }
                table.handle_timeout(now);
                last_timeout = Some(now);
                RxEvent::Timeout
            }
            RxOp::Reset(n) => {
                table.reset_peer(&u.nodes[*n]);
                RxEvent::Reset(u.nodes[*n].clone())
            }
        };
        let events: Vec<OverloadEvent> = std::iter::from_fn(|| table.poll_event()).collect();
        let after = RxSnap::of(&table, &u);
        check(&RxStep {
            u: &u,
            config: &config,
            table: &table,
            event: &event,
            now,
            before: &before,
            after: &after,
            owners: &owners_before,
            applied: &applied,
            last_timeout,
            events: &events,
            events_complete: table.events_dropped() == dropped,
            cov,
        })?;
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------
// Receiving end: properties
// ------------------------------------------------------------------------------------------

/// The stored sequence number of a scope never goes backwards except through a documented
/// reset: expiry (the entry is removed, or is replaced once lapsed), `reset_peer`, eviction
/// from a full table, or a wrap within the wrap window (`compare` says `Wrapped`). Every other
/// change is a numerically newer OCI for that very scope, and the stored state is exactly what
/// the applied OCI said.
fn check_sequence(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let n = s.u.scopes.len();
    match s.event {
        RxEvent::Advance => prop_assert_eq!(s.before, s.after, "time alone changed the table"),
        RxEvent::Timeout => {
            for i in 0..n {
                match (s.before.entries[i], s.after.entries[i]) {
                    (Some(b), None) => {
                        prop_assert!(
                            lapsed(b.2, s.now),
                            "{} removed before expiry",
                            s.u.scopes[i]
                        );
                        if s.events_complete {
                            prop_assert!(s
                                .events
                                .contains(&OverloadEvent::Expired(s.u.scopes[i].clone())));
                        }
                        s.cov.hit("expired");
                    }
                    (b, a) => prop_assert_eq!(b, a, "handle_timeout changed {}", s.u.scopes[i]),
                }
            }
        }
        RxEvent::Reset(node) => {
            for i in 0..n {
                let (b, a) = (s.before.entries[i], s.after.entries[i]);
                let owned = b.is_some() && s.owners.get(&s.u.scopes[i]) == Some(node);
                if owned {
                    prop_assert_eq!(a, None, "reset_peer({}) kept {}", node, s.u.scopes[i]);
                    s.cov.hit("reset");
                } else {
                    prop_assert_eq!(b, a, "reset_peer({}) touched {}", node, s.u.scopes[i]);
                }
            }
            if s.events_complete {
                prop_assert!(s.events.contains(&OverloadEvent::Reset(node.clone())));
            }
        }
        RxEvent::Oci {
            scope: target,
            oci,
            outcome,
            ..
        } => {
            let Some(OciOutcome::Applied {
                scope,
                metric,
                expires,
            }) = outcome
            else {
                prop_assert_eq!(s.before, s.after, "an ignored OCI changed the table");
                return Ok(());
            };
            prop_assert_eq!(scope, target);
            let ti = s.u.index(target);
            let seq = oci.sequence_number.0;
            if let Some(b) = s.before.entries[ti] {
                let order = compare(b.0, seq, s.config.wrap_window);
                let was_lapsed = lapsed(b.2, s.now);
                prop_assert!(
                    order.is_newer() || was_lapsed,
                    "{target}: stored {} replaced by {seq} ({order:?}) while valid",
                    b.0
                );
                match order {
                    SequenceOrder::Newer => s.cov.hit("replaced by a newer number"),
                    SequenceOrder::Wrapped => s.cov.hit("wrapped"),
                    SequenceOrder::Older => s.cov.hit("older accepted after expiry"),
                    SequenceOrder::Same => s.cov.hit("same accepted after expiry"),
                }
            }
            prop_assert_eq!(*metric, oci.metric.percent());
            prop_assert_eq!(
                *expires,
                oci.period_of_validity.duration().map(|d| s.now + d)
            );
            let new_lapsed = lapsed(*expires, s.now);
            let want = (!new_lapsed).then_some((seq, *metric, *expires));
            prop_assert_eq!(
                s.after.entries[ti],
                want,
                "{} not stored as applied",
                target
            );
            // Other scopes: an entry lapsed by now may go (a lapsed OCI triggers expiry), and
            // one entry, the soonest to expire, may be evicted to make room; nothing else.
            let soonest = s.before.entries.iter().flatten().filter_map(|e| e.2).min();
            let mut evicted = 0;
            for i in (0..n).filter(|i| *i != ti) {
                match (s.before.entries[i], s.after.entries[i]) {
                    (Some(b), None) if new_lapsed && lapsed(b.2, s.now) => s.cov.hit("expired"),
                    (Some(b), None) => {
                        evicted += 1;
                        prop_assert!(
                            s.before.entries[ti].is_none() && s.before.len >= s.config.max_entries,
                            "{} evicted though {} had room",
                            s.u.scopes[i],
                            target
                        );
                        prop_assert!(b.2.is_some() && b.2 == soonest, "evicted a later one");
                        if s.events_complete {
                            prop_assert!(s
                                .events
                                .contains(&OverloadEvent::Evicted(s.u.scopes[i].clone())));
                        }
                        s.cov.hit("evicted");
                    }
                    (b, a) => {
                        prop_assert_eq!(b, a, "an OCI for {} changed {}", target, s.u.scopes[i])
                    }
                }
            }
            prop_assert!(evicted <= 1, "{} entries evicted for one OCI", evicted);
        }
    }
    Ok(())
}

#[test]
fn stored_sequence_never_goes_backwards_except_through_a_documented_reset() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_sequence));
    cov.require(
        cases,
        &[
            "replaced by a newer number",
            "wrapped",
            "older accepted after expiry",
            "expired",
            "reset",
            "evicted",
        ],
    );
}

/// Instants (relative to the current one) at which `reduction` is queried.
const QUERY_OFFSETS: [Duration; 5] = [
    Duration::ZERO,
    Duration::from_millis(1),
    Duration::from_secs(2),
    Duration::from_secs(61),
    Duration::from_secs(3 * 3600),
];

/// `reduction` is always the larger of the entity's and the node's entries valid at the
/// instant asked about (whatever that instant), and after the expiry instant of the applied
/// OCI the scope contributes 0; once `handle_timeout` ran at or after that instant, the entry
/// is gone.
fn check_reduction(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let entity_entry =
        |ip: Option<IpAddr>| ip.and_then(|ip| s.after.entries[s.u.index(&Scope::Entity(ip))]);
    let node_entry = |k: usize| {
        s.after
            .entries
            .get(s.u.entities.len() + k)
            .copied()
            .flatten()
    };
    let entities = std::iter::once(None).chain(s.u.entities.iter().copied().map(Some));
    for entity in entities {
        // Every node under its own spelling and an alias, and a node without any state.
        let nodes = (0..s.u.nodes.len())
            .flat_map(|k| [(&s.u.nodes[k], Some(k)), (&s.u.aliases[k], Some(k))])
            .chain([(&s.u.ghost, None)]);
        for (key, k) in nodes {
            for dt in QUERY_OFFSETS {
                let t = s.now + dt;
                let expected = contribution(entity_entry(entity), t)
                    .max(k.map_or(0, |k| contribution(node_entry(k), t)));
                let got = s.table.reduction(entity, key, t);
                prop_assert_eq!(
                    got,
                    expected,
                    "reduction({:?}, {}, now+{:?})",
                    entity,
                    key,
                    dt
                );
                if got > 0 {
                    s.cov.hit("non-zero reduction");
                }
            }
        }
    }
    for (i, scope) in s.u.scopes.iter().enumerate() {
        let Some(Some(t)) = s.applied.get(scope) else {
            continue;
        };
        if *t > s.now {
            continue;
        }
        let r = match scope {
            Scope::Entity(ip) => s.table.reduction(Some(*ip), &s.u.ghost, s.now),
            Scope::Node(node) => s.table.reduction(None, node, s.now),
        };
        prop_assert_eq!(r, 0, "{} still reduces after its expiry", scope);
        s.cov.hit("past the expiry instant");
        if s.last_timeout.is_some_and(|lt| lt >= *t) {
            prop_assert_eq!(
                s.after.entries[i],
                None,
                "{} kept after handle_timeout",
                scope
            );
            s.cov.hit("removed by handle_timeout");
        }
    }
    if matches!(s.event, RxEvent::Timeout) {
        for e in s.after.entries.iter().flatten() {
            prop_assert!(
                !lapsed(e.2, s.now),
                "an expired entry survived handle_timeout"
            );
        }
        if let Some(t) = s.after.poll {
            prop_assert!(t > s.now, "poll_timeout not after handle_timeout's instant");
        }
    }
    Ok(())
}

#[test]
fn reduction_is_zero_after_expiry_and_always_the_max_of_valid_entity_and_node_entries() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_reduction));
    cov.require(
        cases,
        &[
            "non-zero reduction",
            "past the expiry instant",
            "removed by handle_timeout",
        ],
    );
}

/// A duplicate (same sequence number as the stored, valid OCI of the scope) is ignored as
/// such whatever else it carries, and changes neither `poll_timeout` nor anything stored.
fn check_duplicate(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let RxEvent::Oci {
        scope,
        oci,
        carrier,
        outcome,
        ..
    } = s.event
    else {
        return Ok(());
    };
    let eligible = carrier.is_none_or(|c| c.may_carry_oci());
    let stored = s.before.entries[s.u.index(scope)];
    let seq = oci.sequence_number.0;
    let duplicate = stored.is_some_and(|b| b.0 == seq && !lapsed(b.2, s.now));
    let said_duplicate = matches!(
        outcome,
        Some(OciOutcome::Ignored {
            reason: IgnoreReason::Duplicate,
            ..
        })
    );
    prop_assert_eq!(said_duplicate, eligible && duplicate, "{:?}", outcome);
    if said_duplicate {
        prop_assert_eq!(
            s.after.poll,
            s.before.poll,
            "a duplicate moved poll_timeout"
        );
        prop_assert_eq!(s.after, s.before, "a duplicate changed the table");
        s.cov.hit("duplicate");
        let b = stored.unwrap_or_default();
        if b.1 != oci.metric.percent()
            || b.2 != oci.period_of_validity.duration().map(|d| s.now + d)
        {
            s.cov.hit("duplicate with other content");
        }
    }
    Ok(())
}

#[test]
fn duplicate_sequence_number_never_changes_poll_timeout() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_duplicate));
    cov.require(cases, &["duplicate", "duplicate with other content"]);
}

/// The table never holds more than `max_entries` scopes (nor the event queue more than
/// `max_events`), and refuses an OCI only when it is full of entries that never expire.
fn check_bounded(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    prop_assert!(
        s.after.len <= s.config.max_entries,
        "{} > {}",
        s.after.len,
        s.config.max_entries
    );
    prop_assert_eq!(s.table.len(), s.after.entries.iter().flatten().count());
    prop_assert!(s.events.len() <= s.config.max_events);
    if s.after.len == s.config.max_entries && s.config.max_entries > 0 {
        s.cov.hit("full");
    }
    if let RxEvent::Oci {
        scope,
        outcome:
            Some(OciOutcome::Ignored {
                reason: IgnoreReason::TableFull,
                ..
            }),
        ..
    } = s.event
    {
        prop_assert!(s.before.len >= s.config.max_entries);
        prop_assert!(s.before.entries[s.u.index(scope)].is_none());
        prop_assert!(
            s.before.entries.iter().flatten().all(|e| e.2.is_none()),
            "refused while an entry could be evicted"
        );
        s.cov.hit("refused: full of infinite entries");
    }
    Ok(())
}

#[test]
fn table_never_exceeds_max_entries() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_bounded));
    cov.require(cases, &["full", "refused: full of infinite entries"]);
}

/// A valid entry is evicted only to make room for the incoming OCI, which is then stored: an
/// OCI that is already expired on arrival (a stopped timer) must not push out live state.
fn check_eviction_needed(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let RxEvent::Oci { scope, .. } = s.event else {
        return Ok(());
    };
    let ti = s.u.index(scope);
    let live_evicted = (0..s.u.scopes.len()).filter(|i| *i != ti).any(|i| {
        matches!((s.before.entries[i], s.after.entries[i]), (Some(b), None) if !lapsed(b.2, s.now))
    });
    if live_evicted {
        prop_assert!(
            s.after.entries[ti].is_some(),
            "a live entry was evicted for {} which was not stored",
            scope
        );
        s.cov.hit("live entry evicted");
    }
    Ok(())
}

#[test]
fn a_live_entry_is_evicted_only_to_make_room_for_a_stored_one() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| {
        run_rx(&case, &cov, &check_eviction_needed)
    });
    cov.require(cases, &["live entry evicted"]);
}

/// Expiry is lazy: an entry whose validity ended behaves exactly like a removed one, whether
/// or not `handle_timeout` has run yet (same outcome, same valid state).
fn check_lazy_expiry(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let RxEvent::Oci { outcome, twin, .. } = s.event else {
        return Ok(());
    };
    let (twin_outcome, twin_after) = &**twin;
    prop_assert_eq!(outcome, twin_outcome);
    prop_assert_eq!(s.after.live(s.now), twin_after.live(s.now));
    if s.before
        .entries
        .iter()
        .flatten()
        .any(|e| lapsed(e.2, s.now))
    {
        s.cov.hit("lapsed entry present");
    }
    Ok(())
}

#[test]
fn an_expired_entry_behaves_as_if_handle_timeout_had_run() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_lazy_expiry));
    cov.require(cases, &["lapsed entry present"]);
}

// ------------------------------------------------------------------------------------------
// Sending end: generators
// ------------------------------------------------------------------------------------------

const PEERS: usize = 5;

#[derive(Debug, Clone)]
enum SeqSpec {
    Counter(u32),
    Epoch {
        /// Epoch relative to the base instant, in seconds (negative: before it).
        at: i64,
        offset: u32,
    },
}

fn seq_spec() -> impl Strategy<Value = SeqSpec> {
    prop_oneof![
        2 => prop_oneof![Just(1u32), any::<u32>(), (u32::MAX - 3)..=u32::MAX].prop_map(SeqSpec::Counter),
        1 => (-100_000i64..100, prop_oneof![Just(0u32), any::<u32>(), (u32::MAX - 1_000)..=u32::MAX])
            .prop_map(|(at, offset)| SeqSpec::Epoch { at, offset }),
    ]
}

#[derive(Debug, Clone)]
enum UpOp {
    Measure(Measurement),
    Advance(u64),
    Timeout,
    TimeoutAtDeadline,
    OciFor {
        peer: usize,
        msg_type: u8,
        cause: Option<u8>,
    },
    SetOvrl {
        peer: usize,
        ovrl: bool,
    },
    Remove(usize),
}

fn msg_type() -> impl Strategy<Value = u8> {
    prop_oneof![
        6 => prop::sample::select(vec![51u8, 53, 55, 56]),
        2 => prop::sample::select(vec![1u8, 2, 5, 6, 50, 52, 54, 57]),
        1 => any::<u8>(),
    ]
}

fn cause() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![
        1 => Just(None),
        2 => Just(Some(1u8)),
        2 => (64u8..=255).prop_map(Some),
        1 => any::<u8>().prop_map(Some),
    ]
}

fn up_op() -> impl Strategy<Value = UpOp> {
    let measure = prop_oneof![
        // Idle: everything served.
        2 => (0u64..800).prop_map(|a| Measurement { arrived: a, served: a, backlog: 0 }),
        3 => (0u64..6_000, 0u64..1_500, 0u64..1_000)
            .prop_map(|(arrived, served, backlog)| Measurement { arrived, served, backlog }),
    ];
    prop_oneof![
        5 => measure.prop_map(UpOp::Measure),
        2 => prop_oneof![4 => 0u64..400, 1 => 1_000u64..40_000, 1 => Just(3_600_000u64)]
            .prop_map(UpOp::Advance),
        1 => Just(UpOp::Timeout),
        1 => Just(UpOp::TimeoutAtDeadline),
        7 => (0..PEERS, msg_type(), cause())
            .prop_map(|(peer, msg_type, cause)| UpOp::OciFor { peer, msg_type, cause }),
        1 => (0..PEERS, any::<bool>()).prop_map(|(peer, ovrl)| UpOp::SetOvrl { peer, ovrl }),
        1 => (0..PEERS).prop_map(UpOp::Remove),
    ]
}

#[derive(Debug, Clone)]
struct UpCase {
    step: u8,
    max_metric: u8,
    dwell: usize,
    feedback_delay: usize,
    capacity: Option<f64>,
    validity_s: u64,
    refresh_pct: u64,
    sequence: SeqSpec,
    every_message: bool,
    node_scoped: bool,
    max_peers: usize,
    /// Per peer: registered with this OVRL flag before the first event, or not registered.
    initial: Vec<Option<bool>>,
    ops: Vec<UpOp>,
}

fn up_case() -> impl Strategy<Value = UpCase> {
    let control = (
        prop_oneof![4 => 0u8..=25, 1 => 26u8..=200],
        prop_oneof![3 => 0u8..=100, 1 => 101u8..=255],
        0usize..=4,
        0usize..=3,
        prop::option::weighted(0.7, 50.0f64..1_000.0),
    );
    let timing = (
        // 2 000 000 s is beyond the largest finite Timer: the OCI says "infinite".
        prop_oneof![2 => Just(30u64), 2 => 2u64..=120, 1 => Just(2_000_000u64)],
        0u64..=90,
        seq_spec(),
    );
    let peers = (
        any::<bool>(),
        prop::bool::weighted(0.25),
        prop_oneof![3 => Just(65_536usize), 1 => 0usize..=PEERS],
        prop::collection::vec(
            prop::option::weighted(0.8, prop::bool::weighted(0.75)),
            PEERS,
        ),
    );
    (
        control,
        timing,
        peers,
        prop::collection::vec(up_op(), 1..120),
    )
        .prop_map(
            |(
                (step, max_metric, dwell, feedback_delay, capacity),
                (validity_s, refresh_pct, sequence),
                (every_message, node_scoped, max_peers, initial),
                ops,
            )| UpCase {
                step,
                max_metric,
                dwell,
                feedback_delay,
                capacity,
                validity_s,
                refresh_pct,
                sequence,
                every_message,
                node_scoped,
                max_peers,
                initial,
                ops,
            },
        )
}

// ------------------------------------------------------------------------------------------
// Sending end: state machine
// ------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
struct UpSnap {
    metric: u8,
    seq: u32,
    /// `current_oci(false)`, `current_oci(true)`.
    oci: [Option<OverloadControlInformation>; 2],
    poll: Option<Instant>,
}

impl UpSnap {
    fn of(r: &OverloadReporter<usize>) -> Self {
        UpSnap {
            metric: r.metric(),
            seq: r.sequence_number(),
            oci: [r.current_oci(false), r.current_oci(true)],
            poll: r.poll_timeout(),
        }
    }

    fn published_seq(&self) -> Option<u32> {
        self.oci[0].map(|o| o.sequence_number.0)
    }
}

/// What the test knows about a peer of the reporter, for the current association.
#[derive(Debug, Clone, Default)]
struct PeerShadow {
    ovrl: bool,
    /// (AOCI, sequence number) of every OCI sent.
    sent: HashSet<(bool, u32)>,
    told_nonzero: bool,
    /// Eligible messages that could carry an entity-scoped OCI, sent while OVRL, since the
    /// last change of the published state (metric or sequence number).
    entity_msgs: u32,
}

#[derive(Debug)]
struct Emitted {
    peer: usize,
    msg_type: MessageType,
    cause: Option<Cause>,
    oci: Option<OverloadControlInformation>,
    /// What the peer's own `OverloadTable` held for the OCI's scope before delivery.
    cp_before: Stored,
    /// What the peer's own `OverloadTable` did with it (delivered in an encoded message).
    cp_outcome: Option<OciOutcome>,
}

struct UpStep<'a> {
    case: &'a UpCase,
    cfg: &'a ReporterConfig,
    op: &'a UpOp,
    now: Instant,
    before: &'a UpSnap,
    after: &'a UpSnap,
    /// `handle_measurement`'s result.
    measured: Option<Option<u8>>,
    emitted: Option<&'a Emitted>,
    /// Peers before the event.
    shadow: &'a HashMap<usize, PeerShadow>,
    /// Entity-capable messages of the peer of `emitted` since the last change, counting it.
    entity_msgs: u32,
    reporter: &'a OverloadReporter<usize>,
    /// The CP tables, after the event.
    cps: &'a [OverloadTable],
    up_node: &'a NodeKey,
    up_entity: IpAddr,
    cov: &'a Coverage,
}

fn reporter_config(case: &UpCase, base: Instant) -> ReporterConfig {
    let sequence = match case.sequence {
        SeqSpec::Counter(start) => SequenceMode::Counter(start),
        SeqSpec::Epoch { at, offset } => {
            let d = Duration::from_secs(at.unsigned_abs());
            let epoch = if at >= 0 {
                base + d
            } else {
                base.checked_sub(d).unwrap_or(base)
            };
            SequenceMode::EpochSeconds { epoch, offset }
        }
    };
    let inclusion = if case.every_message {
        InclusionPolicy::EveryMessage
    } else {
        InclusionPolicy::UntilCurrent
    };
    ReporterConfig::default()
        .with_capacity(case.capacity)
        .with_feedback_delay(case.feedback_delay)
        .with_step(case.step)
        .with_max_metric(case.max_metric)
        .with_dwell(case.dwell)
        .with_validity(Duration::from_secs(case.validity_s))
        .with_refresh_before(Duration::from_secs(
            case.validity_s * case.refresh_pct / 100,
        ))
        .with_sequence(sequence)
        .with_inclusion(inclusion)
        .with_node_scoped(case.node_scoped)
        .with_max_peers(case.max_peers)
}

fn rejected_establishment(t: MessageType, cause: Option<Cause>) -> bool {
    t == MessageType::SESSION_ESTABLISHMENT_RESPONSE
        && cause.is_some_and(|c| c.is_acceptance() == Some(false))
}

type UpCheck = dyn Fn(&UpStep<'_>) -> Result<(), TestCaseError>;

fn run_up(case: &UpCase, cov: &Coverage, check: &UpCheck) -> Result<(), TestCaseError> {
    let mut now = base_instant();
    let cfg = reporter_config(case, now);
    let mut r: OverloadReporter<usize> = OverloadReporter::new(cfg.clone());
    let up_node = NodeKey::fqdn("upf1.example.net");
    let up_entity: IpAddr = Ipv4Addr::new(192, 0, 2, 1).into();
    let mut cps: Vec<OverloadTable> = (0..PEERS).map(|_| OverloadTable::default()).collect();
    let mut shadow: HashMap<usize, PeerShadow> = HashMap::new();
    let set_ovrl = |r: &mut OverloadReporter<usize>,
                    shadow: &mut HashMap<usize, PeerShadow>,
                    peer: usize,
                    ovrl: bool| {
        r.set_peer_ovrl(peer, ovrl);
        if let Some(p) = shadow.get_mut(&peer) {
            p.ovrl = ovrl;
        } else if shadow.len() < case.max_peers {
            shadow.insert(
                peer,
                PeerShadow {
                    ovrl,
                    ..PeerShadow::default()
                },
            );
        }
    };
    for (peer, ovrl) in case.initial.iter().enumerate() {
        if let Some(ovrl) = ovrl {
            set_ovrl(&mut r, &mut shadow, peer, *ovrl);
        }
    }
    for op in &case.ops {
        let before = UpSnap::of(&r);
        let shadow_before = shadow.clone();
        let mut measured = None;
        let mut emitted = None;
        match op {
            UpOp::Measure(m) => measured = Some(r.handle_measurement(m, now)),
            UpOp::Advance(ms) => now += Duration::from_millis(*ms),
            UpOp::Timeout | UpOp::TimeoutAtDeadline => {
                if matches!(op, UpOp::TimeoutAtDeadline) {
                    if let Some(t) = r.poll_timeout() {
                        now = now.max(t);
                    }
                }
                r.handle_timeout(now);
            }
            UpOp::OciFor {
                peer,
                msg_type,
                cause,
            } => {
                let t = MessageType(*msg_type);
                let cause = cause.map(Cause);
                let oci = r.oci_for(peer, t, cause, now);
                let rejected = rejected_establishment(t, cause);
                let mut cp_outcome = None;
                let mut cp_before = None;
                if let Some(oci) = oci {
                    // A rejected Session Establishment Response has no UP F-SEID.
                    let entity = (!rejected).then_some(up_entity);
                    let origin = OciOrigin::new(up_node.clone(), entity);
                    cp_before = cps[*peer].get(&origin.scope(oci.aoci()));
                    let bytes = message_with(t, oci);
                    let msg = Message::decode(&bytes).expect("message decodes");
                    cp_outcome = cps[*peer].handle_message(&origin, &msg, now);
                }
                if let Some(p) = shadow.get_mut(peer) {
                    if let Some(oci) = oci {
                        p.sent.insert((oci.aoci(), oci.sequence_number.0));
                        p.told_nonzero |= oci.metric.percent() > 0;
                    }
                    if p.ovrl && t.may_carry_oci() && !rejected {
                        p.entity_msgs += 1;
                    }
                }
                emitted = Some(Emitted {
                    peer: *peer,
                    msg_type: t,
                    cause,
                    oci,
                    cp_before,
                    cp_outcome,
                });
            }
            UpOp::SetOvrl { peer, ovrl } => set_ovrl(&mut r, &mut shadow, *peer, *ovrl),
            UpOp::Remove(peer) => {
                r.remove_peer(peer);
                shadow.remove(peer);
                // A new association: the CP flushes what it learned (clause 6.2.4.3.2).
                cps[*peer].reset_peer(&up_node);
            }
        }
        for cp in &mut cps {
            cp.handle_timeout(now);
        }
        let after = UpSnap::of(&r);
        if after.metric != before.metric || after.published_seq() != before.published_seq() {
            for p in shadow.values_mut() {
                p.entity_msgs = 0;
            }
        }
        let entity_msgs = emitted
            .as_ref()
            .and_then(|e| shadow.get(&e.peer))
            .map_or(0, |p| p.entity_msgs);
        check(&UpStep {
            case,
            cfg: &cfg,
            op,
            now,
            before: &before,
            after: &after,
            measured,
            emitted: emitted.as_ref(),
            shadow: &shadow_before,
            entity_msgs,
            reporter: &r,
            cps: &cps,
            up_node: &up_node,
            up_entity,
            cov,
        })?;
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------
// Sending end: properties
// ------------------------------------------------------------------------------------------

/// Every published metric is a multiple of the step and at most `max_metric`; consecutive
/// distinct published values differ by at least the step; only a measurement changes it, and
/// `handle_measurement` says so exactly when it does.
fn check_steps(s: &UpStep<'_>) -> Result<(), TestCaseError> {
    let step = s.case.step.max(1);
    let (b, a) = (s.before.metric, s.after.metric);
    prop_assert_eq!(a % step, 0, "published {} with step {}", a, step);
    prop_assert!(
        a <= s.case.max_metric,
        "published {} above max {}",
        a,
        s.case.max_metric
    );
    if a != b {
        prop_assert!(a.abs_diff(b) >= step, "{} -> {} with step {}", b, a, step);
        s.cov.hit(if a > b { "raised" } else { "lowered" });
        if a == 0 {
            s.cov.hit("back to zero");
        }
    }
    match s.measured {
        Some(Some(v)) => {
            prop_assert_eq!(v, a);
            prop_assert_ne!(v, b, "handle_measurement reported a change that is none");
        }
        Some(None) => prop_assert_eq!(a, b, "a silent change"),
        None => prop_assert_eq!(a, b, "{:?} changed the metric", s.op),
    }
    Ok(())
}

#[test]
fn reporter_never_publishes_a_change_smaller_than_its_step_nor_above_max_metric() {
    let cov = Coverage::default();
    let cases = run(up_case(), |case| run_up(&case, &cov, &check_steps));
    cov.require(cases, &["raised", "lowered", "back to zero"]);
}

/// The sequence number of the published OCI changes exactly when the published metric
/// changes or a refresh is due and handled: +1 in Counter mode (strictly increasing, wrapping
/// only from `u32::MAX` to 0, which the receiver takes as a wrap), newer for the receiver in
/// EpochSeconds mode. The first OCI carries the configured start.
fn check_sequence_changes(s: &UpStep<'_>) -> Result<(), TestCaseError> {
    let (b, a) = (s.before, s.after);
    let refresh_due = matches!(s.op, UpOp::Timeout | UpOp::TimeoutAtDeadline)
        && b.poll.is_some_and(|t| s.now >= t);
    prop_assert_eq!(
        a.poll.is_some(),
        a.metric > 0,
        "refresh timer without overload"
    );
    match (b.published_seq(), a.published_seq()) {
        (None, None) => prop_assert_eq!(b.seq, a.seq),
        (None, Some(first)) => {
            prop_assert!(
                matches!(s.measured, Some(Some(_))),
                "first OCI without a publication"
            );
            let expected = match s.cfg.sequence {
                SequenceMode::Counter(start) => start,
                SequenceMode::EpochSeconds { epoch, offset } => {
                    offset.wrapping_add(s.now.saturating_duration_since(epoch).as_secs() as u32)
                }
            };
            prop_assert_eq!(first, expected);
            s.cov.hit("first publication");
        }
        (Some(_), None) => prop_assert!(false, "the published OCI disappeared"),
        (Some(old), Some(new)) => {
            let content = a.metric != b.metric;
            prop_assert_eq!(
                old != new,
                content || refresh_due,
                "seq {} -> {}, metric {} -> {}, refresh due {}",
                old,
                new,
                b.metric,
                a.metric,
                refresh_due
            );
            if old != new {
                match s.cfg.sequence {
                    SequenceMode::Counter(_) => {
                        prop_assert_eq!(new, old.wrapping_add(1));
                        prop_assert!(new > old || (old == u32::MAX && new == 0));
                        if new < old {
                            s.cov.hit("counter wrapped");
                        }
                    }
                    SequenceMode::EpochSeconds { .. } => {
                        prop_assert!(
                            compare(old, new, DEFAULT_WRAP_WINDOW).is_newer(),
                            "{} -> {}",
                            old,
                            new
                        );
                        s.cov.hit("epoch sequence advanced");
                    }
                }
            }
            if refresh_due {
                prop_assert_eq!(a.metric, b.metric, "a refresh changed the metric");
                let lead = s.cfg.validity.saturating_sub(s.cfg.refresh_before);
                prop_assert_eq!(a.poll, Some(s.now + lead));
                s.cov.hit("refresh");
            }
        }
    }
    Ok(())
}

#[test]
fn reporter_sequence_number_changes_exactly_with_the_published_metric_or_a_refresh() {
    let cov = Coverage::default();
    let cases = run(up_case(), |case| {
        run_up(&case, &cov, &check_sequence_changes)
    });
    cov.require(
        cases,
        &[
            "first publication",
            "refresh",
            "counter wrapped",
            "epoch sequence advanced",
        ],
    );
}

/// Every OCI the reporter emits (`oci_for`, `current_oci`) encodes and decodes back equal,
/// says what the reporter means (metric within 0..=100, current sequence number, configured
/// validity, AOCI where the spec requires it), and goes only to a registered OVRL peer, only
/// on message types 51/53/55/56, never twice with the same number to one scope of a peer
/// under `UntilCurrent`, and with metric 0 only to a peer that was told a non-zero one.
/// Conversely, a peer that lacks the current non-zero OCI gets it on the next eligible message.
fn check_emitted(s: &UpStep<'_>) -> Result<(), TestCaseError> {
    for aoci in [false, true] {
        let current = s.reporter.current_oci(aoci);
        prop_assert_eq!(current.is_some(), s.after.published_seq().is_some());
        if let Some(oci) = current {
            prop_assert_eq!(oci_round_trip(&oci), oci);
            prop_assert_eq!(oci.aoci(), aoci);
        }
    }
    let Some(e) = s.emitted else {
        return Ok(());
    };
    let peer = s.shadow.get(&e.peer);
    let registered_ovrl = peer.is_some_and(|p| p.ovrl);
    let required_aoci = s.cfg.node_scoped || rejected_establishment(e.msg_type, e.cause);
    let Some(oci) = e.oci else {
        if !e.msg_type.may_carry_oci() {
            s.cov.hit("ineligible message type");
        } else if peer.is_none() {
            s.cov.hit("unregistered peer");
        } else if !registered_ovrl {
            s.cov.hit("peer without OVRL");
        }
        // Liveness: a peer missing the current non-zero OCI for the scope gets it.
        let missing = peer.is_some_and(|p| !p.sent.contains(&(required_aoci, s.after.seq)));
        let owed = e.msg_type.may_carry_oci()
            && registered_ovrl
            && s.after.published_seq().is_some()
            && s.after.metric > 0
            && missing;
        prop_assert!(!owed, "peer {} not sent the current OCI", e.peer);
        return Ok(());
    };
    s.cov.hit("emitted");
    prop_assert!(e.msg_type.may_carry_oci(), "OCI on {:?}", e.msg_type);
    prop_assert!(registered_ovrl, "OCI to peer {} without OVRL", e.peer);
    let back = oci_round_trip(&oci);
    prop_assert_eq!(back, oci);
    prop_assert_eq!(
        back.metric.raw(),
        back.metric.percent(),
        "metric {} reads as 0",
        back.metric.raw()
    );
    prop_assert_eq!(back.metric.percent(), s.reporter.metric());
    prop_assert_eq!(back.sequence_number.0, s.reporter.sequence_number());
    prop_assert_eq!(
        back.period_of_validity,
        Timer::from_duration(s.cfg.validity).unwrap_or(Timer::INFINITE)
    );
    let p = peer.cloned().unwrap_or_default();
    if required_aoci {
        prop_assert!(
            back.aoci(),
            "AOCI missing on {:?} {:?}",
            e.msg_type,
            e.cause
        );
        s.cov.hit("AOCI");
    } else if back.aoci() {
        // Only to bring a node scope the peer was told about up to date, once the entity
        // scope has the current number.
        let seq = back.sequence_number.0;
        prop_assert!(
            p.sent.contains(&(false, seq)) && p.sent.iter().any(|k| k.0 && k.1 != seq),
            "AOCI set on {:?} {:?} without need",
            e.msg_type,
            e.cause
        );
        s.cov.hit("node scope brought up to date");
    }
    let key = (back.aoci(), back.sequence_number.0);
    if back.metric.percent() == 0 {
        prop_assert!(
            p.told_nonzero,
            "zero OCI to peer {} never told of an overload",
            e.peer
        );
        s.cov.hit("zero emitted");
    }
    if !s.case.every_message || back.metric.percent() == 0 {
        prop_assert!(
            !p.sent.contains(&key),
            "{:?} sent twice to peer {}",
            key,
            e.peer
        );
    }
    Ok(())
}

#[test]
fn every_emitted_oci_round_trips_and_only_ovrl_peers_get_one_on_messages_51_53_55_56() {
    let cov = Coverage::default();
    let cases = run(up_case(), |case| run_up(&case, &cov, &check_emitted));
    cov.require(
        cases,
        &[
            "emitted",
            "zero emitted",
            "AOCI",
            "node scope brought up to date",
            "ineligible message type",
            "unregistered peer",
            "peer without OVRL",
        ],
    );
}

/// End to end: a CP's `OverloadTable` fed with every OCI the reporter sends it applies each
/// one (a re-send of the current one under `EveryMessage` is a duplicate), stores the metric
/// sent, and once the peer has received two messages that may carry an entity-scoped OCI
/// since the last change, it sheds no more than the UP currently asks for: a lowered metric
/// (or the end of the overload) reaches every scope the peer was told about, including the
/// node scope of a rejected Session Establishment Response.
fn check_end_to_end(s: &UpStep<'_>) -> Result<(), TestCaseError> {
    let Some(e) = s.emitted else {
        return Ok(());
    };
    let cp = &s.cps[e.peer];
    if let Some(oci) = e.oci {
        let sent_before = s
            .shadow
            .get(&e.peer)
            .is_some_and(|p| p.sent.contains(&(oci.aoci(), oci.sequence_number.0)));
        // The CP still holds this very OCI only if it was sent before and has not lapsed
        // (a re-send under `EveryMessage`); anything else the reporter sends is news to it.
        let still_held = e
            .cp_before
            .is_some_and(|b| b.0 == oci.sequence_number.0 && !lapsed(b.2, s.now));
        prop_assert!(
            !still_held || sent_before,
            "the CP holds a number never sent"
        );
        match &e.cp_outcome {
            Some(OciOutcome::Applied { scope, metric, .. }) => {
                prop_assert!(!still_held, "a duplicate was applied");
                prop_assert_eq!(*metric, oci.metric.percent());
                prop_assert_eq!(cp.get(scope).map(|e| e.1), Some(*metric));
                prop_assert_eq!(matches!(scope, Scope::Node(_)), oci.aoci());
                if sent_before {
                    s.cov.hit("re-sent after the CP's entry lapsed");
                }
            }
            Some(OciOutcome::Ignored {
                reason: IgnoreReason::Duplicate,
                ..
            }) => {
                prop_assert!(still_held, "the CP found a fresh OCI a duplicate");
                prop_assert!(s.case.every_message, "a re-send under UntilCurrent");
                s.cov.hit("re-sent under EveryMessage");
            }
            other => prop_assert!(false, "the CP did not apply an OCI: {:?}", other),
        }
    }
    if s.entity_msgs >= 2 {
        let r = cp.reduction(Some(s.up_entity), s.up_node, s.now);
        prop_assert!(
            r <= s.reporter.metric(),
            "peer {} sheds {} % while the UP asks for {} %",
            e.peer,
            r,
            s.reporter.metric()
        );
        if s.shadow
            .get(&e.peer)
            .is_some_and(|p| p.sent.iter().any(|(aoci, _)| *aoci))
        {
            s.cov.hit("settled after a node-scoped OCI");
        }
    }
    Ok(())
}

#[test]
fn reporter_and_receiver_agree_and_a_lowered_metric_reaches_every_scope() {
    let cov = Coverage::default();
    let cases = run(up_case(), |case| run_up(&case, &cov, &check_end_to_end));
    cov.require(
        cases,
        &[
            "re-sent under EveryMessage",
            "settled after a node-scoped OCI",
        ],
    );
}

// ------------------------------------------------------------------------------------------
// Load control
// ------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum LoadOp {
    Utilisation(f64),
    LciFor { peer: usize, msg_type: u8 },
    SetLoad { peer: usize, load: bool },
    Remove(usize),
}

#[derive(Debug, Clone)]
struct LoadCase {
    step: u8,
    first_sequence: u32,
    max_peers: usize,
    initial: Vec<Option<bool>>,
    ops: Vec<LoadOp>,
}

fn load_case() -> impl Strategy<Value = LoadCase> {
    let utilisation = prop_oneof![
        4 => 0.0f64..=1.0,
        // Jitter around one value: most changes are below the step.
        3 => 0.40f64..0.47,
        1 => 0.0f64..0.04,
        1 => -1.0f64..2.0,
        1 => prop::sample::select(vec![0.0, 1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]),
    ];
    let op = prop_oneof![
        4 => utilisation.prop_map(LoadOp::Utilisation),
        4 => (0..PEERS, msg_type()).prop_map(|(peer, msg_type)| LoadOp::LciFor { peer, msg_type }),
        1 => (0..PEERS, any::<bool>()).prop_map(|(peer, load)| LoadOp::SetLoad { peer, load }),
        1 => (0..PEERS).prop_map(LoadOp::Remove),
    ];
    (
        prop_oneof![3 => 0u8..=20, 1 => any::<u8>()],
        prop_oneof![Just(1u32), any::<u32>(), (u32::MAX - 3)..=u32::MAX],
        prop_oneof![3 => Just(65_536usize), 1 => 0usize..=PEERS],
        prop::collection::vec(prop::option::weighted(0.8, any::<bool>()), PEERS),
        prop::collection::vec(op, 1..80),
    )
        .prop_map(|(step, first_sequence, max_peers, initial, ops)| LoadCase {
            step,
            first_sequence,
            max_peers,
            initial,
            ops,
        })
}

/// `LoadReporter`: consecutive published loads differ by at least the step (the one exception,
/// in the code though not in the module documentation, is a drop to exactly 0, so that an
/// idle UP reports 0), a change of at least the step is always published, every load is within
/// 0..=100, and the sequence number moves by exactly one per publication. `lci_for` gives an
/// LCI only to registered peers with LOAD, only on 51/53/55/56, once per number and
/// association, and it round-trips through the codec.
#[test]
fn load_reporter_published_loads_differ_by_at_least_step() {
    let cov = Coverage::default();
    let cases = run(load_case(), |case| {
        let c = LoadReporterConfig::default()
            .with_step(case.step)
            .with_first_sequence(case.first_sequence)
            .with_max_peers(case.max_peers);
        let step = case.step.max(1);
        let mut r: LoadReporter<usize> = LoadReporter::new(c);
        // peer -> (LOAD, numbers sent in this association)
        let mut shadow: HashMap<usize, (bool, HashSet<u32>)> = HashMap::new();
        let set = |r: &mut LoadReporter<usize>,
                   shadow: &mut HashMap<usize, (bool, HashSet<u32>)>,
                   peer: usize,
                   load: bool| {
            r.set_peer_load(peer, load);
            if let Some(p) = shadow.get_mut(&peer) {
                p.0 = load;
            } else if shadow.len() < case.max_peers {
                shadow.insert(peer, (load, HashSet::new()));
            }
        };
        for (peer, load) in case.initial.iter().enumerate() {
            if let Some(load) = load {
                set(&mut r, &mut shadow, peer, *load);
            }
        }
        let mut seq: Option<u32> = None;
        for op in &case.ops {
            let before = r.load();
            match op {
                LoadOp::Utilisation(u) => {
                    let wanted = (u.clamp(0.0, 1.0) * 100.0).round() as u8;
                    let out = r.handle_utilisation(*u);
                    let after = r.load();
                    prop_assert!(after.is_some());
                    prop_assert!(after.unwrap_or(0) <= 100);
                    match (before, out) {
                        (None, Some(v)) => {
                            prop_assert_eq!(Some(v), after);
                            seq = Some(case.first_sequence);
                        }
                        (Some(p), Some(v)) => {
                            prop_assert_eq!(Some(v), after);
                            prop_assert!(
                                v.abs_diff(p) >= step || (v == 0 && p != 0),
                                "published {} -> {} with step {}",
                                p,
                                v,
                                step
                            );
                            seq = seq.map(|s| s.wrapping_add(1));
                            s_hit(&cov, v.abs_diff(p) < step, "drop to zero under the step");
                            cov.hit("published change");
                        }
                        (Some(p), None) => {
                            prop_assert_eq!(after, Some(p));
                            prop_assert!(
                                wanted.abs_diff(p) < step && !(wanted == 0 && p != 0),
                                "a change {} -> {} of at least the step {} was not published",
                                p,
                                wanted,
                                step
                            );
                            if wanted != p {
                                cov.hit("change under the step suppressed");
                            }
                        }
                        (None, None) => {
                            prop_assert!(false, "the first utilisation was not published")
                        }
                    }
                }
                LoadOp::LciFor { peer, msg_type } => {
                    let t = MessageType(*msg_type);
                    let lci = r.lci_for(peer, t);
                    let p = shadow.get_mut(peer);
                    match (lci, p) {
                        (Some(lci), Some(p)) => {
                            prop_assert!(t.may_carry_oci(), "LCI on {:?}", t);
                            prop_assert!(p.0, "LCI to a peer without LOAD");
                            prop_assert_eq!(lci_round_trip(&lci), lci);
                            prop_assert_eq!(Some(lci.metric.percent()), r.load());
                            prop_assert_eq!(lci.metric.raw(), lci.metric.percent());
                            prop_assert_eq!(Some(lci.sequence_number.0), seq);
                            prop_assert!(p.1.insert(lci.sequence_number.0), "LCI sent twice");
                            cov.hit("LCI emitted");
                        }
                        (Some(_), None) => prop_assert!(false, "LCI to unregistered peer {}", peer),
                        (None, p) => {
                            let owed = t.may_carry_oci()
                                && p.is_some_and(|p| p.0 && seq.is_some_and(|s| !p.1.contains(&s)));
                            prop_assert!(!owed, "peer {} not sent the current LCI", peer);
                        }
                    }
                }
                LoadOp::SetLoad { peer, load } => set(&mut r, &mut shadow, *peer, *load),
                LoadOp::Remove(peer) => {
                    r.remove_peer(peer);
                    shadow.remove(peer);
                }
            }
            if !matches!(op, LoadOp::Utilisation(_)) {
                prop_assert_eq!(r.load(), before, "{:?} changed the load", op);
            }
        }
        Ok(())
    });
    cov.require(
        cases,
        &[
            "published change",
            "change under the step suppressed",
            "LCI emitted",
        ],
    );
}

fn s_hit(cov: &Coverage, cond: bool, what: &'static str) {
    if cond {
        cov.hit(what);
    }
}

#[derive(Debug, Clone)]
enum LtOp {
    Lci {
        node: usize,
        seq: SeqPick,
        metric: u8,
        carrier: Option<u8>,
    },
    Reset(usize),
    Advance(u64),
}

#[derive(Debug, Clone)]
struct LtCase {
    max_entries: usize,
    wrap_window: u32,
    ops: Vec<LtOp>,
}

fn lt_case() -> impl Strategy<Value = LtCase> {
    let op = prop_oneof![
        8 => (0..4usize, seq_pick(), prop_oneof![4 => 0u8..=100, 1 => any::<u8>()], carrier())
            .prop_map(|(node, seq, metric, carrier)| LtOp::Lci { node, seq, metric, carrier }),
        1 => (0..4usize).prop_map(LtOp::Reset),
        2 => (0u64..5_000).prop_map(LtOp::Advance),
    ];
    (
        prop_oneof![3 => 0usize..=4, 1 => Just(4096usize)],
        prop_oneof![2 => Just(DEFAULT_WRAP_WINDOW), 1 => Just(0u32), 1 => 0u32..10],
        prop::collection::vec(op, 1..60),
    )
        .prop_map(|(max_entries, wrap_window, ops)| LtCase {
            max_entries,
            wrap_window,
            ops,
        })
}

/// `LoadTable` sequencing is like OCI's (clause 6.2.3.3.2): per node, a newer or wrapped
/// number replaces the stored load, the same one is a duplicate, an older one is stale; the
/// stored number never goes backwards except through `reset_peer` or the eviction of the
/// stalest report from a full table; at most `max_entries` nodes; an LCI on a message type
/// that may not carry one changes nothing.
#[test]
fn load_table_sequencing_is_like_oci() {
    let cov = Coverage::default();
    let cases = run(lt_case(), |case| {
        let mut nodes = Universe::new().nodes;
        nodes.push(NodeKey::Ip(
            Ipv6Addr::new(0x2001, 0xdb8, 1, 0, 0, 0, 0, 9).into(),
        ));
        let config = LoadConfig::default()
            .with_max_entries(case.max_entries)
            .with_wrap_window(case.wrap_window);
        let mut t = LoadTable::new(config);
        let mut now = base_instant();
        // node index -> (seq, load, at): what the table must hold.
        let mut model: HashMap<usize, (u32, u8, Instant)> = HashMap::new();
        for op in &case.ops {
            match op {
                LtOp::Lci {
                    node,
                    seq,
                    metric,
                    carrier,
                } => {
                    let lci = LoadControlInformation {
                        sequence_number: ControlSequenceNumber(
                            seq.resolve(model.get(node).map(|m| m.0)),
                        ),
                        metric: Metric::from_raw(*metric),
                    };
                    let s = lci.sequence_number.0;
                    let load = lci.metric.percent();
                    let outcome = match carrier {
                        None => t.handle_lci(&nodes[*node], &lci, now),
                        Some(c) => {
                            let bytes = message_with(MessageType(*c), lci);
                            let msg = Message::decode(&bytes).expect("message decodes");
                            t.handle_message(&nodes[*node], &msg, now)
                                .expect("carries an LCI")
                        }
                    };
                    if carrier.is_some_and(|c| !MessageType(c).may_carry_oci()) {
                        prop_assert_eq!(outcome, LciOutcome::UnexpectedMessage);
                        cov.hit("unexpected message");
                    } else if let Some(stored) = model.get(node).copied() {
                        let order = compare(stored.0, s, case.wrap_window);
                        let expected = match order {
                            SequenceOrder::Newer | SequenceOrder::Wrapped => {
                                LciOutcome::Applied { load }
                            }
                            SequenceOrder::Same => LciOutcome::Duplicate,
                            SequenceOrder::Older => LciOutcome::Stale,
                        };
                        prop_assert_eq!(&outcome, &expected, "stored {}, received {}", stored.0, s);
                        if order.is_newer() {
                            model.insert(*node, (s, load, now));
                        }
                        cov.hit(match order {
                            SequenceOrder::Newer => "newer",
                            SequenceOrder::Wrapped => "wrapped",
                            SequenceOrder::Same => "duplicate",
                            SequenceOrder::Older => "stale",
                        });
                    } else {
                        prop_assert_eq!(outcome, LciOutcome::Applied { load });
                        if case.max_entries > 0 {
                            if model.len() >= case.max_entries {
                                // The stalest report goes (any of them on a tie).
                                let gone: Vec<usize> = model
                                    .keys()
                                    .copied()
                                    .filter(|k| t.load(&nodes[*k], now).is_none())
                                    .collect();
                                prop_assert_eq!(gone.len(), 1, "evicted {:?}", gone);
                                let stalest = model.values().map(|m| m.2).min();
                                prop_assert_eq!(Some(model[&gone[0]].2), stalest);
                                model.remove(&gone[0]);
                                cov.hit("evicted");
                            }
                            model.insert(*node, (s, load, now));
                        }
                    }
                }
                LtOp::Reset(node) => {
                    t.reset_peer(&nodes[*node]);
                    if model.remove(node).is_some() {
                        cov.hit("reset");
                    }
                }
                LtOp::Advance(ms) => now += Duration::from_millis(*ms),
            }
            prop_assert!(t.len() <= case.max_entries);
            prop_assert_eq!(t.len(), model.len());
            for (k, node) in nodes.iter().enumerate() {
                prop_assert_eq!(
                    t.load(node, now),
                    model.get(&k).map(|m| m.1),
                    "load of {}",
                    node
                );
            }
        }
        Ok(())
    });
    cov.require(
        cases,
        &[
            "newer",
            "wrapped",
            "duplicate",
            "stale",
            "evicted",
            "reset",
            "unexpected message",
        ],
    );
}

// ------------------------------------------------------------------------------------------
// Regressions: the minimal cases the properties above found, fixed in `src/`.
// ------------------------------------------------------------------------------------------

fn oci(seq: u32, metric: u8, timer: Timer, aoci: bool) -> OverloadControlInformation {
    OverloadControlInformation {
        sequence_number: ControlSequenceNumber(seq),
        metric: Metric::from_raw(metric),
        period_of_validity: timer,
        flags: aoci.then_some(OciFlags::AOCI),
    }
}

/// `OverloadReporter::publish_rule`: with `max_metric` above 100, rounding to the step could
/// publish more than 100 (102 with step 6), which every receiver reads as 0 % (clause 8.2.34):
/// the deepest overload would switch throttling off.
#[test]
fn regression_published_metric_never_rounds_above_100() {
    let now = base_instant();
    let c = ReporterConfig::default()
        .with_capacity(Some(100.0))
        .with_step(6)
        .with_max_metric(102);
    let mut r: OverloadReporter<u8> = OverloadReporter::new(c);
    r.set_peer_ovrl(1, true);
    // Demand 100x capacity wants 99 %, whose nearest multiple of 6 is 102.
    let m = Measurement {
        arrived: 10_000,
        served: 100,
        backlog: 0,
    };
    assert_eq!(r.handle_measurement(&m, now), Some(96));
    let sent = r
        .oci_for(&1, MessageType::SESSION_MODIFICATION_RESPONSE, None, now)
        .unwrap();
    assert_eq!(sent.metric.raw(), 96);
    assert_eq!(sent.metric.percent(), 96);
}

/// `OverloadTable::handle_oci`: in a full table, an OCI already expired on arrival (here a
/// zero-length period, unit "1 minute" with value 0) for a scope not held evicted a live entry
/// to make room, then stored nothing: the other peer's overload state was lost for nothing.
#[test]
fn regression_an_expired_oci_does_not_evict_a_live_entry() {
    let now = base_instant();
    let c = OverloadConfig::default().with_max_entries(1);
    let mut t = OverloadTable::new(c);
    let node = NodeKey::fqdn("upf-a.example.net");
    let (e1, e2): (IpAddr, IpAddr) = (
        Ipv4Addr::new(192, 0, 2, 1).into(),
        Ipv4Addr::new(192, 0, 2, 2).into(),
    );
    t.handle_oci(
        &OciOrigin::new(node.clone(), Some(e1)),
        &oci(1, 40, Timer(0x05), false),
        now,
    );
    let out = t.handle_oci(
        &OciOrigin::new(node.clone(), Some(e2)),
        &oci(1, 70, Timer(0x20), false),
        now,
    );
    assert!(
        matches!(out, OciOutcome::Applied { metric: 70, .. }),
        "{out:?}"
    );
    assert_eq!(t.reduction(Some(e1), &node, now), 40);
    assert_eq!(t.reduction(Some(e2), &node, now), 0);
    assert_eq!(t.len(), 1);
    // The stopped timer likewise.
    let out = t.handle_oci(
        &OciOrigin::new(node.clone(), Some(e2)),
        &oci(2, 70, Timer::STOPPED, false),
        now,
    );
    assert!(matches!(out, OciOutcome::Applied { .. }), "{out:?}");
    assert_eq!(t.reduction(Some(e1), &node, now), 40);
}

/// `OverloadReporter::oci_for`: once a peer had a node-scoped OCI (a rejected Session
/// Establishment Response must carry AOCI=1, clause 8.2.76), a lowered metric or the end of
/// the overload only ever reached its entity scope, so the CP, which applies the larger of the
/// two, kept shedding at the old rate until the validity ran out (for ever with an infinite
/// one). Now the current OCI follows node-scoped once the entity scope has it.
#[test]
fn regression_the_end_of_overload_reaches_the_node_scope_of_a_rejected_establishment() {
    let now = base_instant();
    let c = ReporterConfig::default().with_capacity(Some(100.0));
    let mut r: OverloadReporter<&str> = OverloadReporter::new(c);
    r.set_peer_ovrl("cp", true);
    let mut cp = OverloadTable::default();
    let upf = NodeKey::fqdn("upf1.example.net");
    let entity: IpAddr = Ipv4Addr::new(192, 0, 2, 1).into();
    let with_fseid = OciOrigin::new(upf.clone(), Some(entity));
    let without = OciOrigin::new(upf.clone(), None);
    let m = |arrived| Measurement {
        arrived,
        served: 100,
        backlog: 0,
    };
    let modify = MessageType::SESSION_MODIFICATION_RESPONSE;
    let establish = MessageType::SESSION_ESTABLISHMENT_RESPONSE;

    assert_eq!(r.handle_measurement(&m(200), now), Some(50));
    let o = r.oci_for(&"cp", modify, None, now).unwrap();
    cp.handle_oci(&with_fseid, &o, now);
    let o = r
        .oci_for(
            &"cp",
            establish,
            Some(Cause::PFCP_ENTITY_IN_CONGESTION),
            now,
        )
        .unwrap();
    assert!(o.aoci());
    cp.handle_oci(&without, &o, now);
    assert_eq!(cp.reduction(Some(entity), &upf, now), 50);

    for _ in 0..3 {
        r.handle_measurement(&m(25), now);
    }
    assert_eq!(r.metric(), 0);
    let first = r.oci_for(&"cp", modify, None, now).unwrap();
    assert!(!first.aoci());
    cp.handle_oci(&with_fseid, &first, now);
    let second = r.oci_for(&"cp", modify, None, now).unwrap();
    assert!(second.aoci(), "the node scope still holds 50 %");
    assert_eq!(second.metric.percent(), 0);
    assert_eq!(second.sequence_number, first.sequence_number);
    cp.handle_oci(&with_fseid, &second, now);
    assert_eq!(cp.reduction(Some(entity), &upf, now), 0);
    // Both scopes have the zero: nothing more to say.
    assert!(r.oci_for(&"cp", modify, None, now).is_none());
}
