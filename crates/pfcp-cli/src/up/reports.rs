//! `pfcp up --report-rate`: Session Report Requests (TS 29.244 clause 7.5.8) to the CP
//! functions, the UP function's own requests, through the report egress throttle of each
//! connection ([`NodeConfig::report_egress`](pfcp_node::NodeConfig::report_egress): the
//! signalling router's Per Connection Egress Message Throttling, seed 003).
//!
//! Every established session can be reported on. Reports go at `--report-rate` per second in
//! all, to the sessions in turn (round robin), each to the CP function that established the
//! session (the address its Session Establishment Request came from), with the CP's SEID in
//! the header and the message priority of that establishment (so that the connection's
//! levels shed the reports of low-priority sessions first). A report is a periodic usage
//! report: Report Type USAR and one Usage Report (URR ID 1, a UR-SEQN counting per session,
//! Usage Report Trigger PERIO; Table 7.5.8.3-1). The CP's answers are what load the CP's
//! egress connection back to this UP function.
//!
//! The egress configuration is one set for every CP connection (`--report-egress-max-rate`,
//! `--report-egress-levels`, `--report-egress-level-only`), or sets assigned per CP function
//! by Node ID from a file ([`ReportEgressFile`], `--report-egress-config`), with the flags'
//! set as the default ([`NodeConfig::report_egress_sets`](pfcp_node::NodeConfig)).
//!
//! A tick that finds no session, or `MAX_OUTSTANDING` reports waiting for their response,
//! skips its reports and counts them: the rate stays the one asked for.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use pfcp_node::{Endpoint, Error as NodeError, ResponseOrigin};
use pfcp_overload::NodeKey;
use pfcp_throttle::{EgressConfig, EgressConfigSets};
use pfcp_wire::encode::put_ie_header;
use pfcp_wire::ie::IeType;
use pfcp_wire::{Header, MessagePriority, MessageType};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use crate::egress::{assign, config_of, named_sets, EgressSummary, SetSpec};
use crate::now;

/// Most reports waiting for their response; beyond, a due report is skipped.
const MAX_OUTSTANDING: usize = 4096;

/// The reporting flags of `pfcp up`.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Session reports")]
pub struct ReportArgs {
    /// Session Report Requests per second, over every established session in turn (0: none).
    #[arg(long, default_value_t = 0.0, value_name = "PER_SEC")]
    pub report_rate: f64,
    /// Egress throttling of the reports per CP connection (the signalling router's PCEMT):
    /// this Max EMR (messages/s counting the reports, the responses, retransmissions,
    /// Heartbeat and Association messages sent on the connection).
    #[arg(long, value_name = "PER_SEC")]
    pub report_egress_max_rate: Option<u32>,
    /// The throttle/abatement threshold pairs of --report-egress-max-rate, TT/AT in percent
    /// of the Max EMR (1 to 3 pairs, levels 1 to 3).
    #[arg(long, default_value = "60/55,80/75,100/90", value_name = "PAIRS")]
    pub report_egress_levels: String,
    /// Level-only mode for --report-egress-max-rate: the congestion levels alone shed (no
    /// hard cap at the Max EMR).
    #[arg(long)]
    pub report_egress_level_only: bool,
    /// A TOML file of report egress configuration sets and their assignment per CP function
    /// by Node ID (the format is in the README of pfcp-cli); --report-egress-max-rate makes
    /// the default set.
    #[arg(long, value_name = "FILE")]
    pub report_egress_config: Option<PathBuf>,
}

/// The `--report-egress-config` file:
///
/// ```toml
/// [sets.small]
/// max_rate = 100                   # Max EMR, messages/s
/// levels = "60/55,80/75,100/90"    # TT-x/AT-x pairs in % of the Max EMR (1 to 3)
/// level_only = true
/// [sets.big]
/// max_rate = 5000
///
/// default = "big"                  # the set of the CP functions not assigned below
///
/// [[peer]]
/// cp = "smf1.example.net"          # the CP function's Node ID (FQDN or IP address)
/// set = "small"
/// # max_rate = 50, or capacity = 300 and connections = 2: its own Max EMR
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportEgressFile {
    /// Named sets.
    #[serde(default)]
    pub sets: BTreeMap<String, SetSpec>,
    /// The set of the CP functions not assigned.
    #[serde(default)]
    pub default: Option<String>,
    /// Assignments.
    #[serde(default)]
    pub peer: Vec<CpPeerSpec>,
}

