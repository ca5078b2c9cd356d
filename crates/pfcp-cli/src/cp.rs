//! `pfcp cp`: a CP function (SMF) load generator that honours the UP functions' overload
//! control.
//!
//! It binds a [`pfcp_node::Endpoint`] with CP overload control ([`CpConfig::default`]),
//! associates with every `--up`, then offers session requests at `--rate` per second for
//! `--duration-secs`, and waits for the outstanding ones. `--rate-steps SECS:RATE,...`
//! changes the rate at those times of the run: a step of this CP's own demand, as
//! `pfcp sim`'s step scenario makes it.
//!
//! ## Traffic
//!
//! There are `--sessions` session slots. Each session goes through **one Session
//! Establishment, `--modifications` Session Modifications (default 1), one Session Deletion**,
//! then its slot is free for a new session; so with the default, a third of the requests are
//! of each type once the first sessions are established. Each tick of the pacer offers the
//! next step of a session whose previous step has finished (oldest first) or, if there is
//! none, a new session's establishment. A new session draws its class from `--mix` (seeded by
//! `--seed`) and its UP function from the `--up` list by load (`--select load`, the default:
//! the endpoint's UP selection from the LCI and OCI each UP function sends) or round-robin; all its requests carry the
//! class's [`RequestProfile`](pfcp_node::RequestProfile) (modifications and deletions also
//! say the session is established and name its UP PFCP entity, the UP F-SEID address). A
//! failed establishment frees the slot; a failed modification goes on to the deletion; a
//! deletion frees the slot whatever its answer.
//!
//! With `--hold-ms` a session stays established that long after its establishment before
//! its next step (a PDU session that lives), so that `--sessions` bounds how many are held.
//!
//! An offer finds no room when `--max-outstanding` requests are already waiting for their
//! response, or when every slot is busy: it is then skipped and counted, not delayed (the
//! pacer keeps the rate).
//!
//! With route groups (`--route-group`, `--egress-config`), new sessions are asked of the
//! UP functions of the first (preferred) group only; the route list moves an establishment
//! to the next group when the preferred group's connections refuse it.
//!
//! ## A pool of CP functions
//!
//! `--functions N` runs N CP functions in the process, an SMF pool (`cp/pool.rs`): each its own
//! endpoint (socket, Node ID with `-I` appended to `--node-id`'s first label, association,
//! overload state, throttles, session slots), offering at a phase of its own within its gap;
//! `--rate`, `--rate-steps`, `--sessions` and `--max-outstanding` are split evenly, one
//! progress line and one summary cover them all.
//!
//! ## Overload control
//!
//! The endpoint decides per request from the OCIs the UP functions piggyback: a request its
//! throttles refuse is not sent and fails with cause 74 ("throttled"). With `--redirect` the
//! endpoint gets a route list of all `--up` (in the order given) and a throttled Session
//! Establishment Request may go to another UP function instead ("redirected": the response's
//! Node ID is not the one of the UP function asked). To build that route list the UP functions'
//! Node IDs are learned first by a short-lived association from a second socket, released at
//! once.
//!
//! Emergency and eMPS requests are throttled last (clause 6.2.4.5.1): every request to a UP
//! function, whichever of its PFCP entities it goes to, meets one Loss throttle, and they pass
//! as long as the other classes can make up the reduction. When they alone exceed what the UP
//! function admits (at 10x with the default mix), they are throttled too.
//! `--never-throttle-exempt` never throttles them (a regional rule,
//! [`LossConfig::never_throttle_exempt`](pfcp_throttle::LossConfig::never_throttle_exempt)).
//!
//! `--loss-mode` chooses what the Loss throttles favour when a drop is due (a due drop can
//! only go to a request that arrives, so the two cannot be combined, `docs/throttle.md`):
//!
//! * `priority` (the default): lowest priority first, emergency and eMPS last, as above; the
//!   reduction achieved over a short window may lag the target by a few requests.
//! * `exact`: window-exact pacing ([`LossConfig::exact_window`](pfcp_throttle::LossConfig::exact_window)): every window of 100 requests
//!   or more towards a destination is within one percentage point of its reduction, whatever
//!   the mix, but the drops fall on non-exempt requests regardless of their priority (each
//!   class sheds about the same share); emergency and eMPS requests are never throttled (so
//!   `--never-throttle-exempt` changes nothing there).
//!
//! Session Report Requests from the UP functions (`pfcp up --report-rate`) are answered with
//! Cause 1 (Cause 65 for a session this CP does not hold); the answers count in the egress
//! rate of the connection ("the egress Request rate + the egress Answer rate").
//!
//! ## Output
//!
//! A progress line per second on stderr, then a summary: offered, sent, throttled,
//! redirected, succeeded, rejected (by cause), timed out, errors, per class and per request
//! type, and the latency percentiles of successful transactions (from the request to its
//! response, retransmissions included) with the counts above 5, 10, 15, 20, 50 and 100 ms
//! (`latency_ms.above_ms`: percentiles of several processes do not combine, these counts
//! do). With `--json` the summary is also printed as one JSON
//! object on stdout (the text summary then goes to stderr). The associations are released at
//! the end.
//!
//! ## Modules
//!
//! `args` (the command line), `pool` (`--functions`: each function's arguments, the tallies
//! added up, the pool's progress line), `reports` (the answers to Session Report Requests), `sessions` (the slots and the tallies; the priority classes and
//! the messages of a session's life are pfcp-sim's [`traffic`](pfcp_sim::traffic)), `associations` (setup, release,
//! the Node ID probe), `pacing` (the pacer, `--ramp`, the transactions), `progress` (the lines
//! printed while running), `summary` (the results), `exit` (the exit status, events in
//! words), `template` and `replay` (the rules of the establishments, from a TOML file or a
//! capture) with `rules` (their rewriting per session), `egress` (route groups, the run's
//! egress plan). This file ties them together: the endpoint's configuration and the course
//! of a run. What `pfcp up` uses too is in `crate::egress` and `crate::node_setup`.

