//! Association and heartbeat (TS 29.244 clauses 6.2.2, 6.2.6, 6.2.7, 6.2.8), sans-IO.
//!
//! [`Peers`] answers the node-related requests a PFCP function must handle itself and keeps
//! what it learned about each peer: Node ID, Recovery Time Stamp, CP/UP Function Features,
//! whether an association is established.
//!
//! * Heartbeat Requests are answered even from unknown peers and even when overloaded
//!   (6.2.2.2); they never pass a throttle.
//! * Association Setup establishes (or re-establishes) an association; Update refreshes the
//!   features (or carries a UP function's request to release it); Release ends it (clauses
//!   6.2.6-6.2.8). A Node Report Request from an associated UP function is accepted and
//!   reported (6.2.9).
//!
//! ## Restart detection
//!
//! A changed Recovery Time Stamp means the peer restarted: everything learned from it must be
//! reset ([`PeerEvent::Restarted`]). Restart detection applies to the peers this node has a
//! PFCP association with (6.2.2.1, 6.2.6.1); PFCP has no authentication, so a stamp from
//! anyone else must not be able to wipe state:
//!
//! * **Heartbeat** (Request or Response) from an **associated** peer with another stamp: the
//!   peer restarted; its association ends (it must set up a new one) and the new stamp is
//!   kept, so the restart is reported once.
//! * Heartbeat from a peer **without an association**: answered, and nothing else: no restart,
//!   no stamp stored, no table entry created (a forged source address must not take a slot
//!   of the bounded table either).
//! * **Association Setup Request** (or the Response to ours) from a peer that is **already
//!   associated**, with another stamp: the peer restarted (6.2.6.2, 6.2.6.3): `Restarted` is
//!   reported first, so what was learned from the old association is reset, then the new
//!   association replaces it (`Associated`). With the same stamp it is a plain
//!   re-establishment: only `Associated`.
//! * Association Setup from a peer without an association: a new association, whatever
//!   stamp it had before (its old state was reset when that association ended).
//!
//! An attacker who forges the address of an associated peer can still trigger a restart;
//! only an authenticated transport (e.g. IPsec on N4) closes that.

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use pfcp_overload::NodeKey;
use pfcp_throttle::EgressThrottle;

use crate::cp::{UpLink, UpLinks};
use crate::procedures::{NodeReport, ReleasePreparation};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::{CpFunctionFeatures, OffendingIe, RecoveryTimeStamp, UpFunctionFeatures};
use pfcp_wire::{Cause, EncodeError, Message, MessageType, SequenceNumber};

use crate::xact::TxId;

mod association;
pub(crate) mod messages;
mod procedures;
pub use messages::{
    association_setup_request, error_response, heartbeat_request, session_or_node_rejection,
};
use messages::{heartbeat_message, node_response};

/// Which side of N4 this node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Control plane function (SMF, SGW-C, PGW-C): sends session requests, throttles them.
    Cp,
    /// User plane function (UPF, SGW-U, PGW-U): serves session requests, reports overload.
    Up,
}

/// This node's identity and capabilities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalNode {
    /// CP or UP.
    pub role: Role,
    /// Node ID (an IP address or an FQDN).
    pub node_id: NodeKey,
    /// When this node started (seconds since 1900, from the caller's clock at start-up).
    pub recovery_time_stamp: RecoveryTimeStamp,
    /// Advertised by a CP function (LOAD, OVRL, ...).
    pub cp_features: CpFunctionFeatures,
    /// Advertised by a UP function.
    pub up_features: UpFunctionFeatures,
}

impl LocalNode {
    /// A CP function advertising LOAD and OVRL (it acts on load and overload information).
    pub fn cp(node_id: NodeKey, recovery_time_stamp: RecoveryTimeStamp) -> Self {
        LocalNode {
            role: Role::Cp,
            node_id,
            recovery_time_stamp,
            cp_features: CpFunctionFeatures::empty()
                .with(CpFunctionFeatures::LOAD)
                .with(CpFunctionFeatures::OVRL),
            up_features: UpFunctionFeatures::empty(),
        }
    }

    /// A UP function.
    pub fn up(node_id: NodeKey, recovery_time_stamp: RecoveryTimeStamp) -> Self {
        LocalNode {
            role: Role::Up,
            node_id,
            recovery_time_stamp,
            cp_features: CpFunctionFeatures::empty(),
            up_features: UpFunctionFeatures::empty(),
        }
    }

