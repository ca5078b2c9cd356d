//! The checks behind the `throttle` fuzz target, shared with
//! `crates/pfcp-throttle/tests/fuzz_corpus.rs` (which includes this file, `throttle_c2.rs`,
//! `throttle_egress.rs` and `throttle_loss.rs`, the Loss throttle's model, with `#[path]`).
//!
//! The input is decoded with `arbitrary` into a [`Scenario`] (or, after the [`FORMAT_V2`]
//! byte, a [`ScenarioV2`]): a configuration for each part of pfcp-throttle (any value of
//! every field) and a list of events that drive
//!
//! * a [`LossThrottle`] through `decide`, `decide_with_draw` and `decide_message` with any
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

#![forbid(unsafe_code)]

use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use pfcp_throttle::egress::MAX_WINDOW_TICKS;
use pfcp_throttle::{
    Classifier, EgressConfig, Forwarding, LossConfig, MessageKind, Procedure, RequestClass,
    RouteFailure, RouteFailureReason, RouteGroup, RouteList, RouteListError, Routed, ThresholdPair,
};
use pfcp_wire::{MessagePriority, MessageType};

use crate::throttle_c2::{
    ClassifierSpec, ContextSpec, ContextSpecV2, SwxRulesSpec, SwxSpec, TrackEvent, Tracker,
    TrackerSpec,
};
use crate::throttle_egress::{Egress, EgressEvent, Peer, PeerEvent, SetsSpec};
use crate::throttle_loss::Loss;

/// Most events run per input (bounds the cost of one input).
const MAX_EVENTS: usize = 512;

/// The base instant of a run: the one clock read. Every later instant is this one moved by
/// fuzzer-chosen durations.
#[allow(clippy::disallowed_methods)] // the one clock read: an arbitrary origin for the run
fn base_instant() -> Instant {
    Instant::now()
}

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
// Routing

fn expected_route_list(groups: &[Vec<(u8, u32)>], max: u32) -> Result<(), RouteListError> {
    if max == 0 {
        return Err(RouteListError::ZeroAttempts);
    }
    let mut seen = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for (i, (p, _)) in group.iter().enumerate() {
            if seen.contains(p) {
                return Err(RouteListError::DuplicatePeer { group: g, index: i });
            }
            seen.push(*p);
        }
    }
    Ok(())
}

fn route(routes: &mut RouteList<u8>, draw: u64, admit: &AdmitSpec, within: Option<u32>) {
    let groups: Vec<Vec<(u8, u32)>> = routes.groups().iter().map(|g| g.peers().to_vec()).collect();
    let max = within.unwrap_or(routes.max_forwarding_attempts());
    let run = |routes: &mut RouteList<u8>| {
        let mut calls: Vec<(u8, bool)> = Vec::new();
        let mut admission = |p: &u8| {
            let yes = match admit {
                AdmitSpec::Mask(m) => m >> (p % 64) & 1 == 1,
                AdmitSpec::Calls(v) => v.get(calls.len()).copied().unwrap_or(false),
            };
            calls.push((*p, yes));
            yes
        };
        let res = match within {
            Some(n) => routes.route_within(n, draw, &mut admission),
            None => routes.route(draw, &mut admission),
        };
        (res, calls)
    };
    let (res, calls) = run(routes);
    check_route(&groups, max, &res, &calls);
    // The picks come from the draw alone, and both admission patterns answer by peer or by
    // call number: the same draw routes the same way.
    assert_eq!(
        run(routes),
        (res, calls),
        "routing is not deterministic for one draw"
    );
}

