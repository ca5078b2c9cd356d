//! The "Loss" throttle with message prioritisation (TS 29.244 clauses 6.2.4.4, 6.2.4.5.1 and
//! Annex A.1).
//!
//! Given a reduction `M` (percent of the requests that would otherwise be sent, from the
//! destination's OCI) and each request's class (message priority 0..=15, 0 highest, and
//! whether it is exempt: eMPS or emergency), decide *send* or *throttle*.
//!
//! ## Which requests go
//!
//! Classes are ranked from the one to shed first to the one to shed last: priority 15, 14, ...,
//! 0, then the exempt class. Over a sliding window of the last
//! [`LossConfig::window_requests`] requests the throttle counts each rank and fills the
//! required reduction `M% x total` from the lowest rank upwards: ranks entirely below the
//! *boundary* rank are always throttled, ranks above it never, and the boundary rank partly.
//! So exempt requests are throttled only when the reduction cannot be achieved from the rest
//! (6.2.4.5.1), and a higher-priority request is never throttled while a lower-priority one in
//! the same window is sent (no priority inversion), up to the moment the boundary moves.
//!
//! ## How many go (deterministic mode, the default)
//!
//! Every drop is paced by one credit counter (Bresenham style) that adds `M/100` per offered
//! request and subtracts 1 per throttled request:
//!
//! * a request *below* the boundary rank is throttled unless the throttle is already 1.5
//!   requests ahead of schedule (when more of them arrive than expected the credit goes
//!   negative and the boundary rank sends more);
//! * a request *at* the boundary rank is throttled once half a request is due (a whole one for
//!   the exempt class, so that the lower ranks get every chance first);
//! * a non-exempt request *above* the boundary is throttled only when the due drop is
//!   [`LossConfig::escalate_after`] requests late because no lower-priority request came
//!   (counted in [`LossStats::escalated`]); the exempt class is never escalated to.
//!
//! For one class, or mixes whose boundary class is frequent, the achieved reduction over any
//! window of 100 requests is within one percentage point of `M` (unit tests). In general the
//! lag is bounded by the escalation setting, and over long runs the total is exact. Priority
//! and short-window exactness pull against each other (a due drop can only go to a request
//! that arrives): the default sides with priority, the window-exact mode below with
//! exactness.
//!
//! ## Window-exact mode
//!
//! With [`LossConfig::exact_window`] the credit alone decides: `+M` per counted request, a
//! drop whenever it reaches half a request, `-1` per drop. The credit then stays in
//! `[-1/2, +1/2)`, so over *every* run of counted requests the number of drops differs from
//! `sum(M) / 100` by less than one request: any window of 100 or more requests is within one
//! percentage point of the target whatever the traffic mix, also across changes of `M`.
//! Exempt requests are neither counted nor throttled.
//!
//! Why this mode cannot also rank: if every window of 100 requests must be within one request
//! of its target, the error `e(t) = sum(M)/100 - drops` must stay in a band one request wide
//! for the whole run (two instants 100 or more requests apart may not differ by more than
//! one). Each request moves `e` up by `M/100` and a drop moves it down by one, so whenever
//! `e` reaches the top of the band the request that arrives must be dropped and otherwise it
//! must be sent: the decision is forced, whatever the request's priority. Exactness over every
//! short window and priority order are therefore alternatives, not a combination; the default
//! mode takes priority with a bounded lag, this mode takes exactness.
//! `docs/throttle.md` compares the two with figures.
//!
//! ## Random mode (Annex A.1)
//!
//! [`LossThrottle::decide`] with a draw ([`LossRequest::with_draw`]: a uniform random `u32`
//! from the caller's RNG) throttles each request with the probability of its rank (1 below the boundary, the
//! boundary fraction at it, 0 above): the Annex A.1 example, prioritised. Use it when
//! several independent throttles must not synchronise their drop patterns. It ignores
//! [`LossConfig::exact_window`].
//!
//! Only *requests* are candidates, and only at their first transmission: never call this for
//! a retransmission or a response.

use pfcp_wire::MessagePriority;

/// Number of ranks: 16 message priorities plus the exempt class.
pub const RANKS: usize = 17;
const EXEMPT_RANK: usize = 16;
const MAX_BUCKETS: usize = 16;
/// How far ahead of schedule (in 1/100 request) the ranks below the boundary may run before
/// they too wait: bounds the overshoot when they arrive in a cluster.
const AHEAD_LIMIT: i64 = 150;

