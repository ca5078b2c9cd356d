//! The synchronous request handler ([`RequestHandler`]) and what it sees and answers.

use std::net::SocketAddr;

use bytes::Bytes;
use pfcp_overload::NodeKey;
use pfcp_wire::{Cause, Message, MessageType, SequenceNumber};

use crate::node::IncomingRequest;
use crate::peer::Peers;

/// Application code that answers requests inside the endpoint's driver task; installed with
/// [`Endpoint::bind_with_handler`](super::Endpoint::bind_with_handler). Closures
/// `FnMut(&RequestView<'_>) -> HandlerReply` implement it.
///
/// Without a handler, every request goes to an application task through
/// [`Channels::incoming`](super::Channels::incoming): a task switch per request, which on
/// loopback costs a good part of what the PFCP work costs (`docs/benchmarks.md`, pfcp-node).
/// A handler is called where a request would be put on that channel, that is after
/// everything the endpoint does on its own: ingress guard, duplicate detection, validation
/// (clause 7.6), the association check (cause 72, clause 6.2.6.1) and UP admission
/// (self-protection: the handler sees the requests admission lets through, at its service
/// rate). Its answer then takes the path of a response given to
/// [`Incoming::respond`](super::Incoming::respond): the UP's OCI/LCI are appended when due,
/// the Session Report egress throttle counts it, and it is cached to answer retransmissions
/// of the request (which do not reach the handler again).
///
/// A handler runs in the driver task with the endpoint's state locked: while it runs, the
/// endpoint reads no datagram, fires no timer, and a handle that sends a request from
/// another thread waits. It suits answers computed from memory in microseconds; work that
/// waits (a database, another node) returns [`HandlerReply::Defer`] and is answered from an
/// application task through the incoming channel, as without a handler. A panic in the
/// handler stops the endpoint (its handles then fail with [`Error::Closed`](super::Error)).
///
/// # Examples
///
/// A UP function that knows no session: every Session Deletion Request (Table 7.5.6.1-1: no
/// mandatory IE) is rejected with Cause 65, "Session context not found".
///
/// ```
/// use pfcp_node::{Endpoint, EndpointConfig, HandlerReply, LocalNode, RequestView};
/// use pfcp_overload::NodeKey;
/// use pfcp_wire::ie::RecoveryTimeStamp;
/// use pfcp_wire::{Cause, Header, MessageType};
///
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// runtime.block_on(async {
///     let upf = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(0xe8f4_a2b0));
///     let smf = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(0xe8f4_0000));
///     let handler = |request: &RequestView<'_>| match request.message_type() {
///         MessageType::SESSION_DELETION_REQUEST => HandlerReply::Reject(Cause::SESSION_CONTEXT_NOT_FOUND),
///         _ => HandlerReply::Defer,
///     };
///     let any = "127.0.0.1:0".parse()?;
///     let (up, _up_channels) = Endpoint::bind_with_handler(EndpointConfig::new(upf), any, handler).await?;
///     let (cp, _cp_channels) = Endpoint::bind(EndpointConfig::new(smf), any).await?;
///     cp.associate(up.local_addr()).await?; // session requests need an association
///
///     let delete = Header::new(MessageType::SESSION_DELETION_REQUEST).with_seid(0x1234);
///     let response = cp.request(up.local_addr(), delete, bytes::Bytes::new()).await?; // no IEs
///     assert_eq!(response.cause, Some(Cause::SESSION_CONTEXT_NOT_FOUND));
///     assert!(!response.is_local()); // the UP function's answer
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait RequestHandler: Send + 'static {
    /// Answer `request`, reject it, or pass it on to the incoming channel.
    fn handle(&mut self, request: &RequestView<'_>) -> HandlerReply;
}

impl<F> RequestHandler for F
where
    F: FnMut(&RequestView<'_>) -> HandlerReply + Send + 'static,
{
    fn handle(&mut self, request: &RequestView<'_>) -> HandlerReply {
        self(request)
    }
}

/// What a [`RequestHandler`] does with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandlerReply {
    /// Send this response: one encoded message whose header copies the request's sequence
    /// number (as for [`Incoming::respond`](super::Incoming::respond)).
    Respond(Bytes),
    /// Answer with a rejection carrying this Cause, built by the endpoint: the response type
    /// of the request, the CP's SEID (from the CP F-SEID of a Session Establishment Request,
    /// from the header otherwise), the request's message priority, the Node ID where the
    /// response requires it (clause 7.2.2.4.2).
    Reject(Cause),
    /// Not answered here: deliver the request through the incoming channel, as if there were
    /// no handler (when that channel is full, the endpoint answers with cause 74).
    Defer,
}

/// A request as the handler sees it: already decoded and validated (clause 7.6), from a peer
/// with an association if it is a session request.
#[derive(Debug, Clone, Copy)]
pub struct RequestView<'a> {
    pub(super) request: &'a IncomingRequest,
    pub(super) message: &'a Message<'a>,
    /// Looked up only if the handler asks ([`RequestView::node`]).
    pub(super) peers: &'a Peers,
}

impl<'a> RequestView<'a> {
    /// Source address and port (the response goes back there).
    pub fn peer(&self) -> SocketAddr {
        self.request.reference.peer
    }

    /// The request's header sequence number (the response copies it).
    pub fn sequence(&self) -> SequenceNumber {
        self.request.reference.sequence
    }

    /// The message type.
    pub fn message_type(&self) -> MessageType {
        self.message.message_type()
    }

    /// The decoded message.
    pub fn message(&self) -> &'a Message<'a> {
        self.message
    }

    /// The request's octets (one message, header included); cloning is cheap, for a handler
    /// that keeps the request.
    pub fn bytes(&self) -> &'a Bytes {
        &self.request.bytes
    }

    /// The request as the node delivered it.
    pub fn request(&self) -> &'a IncomingRequest {
        self.request
    }

    /// The peer's Node ID, from its association (`None` before one is established).
    pub fn node(&self) -> Option<&'a NodeKey> {
        self.peers.get(&self.peer()).and_then(|p| p.node.as_ref())
    }
}
