//! `pfcp cp`: a CP function (SMF) load generator that honours the UP functions' overload
//! control.
//!
//! It binds a [`pfcp_node::Endpoint`] with CP overload control ([`CpConfig::default`]),
//! associates with every `--up`, then offers session requests at `--rate` per second for
//! `--duration-secs`, and waits for the outstanding ones.
//!
//! ## Traffic
//!
//! There are `--sessions` session slots. Each session goes through **one Session
//! Establishment, `--modifications` Session Modifications (default 1), one Session Deletion**,
//! then its slot is free for a new session; so with the default, a third of the requests are
//! of each type once the first sessions are established. Each tick of the pacer offers the
//! next step of a session whose previous step has finished (oldest first) or, if there is
//! none, a new session's establishment. A new session draws its class from `--mix` (seeded by
//! `--seed`) and its UP function round-robin over the `--up` list; all its requests carry the
//! class's [`RequestProfile`] (modifications and deletions also say the session is
//! established and name its UP PFCP entity, the UP F-SEID address). A failed establishment
//! frees the slot; a failed modification goes on to the deletion; a deletion frees the slot
//! whatever its answer.
//!
//! An offer finds no room when `--max-outstanding` requests are already waiting for their
//! response, or when every slot is busy: it is then skipped and counted, not delayed (the
//! pacer keeps the rate).
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
//! Emergency and eMPS requests are throttled last (clause 6.2.4.5.1). Their establishments
//! pass as long as the other classes can make up the reduction; but requests on established
//! sessions go to the UP's PFCP entity, a throttle of its own, where the sessions that got
//! through (mostly of high priority) can leave too little low-priority traffic to shed, and
//! there emergency modifications and deletions are throttled too. `--never-throttle-exempt`
//! never throttles them (a regional rule, [`LossConfig::never_throttle_exempt`]).
//!
//! ## Output
//!
//! A progress line per second on stderr, then a summary: offered, sent, throttled,
//! redirected, succeeded, rejected (by cause), timed out, errors, per class and per request
//! type, and the latency percentiles of successful transactions (from the request to its
//! response, retransmissions included). With `--json` the summary is also printed as one JSON
//! object on stdout (the text summary then goes to stderr). The associations are released at
//! the end.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use pfcp_node::cp::{CpConfig, Destination};
use pfcp_node::{
    Endpoint, EndpointConfig, Error as NodeError, LocalNode, PeerEvent, RequestProfile,
    TransactionConfig,
};
use pfcp_overload::NodeKey;
use pfcp_throttle::routing::{RouteGroup, RouteList};
use pfcp_throttle::LossConfig;
use pfcp_wire::ie::FSeid;
use pfcp_wire::{Cause, Encode, EncodeError, Header, Message, MessageType};
use serde::Serialize;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use crate::meter;
use crate::up::{loopback_like, node_id_ie, node_key, recovery_time_stamp, runtime};
use crate::{io_error_text, now};

/// Arguments of `pfcp cp`.
#[derive(Debug, clap::Args)]
pub struct CpArgs {
    /// A UP function to load (repeat for several: new sessions go round-robin over them).
    #[arg(long = "up", value_name = "ADDR", required = true)]
    pub ups: Vec<SocketAddr>,
    /// Local address to bind (default: any port on all addresses of the first UP's family).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// This CP function's Node ID: an IP address or an FQDN.
    #[arg(long, default_value = "smf1.example.net", value_name = "ID")]
    pub node_id: String,
    /// Requests offered per second (establishments, modifications and deletions together).
    #[arg(long, default_value_t = 1000.0, value_name = "PER_SEC")]
    pub rate: f64,
    /// Session slots: at most this many sessions exist at once.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub sessions: usize,
    /// Session Modification Requests per session, between its establishment and deletion.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub modifications: u32,
    /// Priority classes of new sessions and their weights: CLASS=WEIGHT,... where CLASS is
    /// emergency, emps, arp1 to arp15 (ARP priority level), lap (low access priority) or none.
    #[arg(
        long,
        default_value = "emergency=5,arp2=25,arp12=70",
        value_name = "MIX"
    )]
    pub mix: String,
    /// How long to offer load; the outstanding requests are then waited for.
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    pub duration_secs: u64,
    /// Redirect throttled Session Establishment Requests to the other UP functions given
    /// with --up (in that order of preference).
    #[arg(long)]
    pub redirect: bool,
    /// Never throttle emergency and eMPS requests, even when a UP function's reduction cannot
    /// be reached without them (a regional rule). By default they are throttled last, only
    /// when the rest cannot make up the reduction (TS 29.244 clause 6.2.4.5.1).
    #[arg(long)]
    pub never_throttle_exempt: bool,
    /// Most requests waiting for their response; an offer beyond is skipped and counted.
    #[arg(long, default_value_t = 1024, value_name = "N")]
    pub max_outstanding: usize,
    /// Retransmission timer T1, in milliseconds.
    #[arg(long, default_value_t = 3000, value_name = "MS")]
    pub t1_ms: u64,
    /// Retransmissions N1 before a request times out.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub n1: u32,
    /// Seed of the class draws.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Also print the summary as one JSON object on stdout (the text summary goes to stderr).
    #[arg(long)]
    pub json: bool,
}

