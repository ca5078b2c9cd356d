//! `pfcp up`: a UP function (UPF) emulator with overload control.
//!
//! It binds a [`pfcp_node::Endpoint`] with UP self-protection
//! ([`AdmissionConfig`]: a priority queue of `--queue` requests served at `--capacity`
//! requests per second). The endpoint answers Heartbeat and Association requests itself,
//! rejects what the queue cannot hold with cause 74 ("PFCP entity in congestion") and
//! piggybacks the Overload and Load Control Information (OCI/LCI) on the responses; this
//! module answers every request the admission lets through:
//!
//! * Session Establishment Request (50): Session Establishment Response (51) with the UP's
//!   Node ID, Cause 1 and a UP F-SEID (a new SEID, the `--fseid-ip` address); the header SEID
//!   is the CP's, from the request's CP F-SEID.
//! * Session Modification / Deletion Request (52 / 54): Response (53 / 55) with Cause 1; the
//!   header SEID is the CP's SEID, found from the request's header SEID (the UP's SEID) in the
//!   session table. A SEID the UP never allocated (or already deleted) gets Cause 65, "Session
//!   context not found", with SEID 0 (clause 7.2.2.4.2).
//! * Any other request that reaches the application (PFD Management, Session Set Deletion,
//!   ...): its response with Cause 76, "Service not supported".
//!
//! With `--report-rate` it also sends Session Report Requests on its sessions, through the
//! report egress throttle of each CP connection (`--report-egress-*`; module [`reports`]).
//!
//! Every response copies the request's sequence number and message priority. Once a second a
//! status line goes to stderr; the first line is `pfcp up: listening on ADDR ...`.
//!
//! The answers come from [`pfcp_sim::responder`] (the same UP responder `pfcp sim` runs), in the
//! endpoint's request handler. The status lines read the admission's counters (cause-74
//! rejections) and gauges (the published Overload/Load Metrics, the queue) from the node
//! (`pfcp_node::admission::AdmissionStats`, `up/snapshot.rs`); the endpoint exports the node's
//! counters to the `metrics` recorder; the kernel's and the ingress guard's drops come from the
//! endpoint.

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pfcp_node::admission::ServiceOrder;
use pfcp_node::{
    AdmissionConfig, Channels, Endpoint, EndpointConfig, HandlerReply, LocalNode, PeerEvent,
    RequestView,
};
use pfcp_overload::NodeKey;
use pfcp_sim::responder::{Answer, Responder};
use pfcp_wire::Cause;
use tokio::sync::mpsc;

use crate::meter;
use crate::node_setup::{loopback_like, node_id_ie, node_key, recovery_time_stamp};
use crate::{io_error_text, now};

pub mod profile;
pub mod reports;
pub mod series;
mod snapshot;

pub use profile::ProfileArgs;
use reports::{LevelTrace, ReportCounts, ReportSessions};
pub use reports::{ReportArgs, ReportTotals};
use snapshot::Snapshot;

