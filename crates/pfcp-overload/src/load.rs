//! Load control at the receiving end (TS 29.244 clause 6.2.3; Annex B): the latest Load
//! Control Information of each UP function, and a UP selector for new sessions.
//!
//! * LCI is always node-scoped: keyed by the UP's Node ID (6.2.3.3.1).
//! * Sequencing as for OCI (6.2.3.3.2): serial numbers, newer replaces; equal and older are
//!   ignored unless the number lies beyond [`LoadConfig::reset_window`] behind (a restarted
//!   counter, [`crate::sequence`]) or the peer was reset ([`LoadTable::reset_peer`]). LCI has no
//!   validity period; [`LoadConfig::max_age`] optionally treats an old report as unknown.
//! * Carriers (Table 7.3-1): Session Establishment, Modification and Deletion Responses and
//!   Session Report Requests; with [`LoadConfig::heartbeat_lci`] (the default) also Heartbeat
//!   Requests and Responses, where some UP functions put it although the table does not.
//! * A high load does not throttle anything: it steers *new* sessions ([`UpSelector`]).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use pfcp_wire::ie::LoadControlInformation;
use pfcp_wire::{DecodeError, IeType, Message, MessageType};

use crate::receiver::OverloadTable;
use crate::scope::NodeKey;
use crate::sequence::{compare, SequenceOrder, DEFAULT_RESET_WINDOW};

/// Configuration of a [`LoadTable`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadConfig {
    /// Most UP functions tracked. Default 4096; when full, the stalest report is dropped.
    pub max_entries: usize,
    /// How far behind the stored sequence number a received one must lie to be taken for a
    /// restarted counter ([`crate::sequence`]). Default [`DEFAULT_RESET_WINDOW`].
    pub reset_window: u32,
    /// A report older than this counts as unknown. Default `None` (reports never age).
    pub max_age: Option<Duration>,
    /// Read the LCI of Heartbeat Requests and Responses too. Table 7.3-1 does not list them as
    /// carriers, but some UP functions send their load only there (with the heartbeat's
    /// period); the Load Control Sequence Number orders them with the rest. Default true:
    /// being prepared to read it costs nothing when a peer does not send it.
    pub heartbeat_lci: bool,
}

impl Default for LoadConfig {
    fn default() -> Self {
        LoadConfig {
            max_entries: 4096,
            reset_window: DEFAULT_RESET_WINDOW,
            max_age: None,
            heartbeat_lci: true,
        }
    }
}

impl LoadConfig {
    /// With `max_entries` set (see the field).
    #[must_use]
    pub fn with_max_entries(mut self, max_entries: usize) -> Self {
        self.max_entries = max_entries;
        self
    }
    /// With `reset_window` set (see the field).
    #[must_use]
    pub fn with_reset_window(mut self, reset_window: u32) -> Self {
        self.reset_window = reset_window;
        self
    }
    /// With `heartbeat_lci` set (see the field).
    #[must_use]
    pub fn with_heartbeat_lci(mut self, heartbeat_lci: bool) -> Self {
        self.heartbeat_lci = heartbeat_lci;
        self
    }
    /// With `max_age` set (see the field).
    #[must_use]
    pub fn with_max_age(mut self, max_age: Option<Duration>) -> Self {
        self.max_age = max_age;
        self
    }
}

/// What happened to one received LCI.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LciOutcome {
    /// Stored: `load` percent is now the UP's load.
    Applied {
        /// Effective load (a metric above 100 reads as 0).
        load: u8,
    },
    /// Same sequence number as stored: nothing new.
    Duplicate,
    /// Older sequence number: stale.
    Stale,
    /// A member is missing or malformed; ignored (the message stays valid).
    Malformed(DecodeError),
    /// Carried by a message type that may not carry LCI.
    UnexpectedMessage,
}

#[derive(Debug, Clone, Copy)]
struct LoadEntry {
    seq: u32,
    load: u8,
    at: Instant,
}

