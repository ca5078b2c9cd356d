//! Answers to requests: the application's responses (with the request's priority, the UP's
//! OCI/LCI, the session table kept), the node's rejections (Cause 72, 74 with OCI/LCI, the
//! application's causes), and the responses a CP generates locally in place of the UP's.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use pfcp_overload::NodeKey;
use pfcp_throttle::MessageKind;
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::header::{FLAG_MP, FLAG_S};
use pfcp_wire::ie::{LoadControlInformation, OverloadControlInformation};
use pfcp_wire::presence::mandatory_ies;
use pfcp_wire::{
    Cause, Encode, EncodeError, Header, IeType, Message, MessagePriority, MessageType,
    SequenceNumber,
};
use tracing::warn;

use super::{Node, NodeEvent, RequestId, RequestRef, Response, ResponseOrigin};
use crate::admission::{QueuedRequest, WhenFull};
use crate::peer;
use crate::session::Session;
use crate::xact::XactError;

/// Octet 16 of a session header: message priority in bits 8-5 (clause 7.2.2.3).
const PRIORITY_OCTET: usize = 15;

impl Node {
    /// Send the application's response to `request` (one encoded message whose header copies
    /// the request's sequence number). On its way out:
    ///
    /// * a session response without MP gets the request's priority (clause 7.2.2.4.1);
    /// * a UP function's OCI/LCI are appended when the inclusion policy says so (51, 53, 55;
    ///   clauses 6.2.3.3, 6.2.4.3), unless the response carries an OCI already;
    /// * an accepted Session Establishment Response records the session (the UP F-SEID it
    ///   carries and the request's CP F-SEID), an accepted Session Deletion Response forgets
    ///   it;
    /// * it is cached to answer retransmissions of the request, which do not reach the
    ///   application again.
    pub fn respond(
        &mut self,
        request: &RequestRef,
        response: Bytes,
        now: Instant,
    ) -> Result<(), XactError> {
        let msg = Message::decode(&response).map_err(XactError::InvalidMessage)?;
        let h = *msg.header();
        if h.follow_on {
            return Err(XactError::FollowOn);
        }
        if h.message_type.is_request() || h.message_type.direction().is_none() {
            return Err(XactError::NotAResponse);
        }
        let accepted = matches!(msg.cause(), Ok(Some(c)) if c.is_acceptance() == Some(true));
        if accepted {
            self.record_answered_session(request, &msg);
        }
        let extra = self.piggyback(request.peer, &msg, now);
        let priority = request
            .priority
            .filter(|_| h.seid.is_some() && h.priority.is_none());
        let bytes = if extra.is_some() || priority.is_some() {
            let (lci, oci) = extra.unwrap_or((None, None));
            amend(&response, priority, lci, oci).unwrap_or(response)
        } else {
            response
        };
        self.count_egress(request.peer, MessageKind::Answer, now);
        self.xact.send_response_parts(
            request.peer,
            request.sequence,
            h.message_type,
            h.sequence,
            bytes,
            now,
        )
    }

    /// Answer `request` with a rejection carrying `cause`, built by the node: the response type
    /// of the request, its sequence number and priority, the CP's SEID where known (clause
    /// 7.2.2.4.2: 0 otherwise), the Node ID where the response requires it. A UP function's
    /// Cause 74 carries its OCI/LCI (clause 6.2.4.3: the CP learns by how much to reduce).
    pub fn reject(
        &mut self,
        request: &RequestRef,
        cause: Cause,
        now: Instant,
    ) -> Result<(), XactError> {
        let Some(rt) = request.message_type.response_type() else {
            return Err(XactError::NotARequest);
        };
        self.stats.requests_rejected += 1;
        let cp_seid = self.answer_seid(request);
        let bytes = peer::session_or_node_rejection(
            &self.local,
            rt,
            request.sequence,
            cp_seid,
            request.priority,
            cause,
            None,
        )?;
        let bytes = if cause == Cause::PFCP_ENTITY_IN_CONGESTION && rt.may_carry_oci() {
            let key = self.node_of(request.peer);
            match self.admission.as_mut() {
                Some(adm) => {
                    let oci = adm.oci_for(&key, rt, Some(cause), now);
                    let lci = adm.lci_for(&key, rt);
                    amend(&bytes, None, lci, oci).unwrap_or(bytes)
                }
                None => bytes,
            }
        } else {
            bytes
        };
        self.count_egress(request.peer, MessageKind::Answer, now);
        self.xact.send_response_parts(
            request.peer,
            request.sequence,
            rt,
            request.sequence,
            bytes,
            now,
        )
    }

