//! The receiving end (CP function): overload state learned from the OCIs of many UP peers
//! (TS 29.244 clause 6.2.4.3.2; Annex A.1; digest section 6.4).
//!
//! Rules, each with its clause:
//!
//! * **Sequencing** (6.2.4.3.2): numbers compare as serial numbers ([`crate::sequence`]): a
//!   newer one (up to 2^31 ahead, across the 32-bit wrap too) replaces the stored OCI and
//!   restarts the Period of Validity; the same number is ignored and does *not* restart it; an
//!   older one is ignored unless a reset is plausible: the stored OCI expired, the peer
//!   restarted or re-associated ([`OverloadTable::reset_peer`]), or the number lies further
//!   behind than a late retransmission can ([`OverloadConfig::reset_window`]; reported as
//!   [`OverloadEvent::SequenceReset`]).
//!   The number of an OCI whose validity ran out is remembered (per scope, bounded): the same
//!   number again does not start a new period (6.2.4.3.2.1 NOTE 1), only a new one does.
//! * **Validity** (8.2.35): a stopped timer (`0x00`) means the OCI is already expired; unit 111
//!   means it never expires. Expiry is driven by [`OverloadTable::handle_timeout`].
//! * **End of overload** (6.2.4.3.2): metric 0 ends it; the *absence* of OCI in a message does
//!   not. An entry with metric 0 is kept until its validity ends, so a late retransmission of
//!   an older, non-zero OCI cannot re-arm the overload.
//! * **Malformed OCI** (7.2.3.2, 7.6): an OCI with a missing or malformed member is ignored and
//!   reported as an event; it is never a reason to reject the carrying message.
//! * **Scope** (6.2.4.3.1, 8.2.76): entity (UP F-SEID address) by default, Node ID with AOCI.
//!   The reduction that applies to a request is the **larger** of the two (a node-wide
//!   overload cannot be undercut by a milder entity-level one, nor the reverse), the same
//!   choice GTPv2-C makes between overload sources (TS 29.274 Annex D.4).
//! * **Bounded memory**: at most [`OverloadConfig::max_entries`] scopes; when full, the entry
//!   closest to expiry is evicted first (it matters least), and an OCI is refused only if every
//!   entry is infinite.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::net::IpAddr;
use std::time::Instant;

use pfcp_wire::ie::{Metric, OverloadControlInformation};
use pfcp_wire::{DecodeError, Message};

use crate::scope::{NodeKey, OciOrigin, Scope};
use crate::sequence::{compare, SequenceOrder, DEFAULT_RESET_WINDOW};

/// Configuration of an [`OverloadTable`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OverloadConfig {
    /// Most scopes tracked at once (entities and nodes together). Default 4096.
    pub max_entries: usize,
    /// How far behind the stored sequence number a received one must lie to be taken for a
    /// reset of the sender's counter and processed, rather than for a late retransmission
    /// ([`crate::sequence`]). Default [`DEFAULT_RESET_WINDOW`] (4096 numbers).
    pub reset_window: u32,
    /// Most events queued for [`OverloadTable::poll_event`]; older ones are dropped and
    /// counted. Default 1024.
    pub max_events: usize,
}

impl Default for OverloadConfig {
    fn default() -> Self {
        OverloadConfig {
            max_entries: 4096,
            reset_window: DEFAULT_RESET_WINDOW,
            max_events: 1024,
        }
    }
}

impl OverloadConfig {
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
    /// With `max_events` set (see the field).
    #[must_use]
    pub fn with_max_events(mut self, max_events: usize) -> Self {
        self.max_events = max_events;
        self
    }
}

/// What happened to one received OCI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OciOutcome {
    /// Stored: it now drives the reduction of `scope` (until `expires`, `None` = never).
    Applied {
        /// The scope it applies to.
        scope: Scope,
        /// Effective reduction in percent (a metric above 100 reads as 0).
        metric: u8,
        /// When it stops applying; `None` for an infinite Period of Validity.
        expires: Option<Instant>,
    },
    /// Ignored, for the given reason.
    Ignored {
        /// The scope it would have applied to, if it could be determined.
        scope: Option<Scope>,
        /// Why.
        reason: IgnoreReason,
    },
}