/// Run `pfcp cp`; errors are one line on stderr.
pub fn main(args: &CpArgs) -> ExitCode {
    let summary = match run(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pfcp cp: {e}");
            return ExitCode::FAILURE;
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
    ExitCode::SUCCESS
}

fn run(args: &CpArgs) -> Result<Summary, String> {
    if !(args.rate.is_finite() && args.rate > 0.0) {
        return Err("--rate must be a positive number of requests per second".into());
    }
    if args.sessions == 0 {
        return Err("--sessions must be at least 1".into());
    }
    if args.duration_secs == 0 {
        return Err("--duration-secs must be at least 1".into());
    }
    if !(1..=1_000_000).contains(&args.max_outstanding) {
        return Err("--max-outstanding must be between 1 and 1000000".into());
    }
    if args.t1_ms == 0 {
        return Err("--t1-ms must be at least 1".into());
    }
    let classes = parse_mix(&args.mix)?;
    runtime()?.block_on(generate(args, classes))
}

// ---------------------------------------------------------------------------------------
// Priority classes

/// A priority class of `--mix`.
#[derive(Debug, Clone)]
struct Class {
    name: String,
    weight: f64,
    profile: RequestProfile,
}

fn parse_mix(text: &str) -> Result<Vec<Class>, String> {
    let mut classes: Vec<Class> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, weight) = part
            .split_once('=')
            .ok_or_else(|| format!("--mix: {part:?} is not CLASS=WEIGHT"))?;
        let name = name.trim().to_ascii_lowercase();
        let weight = weight
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|w| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| format!("--mix: the weight of {name} must be a number, 0 or more"))?;
        let profile = class_profile(&name).ok_or_else(|| {
            format!("--mix: unknown class {name:?} (emergency, emps, arp1 to arp15, lap or none)")
        })?;
        if classes.iter().any(|c| c.name == name) {
            return Err(format!("--mix: class {name} is given twice"));
        }
        classes.push(Class {
            name,
            weight,
            profile,
        });
    }
    if classes.iter().map(|c| c.weight).sum::<f64>() <= 0.0 {
        return Err("--mix: give at least one class with a weight above 0".into());
    }
    Ok(classes)
}

fn class_profile(name: &str) -> Option<RequestProfile> {
    let mut profile = RequestProfile::default();
    match name {
        "emergency" => profile.emergency = true,
        "emps" => profile.emps = true,
        "lap" => profile.low_access_priority = true,
        "none" => {}
        _ => {
            let level = name.strip_prefix("arp")?.parse::<u8>().ok()?;
            if !(1..=15).contains(&level) {
                return None;
            }
            profile = profile.with_arp(&[level]);
        }
    }
    Some(profile)
}

/// SplitMix64: the class draws (seeded, no global RNG).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The class a draw picks, in proportion to the weights.
fn pick(classes: &[Class], draw: u64) -> usize {
    let total: f64 = classes.iter().map(|c| c.weight).sum();
    let mut x = (draw >> 11) as f64 / (1u64 << 53) as f64 * total;
    for (i, c) in classes.iter().enumerate() {
        if x < c.weight {
            return i;
        }
        x -= c.weight;
    }
    classes.iter().rposition(|c| c.weight > 0.0).unwrap_or(0)
}