/// The class of a request for throttling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RequestClass {
    /// PFCP message priority (0 highest).
    pub priority: MessagePriority,
    /// eMPS or emergency: throttled last (6.2.4.5.1).
    pub exempt: bool,
}

impl RequestClass {
    /// A non-exempt class of the given priority.
    pub const fn new(priority: MessagePriority) -> Self {
        RequestClass {
            priority,
            exempt: false,
        }
    }

    /// An exempt (eMPS/emergency) class.
    pub const fn exempt(priority: MessagePriority) -> Self {
        RequestClass {
            priority,
            exempt: true,
        }
    }

    /// A request without a priority: [`UNPRIORITISED`](crate::priority::UNPRIORITISED), the
    /// lowest, not exempt (the signalling router's priority 0, shed first).
    pub const fn unprioritised() -> Self {
        RequestClass::new(crate::priority::UNPRIORITISED)
    }

    /// Position in the shedding order: 0 is shed first (priority 15), 16 last (exempt).
    pub const fn rank(self) -> usize {
        if self.exempt {
            EXEMPT_RANK
        } else {
            15 - (self.priority.value() as usize & 15)
        }
    }
}

/// [`RequestClass::unprioritised`]: the lowest priority, not exempt (not `MessagePriority`'s
/// own default, which is the highest; see [`crate::priority`]).
impl Default for RequestClass {
    fn default() -> Self {
        RequestClass::unprioritised()
    }
}

/// A non-exempt class of that priority.
impl From<MessagePriority> for RequestClass {
    fn from(priority: MessagePriority) -> Self {
        RequestClass::new(priority)
    }
}

/// Configuration of a [`LossThrottle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LossConfig {
    /// Length of the sliding window over which class shares are measured, in requests.
    /// Default 1000.
    pub window_requests: u32,
    /// Buckets the window is split into (1..=16; the window slides one bucket at a time).
    /// Default 10.
    pub buckets: u8,
    /// Bound on the accumulated drop credit (either sign), so that a change of traffic mix
    /// cannot turn a long under- or over-shoot into a burst. Default 16 requests.
    pub max_credit: u32,
    /// Never throttle exempt requests, even when the reduction cannot be reached without them
    /// (a regional rule some operators apply). Default false.
    pub never_throttle_exempt: bool,
    /// Let a non-exempt request above the boundary take a drop that is this many requests
    /// late because no lower-priority request came (counted in [`LossStats::escalated`]): it
    /// bounds how far the achieved reduction can lag the target in a short window, at the
    /// price of occasional priority inversions. `None`: strict priority order (exact over long
    /// runs only). Default `Some(4)`. Ignored in window-exact mode.
    pub escalate_after: Option<u32>,
    /// Window-exact pacing: the achieved reduction over *every* run of non-exempt requests is
    /// within one request of its target, for any traffic mix, so any window of 100 or more
    /// such requests is within one percentage point. The price is priority: the choice of
    /// which request takes a due drop is no longer made by rank (the guarantee leaves no
    /// choice, see the module docs, "Window-exact mode"). Exempt requests are never
    /// throttled and not counted in this mode. Default false.
    pub exact_window: bool,
}

impl Default for LossConfig {
    fn default() -> Self {
        LossConfig {
            window_requests: 1000,
            buckets: 10,
            max_credit: 16,
            never_throttle_exempt: false,
            escalate_after: Some(4),
            exact_window: false,
        }
    }
}

impl LossConfig {
    /// With `window_requests` set (see the field).
    #[must_use]
    pub fn with_window_requests(mut self, window_requests: u32) -> Self {
        self.window_requests = window_requests;
        self
    }
    /// With `buckets` set (see the field).
    #[must_use]
    pub fn with_buckets(mut self, buckets: u8) -> Self {
        self.buckets = buckets;
        self
    }
    /// With `max_credit` set (see the field).
    #[must_use]
    pub fn with_max_credit(mut self, max_credit: u32) -> Self {
        self.max_credit = max_credit;
        self
    }
    /// With `never_throttle_exempt` set (see the field).
    #[must_use]
    pub fn with_never_throttle_exempt(mut self, never_throttle_exempt: bool) -> Self {
        self.never_throttle_exempt = never_throttle_exempt;
        self
    }
    /// With `escalate_after` set (see the field).
    #[must_use]
    pub fn with_escalate_after(mut self, escalate_after: Option<u32>) -> Self {
        self.escalate_after = escalate_after;
        self
    }
    /// With `exact_window` set (see the field).
    #[must_use]
    pub fn with_exact_window(mut self, exact_window: bool) -> Self {
        self.exact_window = exact_window;
        self
    }
}

