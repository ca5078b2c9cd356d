//! The CP function's request pipeline (sans-IO): which requests go to which UP function, and
//! which are redirected or failed locally, from the overload and load control information
//! the UP functions send (TS 29.244 clauses 6.2.3, 6.2.4.4, 6.2.4.5; Annex A.1, Annex B).
//!
//! [`CpOverloadControl`] combines, per UP destination:
//!
//! * one [`OverloadTable`] for every UP function (keyed by Node ID for AOCI, by PFCP entity IP
//!   otherwise), fed by [`CpOverloadControl::handle_response`];
//! * one [`LossThrottle`] per UP function, shared by all its PFCP entities, created lazily on
//!   the first request and bounded by [`CpConfig::max_destinations`] (the least recently used
//!   is dropped when full). Each request's reduction is
//!   [`OverloadTable::reduction`]`(entity, node, now)`: the larger of its entity's and the
//!   node's overload metric; all requests to the UP function are ranked together
//!   ([`LossThrottle::decide_at`]), so priority traffic is exempt while the UP function's other
//!   traffic can make up the reduction (clause 6.2.4.5.1);
//! * optionally one [`EgressThrottle`] per UP function (per PFCP association), for a peer
//!   whose capacity is known up front: the configuration set assigned to it in
//!   [`CpConfig::egress_sets`] (the router's "Egress Throttling Configuration Sets ...
//!   assigned to Connections", with a per-peer Max EMR), or [`CpConfig::egress`] for the
//!   others. The Loss and the egress throttle of a UP function decide together
//!   ([`PeerThrottles`](pfcp_throttle::PeerThrottles): a request the egress throttle
//!   refuses after the Loss throttle let it through counts as a Loss drop, so together they
//!   shed what the OCI asks and not more);
//!   the egress rate counts every message sent on the connection
//!   ([`CpOverloadControl::on_send`], [`CpOverloadControl::on_retransmit`]);
//! * the [`Classifier`] (message priority from the request context), a [`LoadTable`] and an
//!   [`UpSelector`] for new sessions ([`CpOverloadControl::select_up`]), and optionally a
//!   [`RouteList`] of alternate UP functions for redirection.
//!
//! ## Decisions
//!
//! [`CpOverloadControl::decide`] is called once per request, at its **first transmission**:
//!
//! * Only requests are throttled. Heartbeat and Association requests never are
//!   ([`Procedure::is_throttled`]): they are counted by the egress throttle and sent. A
//!   response (e.g. a Session Report Response) may be passed too: it is always sent and
//!   counted as an answer.
//! * **Retransmissions never go through `decide`**: they must stay byte-identical and are not
//!   new offered traffic (clause 6.4, digest 6.3); report them with
//!   [`CpOverloadControl::on_retransmit`] so the egress rate stays right, and every other
//!   message sent without a decision (answers to the UP function, the node's own Heartbeat
//!   and Association messages) with [`CpOverloadControl::on_send`]. The
//!   [`Node`](crate::node::Node) does both.
//! * A Session Establishment Request that may be redirected, with a route list, meets its
//!   destination's egress throttle as a route candidate: a refusal is not counted as load
//!   offered to that connection
//!   ([`PeerThrottles::admit_at`](pfcp_throttle::PeerThrottles::admit_at)), so diverted
//!   traffic does not keep the preferred UP function congested (router, seed 003).
//! * A request the destination's throttles refuse is either **redirected** (only a Session
//!   Establishment Request, only through [`CpOverloadControl::decide_redirectable`], and only
//!   with a route list: the alternates not in overload themselves are tried with their own
//!   throttles through [`RouteList::route`]) or **rejected locally as though the UP had rejected it**, with
//!   cause 74 "PFCP entity in congestion" ([`CpDecision::Reject`]); no message is sent.
//! * An eMPS or emergency request the Loss throttle sheds while its window is short is
//!   **sent ahead** ([`CpConfig::exempt_ahead_max`]): it goes at once, and the next
//!   lower-priority request to the same UP function that the throttle lets through is
//!   rejected in its place ([`RejectReason::Yielded`]), so the UP function receives as many
//!   requests as the reduction allows. Not for 2 s after the UP function refused one of this
//!   CP function's priority requests ([`CpOverloadControl::exempt_refused`]): its priority
//!   traffic alone does not fit there, and no lower-priority place is left to take. With holds on ([`CpConfig::exempt_hold`], off by
//!   default) one that cannot go ahead is **held** ([`CpDecision::Hold`]): it takes such a
//!   place when one comes, or is rejected when the hold ends;
//!   [`CpOverloadControl::poll_hold`] gives the outcome.
//!
//! ## Scopes
//!
//! A request on an existing session goes to `Destination::entity(node, UP F-SEID address)`
//! and is throttled by the larger of that entity's and the node's overload. A Session
//! Establishment Request has no entity yet (`Destination::node`), so only a **node-scoped**
//! OCI (AOCI=1) throttles it: an entity-scoped OCI (AOCI=0, the default, e.g. on accepted
//! Session Establishment Responses) concerns one PFCP entity of the UP function, not the UP
//! function as a whole (clause 6.2.4.3.1). A UP function with a single PFCP entity should
//! therefore send AOCI=1 (`ReporterConfig::node_scoped` in `pfcp-overload`); a CP that knows
//! a UP function has one entity may also address its establishments to
//! `Destination::entity`.
//!
//! By default the Loss throttles run in their deterministic mode (exact to a request);
//! [`LossMode::Random`] uses the caller's draw (Annex A.1) so that independent CP functions do
//! not synchronise their drop patterns. The draw also seeds the alternate routing and
//! [`CpOverloadControl::select_up`].
//!
//! ## Time
//!
//! Reductions are recomputed from the overload table at every decision, so an expired OCI
//! stops throttling at once. [`CpOverloadControl::poll_timeout`] /
//! [`CpOverloadControl::handle_timeout`] drive the table's expiry (reductions back to 0, with
//! a log event and a counter) and advance the egress throttles.
//!
//! ## Layout
//!
//! This file holds the pipeline ([`CpOverloadControl`]: OCI/LCI intake, decisions, UP
//! selection, expiry); `cp/throttles.rs` the per-destination Loss and egress throttles and
//! their bounds; `cp/routing.rs` the redirection to alternate UP functions; `cp/types.rs` the
//! value types.
//!
//! ## Example
//!
//! ```
//! use std::time::Instant;
//! use pfcp_node::cp::{CpConfig, CpDecision, CpOverloadControl, Destination};
//! use pfcp_overload::NodeKey;
//! use pfcp_throttle::RequestContext;
//! use pfcp_wire::encode::MessageBuilder;
//! use pfcp_wire::ie::{ControlSequenceNumber, Metric, OciFlags, OverloadControlInformation, Timer};
//! use pfcp_wire::{Cause, Header, Message, MessageType};
//!
//! let now = Instant::now();
//! let mut cp = CpOverloadControl::new(CpConfig::default())?;
//! let upf = Destination::node(NodeKey::fqdn("upf1.example.net"));
//! // A Session Deletion Response whose OCI asks for a 100 % reduction of everything sent to
//! // the UP function (AOCI: node scope), until further notice.
//! let oci = OverloadControlInformation {
//!     sequence_number: ControlSequenceNumber(1),
//!     metric: Metric::FULL,
//!     period_of_validity: Timer::INFINITE,
//!     flags: Some(OciFlags::AOCI),
//! };
//! let rsp = Header::new(MessageType::SESSION_DELETION_RESPONSE).with_seid(1);
//! let b = MessageBuilder::new(rsp).ie(Cause::REQUEST_ACCEPTED).ie(oci);
//! let mut buf = vec![0; b.encoded_len()];
//! b.encode_into(&mut buf)?;
//! cp.handle_response(&upf, &Message::decode(&buf)?, now);
//!
//! let ctx = RequestContext::default().with_arp([9]);
//! let d = cp.decide(&upf, MessageType::SESSION_ESTABLISHMENT_REQUEST, &ctx, now, 0);
//! assert!(matches!(d, CpDecision::Reject { cause: Cause::PFCP_ENTITY_IN_CONGESTION, .. }));
//! // Heartbeats are never throttled.
//! assert!(cp.decide(&upf, MessageType::HEARTBEAT_REQUEST, &ctx, now, 0).is_send());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Tracing and metrics
//!
//! Every decision emits a `tracing` event (`debug` per request; `info` when a destination's
//! reduction changes, an OCI expires or a peer is reset) with structured fields (`node`,
//! `entity`, `message_type`, `priority`, `reduction`, ...). Counters through the `metrics`
//! facade (a no-op without a recorder):
//!
//! | name | labels | meaning |
//! |---|---|---|
//! | `pfcp_cp_decisions_total` | `decision` = `send`, `ahead`, `redirect`, `reject`, `hold`, `bypass` | decisions (`ahead`: a shed priority request sent ahead of a lower-priority place, [`CpConfig::exempt_ahead_max`]; `bypass`: not throttled: responses, Heartbeat, Association) |
//! | `pfcp_cp_held_total` | `outcome` = `sent`, `expired` | what became of held priority requests ([`CpConfig::exempt_hold`]) |
//! | `pfcp_cp_exempt_refused_total` | | eMPS and emergency requests the UP function refused with cause 74 ([`CpOverloadControl::exempt_refused`]) |
//! | `pfcp_requests_throttled_total` | `reason` = `loss`, `egress_level`, `egress_rate`, `egress_pending` | refusals by a destination's throttles (primary or alternate) |
//! | `pfcp_oci_received_total` | `outcome` = `applied`, `duplicate`, `stale`, `malformed`, `unexpected_message`, `table_full`, `other` | OCIs received |
//! | `pfcp_lci_received_total` | `outcome` = `applied`, `duplicate`, `stale`, `malformed`, `unexpected_message`, `other` | LCIs received |
//! | `pfcp_oci_expired_total` | | overload states whose Period of Validity ran out |
//! | `pfcp_oci_evicted_total` | | overload states evicted from a full table |
//! | `pfcp_peer_resets_total` | | [`CpOverloadControl::reset_peer`] calls |
//! | `pfcp_up_selections_total` | `outcome` = `selected`, `none` | [`CpOverloadControl::select_up`] calls |