// ---------------------------------------------------------------------------------------
// Requests

/// A step of a session's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Establish,
    Modify,
    Delete,
}

const STEPS: [Step; 3] = [Step::Establish, Step::Modify, Step::Delete];

impl Step {
    fn index(self) -> usize {
        match self {
            Step::Establish => 0,
            Step::Modify => 1,
            Step::Delete => 2,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Step::Establish => "establishment",
            Step::Modify => "modification",
            Step::Delete => "deletion",
        }
    }
}

/// Create PDR (PDR ID 1, precedence 255, PDI: source interface access, FAR ID 1) and Create
/// FAR (FAR ID 1, apply action FORW): the mandatory rules of a Session Establishment Request.
const CREATE_PDR_AND_FAR: &[u8] = &[
    0x00, 0x01, 0x00, 0x1f, // Create PDR
    0x00, 0x38, 0x00, 0x02, 0x00, 0x01, // PDR ID 1
    0x00, 0x1d, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, // Precedence 255
    0x00, 0x02, 0x00, 0x05, 0x00, 0x14, 0x00, 0x01, 0x00, // PDI: Source Interface access
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x03, 0x00, 0x0d, // Create FAR
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x2c, 0x00, 0x01, 0x02, // Apply Action FORW
];

/// Update FAR (FAR ID 1, apply action FORW): the body of the Session Modification Requests.
const UPDATE_FAR: &[u8] = &[
    0x00, 0x0a, 0x00, 0x0d, // Update FAR
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x2c, 0x00, 0x01, 0x02, // Apply Action FORW
];

/// The header and IEs of a session's request.
fn build_request(
    step: Step,
    slot: &Slot,
    node_ie: &[u8],
    fseid_ip: IpAddr,
) -> Result<(Header, Bytes), EncodeError> {
    Ok(match step {
        Step::Establish => {
            let mut ies = Vec::with_capacity(node_ie.len() + 17 + CREATE_PDR_AND_FAR.len());
            ies.extend_from_slice(node_ie);
            FSeid {
                seid: slot.cp_seid,
                ipv4: match fseid_ip {
                    IpAddr::V4(a) => Some(a),
                    IpAddr::V6(_) => None,
                },
                ipv6: match fseid_ip {
                    IpAddr::V6(a) => Some(a),
                    IpAddr::V4(_) => None,
                },
            }
            .encode(&mut ies)?;
            ies.extend_from_slice(CREATE_PDR_AND_FAR);
            let h = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
            (h, Bytes::from(ies))
        }
        Step::Modify => (
            Header::new(MessageType::SESSION_MODIFICATION_REQUEST).with_seid(slot.up_seid),
            Bytes::from_static(UPDATE_FAR),
        ),
        Step::Delete => (
            Header::new(MessageType::SESSION_DELETION_REQUEST).with_seid(slot.up_seid),
            Bytes::new(),
        ),
    })
}

// ---------------------------------------------------------------------------------------
// State

/// Outcome counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Requests offered to the endpoint.
    pub offered: u64,
    /// Sent to a UP function (answered, or timed out).
    pub sent: u64,
    /// Not sent: refused by the CP's overload control (cause 74, locally).
    pub throttled: u64,
    /// Answered by a UP function other than the one asked (Session Establishment only).
    pub redirected: u64,
    /// Answered with an acceptance cause.
    pub succeeded: u64,
    /// Answered with a rejection cause.
    pub rejected: u64,
    /// No response after N1 retransmissions.
    pub timed_out: u64,
    /// Failed otherwise (undecodable response, local error).
    pub errors: u64,
}

/// One session slot.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    class: usize,
    /// The UP function (index in `--up`) holding the session, or asked to.
    up: usize,
    cp_seid: u64,
    up_seid: u64,
    entity: Option<IpAddr>,
    modifications_left: u32,
}

/// What the UP functions sent.
#[derive(Debug, Clone, Copy, Default)]
struct UpTally {
    answered: u64,
    ocis: u64,
    last_oci: Option<u8>,
}

