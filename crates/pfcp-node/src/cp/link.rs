//! One UP function as a CP function sees it ([`UpLink`]): its overload and load view (the OCI
//! and LCI it sent, TS 29.244 clauses 6.2.4.3 and 6.2.3.3), the Loss and egress throttles of
//! what the CP sends there, the rhythm of those sends (for probes), the places owed to
//! priority requests sent ahead and the priority requests held for a place. On a
//! [`Node`](crate::Node) it is part of the UP function's peer record and ends with it.
//!
//! **One view per UP function.** Every request to a UP function goes through the same Loss
//! throttle, whichever scope its reduction comes from: each request's reduction is the larger
//! of its entity's and the node's overload metric (clauses 6.2.4.3.1 and 6.2.4.4), read once
//! when it is decided, and all of them are ranked in one window
//! ([`LossRequest::at`](pfcp_throttle::LossRequest::at)). So eMPS and
//! emergency requests are throttled only when the UP function's other traffic cannot make up
//! the reduction (clause 6.2.4.5.1).
//!
//! **Probes.** OCI rides only on the UP function's own messages (clause 6.2.4.3.1), so a CP
//! function that the Loss throttle holds to a trickle hears late that the overload ended.
//! When nothing has gone to a UP function for [`CpConfig::probe_gap_factor`] times the usual
//! gap between sends there, a request the Loss throttle sheds is sent anyway; the Loss
//! throttle sheds it from the next requests instead, so the reduction is kept and only the
//! moment of a send moves. A CP whose own offers to the UP function thinned
//! [`CpConfig::probe_fall_factor`]-fold (its demand fell, and most likely its peers' too)
//! probes after a silence of only two usual gaps, or of at most 400 ms when those gaps are
//! long and its offers as a whole came suddenly further apart ([`OfferRhythm`]: a CP function
//! of a large pool).

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use pfcp_overload::{LoadTable, NodeKey, OverloadTable};
use pfcp_throttle::{EgressThrottle, LossThrottle, PeerThrottles, Throttled};

use super::hold::HoldTicket;
use super::implicit::ImplicitOverload;
#[cfg(doc)]
use super::CpConfig;
use super::Destination;

/// How many standard errors the exempt share of a short window must exceed what the reduction
/// leaves by before the throttle's judgement that the exempt traffic does not fit stands
/// ([`UpLink::may_send_ahead`]). 1.5-3 gave the same onsets in `pfcp sim`; below 1 a storm's
/// onset at 5x lost emergency requests again (`docs/throttle.md`).
const AHEAD_Z: f64 = 2.0;

/// How long after the UP function refused one of our eMPS or emergency requests no more are
/// sent ahead: its priority traffic does not fit there.
pub(super) const EXEMPT_REFUSAL_MEMORY: Duration = Duration::from_secs(2);

/// Weight of a new gap in [`SendRhythm::mean_gap`]: about the last ten sends.
const GAP_WEIGHT: f64 = 0.1;
/// Weights of a new gap in the short and long averages of the offers' gaps.
const OFFER_SHORT_WEIGHT: f64 = 0.5;
const OFFER_LONG_WEIGHT: f64 = 0.01;
/// The silence, in usual gaps between sends, after which a CP whose demand fell probes
/// ([`CpConfig::probe_fall_factor`]). Shorter, the probes go before the UP function can have
/// seen the fall and the debt they leave delays the next send; longer, the CP hears late
/// (`docs/overload-control.md`, "Probes").
const FALL_SILENCE_FACTOR: f64 = 2.0;
/// The longest silence a CP whose demand fell waits for a probe, in seconds: two control
/// intervals of the UP function's (200 ms by default), by which its metric has followed the
/// fall. It binds a sparse CP function, one of a pool of hundreds whose usual gap between
/// sends under a deep reduction is seconds long (`docs/overload-control.md`, "Probes after a
/// fall"); a CP that sends every 200 ms or more often waits its two gaps as before.
const FALL_SILENCE_MAX: f64 = 0.4;

