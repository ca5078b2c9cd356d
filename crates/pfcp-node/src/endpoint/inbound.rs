//! The driver's inbound half: datagrams from the socket, the requests they carry (answered by
//! the endpoint, rejected, queued by admission, or handed to the application's handler or
//! channel) and the responses that go back. Split from `driver.rs`, which keeps the shared
//! state, the task and the timers; the requests this node sends are in `outbound.rs`.
//!
//! Every response to a request goes out through one of two functions: [`Driver::respond`]
//! for the answers the endpoint builds itself, and [`Driver::respond_app`] for the
//! application's, from its handler or its channel alike, so that OCI/LCI piggybacking, the
//! report egress accounting and the response cache apply to both in the same way.

use super::*;
use crate::xact::{message_octets, Accepted};
use tracing::warn;

impl Driver {
    pub(super) fn on_datagram(&mut self, from: SocketAddr, payload: Bytes, t: Instant) {
        // Responses are not rate-guarded: they only count if they match a request this node
        // sent (the transaction layer discards the rest cheaply), and dropping one would only
        // stall that request for T1. Requests and anything unreadable pass the guard.
        let is_response = payload
            .get(1)
            .is_some_and(|&ty| !MessageType(ty).is_request() && MessageType(ty).is_known());
        if !is_response && !self.guard.admit(from, t) {
            return;
        }
        metrics::counter!("pfcp_datagrams_received_total").increment(1);
        let Some(mut intake) = self.xact.intake(from, &payload) else {
            return;
        };
        // The messages come decoded from the intake: nothing below decodes them again.
        while let Some(accepted) = self.xact.next_accepted(&mut intake, t) {
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
                    self.on_request(from, sequence, &message, bytes, t);
                }
                Accepted::Response {
                    id,
                    message,
                    transmissions: _,
                } => {
                    let bytes = message_octets(&payload, &message);
                    self.on_response(id, from, Some(&message), bytes, t);
                }
            }
        }
    }

    pub(super) fn on_request(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        msg: &Message<'_>,
        bytes: &Bytes,
        t: Instant,
    ) {
        let message_type = msg.message_type();
        if let Some(answer) = self.peers.handle_request(&self.local, peer, msg, t) {
            match answer {
                Ok(a) => {
                    if let Some(r) = a.response {
                        self.respond(peer, sequence, message_type.response_type(), r, t);
                    }
                    for e in a.events {
                        self.on_peer_event(e);
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
        if let Err(e) = msg.validate() {
            if let Ok(Some(r)) = peer::error_response(&self.local, &e, cp_seid(msg)) {
                self.respond(peer, sequence, message_type.response_type(), r, t);
            }
            return;
        }
        if message_type.is_session() == Some(true) && !self.peers.is_associated(&peer) {
            // Clause 6.2.6.1: session messages need an established association.
            metrics::counter!("pfcp_requests_rejected_total", "cause" => "72").increment(1);
            if let Some(Ok(r)) = self.rejection(msg, Cause::NO_ESTABLISHED_PFCP_ASSOCIATION) {
                self.respond(peer, sequence, message_type.response_type(), r, t);
            }
            return;
        }
        // A Session Report Request from a UP carries its OCI/LCI like a response does.
        if let Some(cp) = self.cp.as_mut() {
            if message_type == MessageType::SESSION_REPORT_REQUEST {
                let node = self
                    .peers
                    .get(&peer)
                    .and_then(|p| p.node.clone())
                    .unwrap_or(NodeKey::Ip(peer.ip()));
                let _ = cp.handle_response(&Destination::entity(node, peer.ip()), msg, t);
            }
        }
        if let Some(adm) = self.admission.as_mut() {
            let node = self.peers.get(&peer).and_then(|p| p.node.clone());
            if let Ok(req) = adm.request_from(peer, bytes.clone(), node) {
                match adm.offer(req, t) {
                    Admit::Queued { evicted } => {
                        if let Some(ev) = evicted {
                            self.reject_admission(ev, t);
                        }
                    }
                    Admit::Rejected { request, .. } => self.reject_admission(request, t),
                    Admit::Bypass(_) => self.deliver(peer, sequence, bytes, Some(msg), t),
                }
                self.serve_ready(t);
                return;
            }
        }
        self.deliver(peer, sequence, bytes, Some(msg), t);
    }

    /// Hand a request to the application: its handler first, if it has one, then its channel;
    /// when the channel is full, refuse with Cause 74 rather than queue without bound. `msg`
    /// is the decoded request when the caller has it (requests that waited in the admission
    /// queue are decoded again, here, only if there is a handler).
    fn deliver(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        bytes: &Bytes,
        msg: Option<&Message<'_>>,
        t: Instant,
    ) {
        if self.handler.is_some() {
            let decoded;
            let msg = match msg {
                Some(m) => Some(m),
                None => {
                    decoded = Message::decode(bytes).ok();
                    decoded.as_ref()
                }
            };
            if let Some(msg) = msg {
                let view = RequestView {
                    peer,
                    sequence,
                    message: msg,
                    bytes,
                    peers: &self.peers,
                };
                let reply = match self.handler.as_mut() {
                    Some(h) => h.handle(&view),
                    None => HandlerReply::Defer,
                };
                match reply {
                    HandlerReply::Respond(r) => return self.respond_app(peer, sequence, r, t),
                    HandlerReply::Reject(cause) => {
                        match self.rejection(msg, cause) {
                            Some(Ok(r)) => self.respond_app(peer, sequence, r, t),
                            Some(Err(e)) => warn!(%peer, error = %e, "rejection not built"),
                            None => {}
                        }
                        return;
                    }
                    HandlerReply::Defer => {}
                }
            }
        }
        let incoming = Incoming {
            peer,
            sequence,
            bytes: bytes.clone(),
            shared: self.shared.clone(),
        };
        if self.incoming.try_send(incoming).is_ok() {
            return;
        }
        metrics::counter!("pfcp_requests_rejected_total", "cause" => "74").increment(1);
        if let Some(adm) = self.admission.as_ref() {
            // A UP function with admission says how overloaded it is (OCI/LCI).
            if let Ok(req) = adm.request_from(peer, bytes.clone(), None) {
                self.reject_admission(req, t);
            }
        } else if let Some(msg) = msg {
            let rt = msg.message_type().response_type();
            if let Some(Ok(r)) = self.rejection(msg, Cause::PFCP_ENTITY_IN_CONGESTION) {
                self.respond(peer, sequence, rt, r, t);
            }
        }
    }

    /// The minimal rejection of `msg` with `cause`: `None` if it has no response type.
    fn rejection(
        &self,
        msg: &Message<'_>,
        cause: Cause,
    ) -> Option<Result<Bytes, pfcp_wire::EncodeError>> {
        let h = msg.header();
        h.message_type.response_type().map(|rt| {
            peer::session_or_node_rejection(
                &self.local,
                rt,
                h.sequence,
                cp_seid(msg),
                h.priority,
                cause,
                None,
            )
        })
    }

    /// Dequeue what the UP's service model allows now, and reject what waited too long.
    pub(super) fn serve_ready(&mut self, t: Instant) {
        loop {
            let Some(adm) = self.admission.as_mut() else {
                return;
            };
            if let Some(expired) = adm.poll_expired() {
                self.reject_admission(expired, t);
                continue;
            }
            match adm.poll_ready(t) {
                Some(req) => self.deliver(req.peer, req.sequence, &req.bytes, None, t),
                None => return,
            }
        }
    }

    /// Answer a request refused by the UP's admission with Cause 74 and the OCI/LCI.
    fn reject_admission(&mut self, req: QueuedRequest, t: Instant) {
        let Some(adm) = self.admission.as_mut() else {
            return;
        };
        let rt = req.message_type.response_type();
        let key = req.peer_key();
        let (oci, lci) = match rt {
            Some(rt) => (
                adm.oci_for(&key, rt, Some(Cause::PFCP_ENTITY_IN_CONGESTION), t),
                adm.lci_for(&key, rt),
            ),
            None => (None, None),
        };
        match adm.build_rejection(&req, oci, lci) {
            Ok(r) => self.respond(req.peer, req.sequence, rt, r, t),
            Err(e) => warn!(peer = %req.peer, error = %e, "rejection not built"),
        }
    }

    /// Send a response the endpoint built itself, of type `rt` with the request's sequence
    /// number (so the transaction layer need not decode it); `None`: unknown, decode it.
    fn respond(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        rt: Option<MessageType>,
        bytes: Bytes,
        t: Instant,
    ) {
        let sent = match rt {
            Some(rt) => self
                .xact
                .send_response_parts(peer, sequence, rt, sequence, bytes, t),
            None => self.xact.send_response(peer, sequence, bytes, t),
        };
        if let Err(e) = sent {
            warn!(%peer, error = %e, "response not sent");
        }
    }

    /// Send the application's response (from its handler or its channel): decoded once here
    /// for the checks of the transaction layer and the piggybacking, then the UP's OCI/LCI
    /// appended when due, counted by the report egress throttle, cached for duplicates.
    pub(super) fn respond_app(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        bytes: Bytes,
        t: Instant,
    ) {
        let (message_type, found, extra) = match Message::decode(&bytes) {
            Ok(m) if m.header().follow_on => {
                warn!(%peer, error = %crate::xact::XactError::FollowOn, "response not sent");
                return;
            }
            Ok(m) => (
                m.message_type(),
                m.header().sequence,
                self.piggyback(peer, &m, t),
            ),
            Err(e) => {
                let error = crate::xact::XactError::InvalidMessage(e);
                warn!(%peer, %error, "response not sent");
                return;
            }
        };
        let bytes = match extra {
            Some((lci, oci)) => append_ies(&bytes, lci, oci).unwrap_or(bytes),
            None => bytes,
        };
        // Only a UP function with report egress throttles has any (no hashing otherwise).
        if !self.report_throttles.is_empty() {
            if let Some(th) = self.report_throttles.get_mut(&peer) {
                th.on_send(pfcp_throttle::MessageKind::Answer, t);
            }
        }
        let sent = self
            .xact
            .send_response_parts(peer, sequence, message_type, found, bytes, t);
        if let Err(e) = sent {
            warn!(%peer, error = %e, "response not sent");
        }
    }

    /// This UP's OCI/LCI for an application's response when the inclusion policy says so
    /// (messages 51, 53, 55; clause 6.2.3.3, 6.2.4.3); `None` if nothing is to be appended.
    fn piggyback(
        &mut self,
        peer: SocketAddr,
        msg: &Message<'_>,
        t: Instant,
    ) -> Option<(
        Option<pfcp_wire::ie::LoadControlInformation>,
        Option<pfcp_wire::ie::OverloadControlInformation>,
    )> {
        let adm = self.admission.as_mut()?;
        let ty = msg.message_type();
        if !ty.may_carry_oci()
            || msg
                .find(pfcp_wire::IeType::OVERLOAD_CONTROL_INFORMATION)
                .is_some()
        {
            return None;
        }
        let cause = msg.cause().ok().flatten();
        let key = self
            .peers
            .get(&peer)
            .and_then(|p| p.node.clone())
            .unwrap_or(NodeKey::Ip(peer.ip()));
        let oci = adm.oci_for(&key, ty, cause, t);
        let lci = adm.lci_for(&key, ty);
        (oci.is_some() || lci.is_some()).then_some((lci, oci))
    }

    pub(super) fn on_malformed(
        &mut self,
        peer: SocketAddr,
        error: &pfcp_wire::DecodeError,
        t: Instant,
    ) {
        metrics::counter!("pfcp_malformed_total").increment(1);
        if let DecodeErrorKind::UnsupportedVersion { .. } = error.kind {
            // Clause 7.6.2: answer with Version Not Supported Response (header only).
            let mut out = BytesMut::with_capacity(8);
            let seq = error.header.map(|h| h.sequence).unwrap_or_default();
            let h = Header::new(MessageType::VERSION_NOT_SUPPORTED_RESPONSE).with_sequence(seq);
            if let Ok(w) = MessageWriter::begin(&mut out, &h) {
                if w.finish().is_ok() && self.backlog.len() < super::driver::MAX_BACKLOG {
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
            self.respond(peer, h.sequence, h.message_type.response_type(), r, t);
        }
    }
}

/// The CP's SEID for a response to `msg`: from the CP F-SEID of a Session Establishment
/// Request (the header's SEID is 0 there), from the header otherwise.
fn cp_seid(msg: &Message<'_>) -> Option<u64> {
    if msg.message_type() == MessageType::SESSION_ESTABLISHMENT_REQUEST {
        msg.f_seid().ok().flatten().map(|f| f.seid)
    } else {
        msg.header().seid
    }
}

/// `message` with the LCI and OCI appended and the Message Length patched (IE order is free,
/// clause 8.1.2).
fn append_ies(
    message: &[u8],
    lci: Option<pfcp_wire::ie::LoadControlInformation>,
    oci: Option<pfcp_wire::ie::OverloadControlInformation>,
) -> Option<Bytes> {
    use pfcp_wire::Encode;
    let extra = lci.encoded_len() + oci.encoded_len();
    let mut out = BytesMut::with_capacity(message.len() + extra);
    out.extend_from_slice(message);
    lci.encode(&mut out).ok()?;
    oci.encode(&mut out).ok()?;
    let len = u16::try_from(out.len().checked_sub(4)?).ok()?;
    out.get_mut(2..4)?.copy_from_slice(&len.to_be_bytes());
    Some(out.freeze())
}
