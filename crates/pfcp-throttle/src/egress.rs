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
//! throttled. That means every [`EgressThrottle::decide`], every [`EgressThrottle::commit`]
//! and every [`EgressThrottle::on_send`], and nothing else (a refused
//! [`EgressThrottle::check`] is not offered here). For the peer to receive no more than the
//! Max EMR, record **everything** the connection carries: answers, retransmissions
//! ([`MessageKind::Retransmission`]: they surge in overload), Heartbeat and association
//! messages ([`MessageKind::Management`]), each once, through `decide` or `on_send`
//! ([`EgressStats::counted`] sums them). This is DSR's "offered rate", and it is what drives
//! the levels. Because throttling does not
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
//! Besides the levels, the cap holds the *admitted* messages (requests sent, and every
//! answer or other message recorded with [`EgressThrottle::on_send`]) to
//! [`EgressConfig::max_rate`]. An admission window bounds how many, exactly; a token
//! bucket with a priority ladder chooses which requests. **Answers are never throttled**
//! (dropping one would only cause the request to be retransmitted), but each one counts in
//! both, so answers take their share of the Max EMR first, and requests get what is left. If
//! the answers alone fill it, requests get nothing.
//!
//! ### How many: the admission window
//!
//! The ticks cut time into a grid from the throttle's creation. A *window* is any `n`
//! consecutive ticks, `n x tick = T` the convergence time rounded up to whole ticks (the
//! same window as the measured rate's), and its *budget* is `B = max_rate x T` messages,
//! rounded down (at least 1). A request is admitted only if the window ending with the
//! current tick, counting the request, holds at most `B - R` messages, where `R` is a
//! reserve for the answers expected in the rest of the tick (as many as the last tick had,
//! pro rata, plus one).
//!
//! **Guarantee**: in every tick-aligned window of length `T`, the messages admitted up to and
//! including its last admitted request number at most `B`. So with requests only, every
//! window admits at most `max_rate x T`, exactly; answers can take a window past `B` only
//! by those that come after its last request, beyond what the reserve held back. (The
//! windows that contain the current tick and end later hold a subset of what the checked
//! one holds, so checking that one is enough.)
//!
//! ### Who: the bucket and its priority ladder
//!
//! Tokens accrue continuously at `max_rate`, up to [`EgressConfig::burst`] messages. Every
//! admitted message takes one; answers may put the bucket into debt by up to one burst. The
//! bucket also bounds the admitted messages over any interval `τ`, tick-aligned or not, to
//! `max_rate x τ + burst`. How it chooses which requests get the tokens:
//!
//! 1. On each tick the throttle takes the demand of each priority over the window. The
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
//! 5. Near the window's budget the same ladder applies to the window's free places: a
//!    request needs as many free places as tokens, a step that shrinks to one place by the
//!    end of the tick (a place left then is lost to the window; and one place throughout if
//!    the tick opened with less than two bursts of room). The bucket is also cut down to the
//!    free places, though not below the boundary's step, so that tokens saved behind a full
//!    window do not open the next tick with a burst any priority could take.
//!
//! So under a sustained overload the bucket settles at the boundary priority's threshold, and
//! the cap sheds the lowest priorities first instead of cutting every priority in proportion.
//! This is DSR's "Limit" mode. Set `burst` to 1 for a flat cap that ignores priority.
//!
//! With the cap, at any offered load above the Max EMR (and as long as the levels leave
//! enough traffic), every tick-aligned window of the default 1 s admits 98-100 % of
//! `max_rate x T` in the crate's overload simulations (1.5 to 10 times the Max EMR, with
//! answers). With a window of one tick the places left at each tick's end are lost: ticks
//! of 100 ms admit 89-100 % of their budget there, 97-98 % on average. For a pure limit
//! mode, set every cut-off to priority 15. Then the levels only report the congestion
//! state, and the cap alone sheds, lowest priority first.
//!
//! ## Exempt requests
//!
//! A request whose [`RequestClass`] is exempt (eMPS, emergency: the router's priority 4,
//! see [`crate::priority`]) passes every level ("Requests with Priority x or greater are
//! allowed over the Connection") and the cap: it is admitted like an answer, taking a token
//! and a place in the window, and counted in [`EgressStats::sent_exempt`]. It takes a
//! pending slot and meets the pending limit like any request. So exempt traffic can take a
//! window past its budget, as answers can; the non-exempt requests then get less.
//!
//! ## Level-only mode
//!
//! With [`EgressConfig::hard_cap`] off, the levels alone throttle: at level `x` the
//! priorities the cut-off sends go whatever the rate, the others are throttled
//! ([`ThrottleReason::RateLimit`] never happens). This is the router's threshold mode; the
//! cap's bucket and window are not consulted, and [`EgressThrottle::rate_limit_boundary`]
//! is `None`.
//!
//! ## Deciding in two steps
//!
//! [`EgressThrottle::decide`] counts the message whatever the outcome. Where one request is
//! offered to several connections and sent on one (a [`RouteList`](crate::RouteList)),
//! counting the refusals would raise the measured rate of connections that never carry the
//! request, and diverted traffic would keep the preferred group congested. So
//! [`EgressThrottle::check`] asks without counting and returns an [`EgressPermit`], and
//! [`EgressThrottle::commit`] counts it once the message is sent on that connection (drop the
//! permit otherwise). [`PeerThrottles`](crate::peer::PeerThrottles) uses the two steps with
//! the Loss throttle in front.
//!
//! With refusals uncounted the levels follow the carried load: when the diverted traffic
//! would come back and congest the connection again, the level rises again within one
//! convergence time, and the abatement time bounds how often that can happen.
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
//! work. Time going backwards is read as no time passing. The ticks are counted in
//! nanoseconds since the throttle's creation, so they stop 584 years after it.
//!
//! ## Example
//!
//! ```
//! use std::time::{Duration, Instant};
//! use pfcp_throttle::egress::{
//!     EgressConfig, EgressDecision, EgressThrottle, MessageKind, ThresholdPair, ThrottleReason,
//! };
//! use pfcp_throttle::{MessagePriority, RequestClass};
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
//! // Level 2 throttles priorities 8..=15 (the default cut-off is 7); 0..=7 still go, and
//! // so does an exempt (emergency) request of any priority.
//! let low = MessagePriority::new(9).unwrap();
//! let high = MessagePriority::new(3).unwrap();
//! assert_eq!(
//!     conn.decide(MessageKind::Request, low, now),
//!     EgressDecision::Throttle(ThrottleReason::Level(2))
//! );
//! assert!(conn.decide(MessageKind::Request, high, now).is_send());
//! assert!(conn.decide(MessageKind::Request, RequestClass::exempt(low), now).is_send());
//! // Answers are never throttled.
//! assert!(conn.decide(MessageKind::Answer, low, now).is_send());
//! # Ok::<(), pfcp_throttle::egress::EgressConfigError>(())
//! ```