/// Why an OCI was not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum IgnoreReason {
    /// Same sequence number as the stored OCI: no change, validity not restarted.
    Duplicate,
    /// Older sequence number than the stored, still valid OCI.
    Stale {
        /// Stored sequence number.
        stored: u32,
        /// Received sequence number.
        received: u32,
    },
    /// A member is missing or malformed (the message itself stays valid).
    Malformed(DecodeError),
    /// Carried by a message type that may not carry OCI (only 51, 53, 55, 56 may).
    UnexpectedMessage,
    /// The table is full of entries that never expire.
    TableFull,
    /// The same sequence number as an OCI whose Period of Validity has run out: it does not
    /// start a new period (6.2.4.3.2.1 NOTE 1: extending the validity needs a new number), so
    /// a late retransmission cannot revive an overload that has ended.
    Expired,
}

/// Something worth logging or counting, drained with [`OverloadTable::poll_event`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OverloadEvent {
    /// An OCI was applied or ignored.
    Oci(OciOutcome),
    /// A scope's Period of Validity ran out: its reduction is now 0.
    Expired(Scope),
    /// A scope was evicted to make room (the table was full).
    Evicted(Scope),
    /// All state of a peer was discarded (restart, new association, release).
    Reset(NodeKey),
    /// An OCI whose sequence number lies further behind the stored one than
    /// [`OverloadConfig::reset_window`] was applied: the UP function's counter started again
    /// (clause 6.2.4.3.2, "shall be prepared to receive (and process)").
    SequenceReset {
        /// The scope it applies to.
        scope: Scope,
        /// The stored sequence number.
        stored: u32,
        /// The received one.
        received: u32,
    },
}

#[derive(Debug, Clone)]
struct Entry {
    seq: u32,
    metric: u8,
    expires: Option<Instant>,
    node: NodeKey,
    /// The last message from the UP function that applied or confirmed it.
    confirmed: Instant,
}

impl Entry {
    /// Its metric while its Period of Validity runs at `now`, 0 after.
    fn metric_at(&self, now: Instant) -> u8 {
        if self.expires.is_none_or(|t| t > now) {
            self.metric
        } else {
            0
        }
    }
}

/// The stored state of one overload scope ([`OverloadTable::get`]): what the last applied OCI
/// of that scope said (clause 6.2.4.3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScopeState {
    /// The OCI's Overload Control Sequence Number (8.2.75).
    pub sequence_number: u32,
    /// Its Overload Reduction Metric, percent (8.2.34; above 100 read as 0).
    pub metric: u8,
    /// When its Period of Validity ends; `None` for an infinite one (8.2.121).
    pub expires: Option<Instant>,
}

/// The tables' hasher: seeded (their keys come from peers) and several times faster than
/// SipHash on addresses and short names (`reduction` runs for every request a CP sends).
type Seeded = foldhash::fast::RandomState;

/// Overload state of many UP peers, as seen by a CP function. Sans-IO: every call that
/// depends on time takes `now`.
///
/// ```
/// use std::net::{IpAddr, Ipv4Addr};
/// use std::time::{Duration, Instant};
/// use pfcp_overload::{NodeKey, OciOrigin, OverloadTable};
/// use pfcp_wire::ie::{ControlSequenceNumber, Metric, OverloadControlInformation, Timer};
///
/// let mut table = OverloadTable::default();
/// let now = Instant::now();
/// let upf = NodeKey::fqdn("upf1.example.net");
/// let entity: IpAddr = Ipv4Addr::new(192, 0, 2, 1).into();
/// let origin = OciOrigin::new(upf.clone(), Some(entity));
/// let oci = OverloadControlInformation {
///     sequence_number: ControlSequenceNumber(1),
///     metric: Metric::new(40).unwrap(),
///     period_of_validity: Timer::from_duration(Duration::from_secs(60)).unwrap(),
///     flags: None, // AOCI=0: applies to the PFCP entity 192.0.2.1
/// };
/// table.handle_oci(&origin, &oci, now);
/// assert_eq!(table.reduction(Some(entity), &upf, now), 40);
/// // Expiry is driven by handle_timeout: the state machine never reads the clock.
/// let later = table.poll_timeout().unwrap();
/// table.handle_timeout(later);
/// assert_eq!(table.reduction(Some(entity), &upf, later), 0);
/// ```
#[derive(Debug, Clone)]
pub struct OverloadTable {
    config: OverloadConfig,
    /// Entity-scoped entries, by PFCP entity address.
    entities: HashMap<IpAddr, Entry, Seeded>,
    /// Node-scoped entries, by Node ID: a map of its own so that [`OverloadTable::reduction`]
    /// looks a node up by `&NodeKey`, without building (for an FQDN, allocating) a `Scope`.
    nodes: HashMap<NodeKey, Entry, Seeded>,
    deadlines: BTreeSet<(Instant, Scope)>,
    /// The sequence number of the last OCI whose validity ran out, per scope, with its expiry
    /// and UP function, so that the same number is not applied again (6.2.4.3.2.1 NOTE 1).
    /// It shares `max_entries` with the entries.
    expired: HashMap<Scope, (u32, Instant, NodeKey), Seeded>,
    /// `expired` by expiry, oldest first: the order in which it is evicted.
    expired_order: BTreeSet<(Instant, Scope)>,
    events: VecDeque<OverloadEvent>,
    events_dropped: u64,
}