use std::time::Instant;

use pfcp_overload::{
    Candidate, IgnoreReason, LciOutcome, LoadTable, NodeKey, OciOrigin, OciOutcome, OverloadEvent,
    OverloadTable, Scope, UpSelector,
};
use pfcp_throttle::{
    Classification, Classifier, EgressThrottle, LossThrottle, MessageKind, Procedure, RequestClass,
    RequestContext, RouteList, Throttled,
};
use pfcp_wire::{Cause, Message, MessageType};

mod hold;
mod routing;
mod throttles;
mod types;
use hold::Holds;
pub use hold::{HoldOutcome, HoldTicket};
use throttles::{Admitted, Throttles};
pub use types::{
    CpConfig, CpConfigError, CpDecision, CpStats, Destination, LossMode, RejectReason,
    ResponseOutcome,
};

/// The CP function's overload-control pipeline: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct CpOverloadControl {
    overload: OverloadTable,
    loads: LoadTable,
    selector: UpSelector,
    classifier: Classifier,
    throttles: Throttles,
    routes: Option<RouteList<Destination>>,
    holds: Holds,
    /// [`CpConfig::exempt_ahead_max`].
    ahead_max: u32,
    stats: CpStats,
}

impl CpOverloadControl {
    /// A pipeline with no state yet and no route list.
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
        let throttles = Throttles::new(&config);
        let holds = Holds::new(&config);
        Ok(CpOverloadControl {
            overload: OverloadTable::new(config.overload),
            loads: LoadTable::new(config.load),
            selector: config.selector,
            classifier: Classifier::new(config.classifier),
            throttles,
            routes: None,
            holds,
            ahead_max: config.exempt_ahead_max,
            stats: CpStats::default(),
        })
    }

    /// With a route list of alternate UP functions for redirecting Session Establishment
    /// Requests (builder style).
    #[must_use]
    pub fn with_routes(mut self, routes: RouteList<Destination>) -> Self {
        self.routes = Some(routes);
        self
    }

    /// Replace (or remove) the route list.
    pub fn set_routes(&mut self, routes: Option<RouteList<Destination>>) {
        self.routes = routes;
    }

    /// The route list, e.g. to update weights from load control
    /// ([`RouteList::set_weight`]).
    pub fn routes_mut(&mut self) -> Option<&mut RouteList<Destination>> {
        self.routes.as_mut()
    }

    /// The overload table.
    pub fn overload(&self) -> &OverloadTable {
        &self.overload
    }

    /// The load table.
    pub fn loads(&self) -> &LoadTable {
        &self.loads
    }

    /// The classifier.
    pub fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    /// Counters since creation.
    pub fn stats(&self) -> &CpStats {
        &self.stats
    }

    /// The reduction (percent) that applies to requests towards `dest` at `now`.
    pub fn reduction(&self, dest: &Destination, now: Instant) -> u8 {
        self.overload.reduction(dest.entity, &dest.node, now)
    }

    /// The Loss throttle of UP function `node` (shared by all its entities, see
    /// `cp/throttles.rs`), if it has one yet.
    pub fn loss_throttle(&self, node: &NodeKey) -> Option<&LossThrottle> {
        self.throttles.loss_throttle(node)
    }

    /// The egress throttle of UP function `node`, if it has one yet.
    pub fn egress_throttle(&self, node: &NodeKey) -> Option<&EgressThrottle> {
        self.throttles.egress_throttle(node)
    }

    /// The classification of a request of `message_type` with `ctx` (its `procedure`
    /// defaulting to the message type's), as [`CpOverloadControl::decide`] makes it: the
    /// rule, the base priority and every C.2 adjustment that fired (TS 29.273 Annex C.2).
    pub fn classify(&self, message_type: MessageType, ctx: &RequestContext<'_>) -> Classification {
        let mut ctx = ctx.reborrow();
        if ctx.procedure.is_none() {
            ctx.procedure = Procedure::of(message_type);
        }
        self.classifier.classify(&ctx)
    }

    /// Process the OCI and LCI of a message from the UP function `from`: a response (51, 53,
    /// 55) or a Session Report Request (56). `from.entity` is the PFCP entity of the session
    /// (the UP F-SEID address); leave it `None` for a Session Establishment Response, whose UP
    /// F-SEID is read from the message. A missing, malformed or stale OCI/LCI changes nothing
    /// and is never an error: the message itself is processed by the caller as usual (clause
    /// 7.2.3.2, digest 6.6).
    pub fn handle_response(
        &mut self,
        from: &Destination,
        msg: &Message<'_>,
        now: Instant,
    ) -> ResponseOutcome {
        let origin = OciOrigin::new(from.node.clone(), from.entity);
        let oci = self.overload.handle_message(&origin, msg, now);
        let mut applied_entity = None;
        if let Some(o) = &oci {
            let label = match o {
                OciOutcome::Applied {
                    scope,
                    metric,
                    expires,
                } => {
                    self.stats.oci_applied += 1;
                    if let Scope::Entity(ip) = scope {
                        applied_entity = Some(*ip);
                    }
                    tracing::info!(
                        node = %from.node,
                        entity = ?from.entity,
                        message_type = msg.message_type().0,
                        scope = %scope,
                        metric,
                        expires_in_ms = expires
                            .map(|t| t.saturating_duration_since(now).as_millis() as u64),
                        "cp: OCI applied"
                    );
                    "applied"
                }
                OciOutcome::Ignored { scope, reason } => {
                    self.stats.oci_ignored += 1;
                    let label = match reason {
                        IgnoreReason::Duplicate => "duplicate",
                        IgnoreReason::Stale { .. } => "stale",
                        IgnoreReason::Malformed(_) => "malformed",
                        IgnoreReason::UnexpectedMessage => "unexpected_message",
                        IgnoreReason::TableFull => "table_full",
                        IgnoreReason::Expired => "expired",
                        _ => "other",
                    };
                    tracing::debug!(
                        node = %from.node,
                        entity = ?from.entity,
                        message_type = msg.message_type().0,
                        scope = ?scope,
                        reason = ?reason,
                        "cp: OCI ignored"
                    );
                    label
                }
            };
            metrics::counter!("pfcp_oci_received_total", "outcome" => label).increment(1);
        }
        let lci = self.loads.handle_message(&from.node, msg, now);
        if let Some(l) = &lci {
            let label = match l {
                LciOutcome::Applied { load } => {
                    self.stats.lci_applied += 1;
                    tracing::debug!(node = %from.node, load, "cp: LCI applied");
                    "applied"
                }
                other => {
                    self.stats.lci_ignored += 1;
                    tracing::debug!(node = %from.node, outcome = ?other, "cp: LCI ignored");
                    match other {
                        LciOutcome::Duplicate => "duplicate",
                        LciOutcome::Stale => "stale",
                        LciOutcome::Malformed(_) => "malformed",
                        LciOutcome::UnexpectedMessage => "unexpected_message",
                        _ => "other",
                    }
                }
            };
            metrics::counter!("pfcp_lci_received_total", "outcome" => label).increment(1);
        }
        self.drain_events(now);
        self.throttles.refresh(&self.overload, from, now);
        let node = Destination::node(from.node.clone());
        self.throttles.refresh(&self.overload, &node, now);
        if let Some(ip) = applied_entity.filter(|ip| from.entity != Some(*ip)) {
            let entity = Destination::entity(from.node.clone(), ip);
            self.throttles.refresh(&self.overload, &entity, now);
        }
        ResponseOutcome { oci, lci }
    }

    /// The UP function `node` refused one of this CP function's eMPS or emergency requests at
    /// `now` (its response carried cause 74, clause 6.2.4.5.1). Its priority traffic then
    /// does not fit there, and a shed priority request sent ahead would find no place to take
    /// (the Loss throttle already sheds every lower-priority one): for the next 2 s none is
    /// sent ahead ([`CpConfig::exempt_ahead_max`]). [`Node`](crate::Node) calls it for the
    /// requests it sent; a caller driving this pipeline itself calls it on such a response.
    pub fn exempt_refused(&mut self, node: &NodeKey, now: Instant) {
        self.stats.exempt_refused += 1;
        metrics::counter!("pfcp_cp_exempt_refused_total").increment(1);
        self.throttles.exempt_refused(node, now);
    }

    /// Decide for the first transmission of a message of `message_type` towards `dest`, with
    /// no redirection: [`CpDecision::Send`] or [`CpDecision::Reject`]. `ctx` describes the
    /// session (its `procedure` defaults to the message type's); `draw` is a uniformly random
    /// `u64` from the caller's RNG (used by [`LossMode::Random`]). A response is always sent;
    /// give it its request's priority rather than the one returned (clause 7.2.2.4.1).
    pub fn decide(
        &mut self,
        dest: &Destination,
        message_type: MessageType,
        ctx: &RequestContext<'_>,
        now: Instant,
        draw: u64,
    ) -> CpDecision {
        self.decide_inner(dest, message_type, ctx, false, now, draw)
    }

    /// [`CpOverloadControl::decide`], allowing a throttled Session Establishment Request to be
    /// redirected to an alternate UP function of the route list ([`CpDecision::Redirect`]);
    /// other requests, or without a route list, behave as in `decide`. The alternates are
    /// tried with their own throttles, the original destination's node skipped.
    pub fn decide_redirectable(
        &mut self,
        dest: &Destination,
        message_type: MessageType,
        ctx: &RequestContext<'_>,
        now: Instant,
        draw: u64,
    ) -> CpDecision {
        self.decide_inner(dest, message_type, ctx, true, now, draw)
    }

    fn decide_inner(
        &mut self,
        dest: &Destination,
        message_type: MessageType,
        ctx: &RequestContext<'_>,
        allow_redirect: bool,
        now: Instant,
        draw: u64,
    ) -> CpDecision {
        let procedure = Procedure::of(message_type);
        let classification = self.classify(message_type, ctx);
        let class = classification.class;
        let priority = class.priority;
        if !message_type.is_request() || !procedure.is_some_and(Procedure::is_throttled) {
            self.throttles
                .on_send(&dest.node, MessageKind::of(message_type), now);
            self.stats.bypassed += 1;
            metrics::counter!("pfcp_cp_decisions_total", "decision" => "bypass").increment(1);
            tracing::debug!(
                node = %dest.node,
                entity = ?dest.entity,
                message_type = message_type.0,
                "cp: not throttled (response, Heartbeat or Association)"
            );
            return CpDecision::Send {
                priority,
                dest: dest.clone(),
            };
        }
        // A redirectable establishment with a route list: the destination is the first route
        // candidate, and its egress refusal is not offered load (see the module docs).
        let routed = allow_redirect
            && message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST
            && self.routes.is_some();
        if self.holds.any(&dest.node) {
            self.release_unthrottled(&dest.node, now);
        }
        let admitted = self
            .throttles
            .admit(&self.overload, dest, class, routed, now, draw);
        let reason = match admitted {
            Ok(Admitted::Decided) if !class.exempt && self.holds.any(&dest.node) => {
                if let Some(held) = self.holds.release_one(&dest.node, now) {
                    return self.yield_place(dest, class, held, now);
                }
                self.stats.sent += 1;
                return CpDecision::Send {
                    priority,
                    dest: dest.clone(),
                };
            }
            Ok(Admitted::Decided) if !class.exempt && self.throttles.owes_place(&dest.node) => {
                return self.give_way(dest, class, now);
            }
            Ok(how) => {
                self.stats.sent += 1;
                if how == Admitted::Probe {
                    self.stats.probes += 1;
                }
                metrics::counter!("pfcp_cp_decisions_total", "decision" => "send").increment(1);
                tracing::debug!(
                    node = %dest.node,
                    entity = ?dest.entity,
                    message_type = message_type.0,
                    priority = priority.value(),
                    exempt = class.exempt,
                    class = %classification,
                    "cp: send"
                );
                return CpDecision::Send {
                    priority,
                    dest: dest.clone(),
                };
            }
            Err(reason) => reason,
        };
        if allow_redirect && message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST {
            if let Some(to) = self.redirect(dest, class, now, draw) {
                self.stats.redirected += 1;
                metrics::counter!("pfcp_cp_decisions_total", "decision" => "redirect").increment(1);
                tracing::debug!(
                    node = %dest.node,
                    entity = ?dest.entity,
                    to = %to,
                    message_type = message_type.0,
                    priority = priority.value(),
                    class = %classification,
                    "cp: redirected"
                );
                return CpDecision::Redirect { to, priority };
            }
        }
        if let RejectReason::Loss(why) = reason {
            if class.exempt
                && self.ahead_max > 0
                && self.throttles.send_ahead(
                    &dest.node,
                    class,
                    why.reduction,
                    routed,
                    self.ahead_max,
                    now,
                )
            {
                self.stats.sent += 1;
                self.stats.sent_ahead += 1;
                metrics::counter!("pfcp_cp_decisions_total", "decision" => "ahead").increment(1);
                tracing::debug!(
                    node = %dest.node,
                    entity = ?dest.entity,
                    message_type = message_type.0,
                    reduction = why.reduction,
                    "cp: priority request sent ahead of a lower-priority place"
                );
                return CpDecision::Send {
                    priority,
                    dest: dest.clone(),
                };
            }
            if class.exempt
                && self.throttles.window_short(&dest.node)
                && self.throttles.exempt_fits(&dest.node, why.reduction)
            {
                if let Some((ticket, until)) = self.holds.hold(dest, why, now) {
                    self.stats.held += 1;
                    metrics::counter!("pfcp_cp_decisions_total", "decision" => "hold").increment(1);
                    tracing::debug!(
                        node = %dest.node,
                        entity = ?dest.entity,
                        message_type = message_type.0,
                        ticket = ticket.get(),
                        reduction = why.reduction,
                        "cp: priority request held for a place"
                    );
                    return CpDecision::Hold {
                        ticket,
                        until,
                        priority,
                        dest: dest.clone(),
                    };
                }
            }
        }
        self.stats.rejected += 1;
        metrics::counter!("pfcp_cp_decisions_total", "decision" => "reject").increment(1);
        tracing::debug!(
            node = %dest.node,
            entity = ?dest.entity,
            message_type = message_type.0,
            priority = priority.value(),
            exempt = class.exempt,
            class = %classification,
            reason = ?reason,
            "cp: rejected locally (cause 74)"
        );
        CpDecision::Reject {
            reason,
            cause: Cause::PFCP_ENTITY_IN_CONGESTION,
        }
    }

    /// A request of `class` the throttles admitted to `dest` gives its place to one sent
    /// ahead of it: rejected locally, counted as the Loss throttle's drop.
    fn give_way(&mut self, dest: &Destination, class: RequestClass, now: Instant) -> CpDecision {
        self.throttles.give_way(&dest.node, class);
        self.stats.gave_way += 1;
        self.yielded(dest, class, now, "sent ahead")
    }

    /// A request of `class` the throttles admitted to `dest` gives its place to the held
    /// request of class `held`, already released: the Loss throttle counts the one as a drop
    /// and the other as sent, so the UP function receives what the reduction allows.
    fn yield_place(
        &mut self,
        dest: &Destination,
        class: RequestClass,
        held: RequestClass,
        now: Instant,
    ) -> CpDecision {
        self.throttles.swap(&dest.node, held, class);
        self.stats.sent += 1;
        self.stats.held_sent += 1;
        metrics::counter!("pfcp_cp_held_total", "outcome" => "sent").increment(1);
        self.yielded(dest, class, now, "held")
    }

    /// The local rejection of a request of `class` whose place went to a priority request
    /// (`to`: how that one waited).
    fn yielded(
        &mut self,
        dest: &Destination,
        class: RequestClass,
        now: Instant,
        to: &'static str,
    ) -> CpDecision {
        self.stats.rejected += 1;
        metrics::counter!("pfcp_cp_decisions_total", "decision" => "reject").increment(1);
        let reduction = self.overload.reduction(dest.entity, &dest.node, now);
        tracing::debug!(
            node = %dest.node,
            entity = ?dest.entity,
            priority = class.priority.value(),
            reduction,
            to,
            "cp: rejected locally, its place given to a priority request"
        );
        CpDecision::Reject {
            reason: RejectReason::Yielded(Throttled { reduction, class }),
            cause: Cause::PFCP_ENTITY_IN_CONGESTION,
        }
    }

    /// Send the held requests of UP function `node` whose reduction is 0 again, if its
    /// egress throttle lets them through (they count as sent anyway,
    /// [`PeerThrottles::send_anyway`](pfcp_throttle::PeerThrottles::send_anyway)); the others
    /// of them are rejected.
    fn release_unthrottled(&mut self, node: &NodeKey, now: Instant) {
        let overload = &self.overload;
        let taken = self
            .holds
            .take_unthrottled(node, |d| overload.reduction(d.entity, &d.node, now));
        for (ticket, why) in taken {
            if self.throttles.send_anyway(node, why.class, now) {
                self.stats.sent += 1;
                self.stats.held_sent += 1;
                metrics::counter!("pfcp_cp_held_total", "outcome" => "sent").increment(1);
                self.holds.settle(ticket, HoldOutcome::Send);
            } else {
                self.stats.rejected += 1;
                metrics::counter!("pfcp_cp_held_total", "outcome" => "expired").increment(1);
                self.holds.settle(ticket, HoldOutcome::Reject(why));
            }
        }
    }

    /// The outcome of a request held by [`CpDecision::Hold`]: the caller sends it
    /// ([`HoldOutcome::Send`]) or fails it locally ([`HoldOutcome::Reject`]). Outcomes come
    /// from [`CpOverloadControl::decide`] (a lower-priority request gave its place, or the
    /// reduction ended), [`CpOverloadControl::handle_timeout`] (the hold ended) and
    /// [`CpOverloadControl::reset_peer`]; poll after each of them until `None`.
    pub fn poll_hold(&mut self) -> Option<(HoldTicket, HoldOutcome)> {
        self.holds.poll()
    }

    /// Select the UP function for a new session among `candidates` ([`UpSelector::select`]:
    /// weights, the LCI loads and the node-scoped overload); `draw` is a uniformly random
    /// `u64`. `None` if no candidate has a positive weight.
    pub fn select_up(&self, candidates: &[Candidate], now: Instant, draw: u64) -> Option<usize> {
        let chosen = self
            .selector
            .select(candidates, &self.loads, &self.overload, now, draw);
        match chosen.and_then(|i| candidates.get(i)) {
            Some(c) => {
                metrics::counter!("pfcp_up_selections_total", "outcome" => "selected").increment(1);
                tracing::debug!(
                    node = %c.node,
                    load = ?self.loads.load(&c.node, now),
                    reduction = self.overload.reduction(None, &c.node, now),
                    candidates = candidates.len(),
                    "cp: UP function selected"
                );
            }
            None => {
                metrics::counter!("pfcp_up_selections_total", "outcome" => "none").increment(1);
                tracing::debug!(candidates = candidates.len(), "cp: no UP function selected");
            }
        }
        chosen
    }

    /// A request admitted by `decide` towards `dest` has ended (answered, timed out after the
    /// last retransmission, or abandoned): frees its egress pending slot.
    pub fn transaction_ended(&mut self, dest: &Destination) {
        self.throttles.transaction_ended(&dest.node);
    }

    /// The next instant at which [`CpOverloadControl::handle_timeout`] has work: an overload
    /// state expires. (The egress throttles catch up by themselves at every decision.)
    pub fn poll_timeout(&self) -> Option<Instant> {
        [self.overload.poll_timeout(), self.holds.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Expire the overload states whose Period of Validity ended by `now` (their reductions
    /// go back to 0), advance the egress throttles, and end the holds due by `now` (held
    /// requests whose reduction is 0 again are sent, the others whose hold ended rejected:
    /// [`CpOverloadControl::poll_hold`]).
    pub fn handle_timeout(&mut self, now: Instant) {
        self.overload.handle_timeout(now);
        self.drain_events(now);
        self.throttles.handle_timeout(now);
        for node in self.holds.nodes() {
            self.release_unthrottled(&node, now);
        }
        let expired = self.holds.expire(now);
        self.stats.rejected += expired as u64;
        metrics::counter!("pfcp_cp_held_total", "outcome" => "expired").increment(expired as u64);
    }

    /// Forget everything learned from UP function `node`: it restarted (new Recovery Time
    /// Stamp), re-associated, released the association or failed its heartbeats. Its overload
    /// and load state, Loss throttles and egress throttle are dropped.
    pub fn reset_peer(&mut self, node: &NodeKey) {
        self.overload.reset_peer(node);
        self.loads.reset_peer(node);
        self.throttles.forget(node);
        let dropped = self.holds.forget(node);
        self.stats.rejected += dropped as u64;
        // The reset event itself needs no handling; drain to keep the queue short.
        while self.overload.poll_event().is_some() {}
        metrics::counter!("pfcp_peer_resets_total").increment(1);
        tracing::info!(node = %node, "cp: peer state reset");
    }

    /// Handle the overload table's events: expiries and evictions (OCI outcomes are counted
    /// where they are returned).
    fn drain_events(&mut self, now: Instant) {
        let mut expired = Vec::new();
        while let Some(event) = self.overload.poll_event() {
            match event {
                OverloadEvent::Expired(scope) => {
                    self.stats.oci_expired += 1;
                    metrics::counter!("pfcp_oci_expired_total").increment(1);
                    tracing::info!(scope = %scope, "cp: overload state expired");
                    expired.push(scope);
                }
                OverloadEvent::Evicted(scope) => {
                    metrics::counter!("pfcp_oci_evicted_total").increment(1);
                    tracing::debug!(scope = %scope, "cp: overload state evicted (table full)");
                    expired.push(scope);
                }
                _ => {}
            }
        }
        if !expired.is_empty() {
            self.throttles
                .refresh_expired(&self.overload, &expired, now);
        }
    }
}

#[cfg(test)]
mod tests;
