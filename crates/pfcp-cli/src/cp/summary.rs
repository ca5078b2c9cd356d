//! The load generator's results: per class and per request tallies, latency percentiles,
//! per-UP counts, and their text and JSON renderings.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;

use pfcp_wire::Cause;
use serde::Serialize;

use super::sessions::{LabelTally, State, Tally};
use super::{CpArgs, Ctx, LossPacing, RateStep};
use crate::egress::by_reason;
pub use crate::egress::EgressSummary;
use pfcp_sim::traffic::Step;

/// Latency percentiles of successful transactions, in milliseconds (`None` without any).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Latency {
    /// Successful transactions measured.
    pub samples: usize,
    /// Median.
    pub p50: Option<f64>,
    /// 90th percentile.
    pub p90: Option<f64>,
    /// 99th percentile.
    pub p99: Option<f64>,
    /// Slowest.
    pub max: Option<f64>,
    /// Successful transactions slower than 5, 10, 15, 20, 50 and 100 ms. Percentiles of several
    /// `pfcp cp` processes do not combine; these counts do: summed over the processes they
    /// give the share of a whole run above a bound (its p99 is within 20 ms when at most 1 %
    /// of the samples lie above 20).
    pub above_ms: [Above; ABOVE_MS.len()],
}

/// The bounds, in milliseconds, of [`Latency::above_ms`].
pub(super) const ABOVE_MS: [u32; 6] = [5, 10, 15, 20, 50, 100];

/// How many successful transactions took longer than `ms`.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Above {
    /// The bound, in milliseconds.
    pub ms: u32,
    /// Samples above it.
    pub count: usize,
}

impl Latency {
    pub(super) fn of(samples_us: &[u32]) -> Latency {
        let mut v = samples_us.to_vec();
        v.sort_unstable();
        // Nearest rank.
        let at = |q: f64| {
            let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len().max(1));
            v.get(rank - 1).map(|us| f64::from(*us) / 1000.0)
        };
        Latency {
            samples: v.len(),
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            max: v.last().map(|us| f64::from(*us) / 1000.0),
            above_ms: ABOVE_MS.map(|ms| Above {
                ms,
                // Sorted: the samples above the bound are those after its partition point.
                count: v.len() - v.partition_point(|&us| us <= ms.saturating_mul(1000)),
            }),
        }
    }
}

/// What one UP function answered.
#[derive(Debug, Clone, Serialize)]
pub struct UpSummary {
    /// Its address.
    pub addr: SocketAddr,
    /// Its Node ID.
    pub node_id: String,
    /// Responses received from it.
    pub answered: u64,
    /// New sessions it accepted (how `--select` spread them).
    pub sessions: u64,
    /// Responses carrying an OCI.
    pub ocis: u64,
    /// The Overload Reduction Metric of the last OCI, in percent.
    pub last_oci_percent: Option<u8>,
}

/// The final summary of `pfcp cp` (its `--json` form).
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Seconds during which load was offered.
    pub duration_secs: f64,
    /// `--rate`.
    pub target_rate: f64,
    /// `--rate-steps` (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rate_steps: Vec<RateStep>,
    /// Requests offered per second, measured.
    pub offered_rate: f64,
    /// `--mix`.
    pub mix: String,
    /// `--loss-mode`: `priority` or `exact`.
    pub loss_mode: LossPacing,
    /// Totals over every class and request type.
    #[serde(flatten)]
    pub total: Tally,
    /// Redirections decided by the CP's overload control (a redirected request that then timed
    /// out is counted here but not in `redirected`).
    pub redirect_decisions: u64,
    /// Requests a Loss throttle had shed that went as probes after a silence towards their
    /// UP function (`--probe-gap-factor`); counted in `sent`.
    pub probes: u64,
    /// Rejections by cause value.
    pub rejected_by_cause: BTreeMap<String, u64>,
    /// Errors by kind.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Offers skipped: `--max-outstanding` requests were waiting.
    pub skipped_max_outstanding: u64,
    /// Offers skipped: every session slot was busy.
    pub skipped_no_session: u64,
    /// Latency of successful transactions.
    pub latency_ms: Latency,
    /// Per priority class, in `--mix` order (a JSON object keyed by class).
    #[serde(serialize_with = "as_map")]
    pub by_class: Vec<(String, ClassSummary)>,
    /// Per request type: establishment, modification, deletion (a JSON object).
    #[serde(serialize_with = "as_map")]
    pub by_request: Vec<(String, Tally)>,
    /// Sessions established and deleted.
    pub sessions_established: u64,
    /// Sessions deleted.
    pub sessions_deleted: u64,
    /// Sessions a UP function lost (it restarted or failed its heartbeats).
    pub sessions_lost: u64,
    /// Lost sessions established again (restorations).
    pub sessions_restored: u64,
    /// Per UP function.
    pub ups: Vec<UpSummary>,
    /// Requests refused locally, by throttle and reason: `loss`, `egress level X` (what each
    /// level shed), `egress rate`, `egress pending`.
    pub shed_by_reason: BTreeMap<String, u64>,
    /// The egress connections (UP functions with an egress configuration set).
    pub egress: Vec<EgressSummary>,
    /// With `--track-state`: the requests by the classification the CP gave them (its rule,
    /// priority and every C.2 adjustment that fired, TS 29.273 Annex C.2).
    pub by_classification: BTreeMap<String, LabelTally>,
    /// The UP functions' Session Report Requests this CP answered.
    pub reports: ReportTally,
    /// With `--warmup-secs`: the requests that started after the warm-up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadySummary>,
    /// UP functions lost during the run, in words (failed heartbeats, restarts, releases):
    /// the exit status is then 4.
    pub up_events: Vec<String>,
}

