//! The checks behind the `throttle` fuzz target, shared with
//! `crates/pfcp-throttle/tests/fuzz_corpus.rs` (which includes this file, `throttle_c2.rs`,
//! `throttle_egress.rs` and `throttle_loss.rs`, the Loss throttle's model, with `#[path]`).
//!
//! The input is decoded with `arbitrary` into a [`Scenario`] (or, after the [`FORMAT_V2`]
//! byte, a [`ScenarioV2`]; after the `FORMAT_V3` byte, the classifiers alone with the QCI /
//! 5QI inputs, `throttle_c2::ScenarioV3`): a configuration for each part of pfcp-throttle (any value of
//! every field) and a list of events that drive
//!
//! * a [`LossThrottle`] through `decide` (with and without a draw, requests and responses filtered as a node does) with any
//!   priority, exempt flag and message type, the reduction changing mid-way, and (second
//!   format) `unsent` after a request it let through;
//! * a [`Classifier`] with any table, on any context (ARP level lists, flags, DNN strings,
//!   S-NSSAIs, procedures) and (second format) any C.2 state, against a model of the
//!   documented table; the SWx table likewise; a `StateTracker` against a model of its
//!   events, its state merged with the caller's and classified (`throttle_c2.rs`);
//! * an `EgressThrottle` whose configuration must be refused exactly when it breaks a
//!   documented rule (checked against a model of the rules), and otherwise never panics under
//!   any time step (forwards and backwards), message kind, class (exempt, unprioritised) and,
//!   in the second format, the level-only mode and the two-step `check`/`commit`;
//!   `PeerThrottles` (Loss and egress together); configuration sets and the per-connection
//!   Max EMR against a model; the router priority mapping (`throttle_egress.rs`);
//! * a [`RouteList`] (refused exactly when the rules say) with any groups, weights, draws and
//!   admission patterns, and (second format) `forward` with any history.
//!
//! Invariants: responses/answers, retransmissions and management messages are never
//! throttled; reduction 0 never throttles and 100 sheds everything in random mode; the
//! throttled and unsent requests of a rank never outnumber the offered ones and the counters
//! match a shadow count exactly; window-exact
//! decisions follow the documented credit rule exactly; exempt requests are never throttled
//! with `never_throttle_exempt`; the boundary rank is respected (strict mode, random mode);
//! the egress level stays in 0..=levels, a level or pending refusal agrees with the state, an
//! exempt request is refused by the pending limit only, the cap never refuses in level-only
//! mode, the admitted non-exempt requests stay under the cap (`burst + max_rate x elapsed`),
//! a refused check counts nothing but itself, every message sent counts once in the rate,
//! `poll_timeout` lies after the instant just handled; a Loss refusal never reaches the
//! connection and an egress refusal is a drop for the Loss throttle; routing only returns a
//! peer its admission accepted, asks each peer at most once, refuses for the forwarding limit
//! only with no forwarding left, never asks a peer of the history again, exhausts a group
//! before the next and fails only for the documented reasons. Panics, including arithmetic
//! overflow, are failures.
//!
//! The first format is kept as it was, so that the committed corpus and regressions replay the
//! runs they were found with. Only `std`, `arbitrary`, `pfcp-wire` and `pfcp-throttle`: the
//! files compile in the fuzz crate and in pfcp-throttle's integration tests alike.
//!
//! This file holds the input (the `arbitrary` types: their fields and variants, in this order,
//! are what the committed corpus and regressions decode to, so they stay as they are) and the
//! entry point; in `throttle/`, `driver` runs the events and `routing` checks the route list.

#![forbid(unsafe_code)]

use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use pfcp_throttle::egress::MAX_WINDOW_TICKS;
#[cfg(doc)]
use pfcp_throttle::{Classifier, LossThrottle, RouteList};
use pfcp_throttle::{EgressConfig, LossConfig, ThresholdPair};
use pfcp_wire::MessagePriority;