use std::collections::HashMap;
use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pfcp_node::cp::{CpConfig, Destination};
use pfcp_node::{Endpoint, EndpointConfig, LocalNode, TransactionConfig};
use pfcp_overload::{NodeKey, UpSelector};
use pfcp_throttle::routing::{RouteGroup, RouteList};
use pfcp_throttle::TrackerConfig;
use tokio::sync::Semaphore;

use crate::meter;
use crate::node_setup::{loopback_like, node_id_ie, node_key, recovery_time_stamp, runtime};
use crate::{io_error_text, now};

mod args;
mod associations;
pub mod egress;
pub mod exit;
mod pacing;
mod pool;
mod progress;
pub mod replay;
mod reports;
pub mod rules;
mod sessions;
mod summary;
pub mod template;

pub use args::{CpArgs, LossPacing, RateStep, Select};
pub use sessions::{LabelTally, Tally};
pub use summary::{
    ClassSummary, EgressSummary, Latency, ReportTally, SteadySummary, Summary, UpSummary,
};

use associations::{associate_all, probe, release_all};
use exit::Failure;
use pacing::{offer, RateSchedule};
use pfcp_sim::traffic::{parse_mix, Class};
use progress::{report_events, report_progress};
use sessions::{lock, State};

/// Run `pfcp cp`; errors are one line on stderr, and the exit status says what went wrong
/// ([`exit`]).
pub fn main(args: &CpArgs) -> ExitCode {
    let summary = match run(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pfcp cp: {}", e.message);
            return e.exit_code();
        }
    };
    let text = summary.render();
    if args.json {
        eprint!("{text}");
        let json = serde_json::to_string(&summary).unwrap_or_default();
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{json}").and_then(|()| out.flush());
    } else {
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{text}").and_then(|()| out.flush());
    }
    match exit::verdict(&summary.total, &summary.up_events, args.max_timeout_share) {
        Some(f) => {
            eprintln!("pfcp cp: {}", f.message);
            f.exit_code()
        }
        None => ExitCode::SUCCESS,
    }
}

