//! The command line of `pfcp cp`: [`CpArgs`], the choice of Loss pacing ([`LossPacing`]) and
//! the checks clap cannot express.
//!
//! The overload-control flags select how the CP's Loss throttles (TS 29.244 clause 6.2.4.4)
//! treat priorities (clause 6.2.4.5.1); the module docs of [`crate::cp`] explain each.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::ValueEnum;

use super::rules::UePool;
use crate::number::{number, whole};

/// Arguments of `pfcp cp`.
#[derive(Debug, Clone, clap::Args)]
pub struct CpArgs {
    /// A UP function to load (repeat for several: new sessions are spread over them as
    /// --select says).
    #[arg(
        long = "up",
        value_name = "ADDR",
        required = true,
        help_heading = "UP functions"
    )]
    pub ups: Vec<SocketAddr>,
    /// Static weights of the --up UP functions, comma-separated in their order (their
    /// signalling capacities, say), for --select load. With weights the UP functions' LCI
    /// corrects the split they give instead of deciding it alone (a spare-capacity offset
    /// of 25, as `pfcp sim`'s CPs). Default: all equal, and the LCI decides.
    #[arg(long, value_name = "W,W,...", value_delimiter = ',', allow_negative_numbers = true, value_parser = whole::<u32>, help_heading = "UP functions")]
    pub up_weights: Vec<u32>,
    /// How new sessions are spread over several --up: by load (the UP functions' LCI and OCI,
    /// clause 6.2.3: where there is spare capacity) or round-robin.
    #[arg(long, value_enum, default_value_t = Select::Load, value_name = "HOW", help_heading = "UP functions")]
    pub select: Select,
    /// Local address to bind (default: any port on all addresses of the first UP's family).
    #[arg(long, value_name = "ADDR", help_heading = "UP functions")]
    pub listen: Option<SocketAddr>,
    /// This CP function's Node ID: an IP address or an FQDN. Default `smf-PID.example.net`
    /// with this process's ID: a UP function keeps its overload state per CP Node ID, so
    /// several `pfcp cp` on one host must not share one (each is its own CP function).
    #[arg(long, value_name = "ID", help_heading = "UP functions")]
    pub node_id: Option<String>,
    /// Requests offered per second (establishments, modifications and deletions together).
    #[arg(long, allow_negative_numbers = true, value_parser = number::<f64>, default_value_t = 1000.0, value_name = "PER_SEC", help_heading = "Load")]
    pub rate: f64,
    /// Change the offered rate during the run: SECS:PER_SEC,... (seconds since the load
    /// started, increasing, within --duration-secs), e.g. `--rate 100 --rate-steps
    /// 6:1000,12:100` for a step 1x -> 10x -> 1x of this CP's own demand (`pfcp up
    /// --series-ms` shows the UP's side of it). A rate of 0 pauses.
    #[arg(
        long,
        value_name = "STEPS",
        value_delimiter = ',',
        help_heading = "Load"
    )]
    pub rate_steps: Vec<RateStep>,
    /// Ramp up: the offered rate rises linearly from 0 to --rate (and --rate-steps) over
    /// the first SECS seconds of the load, so that a UP function is not met with the full
    /// rate at once. 0: the full rate from the start.
    #[arg(long, allow_negative_numbers = true, value_parser = number::<f64>, default_value_t = 0.0, value_name = "SECS", help_heading = "Load")]
    pub ramp: f64,
    /// CP functions in this process, an SMF pool: each binds its own socket and has its own
    /// Node ID (--node-id with `-I` appended to its first label, I from 1), association,
    /// overload state, throttles and session slots; --rate, --rate-steps, --sessions and
    /// --max-outstanding are split evenly among them, and the summary is theirs together.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>, default_value_t = 1, value_name = "N", help_heading = "Load")]
    pub functions: u32,
    /// Session slots: at most this many sessions exist at once.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>, default_value_t = 10_000, value_name = "N", help_heading = "Load")]
    pub sessions: usize,
    /// Session Modification Requests per session, between its establishment and deletion.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>, default_value_t = 1, value_name = "N", help_heading = "Load")]
    pub modifications: u32,
    /// Also summarise the requests that start after this many seconds (`steady` in the
    /// summary): the steady state, without the first moments in which no OCI has reached the
    /// CP yet and the UP's queue absorbs the whole storm. 0: no such section.
    #[arg(long, allow_negative_numbers = true, value_parser = number::<f64>, default_value_t = 0.0, value_name = "SECS", help_heading = "Output")]
    pub warmup_secs: f64,
    /// How long a session stays established before its next step, in milliseconds (0: its
    /// next step is ready at once). Held sessions are what a UP function's Session Report
    /// Requests (`pfcp up --report-rate`) report on.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>, default_value_t = 0, value_name = "MS", help_heading = "Load")]
    pub hold_ms: u64,
    /// Priority classes of new sessions and their weights: CLASS=WEIGHT,... where CLASS is
    /// emergency, emps, arp1 to arp15 (ARP priority level), lap (low access priority) or none.
    #[arg(
        long,
        default_value = "emergency=5,arp2=25,arp12=70",
        value_name = "MIX",
        help_heading = "Load"
    )]
    pub mix: String,
    /// How long to offer load; the outstanding requests are then waited for.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>, default_value_t = 10, value_name = "SECS", help_heading = "Load")]
    pub duration_secs: u64,
    /// Redirect throttled Session Establishment Requests to the other UP functions given
    /// with --up (in that order of preference).
    #[arg(long, help_heading = "Overload control")]
    pub redirect: bool,
    /// Never throttle emergency and eMPS requests, even when a UP function's reduction cannot
    /// be reached without them (a regional rule). By default they are throttled last, only
    /// when the rest cannot make up the reduction (TS 29.244 clause 6.2.4.5.1).
    #[arg(long, help_heading = "Overload control")]
    pub never_throttle_exempt: bool,
    /// How the CP's Loss throttles pick the requests they drop to meet a UP function's
    /// reduction (TS 29.244 clause 6.2.4.4): by priority, or exactly over every short window
    /// but blind to priority (the two exclude each other).
    #[arg(long, value_enum, default_value_t = LossPacing::Priority, value_name = "MODE", help_heading = "Overload control")]
    pub loss_mode: LossPacing,
    /// Probes: a request the Loss throttle sheds is sent anyway when nothing went to its UP
    /// function for N times the usual gap between sends there (at least 20 ms), and the
    /// throttle sheds the next one instead. OCI only comes back on the UP function's
    /// messages, so a CP held to a trickle would otherwise hear late that an overload ended.
    /// 0: no probes.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>, default_value_t = 16, value_name = "N", help_heading = "Overload control")]
    pub probe_gap_factor: u32,
    /// Probes after a fall of this CP's own demand: while its offers to a UP function come
    /// this many times further apart than usual, a request the Loss throttle sheds goes after
    /// a silence of two usual gaps between sends, so that the CP hears the end of an overload
    /// within a gap or two of its old rhythm. 0: none.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>, default_value_t = 4, value_name = "N", help_heading = "Overload control")]
    pub probe_fall_factor: u32,
    /// Most emergency and eMPS requests per UP function that the Loss throttle shed and that
    /// go at once, ahead of a lower-priority request the throttle lets through later, which
    /// is then rejected in their place (clause 6.2.4.5.1: they are
    /// throttled last); only while the throttle's window is short (a storm's first few hundred
    /// requests), whose estimate of the classes' shares is noisy, and not for 2 s after the UP
    /// function refused one of them (its priority traffic does not fit). 0: none.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>, default_value_t = 16, value_name = "N", help_heading = "Overload control")]
    pub exempt_ahead: u32,
    /// How long an emergency or eMPS request the Loss throttle sheds (and that cannot go
    /// ahead, see --exempt-ahead) waits, unsent, for the place of a lower-priority request to
    /// the same UP function; only while the throttle's window is
    /// short. 0: shed them at once.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>, default_value_t = 0, value_name = "MS", help_heading = "Overload control")]
    pub exempt_hold_ms: u64,
    /// Egress throttling per UP connection (the signalling router's PCEMT): a default set
    /// for every --up with this Max EMR (messages/s counting requests, answers,
    /// retransmissions, Heartbeat and Association messages).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>, value_name = "PER_SEC", help_heading = "Egress throttling")]
    pub egress_max_rate: Option<u32>,
    /// The throttle/abatement threshold pairs of --egress-max-rate, TT/AT in percent of the
    /// Max EMR (1 to 3 pairs, levels 1 to 3).
    #[arg(
        long,
        default_value = "60/55,80/75,100/90",
        value_name = "PAIRS",
        help_heading = "Egress throttling"
    )]
    pub egress_levels: String,
    /// Level-only mode for --egress-max-rate: the congestion levels alone shed (no hard cap
    /// at the Max EMR).
    #[arg(long, help_heading = "Egress throttling")]
    pub egress_level_only: bool,
    /// A TOML file of egress configuration sets, their assignment per --up (own Max EMR, or
    /// capacity / connections) and route groups (the format is in the README of pfcp-cli, "Egress throttling").
    #[arg(long, value_name = "FILE", help_heading = "Egress throttling")]
    pub egress_config: Option<PathBuf>,
    /// A route group of --up addresses, ADDR,ADDR,... (repeat, in preference order): a
    /// Session Establishment Request the asked UP function's throttles refuse goes to the
    /// next eligible peer of the groups (Alternate Routing Across Route Groups).
    #[arg(long, value_name = "ADDRS", help_heading = "Egress throttling")]
    pub route_group: Vec<String>,
    /// Keep the C.2 state (TS 29.273 Annex C.2) from what the CP sees: follow-ups of an
    /// admitted establishment rank higher, re-establishments after a UP restart lower.
    #[arg(long, help_heading = "Overload control")]
    pub track_state: bool,
    /// Most requests waiting for their response (the concurrency limit); an offer beyond is
    /// skipped and counted (`skipped_max_outstanding`), not delayed, so the offered rate
    /// stays the one asked for.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>, default_value_t = 1024, value_name = "N", help_heading = "Load")]
    pub max_outstanding: usize,
    /// The rules of every Session Establishment Request from a TOML file: Create PDR, FAR,
    /// QER and URR (`crates/pfcp-cli/templates/basic.toml` is an example; its format is in
    /// the README). Per session the CP F-SEID, the TEIDs and the UE address are rewritten.
    #[arg(long, value_name = "FILE", help_heading = "Session contents")]
    pub template: Option<PathBuf>,
    /// Take the rules of the sessions from the Session Establishment Requests of a capture
    /// (pcap or pcapng), in turn, rewritten as a template's are (Node ID, CP F-SEID, TEIDs,
    /// UE address from --ue-pool).
    #[arg(
        long,
        value_name = "CAPTURE",
        conflicts_with = "template",
        help_heading = "Session contents"
    )]
    pub replay: Option<PathBuf>,
    /// The UDP port of the PFCP traffic in the --replay capture.
    #[arg(long, value_name = "PORT", default_value_t = crate::capture::PFCP_PORT, help_heading = "Session contents")]
    pub replay_port: u16,
    /// The IPv4 pool of the UE addresses the rewriting hands out (session k: address k),
    /// for --replay and for templates without their own `ue_ip_pool`.
    #[arg(
        long,
        value_name = "CIDR",
        default_value = "10.45.0.0/16",
        help_heading = "Session contents"
    )]
    pub ue_pool: UePool,
    /// Most timed-out requests, in per cent of those sent, for a run to count as good: more
    /// and `pfcp cp` exits with status 5 (after its summary).
    #[arg(long, allow_negative_numbers = true, value_parser = number::<f64>, default_value_t = 1.0, value_name = "PERCENT", help_heading = "Transactions")]
    pub max_timeout_share: f64,
    /// Retransmission timer T1, in milliseconds.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>, default_value_t = 3000, value_name = "MS", help_heading = "Transactions")]
    pub t1_ms: u64,
    /// Retransmissions N1 before a request times out.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>, default_value_t = 3, value_name = "N", help_heading = "Transactions")]
    pub n1: u32,
    /// Seed of the class draws and of the node's own (the Loss throttle's, the UP
    /// selection's). Default: derived from the Node ID, so that CPs started together draw
    /// independent streams (with one seed they would pick the same class at the same offer
    /// and send their emergency sessions in step).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>, value_name = "N", help_heading = "Load")]
    pub seed: Option<u64>,
    /// Also print the summary as one JSON object on stdout (the text summary goes to stderr).
    #[arg(long, help_heading = "Output")]
    pub json: bool,
    /// Serve the counters (pfcp-node's and this tool's) at a Prometheus scrape endpoint on
    /// ADDR, e.g. `127.0.0.1:9185` (any path answers GET).
    #[arg(long, value_name = "ADDR", help_heading = "Output")]
    pub metrics: Option<SocketAddr>,
    /// How this CP function takes part in overload control (TS 29.244 clause 6.2.4), to
    /// play the CP functions of a deployment that are not this toolkit's.
    #[arg(
        long,
        value_enum,
        default_value_t = Profile::Toolkit,
        value_name = "PROFILE",
        help_heading = "CP profile"
    )]
    pub profile: Profile,
}

