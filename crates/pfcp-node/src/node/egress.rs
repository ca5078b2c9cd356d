//! What the node sends counted in the egress throttles of its connections, and the UP's
//! report egress: the signalling router's Per Connection Egress Message Throttling (seed 003)
//! applied to every message a connection carries.
//!
//! * On a CP function, first transmissions of the application's requests are decided by the
//!   UP function's throttles ([`crate::cp`]); everything else sent to that UP function is
//!   counted here with its [`MessageKind`]: the responses (a Session Report Response, a
//!   Heartbeat Response, a rejection, a response replayed for a duplicate request),
//!   retransmissions, and the node's own Heartbeat and Association Setup Requests.
//! * On a UP function with [`NodeConfig::report_egress`](super::NodeConfig::report_egress),
//!   its Session Report Requests pass the egress throttle of the connection to the CP
//!   function, and the same messages are counted there.

use std::net::SocketAddr;
use std::time::Instant;

use pfcp_throttle::{EgressDecision, EgressThrottle, MessageKind};
use pfcp_wire::Header;
use tracing::{debug, warn};

use super::Node;
use crate::xact::TxId;

impl Node {
    /// Pass a Session Report Request through the egress throttle of the connection to `peer`
    /// (created on first use). Its answers to that CP count in the same measured rate.
    pub(super) fn admit_report(&mut self, peer: SocketAddr, header: &Header, now: Instant) -> bool {
        let Some(cfg) = self.report_egress else {
            return true;
        };
        if !self.report_throttles.contains_key(&peer) {
            if self.report_throttles.len() >= self.max_peers {
                return true;
            }
            match EgressThrottle::new(cfg, now) {
                Ok(th) => {
                    self.report_throttles.insert(peer, th);
                }
                Err(e) => {
                    warn!(error = %e, "invalid report egress configuration");
                    return true;
                }
            }
        }
        // A report without MP gets the classifier's default for requests (15, the lowest).
        let priority = header
            .priority
            .unwrap_or_else(|| pfcp_throttle::Classifier::default().received_request(None));
        match self.report_throttles.get_mut(&peer) {
            Some(th) => {
                let d = th.decide(MessageKind::Request, priority, now);
                let ok = matches!(d, EgressDecision::Send);
                if !ok {
                    metrics::counter!("pfcp_requests_throttled_total", "reason" => "report_egress")
                        .increment(1);
                    debug!(%peer, ?d, "session report throttled");
                }
                ok
            }
            None => true,
        }
    }

    pub(super) fn report_ended(&mut self, peer: &SocketAddr) {
        if let Some(th) = self.report_throttles.get_mut(peer) {
            th.on_transaction_end();
        }
    }

    /// A message sent to `peer` at `now` without an egress decision counts in the egress rate
    /// of the connection, with its `kind` (router, seed 003: "the EMR on a Connection being
    /// throttled is equivalent to the egress Request rate + the egress Answer rate"): on a CP
    /// in the egress throttle of the UP function's connection
    /// ([`CpOverloadControl::on_send`](crate::cp::CpOverloadControl::on_send)); on a UP in
    /// the report egress throttle of the connection to that CP function. Answers,
    /// retransmissions, Heartbeat and Association messages are never throttled; only
    /// counted.
    pub(super) fn count_egress(&mut self, peer: SocketAddr, kind: MessageKind, now: Instant) {
        if self.cp.is_some() {
            let node = self.node_of(peer);
            if let Some(cp) = self.cp.as_mut() {
                cp.on_send(&node, kind, now);
            }
        }
        // Only a UP function with report egress throttles has any (no hashing otherwise).
        if !self.report_throttles.is_empty() {
            if let Some(th) = self.report_throttles.get_mut(&peer) {
                th.on_send(kind, now);
            }
        }
    }

    /// The transaction layer sent request `tx` to `peer` again (T1 expired, clause 6.4): a
    /// [`MessageKind::Retransmission`] on the connection, counted, never re-decided.
    pub(super) fn on_retransmitted(&mut self, tx: TxId, peer: SocketAddr, now: Instant) {
        let dest = self.outstanding.get(&tx).and_then(|o| o.dest.clone());
        match (self.cp.as_mut(), dest) {
            // The destination the decision chose (after a redirection, the alternate).
            (Some(cp), Some(d)) => {
                cp.on_retransmit(&d, now);
                if !self.report_throttles.is_empty() {
                    if let Some(th) = self.report_throttles.get_mut(&peer) {
                        th.on_send(MessageKind::Retransmission, now);
                    }
                }
            }
            _ => self.count_egress(peer, MessageKind::Retransmission, now),
        }
    }
}
