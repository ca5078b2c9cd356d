//! The checks behind the `overload_events` fuzz target, shared with
//! `crates/pfcp-overload/tests/fuzz_corpus.rs` (which includes this file with `#[path]`).
//!
//! The input is decoded with `arbitrary` into a [`Scenario`]: configurations for both ends of
//! N4 and a list of events. The events drive
//!
//! * the CP side: an [`OverloadTable`] (OCIs from a few node/entity origins with arbitrary
//!   sequence numbers, metric octets, timer octets and flags; PFCP messages, well-formed or raw
//!   fuzz bytes, through `Message::decode` and `handle_message`; timeouts, peer resets,
//!   reduction queries, event drains), a [`LoadTable`] and an [`UpSelector`];
//! * the UP side: an [`OverloadReporter`] (measurements with any `u64` counts, timeouts,
//!   `oci_for` with any message type, cause and peer, OVRL changes, peer removal) and a
//!   [`LoadReporter`]. Every OCI/LCI they emit is encoded with pfcp-wire, decoded back, and
//!   fed into a *mirror* CP table, as the peer would.
//!
//! After every event the invariants are checked (see [`Cp::check`] and [`Up::check_*`]):
//! bounded tables; stored sequence numbers never go backwards except through expiry, reset,
//! eviction or wrap (`pfcp_overload::sequence::compare`); no entry outlives a
//! `handle_timeout` at or after its expiry and `reduction` ignores expired entries;
//! `poll_timeout` is the earliest expiry and lies after the instant just handled; the
//! reporter's metric is a multiple of its step within `max_metric`; everything emitted
//! round-trips through the codec; the mirror never sees a stale OCI/LCI from the reporter and,
//! once the reporter has nothing more to say to a peer, holds no reduction above the
//! published one (and exactly the published load). Panics, including arithmetic overflow
//! (the fuzz build has debug assertions), are failures.
//!
//! Only `std`, `arbitrary`, `pfcp-wire` and `pfcp-overload`: the file compiles in the fuzz crate
//! and in pfcp-overload's integration tests alike.

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use pfcp_overload::sequence::{compare, SequenceOrder, DEFAULT_WRAP_WINDOW};
use pfcp_overload::{
    Candidate, ControlLaw, IgnoreReason, InclusionPolicy, LciOutcome, LoadConfig, LoadReporter,
    LoadReporterConfig, LoadTable, Measurement, NodeKey, OciOrigin, OciOutcome, OverloadConfig,
    OverloadEvent, OverloadReporter, OverloadTable, ReporterConfig, Scope, ScopeState,
    SequenceMode, UpSelector,
};
use pfcp_wire::encode::Encode;
use pfcp_wire::ie::{
    ControlSequenceNumber, IeIter, LoadControlInformation, Metric, OciFlags,
    OverloadControlInformation, Timer,
};
use pfcp_wire::{Cause, Message, MessageType, TypedIe};

/// Most events run per input (bounds the cost of one input).
const MAX_EVENTS: usize = 512;

/// The base instant of a run. The harness is the only place that reads the clock: every
/// later instant is this one advanced by fuzzer-chosen durations, so a run does not depend on
/// when it happens.
#[allow(clippy::disallowed_methods)] // the one clock read: an arbitrary origin for the run
fn base_instant() -> Instant {
    Instant::now()
}

// ---------------------------------------------------------------------------------------------
// The input

/// A duration for configuration fields: the edges (zero, the largest) and ordinary values.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum DurSpec {
    /// `Duration::ZERO`.
    Zero,
    /// Nanoseconds.
    Nanos(u32),
    /// Milliseconds.
    Millis(u16),
    /// Seconds.
    Secs(u32),
    /// `Duration::MAX`.
    Max,
}

impl DurSpec {
    fn get(self) -> Duration {
        match self {
            DurSpec::Zero => Duration::ZERO,
            DurSpec::Nanos(n) => Duration::from_nanos(u64::from(n)),
            DurSpec::Millis(n) => Duration::from_millis(u64::from(n)),
            DurSpec::Secs(n) => Duration::from_secs(u64::from(n)),
            DurSpec::Max => Duration::MAX,
        }
    }
}

/// How far the clock moves. The largest step (65535 hours) times the event bound stays far
/// inside `Instant`'s range.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Step {
    /// Not at all.
    Zero,
    /// Nanoseconds.
    Nanos(u16),
    /// Milliseconds.
    Millis(u16),
    /// Seconds.
    Secs(u16),
    /// Hours.
    Hours(u16),
}

impl Step {
    fn get(self) -> Duration {
        match self {
            Step::Zero => Duration::ZERO,
            Step::Nanos(n) => Duration::from_nanos(u64::from(n)),
            Step::Millis(n) => Duration::from_millis(u64::from(n)),
            Step::Secs(n) => Duration::from_secs(u64::from(n)),
            Step::Hours(n) => Duration::from_secs(u64::from(n) * 3600),
        }
    }
}

/// A `u64` count: the edges and the ordinary.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Count {
    /// 0.
    Zero,
    /// A small count.
    Small(u8),
    /// A medium count.
    Medium(u16),
    /// Any.
    Raw(u64),
    /// `u64::MAX`.
    Max,
}

impl Count {
    fn get(self) -> u64 {
        match self {
            Count::Zero => 0,
            Count::Small(n) => u64::from(n),
            Count::Medium(n) => u64::from(n),
            Count::Raw(n) => n,
            Count::Max => u64::MAX,
        }
    }
}

/// A sequence number, often near the previous one of the same scope or near the wrap.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum SeqSpec {
    /// Any.
    Raw(u32),
    /// The last one sent for the scope plus a small (signed) delta.
    Delta(i16),
    /// 0.
    Zero,
    /// `u32::MAX - n`.
    Top(u16),
    /// A small number.
    Bottom(u16),
}

/// OCI Flags as sent.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum FlagsSpec {
    /// Absent (AOCI=0).
    Absent,
    /// AOCI=1.
    Aoci,
    /// Any octet.
    Raw(u8),
}

/// A float configuration field: the default, an ordinary value, or any bit pattern (NaN,
/// infinities, negatives, subnormals).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum FloatSpec {
    /// The field's default.
    Default,
    /// `n / 100`.
    Hundredths(u16),
    /// Any `f64`.
    Raw(f64),
}

