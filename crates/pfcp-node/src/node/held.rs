//! Application requests the CP pipeline holds ([`CpDecision::Hold`]): eMPS and emergency
//! requests the Loss throttle shed, waiting for the place of a lower-priority request to the
//! same UP function (`CpConfig::exempt_hold`, TS 29.244 clause 6.2.4.5.1). The pipeline
//! decides; the node keeps the bytes and carries out the outcome.
//!
//! [`CpDecision::Hold`]: crate::cp::CpDecision::Hold

use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use pfcp_wire::{Cause, Header};
use tracing::debug;

use super::{Node, NodeEvent, RequestId, ResponseOrigin};
use crate::cp::{Destination, HoldOutcome, RejectReason};

/// A held request, as [`Node::send_request`] had it after the pipeline's decision.
#[derive(Debug, Clone)]
pub(super) struct HeldRequest {
    pub(super) id: RequestId,
    pub(super) peer: SocketAddr,
    /// With the message priority the pipeline chose, if the node sets it.
    pub(super) header: Header,
    pub(super) ies: Bytes,
    pub(super) dest: Destination,
    pub(super) tracked: Option<(u64, Option<u64>)>,
}

impl Node {
    /// Carry out the pipeline's outcomes of held requests: send them, or fail them locally as
    /// the Loss throttle's rejection (cause 74).
    pub(super) fn settle_holds(&mut self, now: Instant) {
        while let Some((ticket, outcome)) = self.cp.as_mut().and_then(|cp| cp.poll_hold()) {
            let Some(held) = self.held.remove(&ticket) else {
                continue;
            };
            match outcome {
                HoldOutcome::Send => {
                    debug!(peer = %held.peer, ticket = ticket.get(), "held request sent");
                    let HeldRequest {
                        id,
                        peer,
                        header,
                        ies,
                        dest,
                        tracked,
                    } = held;
                    if let Err(e) =
                        self.transmit_app(id, peer, header, &ies, Some(dest), tracked, true, now)
                    {
                        self.events
                            .push_back(NodeEvent::Outcome { id, result: Err(e) });
                    }
                }
                HoldOutcome::Reject(why) => {
                    debug!(peer = %held.peer, ticket = ticket.get(), "held request throttled");
                    self.answer_locally(
                        held.id,
                        held.peer,
                        &held.header,
                        Cause::PFCP_ENTITY_IN_CONGESTION,
                        ResponseOrigin::Throttled(RejectReason::Loss(why)),
                    );
                }
            }
        }
    }
}
