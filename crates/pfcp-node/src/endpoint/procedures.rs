//! The node procedures on the endpoint: thin wrappers over [`Node::release_association`],
//! [`Node::update_association`], [`Node::send_node_report`] and
//! [`Node::send_session_report`] (TS 29.244 clauses 6.2.7, 6.2.8, 6.2.9, 6.3.5) that resolve
//! with the peer's response.

use std::net::SocketAddr;
use std::time::Instant;

use pfcp_wire::ie::{CpFunctionFeatures, UpFunctionFeatures};
use pfcp_wire::msg::SessionReportRequest;
use pfcp_wire::Cause;
use tokio::sync::oneshot;

use super::{Endpoint, Error};
use crate::node::{Node, RequestError, RequestId, Response};
use crate::procedures::{AssociationUpdate, NodeReport};

impl Endpoint {
    /// Release the PFCP association with `peer` (clause 6.2.8, [`Node::release_association`]):
    /// `Ok` once the peer accepted it (the association and its sessions are gone; the events
    /// come through [`Channels::events`](super::Channels::events)), [`Error::Rejected`] with
    /// the peer's Cause (or 72, locally, without an association).
    ///
    /// ```no_run
    /// # async fn f(cp: pfcp_node::Endpoint, upf: std::net::SocketAddr) -> Result<(), pfcp_node::Error> {
    /// cp.release_association(upf).await?;
    /// # Ok(()) }
    /// ```
    pub async fn release_association(&self, peer: SocketAddr) -> Result<(), Error> {
        let r = self.outcome(|n, t| n.release_association(peer, t)).await?;
        accepted(&r)
    }

    /// Update the PFCP association with `peer` (clause 6.2.7, [`Node::update_association`]):
    /// `Ok` once the peer accepted it, [`Error::Rejected`] with its Cause otherwise.
    ///
    /// ```no_run
    /// # async fn f(up: pfcp_node::Endpoint, smf: std::net::SocketAddr) -> Result<(), pfcp_node::Error> {
    /// use pfcp_node::procedures::{AssociationUpdate, ReleasePreparation};
    /// // A UP function asks its CP function to release the association (clause 6.2.8).
    /// up.update_association(smf, AssociationUpdate::release(ReleasePreparation::release())).await?;
    /// # Ok(()) }
    /// ```
    pub async fn update_association(
        &self,
        peer: SocketAddr,
        update: AssociationUpdate,
    ) -> Result<(), Error> {
        let r = self
            .outcome(|n, t| n.update_association(peer, &update, t))
            .await?;
        accepted(&r)
    }

    /// Send a Node Report Request to the CP function at `peer` (clause 6.2.9,
    /// [`Node::send_node_report`]): `Ok` once it accepted it, [`Error::Rejected`] with its Cause
    /// otherwise.
    ///
    /// ```no_run
    /// # async fn f(up: pfcp_node::Endpoint, smf: std::net::SocketAddr) -> Result<(), pfcp_node::Error> {
    /// use pfcp_node::procedures::{NodeReport, RemoteGtpuPeer};
    /// let gnb = RemoteGtpuPeer::ipv4([198, 51, 100, 7].into());
    /// up.send_node_report(smf, NodeReport::path_failure([gnb])).await?;
    /// # Ok(()) }
    /// ```
    pub async fn send_node_report(
        &self,
        peer: SocketAddr,
        report: NodeReport,
    ) -> Result<(), Error> {
        let r = self
            .outcome(|n, t| n.send_node_report(peer, &report, t))
            .await?;
        accepted(&r)
    }

    /// Send a Session Report Request on the session this UP function knows by its SEID
    /// `local_seid` (clause 6.3.5, [`Node::send_session_report`]); resolves with the CP
    /// function's Session Report Response (or a local one, Cause 74, when the report egress
    /// throttle refused it).
    ///
    /// ```no_run
    /// # async fn f(up: pfcp_node::Endpoint) -> Result<(), pfcp_node::Error> {
    /// use pfcp_wire::ie::{ReportType, UrSeqn, UrrId, UsageReportSrr, UsageReportTrigger};
    /// use pfcp_wire::msg::SessionReportRequest;
    /// let usage = [UsageReportSrr::new(UrrId(1), UrSeqn(0), UsageReportTrigger::PERIO)];
    /// let report = SessionReportRequest::new(ReportType::USAR).with_usage_reports(&usage);
    /// let response = up.send_session_report(7, &report).await?;
    /// assert!(response.is_accepted());
    /// # Ok(()) }
    /// ```
    pub async fn send_session_report(
        &self,
        local_seid: u64,
        report: &SessionReportRequest<'_>,
    ) -> Result<Response, Error> {
        self.outcome(|n, t| n.send_session_report(local_seid, report, t))
            .await
    }

    /// Set the CP Function Features this node advertises from now on
    /// ([`Node::set_cp_features`], clause 8.2.58).
    ///
    /// ```no_run
    /// # fn f(cp: pfcp_node::Endpoint) -> Result<(), pfcp_node::Error> {
    /// use pfcp_wire::ie::CpFunctionFeatures;
    /// cp.set_cp_features(CpFunctionFeatures::empty().with(CpFunctionFeatures::OVRL))?;
    /// # Ok(()) }
    /// ```
    pub fn set_cp_features(&self, features: CpFunctionFeatures) -> Result<(), Error> {
        self.shared.with_node(|n, _| n.set_cp_features(features))
    }

    /// Set the UP Function Features this node advertises from now on
    /// ([`Node::set_up_features`], clause 8.2.25).
    ///
    /// ```no_run
    /// # fn f(up: pfcp_node::Endpoint) -> Result<(), pfcp_node::Error> {
    /// use pfcp_wire::ie::UpFunctionFeatures;
    /// up.set_up_features(UpFunctionFeatures::empty().with(UpFunctionFeatures::FTUP))?;
    /// # Ok(()) }
    /// ```
    pub fn set_up_features(&self, features: UpFunctionFeatures) -> Result<(), Error> {
        self.shared.with_node(|n, _| n.set_up_features(features))
    }

    /// Start a request on the node with `start` and wait for its outcome.
    async fn outcome(
        &self,
        start: impl FnOnce(&mut Node, Instant) -> Result<RequestId, RequestError>,
    ) -> Result<Response, Error> {
        tokio::task::coop::consume_budget().await;
        let (reply, rx) = oneshot::channel();
        self.shared.with_shell(|s, t| {
            let id = start(&mut s.node, t)?;
            s.replies.insert(id, reply);
            Ok::<(), Error>(())
        })??;
        rx.await.map_err(|_| Error::Closed)?
    }
}

/// `Ok` if `r` accepts its request, else [`Error::Rejected`] with its Cause.
fn accepted(r: &Response) -> Result<(), Error> {
    match r.cause {
        Some(c) if c.is_acceptance() == Some(true) => Ok(()),
        Some(c) => Err(Error::Rejected(c)),
        None => Err(Error::Rejected(Cause::MANDATORY_IE_MISSING)),
    }
}