    /// Write this node's Node ID IE.
    pub(crate) fn write_node_id<S: pfcp_wire::encode::Sink + ?Sized>(
        &self,
        w: &mut MessageWriter<'_, S>,
    ) -> Result<(), EncodeError> {
        let id = self
            .node_id
            .to_node_id()
            .map_err(|_| EncodeError::InvalidValue("local Node ID is not a valid FQDN"))?;
        w.ie(&id)?;
        Ok(())
    }

    fn write_features<S: pfcp_wire::encode::Sink + ?Sized>(
        &self,
        w: &mut MessageWriter<'_, S>,
    ) -> Result<(), EncodeError> {
        // Features are conditional: present if at least one is supported (Table 7.4.4.1-1).
        match self.role {
            Role::Cp if self.cp_features.iter().next().is_some() => {
                w.ie(&self.cp_features)?;
            }
            Role::Up if self.up_features.octets().iter().any(|b| *b != 0) => {
                w.ie(&self.up_features)?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// What this node knows about one peer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerInfo {
    /// The peer's Node ID, once known.
    pub node: Option<NodeKey>,
    /// The peer's last Recovery Time Stamp.
    pub recovery_time_stamp: Option<RecoveryTimeStamp>,
    /// Whether a PFCP association is established.
    pub associated: bool,
    /// CP Function Features the peer advertised.
    pub cp_features: Option<CpFunctionFeatures>,
    /// UP Function Features the peer advertised.
    pub up_features: Option<UpFunctionFeatures>,
    /// When the peer was last heard from.
    pub last_seen: Instant,
}

/// A change in a peer's state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PeerEvent {
    /// An association was established (by either side).
    Associated {
        /// Peer address.
        peer: SocketAddr,
        /// Peer Node ID.
        node: NodeKey,
    },
    /// The peer restarted (its Recovery Time Stamp changed): reset what was learned from it.
    Restarted {
        /// Peer address.
        peer: SocketAddr,
        /// Peer Node ID, if known.
        node: Option<NodeKey>,
    },
    /// The association was released.
    Released {
        /// Peer address.
        peer: SocketAddr,
        /// Peer Node ID, if known.
        node: Option<NodeKey>,
    },
    /// The peer stopped answering heartbeats.
    Failed {
        /// Peer address.
        peer: SocketAddr,
        /// Peer Node ID, if known.
        node: Option<NodeKey>,
    },
    /// The peer answered a request with Cause 72, "No established PFCP association": it holds
    /// no association with this node any more (it restarted, or released it). A node that set
    /// the association up sets it up again ([`NodeConfig::reassociate_interval`]).
    ///
    /// [`NodeConfig::reassociate_interval`]: crate::node::NodeConfig::reassociate_interval
    NotAssociated {
        /// Peer address.
        peer: SocketAddr,
        /// Peer Node ID, if known.
        node: Option<NodeKey>,
    },
    /// The sessions this node held with the peer are gone: it restarted, failed, released the
    /// association or no longer knows it (clauses 6.2.6, 6.2.7). The node has forgotten them;
    /// the application restores what it must (a CP re-establishes them once the association
    /// is back).
    SessionsLost {
        /// Peer address.
        peer: SocketAddr,
        /// Peer Node ID, if known.
        node: Option<NodeKey>,
        /// The sessions, by this node's SEID.
        sessions: Vec<crate::session::Session>,
    },
    /// An associated peer's Association Update Request changed its features (clause 6.2.7,
    /// Table 7.4.4.3-1); the node answered it and keeps the new ones in [`PeerInfo`].
    FeaturesUpdated {
        /// Peer address.
        peer: SocketAddr,
        /// Peer Node ID, if known.
        node: Option<NodeKey>,
        /// The CP Function Features it sent, if any (clause 8.2.58).
        cp_features: Option<CpFunctionFeatures>,
        /// The UP Function Features it sent, if any (clause 8.2.25).
        up_features: Option<UpFunctionFeatures>,
    },
    /// An associated UP function asked, in an Association Update Request, for the release of
    /// its association (SARR) or announced a graceful release (clauses 6.2.7, 6.2.8); the node
    /// answered it. The association stays up: the CP function stops establishing sessions
    /// there, releases its sessions and then the association
    /// ([`Node::release_association`](crate::Node::release_association)).
    ReleaseRequested {
        /// Peer address.
        peer: SocketAddr,
        /// Peer Node ID, if known.
        node: Option<NodeKey>,
        /// What the UP function asked (clauses 8.2.77, 8.2.78).
        preparation: ReleasePreparation,
    },
    /// An associated UP function's Node Report Request (clause 6.2.9, Table 7.4.5.1.1-1),
    /// answered by the node with Request accepted.
    NodeReport {
        /// Peer address.
        peer: SocketAddr,
        /// Peer Node ID, if known.
        node: Option<NodeKey>,
        /// The report (type, path failure and recovery peers; Table 7.4.5.1.1-1).
        report: NodeReport,
        /// The whole request, for the reports [`NodeReport`] does not read (clause 7.4.5.1).
        message: Bytes,
    },
}

/// The answer to a node-related request.
#[derive(Debug, Default)]
pub struct NodeAnswer {
    /// The response to send, if any.
    pub response: Option<Bytes>,
    /// Events to report, in order.
    pub events: Vec<PeerEvent>,
}

/// A handle to one peer's record in a node's [`Peers`]: the slot and its generation, so a
/// handle kept past the record's end finds nothing rather than a later peer in the same slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PeerId {
    index: u32,
    generation: u32,
}

impl fmt::Display for PeerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "peer{}.{}", self.index, self.generation)
    }
}

