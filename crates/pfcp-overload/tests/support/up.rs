//! The sending end of the property tests: generators of measurements, `oci_for` and
//! `oci_for_refusal` calls, restarts of the count and peer changes for the UP-side
//! `OverloadReporter` (`up_case`), snapshots of the reporter, and the driver `run_up` that
//! applies each event, delivers every emitted OCI to a per-peer `OverloadTable` and hands every
//! step to a property check. The test's own record of what each scope of each peer was sent
//! (`PeerShadow`) is written from the emitted OCIs alone, not from the reporter's state.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use pfcp_overload::{
    InclusionPolicy, Measurement, NodeKey, OciOrigin, OciOutcome, OverloadReporter, OverloadTable,
    ReporterConfig, SequenceMode,
};
use pfcp_wire::ie::{OverloadControlInformation, Timer};
use pfcp_wire::{Cause, Message, MessageType};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::rx::Stored;
use super::{base_instant, message_with, Coverage};

// ------------------------------------------------------------------------------------------
// Sending end: generators
// ------------------------------------------------------------------------------------------

pub(crate) const PEERS: usize = 5;

#[derive(Debug, Clone)]
pub(crate) enum SeqSpec {
    Counter(u32),
    Epoch {
        /// Epoch relative to the base instant, in seconds (negative: before it).
        at: i64,
        offset: u32,
    },
}

pub(crate) fn seq_spec() -> impl Strategy<Value = SeqSpec> {
    prop_oneof![
        2 => prop_oneof![Just(1u32), any::<u32>(), (u32::MAX - 3)..=u32::MAX].prop_map(SeqSpec::Counter),
        1 => (-100_000i64..100, prop_oneof![Just(0u32), any::<u32>(), (u32::MAX - 1_000)..=u32::MAX])
            .prop_map(|(at, offset)| SeqSpec::Epoch { at, offset }),
    ]
}

#[derive(Debug, Clone)]
pub(crate) enum UpOp {
    Measure(Measurement),
    Advance(u64),
    OciFor {
        peer: usize,
        msg_type: u8,
        cause: Option<u8>,
    },
    /// A refusal with Cause 74, and the provisional metric the caller's refusals call for.
    Refusal {
        peer: usize,
        msg_type: u8,
        provisional: Option<u8>,
    },
    SetOvrl {
        peer: usize,
        ovrl: bool,
    },
    Remove(usize),
    /// The count starts again (a restart; the CP functions learn of it and flush).
    Restart,
}

pub(crate) fn msg_type() -> impl Strategy<Value = u8> {
    prop_oneof![
        6 => prop::sample::select(vec![51u8, 53, 55, 56]),
        2 => prop::sample::select(vec![1u8, 2, 5, 6, 50, 52, 54, 57]),
        1 => any::<u8>(),
    ]
}

pub(crate) fn cause() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![
        1 => Just(None),
        2 => Just(Some(1u8)),
        2 => (64u8..=255).prop_map(Some),
        1 => any::<u8>().prop_map(Some),
    ]
}

pub(crate) fn up_op() -> impl Strategy<Value = UpOp> {
    let measure = prop_oneof![
        // Idle: everything served.
        2 => (0u64..800).prop_map(|a| Measurement { arrived: a, served: a, backlog: 0 }),
        3 => (0u64..6_000, 0u64..1_500, 0u64..1_000)
            .prop_map(|(arrived, served, backlog)| Measurement { arrived, served, backlog }),
    ];
    prop_oneof![
        5 => measure.prop_map(UpOp::Measure),
        2 => prop_oneof![4 => 0u64..400, 1 => 1_000u64..40_000, 1 => Just(3_600_000u64)]
            .prop_map(UpOp::Advance),
        7 => (0..PEERS, msg_type(), cause())
            .prop_map(|(peer, msg_type, cause)| UpOp::OciFor { peer, msg_type, cause }),
        2 => (0..PEERS, msg_type(), prop::option::weighted(0.8, 0u8..=120))
            .prop_map(|(peer, msg_type, provisional)| UpOp::Refusal { peer, msg_type, provisional }),
        1 => (0..PEERS, any::<bool>()).prop_map(|(peer, ovrl)| UpOp::SetOvrl { peer, ovrl }),
        1 => (0..PEERS).prop_map(UpOp::Remove),
        1 => prop::bool::weighted(0.1).prop_filter_map("rare", |b| b.then_some(UpOp::Restart)),
    ]
}