impl FloatSpec {
    fn get(self, default: f64) -> f64 {
        match self {
            FloatSpec::Default => default,
            FloatSpec::Hundredths(n) => f64::from(n) / 100.0,
            FloatSpec::Raw(x) => x,
        }
    }
}

/// A message type: mostly one that may carry OCI/LCI (51, 53, 55, 56), else any known one,
/// else any octet.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum TypeSpec {
    /// One of 51, 53, 55, 56.
    Carrier(u8),
    /// A type Release 18 defines.
    Known(u8),
    /// Any octet.
    Raw(u8),
}

impl TypeSpec {
    fn get(self) -> MessageType {
        match self {
            TypeSpec::Carrier(i) => MessageType([51, 53, 55, 56][usize::from(i) % 4]),
            TypeSpec::Known(i) => MessageType::ALL[usize::from(i) % MessageType::ALL.len()],
            TypeSpec::Raw(t) => MessageType(t),
        }
    }
}

/// A Cause value.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum CauseSpec {
    /// Request accepted (1).
    Accepted,
    /// A rejection (64..=255).
    Rejected(u8),
    /// Any octet.
    Raw(u8),
}

impl CauseSpec {
    fn get(self) -> Cause {
        match self {
            CauseSpec::Accepted => Cause::REQUEST_ACCEPTED,
            CauseSpec::Rejected(c) => Cause(64 + c % 192),
            CauseSpec::Raw(c) => Cause(c),
        }
    }
}

/// How the UP's reporter allocates sequence numbers.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum SeqModeSpec {
    /// A counter from the given value.
    Counter(u32),
    /// Epoch seconds, the epoch `back` seconds before the base instant.
    Epoch {
        /// Seconds before the base instant.
        back: u32,
        /// The number at the epoch.
        offset: u32,
    },
}

/// The OverloadReporter's configuration (every field, any value).
#[derive(Arbitrary, Debug, Clone)]
pub struct ReporterSpec {
    interval: DurSpec,
    /// `None`: learned.
    capacity: Option<FloatSpec>,
    target_utilisation: FloatSpec,
    backlog_target: FloatSpec,
    drain_intervals: FloatSpec,
    feedback_delay: usize,
    step: u8,
    max_metric: u8,
    dwell: usize,
    validity: DurSpec,
    refresh_before: DurSpec,
    sequence: SeqModeSpec,
    every_message: bool,
    node_scoped: bool,
    /// `None`: the default; else `n % 6`.
    max_peers: Option<u8>,
    /// The control law: `n % 3` of adaptive, feed-forward, utilisation.
    law: u8,
}

/// One thing that happens.
#[derive(Arbitrary, Debug, Clone)]
pub enum Event {
    /// The clock moves.
    Advance(Step),
    /// CP: an OCI from origin `origin` (node x entity).
    Oci {
        /// Index into the origins.
        origin: u8,
        /// Overload Control Sequence Number.
        seq: SeqSpec,
        /// Metric octet.
        metric: u8,
        /// Timer octet (Period of Validity).
        timer: u8,
        /// OCI Flags.
        flags: FlagsSpec,
    },
    /// CP: a well-formed PFCP message carrying an OCI and/or LCI, through decode and
    /// `handle_message` of both tables.
    Built {
        /// Index into the origins (node, and entity or none).
        origin: u8,
        /// Message type.
        message_type: TypeSpec,
        /// OCI: sequence, metric, timer, flags.
        oci: Option<(u32, u8, u8, FlagsSpec)>,
        /// LCI: sequence, metric.
        lci: Option<(u32, u8)>,
        /// UP F-SEID IPv4 address (last octet) and IPv6 flag.
        fseid: Option<(u8, bool)>,
    },
    /// CP: raw bytes through decode and `handle_message` of both tables.
    Raw {
        /// Index into the origins.
        origin: u8,
        /// The UDP payload.
        bytes: Vec<u8>,
    },
    /// CP: `handle_timeout(now)`.
    Timeout,
    /// CP: advance to the table's `poll_timeout` (if later) and handle it.
    TimeoutAtPoll,
    /// CP: the peer restarted or re-associated.
    Reset(u8),
    /// CP: reduction query at `now + ahead` (no timeout processed in between).
    Reduction {
        /// Index into the entities (or none).
        entity: u8,
        /// Index into the nodes.
        node: u8,
        /// How far ahead of `now`.
        ahead: Step,
    },
    /// CP: drain up to `n` events (255: all).
    Drain(u8),
    /// CP: an LCI from a node.
    Lci {
        /// Index into the nodes.
        node: u8,
        /// Load Control Sequence Number.
        seq: SeqSpec,
        /// Metric octet.
        metric: u8,
    },
    /// CP: forget a node's load.
    LoadReset(u8),
    /// CP: pick a UP for a new session.
    Select {
        /// (node index, weight) per candidate.
        candidates: Vec<(u8, u32)>,
        /// The caller's random draw.
        draw: u64,
    },
    /// UP: one interval's measurement.
    Measure {
        /// Requests arrived.
        arrived: Count,
        /// Requests served.
        served: Count,
        /// Backlog.
        backlog: Count,
    },
    /// UP: `handle_timeout(now)` of the reporter.
    ReporterTimeout,
    /// UP: advance to the reporter's `poll_timeout` (if later) and handle it.
    ReporterTimeoutAtPoll,
    /// UP: the OCI for 1 to 3 messages to a peer.
    OciFor {
        /// Peer id.
        peer: u8,
        /// Messages, mod 3, plus 1.
        repeat: u8,
        /// Message type.
        message_type: TypeSpec,
        /// Cause, for responses.
        cause: Option<CauseSpec>,
    },
    /// UP: what a peer advertised (OVRL).
    SetOvrl {
        /// Peer id.
        peer: u8,
        /// OVRL.
        ovrl: bool,
    },
    /// UP: association released (the mirror CP resets the peer too).
    RemovePeer(u8),
    /// UP: the current utilisation for load control.
    Utilisation(FloatSpec),
    /// UP: the LCI for 1 to 3 messages to a peer.
    LciFor {
        /// Peer id.
        peer: u8,
        /// Messages, mod 3, plus 1.
        repeat: u8,
        /// Message type.
        message_type: TypeSpec,
    },
    /// UP: what a peer advertised (LOAD).
    SetLoad {
        /// Peer id.
        peer: u8,
        /// LOAD.
        load: bool,
    },
    /// UP: association released, for load control.
    LoadRemovePeer(u8),
}

