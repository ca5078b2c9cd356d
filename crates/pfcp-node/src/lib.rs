//! # pfcp-node
//!
//! The runtime that assembles a PFCP (3GPP TS 29.244) CP or UP function with overload control.
//!
//! Sans-IO parts, always built (no socket, no clock read: time is a parameter):
//!
//! * [`xact`]: transactions (clause 6.4): sequence numbers, T1/N1 retransmission, response
//!   matching, duplicate requests answered from a bounded cache.
//! * [`peer`]: association and heartbeat (6.2.2, 6.2.6 to 6.2.8), restart detection from the
//!   Recovery Time Stamp of associated peers.
//! * [`guard`]: a per-source ingress rate guard.
//! * [`admission`]: UP self-protection (a bounded priority queue, cause-74 refusals with an
//!   OCI) and the OCI/LCI reporting of clauses 6.2.3 and 6.2.4.
//! * [`procedures`]: the node procedures a node starts (Association Update and Release, Node
//!   Report; clauses 6.2.7 to 6.2.9) and the values of their IEs, for [`Node::update_association`],
//!   [`Node::release_association`], [`Node::send_node_report`] and [`Node::send_session_report`].
//! * [`cp`]: the CP request pipeline: OCI/LCI state per UP function, throttling with
//!   priorities, redirection (6.2.4.4).
//!
//! [`Node`] assembles them; it is driven like each of them: datagrams in
//! ([`Node::handle_datagram`]), datagrams out ([`Node::poll_transmit`]), events
//! ([`Node::poll_event`]) and time ([`Node::handle_timeout`]).
//!
//! ## Example: a UP function answers a Heartbeat Request
//!
//! ```
//! use std::time::Instant;
//! use pfcp_node::{LocalNode, Node, NodeConfig};
//! use pfcp_overload::NodeKey;
//! use pfcp_wire::ie::RecoveryTimeStamp;
//! use pfcp_wire::msg::{HeartbeatRequest, HeartbeatResponse, TypedMessage};
//! use pfcp_wire::SequenceNumber;
//!
//! let now = Instant::now();
//! let upf = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(0xe8f4_a2b0));
//! let mut up = Node::new(NodeConfig::new(upf), now)?;
//! let seq = SequenceNumber::new(7).ok_or("over 24 bits")?;
//! let request = HeartbeatRequest::new(RecoveryTimeStamp(0xe8f4_0000)).with_sequence(seq);
//! // Clause 6.2.2.2: answered even from a peer without an association.
//! up.handle_datagram("192.0.2.10:8805".parse()?, request.to_vec()?.into(), now);
//! let datagram = up.poll_transmit().ok_or("the Heartbeat Request is answered")?;
//! let response = HeartbeatResponse::parse(&datagram.bytes)?;
//! assert_eq!(response.header.sequence, seq); // clause 6.4: the request's number
//! assert_eq!(response.recovery_time_stamp, RecoveryTimeStamp(0xe8f4_a2b0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Features
//!
//! * `tokio` (default): `endpoint`, the UDP endpoint: a driver task and the handles share the
//!   state above; an async request API (requests are encoded and sent from the caller's
//!   task), and incoming requests answered by a synchronous request handler inside the
//!   driver, or through a channel to the application's tasks.
//! * `metrics`: [`export`], the node's counters and gauges through the `metrics` facade; the
//!   endpoint exports them after each turn of its loop.
//! * `tower` (implies `tokio`): `service`, a `tower_service::Service` over an `Endpoint`
//!   for tower middleware and clients. Only the `tower-service` trait crate is added.
//!
//! ```toml
//! pfcp-node = { version = "0.1", features = ["tower"] }
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod admission;
pub mod cp;
#[cfg(feature = "tokio")]
pub mod endpoint;
#[cfg(feature = "metrics")]
pub mod export;
pub mod guard;
pub mod node;
pub mod peer;
pub mod procedures;
#[cfg(feature = "tower")]
pub mod service;
pub mod session;
pub mod xact;

pub use admission::{AdmissionConfig, Admit, QueuedRequest, UpAdmission};
pub use cp::{CpConfig, CpDecision, CpOverloadControl, Destination, RejectReason};
#[cfg(feature = "tokio")]
pub use endpoint::{
    Capture, Captured, Channels, Endpoint, EndpointConfig, Error, HandlerReply, Incoming,
    RequestHandler, RequestView, SocketBuffers, SocketConfig,
};
pub use guard::{GuardConfig, IngressGuard};
pub use node::{
    IncomingRequest, Node, NodeConfig, NodeConfigError, NodeEvent, NodeStats, PriorityPolicy,
    RequestError, RequestId, RequestProfile, RequestRef, Response, ResponseOrigin,
};
pub use peer::{LocalNode, PeerEvent, PeerInfo, Peers, Role};
#[cfg(feature = "tower")]
pub use service::RequestService;
pub use session::Session;
pub use xact::{
    Event as XactEvent, TransactionConfig, Transactions, Transmit, TxId, XactError, XactStats,
};

// The task guides' Rust code, compiled (and run, where it does not bind sockets for good) as
// doctests: `cargo test -p pfcp-node --doc`.
#[cfg(all(doctest, feature = "tokio"))]
#[doc = include_str!("../../../docs/guide/protect-a-up-function.md")]
pub struct GuideProtectAUpFunction;
#[cfg(all(doctest, feature = "tokio"))]
#[doc = include_str!("../../../docs/guide/build-a-cp-function.md")]
pub struct GuideBuildACpFunction;
