//! Property tests of load control (TS 29.244 clause 6.2.3): the UP-side `LoadReporter` under
//! random utilisations, `lci_for` calls and peer changes (published loads differ by at least
//! the step, LCIs only to LOAD peers on 51/53/55/56, once per number, round-tripping), and the
//! CP-side `LoadTable` under random LCIs against a model (sequencing like OCI's, bounded,
//! eviction of the stalest report, `reset_peer`).

mod support;

use std::collections::{HashMap, HashSet};
use std::net::Ipv6Addr;
use std::time::{Duration, Instant};

use pfcp_overload::sequence::DEFAULT_RESET_WINDOW;
use pfcp_overload::{LciOutcome, LoadConfig, LoadReporter, LoadReporterConfig, LoadTable, NodeKey};
use pfcp_wire::ie::{ControlSequenceNumber, LoadControlInformation, Metric};
use pfcp_wire::{Message, MessageType};
use proptest::prelude::*;

use support::rx::{carrier, seq_pick, SeqPick};
use support::up::{msg_type, PEERS};
use support::{base_instant, lci_round_trip, message_with, run, Coverage, ModelOrder, Universe};

// ------------------------------------------------------------------------------------------
// Load control
// ------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum LoadOp {
    Utilisation(f64),
    LciFor { peer: usize, msg_type: u8 },
    SetLoad { peer: usize, load: bool },
    Remove(usize),
}

#[derive(Debug, Clone)]
struct LoadCase {
    step: u8,
    first_sequence: u32,
    max_peers: usize,
    initial: Vec<Option<bool>>,
    ops: Vec<LoadOp>,
}

fn load_case() -> impl Strategy<Value = LoadCase> {
    let utilisation = prop_oneof![
        4 => 0.0f64..=1.0,
        // Jitter around one value: most changes are below the step.
        3 => 0.40f64..0.47,
        1 => 0.0f64..0.04,
        1 => -1.0f64..2.0,
        1 => prop::sample::select(vec![0.0, 1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]),
    ];
    let op = prop_oneof![
        4 => utilisation.prop_map(LoadOp::Utilisation),
        4 => (0..PEERS, msg_type()).prop_map(|(peer, msg_type)| LoadOp::LciFor { peer, msg_type }),
        1 => (0..PEERS, any::<bool>()).prop_map(|(peer, load)| LoadOp::SetLoad { peer, load }),
        1 => (0..PEERS).prop_map(LoadOp::Remove),
    ];
    (
        prop_oneof![3 => 0u8..=20, 1 => any::<u8>()],
        prop_oneof![Just(1u32), any::<u32>(), (u32::MAX - 3)..=u32::MAX],
        prop_oneof![3 => Just(65_536usize), 1 => 0usize..=PEERS],
        prop::collection::vec(prop::option::weighted(0.8, any::<bool>()), PEERS),
        prop::collection::vec(op, 1..80),
    )
        .prop_map(|(step, first_sequence, max_peers, initial, ops)| LoadCase {
            step,
            first_sequence,
            max_peers,
            initial,
            ops,
        })
}

