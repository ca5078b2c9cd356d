//! What each peer is told, and when (TS 29.244 clauses 6.2.4.2, 6.2.4.3.1, 6.2.4.3.2, 8.2.76).
//!
//! The reporter remembers, per peer and per scope (the PFCP entity, AOCI=0, and the UP
//! function's Node ID, AOCI=1), the last OCI it sent: its number, its metric, when its validity
//! must be extended and when it lapses at the CP function. A scope is sent a new OCI, with a
//! new number, only when what it should apply differs from what it holds, or its validity is
//! due for extension (6.2.4.3.2.1: the number "shall not be incremented otherwise"); the
//! [`InclusionPolicy`] says which messages carry it, and which repeat the current one.
//!
//! The *provisional* OCI is the one a refusal carries while the law has no metric: the
//! caller's own measurement of its refusals (e.g. `pfcp-node`'s admission queue) gives its
//! metric, the reporter its number, from the same count as the law's, and a short validity
//! ([`ReporterConfig::provisional_validity`](super::ReporterConfig::provisional_validity)). It
//! is node-scoped (the queue measures the whole UP function), told only on refusals (every
//! refusal carries it, the same OCI while nothing changes) and to peers that hold a reduction
//! on their node scope, re-issued with a new number when its metric rises or half its validity
//! has passed, ended (metric 0) after a control interval without a refusal, and superseded by
//! the law's first publication.

use std::hash::Hash;
use std::time::{Duration, Instant};

use pfcp_wire::ie::{ControlSequenceNumber, Metric, OciFlags, OverloadControlInformation};
use pfcp_wire::{Cause, MessageType};

use super::{admitted_share, timer, InclusionPolicy, OverloadReporter};
use crate::sequence::is_after;

/// What one scope of a peer holds, as far as the reporter knows: the last OCI it was sent.
#[derive(Debug, Clone, Copy)]
struct Told {
    seq: u32,
    metric: u8,
    /// From when its validity must be extended with a new number (`None`: never, a metric
    /// of 0 or a validity too short to halve).
    refresh_at: Option<Instant>,
    /// When the CP function stops applying it (`None`: never).
    expires: Option<Instant>,
    /// A provisional OCI.
    provisional: bool,
}

impl Told {
    /// Whether its validity ran out at the CP function by `now`.
    fn lapsed(&self, now: Instant) -> bool {
        self.expires.is_some_and(|t| now >= t)
    }

    /// The metric the scope applies at `now`.
    fn holds(&self, now: Instant) -> u8 {
        if self.lapsed(now) {
            0
        } else {
            self.metric
        }
    }
}

/// The reporter's state of one peer.
#[derive(Debug, Clone)]
pub(super) struct PeerState {
    pub(super) ovrl: bool,
    /// Its place in the dither order, in `[0, 1)` ([`ReporterConfig::dither`](super::ReporterConfig::dither)).
    pub(super) rank: f64,
    entity: Option<Told>,
    node: Option<Told>,
    /// The metric this peer was last told (it applies it from then on).
    applied: u8,
    /// Requests from it since the last fold ([`OverloadReporter::record_arrival`]).
    pub(super) arrived: u64,
    /// Demand reconstructed from its arrivals earlier in the interval, under older metrics.
    demand: f64,
    /// Messages to it that may carry an OCI ([`InclusionPolicy::EveryNth`]).
    eligible: u64,
    /// When it was last sent an OCI ([`InclusionPolicy::Periodic`]).
    last_included: Option<Instant>,
}

impl PeerState {
    pub(super) fn new(ovrl: bool, rank: f64) -> PeerState {
        PeerState {
            ovrl,
            rank,
            entity: None,
            node: None,
            applied: 0,
            arrived: 0,
            demand: 0.0,
            eligible: 0,
            last_included: None,
        }
    }

    /// Fold the arrivals so far into the demand, under the metric in force, and start
    /// counting under `metric`.
    fn told(&mut self, metric: u8) {
        self.demand += self.arrived as f64 / admitted_share(self.applied);
        self.arrived = 0;
        self.applied = metric;
    }