use core::time::Duration;
use std::time::Instant;

use pfcp_wire::{MessagePriority, MessageType};

use crate::loss::RequestClass;

/// Most ticks a convergence window may span (the window is kept as one counter per tick).
pub const MAX_WINDOW_TICKS: u32 = 1024;

const NANOS_PER_SEC: u128 = 1_000_000_000;

/// A duration in whole nanoseconds, `None` if it is longer than a `u64` counts (584 years).
fn nanos(d: Duration) -> Option<u64> {
    u64::try_from(d.as_nanos()).ok()
}

mod cap;
mod config;
mod levels;
mod sets;
mod two_phase;
mod types;
mod window;

use cap::Cap;
pub use config::{EgressConfig, EgressConfigError, ThresholdPair};
pub use sets::{EgressConfigSets, EgressSetError, SetId};
pub use types::{EgressDecision, EgressPermit, EgressStats, MessageKind, ThrottleReason};
use window::Window;

/// The egress throttle of one connection: DSR's Per Connection Egress Message Throttling
/// (levels from throttle/abatement thresholds on the EMR), a hard cap at the Max EMR and an
/// optional pending-transaction limit. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct EgressThrottle {
    config: EgressConfig,
    /// The instant of creation. The ticks, the levels and the window run on nanoseconds since
    /// then, in a `u64`; a decision with no tick due only compares instants (`next_tick_at`,
    /// the bucket's), since an `Instant` subtraction costs as much as the rest of it.
    origin: Instant,
    tick_ns: u64,
    /// [`EgressConfig::abatement_time`] in ns; `None` if too long to count (never runs out).
    abatement_ns: Option<u64>,
    /// The window length in nanoseconds (whole ticks).
    window_ns: u128,
    /// When the next tick is due (ns since `origin`).
    next_tick: u64,
    /// The same as an instant, so that a decision with no tick due compares instants and
    /// does no arithmetic. Once `ticking` is false, the last tick processed.
    next_tick_at: Instant,
    /// False once the next tick lies past what a `u64` of nanoseconds counts (584 years
    /// after creation) or past the instants `Instant` can represent: no tick comes any more.
    /// Without it an unrepresentable tick was left at the last one processed, due again at
    /// once, forever (fuzz-found).
    ticking: bool,
    window: Window,
    cap: Cap,
    /// The last tick measured a zero rate.
    last_zero: bool,
    level: u8,
    /// Requests with a priority value above this are throttled by the level: the level's
    /// cut-off, or 15 (none) at level 0. Kept with the level so a decision does one compare.
    level_cut: u8,
    /// Per level: since when (tick time, ns) the rate has been below its AT.
    below_since: [Option<u64>; 3],
    pending: u32,
    /// [`EgressConfig::max_pending`], `u64::MAX` for none (above any `u32` count).
    pending_limit: u64,
    stats: EgressStats,
}

