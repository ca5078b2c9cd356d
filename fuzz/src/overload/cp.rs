//! The CP side of the `overload_events` harness: the origins OCIs and LCIs come from, and
//! [`Cp`], an [`OverloadTable`], a [`LoadTable`] and an [`UpSelector`] with the state their
//! invariants are checked against after every event.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Instant;

use pfcp_overload::sequence::{compare, SequenceOrder, DEFAULT_RESET_WINDOW};
use pfcp_overload::{
    Candidate, IgnoreReason, LciOutcome, LoadConfig, LoadTable, NodeKey, OciOrigin, OciOutcome,
    OverloadConfig, OverloadEvent, OverloadTable, Scope, ScopeState, UpSelector,
};
use pfcp_wire::ie::{LoadControlInformation, OciFlags, OverloadControlInformation};
use pfcp_wire::{Message, MessageType};

use super::{seq_value, DurSpec, FlagsSpec, Scenario, SeqSpec};

pub(super) fn nodes() -> [NodeKey; 4] {
    [
        NodeKey::Ip(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))),
        NodeKey::fqdn("upf1.example.net"),
        // The same FQDN as configured with another case and a trailing dot: the same key.
        NodeKey::fqdn("UPF2.Example.NET."),
        NodeKey::Ip(IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1))),
    ]
}

pub(super) fn entities() -> [Option<IpAddr>; 4] {
    [
        None,
        Some(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1))),
        Some(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2))),
        Some(IpAddr::V6(Ipv6Addr::new(
            0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x11,
        ))),
    ]
}

pub(super) fn pick<T: Clone, const N: usize>(items: &[T; N], i: u8) -> T {
    items[usize::from(i) % N].clone()
}

pub(super) fn origin(i: u8) -> OciOrigin {
    OciOrigin::new(pick(&nodes(), i & 0x0f), pick(&entities(), i >> 4))
}

pub(super) fn flags(f: FlagsSpec) -> Option<OciFlags> {
    match f {
        FlagsSpec::Absent => None,
        FlagsSpec::Aoci => Some(OciFlags::AOCI),
        FlagsSpec::Raw(b) => Some(OciFlags(b)),
    }
}

pub(super) struct Cp {
    pub(super) table: OverloadTable,
    max_entries: usize,
    window: u32,
    max_events: usize,
    pub(super) loads: LoadTable,
    load_max_entries: usize,
    selector: UpSelector,
    /// Every scope the table may hold (the origins' and those learned from outcomes).
    tracked: BTreeSet<Scope>,
    /// The stored (seq, expiry) of each scope after the previous event.
    prev: BTreeMap<Scope, (u32, Option<Instant>)>,
    /// The node of the origin that last wrote each entity scope.
    writer: BTreeMap<IpAddr, NodeKey>,
    /// The last sequence number sent per scope (for `SeqSpec::Delta`).
    last_seq: BTreeMap<Scope, u32>,
    /// The last LCI sequence number sent per node.
    pub(super) last_lci: BTreeMap<NodeKey, u32>,
    /// The sequence number last applied per scope (an `Expired` refusal names it).
    applied: BTreeMap<Scope, u32>,
    dropped: u64,
}

