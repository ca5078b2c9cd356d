//! What a run measures: outcomes per class and per request type, latency percentiles, the
//! spread of new sessions over the UP functions, and a time series per control interval.

use std::net::SocketAddr;
use std::time::Duration;

use pfcp_node::{RequestError, Response, ResponseOrigin};
use serde::Serialize;

use crate::traffic::{SessionCounts, Settled, Step, Work};

mod churn;
mod profile;

pub use churn::{ChurnResult, TableSample, ThrottleCheck, UpTables};
pub(crate) use profile::{profile_results, ProfileRecords};
pub use profile::{ProfileResult, WireMarks};

/// Outcome counts of the requests offered in the measured window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Requests offered (what the CP functions would send without throttling).
    pub offered: u64,
    /// Answered with an acceptance cause.
    pub succeeded: u64,
    /// Answered by the UP function with another cause.
    pub rejected: u64,
    /// Not sent: refused by the CP function's overload control (a local Cause 74).
    pub throttled: u64,
    /// Not sent: no association with the UP function (it restarted; a local Cause 72).
    pub unassociated: u64,
    /// Redirected to another UP function (and then answered).
    pub redirected: u64,
    /// No response after N1 retransmissions.
    pub timed_out: u64,
    /// Not offered at all: every session slot or the outstanding limit was taken.
    pub skipped: u64,
}

impl Tally {
    /// Add `other`.
    pub fn add(&mut self, other: &Tally) {
        self.offered += other.offered;
        self.succeeded += other.succeeded;
        self.rejected += other.rejected;
        self.throttled += other.throttled;
        self.unassociated += other.unassociated;
        self.redirected += other.redirected;
        self.timed_out += other.timed_out;
        self.skipped += other.skipped;
    }

    /// Share of the offered requests that succeeded (1 when nothing was offered).
    pub fn success(&self) -> f64 {
        if self.offered == 0 {
            1.0
        } else {
            self.succeeded as f64 / self.offered as f64
        }
    }
}

/// Latency percentiles of successful transactions, milliseconds.
///
/// # Examples
///
/// ```
/// use pfcp_sim::Latency;
///
/// // 1 ms to 100 ms, in microseconds, in any order: nearest-rank percentiles.
/// let mut samples: Vec<u32> = (1..=100).rev().map(|ms| ms * 1000).collect();
/// let l = Latency::of(&mut samples);
/// assert_eq!((l.p50, l.p90, l.p99, l.max), (50.0, 90.0, 99.0, 100.0));
/// assert_eq!(l.samples, 100);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
    /// Samples.
    pub samples: u64,
}

impl Latency {
    /// The percentiles of `samples_us` (microseconds; sorted in place).
    pub fn of(samples_us: &mut [u32]) -> Latency {
        samples_us.sort_unstable();
        let n = samples_us.len();
        let at = |q: f64| -> f64 {
            if n == 0 {
                return 0.0;
            }
            let i = ((q * n as f64).ceil() as usize).clamp(1, n) - 1;
            samples_us.get(i).map_or(0.0, |&v| f64::from(v) / 1000.0)
        };
        Latency {
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            max: samples_us.last().map_or(0.0, |&v| f64::from(v) / 1000.0),
            samples: n as u64,
        }
    }
}

/// One control interval of a run, all UP functions together unless per UP.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Sample {
    /// Seconds since the start of the run (end of the interval).
    pub t: f64,
    /// Offered load in the interval, as a multiple of the total capacity.
    pub offered: f64,
    /// Session requests that reached the UP functions (after the CPs' throttling), per second.
    pub arrived: f64,
    /// Requests the UP functions served, per second.
    pub served: f64,
    /// Requests that succeeded at the CP functions, per second.
    pub succeeded: f64,
    /// The Overload Reduction Metric each UP function published.
    pub metric: Vec<u8>,
    /// Requests waiting in each UP function's queue.
    pub queue: Vec<u64>,
}