/// `LoadReporter`: consecutive published loads differ by at least the step (the one exception,
/// in the code though not in the module documentation, is a drop to exactly 0, so that an
/// idle UP reports 0), a change of at least the step is always published, every load is within
/// 0..=100, and the sequence number moves by exactly one per publication. `lci_for` gives an
/// LCI only to registered peers with LOAD, only on 51/53/55/56, once per number and
/// association, and it round-trips through the codec.
#[test]
fn load_reporter_published_loads_differ_by_at_least_step() {
    let cov = Coverage::default();
    let cases = run(load_case(), |case| {
        let c = LoadReporterConfig::default()
            .with_step(case.step)
            .with_first_sequence(case.first_sequence)
            .with_max_peers(case.max_peers);
        let step = case.step.max(1);
        let mut r: LoadReporter<usize> = LoadReporter::new(c);
        // peer -> (LOAD, numbers sent in this association)
        let mut shadow: HashMap<usize, (bool, HashSet<u32>)> = HashMap::new();
        let set = |r: &mut LoadReporter<usize>,
                   shadow: &mut HashMap<usize, (bool, HashSet<u32>)>,
                   peer: usize,
                   load: bool| {
            r.set_peer_load(peer, load);
            if let Some(p) = shadow.get_mut(&peer) {
                p.0 = load;
            } else if shadow.len() < case.max_peers {
                shadow.insert(peer, (load, HashSet::new()));
            }
        };
        for (peer, load) in case.initial.iter().enumerate() {
            if let Some(load) = load {
                set(&mut r, &mut shadow, peer, *load);
            }
        }
        let mut seq: Option<u32> = None;
        for op in &case.ops {
            let before = r.load();
            match op {
                LoadOp::Utilisation(u) => {
                    let wanted = (u.clamp(0.0, 1.0) * 100.0).round() as u8;
                    let out = r.handle_utilisation(*u);
                    let after = r.load();
                    prop_assert!(after.is_some());
                    prop_assert!(after.unwrap_or(0) <= 100);
                    match (before, out) {
                        (None, Some(v)) => {
                            prop_assert_eq!(Some(v), after);
                            seq = Some(case.first_sequence);
                        }
                        (Some(p), Some(v)) => {
                            prop_assert_eq!(Some(v), after);
                            prop_assert!(
                                v.abs_diff(p) >= step || (v == 0 && p != 0),
                                "published {} -> {} with step {}",
                                p,
                                v,
                                step
                            );
                            seq = seq.map(|s| s.wrapping_add(1));
                            s_hit(&cov, v.abs_diff(p) < step, "drop to zero under the step");
                            cov.hit("published change");
                        }
                        (Some(p), None) => {
                            prop_assert_eq!(after, Some(p));
                            prop_assert!(
                                wanted.abs_diff(p) < step && !(wanted == 0 && p != 0),
                                "a change {} -> {} of at least the step {} was not published",
                                p,
                                wanted,
                                step
                            );
                            if wanted != p {
                                cov.hit("change under the step suppressed");
                            }
                        }
                        (None, None) => {
                            prop_assert!(false, "the first utilisation was not published")
                        }
                    }
                }
                LoadOp::LciFor { peer, msg_type } => {
                    let t = MessageType(*msg_type);
                    let lci = r.lci_for(peer, t);
                    let p = shadow.get_mut(peer);
                    match (lci, p) {
                        (Some(lci), Some(p)) => {
                            prop_assert!(t.may_carry_oci(), "LCI on {:?}", t);
                            prop_assert!(p.0, "LCI to a peer without LOAD");
                            prop_assert_eq!(lci_round_trip(&lci), lci);
                            prop_assert_eq!(Some(lci.metric.percent()), r.load());
                            prop_assert_eq!(lci.metric.raw(), lci.metric.percent());
                            prop_assert_eq!(Some(lci.sequence_number.0), seq);
                            prop_assert!(p.1.insert(lci.sequence_number.0), "LCI sent twice");
                            cov.hit("LCI emitted");
                        }
                        (Some(_), None) => prop_assert!(false, "LCI to unregistered peer {}", peer),
                        (None, p) => {
                            let owed = t.may_carry_oci()
                                && p.is_some_and(|p| p.0 && seq.is_some_and(|s| !p.1.contains(&s)));
                            prop_assert!(!owed, "peer {} not sent the current LCI", peer);
                        }
                    }
                }
                LoadOp::SetLoad { peer, load } => set(&mut r, &mut shadow, *peer, *load),
                LoadOp::Remove(peer) => {
                    r.remove_peer(peer);
                    shadow.remove(peer);
                }
            }
            if !matches!(op, LoadOp::Utilisation(_)) {
                prop_assert_eq!(r.load(), before, "{:?} changed the load", op);
            }
        }
        Ok(())
    });
    cov.require(
        cases,
        &[
            "published change",
            "change under the step suppressed",
            "LCI emitted",
        ],
    );
}

fn s_hit(cov: &Coverage, cond: bool, what: &'static str) {
    if cond {
        cov.hit(what);
    }
}

#[derive(Debug, Clone)]
enum LtOp {
    Lci {
        node: usize,
        seq: SeqPick,
        metric: u8,
        carrier: Option<u8>,
    },
    Reset(usize),
    Advance(u64),
}

#[derive(Debug, Clone)]
struct LtCase {
    max_entries: usize,
    reset_window: u32,
    ops: Vec<LtOp>,
}

fn lt_case() -> impl Strategy<Value = LtCase> {
    let op = prop_oneof![
        8 => (0..4usize, seq_pick(), prop_oneof![4 => 0u8..=100, 1 => any::<u8>()], carrier())
            .prop_map(|(node, seq, metric, carrier)| LtOp::Lci { node, seq, metric, carrier }),
        1 => (0..4usize).prop_map(LtOp::Reset),
        2 => (0u64..5_000).prop_map(LtOp::Advance),
    ];
    (
        prop_oneof![3 => 0usize..=4, 1 => Just(4096usize)],
        prop_oneof![2 => Just(DEFAULT_RESET_WINDOW), 1 => Just(0u32), 1 => 0u32..10],
        prop::collection::vec(op, 1..60),
    )
        .prop_map(|(max_entries, reset_window, ops)| LtCase {
            max_entries,
            reset_window,
            ops,
        })
}