/// Arguments of `pfcp up`.
#[derive(Debug, clap::Args)]
pub struct UpArgs {
    /// Local address to listen on (port 0: any free port; the address bound is printed on the
    /// first line).
    #[arg(
        help_heading = "UP function",
        long,
        default_value = "127.0.0.1:8805",
        value_name = "ADDR"
    )]
    pub listen: SocketAddr,
    /// This UP function's Node ID: an IP address or an FQDN.
    #[arg(
        help_heading = "UP function",
        long,
        default_value = "upf1.example.net",
        value_name = "ID"
    )]
    pub node_id: String,
    /// Session requests served per second (the service model's rate).
    #[arg(
        help_heading = "UP function",
        long,
        default_value_t = 2000.0,
        value_name = "PER_SEC"
    )]
    pub capacity: f64,
    /// Most requests waiting for service; when full, the lowest priority is rejected with
    /// cause 74.
    #[arg(
        help_heading = "Self-protection",
        long,
        default_value_t = 256,
        value_name = "N"
    )]
    pub queue: usize,
    /// Send entity-scoped OCIs (AOCI=0, the spec's default scope: the PFCP entity of the
    /// session's UP F-SEID). By default this emulator sends node-scoped OCIs (AOCI=1): it is one
    /// PFCP entity, its queue measures the whole UP function, and only a node-scoped OCI
    /// throttles Session Establishment Requests, whose entity the CP cannot know yet (clause
    /// 6.2.4.3.1).
    #[arg(help_heading = "Overload control", long)]
    pub entity_scoped: bool,
    /// Node-scoped OCIs (the default; kept for scripts written when it was not).
    #[arg(
        help_heading = "Overload control",
        long,
        hide = true,
        conflicts_with = "entity_scoped"
    )]
    pub node_scoped: bool,
    /// Work a refusal (Cause 74) costs, as a share of serving a request: decoding, building
    /// and sending it is not free on a real UP function, and it is what makes an unprotected
    /// one collapse under a storm.
    #[arg(
        help_heading = "Self-protection",
        long,
        default_value_t = 0.1,
        value_name = "SHARE"
    )]
    pub rejection_cost: f64,
    /// Longest a request waits in the queue before it is refused with cause 74, in
    /// milliseconds: the bound on the latency of every request served. 0: no bound (then
    /// give a --target-load below 1).
    #[arg(
        help_heading = "Self-protection",
        long,
        default_value_t = 15,
        value_name = "MS"
    )]
    pub max_wait_ms: u64,
    /// The same for emergency and eMPS requests (message priority 0) while their own load
    /// fits: a burst of them that the UP clears within 100 ms waits rather than
    /// being refused. Set it to --max-wait-ms to bound their latency like the rest's (from
    /// the first moment of a storm too). 0: no bound.
    #[arg(help_heading = "Self-protection", long, default_value_t = AdmissionConfig::DEFAULT_TOP_PRIORITY_MAX_WAIT.as_millis() as u64, value_name = "MS")]
    pub priority_max_wait_ms: u64,
    /// In which order the queue serves: `priority` (strictly by message priority; what waits
    /// longer than --max-wait-ms is refused) or `arrival` (emergency and eMPS first, the rest
    /// in order of arrival; a request is admitted only if it will be served within
    /// --max-wait-ms: more goodput with many CP functions, a weaker preference among the
    /// priorities below emergency).
    #[arg(help_heading = "Self-protection", long, default_value_t = ServiceOrder::Priority, value_name = "ORDER")]
    pub service_order: ServiceOrder,
    /// The control interval: how often the UP function weighs its arrivals against its service
    /// and publishes a new Overload Reduction Metric. At 1000 requests/s the default counts
    /// about 200 arrivals an interval, whose noise stays within a few per cent of the capacity.
    #[arg(help_heading = "Overload control", long, default_value_t = pfcp_overload::ReporterConfig::DEFAULT_INTERVAL.as_millis() as u64, value_name = "MS", value_parser = clap::value_parser!(u64).range(10..=10_000))]
    pub interval_ms: u64,
    /// Arrivals the Overload Reduction Metric steers to, as a share of --capacity (0 to 2):
    /// above 1, the bounded queue is never starved and sheds the surplus. Each overload
    /// starts from it; the UP then sizes the surplus to how bursty the arrivals are (1 to
    /// 1.5), unless --fixed-target-load.
    #[arg(help_heading = "Overload control", long, default_value_t = pfcp_node::AdmissionConfig::DEFAULT_TARGET_LOAD, value_name = "SHARE")]
    pub target_load: f64,
    /// Keep --target-load through an overload instead of sizing the surplus to the
    /// burstiness of the arrivals.
    #[arg(help_heading = "Overload control", long)]
    pub fixed_target_load: bool,
    /// Tell every CP function the same Overload Reduction Metric, the level of the 3-point
    /// grid nearest the law's, instead of dithering it across them (by default each is told
    /// one of the two levels around the law's share, so that together they admit that share).
    #[arg(help_heading = "Overload control", long)]
    pub no_dither: bool,
    /// Receive buffer of the socket to ask for, in KiB (the OS may clamp it; the first line
    /// says what it granted).
    #[arg(
        help_heading = "UP function",
        long,
        default_value_t = 8192,
        value_name = "KIB"
    )]
    pub recv_buffer_kib: usize,
    /// Also print a summary as one JSON object on stdout when stopping.
    #[arg(help_heading = "Output", long)]
    pub json: bool,
    /// With --json: record the served, refused and cause-74 counts, the published Overload
    /// Reduction Metric and the queue every MS milliseconds, as the summary's `series` (to
    /// read a step of load off the UP function: settling, spread). 0: none.
    #[arg(help_heading = "Output", long, default_value_t = 0, value_name = "MS")]
    pub series_ms: u64,
    /// Serve the counters (pfcp-node's and this tool's) at a Prometheus scrape endpoint on
    /// ADDR, e.g. `127.0.0.1:9185` (any path answers GET).
    #[arg(help_heading = "Output", long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
    /// Period of Validity of the OCIs sent.
    #[arg(
        help_heading = "Overload control",
        long,
        default_value_t = 30,
        value_name = "SECS"
    )]
    pub validity_secs: u64,
    /// Stop after SECS seconds (default: run until interrupted).
    #[arg(help_heading = "UP function", long, value_name = "SECS")]
    pub duration_secs: Option<u64>,
    /// Heartbeat interval towards associated CP functions; 0: none.
    #[arg(
        help_heading = "UP function",
        long,
        default_value_t = 60,
        value_name = "SECS"
    )]
    pub heartbeat_secs: u64,
    /// Address in the UP F-SEID of new sessions (default: the listen address, or the loopback
    /// address if that is unspecified).
    #[arg(help_heading = "UP function", long, value_name = "IP")]
    pub fseid_ip: Option<IpAddr>,
    /// Session Report Requests of this UP function (see `pfcp_cli::up::reports`).
    #[command(flatten)]
    pub reports: ReportArgs,
    /// The overload and load control behaviour of another UP function (see
    /// `pfcp_cli::up::profile`).
    #[command(flatten)]
    pub behaviour: ProfileArgs,
}

