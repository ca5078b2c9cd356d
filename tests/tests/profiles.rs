//! UP profiles end to end (TS 29.244 clauses 6.2.3, 6.2.4.2, 6.2.4.3): a CP `Node` against a UP
//! `Node` whose admission runs each `UpProfile`, overloaded five times over; every OCI and LCI
//! the UP sends is decoded from the responses on the wire, and each profile is held to what it
//! says: the scope, where the numbers come from, which messages carry the OCI, where the LCI
//! goes, a count that starts again, no OCI at all.

use std::time::Duration;

use pfcp_e2e::net::{up_key, Net, UpSpec};
use pfcp_node::admission::{LciIn, OciOn, OciScope, OciSequence, UpProfile};
use pfcp_node::{CpConfig, NodeConfig, RequestProfile};
use pfcp_wire::ie::{LoadControlInformation, OverloadControlInformation};
use pfcp_wire::{Cause, MessageType};

/// The UP's Recovery Time Stamp in [`Net::new`] (its first UP): the NTP seconds its clock's
/// numbers count from.
const UP_RTS: u32 = 1000;

/// One response of the UP, as the CP received it.
#[derive(Debug, Clone, Copy)]
struct Seen {
    at: Duration,
    message_type: MessageType,
    cause: Option<Cause>,
    oci: Option<OverloadControlInformation>,
    lci: Option<LoadControlInformation>,
}

/// A UP of 200 session requests per second with `profile` and Heartbeats every 250 ms; a CP
/// that offers an establishment every millisecond (5x) for `secs`, then one every 20 ms
/// (0.25x) for two seconds, on which the end of the overload reaches it. Every session
/// response of the UP, in order.
fn run(profile: UpProfile, secs: u64) -> (Net, Vec<Seen>) {
    let cp = NodeConfig::new(Net::cp_local()).with_cp(CpConfig::default());
    let spec = UpSpec {
        heartbeat: Some(Duration::from_millis(250)),
        service_rate: Some(200.0),
        profile: Some(profile),
        ..UpSpec::default()
    };
    let mut net = Net::new(cp, &[spec]);
    net.delay = Duration::from_millis(1);
    net.associate(0);
    let start = net.now;
    let mut seen = Vec::new();
    let mut read = 0;
    let end = start + Duration::from_secs(secs + 2);
    let storm_end = start + Duration::from_secs(secs);
    let mut seid = 0u64;
    let mut k = 0u64;
    while net.now < end {
        if net.now < storm_end || k % 20 == 0 {
            seid += 1;
            net.establish(0, seid, &RequestProfile::default());
        }
        k += 1;
        net.after(Duration::from_millis(1));
        for (_, result) in &net.outcomes[read..] {
            let Ok(response) = result else { continue };
            if response.is_local() {
                continue;
            }
            let msg = response.message().unwrap();
            msg.validate().unwrap();
            if !msg.message_type().may_carry_oci() {
                // The Association Setup Response.
                continue;
            }
            seen.push(Seen {
                at: net.now.duration_since(start),
                message_type: msg.message_type(),
                cause: msg.cause().unwrap(),
                oci: msg.overload_control_information().unwrap(),
                lci: msg.load_control_information().unwrap(),
            });
        }
        read = net.outcomes.len();
    }
    (net, seen)
}

fn ocis(seen: &[Seen]) -> Vec<OverloadControlInformation> {
    seen.iter().filter_map(|s| s.oci).collect()
}

fn refused(s: &Seen) -> bool {
    s.cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION)
}

/// This toolkit's UP: node-scoped OCIs from a counter, on the 3-point grid; a new number only
/// with a new metric (no refresh is due within the run), each one newer; the same OCI again
/// only on refusals (the provisional OCI in force).
#[test]
fn the_toolkits_profile() {
    let (_, seen) = run(UpProfile::default(), 2);
    let all = ocis(&seen);
    assert!(all.len() > 5, "{}", all.len());
    assert!(all.iter().all(OverloadControlInformation::aoci));
    assert!(all.iter().all(|o| o.metric.percent() % 3 == 0));
    let mut last: Option<OverloadControlInformation> = None;
    for s in seen.iter().filter(|s| s.oci.is_some()) {
        let o = s.oci.unwrap();
        if let Some(l) = last {
            if o.sequence_number == l.sequence_number {
                assert_eq!(o, l);
                assert!(refused(s), "a repeat on an accepted answer: {s:?}");
            } else {
                assert!(o.sequence_number.0 > l.sequence_number.0, "{l:?} -> {o:?}");
                assert!(
                    o.metric.percent().abs_diff(l.metric.percent()) >= 3,
                    "{l:?} -> {o:?}"
                );
            }
        }
        last = Some(o);
    }
    // Numbers from the counter: from 1, a few dozen in the run.
    assert!(all.iter().all(|o| (1..1000).contains(&o.sequence_number.0)));
    // The overload ended and the CP was told.
    assert_eq!(last.unwrap().metric.percent(), 0);
}