/// A whole run: configurations, then events.
#[derive(Arbitrary, Debug, Clone)]
pub struct Scenario {
    max_entries: u8,
    wrap_window: SeqSpec,
    max_events: u8,
    load_max_entries: u8,
    load_max_age: Option<DurSpec>,
    unknown_load: u8,
    avoid_reduction: u8,
    reporter: ReporterSpec,
    /// Peers 0..=3 that advertise OVRL from the start (bit mask).
    ovrl_peers: u8,
    /// Peers 0..=3 that advertise LOAD from the start (bit mask).
    load_peers: u8,
    load_step: u8,
    load_first_sequence: u32,
    /// `None`: the default; else `n % 6`.
    load_max_peers: Option<u8>,
    events: Vec<Event>,
}

// ---------------------------------------------------------------------------------------------
// The CP side

fn nodes() -> [NodeKey; 4] {
    [
        NodeKey::Ip(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))),
        NodeKey::fqdn("upf1.example.net"),
        // The same FQDN as configured with another case and a trailing dot: the same key.
        NodeKey::fqdn("UPF2.Example.NET."),
        NodeKey::Ip(IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1))),
    ]
}

fn entities() -> [Option<IpAddr>; 4] {
    [
        None,
        Some(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1))),
        Some(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2))),
        Some(IpAddr::V6(Ipv6Addr::new(
            0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x11,
        ))),
    ]
}

fn pick<T: Clone, const N: usize>(items: &[T; N], i: u8) -> T {
    items[usize::from(i) % N].clone()
}

fn origin(i: u8) -> OciOrigin {
    OciOrigin::new(pick(&nodes(), i & 0x0f), pick(&entities(), i >> 4))
}

fn flags(f: FlagsSpec) -> Option<OciFlags> {
    match f {
        FlagsSpec::Absent => None,
        FlagsSpec::Aoci => Some(OciFlags::AOCI),
        FlagsSpec::Raw(b) => Some(OciFlags(b)),
    }
}

struct Cp {
    table: OverloadTable,
    max_entries: usize,
    window: u32,
    max_events: usize,
    loads: LoadTable,
    load_max_entries: usize,
    selector: UpSelector,
    /// Every scope the table may hold (the origins' and those learned from outcomes).
    tracked: BTreeSet<Scope>,
    /// The stored (seq, expiry) of each scope after the previous event.
    prev: BTreeMap<Scope, (u32, Option<Instant>)>,
    /// The node of the origin that last wrote each entity scope.
    writer: BTreeMap<IpAddr, NodeKey>,
    /// The last sequence number sent per scope (for `SeqSpec::Delta`).
    last_seq: BTreeMap<Scope, u32>,
    /// The last LCI sequence number sent per node.
    last_lci: BTreeMap<NodeKey, u32>,
    /// The sequence number last applied per scope (an `Expired` refusal names it).
    applied: BTreeMap<Scope, u32>,
    dropped: u64,
}

impl Cp {
    fn new(s: &Scenario) -> Cp {
        let max_entries = usize::from(s.max_entries % 6);
        let window = match s.wrap_window {
            SeqSpec::Delta(_) => DEFAULT_WRAP_WINDOW,
            other => seq_value(other, 0),
        };
        let max_events = usize::from(s.max_events % 9);
        let load_max_entries = usize::from(s.load_max_entries % 5);
        let mut tracked = BTreeSet::new();
        for n in nodes() {
            tracked.insert(Scope::Node(n));
        }
        for ip in entities().into_iter().flatten() {
            tracked.insert(Scope::Entity(ip));
        }
        Cp {
            table: OverloadTable::new(
                OverloadConfig::default()
                    .with_max_entries(max_entries)
                    .with_wrap_window(window)
                    .with_max_events(max_events),
            ),
            max_entries,
            window,
            max_events,
            loads: LoadTable::new(
                LoadConfig::default()
                    .with_max_entries(load_max_entries)
                    .with_wrap_window(window)
                    .with_max_age(s.load_max_age.map(DurSpec::get)),
            ),
            load_max_entries,
            // The spare offset comes from a field already in the input (a new field would
            // shift the corpus): offsets 0..=31 all occur.
            selector: UpSelector {
                unknown_load: s.unknown_load,
                avoid_reduction: s.avoid_reduction,
                ..UpSelector::default()
            }
            .with_spare_offset(s.unknown_load % 32),
            tracked,
            prev: BTreeMap::new(),
            writer: BTreeMap::new(),
            last_seq: BTreeMap::new(),
            last_lci: BTreeMap::new(),
            applied: BTreeMap::new(),
            dropped: 0,
        }
    }

    fn oci(&mut self, origin: &OciOrigin, oci: &OverloadControlInformation, now: Instant) {
        let scope = origin.scope(oci.aoci());
        let before = self.table.get(&scope);
        let len_before = self.table.len();
        let outcome = self.table.handle_oci(origin, oci, now);
        self.last_seq.insert(scope.clone(), oci.sequence_number.0);
        self.check_outcome(&outcome, Some(&scope), oci, origin, before, len_before, now);
    }