/// The inclusion policies, the default most often.
fn policy() -> impl Strategy<Value = InclusionPolicy> {
    prop_oneof![
        4 => Just(InclusionPolicy::UntilCurrent),
        2 => Just(InclusionPolicy::EveryMessage),
        1 => Just(InclusionPolicy::Rejections),
        1 => (0u32..4).prop_map(InclusionPolicy::EveryNth),
        1 => (0u64..2_000).prop_map(|ms| InclusionPolicy::Periodic(Duration::from_millis(ms))),
        1 => Just(InclusionPolicy::Never),
    ]
}

#[derive(Debug, Clone)]
pub(crate) struct UpCase {
    pub(crate) step: u8,
    pub(crate) peer_step: u8,
    pub(crate) max_metric: u8,
    pub(crate) dwell: usize,
    pub(crate) feedback_delay: usize,
    pub(crate) capacity: Option<f64>,
    pub(crate) validity_s: u64,
    pub(crate) refresh_pct: u64,
    pub(crate) provisional_validity_s: u64,
    pub(crate) sequence: SeqSpec,
    pub(crate) policy: InclusionPolicy,
    pub(crate) node_scoped: bool,
    pub(crate) max_peers: usize,
    /// The adaptive law with its dithered per-peer metrics ([`up_case_adaptive`]), or the
    /// feed-forward law ([`up_case`]).
    pub(crate) adaptive: bool,
    /// Per peer: registered with this OVRL flag before the first event, or not registered.
    pub(crate) initial: Vec<Option<bool>>,
    pub(crate) ops: Vec<UpOp>,
}

pub(crate) fn up_case() -> impl Strategy<Value = UpCase> {
    let control = (
        prop_oneof![4 => 0u8..=25, 1 => 0u8..=2, 1 => 26u8..=200],
        prop_oneof![4 => Just(3u8), 2 => 1u8..=10, 2 => 1u8..=2, 1 => 11u8..=33],
        prop_oneof![3 => 0u8..=100, 1 => 101u8..=255],
        0usize..=4,
        0usize..=3,
        prop::option::weighted(0.7, 50.0f64..1_000.0),
    );
    let timing = (
        // 2 000 000 s is beyond the largest finite Timer: the OCI says "infinite".
        prop_oneof![2 => Just(30u64), 2 => 2u64..=120, 1 => Just(2_000_000u64)],
        0u64..=90,
        prop_oneof![3 => Just(2u64), 1 => 3u64..=20],
        seq_spec(),
    );
    let peers = (
        policy(),
        prop::bool::weighted(0.25),
        prop_oneof![3 => Just(65_536usize), 1 => 0usize..=PEERS],
        prop::collection::vec(
            prop::option::weighted(0.8, prop::bool::weighted(0.75)),
            PEERS,
        ),
    );
    (
        control,
        timing,
        peers,
        prop::collection::vec(up_op(), 1..120),
    )
        .prop_map(
            |(
                (step, peer_step, max_metric, dwell, feedback_delay, capacity),
                (validity_s, refresh_pct, provisional_validity_s, sequence),
                (policy, node_scoped, max_peers, initial),
                ops,
            )| UpCase {
                step,
                peer_step,
                max_metric,
                dwell,
                feedback_delay,
                capacity,
                validity_s,
                refresh_pct,
                provisional_validity_s,
                sequence,
                policy,
                node_scoped,
                max_peers,
                adaptive: false,
                initial,
                ops,
            },
        )
}

/// [`up_case`] with the default adaptive law, whose peers are told dithered metrics.
pub(crate) fn up_case_adaptive() -> impl Strategy<Value = UpCase> {
    up_case().prop_map(|case| UpCase {
        adaptive: true,
        ..case
    })
}