impl Cp {
    pub(super) fn new(s: &Scenario) -> Cp {
        let max_entries = usize::from(s.max_entries % 6);
        let window = match s.reset_window {
            SeqSpec::Delta(_) => DEFAULT_RESET_WINDOW,
            other => seq_value(other, 0),
        };
        let max_events = usize::from(s.max_events % 9);
        let load_max_entries = usize::from(s.load_max_entries % 5);
        let mut tracked = BTreeSet::new();
        for n in nodes() {
            tracked.insert(Scope::Node(n));
        }
        for ip in entities().into_iter().flatten() {
            tracked.insert(Scope::Entity(ip));
        }
        Cp {
            table: OverloadTable::new(
                OverloadConfig::default()
                    .with_max_entries(max_entries)
                    .with_reset_window(window)
                    .with_max_events(max_events),
            ),
            max_entries,
            window,
            max_events,
            loads: LoadTable::new(
                LoadConfig::default()
                    .with_max_entries(load_max_entries)
                    .with_reset_window(window)
                    .with_max_age(s.load_max_age.map(DurSpec::get)),
            ),
            load_max_entries,
            // The spare offset comes from a field already in the input (a new field would
            // shift the corpus): offsets 0..=31 all occur.
            selector: UpSelector {
                unknown_load: s.unknown_load,
                avoid_reduction: s.avoid_reduction,
                ..UpSelector::default()
            }
            .with_spare_offset(s.unknown_load % 32),
            tracked,
            prev: BTreeMap::new(),
            writer: BTreeMap::new(),
            last_seq: BTreeMap::new(),
            last_lci: BTreeMap::new(),
            applied: BTreeMap::new(),
            dropped: 0,
        }
    }

    pub(super) fn oci(
        &mut self,
        origin: &OciOrigin,
        oci: &OverloadControlInformation,
        now: Instant,
    ) {
        let scope = origin.scope(oci.aoci());
        let before = self.table.get(&scope);
        let len_before = self.table.len();
        let outcome = self.table.handle_oci(origin, oci, now);
        self.last_seq.insert(scope.clone(), oci.sequence_number.0);
        self.check_outcome(&outcome, Some(&scope), oci, origin, before, len_before, now);
    }

    #[allow(clippy::too_many_arguments)]
    fn check_outcome(
        &mut self,
        outcome: &OciOutcome,
        expected_scope: Option<&Scope>,
        oci: &OverloadControlInformation,
        origin: &OciOrigin,
        before: Option<ScopeState>,
        len_before: usize,
        now: Instant,
    ) {
        let seq = oci.sequence_number.0;
        match outcome {
            OciOutcome::Applied {
                scope,
                metric,
                expires,
            } => {
                if let Some(s) = expected_scope {
                    assert_eq!(scope, s, "applied to another scope");
                }
                self.tracked.insert(scope.clone());
                self.applied.insert(scope.clone(), seq);
                assert_eq!(*metric, oci.metric.percent(), "applied metric");
                assert!(*metric <= 100);
                let want = oci
                    .period_of_validity
                    .duration()
                    .map(|d| now.checked_add(d).unwrap_or(now));
                assert_eq!(*expires, want, "applied expiry");
                if let Some(ScopeState {
                    sequence_number: stored,
                    expires: exp,
                    ..
                }) = before
                {
                    if exp.is_none_or(|t| t > now) {
                        assert!(
                            compare(stored, seq, self.window).is_newer(),
                            "replaced a valid entry (seq {stored}) with seq {seq}"
                        );
                    }
                }
                let got = self.table.get(scope);
                if expires.is_some_and(|t| t <= now) {
                    assert_eq!(got, None, "an OCI expired on arrival is still stored");
                } else {
                    assert_eq!(
                        got.map(|g| (g.sequence_number, g.metric, g.expires)),
                        Some((seq, *metric, *expires)),
                        "stored state"
                    );
                    if let Scope::Entity(ip) = scope {
                        self.writer.insert(*ip, origin.node.clone());
                    }
                }
            }
            OciOutcome::Ignored { scope, reason } => {
                if let (Some(s), Some(e)) = (scope, expected_scope) {
                    assert_eq!(s, e, "ignored for another scope");
                }
                if let Some(s) = scope {
                    self.tracked.insert(s.clone());
                }
                match reason {
                    IgnoreReason::Duplicate => {
                        let b = before.expect("duplicate of nothing");
                        let (stored, exp) = (b.sequence_number, b.expires);
                        assert_eq!(stored, seq);
                        assert!(exp.is_none_or(|t| t > now), "duplicate of an expired entry");
                    }
                    IgnoreReason::Stale { stored, received } => {
                        assert_eq!(*received, seq);
                        let b = before.expect("stale against nothing");
                        let (s, exp) = (b.sequence_number, b.expires);
                        assert_eq!(s, *stored);
                        assert!(
                            exp.is_none_or(|t| t > now),
                            "stale against an expired entry"
                        );
                        assert_eq!(compare(*stored, seq, self.window), SequenceOrder::Older);
                    }
                    IgnoreReason::TableFull => {
                        assert!(len_before >= self.max_entries, "full below max_entries");
                        assert_eq!(
                            self.table.poll_timeout(),
                            None,
                            "refused an OCI while an entry could be evicted"
                        );
                    }
                    IgnoreReason::Expired => {
                        // Only the number last applied to the scope, once its validity ended.
                        let s = scope.as_ref().expect("expired without a scope");
                        assert_eq!(
                            self.applied.get(s),
                            Some(&seq),
                            "expired a number never applied"
                        );
                        if let Some(exp) = before.map(|b| b.expires) {
                            assert!(exp.is_some_and(|t| t <= now), "expired while valid");
                        }
                    }
                    IgnoreReason::Malformed(_) | IgnoreReason::UnexpectedMessage => {
                        panic!("a decoded OCI cannot be malformed or misplaced: {reason:?}")
                    }
                    other => panic!("unknown reason {other:?}"),
                }
                // Nothing changed for the scope.
                if let Some(s) = scope {
                    assert_eq!(self.table.get(s), before, "an ignored OCI changed state");
                }
            }
        }
    }

