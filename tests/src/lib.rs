//! Cross-crate end-to-end scenarios of the workspace; the tests are in `tests/`.
//!
//! * `tests/sim.rs`: the overload experiment in virtual time ([`pfcp_sim`]), deterministic
//!   from a seed: the ratios the toolkit must hold, against the ideal and the other strategies.
//! * `tests/node.rs`: the sans-IO `Node` of pfcp-node in virtual time, a CP and a UP back to
//!   back: restarts, heartbeats, bursts, priorities, the shape of local answers.
//!
//! The library holds what those share (`publish = false`): [`pair`], two nodes back to back.

pub mod pair;
