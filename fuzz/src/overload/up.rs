//! The UP side of the `overload_events` harness: [`Up`], an [`OverloadReporter`] and a
//! [`LoadReporter`] with the mirror CP tables their peers would be, and the checks of what
//! they publish and emit.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use pfcp_overload::{
    ControlLaw, IgnoreReason, InclusionPolicy, LciOutcome, LoadReporter, LoadReporterConfig,
    LoadTable, Measurement, NodeKey, OciOrigin, OciOutcome, OverloadReporter, OverloadTable,
    ReporterConfig, SequenceMode,
};
use pfcp_wire::encode::Encode;
use pfcp_wire::ie::{IeIter, OciFlags, Timer};
use pfcp_wire::{Cause, MessageType, TypedIe};

use super::{Scenario, SeqModeSpec};

fn max_peers(spec: Option<u8>) -> usize {
    spec.map_or(ReporterConfig::default().max_peers, |n| usize::from(n % 6))
}

fn peer_node(p: u8) -> NodeKey {
    NodeKey::Ip(IpAddr::V4(Ipv4Addr::new(10, 1, 0, p)))
}

fn peer_origin(p: u8) -> OciOrigin {
    OciOrigin::new(peer_node(p), Some(IpAddr::V4(Ipv4Addr::new(10, 2, 0, p))))
}

/// Encode, frame, decode: the value must come back equal, in exactly `encoded_len` octets.
fn roundtrip<T>(v: &T) -> T
where
    T: Encode + for<'a> TypedIe<'a> + PartialEq + std::fmt::Debug,
{
    let mut out = Vec::new();
    v.encode(&mut out).expect("emitted IE encodes");
    assert_eq!(out.len(), v.encoded_len(), "encoded_len");
    let mut it = IeIter::new(&out, 0);
    let ie = it.next().expect("one IE").expect("emitted IE frames");
    assert!(it.next().is_none(), "one IE encodes as two");
    let back = ie.decode_as::<T>().expect("emitted IE decodes");
    assert_eq!(&back, v, "decode(encode(v)) != v");
    back
}

/// The control law a spec's `law` octet names.
fn law(n: u8) -> ControlLaw {
    match n % 3 {
        0 => ControlLaw::Adaptive,
        1 => ControlLaw::FeedForward,
        _ => ControlLaw::Utilisation,
    }
}

/// The inclusion policy: until current, or one of the others (picked by the law octet's
/// higher bits, so that no new input field shifts the corpus).
fn policy(every_message: bool, law: u8, validity: Duration) -> InclusionPolicy {
    if !every_message {
        return InclusionPolicy::UntilCurrent;
    }
    match law / 6 % 4 {
        0 => InclusionPolicy::EveryMessage,
        1 => InclusionPolicy::Rejections,
        2 => InclusionPolicy::EveryNth(u32::from(law % 4)),
        _ => InclusionPolicy::Periodic(validity / 4),
    }
}

pub(super) struct Up {
    pub(super) rep: OverloadReporter<u8>,
    /// The publishing step, for the feed-forward law (the others publish relative changes).
    step: Option<u8>,
    /// The adaptive law with dithered per-peer metrics: a publication may change the law's
    /// share (and the sequence number) without changing the rounded metric.
    dithered: bool,
    max_metric: u8,
    validity: Duration,
    node_scoped: bool,
    counter: bool,
    max_peers: usize,
    /// Peers in the reporter's table, with their OVRL.
    peers: BTreeMap<u8, bool>,
    published: bool,
    /// The CP the peers would be: fed every OCI sent to them.
    mirror: OverloadTable,
    lrep: LoadReporter<u8>,
    load_step: u8,
    lmax_peers: usize,
    lpeers: BTreeMap<u8, bool>,
    lmirror: LoadTable,
}