/// The set of one CP function of the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpPeerSpec {
    /// Its Node ID.
    pub cp: String,
    /// The set's name.
    pub set: String,
    /// Its own Max EMR.
    #[serde(default)]
    pub max_rate: Option<u32>,
    /// Its capacity (messages per second), divided by `connections` for the Max EMR.
    #[serde(default)]
    pub capacity: Option<u32>,
    /// Its connections (default 1).
    #[serde(default)]
    pub connections: Option<u32>,
}

/// The report egress configuration of the flags and the file.
#[derive(Debug, Default)]
pub(super) struct ReportEgress {
    /// One set for every CP connection (the flags alone).
    pub(super) single: Option<EgressConfig>,
    /// Sets per CP function (the file, with the flags' set as the default).
    pub(super) sets: Option<EgressConfigSets<NodeKey>>,
}

impl ReportArgs {
    /// The report egress configuration the flags and the file ask for.
    pub(super) fn egress(&self) -> Result<ReportEgress, String> {
        if !(self.report_rate.is_finite() && self.report_rate >= 0.0) {
            return Err(
                "--report-rate must be 0 or a positive number of reports per second".into(),
            );
        }
        let single = match self.report_egress_max_rate {
            Some(rate) => {
                let spec = SetSpec::of_flags(
                    rate,
                    &self.report_egress_levels,
                    self.report_egress_level_only,
                );
                Some(config_of("--report-egress-max-rate", &spec)?)
            }
            None => None,
        };
        let Some(path) = &self.report_egress_config else {
            return Ok(ReportEgress { single, sets: None });
        };
        let what = |e: String| format!("--report-egress-config {}: {e}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| what(e.to_string()))?;
        let file: ReportEgressFile = toml::from_str(&text).map_err(|e| what(e.to_string()))?;
        let default = file.default.as_deref().filter(|_| single.is_none());
        let mut sets = named_sets(&file.sets, default).map_err(what)?;
        if let Some(c) = single {
            let id = sets
                .add("--report-egress-max-rate", c)
                .map_err(|e| what(e.to_string()))?;
            sets.set_default(Some(id));
        }
        for p in &file.peer {
            let node = super::node_key(&p.cp).map_err(what)?;
            let id = sets
                .find(&p.set)
                .ok_or_else(|| what(format!("peer {}: no set {:?}", p.cp, p.set)))?;
            assign(&mut sets, node, id, p.max_rate, p.capacity, p.connections)
                .map_err(|e| what(format!("peer {}: {e}", p.cp)))?;
        }
        Ok(ReportEgress {
            single: None,
            sets: Some(sets),
        })
    }
}

/// A session reports can be sent on.
#[derive(Debug, Clone, Copy)]
struct Reportable {
    up_seid: u64,
    cp_seid: u64,
    peer: SocketAddr,
    priority: Option<MessagePriority>,
    seqn: u32,
}

/// The sessions to report on, in turn.
#[derive(Debug, Default)]
pub(super) struct ReportSessions {
    list: Vec<Reportable>,
    index: HashMap<u64, usize>,
    next: usize,
}

impl ReportSessions {
    /// Session `up_seid`, established by the CP function at `peer` as `cp_seid`.
    pub(super) fn insert(
        &mut self,
        up_seid: u64,
        cp_seid: u64,
        peer: SocketAddr,
        priority: Option<MessagePriority>,
    ) {
        self.remove(up_seid);
        self.index.insert(up_seid, self.list.len());
        self.list.push(Reportable {
            up_seid,
            cp_seid,
            peer,
            priority,
            seqn: 0,
        });
    }

    /// Session `up_seid` is gone.
    pub(super) fn remove(&mut self, up_seid: u64) {
        let Some(i) = self.index.remove(&up_seid) else {
            return;
        };
        self.list.swap_remove(i);
        if let Some(moved) = self.list.get(i) {
            self.index.insert(moved.up_seid, i);
        }
    }

    /// Every session of the CP function at `peer` is gone (it restarted, failed, released).
    pub(super) fn remove_peer(&mut self, peer: SocketAddr) {
        let gone: Vec<u64> = self
            .list
            .iter()
            .filter(|s| s.peer == peer)
            .map(|s| s.up_seid)
            .collect();
        for seid in gone {
            self.remove(seid);
        }
    }

