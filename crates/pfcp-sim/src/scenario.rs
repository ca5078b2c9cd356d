//! What an experiment runs: the network, the UP and CP functions, the traffic, the loads, and
//! the strategies compared. Deserialised from TOML or JSON (serde) for custom runs; the default
//! ([`Scenario::default`]) is the one `pfcp sim` runs when given none.

use serde::{Deserialize, Serialize};

use crate::traffic::{parse_mix, Class, MixError};

mod spec;
pub use spec::{ChurnSpec, CpGroup, CpProfile, LinkSpec, RestartSpec, StepSpec, SweepSpec, UpSpec};

/// An overload-control strategy, compared on the same scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// No control: the UP serves a bounded FIFO and drops what does not fit without an answer;
    /// the CP functions retransmit after T1 and know nothing of overload.
    NoControl,
    /// UP self-protection only: the UP ranks by message priority and refuses what it cannot
    /// hold with Cause 74 (clause 6.2.4.5.1, last paragraph); the CP functions ignore OCI.
    SelfProtection,
    /// The Annex A.1 example: random Loss at the CP functions, and a plain utilisation metric
    /// at the UP (the occupancy-based law of the SIP overload literature).
    RandomLoss,
    /// This toolkit: the UP's adaptive reporter, the CP functions' prioritised Loss throttle
    /// with probes, UP self-protection as the backstop.
    Toolkit,
}

impl Strategy {
    /// Every strategy, in the order of the report.
    pub const ALL: [Strategy; 4] = [
        Strategy::NoControl,
        Strategy::SelfProtection,
        Strategy::RandomLoss,
        Strategy::Toolkit,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::NoControl => "no-control",
            Strategy::SelfProtection => "self-protection",
            Strategy::RandomLoss => "random-loss",
            Strategy::Toolkit => "toolkit",
        }
    }
}

/// How a CP function's requests arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    /// Evenly spaced at the offered rate, as `pfcp cp` offers them.
    Paced,
    /// A Poisson process at the offered rate (exponential gaps).
    Poisson,
}

/// How a CP function picks the UP function of a new session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// By load and overload (LCI and OCI, clause 6.2.3: new sessions go where there is spare
    /// capacity).
    Load,
    /// Round-robin.
    RoundRobin,
}

/// An experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// Its name in reports.
    pub name: String,
    /// Seed of every draw (arrivals, classes, losses, jitter).
    pub seed: u64,
    /// CP functions.
    pub cps: usize,
    /// UP functions.
    pub ups: Vec<UpSpec>,
    /// Class mix of new sessions (`CLASS=WEIGHT,...`, see [`parse_mix`]).
    pub mix: String,
    /// Session Modification Requests per session.
    pub modifications: u32,
    /// Sessions a CP function has at once, at most. Its slots are allocated as sessions start
    /// (memory follows the sessions alive, not this cap).
    pub sessions_per_cp: usize,
    /// Work a UP function spends on a request it refuses (Cause 74 or a drop), as a share of
    /// serving one: what makes an unprotected UP function collapse.
    pub rejection_cost: f64,
    /// The links.
    pub link: LinkSpec,
    /// Retransmission timer T1, milliseconds.
    pub t1_ms: u64,
    /// Retransmissions N1.
    pub n1: u32,
    /// The UP functions' control interval (the reporting interval of the OCI), milliseconds.
    pub interval_ms: u64,
    /// The load sweep.
    pub sweep: SweepSpec,
    /// A load step, if any.
    pub step: Option<StepSpec>,
    /// A UP restart run, if any.
    pub restart: Option<RestartSpec>,
    /// A run in which CP functions come and go, if any.
    pub churn: Option<ChurnSpec>,
    /// Profiles of the CP functions: the first groups' `count` CP functions have their
    /// group's profile, in order; the rest are [`CpProfile::Toolkit`]. Empty: all are.
    pub cp_groups: Vec<CpGroup>,
    /// Redirect throttled establishments to the other UP functions.
    pub redirect: bool,
    /// How new sessions are spread.
    pub selection: Selection,
    /// How requests arrive at each CP function.
    pub arrivals: Arrivals,
    /// The strategies compared.
    pub strategies: Vec<Strategy>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            name: "default".into(),
            seed: 1,
            cps: 8,
            // Unequal capacities: load control (LCI) should send three of four new sessions to
            // the first.
            ups: vec![UpSpec::new(1500.0, 256), UpSpec::new(500.0, 256)],
            mix: "emergency=5,arp2=25,arp12=70".into(),
            modifications: 1,
            sessions_per_cp: 20_000,
            rejection_cost: 0.1,
            link: LinkSpec::default(),
            t1_ms: 3000,
            n1: 3,
            interval_ms: 200,
            sweep: SweepSpec::default(),
            step: Some(StepSpec::default()),
            restart: Some(RestartSpec::default()),
            churn: None,
            cp_groups: Vec::new(),
            redirect: true,
            selection: Selection::Load,
            arrivals: Arrivals::Paced,
            strategies: Strategy::ALL.to_vec(),
        }
    }
}

