//! Regression tests of overload control (TS 29.244 clause 6.2.4): the minimal cases the
//! property tests (`tests/properties_*.rs`) found, each fixed in `src/` and kept here as a
//! named, deterministic test of the `OverloadReporter`, the `OverloadTable`, or both end to
//! end. The property runs keep no failure-persistence files; their failures land here.

mod support;

use std::net::{IpAddr, Ipv4Addr};

use pfcp_overload::{
    Measurement, NodeKey, OciOrigin, OciOutcome, OverloadConfig, OverloadReporter, OverloadTable,
    ReporterConfig,
};
use pfcp_wire::ie::Timer;
use pfcp_wire::{Cause, MessageType};

use pfcp_test_support::ies::oci;
use support::base_instant;

// ------------------------------------------------------------------------------------------
// Regressions: the minimal cases the property tests found, fixed in `src/`.
// ------------------------------------------------------------------------------------------

/// `OverloadReporter::publish_rule`: with `max_metric` above 100, rounding to the step could
/// publish more than 100 (102 with step 6), which every receiver reads as 0 % (clause 8.2.34):
/// the deepest overload would switch throttling off.
#[test]
fn regression_published_metric_never_rounds_above_100() {
    let now = base_instant();
    let c = ReporterConfig::feed_forward()
        .with_capacity(Some(100.0))
        .with_step(6)
        .with_max_metric(102);
    let mut r: OverloadReporter<u8> = OverloadReporter::new(c);
    r.set_peer_ovrl(1, true);
    // Demand 100x capacity wants 99 %, whose nearest multiple of 6 is 102.
    let m = Measurement {
        arrived: 10_000,
        served: 100,
        backlog: 0,
    };
    assert_eq!(r.handle_measurement(&m, now), Some(96));
    let sent = r
        .oci_for(&1, MessageType::SESSION_MODIFICATION_RESPONSE, None, now)
        .unwrap();
    assert_eq!(sent.metric.raw(), 96);
    assert_eq!(sent.metric.percent(), 96);
}

/// `OverloadTable::handle_oci`: in a full table, an OCI already expired on arrival (here a
/// zero-length period, unit "1 minute" with value 0) for a scope not held evicted a live entry
/// to make room, then stored nothing: the other peer's overload state was lost for nothing.
#[test]
fn regression_an_expired_oci_does_not_evict_a_live_entry() {
    let now = base_instant();
    let c = OverloadConfig::default().with_max_entries(1);
    let mut t = OverloadTable::new(c);
    let node = NodeKey::fqdn("upf-a.example.net");
    let (e1, e2): (IpAddr, IpAddr) = (
        Ipv4Addr::new(192, 0, 2, 1).into(),
        Ipv4Addr::new(192, 0, 2, 2).into(),
    );
    t.handle_oci(
        &OciOrigin::new(node.clone(), Some(e1)),
        &oci(1, 40, Timer(0x05), false),
        now,
    );
    let out = t.handle_oci(
        &OciOrigin::new(node.clone(), Some(e2)),
        &oci(1, 70, Timer(0x20), false),
        now,
    );
    assert!(
        matches!(out, OciOutcome::Applied { metric: 70, .. }),
        "{out:?}"
    );
    assert_eq!(t.reduction(Some(e1), &node, now), 40);
    assert_eq!(t.reduction(Some(e2), &node, now), 0);
    assert_eq!(t.len(), 1);
    // The stopped timer likewise.
    let out = t.handle_oci(
        &OciOrigin::new(node.clone(), Some(e2)),
        &oci(2, 70, Timer::STOPPED, false),
        now,
    );
    assert!(matches!(out, OciOutcome::Applied { .. }), "{out:?}");
    assert_eq!(t.reduction(Some(e1), &node, now), 40);
}

/// `OverloadReporter::oci_for`: once a peer had a node-scoped OCI (a rejected Session
/// Establishment Response must carry AOCI=1, clause 8.2.76), a lowered metric or the end of
/// the overload only ever reached its entity scope, so the CP, which applies the larger of the
/// two, kept shedding at the old rate until the validity ran out (for ever with an infinite
/// one). Now the current OCI follows node-scoped once the entity scope has it.
#[test]
fn regression_the_end_of_overload_reaches_the_node_scope_of_a_rejected_establishment() {
    let now = base_instant();
    let c = ReporterConfig::feed_forward().with_capacity(Some(100.0));
    let mut r: OverloadReporter<&str> = OverloadReporter::new(c);
    r.set_peer_ovrl("cp", true);
    let mut cp = OverloadTable::default();
    let upf = NodeKey::fqdn("upf1.example.net");
    let entity: IpAddr = Ipv4Addr::new(192, 0, 2, 1).into();
    let with_fseid = OciOrigin::new(upf.clone(), Some(entity));
    let without = OciOrigin::new(upf.clone(), None);
    let m = |arrived| Measurement {
        arrived,
        served: 100,
        backlog: 0,
    };
    let modify = MessageType::SESSION_MODIFICATION_RESPONSE;
    let establish = MessageType::SESSION_ESTABLISHMENT_RESPONSE;

    assert_eq!(r.handle_measurement(&m(200), now), Some(50));
    let o = r.oci_for(&"cp", modify, None, now).unwrap();
    cp.handle_oci(&with_fseid, &o, now);
    let o = r
        .oci_for(
            &"cp",
            establish,
            Some(Cause::PFCP_ENTITY_IN_CONGESTION),
            now,
        )
        .unwrap();
    assert!(o.aoci());
    cp.handle_oci(&without, &o, now);
    assert_eq!(cp.reduction(Some(entity), &upf, now), 50);

    for _ in 0..3 {
        r.handle_measurement(&m(25), now);
    }
    assert_eq!(r.metric(), 0);
    let first = r.oci_for(&"cp", modify, None, now).unwrap();
    assert!(!first.aoci());
    cp.handle_oci(&with_fseid, &first, now);
    let second = r.oci_for(&"cp", modify, None, now).unwrap();
    assert!(second.aoci(), "the node scope still holds 50 %");
    assert_eq!(second.metric.percent(), 0);
    assert_eq!(second.sequence_number, first.sequence_number);
    cp.handle_oci(&with_fseid, &second, now);
    assert_eq!(cp.reduction(Some(entity), &upf, now), 0);
    // Both scopes have the zero: nothing more to say.
    assert!(r.oci_for(&"cp", modify, None, now).is_none());
}
