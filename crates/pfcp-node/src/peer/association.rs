//! The association procedures of the peer table: a peer's restart seen in its Recovery Time
//! Stamp, Association Setup and Heartbeat requests and responses (TS 29.244 clauses 6.2.2,
//! 6.2.6), and a peer lost.

use super::*;

impl Peers {
    /// Record a Recovery Time Stamp heard from `peer`: returns [`PeerEvent::Restarted`] if
    /// an association with `peer` is established and the stamp differs from the one stored
    /// (clauses 6.2.2.1, 6.2.6.1; see the [module docs](super#restart-detection)). The
    /// association then ends and the new stamp is kept.
    ///
    /// Without an association nothing is recorded and `None` is returned: restart detection
    /// applies to associated peers only, so an unauthenticated datagram cannot reset state.
    pub fn observe_recovery(
        &mut self,
        peer: SocketAddr,
        rts: RecoveryTimeStamp,
        now: Instant,
    ) -> Option<PeerEvent> {
        let info = &mut self
            .record_at_mut(&peer)
            .filter(|p| p.info.associated)?
            .info;
        info.last_seen = now;
        let old = info.recovery_time_stamp.replace(rts);
        // Equality, not order: the field wraps in 2036 (clause 8.2.65).
        match old {
            Some(o) if o != rts => {
                info.associated = false;
                Some(PeerEvent::Restarted {
                    peer,
                    node: info.node.clone(),
                })
            }
            _ => None,
        }
    }

    /// Establish (or re-establish) the association with `peer` from an Association Setup
    /// Request or an accepted Response: a changed stamp of an associated peer is a restart,
    /// reported before the new association (clauses 6.2.6.2, 6.2.6.3). `None` if `peer` is
    /// new and the table is full.
    fn associate(
        &mut self,
        peer: SocketAddr,
        node: NodeKey,
        msg: &Message<'_>,
        now: Instant,
    ) -> Option<Vec<PeerEvent>> {
        let id = self.insert(peer, now)?;
        let rts = msg.recovery_time_stamp().ok().flatten();
        let mut events: Vec<PeerEvent> = rts
            .and_then(|r| self.observe_recovery(peer, r, now))
            .into_iter()
            .collect();
        let record = self.record_mut(id)?;
        let info = &mut record.info;
        if rts.is_some() {
            info.recovery_time_stamp = rts;
        }
        let renamed = info.node.as_ref().filter(|n| **n != node).cloned();
        info.node = Some(node.clone());
        info.associated = true;
        info.last_seen = now;
        record.epoch = record.epoch.wrapping_add(1);
        let info = &mut record.info;
        info.cp_features = msg.cp_function_features().ok().flatten();
        info.up_features = msg.up_function_features().ok().flatten();
        if let Some(old) = renamed {
            if self.by_node.get(&old) == Some(&id) {
                self.by_node.remove(&old);
            }
        }
        self.by_node.insert(node.clone(), id);
        events.push(PeerEvent::Associated { peer, node });
        Some(events)
    }

    /// Answer a node-related request (Heartbeat, Association Setup/Update/Release, Node
    /// Report) from `peer`. Returns `None` if `msg` is not one of those.
    pub fn handle_request(
        &mut self,
        local: &LocalNode,
        peer: SocketAddr,
        msg: &Message<'_>,
        now: Instant,
    ) -> Option<Result<NodeAnswer, PeerError>> {
        let t = msg.message_type();
        let seq = msg.header().sequence;
        let answer = match t {
            MessageType::HEARTBEAT_REQUEST => self.heartbeat(local, peer, msg, seq, now),
            MessageType::ASSOCIATION_SETUP_REQUEST => self.setup(local, peer, msg, seq, now),
            MessageType::ASSOCIATION_UPDATE_REQUEST => self.update(local, peer, msg, seq, now),
            MessageType::ASSOCIATION_RELEASE_REQUEST => self.release(local, peer, seq),
            MessageType::NODE_REPORT_REQUEST => self.node_report(local, peer, msg, seq, now),
            _ => return None,
        };
        Some(answer)
    }

