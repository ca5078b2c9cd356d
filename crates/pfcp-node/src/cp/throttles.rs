//! The per-UP-function throttles of the CP pipeline: one [`LossThrottle`] and optionally one
//! [`EgressThrottle`] per UP function, each created on first use and bounded by
//! [`CpConfig::max_destinations`] (least recently used dropped first).
//!
//! **One view per UP function.** Every request to a UP function goes through the same Loss
//! throttle, whichever scope its reduction comes from: each request's reduction is the larger
//! of its entity's and its node's overload metric (TS 29.244 clauses 6.2.4.3.1 and 6.2.4.4),
//! and all of them are ranked in one window ([`LossThrottle::decide_at`]). So eMPS and
//! emergency requests are throttled only when the UP function's other traffic cannot make up
//! the reduction (clause 6.2.4.5.1). Separate throttles per (node, entity) would not see that:
//! the requests on established sessions (mostly of the classes that survived the throttling of
//! establishments) would have to meet the reduction among themselves. They live apart from the rest of
//! [`CpOverloadControl`](super::CpOverloadControl) so that alternate routing can borrow them
//! while the route list is borrowed too.

use std::collections::HashMap;
use std::time::Instant;

use pfcp_overload::{NodeKey, OverloadTable, Scope};
use pfcp_throttle::{
    Decision, EgressConfig, EgressDecision, EgressThrottle, LossConfig, LossThrottle, MessageKind,
    RequestClass, ThrottleReason,
};

use super::{CpConfig, Destination, LossMode, RejectReason};

/// A Loss throttle and when it was last used (for the LRU bound).
#[derive(Debug, Clone)]
struct LossEntry {
    throttle: LossThrottle,
    last_used: Instant,
}

/// An egress throttle and when it was last used (for the LRU bound).
#[derive(Debug, Clone)]
struct EgressEntry {
    throttle: EgressThrottle,
    last_used: Instant,
}

/// The per-destination throttles, apart from the rest so that routing can borrow them while
/// the route list is borrowed too.
#[derive(Debug, Clone)]
pub(super) struct Throttles {
    loss_config: LossConfig,
    loss_mode: LossMode,
    egress_config: Option<EgressConfig>,
    max: usize,
    loss: HashMap<NodeKey, LossEntry>,
    egress: HashMap<NodeKey, EgressEntry>,
}

impl Throttles {
    /// No throttle yet; `config` says how to make them (validated by the caller).
    pub(super) fn new(config: &CpConfig) -> Self {
        Throttles {
            loss_config: config.loss,
            loss_mode: config.loss_mode,
            egress_config: config.egress,
            max: config.max_destinations,
            loss: HashMap::new(),
            egress: HashMap::new(),
        }
    }

    /// The Loss throttle of UP function `node`, if it has one yet.
    pub(super) fn loss_throttle(&self, node: &NodeKey) -> Option<&LossThrottle> {
        self.loss.get(node).map(|e| &e.throttle)
    }

    /// The egress throttle of UP function `node`, if it has one yet.
    pub(super) fn egress_throttle(&self, node: &NodeKey) -> Option<&EgressThrottle> {
        self.egress.get(node).map(|e| &e.throttle)
    }

