//! Property tests of the receiving end of overload control (TS 29.244 clause 6.2.4): the
//! CP-side `OverloadTable` under random OCI arrivals, time advances, `handle_timeout` and
//! `reset_peer` (`support::rx::run_rx`), checked after every event: the stored sequence number
//! never goes backwards except through a documented reset, `reduction` is the max of the valid
//! entity and node entries and 0 after expiry, a duplicate changes nothing (not even
//! `poll_timeout`), the table stays within `max_entries`, a live entry is evicted only for an
//! OCI that is then stored, and an expired entry behaves as if `handle_timeout` had run.

mod support;

use std::net::IpAddr;
use std::time::Duration;

use pfcp_overload::{IgnoreReason, OciOutcome, OverloadEvent, Scope};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use support::rx::{contribution, lapsed, run_rx, rx_case, RxEvent, RxStep};
use support::{run, Coverage, ModelOrder};

// ------------------------------------------------------------------------------------------
// Receiving end: properties
// ------------------------------------------------------------------------------------------

/// The stored sequence number of a scope never goes backwards except through a documented
/// reset: expiry (the entry is removed, or is replaced once lapsed), `reset_peer`, eviction
/// from a full table, or a number further behind than the reset window (reported as
/// `SequenceReset`). Every other change is a serially newer OCI for that very scope (across the
/// wrap too), and the stored state is exactly what the applied OCI said.
fn check_sequence(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let n = s.u.scopes.len();
    match s.event {
        RxEvent::Advance => prop_assert_eq!(s.before, s.after, "time alone changed the table"),
        RxEvent::Timeout => {
            for i in 0..n {
                match (s.before.entries[i], s.after.entries[i]) {
                    (Some(b), None) => {
                        prop_assert!(
                            lapsed(b.expires, s.now),
                            "{} removed before expiry",
                            s.u.scopes[i]
                        );
                        if s.events_complete {
                            prop_assert!(s
                                .events
                                .contains(&OverloadEvent::Expired(s.u.scopes[i].clone())));
                        }
                        s.cov.hit("expired");
                    }
                    (b, a) => prop_assert_eq!(b, a, "handle_timeout changed {}", s.u.scopes[i]),
                }
            }
        }
        RxEvent::Reset(node) => {
            for i in 0..n {
                let (b, a) = (s.before.entries[i], s.after.entries[i]);
                let owned = b.is_some() && s.owners.get(&s.u.scopes[i]) == Some(node);
                if owned {
                    prop_assert_eq!(a, None, "reset_peer({}) kept {}", node, s.u.scopes[i]);
                    s.cov.hit("reset");
                } else {
                    prop_assert_eq!(b, a, "reset_peer({}) touched {}", node, s.u.scopes[i]);
                }
            }
            if s.events_complete {
                prop_assert!(s.events.contains(&OverloadEvent::Reset(node.clone())));
            }
        }
        RxEvent::Oci {
            scope: target,
            oci,
            outcome,
            ..
        } => {
            let Some(OciOutcome::Applied {
                scope,
                metric,
                expires,
            }) = outcome
            else {
                prop_assert_eq!(s.before, s.after, "an ignored OCI changed the table");
                return Ok(());
            };
            prop_assert_eq!(scope, target);
            let ti = s.u.index(target);
            let seq = oci.sequence_number.0;
            if let Some(b) = s.before.entries[ti] {
                let order = ModelOrder::of(b.sequence_number, seq, s.config.reset_window);
                let was_lapsed = lapsed(b.expires, s.now);
                prop_assert!(
                    order.replaces() || was_lapsed,
                    "{target}: stored {} replaced by {seq} ({order:?}) while valid",
                    b.sequence_number
                );
                match order {
                    ModelOrder::Newer { wrapped: false } => s.cov.hit("replaced by a newer number"),
                    ModelOrder::Newer { wrapped: true } => s.cov.hit("wrapped"),
                    ModelOrder::Reset if !was_lapsed => {
                        if s.events_complete {
                            let event = OverloadEvent::SequenceReset {
                                scope: target.clone(),
                                stored: b.sequence_number,
                                received: seq,
                            };
                            prop_assert!(s.events.contains(&event), "no {:?}", event);
                        }
                        s.cov.hit("counter reset");
                    }
                    ModelOrder::Reset => s.cov.hit("reset number after expiry"),
                    ModelOrder::Older => s.cov.hit("older accepted after expiry"),
                    ModelOrder::Same => s.cov.hit("same accepted after expiry"),
                }
            }
            prop_assert_eq!(*metric, oci.metric.percent());
            prop_assert_eq!(
                *expires,
                oci.period_of_validity.duration().map(|d| s.now + d)
            );
            let new_lapsed = lapsed(*expires, s.now);
            let want = (!new_lapsed).then_some((seq, *metric, *expires));
            prop_assert_eq!(
                s.after.entries[ti].map(|e| (e.sequence_number, e.metric, e.expires)),
                want,
                "{} not stored as applied",
                target
            );
            // Other scopes: an entry lapsed by now may go (a lapsed OCI triggers expiry), and
            // one entry, the soonest to expire, may be evicted to make room; nothing else.
            let soonest = s
                .before
                .entries
                .iter()
                .flatten()
                .filter_map(|e| e.expires)
                .min();
            let mut evicted = 0;
            for i in (0..n).filter(|i| *i != ti) {
                match (s.before.entries[i], s.after.entries[i]) {
                    (Some(b), None) if new_lapsed && lapsed(b.expires, s.now) => {
                        s.cov.hit("expired")
                    }
                    (Some(b), None) => {
                        evicted += 1;
                        prop_assert!(
                            s.before.entries[ti].is_none() && s.before.len >= s.config.max_entries,
                            "{} evicted though {} had room",
                            s.u.scopes[i],
                            target
                        );
                        prop_assert!(
                            b.expires.is_some() && b.expires == soonest,
                            "evicted a later one"
                        );
                        if s.events_complete {
                            prop_assert!(s
                                .events
                                .contains(&OverloadEvent::Evicted(s.u.scopes[i].clone())));
                        }
                        s.cov.hit("evicted");
                    }
                    (b, a) => {
                        prop_assert_eq!(b, a, "an OCI for {} changed {}", target, s.u.scopes[i])
                    }
                }
            }
            prop_assert!(evicted <= 1, "{} entries evicted for one OCI", evicted);
        }
    }
    Ok(())
}

