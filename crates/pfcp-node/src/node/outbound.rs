//! Requests out: the application's requests (through the CP's overload control or the UP's
//! report egress throttle), associations and heartbeats, and what a peer's state change sets
//! off (resets, lost sessions, re-association). What becomes of them is in `responses.rs`.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use pfcp_overload::NodeKey;
use pfcp_throttle::MessageKind;
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::{LoadControlInformation, OverloadControlInformation};
use pfcp_wire::{Cause, Header, MessageType};
use tracing::{debug, info, warn};

use super::{
    HeldRequest, Node, NodeEvent, Outstanding, Purpose, RequestError, RequestId, RequestProfile,
    ResponseOrigin,
};
use crate::cp::{CpDecision, CpPolicy, CpRequest, Destination, RejectReason, UpLink};
use crate::peer::{self, Kept, PeerEvent};
use crate::xact::TxId;

impl Node {
    /// Send a request to `peer`: `header` without a sequence number (the node allocates it)
    /// and `ies`, the encoded IEs. `profile` tells the CP's overload control what the request
    /// is for (its priority, redirection); a request on an existing session is scoped to the UP
    /// entity of the session's F-SEID unless `profile.entity` says otherwise.
    ///
    /// The outcome comes as [`NodeEvent::Outcome`] with this id: the peer's response, a
    /// response the node generated instead ([`ResponseOrigin::Throttled`] with Cause 74,
    /// [`ResponseOrigin::NoAssociation`] with Cause 72; clause 6.2.4.4: as though the UP had
    /// rejected it), or a [`RequestError`] (no response). An error returned here means nothing
    /// was sent and no outcome will come.
    ///
    /// An eMPS or emergency request the Loss throttle sheds may be held for a while before
    /// its outcome (`CpConfig::exempt_hold`): it is sent later, in the place of a
    /// lower-priority request to the same UP function (whose outcome is then
    /// [`ResponseOrigin::Throttled`] with [`RejectReason::Yielded`]), or rejected when the
    /// hold ends.
    pub fn send_request(
        &mut self,
        peer: SocketAddr,
        header: Header,
        ies: &[u8],
        profile: &RequestProfile,
        now: Instant,
    ) -> Result<RequestId, RequestError> {
        let sent = self.send_request_now(peer, header, ies, profile, now);
        self.settle_holds(now);
        sent
    }