impl Default for OverloadTable {
    fn default() -> Self {
        Self::new(OverloadConfig::default())
    }
}

impl OverloadTable {
    /// An empty table.
    pub fn new(config: OverloadConfig) -> Self {
        OverloadTable {
            config,
            entities: HashMap::default(),
            nodes: HashMap::default(),
            deadlines: BTreeSet::new(),
            expired: HashMap::default(),
            expired_order: BTreeSet::new(),
            events: VecDeque::new(),
            events_dropped: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &OverloadConfig {
        &self.config
    }

    /// Process the OCI of a received message, if it carries one. `origin.entity` may be left
    /// `None` for a Session Establishment Response: the UP F-SEID in the message is used
    /// (its IPv4 address if present, else its IPv6 address).
    ///
    /// Returns `None` when the message has no OCI (which changes nothing: absence of OCI does
    /// not end an overload). Either way a message that may carry OCI confirms the stored
    /// state of `origin.node` ([`OverloadTable::confirm`]).
    pub fn handle_message(
        &mut self,
        origin: &OciOrigin,
        msg: &Message<'_>,
        now: Instant,
    ) -> Option<OciOutcome> {
        let may_carry = msg.message_type().may_carry_oci();
        if may_carry {
            self.confirm(&origin.node, now);
        }
        let raw = msg.find(pfcp_wire::IeType::OVERLOAD_CONTROL_INFORMATION)?;
        if !may_carry {
            return Some(self.ignore(None, IgnoreReason::UnexpectedMessage));
        }
        let oci = match raw.decode_as::<OverloadControlInformation>() {
            Ok(oci) => oci,
            Err(e) => return Some(self.ignore(None, IgnoreReason::Malformed(e))),
        };
        let mut origin = origin.clone();
        if origin.entity.is_none() {
            if let Ok(Some(f)) = msg.f_seid() {
                origin.entity = f.ipv4.map(IpAddr::V4).or(f.ipv6.map(IpAddr::V6));
            }
        }
        Some(self.handle_oci(&origin, &oci, now))
    }

    /// Process one decoded OCI that arrived from `origin` at `now`.
    pub fn handle_oci(
        &mut self,
        origin: &OciOrigin,
        oci: &OverloadControlInformation,
        now: Instant,
    ) -> OciOutcome {
        let scope = origin.scope(oci.aoci());
        let seq = oci.sequence_number.0;
        if self.expired.get(&scope).is_some_and(|(s, _, _)| *s == seq) {
            return self.ignore(Some(scope), IgnoreReason::Expired);
        }
        if let Some(stored) = self.entry(&scope) {
            if stored.expires.is_some_and(|t| t <= now) {
                // Lapsed, the timer not yet handled: the same rules as for a remembered number.
                if stored.seq == seq {
                    return self.ignore(Some(scope), IgnoreReason::Expired);
                }
            } else {
                match compare(stored.seq, seq, self.config.reset_window) {
                    SequenceOrder::Same => {
                        return self.ignore(Some(scope), IgnoreReason::Duplicate)
                    }
                    SequenceOrder::Older => {
                        let reason = IgnoreReason::Stale {
                            stored: stored.seq,
                            received: seq,
                        };
                        return self.ignore(Some(scope), reason);
                    }
                    SequenceOrder::Reset => {
                        let stored = stored.seq;
                        self.push_event(OverloadEvent::SequenceReset {
                            scope: scope.clone(),
                            stored,
                            received: seq,
                        });
                    }
                    SequenceOrder::Newer => {}
                }
            }
        }
        let expires = oci
            .period_of_validity
            .duration()
            .map(|d| now.checked_add(d).unwrap_or(now));
        let metric = effective(oci.metric);
        let lapsed = expires.is_some_and(|t| t <= now);
        // Remembered numbers take room like entries (a lapsed entry whose timer has not run
        // yet is one), so the outcome does not depend on when the caller ran the timer.
        // An OCI already expired on arrival is removed again below before this call returns:
        // it needs no room, so it must not evict a live entry.
        if !lapsed && self.entry(&scope).is_none() {
            // The scope's remembered number gives up its room to the new entry.
            self.forget_expired(&scope);
            let full = self.len() + self.expired.len() >= self.config.max_entries;
            if full && !self.evict_one() {
                return self.ignore(Some(scope), IgnoreReason::TableFull);
            }
        }
        self.remove_deadline(&scope);
        // A new number supersedes the expired one remembered for the scope.
        self.forget_expired(&scope);
        if let Some(t) = expires {
            self.deadlines.insert((t, scope.clone()));
        }
        self.insert_entry(
            scope.clone(),
            Entry {
                seq,
                metric,
                expires,
                node: origin.node.clone(),
                confirmed: now,
            },
        );
        let outcome = OciOutcome::Applied {
            scope,
            metric,
            expires,
        };
        self.push_event(OverloadEvent::Oci(outcome.clone()));
        // A stopped timer (or any zero duration) is already expired: apply it (it replaces the
        // older state) and let it lapse at once.
        if lapsed {
            self.handle_timeout(now);
        }
        outcome
    }

    /// The reduction (percent of requests to shed) that applies to a request towards the UP
    /// PFCP entity `entity` (if known) of the UP function `node`: the larger of the entity's
    /// and the node's current overload metric, 0 where none is valid at `now`.
    pub fn reduction(&self, entity: Option<IpAddr>, node: &NodeKey, now: Instant) -> u8 {
        let at = |e: Option<&Entry>| e.map_or(0, |e| e.metric_at(now));
        let node_metric = at(self.nodes.get(node));
        let entity_metric = at(entity.and_then(|ip| self.entities.get(&ip)));
        node_metric.max(entity_metric)
    }

    /// A message from UP function `node` that may carry OCI arrived at `now`: the CP function
    /// is in contact with it, so a change of its overload state reaches the CP with the delay
    /// the UP function ensures (clause 6.2.4.3.3), and the stored node-scoped state counts as
    /// confirmed. [`OverloadTable::handle_message`] calls it for every such message.
    pub fn confirm(&mut self, node: &NodeKey, now: Instant) {
        if let Some(e) = self.nodes.get_mut(node) {
            e.confirmed = e.confirmed.max(now);
        }
    }

    /// When a message from UP function `node` last applied or confirmed its node-scoped state
    /// ([`OverloadTable::confirm`]); `None` without one. A CP function that stops sending to a
    /// UP function for its overload cannot learn that the overload ended (OCI rides only on
    /// the UP function's messages): [`UpSelector`](crate::UpSelector) reads this to try it
    /// again.
    pub fn confirmed(&self, node: &NodeKey) -> Option<Instant> {
        self.nodes.get(node).map(|e| e.confirmed)
    }

    /// The node-scoped reduction of `node` in force at `now` and when a message last confirmed
    /// it, in one lookup: what [`OverloadTable::reduction`] without an entity and
    /// [`OverloadTable::confirmed`] give. `None` without a node-scoped state.
    pub fn node_reduction(&self, node: &NodeKey, now: Instant) -> Option<(u8, Instant)> {
        let e = self.nodes.get(node)?;
        Some((e.metric_at(now), e.confirmed))
    }

    /// The stored state of one scope, if any (an expired entry whose timer has not run yet
    /// included: see [`OverloadTable::reduction`] for what applies).
    pub fn get(&self, scope: &Scope) -> Option<ScopeState> {
        self.entry(scope).map(|e| ScopeState {
            sequence_number: e.seq,
            metric: e.metric,
            expires: e.expires,
        })
    }

    /// Number of scopes tracked.
    pub fn len(&self) -> usize {
        self.entities.len() + self.nodes.len()
    }

    /// Whether no scope is tracked.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty() && self.nodes.is_empty()
    }

    /// Forget everything learned from UP function `node` and its PFCP entities: call it when
    /// the peer restarted (changed Recovery Time Stamp), re-associated, released the
    /// association or failed its heartbeats. Afterwards any sequence number is accepted.
    pub fn reset_peer(&mut self, node: &NodeKey) {
        let entities = self
            .entities
            .iter()
            .filter(|(_, e)| &e.node == node)
            .map(|(ip, _)| Scope::Entity(*ip));
        let nodes = self
            .nodes
            .iter()
            .filter(|(_, e)| &e.node == node)
            .map(|(n, _)| Scope::Node(n.clone()));
        let gone: Vec<Scope> = entities.chain(nodes).collect();
        for s in gone {
            self.remove_deadline(&s);
            self.remove_entry(&s);
        }
        // A restart resets sequencing: the peer may count from any number again.
        let forgotten: Vec<Scope> = self
            .expired
            .iter()
            .filter(|(_, (_, _, n))| n == node)
            .map(|(s, _)| s.clone())
            .collect();
        for s in &forgotten {
            self.forget_expired(s);
        }
        self.push_event(OverloadEvent::Reset(node.clone()));
    }

    /// The next instant at which [`OverloadTable::handle_timeout`] has work (an expiry).
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.deadlines.first().map(|(t, _)| *t)
    }

