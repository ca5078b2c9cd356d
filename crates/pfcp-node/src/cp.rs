//! The CP function's request pipeline (sans-IO): which requests go to which UP function, and
//! which are redirected or failed locally, from the overload and load control information
//! the UP functions send (TS 29.244 clauses 6.2.3, 6.2.4.4, 6.2.4.5; Annex A.1, Annex B).
//!
//! Two parts, in the manner of quinn-proto's endpoint and connections:
//!
//! * [`UpLink`]: one UP function as the CP function sees it: its overload states (node scope
//!   for AOCI, entity scope otherwise, clause 6.2.4.3.1) and Load Metric, its Loss throttle
//!   (all its entities ranked together) and the egress throttle of its connection deciding
//!   together ([`PeerThrottles`]: a request the egress throttle
//!   refuses after the Loss throttle let it through counts as a Loss drop), the rhythm of the
//!   sends (probes), the places owed to priority requests sent ahead and the priority
//!   requests held. On a [`Node`](crate::Node) it is part of the UP function's peer record.
//! * [`CpPolicy`]: what concerns no UP function in particular: the [`Classifier`], the
//!   [`UpSelector`] for new sessions, the [`RouteList`] of alternates, how links are made
//!   (the egress configuration sets of [`CpConfig::egress_sets`]), the counters; and the one
//!   decision path, [`CpPolicy::decide`].
//!
//! [`CpOverloadControl`] puts the two together for a caller without a `Node`: the policy and
//! a bounded map of links by Node ID.
//!
//! ## A received OCI's path
//!
//! 1. [`CpPolicy::handle_message`] stores it in the UP function's link: the link's overload
//!    table applies the sequencing, validity and scope rules (`pfcp_overload::OverloadTable`).
//!    It is the one writer of the reduction.
//! 2. [`CpPolicy::decide`] reads the reduction of the request's scope from the link, once, and
//!    the link's throttles decide with it.
//! 3. The decision is counted and traced in one place (`CpPolicy::record`), and its
//!    counters are the policy's [`CpStats`]; the embedding exports them (no `metrics` call
//!    in the pipeline).
//!
//! ## Decisions
//!
//! [`CpPolicy::decide`] is called once per request, at its **first transmission**, with a
//! [`CpRequest`] (destination, message type, classifier context, whether it may be
//! redirected, a draw):
//!
//! * Only requests are throttled. Heartbeat and Association requests never are
//!   ([`Procedure::is_throttled`]): they are counted by the egress throttle and sent. A
//!   response (e.g. a Session Report Response) may be passed too: it is always sent and
//!   counted as an answer.
//! * **Retransmissions never go through `decide`**: they must stay byte-identical and are not
//!   new offered traffic (clause 6.4); count them with [`CpPolicy::on_send`] as
//!   [`MessageKind::Retransmission`](pfcp_throttle::MessageKind) so the egress rate stays
//!   right, and every other message sent without a decision too.
//! * A request the destination's throttles refuse is either **redirected** (only a Session
//!   Establishment Request marked redirectable, and only with a route list: the alternates
//!   not in overload themselves are tried with their own throttles through
//!   [`RouteList::route`], as route candidates whose refusal is not counted on their
//!   connection) or **rejected locally as though the UP had rejected it**, with cause 74
//!   "PFCP entity in congestion" ([`CpDecision::Reject`]); no message is sent.
//! * An eMPS or emergency request the Loss throttle sheds while its window is short is
//!   **sent ahead** ([`CpConfig::exempt_ahead_max`]): it goes at once, and the next
//!   lower-priority request to the same UP function that the throttle lets through is
//!   rejected in its place ([`RejectReason::Yielded`]), so the UP function receives as many
//!   requests as the reduction allows. Not for 2 s after the UP function refused one of this
//!   CP function's priority requests ([`CpPolicy::exempt_refused`]). With holds on
//!   ([`CpConfig::exempt_hold`], off by default) one that cannot go ahead is **held**
//!   ([`CpDecision::Hold`]): it takes such a place when one comes, or is rejected when the
//!   hold ends; [`CpPolicy::poll_hold`] gives the outcome.
//!
//! ## Scopes
//!
//! A request goes to `Destination::entity(node, address)`: for a request on an existing
//! session the UP F-SEID's address, for a new session the address the request is sent to,
//! the UP function's PFCP entity that receives it. The reduction it meets is the larger of
//! that entity's and the node's overload metric (clause 6.2.4.3.1: an OCI without AOCI
//! concerns the PFCP entity, with AOCI the UP function as a whole). So the default scope of a
//! UP function with one PFCP entity throttles its new sessions too.
//!
//! By default the Loss throttles run in their deterministic mode (exact to a request);
//! [`LossMode::Random`] uses the caller's draw (Annex A.1) so that independent CP functions do
//! not synchronise their drop patterns.
//!
//! ## Time
//!
//! Reductions are read from the link at every decision, so an expired OCI stops throttling at
//! once. [`CpPolicy::handle_timeout`] drives a link's expiry, its egress throttle and its
//! holds ([`UpLink`]'s next deadline is in [`CpOverloadControl::poll_timeout`] and
//! [`Node::poll_timeout`](crate::Node::poll_timeout)).
//!
//! ## Example
//!
//! ```
//! use std::time::Instant;
//! use pfcp_node::cp::{CpConfig, CpOverloadControl, CpRequest, Destination};
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
//! let establish = CpRequest::new(&upf, MessageType::SESSION_ESTABLISHMENT_REQUEST, ctx.clone());
//! assert!(cp.decide(&establish, now).is_reject());
//! // Heartbeats are never throttled.
//! assert!(cp.decide(&CpRequest::new(&upf, MessageType::HEARTBEAT_REQUEST, ctx), now).is_send());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Tracing
//!
//! Every decision emits one `tracing` event (`debug`, "cp: decision") with structured fields
//! (`node`, `entity`, `message_type`, `priority`, `class`, `outcome`, `reason`); an applied
//! OCI, an expiry and a reset are `info`. The counters are [`CpStats`].