use crate::throttle_c2::{
    ClassifierSpec, ContextSpec, ContextSpecV2, SwxRulesSpec, SwxSpec, TrackEvent, TrackerSpec,
};
use crate::throttle_egress::{EgressEvent, PeerEvent, SetsSpec};

// The children are named by path, relative to this file, so that they resolve the same way in
// the fuzz crate and where a crate's test includes this file with `#[path]` (a file loaded so
// looks for its children beside itself, not in `throttle/`).
#[path = "throttle/driver.rs"]
mod driver;
#[path = "throttle/routing.rs"]
mod routing;

pub use driver::{run, run_v2};

pub(crate) fn prio(p: u8) -> MessagePriority {
    MessagePriority::new(p % 16).expect("0..=15")
}

// ---------------------------------------------------------------------------------------------
// The input

/// A duration for configuration fields: the edges and ordinary values.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum DurSpec {
    /// `Duration::ZERO`.
    Zero,
    /// Nanoseconds.
    Nanos(u16),
    /// Milliseconds.
    Millis(u16),
    /// Seconds.
    Secs(u32),
    /// `Duration::MAX`.
    Max,
}

impl DurSpec {
    pub(crate) fn get(self) -> Duration {
        match self {
            DurSpec::Zero => Duration::ZERO,
            DurSpec::Nanos(n) => Duration::from_nanos(u64::from(n)),
            DurSpec::Millis(n) => Duration::from_millis(u64::from(n)),
            DurSpec::Secs(n) => Duration::from_secs(u64::from(n)),
            DurSpec::Max => Duration::MAX,
        }
    }
}

/// How far the clock moves for one event.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum When {
    /// At the current instant.
    Now,
    /// Microseconds later (the clock moves).
    Micros(u16),
    /// Milliseconds later (the clock moves).
    Millis(u16),
    /// Seconds later (the clock moves).
    Secs(u16),
    /// Hours later (the clock moves).
    Hours(u8),
    /// Milliseconds *earlier*, for this call only (time going backwards reads as no time).
    Back(u16),
}

/// The LossThrottle's configuration, any value.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct LossSpec {
    window_requests: u32,
    buckets: u8,
    pub(crate) max_credit: u32,
    pub(crate) never_throttle_exempt: bool,
    pub(crate) escalate_after: Option<u32>,
    pub(crate) exact_window: bool,
}

impl LossSpec {
    /// The configuration (any value of every field).
    pub(crate) fn config(&self) -> LossConfig {
        LossConfig::default()
            .with_window_requests(self.window_requests)
            .with_buckets(self.buckets)
            .with_max_credit(self.max_credit)
            .with_never_throttle_exempt(self.never_throttle_exempt)
            .with_escalate_after(self.escalate_after)
            .with_exact_window(self.exact_window)
    }
}

/// An EgressConfig: any value of every field (mostly refused), or one shaped to pass the
/// rules so that the fuzzer reaches the levels and the cap quickly. Both are validated by the
/// library and by the harness's model of the rules.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum EgressSpec {
    /// Any value of every field.
    Raw(RawEgressSpec),
    /// Valid by construction (the model still has the last word).
    Shaped(ShapedEgressSpec),
}

/// Every field of an EgressConfig, any value.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct RawEgressSpec {
    pub(crate) max_rate: u32,
    pub(crate) small_rate: bool,
    pub(crate) convergence_time: DurSpec,
    pub(crate) tick: DurSpec,
    pub(crate) thresholds: [Option<(u8, u8)>; 3],
    pub(crate) abatement_time: DurSpec,
    pub(crate) level_cutoff: [u8; 3],
    pub(crate) burst: u32,
    pub(crate) max_pending: Option<u32>,
}

/// The parameters of a valid EgressConfig.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct ShapedEgressSpec {
    max_rate: u16,
    /// Tick in microseconds (0 reads as 1).
    tick_us: u32,
    /// Window length in ticks, mod 1024, plus 1.
    window_ticks: u16,
    /// Levels configured, mod 3, plus 1.
    levels: u8,
    tt: [u8; 3],
    at: [u8; 3],
    abatement_time: DurSpec,
    cutoffs: [u8; 3],
    burst: u32,
    max_pending: Option<u32>,
}

