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

use pfcp_throttle::{EgressConfig, EgressDecision, EgressThrottle, MessageKind, ThrottleReason};
use pfcp_wire::Header;
use tracing::{debug, warn};

use pfcp_overload::NodeKey;

use super::Node;
use crate::xact::TxId;

impl Node {
    /// Pass a Session Report Request through the egress throttle of the connection to `peer`
    /// (created on first use, with the set assigned to the peer's Node ID, else the default);
    /// the reason if it refuses. Its answers to that CP count in the same measured rate.
    pub(super) fn admit_report(
        &mut self,
        peer: SocketAddr,
        header: &Header,
        now: Instant,
    ) -> Result<(), ThrottleReason> {
        let needs_one = self
            .peers
            .record_at(&peer)
            .is_some_and(|p| p.report.is_none());
        if needs_one {
            let Some(cfg) = self.report_config_for(peer) else {
                return Ok(());
            };
            match EgressThrottle::new(cfg, now) {
                Ok(th) => {
                    if let Some(p) = self.peers.record_at_mut(&peer) {
                        p.report = Some(Box::new(th));
                    }
                }
                Err(e) => {
                    warn!(error = %e, "invalid report egress configuration");
                    return Ok(());
                }
            }
        }
        // A report without MP gets the classifier's default for requests (15, the lowest).
        let priority = header
            .priority
            .unwrap_or_else(|| pfcp_throttle::Classifier::default().received_request(None));
        let Some(th) = self
            .peers
            .record_at_mut(&peer)
            .and_then(|p| p.report.as_mut())
        else {
            return Ok(());
        };
        match th.decide(MessageKind::Request, priority, now) {
            EgressDecision::Send => Ok(()),
            EgressDecision::Throttle(reason) => {
                self.stats.reports_throttled += 1;
                debug!(%peer, ?reason, "session report throttled");
                Err(reason)
            }
        }
    }

    /// The report egress configuration of the connection to `peer`: its CP function's set,
    /// the sets' default, else [`NodeConfig::report_egress`](super::NodeConfig::report_egress).
    fn report_config_for(&self, peer: SocketAddr) -> Option<EgressConfig> {
        let sets = self.report_egress_sets.as_ref();
        let node = self.peers.get(&peer).and_then(|p| p.node.clone());
        node.as_ref()
            .and_then(|n| sets.and_then(|s| s.config_for(n)))
            .or_else(|| {
                sets.and_then(|s| s.default_set())
                    .and_then(|id| sets.and_then(|s| s.set(id)).copied())
            })
            .or(self.report_egress)
    }

    pub(super) fn report_ended(&mut self, peer: &SocketAddr) {
        if let Some(th) = self.report_throttle_mut(peer) {
            th.on_transaction_end();
        }
    }

    fn report_throttle_mut(&mut self, peer: &SocketAddr) -> Option<&mut EgressThrottle> {
        self.peers.record_at_mut(peer)?.report.as_deref_mut()
    }

    /// A message sent to `peer` at `now` without an egress decision counts in the egress rate
    /// of the connection, with its `kind` (router, seed 003: "the EMR on a Connection being
    /// throttled is equivalent to the egress Request rate + the egress Answer rate"): on a CP
    /// in the egress throttle of the UP function's connection
    /// ([`CpPolicy::on_send`](crate::cp::CpPolicy::on_send)); on a UP in
    /// the report egress throttle of the connection to that CP function. Answers,
    /// retransmissions, Heartbeat and Association messages are never throttled; only
    /// counted.
    pub(super) fn count_egress(&mut self, peer: SocketAddr, kind: MessageKind, now: Instant) {
        if let Some(cp) = self.cp.as_mut() {
            let node = self.peers.get(&peer).and_then(|p| p.node.clone());
            let node = node.unwrap_or(NodeKey::Ip(peer.ip()));
            // Only a connection with an egress configuration, or a UP function already seen,
            // gets a link for it (a CP function's other messages make none).
            let configured = cp.egress_sets().config_for(&node).is_some();
            if let Some(record) = self.peers.record_at_mut(&peer) {
                if record.up.is_none() && configured {
                    record.up = Some(Box::new(cp.link(&node, now)));
                }
                if let Some(link) = record.up.as_deref_mut() {
                    cp.on_send(link, kind, now);
                }
            }
        }
        // Only a UP function with report egress throttles has any (no lookup otherwise).
        if self.report_egress.is_some() || self.report_egress_sets.is_some() {
            if let Some(th) = self.report_throttle_mut(&peer) {
                th.on_send(kind, now);
            }
        }
    }

    /// The transaction layer sent request `tx` to `peer` again (T1 expired, clause 6.4): a
    /// [`MessageKind::Retransmission`] on the connection, counted, never re-decided.
    pub(super) fn on_retransmitted(&mut self, tx: TxId, peer: SocketAddr, now: Instant) {
        let decided = self.outstanding.get(&tx).is_some_and(|o| o.dest.is_some());
        if decided {
            // The connection the decision chose (after a redirection, the alternate's).
            self.with_link(peer, |cp, link| {
                cp.on_send(link, MessageKind::Retransmission, now);
            });
            if let Some(th) = self.report_throttle_mut(&peer) {
                th.on_send(MessageKind::Retransmission, now);
            }
        } else {
            self.count_egress(peer, MessageKind::Retransmission, now);
        }
    }
}