    /// The demand of the interval: its arrivals under what it was told. Resets the counts.
    pub(super) fn take_demand(&mut self) -> f64 {
        let demand = self.demand + self.arrived as f64 / admitted_share(self.applied);
        self.demand = 0.0;
        self.arrived = 0;
        demand
    }

    /// Forget what its scopes hold (the count of numbers started again).
    pub(super) fn forget_told(&mut self) {
        self.entity = None;
        self.node = None;
    }

    fn scope(&mut self, node: bool) -> &mut Option<Told> {
        if node {
            &mut self.node
        } else {
            &mut self.entity
        }
    }
}

/// The provisional OCI's state.
#[derive(Debug, Clone, Copy)]
pub(super) struct Provisional {
    metric: u8,
    seq: u32,
    issued: Instant,
    expires: Instant,
    /// The law's number when it was issued: once the law publishes, its state is newer.
    law_seq: Option<u32>,
}

/// A provisional OCI in force ([`OverloadReporter::provisional`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProvisionalOci {
    /// Its Overload Reduction Metric (0: the end of the refusals' episode).
    pub metric: u8,
    /// Its Overload Control Sequence Number.
    pub sequence_number: u32,
    /// When it was issued.
    pub issued: Instant,
    /// When its Period of Validity ends.
    pub expires: Instant,
}

/// What one OCI is about to tell a scope.
#[derive(Debug, Clone, Copy)]
struct Target {
    metric: u8,
    /// The provisional OCI's number, when it is the provisional OCI.
    provisional: Option<u32>,
}

impl<P: Hash + Eq + Clone> OverloadReporter<P> {
    /// The provisional OCI in force at `now`, if any: issued while the law publishes no
    /// metric, the law still where it was, and its validity not run out.
    pub fn provisional(&self, now: Instant) -> Option<ProvisionalOci> {
        self.provisional_in_force(now).map(|p| ProvisionalOci {
            metric: p.metric,
            sequence_number: p.seq,
            issued: p.issued,
            expires: p.expires,
        })
    }

    fn provisional_in_force(&self, now: Instant) -> Option<Provisional> {
        self.provisional
            .filter(|p| self.published == 0 && self.law_seq == p.law_seq && now < p.expires)
    }

    /// The Period of Validity of provisional OCIs as the CP function applies it (the Timer
    /// rounds up).
    fn provisional_validity(&self) -> Duration {
        let v = self.config.provisional_validity;
        timer(v).duration().unwrap_or(v)
    }

    /// The OCI to piggyback on the next message of `message_type` (with `cause`, for
    /// responses) to `peer`, per the inclusion policy; records what the peer was told.
    ///
    /// The peer is told the law's level for it ([`OverloadReporter::metric_for`]), or the end
    /// or an update of a provisional OCI it holds. A new sequence number goes with every
    /// change of what a scope holds and with the extension of its validity, due
    /// [`ReporterConfig::refresh_before`](super::ReporterConfig::refresh_before) ahead of its
    /// end; so an application that sends nothing to a peer for a while never sends a number
    /// whose validity has run out (the CP would ignore it, 6.2.4.3.2.1 NOTE 1).
    pub fn oci_for(
        &mut self,
        peer: &P,
        message_type: MessageType,
        cause: Option<Cause>,
        now: Instant,
    ) -> Option<OverloadControlInformation> {
        self.tell(peer, message_type, cause, false, now)
    }