/// The latest load of each UP function.
///
/// # Examples
///
/// ```
/// use std::time::Instant;
/// use pfcp_overload::{LciOutcome, LoadConfig, LoadTable, NodeKey};
/// use pfcp_wire::ie::{ControlSequenceNumber, LoadControlInformation, Metric};
///
/// let upf = NodeKey::fqdn("upf1.example.net");
/// let mut loads = LoadTable::new(LoadConfig::default());
/// let now = Instant::now();
/// let lci = |seq, percent| -> Result<LoadControlInformation, &str> {
///     Ok(LoadControlInformation {
///         sequence_number: ControlSequenceNumber(seq),
///         metric: Metric::new(percent).ok_or("over 100 %")?,
///     })
/// };
/// assert_eq!(loads.handle_lci(&upf, &lci(7, 60)?, now), LciOutcome::Applied { load: 60 });
/// // A lower sequence number is older information (clause 6.2.3.3.2): kept out.
/// assert_eq!(loads.handle_lci(&upf, &lci(6, 10)?, now), LciOutcome::Stale);
/// assert_eq!(loads.load(&upf, now), Some(60));
///
/// loads.reset_peer(&upf); // e.g. its Recovery Time Stamp changed
/// assert_eq!(loads.load(&upf, now), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct LoadTable {
    config: LoadConfig,
    entries: HashMap<NodeKey, LoadEntry, foldhash::fast::RandomState>,
}

impl LoadTable {
    /// An empty table.
    pub fn new(config: LoadConfig) -> Self {
        LoadTable {
            config,
            entries: HashMap::default(),
        }
    }

    /// Process the LCI of a message from UP function `node`, if it carries one: a message of
    /// Table 7.3-1's carriers, or a Heartbeat Request or Response with
    /// [`LoadConfig::heartbeat_lci`].
    pub fn handle_message(
        &mut self,
        node: &NodeKey,
        msg: &Message<'_>,
        now: Instant,
    ) -> Option<LciOutcome> {
        let raw = msg.find(IeType::LOAD_CONTROL_INFORMATION)?;
        let ty = msg.message_type();
        let heartbeat =
            ty == MessageType::HEARTBEAT_REQUEST || ty == MessageType::HEARTBEAT_RESPONSE;
        if !(ty.may_carry_oci() || heartbeat && self.config.heartbeat_lci) {
            return Some(LciOutcome::UnexpectedMessage);
        }
        Some(match raw.decode_as::<LoadControlInformation>() {
            Ok(lci) => self.handle_lci(node, &lci, now),
            Err(e) => LciOutcome::Malformed(e),
        })
    }

    /// Process a decoded LCI from UP function `node`.
    pub fn handle_lci(
        &mut self,
        node: &NodeKey,
        lci: &LoadControlInformation,
        now: Instant,
    ) -> LciOutcome {
        let seq = lci.sequence_number.0;
        let load = lci.metric.percent();
        if let Some(e) = self.entries.get_mut(node) {
            return match compare(e.seq, seq, self.config.reset_window) {
                SequenceOrder::Same => LciOutcome::Duplicate,
                SequenceOrder::Older => LciOutcome::Stale,
                SequenceOrder::Newer | SequenceOrder::Reset => {
                    *e = LoadEntry { seq, load, at: now };
                    LciOutcome::Applied { load }
                }
            };
        }
        if self.entries.len() >= self.config.max_entries {
            let stalest = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.at)
                .map(|(k, _)| k.clone());
            if let Some(k) = stalest {
                self.entries.remove(&k);
            }
        }
        if self.config.max_entries > 0 {
            self.entries
                .insert(node.clone(), LoadEntry { seq, load, at: now });
        }
        LciOutcome::Applied { load }
    }

    /// The load of `node` in percent, `None` if unknown (never reported, reset, or older than
    /// `max_age`).
    pub fn load(&self, node: &NodeKey, now: Instant) -> Option<u8> {
        let e = self.entries.get(node)?;
        match self.config.max_age {
            Some(age) if now.saturating_duration_since(e.at) > age => None,
            _ => Some(e.load),
        }
    }

    /// Forget the load of `node` (restart, new association, release).
    pub fn reset_peer(&mut self, node: &NodeKey) {
        self.entries.remove(node);
    }

    /// Number of UP functions tracked.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no UP function is tracked.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A UP function that may serve a new session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its Node ID.
    pub node: NodeKey,
    /// Static capacity weight from configuration (e.g. relative signalling capacity); 0 never
    /// selects it.
    pub weight: u32,
}

