//! The response cache: the responses to answered requests, kept for the response cache TTL to
//! answer their duplicates.
//!
//! Why this shape: under a steady request rate the cache is full, so every answered request
//! evicts the oldest response and caches its own. When one hash table held the responses (88
//! octets a bucket, 11 MB at the default 65 536 entries) both landed at random places of it
//! and missed the CPU cache (`docs/benchmarks.md`, pfcp-node). Here:
//!
//! * the responses sit in a ring in insertion order. Every response is cached for the same
//!   TTL, so with a clock that does not go back insertion order is expiry order: expiry and
//!   eviction pop the front (memory walked in order) and need no deadline queue of their own.
//!   A caller whose clock went back gets the latest expiry armed so far (or the first one
//!   ever, slots keeping theirs as an offset from it) instead of an earlier one, which keeps
//!   the ring in order;
//! * the hash table only maps a compact key to a ring position: the peer as a small number
//!   (interned while it has cached responses) and the sequence number, 16-octet buckets;
//! * a response removed before its time (its sequence number reused with new content, its peer
//!   failed) is marked dead where it is, not shifted out: dead slots go when they reach the
//!   front, and the ring is compacted (and the table's positions rewritten) when dead slots
//!   outnumber live ones, so it never holds much more than twice what is live.

use std::collections::hash_map::Entry;

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_wire::SequenceNumber;

use super::PeerHash;

/// Dead slots tolerated beyond the live ones before a compaction (so that a small ring is not
/// compacted over and over).
const SLACK: usize = 32;

/// One cached response, or a dead slot (`response` taken).
#[derive(Debug)]
pub(super) struct Slot {
    /// Nanoseconds after [`ResponseCache::base`] (8 octets where an `Instant` takes 16).
    expires: u64,
    /// [`pack`]ed peer number and sequence number.
    key: u64,
    /// Of the request (duplicates must match it).
    fingerprint: u64,
    response: Option<Bytes>,
}

/// A peer with cached responses.
#[derive(Debug)]
pub(super) struct PeerSlot {
    addr: SocketAddr,
    /// Live responses cached for it; the number is freed at 0.
    cached: u32,
}

/// The compact key: a peer number and a 24-bit sequence number in one word.
fn pack(peer: u32, sequence: SequenceNumber) -> u64 {
    (u64::from(peer) << 32) | u64::from(sequence.value())
}

fn peer_of(key: u64) -> u32 {
    // The high half holds the peer number by construction.
    (key >> 32) as u32
}

/// Cached responses in a ring with a compact index. See the module docs.
#[derive(Debug)]
pub(super) struct ResponseCache {
    /// Earliest expiry first; its front is live whenever it is not empty.
    ring: VecDeque<Slot>,
    /// Position of the ring's front: positions count every slot ever pushed, so that a
    /// position in `index` stays valid while the front moves.
    head: u64,
    /// Packed key to ring position, for live slots only.
    index: HashMap<u64, u64, PeerHash>,
    /// Peers with cached responses, to their numbers.
    peer_numbers: HashMap<SocketAddr, u32, PeerHash>,
    /// Indexed by peer number.
    peers: Vec<PeerSlot>,
    /// Peer numbers free for reuse.
    free: Vec<u32>,
    /// Live slots.
    live: usize,
    /// The first expiry armed: slots keep theirs as an offset from it.
    base: Option<Instant>,
}

impl ResponseCache {
    pub(super) fn new() -> Self {
        ResponseCache {
            ring: VecDeque::new(),
            head: 0,
            index: HashMap::default(),
            peer_numbers: HashMap::default(),
            peers: Vec::new(),
            free: Vec::new(),
            live: 0,
            base: None,
        }
    }

    /// Cached responses.
    pub(super) fn len(&self) -> usize {
        self.live
    }

    /// When the earliest cached response expires.
    pub(super) fn next_expiry(&self) -> Option<Instant> {
        let front = self.ring.front()?;
        let base = self.base?;
        Some(
            base.checked_add(Duration::from_nanos(front.expires))
                .unwrap_or(base),
        )
    }