/// One request as [`LossThrottle::decide`] weighs it: its class, and optionally the reduction
/// it meets and the caller's draw for the random mode. A [`RequestClass`] converts into one
/// with neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LossRequest {
    /// The request's class.
    pub class: RequestClass,
    /// The reduction this request meets (percent, values above 100 read as 100); `None`: the
    /// one set with [`LossThrottle::set_reduction`].
    pub reduction: Option<u8>,
    /// A uniform draw from the caller's RNG for the random mode (Annex A.1); `None`: the
    /// deterministic mode.
    pub draw: Option<u32>,
}

impl LossRequest {
    /// A request of `class` at the throttle's reduction, deterministic mode.
    pub fn new(class: RequestClass) -> Self {
        LossRequest {
            class,
            reduction: None,
            draw: None,
        }
    }

    /// At its own reduction `percent` (see [`LossThrottle::decide`]).
    #[must_use]
    pub fn at(mut self, percent: u8) -> Self {
        self.reduction = Some(percent);
        self
    }

    /// With the caller's `draw` for the random mode (`None`: deterministic).
    #[must_use]
    pub fn with_draw(mut self, draw: impl Into<Option<u32>>) -> Self {
        self.draw = draw.into();
        self
    }
}

impl From<RequestClass> for LossRequest {
    fn from(class: RequestClass) -> Self {
        LossRequest::new(class)
    }
}

/// The decision for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Decision {
    /// Send it.
    Send,
    /// Do not send it: redirect it elsewhere or fail it locally as though the destination had
    /// rejected it (6.2.4.4).
    Throttle(Throttled),
}

impl Decision {
    /// Whether the request may be sent.
    pub const fn is_send(self) -> bool {
        matches!(self, Decision::Send)
    }
}

/// Why a request was throttled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throttled {
    /// The reduction in force, percent.
    pub reduction: u8,
    /// The request's class.
    pub class: RequestClass,
}

/// Counters per rank since creation (index: [`RequestClass::rank`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct LossStats {
    /// Requests offered.
    pub offered: [u64; RANKS],
    /// Requests throttled.
    pub throttled: [u64; RANKS],
    /// Requests this throttle let through that were not sent after all (another throttle
    /// refused them, [`LossThrottle::unsent`]): counted towards the reduction.
    pub unsent: [u64; RANKS],
    /// Throttled requests above the boundary rank (escalations, see [`LossConfig::escalate_after`]):
    /// the priority-inversion tolerance actually used.
    pub escalated: u64,
    /// Requests this throttle throttled that the caller sent after all
    /// ([`LossThrottle::send_anyway`]); they are not in [`LossStats::throttled`].
    pub sent_anyway: [u64; RANKS],
}

/// The Loss throttle of one destination (one UP function or PFCP entity).
#[derive(Debug, Clone)]
pub struct LossThrottle {
    config: LossConfig,
    reduction: u8,
    buckets: [[u32; RANKS]; MAX_BUCKETS],
    totals: [u32; RANKS],
    /// The sum of `totals` (kept, not summed on every request).
    total: u64,
    current: usize,
    in_current: u32,
    bucket_size: u32,
    n_buckets: usize,
    /// Ranks below this are always throttled.
    boundary: usize,
    /// Throttle probability of the boundary rank (random mode), in units of 2^-32.
    boundary_p32: u64,
    /// Target drops minus actual drops, in 1/100 of a request.
    credit: i64,
    since_recompute: u32,
    /// Requests counted in a row with no reduction in force (saturating).
    calm: u32,
    stats: LossStats,
}

impl Default for LossThrottle {
    fn default() -> Self {
        Self::new(LossConfig::default())
    }
}