    /// A message through both tables.
    pub(super) fn message(&mut self, origin: &OciOrigin, bytes: &[u8], now: Instant) {
        let Ok(msg) = Message::decode(bytes) else {
            return;
        };
        let oci = msg.overload_control_information();
        if let Ok(Some(oci)) = oci {
            // What handle_message will do: the scope from the origin or the UP F-SEID.
            let mut o = origin.clone();
            if o.entity.is_none() {
                if let Ok(Some(f)) = msg.f_seid() {
                    o.entity = f.ipv4.map(IpAddr::V4).or(f.ipv6.map(IpAddr::V6));
                }
            }
            let scope = o.scope(oci.aoci());
            let before = self.table.get(&scope);
            let len_before = self.table.len();
            let got = self.table.handle_message(origin, &msg, now);
            let outcome = got.expect("a message with an OCI has an outcome");
            if msg.message_type().may_carry_oci() {
                self.tracked.insert(scope.clone());
                self.check_outcome(&outcome, Some(&scope), &oci, &o, before, len_before, now);
            } else {
                assert_eq!(
                    outcome,
                    OciOutcome::Ignored {
                        scope: None,
                        reason: IgnoreReason::UnexpectedMessage
                    }
                );
            }
        } else {
            let got = self.table.handle_message(origin, &msg, now);
            match (&oci, got) {
                (Ok(None), None) => {}
                (Ok(None), Some(o)) => panic!("an outcome for a message without OCI: {o:?}"),
                (
                    Err(_),
                    Some(OciOutcome::Ignored {
                        scope: None,
                        reason,
                    }),
                ) => assert!(
                    matches!(
                        reason,
                        IgnoreReason::Malformed(_) | IgnoreReason::UnexpectedMessage
                    ),
                    "{reason:?}"
                ),
                (Err(e), other) => panic!("malformed OCI ({e}) gave {other:?}"),
                (Ok(Some(_)), _) => unreachable!(),
            }
        }
        let lci = msg.load_control_information();
        let before = self.loads.load(&origin.node, now);
        let got = self.loads.handle_message(&origin.node, &msg, now);
        match (lci, got) {
            (Ok(None), None) => {}
            (Ok(Some(l)), Some(out)) => {
                let ty = msg.message_type();
                // The default `LoadConfig` also reads an LCI in a Heartbeat message.
                let heartbeat =
                    ty == MessageType::HEARTBEAT_REQUEST || ty == MessageType::HEARTBEAT_RESPONSE;
                if ty.may_carry_oci() || heartbeat {
                    self.check_lci(&origin.node, &l, &out, before, now);
                } else {
                    assert_eq!(out, LciOutcome::UnexpectedMessage);
                }
            }
            (Err(_), Some(LciOutcome::Malformed(_) | LciOutcome::UnexpectedMessage)) => {}
            (lci, got) => panic!("LCI {lci:?} gave {got:?}"),
        }
        self.check_loads();
    }

