//! The classifier and state-tracker half of the `throttle` fuzz harness (`throttle.rs` runs
//! it): the PFCP rule table against a model of the documented table, with any context and any
//! C.2 state, and the [`StateTracker`] against a model of its documented events (eviction
//! order included), its state fed to the classifier. Included with `#[path]` by
//! `crates/pfcp-throttle/tests/fuzz_corpus.rs` as well; only `std`, `arbitrary`, `pfcp-wire`
//! and `pfcp-throttle`.
//!
//! This file holds the input (the `arbitrary` types) and the third format's entry point; in
//! `throttle_c2/`, `pfcp` models the PFCP table, `swx` checks the SWx table and `tracker`
//! models the `StateTracker`.

#![forbid(unsafe_code)]

use arbitrary::Arbitrary;
#[cfg(doc)]
use pfcp_throttle::classify::StateTracker;
use pfcp_throttle::classify::{
    Adjustment, Adjustments, QosPriorities, QosRange, Registration, RequestState, SwxRules,
};
use pfcp_throttle::{Classifier, SwxClassifier};

use crate::throttle::{DurSpec, When};

// The children are named by path, relative to this file, so that they resolve the same way in
// the fuzz crate and in pfcp-throttle's test, which includes this file with `#[path]` (a file
// loaded so looks for its children beside itself, not in `throttle_c2/`).
#[path = "throttle_c2/pfcp.rs"]
mod pfcp;
#[path = "throttle_c2/swx.rs"]
mod swx;
#[path = "throttle_c2/tracker.rs"]
mod tracker;

use pfcp::classify_with_qos;
pub(crate) use pfcp::{classifier, classify};
pub(crate) use swx::classify_swx;
pub(crate) use tracker::{when_of, Tracker};

// ---------------------------------------------------------------------------------------------
// The input

/// The classifier's configuration, any value (the first format: six adjustment steps, no
/// step for "registered elsewhere").
#[derive(Arbitrary, Debug, Clone)]
pub struct ClassifierSpec {
    emergency_priority: u8,
    emergency_exempt: bool,
    emps_priority: u8,
    emps_exempt: bool,
    arp_map: [u8; 15],
    no_arp_priority: u8,
    low_access_priority: u8,
    dnn_overrides: Vec<(String, u8)>,
    snssai_overrides: Vec<((u8, Option<u32>), u8)>,
    adjustments: [i8; 6],
    request_default: u8,
}

/// The QCI / 5QI table, any value.
#[derive(Arbitrary, Debug, Clone)]
pub struct QosSpec {
    /// Use the default table instead.
    default: bool,
    mission_critical: Option<u8>,
    gbr: Option<u8>,
    non_gbr: Option<u8>,
    /// (first, last, priority) per QCI range.
    qci: Vec<(u8, u8, u8)>,
    /// (first, last, priority) per 5QI range.
    five_qi: Vec<(u8, u8, u8)>,
}

impl QosSpec {
    fn priorities(&self) -> QosPriorities {
        if self.default {
            return QosPriorities::default();
        }
        let ranges = |v: &[(u8, u8, u8)]| {
            v.iter()
                .take(8)
                .map(|&(a, b, p)| QosRange::new(a, b, p))
                .collect()
        };
        QosPriorities::default()
            .with_classes(self.mission_critical, self.gbr, self.non_gbr)
            .with_qci(ranges(&self.qci))
            .with_five_qi(ranges(&self.five_qi))
    }
}

/// A DNN in a request context.
#[derive(Arbitrary, Debug, Clone)]
pub enum DnnSpec {
    /// None.
    Absent,
    /// Any string.
    Raw(String),
    /// The name of an override, maybe with the case flipped.
    Override {
        /// Index into the overrides.
        index: u8,
        /// Flip the ASCII case.
        flip: bool,
    },
}

/// An S-NSSAI in a request context.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum SnssaiSpec {
    /// None.
    Absent,
    /// Any.
    Raw(u8, Option<u32>),
    /// The S-NSSAI of an override.
    Override(u8),
}

/// A request context (the first format: the four state flags as booleans, `true` read as
/// `Some(true)` and `false` as not known).
#[derive(Arbitrary, Debug, Clone)]
pub struct ContextSpec {
    procedure: Option<u8>,
    emergency: bool,
    emps: bool,
    arp_levels: Vec<u8>,
    low_access_priority: bool,
    dnn: DnnSpec,
    snssai: SnssaiSpec,
    established: bool,
    later_step: bool,
    restoration: bool,
    additional_session: bool,
}

/// A C.2 state, any value of every fact.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct StateSpec {
    /// Registration (mod 3), if known.
    registration: Option<u8>,
    follows_admitted: Option<bool>,
    additional_session: Option<bool>,
    restoration: Option<bool>,
    releases_resources: Option<bool>,
}

impl StateSpec {
    pub(crate) fn state(&self) -> RequestState {
        RequestState {
            registration: self.registration.map(registration),
            follows_admitted: self.follows_admitted,
            additional_session: self.additional_session,
            restoration: self.restoration,
            releases_resources: self.releases_resources,
        }
    }
}

fn registration(v: u8) -> Registration {
    match v % 3 {
        0 => Registration::NotRegistered,
        1 => Registration::RegisteredElsewhere,
        _ => Registration::Registered,
    }
}