/// Run `pfcp up`; errors are one line on stderr.
pub fn main(args: &UpArgs) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pfcp up: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &UpArgs) -> Result<(), String> {
    if !(args.capacity.is_finite() && args.capacity > 0.0) {
        return Err("--capacity must be a positive number of requests per second".into());
    }
    if args.queue == 0 {
        return Err("--queue must be at least 1".into());
    }
    if args.validity_secs == 0 {
        return Err("--validity-secs must be at least 1".into());
    }
    if !(0.0..=1.0).contains(&args.rejection_cost) {
        return Err("--rejection-cost must be between 0 and 1".into());
    }
    if !(args.target_load > 0.0 && args.target_load <= 2.0) {
        return Err("--target-load must be above 0 and at most 2".into());
    }
    args.reports.egress()?;
    up_runtime()?.block_on(serve(args))
}

/// The runtime of `pfcp up`: one thread. Its work is one endpoint task (the handler answers
/// in it), so a second worker only adds cross-thread wake-ups (`docs/benchmarks.md`,
/// pfcp-node: the multi-thread figures, and one associated CP against `pfcp up`).
fn up_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {}", io_error_text(&e)))
}

/// Counted by the responder.
#[derive(Debug, Default)]
struct Counts {
    /// Requests answered with Cause 1.
    served: AtomicU64,
    /// Requests answered with another cause by the emulator (65, 75, 76).
    refused: AtomicU64,
}