    /// The next session in turn, its UR-SEQN advanced.
    fn next(&mut self) -> Option<Reportable> {
        if self.list.is_empty() {
            return None;
        }
        if self.next >= self.list.len() {
            self.next = 0;
        }
        let s = self.list.get_mut(self.next)?;
        s.seqn = s.seqn.wrapping_add(1);
        self.next += 1;
        Some(*s)
    }
}

/// Lock, whatever a panicked holder left.
pub(super) fn lock(m: &Mutex<ReportSessions>) -> MutexGuard<'_, ReportSessions> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The reports' outcomes.
#[derive(Debug, Default)]
pub(super) struct ReportCounts {
    offered: AtomicU64,
    sent: AtomicU64,
    accepted: AtomicU64,
    refused: AtomicU64,
    throttled: AtomicU64,
    timed_out: AtomicU64,
    errors: AtomicU64,
    skipped_no_session: AtomicU64,
    skipped_outstanding: AtomicU64,
    shed: Mutex<BTreeMap<String, u64>>,
}

/// The reports' outcomes at one instant (the summary's `reports`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReportTotals {
    /// Reports due at the rate.
    pub offered: u64,
    /// Sent to a CP function.
    pub sent: u64,
    /// Answered with an accepting Cause.
    pub accepted: u64,
    /// Answered with another Cause.
    pub refused: u64,
    /// Refused by the connection's egress throttle (never sent).
    pub throttled: u64,
    /// No response after every retransmission.
    pub timed_out: u64,
    /// Could not be sent, or another local error.
    pub errors: u64,
    /// Due while no session was established.
    pub skipped_no_session: u64,
    /// Due while `MAX_OUTSTANDING` reports waited.
    pub skipped_outstanding: u64,
    /// The throttled ones by reason: `egress level X` (what each level shed), `egress rate`,
    /// `egress pending`.
    pub shed_by_reason: BTreeMap<String, u64>,
}

impl ReportCounts {
    pub(super) fn totals(&self) -> ReportTotals {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        ReportTotals {
            offered: l(&self.offered),
            sent: l(&self.sent),
            accepted: l(&self.accepted),
            refused: l(&self.refused),
            throttled: l(&self.throttled),
            timed_out: l(&self.timed_out),
            errors: l(&self.errors),
            skipped_no_session: l(&self.skipped_no_session),
            skipped_outstanding: l(&self.skipped_outstanding),
            shed_by_reason: self
                .shed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        }
    }
}

/// The IEs of a periodic usage report: Report Type (39) USAR, and a Usage Report (80) with
/// URR ID (81) 1, UR-SEQN (104) `seqn` and Usage Report Trigger (63) PERIO (octet 5 bit 1).
fn report_ies(seqn: u32) -> Bytes {
    let mut v: Vec<u8> = Vec::with_capacity(32);
    let put = |v: &mut Vec<u8>, t: IeType, value: &[u8]| {
        // Infallible on a Vec with bodies this short.
        let _ = put_ie_header(v, t, value.len());
        v.extend_from_slice(value);
    };
    put(&mut v, IeType::REPORT_TYPE, &[0x02]);
    let _ = put_ie_header(&mut v, IeType::USAGE_REPORT_SRR, 8 + 8 + 7);
    put(&mut v, IeType::URR_ID, &1u32.to_be_bytes());
    put(&mut v, IeType::UR_SEQN, &seqn.to_be_bytes());
    put(&mut v, IeType::USAGE_REPORT_TRIGGER, &[0x01, 0x00, 0x00]);
    Bytes::from(v)
}