    /// Expire every entry whose Period of Validity ended at or before `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        while let Some((t, _)) = self.deadlines.first() {
            if *t > now {
                break;
            }
            if let Some((t, scope)) = self.deadlines.pop_first() {
                if let Some(e) = self.remove_entry(&scope) {
                    self.expired_order.insert((t, scope.clone()));
                    self.expired.insert(scope.clone(), (e.seq, t, e.node));
                }
                self.push_event(OverloadEvent::Expired(scope));
            }
        }
        // An OCI lapsed on arrival was stored without making room: forget the oldest numbers.
        while self.len() + self.expired.len() > self.config.max_entries {
            match self.expired_order.pop_first() {
                Some((_, s)) => {
                    self.expired.remove(&s);
                }
                None => break,
            }
        }
    }

    fn forget_expired(&mut self, scope: &Scope) {
        if let Some((_, t, _)) = self.expired.remove(scope) {
            self.expired_order.remove(&(t, scope.clone()));
        }
    }

    /// The next event, oldest first.
    pub fn poll_event(&mut self) -> Option<OverloadEvent> {
        self.events.pop_front()
    }

    /// Events dropped because the queue was full.
    pub fn events_dropped(&self) -> u64 {
        self.events_dropped
    }

    fn ignore(&mut self, scope: Option<Scope>, reason: IgnoreReason) -> OciOutcome {
        let outcome = OciOutcome::Ignored { scope, reason };
        self.push_event(OverloadEvent::Oci(outcome.clone()));
        outcome
    }

    fn push_event(&mut self, e: OverloadEvent) {
        if self.config.max_events == 0 {
            self.events_dropped += 1;
            return;
        }
        if self.events.len() >= self.config.max_events {
            self.events.pop_front();
            self.events_dropped += 1;
        }
        self.events.push_back(e);
    }

    fn entry(&self, scope: &Scope) -> Option<&Entry> {
        match scope {
            Scope::Entity(ip) => self.entities.get(ip),
            Scope::Node(n) => self.nodes.get(n),
        }
    }

    fn insert_entry(&mut self, scope: Scope, entry: Entry) {
        match scope {
            Scope::Entity(ip) => self.entities.insert(ip, entry),
            Scope::Node(n) => self.nodes.insert(n, entry),
        };
    }

    fn remove_entry(&mut self, scope: &Scope) -> Option<Entry> {
        match scope {
            Scope::Entity(ip) => self.entities.remove(ip),
            Scope::Node(n) => self.nodes.remove(n),
        }
    }

    fn remove_deadline(&mut self, scope: &Scope) {
        if let Some(Entry {
            expires: Some(t), ..
        }) = self.entry(scope)
        {
            self.deadlines.remove(&(*t, scope.clone()));
        }
    }

    /// Make room: forget whatever expires first, a remembered number or an entry (a lapsed
    /// entry whose timer has not run sorts where its remembered number would).
    fn evict_one(&mut self) -> bool {
        let entry_first = match (self.deadlines.first(), self.expired_order.first()) {
            (Some(d), Some(x)) => d.0 < x.0,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return false,
        };
        if entry_first {
            if let Some((_, scope)) = self.deadlines.pop_first() {
                self.remove_entry(&scope);
                self.push_event(OverloadEvent::Evicted(scope));
            }
        } else if let Some((_, scope)) = self.expired_order.pop_first() {
            self.expired.remove(&scope);
        }
        true
    }
}

/// The effective percentage of a received metric (clause 8.2.34: above 100 reads as 0).
pub(crate) const fn effective(m: Metric) -> u8 {
    m.percent()
}

#[cfg(test)]
mod tests;
