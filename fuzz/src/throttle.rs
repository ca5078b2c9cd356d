//! The checks behind the `throttle` fuzz target, shared with
//! `crates/pfcp-throttle/tests/fuzz_corpus.rs` (which includes this file with `#[path]`).
//!
//! The input is decoded with `arbitrary` into a [`Scenario`]: a configuration for each part of
//! pfcp-throttle (any value of every field) and a list of events that drive
//!
//! * a [`LossThrottle`] through `decide`, `decide_with_draw` and `decide_message` with any
//!   priority, exempt flag and message type, the reduction changing mid-way;
//! * a [`Classifier`] with any table, on any context (ARP level lists, flags, DNN strings,
//!   S-NSSAIs, procedures);
//! * an [`EgressThrottle`] whose configuration must be refused exactly when it breaks a
//!   documented rule (checked against a model of the rules), and otherwise never panics under
//!   any time step (forwards and backwards), message kind and priority;
//! * a [`RouteList`] (refused exactly when the rules say) with any groups, weights, draws and
//!   admission patterns.
//!
//! Invariants: responses/answers are never throttled; reduction 0 never throttles and 100
//! sheds everything in random mode; throttled <= offered per rank and the counters match a
//! shadow count exactly; exempt requests are never throttled with `never_throttle_exempt`;
//! the boundary rank is respected (strict mode, random mode); the egress level stays in
//! 0..=levels, a level or pending refusal agrees with the state, the admitted requests stay
//! under the cap (`burst + max_rate x elapsed`), `poll_timeout` lies after the instant just
//! handled; routing only returns a peer its admission accepted, asks each peer at most once,
//! never exceeds the attempt limit, exhausts a group before the next and fails only for the
//! documented reasons. Panics, including arithmetic overflow, are failures.
//!
//! Only `std`, `arbitrary`, `pfcp-wire` and `pfcp-throttle`: the file compiles in the fuzz crate
//! and in pfcp-throttle's integration tests alike.

#![forbid(unsafe_code)]

use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use pfcp_throttle::egress::MAX_WINDOW_TICKS;
use pfcp_throttle::loss::RANKS;
use pfcp_throttle::{
    Classifier, Decision, EgressConfig, EgressConfigError, EgressDecision, EgressThrottle,
    LossConfig, LossStats, LossThrottle, MessageKind, Procedure, RequestClass, RouteFailure,
    RouteFailureReason, RouteGroup, RouteList, RouteListError, Routed, ThresholdPair,
    ThrottleReason,
};
use pfcp_wire::{MessagePriority, MessageType};

use crate::throttle_c2::{
    ClassifierSpec, ContextSpec, ContextSpecV2, SwxRulesSpec, SwxSpec, TrackEvent, Tracker,
    TrackerSpec,
};

/// Most events run per input (bounds the cost of one input).
const MAX_EVENTS: usize = 512;

/// The base instant of a run: the one clock read. Every later instant is this one moved by
/// fuzzer-chosen durations.
#[allow(clippy::disallowed_methods)] // the one clock read: an arbitrary origin for the run
fn base_instant() -> Instant {
    Instant::now()
}

