//! The value types of a [`Node`](super::Node): request identifiers and contexts, what the
//! application receives (requests, responses, outcomes, events) and the counters.

use std::fmt;
use std::net::{IpAddr, SocketAddr};

use bytes::Bytes;
use pfcp_overload::NodeKey;
use pfcp_throttle::classify::{ArpLevels, Procedure, RequestState};
use pfcp_throttle::RequestContext;
use pfcp_wire::ie::FSeid;
use pfcp_wire::{
    Cause, DecodeError, EncodeError, Message, MessagePriority, MessageType, SequenceNumber,
};

use crate::cp::RejectReason;
use crate::peer::PeerEvent;
use crate::xact::XactError;

/// Identifies a request this node sends ([`Node::send_request`](super::Node::send_request),
/// [`Node::associate`](super::Node::associate), [`Node::heartbeat`](super::Node::heartbeat));
/// unique per node, never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "req{}", self.0)
    }
}

/// What a CP function knows about a request, for its priority and throttling, and where it
/// goes: the classifier's [`RequestContext`] (owned), and what only the node uses.
///
/// The context's `procedure` left `None` is the message type's
/// ([`Procedure::of`]); its `state` holds the caller's C.2 facts (TS 29.273 Annex C.2), field
/// by field over the node's [`StateTracker`](pfcp_throttle::StateTracker): a `Some` wins
/// (`false` included), a `None` leaves the fact to the tracker, then to the classifier's
/// table.
///
/// ```
/// use pfcp_node::RequestProfile;
/// use pfcp_throttle::classify::{Registration, RequestState};
///
/// let p = RequestProfile::default()
///     .with_arp(&[2])
///     .with_state(RequestState::UNKNOWN.with_registration(Registration::Registered))
///     .with_redirect(true);
/// assert_eq!(p.context.arp.highest(), Some(2));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestProfile {
    /// What the classifier sees (TS 29.244 6.2.4.5, TS 29.273 Annex C.2): emergency, eMPS,
    /// ARP levels, Low Access Priority, DNN, S-NSSAI, the caller's C.2 facts.
    pub context: RequestContext<'static>,
    /// The UP PFCP entity (UP F-SEID address) of the session, for entity-scoped overload.
    /// `None`: the node's session table says (clause 6.2.4.3.1), from the header SEID.
    pub entity: Option<IpAddr>,
    /// Allow redirection of a throttled Session Establishment Request to an alternate UP.
    pub redirectable: bool,
    /// The session's key in the node's state tracker. `None`: the node's own SEID of the
    /// session (from the header SEID through the session table, or the CP F-SEID of a
    /// Session Establishment Request). Set it when re-establishing a lost session under a new
    /// SEID, so that the tracker sees the restoration.
    pub session: Option<u64>,
    /// The UE (or PDU session group) the session belongs to, for the tracker's "additional
    /// session" (C.2: a further session of a UE that has one ranks lower). `None`: unknown.
    pub ue: Option<u64>,
}

impl RequestProfile {
    /// A profile of this classifier context.
    pub fn of(context: RequestContext<'static>) -> Self {
        RequestProfile {
            context,
            ..RequestProfile::default()
        }
    }

    /// An emergency request.
    #[must_use]
    pub fn emergency() -> Self {
        RequestProfile::of(RequestContext::default().with_emergency(true))
    }

    /// An eMPS request.
    #[must_use]
    pub fn emps() -> Self {
        RequestProfile::of(RequestContext::default().with_emps(true))
    }

    /// With ARP priority levels.
    #[must_use]
    pub fn with_arp(mut self, levels: &[u8]) -> Self {
        self.context.arp = ArpLevels::from_levels(levels);
        self
    }

    /// With redirection allowed.
    #[must_use]
    pub fn with_redirect(mut self, redirectable: bool) -> Self {
        self.redirectable = redirectable;
        self
    }

