//! Encoding the cause-74 rejection (TS 29.244 clauses 7.2.2.4, 7.2.3.2, 7.5.3.1).

use bytes::{Bytes, BytesMut};
use pfcp_overload::NodeKey;
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::{FqdnError, LoadControlInformation, NodeId, OverloadControlInformation};
use pfcp_wire::presence::mandatory_ies;
use pfcp_wire::{Cause, Header, IeType, Message, MessageType};

use super::types::{QueuedRequest, RejectionError};
use super::UpAdmission;

impl UpAdmission {
    /// Encode the cause-74 rejection of `request` (see [`UpAdmission::build_rejection_to`]);
    /// the SEID is the CP's F-SEID for a Session Establishment Request and 0 otherwise
    /// (allowed for a rejection, clause 7.2.2.4.2).
    pub fn build_rejection(
        &self,
        request: &QueuedRequest,
        oci: Option<OverloadControlInformation>,
        lci: Option<LoadControlInformation>,
    ) -> Result<Bytes, RejectionError> {
        self.build_rejection_to(request, None, oci, lci)
    }

    /// Encode the rejection of `request` with Cause 74 "PFCP entity in congestion":
    ///
    /// * the response type of the request, the same sequence number;
    /// * for a session-related response, SEID = `cp_seid` if given, else the SEID of the CP
    ///   F-SEID of a Session Establishment Request, else 0 (clause 7.2.2.4.2 allows 0 in a
    ///   response rejecting a request);
    /// * the request's message priority, if it had MP (clause 7.2.2.4.1: a response carries
    ///   its request's priority; octets that do not decode fall back to
    ///   [`QueuedRequest::priority`]);
    /// * the Node ID where the response type requires it (e.g. Session Establishment
    ///   Response), from [`AdmissionConfig::node_id`](crate::admission::AdmissionConfig::node_id);
    /// * Cause 74, then `lci` and `oci` if the response type may carry them (51, 53, 55;
    ///   clause 7.2.3.2: a rejection may still carry them).
    ///
    /// The octets are written once into a buffer of the exact length.
    pub fn build_rejection_to(
        &self,
        request: &QueuedRequest,
        cp_seid: Option<u64>,
        oci: Option<OverloadControlInformation>,
        lci: Option<LoadControlInformation>,
    ) -> Result<Bytes, RejectionError> {
        let response_type = request
            .message_type
            .response_type()
            .ok_or(RejectionError::NotARequest(request.message_type))?;
        let mut header = Header::new(response_type).with_sequence(request.sequence);
        if response_type.is_session() == Some(true) {
            let seid = cp_seid.unwrap_or_else(|| {
                if request.message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST {
                    Message::decode(&request.bytes)
                        .ok()
                        .and_then(|m| m.f_seid().ok().flatten())
                        .map_or(0, |f| f.seid)
                } else {
                    0
                }
            });
            header = header.with_seid(seid);
            let priority = match Header::decode(&request.bytes) {
                Ok((h, _)) => h.priority,
                Err(_) => Some(request.priority),
            };
            if let Some(p) = priority {
                header = header.with_priority(p);
            }
        }
        let node_id = if mandatory_ies(response_type).contains(&IeType::NODE_ID) {
            Some(node_id_of(&self.config.node_id)?)
        } else {
            None
        };
        let carries = response_type.may_carry_oci();
        let builder = MessageBuilder::new(header)
            .ie(node_id)
            .ie(Cause::PFCP_ENTITY_IN_CONGESTION)
            .ie(lci.filter(|_| carries))
            .ie(oci.filter(|_| carries));
        let mut out = BytesMut::with_capacity(builder.encoded_len());
        builder.encode(&mut out)?;
        tracing::debug!(
            peer = %request.peer,
            sequence = request.sequence.value(),
            response_type = response_type.0,
            seid = header.seid.unwrap_or(0),
            oci = oci.is_some() && carries,
            lci = lci.is_some() && carries,
            len = out.len(),
            "admission: rejection built (cause 74)"
        );
        Ok(out.freeze())
    }
}

/// The Node ID IE of a Node ID key.
pub(super) fn node_id_of(key: &NodeKey) -> Result<NodeId<'_>, FqdnError> {
    key.to_node_id()
}