impl Up {
    pub(super) fn new(s: &Scenario, base: Instant) -> Up {
        let r = &s.reporter;
        let sequence = match r.sequence {
            SeqModeSpec::Counter(n) => SequenceMode::Counter(n),
            SeqModeSpec::Epoch { back, offset } => SequenceMode::EpochSeconds {
                epoch: base
                    .checked_sub(Duration::from_secs(u64::from(back)))
                    .unwrap_or(base),
                offset,
            },
        };
        let config = ReporterConfig::default()
            .with_interval(r.interval.get())
            .with_capacity(r.capacity.map(|c| c.get(100.0)))
            .with_target_load(r.target_load.get(1.0))
            .with_backlog_target(r.backlog_target.get(0.0))
            .with_drain_intervals(r.drain_intervals.get(5.0))
            .with_feedback_delay(r.feedback_delay)
            .with_step(r.step)
            .with_max_metric(r.max_metric)
            .with_dwell(r.dwell)
            .with_validity(r.validity.get())
            .with_refresh_before(r.refresh_before.get())
            .with_sequence(sequence)
            .with_inclusion(policy(r.every_message, r.law, r.validity.get()))
            // Only the adaptive and utilisation laws use it; the feed-forward law its step.
            .with_peer_step(1 + r.step % 6)
            .with_node_scoped(r.node_scoped)
            .with_max_peers(max_peers(r.max_peers))
            .with_law(law(r.law))
            .with_dither((r.law / 3) & 1 == 0);
        Up {
            rep: OverloadReporter::new(config),
            step: (law(r.law) == ControlLaw::FeedForward).then_some(r.step.max(1)),
            dithered: law(r.law) == ControlLaw::Adaptive && (r.law / 3) & 1 == 0,
            max_metric: r.max_metric.min(100),
            validity: r.validity.get(),
            node_scoped: r.node_scoped,
            counter: matches!(r.sequence, SeqModeSpec::Counter(_)),
            max_peers: max_peers(r.max_peers),
            peers: BTreeMap::new(),
            published: false,
            mirror: OverloadTable::default(),
            lrep: LoadReporter::new(
                LoadReporterConfig::default()
                    .with_step(s.load_step)
                    .with_first_sequence(s.load_first_sequence)
                    .with_max_peers(max_peers(s.load_max_peers)),
            ),
            load_step: s.load_step.max(1),
            lmax_peers: max_peers(s.load_max_peers),
            lpeers: BTreeMap::new(),
            lmirror: LoadTable::default(),
        }
    }

    pub(super) fn check_metric(&self) {
        let m = self.rep.metric();
        assert!(
            m <= self.max_metric,
            "metric {m} above max_metric {}",
            self.max_metric
        );
        match self.step {
            Some(step) => assert_eq!(m % step, 0, "metric {m} not a multiple of step {step}"),
            // A metric of 100 would admit nothing: the other laws stop at 99.
            None => assert!(m <= 99, "metric {m} above 99"),
        }
    }

    /// A publication happened (or not): check the sequence number moved as it must.
    fn check_sequence(&self, before: u32, published: bool, first: bool) {
        let after = self.rep.sequence_number();
        if !published {
            assert_eq!(
                after, before,
                "sequence number changed without a publication"
            );
        } else if !first {
            if self.counter {
                assert_eq!(after, before.wrapping_add(1), "counter sequence");
            } else {
                let d = after.wrapping_sub(before);
                assert!(
                    (1..=u32::MAX / 2).contains(&d),
                    "epoch sequence not increasing: {before} -> {after}"
                );
            }
        }
    }

    pub(super) fn measure(&mut self, m: &Measurement, now: Instant) {
        let (seq, metric) = (self.rep.sequence_number(), self.rep.metric());
        let got = self.rep.handle_measurement(m, now);
        match got {
            Some(v) => {
                assert_eq!(
                    v,
                    self.rep.metric(),
                    "returned metric is not the published one"
                );
                assert_ne!(v, metric, "a publication that changes nothing");
            }
            None => assert_eq!(self.rep.metric(), metric, "metric changed silently"),
        }
        // Dithered, a new share of the law is published under the same rounded metric; only
        // while overloaded (the metric is non-zero before and after).
        let share_only = self.dithered && got.is_none() && self.rep.sequence_number() != seq;
        if share_only {
            assert!(metric > 0, "a share published while not overloaded");
        }
        let published = got.is_some() || share_only;
        self.check_sequence(seq, published, !self.published);
        self.published |= published;
        self.check_metric();
    }

    /// The reporter's count starts again; the mirror CP learns of the restart (its Recovery
    /// Time Stamp) and forgets the peers' state.
    pub(super) fn restart(&mut self) {
        let metric = self.rep.metric();
        self.rep.restart_sequence();
        assert_eq!(
            self.rep.metric(),
            metric,
            "a restart of the count changed the metric"
        );
        assert!(self.rep.current_oci(false).is_none());
        self.published = false;
        for p in 0..4 {
            self.mirror.reset_peer(&peer_node(p));
        }
        while self.mirror.poll_event().is_some() {}
    }

    /// How long after a peer is told something its validity is due for extension.
    pub(super) fn refresh_lead(&self) -> Duration {
        let c = self.rep.config();
        match c.validity.saturating_sub(c.refresh_before) {
            Duration::ZERO => c.validity / 2,
            lead => lead,
        }
    }

    pub(super) fn set_ovrl(&mut self, peer: u8, ovrl: bool) {
        self.rep.set_peer_ovrl(peer, ovrl);
        if self.peers.contains_key(&peer) || self.peers.len() < self.max_peers {
            self.peers.insert(peer, ovrl);
        }
    }

    pub(super) fn remove(&mut self, peer: u8) {
        self.rep.remove_peer(&peer);
        self.peers.remove(&peer);
        self.mirror.reset_peer(&peer_node(peer));
        while self.mirror.poll_event().is_some() {}
    }

