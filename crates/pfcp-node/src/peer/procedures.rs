//! The node-related requests of the procedures a peer starts, answered by [`Peers`]:
//! Association Update (clause 6.2.7), Association Release (6.2.8) and Node Report (6.2.9);
//! and the end of an association this node released.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use pfcp_wire::ie::OffendingIe;
use pfcp_wire::msg::{AssociationUpdateRequest, NodeReportRequest};
use pfcp_wire::{Cause, IeType, Message, MessageType, SequenceNumber};

use super::messages::node_response;
use super::{LocalNode, NodeAnswer, PeerError, PeerEvent, Peers};
use crate::procedures::{NodeReport, NodeReportType, ReleasePreparation};

impl Peers {
    /// An Association Update Request (clause 6.2.7, Table 7.4.4.3-1): refused as clause 7.6
    /// says if it does not decode, with Cause 72 from a peer without an association;
    /// otherwise accepted, the features it carries kept ([`PeerEvent::FeaturesUpdated`]) and
    /// a release it asks for reported ([`PeerEvent::ReleaseRequested`]).
    pub(super) fn update(
        &mut self,
        local: &LocalNode,
        peer: SocketAddr,
        msg: &Message<'_>,
        seq: SequenceNumber,
        now: Instant,
    ) -> Result<NodeAnswer, PeerError> {
        let mut answer = NodeAnswer::default();
        let respond = |cause: Cause, offending: Option<OffendingIe>| {
            node_response(
                local,
                MessageType::ASSOCIATION_UPDATE_RESPONSE,
                seq,
                cause,
                offending,
                false,
            )
        };
        let req = match AssociationUpdateRequest::decode(msg) {
            Ok(r) => r,
            Err(e) => {
                answer.response = Some(respond(e.cause(), e.offending_ie().map(OffendingIe))?);
                return Ok(answer);
            }
        };
        let Some(info) = self
            .record_at_mut(&peer)
            .map(|p| &mut p.info)
            .filter(|i| i.associated)
        else {
            answer.response = Some(respond(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION, None)?);
            return Ok(answer);
        };
        info.last_seen = now;
        let (cp, up) = (req.cp_function_features, req.up_function_features);
        if let Some(f) = cp {
            info.cp_features = Some(f);
        }
        if let Some(f) = up {
            info.up_features = Some(f);
        }
        if cp.is_some() || up.is_some() {
            answer.events.push(PeerEvent::FeaturesUpdated {
                peer,
                node: info.node.clone(),
                cp_features: cp,
                up_features: up,
            });
        }
        if let Some(preparation) = ReleasePreparation::from_request(&req) {
            answer.events.push(PeerEvent::ReleaseRequested {
                peer,
                node: info.node.clone(),
                preparation,
            });
        }
        answer.response = Some(respond(Cause::REQUEST_ACCEPTED, None)?);
        Ok(answer)
    }

    /// An Association Release Request (clause 6.2.8): the association ends
    /// ([`PeerEvent::Released`]; the node then reports the sessions it took along), or Cause
    /// 72 if there is none.
    pub(super) fn release(
        &mut self,
        local: &LocalNode,
        peer: SocketAddr,
        seq: SequenceNumber,
    ) -> Result<NodeAnswer, PeerError> {
        let mut answer = NodeAnswer::default();
        let cause = match self.released(peer) {
            Some(e) => {
                answer.events.push(e);
                Cause::REQUEST_ACCEPTED
            }
            None => Cause::NO_ESTABLISHED_PFCP_ASSOCIATION,
        };
        answer.response = Some(node_response(
            local,
            MessageType::ASSOCIATION_RELEASE_RESPONSE,
            seq,
            cause,
            None,
            false,
        )?);
        Ok(answer)
    }

    /// The association with `peer` is released (clause 6.2.8: by the peer's request, or by
    /// this node's request once accepted): [`PeerEvent::Released`], `None` if there was none.
    ///
    /// ```
    /// use pfcp_node::Peers;
    /// let mut peers = Peers::new(16);
    /// // No association with that peer: nothing to release.
    /// assert_eq!(peers.released("192.0.2.1:8805".parse()?), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn released(&mut self, peer: SocketAddr) -> Option<PeerEvent> {
        let info = &mut self
            .record_at_mut(&peer)
            .filter(|p| p.info.associated)?
            .info;
        info.associated = false;
        Some(PeerEvent::Released {
            peer,
            node: info.node.clone(),
        })
    }

    /// A Node Report Request (clause 6.2.9, Table 7.4.5.1.1-1): refused as clause 7.6 says if
    /// it does not decode (a Node Report Type without its octet: Cause 69; UPFR or UPRR without
    /// its report: Cause 67), with Cause 72 from a peer without an association; otherwise
    /// accepted and reported ([`PeerEvent::NodeReport`]).
    pub(super) fn node_report(
        &mut self,
        local: &LocalNode,
        peer: SocketAddr,
        msg: &Message<'_>,
        seq: SequenceNumber,
        now: Instant,
    ) -> Result<NodeAnswer, PeerError> {
        let mut answer = NodeAnswer::default();
        let respond = |cause: Cause, offending: Option<IeType>| {
            node_response(
                local,
                MessageType::NODE_REPORT_RESPONSE,
                seq,
                cause,
                offending.map(OffendingIe),
                false,
            )
        };
        let req = match NodeReportRequest::decode(msg) {
            Ok(r) => r,
            Err(e) => {
                answer.response = Some(respond(e.cause(), e.offending_ie())?);
                return Ok(answer);
            }
        };
        let Some(report) = NodeReport::from_request(&req) else {
            answer.response = Some(respond(
                Cause::MANDATORY_IE_INCORRECT,
                Some(IeType::NODE_REPORT_TYPE),
            )?);
            return Ok(answer);
        };
        let t = report.report_type;
        let missing = if t.contains(NodeReportType::UPFR)
            && req.user_plane_path_failure_report.is_none()
        {
            Some(IeType::USER_PLANE_PATH_FAILURE_REPORT)
        } else if t.contains(NodeReportType::UPRR) && req.user_plane_path_recovery_report.is_none()
        {
            Some(IeType::USER_PLANE_PATH_RECOVERY_REPORT)
        } else {
            None
        };
        if let Some(ie) = missing {
            answer.response = Some(respond(Cause::CONDITIONAL_IE_MISSING, Some(ie))?);
            return Ok(answer);
        }
        let Some(info) = self
            .record_at_mut(&peer)
            .map(|p| &mut p.info)
            .filter(|i| i.associated)
        else {
            answer.response = Some(respond(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION, None)?);
            return Ok(answer);
        };
        info.last_seen = now;
        answer.events.push(PeerEvent::NodeReport {
            peer,
            node: info.node.clone(),
            report,
            message: Bytes::copy_from_slice(msg.as_bytes()),
        });
        answer.response = Some(respond(Cause::REQUEST_ACCEPTED, None)?);
        Ok(answer)
    }
}
