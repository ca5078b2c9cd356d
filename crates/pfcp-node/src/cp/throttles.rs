//! The per-UP-function throttles of the CP pipeline: one [`PeerThrottles`] per UP function
//! (its [`LossThrottle`] and, if its connection has an egress configuration set, its
//! [`EgressThrottle`]), created on first use and bounded by [`CpConfig::max_destinations`]
//! (least recently used dropped first).
//!
//! **Loss and egress decide together.** A request the Loss throttle lets through and the
//! egress throttle then refuses is told to the Loss throttle as not sent
//! ([`LossThrottle::unsent`], through [`PeerThrottles`]), so the two shed what the OCI's
//! reduction asks (TS 29.244 6.2.4.4) or what the connection's level asks (the router's
//! PCEMT, seed 003), whichever is more, and not the sum.
//!
//! **One view per UP function.** Every request to a UP function goes through the same Loss
//! throttle, whichever scope its reduction comes from: each request's reduction is the larger
//! of its entity's and its node's overload metric (TS 29.244 clauses 6.2.4.3.1 and 6.2.4.4),
//! and all of them are ranked in one window ([`LossThrottle::decide_at`]). So eMPS and
//! emergency requests are throttled only when the UP function's other traffic cannot make up
//! the reduction (clause 6.2.4.5.1). Separate throttles per (node, entity) would not see that:
//! the requests on established sessions (mostly of the classes that survived the throttling of
//! establishments) would have to meet the reduction among themselves.
//!
//! **The connection's egress rate counts everything sent on it** (router: "the EMR ... is
//! equivalent to the egress Request rate + the egress Answer rate"): first transmissions
//! through the decisions, and every other message through [`Throttles::on_send`] with its
//! [`MessageKind`] (answers, retransmissions, Heartbeat and Association messages), which are
//! never throttled. The egress configuration of each UP function comes from the
//! [`EgressConfigSets`] of [`CpConfig::egress_sets`] (a set per connection, a per-peer Max EMR),
//! with [`CpConfig::egress`] as the set of the UP functions without an assignment.
//!
//! **Probes.** OCI rides only on the UP function's own messages (TS 29.244 6.2.4.3.1), so a
//! CP function that the Loss throttle holds to a trickle hears late that the overload ended
//! (a step of demand from 10x to 1x leaves each of 16 CPs sending one request every 130 ms
//! or so). When nothing has gone to a UP function for [`CpConfig::probe_gap_factor`] times
//! the usual gap between sends there, a request the Loss throttle sheds is sent anyway
//! ([`PeerThrottles::send_anyway`]); the Loss throttle sheds it from the next requests
//! instead, so the reduction is kept and only the moment of a send moves. A CP whose own
//! offers to the UP function thinned [`CpConfig::probe_fall_factor`]-fold (its demand fell,
//! and most likely its peers' too) probes after a silence of only two usual gaps: the UP
//! function may have lowered its metric already and the CP would hear it a gap or more late.
//!
//! They live apart from the rest of [`CpOverloadControl`](super::CpOverloadControl) so that
//! alternate routing can borrow them while the route list is borrowed too.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use pfcp_overload::{NodeKey, OverloadTable, Scope};
use pfcp_throttle::{
    EgressConfigSets, EgressThrottle, LossConfig, LossThrottle, MessageKind, PeerThrottles,
    Refusal, RequestClass, ThrottleReason,
};

use super::{CpConfig, CpOverloadControl, Destination, LossMode, RejectReason};

/// How many standard errors the exempt share of a short window must exceed what the reduction
/// leaves by before the throttle's judgement that the exempt traffic does not fit stands
/// ([`Throttles::send_ahead`]). 1.5-3 gave the same onsets in `pfcp sim`; below 1 a storm's
/// onset at 5x lost emergency requests again (`docs/throttle.md`).
const AHEAD_Z: f64 = 2.0;

/// How long after the UP function refused one of our eMPS or emergency requests no more are
/// sent ahead ([`Throttles::send_ahead`]): its priority traffic does not fit there.
const EXEMPT_REFUSAL_MEMORY: Duration = Duration::from_secs(2);

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

/// The throttles of one UP function, when they were last used (for the LRU bound) and the
/// rhythm of the requests sent there (for probes).
#[derive(Debug, Clone)]
struct Entry {
    throttles: PeerThrottles,
    last_used: Instant,
    sends: SendRhythm,
    /// Places owed to eMPS and emergency requests sent ahead ([`CpConfig::exempt_ahead_max`]).
    owed: u32,
    /// When the UP function last refused one of our eMPS or emergency requests.
    exempt_refused: Option<Instant>,
}

