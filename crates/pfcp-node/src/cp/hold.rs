//! Priority requests held for a place (TS 29.244 clause 6.2.4.5.1): an eMPS or emergency
//! request the Loss throttle sheds waits up to [`CpConfig::exempt_hold`](super::CpConfig)
//! for a lower-priority request to the same UP function that the throttle lets through, and
//! takes its place. The number of requests sent is the throttle's; only which ones changes.
//!
//! The caller keeps the request's bytes; the UP function's [`UpLink`](super::UpLink) keeps a
//! [`HoldTicket`] per held request, its class and its deadline, and the policy queues what
//! becomes of each ([`HoldOutcome`], [`CpPolicy::poll_hold`](super::CpPolicy::poll_hold)).

use pfcp_throttle::Throttled;

/// Names one request held by [`CpDecision::Hold`](super::CpDecision::Hold) until its
/// [`HoldOutcome`] comes from [`CpPolicy::poll_hold`](super::CpPolicy::poll_hold).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HoldTicket(pub(super) u64);

impl HoldTicket {
    /// The ticket's number (unique per pipeline, increasing).
    pub fn get(self) -> u64 {
        self.0
    }
}

/// What becomes of a held request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HoldOutcome {
    /// Send it now: a lower-priority request to its UP function yielded its slot (and was
    /// rejected in its place), or the reduction that shed it ended.
    Send,
    /// Fail it locally as the Loss throttle's rejection (cause 74): no slot came before the
    /// hold ended, or the UP function's state was reset.
    Reject(Throttled),
}