fn run(args: &CpArgs) -> Result<Summary, Failure> {
    args.check()?;
    let classes = parse_mix(&args.mix).map_err(|e| format!("--{e}"))?;
    runtime()?.block_on(async {
        // Inside the runtime: the exporter's listener runs as a task on it.
        let meter = meter::install_with_exporter(args.metrics)?;
        if args.functions > 1 {
            return run_pool(args, classes, &meter).await;
        }
        let done = generate(args, classes, Role::Alone).await?;
        let reports = done.ctx.reports.snapshot();
        let st = lock(&done.state);
        Ok(summarise(
            args,
            &done.ctx,
            &st,
            done.offered_for,
            &meter,
            done.egress,
            reports,
        ))
    })
}

/// The summary of a run from its tallies, with the redirect decisions and probes the
/// process's counters recorded.
fn summarise(
    args: &CpArgs,
    ctx: &Ctx,
    st: &State,
    offered_for: Duration,
    meter: &meter::Meter,
    egress: Vec<EgressSummary>,
    reports: ReportTally,
) -> Summary {
    Summary::new(
        args,
        ctx,
        st,
        offered_for,
        meter.counter_where("pfcp_cp_decisions_total", |labels| {
            labels
                .iter()
                .any(|l| l.key() == "decision" && l.value() == "redirect")
        }),
        meter.counter_where("pfcp_cp_probes_total", |_| true),
        egress,
        reports,
    )
}

/// `--functions N`: N CP functions on this runtime ([`pool`]), one summary.
async fn run_pool(
    args: &CpArgs,
    classes: Vec<Class>,
    meter: &meter::Meter,
) -> Result<Summary, Failure> {
    let n = args.functions;
    let base = args.node_id();
    eprintln!(
        "pfcp cp: {n} CP functions in this process, {} to {}, {} requests/s each",
        pool::function_node_id(&base, 1),
        pool::function_node_id(&base, n),
        args.rate / f64::from(n)
    );
    let registry = Arc::new(pool::Registry::default());
    let progress = tokio::spawn(pool::report_progress(n, registry.clone(), now()));
    let runs: Vec<_> = (1..=n)
        .map(|i| {
            let a = pool::function_args(args, i);
            let classes = classes.clone();
            let role = Role::Member {
                index: i,
                registry: registry.clone(),
            };
            tokio::spawn(async move { generate(&a, classes, role).await })
        })
        .collect();
    let mut done = Vec::with_capacity(runs.len());
    let mut failure = None;
    for run in runs {
        match run.await {
            Ok(Ok(d)) => done.push(d),
            Ok(Err(e)) => failure = failure.or(Some(e)),
            Err(e) => failure = failure.or(Some(format!("a CP function stopped: {e}").into())),
        }
    }
    progress.abort();
    if let Some(e) = failure {
        return Err(e);
    }
    let (first, rest) = done.split_first().ok_or("no CP function ran")?;
    let mut st = lock(&first.state);
    let mut reports = first.ctx.reports.snapshot();
    let mut offered_for = first.offered_for;
    for d in rest {
        pool::absorb(&mut st, &lock(&d.state));
        let r = d.ctx.reports.snapshot();
        reports.accepted += r.accepted;
        reports.unknown_session += r.unknown_session;
        offered_for = offered_for.max(d.offered_for);
    }
    Ok(summarise(
        args,
        &first.ctx,
        &st,
        offered_for,
        meter,
        Vec::new(),
        reports,
    ))
}

/// A run's part in the process: alone, or one function of a pool.
enum Role {
    Alone,
    /// Function `index` (from 1) of `--functions`: its start and association lines are left
    /// to the first, its progress to the pool's line.
    Member {
        index: u32,
        registry: Arc<pool::Registry>,
    },
}

/// What a run came to.
struct Finished {
    ctx: Arc<Ctx>,
    state: Arc<Mutex<State>>,
    offered_for: Duration,
    egress: Vec<EgressSummary>,
}

/// A UP function of `--up`.
#[derive(Debug, Clone)]
struct Up {
    addr: SocketAddr,
    node: NodeKey,
    /// Its `--up-weights` entry (1 without).
    weight: u32,
}