use std::collections::HashMap;
use std::time::Instant;

#[cfg(doc)]
use pfcp_overload::UpSelector;
use pfcp_overload::{Candidate, CandidateView, NodeKey};
#[cfg(doc)]
use pfcp_throttle::Procedure;
use pfcp_throttle::{
    Classification, Classifier, EgressConfigSets, EgressThrottle, LossThrottle, MessageKind,
    PeerThrottles, RequestContext, RouteList,
};
use pfcp_wire::{Message, MessageType};

mod hold;
mod implicit;
mod link;
mod policy;
mod types;
pub use hold::{HoldOutcome, HoldTicket};
pub use link::{UpLink, UpLinks};
pub use policy::CpPolicy;
pub use types::{
    CpConfig, CpConfigError, CpDecision, CpRequest, CpStats, Destination, LciCounts, LossMode,
    OciCounts, RejectReason, ResponseOutcome, ThrottledCounts,
};

/// The CP pipeline for a caller without a [`Node`](crate::Node): the [`CpPolicy`] and a map of
/// [`UpLink`]s by Node ID, bounded by [`CpConfig::max_destinations`] (the least recently used
/// link ends when a new one needs room, counted in [`CpStats::links_evicted`]). See the
/// [module docs](self).
#[derive(Debug, Clone)]
pub struct CpOverloadControl {
    policy: CpPolicy,
    links: Links,
}

/// Links by Node ID, bounded.
#[derive(Debug, Clone)]
struct Links {
    map: HashMap<NodeKey, UpLink, foldhash::fast::RandomState>,
    max: usize,
    evicted: u64,
}

impl UpLinks for Links {
    fn link_mut(
        &mut self,
        node: &NodeKey,
        make: &mut dyn FnMut(&NodeKey) -> UpLink,
    ) -> Option<&mut UpLink> {
        if !self.map.contains_key(node) {
            let link = make(node);
            self.insert(link);
        }
        self.map.get_mut(node)
    }
}

impl Links {
    fn insert(&mut self, link: UpLink) {
        if !self.map.contains_key(link.node()) && self.map.len() >= self.max {
            let lru = self
                .map
                .iter()
                .min_by_key(|(_, l)| l.last_used)
                .map(|(n, _)| n.clone());
            if let Some(n) = lru {
                tracing::debug!(node = %n, "cp: link dropped (least recently used)");
                self.map.remove(&n);
                self.evicted += 1;
            }
        }
        self.map.insert(link.node().clone(), link);
    }
}

impl CpOverloadControl {
    /// A pipeline with no link yet and no route list.
    pub fn new(config: CpConfig) -> Result<Self, CpConfigError> {
        let max = config.max_destinations;
        Ok(CpOverloadControl {
            policy: CpPolicy::new(config)?,
            links: Links {
                map: HashMap::default(),
                max,
                evicted: 0,
            },
        })
    }

    /// With a route list of alternate UP functions for redirecting Session Establishment
    /// Requests (builder style).
    #[must_use]
    pub fn with_routes(mut self, routes: RouteList<Destination>) -> Self {
        self.policy.set_routes(Some(routes));
        self
    }

    /// Replace (or remove) the route list.
    pub fn set_routes(&mut self, routes: Option<RouteList<Destination>>) {
        self.policy.set_routes(routes);
    }

    /// The route list, e.g. to update weights from load control.
    pub fn routes_mut(&mut self) -> Option<&mut RouteList<Destination>> {
        self.policy.routes_mut()
    }

    /// The policy.
    pub fn policy(&self) -> &CpPolicy {
        &self.policy
    }

    /// The classifier.
    pub fn classifier(&self) -> &Classifier {
        self.policy.classifier()
    }

    /// Counters since creation.
    pub fn stats(&self) -> CpStats {
        let mut s = *self.policy.stats();
        s.links_evicted += self.links.evicted;
        s
    }

    /// The link of UP function `node`, if it has one yet.
    pub fn link(&self, node: &NodeKey) -> Option<&UpLink> {
        self.links.map.get(node)
    }

