//! # pfcp-node
//!
//! The runtime that assembles a PFCP (3GPP TS 29.244) CP or UP function with overload control.

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
pub mod guard;
pub mod peer;
pub mod xact;

pub use admission::{AdmissionConfig, Admit, QueuedRequest, UpAdmission};
pub use cp::{CpConfig, CpDecision, CpOverloadControl, Destination, RejectReason};
#[cfg(feature = "tokio")]
pub use endpoint::{Channels, Endpoint, EndpointConfig, Error, Incoming, RequestProfile};
pub use guard::{GuardConfig, IngressGuard};
pub use peer::{LocalNode, PeerEvent, PeerInfo, Peers, Role};
pub use xact::{
    Event as XactEvent, TransactionConfig, Transactions, Transmit, TxId, XactError, XactStats,
};