    /// Reject a request the UP's admission refused, evicted or let expire: Cause 74 with the
    /// OCI/LCI due to its CP function.
    pub(super) fn reject_queued(&mut self, req: &QueuedRequest, now: Instant) {
        if let Some(adm) = self.admission.as_mut() {
            if adm.config().when_full == WhenFull::Drop {
                adm.dropped();
                return;
            }
        }
        self.stats.requests_rejected += 1;
        let Some(rt) = req.message_type.response_type() else {
            return;
        };
        // The CP's SEID: from the CP F-SEID of an establishment (read by the builder), else
        // the request's header SEID (ours) looked up in the session table.
        let cp_seid = if req.message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST {
            None
        } else {
            Header::decode(&req.bytes).ok().map(|(h, _)| {
                h.seid
                    .and_then(|s| self.sessions.get(s))
                    .map_or(0, |s| s.remote_seid)
            })
        };
        let key = req.node.clone().unwrap_or_else(|| self.node_of(req.peer));
        let Some(adm) = self.admission.as_mut() else {
            return;
        };
        let oci = adm.oci_for(&key, rt, Some(Cause::PFCP_ENTITY_IN_CONGESTION), now);
        let lci = adm.lci_for(&key, rt);
        match adm.build_rejection_to(req, cp_seid, oci, lci) {
            Ok(bytes) => {
                self.count_egress(req.peer, MessageKind::Answer, now);
                let sent = self.xact.send_response_parts(
                    req.peer,
                    req.sequence,
                    rt,
                    req.sequence,
                    bytes,
                    now,
                );
                if let Err(e) = sent {
                    warn!(peer = %req.peer, error = %e, "rejection not sent");
                }
            }
            Err(e) => warn!(peer = %req.peer, error = %e, "rejection not built"),
        }
    }

    /// Send a response the node built itself, of type `rt` with the request's sequence number
    /// (`None`: unknown, decoded by the transaction layer).
    pub(super) fn send_own_response(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        rt: Option<MessageType>,
        bytes: Bytes,
        now: Instant,
    ) {
        self.count_egress(peer, MessageKind::Answer, now);
        let sent = match rt {
            Some(rt) => self
                .xact
                .send_response_parts(peer, sequence, rt, sequence, bytes, now),
            None => self.xact.send_response(peer, sequence, bytes, now),
        };
        if let Err(e) = sent {
            warn!(%peer, error = %e, "response not sent");
        }
    }

    /// The SEID a response to `request` carries in its header: the CP's (from the CP F-SEID of
    /// a Session Establishment Request, else the session table), `None` for node messages.
    pub(super) fn answer_seid(&self, request: &RequestRef) -> Option<u64> {
        if let Some(f) = request.cp_f_seid {
            return Some(f.seid);
        }
        request
            .seid
            .map(|s| self.sessions.get(s).map_or(0, |s| s.remote_seid))
    }

    /// Keep the session table on an accepted response to `request`.
    fn record_answered_session(&mut self, request: &RequestRef, msg: &Message<'_>) {
        match request.message_type {
            MessageType::SESSION_ESTABLISHMENT_REQUEST => {
                let (Some(cp), Ok(Some(up))) = (request.cp_f_seid, msg.f_seid()) else {
                    return;
                };
                let node = self.peers.get(&request.peer).and_then(|p| p.node.clone());
                if !self
                    .sessions
                    .insert(Session::new(up.seid, &cp, request.peer, node))
                {
                    tracing::debug!(peer = %request.peer, "session table full: session not tracked");
                }
            }
            MessageType::SESSION_DELETION_REQUEST => {
                if let Some(s) = request.seid {
                    self.sessions.remove(s);
                }
            }
            _ => {}
        }
    }

    /// This UP's OCI/LCI for a message to `peer` when the inclusion policy says so (responses
    /// 51, 53, 55 and Session Report Requests, 56; clause 6.2.3.3, 6.2.4.3); `None` if nothing
    /// is to be appended.
    #[allow(clippy::type_complexity)]
    fn piggyback(
        &mut self,
        peer: SocketAddr,
        msg: &Message<'_>,
        now: Instant,
    ) -> Option<(
        Option<LoadControlInformation>,
        Option<OverloadControlInformation>,
    )> {
        self.admission.as_ref()?;
        let ty = msg.message_type();
        if !ty.may_carry_oci() || msg.find(IeType::OVERLOAD_CONTROL_INFORMATION).is_some() {
            return None;
        }
        let cause = msg.cause().ok().flatten();
        let key = self.node_of(peer);
        let adm = self.admission.as_mut()?;
        let oci = adm.oci_for(&key, ty, cause, now);
        let lci = adm.lci_for(&key, ty);
        (oci.is_some() || lci.is_some()).then_some((lci, oci))
    }

    /// A Heartbeat message `bytes` of type `ty` to `peer`, with this UP's LCI appended when
    /// its admission places the LCI in Heartbeat messages
    /// ([`LciPlacement::Heartbeat`](pfcp_overload::LciPlacement::Heartbeat)); unchanged
    /// otherwise.
    pub(super) fn heartbeat_lci(
        &mut self,
        peer: SocketAddr,
        bytes: Bytes,
        ty: MessageType,
    ) -> Bytes {
        let key = self.node_of(peer);
        let Some(adm) = self.admission.as_mut() else {
            return bytes;
        };
        match adm.lci_for(&key, ty) {
            Some(lci) => amend(&bytes, None, Some(lci), None).unwrap_or(bytes),
            None => bytes,
        }
    }

