//! The parts of a scenario: the UP functions ([`UpSpec`]), the links, the load sweep, the
//! step and restart runs, the CP profiles and groups, and the churn.

use std::time::Duration;

use pfcp_node::admission::{ProfileError, ServiceOrder, UpProfile};
use pfcp_node::AdmissionConfig;
use pfcp_overload::ReporterConfig;
use pfcp_wire::ie::Timer;
use pfcp_wire::{MessagePriority, MessageType};
use serde::{Deserialize, Serialize};

use super::ScenarioError;

/// A UP function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpSpec {
    /// Session requests it serves per second.
    pub capacity: f64,
    /// Requests waiting for service at most.
    #[serde(default = "default_queue")]
    pub queue: usize,
    /// Its overload and load control behaviour, under this toolkit's strategy: a preset of
    /// [`UpProfile::PRESETS`] (`toolkit` when absent), which the fields below adjust.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// The scope of its OCIs: `entity` (no AOCI) or `node` (AOCI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci_scope: Option<String>,
    /// Its OCI sequence numbers: `counter`, `clock` or `clock-near-wrap[:SECS]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci_sequence: Option<String>,
    /// Which messages carry its OCI: `until-current`, `every`, `rejections`, `every-nth:N`,
    /// `periodic:MS` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci_on: Option<String>,
    /// Which messages carry its LCI: `responses` or `heartbeat`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lci_in: Option<String>,
    /// Seconds after its start at which its count of OCI sequence numbers starts again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence_reset_secs: Option<f64>,
    /// The order its queue serves in, under this toolkit's strategy: `priority` (the default)
    /// or `arrival` ([`ServiceOrder`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_order: Option<String>,
    /// Its wait bound in milliseconds, under every strategy with one (all but no control):
    /// `AdmissionConfig::max_wait`, 15 when absent. A longer bound refuses less at about the
    /// capacity and raises the p99 with it (`docs/guide/tune-the-control-law.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wait_ms: Option<f64>,
    /// The Period of Validity of its OCIs in seconds, one the Timer IE holds exactly (clause
    /// 8.2.35: 2 to 62 in steps of 2, then whole minutes): `ReporterConfig::validity`, 30 when
    /// absent. A shorter one lets CP
    /// functions that send it little hear the end of an overload sooner (it lapses) and lets
    /// more of them lapse during one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci_validity_secs: Option<u64>,
}

impl UpSpec {
    /// A UP function of `capacity` requests per second and a queue of `queue`, with this
    /// toolkit's behaviour.
    pub fn new(capacity: f64, queue: usize) -> UpSpec {
        UpSpec {
            capacity,
            queue,
            profile: None,
            oci_scope: None,
            oci_sequence: None,
            oci_on: None,
            lci_in: None,
            sequence_reset_secs: None,
            service_order: None,
            max_wait_ms: None,
            oci_validity_secs: None,
        }
    }

    /// The order its queue serves in.
    pub fn service_order(&self) -> Result<ServiceOrder, ScenarioError> {
        self.service_order
            .as_deref()
            .map_or(Ok(ServiceOrder::default()), str::parse)
            .map_err(|e| ScenarioError::Invalid(e.to_string()))
    }

    /// Its wait bound ([`UpSpec::max_wait_ms`]), the default when absent.
    pub fn max_wait(&self) -> Result<Duration, ScenarioError> {
        match self.max_wait_ms {
            None => Ok(AdmissionConfig::DEFAULT_MAX_WAIT),
            Some(ms) if ms.is_finite() && ms > 0.0 && ms <= 60_000.0 => {
                Ok(Duration::from_secs_f64(ms / 1000.0))
            }
            Some(ms) => Err(ScenarioError::Invalid(format!(
                "max_wait_ms must be above 0 and at most 60000, got {ms}"
            ))),
        }
    }