async fn serve(args: &UpArgs) -> Result<(), String> {
    let meter = meter::install_with_exporter(args.metrics)?;
    let node = node_key(&args.node_id)?;
    let node_ie = node_id_ie(&node)?;
    let validity = Duration::from_secs(args.validity_secs);
    let reporter = AdmissionConfig::default_reporter()
        .with_interval(Duration::from_millis(args.interval_ms))
        .with_target_load(args.target_load)
        .with_dither(!args.no_dither)
        .with_node_scoped(!args.entity_scoped)
        .with_validity(validity)
        .with_refresh_before(validity.min(Duration::from_secs(5 * 4)) / 4);
    let admission = AdmissionConfig::new(node.clone())
        .with_service_rate(Some(args.capacity))
        .with_queue_capacity(args.queue)
        .with_rejection_cost(args.rejection_cost)
        .with_adapt_target_load(!args.fixed_target_load)
        .with_max_wait((args.max_wait_ms > 0).then(|| Duration::from_millis(args.max_wait_ms)))
        .with_top_priority_max_wait(
            (args.priority_max_wait_ms > 0)
                .then(|| Duration::from_millis(args.priority_max_wait_ms)),
        )
        .with_service_order(args.service_order)
        .with_reporter(reporter);
    let heartbeat = (args.heartbeat_secs > 0).then(|| Duration::from_secs(args.heartbeat_secs));
    let rts = recovery_time_stamp();
    // The UP profile; a clock's numbers count from the Recovery Time Stamp (NTP seconds).
    let profile = args.behaviour.profile(args.entity_scoped)?;
    let admission = profile.apply(admission, rts.0);
    let local = LocalNode::up(node.clone(), rts);
    let socket = pfcp_node::SocketConfig::default().with_recv_buffer(args.recv_buffer_kib * 1024);
    let mut config = EndpointConfig::new(local.clone())
        .with_admission(admission)
        .with_heartbeat_interval(heartbeat)
        .with_socket(socket);
    let egress = args.reports.egress()?;
    if let Some(e) = egress.single {
        config = config.with_report_egress(e);
    }
    if let Some(sets) = egress.sets {
        config = config.with_report_egress_sets(sets);
    }
    let counts = Arc::new(Counts::default());
    let reporting = args.reports.report_rate > 0.0;
    let report_sessions = Arc::new(std::sync::Mutex::new(ReportSessions::default()));
    let handler = {
        let counts = counts.clone();
        let report_sessions = reporting.then(|| report_sessions.clone());
        let mut responder = Responder::new(
            local.clone(),
            node_ie,
            fseid_for(args.fseid_ip, args.listen),
        );
        move |view: &RequestView<'_>| match responder.answer(view.request(), |_| false) {
            Ok(Answer::Respond(bytes, accepted)) => {
                let (c, outcome) = if accepted {
                    (&counts.served, "accepted")
                } else {
                    (&counts.refused, "refused")
                };
                c.fetch_add(1, Ordering::Relaxed);
                let peer = crate::meter::peer_label(view.node(), view.peer());
                metrics::counter!("pfcp_up_requests_answered_total", "outcome" => outcome, "peer" => peer)
                    .increment(1);
                if let (Some(r), true) = (&report_sessions, accepted) {
                    note_session(r, view, &bytes);
                }
                HandlerReply::Respond(bytes)
            }
            Ok(Answer::Reject(cause)) => {
                counts.refused.fetch_add(1, Ordering::Relaxed);
                let peer = crate::meter::peer_label(view.node(), view.peer());
                metrics::counter!("pfcp_up_requests_answered_total", "outcome" => "refused", "peer" => peer)
                    .increment(1);
                HandlerReply::Reject(cause)
            }
            Err(_) => HandlerReply::Reject(Cause::SYSTEM_FAILURE),
        }
    };
    let (endpoint, channels) = Endpoint::bind_with_handler(config, args.listen, handler)
        .await
        .map_err(|e| format!("cannot listen on {}: {}", args.listen, io_error_text(&e)))?;
    let addr = endpoint.local_addr();
    eprintln!(
        "pfcp up: listening on {addr} (Node ID {node}, capacity {}/s, queue {}, max wait {} (priority 0: {}), served in {} order, target load {}{}{}, refusal cost {}, {} OCIs every {} ms valid {} s, socket buffers {}, Recovery Time Stamp {})",
        args.capacity,
        args.queue,
        wait_text(args.max_wait_ms),
        wait_text(args.priority_max_wait_ms),
        args.service_order,
        args.target_load,
        if args.fixed_target_load { " fixed" } else { " (sized to the arrivals' burstiness)" },
        if args.no_dither { ", one metric for all" } else { "" },
        args.rejection_cost,
        if args.entity_scoped {
            "entity-scoped"
        } else {
            "node-scoped"
        },
        args.interval_ms,
        args.validity_secs,
        endpoint.socket_buffers(),
        local.recovery_time_stamp.0
    );
    if profile != pfcp_node::admission::UpProfile::default() {
        eprintln!("pfcp up: UP profile: {profile}");
    }
    let Channels { incoming, events } = channels;
    // Every request is answered in the handler; the channel only carries what it defers (none).
    drop(incoming);
    tokio::spawn(report_events(events, report_sessions.clone()));
    let report_counts = Arc::new(ReportCounts::default());
    let reporter = reporting.then(|| {
        tokio::spawn(reports::run(
            endpoint.clone(),
            report_sessions.clone(),
            report_counts.clone(),
            args.reports.report_rate,
        ))
    });
    let mut level_trace = LevelTrace::default();

    let start = now();
    let deadline = async {
        match args.duration_secs {
            Some(s) => tokio::time::sleep(Duration::from_secs(s)).await,
            None => std::future::pending().await,
        }
    };
    let interrupted = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(deadline, interrupted);
    let mut ticks =
        tokio::time::interval_at(start + Duration::from_secs(1), Duration::from_secs(1));
    let mut last = Snapshot::take(&meter, &counts, &endpoint);
    let mut max_metric = 0u64;
    // The target load at the last status line of an overload (an overload's end resets it).
    let mut overloaded_target: Option<f64> = None;
    let mut series = series::Series::default();
    let period = Duration::from_millis(args.series_ms.max(1));
    let mut series_ticks = (args.json && args.series_ms > 0).then(|| {
        let mut t = tokio::time::interval_at(start + period, period);
        // A late loop records one longer period (its end time says so), not a burst of
        // empty ones.
        t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        t
    });
    loop {
        tokio::select! {
            _ = &mut deadline => break,
            _ = &mut interrupted => break,
            _ = series::tick(&mut series_ticks) => {
                let t = now().duration_since(start).as_secs_f64();
                series.record(t, Snapshot::take(&meter, &counts, &endpoint));
            }
            _ = ticks.tick() => {
                let snap = Snapshot::take(&meter, &counts, &endpoint);
                let secs = now().duration_since(start).as_secs();
                max_metric = max_metric.max(snap.overload.round() as u64);
                if snap.overload > 0.0 {
                    overloaded_target = Some(snap.target_load);
                }
                let mut line = snap.status_line(&last, secs);
                if reporting {
                    let t = report_counts.totals();
                    line.push_str(&format!(
                        " | reports sent {} throttled {}",
                        t.sent, t.throttled
                    ));
                    let levels = level_trace.sample(&endpoint);
                    if !levels.is_empty() {
                        line.push_str(" | level");
                        for (_, l) in levels {
                            line.push_str(&format!(" {l}"));
                        }
                    }
                }
                eprintln!("pfcp up: {line}");
                last = snap;
            }
        }
    }
    if let Some(r) = reporter {
        r.abort();
    }
    let report_totals = report_counts.totals();
    let report_egress = level_trace.rows(&endpoint);
    if reporting {
        let t = &report_totals;
        eprintln!(
            "pfcp up: Session Report Requests: {} due, {} sent, {} accepted, {} refused, {} \
             throttled by egress, {} timed out, {} errors; skipped: {} without a session, {} at \
             the outstanding limit",
            t.offered,
            t.sent,
            t.accepted,
            t.refused,
            t.throttled,
            t.timed_out,
            t.errors,
            t.skipped_no_session,
            t.skipped_outstanding
        );
        if !t.shed_by_reason.is_empty() {
            eprintln!(
                "pfcp up: reports shed by: {}",
                crate::egress::by_reason(&t.shed_by_reason)
            );
        }
        for e in &report_egress {
            eprintln!("pfcp up: {}", e.render(&e.node_id));
        }
    }
    let snap = Snapshot::take(&meter, &counts, &endpoint);
    // The peak, not only the samples: a burst's metric can come and go within a second.
    let peak = snapshot::AdmissionReading::of(&endpoint)
        .stats
        .overload_metric_peak;
    max_metric = max_metric.max(u64::from(peak));
    let secs = now().duration_since(start).as_secs_f64();
    if series_ticks.is_some() {
        // The last, partial period: the series adds up to the totals.
        series.record(secs, snap);
    }
    eprintln!(
        "pfcp up: stopped after {secs:.1} s: served {}, rejected with cause 74 {}, refused {}, \
         dropped by the kernel {}, by the ingress guard {}",
        snap.served,
        snap.rejected_74,
        snap.refused,
        snap.kernel_drops
            .map_or("unknown".into(), |d| d.to_string()),
        snap.guard_drops
    );
    if args.json {
        let mut summary = serde_json::json!({
            "duration_secs": (secs * 10.0).round() / 10.0,
            "capacity": args.capacity,
            "served": snap.served,
            "rejected_74": snap.rejected_74,
            "refused": snap.refused,
            "kernel_drops": snap.kernel_drops,
            "guard_drops": snap.guard_drops,
            "max_overload_metric": max_metric,
            "interval_ms": args.interval_ms,
            "target_load": {
                "configured": args.target_load,
                "sized": !args.fixed_target_load,
                "last_overloaded": overloaded_target.map(|t| (t * 1000.0).round() / 1000.0),
            },
            "socket_buffers": {
                "recv": endpoint.socket_buffers().recv,
                "send": endpoint.socket_buffers().send,
            },
            "recovery_time_stamp": local.recovery_time_stamp.0,
            "reports": report_totals,
            "report_egress": report_egress,
        });
        if let (Some(_), Some(m)) = (&series_ticks, summary.as_object_mut()) {
            m.insert("series".into(), serde_json::json!(series.periods()));
        }
        // A reader that went away (`pfcp up ... | head`) is no error.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{summary}").and_then(|()| out.flush());
    }
    drop(endpoint);
    Ok(())
}

