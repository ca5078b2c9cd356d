//! Per-connection egress message throttling with congestion levels, in the style of the
//! signalling routers' "Per Connection Egress Message Throttling" (PCEMT, Oracle DSR).
//!
//! One [`EgressThrottle`] guards one egress connection (a PFCP association, a Diameter or
//! GTPv2-C connection). The caller asks it before sending each message and it answers
//! *send* or *throttle*. It is independent of the peer's overload reports (TS 29.244
//! clause 6.2.4.4 OCI and the [`crate::loss`] throttle). It protects a peer whose capacity is
//! known up front, and it protects a peer that signals nothing.
//!
//! ## Measured rate (the EMR)
//!
//! The *egress message rate* counts requests **and** answers, as in DSR: "the EMR on a
//! Connection being throttled is equivalent to the egress Request rate + the egress Answer
//! rate". Every message offered for the connection is counted, whether it was sent or
//! throttled. That means every [`EgressThrottle::decide`] and every [`EgressThrottle::on_send`].
//! This is DSR's "offered rate", and it is what drives the levels. Because throttling does not
//! lower the measured rate, there is no feedback loop: a steady offered rate gives a steady
//! level. Had the levels followed the rate *admitted* after throttling, the level would
//! oscillate by itself.
//!
//! The rate is recomputed on every [`EgressConfig::tick`] (default 100 ms, as DSR). It is the
//! number of messages counted in the last [`EgressConfig::convergence_time`] (a sliding
//! window of whole ticks) divided by that time. A step in the real rate is fully reflected
//! after one convergence time. Before the first window has elapsed the traffic before
//! creation counts as zero. See [`EgressThrottle::measured_rate`].
//!
//! ## Congestion levels (1 to 3 throttle/abatement threshold pairs)
//!
//! Each [`ThresholdPair`] `x` holds a throttle threshold TT-x and an abatement threshold AT-x,
//! both in percent of [`EgressConfig::max_rate`] (the Max EMR). On each tick:
//!
//! * the level **rises** at once to the highest `x` whose TT-x the measured rate has reached
//!   (`rate >= TT-x`);
//! * otherwise the level `L` **falls** to `L - 1` once the rate has been below AT-L
//!   (`rate < AT-L`) on every tick for at least [`EgressConfig::abatement_time`]. It can
//!   fall several levels on one tick if the lower abatement timers have also run out.
//!
//! So a rate that stays between AT-x and TT-x never changes the level, and a level is held
//! for at least one abatement time before it falls. This follows DSR's warning that abatement
//! set too close to onset makes the level oscillate.
//!
//! At level `x`, requests with a priority *lower* than the level's cut-off
//! [`EgressConfig::level_cutoff`] are throttled with [`ThrottleReason::Level`]. DSR calls
//! these "Requests with Priority below x". In PFCP, 0 is the *highest* priority (clause
//! 7.2.2.4.1), so the throttled requests are those with a numerically *larger* value than the
//! cut-off. The defaults are as follows: level 1 throttles 12..=15, level 2 throttles 8..=15
//! and level 3 throttles 4..=15.
//!
//! ## Hard cap at the Max EMR
//!
//! Besides the levels, a token bucket holds the *admitted* messages (requests sent and every
//! answer) to [`EgressConfig::max_rate`]. Tokens accrue continuously, not per tick, up to
//! [`EgressConfig::burst`] messages. **Answers are never throttled** (dropping one would only
//! cause the request to be retransmitted), but each answer takes a token. The bucket may go
//! into debt by up to one burst, so answers take their share of the Max EMR first, and
//! requests get what is left. The cap bounds the admitted messages over any interval of length
//! `T` to `max_rate * T + burst`.
//!
//! How the cap chooses which requests get the tokens:
//!
//! 1. On each tick the throttle takes the demand of each priority over the same window. The
//!    demand counts the requests that passed the level and pending checks, whether or not
//!    they got a token.
//! 2. It fills the Max EMR with the answers first, then with the demand of priority 0, 1, and
//!    so on. The first priority that no longer fits is the *boundary*
//!    ([`EgressThrottle::rate_limit_boundary`]).
//! 3. A request then needs the following number of tokens in the bucket, or it is throttled
//!    with [`ThrottleReason::RateLimit`]:
//!    * Between 1 and `1 + (burst - 1) / 4` if its priority is higher than the boundary:
//!      1 for priority 0, more the lower the priority. Only a cluster of arrivals that
//!      drains the bucket can shed these requests, and then the lowest of them go first.
//!    * `1 + (burst - 1) / 2` at the boundary. It takes what the higher priorities leave, and
//!      keeps half a burst for their clusters of arrivals.
//!    * Between `1 + 3 (burst - 1) / 4` and `burst` for lower priorities, more the lower the
//!      priority. These requests only go when the bucket fills, that is, when the demand
//!      estimate was too high.
//! 4. While no priority is estimated to exceed the Max EMR, the ladder covers the whole
//!    bucket: priority `p` needs `1 + (burst - 1) * p / 15` tokens. This is the case below the
//!    Max EMR, during the first window, and in the first ticks of a sudden overload. The ladder
//!    still protects the higher priorities until the estimate catches up, within one
//!    convergence time.
//!
//! So under a sustained overload the bucket settles at the boundary priority's threshold, and
//! the cap sheds the lowest priorities first instead of cutting every priority in proportion.
//! This is DSR's "Limit" mode. Set `burst` to 1 for a flat cap that ignores priority.
//!
//! With the cap, the admitted rate stays at the Max EMR (98-100 %) at any offered load above
//! it, as long as the levels leave enough traffic (see the crate's tests). For a pure limit
//! mode, set every cut-off to priority 15. Then the levels only report the congestion state,
//! and the cap alone sheds, lowest priority first.
//!
//! ## Pending transactions
//!
//! With [`EgressConfig::max_pending`] set, a request is throttled with
//! [`ThrottleReason::PendingLimit`] while that many requests admitted by
//! [`EgressThrottle::decide`] have not been ended with
//! [`EgressThrottle::on_transaction_end`].
//!
//! ## Time
//!
//! The throttle is sans-IO. Every method that takes `now` first catches up with the ticks
//! that are due. That makes the recomputation lazy, and a caller that only calls
//! [`EgressThrottle::decide`] needs no timer. A caller that wants the level to fall while the
//! connection is idle, for metrics, can also arm a timer at
//! [`EgressThrottle::poll_timeout`] and call [`EgressThrottle::handle_timeout`]. The two ways
//! give the same result. An idle gap of any length costs about one convergence window of
//! work.
//! Time going backwards is read as no time passing.
//!
//! ## Example
//!
//! ```
//! use std::time::{Duration, Instant};
//! use pfcp_throttle::egress::{
//!     EgressConfig, EgressDecision, EgressThrottle, MessageKind, ThresholdPair, ThrottleReason,
//! };
//! use pfcp_wire::MessagePriority;
//!
//! // Max EMR 1000 msg/s and three threshold pairs: 60/55, 80/75 and 100/90 %.
//! let mut config = EgressConfig::new(1000);
//! config.thresholds = [
//!     Some(ThresholdPair::new(60, 55)),
//!     Some(ThresholdPair::new(80, 75)),
//!     Some(ThresholdPair::new(100, 90)),
//! ];
//! let start = Instant::now();
//! let mut conn = EgressThrottle::new(config, start)?;
//!
//! // Offer 850 msg/s (answers here) for two seconds: above TT-2 (80 %), below TT-3.
//! for i in 0..1700u64 {
//!     conn.on_send(MessageKind::Answer, start + Duration::from_micros(i * 1_000_000 / 850));
//! }
//! let now = start + Duration::from_secs(2);
//! conn.handle_timeout(now);
//! assert_eq!(conn.level(), 2);
//!
//! // Level 2 throttles priorities 8..=15 (the default cut-off is 7); 0..=7 still go.
//! let low = MessagePriority::new(9).unwrap();
//! let high = MessagePriority::new(3).unwrap();
//! assert_eq!(
//!     conn.decide(MessageKind::Request, low, now),
//!     EgressDecision::Throttle(ThrottleReason::Level(2))
//! );
//! assert!(conn.decide(MessageKind::Request, high, now).is_send());
//! // Answers are never throttled.
//! assert!(conn.decide(MessageKind::Answer, low, now).is_send());
//! # Ok::<(), pfcp_throttle::egress::EgressConfigError>(())
//! ```

