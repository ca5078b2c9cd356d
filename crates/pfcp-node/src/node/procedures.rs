//! The procedures a node starts besides Association Setup and Heartbeat: Association Update
//! (clause 6.2.7), Association Release (6.2.8), Node Report (6.2.9) and, on a UP function,
//! Session Report (6.3.5). Their requests are built with `pfcp-wire`'s typed messages and sent
//! without a throttling decision (node messages; a Session Report Request passes the UP's
//! report egress throttle as every one does).

use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use pfcp_throttle::MessageKind;
use pfcp_wire::ie::{CpFunctionFeatures, UpFunctionFeatures};
use pfcp_wire::msg::{AssociationReleaseRequest, SessionReportRequest};
use pfcp_wire::{Cause, EncodeError, Header, Message, MessageType, SequenceNumber};

use pfcp_overload::NodeKey;

use super::{Node, Outstanding, Purpose, RequestError, RequestId, RequestProfile, ResponseOrigin};
use crate::peer::Role;
use crate::procedures::{update_request, AssociationUpdate, NodeReport};

impl Node {
    /// Release the PFCP association with `peer` (Association Release Request, clause 6.2.8,
    /// Table 7.4.4.5-1). When the peer accepts it, the association ends here too: it is not
    /// set up again, [`PeerEvent::Released`](crate::PeerEvent::Released) is reported, then the
    /// sessions held with the peer
    /// ([`PeerEvent::SessionsLost`](crate::PeerEvent::SessionsLost)); the outcome carries the
    /// response. So does an answer with Cause 72 (the peer holds no association any more); any
    /// other rejection, or a timeout, leaves the association as it was.
    ///
    /// Without an association with `peer` the outcome is a local answer with Cause 72
    /// ([`ResponseOrigin::NoAssociation`]) and nothing is sent.
    ///
    /// ```
    /// # use std::time::Instant;
    /// # use pfcp_node::node::{Node, NodeConfig, NodeEvent};
    /// # use pfcp_node::{LocalNode, PeerEvent};
    /// # use pfcp_overload::NodeKey;
    /// # use pfcp_wire::ie::RecoveryTimeStamp;
    /// # let t0 = Instant::now();
    /// # let (up_addr, cp_addr) = ("192.0.2.1:8805".parse()?, "192.0.2.10:8805".parse()?);
    /// # let mut up = Node::new(NodeConfig::new(LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(1))), t0)?;
    /// # let mut cp = Node::new(NodeConfig::new(LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(2))), t0)?;
    /// # let mut pump = |cp: &mut Node, up: &mut Node| for _ in 0..3 {
    /// #     while let Some(t) = cp.poll_transmit() { up.handle_datagram(cp_addr, t.bytes, t0); }
    /// #     while let Some(t) = up.poll_transmit() { cp.handle_datagram(up_addr, t.bytes, t0); }
    /// # };
    /// # cp.associate(up_addr, t0)?;
    /// # pump(&mut cp, &mut up);
    /// # while cp.poll_event().is_some() {}
    /// // The CP function releases its association with the UP function (clause 6.2.8).
    /// let id = cp.release_association(up_addr, t0)?;
    /// pump(&mut cp, &mut up);
    /// let events: Vec<NodeEvent> = std::iter::from_fn(|| cp.poll_event()).collect();
    /// assert!(events.iter().any(|e| matches!(e, NodeEvent::Peer(PeerEvent::Released { .. }))));
    /// assert!(events.iter().any(|e| matches!(e, NodeEvent::Outcome { id: i, result: Ok(r) } if *i == id && r.is_accepted())));
    /// assert!(!cp.peers().is_associated(&up_addr) && !up.peers().is_associated(&cp_addr));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn release_association(
        &mut self,
        peer: SocketAddr,
        now: Instant,
    ) -> Result<RequestId, RequestError> {
        let id = self.next_request_id();
        let t = MessageType::ASSOCIATION_RELEASE_REQUEST;
        if self.no_association(id, peer, t) {
            return Ok(id);
        }
        let key = self.local_node_id();
        self.send_node_message(peer, t, Purpose::Release(id), now, |seq| {
            AssociationReleaseRequest::new(node_id(&key)?)
                .with_sequence(seq)
                .to_vec()
        })?;
        Ok(id)
    }

    /// Update the PFCP association with `peer` (Association Update Request, clause 6.2.7,
    /// Table 7.4.4.3-1): with this node's features ([`AssociationUpdate::features`]; see
    /// [`Node::set_cp_features`], [`Node::set_up_features`]) and, from a UP function, a request
    /// to release the association or a graceful release period
    /// ([`AssociationUpdate::release`]). The peer answers it and reports it
    /// ([`PeerEvent::FeaturesUpdated`](crate::PeerEvent::FeaturesUpdated),
    /// [`PeerEvent::ReleaseRequested`](crate::PeerEvent::ReleaseRequested)); the outcome
    /// carries its response.
    ///
    /// Without an association with `peer` the outcome is a local answer with Cause 72 and
    /// nothing is sent.
    ///
    /// ```
    /// # use std::time::Instant;
    /// # use pfcp_node::node::{Node, NodeConfig, NodeEvent};
    /// # use pfcp_node::procedures::{AssociationUpdate, ReleasePreparation};
    /// # use pfcp_node::{LocalNode, PeerEvent};
    /// # use pfcp_overload::NodeKey;
    /// # use pfcp_wire::ie::RecoveryTimeStamp;
    /// # let t0 = Instant::now();
    /// # let (up_addr, cp_addr) = ("192.0.2.1:8805".parse()?, "192.0.2.10:8805".parse()?);
    /// # let mut up = Node::new(NodeConfig::new(LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(1))), t0)?;
    /// # let mut cp = Node::new(NodeConfig::new(LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(2))), t0)?;
    /// # let mut pump = |cp: &mut Node, up: &mut Node| for _ in 0..3 {
    /// #     while let Some(t) = cp.poll_transmit() { up.handle_datagram(cp_addr, t.bytes, t0); }
    /// #     while let Some(t) = up.poll_transmit() { cp.handle_datagram(up_addr, t.bytes, t0); }
    /// # };
    /// # cp.associate(up_addr, t0)?;
    /// # pump(&mut cp, &mut up);
    /// # while cp.poll_event().is_some() {}
    /// // The UP function is going down: it asks the CP function to release the association.
    /// up.update_association(cp_addr, &AssociationUpdate::release(ReleasePreparation::release()), t0)?;
    /// pump(&mut cp, &mut up);
    /// let asked = std::iter::from_fn(|| cp.poll_event()).any(|e| matches!(
    ///     e,
    ///     NodeEvent::Peer(PeerEvent::ReleaseRequested { preparation, .. }) if preparation.sarr
    /// ));
    /// assert!(asked && cp.peers().is_associated(&up_addr));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update_association(
        &mut self,
        peer: SocketAddr,
        update: &AssociationUpdate,
        now: Instant,
    ) -> Result<RequestId, RequestError> {
        let id = self.next_request_id();
        let t = MessageType::ASSOCIATION_UPDATE_REQUEST;
        if self.no_association(id, peer, t) {
            return Ok(id);
        }
        let key = self.local_node_id();
        let (cp, up) = match (update.features, self.local.role) {
            (true, Role::Cp) => (Some(self.local.cp_features), None),
            (true, Role::Up) => (None, Some(self.local.up_features)),
            (false, _) => (None, None),
        };
        let release = update.release_tlvs()?;
        self.send_node_message(peer, t, Purpose::App(id), now, |seq| {
            update_request(node_id(&key)?, cp, up, &release)?
                .with_sequence(seq)
                .to_vec()
        })?;
        Ok(id)
    }

    /// Send a Node Report Request to the CP function at `peer` (clause 6.2.9, Table
    /// 7.4.5.1.1-1): a user plane path failure or recovery ([`NodeReport::path_failure`],
    /// [`NodeReport::path_recovery`]). The CP function's node answers it and reports it
    /// ([`PeerEvent::NodeReport`](crate::PeerEvent::NodeReport)); the outcome carries the
    /// response.
    ///
    /// Without an association with `peer` the outcome is a local answer with Cause 72 and
    /// nothing is sent.
    ///
    /// ```
    /// # use std::net::Ipv4Addr;
    /// # use std::time::Instant;
    /// # use pfcp_node::node::{Node, NodeConfig, NodeEvent};
    /// # use pfcp_node::procedures::{NodeReport, RemoteGtpuPeer};
    /// # use pfcp_node::{LocalNode, PeerEvent};
    /// # use pfcp_overload::NodeKey;
    /// # use pfcp_wire::ie::RecoveryTimeStamp;
    /// # let t0 = Instant::now();
    /// # let (up_addr, cp_addr) = ("192.0.2.1:8805".parse()?, "192.0.2.10:8805".parse()?);
    /// # let mut up = Node::new(NodeConfig::new(LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(1))), t0)?;
    /// # let mut cp = Node::new(NodeConfig::new(LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(2))), t0)?;
    /// # let mut pump = |cp: &mut Node, up: &mut Node| for _ in 0..3 {
    /// #     while let Some(t) = cp.poll_transmit() { up.handle_datagram(cp_addr, t.bytes, t0); }
    /// #     while let Some(t) = up.poll_transmit() { cp.handle_datagram(up_addr, t.bytes, t0); }
    /// # };
    /// # cp.associate(up_addr, t0)?;
    /// # pump(&mut cp, &mut up);
    /// # while cp.poll_event().is_some() {}
    /// let gnb = RemoteGtpuPeer::ipv4(Ipv4Addr::new(198, 51, 100, 7));
    /// let id = up.send_node_report(cp_addr, &NodeReport::path_failure([gnb]), t0)?;
    /// pump(&mut cp, &mut up);
    /// let reported = std::iter::from_fn(|| cp.poll_event()).any(|e| matches!(
    ///     e,
    ///     NodeEvent::Peer(PeerEvent::NodeReport { report, .. }) if report.path_failure == [gnb]
    /// ));
    /// let accepted = std::iter::from_fn(|| up.poll_event()).any(|e| matches!(
    ///     e,
    ///     NodeEvent::Outcome { id: i, result: Ok(r) } if i == id && r.is_accepted()
    /// ));
    /// assert!(reported && accepted);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn send_node_report(
        &mut self,
        peer: SocketAddr,
        report: &NodeReport,
        now: Instant,
    ) -> Result<RequestId, RequestError> {
        let id = self.next_request_id();
        let t = MessageType::NODE_REPORT_REQUEST;
        if self.no_association(id, peer, t) {
            return Ok(id);
        }
        let key = self.local_node_id();
        let tlvs = report.tlvs()?;
        self.send_node_message(peer, t, Purpose::App(id), now, |seq| {
            tlvs.request(node_id(&key)?)?.with_sequence(seq).to_vec()
        })?;
        Ok(id)
    }

    /// Send a Session Report Request on the session this UP function knows by its own SEID
    /// `local_seid` (clause 6.3.5, Table 7.5.8.1-1): to the CP function that established it,
    /// with the CP's SEID in the header (the session table holds both; `report`'s header
    /// SEID and sequence number are ignored). It passes the report egress throttle
    /// ([`NodeConfig::report_egress`](super::NodeConfig::report_egress)) and carries this
    /// UP's OCI/LCI when due, as every Session Report Request through
    /// [`Node::send_request`]. The outcome carries the CP function's Session Report Response.
    ///
    /// [`RequestError::UnknownSession`] if the node holds no session `local_seid` (nothing
    /// sent, no outcome).
    ///
    /// ```
    /// # use std::time::Instant;
    /// # use pfcp_node::node::{Node, NodeConfig, NodeEvent};
    /// # use pfcp_node::{LocalNode, RequestError};
    /// # use pfcp_overload::NodeKey;
    /// # use pfcp_wire::ie::{RecoveryTimeStamp, ReportType, UrSeqn, UrrId, UsageReportSrr, UsageReportTrigger};
    /// # use pfcp_wire::msg::SessionReportRequest;
    /// # let t0 = Instant::now();
    /// # let mut up = Node::new(NodeConfig::new(LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(1))), t0)?;
    /// let usage = [UsageReportSrr::new(UrrId(1), UrSeqn(0), UsageReportTrigger::PERIO)];
    /// let report = SessionReportRequest::new(ReportType::USAR).with_usage_reports(&usage);
    /// // No session 7 yet: nothing is sent.
    /// assert!(matches!(
    ///     up.send_session_report(7, &report, t0),
    ///     Err(RequestError::UnknownSession(7))
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn send_session_report(
        &mut self,
        local_seid: u64,
        report: &SessionReportRequest<'_>,
        now: Instant,
    ) -> Result<RequestId, RequestError> {
        let Some(session) = self.sessions.get(local_seid) else {
            return Err(RequestError::UnknownSession(local_seid));
        };
        let (peer, cp_seid) = (session.peer, session.remote_seid);
        let encoded = report.to_vec()?;
        let msg = Message::decode(&encoded)
            .map_err(|_| EncodeError::InvalidValue("session report does not decode"))?;
        let mut header = Header::new(MessageType::SESSION_REPORT_REQUEST).with_seid(cp_seid);
        if let Some(p) = report.header.priority {
            header = header.with_priority(p);
        }
        self.send_request(peer, header, msg.body(), &RequestProfile::default(), now)
    }

    /// Set the CP Function Features this node advertises from now on (Association Setup,
    /// and Association Update with [`AssociationUpdate::features`]; clause 8.2.58).
    ///
    /// ```
    /// # use std::time::Instant;
    /// # use pfcp_node::node::{Node, NodeConfig};
    /// # use pfcp_node::LocalNode;
    /// # use pfcp_overload::NodeKey;
    /// use pfcp_wire::ie::{CpFunctionFeatures, RecoveryTimeStamp};
    /// let local = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(1));
    /// let mut cp = Node::new(NodeConfig::new(local), Instant::now())?;
    /// // No longer LOAD, only OVRL: the next Association Update with features says so.
    /// cp.set_cp_features(CpFunctionFeatures::empty().with(CpFunctionFeatures::OVRL));
    /// assert!(!cp.local().cp_features.contains(CpFunctionFeatures::LOAD));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_cp_features(&mut self, features: CpFunctionFeatures) {
        self.local.cp_features = features;
    }

    /// Set the UP Function Features this node advertises from now on (Association Setup,
    /// and Association Update with [`AssociationUpdate::features`]; clause 8.2.25).
    ///
    /// ```
    /// # use std::time::Instant;
    /// # use pfcp_node::node::{Node, NodeConfig};
    /// # use pfcp_node::LocalNode;
    /// # use pfcp_overload::NodeKey;
    /// use pfcp_wire::ie::{RecoveryTimeStamp, UpFunctionFeatures};
    /// let local = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(1));
    /// let mut up = Node::new(NodeConfig::new(local), Instant::now())?;
    /// up.set_up_features(UpFunctionFeatures::empty().with(UpFunctionFeatures::FTUP));
    /// assert!(up.local().up_features.contains(UpFunctionFeatures::FTUP));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_up_features(&mut self, features: UpFunctionFeatures) {
        self.local.up_features = features;
    }

    /// Answer request `id` of type `t` to `peer` locally with Cause 72 if there is no
    /// association with `peer` (clause 6.2.6.1: node procedures run over an association);
    /// whether it did.
    fn no_association(&mut self, id: RequestId, peer: SocketAddr, t: MessageType) -> bool {
        if self.peers.is_associated(&peer) {
            return false;
        }
        self.answer_locally(
            id,
            peer,
            &Header::new(t),
            Cause::NO_ESTABLISHED_PFCP_ASSOCIATION,
            ResponseOrigin::NoAssociation,
        );
        true
    }

    /// This node's Node ID (its IE is written from it).
    fn local_node_id(&self) -> NodeKey {
        self.local.node_id.clone()
    }

    /// Send a node message of type `t` that `build` encodes with its sequence number, as a
    /// transaction of `purpose` (counted in the connection's egress rate as management).
    fn send_node_message(
        &mut self,
        peer: SocketAddr,
        t: MessageType,
        purpose: Purpose,
        now: Instant,
        build: impl FnOnce(SequenceNumber) -> Result<Vec<u8>, EncodeError>,
    ) -> Result<(), RequestError> {
        let seq = self.sequence_for(peer);
        let bytes = Bytes::from(build(seq)?);
        self.count_egress(peer, MessageKind::Management, now);
        let tx = self.xact.send_request_parts(peer, bytes, t, seq, now)?;
        self.outstanding.insert(
            tx,
            Outstanding {
                purpose,
                message_type: t,
                seid: None,
                dest: None,
                report: false,
                f_seid: None,
                tracked: None,
                exempt: false,
                epoch: self.peers.epoch(&peer),
            },
        );
        Ok(())
    }
}

/// The Node ID IE of `key`.
fn node_id(key: &NodeKey) -> Result<pfcp_wire::ie::NodeId<'_>, EncodeError> {
    key.to_node_id()
        .map_err(|_| EncodeError::InvalidValue("local Node ID is not a valid FQDN"))
}