    /// The Period of Validity of its OCIs ([`UpSpec::oci_validity_secs`]), `None` for the
    /// reporter's default.
    pub fn oci_validity(&self) -> Result<Option<Duration>, ScenarioError> {
        let Some(secs) = self.oci_validity_secs else {
            return Ok(None);
        };
        let validity = Duration::from_secs(secs);
        // The reporter's own rule (above zero, a finite Timer), and a value the Timer holds
        // as it is, so that the CP function applies what the reporter counts on.
        let exact = Timer::from_duration(validity).and_then(|t| t.duration()) == Some(validity);
        ReporterConfig::default()
            .with_validity(validity)
            .validate()
            .map_err(|e| ScenarioError::Invalid(format!("oci_validity_secs: {e}")))?;
        if !exact {
            return Err(ScenarioError::Invalid(format!(
                "oci_validity_secs must be a Period of Validity the Timer IE holds exactly \
                 (clause 8.2.35: 2 to 62 in steps of 2, then whole minutes), got {secs}"
            )));
        }
        Ok(Some(validity))
    }

    /// Its profile: the preset, adjusted by the fields given.
    pub fn profile(&self) -> Result<UpProfile, ScenarioError> {
        let bad = |e: ProfileError| ScenarioError::Invalid(e.to_string());
        let mut p = match &self.profile {
            Some(name) => name.parse::<UpProfile>().map_err(bad)?,
            None => UpProfile::default(),
        };
        if let Some(s) = &self.oci_scope {
            p.oci_scope = s.parse().map_err(bad)?;
        }
        if let Some(s) = &self.oci_sequence {
            p.oci_sequence = s.parse().map_err(bad)?;
        }
        if let Some(s) = &self.oci_on {
            p.oci_on = s.parse().map_err(bad)?;
        }
        if let Some(s) = &self.lci_in {
            p.lci_in = s.parse().map_err(bad)?;
        }
        if let Some(secs) = self.sequence_reset_secs {
            if !(secs.is_finite() && secs >= 0.0) {
                return Err(ScenarioError::Invalid(format!(
                    "sequence_reset_secs must be a number of seconds, got {secs}"
                )));
            }
            p.sequence_reset_after = Some(Duration::from_secs_f64(secs));
        }
        Ok(p)
    }
}

fn default_queue() -> usize {
    256
}

/// The links between every CP and every UP function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkSpec {
    /// One-way delay, milliseconds.
    pub delay_ms: f64,
    /// Added uniformly random delay, up to this, milliseconds.
    pub jitter_ms: f64,
    /// Share of datagrams lost, `0.0..1.0`.
    pub loss: f64,
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec {
            delay_ms: 1.0,
            jitter_ms: 0.5,
            loss: 0.0,
        }
    }
}

/// The load sweep: one run per load, each starting afresh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SweepSpec {
    /// Offered loads, as multiples of the UP functions' total capacity.
    pub loads: Vec<f64>,
    /// Seconds before measuring (associations, the control loop settling).
    pub warmup_secs: f64,
    /// Seconds measured.
    pub measure_secs: f64,
}

impl Default for SweepSpec {
    fn default() -> Self {
        SweepSpec {
            loads: vec![0.5, 0.9, 1.3, 2.0, 5.0, 10.0],
            warmup_secs: 2.0,
            measure_secs: 6.0,
        }
    }
}

/// A load step: `before` for `phase_secs`, `during` for `phase_secs`, `before` again for
/// `phase_secs`, recorded every control interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StepSpec {
    /// The load before and after the step.
    pub before: f64,
    /// The load during it.
    pub during: f64,
    /// Seconds of each phase.
    pub phase_secs: f64,
}

impl Default for StepSpec {
    fn default() -> Self {
        StepSpec {
            before: 1.0,
            during: 10.0,
            phase_secs: 6.0,
        }
    }
}

/// A UP function restarts: it stops answering at `at_secs`, and comes back `down_secs` later
/// with a new Recovery Time Stamp and no sessions (clause 6.2.6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RestartSpec {
    /// Which UP function (index in `ups`).
    pub up: usize,
    /// The load of the run.
    pub load: f64,
    /// When it goes down, seconds into the run.
    pub at_secs: f64,
    /// How long it stays down.
    pub down_secs: f64,
    /// How long the run lasts.
    pub run_secs: f64,
}

impl Default for RestartSpec {
    fn default() -> Self {
        RestartSpec {
            up: 0,
            load: 0.8,
            at_secs: 4.0,
            down_secs: 1.0,
            run_secs: 10.0,
        }
    }
}