use core::time::Duration;
use std::time::Instant;

use pfcp_wire::{MessagePriority, MessageType};

/// Most ticks a convergence window may span (the window is kept as one counter per tick).
pub const MAX_WINDOW_TICKS: u32 = 1024;

/// Token units per message in the cap's bucket (nanosecond resolution at any rate).
const SCALE: i128 = 1_000_000_000;
const NANOS_PER_SEC: u128 = 1_000_000_000;
/// The boundary value while no priority is estimated to exceed the Max EMR.
const NO_BOUNDARY: u8 = 16;

/// Messages counted in one tick.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    /// Every message (the measured rate).
    total: u32,
    /// Answers and messages sent through `on_send`: they take tokens and are never throttled.
    fixed: u32,
    /// Requests per priority that reached the cap (passed the level and pending checks).
    demand: [u32; 16],
}

/// [`Counts`] summed over the window.
#[derive(Debug, Clone, Copy, Default)]
struct WindowSums {
    total: u64,
    fixed: u64,
    demand: [u64; 16],
}

impl WindowSums {
    /// Replaces the counts `old` of one tick by `new`.
    fn replace(&mut self, old: &Counts, new: &Counts) {
        self.total = self.total - u64::from(old.total) + u64::from(new.total);
        self.fixed = self.fixed - u64::from(old.fixed) + u64::from(new.fixed);
        for ((sum, &o), &n) in self.demand.iter_mut().zip(&old.demand).zip(&new.demand) {
            *sum = *sum - u64::from(o) + u64::from(n);
        }
    }
}