/// The address of the UP F-SEIDs: `--fseid-ip`, else the listen address, else (unspecified)
/// the loopback address of its family.
fn fseid_for(fseid_ip: Option<IpAddr>, listen: SocketAddr) -> IpAddr {
    fseid_ip.unwrap_or(if listen.ip().is_unspecified() {
        loopback_like(listen.ip())
    } else {
        listen.ip()
    })
}

/// Record an accepted session request for the reports: a new session (its UP SEID from the
/// response's F-SEID, the CP's from the request) or a deleted one.
fn note_session(
    sessions: &std::sync::Mutex<ReportSessions>,
    view: &RequestView<'_>,
    response: &[u8],
) {
    let header = view.message().header();
    match header.message_type {
        pfcp_wire::MessageType::SESSION_ESTABLISHMENT_REQUEST => {
            let up = pfcp_wire::Message::decode(response)
                .ok()
                .and_then(|m| m.f_seid().ok().flatten());
            if let (Some(up), Some(cp)) = (up, view.request().reference.cp_f_seid) {
                reports::lock(sessions).insert(up.seid, cp.seid, view.peer(), header.priority);
            }
        }
        pfcp_wire::MessageType::SESSION_DELETION_REQUEST => {
            if let Some(seid) = header.seid {
                reports::lock(sessions).remove(seid);
            }
        }
        _ => {}
    }
}