    /// `at` as an offset from the base (0 before it, which the ring's order then covers).
    fn offset(&mut self, at: Instant) -> u64 {
        let base = *self.base.get_or_insert(at);
        u64::try_from(at.saturating_duration_since(base).as_nanos()).unwrap_or(u64::MAX)
    }

    fn position(&self, peer: SocketAddr, sequence: SequenceNumber) -> Option<u64> {
        let &number = self.peer_numbers.get(&peer)?;
        self.index.get(&pack(number, sequence)).copied()
    }

    fn slot(&self, position: u64) -> Option<&Slot> {
        let i = usize::try_from(position.wrapping_sub(self.head)).ok()?;
        self.ring.get(i)
    }

    /// The response cached for (`peer`, `sequence`) and its request's fingerprint.
    pub(super) fn get(&self, peer: SocketAddr, sequence: SequenceNumber) -> Option<(u64, &Bytes)> {
        let slot = self.slot(self.position(peer, sequence)?)?;
        Some((slot.fingerprint, slot.response.as_ref()?))
    }

    /// Whether a response is cached for (`peer`, `sequence`).
    pub(super) fn contains(&self, peer: SocketAddr, sequence: SequenceNumber) -> bool {
        self.position(peer, sequence).is_some()
    }

    /// Cache `response` until `expires`, first evicting the oldest while `max` (at least 1)
    /// are cached. Returns how many were evicted. Not cached if the peer numbers ran out
    /// (2^32 peers with cached responses).
    pub(super) fn insert(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        fingerprint: u64,
        response: Bytes,
        expires: Instant,
        max: usize,
    ) -> u64 {
        let mut evicted = 0;
        while self.live >= max {
            match self.pop_front() {
                Some(true) => evicted += 1,
                Some(false) => {}
                None => break,
            }
        }
        if let Some(old) = self.position(peer, sequence) {
            // The caller removes a cached response before its key can be answered again;
            // should one remain, the new response replaces it.
            self.kill(old);
            self.tidy();
        }
        // Numbered after every removal, which may free the peer's number.
        let Some(number) = self.number(peer) else {
            return evicted;
        };
        let key = pack(number, sequence);
        // A count that would overflow (2^32 responses of one peer, so not a new peer, whose
        // number would stay held): not cached.
        if self
            .peers
            .get(number as usize)
            .is_none_or(|p| p.cached == u32::MAX)
        {
            return evicted;
        }
        let expires = self.offset(expires);
        let expires = match self.ring.back() {
            Some(last) if last.expires > expires => last.expires,
            _ => expires,
        };
        let position = self.head.wrapping_add(self.ring.len() as u64);
        self.ring.push_back(Slot {
            expires,
            key,
            fingerprint,
            response: Some(response),
        });
        self.index.insert(key, position);
        self.live += 1;
        if let Some(p) = self.peers.get_mut(number as usize) {
            p.cached += 1;
        }
        evicted
    }

    /// Forget the response cached for (`peer`, `sequence`); whether there was one.
    pub(super) fn remove(&mut self, peer: SocketAddr, sequence: SequenceNumber) -> bool {
        let Some(position) = self.position(peer, sequence) else {
            return false;
        };
        self.kill(position);
        self.tidy();
        true
    }

    /// Forget every response cached for `peer`; how many there were.
    pub(super) fn remove_peer(&mut self, peer: SocketAddr) -> usize {
        let Some(&number) = self.peer_numbers.get(&peer) else {
            return 0;
        };
        // A scan: peers fail rarely.
        let positions: Vec<u64> = self
            .index
            .iter()
            .filter(|(&key, _)| peer_of(key) == number)
            .map(|(_, &position)| position)
            .collect();
        for &position in &positions {
            self.kill(position);
        }
        self.tidy();
        positions.len()
    }