/// The spec's default scope: no AOCI, but on a rejected Session Establishment Response, which
/// has no UP F-SEID (8.2.76).
#[test]
fn spec_default_is_entity_scoped_but_on_rejected_establishments() {
    let (_, seen) = run(UpProfile::preset("spec-default").unwrap(), 2);
    let mut entity = 0;
    for s in seen.iter().filter(|s| s.oci.is_some()) {
        let o = s.oci.unwrap();
        let rejected_establishment = s.message_type == MessageType::SESSION_ESTABLISHMENT_RESPONSE
            && s.cause.is_some_and(|c| c.is_acceptance() == Some(false));
        if rejected_establishment {
            assert!(o.aoci(), "{s:?}");
        } else if !o.aoci() {
            entity += 1;
        }
    }
    assert!(entity > 0, "no entity-scoped OCI: {seen:?}");
}

/// Numbers from the clock: NTP seconds from the start (the Recovery Time Stamp), never below it,
/// increasing.
#[test]
fn clock_numbers_count_from_the_recovery_time_stamp() {
    let (_, seen) = run(UpProfile::preset("clock").unwrap(), 2);
    let all = ocis(&seen);
    assert!(!all.is_empty());
    for o in &all {
        let n = o.sequence_number.0;
        assert!((UP_RTS..UP_RTS + 200).contains(&n), "{n}");
    }
    assert!(all
        .windows(2)
        .all(|w| w[0].sequence_number.0 <= w[1].sequence_number.0));
}

/// A clock that crosses the 32-bit wrap during the overload: the numbers go from the top of the
/// space to the bottom, and the CP applies each new one (its reduction follows the last OCI).
#[test]
fn clock_near_the_wrap_crosses_it_and_the_cp_follows() {
    let profile = UpProfile::default().with_oci_sequence(OciSequence::ClockNearWrap {
        wrap_in: Duration::from_secs(1),
    });
    let (net, seen) = run(profile, 3);
    let all = ocis(&seen);
    let high = all.iter().filter(|o| o.sequence_number.0 > u32::MAX - 10);
    let low = all.iter().filter(|o| o.sequence_number.0 < 10);
    assert!(high.count() > 0 && low.count() > 0, "{all:?}");
    // The overload ended after the wrap, and the CP took the post-wrap zero.
    assert_eq!(all.last().unwrap().metric.percent(), 0);
    let link = net.cp.up_link(&up_key(0)).unwrap();
    assert_eq!(link.reduction(None, net.now), 0);
}

/// Every eligible answer carries the OCI while the UP is overloaded.
#[test]
fn every_message_puts_the_oci_on_every_answer_while_overloaded() {
    let (_, seen) = run(UpProfile::preset("every-message").unwrap(), 2);
    let first = seen
        .iter()
        .position(|s| s.oci.is_some_and(|o| o.metric.percent() > 0))
        .unwrap();
    let end = seen
        .iter()
        .position(|s| s.oci.is_some_and(|o| o.metric.percent() == 0))
        .unwrap();
    assert!(end > first + 10);
    assert!(seen[first..end].iter().all(|s| s.oci.is_some()), "{seen:?}");
}

/// Only rejections carry the OCI.
#[test]
fn rejections_only_puts_it_on_rejections() {
    let (_, seen) = run(UpProfile::preset("rejections-only").unwrap(), 2);
    let with = seen.iter().filter(|s| s.oci.is_some());
    assert!(with.clone().count() > 0);
    for s in with {
        assert!(
            s.cause.is_some_and(|c| c.is_acceptance() == Some(false)),
            "{s:?}"
        );
    }
}

/// Every n-th eligible message carries it: the 1st, the (n+1)-th, ...
#[test]
fn every_nth_message_carries_it() {
    let profile = UpProfile::default().with_oci_on(OciOn::EveryNth(4));
    let (_, seen) = run(profile, 2);
    let carried: Vec<usize> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.oci.is_some())
        .map(|(k, _)| k)
        .collect();
    assert!(carried.len() > 3);
    assert!(carried.iter().all(|k| k % 4 == 0), "{carried:?}");
}

/// At most one OCI per CP function per period.
#[test]
fn periodic_sends_at_most_one_per_period() {
    let profile = UpProfile::default().with_oci_on(OciOn::Periodic(Duration::from_millis(300)));
    let (_, seen) = run(profile, 2);
    let times: Vec<Duration> = seen
        .iter()
        .filter(|s| s.oci.is_some())
        .map(|s| s.at)
        .collect();
    assert!(times.len() > 2, "{times:?}");
    // Received 1 ms after sending; at least the period apart when sent.
    assert!(
        times
            .windows(2)
            .all(|w| w[1] - w[0] >= Duration::from_millis(299)),
        "{times:?}"
    );
}