impl EgressThrottle {
    /// A throttle at level 0 with a full bucket, ticking from `now`. Fails if the
    /// configuration does not pass [`EgressConfig::validate`].
    pub fn new(config: EgressConfig, now: Instant) -> Result<Self, EgressConfigError> {
        config.validate()?;
        let n = config.window_ticks();
        // A tick too long to count comes 584 years after creation, or never (see
        // `ticking`).
        let tick_ns = nanos(config.tick).unwrap_or(u64::MAX);
        let window_ns = u128::from(n) * u128::from(tick_ns);
        let first_tick = now.checked_add(Duration::from_nanos(tick_ns));
        Ok(EgressThrottle {
            config,
            origin: now,
            tick_ns,
            abatement_ns: nanos(config.abatement_time),
            window_ns,
            next_tick: tick_ns,
            next_tick_at: first_tick.unwrap_or(now),
            ticking: first_tick.is_some(),
            window: Window::new(n),
            cap: Cap::new(config.max_rate, config.burst, window_ns, tick_ns, now),
            last_zero: true,
            level: 0,
            level_cut: 15,
            below_since: [None; 3],
            pending: 0,
            pending_limit: config.max_pending.map_or(u64::MAX, u64::from),
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
        self.window.sums.total as f64 * 1e9 / self.window_ns.max(1) as f64
    }

    /// Requests admitted and not yet ended.
    pub fn pending(&self) -> u32 {
        self.pending
    }

    /// Decides for a PFCP message, with the kind taken from its type
    /// ([`MessageKind::of`]: Heartbeat and Association requests are never throttled). See
    /// [`EgressThrottle::decide`].
    pub fn decide_message(
        &mut self,
        message_type: MessageType,
        class: impl Into<RequestClass>,
        now: Instant,
    ) -> EgressDecision {
        self.decide(MessageKind::of(message_type), class, now)
    }

    /// Decides for a message about to be sent on the connection at `now`, and counts it in the
    /// measured rate whatever the outcome (the offered rate). Only a
    /// [`MessageKind::Request`] can be throttled: by the congestion level first, then by the
    /// pending limit, then by the cap. An exempt request passes the level and the cap (module
    /// docs, "Exempt requests"). If the decision is [`EgressDecision::Send`], the message is
    /// counted as sent: it takes a token, a place in the admission window and, if it is a
    /// request, a pending slot. So call this once per message, and do not also call
    /// [`EgressThrottle::on_send`] for it.
    ///
    /// `class` is the request's [`RequestClass`] or just its priority (a
    /// [`MessagePriority`] converts to a non-exempt class). For a request without a priority
    /// pass [`RequestClass::unprioritised`] (the lowest, as the router does; see
    /// [`crate::priority`]).
    ///
    /// To ask without counting, for example to try the peers of a route list, use
    /// [`EgressThrottle::check`] and [`EgressThrottle::commit`].
    // Always inlined: the common path (no tick due, a full bucket, a request sent) is a few
    // compares and counters, and a call would cost a good part of it, `now` being passed
    // through memory. The rare paths (ticks, an exact refill, the window near its budget,
    // the bookkeeping of a throttled request) stay out of line.
    #[inline(always)]
    pub fn decide(
        &mut self,
        kind: MessageKind,
        class: impl Into<RequestClass>,
        now: Instant,
    ) -> EgressDecision {
        let class = class.into();
        self.catch_up(now);
        self.window.current.total = self.window.current.total.saturating_add(1);
        if kind != MessageKind::Request {
            self.count_unthrottled(kind);
            return EgressDecision::Send;
        }
        self.stats.offered_requests += 1;
        let q = class.priority.value();
        if class.exempt {
            return self.decide_exempt(q);
        }
        if q > self.level_cut {
            return self.throttled(ThrottleReason::Level(self.level), q);
        }
        if u64::from(self.pending) >= self.pending_limit {
            return self.throttled(ThrottleReason::PendingLimit, q);
        }
        if self.config.hard_cap {
            let current = &mut self.window.current;
            // Demand on the cap, whether or not it gets a token (`q & 15`: see `Cap::admits`).
            if let Some(d) = current.demand.get_mut(usize::from(q & 15)) {
                *d = d.saturating_add(1);
            }
            let admitted = current.admitted;
            if !self.cap.admits(q, admitted, now, self.next_tick_at) {
                return self.throttled(ThrottleReason::RateLimit, q);
            }
        }
        self.admit_request();
        EgressDecision::Send
    }

    /// Counts a request admitted past the checks: a place in the window, a token, a
    /// pending slot.
    #[inline(always)]
    fn admit_request(&mut self) {
        let current = &mut self.window.current;
        current.admitted = current.admitted.saturating_add(1);
        self.cap.take();
        self.pending = self.pending.saturating_add(1);
        self.stats.sent_requests += 1;
    }

    /// An exempt request of priority `q`, already counted as offered: only the pending limit
    /// applies; it is admitted like an answer (it may take the window past its budget).
    #[inline(never)]
    fn decide_exempt(&mut self, q: u8) -> EgressDecision {
        if u64::from(self.pending) >= self.pending_limit {
            return self.throttled(ThrottleReason::PendingLimit, q);
        }
        self.admit_exempt();
        EgressDecision::Send
    }

    fn admit_exempt(&mut self) {
        self.admit_fixed();
        self.pending = self.pending.saturating_add(1);
        self.stats.sent_requests += 1;
        self.stats.sent_exempt += 1;
    }

    /// Counts a message of a kind that is never throttled (already counted in the rate).
    #[inline]
    fn count_unthrottled(&mut self, kind: MessageKind) {
        self.admit_fixed();
        match kind {
            MessageKind::Request => {
                self.stats.offered_requests += 1;
                self.stats.sent_requests += 1;
            }
            MessageKind::Answer => {
                self.stats.offered_answers += 1;
                self.stats.sent_answers += 1;
            }
            MessageKind::Retransmission => self.stats.sent_retransmissions += 1,
            MessageKind::Management => self.stats.sent_management += 1,
        }
    }

    /// Counts a request of priority `q` throttled for `reason`. Out of line, so that the
    /// inlined `decide` stays short.
    #[inline(never)]
    fn throttled(&mut self, reason: ThrottleReason, q: u8) -> EgressDecision {
        match reason {
            ThrottleReason::Level(_) => self.stats.throttled_level += 1,
            ThrottleReason::RateLimit => self.stats.throttled_rate += 1,
            ThrottleReason::PendingLimit => self.stats.throttled_pending += 1,
        }
        if let Some(n) = self.stats.throttled_by_priority.get_mut(usize::from(q)) {
            *n += 1;
        }
        EgressDecision::Throttle(reason)
    }

    /// Records a message sent at `now` without a decision: everything else the connection
    /// carries, so that the measured rate is the whole egress message rate and the peer
    /// receives no more than the Max EMR. That is every answer not routed through
    /// [`EgressThrottle::decide`], every retransmission ([`MessageKind::Retransmission`]),
    /// every Heartbeat, Association or other management message
    /// ([`MessageKind::Management`]), and a request sent without asking
    /// ([`MessageKind::Request`]). It counts in the measured rate and takes a token (the
    /// bucket may go into debt) and a place in the admission window (which it may overfill).
    /// It takes no pending slot: a retransmission is not a new transaction.
    #[inline]
    pub fn on_send(&mut self, kind: MessageKind, now: Instant) {
        self.catch_up(now);
        self.window.current.total = self.window.current.total.saturating_add(1);
        self.count_unthrottled(kind);
    }

    /// A request admitted by [`EgressThrottle::decide`] has ended: it was answered, it timed
    /// out, or it was abandoned. This frees its pending slot. Extra calls are ignored.
    pub fn on_transaction_end(&mut self) {
        self.pending = self.pending.saturating_sub(1);
    }

    /// When the next tick is due, or `None` while nothing can change without new traffic
    /// (an empty window at level 0) or when no tick can come any more (the next one would
    /// lie more than 584 years after creation, past what a `u64` of nanoseconds counts, or
    /// past the instants `Instant` can represent). Calling
    /// [`EgressThrottle::handle_timeout`] then is optional, because every method that takes
    /// `now` catches up by itself.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let idle = self.window.is_idle() && self.level == 0;
        if idle || !self.ticking {
            None
        } else {
            Some(self.next_tick_at)
        }
    }

    /// Processes the ticks due at `now` (recomputes the measured rate and the level) and
    /// refills the cap's bucket.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.catch_up(now);
    }

