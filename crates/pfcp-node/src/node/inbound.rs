//! Datagrams in: the guard, the transaction layer's intake, node messages, the checks of
//! clauses 6.2.6.1 and 7.6, the UP's admission, and the delivery of requests to the
//! application.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::{
    Cause, DecodeError, DecodeErrorKind, Header, Message, MessageType, SequenceNumber,
};
use tracing::{debug, warn};

use super::{IncomingRequest, Node, NodeEvent, RequestRef, MAX_BACKLOG};
use crate::admission::Admit;
use crate::peer;
use crate::xact::{message_octets, Accepted, Transmit};

impl Node {
    /// One UDP payload received from `from` at `now`. FO bundles are unpacked; responses are
    /// matched to this node's requests; requests are answered by the node (node messages,
    /// errors, Cause 72 and 74) or, through the UP's admission, delivered as
    /// [`NodeEvent::Request`].
    pub fn handle_datagram(&mut self, from: SocketAddr, payload: Bytes, now: Instant) {
        self.stats.datagrams_received += 1;
        // Responses pass the guard: refusing one would stall the request it answers for T1.
        let is_response = payload
            .get(1)
            .is_some_and(|&ty| !MessageType(ty).is_request() && MessageType(ty).is_known());
        if !is_response {
            let associated = self.peers.is_associated(&from);
            if !self.guard.admit(from, associated, now) {
                self.stats.datagrams_dropped_by_guard += 1;
                return;
            }
        }
        if payload.get(1) == Some(&MessageType::HEARTBEAT_REQUEST.0)
            && self.backlog.len() < MAX_BACKLOG
        {
            // A lone Heartbeat Request is answered afresh, past the transaction layer: its
            // answer is the same for a retransmission (clause 6.2.2.2; restart detection
            // sees the same stamp again), so nothing is gained by remembering it, and a
            // peer's heartbeats, however many, neither evict the cached responses of session
            // requests nor take room among the requests in progress. Anything else (FO
            // bundles, malformed) takes the general path.
            if let Ok(msg) = Message::decode(&payload) {
                self.on_heartbeat(from, &msg, now);
                return;
            }
        }
        if let Some(mut intake) = self.xact.intake(from, &payload) {
            // The messages come decoded from the intake: nothing below decodes them again.
            while let Some(accepted) = self.xact.next_accepted(&mut intake, now) {
                match accepted {
                    Accepted::Request { sequence, message } => {
                        // A datagram is nearly always one message: then it is the request, and
                        // no slice (which would make the buffer shared: an allocation) is taken.
                        let part;
                        let bytes = if message.as_bytes().len() == payload.len() {
                            &payload
                        } else {
                            part = message_octets(&payload, &message);
                            &part
                        };
                        self.on_request(from, sequence, &message, bytes, now);
                    }
                    Accepted::Response {
                        id,
                        message,
                        transmissions,
                    } => {
                        let bytes = message_octets(&payload, &message);
                        self.on_response(id, from, &message, bytes, transmissions, now);
                    }
                }
            }
        }
        self.drain_xact(now);
    }

    /// A Heartbeat Request answered without the transaction layer (see
    /// [`Node::handle_datagram`]).
    fn on_heartbeat(&mut self, peer: SocketAddr, msg: &Message<'_>, now: Instant) {
        self.stats.heartbeats_answered += 1;
        match self.peers.handle_request(&self.local, peer, msg, now) {
            Some(Ok(a)) => {
                if let Some(bytes) = a.response {
                    let bytes = self.heartbeat_lci(peer, bytes, MessageType::HEARTBEAT_RESPONSE);
                    self.backlog.push_back(Transmit { peer, bytes });
                    // It counts in the connection's egress rate like every answer.
                    self.count_egress(peer, pfcp_throttle::MessageKind::Answer, now);
                }
                for e in a.events {
                    self.on_peer_event(e, now);
                }
            }
            Some(Err(e)) => warn!(%peer, error = %e, "heartbeat response not built"),
            None => {}
        }
        self.read_heartbeat_lci(peer, msg, now);
    }