/// An association this node set up and keeps up ([`Node::associate`](crate::Node::associate)).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Kept {
    /// The Association Setup Request in flight, if any.
    pub(crate) attempt: Option<TxId>,
    /// When to send the next one while the association is down.
    pub(crate) next: Option<Instant>,
}

/// Everything a node keeps of one peer, in one place: what the association told (the public
/// [`PeerInfo`]), the association this node keeps up, its heartbeat in flight, and the
/// role-specific parts: on a CP function the UP function's overload view and throttles
/// ([`UpLink`]), on a UP function the egress throttle of its Session Report Requests
/// towards the CP function. The sessions held with the peer are in the node's session table,
/// each naming its peer; [`Node::forget`](crate::Node) ends them all with it.
#[derive(Debug)]
pub(crate) struct Peer {
    pub(crate) addr: SocketAddr,
    pub(crate) info: PeerInfo,
    pub(crate) kept: Option<Kept>,
    /// The node's own heartbeat in flight (one at a time).
    pub(crate) heartbeat: Option<TxId>,
    /// Associations established with the peer so far ([`Peers::epoch`]).
    pub(crate) epoch: u32,
    /// On a CP function: this UP function's overload and load view and the throttles of what
    /// it sends there ([`UpLink`]), from the first message counted or decided for it.
    pub(crate) up: Option<Box<UpLink>>,
    /// On a UP function: the egress throttle of its Session Report Requests towards this CP
    /// function ([`NodeConfig::report_egress`](crate::NodeConfig::report_egress)), once the
    /// first report created it.
    pub(crate) report: Option<Box<EgressThrottle>>,
}

/// A slot of the table: the record boxed, so that the table's spare capacity costs a pointer
/// per slot, not a record.
#[derive(Debug, Default)]
struct Slot {
    generation: u32,
    peer: Option<Box<Peer>>,
}

/// What happened to the table's bound.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerTableStats {
    /// Records made for new peers.
    pub inserted: u64,
    /// Records ended.
    pub removed: u64,
    /// Records of peers with no association, dropped when the table was full to make room
    /// for a new one (the least recently heard first).
    pub evicted: u64,
    /// New peers refused because the table was full of associated (or kept) peers.
    pub refused: u64,
}