const fn prio(value: u8) -> MessagePriority {
    match MessagePriority::new(value) {
        Some(p) => p,
        None => MessagePriority::LOWEST,
    }
}

/// Tokens (in 1/SCALE) a request of priority `q` needs in the bucket under boundary
/// `boundary` (see the module docs, "Hard cap").
fn tokens_needed(burst: u32, boundary: u8, q: u8) -> i128 {
    let spread = i128::from(burst.saturating_sub(1)) * SCALE;
    let q = i128::from(q);
    let b = i128::from(boundary);
    if boundary >= NO_BOUNDARY {
        SCALE + spread * q / 15
    } else if q < b {
        // The lower quarter, as a ladder: in a cluster of arrivals that drains the
        // bucket, the highest priorities go last.
        SCALE + spread / 4 * q / b
    } else if q == b {
        SCALE + spread / 2
    } else {
        // The upper half of the bucket above the boundary's threshold, as a ladder.
        let half = (spread - spread / 2) / 2;
        SCALE + spread / 2 + half + (spread - spread / 2 - half) * (q - b - 1) / (15 - b).max(1)
    }
}

/// [`tokens_needed`] for every priority.
fn needed_table(burst: u32, boundary: u8) -> [i128; 16] {
    let mut t = [0; 16];
    for (q, n) in (0u8..).zip(t.iter_mut()) {
        *n = tokens_needed(burst, boundary, q);
    }
    t
}

mod config;
pub use config::{EgressConfig, EgressConfigError, ThresholdPair};

/// Whether a message is a request (a throttling candidate) or an answer (never throttled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// A request: counted, and throttled as the level, pending limit and cap say.
    Request,
    /// An answer (a PFCP response): counted and always sent (TS 29.244 6.2.4.4: only requests
    /// are throttled).
    Answer,
}

