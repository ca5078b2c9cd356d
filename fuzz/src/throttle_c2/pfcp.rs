//! The PFCP classifier's model: the documented rule table (the QCI / 5QI table included),
//! the configuration of a `ClassifierSpec`, and the check of a classification against the
//! model.

use std::borrow::Cow;

use pfcp_throttle::classify::{
    Adjustment, AdjustmentSet, Adjustments, ArpLevels, QosIds, QosPriorities, QosRange,
    Registration, RequestState, Rule, Snssai,
};
use pfcp_throttle::{Classifier, ClassifierConfig, Procedure, RequestContext};

use super::{ClassifierSpec, ContextSpecV2, DnnSpec, SnssaiSpec};

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