    /// The OCI for a refusal (a Cause 74 response of `message_type`) to `peer`. While the law
    /// publishes a metric, what [`OverloadReporter::oci_for`] gives. While it publishes none
    /// (before its first measured overload, or when the refusals come from a burst the
    /// interval's arrivals did not show), `provisional` is the metric the caller's own count
    /// of refusals calls for (`None` or 0: no cut is due, and the refusal carries what
    /// [`OverloadReporter::oci_for`] gives): the
    /// reporter tells it node-scoped (AOCI=1) with a number of its own count and
    /// [`ReporterConfig::provisional_validity`](super::ReporterConfig::provisional_validity),
    /// keeps that number while the metric does not rise and half the validity has not
    /// passed (every refusal carries it, under [`InclusionPolicy::UntilCurrent`] too), and
    /// ends it (metric 0, a new number) to the peers that hold it once a control
    /// interval passed without a refusal. The metric is rounded up to the grid of
    /// [`ReporterConfig::metric_step`](super::ReporterConfig::metric_step), at most
    /// [`ReporterConfig::max_told`](super::ReporterConfig::max_told).
    pub fn oci_for_refusal(
        &mut self,
        peer: &P,
        message_type: MessageType,
        provisional: Option<u8>,
        now: Instant,
    ) -> Option<OverloadControlInformation> {
        let cause = Some(Cause::PFCP_ENTITY_IN_CONGESTION);
        if self.published > 0 {
            return self.tell(peer, message_type, cause, false, now);
        }
        if !message_type.may_carry_oci()
            || !self.peer_ovrl(peer)
            || self.config.inclusion == InclusionPolicy::Never
        {
            return None;
        }
        let step = self.config.metric_step();
        let metric = provisional
            .map(|m| {
                m.div_ceil(step)
                    .saturating_mul(step)
                    .min(self.config.max_told())
            })
            .unwrap_or(0);
        if metric == 0 {
            // No cut due: what the peer is owed otherwise (the end of a reduction it holds).
            return self.tell(peer, message_type, cause, false, now);
        }
        self.last_refusal = Some(now);
        self.issue_provisional(metric, now);
        self.tell(peer, message_type, cause, true, now)
    }

    /// The provisional OCI for `metric` at `now`: the one in force if it still says enough,
    /// else a new one with a fresh number.
    fn issue_provisional(&mut self, metric: u8, now: Instant) {
        let validity = self.provisional_validity();
        if let Some(p) = self.provisional_in_force(now) {
            // Within an episode the value only rises (raise fast), and the number stays while
            // nothing changes. Past half its validity it is issued again with a new number,
            // which extends the validity while the refusals go on.
            let young = now.saturating_duration_since(p.issued) < validity / 2;
            if young && metric <= p.metric {
                return;
            }
        }
        let seq = self.next_sequence(now);
        self.provisional = Some(Provisional {
            metric,
            seq,
            issued: now,
            expires: now.checked_add(validity).unwrap_or(now),
            law_seq: self.law_seq,
        });
    }

    /// End the provisional OCI in force (metric 0, a new number), when a control interval
    /// passed without a refusal: the CP functions would otherwise apply its reduction for the
    /// rest of its validity, long after the burst that caused it.
    fn end_provisional(&mut self, now: Instant) -> Option<Provisional> {
        let p = self.provisional_in_force(now)?;
        let calm = self
            .last_refusal
            .is_none_or(|t| now.saturating_duration_since(t) >= self.config.interval);
        if p.metric == 0 || !calm {
            return Some(p);
        }
        let seq = self.next_sequence(now);
        let ended = Provisional {
            metric: 0,
            seq,
            issued: now,
            ..p
        };
        self.provisional = Some(ended);
        Some(ended)
    }