/// A request to make.
#[derive(Debug)]
struct Work {
    slot: usize,
    step: Step,
    session: Slot,
    addr: SocketAddr,
    profile: RequestProfile,
}

/// Everything the pacer, the transactions and the progress lines share.
#[derive(Debug)]
struct State {
    total: Tally,
    by_class: Vec<Tally>,
    by_step: [Tally; 3],
    by_class_step: Vec<[Tally; 3]>,
    rejected_by_cause: BTreeMap<u8, u64>,
    errors_by_kind: BTreeMap<String, u64>,
    skipped_outstanding: u64,
    skipped_no_session: u64,
    latencies_us: Vec<u32>,
    slots: Vec<Slot>,
    free: Vec<usize>,
    ready: VecDeque<(usize, Step)>,
    rng: u64,
    next_cp_seid: u64,
    next_up: usize,
    established: u64,
    deleted: u64,
    per_up: Vec<UpTally>,
    outstanding: u64,
    stopping: bool,
}

/// Most latency samples kept (40 MB).
const MAX_SAMPLES: usize = 10_000_000;

impl State {
    fn new(sessions: usize, classes: usize, ups: usize, seed: u64) -> Self {
        State {
            total: Tally::default(),
            by_class: vec![Tally::default(); classes],
            by_step: [Tally::default(); 3],
            by_class_step: vec![[Tally::default(); 3]; classes],
            rejected_by_cause: BTreeMap::new(),
            errors_by_kind: BTreeMap::new(),
            skipped_outstanding: 0,
            skipped_no_session: 0,
            latencies_us: Vec::new(),
            slots: vec![Slot::default(); sessions],
            free: (0..sessions).rev().collect(),
            ready: VecDeque::new(),
            rng: seed,
            next_cp_seid: 1,
            next_up: 0,
            established: 0,
            deleted: 0,
            per_up: vec![UpTally::default(); ups],
            outstanding: 0,
            stopping: false,
        }
    }

    fn record(&mut self, class: usize, step: Step, f: impl Fn(&mut Tally)) {
        f(&mut self.total);
        if let Some(t) = self.by_class.get_mut(class) {
            f(t);
        }
        if let Some(t) = self.by_step.get_mut(step.index()) {
            f(t);
        }
        if let Some(t) = self
            .by_class_step
            .get_mut(class)
            .and_then(|steps| steps.get_mut(step.index()))
        {
            f(t);
        }
    }

    /// The next request: a pending step of a session, else a new session's establishment.
    fn next_work(&mut self, ctx: &Ctx) -> Option<Work> {
        let (slot, step) = match self.ready.pop_front() {
            Some(next) => next,
            None => {
                let slot = self.free.pop()?;
                let class = pick(&ctx.classes, splitmix(&mut self.rng));
                let up = self.next_up % ctx.ups.len().max(1);
                self.next_up = self.next_up.wrapping_add(1);
                let cp_seid = self.next_cp_seid;
                self.next_cp_seid += 1;
                if let Some(s) = self.slots.get_mut(slot) {
                    *s = Slot {
                        class,
                        up,
                        cp_seid,
                        up_seid: 0,
                        entity: None,
                        modifications_left: ctx.modifications,
                    };
                }
                (slot, Step::Establish)
            }
        };
        let session = *self.slots.get(slot)?;
        let addr = ctx.ups.get(session.up)?.addr;
        let class = ctx.classes.get(session.class)?;
        let mut profile = class.profile.clone();
        match step {
            Step::Establish => profile = profile.with_redirect(ctx.redirect),
            Step::Modify | Step::Delete => {
                profile.established = true;
                if let Some(ip) = session.entity {
                    profile = profile.with_entity(ip);
                }
            }
        }
        self.record(session.class, step, |t| t.offered += 1);
        self.outstanding += 1;
        Some(Work {
            slot,
            step,
            session,
            addr,
            profile,
        })
    }