/// `mean` moved by weight `w` towards `x` (`x` itself for the first value).
fn ewma(mean: f64, x: f64, w: f64) -> f64 {
    if mean > 0.0 {
        mean + w * (x - mean)
    } else {
        x
    }
}

/// When a request last went to a UP function and the usual gap between two; and the rhythm
/// of the requests offered there (sent or shed), to see the CP's own demand fall.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SendRhythm {
    last: Option<Instant>,
    /// Moving average of the gaps, in seconds (0: none measured yet).
    mean_gap: f64,
    last_offer: Option<Instant>,
    /// Moving averages of the gaps between offers, in seconds: over the last few and over
    /// the last hundred or so (0: none measured yet).
    offer_gap_short: f64,
    offer_gap_long: f64,
}

/// The rhythm of all the requests a CP function offers, to whichever UP function: when its
/// demand last fell suddenly (a gap between two offers `probe_fall_factor`-fold the short
/// average before it). A CP function of a pool of hundreds offers each UP function too few
/// requests in a storm for [`SendRhythm`]'s long average to learn their rhythm (60 in 6 s at
/// 10/s: it still remembers the calm before), and with several UP functions the offers to one
/// of them come at the selection's irregular gaps; its offers as a whole come at its own pace.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct OfferRhythm {
    last: Option<Instant>,
    /// Moving average of the gaps, in seconds (0: none measured yet).
    gap_short: f64,
    /// When the last sudden fall was seen.
    pub(super) fell_at: Option<Instant>,
}

impl OfferRhythm {
    /// A request was offered at `now`; `fell_factor` is [`CpConfig::probe_fall_factor`].
    pub(super) fn offered(&mut self, now: Instant, fell_factor: Option<u32>) {
        if let Some(gap) = self.last.map(|l| now.saturating_duration_since(l)) {
            let gap = gap.as_secs_f64();
            if fell_factor
                .is_some_and(|k| self.gap_short > 0.0 && gap > f64::from(k) * self.gap_short)
            {
                self.fell_at = Some(now);
            }
            self.gap_short = ewma(self.gap_short, gap, OFFER_SHORT_WEIGHT);
        }
        self.last = Some(now);
    }
}

impl SendRhythm {
    /// Whether the silence at `now` is long enough for a probe: at least `min_gap`, and more
    /// than `factor` usual gaps, or than [`FALL_SILENCE_FACTOR`] of them while the CP's own
    /// offers to this UP function have thinned `fell_factor`-fold (its demand fell).
    pub(super) fn probe_due(
        &self,
        now: Instant,
        factor: Option<u32>,
        fell_factor: Option<u32>,
        min_gap: Duration,
        demand_fell_at: Option<Instant>,
    ) -> bool {
        let Some(last) = self.last else {
            return false;
        };
        let silence = now.saturating_duration_since(last);
        if self.mean_gap <= 0.0 || silence < min_gap {
            return false;
        }
        let silence = silence.as_secs_f64();
        let fall_silence = FALL_SILENCE_FACTOR * self.mean_gap;
        let sparse = fall_silence > FALL_SILENCE_MAX;
        let fell = |k: u32| {
            self.offer_gap_long > 0.0 && self.offer_gap_short > f64::from(k) * self.offer_gap_long
                || sparse && demand_fell_at.is_some_and(|t| t > last)
        };
        factor.is_some_and(|f| silence > f64::from(f) * self.mean_gap)
            || fell_factor.is_some_and(|k| fell(k) && silence > fall_silence.min(FALL_SILENCE_MAX))
    }

    pub(super) fn offered(&mut self, now: Instant) {
        if let Some(gap) = self.last_offer.map(|l| now.saturating_duration_since(l)) {
            let gap = gap.as_secs_f64();
            self.offer_gap_short = ewma(self.offer_gap_short, gap, OFFER_SHORT_WEIGHT);
            self.offer_gap_long = ewma(self.offer_gap_long, gap, OFFER_LONG_WEIGHT);
        }
        self.last_offer = Some(now);
    }