/// `--profile`: pfcp-sim's [`CpProfile`](pfcp_sim::scenario::CpProfile) on the command line.
/// (The variants' docs are the help text.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Profile {
    /// This toolkit's overload control: it honours OCI, each request carries its class's
    /// message priority.
    #[default]
    Toolkit,
    /// No overload control: OCI ignored, no message priority in the header, neither OVRL nor
    /// LOAD advertised (not with --redirect, --route-group or the egress flags).
    NoOverloadControl,
    /// This toolkit's overload control, but message priority 0 on every Session
    /// Establishment Request and 12 on every other request, whatever the class.
    FixedPriority,
}

impl Profile {
    /// The profile it names.
    pub fn profile(self) -> pfcp_sim::scenario::CpProfile {
        use pfcp_sim::scenario::CpProfile;
        match self {
            Profile::Toolkit => CpProfile::Toolkit,
            Profile::NoOverloadControl => CpProfile::NoOverloadControl,
            Profile::FixedPriority => CpProfile::FixedPriority,
        }
    }
}

/// `--loss-mode`: what the CP's Loss throttles favour when a drop is due.
///
/// A due drop can only go to a request that arrives, so priority order and exactness over
/// every short window are alternatives, not a combination (`docs/throttle.md`). `Exact` sets
/// [`pfcp_throttle::LossConfig::exact_window`]. (The variants' docs are the help text.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LossPacing {
    /// Lowest priority first, emergency and eMPS last (clause 6.2.4.5.1); a short window may
    /// lag its target by a few requests.
    #[default]
    Priority,
    /// Every window of 100 requests or more within one percentage point of the reduction,
    /// whatever the mix; blind to priority among non-exempt requests (each class sheds about
    /// the same share), emergency and eMPS requests never throttled.
    Exact,
}