/// The steady state: the requests that started after `--warmup-secs`.
#[derive(Debug, Clone, Serialize)]
pub struct SteadySummary {
    /// The warm-up left out, in seconds from the start of the offer.
    pub from_secs: f64,
    /// Seconds of offer after it.
    pub secs: f64,
    /// Over every class.
    #[serde(flatten)]
    pub total: Tally,
    /// Successes per second.
    pub succeeded_per_sec: f64,
    /// Per class.
    #[serde(serialize_with = "as_map")]
    pub by_class: Vec<(String, Tally)>,
    /// Latency of the successful transactions.
    pub latency_ms: Latency,
}

/// Session Report Requests received (clause 7.5.8) and how they were answered.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct ReportTally {
    /// Answered with Cause 1.
    pub accepted: u64,
    /// For a session this CP does not know: Cause 65.
    pub unknown_session: u64,
}

/// One priority class: its totals, and per request type.
#[derive(Debug, Clone, Serialize)]
pub struct ClassSummary {
    /// Over every request type.
    #[serde(flatten)]
    pub total: Tally,
    /// Per request type: establishment, modification, deletion.
    #[serde(serialize_with = "as_map")]
    pub by_request: Vec<(String, Tally)>,
    /// Its requests refused locally, by throttle and reason.
    pub shed_by_reason: BTreeMap<String, u64>,
    /// New sessions per UP function, in the order of `ups` (where its establishments went:
    /// with route groups, what moved to another group).
    pub sessions_by_up: Vec<u64>,
}

/// Rows as one JSON object, in order.
fn as_map<S: serde::Serializer, T: Serialize>(
    rows: &[(String, T)],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(rows.iter().map(|(k, v)| (k, v)))
}

/// The rows of the request types.
fn step_rows(tallies: &[Tally; 3]) -> Vec<(String, Tally)> {
    Step::ALL
        .iter()
        .zip(tallies)
        .map(|(s, t)| (s.name().to_owned(), *t))
        .collect()
}