/// Send reports at `rate` until the task is aborted.
pub(super) async fn run(
    endpoint: Endpoint,
    sessions: Arc<Mutex<ReportSessions>>,
    counts: Arc<ReportCounts>,
    rate: f64,
) {
    let permits = Arc::new(Semaphore::new(MAX_OUTSTANDING));
    let start = now();
    let mut issued: u64 = 0;
    let mut ticks = tokio::time::interval(Duration::from_millis(1));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let due = (now().duration_since(start).as_secs_f64() * rate) as u64;
        while issued < due {
            issued += 1;
            counts.offered.fetch_add(1, Ordering::Relaxed);
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                counts.skipped_outstanding.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            let Some(s) = lock(&sessions).next() else {
                counts.skipped_no_session.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            let mut header = Header::new(MessageType::SESSION_REPORT_REQUEST).with_seid(s.cp_seid);
            if let Some(p) = s.priority {
                header = header.with_priority(p);
            }
            let (endpoint, counts) = (endpoint.clone(), counts.clone());
            tokio::spawn(async move {
                let result = endpoint.request(s.peer, header, report_ies(s.seqn)).await;
                let c = &counts;
                let counter = match &result {
                    Ok(r) if matches!(r.origin, ResponseOrigin::Throttled(_)) => &c.throttled,
                    Ok(r) if r.is_local() => &c.errors,
                    Ok(r) if r.is_accepted() => &c.accepted,
                    Ok(_) => &c.refused,
                    Err(NodeError::Timeout { .. }) => &c.timed_out,
                    Err(_) => &c.errors,
                };
                if let Ok(r) = &result {
                    if matches!(r.origin, ResponseOrigin::Throttled(_)) {
                        let reason = crate::egress::shed_reason(&r.origin);
                        let mut shed = c.shed.lock().unwrap_or_else(PoisonError::into_inner);
                        *shed.entry(reason).or_insert(0) += 1;
                    }
                }
                if matches!(&result, Ok(r) if !r.is_local())
                    || matches!(result, Err(NodeError::Timeout { .. }))
                {
                    c.sent.fetch_add(1, Ordering::Relaxed);
                }
                counter.fetch_add(1, Ordering::Relaxed);
                drop(permit);
            });
        }
    }
}

/// The level of each CP connection's report egress throttle, sampled each second.
#[derive(Debug, Default)]
pub(super) struct LevelTrace {
    levels: BTreeMap<SocketAddr, Vec<u8>>,
    samples: usize,
}

impl LevelTrace {
    /// Take a sample; the levels now, in address order.
    pub(super) fn sample(&mut self, endpoint: &Endpoint) -> Vec<(SocketAddr, u8)> {
        let now: Vec<(SocketAddr, u8)> = endpoint
            .inspect(|n| {
                n.report_egress_throttles()
                    .map(|(a, t)| (*a, t.level()))
                    .collect()
            })
            .unwrap_or_default();
        self.samples += 1;
        for (addr, level) in &now {
            // A connection first seen now was at level 0 before.
            let trace = self
                .levels
                .entry(*addr)
                .or_insert_with(|| vec![0; self.samples - 1]);
            trace.push(*level);
        }
        let mut now = now;
        now.sort_unstable();
        now
    }

    /// The connections' rows.
    pub(super) fn rows(&self, endpoint: &Endpoint) -> Vec<EgressSummary> {
        endpoint
            .inspect(|n| {
                self.levels
                    .iter()
                    .filter_map(|(addr, levels)| {
                        let t = n.report_egress_throttle(addr)?;
                        Some(EgressSummary::of(addr.to_string(), t, levels))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_reported_in_turn_and_forgotten_when_gone() {
        let a: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let b: SocketAddr = "127.0.0.2:1".parse().unwrap();
        let mut s = ReportSessions::default();
        s.insert(1, 11, a, None);
        s.insert(2, 12, b, None);
        s.insert(3, 13, a, None);
        let order: Vec<u64> = (0..4).map(|_| s.next().unwrap().up_seid).collect();
        assert_eq!(order, [1, 2, 3, 1]);
        s.remove(2);
        s.remove_peer(a);
        assert!(s.next().is_none());
    }

    #[test]
    fn the_report_ies_follow_the_layout() {
        let ies = report_ies(7);
        let expected: [u8; 32] = [
            0x00, 0x27, 0x00, 0x01, 0x02, // Report Type: USAR
            0x00, 0x50, 0x00, 0x17, // Usage Report (SRR), 23 octets
            0x00, 0x51, 0x00, 0x04, 0, 0, 0, 1, // URR ID 1
            0x00, 0x68, 0x00, 0x04, 0, 0, 0, 7, // UR-SEQN 7
            0x00, 0x3f, 0x00, 0x03, 0x01, 0x00, 0x00, // Usage Report Trigger: PERIO
        ];
        assert_eq!(&ies[..], &expected[..]);
    }
}