#[test]
fn stored_sequence_never_goes_backwards_except_through_a_documented_reset() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_sequence));
    cov.require(
        cases,
        &[
            "replaced by a newer number",
            "wrapped",
            "counter reset",
            "older accepted after expiry",
            "expired",
            "reset",
            "evicted",
        ],
    );
}

/// Instants (relative to the current one) at which `reduction` is queried.
const QUERY_OFFSETS: [Duration; 5] = [
    Duration::ZERO,
    Duration::from_millis(1),
    Duration::from_secs(2),
    Duration::from_secs(61),
    Duration::from_secs(3 * 3600),
];

/// `reduction` is always the larger of the entity's and the node's entries valid at the
/// instant asked about (whatever that instant), and after the expiry instant of the applied
/// OCI the scope contributes 0; once `handle_timeout` ran at or after that instant, the entry
/// is gone.
fn check_reduction(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let entity_entry =
        |ip: Option<IpAddr>| ip.and_then(|ip| s.after.entries[s.u.index(&Scope::Entity(ip))]);
    let node_entry = |k: usize| {
        s.after
            .entries
            .get(s.u.entities.len() + k)
            .copied()
            .flatten()
    };
    let entities = std::iter::once(None).chain(s.u.entities.iter().copied().map(Some));
    for entity in entities {
        // Every node under its own spelling and an alias, and a node without any state.
        let nodes = (0..s.u.nodes.len())
            .flat_map(|k| [(&s.u.nodes[k], Some(k)), (&s.u.aliases[k], Some(k))])
            .chain([(&s.u.ghost, None)]);
        for (key, k) in nodes {
            for dt in QUERY_OFFSETS {
                let t = s.now + dt;
                let expected = contribution(entity_entry(entity), t)
                    .max(k.map_or(0, |k| contribution(node_entry(k), t)));
                let got = s.table.reduction(entity, key, t);
                prop_assert_eq!(
                    got,
                    expected,
                    "reduction({:?}, {}, now+{:?})",
                    entity,
                    key,
                    dt
                );
                if got > 0 {
                    s.cov.hit("non-zero reduction");
                }
            }
        }
    }
    for (i, scope) in s.u.scopes.iter().enumerate() {
        let Some(Some(t)) = s.applied.get(scope) else {
            continue;
        };
        if *t > s.now {
            continue;
        }
        let r = match scope {
            Scope::Entity(ip) => s.table.reduction(Some(*ip), &s.u.ghost, s.now),
            Scope::Node(node) => s.table.reduction(None, node, s.now),
        };
        prop_assert_eq!(r, 0, "{} still reduces after its expiry", scope);
        s.cov.hit("past the expiry instant");
        if s.last_timeout.is_some_and(|lt| lt >= *t) {
            prop_assert_eq!(
                s.after.entries[i],
                None,
                "{} kept after handle_timeout",
                scope
            );
            s.cov.hit("removed by handle_timeout");
        }
    }
    if matches!(s.event, RxEvent::Timeout) {
        for e in s.after.entries.iter().flatten() {
            prop_assert!(
                !lapsed(e.expires, s.now),
                "an expired entry survived handle_timeout"
            );
        }
        if let Some(t) = s.after.poll {
            prop_assert!(t > s.now, "poll_timeout not after handle_timeout's instant");
        }
    }
    Ok(())
}

#[test]
fn reduction_is_zero_after_expiry_and_always_the_max_of_valid_entity_and_node_entries() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_reduction));
    cov.require(
        cases,
        &[
            "non-zero reduction",
            "past the expiry instant",
            "removed by handle_timeout",
        ],
    );
}