    pub(super) fn lci(&mut self, node: &NodeKey, lci: &LoadControlInformation, now: Instant) {
        let before = self.loads.load(node, now);
        let out = self.loads.handle_lci(node, lci, now);
        self.last_lci.insert(node.clone(), lci.sequence_number.0);
        self.check_lci(node, lci, &out, before, now);
        self.check_loads();
    }

    fn check_lci(
        &self,
        node: &NodeKey,
        lci: &LoadControlInformation,
        out: &LciOutcome,
        before: Option<u8>,
        now: Instant,
    ) {
        match out {
            LciOutcome::Applied { load } => {
                assert_eq!(*load, lci.metric.percent());
                if self.load_max_entries > 0 {
                    assert_eq!(self.loads.load(node, now), Some(*load), "LCI not stored");
                }
            }
            LciOutcome::Duplicate | LciOutcome::Stale => {
                assert_eq!(self.loads.load(node, now), before, "ignored LCI changed");
            }
            other => panic!("decoded LCI gave {other:?}"),
        }
    }

    fn check_loads(&self) {
        let n = self.loads.len();
        assert!(n <= self.load_max_entries, "load table over max");
        assert_eq!(self.loads.is_empty(), n == 0);
    }

    pub(super) fn seq(&self, scope: &Scope, spec: SeqSpec) -> u32 {
        seq_value(spec, self.last_seq.get(scope).copied().unwrap_or(0))
    }

    pub(super) fn expected_reduction(
        &self,
        entity: Option<IpAddr>,
        node: &NodeKey,
        q: Instant,
    ) -> u8 {
        let at = |s: Scope| {
            self.table
                .get(&s)
                .filter(|e| e.expires.is_none_or(|t| t > q))
                .map_or(0, |e| e.metric)
        };
        at(Scope::Node(node.clone())).max(entity.map_or(0, |ip| at(Scope::Entity(ip))))
    }

    pub(super) fn check_reductions(&self, q: Instant) {
        for node in nodes() {
            for entity in entities() {
                assert_eq!(
                    self.table.reduction(entity, &node, q),
                    self.expected_reduction(entity, &node, q),
                    "reduction({entity:?}, {node}) disagrees with the stored entries"
                );
            }
        }
    }

    /// The invariants that hold after every event (`now`: the instant of the event).
    pub(super) fn check(&mut self, now: Instant) {
        let len = self.table.len();
        assert!(
            len <= self.max_entries,
            "{len} entries, max {}",
            self.max_entries
        );
        assert_eq!(self.table.is_empty(), len == 0);
        let mut present = 0;
        let mut earliest: Option<Instant> = None;
        let mut next = BTreeMap::new();
        for scope in &self.tracked {
            let Some(ScopeState {
                sequence_number: seq,
                metric,
                expires: exp,
                ..
            }) = self.table.get(scope)
            else {
                continue;
            };
            present += 1;
            assert!(metric <= 100, "stored metric {metric}");
            if let Some(t) = exp {
                earliest = Some(earliest.map_or(t, |e| e.min(t)));
            }
            if let Some(&(ps, pexp)) = self.prev.get(scope) {
                // A stored number goes backwards only if the stored entry had expired (it
                // would otherwise have been removed: that, reset and eviction show up as an
                // absent entry in between).
                let expired = pexp.is_some_and(|t| t <= now);
                assert!(
                    ps == seq || expired || compare(ps, seq, self.window).is_newer(),
                    "{scope}: stored seq went from {ps} to {seq} (window {})",
                    self.window
                );
            }
            next.insert(scope.clone(), (seq, exp));
        }
        assert_eq!(present, len, "entries outside the tracked scopes");
        assert_eq!(
            self.table.poll_timeout(),
            earliest,
            "poll_timeout is not the earliest expiry"
        );
        self.prev = next;
        let dropped = self.table.events_dropped();
        assert!(dropped >= self.dropped, "events_dropped went down");
        self.dropped = dropped;
        self.check_reductions(now);
    }