    pub(super) fn sent(&mut self, now: Instant) {
        if let Some(gap) = self.last.map(|l| now.saturating_duration_since(l)) {
            self.mean_gap = ewma(self.mean_gap, gap.as_secs_f64(), GAP_WEIGHT);
        }
        self.last = Some(now);
    }
}

/// A priority request held for a place ([`CpConfig::exempt_hold`]).
#[derive(Debug, Clone)]
pub(super) struct Held {
    pub(super) ticket: HoldTicket,
    pub(super) dest: Destination,
    pub(super) why: Throttled,
    pub(super) until: Instant,
}

/// One UP function as the CP function sees it: see the [module docs](crate::cp).
#[derive(Debug, Clone)]
pub struct UpLink {
    pub(super) node: NodeKey,
    pub(super) overload: OverloadTable,
    pub(super) load: LoadTable,
    pub(super) throttles: PeerThrottles,
    pub(super) rhythm: SendRhythm,
    /// The reduction derived from its Cause 74 refusals while it sends no OCI.
    pub(super) implicit: ImplicitOverload,
    /// Places owed to eMPS and emergency requests sent ahead ([`CpConfig::exempt_ahead_max`]).
    pub(super) owed: u32,
    /// When the UP function last refused one of our eMPS or emergency requests.
    pub(super) exempt_refused: Option<Instant>,
    /// Requests held for a place, oldest first.
    pub(super) holds: VecDeque<Held>,
    /// When a request last went through [`CpPolicy::decide`](super::CpPolicy::decide) or a
    /// message was counted here (the standalone pipeline's least-recently-used bound).
    pub(super) last_used: Instant,
}

impl UpLink {
    /// The UP function's Node ID (its address as one until the association names it).
    pub fn node(&self) -> &NodeKey {
        &self.node
    }

    /// The reduction (percent) a request to the PFCP entity `entity` (`None`: the UP function
    /// as a whole) meets at `now`: the larger of the entity's and the node's overload metric
    /// (clause 6.2.4.3.1); for a UP function that refuses with Cause 74 and has never sent
    /// an OCI, the reduction its refusals call for (`cp/implicit.rs`).
    pub fn reduction(&self, entity: Option<IpAddr>, now: Instant) -> u8 {
        self.overload
            .reduction(entity, &self.node, now)
            .max(self.implicit.metric())
    }

    /// The Load Metric the UP function advertised, if any is in force (clause 6.2.3).
    pub fn load(&self, now: Instant) -> Option<u8> {
        self.load.load(&self.node, now)
    }

    /// The UP function's overload states (node scope and its entities').
    pub fn overload(&self) -> &OverloadTable {
        &self.overload
    }

    /// The Loss and egress throttles deciding together.
    pub fn throttles(&self) -> &PeerThrottles {
        &self.throttles
    }

    /// The Loss throttle of every request to the UP function.
    pub fn loss_throttle(&self) -> &LossThrottle {
        self.throttles.loss()
    }

    /// The egress throttle of the connection, if it has an egress configuration.
    pub fn egress_throttle(&self) -> Option<&EgressThrottle> {
        self.throttles.egress()
    }

    /// The association named the UP function `node` (its link was made under its address).
    pub(crate) fn rename(&mut self, node: NodeKey) {
        if self.node != node {
            self.overload.reset_peer(&self.node);
            self.load.reset_peer(&self.node);
            while self.overload.poll_event().is_some() {}
            self.node = node;
        }
    }

    /// Requests held for a place.
    pub fn held(&self) -> usize {
        self.holds.len()
    }

    /// Whether the Loss throttle has counted less than half its window of `window_requests`.
    pub(super) fn window_short(&self, window_requests: u32) -> bool {
        self.throttles.loss().window_count() < u64::from(window_requests / 2)
    }