    /// The OCI for a message to `peer`, per the module docs; `refusal` when it is a refusal
    /// that asked for the provisional OCI (just issued).
    fn tell(
        &mut self,
        peer: &P,
        message_type: MessageType,
        cause: Option<Cause>,
        refusal: bool,
        now: Instant,
    ) -> Option<OverloadControlInformation> {
        let policy = self.config.inclusion;
        if !message_type.may_carry_oci() || policy == InclusionPolicy::Never {
            return None;
        }
        let levels = self.levels();
        let (rank, node_reduced) = {
            let p = self.peers.get_mut(peer).filter(|p| p.ovrl)?;
            p.eligible += 1;
            let reduced = p.node.is_some_and(|t| t.holds(now) > 0);
            (p.rank, reduced)
        };
        // The provisional OCI goes with refusals, and to peers whose node scope holds a
        // reduction (its update, its end); the others hear the law.
        let provisional = if self.provisional_in_force(now).is_some() && (refusal || node_reduced) {
            if refusal {
                self.provisional_in_force(now)
            } else {
                self.end_provisional(now)
            }
        } else {
            None
        };
        let law = Target {
            metric: levels.metric(rank),
            provisional: None,
        };
        let rejected = cause.is_some_and(|c| c.is_acceptance() == Some(false));
        let rejected_establishment =
            message_type == MessageType::SESSION_ESTABLISHMENT_RESPONSE && rejected;
        let refresh_before = self.config.refresh_before;
        let validity = self.config.validity;
        let provisional_validity = self.provisional_validity();
        let p = self.peers.get_mut(peer)?;
        // Whether a scope holding `held` must be told `target` afresh: what it applies
        // differs, or its validity is due for extension (not a provisional OCI's while one is
        // in force: that one is extended by issuing it again).
        let stale = |held: Option<Told>, target: Target| match held.filter(|t| !t.lapsed(now)) {
            None => target.metric > 0,
            Some(t) => match target.provisional {
                Some(seq) => t.seq != seq || t.metric != target.metric,
                None => {
                    t.metric != target.metric
                        || target.metric > 0
                            && t.refresh_at.is_some_and(|r| now >= r)
                            && !(t.provisional && provisional.is_some())
                }
            },
        };
        let (node, target) = match provisional {
            Some(pr) => (
                true,
                Target {
                    metric: pr.metric,
                    provisional: Some(pr.seq),
                },
            ),
            None => {
                let mut node = self.config.node_scoped || rejected_establishment;
                // The node scope (AOCI=1, e.g. from a rejected establishment) holds something
                // else while the entity scope is current: bring it up to date (AOCI may be set
                // on any message, 8.2.76). Otherwise a lowered metric or the end of the
                // overload never reaches the node scope and the CP, which applies the larger
                // of the two, keeps the old reduction until its validity runs out.
                if !node
                    && !stale(p.entity, law)
                    && p.node
                        .is_some_and(|t| !t.lapsed(now) && t.metric != law.metric)
                {
                    node = true;
                }
                (node, law)
            }
        };
        let held = *p.scope(node);
        let fresh = stale(held, target);
        let repeat = !fresh && held.is_some_and(|t| t.holds(now) > 0);
        let include = match policy {
            // A refusal repeats the provisional OCI in force: no refusal leaves without it.
            InclusionPolicy::UntilCurrent => fresh || refusal && repeat,
            InclusionPolicy::EveryMessage => fresh || repeat,
            InclusionPolicy::Rejections => rejected && (fresh || repeat),
            InclusionPolicy::EveryNth(n) => {
                (p.eligible - 1) % u64::from(n.max(1)) == 0 && (fresh || repeat)
            }
            InclusionPolicy::Periodic(period) => {
                p.last_included
                    .is_none_or(|t| now.saturating_duration_since(t) >= period)
                    && (fresh || repeat)
            }
            InclusionPolicy::Never => false,
        };
        if !include {
            return None;
        }
        let told = if fresh {
            let preferred = target.provisional.unwrap_or(self.seq);
            let usable = self.seq_started && held.is_none_or(|t| is_after(preferred, t.seq));
            let seq = if usable {
                preferred
            } else {
                self.next_sequence(now)
            };
            let validity = if target.provisional.is_some() {
                provisional_validity
            } else {
                validity
            };
            let lead = if target.provisional.is_some() {
                validity / 2
            } else {
                match validity.saturating_sub(refresh_before) {
                    // With `refresh_before >= validity` the refresh comes halfway through.
                    Duration::ZERO => validity / 2,
                    lead => lead,
                }
            };
            let told = Told {
                seq,
                metric: target.metric,
                refresh_at: (target.metric > 0 && !lead.is_zero())
                    .then(|| now.checked_add(lead))
                    .flatten(),
                // The CP applies the validity as the Timer encodes it (rounded up, or for
                // ever beyond what it encodes): what lapses is what the CP drops.
                expires: timer(validity)
                    .duration()
                    .and_then(|applied| now.checked_add(applied)),
                provisional: target.provisional.is_some(),
            };
            let p = self.peers.get_mut(peer)?;
            *p.scope(node) = Some(told);
            p.told(target.metric);
            told
        } else {
            held?
        };
        let p = self.peers.get_mut(peer)?;
        p.last_included = Some(now);
        let validity = if told.provisional {
            provisional_validity
        } else {
            validity
        };
        Some(OverloadControlInformation {
            sequence_number: ControlSequenceNumber(told.seq),
            metric: Metric::from_raw(told.metric),
            period_of_validity: timer(validity),
            flags: node.then_some(OciFlags::AOCI),
        })
    }
}