    /// Count the result of `w` and schedule the session's next step.
    fn settle(&mut self, ctx: &Ctx, w: &Work, result: Result<Bytes, NodeError>, latency: Duration) {
        self.outstanding = self.outstanding.saturating_sub(1);
        let (class, step) = (w.session.class, w.step);
        let mut holder = w.session.up;
        let mut accepted = false;
        let mut up_fseid = None;
        match result {
            Ok(bytes) => match Message::decode(&bytes) {
                Ok(msg) => {
                    self.record(class, step, |t| t.sent += 1);
                    if step == Step::Establish {
                        if let Some(i) = msg
                            .node_id()
                            .ok()
                            .flatten()
                            .and_then(|n| ctx.index_of.get(&NodeKey::from_node_id(&n)).copied())
                        {
                            holder = i;
                        }
                        if holder != w.session.up {
                            self.record(class, step, |t| t.redirected += 1);
                        }
                    }
                    if let Some(u) = self.per_up.get_mut(holder) {
                        u.answered += 1;
                        if let Ok(Some(oci)) = msg.overload_control_information() {
                            u.ocis += 1;
                            u.last_oci = Some(oci.metric.percent());
                        }
                    }
                    match msg.cause().ok().flatten() {
                        Some(c) if c.is_acceptance() == Some(true) => {
                            accepted = true;
                            self.record(class, step, |t| t.succeeded += 1);
                            if self.latencies_us.len() < MAX_SAMPLES {
                                let us = u32::try_from(latency.as_micros()).unwrap_or(u32::MAX);
                                self.latencies_us.push(us);
                            }
                            up_fseid = msg.f_seid().ok().flatten();
                        }
                        cause => {
                            self.record(class, step, |t| t.rejected += 1);
                            let code = cause.map_or(0, |c| c.0);
                            *self.rejected_by_cause.entry(code).or_default() += 1;
                        }
                    }
                }
                Err(_) => {
                    self.record(class, step, |t| {
                        t.sent += 1;
                        t.errors += 1;
                    });
                    *self
                        .errors_by_kind
                        .entry("undecodable response".into())
                        .or_default() += 1;
                }
            },
            Err(NodeError::Throttled { .. }) => self.record(class, step, |t| t.throttled += 1),
            Err(NodeError::Timeout { .. }) => self.record(class, step, |t| {
                t.sent += 1;
                t.timed_out += 1;
            }),
            Err(e) => {
                self.record(class, step, |t| t.errors += 1);
                *self.errors_by_kind.entry(e.to_string()).or_default() += 1;
            }
        }
        if self.stopping {
            return;
        }
        let Some(slot) = self.slots.get_mut(w.slot) else {
            return;
        };
        let next = match step {
            Step::Establish => match up_fseid {
                Some(f) if accepted => {
                    slot.up = holder;
                    slot.up_seid = f.seid;
                    slot.entity = f.ipv4.map(IpAddr::V4).or(f.ipv6.map(IpAddr::V6));
                    self.established += 1;
                    Some(if slot.modifications_left > 0 {
                        Step::Modify
                    } else {
                        Step::Delete
                    })
                }
                _ => None,
            },
            Step::Modify => {
                slot.modifications_left = slot.modifications_left.saturating_sub(1);
                Some(if accepted && slot.modifications_left > 0 {
                    Step::Modify
                } else {
                    Step::Delete
                })
            }
            Step::Delete => {
                if accepted {
                    self.deleted += 1;
                }
                None
            }
        };
        match next {
            Some(s) => self.ready.push_back((w.slot, s)),
            None => self.free.push(w.slot),
        }
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// A UP function of `--up`.
#[derive(Debug, Clone)]
struct Up {
    addr: SocketAddr,
    node: NodeKey,
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
}

// ---------------------------------------------------------------------------------------
// The run

async fn generate(args: &CpArgs, classes: Vec<Class>) -> Result<Summary, String> {
    let meter = meter::install();
    let node = node_key(&args.node_id)?;
    let node_ie = node_id_ie(&node)?;
    let first = args.ups.first().ok_or("give at least one --up")?;
    let listen = args.listen.unwrap_or_else(|| {
        let any = match first.ip() {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
        };
        SocketAddr::new(any, 0)
    });
    let fseid_ip = if listen.ip().is_unspecified() {
        loopback_like(listen.ip())
    } else {
        listen.ip()
    };
    let t1 = Duration::from_millis(args.t1_ms);
    let xact = TransactionConfig::default()
        .with_t1(t1)
        .with_n1(args.n1)
        .with_max_outstanding_per_peer(args.max_outstanding.max(4096))
        .with_max_outstanding(args.max_outstanding.max(65_536));
    let local = LocalNode::cp(node.clone(), recovery_time_stamp());

    let routes = if args.redirect && args.ups.len() > 1 {
        let nodes = probe(&local, &xact, listen, &args.ups, &node_ie).await?;
        let groups = nodes
            .iter()
            .map(|n| RouteGroup::new().with_peer(Destination::node(n.clone()), 1))
            .collect();
        let attempts = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
        Some(RouteList::new(groups, attempts).map_err(|e| format!("--redirect: {e}"))?)
    } else {
        None
    };
    let loss = LossConfig::default().with_never_throttle_exempt(args.never_throttle_exempt);
    let mut config = EndpointConfig::new(local)
        .with_transactions(xact)
        .with_cp(CpConfig::default().with_loss(loss));
    if let Some(r) = routes {
        config = config.with_routes(r);
    }
    let (endpoint, mut channels) = Endpoint::bind(config, listen)
        .await
        .map_err(|e| format!("cannot bind {listen}: {}", io_error_text(&e)))?;
    let nodes = match associate_all(&endpoint, &mut channels.events, &args.ups).await {
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
        .map(|(addr, node)| Up {
            addr: *addr,
            node: node.clone(),
        })
        .collect();
    let index_of = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), i))
        .collect();
    eprintln!(
        "pfcp cp: {node} at {} associated with {}; offering {} requests/s for {} s",
        endpoint.local_addr(),
        ups.iter()
            .map(|u| format!("{} ({})", u.node, u.addr))
            .collect::<Vec<_>>()
            .join(", "),
        args.rate,
        args.duration_secs
    );
    let ctx = Arc::new(Ctx {
        endpoint,
        ups,
        index_of,
        classes,
        node_ie,
        fseid_ip,
        redirect: args.redirect,
        modifications: args.modifications,
    });
    let state = Arc::new(Mutex::new(State::new(
        args.sessions,
        ctx.classes.len(),
        ctx.ups.len(),
        args.seed,
    )));
    let permits = Arc::new(Semaphore::new(args.max_outstanding));
    let start = now();
    let progress = tokio::spawn(progress(ctx.clone(), state.clone(), start));
    let events = tokio::spawn(report_events(channels.events));