/// `forward` after the peers of `history` failed: the limit counts forwardings, the peers
/// used are skipped, the routed peer is recorded.
fn forward(routes: &mut RouteList<u8>, draw: u64, admit: &AdmitSpec, history: &[u8]) {
    let groups: Vec<Vec<(u8, u32)>> = routes.groups().iter().map(|g| g.peers().to_vec()).collect();
    let mut fwd = Forwarding::new();
    for p in history.iter().take(8) {
        fwd.record(*p);
    }
    let before = fwd.clone();
    let max = routes.max_forwarding_attempts();
    let mut calls: Vec<(u8, bool)> = Vec::new();
    let mut admission = |p: &u8| {
        let yes = match admit {
            AdmitSpec::Mask(m) => m >> (p % 64) & 1 == 1,
            AdmitSpec::Calls(v) => v.get(calls.len()).copied().unwrap_or(false),
        };
        calls.push((*p, yes));
        yes
    };
    let res = routes.forward(&mut fwd, draw, &mut admission);
    for (p, _) in &calls {
        assert!(!before.peers().contains(p), "peer {p} asked again");
    }
    // The skipped peers are out of the eligible set for the model.
    let groups: Vec<Vec<(u8, u32)>> = groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|&(p, w)| (p, if before.peers().contains(&p) { 0 } else { w }))
                .collect()
        })
        .collect();
    check_route(&groups, max.saturating_sub(before.forwards()), &res, &calls);
    match &res {
        Ok(r) => {
            assert_eq!(fwd.forwards(), before.forwards() + 1);
            assert_eq!(fwd.peers().last(), Some(&r.peer));
        }
        Err(_) => assert_eq!(fwd, before, "a failed forwarding was recorded"),
    }
}