    /// With the caller's C.2 facts (the context's `state`, see the type).
    #[must_use]
    pub fn with_state(mut self, state: RequestState) -> Self {
        self.context.state = state;
        self
    }

    /// With the session's tracker key (see the field).
    #[must_use]
    pub fn with_session(mut self, session: u64) -> Self {
        self.session = Some(session);
        self
    }

    /// With the UE of the session (see the field).
    #[must_use]
    pub fn with_ue(mut self, ue: u64) -> Self {
        self.ue = Some(ue);
        self
    }

    /// With the session's UP entity (overrides the session table).
    #[must_use]
    pub fn with_entity(mut self, entity: IpAddr) -> Self {
        self.entity = Some(entity);
        self
    }

    /// The classifier's view of it, for a request of `procedure` (unless the context names
    /// one), borrowing its DNN.
    pub fn context(&self, procedure: Option<Procedure>) -> RequestContext<'_> {
        let mut ctx = self.context.reborrow();
        ctx.procedure = ctx.procedure.or(procedure);
        ctx
    }
}

/// What the node needs to answer a request it delivered: give it back to
/// [`Node::respond`](super::Node::respond) or [`Node::reject`](super::Node::reject). Small and
/// `Copy`; the node keeps nothing per delivered request beyond the transaction layer's
/// duplicate detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestRef {
    /// Source address and port (the response goes back there, clause 4.2).
    pub peer: SocketAddr,
    /// The request's header sequence number (the response copies it).
    pub sequence: SequenceNumber,
    /// The request's message type.
    pub message_type: MessageType,
    /// The request's header message priority, if it had MP (the response copies it, clause
    /// 7.2.2.4.1).
    pub priority: Option<MessagePriority>,
    /// The request's header SEID (this node's SEID of the session), if it has one.
    pub seid: Option<u64>,
    /// The CP F-SEID of a Session Establishment Request (the SEID a response must carry in
    /// its header, and the session the node records when the response accepts it).
    pub cp_f_seid: Option<FSeid>,
}

impl RequestRef {
    /// The SEID the response's header carries: the CP's, from the CP F-SEID of a Session
    /// Establishment Request; otherwise it is the peer's SEID of the session, which the node
    /// looks up (see [`Node::respond`](super::Node::respond)).
    pub fn establishment_cp_seid(&self) -> Option<u64> {
        self.cp_f_seid.map(|f| f.seid)
    }
}

/// A request from a peer, for the application to answer.
#[derive(Debug, Clone)]
pub struct IncomingRequest {
    /// What the answer needs.
    pub reference: RequestRef,
    /// The message (one complete PFCP message, already decoded and validated by the node).
    pub bytes: Bytes,
    /// The peer's Node ID, from its association.
    pub node: Option<NodeKey>,
    /// The peer's SEID of the session the request concerns (the header SEID looked up in the
    /// node's session table), for the application's convenience.
    pub remote_seid: Option<u64>,
}

impl IncomingRequest {
    /// The decoded message (the node checked that it decodes).
    pub fn message(&self) -> Result<Message<'_>, DecodeError> {
        Message::decode(&self.bytes)
    }
}

/// Where a [`Response`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseOrigin {
    /// The peer answered.
    Peer,
    /// Not sent: this node's overload control refused it, and answers as though the UP
    /// function had rejected it (clause 6.2.4.4), with Cause 74.
    Throttled(RejectReason),
    /// Not sent: the peer has no PFCP association with this node (it restarted or failed and
    /// the node is setting the association up again), answered with Cause 72 (clause 6.2.6.1).
    NoAssociation,
}

/// The response to a request this node sent: the peer's, or one the node generated in its
/// place ([`ResponseOrigin`]). Both have the same shape, a response message of the request's
/// response type whose Cause says what happened, so an application handles a local refusal
/// and a peer's rejection in one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// Where the request went (after redirection), or would have gone.
    pub peer: SocketAddr,
    /// The response message.
    pub bytes: Bytes,
    /// Its Cause, if it has a readable one.
    pub cause: Option<Cause>,
    /// Who answered.
    pub origin: ResponseOrigin,
    /// How many times the request was sent (0 for a local answer).
    pub transmissions: u32,
}