    /// The boundary priority of the cap, as of the last tick: the highest priority whose
    /// demand, added to the answers' and the higher priorities', no longer fits in the Max
    /// EMR. `None` while everything is estimated to fit, and in the level-only mode. See the
    /// module docs, "Hard cap".
    pub fn rate_limit_boundary(&self) -> Option<MessagePriority> {
        if !self.config.hard_cap {
            return None;
        }
        MessagePriority::new(self.cap.boundary())
    }

    /// Counts an unthrottled message as admitted: answers, and everything `on_send` records.
    fn admit_fixed(&mut self) {
        let current = &mut self.window.current;
        current.fixed = current.fixed.saturating_add(1);
        current.admitted = current.admitted.saturating_add(1);
        self.cap.take();
    }

    /// `now` in nanoseconds since creation (0 before it, `u64::MAX` from 584 years after).
    fn clock(&self, now: Instant) -> u64 {
        let d = now.saturating_duration_since(self.origin);
        u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
    }

    /// Processes the ticks due at `now` and refills the bucket. The common case, no tick due
    /// and a full bucket, is two compares of instants: no `Instant` subtraction, which
    /// would cost as much as the rest of a decision.
    #[inline]
    fn catch_up(&mut self, now: Instant) {
        if now >= self.next_tick_at {
            self.advance(now);
        }
        self.cap.refill(now);
    }
}

#[cfg(test)]
mod tests;