fn check_route(
    groups: &[Vec<(u8, u32)>],
    max: u32,
    res: &Result<Routed<u8>, RouteFailure>,
    calls: &[(u8, bool)],
) {
    let locate = |p: u8| -> (usize, usize, u32) {
        for (g, group) in groups.iter().enumerate() {
            if let Some(i) = group.iter().position(|(q, _)| *q == p) {
                return (g, i, group[i].1);
            }
        }
        panic!("admission asked about unknown peer {p}");
    };
    let attempts = match res {
        Ok(r) => r.attempts,
        Err(f) => f.attempts,
    };
    assert_eq!(
        attempts as usize,
        calls.len(),
        "attempts vs admission checks"
    );
    // Refused checks are not forwardings: the checks are bounded by the eligible peers only.
    let n_eligible: usize = groups
        .iter()
        .map(|g| g.iter().filter(|(_, w)| *w > 0).count())
        .sum();
    assert!(
        calls.len() <= n_eligible,
        "{attempts} checks, {n_eligible} eligible"
    );
    let mut last_group = 0;
    for (n, (p, _)) in calls.iter().enumerate() {
        assert!(
            !calls[..n].iter().any(|(q, _)| q == p),
            "peer {p} asked twice"
        );
        let (g, _, w) = locate(*p);
        assert!(w > 0, "peer {p} of weight 0 asked");
        assert!(g >= last_group, "went back to group {g}");
        last_group = g;
    }
    let asked = |p: u8| calls.iter().any(|(q, _)| *q == p);
    let eligible = |g: usize| groups[g].iter().filter(|(_, w)| *w > 0).map(|(p, _)| *p);
    match res {
        Ok(r) => {
            let (last, rest) = calls.split_last().expect("routed without asking");
            assert_eq!(*last, (r.peer, true), "routed to a peer that did not admit");
            assert!(
                rest.iter().all(|(_, yes)| !yes),
                "an admitting peer was skipped"
            );
            assert!(r.attempts >= 1);
            let (g, i, w) = locate(r.peer);
            assert_eq!((g, i), (r.group, r.index), "group/index of the routed peer");
            assert!(w > 0);
            for g in 0..r.group {
                for p in eligible(g) {
                    assert!(
                        asked(p),
                        "group {g} peer {p} untried before group {}",
                        r.group
                    );
                }
            }
        }
        Err(f) => {
            assert!(
                calls.iter().all(|(_, yes)| !yes),
                "failed after an admission"
            );
            assert_eq!(f.cause().0, 74);
            let _ = f.to_string();
            let all: Vec<u8> = (0..groups.len()).flat_map(eligible).collect();
            match f.reason {
                RouteFailureReason::NoEligiblePeer => {
                    assert!(calls.is_empty());
                    assert!(all.is_empty(), "no eligible peer among {all:?}");
                }
                RouteFailureReason::AllRefused => {
                    assert!(!all.is_empty());
                    for p in &all {
                        assert!(asked(*p), "peer {p} never asked but all refused");
                    }
                }
                RouteFailureReason::MaxAttempts => {
                    // Only a request with no forwarding left, before any check.
                    assert_eq!(max, 0, "MaxAttempts with {max} forwardings left");
                    assert!(calls.is_empty(), "MaxAttempts after checks");
                    assert!(!all.is_empty(), "MaxAttempts with no eligible peer");
                }
            }
        }
    }
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

/// Run a decoded scenario of the first format.
pub fn run(s: &Scenario) {
    let mut r = Runner::new(
        &s.loss,
        (&s.egress, true),
        &s.classifier,
        0,
        &s.groups,
        s.max_attempts,
    );
    for event in s.events.iter().take(MAX_EVENTS) {
        r.event(event);
    }
}

/// Run a decoded scenario of the second format.
pub fn run_v2(s: &ScenarioV2) {
    let mut r = Runner::new(
        &s.loss,
        (&s.egress, s.hard_cap),
        &s.classifier,
        s.registered_elsewhere,
        &s.groups,
        s.max_attempts,
    );
    let mut tracker = Tracker::new(&s.tracker);
    let swx = s.swx.classifier();
    let mut peer = Peer::new(&s.peer_loss, r.egress.as_ref().map(Egress::config), r.now);
    for event in s.events.iter().take(MAX_EVENTS) {
        match event {
            EventV2::Core(e) => r.event(e),
            EventV2::Classify(ctx) => crate::throttle_c2::classify(&r.classifier, ctx, None),
            EventV2::Track(e) => {
                if let Some(w) = crate::throttle_c2::when_of(e) {
                    r.now = advance(r.now, w);
                }
                tracker.event(e, r.now, &r.classifier);
            }
            EventV2::Swx(spec) => crate::throttle_c2::classify_swx(&swx, spec),
            EventV2::Egress(e) => {
                if let Some(eg) = r.egress.as_mut() {
                    eg.event(e, &mut r.now);
                }
            }
            EventV2::LossUnsent { priority, exempt } => {
                r.loss.decide_unsent(class(*priority, *exempt));
            }
            EventV2::Peer(e) => peer.event(e, &mut r.now),
            EventV2::Sets(spec) => crate::throttle_egress::sets(spec, r.now),
            EventV2::Router(value, pfcp) => crate::throttle_egress::router(*value, *pfcp),
            EventV2::Forward {
                draw,
                admit,
                history,
            } => {
                if let Some(routes) = r.routes.as_mut() {
                    forward(routes, *draw, admit, history);
                }
            }
        }
    }
}

/// `now` moved by `when` (a backwards step only for this call: the result, not `now`).
fn advance(now: Instant, when: When) -> Instant {
    let forward = |d: Duration| now.checked_add(d).unwrap_or(now);
    match when {
        When::Now => now,
        When::Micros(n) => forward(Duration::from_micros(u64::from(n))),
        When::Millis(n) => forward(Duration::from_millis(u64::from(n))),
        When::Secs(n) => forward(Duration::from_secs(u64::from(n))),
        When::Hours(n) => forward(Duration::from_secs(u64::from(n) * 3600)),
        When::Back(_) => now,
    }
}

/// The parts under test and the clock of one run.
struct Runner {
    now: Instant,
    loss: Loss,
    classifier: Classifier,
    egress: Option<Egress>,
    routes: Option<RouteList<u8>>,
}

impl Runner {
    fn new(
        loss: &LossSpec,
        (egress, hard_cap): (&EgressSpec, bool),
        classifier: &ClassifierSpec,
        registered_elsewhere: i8,
        groups: &[Vec<(u8, u32)>],
        max_attempts: u32,
    ) -> Runner {
        let base = base_instant();
        let groups: Vec<Vec<(u8, u32)>> = groups
            .iter()
            .take(4)
            .map(|g| g.iter().take(6).copied().collect())
            .collect();
        let want = expected_route_list(&groups, max_attempts);
        let made = RouteList::new(
            groups
                .iter()
                .map(|g| {
                    g.iter()
                        .fold(RouteGroup::new(), |acc, &(p, w)| acc.with_peer(p, w))
                })
                .collect(),
            max_attempts,
        );
        let routes = match (want, made) {
            (Ok(()), Ok(r)) => Some(r),
            (Err(e), Err(got)) => {
                assert_eq!(got, e, "RouteList::new vs the rules");
                let _ = got.to_string();
                None
            }
            (want, made) => panic!(
                "RouteList rules {want:?} but new gave {:?}",
                made.map(|_| ())
            ),
        };
        Runner {
            now: base,
            loss: Loss::new(loss),
            classifier: Classifier::new(crate::throttle_c2::classifier(
                classifier,
                registered_elsewhere,
            )),
            egress: Egress::new(egress, hard_cap, base),
            routes,
        }
    }

    fn event(&mut self, event: &Event) {
        match event {
            Event::SetReduction(r) => self.loss.set_reduction(*r),
            Event::Decide { priority, exempt } => self.loss.decide(class(*priority, *exempt)),
            Event::DecideMany {
                n,
                priority,
                exempt,
            } => {
                for _ in 0..*n {
                    self.loss.decide(class(*priority, *exempt));
                }
            }
            Event::DecideDraw {
                priority,
                exempt,
                draw,
            } => self.loss.decide_draw(class(*priority, *exempt), *draw),
            Event::DecideMessage {
                message_type,
                priority,
                exempt,
            } => self
                .loss
                .decide_message(MessageType(*message_type), class(*priority, *exempt)),
            Event::Classify(ctx) => {
                crate::throttle_c2::classify(&self.classifier, &ContextSpecV2::from(ctx), None)
            }
            Event::Received(p) => {
                let got = self.classifier.received_request(p.map(prio));
                match p {
                    Some(p) => assert_eq!(got, prio(*p)),
                    None => assert_eq!(
                        got.value(),
                        self.classifier.config().request_default.min(15)
                    ),
                }
                assert_eq!(Classifier::response(got), got);
            }
            Event::Egress {
                request,
                priority,
                when,
            } => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    e.decide(kind(*request), RequestClass::new(prio(*priority)), t);
                }
            }
            Event::EgressBurst {
                n,
                request,
                priority,
                when,
            } => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    for _ in 0..*n {
                        e.decide(kind(*request), RequestClass::new(prio(*priority)), t);
                    }
                }
            }
            Event::EgressMessage {
                message_type,
                priority,
                when,
            } => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    let mt = MessageType(*message_type);
                    let _ = Procedure::of(mt).map(Procedure::is_throttled);
                    e.decide_message(mt, RequestClass::new(prio(*priority)), t);
                }
            }
            Event::OnSend { request, when } => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    e.on_send(kind(*request), t);
                }
            }
            Event::TransactionEnd => {
                if let Some(e) = self.egress.as_mut() {
                    e.end();
                }
            }
            Event::EgressTimeout(when) => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    e.timeout(t);
                }
            }
            Event::EgressTimeoutAtPoll => {
                if let Some(e) = self.egress.as_mut() {
                    if let Some(p) = e.t.poll_timeout() {
                        self.now = self.now.max(p);
                        e.latest = e.latest.max(self.now);
                    }
                    e.timeout(self.now);
                }
            }
            Event::Route {
                draw,
                admit,
                within,
            } => {
                if let Some(r) = self.routes.as_mut() {
                    route(r, *draw, admit, *within);
                }
            }
            Event::SetWeight { peer, weight } => {
                if let Some(r) = self.routes.as_mut() {
                    let known = r
                        .groups()
                        .iter()
                        .any(|g| g.peers().iter().any(|(p, _)| p == peer));
                    assert_eq!(r.set_weight(peer, *weight), known);
                }
            }
            Event::SetWeightAt {
                group,
                index,
                weight,
            } => {
                if let Some(r) = self.routes.as_mut() {
                    let (g, i) = (usize::from(*group % 5), usize::from(*index % 7));
                    let exists = r.groups().get(g).is_some_and(|x| i < x.len());
                    assert_eq!(r.set_weight_at(g, i, *weight), exists);
                    if exists {
                        assert_eq!(r.groups()[g].peers()[i].1, *weight);
                    }
                }
            }
            Event::SetMaxAttempts(n) => {
                if let Some(r) = self.routes.as_mut() {
                    let before = r.max_forwarding_attempts();
                    match r.set_max_forwarding_attempts(*n) {
                        Ok(()) => assert_eq!(r.max_forwarding_attempts(), *n),
                        Err(e) => {
                            assert_eq!((*n, e), (0, RouteListError::ZeroAttempts));
                            assert_eq!(r.max_forwarding_attempts(), before);
                        }
                    }
                }
            }
        }
    }
}

fn class(priority: u8, exempt: bool) -> RequestClass {
    if exempt {
        RequestClass::exempt(prio(priority))
    } else {
        RequestClass::new(prio(priority))
    }
}

fn kind(request: bool) -> MessageKind {
    if request {
        MessageKind::Request
    } else {
        MessageKind::Answer
    }
}