/// When a request last went to a UP function and the usual gap between two; and the rhythm
/// of the requests offered there (sent or shed), to see the CP's own demand fall.
#[derive(Debug, Clone, Copy, Default)]
struct SendRhythm {
    last: Option<Instant>,
    /// Moving average of the gaps, in seconds (0: none measured yet).
    mean_gap: f64,
    last_offer: Option<Instant>,
    /// Moving averages of the gaps between offers, in seconds: over the last few and over
    /// the last hundred or so (0: none measured yet).
    offer_gap_short: f64,
    offer_gap_long: f64,
}

/// Weight of a new gap in [`SendRhythm::mean_gap`]: about the last ten sends.
const GAP_WEIGHT: f64 = 0.1;
/// Weights of a new gap in the short and long averages of the offers' gaps.
const OFFER_SHORT_WEIGHT: f64 = 0.5;
const OFFER_LONG_WEIGHT: f64 = 0.01;
/// The silence, in usual gaps between sends, after which a CP whose demand fell probes
/// ([`CpConfig::probe_fall_factor`]). Shorter, the probes go before the UP function can have
/// seen the fall and the debt they leave delays the next send; longer, the CP hears late
/// (`docs/overload-control.md`, "Probes after a fall").
const FALL_SILENCE_FACTOR: f64 = 2.0;
/// `mean` moved by weight `w` towards `x` (`x` itself for the first value).
fn ewma(mean: f64, x: f64, w: f64) -> f64 {
    if mean > 0.0 {
        mean + w * (x - mean)
    } else {
        x
    }
}

impl SendRhythm {
    /// Whether the silence at `now` is long enough for a probe: at least `min_gap`, and more
    /// than `factor` usual gaps, or than [`FALL_SILENCE_FACTOR`] of them while the CP's own
    /// offers to this UP function have thinned `fell_factor`-fold (its demand fell).
    fn probe_due(
        &self,
        now: Instant,
        factor: Option<u32>,
        fell_factor: Option<u32>,
        min_gap: Duration,
    ) -> bool {
        let Some(last) = self.last else {
            return false;
        };
        let silence = now.saturating_duration_since(last);
        if self.mean_gap <= 0.0 || silence < min_gap {
            return false;
        }
        let silence = silence.as_secs_f64();
        let fell = |k: u32| {
            self.offer_gap_long > 0.0 && self.offer_gap_short > f64::from(k) * self.offer_gap_long
        };
        factor.is_some_and(|f| silence > f64::from(f) * self.mean_gap)
            || fell_factor.is_some_and(|k| fell(k) && silence > FALL_SILENCE_FACTOR * self.mean_gap)
    }

    fn offered(&mut self, now: Instant) {
        if let Some(gap) = self.last_offer.map(|l| now.saturating_duration_since(l)) {
            let gap = gap.as_secs_f64();
            self.offer_gap_short = ewma(self.offer_gap_short, gap, OFFER_SHORT_WEIGHT);
            self.offer_gap_long = ewma(self.offer_gap_long, gap, OFFER_LONG_WEIGHT);
        }
        self.last_offer = Some(now);
    }

    fn sent(&mut self, now: Instant) {
        if let Some(gap) = self.last.map(|l| now.saturating_duration_since(l)) {
            self.mean_gap = ewma(self.mean_gap, gap.as_secs_f64(), GAP_WEIGHT);
        }
        self.last = Some(now);
    }
}

/// How [`Throttles::admit`] let a request through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Admitted {
    /// The throttles admitted it.
    Decided,
    /// The Loss throttle shed it and it went as a probe ([`CpConfig::probe_gap_factor`]).
    Probe,
}

/// The per-destination throttles, apart from the rest so that routing can borrow them while
/// the route list is borrowed too.
#[derive(Debug, Clone)]
pub(super) struct Throttles {
    loss_config: LossConfig,
    loss_mode: LossMode,
    probe_gap_factor: Option<u32>,
    probe_fall_factor: Option<u32>,
    probe_min_gap: Duration,
    sets: EgressConfigSets<NodeKey>,
    max: usize,
    peers: HashMap<NodeKey, Entry, foldhash::fast::RandomState>,
}