    fn on_request(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        msg: &Message<'_>,
        bytes: &Bytes,
        now: Instant,
    ) {
        let message_type = msg.message_type();
        if let Some(answer) = self.peers.handle_request(&self.local, peer, msg, now) {
            match answer {
                Ok(a) => {
                    if let Some(r) = a.response {
                        self.send_own_response(
                            peer,
                            sequence,
                            message_type.response_type(),
                            r,
                            now,
                        );
                    }
                    for e in a.events {
                        self.on_peer_event(e, now);
                    }
                }
                Err(e) => warn!(%peer, error = %e, "node response not built"),
            }
            return;
        }
        // Unknown message types are discarded silently (7.6.1).
        if !message_type.is_known() {
            return;
        }
        // One walk over the IEs: the receiver's verdict and what the node reads.
        let view = msg.view();
        let reference = match &view {
            Ok(v) => self.request_ref_with(peer, msg, v.f_seid),
            Err(_) => self.request_ref(peer, msg),
        };
        let view = match view {
            Ok(v) => v,
            Err(e) => {
                let cp_seid = self.answer_seid(&reference);
                if let Ok(Some(r)) = peer::error_response(&self.local, &e, cp_seid) {
                    self.stats.requests_rejected += 1;
                    self.send_own_response(peer, sequence, message_type.response_type(), r, now);
                }
                return;
            }
        };
        if message_type.is_session() == Some(true) && !self.peers.is_associated(&peer) {
            // Clause 6.2.6.1: session messages need an established association.
            self.stats.rejected_no_association += 1;
            if let Err(e) = self.reject(&reference, Cause::NO_ESTABLISHED_PFCP_ASSOCIATION, now) {
                warn!(%peer, error = %e, "rejection not sent");
            }
            return;
        }
        // A Session Report Request from a UP carries its OCI/LCI like a response does; it
        // belongs to the entity of the session's UP F-SEID (clause 6.2.4.3.1).
        if message_type == MessageType::SESSION_REPORT_REQUEST && self.cp.is_some() {
            let entity = reference
                .seid
                .and_then(|s| self.sessions.get(s))
                .and_then(|s| s.remote_ip)
                .unwrap_or(peer.ip());
            let node = self.node_of(peer);
            if let (Some(cp), Some(record)) = (self.cp.as_mut(), self.peers.record_at_mut(&peer)) {
                let link = record
                    .up
                    .get_or_insert_with(|| Box::new(cp.link(&node, now)));
                cp.handle_view(link, Some(entity), &view, now);
            }
        }
        let node = self.peers.get(&peer).and_then(|p| p.node.clone());
        let trust = self.priority.trust_received;
        if let Some(adm) = self.admission.as_mut() {
            if let Ok(mut req) = adm.request_from(peer, bytes.clone(), node.clone()) {
                if !trust {
                    req.priority = adm.default_priority();
                }
                match adm.offer(req, now) {
                    Admit::Queued { evicted } => {
                        if let Some(ev) = evicted {
                            self.reject_queued(&ev, now);
                        }
                    }
                    Admit::Rejected { request, .. } => self.reject_queued(&request, now),
                    Admit::Bypass(_) => self.deliver(reference, bytes.clone(), node),
                }
                self.serve_ready(now);
                return;
            }
        }
        self.deliver(reference, bytes.clone(), node);
    }

    /// What answering `msg` from `peer` needs.
    pub(super) fn request_ref(&self, peer: SocketAddr, msg: &Message<'_>) -> RequestRef {
        self.request_ref_with(peer, msg, msg.f_seid().ok().flatten())
    }

    /// [`Node::request_ref`] with the message's F-SEID already read.
    fn request_ref_with(
        &self,
        peer: SocketAddr,
        msg: &Message<'_>,
        f_seid: Option<pfcp_wire::ie::FSeid>,
    ) -> RequestRef {
        let h = msg.header();
        let cp_f_seid =
            f_seid.filter(|_| h.message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST);
        RequestRef {
            peer,
            sequence: h.sequence,
            message_type: h.message_type,
            priority: h.priority,
            seid: h.seid,
            cp_f_seid,
        }
    }

    /// Hand a request to the application.
    fn deliver(
        &mut self,
        reference: RequestRef,
        bytes: Bytes,
        node: Option<pfcp_overload::NodeKey>,
    ) {
        self.stats.requests_delivered += 1;
        let remote_seid = reference
            .seid
            .and_then(|s| self.sessions.get(s))
            .map(|s| s.remote_seid);
        self.events.push_back(NodeEvent::Request(IncomingRequest {
            reference,
            bytes,
            node,
            remote_seid,
        }));
    }

    /// Deliver what the UP's service model allows now, and reject what waited too long.
    pub(super) fn serve_ready(&mut self, now: Instant) {
        loop {
            let Some(adm) = self.admission.as_mut() else {
                return;
            };
            if let Some(expired) = adm.poll_expired() {
                self.reject_queued(&expired, now);
                continue;
            }
            let Some(req) = adm.poll_ready(now) else {
                return;
            };
            // Decoded again: only what is served (at the service rate) pays for it.
            match Message::decode(&req.bytes) {
                Ok(msg) => {
                    let reference = self.request_ref(req.peer, &msg);
                    self.deliver(reference, req.bytes.clone(), req.node.clone());
                }
                Err(e) => debug!(peer = %req.peer, error = %e, "queued request no longer decodes"),
            }
        }
    }

    pub(super) fn on_malformed(&mut self, peer: SocketAddr, error: &DecodeError, now: Instant) {
        self.stats.malformed += 1;
        if let DecodeErrorKind::UnsupportedVersion { .. } = error.kind {
            // Clause 7.6.2: answer with Version Not Supported Response (header only).
            let mut out = BytesMut::with_capacity(8);
            let seq = error.header.map(|h| h.sequence).unwrap_or_default();
            let h = Header::new(MessageType::VERSION_NOT_SUPPORTED_RESPONSE).with_sequence(seq);
            if let Ok(w) = MessageWriter::begin(&mut out, &h) {
                if w.finish().is_ok() && self.backlog.len() < MAX_BACKLOG {
                    self.count_egress(peer, pfcp_throttle::MessageKind::Answer, now);
                    self.backlog.push_back(Transmit {
                        peer,
                        bytes: out.freeze(),
                    });
                }
            }
            return;
        }
        let cp_seid = error.header.and_then(|h| h.seid);
        if let (Ok(Some(r)), Some(h)) = (
            peer::error_response(&self.local, error, cp_seid),
            error.header,
        ) {
            self.stats.requests_rejected += 1;
            self.send_own_response(peer, h.sequence, h.message_type.response_type(), r, now);
        }
    }
}
