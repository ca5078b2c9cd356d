//! The classifier and state-tracker half of the `throttle` fuzz harness (`throttle.rs` runs
//! it): the PFCP rule table against a model of the documented table, with any context and any
//! C.2 state, and the [`StateTracker`] against a model of its documented events (eviction
//! order included), its state fed to the classifier. Included with `#[path]` by
//! `crates/pfcp-throttle/tests/fuzz_corpus.rs` as well; only `std`, `arbitrary`, `pfcp-wire`
//! and `pfcp-throttle`.

#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::Instant;

use arbitrary::Arbitrary;
use pfcp_throttle::classify::{
    Adjustment, AdjustmentSet, Adjustments, ArpLevels, QosIds, QosPriorities, QosRange,
    Registration, RequestState, Rule, ServerAssignmentType, Snssai, StateTracker, SwxRules,
    TrackerConfig,
};
use pfcp_throttle::{
    Classifier, ClassifierConfig, Procedure, RequestContext, SwxClassifier, SwxCommand, SwxRequest,
};

use crate::throttle::{DurSpec, When};

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

/// Classify a SWx request and check it against the documented table.
pub(crate) fn classify_swx(c: &SwxClassifier, spec: &SwxSpec) {
    let command = match spec.sar {
        None => SwxCommand::Mar,
        Some(t) => SwxCommand::Sar(ServerAssignmentType(if spec.small_type {
            t % 16
        } else {
            t
        })),
    };
    let request = SwxRequest {
        command,
        emergency: spec.emergency,
        aaa_failure_indication: spec.aaa_failure_indication,
        state: spec.state.state(),
    };
    let got = c.classify(&request);
    let r = c.rules();
    if spec.emergency {
        assert_eq!(got.rule, Rule::Emergency);
        assert_eq!(
            (got.class.priority.value(), got.class.exempt),
            (r.emergency_priority.min(15), r.emergency_exempt)
        );
        assert!(got.adjustments.is_empty());
        return;
    }
    let (base, dereg, pgw_update) = match command {
        SwxCommand::Mar => (r.mar, false, false),
        SwxCommand::Sar(t) => {
            // The documented deregistration values.
            let d = matches!(t.0, 4 | 5 | 6 | 7 | 8 | 11);
            assert_eq!(t.is_deregistration(), d, "{t:?}");
            assert_eq!(t.name().is_some(), t.0 <= 14);
            (r.sar, d, t.0 == 13)
        }
        _ => panic!("a command the model does not know"),
    };
    let mar = spec.sar.is_none();
    assert_eq!(command.code(), if mar { 303 } else { 301 });
    let s = request.state;
    // The documented table: each fact on the command its sentence names.
    let registration = s.registration.unwrap_or(Registration::NotRegistered);
    let fired = fired_of(
        !mar && s.releases_resources.unwrap_or(dereg),
        if mar || registration == Registration::Registered {
            Some(registration)
        } else {
            None
        },
        !mar && s.follows_admitted.unwrap_or(false),
        pgw_update && s.additional_session.unwrap_or(false),
        mar && s.restoration.unwrap_or(spec.aaa_failure_indication),
    );
    let step = step_of(&r.adjustments, &fired);
    let v = (i32::from(base.min(15)) + step).clamp(1, 15);
    assert_eq!(got.rule, Rule::Command);
    assert_eq!(i32::from(got.class.priority.value()), v, "{request:?}");
    assert!(!got.class.exempt);
    assert_eq!(got.adjustments.iter().collect::<Vec<_>>(), fired);
    assert_eq!(i32::from(got.step), step);
    assert_eq!(got.base.value(), base.min(15));
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

// ---------------------------------------------------------------------------------------------
// The PFCP classifier

const PROCEDURES: [Procedure; 9] = [
    Procedure::Heartbeat,
    Procedure::Association,
    Procedure::PfdManagement,
    Procedure::NodeReport,
    Procedure::SessionSet,
    Procedure::SessionEstablishment,
    Procedure::SessionModification,
    Procedure::SessionDeletion,
    Procedure::SessionReport,
];

/// The configuration of `s`, with `registered_elsewhere` as that step.
pub(crate) fn classifier(s: &ClassifierSpec, registered_elsewhere: i8) -> ClassifierConfig {
    let [release, follows_admitted, registered, not_registered, additional_session, restoration] =
        s.adjustments;
    let a = Adjustments::default()
        .with(Adjustment::Release, release)
        .with(Adjustment::FollowsAdmitted, follows_admitted)
        .with(Adjustment::Registered, registered)
        .with(Adjustment::RegisteredElsewhere, registered_elsewhere)
        .with(Adjustment::NotRegistered, not_registered)
        .with(Adjustment::AdditionalSession, additional_session)
        .with(Adjustment::Restoration, restoration);
    ClassifierConfig::default()
        .with_emergency_priority(s.emergency_priority)
        .with_emergency_exempt(s.emergency_exempt)
        .with_emps_priority(s.emps_priority)
        .with_emps_exempt(s.emps_exempt)
        .with_arp_map(s.arp_map)
        .with_no_arp_priority(s.no_arp_priority)
        .with_low_access_priority(s.low_access_priority)
        .with_dnn_overrides(s.dnn_overrides.iter().take(8).cloned().collect())
        .with_snssai_overrides(
            s.snssai_overrides
                .iter()
                .take(8)
                .map(|&((sst, sd), p)| (Snssai { sst, sd }, p))
                .collect(),
        )
        .with_adjustments(a)
        .with_request_default(s.request_default)
}

fn flip_case(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// The steps of `fired`, summed from the table, as documented.
pub(crate) fn step_of(a: &Adjustments, fired: &[Adjustment]) -> i32 {
    fired
        .iter()
        .map(|f| {
            i32::from(match f {
                Adjustment::Release => a.release,
                Adjustment::Registered => a.registered,
                Adjustment::RegisteredElsewhere => a.registered_elsewhere,
                Adjustment::NotRegistered => a.not_registered,
                Adjustment::FollowsAdmitted => a.follows_admitted,
                Adjustment::AdditionalSession => a.additional_session,
                Adjustment::Restoration => a.restoration,
                _ => panic!("an adjustment the model does not know: {f:?}"),
            })
        })
        .sum()
}

/// The adjustments the documented rules fire for resolved facts.
pub(crate) fn fired_of(
    release: bool,
    registration: Option<Registration>,
    follows: bool,
    additional: bool,
    restoration: bool,
) -> Vec<Adjustment> {
    let first = if release {
        Some(Adjustment::Release)
    } else {
        registration.map(|r| match r {
            Registration::Registered => Adjustment::Registered,
            Registration::RegisteredElsewhere => Adjustment::RegisteredElsewhere,
            Registration::NotRegistered => Adjustment::NotRegistered,
        })
    };
    let mut out: Vec<Adjustment> = first.into_iter().collect();
    for (on, a) in [
        (follows, Adjustment::FollowsAdmitted),
        (additional, Adjustment::AdditionalSession),
        (restoration, Adjustment::Restoration),
    ] {
        if on {
            out.push(a);
        }
    }
    out
}

/// The documented classes of the standardized values: TS 23.203 Table 6.1.7-A (QCI) and
/// TS 23.501 Table 5.7.4-1 (5QI). 0: mission-critical, 1: GBR, 2: non-GBR.
fn qos_class(value: u8, five_qi: bool) -> Option<u8> {
    const MISSION_CRITICAL: [u8; 8] = [65, 67, 69, 70, 82, 83, 84, 85];
    const GBR: [u8; 11] = [1, 2, 3, 4, 66, 71, 72, 73, 74, 75, 76];
    const NON_GBR: [u8; 8] = [5, 6, 7, 8, 9, 10, 79, 80];
    if MISSION_CRITICAL.contains(&value) {
        Some(0)
    } else if GBR.contains(&value) || (five_qi && (86..=90).contains(&value)) {
        Some(1)
    } else if NON_GBR.contains(&value) {
        Some(2)
    } else {
        None
    }
}

/// The documented QoS table: per value, the first range holding it, else its class's
/// priority; at most 15; the smallest over every value of both sets.
fn qos_best(q: &QosPriorities, qci: QosIds, five_qi: QosIds) -> Option<u8> {
    let one = |ranges: &[QosRange], v: u8, is_5qi: bool| {
        let p = match ranges.iter().find(|r| r.first <= v && v <= r.last) {
            Some(r) => Some(r.priority),
            None => match qos_class(v, is_5qi) {
                Some(0) => q.mission_critical,
                Some(1) => q.gbr,
                Some(_) => q.non_gbr,
                None => None,
            },
        };
        p.map(|p| p.min(15))
    };
    (0u8..=255)
        .flat_map(|v| {
            [
                qci.contains(v).then(|| one(&q.qci, v, false)).flatten(),
                five_qi
                    .contains(v)
                    .then(|| one(&q.five_qi, v, true))
                    .flatten(),
            ]
        })
        .flatten()
        .min()
}

/// Expected (priority, exempt, rule, adjustments, step) for the documented PFCP table.
fn expected(
    c: &ClassifierConfig,
    ctx: &RequestContext<'_>,
) -> (u8, bool, Rule, Vec<Adjustment>, i32) {
    if ctx.emergency {
        let p = c.emergency_priority.min(15);
        return (p, c.emergency_exempt, Rule::Emergency, vec![], 0);
    }
    if ctx.emps {
        return (
            c.emps_priority.min(15),
            c.emps_exempt,
            Rule::Emps,
            vec![],
            0,
        );
    }
    if matches!(
        ctx.procedure,
        Some(Procedure::Heartbeat | Procedure::Association)
    ) {
        return (0, false, Rule::NotThrottled, vec![], 0);
    }
    let dnn = ctx.dnn.as_deref().and_then(|d| {
        c.dnn_overrides
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(d))
    });
    let snssai = ctx
        .snssai
        .and_then(|s| c.snssai_overrides.iter().find(|(n, _)| *n == s));
    let arp = (1u8..=15).find(|l| ctx.arp.contains(*l));
    let qos = qos_best(&c.qos, ctx.qci, ctx.five_qi);
    let (base, rule) = if let Some((_, p)) = dnn {
        (*p, Rule::Dnn)
    } else if let Some((_, p)) = snssai {
        (*p, Rule::Snssai)
    } else if ctx.low_access_priority {
        (c.low_access_priority, Rule::LowAccessPriority)
    } else {
        // The more important of the ARP's and the QoS table's; the ARP's on a tie.
        match (arp.map(|l| c.arp_map[usize::from(l) - 1]), qos) {
            (Some(a), Some(q)) if q < a.min(15) => (q, Rule::Qos),
            (Some(a), _) => (a, Rule::Arp),
            (None, Some(q)) => (q, Rule::Qos),
            (None, None) => (c.no_arp_priority, Rule::Default),
        }
    };
    let s = ctx.state;
    let p = ctx.procedure;
    let existing = matches!(
        p,
        Some(
            Procedure::SessionModification
                | Procedure::SessionDeletion
                | Procedure::SessionReport
                | Procedure::SessionSet
        )
    );
    // The additional-session and restoration steps on the first request of a session only.
    let first_request = matches!(p, None | Some(Procedure::SessionEstablishment));
    let fired = fired_of(
        s.releases_resources
            .unwrap_or(p == Some(Procedure::SessionDeletion)),
        Some(s.registration.unwrap_or(if existing {
            Registration::Registered
        } else {
            Registration::NotRegistered
        })),
        s.follows_admitted.unwrap_or(false),
        first_request && s.additional_session.unwrap_or(false),
        first_request && s.restoration.unwrap_or(false),
    );
    let step = step_of(&c.adjustments, &fired);
    let v = (i32::from(base.min(15)) + step).clamp(1, 15);
    (u8::try_from(v).expect("1..=15"), false, rule, fired, step)
}

/// Classify the context of `spec` (its state replaced by `state` if given) and check it
/// against the model.
pub(crate) fn classify(c: &Classifier, spec: &ContextSpecV2, state: Option<RequestState>) {
    classify_with_qos(c, spec, state, &[], &[]);
}

/// [`classify`] with the QCI and 5QI values of the context (the third format).
pub(crate) fn classify_with_qos(
    c: &Classifier,
    spec: &ContextSpecV2,
    state: Option<RequestState>,
    qci: &[u8],
    five_qi: &[u8],
) {
    let config = c.config();
    let dnn: Option<String> = match &spec.dnn {
        DnnSpec::Absent => None,
        DnnSpec::Raw(s) => Some(s.clone()),
        DnnSpec::Override { index, flip } => {
            let names = &config.dnn_overrides;
            if names.is_empty() {
                None
            } else {
                let n = &names[usize::from(*index) % names.len()].0;
                Some(if *flip { flip_case(n) } else { n.clone() })
            }
        }
    };
    let snssai = match spec.snssai {
        SnssaiSpec::Absent => None,
        SnssaiSpec::Raw(sst, sd) => Some(Snssai { sst, sd }),
        SnssaiSpec::Override(i) => {
            let list = &config.snssai_overrides;
            (!list.is_empty()).then(|| list[usize::from(i) % list.len()].0)
        }
    };
    let ctx = RequestContext {
        procedure: spec
            .procedure
            .map(|p| PROCEDURES[usize::from(p) % PROCEDURES.len()]),
        emergency: spec.emergency,
        emps: spec.emps,
        arp: ArpLevels::from_levels(&spec.arp_levels),
        qci: QosIds::from_values(qci),
        five_qi: QosIds::from_values(five_qi),
        low_access_priority: spec.low_access_priority,
        dnn: dnn.as_deref().map(Cow::Borrowed),
        snssai,
        state: state.unwrap_or_else(|| spec.state.state()),
    };
    for l in &spec.arp_levels {
        assert_eq!(ctx.arp.contains(*l), (1..=15).contains(l), "ARP set {l}");
    }
    for (set, values) in [(ctx.qci, qci), (ctx.five_qi, five_qi)] {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(set.iter().collect::<Vec<_>>(), sorted, "QoS set");
    }
    let got = c.classify(&ctx);
    // Owned and borrowed contexts classify alike.
    assert_eq!(c.classify(&ctx.clone().into_owned()), got, "owned context");
    assert_eq!(c.classify(&ctx.reborrow()), got, "reborrowed context");
    let (p, exempt, rule, fired, step) = expected(config, &ctx);
    let fired_set: AdjustmentSet = fired.iter().copied().collect();
    assert_eq!(
        (got.class.priority.value(), got.class.exempt, got.rule),
        (p, exempt, rule),
        "classification of {ctx:?}"
    );
    assert_eq!(got.adjustments, fired_set, "adjustments of {ctx:?}");
    assert_eq!(i32::from(got.step), step, "step of {ctx:?}");
    assert_eq!(got.adjustments.iter().collect::<Vec<_>>(), fired);
    let label = got.to_string();
    assert!(
        label.starts_with(&format!("p{}", got.class.priority.value())),
        "{label}"
    );
    if got.class.exempt {
        assert!(
            ctx.emergency || ctx.emps,
            "exempt without emergency or eMPS"
        );
    }
    let throttled_procedure = ctx.procedure.is_none_or(Procedure::is_throttled);
    if !ctx.emergency && !ctx.emps && throttled_procedure {
        assert!(
            (1..=15).contains(&got.class.priority.value()),
            "priority 0 is reserved for the exempt classes"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The state tracker

#[derive(Debug, Clone)]
struct ModelSession {
    ue: Option<u8>,
    peer: Option<u8>,
    established: bool,
    follow: Option<Instant>,
    restoring: Option<Instant>,
    stamp: u64,
}

/// A tracker and a model of its documented behaviour, kept side by side.
pub(crate) struct Tracker {
    t: StateTracker<u8, u8, u8>,
    config: TrackerConfig,
    model: BTreeMap<u8, ModelSession>,
    stamp: u64,
    evicted: u64,
}

impl Tracker {
    pub(crate) fn new(s: &TrackerSpec) -> Tracker {
        let config = TrackerConfig::default()
            .with_max_sessions(usize::from(s.max_sessions % 8))
            .with_follow_up_window(s.follow_up_window.get())
            .with_restoration_window(s.restoration_window.get())
            .with_registration_per_ue(s.registration_per_ue);
        Tracker {
            t: StateTracker::new(config),
            config,
            model: BTreeMap::new(),
            stamp: 0,
            evicted: 0,
        }
    }

    fn touch(&mut self, s: u8) -> &mut ModelSession {
        let stamp = self.stamp;
        self.stamp += 1;
        if !self.model.contains_key(&s) {
            while self.model.len() >= self.config.max_sessions.max(1) {
                let oldest = *self
                    .model
                    .iter()
                    .min_by_key(|(_, e)| e.stamp)
                    .expect("a full table has a session")
                    .0;
                self.model.remove(&oldest);
                self.evicted += 1;
            }
        }
        let e = self.model.entry(s).or_insert(ModelSession {
            ue: None,
            peer: None,
            established: false,
            follow: None,
            restoring: None,
            stamp,
        });
        e.stamp = stamp;
        e
    }

    fn sessions_of(&self, ue: u8) -> u32 {
        self.model
            .values()
            .filter(|e| e.established && e.ue == Some(ue))
            .count() as u32
    }

    fn expected_state(&self, session: Option<u8>, ue: Option<u8>, now: Instant) -> RequestState {
        let entry = session.and_then(|s| self.model.get(&s));
        let ue = ue.or(entry.and_then(|e| e.ue));
        let established = entry.is_some_and(|e| e.established);
        let n = ue.map_or(0, |u| self.sessions_of(u));
        let registered = if self.config.registration_per_ue {
            n > 0
        } else {
            established
        };
        let live = |t: Option<Instant>| t.is_some_and(|t| now < t);
        RequestState {
            registration: registered.then_some(Registration::Registered),
            follows_admitted: entry.is_some_and(|e| live(e.follow)).then_some(true),
            additional_session: (session.is_some()
                && !established
                && n.saturating_sub(u32::from(established)) > 0)
                .then_some(true),
            restoration: entry.is_some_and(|e| live(e.restoring)).then_some(true),
            releases_resources: None,
        }
    }

    /// Run one event at `now` (already moved by the event's `When`).
    pub(crate) fn event(&mut self, e: &TrackEvent, now: Instant, classifier: &Classifier) {
        match e {
            TrackEvent::FirstStep(s, _) => {
                let s = s % 16;
                self.t.on_first_step_succeeded(s, now);
                let until = now.checked_add(self.config.follow_up_window).or(Some(now));
                self.touch(s).follow = until;
            }
            TrackEvent::Complete(s) => {
                let s = s % 16;
                self.t.on_procedure_complete(&s);
                if let Some(e) = self.model.get_mut(&s) {
                    e.follow = None;
                }
            }
            TrackEvent::Established {
                session, ue, peer, ..
            } => {
                let (s, ue, peer) = (session % 16, ue.map(|u| u % 4), peer.map(|p| p % 3));
                self.t.on_established(s, ue, peer, now);
                let e = self.touch(s);
                e.ue = ue;
                e.peer = peer;
                e.established = true;
                e.restoring = None;
            }
            TrackEvent::Released(s) => {
                let s = s % 16;
                self.t.on_released(&s);
                self.model.remove(&s);
            }
            TrackEvent::PeerRestart(p, _) => {
                let p = p % 3;
                self.t.on_peer_restart(&p, now);
                let until = now
                    .checked_add(self.config.restoration_window)
                    .or(Some(now));
                for e in self.model.values_mut() {
                    if e.established && e.peer == Some(p) {
                        e.established = false;
                        e.restoring = until;
                        e.follow = None;
                    }
                }
            }
            TrackEvent::Prune(_) => {
                self.t.prune(now);
                let live = |t: Option<Instant>| t.is_some_and(|t| now < t);
                self.model
                    .retain(|_, e| e.established || live(e.follow) || live(e.restoring));
            }
            TrackEvent::State {
                session,
                ue,
                request,
                ..
            } => {
                let (s, u) = (session.map(|s| s % 16), ue.map(|u| u % 4));
                let got = self.t.state(s.as_ref(), u.as_ref(), now);
                assert_eq!(got, self.expected_state(s, u, now), "tracked state");
                assert_eq!(got.releases_resources, None);
                // The caller's facts override the tracked ones, field by field.
                let merged = request.state.state().or(got);
                classify(classifier, request, Some(merged));
            }
        }
        self.check();
    }

    fn check(&self) {
        assert!(
            self.t.len() <= self.config.max_sessions.max(1),
            "tracker bound"
        );
        assert_eq!(self.t.len(), self.model.len(), "tracked sessions");
        assert_eq!(self.t.is_empty(), self.model.is_empty());
        assert_eq!(self.t.stats().evicted, self.evicted, "evictions");
        for u in 0..4 {
            assert_eq!(
                self.t.sessions_of(&u),
                self.sessions_of(u),
                "sessions of UE {u}"
            );
        }
    }
}

/// The instant of a tracker event.
pub(crate) fn when_of(e: &TrackEvent) -> Option<When> {
    match e {
        TrackEvent::FirstStep(_, w)
        | TrackEvent::PeerRestart(_, w)
        | TrackEvent::Prune(w)
        | TrackEvent::Established { when: w, .. }
        | TrackEvent::State { when: w, .. } => Some(*w),
        TrackEvent::Complete(_) | TrackEvent::Released(_) => None,
    }
}
