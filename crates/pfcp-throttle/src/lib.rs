//! # pfcp-throttle
//!
//! Which requests a CP function sends, throttles or redirects when its peers are overloaded.
//! Sans-IO (time and randomness are parameters) and independent of `pfcp-overload`: it takes a
//! reduction percentage as input, so it serves GTPv2-C or Diameter callers as well.
//!
//! * [`loss`]: the "Loss" algorithm of TS 29.244 clause 6.2.4.4 with the prioritisation of
//!   6.2.4.5 (exempt eMPS/emergency last, low priority first), deterministic (priority
//!   first, or window-exact) or Annex A.1 random mode.
//! * [`classify`]: the message priority of a request from its procedure and session context
//!   (emergency, eMPS, ARP, QCI / 5QI, LAPI, DNN/S-NSSAI, and the state-aware rules of TS
//!   29.273 C.2).
//! * [`egress`]: per-connection egress throttling with up to three throttle/abatement threshold
//!   levels and a hard cap at the maximum egress message rate (the signalling-router "PCEMT"
//!   scheme), answers never throttled.
//! * [`routing`]: alternate routing across route groups of weighted peers when a peer's
//!   throttles refuse a request (TS 29.244 6.2.4.4 "redirected").
//!
//! ## Example: classify, then throttle towards an overloaded UP function
//!
//! ```
//! use pfcp_throttle::classify::Procedure;
//! use pfcp_throttle::{Classifier, LossThrottle, RequestContext};
//!
//! let classifier = Classifier::default();
//! // The UP advertised a 40 % Overload Reduction Metric (e.g. via pfcp-overload).
//! let mut to_upf1 = LossThrottle::default();
//! to_upf1.set_reduction(40);
//!
//! let (mut sent_new, mut sent_emergency) = (0, 0);
//! for i in 0..1000 {
//!     // 90 % new sessions at ARP 9, 10 % emergency sessions.
//!     let emergency = i % 10 == 0;
//!     let ctx = RequestContext::new(Procedure::SessionEstablishment)
//!         .with_emergency(emergency)
//!         .with_arp([9]);
//!     let class = classifier.classify(&ctx).class;
//!     if to_upf1.decide(class).is_send() {
//!         if emergency { sent_emergency += 1 } else { sent_new += 1 }
//!     }
//!     // A throttled request is redirected (see `routing`) or failed locally as though the
//!     // UP had rejected it: no message is sent (6.2.4.4).
//! }
//! assert_eq!(sent_emergency, 100); // exempt: the rest covers the 40 %
//! assert!((500..=501).contains(&sent_new)); // 400 of the 900 others shed
//! ```
//!
//! ## Example: window-exact pacing
//!
//! Where a precise short-term rate matters more than which request goes, every window of
//! requests is within one request of the reduction, whatever the mix (see [`loss`]):
//!
//! ```
//! use pfcp_throttle::{LossConfig, LossThrottle, RequestClass};
//! use pfcp_wire::MessagePriority;
//!
//! let mut t = LossThrottle::new(LossConfig::default().with_exact_window(true));
//! t.set_reduction(30);
//! let mut drops = Vec::new();
//! for i in 0..1000u32 {
//!     let priority = MessagePriority::new((i * 7 % 16) as u8).unwrap_or_default();
//!     drops.push(!t.decide(RequestClass::new(priority)).is_send());
//! }
//! for window in drops.windows(100) {
//!     let shed = window.iter().filter(|d| **d).count();
//!     assert!((29..=31).contains(&shed));
//! }
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

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub mod classify;
pub mod egress;
pub mod loss;
pub mod peer;
pub mod priority;
pub mod routing;

/// The message priority type (0 highest .. 15 lowest) the throttles rank by, re-exported so
/// that callers of other protocols need not name `pfcp-wire`.
pub use pfcp_wire::MessagePriority;

pub use classify::{
    Adjustment, AdjustmentSet, ArpLevels, Classification, Classifier, ClassifierConfig, Procedure,
    QosIds, QosPriorities, Registration, RequestContext, RequestState, Rule, StateTracker,
    SwxClassifier, SwxCommand, SwxRequest, TrackerConfig,
};
pub use egress::{
    EgressConfig, EgressConfigError, EgressConfigSets, EgressDecision, EgressPermit, EgressStats,
    EgressThrottle, MessageKind, ThresholdPair, ThrottleReason,
};
pub use loss::{
    Decision, LossConfig, LossRequest, LossStats, LossThrottle, RequestClass, Throttled,
};
pub use peer::{PeerThrottles, Refusal};
pub use priority::{RouterPriority, UNPRIORITISED};
pub use routing::{
    Admission, Forwarding, RouteFailure, RouteFailureReason, RouteGroup, RouteList, RouteListError,
    Routed,
};