impl LossPacing {
    /// Whether the Loss throttles run window-exact.
    pub fn is_exact(self) -> bool {
        self == LossPacing::Exact
    }

    /// Its value on the command line (and in the summary).
    pub fn name(self) -> &'static str {
        match self {
            LossPacing::Priority => "priority",
            LossPacing::Exact => "exact",
        }
    }
}

impl CpArgs {
    /// `--node-id`, or the per-process default.
    pub fn node_id(&self) -> String {
        self.node_id
            .clone()
            .unwrap_or_else(|| format!("smf-{}.example.net", std::process::id()))
    }

    /// `--seed`, or one derived from [`CpArgs::node_id`] (FNV-1a of its text): distinct per
    /// process by default, and the same again for the same `--node-id`.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or_else(|| {
            self.node_id().bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            })
        })
    }

    /// The checks clap cannot express; the message names the flag.
    pub(super) fn check(&self) -> Result<(), String> {
        if !(self.warmup_secs.is_finite() && self.warmup_secs >= 0.0) {
            return Err("--warmup-secs must be 0 or a positive number of seconds".into());
        }
        if self.warmup_secs >= self.duration_secs as f64 && self.warmup_secs > 0.0 {
            return Err("--warmup-secs must be shorter than --duration-secs".into());
        }
        if self.ramp > self.duration_secs as f64 {
            return Err(format!(
                "--ramp {} s is longer than --duration-secs ({} s): the rate would never reach --rate",
                self.ramp, self.duration_secs
            ));
        }
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return Err("--rate must be a positive number of requests per second".into());
        }
        let mut from = 0.0;
        for step in &self.rate_steps {
            if step.at_secs <= from || step.at_secs >= self.duration_secs as f64 {
                return Err(format!(
                    "--rate-steps: {}:{} must come after {from} s and before --duration-secs ({} s), in increasing order",
                    step.at_secs, step.rate, self.duration_secs
                ));
            }
            from = step.at_secs;
        }
        if self.sessions == 0 {
            return Err("--sessions must be at least 1".into());
        }
        if self.duration_secs == 0 {
            return Err("--duration-secs must be at least 1".into());
        }
        if !(1..=1_000_000).contains(&self.max_outstanding) {
            return Err("--max-outstanding must be between 1 and 1000000".into());
        }
        if self.max_timeout_share > 100.0 {
            return Err("--max-timeout-share is a percentage: between 0 and 100".into());
        }
        if self.t1_ms == 0 {
            return Err("--t1-ms must be at least 1".into());
        }
        if !(1..=super::pool::MAX_FUNCTIONS).contains(&self.functions) {
            return Err(format!(
                "--functions must be between 1 and {}",
                super::pool::MAX_FUNCTIONS
            ));
        }
        if self.functions > 1 {
            if self.listen.is_some_and(|l| l.port() != 0) {
                return Err("--functions: each CP function binds a socket of its own, so --listen takes port 0".into());
            }
            if self
                .node_id
                .as_deref()
                .is_some_and(|n| n.parse::<std::net::IpAddr>().is_ok())
            {
                return Err("--functions: each CP function needs a Node ID of its own, so --node-id is an FQDN (an address cannot take a suffix)".into());
            }
            if self.template.is_some() || self.replay.is_some() {
                return Err("--functions with --template or --replay: the UE addresses of --ue-pool would repeat across the functions; run one pfcp cp per CP function".into());
            }
            if self.egress_max_rate.is_some()
                || self.egress_config.is_some()
                || !self.route_group.is_empty()
            {
                return Err("--functions with egress throttling or route groups: not supported; run one pfcp cp per CP function".into());
            }
        }
        Ok(())
    }
}

