//! Unit tests of the receiving end, one rule each, named after the clause they check.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use pfcp_wire::ie::{OverloadControlInformation, Timer};

use super::*;
use pfcp_test_support::ies::oci;

fn secs(s: u64) -> Timer {
    Timer::from_duration(Duration::from_secs(s)).unwrap()
}

fn setup() -> (OverloadTable, OciOrigin, IpAddr, NodeKey, Instant) {
    let node = NodeKey::fqdn("upf1.example.net");
    let ip: IpAddr = Ipv4Addr::new(192, 0, 2, 1).into();
    (
        OverloadTable::default(),
        OciOrigin::new(node.clone(), Some(ip)),
        ip,
        node,
        crate::test_now(),
    )
}

#[test]
fn clause_6_2_4_3_2_newer_sequence_replaces_and_restarts_validity() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(1, 20, secs(60), false), now);
    let later = now + Duration::from_secs(30);
    t.handle_oci(&o, &oci(2, 50, secs(60), false), later);
    assert_eq!(t.reduction(Some(ip), &node, later), 50);
    assert_eq!(t.poll_timeout(), Some(later + Duration::from_secs(60)));
}

#[test]
fn clause_6_2_4_3_2_note_1_same_sequence_does_not_restart_validity() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(7, 20, secs(60), false), now);
    let out = t.handle_oci(
        &o,
        &oci(7, 20, secs(60), false),
        now + Duration::from_secs(50),
    );
    assert!(matches!(
        out,
        OciOutcome::Ignored {
            reason: IgnoreReason::Duplicate,
            ..
        }
    ));
    assert_eq!(t.poll_timeout(), Some(now + Duration::from_secs(60)));
    t.handle_timeout(now + Duration::from_secs(60));
    assert_eq!(
        t.reduction(Some(ip), &node, now + Duration::from_secs(61)),
        0
    );
}

#[test]
fn clause_6_2_4_3_2_older_sequence_is_stale_while_valid() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(10, 30, secs(60), false), now);
    let out = t.handle_oci(&o, &oci(9, 90, secs(60), false), now);
    assert!(matches!(
        out,
        OciOutcome::Ignored {
            reason: IgnoreReason::Stale {
                stored: 10,
                received: 9
            },
            ..
        }
    ));
    assert_eq!(t.reduction(Some(ip), &node, now), 30);
}

#[test]
fn clause_6_2_4_3_2_any_sequence_accepted_after_expiry() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(10, 30, secs(10), false), now);
    let later = now + Duration::from_secs(11);
    // Even before handle_timeout ran, an expired entry does not block an older number.
    t.handle_oci(&o, &oci(3, 60, secs(10), false), later);
    assert_eq!(t.reduction(Some(ip), &node, later), 60);
}

/// Clause 6.2.4.3.2 with a UP function that fills the number from its clock: across the
/// 32-bit wrap the numbers after it are newer, and a late retransmission of one from before it
/// is older. Here the overload ended (metric 0) just after the wrap; a retransmitted response
/// of the storm, carrying 25 % under a pre-wrap number, must not throttle the CP again.
#[test]
fn clause_6_2_4_3_2_a_late_pre_wrap_oci_after_the_wrap_is_ignored() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(u32::MAX - 1, 25, secs(60), false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 25);
    // Newer across the wrap: applied.
    t.handle_oci(&o, &oci(2, 0, secs(60), false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 0);
    let late = t.handle_oci(&o, &oci(u32::MAX - 1, 25, secs(60), false), now);
    assert_eq!(
        late,
        OciOutcome::Ignored {
            scope: Some(Scope::Entity(ip)),
            reason: IgnoreReason::Stale {
                stored: 2,
                received: u32::MAX - 1
            }
        }
    );
    assert_eq!(t.reduction(Some(ip), &node, now), 0);
}

/// Clause 6.2.4.3.2: a UP function whose counter started again must be "processed". A number
/// further behind than the reset window is a reset (reported as an event); one within it is a
/// late retransmission.
#[test]
fn clause_6_2_4_3_2_a_restarted_counter_is_processed() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(50_000, 30, secs(60), false), now);
    while t.poll_event().is_some() {}
    // Behind by 4096 (the default window): a retransmission.
    t.handle_oci(&o, &oci(50_000 - 4096, 60, secs(60), false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 30);
    while t.poll_event().is_some() {}
    // Behind by more: the counter restarted.
    let out = t.handle_oci(&o, &oci(1, 70, secs(60), false), now);
    assert!(matches!(out, OciOutcome::Applied { metric: 70, .. }));
    assert_eq!(t.reduction(Some(ip), &node, now), 70);
    assert_eq!(
        t.poll_event(),
        Some(OverloadEvent::SequenceReset {
            scope: Scope::Entity(ip),
            stored: 50_000,
            received: 1
        })
    );
    // From there the new count goes on as usual.
    t.handle_oci(&o, &oci(2, 20, secs(60), false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 20);
}

/// A restart closer than the window is told by the UP function's Recovery Time Stamp: the node
/// that sees it change flushes the peer ([`OverloadTable::reset_peer`]), and the lower number is
/// then accepted.
#[test]
fn peer_reset_accepts_a_restarted_counter() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(1000, 30, secs(60), false), now);
    t.handle_oci(&o, &oci(1000, 30, secs(60), true), now);
    // Before the reset, 1 is a late number (behind by 999).
    t.handle_oci(&o, &oci(1, 70, secs(60), false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 30);
    t.reset_peer(&node);
    assert!(t.is_empty());
    t.handle_oci(&o, &oci(1, 70, secs(60), false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 70);
}

#[test]
fn clause_8_2_35_stopped_timer_is_already_expired() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(1, 50, secs(60), false), now);
    t.handle_oci(&o, &oci(2, 50, Timer::STOPPED, false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 0);
    assert!(t.is_empty());
}

