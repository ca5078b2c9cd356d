//! The session-handling half of an emulated UP function (shared by `pfcp sim` and `pfcp up`):
//! the answer to every request a [`Node`](pfcp_node::Node) delivers.
//!
//! * Session Establishment Request (50): Session Establishment Response (51) with the UP's
//!   Node ID, Cause 1 and a UP F-SEID (a new SEID at the configured address); the header SEID is
//!   the CP's, from the request's CP F-SEID.
//! * Session Modification / Deletion Request (52 / 54): Response (53 / 55) with Cause 1 and the
//!   CP's SEID, which the node's session table knows
//!   ([`IncomingRequest::remote_seid`](pfcp_node::IncomingRequest)); a session the node does not
//!   know gets Cause 65, "Session context not found", with SEID 0 (clause 7.2.2.4.2).
//! * Any other request: its response with Cause 76, "Service not supported".
//!
//! [`answer_report`] is the other side's: a CP function's Session Report Response.
//!
//! The node copies the request's message priority into the response and keeps the session table
//! from the accepted responses; the responder holds no state but its SEID counter.

use std::net::IpAddr;

use bytes::Bytes;
use pfcp_node::{IncomingRequest, LocalNode};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::{Cause, EncodeError, Header, Message, MessageType};

use crate::traffic::f_seid;

/// What the responder did with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Send this response; `true` if it accepts the request.
    Respond(Bytes, bool),
    /// Reject the request with this cause (built by the node).
    Reject(Cause),
}

/// Answers session requests; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct Responder {
    local: LocalNode,
    node_ie: Vec<u8>,
    fseid_ip: IpAddr,
    next_seid: u64,
}

impl Responder {
    /// A responder for the UP function `local`, whose encoded Node ID IE is `node_ie`, with
    /// UP F-SEIDs at `fseid_ip`.
    pub fn new(local: LocalNode, node_ie: Vec<u8>, fseid_ip: IpAddr) -> Self {
        Responder {
            local,
            node_ie,
            fseid_ip,
            next_seid: 1,
        }
    }

    /// This UP function.
    pub fn local(&self) -> &LocalNode {
        &self.local
    }

    /// The answer to `request`; `in_use(seid)` says whether a UP SEID is taken (the node's
    /// session table).
    pub fn answer(
        &mut self,
        request: &IncomingRequest,
        in_use: impl Fn(u64) -> bool,
    ) -> Result<Answer, EncodeError> {
        let Ok(msg) = Message::decode(&request.bytes) else {
            return Ok(Answer::Reject(Cause::MANDATORY_IE_INCORRECT));
        };
        let h = msg.header();
        let Some(rt) = h.message_type.response_type() else {
            return Ok(Answer::Reject(Cause::SERVICE_NOT_SUPPORTED));
        };
        Ok(match h.message_type {
            MessageType::SESSION_ESTABLISHMENT_REQUEST => {
                let Some(cp) = request.reference.cp_f_seid else {
                    return Ok(Answer::Reject(Cause::MANDATORY_IE_MISSING));
                };
                let up_seid = self.allocate(&in_use);
                let fseid = f_seid(up_seid, self.fseid_ip);
                let node_ie = &self.node_ie;
                let bytes = response(h, rt, cp.seid, |w| {
                    w.raw_ies(node_ie)?;
                    w.ie(&Cause::REQUEST_ACCEPTED)?;
                    w.ie(&fseid)?;
                    Ok(())
                })?;
                Answer::Respond(bytes, true)
            }
            MessageType::SESSION_MODIFICATION_REQUEST | MessageType::SESSION_DELETION_REQUEST => {
                match request.remote_seid {
                    Some(cp_seid) => {
                        let bytes = response(h, rt, cp_seid, |w| {
                            w.ie(&Cause::REQUEST_ACCEPTED)?;
                            Ok(())
                        })?;
                        Answer::Respond(bytes, true)
                    }
                    None => Answer::Reject(Cause::SESSION_CONTEXT_NOT_FOUND),
                }
            }
            _ => Answer::Reject(Cause::SERVICE_NOT_SUPPORTED),
        })
    }

    /// A UP SEID not in use (never 0: SEID 0 means "unknown", clause 7.2.2.4.2).
    fn allocate(&mut self, in_use: &impl Fn(u64) -> bool) -> u64 {
        loop {
            let seid = self.next_seid;
            self.next_seid = self.next_seid.wrapping_add(1).max(1);
            if !in_use(seid) {
                return seid;
            }
        }
    }
}

/// A CP function's answer to a Session Report Request (clause 7.5.8) the node delivers: the
/// Session Report Response (57) with Cause 1 and the UP's SEID of the session
/// ([`IncomingRequest::remote_seid`], from the CP node's session table), or, for a session the
/// node does not know, Cause 65 "Session context not found" (the node answers it with SEID 0,
/// clause 7.2.2.4.2). Any other request: Cause 76, "Service not supported".
pub fn answer_report(request: &IncomingRequest) -> Result<Answer, EncodeError> {
    let Ok(msg) = Message::decode(&request.bytes) else {
        return Ok(Answer::Reject(Cause::MANDATORY_IE_INCORRECT));
    };
    let h = msg.header();
    if h.message_type != MessageType::SESSION_REPORT_REQUEST {
        return Ok(Answer::Reject(Cause::SERVICE_NOT_SUPPORTED));
    }
    let Some(up_seid) = request.remote_seid else {
        return Ok(Answer::Reject(Cause::SESSION_CONTEXT_NOT_FOUND));
    };
    let bytes = response(h, MessageType::SESSION_REPORT_RESPONSE, up_seid, |w| {
        w.ie(&Cause::REQUEST_ACCEPTED)?;
        Ok(())
    })?;
    Ok(Answer::Respond(bytes, true))
}

/// A session response of type `rt` to `request` (same sequence number) with SEID `cp_seid`,
/// its IEs written by `ies`. The node adds the request's priority.
fn response(
    request: &Header,
    rt: MessageType,
    cp_seid: u64,
    ies: impl FnOnce(&mut MessageWriter<'_, Vec<u8>>) -> Result<(), EncodeError>,
) -> Result<Bytes, EncodeError> {
    let header = Header::new(rt)
        .with_seid(cp_seid)
        .with_sequence(request.sequence);
    let mut out = Vec::with_capacity(64);
    let mut w = MessageWriter::begin(&mut out, &header)?;
    ies(&mut w)?;
    w.finish()?;
    Ok(Bytes::from(out))
}
