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
pub mod loss;

pub use classify::{Classification, Classifier, ClassifierConfig, Procedure, RequestContext};
pub use loss::{Decision, LossConfig, LossStats, LossThrottle, RequestClass, Throttled};