impl Response {
    /// The decoded response.
    pub fn message(&self) -> Result<Message<'_>, DecodeError> {
        Message::decode(&self.bytes)
    }

    /// Whether this node generated it (the request was never sent).
    pub fn is_local(&self) -> bool {
        !matches!(self.origin, ResponseOrigin::Peer)
    }

    /// Whether the Cause accepts the request (clause 8.2.1).
    pub fn is_accepted(&self) -> bool {
        self.cause.and_then(Cause::is_acceptance) == Some(true)
    }
}

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// No response after `transmissions` (1 + N1), or the peer failed or restarted while it was
    /// outstanding (clause 6.2.2).
    #[error("no response after {transmissions} transmissions")]
    Timeout {
        /// Transmissions made.
        transmissions: u32,
    },
    /// The response was malformed (with
    /// [`TransactionConfig::fail_on_malformed_response`](crate::xact::TransactionConfig)).
    #[error("malformed response: {0}")]
    MalformedResponse(DecodeError),
    /// The message could not be encoded.
    #[error("encode: {0}")]
    Encode(#[from] EncodeError),
    /// The transaction layer refused the request (limits, a bad message).
    #[error("transaction: {0}")]
    Xact(#[from] XactError),
    /// A new peer could not be recorded: the peer table
    /// ([`NodeConfig::max_peers`](super::NodeConfig::max_peers)) is full of associated peers.
    #[error("peer table full")]
    PeerTableFull,
    /// [`Node::send_session_report`](super::Node::send_session_report): this node holds no
    /// session with this SEID of its own (clause 6.3.5: a report concerns a session).
    #[error("no session with local SEID {0:#x}")]
    UnknownSession(u64),
}

/// What a node reports to its application, drained with
/// [`Node::poll_event`](super::Node::poll_event).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum NodeEvent {
    /// A request for the application: answer it with [`Node::respond`](super::Node::respond)
    /// or [`Node::reject`](super::Node::reject).
    Request(IncomingRequest),
    /// The outcome of a request the application sent.
    Outcome {
        /// The request.
        id: RequestId,
        /// Its response (possibly generated locally), or why there is none.
        result: Result<Response, RequestError>,
    },
    /// A peer's state changed (association, restart, failure, lost sessions).
    Peer(PeerEvent),
}

/// Counters of a node since creation (the layers' own counters are in their stats).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct NodeStats {
    /// Datagrams handed to [`Node::handle_datagram`](super::Node::handle_datagram).
    pub datagrams_received: u64,
    /// Of those, dropped by the ingress guard without a reading.
    pub datagrams_dropped_by_guard: u64,
    /// Heartbeat Requests answered by the node (past the transaction layer: they are not in
    /// its counters, and a retransmitted one is answered again rather than from its cache).
    pub heartbeats_answered: u64,
    /// Requests delivered to the application.
    pub requests_delivered: u64,
    /// Requests answered by the node itself with a rejection (Cause 72, 74, 7.6 errors).
    pub requests_rejected: u64,
    /// Requests the application sent.
    pub requests_sent: u64,
    /// Of those, answered locally (throttled, no association).
    pub requests_answered_locally: u64,
    /// Association Setup Requests this node sent to set a lost association up again.
    pub reassociations: u64,
    /// Sessions reported lost.
    pub sessions_lost: u64,
    /// Datagrams that did not decode as PFCP (answered as clause 7.6 says, or discarded).
    pub malformed: u64,
    /// Session requests from a peer without an association, refused with Cause 72 (clause
    /// 6.2.6.1).
    pub rejected_no_association: u64,
    /// This UP function's Session Report Requests the report egress throttle of their
    /// connection refused.
    pub reports_throttled: u64,
}