impl LossThrottle {
    /// A throttle with no reduction in force.
    pub fn new(config: LossConfig) -> Self {
        let n_buckets = usize::from(config.buckets).clamp(1, MAX_BUCKETS);
        let bucket_size = (config.window_requests / n_buckets as u32).max(1);
        LossThrottle {
            config,
            reduction: 0,
            buckets: [[0; RANKS]; MAX_BUCKETS],
            totals: [0; RANKS],
            total: 0,
            current: 0,
            in_current: 0,
            bucket_size,
            n_buckets,
            boundary: 0,
            boundary_p32: 0,
            credit: 0,
            since_recompute: 0,
            calm: 0,
            stats: LossStats::default(),
        }
    }

    /// Set the reduction to apply (percent; values above 100 read as 100).
    pub fn set_reduction(&mut self, percent: u8) {
        let percent = percent.min(100);
        if percent != self.reduction {
            self.forget_calm_mix(percent);
            self.reduction = percent;
            // In window-exact mode the credit carries over a change, so the guarantee holds
            // for windows that span it too (their target is the sum of the reductions).
            if percent == 0 && !self.config.exact_window {
                self.credit = 0;
            }
            self.recompute();
        }
    }

    /// When a reduction starts after a whole window of requests counted without one, the
    /// window starts afresh: the class shares of calm traffic are not those of an overload
    /// (a surge of new sessions, fewer modifications and deletions once fewer sessions are
    /// established), and a window of 1000 requests takes a small CP function seconds to
    /// refill. Meanwhile the boundary sits a rank too high, the credit rests 1.5 requests
    /// ahead instead of half a request behind, and each move of the boundary across that
    /// edge (a metric changing by a point) sends or drops the difference at once: 16 CPs in
    /// `pfcp sim` swung their arrivals by a quarter of the UP function's capacity for the
    /// first second of a storm (`docs/throttle.md`). Until the first bucket is full the exempt
    /// class is not throttled, as for a new throttle.
    fn forget_calm_mix(&mut self, percent: u8) {
        if self.reduction == 0 && percent > 0 && u64::from(self.calm) >= self.total {
            self.buckets = [[0; RANKS]; MAX_BUCKETS];
            self.totals = [0; RANKS];
            self.total = 0;
            self.in_current = 0;
        }
    }

    /// The reduction in force.
    pub fn reduction(&self) -> u8 {
        self.reduction
    }

    /// Counters since creation.
    pub fn stats(&self) -> &LossStats {
        &self.stats
    }

    /// Decide for the first transmission of a request (Annex A.1): `request` is its
    /// [`RequestClass`], or a [`LossRequest`] that also carries the reduction this request
    /// meets and the caller's draw for the random mode.
    ///
    /// * Without a draw, the deterministic mode: drops paced by a credit (Bresenham), so the
    ///   reduction over any run of requests stays within one request of the target, the
    ///   lowest ranks first.
    /// * With a draw (uniform over `u32`, from the caller's RNG: the throttle draws none),
    ///   the random mode: throttled with the probability of the request's rank.
    /// * With a reduction ([`LossRequest::at`]), for a throttle shared by requests of
    ///   different reductions: one UP function whose PFCP entities are overloaded to
    ///   different degrees (clause 6.2.4.3.1: entity and node scope). All of them are counted
    ///   in one window and ranked together (clause 6.2.4.5.1), so priority traffic is exempt
    ///   as long as the UP function's other traffic can make up the reduction; each request
    ///   adds its own reduction to the credit, so the drops add up to the sum of the requests'
    ///   reductions. Unlike [`LossThrottle::set_reduction`], a change of reduction keeps the
    ///   credit (within one request either way).
    ///
    /// ```
    /// use pfcp_throttle::{LossRequest, LossThrottle, MessagePriority, RequestClass};
    ///
    /// let mut loss = LossThrottle::default();
    /// loss.set_reduction(50);
    /// let class = RequestClass::new(MessagePriority::new(12).unwrap());
    /// let sent = (0..100).filter(|_| loss.decide(class).is_send()).count();
    /// assert_eq!(sent, 50);
    /// // A request of an entity told 20 %, ranked with the rest.
    /// let _ = loss.decide(LossRequest::new(class).at(20));
    /// // The random mode, with a draw from the caller's RNG.
    /// let _ = loss.decide(LossRequest::new(class).with_draw(0x8000_0000));
    /// ```
    pub fn decide(&mut self, request: impl Into<LossRequest>) -> Decision {
        let LossRequest {
            class,
            reduction,
            draw,
        } = request.into();
        if let Some(percent) = reduction {
            self.retarget(percent);
        }
        match draw {
            None => self.decide_deterministic(class),
            Some(draw) => self.decide_random(class, draw),
        }
    }