/// What [`UpSelector::select_with`] reads of one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CandidateView {
    /// Its Load Metric in force, if any ([`LoadTable::load`]).
    pub load: Option<u8>,
    /// Its node-scoped reduction in force and when a message last confirmed it
    /// ([`OverloadTable::node_reduction`]); `None` without a node-scoped state.
    pub node_reduction: Option<(u8, Instant)>,
}

/// Selects the UP function for a new session (Annex B: implementation specific; digest 5).
///
/// Score of a candidate = `weight x (100 - load + spare_offset) x (100 - reduction)`, where
/// *load* is its last LCI (or [`UpSelector::unknown_load`] when unknown) and *reduction* its
/// current node-scoped overload metric, counted while a message from it has confirmed it
/// within [`UpSelector::reprobe_after`]. Candidates whose reduction reaches
/// [`UpSelector::avoid_reduction`] are skipped unless every candidate is in that state. The
/// pick is weighted by score with a draw the caller passes in (read as a fraction of 2^64), so
/// the selection is deterministic for a given draw and spreads load in proportion to spare
/// capacity rather than herding onto the single least-loaded UP.
///
/// **Draws.** Random draws split the sessions binomially: over a control interval a UP
/// function gets its share plus or minus the square root of it, which a UP function running
/// at its capacity refuses. A Weyl sequence (`start + k x 0x9E37_79B9_7F4A_7C15`, any start)
/// splits them with an error of a session or two over any run of picks, as a smooth weighted
/// round robin would, and needs no state here; `pfcp-node`'s `Node::select_up` passes one
/// (`docs/overload-control.md`, UP selection).
///
/// # Examples
///
/// ```
/// use std::time::Instant;
/// use pfcp_overload::{Candidate, LoadConfig, LoadTable, NodeKey, OverloadTable, UpSelector};
/// use pfcp_wire::ie::{ControlSequenceNumber, LoadControlInformation, Metric};
///
/// let candidates = [
///     Candidate { node: NodeKey::fqdn("upf1.example.net"), weight: 1 },
///     Candidate { node: NodeKey::fqdn("upf2.example.net"), weight: 1 },
/// ];
/// let now = Instant::now();
/// let mut loads = LoadTable::new(LoadConfig::default());
/// // upf1 reports a Load Metric of 100 % (clause 8.2.36): no spare capacity.
/// let full = LoadControlInformation {
///     sequence_number: ControlSequenceNumber(1),
///     metric: Metric::new(100).ok_or("over 100 %")?,
/// };
/// loads.handle_lci(&candidates[0].node, &full, now);
///
/// let selector = UpSelector::default();
/// // weight x (100 - load + spare_offset) x (100 - reduction); unknown load counts as 50.
/// assert_eq!(selector.score(&candidates[0], Some(100), 0), 0);
/// assert_eq!(selector.score(&candidates[1], None, 0), 50 * 100);
/// let overload = OverloadTable::default();
/// for draw in [0, u64::MAX / 2, u64::MAX] {
///     assert_eq!(selector.select(&candidates, &loads, &overload, now, draw), Some(1));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpSelector {
    /// Load assumed for a UP without a (fresh) LCI. Default 50.
    pub unknown_load: u8,
    /// Reduction at or above which a UP is avoided. Default 100: only a UP function that asks
    /// for all its traffic to stop. Below it the score's factor `100 - reduction` weighs a UP
    /// function continuously. A threshold inside the range that reductions take under overload
    /// switches every CP's new sessions at once when a UP function crosses it: with two
    /// `pfcp up` and 8 `pfcp cp` at 2x, 50 made both UP functions' metrics swing between 0 and
    /// 80 % every few hundred milliseconds, at goodput 0.66-0.68 (0.94-0.98 with 100).
    pub avoid_reduction: u8,
    /// Points added to every candidate's spare capacity (`100 - load`). Default 0: the LCI
    /// decides the split, as it must when the weights say nothing of capacity (all equal).
    /// With weights proportional to capacity, an offset makes the LCI a correction: near
    /// saturation `100 - load` is a few points, so a point of load moves a UP's share by tens
    /// of percent and the split swings from one report to the next; an offset of 25 cuts that
    /// gain fourfold (`docs/overload-control.md`, UP selection).
    pub spare_offset: u8,
    /// How long a UP function's reduction counts for the selection without a message from it
    /// that confirms it ([`OverloadTable::confirmed`]); after that it counts as 0 (in the
    /// score and for [`UpSelector::avoid_reduction`]) until a message from it comes. A CP
    /// function that sends little or nothing to a UP function cannot learn that its overload
    /// has ended: OCI rides only on the UP function's messages (Table 7.3-1). Without this,
    /// the CP functions that turned from a UP function in a storm stay away from it after the
    /// storm, up to the OCI's whole Period of Validity, while the UP functions they kept take
    /// its share (`docs/overload-control.md`, UP selection). What is then sent to it still
    /// passes its Loss throttle at the reduction in force, and its first response brings the
    /// current OCI. `None`: a reduction counts until its validity ends. Default 50 ms, a
    /// quarter of the reporter's default control interval and the spacing of its checks within
    /// the interval (`OverloadReporter::handle_window`): a reduction older than that may
    /// already have been lowered, and a UP function the CPs avoid on old news
    /// gets nothing to answer with the new (`docs/overload-control.md`, "Two UP functions
    /// opening apart").
    pub reprobe_after: Option<Duration>,
}