/// The LCI only in Heartbeat messages: no response carries it, and the CP reads it from the
/// Heartbeats.
#[test]
fn heartbeat_lci_goes_only_in_heartbeats_and_the_cp_reads_it() {
    let (net, seen) = run(UpProfile::preset("heartbeat-lci").unwrap(), 2);
    assert!(seen.iter().all(|s| s.lci.is_none()));
    let link = net.cp.up_link(&up_key(0)).unwrap();
    assert!(link.load(net.now).is_some());
    // The toolkit's UP puts it on the responses instead.
    let (net, seen) = run(UpProfile::default().with_lci_in(LciIn::Responses), 1);
    assert!(seen.iter().any(|s| s.lci.is_some()));
    assert!(net.cp.up_link(&up_key(0)).unwrap().load(net.now).is_some());
}

/// A count that starts again mid-overload (the Recovery Time Stamp unchanged): the UP's next
/// numbers start from 1 again, below the ones before.
#[test]
fn a_sequence_reset_starts_the_numbers_again() {
    let profile = UpProfile::default().with_sequence_reset_after(Some(Duration::from_millis(800)));
    let (_, seen) = run(profile, 2);
    let before: Vec<u32> = seen
        .iter()
        .filter(|s| s.at < Duration::from_millis(800))
        .filter_map(|s| s.oci.map(|o| o.sequence_number.0))
        .collect();
    let after: Vec<u32> = seen
        .iter()
        .filter(|s| s.at > Duration::from_millis(802))
        .filter_map(|s| s.oci.map(|o| o.sequence_number.0))
        .collect();
    let (Some(&high), Some(&first)) = (before.iter().max(), after.first()) else {
        panic!("{before:?} {after:?}");
    };
    assert!(first < high && first <= 3, "{before:?} -> {after:?}");
}

/// No OCI at all: refusals with Cause 74 alone.
#[test]
fn cause_74_only_sends_no_oci() {
    let (_, seen) = run(UpProfile::preset("cause-74-only").unwrap(), 2);
    assert!(seen.iter().any(refused));
    assert!(seen.iter().all(|s| s.oci.is_none()));
}

/// A CP against an entity- and a node-scoped UP alike: both scopes stop the storm.
#[test]
fn both_scopes_bring_the_arrivals_down() {
    for scope in [OciScope::Entity, OciScope::Node] {
        let (_, seen) = run(UpProfile::default().with_oci_scope(scope), 2);
        let late = seen
            .iter()
            .filter(|s| s.at > Duration::from_millis(1500) && s.at < Duration::from_secs(2))
            .count();
        // 500 offered in that half second; the UP serves 100 of them and the CP sheds the
        // most of the rest.
        assert!(late < 250, "{scope}: {late}");
    }
}

/// Clause 6.2.4.3.2, "prepared to receive (and process)" a smaller number after a restart: a
/// UP function that restarts (a new Recovery Time Stamp) counts its OCI numbers from 1 again,
/// a few dozen below what the CP holds, well within the reset window; the CP learns of the
/// restart (Cause 72, a new association with the new stamp), flushes what it held, and
/// applies the new count's OCIs.
#[test]
fn a_restart_with_a_new_recovery_time_stamp_lets_the_lower_numbers_in() {
    let (mut net, seen) = run(UpProfile::default(), 2);
    let before = ocis(&seen);
    let high = before.iter().map(|o| o.sequence_number.0).max().unwrap();
    assert!(high > 3, "{high}");
    let node = pfcp_overload::Scope::Node(up_key(0));
    let held = net
        .cp
        .up_link(&up_key(0))
        .unwrap()
        .overload()
        .get(&node)
        .unwrap();
    assert_eq!(held.sequence_number, high);
    net.restart_up(0, 2000);
    // A storm on the restarted UP: the first request gets Cause 72, the CP sets the
    // association up again and resets the peer's overload state.
    let start = net.now;
    let mut seid = 1_000_000;
    let mut new = Vec::new();
    let mut read = net.outcomes.len();
    while net.now < start + Duration::from_secs(1) {
        seid += 1;
        net.establish(0, seid, &RequestProfile::default());
        net.after(Duration::from_millis(1));
        for (_, result) in &net.outcomes[read..] {
            let Ok(r) = result else { continue };
            if r.is_local() {
                continue;
            }
            if let Some(o) = r.message().unwrap().overload_control_information().unwrap() {
                new.push(o);
            }
        }
        read = net.outcomes.len();
    }
    let first = new.first().expect("the restarted UP tells its overload");
    assert!(first.sequence_number.0 < high, "{first:?} after {high}");
    let now = net.now;
    let link = net.cp.up_link(&up_key(0)).unwrap();
    let last = new.last().unwrap();
    let held = link.overload().get(&node).unwrap();
    assert_eq!(held.sequence_number, last.sequence_number.0);
    assert_eq!(link.reduction(None, now), last.metric.percent());
}
