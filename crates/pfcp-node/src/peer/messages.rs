//! Building the node-related messages and the rejections of requests (TS 29.244 clauses
//! 7.4.2, 7.4.4, 7.6): Heartbeat Request and Response, Association Setup Request, the
//! responses to node-related requests, and the error and rejection responses.

use bytes::{Bytes, BytesMut};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::OffendingIe;
use pfcp_wire::{Cause, DecodeError, EncodeError, Header, MessageType, SequenceNumber};

use super::LocalNode;

/// Build a node-related response with Node ID (where required), Cause and optional Offending
/// IE; Association Setup Response also carries the Recovery Time Stamp and features.
pub(crate) fn node_response(
    local: &LocalNode,
    t: MessageType,
    seq: SequenceNumber,
    cause: Cause,
    offending: Option<OffendingIe>,
    setup: bool,
) -> Result<Bytes, EncodeError> {
    let mut out = BytesMut::with_capacity(64);
    let h = Header::new(t).with_sequence(seq);
    let mut w = MessageWriter::begin(&mut out, &h)?;
    local.write_node_id(&mut w)?;
    w.ie(&cause)?;
    if let Some(o) = offending {
        w.ie(&o)?;
    }
    if setup {
        w.ie(&local.recovery_time_stamp)?;
        local.write_features(&mut w)?;
    }
    w.finish()?;
    Ok(out.freeze())
}

/// Build an Association Setup Request from this node.
pub fn association_setup_request(
    local: &LocalNode,
    seq: SequenceNumber,
) -> Result<Bytes, EncodeError> {
    let mut out = BytesMut::with_capacity(64);
    let h = Header::new(MessageType::ASSOCIATION_SETUP_REQUEST).with_sequence(seq);
    let mut w = MessageWriter::begin(&mut out, &h)?;
    local.write_node_id(&mut w)?;
    w.ie(&local.recovery_time_stamp)?;
    local.write_features(&mut w)?;
    w.finish()?;
    Ok(out.freeze())
}

/// Build a Heartbeat Request from this node.
pub fn heartbeat_request(local: &LocalNode, seq: SequenceNumber) -> Result<Bytes, EncodeError> {
    heartbeat_message(local, MessageType::HEARTBEAT_REQUEST, seq)
}

/// A Heartbeat Request or Response: the header and this node's Recovery Time Stamp (Tables
/// 7.4.2.1-1, 7.4.2.2-1).
pub(super) fn heartbeat_message(
    local: &LocalNode,
    t: MessageType,
    seq: SequenceNumber,
) -> Result<Bytes, EncodeError> {
    let mut out = BytesMut::with_capacity(16);
    let h = Header::new(t).with_sequence(seq);
    let mut w = MessageWriter::begin(&mut out, &h)?;
    w.ie(&local.recovery_time_stamp)?;
    w.finish()?;
    Ok(out.freeze())
}

/// The answer to a request whose decoding or validation failed, when one is due (7.6): the
/// response type for the request with the Cause the error maps to and the Offending IE;
/// `None` for Heartbeat (never rejected), responses and unknown types (discarded).
pub fn error_response(
    local: &LocalNode,
    error: &DecodeError,
    cp_seid: Option<u64>,
) -> Result<Option<Bytes>, EncodeError> {
    let Some(h) = error.header else {
        return Ok(None);
    };
    if h.message_type == MessageType::HEARTBEAT_REQUEST || !h.message_type.is_request() {
        return Ok(None);
    }
    let Some(rt) = h.message_type.response_type() else {
        return Ok(None);
    };
    session_or_node_rejection(
        local,
        rt,
        h.sequence,
        cp_seid,
        h.priority,
        error.cause(),
        error.offending_ie().map(OffendingIe),
    )
    .map(Some)
}

/// A rejection response of type `rt` (node or session) with `cause`.
pub fn session_or_node_rejection(
    local: &LocalNode,
    rt: MessageType,
    seq: SequenceNumber,
    cp_seid: Option<u64>,
    priority: Option<pfcp_wire::MessagePriority>,
    cause: Cause,
    offending: Option<OffendingIe>,
) -> Result<Bytes, EncodeError> {
    if rt.is_session() == Some(true) {
        let mut out = BytesMut::with_capacity(48);
        // Clause 7.2.2.4.2: SEID 0 is allowed for a rejection when the CP's SEID is unknown.
        let mut h = Header::new(rt)
            .with_seid(cp_seid.unwrap_or(0))
            .with_sequence(seq);
        if let Some(p) = priority {
            h = h.with_priority(p);
        }
        let mut w = MessageWriter::begin(&mut out, &h)?;
        if rt == MessageType::SESSION_ESTABLISHMENT_RESPONSE {
            local.write_node_id(&mut w)?;
        }
        w.ie(&cause)?;
        if let Some(o) = offending {
            w.ie(&o)?;
        }
        w.finish()?;
        Ok(out.freeze())
    } else {
        node_response(local, rt, seq, cause, offending, false)
    }
}