/// A request context with any C.2 state (the second format).
#[derive(Arbitrary, Debug, Clone)]
pub struct ContextSpecV2 {
    procedure: Option<u8>,
    emergency: bool,
    emps: bool,
    arp_levels: Vec<u8>,
    low_access_priority: bool,
    dnn: DnnSpec,
    snssai: SnssaiSpec,
    state: StateSpec,
}

impl From<&ContextSpec> for ContextSpecV2 {
    fn from(c: &ContextSpec) -> Self {
        let flag = |b: bool| b.then_some(true);
        ContextSpecV2 {
            procedure: c.procedure,
            emergency: c.emergency,
            emps: c.emps,
            arp_levels: c.arp_levels.clone(),
            low_access_priority: c.low_access_priority,
            dnn: c.dnn.clone(),
            snssai: c.snssai,
            state: StateSpec {
                registration: c.established.then_some(2),
                follows_admitted: flag(c.later_step),
                additional_session: flag(c.additional_session),
                restoration: flag(c.restoration),
                releases_resources: None,
            },
        }
    }
}

/// The SWx table, any value.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct SwxRulesSpec {
    mar: u8,
    sar: u8,
    emergency_priority: u8,
    emergency_exempt: bool,
    adjustments: [i8; 7],
    /// Use the default table instead.
    default: bool,
}

impl SwxRulesSpec {
    pub(crate) fn classifier(&self) -> SwxClassifier {
        if self.default {
            return SwxClassifier::default();
        }
        let [release, follows, registered, elsewhere, not, additional, restoration] =
            self.adjustments;
        let a = Adjustments::default()
            .with(Adjustment::Release, release)
            .with(Adjustment::FollowsAdmitted, follows)
            .with(Adjustment::Registered, registered)
            .with(Adjustment::RegisteredElsewhere, elsewhere)
            .with(Adjustment::NotRegistered, not)
            .with(Adjustment::AdditionalSession, additional)
            .with(Adjustment::Restoration, restoration);
        SwxClassifier::new(
            SwxRules::default()
                .with_bases(self.mar, self.sar)
                .with_emergency(self.emergency_priority, self.emergency_exempt)
                .with_adjustments(a),
        )
    }
}

/// A SWx request, any value.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct SwxSpec {
    /// A SAR of this Server-Assignment-Type (any u32; mostly 0..=15), or a MAR.
    sar: Option<u32>,
    small_type: bool,
    emergency: bool,
    aaa_failure_indication: bool,
    state: StateSpec,
}

/// The tracker's configuration.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct TrackerSpec {
    /// Most sessions, mod 8 (0 reads as 1).
    max_sessions: u8,
    follow_up_window: DurSpec,
    restoration_window: DurSpec,
    registration_per_ue: bool,
}

/// One tracker event. Sessions are `u8 % 16`, UEs `u8 % 4`, peers `u8 % 3`.
#[derive(Arbitrary, Debug, Clone)]
pub enum TrackEvent {
    /// `on_first_step_succeeded`.
    FirstStep(u8, When),
    /// `on_procedure_complete`.
    Complete(u8),
    /// `on_established`.
    Established {
        /// Session.
        session: u8,
        /// UE.
        ue: Option<u8>,
        /// Peer.
        peer: Option<u8>,
        /// When.
        when: When,
    },
    /// `on_released`.
    Released(u8),
    /// `on_peer_restart`.
    PeerRestart(u8, When),
    /// `prune`.
    Prune(When),
    /// `state`, checked against the model, then classified with the caller's overrides.
    State {
        /// Session.
        session: Option<u8>,
        /// UE.
        ue: Option<u8>,
        /// When.
        when: When,
        /// The request, whose state overrides the tracked one.
        request: ContextSpecV2,
    },
}

/// The first byte of an input in the third format ([`ScenarioV3`]): the classifiers alone,
/// with the QCI / 5QI inputs of the PFCP table. The first two formats stay as they are, so
/// that the committed corpus and regressions replay the runs they were found with.
pub const FORMAT_V3: u8 = 0x03;

/// A run in the third format: a PFCP classifier with any table (the QoS part included) and
/// the SWx table, on any requests.
#[derive(Arbitrary, Debug, Clone)]
pub struct ScenarioV3 {
    classifier: ClassifierSpec,
    registered_elsewhere: i8,
    qos: QosSpec,
    swx: SwxRulesSpec,
    events: Vec<ClassifyV3>,
}

/// One request of the third format.
#[derive(Arbitrary, Debug, Clone)]
pub enum ClassifyV3 {
    /// A PFCP request with any context, C.2 state, QCI and 5QI values.
    Pfcp {
        /// The context.
        context: ContextSpecV2,
        /// Its QCI values.
        qci: Vec<u8>,
        /// Its 5QI values.
        five_qi: Vec<u8>,
    },
    /// A SWx request.
    Swx(SwxSpec),
}

/// Decode `data` (after the [`FORMAT_V3`] byte) into a [`ScenarioV3`] and check every
/// classification against the models.
pub fn run_v3(data: &[u8]) {
    let Ok(s) = ScenarioV3::arbitrary_take_rest(arbitrary::Unstructured::new(data)) else {
        return;
    };
    let pfcp = Classifier::new(
        classifier(&s.classifier, s.registered_elsewhere).with_qos(s.qos.priorities()),
    );
    let swx = s.swx.classifier();
    for event in s.events.iter().take(512) {
        match event {
            ClassifyV3::Pfcp {
                context,
                qci,
                five_qi,
            } => classify_with_qos(&pfcp, context, None, qci, five_qi),
            ClassifyV3::Swx(spec) => classify_swx(&swx, spec),
        }
    }
}