/// Print association changes; forget the sessions of a CP function that lost them.
async fn report_events(
    mut events: mpsc::Receiver<PeerEvent>,
    sessions: Arc<std::sync::Mutex<ReportSessions>>,
) {
    while let Some(e) = events.recv().await {
        if let PeerEvent::SessionsLost { peer, .. } = &e {
            reports::lock(&sessions).remove_peer(*peer);
        }
        let text = match &e {
            PeerEvent::Associated { peer, node } => format!("associated with {node} at {peer}"),
            PeerEvent::Released { peer, node } => {
                format!("association released by {}", who(peer, node.as_ref()))
            }
            PeerEvent::Restarted { peer, node } => {
                format!("{} restarted", who(peer, node.as_ref()))
            }
            PeerEvent::Failed { peer, node } => {
                format!("{} stopped answering heartbeats", who(peer, node.as_ref()))
            }
            PeerEvent::SessionsLost {
                peer,
                node,
                sessions,
            } => format!(
                "{} sessions with {} are gone",
                sessions.len(),
                who(peer, node.as_ref())
            ),
            other => format!("{other:?}"),
        };
        eprintln!("pfcp up: {text}");
    }
}

fn who(peer: &SocketAddr, node: Option<&NodeKey>) -> String {
    match node {
        Some(n) => format!("{n} at {peer}"),
        None => peer.to_string(),
    }
}

/// A wait bound of the command line as the first line says it: `0` is none.
fn wait_text(ms: u64) -> String {
    if ms > 0 {
        format!("{ms} ms")
    } else {
        "none".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_parse() {
        assert_eq!(
            node_key("192.0.2.1").unwrap(),
            NodeKey::Ip([192, 0, 2, 1].into())
        );
        assert_eq!(
            node_key("UPF1.example.net.").unwrap(),
            NodeKey::fqdn("upf1.example.net")
        );
        assert!(node_key("not a name").is_err());
    }
}