/// The peers of a node, each one record ([`PeerId`]), bounded to
/// [`NodeConfig::max_peers`](crate::NodeConfig::max_peers): a new peer in a full table takes
/// the place of the least recently heard peer without an association, or is refused (both
/// counted, [`Peers::stats`]); an associated peer is never dropped to make room.
///
/// # Examples
///
/// ```
/// use std::time::Instant;
/// use pfcp_node::peer::{association_setup_request, heartbeat_request, LocalNode, PeerEvent, Peers};
/// use pfcp_overload::NodeKey;
/// use pfcp_wire::ie::RecoveryTimeStamp;
/// use pfcp_wire::{Cause, Message, SequenceNumber};
///
/// let now = Instant::now();
/// let cp_addr = "192.0.2.10:8805".parse()?;
/// let smf = NodeKey::fqdn("smf1.example.net");
/// let up = LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(0xe8f4_a2b0));
/// let mut peers = Peers::new(16);
/// let seq = SequenceNumber::new(1).ok_or("over 24 bits")?;
///
/// // The CP's Association Setup Request (clause 6.2.6.1) is accepted.
/// let cp = LocalNode::cp(smf.clone(), RecoveryTimeStamp(0xe8f4_0000));
/// let setup = association_setup_request(&cp, seq)?;
/// let answer = peers.handle_request(&up, cp_addr, &Message::decode(&setup)?, now).ok_or("node request")??;
/// let response = answer.response.ok_or("answered")?;
/// assert_eq!(Message::decode(&response)?.cause()?, Some(Cause::REQUEST_ACCEPTED));
/// assert_eq!(answer.events, [PeerEvent::Associated { peer: cp_addr, node: smf.clone() }]);
/// assert!(peers.is_associated(&cp_addr));
///
/// // A Heartbeat with another Recovery Time Stamp: the CP restarted (clause 6.2.2).
/// let restarted = LocalNode::cp(smf, RecoveryTimeStamp(0xe8f4_1000));
/// let hb = heartbeat_request(&restarted, seq)?;
/// let answer = peers.handle_request(&up, cp_addr, &Message::decode(&hb)?, now).ok_or("node request")??;
/// assert!(matches!(answer.events.as_slice(), [PeerEvent::Restarted { .. }]));
/// assert!(!peers.is_associated(&cp_addr));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Peers {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Keyed by addresses a peer chooses: a seeded fast hasher (foldhash), not SipHash (the
    /// lookup runs for every datagram) and not an unseeded one (collision flooding).
    by_addr: HashMap<SocketAddr, PeerId, foldhash::fast::RandomState>,
    /// The peer that last associated with each Node ID (redirection and UP selection name UP
    /// functions by Node ID).
    by_node: HashMap<NodeKey, PeerId, foldhash::fast::RandomState>,
    len: usize,
    max_peers: usize,
    stats: PeerTableStats,
}

/// The alternates of a redirection: the UP functions associated under a Node ID.
impl UpLinks for Peers {
    fn link_mut(
        &mut self,
        node: &NodeKey,
        make: &mut dyn FnMut(&NodeKey) -> UpLink,
    ) -> Option<&mut UpLink> {
        let id = *self.by_node.get(node)?;
        let record = self.record_mut(id)?;
        Some(record.up.get_or_insert_with(|| Box::new(make(node))))
    }
}

/// Errors building node messages.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PeerError {
    /// Encoding failed.
    #[error("encode: {0}")]
    Encode(#[from] EncodeError),
}

impl Peers {
    /// An empty table holding at most `max_peers` peers.
    pub fn new(max_peers: usize) -> Self {
        Peers {
            slots: Vec::new(),
            free: Vec::new(),
            by_addr: HashMap::default(),
            by_node: HashMap::default(),
            len: 0,
            max_peers,
            stats: PeerTableStats::default(),
        }
    }

    /// What is known about `peer`.
    pub fn get(&self, peer: &SocketAddr) -> Option<&PeerInfo> {
        self.record_at(peer).map(|p| &p.info)
    }

    /// The handle of the peer at `addr`, if it has a record.
    pub fn id(&self, addr: &SocketAddr) -> Option<PeerId> {
        self.by_addr.get(addr).copied()
    }

    /// The address of the peer that last associated with Node ID `node`, if it still has a
    /// record.
    pub fn addr_of(&self, node: &NodeKey) -> Option<SocketAddr> {
        let id = self.by_node.get(node)?;
        self.record(*id).map(|p| p.addr)
    }

