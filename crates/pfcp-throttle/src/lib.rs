//! # pfcp-throttle
//!
//! Which requests a CP function sends, throttles or redirects when its peers are overloaded.
//! Sans-IO (time and randomness are parameters) and independent of `pfcp-overload`: it takes a
//! reduction percentage as input, so it serves GTPv2-C or Diameter callers as well.
//!
//! * [`loss`]: the "Loss" algorithm of TS 29.244 clause 6.2.4.4 with the prioritisation of
//!   6.2.4.5 (exempt eMPS/emergency last, low priority first), deterministic or Annex A.1
//!   random mode.
//! * [`classify`]: the message priority of a request from its procedure and session context
//!   (emergency, eMPS, ARP, LAPI, DNN/S-NSSAI, and the state-aware rules of TS 29.273 C.2).
//! * [`egress`]: per-connection egress throttling with up to three throttle/abatement threshold
//!   levels and a hard cap at the maximum egress message rate (the signalling-router "PCEMT"
//!   scheme), answers never throttled.
//! * [`routing`]: alternate routing across route groups of weighted peers when a peer's
//!   throttles refuse a request (TS 29.244 6.2.4.4 "redirected").

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

pub mod classify;
pub mod egress;
pub mod loss;
pub mod routing;

pub use classify::{Classification, Classifier, ClassifierConfig, Procedure, RequestContext};
pub use egress::{
    EgressConfig, EgressConfigError, EgressDecision, EgressStats, EgressThrottle, MessageKind,
    ThresholdPair, ThrottleReason,
};
pub use loss::{Decision, LossConfig, LossStats, LossThrottle, RequestClass, Throttled};
pub use routing::{
    Admission, RouteFailure, RouteFailureReason, RouteGroup, RouteList, RouteListError, Routed,
};