// ------------------------------------------------------------------------------------------
// Sending end: state machine
// ------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UpSnap {
    pub(crate) metric: u8,
    pub(crate) seq: u32,
    /// `current_oci(false)`, `current_oci(true)`.
    pub(crate) oci: [Option<OverloadControlInformation>; 2],
    /// The provisional OCI in force: (metric, number, issued).
    pub(crate) provisional: Option<(u8, u32, Instant)>,
    /// `metric_for` of each peer.
    pub(crate) asked: [Option<u8>; PEERS],
}

impl UpSnap {
    pub(crate) fn of(r: &OverloadReporter<usize>, now: Instant) -> Self {
        UpSnap {
            metric: r.metric(),
            seq: r.sequence_number(),
            oci: [r.current_oci(false), r.current_oci(true)],
            provisional: r
                .provisional(now)
                .map(|p| (p.metric, p.sequence_number, p.issued)),
            asked: std::array::from_fn(|p| r.metric_for(&p)),
        }
    }

    pub(crate) fn published_seq(&self) -> Option<u32> {
        self.oci[0].map(|o| o.sequence_number.0)
    }
}

/// What the test recorded of the last new OCI (a number not sent before) sent to one scope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Held {
    pub(crate) seq: u32,
    pub(crate) metric: u8,
    pub(crate) at: Instant,
    /// Its Period of Validity (`None`: infinite), and the Timer IE it came in.
    pub(crate) validity: Option<Duration>,
    pub(crate) timer: Timer,
    /// It was the provisional OCI in force when it was sent.
    pub(crate) provisional: bool,
}

/// What the test knows about a peer of the reporter, for the current association.
#[derive(Debug, Clone, Default)]
pub(crate) struct PeerShadow {
    pub(crate) ovrl: bool,
    /// (AOCI, sequence number) of every OCI sent.
    pub(crate) sent: HashSet<(bool, u32)>,
    /// The last new OCI of the entity scope (`[0]`) and the node scope (`[1]`).
    pub(crate) held: [Option<Held>; 2],
    /// Messages to it that may carry an OCI, while OVRL.
    pub(crate) eligible: u64,
    /// When it was last sent an OCI.
    pub(crate) last_included: Option<Instant>,
    /// Eligible messages that could carry an entity-scoped OCI, sent while OVRL, since the
    /// last change of what the UP asks of it.
    pub(crate) entity_msgs: u32,
}

#[derive(Debug)]
pub(crate) struct Emitted {
    pub(crate) peer: usize,
    pub(crate) msg_type: MessageType,
    pub(crate) cause: Option<Cause>,
    /// A refusal that asked for the provisional OCI.
    pub(crate) refusal: bool,
    pub(crate) oci: Option<OverloadControlInformation>,
    /// What the peer's own `OverloadTable` held for the OCI's scope before delivery.
    pub(crate) cp_before: Stored,
    /// What the peer's own `OverloadTable` did with it (delivered in an encoded message).
    pub(crate) cp_outcome: Option<OciOutcome>,
}

pub(crate) struct UpStep<'a> {
    pub(crate) case: &'a UpCase,
    pub(crate) cfg: &'a ReporterConfig,
    pub(crate) op: &'a UpOp,
    pub(crate) now: Instant,
    pub(crate) before: &'a UpSnap,
    pub(crate) after: &'a UpSnap,
    /// `handle_measurement`'s result.
    pub(crate) measured: Option<Option<u8>>,
    pub(crate) emitted: Option<&'a Emitted>,
    /// Peers before the event.
    pub(crate) shadow: &'a HashMap<usize, PeerShadow>,
    /// Entity-capable messages of the peer of `emitted` since the last change, counting it.
    pub(crate) entity_msgs: u32,
    pub(crate) reporter: &'a OverloadReporter<usize>,
    /// The CP tables, after the event.
    pub(crate) cps: &'a [OverloadTable],
    pub(crate) up_node: &'a NodeKey,
    pub(crate) up_entity: IpAddr,
    pub(crate) cov: &'a Coverage,
}