    /// Whether a shed request of the exempt class may go ahead of a later lower-priority
    /// place: while the throttle has counted less than half its window (its estimate of the
    /// classes' shares is rough), fewer than `max` places are owed, the UP function refused
    /// none of our priority requests for [`EXEMPT_REFUSAL_MEMORY`], and the window's exempt
    /// share is not surely above what the reduction leaves.
    pub(super) fn may_send_ahead(
        &self,
        reduction: u8,
        window_requests: u32,
        max: u32,
        now: Instant,
    ) -> bool {
        let refused_lately = self
            .exempt_refused
            .is_some_and(|t| now.saturating_duration_since(t) < EXEMPT_REFUSAL_MEMORY);
        self.owed < max
            && !refused_lately
            && self.window_short(window_requests)
            && !exempt_surely_exceeds(self.throttles.loss(), reduction)
    }

    /// Whether the exempt traffic the Loss throttle has counted since it began, as a share of
    /// all it counted, fits what a reduction of `reduction` % leaves; yes while it counted
    /// fewer than a tenth of its window (too few to tell). Unlike the window's shares, this
    /// long-run share is not thrown off by a cluster of emergency sessions at a storm's onset.
    pub(super) fn exempt_fits(&self, reduction: u8, window_requests: u32) -> bool {
        let offered = &self.throttles.loss().stats().offered;
        let total: u64 = offered.iter().sum();
        let exempt = offered.last().copied().unwrap_or(0);
        total < u64::from(window_requests / 10)
            || exempt.saturating_mul(100)
                < total.saturating_mul(u64::from(100 - reduction.min(100)))
    }

    /// The held requests whose overload ended (their reduction reads 0 at `now`), taken out.
    pub(super) fn take_unthrottled(&mut self, now: Instant) -> Vec<Held> {
        let mut taken = Vec::new();
        let (overload, node) = (&self.overload, &self.node);
        self.holds.retain(|h| {
            let keep = overload.reduction(h.dest.entity, node, now) != 0;
            if !keep {
                taken.push(h.clone());
            }
            keep
        });
        taken
    }

    /// The held requests whose hold ended by `now`, taken out.
    pub(super) fn take_expired(&mut self, now: Instant) -> Vec<Held> {
        let mut taken = Vec::new();
        while self.holds.front().is_some_and(|h| h.until <= now) {
            if let Some(h) = self.holds.pop_front() {
                taken.push(h);
            }
        }
        taken
    }

    /// The next instant this link has work ([`CpPolicy::handle_timeout`](super::CpPolicy::handle_timeout)): an overload state
    /// expires or a hold ends.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let hold = self.holds.front().map(|h| h.until);
        [self.overload.poll_timeout(), hold]
            .into_iter()
            .flatten()
            .min()
    }
}

/// Whether the exempt share of `loss`'s window exceeds what a reduction of `reduction` %
/// leaves by more than [`AHEAD_Z`] standard errors, counting the window's requests in
/// clusters of three (an emergency session's establishment, modification and deletion): at
/// 10x the capacity the exempt load alone can exceed what is left, and a request sent ahead
/// there never finds its place.
fn exempt_surely_exceeds(loss: &LossThrottle, reduction: u8) -> bool {
    let n = loss.window_count().max(1) as f64;
    let share = loss.window_exempt() as f64 / n;
    let leave = f64::from(100 - reduction.min(100)) / 100.0;
    share - leave >= AHEAD_Z * (3.0 * leave * (1.0 - leave) / n).sqrt()
}

/// The links of several UP functions, by Node ID: the node's peer table, or the standalone
/// pipeline's map. [`CpPolicy::decide`](super::CpPolicy::decide) asks it for the alternates
/// of a redirection.
pub trait UpLinks {
    /// The link of UP function `node`, made with `make` if the UP function has none yet;
    /// `None` if this CP function cannot send to `node` (no peer record).
    fn link_mut(
        &mut self,
        node: &NodeKey,
        make: &mut dyn FnMut(&NodeKey) -> UpLink,
    ) -> Option<&mut UpLink>;
}
