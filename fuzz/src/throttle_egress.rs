//! The egress half of the `throttle` fuzz harness (`throttle.rs` runs it): the
//! [`EgressThrottle`]'s configuration rules against a model, its decisions, two-step checks,
//! every message kind, exempt requests and the level-only mode against their documented
//! invariants; [`PeerThrottles`] (Loss and egress together); configuration sets and the
//! per-connection Max EMR against a model; the router priority mapping. Included with
//! `#[path]` by `crates/pfcp-throttle/tests/fuzz_corpus.rs` as well; only `std`,
//! `arbitrary`, `pfcp-wire` and `pfcp-throttle`.

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use arbitrary::Arbitrary;
use pfcp_throttle::egress::{EgressConfigSets, EgressSetError, MAX_WINDOW_TICKS};
use pfcp_throttle::peer::{PeerThrottles, Refusal};
use pfcp_throttle::{
    Decision, EgressConfig, EgressConfigError, EgressDecision, EgressStats, EgressThrottle,
    LossConfig, LossThrottle, MessageKind, RequestClass, RouterPriority, ThresholdPair,
    ThrottleReason, UNPRIORITISED,
};
use pfcp_wire::{MessagePriority, MessageType};

use crate::throttle::{prio, EgressSpec, LossSpec, ShapedEgressSpec, When};

// ---------------------------------------------------------------------------------------------
// The input (second format)

/// Any message kind: 0 request, 1 answer, 2 retransmission, 3 management (mod 4).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct KindSpec(u8);

impl KindSpec {
    pub(crate) fn kind(self) -> MessageKind {
        match self.0 % 4 {
            0 => MessageKind::Request,
            1 => MessageKind::Answer,
            2 => MessageKind::Retransmission,
            _ => MessageKind::Management,
        }
    }
}

/// A request class: priority mod 16, exempt or not, or unprioritised.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct ClassSpec {
    priority: Option<u8>,
    exempt: bool,
}

impl ClassSpec {
    pub(crate) fn class(self) -> RequestClass {
        match (self.priority, self.exempt) {
            (None, false) => RequestClass::default(),
            (None, true) => RequestClass::exempt(UNPRIORITISED),
            (Some(p), false) => RequestClass::new(prio(p)),
            (Some(p), true) => RequestClass::exempt(prio(p)),
        }
    }
}

/// An egress event of the second format.
#[derive(Arbitrary, Debug, Clone)]
pub enum EgressEvent {
    /// `decide` with any kind and class.
    Decide(KindSpec, ClassSpec, When),
    /// `check`, then `commit` at the same instant if it passed and `commit` is set.
    Check {
        /// Kind.
        kind: KindSpec,
        /// Class.
        class: ClassSpec,
        /// Commit a passed check.
        commit: bool,
        /// When.
        when: When,
    },
    /// `on_send` with any kind.
    OnSend(KindSpec, When),
    /// `decide_message` with a class.
    Message(u8, ClassSpec, When),
}

/// The peer of [`PeerThrottles`]: a Loss throttle (its own configuration) and the egress
/// configuration of the scenario.
#[derive(Arbitrary, Debug, Clone)]
pub enum PeerEvent {
    /// A reduction.
    Reduction(u8),
    /// `decide` (or `admit` for a routed request), with a draw for random mode.
    Request {
        /// Class.
        class: ClassSpec,
        /// `admit` instead of `decide`.
        routed: bool,
        /// Random mode draw.
        draw: Option<u32>,
        /// When.
        when: When,
    },
    /// Another message sent.
    OnSend(KindSpec, When),
    /// A transaction ended.
    End,
}

/// Configuration sets, built and queried against a model.
#[derive(Arbitrary, Debug, Clone)]
pub struct SetsSpec {
    /// Sets: a name (mod 4, so some repeat) and a configuration.
    sets: Vec<(u8, ShapedEgressSpec)>,
    /// The default set, by index.
    default: Option<u8>,
    /// Operations, then queries.
    ops: Vec<SetsOp>,
}