#[test]
fn clause_8_2_35_infinite_timer_never_expires() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(1, 25, Timer::INFINITE, false), now);
    assert_eq!(t.poll_timeout(), None);
    let much_later = now + Duration::from_secs(10_000_000);
    t.handle_timeout(much_later);
    assert_eq!(t.reduction(Some(ip), &node, much_later), 25);
}

#[test]
fn clause_6_2_4_3_2_metric_zero_ends_overload_but_absence_does_not() {
    let (mut t, o, ip, node, now) = setup();
    let b = pfcp_wire::owned::parse_hex(concat!(
        "23350011000000000000000100000100", // header: S=1, MP=1, SEID 1, seq 1
        "0013000101",                       // Cause 1
    ))
    .unwrap();
    t.handle_oci(&o, &oci(1, 50, secs(60), false), now);
    // A Session Deletion Response without OCI changes nothing.
    let msg = pfcp_wire::Message::decode(&b).unwrap();
    assert_eq!(t.handle_message(&o, &msg, now), None);
    assert_eq!(t.reduction(Some(ip), &node, now), 50);
    t.handle_oci(&o, &oci(2, 0, secs(60), false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 0);
    // The zero entry stays until its validity ends, so a stale non-zero OCI cannot re-arm.
    t.handle_oci(&o, &oci(1, 50, secs(60), false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 0);
}

#[test]
fn clause_8_2_34_metric_above_100_is_zero() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(1, 200, secs(60), false), now);
    assert_eq!(t.reduction(Some(ip), &node, now), 0);
}

#[test]
fn clause_8_2_76_aoci_scopes_to_node_and_the_larger_reduction_applies() {
    let (mut t, o, ip, node, now) = setup();
    t.handle_oci(&o, &oci(1, 20, secs(60), false), now);
    assert_eq!(t.get(&Scope::Entity(ip)).map(|e| e.metric), Some(20));
    t.handle_oci(&o, &oci(1, 60, secs(60), true), now);
    assert_eq!(
        t.get(&Scope::Node(node.clone())).map(|e| e.metric),
        Some(60)
    );
    assert_eq!(t.reduction(Some(ip), &node, now), 60);
    // Another entity of the same node gets the node-wide reduction only.
    let other: IpAddr = Ipv4Addr::new(192, 0, 2, 2).into();
    assert_eq!(t.reduction(Some(other), &node, now), 60);
    // A node without state: none.
    assert_eq!(t.reduction(Some(other), &NodeKey::fqdn("upf2"), now), 0);
}

#[test]
fn clause_6_2_4_3_1_rejected_establishment_without_f_seid_falls_back_to_node() {
    let (mut t, _, _, node, now) = setup();
    let o = OciOrigin::new(node.clone(), None);
    t.handle_oci(&o, &oci(1, 40, secs(60), false), now);
    assert_eq!(t.reduction(None, &node, now), 40);
}

#[test]
fn clause_7_2_3_2_malformed_oci_is_ignored_and_reported() {
    let (mut t, o, ip, node, now) = setup();
    // Session Establishment Response (S=1, seq 1), Node ID, Cause 1, OCI without Timer.
    let hex = "2333002b000000000000000100000100\
               003c000500c0000201\
               0013000101\
               0036000d0034000400000005003500011e";
    let b = pfcp_wire::owned::parse_hex(hex).unwrap();
    let msg = pfcp_wire::Message::decode(&b).unwrap();
    msg.validate().unwrap();
    let out = t.handle_message(&o, &msg, now);
    assert!(matches!(
        out,
        Some(OciOutcome::Ignored {
            reason: IgnoreReason::Malformed(_),
            ..
        })
    ));
    assert_eq!(t.reduction(Some(ip), &node, now), 0);
    assert!(matches!(t.poll_event(), Some(OverloadEvent::Oci(_))));
}