/// The result of one run (one strategy at one load, or the step, or the restart).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunResult {
    /// The strategy's name.
    pub strategy: String,
    /// The offered load, as a multiple of the total capacity (for the step: the high load).
    pub load: f64,
    /// Seconds measured.
    pub measured_secs: f64,
    /// Everything, per class name, and per request type.
    pub total: Tally,
    /// Per class, in the mix's order: (name, tally).
    pub by_class: Vec<(String, Tally)>,
    /// Per request type.
    pub by_step: Vec<(Step, Tally)>,
    /// Latency of successful transactions.
    pub latency: Latency,
    /// Successful transactions per second.
    pub goodput: f64,
    /// The ideal goodput per second: with a constant load and every UP function up (the
    /// sweep), `min(offered, capacity)` over the measured window; recorded every control
    /// interval (the step, the restart, churn), `min(offered, capacity of the UP functions
    /// up)` per interval, summed over the run (a UP function that is down has no capacity).
    /// [`RunResult::ideal_basis`] says which.
    pub ideal: f64,
    /// What [`RunResult::ideal`] is, in words.
    pub ideal_basis: String,
    /// New sessions accepted per UP function.
    pub sessions_per_up: Vec<u64>,
    /// The sessions' fate, all CP functions together.
    pub sessions: SessionCounts,
    /// Datagrams the UP functions received (retransmissions included), per second.
    pub up_datagrams: f64,
    /// Per control interval (the step and restart runs only).
    pub series: Vec<Sample>,
    /// Requests each UP function refused over the run (Cause 74 on arrival, evicted, or
    /// expired in its queue; dropped without an answer without control), in the order of
    /// the scenario's UP functions (a restarted one's lives together).
    pub refused_per_up: Vec<u64>,
    /// The UP function that restarted (the restart run).
    pub restarted_up: Option<usize>,
    /// Per CP profile ([`crate::scenario::CpProfile`]), those present.
    pub by_profile: Vec<ProfileResult>,
    /// The most session slots one CP function's driver allocated (the most sessions it had
    /// at once), and all CP functions' together at the end.
    pub session_slots: SlotUse,
    /// The churn run's measures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub churn: Option<ChurnResult>,
    /// The nodes' counters at the end of the run, summed, in the order of
    /// [`pfcp_node::node::METRICS`] (gauges left at 0): what an exporter publishes for a real
    /// node. Not in the report.
    #[serde(skip)]
    pub node_counters: Vec<f64>,
}

/// Session slots the CP functions' drivers allocated ([`crate::traffic::SessionDriver`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SlotUse {
    /// The most one CP function allocated.
    pub max_per_cp: u64,
    /// All CP functions' together (in a churn run: those alive at the end).
    pub total: u64,
}

impl RunResult {
    /// Goodput as a share of the ideal.
    pub fn goodput_ratio(&self) -> f64 {
        if self.ideal <= 0.0 {
            1.0
        } else {
            self.goodput / self.ideal
        }
    }

    /// What the UP functions that did not restart refused (all of them outside a restart
    /// run).
    pub fn refused_by_others(&self) -> u64 {
        self.refused_per_up
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != self.restarted_up)
            .map(|(_, n)| n)
            .sum()
    }

    /// The emergency success share (eMPS if the mix has no emergency class) of the CP
    /// functions whose profile supports overload control, if they offered any.
    pub fn supporting_emergency_success(&self) -> Option<f64> {
        let (mut offered, mut succeeded) = (0u64, 0u64);
        for p in self
            .by_profile
            .iter()
            .filter(|p| p.profile.supports_overload_control())
        {
            let class = ["emergency", "emps"]
                .iter()
                .find_map(|c| p.by_class.iter().find(|(n, _)| n == c));
            if let Some((_, t)) = class {
                offered += t.offered;
                succeeded += t.succeeded;
            }
        }
        (offered > 0).then(|| succeeded as f64 / offered as f64)
    }

    /// The results of the CP functions of `profile`, if there were any.
    pub fn profile(&self, profile: crate::scenario::CpProfile) -> Option<&ProfileResult> {
        self.by_profile.iter().find(|p| p.profile == profile)
    }

    /// The success share of class `name`, if it was offered.
    pub fn class_success(&self, name: &str) -> Option<f64> {
        self.by_class
            .iter()
            .find(|(n, t)| n == name && t.offered > 0)
            .map(|(_, t)| t.success())
    }
}

/// [`RunResult::ideal_basis`] of a run at a constant load.
pub const STEADY_IDEAL: &str = "min(offered, capacity) over the measured window";

/// [`RunResult::ideal_basis`] of a run recorded every control interval.
pub const INTERVAL_IDEAL: &str =
    "min(offered, capacity of the UP functions up) per control interval, summed over the run";

/// What one CP function measured: outcomes per class and request type of the requests offered
/// in the window, latencies of the successful ones, and the sessions each UP function took.
/// Shared by the virtual-time and the real-time engines, so both count alike.
#[derive(Debug, Clone, Default)]
pub struct CpRecorder {
    /// Per class (the mix's order), per request type ([`Step::index`]).
    pub by_class_step: Vec<[Tally; 3]>,
    /// Requests not offered at all (no free slot, outstanding limit).
    pub skipped: u64,
    /// Latencies of successful transactions in the window, microseconds.
    pub latencies_us: Vec<u32>,
    /// Accepted establishments per UP function (in the window).
    pub sessions_per_up: Vec<u64>,
    /// Offers since the last sample.
    pub offered_now: u64,
    /// Successes since the last sample.
    pub succeeded_now: u64,
}