pub(crate) fn reporter_config(case: &UpCase, base: Instant) -> ReporterConfig {
    let sequence = match case.sequence {
        SeqSpec::Counter(start) => SequenceMode::Counter(start),
        SeqSpec::Epoch { at, offset } => {
            let d = Duration::from_secs(at.unsigned_abs());
            let epoch = if at >= 0 {
                base + d
            } else {
                base.checked_sub(d).unwrap_or(base)
            };
            SequenceMode::EpochSeconds { epoch, offset }
        }
    };
    let law = if case.adaptive {
        ReporterConfig::default()
    } else {
        ReporterConfig::feed_forward()
    };
    law.with_capacity(case.capacity)
        .with_feedback_delay(case.feedback_delay)
        .with_step(case.step)
        .with_peer_step(case.peer_step)
        .with_max_metric(case.max_metric)
        .with_dwell(case.dwell)
        .with_validity(Duration::from_secs(case.validity_s))
        .with_refresh_before(Duration::from_secs(
            case.validity_s * case.refresh_pct / 100,
        ))
        .with_provisional_validity(Duration::from_secs(case.provisional_validity_s))
        .with_sequence(sequence)
        .with_inclusion(case.policy)
        .with_node_scoped(case.node_scoped)
        .with_max_peers(case.max_peers)
}

pub(crate) fn rejected_establishment(t: MessageType, cause: Option<Cause>) -> bool {
    t == MessageType::SESSION_ESTABLISHMENT_RESPONSE
        && cause.is_some_and(|c| c.is_acceptance() == Some(false))
}