impl Throttles {
    /// No throttle yet; `config` says how to make them (validated by the caller).
    pub(super) fn new(config: &CpConfig) -> Self {
        let mut sets = config.egress_sets.clone();
        if let (None, Some(e)) = (sets.default_set(), config.egress) {
            // `CpConfig::egress`: the set of the UP functions without an assignment. The name
            // only has to be new (a set may already be called "default").
            let mut n = 0u32;
            let id = loop {
                let name = if n == 0 {
                    "default".to_owned()
                } else {
                    format!("default-{n}")
                };
                match sets.add(name, e) {
                    Ok(id) => break Some(id),
                    Err(pfcp_throttle::egress::EgressSetError::DuplicateName(_)) => n += 1,
                    // Validated by `CpOverloadControl::new`.
                    Err(_) => break None,
                }
            };
            sets.set_default(id);
        }
        Throttles {
            loss_config: config.loss,
            loss_mode: config.loss_mode,
            probe_gap_factor: config.probe_gap_factor,
            probe_fall_factor: config.probe_fall_factor,
            probe_min_gap: config.probe_min_gap,
            sets,
            max: config.max_destinations,
            peers: HashMap::default(),
        }
    }

    /// The egress configuration sets (the default included).
    pub(super) fn sets(&self) -> &EgressConfigSets<NodeKey> {
        &self.sets
    }

    /// The egress configuration sets, to assign sets to UP functions. A UP function's
    /// throttle already made keeps its configuration until it is dropped
    /// ([`Throttles::forget`]).
    pub(super) fn sets_mut(&mut self) -> &mut EgressConfigSets<NodeKey> {
        &mut self.sets
    }

    /// The throttles of UP function `node`, if it has them yet.
    pub(super) fn peer(&self, node: &NodeKey) -> Option<&PeerThrottles> {
        self.peers.get(node).map(|e| &e.throttles)
    }

    /// The Loss throttle of UP function `node`, if it has one yet.
    pub(super) fn loss_throttle(&self, node: &NodeKey) -> Option<&LossThrottle> {
        self.peer(node).map(PeerThrottles::loss)
    }

    /// The egress throttle of UP function `node`, if it has one yet.
    pub(super) fn egress_throttle(&self, node: &NodeKey) -> Option<&EgressThrottle> {
        self.peer(node).and_then(PeerThrottles::egress)
    }

    /// Whether `dest`'s throttles admit a request of `class`, deciding Loss and egress
    /// together ([`PeerThrottles::decide_at`]); records the decision. `routed`: `dest` is a
    /// candidate of a route list, and an egress refusal is not counted as load offered to
    /// its connection ([`PeerThrottles::admit_at`]; router: the diverted traffic must not keep
    /// the preferred group congested).
    pub(super) fn admit(
        &mut self,
        overload: &OverloadTable,
        dest: &Destination,
        class: RequestClass,
        routed: bool,
        now: Instant,
        draw: u64,
    ) -> Result<Admitted, RejectReason> {
        let reduction = overload.reduction(dest.entity, &dest.node, now);
        // The low 32 bits: the routing picks use the whole draw through SplitMix64.
        let draw = match self.loss_mode {
            LossMode::Deterministic => None,
            LossMode::Random => Some(draw as u32),
        };
        let (factor, min_gap) = (self.probe_gap_factor, self.probe_min_gap);
        let fell_factor = self.probe_fall_factor;
        let half = u64::from(self.loss_config.window_requests / 2);
        let entry = self.entry(&dest.node, now);
        entry.sends.offered(now);
        if entry.owed > 0 && (reduction == 0 || entry.throttles.loss().window_count() >= half) {
            // No reduction left to keep, or the window is long enough for the throttle's
            // judgement to stand: the places still owed are forgiven (paid later, they would
            // be a dip when the storm ends, read as a fall of demand).
            entry.owed = 0;
        }
        let t = &mut entry.throttles;
        let decided = if routed {
            t.admit_at(class, reduction, draw, now)
        } else {
            t.decide_at(class, reduction, draw, now)
        };
        let mut refusal = match decided {
            Ok(()) => {
                entry.sends.sent(now);
                return Ok(Admitted::Decided);
            }
            Err(r) => r,
        };
        if matches!(refusal, Refusal::Loss(_))
            && entry.sends.probe_due(now, factor, fell_factor, min_gap)
        {
            match entry.throttles.send_anyway(class, now, routed) {
                Ok(()) => {
                    entry.sends.sent(now);
                    metrics::counter!("pfcp_cp_probes_total").increment(1);
                    tracing::debug!(
                        node = %dest.node,
                        entity = ?dest.entity,
                        reduction,
                        "cp: probe (sent although the Loss throttle shed it)"
                    );
                    return Ok(Admitted::Probe);
                }
                Err(r) => refusal = r,
            }
        }
        let t = &mut entry.throttles;
        let level = t.egress().map(EgressThrottle::level);
        match refusal {
            Refusal::Loss(l) => {
                metrics::counter!("pfcp_requests_throttled_total", "reason" => "loss").increment(1);
                tracing::debug!(
                    node = %dest.node,
                    entity = ?dest.entity,
                    priority = class.priority.value(),
                    exempt = class.exempt,
                    reduction = l.reduction,
                    "cp: throttled by the Loss throttle"
                );
                Err(RejectReason::Loss(l))
            }
            Refusal::Egress(r) => Err(egress_refused(dest, class, r, level, routed)),
            // `Refusal` has no other variant today; a new one is an egress refusal until the
            // pipeline learns it.
            _ => Err(egress_refused(
                dest,
                class,
                ThrottleReason::RateLimit,
                level,
                routed,
            )),
        }
    }

