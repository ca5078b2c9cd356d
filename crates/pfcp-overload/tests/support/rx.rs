//! The receiving end of the property tests: generators of OCI arrivals and other events for
//! the CP-side `OverloadTable` (`rx_case`), snapshots of the table, and the driver `run_rx`
//! that applies each event and hands every step to a property check.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use pfcp_overload::sequence::DEFAULT_RESET_WINDOW;
use pfcp_overload::{
    NodeKey, OciOrigin, OciOutcome, OverloadConfig, OverloadEvent, OverloadTable, Scope, ScopeState,
};
use pfcp_wire::ie::{ControlSequenceNumber, Metric, OciFlags, OverloadControlInformation, Timer};
use pfcp_wire::{Message, MessageType};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::{base_instant, message_with, Coverage, Universe};

// ------------------------------------------------------------------------------------------
// Receiving end: generators
// ------------------------------------------------------------------------------------------

/// A sequence number, relative to the one stored for the target scope (1000 if none), so that
/// duplicates, newer, older, wrapped and reset numbers are all frequent.
#[derive(Debug, Clone)]
pub(crate) enum SeqPick {
    Any(u32),
    Same,
    Plus(u32),
    Minus(u32),
    NearMax(u32),
    NearZero(u32),
}

impl SeqPick {
    pub(crate) fn resolve(&self, stored: Option<u32>) -> u32 {
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

pub(crate) fn seq_pick() -> impl Strategy<Value = SeqPick> {
    prop_oneof![
        2 => any::<u32>().prop_map(SeqPick::Any),
        3 => Just(SeqPick::Same),
        3 => (1u32..4).prop_map(SeqPick::Plus),
        2 => (1u32..4).prop_map(SeqPick::Minus),
        1 => (4_000u32..5_000).prop_map(SeqPick::Minus),
        1 => (0u32..3).prop_map(SeqPick::NearMax),
        1 => (0u32..3).prop_map(SeqPick::NearZero),
    ]
}

/// A Timer octet (clause 8.2.35): mostly short 2-second periods so that expiry happens, plus
/// stopped, infinite, minutes and any unit/value at all.
pub(crate) fn timer_octet() -> impl Strategy<Value = u8> {
    prop_oneof![
        6 => 1u8..=31,
        1 => Just(0x00u8),
        1 => Just(0xE0u8),
        1 => 0x20u8..=0x23,
        1 => any::<u8>(),
    ]
}

/// Message types around the four that may carry OCI/LCI (51, 53, 55, 56), and the Heartbeat
/// messages (1, 2), where some UP functions put their LCI.
pub(crate) fn carrier() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![
        3 => Just(None),
        1 => prop::sample::select(vec![1u8, 2, 50, 51, 52, 53, 54, 55, 56, 57]).prop_map(Some),
    ]
}

#[derive(Debug, Clone)]
pub(crate) enum RxOp {
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

pub(crate) fn rx_op() -> impl Strategy<Value = RxOp> {
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
pub(crate) struct RxCase {
    pub(crate) max_entries: usize,
    pub(crate) reset_window: u32,
    pub(crate) max_events: usize,
    pub(crate) ops: Vec<RxOp>,
}

pub(crate) fn rx_case() -> impl Strategy<Value = RxCase> {
    (
        prop_oneof![3 => 0usize..=8, 1 => Just(4096usize)],
        prop_oneof![2 => Just(DEFAULT_RESET_WINDOW), 1 => Just(0u32), 1 => 0u32..10],
        prop_oneof![3 => Just(1024usize), 1 => 0usize..4],
        prop::collection::vec(rx_op(), 1..60),
    )
        .prop_map(|(max_entries, reset_window, max_events, ops)| RxCase {
            max_entries,
            reset_window,
            max_events,
            ops,
        })
}

// ------------------------------------------------------------------------------------------
// Receiving end: state machine
// ------------------------------------------------------------------------------------------

/// `OverloadTable::get` of one scope.
pub(crate) type Stored = Option<ScopeState>;

/// What the table holds, scope by scope (in `Universe::scopes` order).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RxSnap {
    pub(crate) entries: Vec<Stored>,
    pub(crate) poll: Option<Instant>,
    pub(crate) len: usize,
}

impl RxSnap {
    pub(crate) fn of(t: &OverloadTable, u: &Universe) -> Self {
        RxSnap {
            entries: u.scopes.iter().map(|s| t.get(s)).collect(),
            poll: t.poll_timeout(),
            len: t.len(),
        }
    }

    /// The entries still valid at `now` (an expired entry that `handle_timeout` has not
    /// removed yet reads as absent).
    pub(crate) fn live(&self, now: Instant) -> Vec<Stored> {
        self.entries
            .iter()
            .map(|e| e.filter(|e| !lapsed(e.expires, now)))
            .collect()
    }
}

pub(crate) fn lapsed(expires: Option<Instant>, now: Instant) -> bool {
    expires.is_some_and(|t| t <= now)
}

/// The reduction an entry contributes at `t`.
pub(crate) fn contribution(e: Stored, t: Instant) -> u8 {
    e.filter(|e| !lapsed(e.expires, t)).map_or(0, |e| e.metric)
}

#[derive(Debug)]
pub(crate) enum RxEvent {
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

pub(crate) struct RxStep<'a> {
    pub(crate) u: &'a Universe,
    pub(crate) config: &'a OverloadConfig,
    pub(crate) table: &'a OverloadTable,
    pub(crate) event: &'a RxEvent,
    pub(crate) now: Instant,
    pub(crate) before: &'a RxSnap,
    pub(crate) after: &'a RxSnap,
    /// Node of the last OCI applied to each scope, before the event (what `reset_peer` uses).
    pub(crate) owners: &'a HashMap<Scope, NodeKey>,
    /// Expiry of the last OCI applied to each scope, after the event.
    pub(crate) applied: &'a HashMap<Scope, Option<Instant>>,
    /// The latest explicit `handle_timeout`, after the event.
    pub(crate) last_timeout: Option<Instant>,
    /// Events drained after the event, and whether none was dropped.
    pub(crate) events: &'a [OverloadEvent],
    pub(crate) events_complete: bool,
    pub(crate) cov: &'a Coverage,
}

pub(crate) fn deliver_oci(
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

pub(crate) type RxCheck = dyn Fn(&RxStep<'_>) -> Result<(), TestCaseError>;

pub(crate) fn run_rx(case: &RxCase, cov: &Coverage, check: &RxCheck) -> Result<(), TestCaseError> {
    let u = Universe::new();
    let config = OverloadConfig::default()
        .with_max_entries(case.max_entries)
        .with_reset_window(case.reset_window)
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
                let stored = table.get(&scope).map(|s| s.sequence_number);
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