impl Summary {
    // Each argument is one source of the summary (the command line, the run's context and
    // tallies, its length, the process's counters, the egress rows, the report answers).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        args: &CpArgs,
        ctx: &Ctx,
        st: &State,
        offered_for: Duration,
        redirects: u64,
        probes: u64,
        egress: Vec<EgressSummary>,
        reports: ReportTally,
    ) -> Self {
        let secs = offered_for.as_secs_f64();
        Summary {
            duration_secs: (secs * 1000.0).round() / 1000.0,
            target_rate: args.rate,
            rate_steps: args.rate_steps.clone(),
            offered_rate: if secs > 0.0 {
                (st.total.offered as f64 / secs * 10.0).round() / 10.0
            } else {
                0.0
            },
            mix: args.mix.clone(),
            loss_mode: args.loss_mode,
            total: st.total,
            redirect_decisions: redirects,
            probes,
            rejected_by_cause: st
                .rejected_by_cause
                .iter()
                .map(|(c, n)| (c.to_string(), *n))
                .collect(),
            errors_by_kind: st.errors_by_kind.clone(),
            skipped_max_outstanding: st.skipped_outstanding,
            skipped_no_session: st.skipped_no_session,
            latency_ms: Latency::of(&st.latencies_us),
            by_class: ctx
                .classes
                .iter()
                .zip(st.by_class.iter().zip(&st.by_class_step))
                .zip(st.class_shed.iter().zip(&st.class_per_up))
                .map(|((c, (total, steps)), (shed, per_up))| {
                    let row = ClassSummary {
                        total: *total,
                        by_request: step_rows(steps),
                        shed_by_reason: shed.clone(),
                        sessions_by_up: per_up.clone(),
                    };
                    (c.name.clone(), row)
                })
                .collect(),
            by_request: step_rows(&st.by_step),
            sessions_established: st.established,
            sessions_deleted: st.deleted,
            sessions_lost: st.lost,
            sessions_restored: st.restored,
            ups: ctx
                .ups
                .iter()
                .zip(&st.per_up)
                .map(|(u, t)| UpSummary {
                    addr: u.addr,
                    node_id: u.node.to_string(),
                    answered: t.answered,
                    sessions: t.established,
                    ocis: t.ocis,
                    last_oci_percent: t.last_oci,
                })
                .collect(),
            shed_by_reason: st.shed_by_reason.clone(),
            egress,
            by_classification: st.by_label.clone(),
            reports,
            steady: st.steady.as_ref().map(|s| {
                let from_secs = args.warmup_secs;
                let secs = (secs - from_secs).max(0.0);
                SteadySummary {
                    from_secs,
                    secs: (secs * 1000.0).round() / 1000.0,
                    total: s.total,
                    succeeded_per_sec: if secs > 0.0 {
                        (s.total.succeeded as f64 / secs * 10.0).round() / 10.0
                    } else {
                        0.0
                    },
                    by_class: ctx
                        .classes
                        .iter()
                        .zip(&s.by_class)
                        .map(|(c, t)| (c.name.clone(), *t))
                        .collect(),
                    latency_ms: Latency::of(&s.latencies_us),
                }
            }),
            up_events: st.up_events.clone(),
        }
    }

    /// The text form.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "pfcp cp: {:.1} s, {} requests/s offered ({} targeted{}), mix {}, loss mode {}",
            self.duration_secs,
            self.offered_rate,
            self.target_rate,
            RateStep::describe(&self.rate_steps),
            self.mix,
            self.loss_mode.name()
        );
        let _ = writeln!(
            s,
            "  {:<15} {:>9} {:>9} {:>9} {:>8} {:>10} {:>9} {:>9} {:>9} {:>7}",
            "",
            "offered",
            "sent",
            "throttled",
            "no assoc",
            "redirected",
            "succeeded",
            "rejected",
            "timed out",
            "errors"
        );
        let row = |s: &mut String, name: &str, t: &Tally| {
            let _ = writeln!(
                s,
                "  {name:<15} {:>9} {:>9} {:>9} {:>8} {:>10} {:>9} {:>9} {:>9} {:>7}",
                t.offered,
                t.sent,
                t.throttled,
                t.unassociated,
                t.redirected,
                t.succeeded,
                t.rejected,
                t.timed_out,
                t.errors
            );
        };
        row(&mut s, "total", &self.total);
        for (name, c) in &self.by_class {
            row(&mut s, name, &c.total);
        }
        for (name, t) in &self.by_request {
            row(&mut s, name, t);
        }
        if !self.rejected_by_cause.is_empty() {
            let causes: Vec<String> = self
                .rejected_by_cause
                .iter()
                .map(|(c, n)| {
                    let name = c
                        .parse::<u8>()
                        .ok()
                        .and_then(|c| Cause(c).name())
                        .unwrap_or("unknown cause");
                    format!("{c} ({name}): {n}")
                })
                .collect();
            let _ = writeln!(s, "  rejected by cause: {}", causes.join(", "));
        }
        if !self.errors_by_kind.is_empty() {
            let errors: Vec<String> = self
                .errors_by_kind
                .iter()
                .map(|(k, n)| format!("{k}: {n}"))
                .collect();
            let _ = writeln!(s, "  errors: {}", errors.join(", "));
        }
        let l = &self.latency_ms;
        let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2} ms"));
        let _ = writeln!(
            s,
            "  latency of successful transactions: p50 {}, p90 {}, p99 {}, max {} ({} samples)",
            ms(l.p50),
            ms(l.p90),
            ms(l.p99),
            ms(l.max),
            l.samples
        );
        let _ = writeln!(
            s,
            "  sessions: {} established, {} deleted, {} lost, {} restored; offers skipped: {} at \
             --max-outstanding, {} without a free session slot; redirect decisions: {}; probes: {}",
            self.sessions_established,
            self.sessions_deleted,
            self.sessions_lost,
            self.sessions_restored,
            self.skipped_max_outstanding,
            self.skipped_no_session,
            self.redirect_decisions,
            self.probes
        );
        if !self.shed_by_reason.is_empty() {
            let _ = writeln!(s, "  shed by: {}", by_reason(&self.shed_by_reason));
            for (name, c) in &self.by_class {
                if !c.shed_by_reason.is_empty() {
                    let _ = writeln!(s, "    {name}: {}", by_reason(&c.shed_by_reason));
                }
            }
        }
        if !self.by_classification.is_empty() {
            let _ = writeln!(s, "  by classification (C.2 adjustments):");
            for (label, t) in &self.by_classification {
                let _ = writeln!(
                    s,
                    "    {label:<48} offered {:>7} sent {:>7} throttled {:>7}",
                    t.offered, t.sent, t.throttled
                );
            }
        }
        for e in &self.egress {
            let _ = writeln!(s, "  {}", e.render(&e.node_id));
        }
        if self.ups.len() > 1 {
            let _ = writeln!(
                s,
                "  new sessions per UP function ({}):",
                self.ups
                    .iter()
                    .map(|u| u.addr.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for (name, c) in &self.by_class {
                let _ = writeln!(s, "    {name:<15} {:?}", c.sessions_by_up);
            }
        }
        if let Some(st) = &self.steady {
            let l = &st.latency_ms;
            let classes: Vec<String> = st
                .by_class
                .iter()
                .map(|(name, t)| {
                    format!("{name} {:.3}", t.succeeded as f64 / t.offered.max(1) as f64)
                })
                .collect();
            let _ = writeln!(
                s,
                "  after the first {} s ({} s): offered {}, succeeded {} ({}/s); success {}; \
                 latency p50 {}, p90 {}, p99 {}",
                st.from_secs,
                st.secs,
                st.total.offered,
                st.total.succeeded,
                st.succeeded_per_sec,
                classes.join(", "),
                ms(l.p50),
                ms(l.p90),
                ms(l.p99)
            );
        }
        if self.reports != ReportTally::default() {
            let _ = writeln!(
                s,
                "  Session Report Requests answered: {} accepted, {} for an unknown session",
                self.reports.accepted, self.reports.unknown_session
            );
        }
        for u in &self.ups {
            let _ = writeln!(
                s,
                "  UP {} at {}: {} responses, {} new sessions, {} with an OCI (last {})",
                u.node_id,
                u.addr,
                u.answered,
                u.sessions,
                u.ocis,
                u.last_oci_percent
                    .map_or("none".to_string(), |m| format!("{m}%"))
            );
        }
        s
    }
}

