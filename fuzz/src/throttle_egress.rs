//! The egress half of the `throttle` fuzz harness (`throttle.rs` runs it): the
//! [`EgressThrottle`]'s configuration rules against a model, its decisions, two-step checks,
//! every message kind, exempt requests and the level-only mode against their documented
//! invariants; [`PeerThrottles`] (Loss and egress together); configuration sets and the
//! per-connection Max EMR against a model; the router priority mapping. Included with
//! `#[path]` by `crates/pfcp-throttle/tests/fuzz_corpus.rs` as well; only `std`,
//! `arbitrary`, `pfcp-wire` and `pfcp-throttle`.
//!
//! This file holds the input types the egress and peer events share; in `throttle_egress/`,
//! `egress` models the `EgressThrottle`, `peer` the `PeerThrottles`, `config_sets` the
//! configuration sets, the per-connection Max EMR and the router priorities.

#![forbid(unsafe_code)]

use arbitrary::Arbitrary;
#[cfg(doc)]
use pfcp_throttle::{peer::PeerThrottles, EgressThrottle};
use pfcp_throttle::{MessageKind, RequestClass, UNPRIORITISED};

use crate::throttle::{prio, When};

// The children are named by path, relative to this file, so that they resolve the same way in
// the fuzz crate and in pfcp-throttle's test, which includes this file with `#[path]` (a file
// loaded so looks for its children beside itself, not in `throttle_egress/`).
#[path = "throttle_egress/config_sets.rs"]
mod config_sets;
#[path = "throttle_egress/egress.rs"]
mod egress;
#[path = "throttle_egress/peer.rs"]
mod peer;

pub use config_sets::SetsSpec;
pub(crate) use config_sets::{router, sets};
pub(crate) use egress::Egress;
pub(crate) use peer::Peer;

// ---------------------------------------------------------------------------------------------
// The input (second format)

/// Any message kind: 0 request, 1 answer, 2 retransmission, 3 management (mod 4).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct KindSpec(u8);

impl KindSpec {
    pub(crate) fn kind(self) -> MessageKind {
        match self.0 % 4 {
            0 => MessageKind::Request,
            1 => MessageKind::Answer,
            2 => MessageKind::Retransmission,
            _ => MessageKind::Management,
        }
    }
}

/// A request class: priority mod 16, exempt or not, or unprioritised.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct ClassSpec {
    priority: Option<u8>,
    exempt: bool,
}

impl ClassSpec {
    pub(crate) fn class(self) -> RequestClass {
        match (self.priority, self.exempt) {
            (None, false) => RequestClass::default(),
            (None, true) => RequestClass::exempt(UNPRIORITISED),
            (Some(p), false) => RequestClass::new(prio(p)),
            (Some(p), true) => RequestClass::exempt(prio(p)),
        }
    }
}

/// An egress event of the second format.
#[derive(Arbitrary, Debug, Clone)]
pub enum EgressEvent {
    /// `decide` with any kind and class.
    Decide(KindSpec, ClassSpec, When),
    /// `check`, then `commit` at the same instant if it passed and `commit` is set.
    Check {
        /// Kind.
        kind: KindSpec,
        /// Class.
        class: ClassSpec,
        /// Commit a passed check.
        commit: bool,
        /// When.
        when: When,
    },
    /// `on_send` with any kind.
    OnSend(KindSpec, When),
    /// `decide_message` with a class.
    Message(u8, ClassSpec, When),
}

/// The peer of [`PeerThrottles`]: a Loss throttle (its own configuration) and the egress
/// configuration of the scenario.
#[derive(Arbitrary, Debug, Clone)]
pub enum PeerEvent {
    /// A reduction.
    Reduction(u8),
    /// `decide` (or `admit` for a routed request), with a draw for random mode.
    Request {
        /// Class.
        class: ClassSpec,
        /// `admit` instead of `decide`.
        routed: bool,
        /// Random mode draw.
        draw: Option<u32>,
        /// When.
        when: When,
    },
    /// Another message sent.
    OnSend(KindSpec, When),
    /// A transaction ended.
    End,
}