impl Default for UpSelector {
    fn default() -> Self {
        UpSelector {
            unknown_load: 50,
            avoid_reduction: 100,
            spare_offset: 0,
            reprobe_after: Some(Duration::from_millis(50)),
        }
    }
}

impl UpSelector {
    /// With `spare_offset` set (see the field).
    #[must_use]
    pub fn with_spare_offset(mut self, spare_offset: u8) -> Self {
        self.spare_offset = spare_offset;
        self
    }

    /// With `reprobe_after` set (see the field).
    #[must_use]
    pub fn with_reprobe_after(mut self, reprobe_after: Option<Duration>) -> Self {
        self.reprobe_after = reprobe_after;
        self
    }
}

impl UpSelector {
    /// The score of one candidate (0 = never picked).
    pub fn score(&self, c: &Candidate, load: Option<u8>, reduction: u8) -> u64 {
        let load = u64::from(load.unwrap_or(self.unknown_load).min(100));
        let reduction = u64::from(reduction.min(100));
        let spare = 100 - load + u64::from(self.spare_offset);
        u64::from(c.weight) * spare * (100 - reduction)
    }

    /// Index of the chosen candidate, or `None` if none has a positive score. `draw` is a
    /// uniformly distributed `u64`: from the caller's RNG or, better, the next term of a Weyl
    /// sequence (see the type's docs, "Draws").
    pub fn select(
        &self,
        candidates: &[Candidate],
        loads: &LoadTable,
        overload: &OverloadTable,
        now: Instant,
        draw: u64,
    ) -> Option<usize> {
        self.select_with(
            candidates,
            |c| CandidateView {
                load: loads.load(&c.node, now),
                node_reduction: overload.node_reduction(&c.node, now),
            },
            now,
            draw,
        )
    }

    /// [`UpSelector::select`] for a caller that keeps each UP function's load and overload
    /// apart (one view per peer): `view` gives what [`LoadTable::load`] and the node-scoped
    /// state of [`OverloadTable::node_reduction`] would, for each candidate.
    pub fn select_with(
        &self,
        candidates: &[Candidate],
        view: impl Fn(&Candidate) -> CandidateView,
        now: Instant,
        draw: u64,
    ) -> Option<usize> {
        // The reduction that counts: the node-scoped one while a message confirmed it.
        let reduction = |c: &Candidate| match view(c).node_reduction {
            Some((r, confirmed))
                if self
                    .reprobe_after
                    .is_none_or(|after| now.saturating_duration_since(confirmed) <= after) =>
            {
                r
            }
            _ => 0,
        };
        // A CP selects for every new session: remember the reductions and scores of a few
        // candidates rather than look them up again (no allocation, see tests/no_alloc.rs).
        let mut reductions = [0u8; 16];
        let mut cache = [0u64; 16];
        let cached = candidates.len() <= cache.len();
        for (slot, c) in reductions.iter_mut().zip(candidates) {
            *slot = reduction(c);
        }
        let reduction_of = |i: usize, c: &Candidate| match reductions.get(i) {
            Some(&r) if cached => r,
            _ => reduction(c),
        };
        let any_ok = candidates
            .iter()
            .enumerate()
            .any(|(i, c)| c.weight > 0 && reduction_of(i, c) < self.avoid_reduction);
        let score = |i: usize, c: &Candidate| {
            let r = reduction_of(i, c);
            if any_ok && r >= self.avoid_reduction {
                0
            } else {
                self.score(c, view(c).load, r)
            }
        };
        let mut total = 0u64;
        for (i, c) in candidates.iter().enumerate() {
            let s = score(i, c);
            if let Some(slot) = cache.get_mut(i) {
                *slot = s;
            }
            total += s;
        }
        if total == 0 {
            // Every candidate is full or fully shed: fall back to the static weights, so a
            // session is still placed where it has the best chance.
            let weights: u64 = candidates.iter().map(|c| u64::from(c.weight)).sum();
            if weights == 0 {
                return None;
            }
            let mut pick = scale(draw, weights);
            for (i, c) in candidates.iter().enumerate() {
                let w = u64::from(c.weight);
                if pick < w {
                    return Some(i);
                }
                pick -= w;
            }
            return None;
        }
        let mut pick = scale(draw, total);
        for (i, c) in candidates.iter().enumerate() {
            let s = match cache.get(i) {
                Some(&s) if cached => s,
                _ => score(i, c),
            };
            if pick < s {
                return Some(i);
            }
            pick -= s;
        }
        None
    }
}