impl MessageKind {
    /// The kind of a PFCP message type ([`MessageType::is_request`]; anything else is
    /// treated as an answer).
    pub const fn of(message_type: MessageType) -> Self {
        if message_type.is_request() {
            MessageKind::Request
        } else {
            MessageKind::Answer
        }
    }
}

/// The decision for one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum EgressDecision {
    /// Send it: it has been counted as sent.
    Send,
    /// Do not send it on this connection. Route it elsewhere
    /// ([`crate::routing`]), or fail it locally as though the peer had rejected it.
    Throttle(ThrottleReason),
}

impl EgressDecision {
    /// Whether the message may be sent.
    pub const fn is_send(self) -> bool {
        matches!(self, EgressDecision::Send)
    }
}

/// Why a request was throttled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottleReason {
    /// The connection's congestion level (1..=3) throttles the request's priority.
    Level(u8),
    /// The hard cap at the Max EMR: no token for a request of this priority.
    RateLimit,
    /// [`EgressConfig::max_pending`] requests are outstanding.
    PendingLimit,
}

/// Counters since creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EgressStats {
    /// Requests counted in the measured rate: [`EgressThrottle::decide`] whatever the
    /// outcome, plus [`EgressThrottle::on_send`].
    pub offered_requests: u64,
    /// Answers counted in the measured rate.
    pub offered_answers: u64,
    /// Requests sent: admitted by `decide`, plus `on_send`.
    pub sent_requests: u64,
    /// Answers sent (all of them).
    pub sent_answers: u64,
    /// Requests throttled by the congestion level.
    pub throttled_level: u64,
    /// Requests throttled by the cap.
    pub throttled_rate: u64,
    /// Requests throttled by the pending limit.
    pub throttled_pending: u64,
    /// Throttled requests per priority value (all reasons).
    pub throttled_by_priority: [u64; 16],
    /// How many times the level changed value (a jump of several levels counts once).
    pub level_changes: u64,
    /// Ticks processed.
    pub ticks: u64,
}

/// The egress throttle of one connection: DSR's Per Connection Egress Message Throttling
/// (levels from throttle/abatement thresholds on the EMR), a hard cap at the Max EMR and an
/// optional pending-transaction limit. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct EgressThrottle {
    config: EgressConfig,
    tick_ns: u64,
    /// The window length in nanoseconds (whole ticks).
    window_ns: u128,
    /// Instant of the next tick.
    next_tick: Instant,
    /// False once the next tick lies past the instants `Instant` can represent (a tick near
    /// `Duration::MAX`): no tick comes any more. Without it the unrepresentable tick was left
    /// at the last one processed, due again at once, forever (fuzz-found).
    ticking: bool,
    /// Counts per completed tick, a ring over the window.
    slots: Vec<Counts>,
    cursor: usize,
    /// Counts of the current (incomplete) tick.
    current: Counts,
    /// Sums over the ring.
    window: WindowSums,
    /// The cap's boundary priority (0..=15), or 16 while no priority is estimated to exceed
    /// the Max EMR.
    boundary: u8,
    /// Tokens (in 1/SCALE) a request of each priority needs under the current boundary:
    /// recomputed when the boundary changes, so a decision does no 128-bit division.
    needed: [i128; 16],
    /// The last tick measured a zero rate.
    last_zero: bool,
    level: u8,
    /// Per level: since when (tick instant) the rate has been below its AT.
    below_since: [Option<Instant>; 3],
    /// Cap bucket in 1/SCALE messages, between -capacity and capacity.
    tokens: i128,
    capacity: i128,
    last_refill: Instant,
    pending: u32,
    stats: EgressStats,
}

