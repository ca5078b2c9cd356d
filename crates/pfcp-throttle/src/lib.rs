//! # pfcp-throttle
//!
//! Which requests a CP function sends, throttles or redirects when its peers are overloaded.
//! Sans-IO (time and randomness are parameters) and independent of `pfcp-overload`: it takes a
//! reduction percentage as input, so it serves GTPv2-C or Diameter callers as well.
//!
//! * [`loss`]: the "Loss" algorithm of TS 29.244 clause 6.2.4.4 with the prioritisation of
//!   6.2.4.5 (exempt eMPS/emergency last, low priority first), deterministic or Annex A.1
//!   random mode.

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

pub mod loss;

pub use loss::{Decision, LossConfig, LossStats, LossThrottle, RequestClass, Throttled};