    /// The LCI of a Heartbeat message from the UP function `peer`, for a CP node: some UP
    /// functions send their load only there (`LoadConfig::heartbeat_lci`).
    pub(super) fn read_heartbeat_lci(&mut self, peer: SocketAddr, msg: &Message<'_>, now: Instant) {
        if self.cp.is_none() || msg.find(IeType::LOAD_CONTROL_INFORMATION).is_none() {
            return;
        }
        let node = self.node_of(peer);
        if let Some(cp) = self.cp.as_mut() {
            let _ = cp.handle_response(&crate::cp::Destination::node(node), msg, now);
        }
    }

    /// This UP's Session Report Request `bytes` to `peer`, with the OCI/LCI appended when the
    /// inclusion policy says so (Table 7.5.8.1-1; clauses 6.2.3.3, 6.2.4.3); unchanged if it
    /// carries an OCI of the application's already, or this node has no admission.
    pub(super) fn piggyback_report(
        &mut self,
        peer: SocketAddr,
        bytes: Bytes,
        now: Instant,
    ) -> Bytes {
        let extra = match Message::decode(&bytes) {
            Ok(msg) => self.piggyback(peer, &msg, now),
            Err(_) => None,
        };
        match extra {
            Some((lci, oci)) => amend(&bytes, None, lci, oci).unwrap_or(bytes),
            None => bytes,
        }
    }

    /// A response to a CP that the node answers in place of the UP (throttled, no
    /// association): queued as the request's outcome.
    pub(super) fn answer_locally(
        &mut self,
        id: RequestId,
        peer: SocketAddr,
        header: &Header,
        cause: Cause,
        origin: ResponseOrigin,
    ) {
        self.stats.requests_answered_locally += 1;
        let node = self.node_of(peer);
        // The CP's own SEID of the session, if it is one the node knows.
        let seid = header
            .seid
            .map(|s| self.sessions.by_remote(peer, s).map_or(0, |s| s.local_seid));
        let result = local_response(header.message_type, seid, header.priority, cause, &node)
            .map(|bytes| Response {
                peer,
                bytes,
                cause: Some(cause),
                origin,
                transmissions: 0,
            })
            .map_err(super::RequestError::from);
        self.events.push_back(NodeEvent::Outcome { id, result });
    }
}

/// The response a CP generates for a request of `request_type` it did not send: the response
/// type, sequence number 0 (none was allocated), `seid` and `priority` for a session message,
/// the UP function's Node ID where the response requires one, and `cause`.
fn local_response(
    request_type: MessageType,
    seid: Option<u64>,
    priority: Option<MessagePriority>,
    cause: Cause,
    node: &NodeKey,
) -> Result<Bytes, EncodeError> {
    let rt = request_type
        .response_type()
        .ok_or(EncodeError::InvalidValue("not a request: no response type"))?;
    let mut h = Header::new(rt);
    if rt.is_session() == Some(true) {
        h = h.with_seid(seid.unwrap_or(0));
        if let Some(p) = priority {
            h = h.with_priority(p);
        }
    }
    let mut out = BytesMut::with_capacity(64);
    let mut w = MessageWriter::begin(&mut out, &h)?;
    if mandatory_ies(rt).contains(&IeType::NODE_ID) {
        let id = node
            .to_node_id()
            .map_err(|_| EncodeError::InvalidValue("peer Node ID is not a valid FQDN"))?;
        w.ie(&id)?;
    }
    w.ie(&cause)?;
    w.finish()?;
    Ok(out.freeze())
}

/// `message` with `priority` set in its session header (MP=1) and the LCI and OCI appended,
/// the Message Length patched (IE order is free, clause 8.1.2).
fn amend(
    message: &[u8],
    priority: Option<MessagePriority>,
    lci: Option<LoadControlInformation>,
    oci: Option<OverloadControlInformation>,
) -> Option<Bytes> {
    let extra = lci.encoded_len() + oci.encoded_len();
    let mut out = BytesMut::with_capacity(message.len() + extra);
    out.extend_from_slice(message);
    if let Some(p) = priority {
        let flags = out.first_mut()?;
        if *flags & FLAG_S == 0 {
            return None;
        }
        *flags |= FLAG_MP;
        let octet = out.get_mut(PRIORITY_OCTET)?;
        *octet = (*octet & 0x0F) | (p.value() << 4);
    }
    lci.encode(&mut out).ok()?;
    oci.encode(&mut out).ok()?;
    let len = u16::try_from(out.len().checked_sub(4)?).ok()?;
    out.get_mut(2..4)?.copy_from_slice(&len.to_be_bytes());
    Some(out.freeze())
}
