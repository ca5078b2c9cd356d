//! What the tests and benchmarks of the pfcp-overload workspace share, so that each crate's
//! tests do not carry their own copy: the origin of virtual time ([`clock`]), seeded
//! generators ([`rng`]) and builders of the IEs the overload tests feed in ([`ies`]).
//!
//! A dev-dependency only (`publish = false`): the sans-IO crates never read the clock or a
//! global RNG, so their tests pass time and randomness in, and take both from here.
//!
//! ```
//! use pfcp_test_support::{clock::VirtualClock, ies::oci_secs, rng::XorShift};
//! use std::time::Duration;
//!
//! let mut clock = VirtualClock::new();
//! let later = clock.advance(Duration::from_millis(100));
//! assert_eq!(later - clock.origin(), Duration::from_millis(100));
//! let oci = oci_secs(7, 40, 60, true);
//! assert!(oci.aoci());
//! let mut rng = XorShift(1);
//! assert_ne!(rng.next_u64(), rng.next_u64());
//! ```

pub mod clock;
pub mod ies;
#[cfg(feature = "node")]
pub mod node;
pub mod rng;
pub mod skip;