    pub(super) fn after_timeout(&self, t: Instant) {
        for scope in &self.tracked {
            if let Some(exp) = self.table.get(scope).and_then(|e| e.expires) {
                assert!(
                    exp > t,
                    "{scope} expired at {exp:?} survives handle_timeout"
                );
            }
        }
        assert!(self.table.poll_timeout().is_none_or(|p| p > t));
    }

    pub(super) fn reset(&mut self, node: &NodeKey) {
        self.table.reset_peer(node);
        assert_eq!(self.table.get(&Scope::Node(node.clone())), None);
        for (ip, w) in &self.writer {
            if w == node {
                assert_eq!(
                    self.table.get(&Scope::Entity(*ip)),
                    None,
                    "entity {ip} of {node} survives reset_peer"
                );
            }
        }
        // Reset is the last event queued unless the queue keeps nothing.
        if self.max_events > 0 {
            let mut last = None;
            while let Some(e) = self.table.poll_event() {
                last = Some(e);
            }
            assert_eq!(last, Some(OverloadEvent::Reset(node.clone())));
        }
    }

    pub(super) fn drain(&mut self, n: u8) {
        let mut got = 0usize;
        while n == u8::MAX || got < usize::from(n) {
            let Some(e) = self.table.poll_event() else {
                break;
            };
            got += 1;
            let _ = format!("{e:?}");
        }
        assert!(
            got <= self.max_events,
            "{got} events queued, max {}",
            self.max_events
        );
    }

    pub(super) fn select(&self, candidates: &[(u8, u32)], draw: u64, now: Instant) {
        let cands: Vec<Candidate> = candidates
            .iter()
            .take(8)
            .map(|&(n, weight)| Candidate {
                node: pick(&nodes(), n),
                weight,
            })
            .collect();
        let sel = &self.selector;
        let got = sel.select(&cands, &self.loads, &self.table, now, draw);
        assert_eq!(
            got,
            sel.select(&cands, &self.loads, &self.table, now, draw),
            "select is not deterministic"
        );
        // A reduction counts while a message from its UP function confirmed it within
        // `reprobe_after` (UpSelector's docs), then as 0.
        let reduction = |c: &Candidate| {
            let fresh = sel.reprobe_after.is_none_or(|after| {
                self.table
                    .confirmed(&c.node)
                    .is_some_and(|t| now.saturating_duration_since(t) <= after)
            });
            if fresh {
                self.table.reduction(None, &c.node, now)
            } else {
                0
            }
        };
        let any_ok = cands
            .iter()
            .any(|c| c.weight > 0 && reduction(c) < sel.avoid_reduction);
        let scores: Vec<u64> = cands
            .iter()
            .map(|c| {
                if any_ok && reduction(c) >= sel.avoid_reduction {
                    0
                } else {
                    sel.score(c, self.loads.load(&c.node, now), reduction(c))
                }
            })
            .collect();
        let weights: u64 = cands.iter().map(|c| u64::from(c.weight)).sum();
        match got {
            None => assert_eq!(weights, 0, "nothing selected among weighted candidates"),
            Some(i) => {
                assert!(i < cands.len());
                assert!(cands[i].weight > 0, "selected a weight-0 candidate");
                if scores.iter().sum::<u64>() > 0 {
                    assert!(scores[i] > 0, "selected a candidate with score 0");
                }
            }
        }
    }
}