/// What does not change once the associations are up.
#[derive(Debug)]
struct Ctx {
    endpoint: Endpoint,
    ups: Vec<Up>,
    index_of: HashMap<NodeKey, usize>,
    classes: Vec<Class>,
    node_ie: Vec<u8>,
    fseid_ip: IpAddr,
    redirect: bool,
    modifications: u32,
    select: Select,
    /// `--track-state`: count the requests by their classification (the C.2 adjustments).
    classify: bool,
    /// The UP functions' Session Report Requests answered.
    reports: Arc<reports::ReportCounter>,
    /// With route groups: the `ups` of the first (preferred) group, which new sessions are
    /// asked of. Empty: all.
    preferred: Vec<usize>,
    /// `--profile`: the message priorities it fixes.
    profile: pfcp_sim::scenario::CpProfile,
    /// `--template` / `--replay`: the rules of the Session Establishment Requests (none: a
    /// minimal PDR and FAR).
    rules: Option<rules::SessionRules>,
}

/// The run: the endpoint with CP overload control, the associations, the load for
/// `--duration-secs`, the wait for the outstanding transactions, the releases.
async fn generate(args: &CpArgs, classes: Vec<Class>, role: Role) -> Result<Finished, Failure> {
    let rules = match (&args.template, &args.replay) {
        (Some(path), _) => Some(template::load(path, args.ue_pool)?),
        (None, Some(path)) => {
            let (rules, left_out) = replay::load(path, args.replay_port, args.ue_pool)?;
            eprintln!(
                "pfcp cp: replaying the {} Session Establishment Requests of {}{}",
                rules.len(),
                path.display(),
                match left_out {
                    0 => String::new(),
                    n => format!(" ({n} left out: they do not decode or a node would reject them)"),
                }
            );
            Some(rules)
        }
        (None, None) => None,
    };
    let node = node_key(&args.node_id())?;
    let node_ie = node_id_ie(&node)?;
    let first = args.ups.first().ok_or("give at least one --up")?;
    let weights = up_weights(&args.up_weights, args.ups.len())?;
    let listen = match args.listen {
        Some(l) => l,
        None => default_listen(&args.ups)?,
    };
    let fseid_ip = if listen.ip().is_unspecified() {
        source_address(listen.ip(), *first)
    } else {
        listen.ip()
    };
    let t1 = Duration::from_millis(args.t1_ms);
    let xact = TransactionConfig::default()
        .with_t1(t1)
        .with_n1(args.n1)
        .with_max_outstanding_per_peer(args.max_outstanding.max(4096))
        .with_max_outstanding(args.max_outstanding.max(65_536));
    let profile = args.profile.profile();
    let mut local = LocalNode::cp(node.clone(), recovery_time_stamp());
    if !profile.supports_overload_control() {
        // Neither OVRL nor LOAD (clauses 6.2.3.2, 6.2.4.2): the UP functions send it no OCI.
        local.cp_features = pfcp_wire::ie::CpFunctionFeatures::empty();
    }

    let plan = egress::Plan::of(args)?;
    if !profile.supports_overload_control()
        && (plan.is_some() || args.redirect || !args.route_group.is_empty())
    {
        return Err("--profile no-overload-control: no CP overload control, so no --redirect, --route-group or egress throttling".into());
    }
    let redirect_list = args.redirect && args.ups.len() > 1;
    // The Node IDs of the UP functions, for the route list and the egress sets (the CP's
    // throttles are per UP function).
    let probed = if redirect_list || plan.is_some() {
        probe(&local, &xact, listen, &args.ups, &node_ie).await?
    } else {
        Vec::new()
    };
    let node_of = |a: &SocketAddr| {
        args.ups
            .iter()
            .position(|u| u == a)
            .and_then(|i| probed.get(i).cloned())
    };
    let mut cp = CpConfig::default();
    if !args.up_weights.is_empty() {
        cp = cp.with_selector(UpSelector::default().with_spare_offset(25));
    }
    let mut routes = None;
    if let Some(p) = &plan {
        cp = cp.with_egress_sets(p.sets(node_of)?);
        routes = p.route_list(node_of)?;
    }
    if routes.is_none() && redirect_list {
        let groups = probed
            .iter()
            .map(|n| RouteGroup::new().with_peer(Destination::node(n.clone()), 1))
            .collect();
        let attempts = u32::try_from(probed.len()).unwrap_or(u32::MAX);
        routes = Some(RouteList::new(groups, attempts).map_err(|e| format!("--redirect: {e}"))?);
    }
    // The pipeline's own Loss settings (its credit bound and escalation), with the flags'.
    let loss = cp
        .loss
        .with_never_throttle_exempt(args.never_throttle_exempt)
        .with_exact_window(args.loss_mode.is_exact());
    let probes = (args.probe_gap_factor > 0).then_some(args.probe_gap_factor);
    let fall_probes = (args.probe_fall_factor > 0).then_some(args.probe_fall_factor);
    let seed = args.seed();
    // The node's draws from another stream than the class draws of the same seed.
    let mut config = EndpointConfig::new(local)
        .with_seed(!seed)
        .with_transactions(xact);
    if profile.supports_overload_control() {
        config = config.with_cp(
            cp.with_loss(loss)
                .with_probe_gap_factor(probes)
                .with_probe_fall_factor(fall_probes)
                .with_exempt_ahead_max(args.exempt_ahead)
                .with_exempt_hold(
                    (args.exempt_hold_ms > 0).then(|| Duration::from_millis(args.exempt_hold_ms)),
                ),
        );
    }
    if args.track_state {
        config = config.with_state_tracker(TrackerConfig::default());
    }
    let redirect = args.redirect || plan.as_ref().is_some_and(egress::Plan::routes);
    let preferred: Vec<usize> = plan
        .as_ref()
        .map(egress::Plan::preferred_group)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| args.ups.iter().position(|u| u == a))
        .collect();
    if let Some(r) = routes {
        config = config.with_routes(r);
    }
    let report_counter = Arc::new(reports::ReportCounter::default());
    let handler = reports::handler(report_counter.clone());
    let (endpoint, mut channels) = Endpoint::bind_with_handler(config, listen, handler)
        .await
        .map_err(|e| format!("cannot bind {listen}: {}", io_error_text(&e)))?;
    let nodes = match associate_all(&endpoint, &mut channels.events, &args.ups, t1, false).await {
        Ok(nodes) => nodes,
        Err(e) => {
            release_all(&endpoint, &node_ie, &args.ups).await;
            return Err(e);
        }
    };
    let ups: Vec<Up> = args
        .ups
        .iter()
        .zip(&nodes)
        .zip(&weights)
        .map(|((addr, node), weight)| Up {
            addr: *addr,
            node: node.clone(),
            weight: *weight,
        })
        .collect();
    let index_of = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), i))
        .collect();
    let speaks = matches!(role, Role::Alone | Role::Member { index: 1, .. });
    if speaks {
        eprintln!(
            "pfcp cp: {node} at {} associated with {}; offering {} requests/s{}{} for {} s",
            endpoint.local_addr(),
            ups.iter()
                .map(|u| format!("{} ({})", u.node, u.addr))
                .collect::<Vec<_>>()
                .join(", "),
            args.rate,
            RateStep::describe(&args.rate_steps),
            if args.ramp > 0.0 {
                format!(" (rising from 0 over {} s)", args.ramp)
            } else {
                String::new()
            },
            args.duration_secs
        );
    }
    let ctx = Arc::new(Ctx {
        endpoint,
        ups,
        index_of,
        classes,
        node_ie,
        fseid_ip,
        redirect,
        modifications: args.modifications,
        select: args.select,
        classify: args.track_state,
        reports: report_counter,
        preferred,
        profile,
        rules,
    });
    let state = Arc::new(Mutex::new(
        State::new(args.sessions, ctx.classes.len(), ctx.ups.len(), seed)
            .with_hold(Duration::from_millis(args.hold_ms)),
    ));
    let permits = Arc::new(Semaphore::new(args.max_outstanding));
    if let Role::Member { .. } = role {
        // The functions of a pool associate together; each then offers at a phase of its own
        // within its gap, as independent CP functions do (`pfcp sim`'s draw them the same
        // way). In step, their offers would reach the UP function as one burst per gap.
        let phase = pfcp_sim::traffic::unit(pfcp_sim::traffic::splitmix(&mut seed.clone()));
        tokio::time::sleep(Duration::from_secs_f64(phase / args.rate.max(1e-3))).await;
    }
    let start = now();
    if args.warmup_secs > 0.0 {
        lock(&state).count_steady_from(start + Duration::from_secs_f64(args.warmup_secs));
    }
    let progress = match &role {
        Role::Alone => Some(tokio::spawn(report_progress(
            ctx.clone(),
            state.clone(),
            start,
        ))),
        Role::Member { registry, .. } => {
            registry
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((ctx.clone(), state.clone()));
            None
        }
    };
    let events = tokio::spawn(report_events(
        channels.events,
        state.clone(),
        args.modifications,
        speaks,
    ));

    let duration = Duration::from_secs(args.duration_secs);
    let schedule = RateSchedule::new(args.rate, &args.rate_steps).with_ramp(args.ramp);
    let offered_for = offer(&ctx, &state, &permits, &schedule, duration).await;
    lock(&state).stopping = true;
    // Wait for the outstanding transactions (each ends by T1 x (N1 + 1) at the latest).
    let all = u32::try_from(args.max_outstanding).unwrap_or(u32::MAX);
    let limit = t1 * (args.n1 + 1) + Duration::from_secs(1);
    let drained = tokio::time::timeout(limit, permits.acquire_many(all)).await;
    if let Some(p) = progress {
        p.abort();
    }
    events.abort();
    if drained.is_err() {
        eprintln!("pfcp cp: some transactions still outstanding after {limit:?}");
    }
    let egress = summary::egress_rows(&ctx, &lock(&state));
    release_all(&ctx.endpoint, &ctx.node_ie, &args.ups).await;
    // A UP function may have Session Report Requests in flight when it answers the release
    // (each goes from a task of its own): let them be answered and counted before the tally.
    if ctx.reports.snapshot().accepted > 0 {
        tokio::time::sleep(REPORT_DRAIN).await;
    }

    Ok(Finished {
        ctx,
        state,
        offered_for,
        egress,
    })
}