/// `draw` as a fraction of 2^64, scaled to `0..total` (multiply-high, not a remainder): a run
/// of well-spread draws, such as a Weyl sequence, gives a run of well-spread picks.
pub(crate) fn scale(draw: u64, total: u64) -> u64 {
    ((u128::from(draw) * u128::from(total)) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfcp_test_support::ies::lci;
    use pfcp_wire::ie::{ControlSequenceNumber, Metric};

    /// UP functions "a" and "b" of weight 1.
    fn two_candidates() -> [Candidate; 2] {
        ["a", "b"].map(|n| Candidate {
            node: NodeKey::fqdn(n),
            weight: 1,
        })
    }

    /// `n` draws spaced evenly over `u64` (rounded up, so that draw `d` reads as `d / n`).
    fn spaced(n: u64) -> impl Iterator<Item = u64> {
        let n = u128::from(n);
        (0..n).map(move |d| (d << 64).div_ceil(n) as u64)
    }

    #[test]
    fn clause_6_2_3_3_2_sequencing() {
        let now = crate::test_now();
        let n = NodeKey::fqdn("upf1");
        let mut t = LoadTable::default();
        assert_eq!(
            t.handle_lci(&n, &lci(5, 40), now),
            LciOutcome::Applied { load: 40 }
        );
        assert_eq!(t.handle_lci(&n, &lci(5, 90), now), LciOutcome::Duplicate);
        assert_eq!(t.handle_lci(&n, &lci(4, 90), now), LciOutcome::Stale);
        assert_eq!(t.load(&n, now), Some(40));
        assert_eq!(
            t.handle_lci(&n, &lci(6, 70), now),
            LciOutcome::Applied { load: 70 }
        );
        // Clause 8.2.34: above 100 is 0 % load.
        assert_eq!(
            t.handle_lci(&n, &lci(7, 150), now),
            LciOutcome::Applied { load: 0 }
        );
        t.reset_peer(&n);
        assert_eq!(
            t.handle_lci(&n, &lci(1, 10), now),
            LciOutcome::Applied { load: 10 }
        );
    }

    /// Clause 6.2.3.3.2 with serial numbers: newer across the wrap, a late pre-wrap number
    /// older after it; a number beyond the reset window behind is a restarted counter.
    #[test]
    fn clause_6_2_3_3_2_serial_order_and_reset() {
        let now = crate::test_now();
        let n = NodeKey::fqdn("upf1");
        let mut t = LoadTable::default();
        t.handle_lci(&n, &lci(u32::MAX, 40), now);
        assert_eq!(
            t.handle_lci(&n, &lci(3, 60), now),
            LciOutcome::Applied { load: 60 }
        );
        assert_eq!(t.handle_lci(&n, &lci(u32::MAX, 40), now), LciOutcome::Stale);
        assert_eq!(t.load(&n, now), Some(60));
        t.handle_lci(&n, &lci(100_000, 70), now);
        assert_eq!(
            t.handle_lci(&n, &lci(100_000 - 4096, 10), now),
            LciOutcome::Stale
        );
        assert_eq!(
            t.handle_lci(&n, &lci(1, 10), now),
            LciOutcome::Applied { load: 10 }
        );
    }

    /// Some UP functions send their LCI only in Heartbeat messages (not a carrier of Table
    /// 7.3-1): read by default, refused as unexpected when `heartbeat_lci` is off.
    #[test]
    fn an_lci_in_a_heartbeat_is_read_unless_turned_off() {
        // Heartbeat Request (clause 7.4.2.1): Recovery Time Stamp, then an LCI of sequence
        // number 9 and metric 42 (Table 7.5.3.3-1), as scapy dissects it.
        let b = pfcp_wire::owned::parse_hex(concat!(
            "2001001d00000100",
            "00600004e8f4a2b0",
            "0033000d00340004000000090035",
            "00012a"
        ))
        .unwrap();
        let msg = Message::decode(&b).unwrap();
        let now = crate::test_now();
        let n = NodeKey::fqdn("upf1");
        let mut t = LoadTable::default();
        assert_eq!(
            t.handle_message(&n, &msg, now),
            Some(LciOutcome::Applied { load: 42 })
        );
        assert_eq!(t.load(&n, now), Some(42));
        let mut strict = LoadTable::new(LoadConfig::default().with_heartbeat_lci(false));
        assert_eq!(
            strict.handle_message(&n, &msg, now),
            Some(LciOutcome::UnexpectedMessage)
        );
        assert_eq!(strict.load(&n, now), None);
    }

    #[test]
    fn max_age_makes_reports_unknown() {
        let now = crate::test_now();
        let n = NodeKey::fqdn("upf1");
        let mut t = LoadTable::new(LoadConfig {
            max_age: Some(Duration::from_secs(30)),
            ..LoadConfig::default()
        });
        t.handle_lci(&n, &lci(1, 40), now);
        assert_eq!(t.load(&n, now + Duration::from_secs(30)), Some(40));
        assert_eq!(t.load(&n, now + Duration::from_secs(31)), None);
    }

    #[test]
    fn selector_weighs_spare_capacity_and_avoids_overloaded() {
        let now = crate::test_now();
        let [a, b] = two_candidates();
        let mut loads = LoadTable::default();
        loads.handle_lci(&a.node, &lci(1, 80), now);
        loads.handle_lci(&b.node, &lci(1, 20), now);
        let overload = OverloadTable::default();
        let sel = UpSelector::default();
        let cands = [a.clone(), b.clone()];
        // Scores: a = 20 x 100, b = 80 x 100: of 10 000 evenly spaced draws, b gets exactly
        // 80 %.
        let picks_b = spaced(10_000)
            .filter(|d| sel.select(&cands, &loads, &overload, now, *d) == Some(1))
            .count();
        assert_eq!(picks_b, 8000);
        // b overloaded at 60 %: by default weighed by the 40 % left (a = 2000, b = 3200).
        let mut overload = OverloadTable::default();
        let origin = crate::OciOrigin::new(b.node.clone(), None);
        let oci = pfcp_wire::ie::OverloadControlInformation {
            sequence_number: ControlSequenceNumber(1),
            metric: Metric::new(60).unwrap(),
            period_of_validity: pfcp_wire::ie::Timer::INFINITE,
            flags: None,
        };
        overload.handle_oci(&origin, &oci, now);
        let picks_b = spaced(5200)
            .filter(|d| sel.select(&cands, &loads, &overload, now, *d) == Some(1))
            .count();
        assert_eq!(picks_b, 3200);
        // With a threshold at 50 it is avoided.
        let strict = UpSelector {
            avoid_reduction: 50,
            ..UpSelector::default()
        };
        for d in spaced(100) {
            assert_eq!(strict.select(&cands, &loads, &overload, now, d), Some(0));
        }
    }

    #[test]
    fn an_avoided_up_without_news_is_tried_again() {
        let now = crate::test_now();
        let cands = two_candidates();
        let b = cands[1].clone();
        let loads = LoadTable::default();
        let mut overload = OverloadTable::default();
        let origin = crate::OciOrigin::new(b.node.clone(), None);
        let oci = pfcp_test_support::ies::oci(1, 90, pfcp_wire::ie::Timer::INFINITE, true);
        overload.handle_oci(&origin, &oci, now);
        let picks_b = |sel: &UpSelector, overload: &OverloadTable, at: Instant| {
            spaced(10_000)
                .filter(|d| sel.select(&cands, &loads, overload, at, *d) == Some(1))
                .count()
        };
        let sel = UpSelector {
            avoid_reduction: 50,
            ..UpSelector::default()
        };
        let ms = Duration::from_millis;
        // Within 50 ms of the OCI: avoided.
        assert_eq!(picks_b(&sel, &overload, now + ms(50)), 0);
        // Nothing since: scored as though not reduced, so both unknown loads share evenly.
        assert_eq!(picks_b(&sel, &overload, now + ms(51)), 5000);
        // A message from b confirms its reduction: avoided again for 50 ms.
        overload.confirm(&b.node, now + ms(300));
        assert_eq!(picks_b(&sel, &overload, now + ms(350)), 0);
        assert_eq!(picks_b(&sel, &overload, now + ms(351)), 5000);
        // The default selector avoids nothing below 100 %: it weighs b by the 10 % its OCI
        // leaves (a = 50 x 100, b = 50 x 10), and not at all once the OCI is unconfirmed.
        let soft = UpSelector::default();
        assert!((909..=910).contains(&picks_b(&soft, &overload, now + ms(350))));
        assert_eq!(picks_b(&soft, &overload, now + ms(351)), 5000);
        // A longer memory, as before the default changed: still avoided at 200 ms.
        let long = sel.clone().with_reprobe_after(Some(ms(200)));
        assert_eq!(picks_b(&long, &overload, now + ms(500)), 0);
        assert_eq!(picks_b(&long, &overload, now + ms(501)), 5000);
        // Without re-probing it stays avoided while the OCI is valid.
        let strict = sel.clone().with_reprobe_after(None);
        assert_eq!(
            picks_b(&strict, &overload, now + Duration::from_secs(60)),
            0
        );
    }

    #[test]
    fn weyl_draws_follow_the_scores_within_a_pick_or_two() {
        let now = crate::test_now();
        let cands: Vec<Candidate> = (0..3)
            .map(|i| Candidate {
                node: NodeKey::fqdn(&format!("up{i}")),
                weight: [1500, 500, 1000][i],
            })
            .collect();
        let (loads, overload) = (LoadTable::default(), OverloadTable::default());
        let sel = UpSelector::default();
        // Shares 1/2, 1/6, 1/3 (equal unknown loads). Over every window of picks, from any
        // start, each count stays within 2 of its share; SplitMix64's random draws stray by
        // about the square root of it (checked below to show the difference is real).
        let picks = |draws: &[u64]| -> Vec<usize> {
            draws
                .iter()
                .map(|&d| sel.select(&cands, &loads, &overload, now, d).unwrap())
                .collect()
        };
        let worst = |picked: &[usize]| -> f64 {
            let mut worst = 0.0f64;
            for window in [10usize, 60, 600] {
                for start in (0..picked.len() - window).step_by(7) {
                    for (i, share) in [0.5, 1.0 / 6.0, 1.0 / 3.0].iter().enumerate() {
                        let n = picked[start..start + window]
                            .iter()
                            .filter(|&&p| p == i)
                            .count();
                        worst = worst.max((n as f64 - share * window as f64).abs());
                    }
                }
            }
            worst
        };
        // The golden ratio's step, and a noble number's as `pfcp-node` draws per seed
        // ([0; 1, 2, 1, 2, 2, 1, 1, 2, 1, 2, 1, 1, ...] = 0.73008...).
        for step in [0x9E37_79B9_7F4A_7C15u64, 0xBAE6_B205_A1DE_F801] {
            for start in [0u64, 0xDEAD_BEEF, u64::MAX - 5] {
                let weyl: Vec<u64> = (1..=3000u64)
                    .map(|k| start.wrapping_add(k.wrapping_mul(step)))
                    .collect();
                assert!(
                    worst(&picks(&weyl)) <= 2.0,
                    "step {step:#x}, start {start:#x}"
                );
            }
        }
        let random: Vec<u64> = (1..=3000u64)
            .map(|k| {
                let mut z = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            })
            .collect();
        assert!(worst(&picks(&random)) > 6.0);
    }
}