fn prio(p: u8) -> MessagePriority {
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
    max_credit: u32,
    never_throttle_exempt: bool,
    escalate_after: Option<u32>,
    exact_window: bool,
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
    max_rate: u32,
    small_rate: bool,
    convergence_time: DurSpec,
    tick: DurSpec,
    thresholds: [Option<(u8, u8)>; 3],
    abatement_time: DurSpec,
    level_cutoff: [u8; 3],
    burst: u32,
    max_pending: Option<u32>,
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
    fn config(&self) -> EgressConfig {
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
}

// ---------------------------------------------------------------------------------------------
// Loss

struct Loss {
    t: LossThrottle,
    never_exempt: bool,
    strict: bool,
    exact: bool,
    /// Window-exact mode: `sum(M) - 100 x drops` over the counted (non-exempt, deterministic)
    /// requests, and its lowest and highest values so far. Every window's deviation is
    /// bounded by the range, which must stay below one request.
    error: i64,
    error_range: (i64, i64),
    shadow: LossStats,
}

impl Loss {
    fn new(s: &LossSpec) -> Loss {
        let config = LossConfig::default()
            .with_window_requests(s.window_requests)
            .with_buckets(s.buckets)
            .with_max_credit(s.max_credit)
            .with_never_throttle_exempt(s.never_throttle_exempt)
            .with_escalate_after(s.escalate_after)
            .with_exact_window(s.exact_window);
        Loss {
            t: LossThrottle::new(config),
            never_exempt: s.never_throttle_exempt,
            strict: s.escalate_after.is_none(),
            exact: s.exact_window,
            error: 0,
            error_range: (0, 0),
            shadow: LossStats::default(),
        }
    }

    fn set_reduction(&mut self, r: u8) {
        self.t.set_reduction(r);
        assert_eq!(self.t.reduction(), r.min(100));
    }

    /// Checks common to every decision on a request of `class` that was counted.
    fn after(&mut self, class: RequestClass, d: Decision, draw: Option<u32>) {
        let rank = class.rank();
        assert!(rank < RANKS);
        let reduction = self.t.reduction();
        let boundary = self.t.boundary_rank();
        assert!(boundary <= RANKS, "boundary {boundary}");
        self.shadow.offered[rank] += 1;
        let throttled = match d {
            Decision::Send => false,
            Decision::Throttle(t) => {
                assert_eq!(t.reduction, reduction, "reported reduction");
                assert_eq!(t.class, class, "reported class");
                true
            }
        };
        if throttled {
            self.shadow.throttled[rank] += 1;
        }
        if reduction == 0 {
            assert!(!throttled, "reduction 0 throttled {class:?}");
        }
        if class.exempt && self.never_exempt {
            assert!(!throttled, "exempt throttled despite never_throttle_exempt");
        }
        let exempt_spared = class.exempt && self.never_exempt;
        match draw {
            Some(_) => {
                // Random mode: 1 below the boundary, 0 above.
                if reduction > 0 && rank < boundary && !exempt_spared {
                    assert!(throttled, "rank {rank} below boundary {boundary} sent");
                }
                if rank > boundary {
                    assert!(
                        !throttled,
                        "rank {rank} above boundary {boundary} throttled"
                    );
                }
                if reduction == 100 && !exempt_spared {
                    assert!(throttled, "reduction 100 sent a request in random mode");
                }
            }
            None if self.exact => {
                // Window-exact mode: exempt requests pass uncounted; the rest are paced by
                // the credit alone (no boundary, no escalation).
                if class.exempt {
                    assert!(!throttled, "exact mode throttled an exempt request");
                } else {
                    self.error += i64::from(reduction) - 100 * i64::from(throttled);
                    let (lo, hi) = &mut self.error_range;
                    *lo = (*lo).min(self.error);
                    *hi = (*hi).max(self.error);
                    assert!(
                        *hi - *lo < 100,
                        "exact mode: error range {lo}..{hi} (1/100 request)"
                    );
                }
            }
            None => {
                let escalated = throttled && rank > boundary;
                if escalated {
                    self.shadow.escalated += 1;
                }
                if rank > boundary && (class.exempt || self.strict) {
                    assert!(
                        !throttled,
                        "rank {rank} above boundary {boundary} throttled"
                    );
                }
                if self.strict && reduction > 0 && rank < boundary && !exempt_spared {
                    assert!(throttled, "strict mode sent rank {rank} below {boundary}");
                }
            }
        }
        let stats = self.t.stats();
        assert_eq!(*stats, self.shadow, "stats differ from the shadow count");
        for (t, o) in stats.throttled.iter().zip(&stats.offered) {
            assert!(t <= o, "throttled {t} > offered {o}");
        }
        let total: u64 = stats.throttled.iter().sum();
        assert!(stats.escalated <= total);
    }

    fn decide(&mut self, class: RequestClass) {
        let d = self.t.decide(class);
        self.after(class, d, None);
    }

    fn decide_draw(&mut self, class: RequestClass, draw: u32) {
        let d = self.t.decide_with_draw(class, draw);
        self.after(class, d, Some(draw));
    }

    fn decide_message(&mut self, mt: MessageType, class: RequestClass) {
        let d = self.t.decide_message(mt, class);
        if mt.is_request() {
            self.after(class, d, None);
        } else {
            assert_eq!(d, Decision::Send, "response {mt:?} throttled");
            assert_eq!(*self.t.stats(), self.shadow, "a response was counted");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Egress

/// The documented rules of `EgressConfig::validate`, as a model: the first error in the
/// documented order.
fn expected_validity(c: &EgressConfig) -> Result<(), EgressConfigError> {
    if c.max_rate == 0 {
        return Err(EgressConfigError::MaxRate);
    }
    if c.tick.is_zero() {
        return Err(EgressConfigError::Tick);
    }
    let ticks = c.convergence_time.as_nanos().div_ceil(c.tick.as_nanos());
    if ticks == 0 || ticks > u128::from(MAX_WINDOW_TICKS) {
        return Err(EgressConfigError::ConvergenceTime {
            convergence_time: c.convergence_time,
            tick: c.tick,
        });
    }
    if c.burst == 0 {
        return Err(EgressConfigError::Burst);
    }
    if c.max_pending == Some(0) {
        return Err(EgressConfigError::MaxPending);
    }
    if c.thresholds[0].is_none() {
        return Err(EgressConfigError::MissingFirstPair);
    }
    let mut previous: Option<ThresholdPair> = None;
    for (i, pair) in c.thresholds.iter().enumerate() {
        let level = i as u8 + 1;
        let Some(pair) = *pair else {
            previous = None;
            continue;
        };
        if level > 1 && previous.is_none() {
            return Err(EgressConfigError::PairWithoutLower { level });
        }
        if !(2..=100).contains(&pair.throttle) {
            return Err(EgressConfigError::ThrottleRange {
                level,
                value: pair.throttle,
            });
        }
        if !(1..=99).contains(&pair.abatement) {
            return Err(EgressConfigError::AbatementRange {
                level,
                value: pair.abatement,
            });
        }
        if pair.abatement >= pair.throttle {
            return Err(EgressConfigError::AbatementNotBelowThrottle {
                level,
                throttle: pair.throttle,
                abatement: pair.abatement,
            });
        }
        if let Some(prev) = previous {
            if pair.throttle <= prev.throttle {
                return Err(EgressConfigError::ThrottleNotIncreasing {
                    level,
                    value: pair.throttle,
                    lower: prev.throttle,
                });
            }
            if pair.abatement <= prev.abatement {
                return Err(EgressConfigError::AbatementNotIncreasing {
                    level,
                    value: pair.abatement,
                    lower: prev.abatement,
                });
            }
        }
        previous = Some(pair);
    }
    let [c1, c2, c3] = c.level_cutoff;
    for (level, lower, cut) in [(2u8, c1, c2), (3, c2, c3)] {
        if cut > lower {
            return Err(EgressConfigError::CutoffNotMonotonic {
                level,
                value: cut.value(),
                lower: lower.value(),
            });
        }
    }
    Ok(())
}

fn egress_config(s: &EgressSpec) -> EgressConfig {
    let s = match s {
        EgressSpec::Raw(s) => s,
        EgressSpec::Shaped(s) => {
            let c = s.config();
            assert_eq!(c.validate(), Ok(()), "a shaped configuration is refused");
            return c;
        }
    };
    let mut c = EgressConfig::new(if s.small_rate {
        s.max_rate % 2000
    } else {
        s.max_rate
    });
    c.convergence_time = s.convergence_time.get();
    c.tick = s.tick.get();
    c.thresholds = s
        .thresholds
        .map(|p| p.map(|(throttle, abatement)| ThresholdPair::new(throttle, abatement)));
    c.abatement_time = s.abatement_time.get();
    c.level_cutoff = s.level_cutoff.map(prio);
    c.burst = s.burst;
    c.max_pending = s.max_pending;
    c
}

struct Egress {
    t: EgressThrottle,
    config: EgressConfig,
    start: Instant,
    /// The latest instant passed in.
    latest: Instant,
    admitted: u64,
    pending: u32,
    ticks: u64,
}

impl Egress {
    fn new(s: &EgressSpec, start: Instant) -> Option<Egress> {
        let config = egress_config(s);
        let want = expected_validity(&config);
        assert_eq!(
            config.validate(),
            want,
            "validate() vs the documented rules"
        );
        let made = EgressThrottle::new(config, start);
        match (want, made) {
            (Ok(()), Ok(t)) => {
                assert!((1..=3).contains(&config.levels()));
                assert_eq!(t.level(), 0);
                Some(Egress {
                    t,
                    config,
                    start,
                    latest: start,
                    admitted: 0,
                    pending: 0,
                    ticks: 0,
                })
            }
            (Err(e), Err(got)) => {
                assert_eq!(got, e, "new() and validate() disagree");
                let _ = got.to_string();
                None
            }
            (want, made) => panic!("validate {want:?} but new {:?}", made.map(|_| ())),
        }
    }

    fn at(&mut self, now: &mut Instant, when: When) -> Instant {
        let forward = |d: Duration, now: &mut Instant| {
            *now = now.checked_add(d).unwrap_or(*now);
            *now
        };
        let t = match when {
            When::Now => *now,
            When::Micros(n) => forward(Duration::from_micros(u64::from(n)), now),
            When::Millis(n) => forward(Duration::from_millis(u64::from(n)), now),
            When::Secs(n) => forward(Duration::from_secs(u64::from(n)), now),
            When::Hours(n) => forward(Duration::from_secs(u64::from(n) * 3600), now),
            When::Back(n) => now
                .checked_sub(Duration::from_millis(u64::from(n)))
                .unwrap_or(*now),
        };
        self.latest = self.latest.max(t);
        t
    }

    fn decide(&mut self, kind: MessageKind, priority: MessagePriority, t: Instant) {
        let before = *self.t.stats();
        let d = self.t.decide(kind, priority, t);
        self.after_decision(kind, priority, d, &before);
    }

    fn decide_message(&mut self, mt: MessageType, priority: MessagePriority, t: Instant) {
        let before = *self.t.stats();
        let d = self.t.decide_message(mt, priority, t);
        let kind = MessageKind::of(mt);
        assert_eq!(kind == MessageKind::Request, mt.is_request());
        self.after_decision(kind, priority, d, &before);
    }

    fn after_decision(
        &mut self,
        kind: MessageKind,
        priority: MessagePriority,
        d: EgressDecision,
        before: &pfcp_throttle::EgressStats,
    ) {
        let s = *self.t.stats();
        match kind {
            MessageKind::Answer => {
                assert_eq!(d, EgressDecision::Send, "an answer was throttled");
                assert_eq!(s.offered_answers, before.offered_answers + 1);
                assert_eq!(s.sent_answers, before.sent_answers + 1);
            }
            MessageKind::Request => {
                assert_eq!(s.offered_requests, before.offered_requests + 1);
                match d {
                    EgressDecision::Send => {
                        assert_eq!(s.sent_requests, before.sent_requests + 1);
                        self.admitted += 1;
                        self.pending = self.pending.saturating_add(1);
                    }
                    EgressDecision::Throttle(reason) => {
                        assert_eq!(s.sent_requests, before.sent_requests);
                        let p = usize::from(priority.value());
                        assert_eq!(
                            s.throttled_by_priority[p],
                            before.throttled_by_priority[p] + 1
                        );
                        match reason {
                            ThrottleReason::Level(l) => {
                                assert_eq!(l, self.t.level(), "reported level");
                                assert!((1..=3).contains(&l));
                                let cut = self.config.level_cutoff[usize::from(l) - 1];
                                assert!(priority > cut, "{priority:?} within cut-off {cut:?}");
                            }
                            ThrottleReason::PendingLimit => {
                                let m = self.config.max_pending.expect("a pending limit");
                                assert!(self.t.pending() >= m);
                            }
                            ThrottleReason::RateLimit => {}
                        }
                    }
                }
            }
        }
        self.check();
    }

    fn on_send(&mut self, kind: MessageKind, t: Instant) {
        self.t.on_send(kind, t);
        self.check();
    }

    fn end(&mut self) {
        self.t.on_transaction_end();
        self.pending = self.pending.saturating_sub(1);
        self.check();
    }

    fn timeout(&mut self, t: Instant) {
        self.t.handle_timeout(t);
        assert!(
            self.t.poll_timeout().is_none_or(|p| p > t),
            "egress timer still due after handle_timeout"
        );
        self.check();
    }

    fn check(&mut self) {
        let t = &self.t;
        let s = t.stats();
        assert!(t.level() <= self.config.levels(), "level {}", t.level());
        assert!(t.level() <= 3);
        assert_eq!(
            s.offered_requests,
            s.sent_requests + s.throttled_level + s.throttled_rate + s.throttled_pending,
            "request counters"
        );
        assert_eq!(s.offered_answers, s.sent_answers, "answer counters");
        assert_eq!(
            s.throttled_by_priority.iter().sum::<u64>(),
            s.throttled_level + s.throttled_rate + s.throttled_pending
        );
        assert!(s.ticks >= self.ticks, "ticks went down");
        self.ticks = s.ticks;
        assert_eq!(t.pending(), self.pending, "pending");
        if let Some(m) = self.config.max_pending {
            assert!(t.pending() <= m, "pending {} over max {m}", t.pending());
        }
        let rate = t.measured_rate();
        assert!(rate.is_finite() && rate >= 0.0, "measured rate {rate}");
        // The cap: every admitted request took a whole token from a bucket that starts full
        // and refills at max_rate.
        let elapsed = self.latest.saturating_duration_since(self.start).as_nanos();
        let bound = u128::from(self.config.burst) * 1_000_000_000
            + u128::from(self.config.max_rate) * elapsed;
        assert!(
            u128::from(self.admitted) * 1_000_000_000 <= bound,
            "{} requests admitted in {elapsed} ns at max_rate {} burst {}",
            self.admitted,
            self.config.max_rate,
            self.config.burst
        );
        let _ = t.rate_limit_boundary();
    }
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
    assert!(attempts <= max, "{attempts} attempts, max {max}");
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
                    assert_eq!(attempts, max, "MaxAttempts below the limit");
                    assert!(all.iter().any(|p| !asked(*p)), "MaxAttempts with none left");
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
        &s.egress,
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
        &s.egress,
        &s.classifier,
        s.registered_elsewhere,
        &s.groups,
        s.max_attempts,
    );
    let mut tracker = Tracker::new(&s.tracker);
    let swx = s.swx.classifier();
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
        egress: &EgressSpec,
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
            egress: Egress::new(egress, base),
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
                    e.decide(kind(*request), prio(*priority), t);
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
                        e.decide(kind(*request), prio(*priority), t);
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
                    e.decide_message(mt, prio(*priority), t);
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