    /// How many associations with `peer` were established (clause 6.2.6), as long as it has a
    /// record: what a request was sent under, so that an answer to it ends only that one.
    ///
    /// ```
    /// use pfcp_node::Peers;
    /// let peers = Peers::new(16);
    /// assert_eq!(peers.epoch(&"192.0.2.1:8805".parse()?), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn epoch(&self, peer: &SocketAddr) -> u32 {
        self.record_at(peer).map_or(0, |p| p.epoch)
    }

    /// Whether an association with `peer` is established.
    pub fn is_associated(&self, peer: &SocketAddr) -> bool {
        self.get(peer).is_some_and(|p| p.associated)
    }

    /// Associated peers.
    pub fn associated(&self) -> impl Iterator<Item = (&SocketAddr, &PeerInfo)> {
        self.records()
            .filter(|p| p.info.associated)
            .map(|p| (&p.addr, &p.info))
    }

    /// Number of peers with a record.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no peer has a record.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// What the table's bound did.
    pub fn stats(&self) -> PeerTableStats {
        self.stats
    }

    pub(crate) fn records(&self) -> impl Iterator<Item = &Peer> {
        self.slots.iter().filter_map(|s| s.peer.as_deref())
    }

    pub(crate) fn record(&self, id: PeerId) -> Option<&Peer> {
        let slot = self.slots.get(id.index as usize)?;
        (slot.generation == id.generation)
            .then_some(slot.peer.as_deref())
            .flatten()
    }

    pub(crate) fn record_mut(&mut self, id: PeerId) -> Option<&mut Peer> {
        let slot = self.slots.get_mut(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        slot.peer.as_deref_mut()
    }

    pub(crate) fn records_mut(&mut self) -> impl Iterator<Item = &mut Peer> {
        self.slots.iter_mut().filter_map(|s| s.peer.as_deref_mut())
    }

    /// The link of the UP function at `addr` (a CP function's view of it), if it has one.
    pub fn up_link(&self, addr: &SocketAddr) -> Option<&UpLink> {
        self.record_at(addr)?.up.as_deref()
    }

    /// The link of the UP function that last associated with Node ID `node`, if any.
    pub fn up_link_of(&self, node: &NodeKey) -> Option<&UpLink> {
        self.record(*self.by_node.get(node)?)?.up.as_deref()
    }

    pub(crate) fn record_at(&self, addr: &SocketAddr) -> Option<&Peer> {
        self.record(self.id(addr)?)
    }

    pub(crate) fn record_at_mut(&mut self, addr: &SocketAddr) -> Option<&mut Peer> {
        let id = self.id(addr)?;
        self.record_mut(id)
    }

    /// The record of the peer at `addr`, made if it has none; `None` if the table is full of
    /// peers that cannot make room (counted).
    pub(crate) fn insert(&mut self, addr: SocketAddr, now: Instant) -> Option<PeerId> {
        if let Some(id) = self.id(&addr) {
            return Some(id);
        }
        if self.len >= self.max_peers && !self.evict_one() {
            self.stats.refused += 1;
            tracing::debug!(%addr, max = self.max_peers, "peer table full: new peer refused");
            return None;
        }
        let record = Peer {
            addr,
            info: PeerInfo {
                node: None,
                recovery_time_stamp: None,
                associated: false,
                cp_features: None,
                up_features: None,
                last_seen: now,
            },
            kept: None,
            heartbeat: None,
            epoch: 0,
            up: None,
            report: None,
        };
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                let i = u32::try_from(self.slots.len()).ok()?;
                self.slots.push(Slot::default());
                i
            }
        };
        let slot = self.slots.get_mut(index as usize)?;
        slot.peer = Some(Box::new(record));
        let id = PeerId {
            index,
            generation: slot.generation,
        };
        self.by_addr.insert(addr, id);
        self.len += 1;
        self.stats.inserted += 1;
        Some(id)
    }

    /// End the record of `id` (its slot is reused under a new generation).
    pub(crate) fn remove(&mut self, id: PeerId) -> Option<Box<Peer>> {
        let slot = self.slots.get_mut(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        let peer = slot.peer.take()?;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
        self.len -= 1;
        if self.by_addr.get(&peer.addr) == Some(&id) {
            self.by_addr.remove(&peer.addr);
        }
        if let Some(n) = &peer.info.node {
            if self.by_node.get(n) == Some(&id) {
                self.by_node.remove(n);
            }
        }
        self.stats.removed += 1;
        Some(peer)
    }

    /// Make room: drop the least recently heard peer with neither an association nor one this
    /// node keeps up. Whether one went.
    fn evict_one(&mut self) -> bool {
        let victim = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let p = s.peer.as_ref()?;
                let idle = !p.info.associated
                    && p.kept.is_none()
                    && p.heartbeat.is_none()
                    && p.up.as_ref().is_none_or(|l| l.held() == 0);
                idle.then_some((p.info.last_seen, i, s.generation))
            })
            .min();
        let Some((_, index, generation)) = victim else {
            return false;
        };
        let id = PeerId {
            index: index as u32,
            generation,
        };
        let evicted = self.remove(id);
        if let Some(p) = &evicted {
            self.stats.removed -= 1;
            self.stats.evicted += 1;
            tracing::debug!(addr = %p.addr, "peer table full: idle peer evicted");
        }
        evicted.is_some()
    }
}

#[cfg(test)]
mod tests;