    fn decide_deterministic(&mut self, class: RequestClass) -> Decision {
        if self.config.exact_window {
            return self.decide_exact(class);
        }
        let rank = self.observe(class);
        if self.reduction == 0 {
            return Decision::Send;
        }
        self.credit += i64::from(self.reduction);
        // Every drop is paced by the credit (Bresenham style), so the achieved reduction over
        // any run of requests stays within one request of the target; the rank decides which
        // requests may take a due drop.
        let throttle = self.threshold(rank).is_some_and(|t| self.credit >= t);
        if throttle && rank > self.boundary {
            self.stats.escalated += 1;
        }
        self.finish(class, rank, throttle, true)
    }

    /// Move to the reduction `percent` without resetting the window. Outside window-exact
    /// mode a change keeps at most one request of credit either way: the debt (or advance)
    /// built under the old reduction is not paid under the new one, where it would shed too
    /// much (or too little) for as many requests as it holds, a dip the UP function would
    /// read as a fall of demand.
    fn retarget(&mut self, percent: u8) {
        let percent = percent.min(100);
        if percent != self.reduction {
            self.forget_calm_mix(percent);
            self.reduction = percent;
            if !self.config.exact_window {
                self.credit = self.credit.clamp(-100, 100);
            }
            self.recompute();
        }
    }

    /// A request of `class` that [`LossThrottle::decide`] let
    /// through was not sent after all: another throttle on the way refused it, typically the
    /// connection's [`EgressThrottle`](crate::egress::EgressThrottle). The request counts as
    /// a drop towards the reduction (the destination did not get it), so the two throttles
    /// together shed what the reduction asks and not that plus what the other one refused.
    /// Call it only after a [`Decision::Send`], at most once per request.
    ///
    /// The drop credit goes down by one request, as for a drop of its own (within
    /// [`LossConfig::max_credit`]): while another throttle sheds more than the reduction,
    /// this one sheds nothing, and it resumes within `max_credit` requests once the other
    /// stops. In window-exact mode each unsent request lowers the credit below `[-1/2, +1/2)`
    /// by one request (down to `-max_credit`) until the throttle's next drop brings it back,
    /// so over every run of requests the drops plus the unsent requests are within
    /// `max_credit + 1/2` requests of the target, and within one over a run that starts
    /// after the first drop following the last unsent request. Exempt requests in
    /// window-exact mode are not counted, so their unsent ones are not either. See
    /// [`PeerThrottles`](crate::peer::PeerThrottles) for the two throttles decided together.
    pub fn unsent(&mut self, class: RequestClass) {
        if self.config.exact_window && class.exempt {
            return;
        }
        let bound = i64::from(self.config.max_credit.max(1)) * 100;
        self.credit = (self.credit - 100).max(-bound);
        let rank = class.rank().min(RANKS - 1);
        if let Some(n) = self.stats.unsent.get_mut(rank) {
            *n += 1;
        }
    }

    /// A request of `class` that this throttle throttled was sent after all: the caller
    /// overrode the decision, e.g. to let a CP function that sends little hear its
    /// destination's current overload (pfcp-node's `CpConfig::probe_gap_factor`). It counts as
    /// sent: the drop is taken back from [`LossStats::throttled`] (into
    /// [`LossStats::sent_anyway`]) and the drop credit that paces the deterministic modes goes
    /// back up by one request (within [`LossConfig::max_credit`]; random-mode decisions do not
    /// read it), so the drop is due again and the next requests make it up: over a run the reduction stays the one asked for, the override
    /// only moved a send earlier. Call it only after a [`Decision::Throttle`], at most once
    /// per request.
    pub fn send_anyway(&mut self, class: RequestClass) {
        let rank = class.rank().min(RANKS - 1);
        if let Some(t) = self.stats.throttled.get_mut(rank) {
            *t = t.saturating_sub(1);
        }
        if let Some(n) = self.stats.sent_anyway.get_mut(rank) {
            *n += 1;
        }
        if self.config.exact_window && class.exempt {
            return;
        }
        let bound = i64::from(self.config.max_credit.max(1)) * 100;
        self.credit = (self.credit + 100).min(bound);
    }

