//! The [`EgressThrottle`] against its documented rules: the configuration refused exactly when
//! the rules of `EgressConfig::validate`'s rustdoc say, and [`Egress`], a throttle with the shadow counts
//! its decisions, two-step checks and timers are checked against.

use std::time::{Duration, Instant};

use pfcp_throttle::egress::MAX_WINDOW_TICKS;
use pfcp_throttle::{
    EgressConfig, EgressConfigError, EgressDecision, EgressStats, EgressThrottle, MessageKind,
    RequestClass, ThresholdPair, ThrottleReason,
};
use pfcp_wire::MessageType;

use super::EgressEvent;
use crate::throttle::{prio, EgressSpec, When};

/// Every rule of `EgressConfig::validate`'s rustdoc that `c` breaks, as the error naming it,
/// each rule checked on its own (not as a sequence of early returns, which would copy the
/// code): `validate` must return `Ok` exactly when none is broken, else one of them, and one
/// of the first bullet broken (the rustdoc lists the scalar fields first, in order).
pub(crate) fn broken_rules(c: &EgressConfig) -> Vec<Vec<EgressConfigError>> {
    use EgressConfigError as E;
    let mut bullets: Vec<Vec<EgressConfigError>> = Vec::new();
    bullets.push(if c.max_rate == 0 {
        vec![E::MaxRate]
    } else {
        vec![]
    });
    bullets.push(if c.tick == Duration::ZERO {
        vec![E::Tick]
    } else {
        vec![]
    });
    // "spans 1..=MAX_WINDOW_TICKS ticks": some time, and no longer than the last tick's end.
    let spans = c.tick > Duration::ZERO
        && c.convergence_time > Duration::ZERO
        && c.tick
            .checked_mul(MAX_WINDOW_TICKS)
            .is_none_or(|w| c.convergence_time <= w);
    bullets.push(if c.tick > Duration::ZERO && !spans {
        vec![E::ConvergenceTime {
            convergence_time: c.convergence_time,
            tick: c.tick,
        }]
    } else {
        vec![]
    });
    let mut counts = Vec::new();
    if c.burst < 1 {
        counts.push(E::Burst);
    }
    if matches!(c.max_pending, Some(n) if n < 1) {
        counts.push(E::MaxPending);
    }
    bullets.push(counts);
    // The thresholds: levels 1..=3 as (level, pair) for the configured ones.
    let pairs: Vec<(u8, ThresholdPair)> = (1u8..=3)
        .zip(c.thresholds)
        .filter_map(|(l, p)| p.map(|p| (l, p)))
        .collect();
    let mut levels = Vec::new();
    if c.thresholds.first().copied().flatten().is_none() {
        levels.push(E::MissingFirstPair);
    }
    for &(level, _) in &pairs {
        let below_configured = level == 1 || pairs.iter().any(|&(l, _)| l + 1 == level);
        if !below_configured {
            levels.push(E::PairWithoutLower { level });
        }
    }
    let mut values = Vec::new();
    for &(level, p) in &pairs {
        if p.throttle < 2 || p.throttle > 100 {
            values.push(E::ThrottleRange {
                level,
                value: p.throttle,
            });
        }
        if p.abatement == 0 || p.abatement > 99 {
            values.push(E::AbatementRange {
                level,
                value: p.abatement,
            });
        }
        if p.abatement >= p.throttle {
            values.push(E::AbatementNotBelowThrottle {
                level,
                throttle: p.throttle,
                abatement: p.abatement,
            });
        }
        if let Some(&(_, lower)) = pairs.iter().find(|&&(l, _)| l + 1 == level) {
            if p.throttle <= lower.throttle {
                values.push(E::ThrottleNotIncreasing {
                    level,
                    value: p.throttle,
                    lower: lower.throttle,
                });
            }
            if p.abatement <= lower.abatement {
                values.push(E::AbatementNotIncreasing {
                    level,
                    value: p.abatement,
                    lower: lower.abatement,
                });
            }
        }
    }
    // The threshold bullets are checked level by level: any of them may come first.
    levels.extend(values);
    bullets.push(levels);
    let mut cutoffs = Vec::new();
    for level in 2u8..=3 {
        let i = usize::from(level - 1);
        let (Some(lower), Some(cut)) = (c.level_cutoff.get(i - 1), c.level_cutoff.get(i)) else {
            continue;
        };
        if cut.value() > lower.value() {
            cutoffs.push(E::CutoffNotMonotonic {
                level,
                value: cut.value(),
                lower: lower.value(),
            });
        }
    }
    bullets.push(cutoffs);
    bullets.retain(|b| !b.is_empty());
    bullets
}

/// `validate`'s answer is one the rules allow ([`broken_rules`]).
fn check_validity(c: &EgressConfig) -> Result<(), EgressConfigError> {
    let got = c.validate();
    let broken = broken_rules(c);
    match (&got, broken.first()) {
        (Ok(()), None) => {}
        (Err(e), Some(first)) => assert!(
            first.contains(e),
            "validate() returned {e:?}; the first rule broken allows {first:?} (all: {broken:?})"
        ),
        (got, first) => panic!("validate() {got:?} but the rules broken are {first:?}"),
    }
    got
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
        let want = check_validity(&config);
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