    fn heartbeat(
        &mut self,
        local: &LocalNode,
        peer: SocketAddr,
        msg: &Message<'_>,
        seq: SequenceNumber,
        now: Instant,
    ) -> Result<NodeAnswer, PeerError> {
        let mut answer = NodeAnswer::default();
        // Clause 6.2.2.2: answer even unknown peers; a malformed Heartbeat is still answered
        // (7.6: no rejection for Heartbeat), only restart detection needs the stamp, and only
        // an associated peer's stamp counts (see the module docs).
        if let Ok(Some(rts)) = msg.recovery_time_stamp() {
            if let Some(e) = self.observe_recovery(peer, rts, now) {
                answer.events.push(e);
            }
        }
        answer.response = Some(heartbeat_message(
            local,
            MessageType::HEARTBEAT_RESPONSE,
            seq,
        )?);
        Ok(answer)
    }

    fn setup(
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
                MessageType::ASSOCIATION_SETUP_RESPONSE,
                seq,
                cause,
                offending,
                true,
            )
        };
        if let Err(e) = msg.validate() {
            answer.response = Some(respond(e.cause(), e.offending_ie().map(OffendingIe))?);
            return Ok(answer);
        }
        let node = match msg.node_id() {
            Ok(Some(n)) => NodeKey::from_node_id(&n),
            _ => {
                answer.response = Some(respond(
                    Cause::MANDATORY_IE_INCORRECT,
                    Some(OffendingIe(pfcp_wire::IeType::NODE_ID)),
                )?);
                return Ok(answer);
            }
        };
        match self.associate(peer, node, msg, now) {
            Some(events) => {
                answer.events = events;
                answer.response = Some(respond(Cause::REQUEST_ACCEPTED, None)?);
            }
            None => answer.response = Some(respond(Cause::NO_RESOURCES_AVAILABLE, None)?),
        }
        Ok(answer)
    }

    /// Record the answer to an Association Setup Request this node sent. From a peer already
    /// associated, a changed Recovery Time Stamp is a restart (reported even if the answer is
    /// a rejection: the old association is gone either way); an accepted answer then
    /// establishes the association (see the [module docs](super#restart-detection)).
    pub fn handle_setup_response(
        &mut self,
        peer: SocketAddr,
        msg: &Message<'_>,
        now: Instant,
    ) -> Vec<PeerEvent> {
        let accepted = matches!(msg.cause(), Ok(Some(c)) if c.is_acceptance() == Some(true));
        let node = msg
            .node_id()
            .ok()
            .flatten()
            .map(|n| NodeKey::from_node_id(&n));
        match (accepted, node) {
            (true, Some(node)) => self.associate(peer, node, msg, now).unwrap_or_default(),
            _ => match msg.recovery_time_stamp() {
                Ok(Some(rts)) => self.observe_recovery(peer, rts, now).into_iter().collect(),
                _ => Vec::new(),
            },
        }
    }

    /// Record a Heartbeat Response from `peer`: a changed Recovery Time Stamp of an
    /// associated peer is a restart ([`Peers::observe_recovery`]); from anyone else it
    /// changes nothing.
    pub fn handle_heartbeat_response(
        &mut self,
        peer: SocketAddr,
        msg: &Message<'_>,
        now: Instant,
    ) -> Option<PeerEvent> {
        match msg.recovery_time_stamp() {
            Ok(Some(rts)) => self.observe_recovery(peer, rts, now),
            _ => None,
        }
    }

    /// The peer answered a request with Cause 72 (it holds no association with this node):
    /// the association ends here too. `None` if it was not associated.
    pub fn lost(&mut self, peer: SocketAddr) -> Option<PeerEvent> {
        let info = &mut self
            .record_at_mut(&peer)
            .filter(|p| p.info.associated)?
            .info;
        info.associated = false;
        Some(PeerEvent::NotAssociated {
            peer,
            node: info.node.clone(),
        })
    }

    /// The peer missed its heartbeats: it is considered failed and its association ends.
    pub fn fail(&mut self, peer: SocketAddr) -> Option<PeerEvent> {
        let info = &mut self.record_at_mut(&peer)?.info;
        info.associated = false;
        Some(PeerEvent::Failed {
            peer,
            node: info.node.clone(),
        })
    }
}
