//! # pfcp-overload
//!
//! Sans-IO overload and load control for PFCP (3GPP TS 29.244 clauses 6.2.3 and 6.2.4,
//! Annex A.1), for both ends of the N4 interface. No sockets, no clock reads, no global RNG:
//! `now` (a [`std::time::Instant`]) and random draws are parameters; timers are exposed
//! quinn-style through `poll_timeout` / `handle_timeout(now)`.
//!
//! ## Receiving end (CP function)
//!
//! * [`OverloadTable`]: the overload state of every UP peer, from the OCIs they send:
//!   sequencing, Period of Validity, entity vs node scope (AOCI), bounded memory, expiry.
//!   [`OverloadTable::reduction`] answers "what share of my requests to this UP must I shed?".
//! * [`LoadTable`] and [`UpSelector`]: the latest LCI of each UP, and a deterministic weighted
//!   UP selection for new sessions that weighs UPs by their spare capacity and by what their
//!   OCI leaves, counting a reduction only while the UP's messages confirm it.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use pfcp_overload::{NodeKey, OciOrigin, OverloadTable};
//! use pfcp_wire::Message;
//!
//! // A Session Modification Response carrying an OCI: seq 5, 30 %, 2 minutes, AOCI=1
//! // (TS 29.244 clause 7.2.2 header, Table 7.5.3.4-1 OCI).
//! let bytes = [
//!     0x21, 0x35, 0x00, 0x2c, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 9, 0,
//!     0x00, 0x13, 0x00, 0x01, 0x01,
//!     0x00, 0x36, 0x00, 0x17,
//!     0x00, 0x34, 0x00, 0x04, 0, 0, 0, 5,
//!     0x00, 0x35, 0x00, 0x01, 30,
//!     0x00, 0x37, 0x00, 0x01, 0x22,
//!     0x00, 0x6e, 0x00, 0x01, 0x01,
//! ];
//! let msg = Message::decode(&bytes)?;
//! let upf = NodeKey::fqdn("upf1.example.net");
//! let mut table = OverloadTable::default();
//! let now = Instant::now();
//! table.handle_message(&OciOrigin::new(upf.clone(), None), &msg, now);
//! assert_eq!(table.reduction(None, &upf, now), 30);
//! assert_eq!(table.poll_timeout(), Some(now + Duration::from_secs(120)));
//! # Ok::<(), pfcp_wire::DecodeError>(())
//! ```

//!
//! ## Sending end (UP function)
//!
//! * [`OverloadReporter`]: turns one [`Measurement`] per control interval into the Overload
//!   Reduction Metric and answers [`OverloadReporter::oci_for`]: which OCI to piggyback on the
//!   next response or Session Report Request to a given peer. It owns every Overload Control
//!   Sequence Number: a peer gets a new one only when what it is told changes or its Period
//!   of Validity must be extended, and a refusal before the law has a metric carries a
//!   provisional OCI ([`OverloadReporter::oci_for_refusal`]). The default law
//!   ([`ControlLaw::Adaptive`]) feeds forward from the demand each peer's traffic shows under
//!   the metric it was told, trims on what actually arrives, and spreads the peers over the
//!   levels of a 3-point grid around its share ([`ReporterConfig::dither`],
//!   [`ReporterConfig::peer_step`]); [`ReporterConfig::feed_forward`] (below) is the first
//!   law, in 5-point steps, raised at once and lowered after a dwell.
//! * [`LoadReporter`]: the Load Metric with hysteresis, and [`LoadReporter::lci_for`].
//!
//! ```
//! use std::time::{Duration, Instant};
//! use pfcp_overload::{Measurement, OverloadReporter, ReporterConfig};
//! use pfcp_wire::{Cause, MessageType};
//!
//! // A UP that serves 100 requests per control interval.
//! let mut up: OverloadReporter<&str> =
//!     OverloadReporter::new(ReporterConfig::feed_forward().with_capacity(Some(100.0)));
//! up.set_peer_ovrl("smf1", true); // from the CP Function Features it advertised
//! let t0 = Instant::now();
//! // Twice the demand it can serve: it publishes 50 % at once.
//! let m = Measurement { arrived: 200, served: 100, backlog: 0 };
//! assert_eq!(up.handle_measurement(&m, t0), Some(50));
//! // The next Session Modification Response to smf1 carries the OCI ...
//! let oci = up
//!     .oci_for(&"smf1", MessageType::SESSION_MODIFICATION_RESPONSE, Some(Cause::REQUEST_ACCEPTED), t0)
//!     .expect("first message after a change carries the OCI");
//! assert_eq!(oci.metric.percent(), 50);
//! assert_eq!(oci.period_of_validity.duration(), Some(Duration::from_secs(30)));
//! // ... and the following ones do not, until something changes or validity needs refreshing.
//! assert!(up
//!     .oci_for(&"smf1", MessageType::SESSION_DELETION_RESPONSE, Some(Cause::REQUEST_ACCEPTED), t0)
//!     .is_none());
//! // 25 s later (5 s before the 30 s run out) the same metric goes with a new number.
//! let t25 = t0 + Duration::from_secs(25);
//! let refresh = up
//!     .oci_for(&"smf1", MessageType::SESSION_DELETION_RESPONSE, Some(Cause::REQUEST_ACCEPTED), t25)
//!     .expect("the validity is extended");
//! assert_eq!(refresh.metric.percent(), 50);
//! assert!(refresh.sequence_number.0 > oci.sequence_number.0);
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

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests need an arbitrary base instant; the code never reads the clock.
pub(crate) fn test_now() -> std::time::Instant {
    std::time::Instant::now()
}

pub mod load;
pub mod load_reporter;
pub mod receiver;
pub mod reporter;
pub mod scope;
pub mod sequence;

pub use load::{Candidate, CandidateView, LciOutcome, LoadConfig, LoadTable, UpSelector};
pub use load_reporter::{LciPlacement, LoadReporter, LoadReporterConfig};
pub use receiver::{
    IgnoreReason, OciOutcome, OverloadConfig, OverloadEvent, OverloadTable, ScopeState,
};
pub use reporter::{
    ControlLaw, InclusionPolicy, Measurement, OverloadReporter, ProvisionalOci, ReporterConfig,
    ReporterConfigError, SequenceMode, WindowMeasurement,
};
pub use scope::{NodeKey, OciOrigin, Scope};
pub use sequence::SequenceOrder;