    /// Send a request of `class` that UP function `node`'s Loss throttle shed (at a reduction
    /// of `reduction` %) ahead of a later lower-priority place ([`PeerThrottles::send_ahead`]):
    /// only while the throttle has counted less than half its window (its estimate of the
    /// classes' shares is rough), fewer than `max` places are owed, the window's exempt share
    /// is not surely above what the reduction leaves, and the egress throttle lets it through.
    /// Whether it goes.
    pub(super) fn send_ahead(
        &mut self,
        node: &NodeKey,
        class: RequestClass,
        reduction: u8,
        routed: bool,
        max: u32,
        now: Instant,
    ) -> bool {
        let half = u64::from(self.loss_config.window_requests / 2);
        let entry = self.entry(node, now);
        let loss = entry.throttles.loss();
        let refused_lately = entry
            .exempt_refused
            .is_some_and(|t| now.saturating_duration_since(t) < EXEMPT_REFUSAL_MEMORY);
        if entry.owed >= max
            || refused_lately
            || loss.window_count() >= half
            || exempt_surely_exceeds(loss, reduction)
            || entry.throttles.send_ahead(class, now, routed).is_err()
        {
            return false;
        }
        entry.owed += 1;
        entry.sends.sent(now);
        true
    }

    /// UP function `node` refused one of our eMPS or emergency requests at `now` (cause 74).
    pub(super) fn exempt_refused(&mut self, node: &NodeKey, now: Instant) {
        if let Some(e) = self.peers.get_mut(node) {
            e.exempt_refused = Some(now);
        }
    }

    /// Whether UP function `node` is owed a place by a request sent ahead.
    pub(super) fn owes_place(&self, node: &NodeKey) -> bool {
        self.peers.get(node).is_some_and(|e| e.owed > 0)
    }

    /// A request of `class` that `node`'s throttles admitted gives its place to one sent
    /// ahead ([`PeerThrottles::give_way`]).
    pub(super) fn give_way(&mut self, node: &NodeKey, class: RequestClass) {
        if let Some(e) = self.peers.get_mut(node) {
            e.owed = e.owed.saturating_sub(1);
            e.throttles.give_way(class);
        }
    }

    /// A message sent to UP function `node` at `now` without a decision (`kind`: an answer, a
    /// retransmission, a Heartbeat or Association message): counted in the egress rate of its
    /// connection, if it has an egress configuration. Never throttled.
    pub(super) fn on_send(&mut self, node: &NodeKey, kind: MessageKind, now: Instant) {
        if !self.peers.contains_key(node) && self.sets.config_for(node).is_none() {
            return;
        }
        self.entry(node, now).throttles.on_send(kind, now);
    }

