//! What a node keeps of the accepted responses to its requests: the session table
//! ([`crate::session`]: an establishment's sessions, a deletion's end) and, on a CP, the state
//! behind the C.2 rules (TS 29.273 Annex C.2), kept from what it sees
//! ([`NodeConfig::state_tracker`](super::NodeConfig::state_tracker)):
//!
//! | the node sees | tracker event | effect on later requests (C.2) |
//! |---|---|---|
//! | a Session Establishment Request it sent (so admitted) accepted by the UP | [`StateTracker::on_established`] and [`StateTracker::on_first_step_succeeded`] | the session's requests are `registered` and, for the follow-up window, `follows_admitted` (higher: "after a not throttled and successful MAR, the subsequent requests ... have a higher priority"); a further session of the same UE ([`RequestProfile::ue`]) is an `additional_session` (lower) |
//! | a UP function's restart (new Recovery Time Stamp, clause 6.2.2), its failure (no Heartbeat Response, [`PeerEvent::Failed`]) or its answer that the association is gone (Cause 72, [`PeerEvent::NotAssociated`]) | [`StateTracker::on_peer_restart`] | the sessions it held are a `restoration` until re-established (lower: the re-establishment storm C.2 warns about); not on a release ([`PeerEvent::Released`]), which is planned (6.2.8) |
//! | a Session Deletion Request accepted | [`StateTracker::on_released`] | the session is forgotten (the deletion itself ranks higher by its procedure: "releasing resources") |
//!
//! The caller overrides any fact per request ([`RequestProfile::state`] and the flags), and
//! every adjustment that fired is in the [`Classification`] ([`Node::classify`]) and in the
//! CP's `tracing` events (`class`).

use std::net::SocketAddr;
use std::time::Instant;

use pfcp_overload::NodeKey;
use pfcp_throttle::classify::Procedure;
use pfcp_throttle::{Classification, RequestContext, StateTracker};
use pfcp_wire::ie::{FSeid, IeIter, TypedIe};
use pfcp_wire::{Header, MessageType};
use tracing::debug;

use super::{Node, Outstanding, RequestProfile};
#[cfg(doc)]
use crate::peer::PeerEvent;
use crate::session::Session;

/// The C.2 state a CP node keeps: sessions by the node's own SEID (or
/// [`RequestProfile::session`]), UEs by [`RequestProfile::ue`], peers by UP Node ID.
pub type CpStateTracker = StateTracker<u64, u64, NodeKey>;

impl Node {
    /// The C.2 state tracker, if configured
    /// ([`NodeConfig::state_tracker`](super::NodeConfig::state_tracker)).
    pub fn state_tracker(&self) -> Option<&CpStateTracker> {
        self.tracker.as_ref()
    }

    /// The C.2 state tracker, for the caller to report what the node cannot see (a
    /// procedure completed, [`StateTracker::on_procedure_complete`]; a session established
    /// elsewhere).
    pub fn state_tracker_mut(&mut self) -> Option<&mut CpStateTracker> {
        self.tracker.as_mut()
    }

    /// How the CP's overload control would classify this request now (the rule, the base
    /// priority and every C.2 adjustment that fired: TS 29.273 Annex C.2, TS 29.244
    /// 6.2.4.5), with the profile's facts over the tracker's; `None` without CP overload
    /// control. [`Node::send_request`] classifies the same way.
    pub fn classify(
        &self,
        peer: SocketAddr,
        header: &Header,
        ies: &[u8],
        profile: &RequestProfile,
        now: Instant,
    ) -> Option<Classification> {
        let cp = self.cp.as_ref()?;
        let (ctx, _) = self.request_context(peer, header, ies, profile, now);
        Some(cp.classify(header.message_type, &ctx))
    }

    /// The classifier's context of a request: the profile's, its state completed by the
    /// tracker's; and the session's tracker key.
    pub(super) fn request_context<'p>(
        &self,
        peer: SocketAddr,
        header: &Header,
        ies: &[u8],
        profile: &'p RequestProfile,
        now: Instant,
    ) -> (RequestContext<'p>, Option<u64>) {
        let mut ctx = profile.context(Procedure::of(header.message_type));
        let Some(tracker) = self.tracker.as_ref() else {
            return (ctx, profile.session);
        };
        let session = profile.session.or_else(|| match header.seid {
            Some(s) => self.sessions.by_remote(peer, s).map(|s| s.local_seid),
            None => None,
        });
        let session = session.or_else(|| {
            (header.message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST)
                .then(|| cp_f_seid(ies))
                .flatten()
        });
        ctx.state = ctx
            .state
            .or(tracker.state(session.as_ref(), profile.ue.as_ref(), now));
        (ctx, session)
    }

    /// Keep the session table on an accepted response to this node's request.
    pub(super) fn record_sent_session(
        &mut self,
        o: &Outstanding,
        peer: SocketAddr,
        up_f_seid: Option<FSeid>,
    ) {
        match o.message_type {
            MessageType::SESSION_ESTABLISHMENT_REQUEST => {
                let (Some(ours), Some(theirs)) = (o.f_seid, up_f_seid) else {
                    return;
                };
                let node = self.peers.get(&peer).and_then(|p| p.node.clone());
                if !self
                    .sessions
                    .insert(Session::new(ours.seid, &theirs, peer, node))
                {
                    debug!(%peer, "session table full: session not tracked");
                }
            }
            MessageType::SESSION_DELETION_REQUEST => {
                if let Some(s) = o.seid {
                    self.sessions.remove_by_remote(peer, s);
                }
            }
            _ => {}
        }
    }

    /// An accepted response to a request of `message_type` on the tracked `session` of
    /// `ue`, from `peer`.
    pub(super) fn track_accepted(
        &mut self,
        message_type: MessageType,
        session: Option<u64>,
        ue: Option<u64>,
        peer: SocketAddr,
        now: Instant,
    ) {
        let Some(session) = session else {
            return;
        };
        let node = self.node_of(peer);
        let Some(tracker) = self.tracker.as_mut() else {
            return;
        };
        match message_type {
            MessageType::SESSION_ESTABLISHMENT_REQUEST => {
                tracker.on_established(session, ue, Some(node), now);
                // It was sent, so admitted, and accepted: the first step succeeded.
                tracker.on_first_step_succeeded(session, now);
            }
            MessageType::SESSION_DELETION_REQUEST => tracker.on_released(&session),
            _ => {}
        }
    }

    /// UP function `node` restarted, failed or lost the association: the sessions it held
    /// become restorations.
    pub(super) fn track_restart(&mut self, node: &NodeKey, now: Instant) {
        if let Some(tracker) = self.tracker.as_mut() {
            tracker.on_peer_restart(node, now);
            tracing::info!(%node, lost = tracker.stats().sessions_lost, "C.2: sessions to restore");
        }
    }
}

/// The SEID of the CP F-SEID among the IEs of a Session Establishment Request, if readable.
fn cp_f_seid(ies: &[u8]) -> Option<u64> {
    f_seid_in(ies).map(|f| f.seid)
}

/// The F-SEID among encoded IEs, if there is a readable one.
pub(super) fn f_seid_in(ies: &[u8]) -> Option<FSeid> {
    let ie = IeIter::new(ies, 0).find(FSeid::IE_TYPE).ok().flatten()?;
    FSeid::decode(&ie).ok()
}