    fn send_request_now(
        &mut self,
        peer: SocketAddr,
        header: Header,
        ies: &[u8],
        profile: &RequestProfile,
        now: Instant,
    ) -> Result<RequestId, RequestError> {
        let id = self.next_request_id();
        self.stats.requests_sent += 1;
        let message_type = header.message_type;
        let mut header = header;
        let mut peer = peer;
        if message_type.is_session() == Some(true) && self.association_down(&peer) {
            self.answer_locally(
                id,
                peer,
                &header,
                Cause::NO_ESTABLISHED_PFCP_ASSOCIATION,
                ResponseOrigin::NoAssociation,
            );
            return Ok(id);
        }
        let mut tracked = None;
        let decision = if self.cp.is_some() {
            // The PFCP entity the request reaches: the UP F-SEID's address of its session, and
            // for a new session the address it is sent to (clause 6.2.4.3.1: an OCI without
            // AOCI concerns the entity; a UP function with one entity throttles its new
            // sessions with it too).
            let entity = profile
                .entity
                .or_else(|| {
                    header
                        .seid
                        .and_then(|s| self.sessions.by_remote(peer, s))
                        .and_then(|s| s.remote_ip)
                })
                .or(Some(peer.ip()));
            let d = Destination {
                node: self.node_of(peer),
                entity,
            };
            // The profile's C.2 facts over the tracker's (module `state`).
            let (ctx, session) = self.request_context(peer, &header, ies, profile, now);
            tracked = session.map(|s| (s, profile.ue));
            let req = CpRequest::new(&d, message_type, ctx)
                .with_redirect(profile.redirectable)
                .with_draw(self.draw());
            match self.decide(peer, &req, now) {
                Some(decision) => Some(decision),
                None => return Err(RequestError::PeerTableFull),
            }
        } else {
            None
        };
        let mut dest = None;
        let mut exempt = false;
        if let Some(decision) = decision {
            let (to, priority) = match decision {
                CpDecision::Send {
                    priority,
                    dest,
                    exempt: e,
                } => {
                    // Kept with the transaction: the UP function refusing a priority request
                    // tells the pipeline its priority traffic does not fit.
                    exempt = e;
                    (dest, priority)
                }
                CpDecision::Redirect {
                    to,
                    priority,
                    exempt: e,
                } => match self.peers.addr_of(&to.node) {
                    Some(addr) => {
                        peer = addr;
                        exempt = e;
                        info!(%peer, dest = %to, "request redirected");
                        (to, priority)
                    }
                    None => {
                        self.answer_locally(
                            id,
                            peer,
                            &header,
                            Cause::PFCP_ENTITY_IN_CONGESTION,
                            ResponseOrigin::Throttled(RejectReason::NoAlternateAddress),
                        );
                        return Ok(id);
                    }
                },
                CpDecision::Reject { cause, reason } => {
                    debug!(%peer, ?reason, "request throttled");
                    self.answer_locally(
                        id,
                        peer,
                        &header,
                        cause,
                        ResponseOrigin::Throttled(reason),
                    );
                    return Ok(id);
                }
                CpDecision::Hold {
                    ticket,
                    priority,
                    dest,
                    ..
                } => {
                    if self.priority.set_on_requests
                        && header.seid.is_some()
                        && header.priority.is_none()
                    {
                        header = header.with_priority(priority);
                    }
                    let held = HeldRequest {
                        id,
                        peer,
                        header,
                        ies: Bytes::copy_from_slice(ies),
                        dest,
                        tracked,
                    };
                    self.held.insert(ticket, held);
                    return Ok(id);
                }
            };
            if self.priority.set_on_requests && header.seid.is_some() && header.priority.is_none() {
                header = header.with_priority(priority);
            }
            dest = Some(to);
        }
        self.transmit_app(id, peer, header, ies, dest, tracked, exempt, now)
    }

    /// The CP pipeline's decision for `req` to the UP function at `peer`: its link taken out of
    /// the peer's record (made if it has none), decided with the other UP functions' links as
    /// the alternates, and put back. `None` if the peer has no record and the table has no
    /// room for one.
    fn decide(
        &mut self,
        peer: SocketAddr,
        req: &CpRequest<'_>,
        now: Instant,
    ) -> Option<CpDecision> {
        let cp = self.cp.as_mut()?;
        let id = self.peers.insert(peer, now)?;
        let record = self.peers.record_mut(id)?;
        let mut link = match record.up.take() {
            Some(l) => l,
            None => Box::new(cp.link(&req.dest.node, now)),
        };
        let decision = cp.decide(&mut link, &mut self.peers, req, now);
        if let Some(record) = self.peers.record_mut(id) {
            record.up = Some(link);
        }
        Some(decision)
    }

