//! Cross-crate end-to-end scenarios of the workspace; the tests are in `tests/`.
//!
//! * `tests/sim.rs`: the overload experiment in virtual time ([`pfcp_sim`]), deterministic
//!   from a seed: the ratios the toolkit must hold, against the ideal and the other strategies.
//! * `tests/node.rs`: the sans-IO `Node` of pfcp-node in virtual time, a CP and a UP back to
//!   back: restarts, heartbeats, bursts, priorities, the shape of local answers.
//!
//! * `tests/egress.rs`: a CP `Node`'s per-connection egress throttling (the signalling
//!   router's PCEMT, seed 003) with the Loss throttle, the route list and the C.2 state,
//!   one test per sentence of the router document, and the seed's two-route-group example.
//!
//! The library holds what those share (`publish = false`): [`net`], one CP and several UPs
//! on an in-memory link ([`net::Net::pair`]: two nodes back to back).

pub mod net;
