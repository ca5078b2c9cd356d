//! The SWx table's half of the classifier checks: a SWx request classified and checked
//! against the documented table.

use pfcp_throttle::classify::{Registration, Rule, ServerAssignmentType};
use pfcp_throttle::{SwxClassifier, SwxCommand, SwxRequest};

use super::pfcp::{fired_of, step_of};
use super::SwxSpec;

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