/// `LoadTable` sequencing is like OCI's (clause 6.2.3.3.2): per node, a newer or wrapped
/// number replaces the stored load, the same one is a duplicate, an older one is stale; the
/// stored number never goes backwards except through `reset_peer` or the eviction of the
/// stalest report from a full table; at most `max_entries` nodes; an LCI on a message type
/// that may not carry one changes nothing.
#[test]
fn load_table_sequencing_is_like_oci() {
    let cov = Coverage::default();
    let cases = run(lt_case(), |case| {
        let mut nodes = Universe::new().nodes;
        nodes.push(NodeKey::Ip(
            Ipv6Addr::new(0x2001, 0xdb8, 1, 0, 0, 0, 0, 9).into(),
        ));
        let config = LoadConfig::default()
            .with_max_entries(case.max_entries)
            .with_reset_window(case.reset_window);
        let mut t = LoadTable::new(config);
        let mut now = base_instant();
        // node index -> (seq, load, at): what the table must hold.
        let mut model: HashMap<usize, (u32, u8, Instant)> = HashMap::new();
        for op in &case.ops {
            match op {
                LtOp::Lci {
                    node,
                    seq,
                    metric,
                    carrier,
                } => {
                    let lci = LoadControlInformation {
                        sequence_number: ControlSequenceNumber(
                            seq.resolve(model.get(node).map(|m| m.0)),
                        ),
                        metric: Metric::from_raw(*metric),
                    };
                    let s = lci.sequence_number.0;
                    let load = lci.metric.percent();
                    let outcome = match carrier {
                        None => t.handle_lci(&nodes[*node], &lci, now),
                        Some(c) => {
                            let bytes = message_with(MessageType(*c), lci);
                            let msg = Message::decode(&bytes).expect("message decodes");
                            t.handle_message(&nodes[*node], &msg, now)
                                .expect("carries an LCI")
                        }
                    };
                    let carries = |c: u8| {
                        let t = MessageType(c);
                        t.may_carry_oci()
                            || t == MessageType::HEARTBEAT_REQUEST
                            || t == MessageType::HEARTBEAT_RESPONSE
                    };
                    if carrier.is_some_and(|c| c == 1 || c == 2) {
                        cov.hit("heartbeat LCI");
                    }
                    if carrier.is_some_and(|c| !carries(c)) {
                        prop_assert_eq!(outcome, LciOutcome::UnexpectedMessage);
                        cov.hit("unexpected message");
                    } else if let Some(stored) = model.get(node).copied() {
                        let order = ModelOrder::of(stored.0, s, case.reset_window);
                        let expected = match order {
                            ModelOrder::Newer { .. } | ModelOrder::Reset => {
                                LciOutcome::Applied { load }
                            }
                            ModelOrder::Same => LciOutcome::Duplicate,
                            ModelOrder::Older => LciOutcome::Stale,
                        };
                        prop_assert_eq!(&outcome, &expected, "stored {}, received {}", stored.0, s);
                        if order.replaces() {
                            model.insert(*node, (s, load, now));
                        }
                        cov.hit(match order {
                            ModelOrder::Newer { wrapped: false } => "newer",
                            ModelOrder::Newer { wrapped: true } => "wrapped",
                            ModelOrder::Reset => "counter reset",
                            ModelOrder::Same => "duplicate",
                            ModelOrder::Older => "stale",
                        });
                    } else {
                        prop_assert_eq!(outcome, LciOutcome::Applied { load });
                        if case.max_entries > 0 {
                            if model.len() >= case.max_entries {
                                // The stalest report goes (any of them on a tie).
                                let gone: Vec<usize> = model
                                    .keys()
                                    .copied()
                                    .filter(|k| t.load(&nodes[*k], now).is_none())
                                    .collect();
                                prop_assert_eq!(gone.len(), 1, "evicted {:?}", gone);
                                let stalest = model.values().map(|m| m.2).min();
                                prop_assert_eq!(Some(model[&gone[0]].2), stalest);
                                model.remove(&gone[0]);
                                cov.hit("evicted");
                            }
                            model.insert(*node, (s, load, now));
                        }
                    }
                }
                LtOp::Reset(node) => {
                    t.reset_peer(&nodes[*node]);
                    if model.remove(node).is_some() {
                        cov.hit("reset");
                    }
                }
                LtOp::Advance(ms) => now += Duration::from_millis(*ms),
            }
            prop_assert!(t.len() <= case.max_entries);
            prop_assert_eq!(t.len(), model.len());
            for (k, node) in nodes.iter().enumerate() {
                prop_assert_eq!(
                    t.load(node, now),
                    model.get(&k).map(|m| m.1),
                    "load of {}",
                    node
                );
            }
        }
        Ok(())
    });
    cov.require(
        cases,
        &[
            "newer",
            "wrapped",
            "counter reset",
            "duplicate",
            "stale",
            "evicted",
            "reset",
            "unexpected message",
            "heartbeat LCI",
        ],
    );
}
