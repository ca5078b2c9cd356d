//! The CP function's decisions ([`CpPolicy`]): what it knows of no UP function in particular
//! (the classifier, UP selection, the route list, the throttles' configuration, the counters)
//! and the one path every request takes, [`CpPolicy::decide`], over the [`UpLink`] of its UP
//! function.
//!
//! A received OCI reaches the next decision in three steps: [`CpPolicy::handle_message`]
//! stores it in the UP function's link (its overload table, the one writer of the
//! reduction); [`CpPolicy::decide`] reads the reduction of the request's scope from the link
//! once, and the link's throttles decide with it; [`CpPolicy::record`] counts and traces what
//! came of it.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use pfcp_overload::{
    Candidate, CandidateView, NodeKey, OciOrigin, OciOutcome, OverloadEvent, UpSelector,
};
use pfcp_throttle::{
    Classification, Classifier, EgressConfigSets, LossRequest, MessageKind, Procedure, Refusal,
    RequestClass, RequestContext, RouteList, ThrottleReason, Throttled,
};
use pfcp_wire::{Cause, Message, MessageType, MessageView};

use super::hold::{HoldOutcome, HoldTicket};
use super::link::{OfferRhythm, UpLink, UpLinks};
use super::{CpConfig, CpConfigError, CpDecision, CpStats, Destination, LossMode, RejectReason};
use super::{CpRequest, ResponseOutcome};

mod counts;
mod holds;
mod redirect;
use redirect::LinkConfig;

/// How the throttles let a request through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Admitted {
    /// The throttles admitted it.
    Decided,
    /// The Loss throttle shed it and it went as a probe ([`CpConfig::probe_gap_factor`]).
    Probe,
}

/// What came of one decision, for [`CpPolicy::record`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Bypass,
    Send {
        probe: bool,
    },
    Ahead,
    Redirect,
    Hold,
    Reject,
    /// Admitted, but its place went to a priority request (sent ahead, or held).
    Yielded {
        to_held: bool,
    },
}

/// The CP function's decisions: see the [module docs](crate::cp).
#[derive(Debug, Clone)]
pub struct CpPolicy {
    classifier: Classifier,
    selector: UpSelector,
    routes: Option<RouteList<Destination>>,
    links: LinkConfig,
    probe_gap_factor: Option<u32>,
    probe_fall_factor: Option<u32>,
    probe_min_gap: Duration,
    /// The rhythm of every request offered, for probes after a fall.
    offers: OfferRhythm,
    hold: Option<Duration>,
    hold_max: usize,
    ahead_max: u32,
    next_ticket: u64,
    outcomes: VecDeque<(HoldTicket, HoldOutcome)>,
    stats: CpStats,
}

impl CpPolicy {
    /// A policy with no route list.
    pub fn new(config: CpConfig) -> Result<Self, CpConfigError> {
        if let Some(e) = &config.egress {
            e.validate()?;
        }
        if config.max_destinations == 0 {
            return Err(CpConfigError::MaxDestinations);
        }
        if config.probe_gap_factor == Some(0) {
            return Err(CpConfigError::ProbeGapFactor);
        }
        if config.probe_fall_factor.is_some_and(|k| k < 2) {
            return Err(CpConfigError::ProbeFallFactor);
        }
        Ok(CpPolicy {
            classifier: Classifier::new(config.classifier),
            selector: config.selector,
            routes: None,
            links: LinkConfig {
                overload: config.overload,
                load: config.load,
                loss: config.loss,
                loss_mode: config.loss_mode,
                sets: with_default_set(config.egress_sets, config.egress),
            },
            probe_gap_factor: config.probe_gap_factor,
            probe_fall_factor: config.probe_fall_factor,
            probe_min_gap: config.probe_min_gap,
            offers: OfferRhythm::default(),
            hold: config.exempt_hold.filter(|d| !d.is_zero()),
            hold_max: config.exempt_hold_max,
            ahead_max: config.exempt_ahead_max,
            next_ticket: 0,
            outcomes: VecDeque::new(),
            stats: CpStats::default(),
        })
    }