    /// Drop the responses whose time is at or before `now`.
    pub(super) fn expire(&mut self, now: Instant) {
        // Every expiry is at or after the base: nothing to do before it.
        let Some(since) = self.base.and_then(|base| now.checked_duration_since(base)) else {
            return;
        };
        let now = u64::try_from(since.as_nanos()).unwrap_or(u64::MAX);
        let before = self.ring.len();
        while self.ring.front().is_some_and(|s| s.expires <= now) {
            self.pop_front();
        }
        if self.ring.len() != before {
            self.tidy();
        }
    }

    /// Pop the front slot: `Some(true)` if it was live (now evicted), `Some(false)` if dead.
    fn pop_front(&mut self) -> Option<bool> {
        let slot = self.ring.pop_front()?;
        self.head = self.head.wrapping_add(1);
        let live = slot.response.is_some();
        if live {
            self.index.remove(&slot.key);
            self.release(slot.key);
        }
        self.drop_dead_front();
        Some(live)
    }

    /// Mark the live slot at `position` dead and forget it (its slot stays in place).
    fn kill(&mut self, position: u64) {
        let Some(i) = usize::try_from(position.wrapping_sub(self.head)).ok() else {
            return;
        };
        let Some(slot) = self.ring.get_mut(i) else {
            return;
        };
        if slot.response.take().is_none() {
            return;
        }
        let key = slot.key;
        self.index.remove(&key);
        self.release(key);
    }

    /// Count a live slot of the peer numbered in `key` out; free the number at 0.
    fn release(&mut self, key: u64) {
        self.live = self.live.saturating_sub(1);
        let number = peer_of(key);
        let Some(p) = self.peers.get_mut(number as usize) else {
            return;
        };
        p.cached = p.cached.saturating_sub(1);
        if p.cached == 0 {
            self.peer_numbers.remove(&p.addr);
            if self.peer_numbers.is_empty() {
                // Nothing numbered any more: give the tables back.
                self.peers = Vec::new();
                self.free = Vec::new();
            } else {
                self.free.push(number);
            }
        }
    }

    /// The number of `peer`, given one if it has none.
    fn number(&mut self, peer: SocketAddr) -> Option<u32> {
        match self.peer_numbers.entry(peer) {
            Entry::Occupied(e) => Some(*e.get()),
            Entry::Vacant(e) => {
                let number = match self.free.pop() {
                    Some(n) => {
                        if let Some(p) = self.peers.get_mut(n as usize) {
                            *p = PeerSlot {
                                addr: peer,
                                cached: 0,
                            };
                        }
                        n
                    }
                    None => {
                        let n = u32::try_from(self.peers.len()).ok()?;
                        self.peers.push(PeerSlot {
                            addr: peer,
                            cached: 0,
                        });
                        n
                    }
                };
                e.insert(number);
                Some(number)
            }
        }
    }

    /// Keep the front live (so that [`Self::next_expiry`] is a live deadline).
    fn drop_dead_front(&mut self) {
        while self.ring.front().is_some_and(|s| s.response.is_none()) {
            self.ring.pop_front();
            self.head = self.head.wrapping_add(1);
        }
    }

    /// After removals: drop the dead front, compact when dead slots outnumber the live ones
    /// (plus slack), and give back what a burst left, with the same hysteresis.
    fn tidy(&mut self) {
        self.drop_dead_front();
        if self.ring.len() > self.live.saturating_mul(2).saturating_add(SLACK) {
            self.ring.retain(|s| s.response.is_some());
            for (i, slot) in self.ring.iter().enumerate() {
                if let Some(position) = self.index.get_mut(&slot.key) {
                    *position = self.head.wrapping_add(i as u64);
                }
            }
        }
        let len = self.ring.len();
        if self.ring.capacity() > len.saturating_mul(4).max(SLACK * 4) {
            self.ring.shrink_to(len.saturating_mul(2));
        }
    }

    /// Ring slots, dead ones included.
    #[cfg(test)]
    pub(super) fn ring_len(&self) -> usize {
        self.ring.len()
    }
}

#[cfg(test)]
mod tests;