/// A duplicate (same sequence number as the stored, valid OCI of the scope) is ignored as
/// such whatever else it carries, and changes neither `poll_timeout` nor anything stored.
fn check_duplicate(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let RxEvent::Oci {
        scope,
        oci,
        carrier,
        outcome,
        ..
    } = s.event
    else {
        return Ok(());
    };
    let eligible = carrier.is_none_or(|c| c.may_carry_oci());
    let stored = s.before.entries[s.u.index(scope)];
    let seq = oci.sequence_number.0;
    let duplicate = stored.is_some_and(|b| b.sequence_number == seq && !lapsed(b.expires, s.now));
    let said_duplicate = matches!(
        outcome,
        Some(OciOutcome::Ignored {
            reason: IgnoreReason::Duplicate,
            ..
        })
    );
    prop_assert_eq!(said_duplicate, eligible && duplicate, "{:?}", outcome);
    if said_duplicate {
        prop_assert_eq!(
            s.after.poll,
            s.before.poll,
            "a duplicate moved poll_timeout"
        );
        prop_assert_eq!(s.after, s.before, "a duplicate changed the table");
        s.cov.hit("duplicate");
        let differs = stored.is_some_and(|b| {
            b.metric != oci.metric.percent()
                || b.expires != oci.period_of_validity.duration().map(|d| s.now + d)
        });
        if differs {
            s.cov.hit("duplicate with other content");
        }
    }
    Ok(())
}

#[test]
fn duplicate_sequence_number_never_changes_poll_timeout() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_duplicate));
    cov.require(cases, &["duplicate", "duplicate with other content"]);
}

/// The table never holds more than `max_entries` scopes (nor the event queue more than
/// `max_events`), and refuses an OCI only when it is full of entries that never expire.
fn check_bounded(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    prop_assert!(
        s.after.len <= s.config.max_entries,
        "{} > {}",
        s.after.len,
        s.config.max_entries
    );
    prop_assert_eq!(s.table.len(), s.after.entries.iter().flatten().count());
    prop_assert!(s.events.len() <= s.config.max_events);
    if s.after.len == s.config.max_entries && s.config.max_entries > 0 {
        s.cov.hit("full");
    }
    if let RxEvent::Oci {
        scope,
        outcome:
            Some(OciOutcome::Ignored {
                reason: IgnoreReason::TableFull,
                ..
            }),
        ..
    } = s.event
    {
        prop_assert!(s.before.len >= s.config.max_entries);
        prop_assert!(s.before.entries[s.u.index(scope)].is_none());
        prop_assert!(
            s.before
                .entries
                .iter()
                .flatten()
                .all(|e| e.expires.is_none()),
            "refused while an entry could be evicted"
        );
        s.cov.hit("refused: full of infinite entries");
    }
    Ok(())
}

#[test]
fn table_never_exceeds_max_entries() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_bounded));
    cov.require(cases, &["full", "refused: full of infinite entries"]);
}

/// A valid entry is evicted only to make room for the incoming OCI, which is then stored: an
/// OCI that is already expired on arrival (a stopped timer) must not push out live state.
fn check_eviction_needed(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let RxEvent::Oci { scope, .. } = s.event else {
        return Ok(());
    };
    let ti = s.u.index(scope);
    let live_evicted = (0..s.u.scopes.len()).filter(|i| *i != ti).any(|i| {
        matches!((s.before.entries[i], s.after.entries[i]), (Some(b), None) if !lapsed(b.expires, s.now))
    });
    if live_evicted {
        prop_assert!(
            s.after.entries[ti].is_some(),
            "a live entry was evicted for {} which was not stored",
            scope
        );
        s.cov.hit("live entry evicted");
    }
    Ok(())
}

#[test]
fn a_live_entry_is_evicted_only_to_make_room_for_a_stored_one() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| {
        run_rx(&case, &cov, &check_eviction_needed)
    });
    cov.require(cases, &["live entry evicted"]);
}

/// Expiry is lazy: an entry whose validity ended behaves exactly like a removed one, whether
/// or not `handle_timeout` has run yet (same outcome, same valid state).
fn check_lazy_expiry(s: &RxStep<'_>) -> Result<(), TestCaseError> {
    let RxEvent::Oci { outcome, twin, .. } = s.event else {
        return Ok(());
    };
    let (twin_outcome, twin_after) = &**twin;
    prop_assert_eq!(outcome, twin_outcome);
    prop_assert_eq!(s.after.live(s.now), twin_after.live(s.now));
    if s.before
        .entries
        .iter()
        .flatten()
        .any(|e| lapsed(e.expires, s.now))
    {
        s.cov.hit("lapsed entry present");
    }
    Ok(())
}

#[test]
fn an_expired_entry_behaves_as_if_handle_timeout_had_run() {
    let cov = Coverage::default();
    let cases = run(rx_case(), |case| run_rx(&case, &cov, &check_lazy_expiry));
    cov.require(cases, &["lapsed entry present"]);
}