    /// A new link to UP function `node`: empty views, a Loss throttle, and the egress throttle
    /// of the configuration set assigned to `node` (or the default set), if any.
    pub fn link(&self, node: &NodeKey, now: Instant) -> UpLink {
        self.links.link(node, now)
    }

    /// Counters since creation.
    pub fn stats(&self) -> &CpStats {
        &self.stats
    }

    /// The classifier.
    pub fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    /// Replace (or remove) the route list of alternate UP functions.
    pub fn set_routes(&mut self, routes: Option<RouteList<Destination>>) {
        self.routes = routes;
    }

    /// The route list, e.g. to update weights from load control.
    pub fn routes_mut(&mut self) -> Option<&mut RouteList<Destination>> {
        self.routes.as_mut()
    }

    /// The egress configuration sets and their assignment to UP functions
    /// ([`CpConfig::egress_sets`], with [`CpConfig::egress`] as the default set).
    pub fn egress_sets(&self) -> &EgressConfigSets<NodeKey> {
        &self.links.sets
    }

    /// The egress configuration sets, to assign a set (or a per-peer Max EMR) to a UP
    /// function. A link made already keeps its configuration until it ends.
    pub fn egress_sets_mut(&mut self) -> &mut EgressConfigSets<NodeKey> {
        &mut self.links.sets
    }

    /// The classification of a request of `message_type` with `ctx` (its `procedure`
    /// defaulting to the message type's), as [`CpPolicy::decide`] makes it: the rule, the base
    /// priority and every C.2 adjustment that fired (TS 29.273 Annex C.2).
    pub fn classify(&self, message_type: MessageType, ctx: &RequestContext<'_>) -> Classification {
        let mut ctx = ctx.reborrow();
        if ctx.procedure.is_none() {
            ctx.procedure = Procedure::of(message_type);
        }
        self.classifier.classify(&ctx)
    }

    /// Process the OCI and LCI of a message from the UP function of `link`: a response (51,
    /// 53, 55) or a Session Report Request (56). `entity` is the PFCP entity of the session
    /// (the UP F-SEID address); `None` for a Session Establishment Response, whose UP F-SEID
    /// is read from the message. A missing, malformed or stale OCI/LCI changes nothing and is
    /// never an error (clause 7.2.3.2).
    pub fn handle_message(
        &mut self,
        link: &mut UpLink,
        entity: Option<IpAddr>,
        msg: &Message<'_>,
        now: Instant,
    ) -> ResponseOutcome {
        let origin = OciOrigin::new(link.node.clone(), entity);
        let oci = link.overload.handle_message(&origin, msg, now);
        if let Some(o) = &oci {
            self.stats.oci.count(o);
            trace_oci(&link.node, msg.message_type(), o, now);
        }
        let lci = link.load.handle_message(&link.node, msg, now);
        if let Some(l) = &lci {
            self.stats.lci.count(l);
            tracing::debug!(node = %link.node, outcome = ?l, "cp: LCI");
        }
        self.drain_events(link);
        ResponseOutcome { oci, lci }
    }