    #[allow(clippy::too_many_arguments)]
    fn check_outcome(
        &mut self,
        outcome: &OciOutcome,
        expected_scope: Option<&Scope>,
        oci: &OverloadControlInformation,
        origin: &OciOrigin,
        before: Option<ScopeState>,
        len_before: usize,
        now: Instant,
    ) {
        let seq = oci.sequence_number.0;
        match outcome {
            OciOutcome::Applied {
                scope,
                metric,
                expires,
            } => {
                if let Some(s) = expected_scope {
                    assert_eq!(scope, s, "applied to another scope");
                }
                self.tracked.insert(scope.clone());
                self.applied.insert(scope.clone(), seq);
                assert_eq!(*metric, oci.metric.percent(), "applied metric");
                assert!(*metric <= 100);
                let want = oci
                    .period_of_validity
                    .duration()
                    .map(|d| now.checked_add(d).unwrap_or(now));
                assert_eq!(*expires, want, "applied expiry");
                if let Some(ScopeState {
                    sequence_number: stored,
                    expires: exp,
                    ..
                }) = before
                {
                    if exp.is_none_or(|t| t > now) {
                        assert!(
                            compare(stored, seq, self.window).is_newer(),
                            "replaced a valid entry (seq {stored}) with seq {seq}"
                        );
                    }
                }
                let got = self.table.get(scope);
                if expires.is_some_and(|t| t <= now) {
                    assert_eq!(got, None, "an OCI expired on arrival is still stored");
                } else {
                    assert_eq!(
                        got.map(|g| (g.sequence_number, g.metric, g.expires)),
                        Some((seq, *metric, *expires)),
                        "stored state"
                    );
                    if let Scope::Entity(ip) = scope {
                        self.writer.insert(*ip, origin.node.clone());
                    }
                }
            }
            OciOutcome::Ignored { scope, reason } => {
                if let (Some(s), Some(e)) = (scope, expected_scope) {
                    assert_eq!(s, e, "ignored for another scope");
                }
                if let Some(s) = scope {
                    self.tracked.insert(s.clone());
                }
                match reason {
                    IgnoreReason::Duplicate => {
                        let b = before.expect("duplicate of nothing");
                        let (stored, exp) = (b.sequence_number, b.expires);
                        assert_eq!(stored, seq);
                        assert!(exp.is_none_or(|t| t > now), "duplicate of an expired entry");
                    }
                    IgnoreReason::Stale { stored, received } => {
                        assert_eq!(*received, seq);
                        let b = before.expect("stale against nothing");
                        let (s, exp) = (b.sequence_number, b.expires);
                        assert_eq!(s, *stored);
                        assert!(
                            exp.is_none_or(|t| t > now),
                            "stale against an expired entry"
                        );
                        assert_eq!(compare(*stored, seq, self.window), SequenceOrder::Older);
                    }
                    IgnoreReason::TableFull => {
                        assert!(len_before >= self.max_entries, "full below max_entries");
                        assert_eq!(
                            self.table.poll_timeout(),
                            None,
                            "refused an OCI while an entry could be evicted"
                        );
                    }
                    IgnoreReason::Expired => {
                        // Only the number last applied to the scope, once its validity ended.
                        let s = scope.as_ref().expect("expired without a scope");
                        assert_eq!(
                            self.applied.get(s),
                            Some(&seq),
                            "expired a number never applied"
                        );
                        if let Some(exp) = before.map(|b| b.expires) {
                            assert!(exp.is_some_and(|t| t <= now), "expired while valid");
                        }
                    }
                    IgnoreReason::Malformed(_) | IgnoreReason::UnexpectedMessage => {
                        panic!("a decoded OCI cannot be malformed or misplaced: {reason:?}")
                    }
                    other => panic!("unknown reason {other:?}"),
                }
                // Nothing changed for the scope.
                if let Some(s) = scope {
                    assert_eq!(self.table.get(s), before, "an ignored OCI changed state");
                }
            }
        }
    }

    /// A message through both tables.
    fn message(&mut self, origin: &OciOrigin, bytes: &[u8], now: Instant) {
        let Ok(msg) = Message::decode(bytes) else {
            return;
        };
        let oci = msg.overload_control_information();
        if let Ok(Some(oci)) = oci {
            // What handle_message will do: the scope from the origin or the UP F-SEID.
            let mut o = origin.clone();
            if o.entity.is_none() {
                if let Ok(Some(f)) = msg.f_seid() {
                    o.entity = f.ipv4.map(IpAddr::V4).or(f.ipv6.map(IpAddr::V6));
                }
            }
            let scope = o.scope(oci.aoci());
            let before = self.table.get(&scope);
            let len_before = self.table.len();
            let got = self.table.handle_message(origin, &msg, now);
            let outcome = got.expect("a message with an OCI has an outcome");
            if msg.message_type().may_carry_oci() {
                self.tracked.insert(scope.clone());
                self.check_outcome(&outcome, Some(&scope), &oci, &o, before, len_before, now);
            } else {
                assert_eq!(
                    outcome,
                    OciOutcome::Ignored {
                        scope: None,
                        reason: IgnoreReason::UnexpectedMessage
                    }
                );
            }
        } else {
            let got = self.table.handle_message(origin, &msg, now);
            match (&oci, got) {
                (Ok(None), None) => {}
                (Ok(None), Some(o)) => panic!("an outcome for a message without OCI: {o:?}"),
                (
                    Err(_),
                    Some(OciOutcome::Ignored {
                        scope: None,
                        reason,
                    }),
                ) => assert!(
                    matches!(
                        reason,
                        IgnoreReason::Malformed(_) | IgnoreReason::UnexpectedMessage
                    ),
                    "{reason:?}"
                ),
                (Err(e), other) => panic!("malformed OCI ({e}) gave {other:?}"),
                (Ok(Some(_)), _) => unreachable!(),
            }
        }
        let lci = msg.load_control_information();
        let before = self.loads.load(&origin.node, now);
        let got = self.loads.handle_message(&origin.node, &msg, now);
        match (lci, got) {
            (Ok(None), None) => {}
            (Ok(Some(l)), Some(out)) => {
                if msg.message_type().may_carry_oci() {
                    self.check_lci(&origin.node, &l, &out, before, now);
                } else {
                    assert_eq!(out, LciOutcome::UnexpectedMessage);
                }
            }
            (Err(_), Some(LciOutcome::Malformed(_) | LciOutcome::UnexpectedMessage)) => {}
            (lci, got) => panic!("LCI {lci:?} gave {got:?}"),
        }
        self.check_loads();
    }

    fn lci(&mut self, node: &NodeKey, lci: &LoadControlInformation, now: Instant) {
        let before = self.loads.load(node, now);
        let out = self.loads.handle_lci(node, lci, now);
        self.last_lci.insert(node.clone(), lci.sequence_number.0);
        self.check_lci(node, lci, &out, before, now);
        self.check_loads();
    }

