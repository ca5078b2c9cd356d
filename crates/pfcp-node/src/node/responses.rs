//! What becomes of a request this node sent: its response (the CP's overload and load view
//! fed from it, the application's answer), its timeout after the last retransmission, and a
//! response that does not decode.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use pfcp_wire::{Cause, DecodeError, IeType, Message, MessageType};
use tracing::debug;

use super::{
    Node, NodeEvent, Outstanding, Purpose, RequestError, RequestId, Response, ResponseOrigin,
};
use crate::xact::TxId;

impl Node {
    /// The response `msg` (octets `bytes`) to this node's request `tx` from `peer`.
    pub(super) fn on_response(
        &mut self,
        tx: TxId,
        peer: SocketAddr,
        msg: &Message<'_>,
        bytes: Bytes,
        transmissions: u32,
        now: Instant,
    ) {
        let Some(o) = self.outstanding.remove(&tx) else {
            debug!(%peer, "response for an abandoned request");
            return;
        };
        if o.report {
            self.report_ended(&peer);
        }
        // One walk over the IEs reads what the node needs; a response that fails the
        // receiver's checks is still read IE by IE.
        let view = msg.view().ok();
        let cause = match &view {
            Some(v) => v.cause,
            None => msg.cause().ok().flatten(),
        };
        if let Some(dest) = o.dest.as_ref() {
            // An establishment's UP F-SEID names the entity for the OCI it carries.
            let entity = if o.message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST {
                None
            } else {
                dest.entity
            };
            let refused = o.exempt && cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION);
            self.with_link(peer, |cp, link| {
                match &view {
                    Some(v) => cp.handle_view(link, entity, v, now),
                    None => cp.handle_message(link, entity, msg, now),
                };
                cp.transaction_ended(link);
                let carried_oci = match &view {
                    Some(v) => v.overload_control_information.is_some(),
                    None => msg.find(IeType::OVERLOAD_CONTROL_INFORMATION).is_some(),
                };
                cp.answered(link, o.message_type, cause, carried_oci, now);
                if refused {
                    cp.exempt_refused(link, now);
                }
            });
        }
        let accepted = cause.and_then(Cause::is_acceptance) == Some(true);
        if accepted {
            let up_f_seid = match &view {
                Some(v) => v.f_seid,
                None => msg.f_seid().ok().flatten(),
            };
            self.record_sent_session(&o, peer, up_f_seid);
            let (session, ue) = match o.tracked {
                Some((s, ue)) => (Some(s), ue),
                None => (None, None),
            };
            // An establishment without a tracker key yet: its CP F-SEID's SEID.
            let session = session.or(o.f_seid.map(|f| f.seid));
            self.track_accepted(o.message_type, session, ue, peer, now);
        }
        match o.purpose {
            Purpose::App(id) => {
                // Cause 72 to a request sent under an association set up again since (a
                // restarted peer's answer to what was sent before) ends nothing.
                if cause == Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION)
                    && o.epoch == self.peers.epoch(&peer)
                {
                    self.lost_association(peer, now);
                }
                self.events
                    .push_back(answered(id, peer, bytes, cause, transmissions));
            }
            Purpose::Associate(id) => {
                for e in self.peers.handle_setup_response(peer, msg, now) {
                    self.on_peer_event(e, now);
                }
                let associated = self.peers.is_associated(&peer);
                if let Some(k) = self.kept_mut(&peer) {
                    if k.attempt == Some(tx) {
                        k.attempt = None;
                        if associated {
                            k.next = None;
                        }
                    }
                }
                if let Some(id) = id {
                    self.events
                        .push_back(answered(id, peer, bytes, cause, transmissions));
                }
            }
            Purpose::Release(id) => {
                // Clause 6.2.8: the association and its sessions end once the peer accepts;
                // a peer that holds none (Cause 72) has released it already.
                if accepted || cause == Some(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION) {
                    if let Some(e) = self.peers.released(peer) {
                        self.on_peer_event(e, now);
                    }
                }
                self.events
                    .push_back(answered(id, peer, bytes, cause, transmissions));
            }
            Purpose::Heartbeat(id) => {
                self.heartbeat_over(peer, tx);
                if let Some(e) = self.peers.handle_heartbeat_response(peer, msg, now) {
                    self.on_peer_event(e, now);
                }
                self.read_heartbeat_lci(peer, msg, now);
                if let Some(id) = id {
                    self.events
                        .push_back(answered(id, peer, bytes, cause, transmissions));
                }
            }
        }
    }

    pub(super) fn on_request_timeout(
        &mut self,
        tx: TxId,
        peer: SocketAddr,
        transmissions: u32,
        now: Instant,
    ) {
        let Some(o) = self.outstanding.remove(&tx) else {
            debug!(%peer, "timeout for an abandoned request");
            return;
        };
        self.request_over(&o, peer);
        match o.purpose {
            Purpose::App(id) => self.events.push_back(NodeEvent::Outcome {
                id,
                result: Err(RequestError::Timeout { transmissions }),
            }),
            Purpose::Associate(id) => {
                if let Some(id) = id {
                    self.events.push_back(NodeEvent::Outcome {
                        id,
                        result: Err(RequestError::Timeout { transmissions }),
                    });
                }
                if let Some(k) = self.kept_mut(&peer) {
                    if k.attempt == Some(tx) {
                        k.attempt = None;
                        if k.next.is_none() {
                            k.next = Some(now);
                        }
                    }
                }
            }
            Purpose::Release(id) => self.events.push_back(NodeEvent::Outcome {
                id,
                result: Err(RequestError::Timeout { transmissions }),
            }),
            Purpose::Heartbeat(id) => {
                self.heartbeat_over(peer, tx);
                if let Some(id) = id {
                    self.events.push_back(NodeEvent::Outcome {
                        id,
                        result: Err(RequestError::Timeout { transmissions }),
                    });
                }
                // Path failure: the peer stopped answering (6.2.2).
                if self.peers.is_associated(&peer) {
                    if let Some(e) = self.peers.fail(peer) {
                        self.on_peer_event(e, now);
                    }
                }
            }
        }
    }

    pub(super) fn on_malformed_response(
        &mut self,
        tx: TxId,
        peer: SocketAddr,
        error: DecodeError,
        transmissions: u32,
        now: Instant,
    ) {
        let Some(o) = self.outstanding.remove(&tx) else {
            return;
        };
        self.request_over(&o, peer);
        match o.purpose {
            Purpose::App(id)
            | Purpose::Release(id)
            | Purpose::Associate(Some(id))
            | Purpose::Heartbeat(Some(id)) => {
                self.events.push_back(NodeEvent::Outcome {
                    id,
                    result: Err(RequestError::MalformedResponse(error)),
                });
            }
            _ => {}
        }
        let _ = (transmissions, now);
    }

    /// The node's own heartbeat `tx` to `peer` is over (answered or timed out).
    fn heartbeat_over(&mut self, peer: SocketAddr, tx: TxId) {
        if let Some(p) = self.peers.record_at_mut(&peer) {
            if p.heartbeat == Some(tx) {
                p.heartbeat = None;
            }
        }
    }

    /// Free what an outstanding request held in the throttles.
    fn request_over(&mut self, o: &Outstanding, peer: SocketAddr) {
        if o.report {
            self.report_ended(&peer);
        }
        if o.dest.is_some() {
            self.with_link(peer, |cp, link| cp.transaction_ended(link));
        }
    }
}

/// The outcome of request `id`: the peer's response.
fn answered(
    id: RequestId,
    peer: SocketAddr,
    bytes: Bytes,
    cause: Option<Cause>,
    transmissions: u32,
) -> NodeEvent {
    NodeEvent::Outcome {
        id,
        result: Ok(Response {
            peer,
            bytes,
            cause,
            origin: ResponseOrigin::Peer,
            transmissions,
        }),
    }
}