    /// A request of `class` that this throttle throttled goes after all, **ahead** of a later
    /// one that the throttle lets through and the caller then holds back in its place
    /// ([`LossThrottle::gave_way`]): an eMPS or emergency request sent now instead of a
    /// lower-priority one later (TS 29.244 clause 6.2.4.5.1: those are throttled last). Unlike
    /// [`LossThrottle::send_anyway`] the credit does not move: the two requests trade places,
    /// so the drops are as many as the throttle decided and only which requests they are, and
    /// when, changes. The drop moves from [`LossStats::throttled`] to
    /// [`LossStats::sent_anyway`]. Call it only after a [`Decision::Throttle`], at most once per
    /// request.
    pub fn sent_ahead(&mut self, class: RequestClass) {
        let rank = class.rank().min(RANKS - 1);
        if let Some(t) = self.stats.throttled.get_mut(rank) {
            *t = t.saturating_sub(1);
        }
        if let Some(n) = self.stats.sent_anyway.get_mut(rank) {
            *n += 1;
        }
    }

    /// A request of `class` that this throttle let through is not sent: it gives its place to
    /// one sent ahead of it ([`LossThrottle::sent_ahead`]). Counted in [`LossStats::unsent`];
    /// the credit does not move. Call it only after a [`Decision::Send`], at most once per
    /// request.
    pub fn gave_way(&mut self, class: RequestClass) {
        let rank = class.rank().min(RANKS - 1);
        if let Some(n) = self.stats.unsent.get_mut(rank) {
            *n += 1;
        }
    }

    /// Window-exact mode: the credit alone decides (Bresenham), kept in `[-50, 50)`, so the
    /// drops of any run of counted requests differ from `sum(M) / 100` by less than one.
    fn decide_exact(&mut self, class: RequestClass) -> Decision {
        let rank = class.rank().min(RANKS - 1);
        if let Some(o) = self.stats.offered.get_mut(rank) {
            *o += 1;
        }
        if class.exempt || self.reduction == 0 {
            return Decision::Send;
        }
        self.credit += i64::from(self.reduction);
        // The credit stays in [-50, 50), inside `finish`'s clamp (at least one request).
        let throttle = self.credit >= 50;
        self.finish(class, rank, throttle, true)
    }

    /// Random mode (Annex A.1): throttle with the probability of the request's rank.
    fn decide_random(&mut self, class: RequestClass, draw: u32) -> Decision {
        let rank = self.observe(class);
        if self.reduction == 0 {
            return Decision::Send;
        }
        let throttle = if rank < self.boundary {
            true
        } else if rank == self.boundary {
            u64::from(draw) < self.boundary_p32
        } else {
            false
        };
        self.finish(class, rank, throttle, false)
    }

    /// Credit (in 1/100 request) at which a request of `rank` is throttled; `None`: never.
    ///
    /// * Below the boundary: unless the throttle is already 1.5 requests ahead of schedule
    ///   (always in strict mode); the boundary rank absorbs the difference through the credit.
    /// * At the boundary: once half a request is due (a whole one for the exempt class, so the
    ///   lower ranks get every chance first).
    /// * Above the boundary (non-exempt, escalation on): once the due drop is
    ///   [`LossConfig::escalate_after`] requests late because no lower-priority request came.
    fn threshold(&self, rank: usize) -> Option<i64> {
        if rank < self.boundary {
            // Strict mode sheds them whatever the schedule: priority order is absolute.
            Some(if self.config.escalate_after.is_some() {
                -AHEAD_LIMIT
            } else {
                i64::MIN
            })
        } else if rank == self.boundary {
            if rank == EXEMPT_RANK && self.total < u64::from(self.bucket_size) {
                // Too few requests seen to know that the others cannot make up the
                // reduction (a throttle that starts with a reduction in force, or just reset):
                // priority traffic is not throttled on a guess (6.2.4.5.1).
                return None;
            }
            // The exempt class waits until three requests are due: the others get every
            // chance first, and a lag of the window behind a change of mix (the boundary
            // reaching the exempt rank for a moment) does not throttle priority traffic.
            Some(if rank == EXEMPT_RANK { 300 } else { 50 })
        } else if rank != EXEMPT_RANK {
            self.config
                .escalate_after
                .map(|n| 50 + 100 * i64::from(n.max(1)))
        } else {
            None
        }
    }