pub(crate) type UpCheck = dyn Fn(&UpStep<'_>) -> Result<(), TestCaseError>;

pub(crate) fn run_up(case: &UpCase, cov: &Coverage, check: &UpCheck) -> Result<(), TestCaseError> {
    let mut now = base_instant();
    let cfg = reporter_config(case, now);
    let mut r: OverloadReporter<usize> = OverloadReporter::new(cfg.clone());
    let up_node = NodeKey::fqdn("upf1.example.net");
    let up_entity: IpAddr = Ipv4Addr::new(192, 0, 2, 1).into();
    let mut cps: Vec<OverloadTable> = (0..PEERS).map(|_| OverloadTable::default()).collect();
    let mut shadow: HashMap<usize, PeerShadow> = HashMap::new();
    let set_ovrl = |r: &mut OverloadReporter<usize>,
                    shadow: &mut HashMap<usize, PeerShadow>,
                    peer: usize,
                    ovrl: bool| {
        r.set_peer_ovrl(peer, ovrl);
        if let Some(p) = shadow.get_mut(&peer) {
            p.ovrl = ovrl;
        } else if shadow.len() < case.max_peers {
            shadow.insert(
                peer,
                PeerShadow {
                    ovrl,
                    ..PeerShadow::default()
                },
            );
        }
    };
    for (peer, ovrl) in case.initial.iter().enumerate() {
        if let Some(ovrl) = ovrl {
            set_ovrl(&mut r, &mut shadow, peer, *ovrl);
        }
    }
    for op in &case.ops {
        let before = UpSnap::of(&r, now);
        let shadow_before = shadow.clone();
        let mut measured = None;
        let mut emitted = None;
        match op {
            UpOp::Measure(m) => measured = Some(r.handle_measurement(m, now)),
            UpOp::Advance(ms) => now += Duration::from_millis(*ms),
            UpOp::OciFor {
                peer,
                msg_type,
                cause,
            } => {
                let t = MessageType(*msg_type);
                let cause = cause.map(Cause);
                let oci = r.oci_for(peer, t, cause, now);
                emitted = Some(deliver(
                    &r,
                    &mut cps,
                    &mut shadow,
                    &up_node,
                    up_entity,
                    *peer,
                    t,
                    cause,
                    false,
                    oci,
                    now,
                ));
            }
            UpOp::Refusal {
                peer,
                msg_type,
                provisional,
            } => {
                let t = MessageType(*msg_type);
                let cause = Some(Cause::PFCP_ENTITY_IN_CONGESTION);
                let oci = r.oci_for_refusal(peer, t, *provisional, now);
                emitted = Some(deliver(
                    &r,
                    &mut cps,
                    &mut shadow,
                    &up_node,
                    up_entity,
                    *peer,
                    t,
                    cause,
                    true,
                    oci,
                    now,
                ));
            }
            UpOp::SetOvrl { peer, ovrl } => set_ovrl(&mut r, &mut shadow, *peer, *ovrl),
            UpOp::Remove(peer) => {
                r.remove_peer(peer);
                shadow.remove(peer);
                // A new association: the CP flushes what it learned (clause 6.2.4.3.2).
                cps[*peer].reset_peer(&up_node);
            }
            UpOp::Restart => {
                r.restart_sequence();
                // The CP functions learn of the restart (its new Recovery Time Stamp) and flush.
                for (i, cp) in cps.iter_mut().enumerate() {
                    cp.reset_peer(&up_node);
                    if let Some(p) = shadow.get_mut(&i) {
                        p.held = [None, None];
                        p.sent.clear();
                    }
                }
            }
        }
        for cp in &mut cps {
            cp.handle_timeout(now);
        }
        let after = UpSnap::of(&r, now);
        for (i, p) in shadow.iter_mut() {
            let asked = |s: &UpSnap| (s.asked.get(*i).copied().flatten(), s.provisional);
            if asked(&after) != asked(&before) {
                p.entity_msgs = 0;
            }
        }
        if let Some(e) = &emitted {
            let rejected = rejected_establishment(e.msg_type, e.cause);
            if let Some(p) = shadow.get_mut(&e.peer) {
                if p.ovrl && e.msg_type.may_carry_oci() && !rejected {
                    p.entity_msgs += 1;
                }
            }
        }
        let entity_msgs = emitted
            .as_ref()
            .and_then(|e| shadow.get(&e.peer))
            .map_or(0, |p| p.entity_msgs);
        check(&UpStep {
            case,
            cfg: &cfg,
            op,
            now,
            before: &before,
            after: &after,
            measured,
            emitted: emitted.as_ref(),
            shadow: &shadow_before,
            entity_msgs,
            reporter: &r,
            cps: &cps,
            up_node: &up_node,
            up_entity,
            cov,
        })?;
    }
    Ok(())
}

/// Deliver what `oci_for` or `oci_for_refusal` gave, encoded in a message of type `t`, to the
/// peer's `OverloadTable`, and record it in the peer's shadow.
#[allow(clippy::too_many_arguments)]
fn deliver(
    r: &OverloadReporter<usize>,
    cps: &mut [OverloadTable],
    shadow: &mut HashMap<usize, PeerShadow>,
    up_node: &NodeKey,
    up_entity: IpAddr,
    peer: usize,
    t: MessageType,
    cause: Option<Cause>,
    refusal: bool,
    oci: Option<OverloadControlInformation>,
    now: Instant,
) -> Emitted {
    let rejected = rejected_establishment(t, cause);
    let mut cp_outcome = None;
    let mut cp_before = None;
    if let Some(oci) = oci {
        // A rejected Session Establishment Response has no UP F-SEID.
        let entity = (!rejected).then_some(up_entity);
        let origin = OciOrigin::new(up_node.clone(), entity);
        cp_before = cps[peer].get(&origin.scope(oci.aoci()));
        let bytes = message_with(t, oci);
        let msg = Message::decode(&bytes).expect("message decodes");
        cp_outcome = cps[peer].handle_message(&origin, &msg, now);
    }
    if let Some(p) = shadow.get_mut(&peer) {
        if p.ovrl && t.may_carry_oci() {
            p.eligible += 1;
        }
        if let Some(oci) = oci {
            let key = (oci.aoci(), oci.sequence_number.0);
            if !p.sent.contains(&key) {
                let provisional = oci.aoci()
                    && r.provisional(now).is_some_and(|pr| {
                        pr.sequence_number == oci.sequence_number.0
                            && pr.metric == oci.metric.percent()
                    });
                p.held[usize::from(oci.aoci())] = Some(Held {
                    seq: oci.sequence_number.0,
                    metric: oci.metric.percent(),
                    at: now,
                    validity: oci.period_of_validity.duration(),
                    timer: oci.period_of_validity,
                    provisional,
                });
            }
            p.sent.insert(key);
            p.last_included = Some(now);
        }
    }
    Emitted {
        peer,
        msg_type: t,
        cause,
        refusal,
        oci,
        cp_before,
        cp_outcome,
    }
}