/// One of `--rate-steps`: from `at_secs` on, `rate` requests per second.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RateStep {
    /// Seconds since the load started.
    pub at_secs: f64,
    /// Requests offered per second from then on (0: none).
    pub rate: f64,
}

impl RateStep {
    /// `steps` for the tool's messages: ", RATE from SECS s" for each (empty without any).
    pub(super) fn describe(steps: &[RateStep]) -> String {
        steps
            .iter()
            .map(|s| format!(", {} from {} s", s.rate, s.at_secs))
            .collect()
    }
}

impl std::str::FromStr for RateStep {
    type Err = String;

    /// `SECS:PER_SEC`, both non-negative finite numbers.
    fn from_str(s: &str) -> Result<Self, String> {
        let number = |v: &str, what: &str| match v.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(format!(
                "{s:?}: {what} {v:?} is not a non-negative number (SECS:PER_SEC)"
            )),
        };
        let (at, rate) = s
            .split_once(':')
            .ok_or_else(|| format!("{s:?}: expected SECS:PER_SEC"))?;
        Ok(RateStep {
            at_secs: number(at, "time")?,
            rate: number(rate, "rate")?,
        })
    }
}

/// `--select`: how new sessions are spread over the UP functions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Select {
    /// By the UP functions' load and overload (LCI, OCI), in proportion to their spare
    /// capacity (spread evenly by a Weyl sequence, not drawn at random).
    #[default]
    Load,
    /// One after the other.
    RoundRobin,
}