impl CpRecorder {
    /// A recorder for `classes` classes and `ups` UP functions.
    pub fn new(classes: usize, ups: usize) -> Self {
        CpRecorder {
            by_class_step: vec![[Tally::default(); 3]; classes],
            sessions_per_up: vec![0; ups],
            ..CpRecorder::default()
        }
    }

    /// An offer of `w` (counted in the results if `counted`, i.e. made in the window).
    pub fn offered(&mut self, w: &Work, counted: bool) {
        self.offered_now += 1;
        if counted {
            if let Some(t) = self.tally(w) {
                t.offered += 1;
            }
        }
    }

    /// An offer that found no room.
    pub fn skipped(&mut self, counted: bool) {
        self.offered_now += 1;
        if counted {
            self.skipped += 1;
        }
    }

    fn tally(&mut self, w: &Work) -> Option<&mut Tally> {
        self.by_class_step
            .get_mut(w.class)
            .and_then(|s| s.get_mut(w.step.index()))
    }

    /// Count what became of `w` (sent to `ups[w.up]`), `latency` after it was offered; what the
    /// session driver needs to go on.
    pub fn settle(
        &mut self,
        w: &Work,
        result: &Result<Response, RequestError>,
        ups: &[SocketAddr],
        latency: Duration,
        counted: bool,
    ) -> Settled {
        let mut settled = Settled {
            accepted: false,
            up_seid: None,
            holder: None,
        };
        let mut outcome = Tally::default();
        match result {
            Ok(r) => match r.origin {
                ResponseOrigin::NoAssociation => outcome.unassociated = 1,
                ResponseOrigin::Peer => {
                    let holder = ups.iter().position(|u| *u == r.peer);
                    if w.step == Step::Establish && holder.is_some_and(|h| h != w.up) {
                        outcome.redirected = 1;
                        settled.holder = holder;
                    }
                    if r.is_accepted() {
                        outcome.succeeded = 1;
                        settled.accepted = true;
                        self.succeeded_now += 1;
                        if w.step == Step::Establish {
                            settled.up_seid = r
                                .message()
                                .ok()
                                .and_then(|m| m.f_seid().ok().flatten())
                                .map(|f| f.seid);
                            if counted {
                                if let Some(n) =
                                    holder.and_then(|h| self.sessions_per_up.get_mut(h))
                                {
                                    *n += 1;
                                }
                            }
                        }
                        if counted {
                            let us = u32::try_from(latency.as_micros()).unwrap_or(u32::MAX);
                            self.latencies_us.push(us);
                        }
                    } else {
                        outcome.rejected = 1;
                    }
                }
                _ => outcome.throttled = 1,
            },
            Err(RequestError::Timeout { .. }) => outcome.timed_out = 1,
            Err(_) => outcome.rejected = 1,
        }
        if counted {
            if let Some(t) = self.tally(w) {
                let offered = t.offered;
                t.add(&outcome);
                t.offered = offered;
            }
        }
        settled
    }

    /// Add another CP function's records (same classes and UP functions).
    pub fn merge(&mut self, other: &mut CpRecorder) {
        for (mine, theirs) in self.by_class_step.iter_mut().zip(&other.by_class_step) {
            for (m, t) in mine.iter_mut().zip(theirs) {
                m.add(t);
            }
        }
        self.skipped += other.skipped;
        self.latencies_us.append(&mut other.latencies_us);
        for (m, t) in self.sessions_per_up.iter_mut().zip(&other.sessions_per_up) {
            *m += t;
        }
    }

    /// The run's result from these (merged) records: `names` of the classes, `measured` seconds,
    /// `capacity` per second.
    pub fn result(
        &mut self,
        strategy: &str,
        load: f64,
        names: &[String],
        measured: f64,
        capacity: f64,
    ) -> RunResult {
        let mut by_class = vec![Tally::default(); names.len()];
        let mut by_step = [Tally::default(); 3];
        let mut total = Tally::default();
        for (k, steps) in self.by_class_step.iter().enumerate() {
            for (j, t) in steps.iter().enumerate() {
                if let Some(b) = by_class.get_mut(k) {
                    b.add(t);
                }
                if let Some(b) = by_step.get_mut(j) {
                    b.add(t);
                }
                total.add(t);
            }
        }
        total.offered += self.skipped;
        total.skipped += self.skipped;
        let measured = measured.max(1e-9);
        RunResult {
            strategy: strategy.into(),
            load,
            measured_secs: measured,
            total,
            by_class: names.iter().cloned().zip(by_class).collect(),
            by_step: Step::ALL.iter().copied().zip(by_step).collect(),
            latency: Latency::of(&mut self.latencies_us),
            goodput: total.succeeded as f64 / measured,
            ideal: (total.offered as f64 / measured).min(capacity),
            ideal_basis: STEADY_IDEAL.into(),
            sessions_per_up: self.sessions_per_up.clone(),
            ..RunResult::default()
        }
    }
}