    let duration = Duration::from_secs(args.duration_secs);
    let offered_for = offer(&ctx, &state, &permits, args.rate, duration).await;
    lock(&state).stopping = true;
    // Wait for the outstanding transactions (each ends by T1 x (N1 + 1) at the latest).
    let all = u32::try_from(args.max_outstanding).unwrap_or(u32::MAX);
    let limit = t1 * (args.n1 + 1) + Duration::from_secs(1);
    let drained = tokio::time::timeout(limit, permits.acquire_many(all)).await;
    progress.abort();
    events.abort();
    if drained.is_err() {
        eprintln!("pfcp cp: some transactions still outstanding after {limit:?}");
    }
    release_all(&ctx.endpoint, &ctx.node_ie, &args.ups).await;

    let st = lock(&state);
    Ok(Summary::new(
        args,
        &ctx,
        &st,
        offered_for,
        meter.counter_where("pfcp_cp_decisions_total", |labels| {
            labels
                .iter()
                .any(|l| l.key() == "decision" && l.value() == "redirect")
        }),
    ))
}

/// Associate with every UP function in turn; their Node IDs. On failure the caller releases
/// the associations made.
async fn associate_all(
    endpoint: &Endpoint,
    events: &mut mpsc::Receiver<PeerEvent>,
    ups: &[SocketAddr],
) -> Result<Vec<NodeKey>, String> {
    let mut nodes: Vec<NodeKey> = Vec::with_capacity(ups.len());
    for &up in ups {
        endpoint
            .associate(up)
            .await
            .map_err(|e| format!("association with {up} failed: {e}"))?;
        // The endpoint reports the association before it answers `associate`.
        let mut node = None;
        while let Ok(e) = events.try_recv() {
            if let PeerEvent::Associated { peer, node: n } = e {
                if peer == up {
                    node = Some(n);
                }
            }
        }
        let node = node.unwrap_or(NodeKey::Ip(up.ip()));
        if let Some(i) = nodes.iter().position(|n| *n == node) {
            let other = ups.get(i).map(ToString::to_string).unwrap_or_default();
            return Err(format!(
                "{other} and {up} have the same Node ID {node}: give each UP function its own --node-id"
            ));
        }
        nodes.push(node);
    }
    Ok(nodes)
}