    /// Whether `dest`'s throttles admit a request of `class`; records the decision.
    pub(super) fn admit(
        &mut self,
        overload: &OverloadTable,
        dest: &Destination,
        class: RequestClass,
        now: Instant,
        draw: u64,
    ) -> Result<(), RejectReason> {
        let reduction = overload.reduction(dest.entity, &dest.node, now);
        let mode = self.loss_mode;
        let entry = self.loss_entry(&dest.node, now);
        let decision = match mode {
            LossMode::Deterministic => entry.throttle.decide_at(class, reduction),
            // The low 32 bits: the routing picks use the whole draw through SplitMix64.
            LossMode::Random => entry
                .throttle
                .decide_with_draw_at(class, draw as u32, reduction),
        };
        if let Decision::Throttle(t) = decision {
            metrics::counter!("pfcp_requests_throttled_total", "reason" => "loss").increment(1);
            tracing::debug!(
                node = %dest.node,
                entity = ?dest.entity,
                priority = class.priority.value(),
                exempt = class.exempt,
                reduction = t.reduction,
                "cp: throttled by the Loss throttle"
            );
            return Err(RejectReason::Loss(t));
        }
        if let Some(egress) = self.egress_entry(&dest.node, now) {
            if let EgressDecision::Throttle(r) =
                egress.decide(MessageKind::Request, class.priority, now)
            {
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
                    reason,
                    level = egress.level(),
                    "cp: throttled by the egress throttle"
                );
                return Err(RejectReason::Egress(r));
            }
        }
        Ok(())
    }

    /// The Loss throttle of UP function `node`, created if needed (the least recently used one
    /// is dropped when the map is full).
    fn loss_entry(&mut self, node: &NodeKey, now: Instant) -> &mut LossEntry {
        if !self.loss.contains_key(node) && self.loss.len() >= self.max {
            let lru = self
                .loss
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(d, _)| d.clone());
            if let Some(d) = lru {
                tracing::debug!(node = %d, "cp: Loss throttle dropped (LRU)");
                self.loss.remove(&d);
            }
        }
        let config = self.loss_config;
        let entry = self.loss.entry(node.clone()).or_insert_with(|| LossEntry {
            throttle: LossThrottle::new(config),
            last_used: now,
        });
        entry.last_used = now;
        entry
    }

    /// The egress throttle of UP function `node`, if egress throttling is configured.
    pub(super) fn egress_entry(
        &mut self,
        node: &NodeKey,
        now: Instant,
    ) -> Option<&mut EgressThrottle> {
        let config = self.egress_config?;
        if !self.egress.contains_key(node) {
            if self.egress.len() >= self.max {
                let lru = self
                    .egress
                    .iter()
                    .min_by_key(|(_, e)| e.last_used)
                    .map(|(n, _)| n.clone());
                if let Some(n) = lru {
                    self.egress.remove(&n);
                }
            }
            // Validated by `CpOverloadControl::new`; an error cannot happen here.
            let throttle = EgressThrottle::new(config, now).ok()?;
            self.egress.insert(
                node.clone(),
                EgressEntry {
                    throttle,
                    last_used: now,
                },
            );
        }
        let entry = self.egress.get_mut(node)?;
        entry.last_used = now;
        Some(&mut entry.throttle)
    }

    /// Bring the reduction of `dest`'s UP function's Loss throttle (if it has one) up to date
    /// with the node's metric and `dest`'s entity: a log line when it changes, and the credit
    /// cleared once no overload is left (requests carry their own reduction, see
    /// [`LossThrottle::decide_at`]).
    pub(super) fn refresh(&mut self, overload: &OverloadTable, dest: &Destination, now: Instant) {
        if let Some(e) = self.loss.get_mut(&dest.node) {
            set_reduction(
                dest,
                &mut e.throttle,
                overload.reduction(dest.entity, &dest.node, now),
            );
        }
    }

    /// A request admitted towards UP function `node` has ended: free its egress pending slot.
    pub(super) fn transaction_ended(&mut self, node: &NodeKey) {
        if let Some(e) = self.egress.get_mut(node) {
            e.throttle.on_transaction_end();
        }
    }

    /// Advance every egress throttle to `now`.
    pub(super) fn handle_timeout(&mut self, now: Instant) {
        for e in self.egress.values_mut() {
            e.throttle.handle_timeout(now);
        }
    }

    /// Drop every throttle of UP function `node` (it restarted or left).
    pub(super) fn forget(&mut self, node: &NodeKey) {
        self.loss.remove(node);
        self.egress.remove(node);
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
            .loss
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