/// The egress connections' rows, read from the endpoint's node (before the associations are
/// released: a release drops the UP function's throttles).
pub(super) fn egress_rows(ctx: &Ctx, st: &State) -> Vec<EgressSummary> {
    let rows = ctx.endpoint.inspect(|n| {
        ctx.ups
            .iter()
            .zip(&st.levels)
            .filter_map(|(u, levels)| {
                let e = n.up_link(&u.node)?.egress_throttle()?;
                Some(EgressSummary::of(u.node.to_string(), e, levels))
            })
            .collect()
    });
    rows.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_percentiles() {
        let v: Vec<u32> = (1..=100).map(|i| i * 1000).collect();
        let l = Latency::of(&v);
        assert_eq!(
            (l.p50, l.p90, l.p99, l.max),
            (Some(50.0), Some(90.0), Some(99.0), Some(100.0))
        );
        let above: Vec<(u32, usize)> = l.above_ms.iter().map(|a| (a.ms, a.count)).collect();
        // 5.000 ms is not above 5: 95 of 100 are.
        assert_eq!(
            above,
            [(5, 95), (10, 90), (15, 85), (20, 80), (50, 50), (100, 0)]
        );
        assert_eq!(Latency::of(&[]).p50, None);
        assert!(Latency::of(&[]).above_ms.iter().all(|a| a.count == 0));
    }
}