    /// The throttles of UP function `node`, created if needed (the least recently used ones
    /// are dropped when the map is full).
    fn entry(&mut self, node: &NodeKey, now: Instant) -> &mut Entry {
        if !self.peers.contains_key(node) && self.peers.len() >= self.max {
            let lru = self
                .peers
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(d, _)| d.clone());
            if let Some(d) = lru {
                tracing::debug!(node = %d, "cp: throttles dropped (LRU)");
                self.peers.remove(&d);
            }
        }
        let (config, sets) = (self.loss_config, &self.sets);
        let entry = self.peers.entry(node.clone()).or_insert_with(|| Entry {
            throttles: PeerThrottles::new(LossThrottle::new(config), sets.throttle_for(node, now)),
            last_used: now,
            sends: SendRhythm::default(),
            owed: 0,
            exempt_refused: None,
        });
        entry.last_used = now;
        entry
    }

    /// Bring the reduction of `dest`'s UP function's Loss throttle (if it has one) up to date
    /// with the node's metric and `dest`'s entity: a log line when it changes, and the credit
    /// cleared once no overload is left (requests carry their own reduction, see
    /// [`LossThrottle::decide_at`]).
    pub(super) fn refresh(&mut self, overload: &OverloadTable, dest: &Destination, now: Instant) {
        if let Some(e) = self.peers.get_mut(&dest.node) {
            set_reduction(
                dest,
                e.throttles.loss_mut(),
                overload.reduction(dest.entity, &dest.node, now),
            );
        }
    }

    /// A request admitted towards UP function `node` has ended: free its egress pending slot.
    /// Whether UP function `node`'s Loss throttle has counted less than half its window (see
    /// [`LossThrottle::window_count`]).
    pub(super) fn window_short(&self, node: &NodeKey) -> bool {
        self.loss_throttle(node)
            .is_some_and(|l| l.window_count() < u64::from(self.loss_config.window_requests / 2))
    }

    /// Whether the exempt traffic UP function `node`'s Loss throttle has counted since it
    /// began, as a share of all it counted, fits what a reduction of `reduction` % leaves;
    /// yes while it counted fewer than a tenth of its window (too few to tell). Unlike the
    /// window's shares, this long-run share is not thrown off by a cluster of emergency
    /// sessions at a storm's onset.
    pub(super) fn exempt_fits(&self, node: &NodeKey, reduction: u8) -> bool {
        let Some(loss) = self.loss_throttle(node) else {
            return true;
        };
        let offered = &loss.stats().offered;
        let total: u64 = offered.iter().sum();
        let exempt = offered.last().copied().unwrap_or(0);
        total < u64::from(self.loss_config.window_requests / 10)
            || exempt.saturating_mul(100)
                < total.saturating_mul(u64::from(100 - reduction.min(100)))
    }

    /// A request of class `held` that UP function `node`'s Loss throttle shed goes in the
    /// place of one of class `yielding` that it let through: the one counts as sent
    /// ([`LossThrottle::send_anyway`]), the other as not sent ([`LossThrottle::unsent`]), so
    /// the credit that paces the drops is where it was. The egress throttle counted one
    /// request, and one goes.
    pub(super) fn swap(&mut self, node: &NodeKey, held: RequestClass, yielding: RequestClass) {
        if let Some(e) = self.peers.get_mut(node) {
            let loss = e.throttles.loss_mut();
            loss.send_anyway(held);
            loss.unsent(yielding);
        }
    }

    /// A request of class `class` that UP function `node`'s Loss throttle shed goes after
    /// all, its reduction having ended, if the egress throttle lets it through
    /// ([`PeerThrottles::send_anyway`]); whether it goes.
    pub(super) fn send_anyway(
        &mut self,
        node: &NodeKey,
        class: RequestClass,
        now: Instant,
    ) -> bool {
        let entry = self.entry(node, now);
        let sent = entry.throttles.send_anyway(class, now, false).is_ok();
        if sent {
            entry.sends.sent(now);
        }
        sent
    }

    pub(super) fn transaction_ended(&mut self, node: &NodeKey) {
        if let Some(e) = self.peers.get_mut(node) {
            e.throttles.on_transaction_end();
        }
    }

    /// Advance every egress throttle to `now`.
    pub(super) fn handle_timeout(&mut self, now: Instant) {
        for e in self.peers.values_mut() {
            if let Some(egress) = e.throttles.egress_mut() {
                egress.handle_timeout(now);
            }
        }
    }

    /// The peer known as `from` (its address, before its association) is UP function `to`:
    /// what its connection counted so far (the Association Setup Request) moves to `to`'s
    /// throttles if `to` has none yet and its egress configuration is the same; otherwise it
    /// is dropped.
    pub(super) fn rekey(&mut self, from: &NodeKey, to: &NodeKey) {
        if from == to {
            return;
        }
        let Some(entry) = self.peers.remove(from) else {
            return;
        };
        let same = entry.throttles.egress().map(|e| *e.config()) == self.sets.config_for(to);
        if same && !self.peers.contains_key(to) {
            self.peers.insert(to.clone(), entry);
        }
    }

    /// Drop every throttle of UP function `node` (it restarted or left).
    pub(super) fn forget(&mut self, node: &NodeKey) {
        self.peers.remove(node);
    }

    /// Bring the reductions of the Loss throttles whose overload state `expired` (ended or
    /// evicted) up to date: back to the metric of the other scope, or 0.
    pub(super) fn refresh_expired(
        &mut self,
        overload: &OverloadTable,
        expired: &[Scope],
        now: Instant,
    ) {
        let affected: Vec<NodeKey> = self
            .peers
            .keys()
            .filter(|n| {
                expired
                    .iter()
                    .any(|s| matches!(s, Scope::Node(x) if x == *n))
            })
            .cloned()
            .collect();
        for n in affected {
            self.refresh(overload, &Destination::node(n), now);
        }
        // An entity's expiry: the throttles of the UP functions are refreshed by the next
        // request to that entity (each request carries its own reduction).
    }
}