    fn check_lci(
        &self,
        node: &NodeKey,
        lci: &LoadControlInformation,
        out: &LciOutcome,
        before: Option<u8>,
        now: Instant,
    ) {
        match out {
            LciOutcome::Applied { load } => {
                assert_eq!(*load, lci.metric.percent());
                if self.load_max_entries > 0 {
                    assert_eq!(self.loads.load(node, now), Some(*load), "LCI not stored");
                }
            }
            LciOutcome::Duplicate | LciOutcome::Stale => {
                assert_eq!(self.loads.load(node, now), before, "ignored LCI changed");
            }
            other => panic!("decoded LCI gave {other:?}"),
        }
    }

    fn check_loads(&self) {
        let n = self.loads.len();
        assert!(n <= self.load_max_entries, "load table over max");
        assert_eq!(self.loads.is_empty(), n == 0);
    }

    fn seq(&self, scope: &Scope, spec: SeqSpec) -> u32 {
        seq_value(spec, self.last_seq.get(scope).copied().unwrap_or(0))
    }

    fn expected_reduction(&self, entity: Option<IpAddr>, node: &NodeKey, q: Instant) -> u8 {
        let at = |s: Scope| {
            self.table
                .get(&s)
                .filter(|e| e.expires.is_none_or(|t| t > q))
                .map_or(0, |e| e.metric)
        };
        at(Scope::Node(node.clone())).max(entity.map_or(0, |ip| at(Scope::Entity(ip))))
    }

    fn check_reductions(&self, q: Instant) {
        for node in nodes() {
            for entity in entities() {
                assert_eq!(
                    self.table.reduction(entity, &node, q),
                    self.expected_reduction(entity, &node, q),
                    "reduction({entity:?}, {node}) disagrees with the stored entries"
                );
            }
        }
    }

    /// The invariants that hold after every event (`now`: the instant of the event).
    fn check(&mut self, now: Instant) {
        let len = self.table.len();
        assert!(
            len <= self.max_entries,
            "{len} entries, max {}",
            self.max_entries
        );
        assert_eq!(self.table.is_empty(), len == 0);
        let mut present = 0;
        let mut earliest: Option<Instant> = None;
        let mut next = BTreeMap::new();
        for scope in &self.tracked {
            let Some(ScopeState {
                sequence_number: seq,
                metric,
                expires: exp,
                ..
            }) = self.table.get(scope)
            else {
                continue;
            };
            present += 1;
            assert!(metric <= 100, "stored metric {metric}");
            if let Some(t) = exp {
                earliest = Some(earliest.map_or(t, |e| e.min(t)));
            }
            if let Some(&(ps, pexp)) = self.prev.get(scope) {
                // A stored number goes backwards only if the stored entry had expired (it
                // would otherwise have been removed: that, reset and eviction show up as an
                // absent entry in between).
                let expired = pexp.is_some_and(|t| t <= now);
                assert!(
                    ps == seq || expired || compare(ps, seq, self.window).is_newer(),
                    "{scope}: stored seq went from {ps} to {seq} (window {})",
                    self.window
                );
            }
            next.insert(scope.clone(), (seq, exp));
        }
        assert_eq!(present, len, "entries outside the tracked scopes");
        assert_eq!(
            self.table.poll_timeout(),
            earliest,
            "poll_timeout is not the earliest expiry"
        );
        self.prev = next;
        let dropped = self.table.events_dropped();
        assert!(dropped >= self.dropped, "events_dropped went down");
        self.dropped = dropped;
        self.check_reductions(now);
    }

    fn after_timeout(&self, t: Instant) {
        for scope in &self.tracked {
            if let Some(exp) = self.table.get(scope).and_then(|e| e.expires) {
                assert!(
                    exp > t,
                    "{scope} expired at {exp:?} survives handle_timeout"
                );
            }
        }
        assert!(self.table.poll_timeout().is_none_or(|p| p > t));
    }

    fn reset(&mut self, node: &NodeKey) {
        self.table.reset_peer(node);
        assert_eq!(self.table.get(&Scope::Node(node.clone())), None);
        for (ip, w) in &self.writer {
            if w == node {
                assert_eq!(
                    self.table.get(&Scope::Entity(*ip)),
                    None,
                    "entity {ip} of {node} survives reset_peer"
                );
            }
        }
        // Reset is the last event queued unless the queue keeps nothing.
        if self.max_events > 0 {
            let mut last = None;
            while let Some(e) = self.table.poll_event() {
                last = Some(e);
            }
            assert_eq!(last, Some(OverloadEvent::Reset(node.clone())));
        }
    }

    fn drain(&mut self, n: u8) {
        let mut got = 0usize;
        while n == u8::MAX || got < usize::from(n) {
            let Some(e) = self.table.poll_event() else {
                break;
            };
            got += 1;
            let _ = format!("{e:?}");
        }
        assert!(
            got <= self.max_events,
            "{got} events queued, max {}",
            self.max_events
        );
    }

    fn select(&self, candidates: &[(u8, u32)], draw: u64, now: Instant) {
        let cands: Vec<Candidate> = candidates
            .iter()
            .take(8)
            .map(|&(n, weight)| Candidate {
                node: pick(&nodes(), n),
                weight,
            })
            .collect();
        let sel = &self.selector;
        let got = sel.select(&cands, &self.loads, &self.table, now, draw);
        assert_eq!(
            got,
            sel.select(&cands, &self.loads, &self.table, now, draw),
            "select is not deterministic"
        );
        let reduction = |c: &Candidate| self.table.reduction(None, &c.node, now);
        let any_ok = cands
            .iter()
            .any(|c| c.weight > 0 && reduction(c) < sel.avoid_reduction);
        let scores: Vec<u64> = cands
            .iter()
            .map(|c| {
                if any_ok && reduction(c) >= sel.avoid_reduction {
                    0
                } else {
                    sel.score(c, self.loads.load(&c.node, now), reduction(c))
                }
            })
            .collect();
        let weights: u64 = cands.iter().map(|c| u64::from(c.weight)).sum();
        match got {
            None => assert_eq!(weights, 0, "nothing selected among weighted candidates"),
            Some(i) => {
                assert!(i < cands.len());
                assert!(cands[i].weight > 0, "selected a weight-0 candidate");
                if scores.iter().sum::<u64>() > 0 {
                    assert!(scores[i] > 0, "selected a candidate with score 0");
                }
            }
        }
    }
}