/// Learn the UP functions' Node IDs (for the route list) through a short-lived association
/// from another socket, released at once so that the UP functions forget it.
async fn probe(
    local: &LocalNode,
    xact: &TransactionConfig,
    listen: SocketAddr,
    ups: &[SocketAddr],
    node_ie: &[u8],
) -> Result<Vec<NodeKey>, String> {
    let config = EndpointConfig::new(local.clone())
        .with_transactions(xact.clone())
        .with_heartbeat_interval(None);
    let addr = SocketAddr::new(listen.ip(), 0);
    let (endpoint, mut channels) = Endpoint::bind(config, addr)
        .await
        .map_err(|e| format!("cannot bind {addr}: {}", io_error_text(&e)))?;
    let nodes = associate_all(&endpoint, &mut channels.events, ups).await;
    release_all(&endpoint, node_ie, ups).await;
    nodes
}

/// Release the associations (best effort, 1 s per UP function at most).
async fn release_all(endpoint: &Endpoint, node_ie: &[u8], ups: &[SocketAddr]) {
    for &up in ups {
        let header = Header::new(MessageType::ASSOCIATION_RELEASE_REQUEST);
        let request = endpoint.request(up, header, Bytes::copy_from_slice(node_ie));
        let _ = tokio::time::timeout(Duration::from_secs(1), request).await;
    }
}

/// Offer requests at `rate` for `duration` (or until interrupted); how long it offered.
async fn offer(
    ctx: &Arc<Ctx>,
    state: &Arc<Mutex<State>>,
    permits: &Arc<Semaphore>,
    rate: f64,
    duration: Duration,
) -> Duration {
    let interrupted = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(interrupted);
    let start = now();
    let mut issued: u64 = 0;
    let mut ticks = tokio::time::interval(Duration::from_millis(1));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = &mut interrupted => {
                eprintln!("pfcp cp: interrupted");
                break;
            }
            _ = ticks.tick() => {}
        }
        let elapsed = now().duration_since(start);
        if elapsed >= duration {
            break;
        }
        let due = (elapsed.as_secs_f64() * rate) as u64;
        while issued < due {
            issued += 1;
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                lock(state).skipped_outstanding += 1;
                continue;
            };
            let work = {
                let mut st = lock(state);
                let work = st.next_work(ctx);
                if work.is_none() {
                    st.skipped_no_session += 1;
                }
                work
            };
            if let Some(work) = work {
                tokio::spawn(transact(ctx.clone(), state.clone(), work, permit));
            }
        }
    }
    now().duration_since(start).min(duration)
}

/// One request and its outcome.
async fn transact(
    ctx: Arc<Ctx>,
    state: Arc<Mutex<State>>,
    work: Work,
    _permit: OwnedSemaphorePermit,
) {
    let started = now();
    let result = match build_request(work.step, &work.session, &ctx.node_ie, ctx.fseid_ip) {
        Ok((header, ies)) => {
            ctx.endpoint
                .request_with(work.addr, header, ies, work.profile.clone())
                .await
        }
        Err(e) => Err(NodeError::Encode(e)),
    };
    let latency = now().duration_since(started);
    lock(&state).settle(&ctx, &work, result, latency);
}