impl EgressThrottle {
    /// A throttle at level 0 with a full bucket, ticking from `now`. Fails if the
    /// configuration does not pass [`EgressConfig::validate`].
    pub fn new(config: EgressConfig, now: Instant) -> Result<Self, EgressConfigError> {
        config.validate()?;
        let n = config.window_ticks();
        let tick_ns = u64::try_from(config.tick.as_nanos()).unwrap_or(u64::MAX);
        let capacity = i128::from(config.burst) * SCALE;
        Ok(EgressThrottle {
            config,
            tick_ns,
            window_ns: u128::from(n) * u128::from(tick_ns),
            next_tick: now.checked_add(config.tick).unwrap_or(now),
            ticking: now.checked_add(config.tick).is_some(),
            slots: vec![Counts::default(); n as usize],
            cursor: 0,
            current: Counts::default(),
            window: WindowSums::default(),
            boundary: NO_BOUNDARY,
            needed: needed_table(config.burst, NO_BOUNDARY),
            last_zero: true,
            level: 0,
            below_since: [None; 3],
            tokens: capacity,
            capacity,
            last_refill: now,
            pending: 0,
            stats: EgressStats::default(),
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &EgressConfig {
        &self.config
    }

    /// Counters since creation.
    pub fn stats(&self) -> &EgressStats {
        &self.stats
    }

    /// The congestion level, 0 (not congested) to 3, as of the last tick processed.
    pub fn level(&self) -> u8 {
        self.level
    }

    /// The measured rate (messages per second, requests plus answers offered) as of the
    /// last tick processed: the count over the last convergence window divided by its length.
    pub fn measured_rate(&self) -> f64 {
        self.window.total as f64 * 1e9 / self.window_ns.max(1) as f64
    }

    /// Requests admitted and not yet ended.
    pub fn pending(&self) -> u32 {
        self.pending
    }

    /// Decides for a PFCP message, with the kind taken from its type. See
    /// [`EgressThrottle::decide`].
    pub fn decide_message(
        &mut self,
        message_type: MessageType,
        priority: MessagePriority,
        now: Instant,
    ) -> EgressDecision {
        self.decide(MessageKind::of(message_type), priority, now)
    }

    /// Decides for a message about to be sent on the connection at `now`, and counts it in the
    /// measured rate whatever the outcome. An answer is always sent. A request is throttled by
    /// the congestion level first, then by the pending limit, then by the cap. If the decision
    /// is [`EgressDecision::Send`], the message is counted as sent: it takes a token and, if
    /// it is a request, a pending slot. So call this once per message, and do not also call
    /// [`EgressThrottle::on_send`] for it.
    ///
    /// For a request without a PFCP priority, pass the one your classifier assigns.
    pub fn decide(
        &mut self,
        kind: MessageKind,
        priority: MessagePriority,
        now: Instant,
    ) -> EgressDecision {
        self.advance(now);
        self.refill(now);
        self.current.total = self.current.total.saturating_add(1);
        if kind == MessageKind::Answer {
            self.current.fixed = self.current.fixed.saturating_add(1);
            self.stats.offered_answers += 1;
            self.take_token();
            self.stats.sent_answers += 1;
            return EgressDecision::Send;
        }
        self.stats.offered_requests += 1;
        let reason = if self.level_throttles(priority) {
            Some(ThrottleReason::Level(self.level))
        } else if self.config.max_pending.is_some_and(|m| self.pending >= m) {
            Some(ThrottleReason::PendingLimit)
        } else {
            // Demand on the cap, whether or not it gets a token.
            if let Some(d) = self.current.demand.get_mut(usize::from(priority.value())) {
                *d = d.saturating_add(1);
            }
            let needed = self.needed.get(usize::from(priority.value()));
            if needed.is_none_or(|&n| self.tokens < n) {
                Some(ThrottleReason::RateLimit)
            } else {
                None
            }
        };
        match reason {
            Some(reason) => {
                match reason {
                    ThrottleReason::Level(_) => self.stats.throttled_level += 1,
                    ThrottleReason::RateLimit => self.stats.throttled_rate += 1,
                    ThrottleReason::PendingLimit => self.stats.throttled_pending += 1,
                }
                if let Some(n) = self
                    .stats
                    .throttled_by_priority
                    .get_mut(usize::from(priority.value()))
                {
                    *n += 1;
                }
                EgressDecision::Throttle(reason)
            }
            None => {
                self.take_token();
                self.pending = self.pending.saturating_add(1);
                self.stats.sent_requests += 1;
                EgressDecision::Send
            }
        }
    }

    /// Records a message sent at `now` without a decision, for example an answer that
    /// the caller does not route through [`EgressThrottle::decide`], or the retransmission of
    /// a request that was admitted before. It counts in the measured rate and takes a token
    /// (the bucket may go into debt). It takes no pending slot: a retransmission is not a new
    /// transaction.
    pub fn on_send(&mut self, kind: MessageKind, now: Instant) {
        self.advance(now);
        self.refill(now);
        self.current.total = self.current.total.saturating_add(1);
        self.current.fixed = self.current.fixed.saturating_add(1);
        self.take_token();
        match kind {
            MessageKind::Request => {
                self.stats.offered_requests += 1;
                self.stats.sent_requests += 1;
            }
            MessageKind::Answer => {
                self.stats.offered_answers += 1;
                self.stats.sent_answers += 1;
            }
        }
    }

    /// A request admitted by [`EgressThrottle::decide`] has ended: it was answered, it timed
    /// out, or it was abandoned. This frees its pending slot. Extra calls are ignored.
    pub fn on_transaction_end(&mut self) {
        self.pending = self.pending.saturating_sub(1);
    }

    /// When the next tick is due, or `None` while nothing can change without new traffic
    /// (an empty window at level 0) or when no tick can come any more (the next one would
    /// lie past the instants `Instant` can represent). Calling
    /// [`EgressThrottle::handle_timeout`] then is optional, because every method that takes
    /// `now` catches up by itself.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let idle = self.window.total == 0 && self.current.total == 0 && self.level == 0;
        if idle || !self.ticking {
            None
        } else {
            Some(self.next_tick)
        }
    }

    /// Processes the ticks due at `now` (recomputes the measured rate and the level) and
    /// refills the cap's bucket.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.advance(now);
        self.refill(now);
    }

    fn level_throttles(&self, priority: MessagePriority) -> bool {
        let Some(index) = usize::from(self.level).checked_sub(1) else {
            return false;
        };
        self.config
            .level_cutoff
            .get(index)
            .is_some_and(|cut| priority > *cut)
    }

    /// The boundary priority of the cap, as of the last tick: the highest priority whose
    /// demand, added to the answers' and the higher priorities', no longer fits in the Max
    /// EMR. `None` while everything is estimated to fit. See the module docs, "Hard cap".
    pub fn rate_limit_boundary(&self) -> Option<MessagePriority> {
        MessagePriority::new(self.boundary)
    }

    fn take_token(&mut self) {
        self.tokens = (self.tokens - SCALE).max(-self.capacity);
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last_refill);
        if elapsed.is_zero() {
            return;
        }
        self.last_refill = now;
        let add = i128::try_from(elapsed.as_nanos())
            .unwrap_or(i128::MAX)
            .saturating_mul(i128::from(self.config.max_rate));
        self.tokens = self.tokens.saturating_add(add).min(self.capacity);
    }