impl ShapedEgressSpec {
    pub(crate) fn config(&self) -> EgressConfig {
        let mut c = EgressConfig::new(u32::from(self.max_rate).max(1));
        c.tick = Duration::from_micros(u64::from(self.tick_us.max(1)));
        c.convergence_time = c.tick * (u32::from(self.window_ticks) % MAX_WINDOW_TICKS + 1);
        let n = usize::from(self.levels % 3) + 1;
        // TT strictly increasing in 2..=100 with room for the levels above; AT strictly
        // increasing, each below its TT.
        let (mut prev_tt, mut prev_at) = (1u8, 0u8);
        c.thresholds = [None; 3];
        for i in 0..n {
            let top = 100 - (n - 1 - i) as u8;
            let tt = prev_tt + 1 + self.tt[i] % (top - prev_tt);
            let at = prev_at + 1 + self.at[i] % (tt - 1 - prev_at);
            c.thresholds[i] = Some(ThresholdPair::new(tt, at));
            (prev_tt, prev_at) = (tt, at);
        }
        c.abatement_time = self.abatement_time.get();
        let c1 = self.cutoffs[0] % 16;
        let c2 = c1.min(self.cutoffs[1] % 16);
        let c3 = c2.min(self.cutoffs[2] % 16);
        c.level_cutoff = [prio(c1), prio(c2), prio(c3)];
        c.burst = self.burst.max(1);
        c.max_pending = self.max_pending.map(|m| m.max(1));
        c
    }
}

/// Which peers admit a request.
#[derive(Arbitrary, Debug, Clone)]
pub enum AdmitSpec {
    /// Peer `p` admits iff bit `p % 64` is set (the same answer every time).
    Mask(u64),
    /// The n-th admission check answers `calls[n]` (false past the end).
    Calls(Vec<bool>),
}

/// One thing that happens.
#[derive(Arbitrary, Debug, Clone)]
pub enum Event {
    /// Loss: a new reduction.
    SetReduction(u8),
    /// Loss: deterministic decision.
    Decide {
        /// Priority (mod 16).
        priority: u8,
        /// eMPS/emergency.
        exempt: bool,
    },
    /// Loss: `n` deterministic decisions of one class.
    DecideMany {
        /// How many.
        n: u8,
        /// Priority (mod 16).
        priority: u8,
        /// eMPS/emergency.
        exempt: bool,
    },
    /// Loss: random-mode decision.
    DecideDraw {
        /// Priority (mod 16).
        priority: u8,
        /// eMPS/emergency.
        exempt: bool,
        /// The caller's random draw.
        draw: u32,
    },
    /// Loss: a message of any type.
    DecideMessage {
        /// Message type octet.
        message_type: u8,
        /// Priority (mod 16).
        priority: u8,
        /// eMPS/emergency.
        exempt: bool,
    },
    /// Classifier: classify a context.
    Classify(ContextSpec),
    /// Classifier: the priority of a received request.
    Received(Option<u8>),
    /// Egress: decide for a message.
    Egress {
        /// Request or answer.
        request: bool,
        /// Priority (mod 16).
        priority: u8,
        /// When.
        when: When,
    },
    /// Egress: `n` decisions at one instant.
    EgressBurst {
        /// How many.
        n: u8,
        /// Request or answer.
        request: bool,
        /// Priority (mod 16).
        priority: u8,
        /// When.
        when: When,
    },
    /// Egress: decide for a PFCP message type.
    EgressMessage {
        /// Message type octet.
        message_type: u8,
        /// Priority (mod 16).
        priority: u8,
        /// When.
        when: When,
    },
    /// Egress: a message sent without a decision.
    OnSend {
        /// Request or answer.
        request: bool,
        /// When.
        when: When,
    },
    /// Egress: a transaction ended.
    TransactionEnd,
    /// Egress: the timer.
    EgressTimeout(When),
    /// Egress: advance to `poll_timeout` and handle it.
    EgressTimeoutAtPoll,
    /// Routing: route one request.
    Route {
        /// The caller's random draw.
        draw: u64,
        /// Which peers admit.
        admit: AdmitSpec,
        /// `route_within` with this limit instead of `route`.
        within: Option<u32>,
    },
    /// Routing: a peer's weight by id.
    SetWeight {
        /// Peer id.
        peer: u8,
        /// New weight.
        weight: u32,
    },
    /// Routing: a peer's weight by position.
    SetWeightAt {
        /// Group.
        group: u8,
        /// Index in the group.
        index: u8,
        /// New weight.
        weight: u32,
    },
    /// Routing: a new attempt limit (0 must be refused).
    SetMaxAttempts(u32),
}