fn seq_value(spec: SeqSpec, last: u32) -> u32 {
    match spec {
        SeqSpec::Raw(n) => n,
        SeqSpec::Delta(d) => last.wrapping_add_signed(i32::from(d)),
        SeqSpec::Zero => 0,
        SeqSpec::Top(n) => u32::MAX - u32::from(n),
        SeqSpec::Bottom(n) => u32::from(n),
    }
}

/// A PFCP message (node or session header) with the given IEs: Cause, F-SEID, OCI, LCI.
fn build_message(
    message_type: u8,
    oci: Option<&OverloadControlInformation>,
    lci: Option<&LoadControlInformation>,
    fseid: Option<(u8, bool)>,
) -> Vec<u8> {
    let mut body = Vec::new();
    // Cause: Request accepted.
    body.extend_from_slice(&[0x00, 0x13, 0x00, 0x01, 0x01]);
    if let Some((v4, v6)) = fseid {
        let mut v = vec![if v6 { 0x03 } else { 0x02 }];
        v.extend_from_slice(&0x1234_5678_9abc_def0u64.to_be_bytes());
        v.extend_from_slice(&[198, 51, 100, v4]);
        if v6 {
            v.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, v4]);
        }
        body.extend_from_slice(&[0x00, 0x39]);
        body.extend_from_slice(&(v.len() as u16).to_be_bytes());
        body.extend_from_slice(&v);
    }
    if let Some(o) = oci {
        o.encode(&mut body).expect("OCI encodes");
    }
    if let Some(l) = lci {
        l.encode(&mut body).expect("LCI encodes");
    }
    let session = message_type >= 50;
    let header_len = if session { 16 } else { 8 };
    let mut m = vec![if session { 0x21 } else { 0x20 }, message_type];
    m.extend_from_slice(&((header_len - 4 + body.len()) as u16).to_be_bytes());
    if session {
        m.extend_from_slice(&1u64.to_be_bytes());
    }
    m.extend_from_slice(&[0, 0, 7, 0]);
    m.extend_from_slice(&body);
    m
}

// ---------------------------------------------------------------------------------------------
// The UP side

fn max_peers(spec: Option<u8>) -> usize {
    spec.map_or(ReporterConfig::default().max_peers, |n| usize::from(n % 6))
}

fn peer_node(p: u8) -> NodeKey {
    NodeKey::Ip(IpAddr::V4(Ipv4Addr::new(10, 1, 0, p)))
}

fn peer_origin(p: u8) -> OciOrigin {
    OciOrigin::new(peer_node(p), Some(IpAddr::V4(Ipv4Addr::new(10, 2, 0, p))))
}

/// Encode, frame, decode: the value must come back equal, in exactly `encoded_len` octets.
fn roundtrip<T>(v: &T) -> T
where
    T: Encode + for<'a> TypedIe<'a> + PartialEq + std::fmt::Debug,
{
    let mut out = Vec::new();
    v.encode(&mut out).expect("emitted IE encodes");
    assert_eq!(out.len(), v.encoded_len(), "encoded_len");
    let mut it = IeIter::new(&out, 0);
    let ie = it.next().expect("one IE").expect("emitted IE frames");
    assert!(it.next().is_none(), "one IE encodes as two");
    let back = ie.decode_as::<T>().expect("emitted IE decodes");
    assert_eq!(&back, v, "decode(encode(v)) != v");
    back
}

/// The control law a spec's `law` octet names.
fn law(n: u8) -> ControlLaw {
    match n % 3 {
        0 => ControlLaw::Adaptive,
        1 => ControlLaw::FeedForward,
        _ => ControlLaw::Utilisation,
    }
}

struct Up {
    rep: OverloadReporter<u8>,
    /// The publishing step, for the feed-forward law (the others publish relative changes).
    step: Option<u8>,
    max_metric: u8,
    validity: Duration,
    node_scoped: bool,
    counter: bool,
    max_peers: usize,
    /// Peers in the reporter's table, with their OVRL.
    peers: BTreeMap<u8, bool>,
    published: bool,
    /// The CP the peers would be: fed every OCI sent to them.
    mirror: OverloadTable,
    lrep: LoadReporter<u8>,
    load_step: u8,
    lmax_peers: usize,
    lpeers: BTreeMap<u8, bool>,
    lmirror: LoadTable,
}

impl Up {
    fn new(s: &Scenario, base: Instant) -> Up {
        let r = &s.reporter;
        let sequence = match r.sequence {
            SeqModeSpec::Counter(n) => SequenceMode::Counter(n),
            SeqModeSpec::Epoch { back, offset } => SequenceMode::EpochSeconds {
                epoch: base
                    .checked_sub(Duration::from_secs(u64::from(back)))
                    .unwrap_or(base),
                offset,
            },
        };
        let config = ReporterConfig::default()
            .with_interval(r.interval.get())
            .with_capacity(r.capacity.map(|c| c.get(100.0)))
            .with_target_utilisation(r.target_utilisation.get(1.0))
            .with_backlog_target(r.backlog_target.get(0.0))
            .with_drain_intervals(r.drain_intervals.get(5.0))
            .with_feedback_delay(r.feedback_delay)
            .with_step(r.step)
            .with_max_metric(r.max_metric)
            .with_dwell(r.dwell)
            .with_validity(r.validity.get())
            .with_refresh_before(r.refresh_before.get())
            .with_sequence(sequence)
            .with_inclusion(if r.every_message {
                InclusionPolicy::EveryMessage
            } else {
                InclusionPolicy::UntilCurrent
            })
            .with_node_scoped(r.node_scoped)
            .with_max_peers(max_peers(r.max_peers))
            .with_law(law(r.law));
        Up {
            rep: OverloadReporter::new(config),
            step: (law(r.law) == ControlLaw::FeedForward).then_some(r.step.max(1)),
            max_metric: r.max_metric.min(100),
            validity: r.validity.get(),
            node_scoped: r.node_scoped,
            counter: matches!(r.sequence, SeqModeSpec::Counter(_)),
            max_peers: max_peers(r.max_peers),
            peers: BTreeMap::new(),
            published: false,
            mirror: OverloadTable::default(),
            lrep: LoadReporter::new(
                LoadReporterConfig::default()
                    .with_step(s.load_step)
                    .with_first_sequence(s.load_first_sequence)
                    .with_max_peers(max_peers(s.load_max_peers)),
            ),
            load_step: s.load_step.max(1),
            lmax_peers: max_peers(s.load_max_peers),
            lpeers: BTreeMap::new(),
            lmirror: LoadTable::default(),
        }
    }