    pub(super) fn oci_for(
        &mut self,
        peer: u8,
        mt: MessageType,
        cause: Option<Cause>,
        now: Instant,
    ) {
        let rejected_establishment = mt == MessageType::SESSION_ESTABLISHMENT_RESPONSE
            && cause.is_some_and(|c| c.is_acceptance() == Some(false));
        let eligible = mt.may_carry_oci() && self.peers.get(&peer) == Some(&true);
        let got = self.rep.oci_for(&peer, mt, cause, now);
        let Some(oci) = got else {
            // Nothing more to say to this peer: it must not hold a higher reduction than the
            // one it is asked for (a stuck node- or entity-scoped overload).
            let settles = matches!(
                self.rep.config().inclusion,
                InclusionPolicy::UntilCurrent | InclusionPolicy::EveryMessage
            );
            if eligible && settles && !rejected_establishment {
                let o = peer_origin(peer);
                let r = self.mirror.reduction(o.entity, &o.node, now);
                let asked = self.rep.metric_for(&peer).unwrap_or(0);
                assert!(
                    r <= asked,
                    "peer {peer} keeps reduction {r} while it is asked for {asked} and nothing is sent",
                );
            }
            return;
        };
        assert!(eligible, "OCI for an ineligible message or peer");
        let d = self
            .rep
            .sequence_number()
            .wrapping_sub(oci.sequence_number.0);
        assert!(d < u32::MAX / 2, "a number ahead of the reporter's");
        // The peer's own metric: the law's level for it, on the grid (never a change of less
        // than a grid step).
        let told = oci.metric.raw();
        assert_eq!(Some(told), self.rep.metric_for(&peer));
        let step = self.rep.config().metric_step();
        assert_eq!(told % step, 0, "told {told} off the grid of {step}");
        assert!(told <= self.rep.config().max_told());
        if self.dithered {
            assert!(
                f64::from(told.abs_diff(self.rep.metric())) <= f64::from(step) + 0.5,
                "told {told}, law {}",
                self.rep.metric()
            );
        }
        if self.rep.metric() == 0 {
            assert_eq!(told, 0);
        }
        assert_eq!(
            oci.period_of_validity,
            Timer::from_duration(self.validity).unwrap_or(Timer::INFINITE)
        );
        if self.node_scoped || rejected_establishment {
            assert!(oci.aoci(), "AOCI missing");
        }
        assert!(oci.flags.is_none_or(|f| f == OciFlags::AOCI));
        let back = roundtrip(&oci);
        let outcome = self.mirror.handle_oci(&peer_origin(peer), &back, now);
        while self.mirror.poll_event().is_some() {}
        let repeats = self.rep.config().inclusion != InclusionPolicy::UntilCurrent;
        match outcome {
            OciOutcome::Applied { .. } => {}
            OciOutcome::Ignored {
                reason: IgnoreReason::Duplicate,
                ..
            } if repeats => {}
            other => panic!("the peer does not apply the reporter's OCI: {other:?}"),
        }
    }

    pub(super) fn current(&self) {
        for aoci in [false, true] {
            match self.rep.current_oci(aoci) {
                Some(oci) => {
                    assert!(self.published);
                    assert_eq!(oci.aoci(), aoci);
                    roundtrip(&oci);
                }
                None => assert!(!self.published),
            }
        }
    }

    pub(super) fn utilisation(&mut self, u: f64) {
        let before = self.lrep.load();
        let got = self.lrep.handle_utilisation(u);
        let after = self.lrep.load();
        match got {
            Some(v) => {
                assert_eq!(after, Some(v));
                assert!(v <= 100);
                if let Some(b) = before {
                    assert!(
                        b.abs_diff(v) >= self.load_step || (v == 0 && b != 0),
                        "published a change of {b} -> {v} under the step"
                    );
                }
            }
            None => assert_eq!(after, before),
        }
    }

    pub(super) fn set_load(&mut self, peer: u8, load: bool) {
        self.lrep.set_peer_load(peer, load);
        if self.lpeers.contains_key(&peer) || self.lpeers.len() < self.lmax_peers {
            self.lpeers.insert(peer, load);
        }
    }

    pub(super) fn lremove(&mut self, peer: u8) {
        self.lrep.remove_peer(&peer);
        self.lpeers.remove(&peer);
        self.lmirror.reset_peer(&peer_node(peer));
    }

    pub(super) fn lci_for(&mut self, peer: u8, mt: MessageType, now: Instant) {
        let eligible = mt.may_carry_oci()
            && self.lrep.load().is_some()
            && self.lpeers.get(&peer) == Some(&true);
        match self.lrep.lci_for(&peer, mt) {
            Some(lci) => {
                assert!(eligible, "LCI for an ineligible message or peer");
                assert_eq!(Some(lci.metric.raw()), self.lrep.load());
                let back = roundtrip(&lci);
                let out = self.lmirror.handle_lci(&peer_node(peer), &back, now);
                assert_eq!(
                    out,
                    LciOutcome::Applied {
                        load: lci.metric.percent()
                    },
                    "the peer does not apply the reporter's LCI"
                );
            }
            None => {
                if eligible {
                    assert_eq!(
                        self.lmirror.load(&peer_node(peer), now),
                        self.lrep.load(),
                        "peer {peer} was not told the current load"
                    );
                }
            }
        }
    }
}
