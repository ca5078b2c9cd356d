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
///
/// # Examples
///
/// ```
/// use pfcp_node::peer::{heartbeat_request, LocalNode};
/// use pfcp_overload::NodeKey;
/// use pfcp_wire::ie::RecoveryTimeStamp;
/// use pfcp_wire::SequenceNumber;
///
/// let local = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(0xe8f4_a2b0));
/// let bytes = heartbeat_request(&local, SequenceNumber::new(7).ok_or("over 24 bits")?)?;
/// // Clause 7.2.2 node header (type 1, Message Length 12, sequence 7), then Table 7.4.2.1-1's
/// // Recovery Time Stamp (type 96) as a clause 8.1.1 TLV.
/// assert_eq!(&bytes[..], &[0x20, 0x01, 0x00, 0x0c, 0x00, 0x00, 0x07, 0x00,
///                          0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// # Examples
///
/// ```
/// use pfcp_node::peer::{error_response, LocalNode};
/// use pfcp_overload::NodeKey;
/// use pfcp_wire::ie::{IeType, RecoveryTimeStamp};
/// use pfcp_wire::{Cause, Message, MessageType};
///
/// let up = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(0xe8f4_a2b0));
/// // An Association Setup Request (type 5; clause 7.2.2 node header, sequence 9) with a
/// // Recovery Time Stamp but no Node ID.
/// let request = [0x20, 0x05, 0x00, 0x0c, 0x00, 0x00, 0x09, 0x00,
///                0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0x00, 0x00];
/// let Err(error) = Message::decode(&request)?.validate() else {
///     return Err("accepted without Node ID".into());
/// };
/// let response = error_response(&up, &error, None)?.ok_or("a request is answered")?;
/// let response = Message::decode(&response)?;
/// // Clause 7.6: the response type, the same sequence number, Cause 66, the missing IE.
/// assert_eq!(response.message_type(), MessageType::ASSOCIATION_SETUP_RESPONSE);
/// assert_eq!(response.header().sequence.value(), 9);
/// assert_eq!(response.cause()?, Some(Cause::MANDATORY_IE_MISSING));
/// assert_eq!(response.offending_ie()?.map(|o| o.0), Some(IeType::NODE_ID));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// # Examples
///
/// ```
/// use pfcp_node::peer::{session_or_node_rejection, LocalNode};
/// use pfcp_overload::NodeKey;
/// use pfcp_wire::ie::RecoveryTimeStamp;
/// use pfcp_wire::{Cause, Message, MessagePriority, MessageType, SequenceNumber};
///
/// let up = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(0xe8f4_a2b0));
/// let priority = MessagePriority::new(3); // the request's (clause 7.2.2.4.1)
/// let bytes = session_or_node_rejection(
///     &up,
///     MessageType::SESSION_ESTABLISHMENT_RESPONSE,
///     SequenceNumber::new(0x102).ok_or("over 24 bits")?,
///     Some(0x1234), // the SEID of the CP F-SEID in the request
///     priority,
///     Cause::PFCP_ENTITY_IN_CONGESTION,
///     None,
/// )?;
/// let msg = Message::decode(&bytes)?;
/// assert_eq!((msg.header().seid, msg.header().priority), (Some(0x1234), priority));
/// assert_eq!(msg.cause()?, Some(Cause::PFCP_ENTITY_IN_CONGESTION));
/// msg.validate()?; // Node ID and Cause, the mandatory IEs of Table 7.5.3.1-1
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