    /// The reduction (percent) that applies to requests towards `dest` at `now`.
    pub fn reduction(&self, dest: &Destination, now: Instant) -> u8 {
        self.link(&dest.node)
            .map_or(0, |l| l.reduction(dest.entity, now))
    }

    /// The Loss throttle of UP function `node`, if it has a link yet.
    pub fn loss_throttle(&self, node: &NodeKey) -> Option<&LossThrottle> {
        self.link(node).map(UpLink::loss_throttle)
    }

    /// The egress throttle of UP function `node`, if it has one.
    pub fn egress_throttle(&self, node: &NodeKey) -> Option<&EgressThrottle> {
        self.link(node).and_then(UpLink::egress_throttle)
    }

    /// The Loss and egress throttles of UP function `node` deciding together.
    pub fn peer_throttles(&self, node: &NodeKey) -> Option<&PeerThrottles> {
        self.link(node).map(UpLink::throttles)
    }

    /// [`CpPolicy::classify`].
    pub fn classify(&self, message_type: MessageType, ctx: &RequestContext<'_>) -> Classification {
        self.policy.classify(message_type, ctx)
    }

    /// Process the OCI and LCI of a message from UP function `from.node` ([`CpPolicy::handle_message`]);
    /// `from.entity` is the PFCP entity of the session, `None` for a Session Establishment
    /// Response (its UP F-SEID is read from the message).
    pub fn handle_response(
        &mut self,
        from: &Destination,
        msg: &Message<'_>,
        now: Instant,
    ) -> ResponseOutcome {
        let (policy, links) = (&mut self.policy, &mut self.links);
        match links.link_mut(&from.node, &mut |n| policy.link(n, now)) {
            Some(link) => policy.handle_message(link, from.entity, msg, now),
            None => ResponseOutcome {
                oci: None,
                lci: None,
            },
        }
    }

    /// [`CpPolicy::exempt_refused`] for UP function `node`.
    pub fn exempt_refused(&mut self, node: &NodeKey, now: Instant) {
        if let Some(link) = self.links.map.get_mut(node) {
            self.policy.exempt_refused(link, now);
        }
    }

    /// [`CpPolicy::decide`] for `req`, its UP function's link made if it has none.
    pub fn decide(&mut self, req: &CpRequest<'_>, now: Instant) -> CpDecision {
        let node = &req.dest.node;
        let mut link = self
            .links
            .map
            .remove(node)
            .unwrap_or_else(|| self.policy.link(node, now));
        let d = self.policy.decide(&mut link, &mut self.links, req, now);
        self.links.insert(link);
        d
    }

    /// [`CpPolicy::poll_hold`].
    pub fn poll_hold(&mut self) -> Option<(HoldTicket, HoldOutcome)> {
        self.policy.poll_hold()
    }

    /// [`CpPolicy::select_up`] over the links of the candidates.
    pub fn select_up(
        &mut self,
        candidates: &[Candidate],
        now: Instant,
        draw: u64,
    ) -> Option<usize> {
        let links = &self.links.map;
        self.policy.select_up(
            candidates,
            |n| {
                links.get(n).map(|l| CandidateView {
                    load: l.load(now),
                    node_reduction: l.overload().node_reduction(n, now),
                })
            },
            now,
            draw,
        )
    }

    /// A request admitted towards `dest` has ended: frees its egress pending slot.
    pub fn transaction_ended(&mut self, dest: &Destination) {
        if let Some(link) = self.links.map.get_mut(&dest.node) {
            self.policy.transaction_ended(link);
        }
    }

    /// The next instant at which [`CpOverloadControl::handle_timeout`] has work: an overload
    /// state expires or a hold ends.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.links
            .map
            .values()
            .filter_map(UpLink::poll_timeout)
            .min()
    }

    /// [`CpPolicy::handle_timeout`] for every link.
    pub fn handle_timeout(&mut self, now: Instant) {
        for link in self.links.map.values_mut() {
            self.policy.handle_timeout(link, now);
        }
    }

    /// Forget everything learned from UP function `node` ([`CpPolicy::forget`]).
    pub fn reset_peer(&mut self, node: &NodeKey) {
        if let Some(link) = self.links.map.remove(node) {
            self.policy.forget(link);
        }
    }

    /// The egress configuration sets.
    pub fn egress_sets(&self) -> &EgressConfigSets<NodeKey> {
        self.policy.egress_sets()
    }

    /// The egress configuration sets, to assign a set to a UP function (a link made already
    /// keeps its configuration until it ends).
    pub fn egress_sets_mut(&mut self) -> &mut EgressConfigSets<NodeKey> {
        self.policy.egress_sets_mut()
    }

    /// A message sent to UP function `node` without a decision ([`CpPolicy::on_send`]).
    pub fn on_send(&mut self, node: &NodeKey, kind: MessageKind, now: Instant) {
        let (policy, links) = (&mut self.policy, &mut self.links);
        let configured = policy.egress_sets().config_for(node).is_some();
        if configured || links.map.contains_key(node) {
            if let Some(link) = links.link_mut(node, &mut |n| policy.link(n, now)) {
                policy.on_send(link, kind, now);
            }
        }
    }
}

#[cfg(test)]
mod tests;