    /// Processes every tick up to `now`. Once the window is empty and a zero rate has been
    /// seen, every following tick sees the same zero rate. Such ticks are skipped, up to the
    /// next instant the level can fall (its abatement timer, which the first zero tick
    /// started) or up to `now`. That gives the same levels and counters as processing
    /// every tick, at a cost of about one window plus two ticks per level.
    fn advance(&mut self, now: Instant) {
        while self.ticking && self.next_tick <= now {
            if self.window.total == 0
                && self.current.total == 0
                && self.last_zero
                && self.tick_ns > 0
            {
                let limit = match usize::from(self.level).checked_sub(1) {
                    None => now,
                    Some(index) => match self.below_since.get(index).copied().flatten() {
                        // An abatement time that ends past the representable instants never
                        // runs out: the level cannot fall, skip to `now` (fuzz-found: this
                        // used to fall back to one tick at a time, a hang on a long gap).
                        Some(t) => t
                            .checked_add(self.config.abatement_time)
                            .map_or(now, |t| t.min(now)),
                        None => self.next_tick,
                    },
                };
                let behind = limit.saturating_duration_since(self.next_tick).as_nanos()
                    / u128::from(self.tick_ns);
                if behind > 0 {
                    let skip_ns = behind.saturating_mul(u128::from(self.tick_ns));
                    let skip = Duration::from_nanos(u64::try_from(skip_ns).unwrap_or(u64::MAX));
                    match self.next_tick.checked_add(skip) {
                        Some(t) => {
                            self.next_tick = t;
                            self.stats.ticks += u64::try_from(behind).unwrap_or(u64::MAX);
                        }
                        None => return,
                    }
                }
            }
            let at = self.next_tick;
            self.tick(at);
            match at.checked_add(self.config.tick) {
                Some(t) => self.next_tick = t,
                None => self.ticking = false,
            }
        }
    }