/// How a CP function takes part in overload control: the CP functions of a deployment are
/// not all alike.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum CpProfile {
    /// The CP function of the run's strategy: with this toolkit (or random Loss) it honours
    /// OCI (clause 6.2.4.4); the message priority in the header is its classifier's
    /// (clause 6.2.4.5.2), with every strategy, so that a UP function can rank its requests.
    #[default]
    Toolkit,
    /// A CP function without overload control: it ignores OCI (no
    /// [`CpOverloadControl`](pfcp_node::cp::CpOverloadControl)) and sets no message priority
    /// in the header, so a UP function ranks its requests at its default priority.
    NoOverloadControl,
    /// A CP function with fixed message priorities, as some SMFs are configured: 0 (the
    /// highest) on every Session Establishment Request and 12 on every other request, whatever
    /// the session's class. Its overload control is the strategy's (it honours OCI where the
    /// strategy's CP functions do, throttling by its classifier's classes).
    FixedPriority,
}

impl CpProfile {
    /// Every profile, in the order of the report.
    pub const ALL: [CpProfile; 3] = [
        CpProfile::Toolkit,
        CpProfile::NoOverloadControl,
        CpProfile::FixedPriority,
    ];

    /// Its name in scenarios and reports.
    pub fn name(self) -> &'static str {
        match self {
            CpProfile::Toolkit => "toolkit",
            CpProfile::NoOverloadControl => "no-overload-control",
            CpProfile::FixedPriority => "fixed-priority",
        }
    }

    /// Whether it honours OCI when the strategy's CP functions do.
    pub fn supports_overload_control(self) -> bool {
        self != CpProfile::NoOverloadControl
    }

    /// The message priority it puts in the header of a request of `message_type` whose
    /// class the classifier ranks at `classified`; `None`: no priority (MP = 0).
    pub fn header_priority(
        self,
        message_type: MessageType,
        classified: MessagePriority,
    ) -> Option<MessagePriority> {
        match self {
            CpProfile::Toolkit => Some(classified),
            CpProfile::NoOverloadControl => None,
            CpProfile::FixedPriority => self.fixed_priority(message_type),
        }
    }

    /// The priority it puts on a request of `message_type` whatever its class: for
    /// [`CpProfile::FixedPriority`], 0 on a Session Establishment Request and 12 on any other;
    /// `None` for the others.
    pub fn fixed_priority(self, message_type: MessageType) -> Option<MessagePriority> {
        match self {
            CpProfile::FixedPriority
                if message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST =>
            {
                Some(MessagePriority::HIGHEST)
            }
            CpProfile::FixedPriority => MessagePriority::new(12),
            CpProfile::Toolkit | CpProfile::NoOverloadControl => None,
        }
    }
}

/// A group of CP functions of one profile: `[[cp_groups]]` in a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpGroup {
    /// How many CP functions.
    pub count: usize,
    /// Their profile.
    pub profile: CpProfile,
}

/// CP functions come and go: `associations` CP functions over the run, `live` at a time. Each
/// associates with every UP function, offers its share of the load for its life
/// (`live x run_secs / associations` seconds), then releases its associations (Association
/// Release, clause 6.2.8) or vanishes without a word (a share `vanish` of them, drawn from
/// the seed; the UP functions notice only when their heartbeats go unanswered), and a new CP
/// function, with an address and Node ID of its own, takes its place at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChurnSpec {
    /// CP functions (associations) over the run.
    pub associations: usize,
    /// CP functions alive at once.
    pub live: usize,
    /// The load the live CP functions offer together, a multiple of the total capacity.
    pub load: f64,
    /// How long the run lasts, seconds.
    pub run_secs: f64,
    /// The share of CP functions that vanish instead of releasing, `0.0..=1.0`.
    pub vanish: f64,
}

impl Default for ChurnSpec {
    fn default() -> Self {
        ChurnSpec {
            associations: 10_000,
            live: 100,
            load: 2.0,
            run_secs: 60.0,
            vanish: 0.5,
        }
    }
}

impl ChurnSpec {
    /// The life of one CP function, seconds.
    pub fn life_secs(&self) -> f64 {
        self.live as f64 * self.run_secs / self.associations.max(1) as f64
    }
}