#[test]
fn bounded_table_evicts_soonest_expiring() {
    let (_, _, _, node, now) = setup();
    let mut t = OverloadTable::new(OverloadConfig {
        max_entries: 2,
        ..OverloadConfig::default()
    });
    let ip = |n| IpAddr::from(Ipv4Addr::new(10, 0, 0, n));
    let o = |n| OciOrigin::new(node.clone(), Some(ip(n)));
    t.handle_oci(&o(1), &oci(1, 10, secs(30), false), now);
    t.handle_oci(&o(2), &oci(1, 10, secs(60), false), now);
    t.handle_oci(&o(3), &oci(1, 10, secs(90), false), now);
    assert_eq!(t.len(), 2);
    assert!(t.get(&Scope::Entity(ip(1))).is_none());
    // Full of infinite entries: a new scope is refused.
    let mut t = OverloadTable::new(OverloadConfig {
        max_entries: 1,
        ..OverloadConfig::default()
    });
    t.handle_oci(&o(1), &oci(1, 10, Timer::INFINITE, false), now);
    let out = t.handle_oci(&o(2), &oci(1, 10, secs(60), false), now);
    assert!(matches!(
        out,
        OciOutcome::Ignored {
            reason: IgnoreReason::TableFull,
            ..
        }
    ));
}

#[test]
fn clause_6_2_4_3_2_1_note_1_the_number_of_an_expired_oci_does_not_start_a_new_period() {
    let now = crate::test_now();
    let mut t = OverloadTable::default();
    let origin = OciOrigin::new(NodeKey::fqdn("upf1.example.net"), None);
    let oci = |seq: u32| OverloadControlInformation {
        sequence_number: pfcp_wire::ie::ControlSequenceNumber(seq),
        metric: pfcp_wire::ie::Metric::from_raw(40),
        period_of_validity: pfcp_wire::ie::Timer::from_duration(std::time::Duration::from_secs(2))
            .unwrap(),
        flags: Some(pfcp_wire::ie::OciFlags::AOCI),
    };
    let node = NodeKey::fqdn("upf1.example.net");
    assert!(matches!(
        t.handle_oci(&origin, &oci(5), now),
        OciOutcome::Applied { .. }
    ));
    // The validity runs out.
    let later = now + std::time::Duration::from_secs(3);
    t.handle_timeout(later);
    assert_eq!(t.reduction(None, &node, later), 0);
    // A late copy of the same OCI (a retransmission): ignored, the overload stays ended.
    assert!(matches!(
        t.handle_oci(&origin, &oci(5), later),
        OciOutcome::Ignored {
            reason: IgnoreReason::Expired,
            ..
        }
    ));
    assert_eq!(t.reduction(None, &node, later), 0);
    // Also before the timer is handled, once the validity has ended.
    let mut u = OverloadTable::default();
    u.handle_oci(&origin, &oci(9), now);
    assert!(matches!(
        u.handle_oci(&origin, &oci(9), later),
        OciOutcome::Ignored {
            reason: IgnoreReason::Expired,
            ..
        }
    ));
    // A new number starts a new period.
    assert!(matches!(
        t.handle_oci(&origin, &oci(6), later),
        OciOutcome::Applied { .. }
    ));
    assert_eq!(t.reduction(None, &node, later), 40);
    // After a reset (a restart), the old number may come again.
    t.handle_timeout(later + std::time::Duration::from_secs(3));
    t.reset_peer(&node);
    let again = later + std::time::Duration::from_secs(4);
    assert!(matches!(
        t.handle_oci(&origin, &oci(6), again),
        OciOutcome::Applied { .. }
    ));
}

#[test]
fn clause_6_2_4_3_3_a_session_message_confirms_the_node_state_a_heartbeat_does_not() {
    let (mut t, o, _, node, now) = setup();
    assert_eq!(t.confirmed(&node), None);
    t.handle_oci(&o, &oci(1, 60, secs(60), true), now);
    assert_eq!(t.confirmed(&node), Some(now));
    let later = now + Duration::from_millis(500);
    // Heartbeat Response (type 2, no SEID, seq 1) with a Recovery Time Stamp: may not carry
    // OCI (Table 7.3-1), so it says nothing of the overload state.
    let b = pfcp_wire::owned::parse_hex("2002000c000001000060000400000001").unwrap();
    let heartbeat = pfcp_wire::Message::decode(&b).unwrap();
    assert_eq!(t.handle_message(&o, &heartbeat, later), None);
    assert_eq!(t.confirmed(&node), Some(now));
    // A Session Modification Response (type 53) without OCI: the state still holds.
    let b = pfcp_wire::owned::parse_hex(concat!(
        "23350011000000000000000100000100", // header: S=1, MP=1, SEID 1, seq 1
        "0013000101",                       // Cause 1
    ))
    .unwrap();
    let response = pfcp_wire::Message::decode(&b).unwrap();
    assert_eq!(t.handle_message(&o, &response, later), None);
    assert_eq!(t.confirmed(&node), Some(later));
    assert_eq!(t.reduction(None, &node, later), 60);
    // Confirmations never move back in time.
    t.confirm(&node, now);
    assert_eq!(t.confirmed(&node), Some(later));
    // An entity-scoped OCI alone leaves the node without a node-scoped state to confirm.
    let other = NodeKey::fqdn("upf2.example.net");
    let o2 = OciOrigin::new(other.clone(), Some(Ipv4Addr::new(192, 0, 2, 9).into()));
    t.handle_oci(&o2, &oci(1, 60, secs(60), false), now);
    assert_eq!(t.confirmed(&other), None);
}
