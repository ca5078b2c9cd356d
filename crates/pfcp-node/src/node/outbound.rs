//! Requests out and what becomes of them: the application's requests (through the CP's
//! overload control or the UP's report egress throttle), associations and heartbeats, their
//! responses and timeouts, and what a peer's state change sets off (resets, lost sessions,
//! re-association).

use std::net::SocketAddr;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use pfcp_overload::NodeKey;
use pfcp_throttle::MessageKind;
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::{Cause, DecodeError, Header, Message, MessageType};
use tracing::{debug, info, warn};

use super::{
    HeldRequest, Kept, Node, NodeEvent, Outstanding, Purpose, RequestError, RequestId,
    RequestProfile, Response, ResponseOrigin,
};
use crate::cp::{CpDecision, Destination, RejectReason};
use crate::peer::{self, PeerEvent};
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
        let mut exempt = false;
        let decision = if self.cp.is_some() {
            let entity = profile.entity.or_else(|| {
                header
                    .seid
                    .and_then(|s| self.sessions.by_remote(peer, s))
                    .and_then(|s| s.remote_ip)
            });
            let d = Destination {
                node: self.node_of(peer),
                entity,
            };
            // The profile's C.2 facts over the tracker's (module `state`).
            let (ctx, session) = self.request_context(peer, &header, ies, profile, now);
            tracked = session.map(|s| (s, profile.ue));
            let draw = self.draw();
            self.cp.as_mut().map(|cp| {
                let decision = if profile.redirectable {
                    cp.decide_redirectable(&d, message_type, &ctx, now, draw)
                } else {
                    cp.decide(&d, message_type, &ctx, now, draw)
                };
                // Kept with the transaction of a request that goes: the UP function refusing
                // a priority request tells the pipeline its priority traffic does not fit.
                if !matches!(decision, CpDecision::Reject { .. }) {
                    exempt = cp.classify(message_type, &ctx).class.exempt;
                }
                decision
            })
        } else {
            None
        };
        let mut dest = None;
        if let Some(decision) = decision {
            let (to, priority) = match decision {
                CpDecision::Send { priority, dest } => (dest, priority),
                CpDecision::Redirect { to, priority } => match self.node_addrs.get(&to.node) {
                    Some(addr) => {
                        peer = *addr;
                        info!(%peer, dest = %to, "request redirected");
                        (to, priority)
                    }
                    None => {
                        if let Some(cp) = self.cp.as_mut() {
                            cp.transaction_ended(&to);
                        }
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
        let encoded = encode_with(&header.with_sequence(seq), ies).map(|b| {
            if message_type == MessageType::SESSION_REPORT_REQUEST {
                self.piggyback_report(peer, b, now)
            } else {
                b
            }
        });
        let sent = encoded.map_err(RequestError::from).and_then(|b| {
            let f_seid = if message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST {
                Message::decode(&b)
                    .ok()
                    .and_then(|m| m.f_seid().ok().flatten())
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
                    },
                );
                Ok(id)
            }
            Err(e) => {
                if let (Some(cp), Some(d)) = (self.cp.as_mut(), dest) {
                    cp.transaction_ended(&d);
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
            self.kept.entry(peer).or_default();
        }
        let tx = self.send_setup(peer, Purpose::Associate(Some(id)), now)?;
        if let Some(k) = self.kept.get_mut(&peer) {
            k.attempt = Some(tx);
            k.next = None;
        }
        Ok(id)
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
        self.kept.contains_key(peer) && !self.peers.is_associated(peer)
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
            },
        );
        Ok(tx)
    }

    /// Send the next Association Setup Request of a kept association that is down (the
    /// previous one, if still outstanding, is abandoned: the peer is answering nothing).
    pub(super) fn reassociate(&mut self, peer: SocketAddr, now: Instant) {
        let Some(k) = self.kept.get(&peer).copied() else {
            return;
        };
        if self.peers.is_associated(&peer) {
            if let Some(k) = self.kept.get_mut(&peer) {
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
        self.kept.insert(peer, Kept { attempt, next });
        info!(%peer, "setting the association up again");
    }

    /// The response `msg` (octets `bytes`) to this node's request `tx` from `peer`.
    pub(super) fn on_response(
        &mut self,
        tx: TxId,
        peer: SocketAddr,
        msg: &Message<'_>,
        bytes: Bytes,
        transmissions: u32,
        now: Instant,
    ) {
        let Some(o) = self.outstanding.remove(&tx) else {
            debug!(%peer, "response for an abandoned request");
            return;
        };
        if o.report {
            self.report_ended(&peer);
        }
        if let (Some(cp), Some(dest)) = (self.cp.as_mut(), o.dest.as_ref()) {
            // An establishment's UP F-SEID names the entity for the OCI it carries.
            let from = if o.message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST {
                Destination::node(dest.node.clone())
            } else {
                dest.clone()
            };
            let _ = cp.handle_response(&from, msg, now);
            cp.transaction_ended(dest);
        }
        let cause = msg.cause().ok().flatten();
        if o.exempt && cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION) {
            if let (Some(cp), Some(dest)) = (self.cp.as_mut(), o.dest.as_ref()) {
                cp.exempt_refused(&dest.node, now);
            }
        }
        let accepted = cause.and_then(Cause::is_acceptance) == Some(true);
        if accepted {
            self.record_sent_session(&o, peer, msg);
            let (session, ue) = match o.tracked {
                Some((s, ue)) => (Some(s), ue),
                None => (None, None),
            };
            // An establishment without a tracker key yet: its CP F-SEID's SEID.
            let session = session.or(o.f_seid.map(|f| f.seid));
            self.track_accepted(o.message_type, session, ue, peer, now);
        }
        match o.purpose {
            Purpose::App(id) => {
                if cause == Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION) {
                    self.lost_association(peer, now);
                }
                self.events
                    .push_back(answered(id, peer, bytes, cause, transmissions));
            }
            Purpose::Associate(id) => {
                for e in self.peers.handle_setup_response(peer, msg, now) {
                    self.on_peer_event(e, now);
                }
                if let Some(k) = self.kept.get_mut(&peer) {
                    if k.attempt == Some(tx) {
                        k.attempt = None;
                        if self.peers.is_associated(&peer) {
                            k.next = None;
                        }
                    }
                }
                if let Some(id) = id {
                    self.events
                        .push_back(answered(id, peer, bytes, cause, transmissions));
                }
            }
            Purpose::Heartbeat(id) => {
                if self.heartbeats.get(&peer) == Some(&tx) {
                    self.heartbeats.remove(&peer);
                }
                if let Some(e) = self.peers.handle_heartbeat_response(peer, msg, now) {
                    self.on_peer_event(e, now);
                }
                self.read_heartbeat_lci(peer, msg, now);
                if let Some(id) = id {
                    self.events
                        .push_back(answered(id, peer, bytes, cause, transmissions));
                }
            }
        }
    }

    pub(super) fn on_request_timeout(
        &mut self,
        tx: TxId,
        peer: SocketAddr,
        transmissions: u32,
        now: Instant,
    ) {
        let Some(o) = self.outstanding.remove(&tx) else {
            debug!(%peer, "timeout for an abandoned request");
            return;
        };
        self.request_over(&o, peer);
        match o.purpose {
            Purpose::App(id) => self.events.push_back(NodeEvent::Outcome {
                id,
                result: Err(RequestError::Timeout { transmissions }),
            }),
            Purpose::Associate(id) => {
                if let Some(id) = id {
                    self.events.push_back(NodeEvent::Outcome {
                        id,
                        result: Err(RequestError::Timeout { transmissions }),
                    });
                }
                if let Some(k) = self.kept.get_mut(&peer) {
                    if k.attempt == Some(tx) {
                        k.attempt = None;
                        if k.next.is_none() {
                            k.next = Some(now);
                        }
                    }
                }
            }
            Purpose::Heartbeat(id) => {
                if self.heartbeats.get(&peer) == Some(&tx) {
                    self.heartbeats.remove(&peer);
                }
                if let Some(id) = id {
                    self.events.push_back(NodeEvent::Outcome {
                        id,
                        result: Err(RequestError::Timeout { transmissions }),
                    });
                }
                // Path failure: the peer stopped answering (6.2.2).
                if self.peers.is_associated(&peer) {
                    if let Some(e) = self.peers.fail(peer) {
                        self.on_peer_event(e, now);
                    }
                }
            }
        }
    }

    pub(super) fn on_malformed_response(
        &mut self,
        tx: TxId,
        peer: SocketAddr,
        error: DecodeError,
        transmissions: u32,
        now: Instant,
    ) {
        let Some(o) = self.outstanding.remove(&tx) else {
            return;
        };
        self.request_over(&o, peer);
        match o.purpose {
            Purpose::App(id) | Purpose::Associate(Some(id)) | Purpose::Heartbeat(Some(id)) => {
                self.events.push_back(NodeEvent::Outcome {
                    id,
                    result: Err(RequestError::MalformedResponse(error)),
                });
            }
            _ => {}
        }
        let _ = (transmissions, now);
    }

    /// Free what an outstanding request held in the throttles.
    fn request_over(&mut self, o: &Outstanding, peer: SocketAddr) {
        if o.report {
            self.report_ended(&peer);
        }
        if let (Some(cp), Some(dest)) = (self.cp.as_mut(), o.dest.as_ref()) {
            cp.transaction_ended(dest);
        }
    }

    /// An associated peer answered Cause 72: it no longer knows the association.
    fn lost_association(&mut self, peer: SocketAddr, now: Instant) {
        if let Some(e) = self.peers.lost(peer) {
            self.on_peer_event(e, now);
        }
    }

    /// Act on a peer's state change, then report it (and the sessions it took along).
    pub(super) fn on_peer_event(&mut self, e: PeerEvent, now: Instant) {
        match &e {
            PeerEvent::Associated { peer, node } => {
                self.node_addrs.insert(node.clone(), *peer);
                if let Some(cp) = self.cp.as_mut() {
                    // Counted by address until the association named the UP function.
                    cp.rekey_peer(&NodeKey::Ip(peer.ip()), node);
                }
                let features = self.peers.get(peer).and_then(|p| p.cp_features);
                if let (Some(adm), Some(f)) = (self.admission.as_mut(), features) {
                    adm.set_peer_features(node.clone(), &f);
                }
                if let Some(k) = self.kept.get_mut(peer) {
                    k.next = None;
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
                if matches!(e, PeerEvent::Released { .. }) {
                    // The peer ended it on purpose (6.2.8): not set up again.
                    self.kept.remove(&peer);
                }
                self.heartbeats.remove(&peer);
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
                    if let Some(cp) = self.cp.as_mut() {
                        cp.reset_peer(&key);
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
                if self.kept.contains_key(&peer) {
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

/// The outcome of request `id`: the peer's response.
fn answered(
    id: RequestId,
    peer: SocketAddr,
    bytes: Bytes,
    cause: Option<Cause>,
    transmissions: u32,
) -> NodeEvent {
    NodeEvent::Outcome {
        id,
        result: Ok(Response {
            peer,
            bytes,
            cause,
            origin: ResponseOrigin::Peer,
            transmissions,
        }),
    }
}

/// A message from a header (with its sequence number) and pre-encoded IEs.
fn encode_with(header: &Header, ies: &[u8]) -> Result<Bytes, pfcp_wire::EncodeError> {
    let mut out = BytesMut::with_capacity(header.encoded_len() + ies.len());
    let mut w = MessageWriter::begin(&mut out, header)?;
    w.raw_ies(ies)?;
    w.finish()?;
    Ok(out.freeze())
}
