//! Cross-crate end-to-end scenarios of the workspace; the tests are in `tests/`.
//!
//! * `tests/sim.rs`: the overload experiment in virtual time ([`pfcp_sim`]), deterministic
//!   from a seed: the ratios the toolkit must hold, against the ideal and the other strategies.