    /// Count and report the decision. `paced`: a deterministic decision, which pays for a drop
    /// from the credit. Random-mode drops leave the credit alone, so a caller that mixes the two
    /// modes does not disturb the deterministic pacing.
    fn finish(
        &mut self,
        class: RequestClass,
        rank: usize,
        throttle: bool,
        paced: bool,
    ) -> Decision {
        let throttle = throttle && !(class.exempt && self.config.never_throttle_exempt);
        if throttle {
            if paced {
                self.credit -= 100;
            }
            if let Some(t) = self.stats.throttled.get_mut(rank) {
                *t += 1;
            }
        }
        if paced {
            let bound = i64::from(self.config.max_credit.max(1)) * 100;
            self.credit = self.credit.clamp(-bound, bound);
        }
        if throttle {
            Decision::Throttle(Throttled {
                reduction: self.reduction,
                class,
            })
        } else {
            Decision::Send
        }
    }

    /// Count the request in the window; recompute the boundary when due.
    fn observe(&mut self, class: RequestClass) -> usize {
        let rank = class.rank().min(RANKS - 1);
        if let Some(o) = self.stats.offered.get_mut(rank) {
            *o += 1;
        }
        if self.in_current >= self.bucket_size {
            self.rotate();
        }
        let first_of_rank = self.totals.get(rank).is_some_and(|&n| n == 0);
        if let Some(b) = self
            .buckets
            .get_mut(self.current)
            .and_then(|b| b.get_mut(rank))
        {
            *b += 1;
        }
        if let Some(t) = self.totals.get_mut(rank) {
            *t += 1;
            self.total += 1;
        }
        self.in_current += 1;
        self.since_recompute += 1;
        self.calm = if self.reduction == 0 {
            self.calm.saturating_add(1)
        } else {
            0
        };
        // Recompute often while the window fills or when a class appears, then every 8.
        let filling = self.total < u64::from(self.bucket_size);
        if self.reduction > 0 && (first_of_rank || filling || self.since_recompute >= 8) {
            self.recompute();
        }
        rank
    }

    fn rotate(&mut self) {
        self.current = (self.current + 1) % self.n_buckets;
        if let Some(old) = self.buckets.get_mut(self.current) {
            for (t, o) in self.totals.iter_mut().zip(old.iter_mut()) {
                *t -= *o;
                self.total -= u64::from(*o);
                *o = 0;
            }
        }
        self.in_current = 0;
        self.recompute();
    }

    /// Find the boundary rank: fill `reduction% x total` from rank 0 upwards.
    fn recompute(&mut self) {
        self.since_recompute = 0;
        let total = self.total;
        // `need` in 1/100 of a request.
        let need = total * u64::from(self.reduction);
        let mut cum = 0u64;
        for (r, &n) in self.totals.iter().enumerate() {
            let n100 = u64::from(n) * 100;
            if cum + n100 >= need && need > 0 && n > 0 || need == 0 {
                self.boundary = r;
                self.boundary_p32 = ((need - cum) << 32).checked_div(n100).unwrap_or(0);
                return;
            }
            cum += n100;
        }
        self.boundary = RANKS;
        self.boundary_p32 = 1 << 32;
    }

    /// Requests counted in the window now: up to [`LossConfig::window_requests`], fewer while
    /// a new throttle fills its window or after it started afresh (a reduction after a whole
    /// window of calm traffic). Below half the window the class shares it measures are
    /// rough: emergency sessions bring three requests each, so the exempt share of a
    /// hundred or two requests spreads far beyond its mean.
    pub fn window_count(&self) -> u64 {
        self.total
    }

    /// Exempt requests (eMPS, emergency) counted in the window now, of
    /// [`LossThrottle::window_count`].
    pub fn window_exempt(&self) -> u64 {
        u64::from(self.totals.last().copied().unwrap_or(0))
    }

    /// The current boundary: ranks below it are always throttled (for tests and metrics).
    pub fn boundary_rank(&self) -> usize {
        self.boundary
    }
}

#[cfg(test)]
mod tests;