    /// One tick at instant `at`: close the current tick's counts into the window, then
    /// recompute the level and the cap's boundary.
    fn tick(&mut self, at: Instant) {
        self.stats.ticks += 1;
        let current = core::mem::take(&mut self.current);
        if let Some(slot) = self.slots.get_mut(self.cursor) {
            self.window.replace(slot, &current);
            *slot = current;
        }
        self.cursor = (self.cursor + 1) % self.slots.len().max(1);
        self.last_zero = self.window.total == 0;
        self.update_level(at);
        self.update_boundary();
    }

    /// Fills the Max EMR over the window with the answers and other unthrottled messages
    /// first, then with the request demand of priority 0, 1, ...: the first priority that no
    /// longer fits is the boundary.
    fn update_boundary(&mut self) {
        let budget = u128::from(self.config.max_rate) * self.window_ns;
        let mut used = u128::from(self.window.fixed) * NANOS_PER_SEC;
        let before = self.boundary;
        self.boundary = NO_BOUNDARY;
        for (q, &n) in (0u8..).zip(self.window.demand.iter()) {
            used += u128::from(n) * NANOS_PER_SEC;
            if used > budget {
                self.boundary = q;
                break;
            }
        }
        if self.boundary != before {
            self.needed = needed_table(self.config.burst, self.boundary);
        }
    }

    /// Whether the measured rate is at least `percent` % of the Max EMR (exact integers:
    /// `sum / window >= percent / 100 * max_rate`).
    fn rate_at_least(&self, percent: u8) -> bool {
        u128::from(self.window.total) * 100 * NANOS_PER_SEC
            >= u128::from(percent) * u128::from(self.config.max_rate) * self.window_ns
    }

    fn update_level(&mut self, at: Instant) {
        let mut up = 0u8;
        let mut below = [false; 3];
        for ((level, pair), b) in (1u8..).zip(self.config.thresholds).zip(below.iter_mut()) {
            if let Some(pair) = pair {
                if self.rate_at_least(pair.throttle) {
                    up = level;
                }
                *b = !self.rate_at_least(pair.abatement);
            }
        }
        for (since, b) in self.below_since.iter_mut().zip(below) {
            if b {
                since.get_or_insert(at);
            } else {
                *since = None;
            }
        }
        let before = self.level;
        if up > self.level {
            self.level = up;
        } else {
            while let Some(index) = usize::from(self.level).checked_sub(1) {
                let expired = self
                    .below_since
                    .get(index)
                    .copied()
                    .flatten()
                    .is_some_and(|t| at.saturating_duration_since(t) >= self.config.abatement_time);
                if !expired {
                    break;
                }
                self.level -= 1;
            }
        }
        if self.level != before {
            self.stats.level_changes += 1;
        }
    }
}

#[cfg(test)]
mod tests;