    /// The answer to a request of `message_type` sent to `link`'s UP function: its `cause`,
    /// and whether it `carried_oci`. Answers to the requests of throttled procedures feed the
    /// reduction derived from Cause 74 refusals of a UP function that sends no OCI
    /// (`cp/implicit.rs`).
    pub fn answered(
        &mut self,
        link: &mut UpLink,
        message_type: MessageType,
        cause: Option<Cause>,
        carried_oci: bool,
        now: Instant,
    ) {
        if Procedure::of(message_type).is_some_and(Procedure::is_throttled) {
            link.implicit.answered(
                cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION),
                carried_oci,
                now,
            );
        }
    }

    /// [`CpPolicy::handle_message`] for a message the caller decoded into its
    /// [`MessageView`] (one walk: the OCI and LCI as typed values), as a node's intake does.
    pub fn handle_view(
        &mut self,
        link: &mut UpLink,
        entity: Option<IpAddr>,
        view: &MessageView<'_>,
        now: Instant,
    ) -> ResponseOutcome {
        let mt = view.message.message_type();
        let may_carry = mt.may_carry_oci();
        let carried =
            view.overload_control_information.is_some() || view.load_control_information.is_some();
        if view.ignored > 0 || (carried && !may_carry) {
            // A malformed optional IE, or OCI/LCI where none may be: the table reads the
            // message itself and says which.
            return self.handle_message(link, entity, &view.message, now);
        }
        if may_carry {
            link.overload.confirm(&link.node, now);
        }
        let oci = view.overload_control_information.map(|oci| {
            // An establishment's UP F-SEID names the entity of an OCI without AOCI.
            let entity = entity.or_else(|| {
                view.f_seid
                    .and_then(|f| f.ipv4.map(IpAddr::V4).or(f.ipv6.map(IpAddr::V6)))
            });
            let origin = OciOrigin::new(link.node.clone(), entity);
            let o = link.overload.handle_oci(&origin, &oci, now);
            self.stats.oci.count(&o);
            trace_oci(&link.node, mt, &o, now);
            o
        });
        let lci = view.load_control_information.map(|lci| {
            let l = link.load.handle_lci(&link.node, &lci, now);
            self.stats.lci.count(&l);
            tracing::debug!(node = %link.node, outcome = ?l, "cp: LCI");
            l
        });
        self.drain_events(link);
        ResponseOutcome { oci, lci }
    }

    /// The UP function of `link` refused one of this CP function's eMPS or emergency requests
    /// at `now` (cause 74, clause 6.2.4.5.1): its priority traffic then does not fit there,
    /// and for the next 2 s no shed priority request is sent ahead
    /// ([`CpConfig::exempt_ahead_max`]).
    pub fn exempt_refused(&mut self, link: &mut UpLink, now: Instant) {
        self.stats.exempt_refused += 1;
        link.exempt_refused = Some(now);
    }

    /// Decide for the first transmission of `req` towards the UP function of `link` (see
    /// [`CpDecision`]); `others` are the links of the alternates a redirection may try.
    ///
    /// * Only requests are throttled. Heartbeat and Association requests never are
    ///   ([`Procedure::is_throttled`]); a response passed here is always sent. Both are
    ///   counted on the connection.
    /// * Retransmissions never come here: count them with [`CpPolicy::on_send`].
    /// * A request the link's throttles refuse is redirected (a redirectable Session
    ///   Establishment Request with a route list, to an alternate not in overload whose
    ///   throttles admit it), sent ahead, held, or rejected locally with cause 74 as though
    ///   the UP function had rejected it (clause 6.2.4.4).
    pub fn decide(
        &mut self,
        link: &mut UpLink,
        others: &mut dyn UpLinks,
        req: &CpRequest<'_>,
        now: Instant,
    ) -> CpDecision {
        link.last_used = now;
        let mt = req.message_type;
        let classification = self.classify(mt, &req.context);
        let class = classification.class;
        let priority = class.priority;
        let send = || CpDecision::Send {
            priority,
            dest: req.dest.clone(),
            exempt: class.exempt,
        };
        if !mt.is_request() || !Procedure::of(mt).is_some_and(Procedure::is_throttled) {
            link.throttles.on_send(MessageKind::of(mt), now);
            return self.record(link, req, &classification, Outcome::Bypass, None, send());
        }
        self.offers.offered(now, self.probe_fall_factor);
        let establishment = mt == MessageType::SESSION_ESTABLISHMENT_REQUEST;
        // A redirectable establishment with a route list: the destination is the first route
        // candidate, and its egress refusal is not offered load.
        let routed = req.redirectable && establishment && self.routes.is_some();
        if !link.holds.is_empty() {
            self.release_unthrottled(link, now);
        }
        // The one read of the reduction this request meets.
        let reduction = link.reduction(req.dest.entity, now);
        let reason = match self.admit(link, class, reduction, routed, now, req.draw) {
            Ok(Admitted::Decided) if !class.exempt && !link.holds.is_empty() => {
                return match self.release_one(link, now) {
                    Some(held) => {
                        // The held request goes in this one's place: the one counts as sent,
                        // the other as not sent, so the credit is where it was.
                        let loss = link.throttles.loss_mut();
                        loss.send_anyway(held);
                        loss.unsent(class);
                        let why = Throttled { reduction, class };
                        let d = yielded(why);
                        let o = Outcome::Yielded { to_held: true };
                        self.record(link, req, &classification, o, None, d)
                    }
                    None => self.record(link, req, &classification, sent(false), None, send()),
                };
            }
            Ok(Admitted::Decided) if !class.exempt && link.owed > 0 => {
                link.owed -= 1;
                link.throttles.give_way(class);
                let d = yielded(Throttled { reduction, class });
                let o = Outcome::Yielded { to_held: false };
                return self.record(link, req, &classification, o, None, d);
            }
            Ok(how) => {
                let o = sent(how == Admitted::Probe);
                return self.record(link, req, &classification, o, None, send());
            }
            Err(reason) => reason,
        };
        if req.redirectable && establishment {
            if let Some(to) = self.redirect(&link.node, others, class, now, req.draw) {
                let d = CpDecision::Redirect {
                    to,
                    priority,
                    exempt: class.exempt,
                };
                return self.record(link, req, &classification, Outcome::Redirect, None, d);
            }
        }
        if let RejectReason::Loss(why) = reason {
            let window = self.links.loss.window_requests;
            if class.exempt
                && self.ahead_max > 0
                && link.may_send_ahead(why.reduction, window, self.ahead_max, now)
                && link.throttles.send_ahead(class, now, routed).is_ok()
            {
                link.owed += 1;
                link.rhythm.sent(now);
                return self.record(link, req, &classification, Outcome::Ahead, None, send());
            }
            if class.exempt && link.window_short(window) && link.exempt_fits(why.reduction, window)
            {
                if let Some((ticket, until)) = self.hold(link, req.dest, why, now) {
                    let d = CpDecision::Hold {
                        ticket,
                        until,
                        priority,
                        dest: req.dest.clone(),
                    };
                    return self.record(link, req, &classification, Outcome::Hold, None, d);
                }
            }
        }
        let d = CpDecision::Reject {
            reason,
            cause: Cause::PFCP_ENTITY_IN_CONGESTION,
        };
        self.record(link, req, &classification, Outcome::Reject, Some(reason), d)
    }

    /// The one place a decision is counted and traced.
    fn record(
        &mut self,
        link: &UpLink,
        req: &CpRequest<'_>,
        class: &Classification,
        outcome: Outcome,
        reason: Option<RejectReason>,
        decision: CpDecision,
    ) -> CpDecision {
        let s = &mut self.stats;
        match outcome {
            Outcome::Bypass => s.bypassed += 1,
            Outcome::Send { probe } => {
                s.sent += 1;
                s.probes += u64::from(probe);
            }
            Outcome::Ahead => {
                s.sent += 1;
                s.sent_ahead += 1;
            }
            Outcome::Redirect => s.redirected += 1,
            Outcome::Hold => s.held += 1,
            Outcome::Reject => s.rejected += 1,
            Outcome::Yielded { to_held } => {
                s.rejected += 1;
                if to_held {
                    s.sent += 1;
                    s.held_sent += 1;
                } else {
                    s.gave_way += 1;
                }
            }
        }
        match reason {
            Some(RejectReason::Loss(_)) => s.throttled.loss += 1,
            Some(RejectReason::Egress(r)) => s.throttled.egress(r),
            _ => {}
        }
        tracing::debug!(
            node = %link.node,
            entity = ?req.dest.entity,
            message_type = req.message_type.0,
            priority = class.class.priority.value(),
            exempt = class.class.exempt,
            class = %class,
            outcome = ?outcome,
            reason = ?reason,
            to = ?match &decision { CpDecision::Redirect { to, .. } => Some(to), _ => None },
            "cp: decision"
        );
        decision
    }

    /// Whether `link`'s throttles admit a request of `class` at `reduction`, deciding Loss and
    /// egress together; a shed one may go as a probe. `routed`: the link is a candidate of a
    /// route list, and an egress refusal is not counted as load offered to its connection.
    fn admit(
        &mut self,
        link: &mut UpLink,
        class: RequestClass,
        reduction: u8,
        routed: bool,
        now: Instant,
        draw: u64,
    ) -> Result<Admitted, RejectReason> {
        // The low 32 bits: the routing picks use the whole draw through SplitMix64.
        let draw = match self.links.loss_mode {
            LossMode::Deterministic => None,
            LossMode::Random => Some(draw as u32),
        };
        link.rhythm.offered(now);
        if link.owed > 0 && (reduction == 0 || !link.window_short(self.links.loss.window_requests))
        {
            // No reduction left to keep, or the window is long enough for the throttle's
            // judgement to stand: the places still owed are forgiven (paid later, they would
            // be a dip when the storm ends, read as a fall of demand).
            link.owed = 0;
        }
        let t = &mut link.throttles;
        let request = LossRequest::new(class).at(reduction).with_draw(draw);
        let decided = if routed {
            t.admit(request, now)
        } else {
            t.decide(request, now)
        };
        let mut refusal = match decided {
            Ok(()) => {
                link.rhythm.sent(now);
                return Ok(Admitted::Decided);
            }
            Err(r) => r,
        };
        let (factor, fell, min_gap) = (
            self.probe_gap_factor,
            self.probe_fall_factor,
            self.probe_min_gap,
        );
        if matches!(refusal, Refusal::Loss(_))
            && link
                .rhythm
                .probe_due(now, factor, fell, min_gap, self.offers.fell_at)
        {
            match link.throttles.send_anyway(class, now, routed) {
                Ok(()) => {
                    link.rhythm.sent(now);
                    return Ok(Admitted::Probe);
                }
                Err(r) => refusal = r,
            }
        }
        Err(match refusal {
            Refusal::Loss(l) => RejectReason::Loss(l),
            Refusal::Egress(r) => RejectReason::Egress(r),
            // `Refusal` has no other variant today; a new one is an egress refusal until the
            // pipeline learns it.
            _ => RejectReason::Egress(ThrottleReason::RateLimit),
        })
    }

    /// Select the UP function for a new session among `candidates` ([`UpSelector`]: weights,
    /// the LCI loads and the node-scoped overload of each candidate's link, `links`); `draw`
    /// is a uniformly distributed `u64`. `None` if no candidate has a positive weight.
    pub fn select_up(
        &mut self,
        candidates: &[Candidate],
        links: impl Fn(&NodeKey) -> Option<CandidateView>,
        now: Instant,
        draw: u64,
    ) -> Option<usize> {
        let chosen = self.selector.select_with(
            candidates,
            |c| links(&c.node).unwrap_or_default(),
            now,
            draw,
        );
        match chosen {
            Some(_) => self.stats.selections += 1,
            None => self.stats.selections_none += 1,
        }
        tracing::debug!(chosen = ?chosen.and_then(|i| candidates.get(i)).map(|c| &c.node), candidates = candidates.len(), "cp: UP selection");
        chosen
    }

    /// A message sent to the UP function of `link` without a decision: an answer
    /// ([`MessageKind::Answer`], e.g. a Session Report Response), a Heartbeat or Association
    /// message ([`MessageKind::Management`]) or a retransmission (router: the EMR is "the
    /// egress Request rate + the egress Answer rate"). Counted in the egress rate of its
    /// connection, never throttled.
    pub fn on_send(&mut self, link: &mut UpLink, kind: MessageKind, now: Instant) {
        link.throttles.on_send(kind, now);
    }

    /// A request admitted towards the link's UP function has ended (answered, timed out
    /// after the last retransmission, or abandoned): frees its egress pending slot.
    pub fn transaction_ended(&mut self, link: &mut UpLink) {
        link.throttles.on_transaction_end();
    }

    /// Expire the overload states of the link whose Period of Validity ended by `now`,
    /// advance its egress throttle, and end the holds due by `now` (held requests whose
    /// reduction is 0 again are sent, the others whose hold ended rejected:
    /// [`CpPolicy::poll_hold`]).
    pub fn handle_timeout(&mut self, link: &mut UpLink, now: Instant) {
        link.overload.handle_timeout(now);
        self.drain_events(link);
        if let Some(egress) = link.throttles.egress_mut() {
            egress.handle_timeout(now);
        }
        if !link.holds.is_empty() {
            self.release_unthrottled(link, now);
            self.expire_holds(link, now);
        }
    }

    /// The link ends (its UP function restarted, re-associated, released the association or
    /// failed its heartbeats): its held requests are rejected.
    pub fn forget(&mut self, link: UpLink) {
        self.stats.peer_resets += 1;
        for h in link.holds {
            self.stats.rejected += 1;
            self.stats.held_expired += 1;
            self.outcomes
                .push_back((h.ticket, HoldOutcome::Reject(h.why)));
        }
        tracing::info!(node = %link.node, "cp: UP function's state reset");
    }

    /// Count the overload table's expiries and evictions (OCI outcomes are counted where they
    /// are returned).
    fn drain_events(&mut self, link: &mut UpLink) {
        while let Some(event) = link.overload.poll_event() {
            match event {
                OverloadEvent::Expired(scope) => {
                    self.stats.oci_expired += 1;
                    tracing::info!(node = %link.node, scope = %scope, "cp: overload state expired");
                }
                OverloadEvent::Evicted(scope) => {
                    self.stats.oci_evicted += 1;
                    tracing::debug!(node = %link.node, scope = %scope, "cp: overload state evicted (table full)");
                }
                _ => {}
            }
        }
    }
}

