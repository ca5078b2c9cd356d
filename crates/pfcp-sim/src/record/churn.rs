//! What a run with CP functions coming and going ([`ChurnSpec`](crate::scenario::ChurnSpec))
//! measures: the UP functions' tables over time, the lives, and whether every live CP
//! function was throttled while its UP function was overloaded.

use serde::Serialize;

/// A UP function's tables at one instant, from the `Node`'s public getters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct UpTables {
    /// Peers known (`Node::peers().len()`): associated or not.
    pub peers: usize,
    /// Peers associated now.
    pub associated: usize,
    /// Sessions held (`Node::session_count`).
    pub sessions: usize,
    /// Sources the ingress guard tracks (`Node::guard().len()`).
    pub guard_sources: usize,
    /// Responses cached for duplicate requests (`Transactions::cached_responses`).
    pub cached_responses: usize,
    /// Requests in progress (`Transactions::pending_requests`).
    pub pending_requests: usize,
    /// Its own requests awaiting a response (`Transactions::outstanding`: heartbeats).
    pub outstanding: usize,
}

impl UpTables {
    /// The larger of each field.
    pub fn max(self, other: UpTables) -> UpTables {
        UpTables {
            peers: self.peers.max(other.peers),
            associated: self.associated.max(other.associated),
            sessions: self.sessions.max(other.sessions),
            guard_sources: self.guard_sources.max(other.guard_sources),
            cached_responses: self.cached_responses.max(other.cached_responses),
            pending_requests: self.pending_requests.max(other.pending_requests),
            outstanding: self.outstanding.max(other.outstanding),
        }
    }
}

/// One control interval of a churn run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TableSample {
    /// Seconds since the start of the run.
    pub t: f64,
    /// CP functions offering now.
    pub live_cps: usize,
    /// CP functions whose life ended that are still finishing (answers, release).
    pub leaving_cps: usize,
    /// Node slots the engine holds (memory of the simulation itself).
    pub engine_nodes: usize,
    /// Lives ended by a release so far.
    pub released: u64,
    /// Lives ended by vanishing so far.
    pub vanished: u64,
    /// Each UP function's tables.
    pub ups: Vec<UpTables>,
}

/// Whether the CP functions were throttled while a UP function they were associated with
/// was overloaded: at every control interval, each live CP function with overload control is
/// checked against each overloaded UP function (its published metric above 0): is its
/// reduction towards it (`CpOverloadControl::reduction`) above 0?
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ThrottleCheck {
    /// CP function lives that were checked at least once.
    pub lives_checked: u64,
    /// Of those, the lives whose reduction was above 0 at least once.
    pub lives_throttled: u64,
    /// Of those, the lives checked at least twice whose reduction was 0 at every check.
    pub lives_never_throttled: u64,
    /// Checks made (CP function x UP function x interval).
    pub checks: u64,
    /// Checks that found a reduction above 0.
    pub checks_throttled: u64,
}

/// What a churn run measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChurnResult {
    /// The life of each CP function, seconds.
    pub life_secs: f64,
    /// CP function lives begun.
    pub started: u64,
    /// Lives ended with Association Release Requests.
    pub released: u64,
    /// Lives ended by vanishing.
    pub vanished: u64,
    /// Association Setup Requests (the CP functions' first ones) the UP functions accepted.
    pub associations_accepted: u64,
    /// Association Setup Requests the UP functions refused, or that went unanswered.
    pub associations_refused: u64,
    /// Releases the UP functions saw (`PeerEvent::Released`).
    pub releases_seen: u64,
    /// Peers the UP functions found gone by their heartbeats (`PeerEvent::Failed`).
    pub failures_seen: u64,
    /// Whether every live CP function was throttled while overloaded.
    pub throttle: ThrottleCheck,
    /// The largest of each UP function's tables over the run.
    pub peak: Vec<UpTables>,
    /// Per control interval.
    pub tables: Vec<TableSample>,
}