/// The egress side of the pipeline: the throttles of each UP function, their configuration
/// sets, and the messages its connection carries without a decision.
impl CpOverloadControl {
    /// The Loss and egress throttles of UP function `node` deciding together, if it has them
    /// yet.
    pub fn peer_throttles(&self, node: &NodeKey) -> Option<&PeerThrottles> {
        self.throttles.peer(node)
    }

    /// The egress configuration sets and their assignment to UP functions
    /// ([`CpConfig::egress_sets`], with [`CpConfig::egress`] as the default set).
    pub fn egress_sets(&self) -> &EgressConfigSets<NodeKey> {
        self.throttles.sets()
    }

    /// The egress configuration sets, to assign a set (or a per-peer Max EMR,
    /// [`EgressConfigSets::assign_peer`]) to a UP function. A UP function whose egress
    /// throttle exists already keeps its configuration until [`CpOverloadControl::reset_peer`].
    pub fn egress_sets_mut(&mut self) -> &mut EgressConfigSets<NodeKey> {
        self.throttles.sets_mut()
    }

    /// A request admitted earlier was retransmitted towards `dest` (never re-decided): count
    /// it in the egress rate as a [`MessageKind::Retransmission`] (router: the EMR is every
    /// request and answer on the connection; retransmissions surge in overload).
    pub fn on_retransmit(&mut self, dest: &Destination, now: Instant) {
        self.throttles
            .on_send(&dest.node, MessageKind::Retransmission, now);
    }

    /// A message sent to UP function `node` without a decision: an answer
    /// ([`MessageKind::Answer`], e.g. a Session Report Response), a Heartbeat or Association
    /// message ([`MessageKind::Management`]) or a retransmission. Counted in the egress rate of
    /// its connection (router: "the egress Request rate + the egress Answer rate"), never
    /// throttled.
    pub fn on_send(&mut self, node: &NodeKey, kind: MessageKind, now: Instant) {
        self.throttles.on_send(node, kind, now);
    }

    /// The peer counted so far as `from` (its IP address, before its association told its
    /// Node ID) is UP function `to`: its connection's counts move to `to` (when `to` has no
    /// throttles yet and the same egress configuration), so the Association Setup Request
    /// counts on the connection it was sent on.
    pub fn rekey_peer(&mut self, from: &NodeKey, to: &NodeKey) {
        self.throttles.rekey(from, to);
    }
}

/// Count and log an egress refusal of a request to `dest`; the reason to report.
fn egress_refused(
    dest: &Destination,
    class: RequestClass,
    r: ThrottleReason,
    level: Option<u8>,
    routed: bool,
) -> RejectReason {
    let reason = match r {
        ThrottleReason::Level(_) => "egress_level",
        ThrottleReason::RateLimit => "egress_rate",
        ThrottleReason::PendingLimit => "egress_pending",
    };
    metrics::counter!("pfcp_requests_throttled_total", "reason" => reason).increment(1);
    tracing::debug!(
        node = %dest.node,
        entity = ?dest.entity,
        priority = class.priority.value(),
        exempt = class.exempt,
        reason,
        level,
        routed,
        "cp: throttled by the egress throttle"
    );
    RejectReason::Egress(r)
}

/// Set the reduction of `dest`'s Loss throttle, with a log line when it changes.
fn set_reduction(dest: &Destination, throttle: &mut LossThrottle, reduction: u8) {
    let old = throttle.reduction();
    if old != reduction {
        tracing::info!(
            node = %dest.node,
            entity = ?dest.entity,
            old,
            reduction,
            "cp: destination reduction changed"
        );
        throttle.set_reduction(reduction);
    }
}
