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
//! After every event the invariants are checked (see `Cp::check` in `overload/cp.rs` and
//! `Up::check_*` in `overload/up.rs`): bounded tables; stored sequence numbers never go
//! backwards except through expiry, reset, eviction or a jump back beyond the reset window
//! (`pfcp_overload::sequence::compare`); no entry outlives a `handle_timeout` at or after its
//! expiry and `reduction` ignores expired entries; `poll_timeout` is the earliest expiry and
//! lies after the instant just handled; the reporter's metric is a multiple of its step within
//! `max_metric`; everything emitted round-trips through the codec; the mirror never sees a
//! stale OCI/LCI from the reporter and, once the reporter has nothing more to say to a peer,
//! holds no reduction above the published one (and exactly the published load). Panics,
//! including arithmetic overflow (the fuzz build has debug assertions), are failures.
//!
//! Only `std`, `arbitrary`, `pfcp-wire` and `pfcp-overload`: the file compiles in the fuzz crate
//! and in pfcp-overload's integration tests alike.
//!
//! This file holds the input (the `arbitrary` types: their fields and variants, in this order,
//! are what the committed corpus and regressions decode to, so they stay as they are) and the
//! entry point; in `overload/`, `cp` and `up` model the two ends and check them, `driver` runs
//! the events.

#![forbid(unsafe_code)]

use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
#[cfg(doc)]
use pfcp_overload::{LoadReporter, LoadTable, OverloadReporter, OverloadTable, UpSelector};
use pfcp_wire::{Cause, MessageType};

// The children are named by path, relative to this file, so that they resolve the same way in
// the fuzz crate and where a crate's test includes this file with `#[path]` (a file loaded so
// looks for its children beside itself, not in `overload/`).
#[path = "overload/cp.rs"]
mod cp;
#[path = "overload/driver.rs"]
mod driver;
#[path = "overload/up.rs"]
mod up;

pub use driver::run;

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
    target_load: FloatSpec,
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
    /// The control law: `n % 3` of adaptive, feed-forward, utilisation; `ReporterConfig::dither`
    /// unless `n / 3` is odd (kept in this byte so that older inputs decode as before).
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
    /// UP: the reporter's count of sequence numbers starts again (a restart; the mirror CP
    /// learns of it and resets the peers).
    ReporterTimeout,
    /// UP: advance by the lead of the validity refresh (`validity - refresh_before`), so that
    /// what the peers hold is due for extension.
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
    reset_window: SeqSpec,
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

fn seq_value(spec: SeqSpec, last: u32) -> u32 {
    match spec {
        SeqSpec::Raw(n) => n,
        SeqSpec::Delta(d) => last.wrapping_add_signed(i32::from(d)),
        SeqSpec::Zero => 0,
        SeqSpec::Top(n) => u32::MAX - u32::from(n),
        SeqSpec::Bottom(n) => u32::from(n),
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
