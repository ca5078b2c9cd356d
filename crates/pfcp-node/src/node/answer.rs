//! Answers to requests: the application's responses (with the request's priority, the UP's
//! OCI/LCI, the session table kept), the node's rejections (Cause 72, 74 with OCI/LCI, the
//! application's causes), and the responses a CP generates locally in place of the UP's.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use pfcp_overload::NodeKey;
use pfcp_throttle::MessageKind;
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::{FSeid, LoadControlInformation, OverloadControlInformation};
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
        // One walk over the IEs (the accessors, IE by IE, for a response that fails the
        // receiver's checks).
        let facts = match msg.view() {
            Ok(v) => Facts {
                cause: v.cause,
                f_seid: v.f_seid,
                has_oci: v.overload_control_information.is_some(),
            },
            Err(_) => Facts::read(&msg),
        };
        if facts.cause.and_then(Cause::is_acceptance) == Some(true) {
            self.record_answered_session(request, facts.f_seid);
        }
        let extra = self.piggyback(request.peer, h.message_type, &facts, now);
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

    /// Keep the session table on an accepted response to `request` (`up_f_seid`: the UP
    /// F-SEID it carries).
    fn record_answered_session(&mut self, request: &RequestRef, up_f_seid: Option<FSeid>) {
        match request.message_type {
            MessageType::SESSION_ESTABLISHMENT_REQUEST => {
                let (Some(cp), Some(up)) = (request.cp_f_seid, up_f_seid) else {
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

    /// This UP's OCI/LCI for a message of type `ty` to `peer` when the inclusion policy says
    /// so (responses 51, 53, 55 and Session Report Requests, 56; clause 6.2.3.3, 6.2.4.3);
    /// `None` if nothing is to be appended (or the message carries an OCI already).
    #[allow(clippy::type_complexity)]
    fn piggyback(
        &mut self,
        peer: SocketAddr,
        ty: MessageType,
        facts: &Facts,
        now: Instant,
    ) -> Option<(
        Option<LoadControlInformation>,
        Option<OverloadControlInformation>,
    )> {
        self.admission.as_ref()?;
        if !ty.may_carry_oci() || facts.has_oci {
            return None;
        }
        let key = self.node_of(peer);
        let adm = self.admission.as_mut()?;
        let oci = adm.oci_for(&key, ty, facts.cause, now);
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
        if let (Some(cp), Some(record)) = (self.cp.as_mut(), self.peers.record_at_mut(&peer)) {
            let link = record
                .up
                .get_or_insert_with(|| Box::new(cp.link(&node, now)));
            cp.handle_message(link, None, msg, now);
        }
    }

    /// This UP's OCI and LCI for its Session Report Request to `peer` whose IEs are `ies`,
    /// when the inclusion policy says so (Table 7.5.8.1-1; clauses 6.2.3.3, 6.2.4.3): none if
    /// `ies` carry an OCI of the application's already, or this node has no admission.
    #[allow(clippy::type_complexity)]
    pub(super) fn report_extra(
        &mut self,
        peer: SocketAddr,
        ies: &[u8],
        now: Instant,
    ) -> Option<(
        Option<LoadControlInformation>,
        Option<OverloadControlInformation>,
    )> {
        let facts = Facts {
            cause: None,
            f_seid: None,
            has_oci: pfcp_wire::ie::IeIter::new(ies, 0)
                .find(IeType::OVERLOAD_CONTROL_INFORMATION)
                .ok()
                .flatten()
                .is_some(),
        };
        self.piggyback(peer, MessageType::SESSION_REPORT_REQUEST, &facts, now)
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

/// What [`Node::respond`] reads of a response.
struct Facts {
    cause: Option<Cause>,
    f_seid: Option<FSeid>,
    has_oci: bool,
}

impl Facts {
    /// Read IE by IE.
    fn read(msg: &Message<'_>) -> Self {
        Facts {
            cause: msg.cause().ok().flatten(),
            f_seid: msg.f_seid().ok().flatten(),
            has_oci: msg.find(IeType::OVERLOAD_CONTROL_INFORMATION).is_some(),
        }
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

/// `message` rewritten with `priority` in its session header (MP=1) and the LCI and OCI
/// appended (IE order is free, clause 8.1.2): the header decoded, the IEs copied, the lengths
/// written by the encoder. `None` if `message` has no header to read, or a priority is asked
/// of a node message (no priority octet).
fn amend(
    message: &[u8],
    priority: Option<MessagePriority>,
    lci: Option<LoadControlInformation>,
    oci: Option<OverloadControlInformation>,
) -> Option<Bytes> {
    let (header, header_len) = Header::decode(message).ok()?;
    let header = match priority {
        Some(_) if header.seid.is_none() => return None,
        Some(p) => header.with_priority(p),
        None => header,
    };
    let ies = message.get(header_len..)?;
    let mut out = BytesMut::with_capacity(message.len() + lci.encoded_len() + oci.encoded_len());
    let mut w = MessageWriter::begin(&mut out, &header).ok()?;
    w.raw_ies(ies).ok()?;
    if let Some(lci) = &lci {
        w.ie(lci).ok()?;
    }
    if let Some(oci) = &oci {
        w.ie(oci).ok()?;
    }
    w.finish().ok()?;
    Some(out.freeze())
}