/// A progress line per second.
async fn progress(ctx: Arc<Ctx>, state: Arc<Mutex<State>>, start: tokio::time::Instant) {
    let second = Duration::from_secs(1);
    let mut ticks = tokio::time::interval_at(start + second, second);
    let mut last = Tally::default();
    loop {
        ticks.tick().await;
        let (t, outstanding, per_up) = {
            let st = lock(&state);
            (st.total, st.outstanding, st.per_up.clone())
        };
        let mut line = format!(
            "pfcp cp: [{:>4}s] offered {:>6}/s | sent {:>6} | throttled {:>6} | redirected {:>5} | \
             succeeded {:>6} | rejected {:>5} | timed out {:>4} | outstanding {:>5} | OCI",
            now().duration_since(start).as_secs(),
            t.offered - last.offered,
            t.sent - last.sent,
            t.throttled - last.throttled,
            t.redirected - last.redirected,
            t.succeeded - last.succeeded,
            t.rejected - last.rejected,
            t.timed_out - last.timed_out,
            outstanding,
        );
        for (up, tally) in ctx.ups.iter().zip(&per_up) {
            let _ = match tally.last_oci {
                Some(m) => write!(line, " {} {m}%", up.node),
                None => write!(line, " {} -", up.node),
            };
        }
        eprintln!("{line}");
        last = t;
    }
}

/// Print association changes during the run.
async fn report_events(mut events: mpsc::Receiver<PeerEvent>) {
    while let Some(e) = events.recv().await {
        match e {
            PeerEvent::Associated { .. } => {}
            other => eprintln!("pfcp cp: {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Summary

mod summary;
pub use summary::{ClassSummary, Latency, Summary, UpSummary};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_parses() {
        let m = parse_mix("emergency=5, arp2=25,ARP12=70").unwrap();
        let names: Vec<&str> = m.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["emergency", "arp2", "arp12"]);
        assert!(m[0].profile.emergency);
        assert_eq!(m[2].profile.arp_levels, [12]);
        assert!(!m[2].profile.emergency);
        for bad in [
            "",
            "arp16=1",
            "arp0=1",
            "gold=1",
            "arp2",
            "arp2=-1",
            "arp2=1,arp2=2",
            "none=0",
        ] {
            assert!(parse_mix(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn draws_follow_the_weights() {
        let m = parse_mix("emergency=5,arp2=25,arp12=70").unwrap();
        let mut rng = 1;
        let mut n = [0u32; 3];
        for _ in 0..100_000 {
            n[pick(&m, splitmix(&mut rng))] += 1;
        }
        assert!((4_500..5_500).contains(&n[0]), "{n:?}");
        assert!((24_000..26_000).contains(&n[1]), "{n:?}");
        assert!((69_000..71_000).contains(&n[2]), "{n:?}");
        let only = parse_mix("emergency=0,arp9=1").unwrap();
        assert!((0..1000).all(|i| pick(&only, splitmix(&mut (i as u64))) == 1));
    }

    #[test]
    fn requests_are_valid_pfcp() {
        let node_ie = node_id_ie(&NodeKey::fqdn("smf1.example.net")).unwrap();
        let slot = Slot {
            cp_seid: 0x1234,
            up_seid: 0x99,
            ..Slot::default()
        };
        for step in STEPS {
            let (h, ies) =
                build_request(step, &slot, &node_ie, Ipv4Addr::LOCALHOST.into()).unwrap();
            let mut out = Vec::new();
            let h = h.with_sequence(pfcp_wire::SequenceNumber::new(5).unwrap());
            let mut w = pfcp_wire::encode::MessageWriter::begin(&mut out, &h).unwrap();
            w.raw_ies(&ies).unwrap();
            w.finish().unwrap();
            let msg = Message::decode(&out).unwrap();
            msg.validate().unwrap();
            msg.check_typed_ies().unwrap();
            if step == Step::Establish {
                assert_eq!(msg.f_seid().unwrap().unwrap().seid, 0x1234);
                assert_eq!(
                    msg.node_id().unwrap().unwrap().to_string(),
                    "smf1.example.net"
                );
            } else {
                assert_eq!(msg.header().seid, Some(0x99));
            }
        }
    }

    #[test]
    fn latency_percentiles() {
        let v: Vec<u32> = (1..=100).map(|i| i * 1000).collect();
        let l = Latency::of(&v);
        assert_eq!(
            (l.p50, l.p90, l.p99, l.max),
            (Some(50.0), Some(90.0), Some(99.0), Some(100.0))
        );
        assert_eq!(Latency::of(&[]).p50, None);
    }
}