/// A whole run.
#[derive(Arbitrary, Debug, Clone)]
pub struct Scenario {
    loss: LossSpec,
    egress: EgressSpec,
    classifier: ClassifierSpec,
    groups: Vec<Vec<(u8, u32)>>,
    max_attempts: u32,
    events: Vec<Event>,
}

/// A whole run in the second format (after the [`FORMAT_V2`] byte): the first format's parts
/// and events, plus the classifier's "registered elsewhere" step, a state tracker, and the
/// events of the C.2 state (contexts with any state, tracker events).
#[derive(Arbitrary, Debug, Clone)]
pub struct ScenarioV2 {
    loss: LossSpec,
    egress: EgressSpec,
    classifier: ClassifierSpec,
    registered_elsewhere: i8,
    tracker: TrackerSpec,
    swx: SwxRulesSpec,
    /// The egress throttle's hard cap (the first format always has it).
    hard_cap: bool,
    /// The Loss throttle of the [`PeerEvent`] peer.
    peer_loss: LossSpec,
    groups: Vec<Vec<(u8, u32)>>,
    max_attempts: u32,
    events: Vec<EventV2>,
}

/// One event of the second format.
#[derive(Arbitrary, Debug, Clone)]
pub enum EventV2 {
    /// An event of the first format.
    Core(Event),
    /// Classifier: a context with any C.2 state.
    Classify(ContextSpecV2),
    /// State tracker: an event, or a state read and classified.
    Track(TrackEvent),
    /// SWx classifier: any request.
    Swx(SwxSpec),
    /// Egress: any kind, any class, decided or checked and committed.
    Egress(EgressEvent),
    /// Loss: a deterministic decision, reported not sent if it sent.
    LossUnsent {
        /// Priority (mod 16).
        priority: u8,
        /// eMPS/emergency.
        exempt: bool,
    },
    /// Loss and egress together.
    Peer(PeerEvent),
    /// Configuration sets.
    Sets(SetsSpec),
    /// The router priority mapping: a router priority and a PFCP priority (mod 16).
    Router(u8, u8),
    /// Routing: a request forwarded again after the peers of `history` (ids) failed.
    Forward {
        /// The caller's random draw.
        draw: u64,
        /// Which peers admit.
        admit: AdmitSpec,
        /// The peers it was sent to.
        history: Vec<u8>,
    },
}

// ---------------------------------------------------------------------------------------------
// The harness

/// The first byte of an input in the second format ([`ScenarioV2`]); any other first byte is
/// the first format ([`Scenario`]), kept so the committed corpus and regressions replay the
/// runs they were found with.
pub const FORMAT_V2: u8 = 0x02;

/// Decode `data` into a [`Scenario`] (or, after [`FORMAT_V2`], a [`ScenarioV2`]) and run it,
/// checking every invariant after every event.
pub fn throttle(data: &[u8]) {
    if let Some((&crate::throttle_c2::FORMAT_V3, rest)) = data.split_first() {
        crate::throttle_c2::run_v3(rest);
        return;
    }
    if let Some((&FORMAT_V2, rest)) = data.split_first() {
        if let Ok(scenario) = ScenarioV2::arbitrary_take_rest(Unstructured::new(rest)) {
            run_v2(&scenario);
        }
        return;
    }
    let Ok(scenario) = Scenario::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    run(&scenario);
}