    fn check_metric(&self) {
        let m = self.rep.metric();
        assert!(
            m <= self.max_metric,
            "metric {m} above max_metric {}",
            self.max_metric
        );
        match self.step {
            Some(step) => assert_eq!(m % step, 0, "metric {m} not a multiple of step {step}"),
            // A metric of 100 would admit nothing: the other laws stop at 99.
            None => assert!(m <= 99, "metric {m} above 99"),
        }
    }

    /// A publication happened (or not): check the sequence number moved as it must.
    fn check_sequence(&self, before: u32, published: bool, first: bool) {
        let after = self.rep.sequence_number();
        if !published {
            assert_eq!(
                after, before,
                "sequence number changed without a publication"
            );
        } else if !first {
            if self.counter {
                assert_eq!(after, before.wrapping_add(1), "counter sequence");
            } else {
                let d = after.wrapping_sub(before);
                assert!(
                    (1..=u32::MAX / 2).contains(&d),
                    "epoch sequence not increasing: {before} -> {after}"
                );
            }
        }
    }

    fn measure(&mut self, m: &Measurement, now: Instant) {
        let (seq, metric) = (self.rep.sequence_number(), self.rep.metric());
        let got = self.rep.handle_measurement(m, now);
        match got {
            Some(v) => {
                assert_eq!(
                    v,
                    self.rep.metric(),
                    "returned metric is not the published one"
                );
                assert_ne!(v, metric, "a publication that changes nothing");
            }
            None => assert_eq!(self.rep.metric(), metric, "metric changed silently"),
        }
        self.check_sequence(seq, got.is_some(), !self.published);
        self.published |= got.is_some();
        self.check_metric();
    }

    fn timeout(&mut self, now: Instant) {
        let (seq, metric) = (self.rep.sequence_number(), self.rep.metric());
        let due = self.rep.poll_timeout().is_some_and(|t| t <= now);
        self.rep.handle_timeout(now);
        assert_eq!(self.rep.metric(), metric, "a refresh changed the metric");
        self.check_sequence(seq, due, false);
        assert!(
            self.rep.poll_timeout().is_none_or(|t| t > now),
            "reporter timer still due right after handle_timeout({now:?}): {:?}",
            self.rep.poll_timeout()
        );
        self.check_metric();
    }

    fn set_ovrl(&mut self, peer: u8, ovrl: bool) {
        self.rep.set_peer_ovrl(peer, ovrl);
        if self.peers.contains_key(&peer) || self.peers.len() < self.max_peers {
            self.peers.insert(peer, ovrl);
        }
    }

    fn remove(&mut self, peer: u8) {
        self.rep.remove_peer(&peer);
        self.peers.remove(&peer);
        self.mirror.reset_peer(&peer_node(peer));
        while self.mirror.poll_event().is_some() {}
    }

    fn oci_for(&mut self, peer: u8, mt: MessageType, cause: Option<Cause>, now: Instant) {
        let rejected_establishment = mt == MessageType::SESSION_ESTABLISHMENT_RESPONSE
            && cause.is_some_and(|c| c.is_acceptance() == Some(false));
        let eligible = mt.may_carry_oci() && self.published && self.peers.get(&peer) == Some(&true);
        let got = self.rep.oci_for(&peer, mt, cause, now);
        let Some(oci) = got else {
            // Nothing more to say to this peer: it must not hold a higher reduction than the
            // one published (a stuck node- or entity-scoped overload).
            if eligible && self.counter && !rejected_establishment {
                let o = peer_origin(peer);
                let r = self.mirror.reduction(o.entity, &o.node, now);
                assert!(
                    r <= self.rep.metric(),
                    "peer {peer} keeps reduction {r} while {} is published and nothing is sent",
                    self.rep.metric()
                );
            }
            return;
        };
        assert!(eligible, "OCI for an ineligible message or peer");
        assert_eq!(oci.sequence_number.0, self.rep.sequence_number());
        assert_eq!(oci.metric.raw(), self.rep.metric());
        assert_eq!(
            oci.period_of_validity,
            Timer::from_duration(self.validity).unwrap_or(Timer::INFINITE)
        );
        if self.node_scoped || rejected_establishment {
            assert!(oci.aoci(), "AOCI missing");
        }
        assert!(oci.flags.is_none_or(|f| f == OciFlags::AOCI));
        let back = roundtrip(&oci);
        let outcome = self.mirror.handle_oci(&peer_origin(peer), &back, now);
        while self.mirror.poll_event().is_some() {}
        if self.counter {
            assert!(
                !matches!(
                    outcome,
                    OciOutcome::Ignored {
                        reason: IgnoreReason::Stale { .. },
                        ..
                    }
                ),
                "the peer finds the reporter's OCI stale: {outcome:?}"
            );
        }
    }

    fn current(&self) {
        for aoci in [false, true] {
            match self.rep.current_oci(aoci) {
                Some(oci) => {
                    assert!(self.published);
                    assert_eq!(oci.aoci(), aoci);
                    roundtrip(&oci);
                }
                None => assert!(!self.published),
            }
        }
    }

    fn utilisation(&mut self, u: f64) {
        let before = self.lrep.load();
        let got = self.lrep.handle_utilisation(u);
        let after = self.lrep.load();
        match got {
            Some(v) => {
                assert_eq!(after, Some(v));
                assert!(v <= 100);
                if let Some(b) = before {
                    assert!(
                        b.abs_diff(v) >= self.load_step || (v == 0 && b != 0),
                        "published a change of {b} -> {v} under the step"
                    );
                }
            }
            None => assert_eq!(after, before),
        }
    }

    fn set_load(&mut self, peer: u8, load: bool) {
        self.lrep.set_peer_load(peer, load);
        if self.lpeers.contains_key(&peer) || self.lpeers.len() < self.lmax_peers {
            self.lpeers.insert(peer, load);
        }
    }

    fn lremove(&mut self, peer: u8) {
        self.lrep.remove_peer(&peer);
        self.lpeers.remove(&peer);
        self.lmirror.reset_peer(&peer_node(peer));
    }