fn sent(probe: bool) -> Outcome {
    Outcome::Send { probe }
}

/// The local rejection of a request whose place went to a priority request.
fn yielded(why: Throttled) -> CpDecision {
    CpDecision::Reject {
        reason: RejectReason::Yielded(why),
        cause: Cause::PFCP_ENTITY_IN_CONGESTION,
    }
}

/// The egress configuration sets with [`CpConfig::egress`] as the set of the UP functions
/// without an assignment (under a name not taken yet).
fn with_default_set(
    mut sets: EgressConfigSets<NodeKey>,
    egress: Option<pfcp_throttle::EgressConfig>,
) -> EgressConfigSets<NodeKey> {
    if let (None, Some(e)) = (sets.default_set(), egress) {
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
                // Validated by `CpPolicy::new`.
                Err(_) => break None,
            }
        };
        sets.set_default(id);
    }
    sets
}

/// Trace what became of an OCI.
fn trace_oci(node: &NodeKey, message_type: MessageType, o: &OciOutcome, now: Instant) {
    match o {
        OciOutcome::Applied {
            scope,
            metric,
            expires,
        } => tracing::info!(
            node = %node,
            message_type = message_type.0,
            scope = %scope,
            metric,
            expires_in_ms = expires.map(|t| t.saturating_duration_since(now).as_millis() as u64),
            "cp: OCI applied"
        ),
        OciOutcome::Ignored { scope, reason } => tracing::debug!(
            node = %node,
            message_type = message_type.0,
            scope = ?scope,
            reason = ?reason,
            "cp: OCI ignored"
        ),
    }
}