/// Why a scenario was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The class mix does not parse.
    #[error(transparent)]
    Mix(#[from] MixError),
    /// A value is out of range.
    #[error("{0}")]
    Invalid(String),
}

impl Scenario {
    /// The same scenario at the scale a real-time run on loopback can carry on a small
    /// machine, and both engines can run: at most 4 CP functions, the UP functions' capacities
    /// scaled to 800 requests/s in all (their proportions kept), loads 0.5x, 2x and 5x measured
    /// for 4 s after 2 s (less if the scenario's sweep is shorter), T1 500 ms with N1 2 (so that a run drains in 1.5 s), no step and no
    /// restart, and only no control and this toolkit (where present). The CP profiles keep
    /// their shares, rounded.
    ///
    /// # Examples
    ///
    /// ```
    /// use pfcp_sim::{Scenario, Strategy};
    ///
    /// let full = Scenario::default();
    /// let small = full.small();
    /// small.validate()?;
    /// assert!(small.cps <= 4);
    /// assert!((small.capacity() - full.capacity().min(800.0)).abs() < 1e-6);
    /// assert!(small.strategies.iter().all(|s| matches!(s, Strategy::NoControl | Strategy::Toolkit)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn small(&self) -> Scenario {
        let total = self.capacity().max(1e-9);
        let scale = (800.0 / total).min(1.0);
        let strategies: Vec<Strategy> = [Strategy::NoControl, Strategy::Toolkit]
            .into_iter()
            .filter(|s| self.strategies.contains(s))
            .collect();
        let cps = self.cps.min(4);
        // Each group's end among the CP functions, scaled and rounded.
        let mut cp_groups = Vec::new();
        let (mut end, mut small_end) = (0usize, 0usize);
        for g in &self.cp_groups {
            end = end.saturating_add(g.count);
            let scaled = (end as f64 * cps as f64 / self.cps.max(1) as f64).round() as usize;
            let scaled = scaled.clamp(small_end, cps);
            cp_groups.push(CpGroup {
                count: scaled - small_end,
                profile: g.profile,
            });
            small_end = scaled;
        }
        Scenario {
            name: format!("{} (small)", self.name),
            cps,
            cp_groups,
            ups: self
                .ups
                .iter()
                .map(|u| UpSpec {
                    capacity: (u.capacity * scale).max(1.0),
                    ..u.clone()
                })
                .collect(),
            sessions_per_cp: self.sessions_per_cp.min(5000),
            t1_ms: 500,
            n1: 2,
            // At most 2 s + 4 s, shorter if the scenario's own sweep is.
            sweep: SweepSpec {
                loads: vec![0.5, 2.0, 5.0],
                warmup_secs: self.sweep.warmup_secs.min(2.0),
                measure_secs: self.sweep.measure_secs.min(4.0),
            },
            step: None,
            restart: None,
            churn: None,
            strategies: if strategies.is_empty() {
                vec![Strategy::Toolkit]
            } else {
                strategies
            },
            ..self.clone()
        }
    }

    /// The profile of CP function `i` ([`Scenario::cp_groups`]).
    pub fn cp_profile(&self, i: usize) -> CpProfile {
        let mut first = 0usize;
        for g in &self.cp_groups {
            first = first.saturating_add(g.count);
            if i < first {
                return g.profile;
            }
        }
        CpProfile::Toolkit
    }

    /// The UP functions' total capacity, requests per second.
    pub fn capacity(&self) -> f64 {
        self.ups.iter().map(|u| u.capacity).sum()
    }

    /// The classes of the mix.
    pub fn classes(&self) -> Result<Vec<Class>, ScenarioError> {
        Ok(parse_mix(&self.mix)?)
    }

    /// Check every value; the classes of the mix.
    pub fn validate(&self) -> Result<Vec<Class>, ScenarioError> {
        let bad = |m: String| Err(ScenarioError::Invalid(m));
        if self.cps == 0 {
            return bad("cps must be at least 1".into());
        }
        if self.ups.is_empty() {
            return bad("give at least one UP function".into());
        }
        for (i, u) in self.ups.iter().enumerate() {
            if !(u.capacity.is_finite() && u.capacity > 0.0) || u.queue == 0 {
                return bad(format!(
                    "ups[{i}]: capacity must be above 0 and queue at least 1"
                ));
            }
            if let Err(ScenarioError::Invalid(e)) = u
                .profile()
                .and(u.service_order().map(|_| ()))
                .and(u.max_wait().map(|_| ()))
                .and(u.oci_validity().map(|_| ()))
            {
                return bad(format!("ups[{i}]: {e}"));
            }
        }
        if !(0.0..=1.0).contains(&self.rejection_cost) {
            return bad("rejection_cost must be in 0.0..=1.0".into());
        }
        let l = &self.link;
        if !(l.delay_ms >= 0.0 && l.jitter_ms >= 0.0 && (0.0..1.0).contains(&l.loss)) {
            return bad("link: delay_ms and jitter_ms at least 0, loss in 0.0..1.0".into());
        }
        if self.t1_ms == 0 || self.interval_ms == 0 || self.sessions_per_cp == 0 {
            return bad("t1_ms, interval_ms and sessions_per_cp must be above 0".into());
        }
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if self.sweep.loads.iter().any(|&x| !positive(x))
            || !positive(self.sweep.measure_secs)
            || self.sweep.warmup_secs.is_nan()
            || self.sweep.warmup_secs < 0.0
        {
            return bad("sweep: loads and measure_secs above 0, warmup_secs at least 0".into());
        }
        if let Some(s) = &self.step {
            if !(positive(s.before) && positive(s.during) && positive(s.phase_secs)) {
                return bad("step: before, during and phase_secs must be above 0".into());
            }
        }
        if let Some(r) = &self.restart {
            if r.up >= self.ups.len()
                || !(positive(r.load)
                    && positive(r.run_secs)
                    && r.at_secs >= 0.0
                    && r.down_secs >= 0.0)
            {
                return bad(
                    "restart: up must name a UP function; load and run_secs above 0".into(),
                );
            }
        }
        if let Some(c) = &self.churn {
            if c.live == 0
                || c.associations < c.live
                || c.associations >= 1 << 23
                || !(positive(c.load) && positive(c.run_secs) && (0.0..=1.0).contains(&c.vanish))
            {
                return bad(
                    "churn: live at least 1, associations at least live and below 2^23, load and run_secs above 0, vanish in 0.0..=1.0"
                        .into(),
                );
            }
        }
        let grouped = self
            .cp_groups
            .iter()
            .fold(0usize, |n, g| n.saturating_add(g.count));
        if grouped > self.cps {
            return bad(format!(
                "cp_groups name {grouped} CP functions, more than cps = {}",
                self.cps
            ));
        }
        // The engine's addresses: 10.0.0.x for the UP functions, 10.1.0.0/9 for the CPs.
        if self.cps >= 1 << 23 || self.ups.len() > 254 {
            return bad("cps must be below 2^23 and ups at most 254".into());
        }
        if self.strategies.is_empty() {
            return bad("give at least one strategy".into());
        }
        self.classes()
    }
}