    fn lci_for(&mut self, peer: u8, mt: MessageType, now: Instant) {
        let eligible = mt.may_carry_oci()
            && self.lrep.load().is_some()
            && self.lpeers.get(&peer) == Some(&true);
        match self.lrep.lci_for(&peer, mt) {
            Some(lci) => {
                assert!(eligible, "LCI for an ineligible message or peer");
                assert_eq!(Some(lci.metric.raw()), self.lrep.load());
                let back = roundtrip(&lci);
                let out = self.lmirror.handle_lci(&peer_node(peer), &back, now);
                assert_eq!(
                    out,
                    LciOutcome::Applied {
                        load: lci.metric.percent()
                    },
                    "the peer does not apply the reporter's LCI"
                );
            }
            None => {
                if eligible {
                    assert_eq!(
                        self.lmirror.load(&peer_node(peer), now),
                        self.lrep.load(),
                        "peer {peer} was not told the current load"
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The harness

/// Decode `data` into a [`Scenario`] and run it, checking every invariant after every event.
pub fn overload_events(data: &[u8]) {
    let Ok(scenario) = Scenario::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    run(&scenario);
}

/// Run a decoded scenario.
pub fn run(s: &Scenario) {
    let base = base_instant();
    let mut now = base;
    let mut cp = Cp::new(s);
    let mut up = Up::new(s, base);
    for peer in 0..4u8 {
        if s.ovrl_peers >> peer & 1 == 1 {
            up.set_ovrl(peer, true);
        }
        if s.load_peers >> peer & 1 == 1 {
            up.set_load(peer, true);
        }
    }
    for event in s.events.iter().take(MAX_EVENTS) {
        match event {
            Event::Advance(step) => now = now.checked_add(step.get()).unwrap_or(now),
            Event::Oci {
                origin: o,
                seq,
                metric,
                timer,
                flags: f,
            } => {
                let origin = origin(*o);
                let flags = flags(*f);
                let aoci = flags.is_some_and(|f| f.aoci());
                let seq = cp.seq(&origin.scope(aoci), *seq);
                let oci = OverloadControlInformation {
                    sequence_number: ControlSequenceNumber(seq),
                    metric: Metric::from_raw(*metric),
                    period_of_validity: Timer(*timer),
                    flags,
                };
                cp.oci(&origin, &oci, now);
            }
            Event::Built {
                origin: o,
                message_type,
                oci,
                lci,
                fseid,
            } => {
                let oci = oci.map(|(seq, metric, timer, f)| OverloadControlInformation {
                    sequence_number: ControlSequenceNumber(seq),
                    metric: Metric::from_raw(metric),
                    period_of_validity: Timer(timer),
                    flags: flags(f),
                });
                let lci = lci.map(|(seq, metric)| LoadControlInformation {
                    sequence_number: ControlSequenceNumber(seq),
                    metric: Metric::from_raw(metric),
                });
                let bytes = build_message(message_type.get().0, oci.as_ref(), lci.as_ref(), *fseid);
                let m = Message::decode(&bytes).expect("built message decodes");
                assert_eq!(m.overload_control_information(), Ok(oci));
                assert_eq!(m.load_control_information(), Ok(lci));
                cp.message(&origin(*o), &bytes, now);
            }
            Event::Raw { origin: o, bytes } => cp.message(&origin(*o), bytes, now),
            Event::Timeout => {
                cp.table.handle_timeout(now);
                cp.after_timeout(now);
            }
            Event::TimeoutAtPoll => {
                if let Some(t) = cp.table.poll_timeout() {
                    now = now.max(t);
                    cp.table.handle_timeout(now);
                    cp.after_timeout(now);
                }
            }
            Event::Reset(n) => cp.reset(&pick(&nodes(), *n)),
            Event::Reduction {
                entity,
                node,
                ahead,
            } => {
                let q = now.checked_add(ahead.get()).unwrap_or(now);
                let (e, n) = (pick(&entities(), *entity), pick(&nodes(), *node));
                assert_eq!(
                    cp.table.reduction(e, &n, q),
                    cp.expected_reduction(e, &n, q),
                    "reduction ahead of the timers"
                );
                cp.check_reductions(q);
            }
            Event::Drain(n) => cp.drain(*n),
            Event::Lci { node, seq, metric } => {
                let node = pick(&nodes(), *node);
                let last = cp.last_lci.get(&node).copied().unwrap_or(0);
                let lci = LoadControlInformation {
                    sequence_number: ControlSequenceNumber(seq_value(*seq, last)),
                    metric: Metric::from_raw(*metric),
                };
                cp.lci(&node, &lci, now);
            }
            Event::LoadReset(n) => {
                let node = pick(&nodes(), *n);
                cp.loads.reset_peer(&node);
                assert_eq!(cp.loads.load(&node, now), None);
            }
            Event::Select { candidates, draw } => cp.select(candidates, *draw, now),
            Event::Measure {
                arrived,
                served,
                backlog,
            } => {
                let m = Measurement {
                    arrived: arrived.get(),
                    served: served.get(),
                    backlog: backlog.get(),
                };
                up.measure(&m, now);
            }
            Event::ReporterTimeout => up.timeout(now),
            Event::ReporterTimeoutAtPoll => {
                if let Some(t) = up.rep.poll_timeout() {
                    now = now.max(t);
                }
                up.timeout(now);
            }
            Event::OciFor {
                peer,
                repeat,
                message_type,
                cause,
            } => {
                for _ in 0..=repeat % 3 {
                    up.oci_for(peer % 4, message_type.get(), cause.map(CauseSpec::get), now);
                }
            }
            Event::SetOvrl { peer, ovrl } => up.set_ovrl(peer % 4, *ovrl),
            Event::RemovePeer(p) => up.remove(p % 4),
            Event::Utilisation(u) => up.utilisation(u.get(0.5)),
            Event::LciFor {
                peer,
                repeat,
                message_type,
            } => {
                for _ in 0..=repeat % 3 {
                    up.lci_for(peer % 4, message_type.get(), now);
                }
            }
            Event::SetLoad { peer, load } => up.set_load(peer % 4, *load),
            Event::LoadRemovePeer(p) => up.lremove(p % 4),
        }
        cp.check(now);
        up.check_metric();
        up.current();
    }
}