/// How long `pfcp cp` keeps answering Session Report Requests after releasing its
/// associations before it counts them: those a UP function had in flight (answered on
/// loopback within a millisecond; a CI run once counted one short).
const REPORT_DRAIN: Duration = Duration::from_millis(50);

/// The default local address: port 0 on the loopback address of the UP functions' family
/// when they are all on loopback (127.0.0.1, ::1), else on every address of that family
/// (0.0.0.0, ::). UP functions of both families need `--listen`.
fn default_listen(ups: &[SocketAddr]) -> Result<SocketAddr, String> {
    let v4 = ups.iter().filter(|u| u.is_ipv4()).count();
    if v4 != 0 && v4 != ups.len() {
        return Err("--up: IPv4 and IPv6 UP functions together need --listen (one socket has one address family)".into());
    }
    let loopback = ups.iter().all(|u| u.ip().is_loopback());
    let ip = match (v4 != 0, loopback) {
        (true, true) => IpAddr::V4(Ipv4Addr::LOCALHOST),
        (true, false) => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        (false, true) => IpAddr::V6(Ipv6Addr::LOCALHOST),
        (false, false) => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
    };
    Ok(SocketAddr::new(ip, 0))
}

/// The address this host sends from towards `up` (the kernel's route choice, no packet
/// sent), for the CP F-SEID when the socket is bound to every address (`any`); the loopback
/// address of its family when there is no route.
fn source_address(any: IpAddr, up: SocketAddr) -> IpAddr {
    std::net::UdpSocket::bind(SocketAddr::new(any, 0))
        .and_then(|s| s.connect(up).and_then(|()| s.local_addr()))
        .map(|a| a.ip())
        .ok()
        .filter(|ip| !ip.is_unspecified())
        .unwrap_or_else(|| loopback_like(any))
}

/// The weight of each `--up`, in order: `--up-weights` checked against them, or all 1.
fn up_weights(given: &[u32], ups: usize) -> Result<Vec<u32>, String> {
    if given.is_empty() {
        return Ok(vec![1; ups]);
    }
    if given.len() != ups {
        return Err(format!(
            "--up-weights: {} weights for {ups} --up (one each, in their order)",
            given.len()
        ));
    }
    if given.contains(&0) {
        return Err(
            "--up-weights: a weight of 0 never selects its UP function (leave it out of --up)"
                .into(),
        );
    }
    Ok(given.to_vec())
}