    /// Send an application request the CP pipeline let through (or that needs no decision):
    /// the tail of [`Node::send_request`], and where a held request goes when its place comes.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transmit_app(
        &mut self,
        id: RequestId,
        peer: SocketAddr,
        header: Header,
        ies: &[u8],
        dest: Option<Destination>,
        tracked: Option<(u64, Option<u64>)>,
        exempt: bool,
        now: Instant,
    ) -> Result<RequestId, RequestError> {
        let message_type = header.message_type;
        let report = message_type == MessageType::SESSION_REPORT_REQUEST
            && (self.report_egress.is_some() || self.report_egress_sets.is_some());
        if report {
            if let Err(reason) = self.admit_report(peer, &header, now) {
                self.answer_locally(
                    id,
                    peer,
                    &header,
                    Cause::PFCP_ENTITY_IN_CONGESTION,
                    ResponseOrigin::Throttled(RejectReason::ReportEgress(reason)),
                );
                return Ok(id);
            }
        }
        let seq = self.sequence_for(peer);
        let extra = if message_type == MessageType::SESSION_REPORT_REQUEST {
            self.report_extra(peer, ies, now)
        } else {
            None
        };
        let encoded = encode_with(&header.with_sequence(seq), ies, extra);
        let sent = encoded.map_err(RequestError::from).and_then(|b| {
            // This node's own F-SEID, read from the IEs it was given (not from the message
            // encoded with them).
            let f_seid = if message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST {
                super::state::f_seid_in(ies)
            } else {
                None
            };
            self.xact
                .send_request_parts(peer, b, message_type, seq, now)
                .map(|tx| (tx, f_seid))
                .map_err(RequestError::from)
        });
        match sent {
            Ok((tx, f_seid)) => {
                self.outstanding.insert(
                    tx,
                    Outstanding {
                        purpose: Purpose::App(id),
                        message_type,
                        seid: header.seid,
                        dest,
                        report,
                        f_seid,
                        tracked,
                        exempt,
                        epoch: self.peers.epoch(&peer),
                    },
                );
                Ok(id)
            }
            Err(e) => {
                if dest.is_some() {
                    self.with_link(peer, |cp, link| cp.transaction_ended(link));
                }
                if report {
                    self.report_ended(&peer);
                }
                Err(e)
            }
        }
    }

    /// Set up a PFCP association with `peer` (Association Setup Request, clause 6.2.6). The
    /// node keeps it up from then on: when it is lost (the peer restarted, failed its
    /// heartbeats, released it or answered Cause 72) it is set up again
    /// ([`NodeConfig::reassociate_interval`](super::NodeConfig::reassociate_interval)).
    pub fn associate(&mut self, peer: SocketAddr, now: Instant) -> Result<RequestId, RequestError> {
        let id = self.next_request_id();
        if self.reassociate_interval.is_some() {
            let record = self
                .peers
                .insert(peer, now)
                .and_then(|p| self.peers.record_mut(p))
                .ok_or(RequestError::PeerTableFull)?;
            record.kept.get_or_insert_with(Kept::default);
        }
        let tx = self.send_setup(peer, Purpose::Associate(Some(id)), now)?;
        if let Some(k) = self.kept_mut(&peer) {
            k.attempt = Some(tx);
            k.next = None;
        }
        Ok(id)
    }

    /// The association this node keeps up with `peer`, if any.
    pub(super) fn kept_mut(&mut self, peer: &SocketAddr) -> Option<&mut Kept> {
        self.peers.record_at_mut(peer)?.kept.as_mut()
    }

    /// Send a Heartbeat Request to `peer` now (clause 6.2.2); the outcome carries the
    /// response.
    pub fn heartbeat(&mut self, peer: SocketAddr, now: Instant) -> Result<RequestId, RequestError> {
        let id = self.next_request_id();
        self.send_heartbeat(peer, Some(id), now)?;
        Ok(id)
    }

    /// Whether `peer` is one whose association this node keeps and it is down now.
    fn association_down(&self, peer: &SocketAddr) -> bool {
        self.peers
            .record_at(peer)
            .is_some_and(|p| p.kept.is_some() && !p.info.associated)
    }

    fn send_setup(
        &mut self,
        peer: SocketAddr,
        purpose: Purpose,
        now: Instant,
    ) -> Result<TxId, RequestError> {
        let seq = self.sequence_for(peer);
        let b = peer::association_setup_request(&self.local, seq)?;
        self.count_egress(peer, MessageKind::Management, now);
        let tx = self.xact.send_request_parts(
            peer,
            b,
            MessageType::ASSOCIATION_SETUP_REQUEST,
            seq,
            now,
        )?;
        self.outstanding.insert(
            tx,
            Outstanding {
                purpose,
                message_type: MessageType::ASSOCIATION_SETUP_REQUEST,
                seid: None,
                dest: None,
                report: false,
                f_seid: None,
                tracked: None,
                exempt: false,
                epoch: self.peers.epoch(&peer),
            },
        );
        Ok(tx)
    }

    pub(super) fn send_heartbeat(
        &mut self,
        peer: SocketAddr,
        id: Option<RequestId>,
        now: Instant,
    ) -> Result<TxId, RequestError> {
        let seq = self.sequence_for(peer);
        // Built here with `seq`: the transaction layer need not decode it.
        let b = peer::heartbeat_request(&self.local, seq)?;
        let b = self.heartbeat_lci(peer, b, MessageType::HEARTBEAT_REQUEST);
        self.count_egress(peer, MessageKind::Management, now);
        let tx = self
            .xact
            .send_request_parts(peer, b, MessageType::HEARTBEAT_REQUEST, seq, now)?;
        self.outstanding.insert(
            tx,
            Outstanding {
                purpose: Purpose::Heartbeat(id),
                message_type: MessageType::HEARTBEAT_REQUEST,
                seid: None,
                dest: None,
                report: false,
                f_seid: None,
                tracked: None,
                exempt: false,
                epoch: self.peers.epoch(&peer),
            },
        );
        Ok(tx)
    }

    /// Send the next Association Setup Request of a kept association that is down (the
    /// previous one, if still outstanding, is abandoned: the peer is answering nothing).
    pub(super) fn reassociate(&mut self, peer: SocketAddr, now: Instant) {
        let Some(k) = self.peers.record_at(&peer).and_then(|p| p.kept) else {
            return;
        };
        if self.peers.is_associated(&peer) {
            if let Some(k) = self.kept_mut(&peer) {
                k.next = None;
            }
            return;
        }
        if let Some(old) = k.attempt {
            if self.xact.cancel(old) {
                self.outstanding.remove(&old);
            }
        }
        self.stats.reassociations += 1;
        let attempt = match self.send_setup(peer, Purpose::Associate(None), now) {
            Ok(tx) => Some(tx),
            Err(e) => {
                warn!(%peer, error = %e, "association setup not sent");
                None
            }
        };
        let next = self.reassociate_interval.and_then(|i| now.checked_add(i));
        if let Some(k) = self.kept_mut(&peer) {
            *k = Kept { attempt, next };
        }
        info!(%peer, "setting the association up again");
    }

    /// Run `f` on the CP policy and the link of the UP function at `peer`, if both exist.
    pub(super) fn with_link(
        &mut self,
        peer: SocketAddr,
        f: impl FnOnce(&mut CpPolicy, &mut UpLink),
    ) {
        let (Some(cp), Some(link)) = (
            self.cp.as_mut(),
            self.peers
                .record_at_mut(&peer)
                .and_then(|p| p.up.as_deref_mut()),
        ) else {
            return;
        };
        f(cp, link);
    }

    /// The UP function at `peer` was named `node` by its association: its link, made under its
    /// address before, takes the name, if the egress configuration assigned to `node` is the
    /// one it was made with (the Association Setup Request then counts on the connection it
    /// was sent on); otherwise it ends and the next message makes one for `node`.
    fn name_link(&mut self, peer: SocketAddr, node: &NodeKey) {
        let Some(cp) = self.cp.as_mut() else {
            return;
        };
        let Some(record) = self.peers.record_at_mut(&peer) else {
            return;
        };
        let Some(link) = record.up.as_deref_mut() else {
            return;
        };
        if link.node() == node {
            return;
        }
        let same = link.egress_throttle().map(|e| *e.config()) == cp.egress_sets().config_for(node);
        if same && link.held() == 0 {
            link.rename(node.clone());
        } else if let Some(old) = record.up.take() {
            cp.forget(*old);
        }
    }

    /// An associated peer answered Cause 72: it no longer knows the association.
    pub(super) fn lost_association(&mut self, peer: SocketAddr, now: Instant) {
        if let Some(e) = self.peers.lost(peer) {
            self.on_peer_event(e, now);
        }
    }

    /// Act on a peer's state change, then report it (and the sessions it took along).
    pub(super) fn on_peer_event(&mut self, e: PeerEvent, now: Instant) {
        match &e {
            PeerEvent::Associated { peer, node } => {
                self.name_link(*peer, node);
                let features = self.peers.get(peer).and_then(|p| p.cp_features);
                if let (Some(adm), Some(f)) = (self.admission.as_mut(), features) {
                    adm.set_peer_features(node.clone(), &f);
                }
                if let Some(k) = self.kept_mut(peer) {
                    k.next = None;
                }
                info!(event = ?e, "peer event");
                self.events.push_back(NodeEvent::Peer(e));
            }
            PeerEvent::FeaturesUpdated {
                node: Some(node),
                cp_features: Some(f),
                ..
            } => {
                // A CP function's new features say whether it takes OCI and LCI (6.2.7).
                if let Some(adm) = self.admission.as_mut() {
                    adm.set_peer_features(node.clone(), f);
                }
                info!(event = ?e, "peer event");
                self.events.push_back(NodeEvent::Peer(e));
            }
            PeerEvent::Restarted { peer, node }
            | PeerEvent::Failed { peer, node }
            | PeerEvent::Released { peer, node }
            | PeerEvent::NotAssociated { peer, node } => {
                let (peer, node) = (*peer, node.clone());
                if matches!(e, PeerEvent::Restarted { .. } | PeerEvent::Failed { .. }) {
                    // A restarted or failed peer: its outstanding transactions fail (6.2.2).
                    self.xact.fail_peer(peer);
                }
                if let Some(p) = self.peers.record_at_mut(&peer) {
                    if matches!(e, PeerEvent::Released { .. }) {
                        // The peer ended it on purpose (6.2.8): not set up again.
                        p.kept = None;
                    }
                    p.heartbeat = None;
                }
                // What was learned from it is reset (6.2.4.3.2: a restart resets sequencing),
                // unless another address of the same node is still associated: a release or
                // failure of one of a node's addresses must not drop the node's state.
                let key = node.clone().unwrap_or(NodeKey::Ip(peer.ip()));
                let restarted = matches!(e, PeerEvent::Restarted { .. });
                let node_alive = self
                    .peers
                    .associated()
                    .any(|(a, p)| *a != peer && p.node.as_ref() == Some(&key));
                let sessions = if node_alive && !restarted {
                    info!(event = ?e, "peer event (node still associated elsewhere)");
                    self.sessions.take_peer(peer, None)
                } else {
                    let link = self.peers.record_at_mut(&peer).and_then(|p| p.up.take());
                    if let (Some(cp), Some(link)) = (self.cp.as_mut(), link) {
                        cp.forget(*link);
                    }
                    self.settle_holds(now);
                    if !matches!(e, PeerEvent::Released { .. }) {
                        // Restarted, stopped answering heartbeats, or no longer associated:
                        // its sessions are gone through a failure, and re-establishing them
                        // is the restoration C.2 ranks lower. A release is planned (6.2.8).
                        self.track_restart(&key, now);
                    }
                    if let Some(adm) = self.admission.as_mut() {
                        adm.remove_peer(&key);
                    }
                    info!(event = ?e, "peer event");
                    self.sessions.take_peer(peer, Some(&key))
                };
                self.events.push_back(NodeEvent::Peer(e));
                if !sessions.is_empty() {
                    self.stats.sessions_lost += sessions.len() as u64;
                    info!(%peer, lost = sessions.len(), "sessions lost with the peer");
                    self.events
                        .push_back(NodeEvent::Peer(PeerEvent::SessionsLost {
                            peer,
                            node,
                            sessions,
                        }));
                }
                // The record stays, idle, with what it counted (its report egress throttle)
                // until a new peer needs its place.
                if self
                    .peers
                    .record_at(&peer)
                    .is_some_and(|p| p.kept.is_some())
                {
                    self.reassociate(peer, now);
                }
                self.drain_xact(now);
            }
            _ => {
                self.events.push_back(NodeEvent::Peer(e));
            }
        }
    }
}

/// A message from a header (with its sequence number) and pre-encoded IEs.
/// A message from a header (with its sequence number), pre-encoded IEs, and the LCI and OCI
/// this UP function adds to its Session Report Request.
fn encode_with(
    header: &Header,
    ies: &[u8],
    extra: Option<(
        Option<LoadControlInformation>,
        Option<OverloadControlInformation>,
    )>,
) -> Result<Bytes, pfcp_wire::EncodeError> {
    let mut out = BytesMut::with_capacity(header.encoded_len() + ies.len() + 32);
    let mut w = MessageWriter::begin(&mut out, header)?;
    w.raw_ies(ies)?;
    if let Some((lci, oci)) = extra {
        if let Some(lci) = &lci {
            w.ie(lci)?;
        }
        if let Some(oci) = &oci {
            w.ie(oci)?;
        }
    }
    w.finish()?;
    Ok(out.freeze())
}