/// One operation on configuration sets. Connections are `u8 % 8`, sets an index into those
/// added.
#[derive(Arbitrary, Debug, Clone)]
pub enum SetsOp {
    /// `assign`.
    Assign(u8, u8),
    /// `assign_with_max_rate`.
    AssignRate(u8, u8, u32),
    /// `assign_peer`.
    Peer(Vec<u8>, u8, u32),
    /// `unassign`.
    Unassign(u8),
    /// `config_for` and `throttle_for`, against the model.
    Query(u8),
}

// ---------------------------------------------------------------------------------------------
// Egress

/// The documented rules of `EgressConfig::validate`, as a model: the first error in the
/// documented order.
pub(crate) fn expected_validity(c: &EgressConfig) -> Result<(), EgressConfigError> {
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

/// The configuration of `s` (`hard_cap` from the second format; the first keeps the cap).
pub(crate) fn egress_config(s: &EgressSpec, hard_cap: bool) -> EgressConfig {
    let s = match s {
        EgressSpec::Raw(s) => s,
        EgressSpec::Shaped(s) => {
            let c = s.config().with_hard_cap(hard_cap);
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
    c.with_hard_cap(hard_cap)
}

/// An egress throttle and the shadow counts its invariants are checked against.
pub(crate) struct Egress {
    pub(crate) t: EgressThrottle,
    config: EgressConfig,
    start: Instant,
    /// The latest instant passed in.
    pub(crate) latest: Instant,
    /// Non-exempt requests admitted (the cap's bound).
    admitted: u64,
    pending: u32,
    ticks: u64,
    /// Every message counted in the measured rate.
    counted: u64,
    checks_refused: u64,
}

impl Egress {
    pub(crate) fn new(s: &EgressSpec, hard_cap: bool, start: Instant) -> Option<Egress> {
        let config = egress_config(s, hard_cap);
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
                    counted: 0,
                    checks_refused: 0,
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

    pub(crate) fn config(&self) -> EgressConfig {
        self.config
    }

    pub(crate) fn at(&mut self, now: &mut Instant, when: When) -> Instant {
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

    pub(crate) fn decide(&mut self, kind: MessageKind, class: RequestClass, t: Instant) {
        let before = *self.t.stats();
        let d = self.t.decide(kind, class, t);
        self.counted += 1;
        self.after(kind, class, d, &before, true);
    }

    pub(crate) fn decide_message(&mut self, mt: MessageType, class: RequestClass, t: Instant) {
        let before = *self.t.stats();
        let d = self.t.decide_message(mt, class, t);
        let kind = MessageKind::of(mt);
        assert_eq!(kind == MessageKind::Answer, !mt.is_request());
        assert_eq!(kind.is_throttled(), kind == MessageKind::Request);
        self.counted += 1;
        self.after(kind, class, d, &before, true);
    }

    /// `check`, then `commit` if it passed and `commit` is set.
    pub(crate) fn check_commit(
        &mut self,
        kind: MessageKind,
        class: RequestClass,
        commit: bool,
        t: Instant,
    ) {
        let before = *self.t.stats();
        let checked = self.t.check(kind, class, t);
        let s = *self.t.stats();
        // A check counts nothing but a refusal.
        assert_eq!(
            s.counted(),
            before.counted(),
            "a check was counted as offered"
        );
        assert_eq!(s.sent_requests, before.sent_requests);
        assert_eq!(self.t.pending(), self.pending);
        match checked {
            Ok(permit) => {
                assert_eq!((permit.kind(), permit.class()), (kind, class));
                assert_eq!(s.checks_refused, before.checks_refused);
                if commit {
                    self.t.commit(permit, t);
                    self.counted += 1;
                    self.after(kind, class, EgressDecision::Send, &before, true);
                    return;
                }
            }
            Err(reason) => {
                assert_eq!(s.checks_refused, before.checks_refused + 1);
                self.checks_refused += 1;
                self.check_reason(kind, class, reason);
            }
        }
        self.check();
    }

    /// The documented meaning of a refusal of a message of `kind` and `class`.
    fn check_reason(&self, kind: MessageKind, class: RequestClass, reason: ThrottleReason) {
        assert_eq!(kind, MessageKind::Request, "{kind:?} throttled");
        let priority = class.priority;
        match reason {
            ThrottleReason::Level(l) => {
                assert!(!class.exempt, "an exempt request refused by the level");
                assert_eq!(l, self.t.level(), "reported level");
                assert!((1..=3).contains(&l));
                let cut = self.config.level_cutoff[usize::from(l) - 1];
                assert!(priority > cut, "{priority:?} within cut-off {cut:?}");
            }
            ThrottleReason::PendingLimit => {
                let m = self.config.max_pending.expect("a pending limit");
                assert!(self.t.pending() >= m);
            }
            ThrottleReason::RateLimit => {
                assert!(!class.exempt, "an exempt request refused by the cap");
                assert!(self.config.hard_cap, "the cap refused in level-only mode");
            }
        }
    }

    /// Checks after a decision (`counted`: it was counted in the rate).
    fn after(
        &mut self,
        kind: MessageKind,
        class: RequestClass,
        d: EgressDecision,
        before: &EgressStats,
        counted: bool,
    ) {
        let s = *self.t.stats();
        if counted {
            assert_eq!(s.counted(), before.counted() + 1, "one message counted");
        }
        if kind != MessageKind::Request {
            assert_eq!(d, EgressDecision::Send, "{kind:?} throttled");
            let (got, was) = match kind {
                MessageKind::Answer => (s.sent_answers, before.sent_answers),
                MessageKind::Retransmission => {
                    (s.sent_retransmissions, before.sent_retransmissions)
                }
                MessageKind::Management => (s.sent_management, before.sent_management),
                _ => panic!("a kind the harness does not know"),
            };
            assert_eq!(got, was + 1, "{kind:?} counted");
        } else {
            assert_eq!(s.offered_requests, before.offered_requests + 1);
            match d {
                EgressDecision::Send => {
                    assert_eq!(s.sent_requests, before.sent_requests + 1);
                    assert_eq!(s.sent_exempt, before.sent_exempt + u64::from(class.exempt));
                    if !class.exempt {
                        self.admitted += 1;
                    }
                    self.pending = self.pending.saturating_add(1);
                }
                EgressDecision::Throttle(reason) => {
                    assert_eq!(s.sent_requests, before.sent_requests);
                    let p = usize::from(class.priority.value());
                    assert_eq!(
                        s.throttled_by_priority[p],
                        before.throttled_by_priority[p] + 1
                    );
                    self.check_reason(kind, class, reason);
                }
            }
        }
        self.check();
    }

    pub(crate) fn on_send(&mut self, kind: MessageKind, t: Instant) {
        let before = *self.t.stats();
        self.t.on_send(kind, t);
        self.counted += 1;
        let s = *self.t.stats();
        assert_eq!(s.counted(), before.counted() + 1);
        if kind == MessageKind::Request {
            assert_eq!(s.sent_requests, before.sent_requests + 1);
        }
        self.check();
    }

    pub(crate) fn end(&mut self) {
        self.t.on_transaction_end();
        self.pending = self.pending.saturating_sub(1);
        self.check();
    }

    pub(crate) fn timeout(&mut self, t: Instant) {
        self.t.handle_timeout(t);
        assert!(
            self.t.poll_timeout().is_none_or(|p| p > t),
            "egress timer still due after handle_timeout"
        );
        self.check();
    }

    pub(crate) fn event(&mut self, e: &EgressEvent, now: &mut Instant) {
        match e {
            EgressEvent::Decide(k, c, w) => {
                let t = self.at(now, *w);
                self.decide(k.kind(), c.class(), t);
            }
            EgressEvent::Check {
                kind,
                class,
                commit,
                when,
            } => {
                let t = self.at(now, *when);
                self.check_commit(kind.kind(), class.class(), *commit, t);
            }
            EgressEvent::OnSend(k, w) => {
                let t = self.at(now, *w);
                self.on_send(k.kind(), t);
            }
            EgressEvent::Message(mt, c, w) => {
                let t = self.at(now, *w);
                self.decide_message(MessageType(*mt), c.class(), t);
            }
        }
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
        assert!(s.sent_exempt <= s.sent_requests);
        assert_eq!(s.offered_answers, s.sent_answers, "answer counters");
        assert_eq!(s.counted(), self.counted, "messages counted in the rate");
        assert_eq!(s.checks_refused, self.checks_refused, "refused checks");
        assert_eq!(
            s.throttled_by_priority.iter().sum::<u64>(),
            s.throttled_level + s.throttled_rate + s.throttled_pending
        );
        if !self.config.hard_cap {
            assert_eq!(s.throttled_rate, 0, "the cap throttled in level-only mode");
            assert_eq!(t.rate_limit_boundary(), None);
        }
        assert!(s.ticks >= self.ticks, "ticks went down");
        self.ticks = s.ticks;
        assert_eq!(t.pending(), self.pending, "pending");
        if let Some(m) = self.config.max_pending {
            assert!(t.pending() <= m, "pending {} over max {m}", t.pending());
        }
        let rate = t.measured_rate();
        assert!(rate.is_finite() && rate >= 0.0, "measured rate {rate}");
        // The cap: every admitted non-exempt request took a whole token from a bucket that
        // starts full and refills at max_rate.
        if self.config.hard_cap {
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
        }
        let _ = t.rate_limit_boundary();
    }
}

// ---------------------------------------------------------------------------------------------
// Loss and egress together

/// A [`PeerThrottles`] with shadow counts.
pub(crate) struct Peer {
    p: PeerThrottles,
    exact: bool,
    unsent: u64,
    throttled: u64,
}

impl Peer {
    pub(crate) fn new(loss: &LossSpec, egress: Option<EgressConfig>, start: Instant) -> Peer {
        let egress = egress.and_then(|c| EgressThrottle::new(c, start).ok());
        let config = loss_config(loss);
        Peer {
            p: PeerThrottles::new(LossThrottle::new(config), egress),
            exact: config.exact_window,
            unsent: 0,
            throttled: 0,
        }
    }

    pub(crate) fn event(&mut self, e: &PeerEvent, now: &mut Instant) {
        match e {
            PeerEvent::Reduction(r) => self.p.loss_mut().set_reduction(*r),
            PeerEvent::Request {
                class,
                routed,
                draw,
                when,
            } => {
                let t = step(now, *when);
                let class = class.class();
                let loss_before = *self.p.loss().stats();
                let egress_before = self.p.egress().map(|e| *e.stats());
                let got = match (routed, draw) {
                    (false, None) => self.p.decide(class, t),
                    (false, Some(d)) => self.p.decide_with_draw(class, *d, t),
                    (true, None) => self.p.admit(class, t),
                    (true, Some(d)) => self.p.admit_with_draw(class, *d, t),
                };
                let loss = *self.p.loss().stats();
                let egress = self.p.egress().map(|e| *e.stats());
                let rank = class.rank();
                assert_eq!(loss.offered[rank], loss_before.offered[rank] + 1);
                match got {
                    Ok(()) => {
                        assert_eq!(loss.throttled, loss_before.throttled);
                        assert_eq!(loss.unsent, loss_before.unsent);
                        if let (Some(b), Some(a)) = (egress_before, egress) {
                            assert_eq!(a.sent_requests, b.sent_requests + 1, "sent");
                        }
                    }
                    Err(Refusal::Loss(t)) => {
                        self.throttled += 1;
                        assert_eq!(t.class, class);
                        assert_eq!(loss.throttled[rank], loss_before.throttled[rank] + 1);
                        // Refused before the connection: nothing counted there.
                        assert_eq!(egress, egress_before, "a Loss refusal reached egress");
                    }
                    Err(Refusal::Egress(_)) => {
                        let (b, a) = (
                            egress_before.expect("an egress refusal without egress"),
                            egress.expect("egress"),
                        );
                        assert_eq!(a.sent_requests, b.sent_requests);
                        // The request counts as not sent towards the reduction (exempt ones
                        // are not counted in window-exact mode).
                        let unsent = !(self.exact && class.exempt);
                        assert_eq!(
                            loss.unsent[rank],
                            loss_before.unsent[rank] + u64::from(unsent),
                            "unsent"
                        );
                        self.unsent += u64::from(unsent);
                        if *routed {
                            assert_eq!(a.counted(), b.counted(), "a routed refusal was counted");
                            assert_eq!(a.checks_refused, b.checks_refused + 1);
                        } else {
                            assert_eq!(a.counted(), b.counted() + 1);
                            assert_eq!(a.offered_requests, b.offered_requests + 1);
                        }
                    }
                    Err(other) => panic!("a refusal the harness does not know: {other:?}"),
                }
                for r in 0..loss.offered.len() {
                    assert!(
                        loss.throttled[r] + loss.unsent[r] <= loss.offered[r],
                        "rank {r}: throttled {} + unsent {} > offered {}",
                        loss.throttled[r],
                        loss.unsent[r],
                        loss.offered[r]
                    );
                }
            }
            PeerEvent::OnSend(k, w) => {
                let t = step(now, *w);
                let before = self.p.egress().map(|e| e.stats().counted());
                self.p.on_send(k.kind(), t);
                if let Some(b) = before {
                    assert_eq!(self.p.egress().map(|e| e.stats().counted()), Some(b + 1));
                }
            }
            PeerEvent::End => self.p.on_transaction_end(),
        }
        assert_eq!(
            self.p.loss().stats().throttled.iter().sum::<u64>(),
            self.throttled
        );
        assert_eq!(
            self.p.loss().stats().unsent.iter().sum::<u64>(),
            self.unsent
        );
    }
}

/// The Loss configuration of `s`.
pub(crate) fn loss_config(s: &LossSpec) -> LossConfig {
    s.config()
}

/// `now` moved forward by `when` (a backwards step reads as no time).
fn step(now: &mut Instant, when: When) -> Instant {
    let d = match when {
        When::Now | When::Back(_) => Duration::ZERO,
        When::Micros(n) => Duration::from_micros(u64::from(n)),
        When::Millis(n) => Duration::from_millis(u64::from(n)),
        When::Secs(n) => Duration::from_secs(u64::from(n)),
        When::Hours(n) => Duration::from_secs(u64::from(n) * 3600),
    };
    *now = now.checked_add(d).unwrap_or(*now);
    *now
}

// ---------------------------------------------------------------------------------------------
// Configuration sets, the per-connection Max EMR, the router priorities

/// Build the sets of `s` and check every operation against a model.
pub(crate) fn sets(s: &SetsSpec, now: Instant) {
    let mut sets: EgressConfigSets<u8> = EgressConfigSets::new();
    let mut ids = Vec::new();
    let mut names: Vec<u8> = Vec::new();
    let mut configs = Vec::new();
    for (name, spec) in s.sets.iter().take(6) {
        let name = name % 4;
        let config = spec.config();
        match sets.add(format!("set-{name}"), config) {
            Ok(id) => {
                assert!(!names.contains(&name), "a duplicate name was added");
                assert_eq!(sets.find(&format!("set-{name}")), Some(id));
                assert_eq!(sets.set(id), Some(&config));
                names.push(name);
                ids.push(id);
                configs.push(config);
            }
            Err(EgressSetError::DuplicateName(n)) => {
                assert!(names.contains(&name), "{n} refused as a duplicate");
            }
            Err(e) => panic!("a valid set refused: {e}"),
        }
    }
    if ids.is_empty() {
        return;
    }
    let pick = |i: u8| usize::from(i) % ids.len();
    let default = s.default.map(pick);
    sets.set_default(default.map(|i| ids[i]));
    // The model: connection -> (set index, own Max EMR).
    let mut model: HashMap<u8, (usize, Option<u32>)> = HashMap::new();
    for op in s.ops.iter().take(32) {
        match op {
            SetsOp::Assign(c, i) => {
                let (c, i) = (c % 8, pick(*i));
                assert!(sets.assign(c, ids[i]).is_ok());
                model.insert(c, (i, None));
            }
            SetsOp::AssignRate(c, i, rate) => {
                let (c, i) = (c % 8, pick(*i));
                let got = sets.assign_with_max_rate(c, ids[i], *rate);
                let want = configs[i].with_max_rate(*rate).validate();
                assert_eq!(got.is_ok(), want.is_ok(), "assign_with_max_rate {rate}");
                if got.is_ok() {
                    model.insert(c, (i, Some(*rate)));
                }
            }
            SetsOp::Peer(conns, i, capacity) => {
                let i = pick(*i);
                let mut distinct: Vec<u8> = Vec::new();
                for c in conns.iter().take(8).map(|c| c % 8) {
                    if !distinct.contains(&c) {
                        distinct.push(c);
                    }
                }
                let n = distinct.len() as u32;
                let want = EgressConfig::max_rate_per_connection(*capacity, n);
                // The documented rule: capacity / connections, none below 1 msg/s.
                assert_eq!(want, capacity.checked_div(n).filter(|r| *r > 0));
                let got = sets.assign_peer(conns.iter().take(8).map(|c| c % 8), ids[i], *capacity);
                match (got, want) {
                    (Ok(rate), Some(w)) => {
                        assert_eq!(rate, w);
                        assert!(u64::from(rate) * u64::from(n) <= u64::from(*capacity));
                        for c in distinct {
                            model.insert(c, (i, Some(rate)));
                        }
                    }
                    (Err(_), None) => {}
                    (got, want) => panic!("assign_peer {got:?}, model {want:?}"),
                }
                let per = configs[i].for_connection_of(*capacity, n);
                assert_eq!(per.map(|c| c.max_rate).ok(), want);
            }
            SetsOp::Unassign(c) => {
                sets.unassign(&(c % 8));
                model.remove(&(c % 8));
            }
            SetsOp::Query(c) => {
                let c = c % 8;
                let want = match model.get(&c) {
                    Some(&(i, rate)) => {
                        Some(rate.map_or(configs[i], |r| configs[i].with_max_rate(r)))
                    }
                    None => default.map(|i| configs[i]),
                };
                assert_eq!(sets.config_for(&c), want, "config of connection {c}");
                let throttle = sets.throttle_for(&c, now);
                assert_eq!(throttle.map(|t| *t.config()), want);
            }
        }
    }
}

/// The router priority mapping of `value`, checked against the documented table.
pub(crate) fn router(value: u8, pfcp: u8) {
    let r = RouterPriority::new(value);
    assert_eq!(r.is_some(), value <= 4);
    let p = prio(pfcp);
    let from = RouterPriority::from_pfcp(p);
    let (high, low) = from.pfcp_band();
    assert!(high <= p && p <= low, "{p:?} outside the band of {from:?}");
    assert_eq!(RouterPriority::from_pfcp(from.to_pfcp()), from);
    // Level x (cut-off of the table) sends router priority x or greater.
    for (x, cut) in (1u8..).zip(RouterPriority::DEFAULT_LEVEL_CUTOFFS) {
        assert_eq!(p <= cut, from.value() >= x, "{p:?} at level {x}");
    }
    if let Some(r) = r {
        assert_eq!(r.value(), value);
        assert_eq!(r.class().exempt, value == 4);
        assert_eq!(r.class().priority, r.to_pfcp());
    }
    assert_eq!(RequestClass::default(), RequestClass::new(UNPRIORITISED));
    assert_eq!(RequestClass::from(p), RequestClass::new(p));
    let _ = Decision::Send;
    let _: MessagePriority = UNPRIORITISED;
    let _ = MAX_WINDOW_TICKS;
    let _ = EgressConfigError::MaxRate;
}
