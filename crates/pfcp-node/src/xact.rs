//! Sans-IO PFCP transactions: reliable delivery of requests and duplicate handling
//! (TS 29.244 clause 6.4; digest sections 1.3, 3.3 and 6.5).
//!
//! [`Transactions`] holds no socket and reads no clock, in the style of `quinn-proto`: feed it
//! received datagrams ([`Transactions::handle_datagram`]), requests and responses to send
//! ([`Transactions::send_request`], [`Transactions::send_response`]) and the time
//! ([`Transactions::handle_timeout`] at [`Transactions::poll_timeout`]), then drain what it
//! wants sent ([`Transactions::poll_transmit`]) and what happened
//! ([`Transactions::poll_event`]). One instance serves one local UDP endpoint (IP address and
//! port), which is the scope of header sequence numbers (clause 6.4).
//!
//! ## Outgoing requests
//!
//! * A request's first transmission is queued at once; while no response arrives it is
//!   retransmitted **byte-identical** every [`TransactionConfig::t1`], at most
//!   [`TransactionConfig::n1`] times, and then fails with [`Event::Timeout`]: at most
//!   `1 + N1` transmissions.
//! * A response is matched by (peer address and port, sequence number) (clause 6.4) and ends
//!   the transaction with [`Event::Response`]. Its message type is not compared with the
//!   request's: the application checks it ("erroneous reply", clause 7.6). A response matching
//!   nothing (late, duplicated, or unknown) is discarded as [`Event::UnmatchedResponse`].
//! * The Version Not Supported Response (type 11) has no request and matches nothing:
//!   [`Event::VersionNotSupported`].
//!
//! ## Incoming requests
//!
//! * A new request becomes [`Event::Request`] and is remembered *in progress* until the
//!   application answers it with [`Transactions::send_response`]; the response is then cached
//!   for [`TransactionConfig::response_cache_ttl`].
//! * A duplicate (same peer, same sequence number, same content) is never delivered twice:
//!   while the original is in progress it is dropped; once answered, the cached response bytes
//!   are re-sent (open5gs behaviour, digest 6.5); both give [`Event::DuplicateRequest`].
//! * "Same content" compares a 64-bit fingerprint of the message with the FO bit masked
//!   (retransmissions are byte-identical but need not be bundled the same way, clause 7.2.1A).
//!   A request that reuses an answered request's sequence number with other content (a peer
//!   that restarted and counts from the same number) is a new request: its stale cached
//!   answer is dropped. One that reuses the number of a request still in progress is dropped
//!   like a duplicate (the peer retransmits it; it is delivered once the first is answered).
//!
//! ## Malformed datagrams
//!
//! FO bundles are unpacked ([`pfcp_wire::Datagram`]); each message is handled as if it had
//! arrived alone. A message that fails to decode, or whose type is unknown (clause 7.6.1:
//! discard), gives [`Event::Malformed`] with the [`DecodeError`](pfcp_wire::DecodeError) (whose `header`, when
//! readable, lets the endpoint answer); decoding stops there. A message followed by octets its
//! Length does not cover (UDP length differs from the header Length, clause 7.6) is reported
//! only as malformed, never delivered.
//!
//! ## Memory
//!
//! Everything is bounded: outstanding requests by [`TransactionConfig::max_outstanding`] (and
//! per peer), in-progress requests by [`TransactionConfig::max_pending_requests`], cached
//! responses by [`TransactionConfig::max_cached_responses`] (the oldest are evicted), and the
//! event and transmit queues by [`TransactionConfig::max_queued`] (a datagram arriving while
//! either queue is that full is dropped like a lost datagram). Approximate costs per item:
//! [`approx_bytes_per_outstanding`], [`approx_bytes_per_pending_request`],
//! [`approx_bytes_per_cached_response`]. An incoming request is never kept (only its
//! fingerprint), so received datagrams are not pinned in memory.
//!
//! ## Timers and tables
//!
//! Retransmission deadlines and the expiry of requests in progress are queues in time order
//! (every deadline is "now + a constant"): arming, firing and forgetting a timer cost O(1)
//! amortised, and `handle_timeout` never scans the transactions. The cached responses are a
//! ring in insertion order, which is their expiry order, with a compact index (see
//! `xact/cache.rs`): under load the cache is full, and eviction then walks memory in order.
//! Transactions are found through hash tables: the ones keyed by what a peer chooses (its
//! address, its sequence numbers) use a randomly seeded hash, so that a peer cannot aim
//! collisions; the outgoing requests are keyed by our own sequential [`TxId`].

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher};
use std::mem::size_of;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_wire::{Message, MessageType, SequenceNumber};
use tracing::{debug, trace};

/// The FO (follow on) bit of octet 1 (clause 7.2.2.1).
pub(crate) use pfcp_wire::header::FLAG_FO;

/// Durations above this are treated as this (about 31 years: "never" in practice), so that
/// deadline arithmetic cannot overflow [`Instant`].
const MAX_DURATION: Duration = Duration::from_secs(1 << 30);

mod cache;
mod deadlines;
mod incoming;
mod intake;
mod types;
use cache::ResponseCache;
use deadlines::Deadlines;
// Used by the node only.
pub(crate) use intake::{message_octets, Accepted};
pub use types::{Event, TransactionConfig, Transmit, TxId, XactError, XactStats};

type Key = (SocketAddr, SequenceNumber);

/// Hashing of keys a peer chooses: seeded at random per table.
type PeerHash = foldhash::fast::RandomState;
/// Hashing of our own sequential [`TxId`]s: fixed (nothing to aim at), and a multiply
/// spreads consecutive ids over the table.
type IdHash = foldhash::fast::FixedState;

/// An outgoing request waiting for its response.
#[derive(Debug)]
struct Outgoing {
    peer: SocketAddr,
    sequence: SequenceNumber,
    transmissions: u32,
    deadline: Instant,
    bytes: Bytes,
}

/// An incoming request in progress (delivered, not answered yet).
#[derive(Debug)]
struct Pending {
    request_type: MessageType,
    fingerprint: u64,
    /// Which entry of `pending_expiry` is this one's: the others with its key are stale.
    serial: u64,
}

/// Hash table entry cost: the bucket plus its control byte, at a load of 1/2 (hashbrown runs
/// between 7/16 and 7/8).
const fn hash_entry<K, V>() -> usize {
    2 * (size_of::<(K, V)>() + 1)
}

/// Deadline queue entry cost: a ring buffer between half full and full, and up to as many
/// stale entries as live ones ([`Deadlines`]) counted once.
const fn deadline_entry<T>() -> usize {
    2 * size_of::<(Instant, T)>()
}

/// Estimated bytes of bookkeeping per outstanding request (its record, the sequence index,
/// the retransmission timer), **excluding** the encoded request itself (kept for byte-identical
/// retransmission: its length plus the allocation's header). Per-peer counters add
/// `size_of::<(SocketAddr, usize)>()` per peer.
pub const fn approx_bytes_per_outstanding() -> usize {
    hash_entry::<TxId, Outgoing>() + hash_entry::<Key, TxId>() + deadline_entry::<TxId>()
}

/// Estimated bytes per in-progress incoming request (the request itself is not kept).
pub const fn approx_bytes_per_pending_request() -> usize {
    hash_entry::<Key, Pending>() + deadline_entry::<(u64, Key)>()
}

/// Estimated bytes of bookkeeping per cached response, **excluding** the response bytes
/// (shared with the transmitted copy: its length plus the allocation's header): its ring slot
/// (the ring between half full and full, dead slots counted once) and its index entry. Each
/// peer with cached responses adds about 100 bytes (its number and the reverse table).
pub const fn approx_bytes_per_cached_response() -> usize {
    2 * size_of::<cache::Slot>() + hash_entry::<u64, u64>()
}

/// The transaction state of one local PFCP endpoint. See the [module docs](self).
///
/// # Examples
///
/// A CP and a UP exchange a Heartbeat over two instances, datagrams carried by hand.
///
/// ```
/// use std::time::Instant;
/// use pfcp_node::xact::{Event, TransactionConfig, Transactions};
/// use pfcp_wire::ie::RecoveryTimeStamp;
/// use pfcp_wire::msg::{HeartbeatRequest, HeartbeatResponse, TypedMessage};
///
/// let (cp_addr, up_addr) = ("192.0.2.10:8805".parse()?, "192.0.2.1:8805".parse()?);
/// let mut cp = Transactions::new(TransactionConfig::default());
/// let mut up = Transactions::new(TransactionConfig::default());
/// let now = Instant::now();
///
/// let seq = cp.next_sequence(up_addr);
/// let request = HeartbeatRequest::new(RecoveryTimeStamp(0xe8f4_0000)).with_sequence(seq);
/// let id = cp.send_request(up_addr, request.to_vec()?.into(), now)?;
/// let datagram = cp.poll_transmit().ok_or("the first transmission is queued")?;
///
/// up.handle_datagram(cp_addr, datagram.bytes.clone(), now);
/// let Some(Event::Request { sequence, .. }) = up.poll_event() else {
///     return Err("no request delivered".into());
/// };
/// let response = HeartbeatResponse::new(RecoveryTimeStamp(0xe8f4_a2b0)).with_sequence(sequence);
/// up.send_response(cp_addr, sequence, response.to_vec()?.into(), now)?;
/// let answer = up.poll_transmit().ok_or("the response is queued")?;
/// // A retransmission of the request is answered from the cache, not delivered again.
/// up.handle_datagram(cp_addr, datagram.bytes, now);
/// assert!(matches!(up.poll_event(), Some(Event::DuplicateRequest { replayed: true, .. })));
///
/// // The response (matched by peer and sequence number, clause 6.4) ends the transaction.
/// cp.handle_datagram(up_addr, answer.bytes, now);
/// assert!(matches!(cp.poll_event(), Some(Event::Response { id: got, transmissions: 1, .. }) if got == id));
/// assert_eq!(cp.outstanding(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Transactions {
    config: TransactionConfig,
    next_id: u64,
    next_seq: SequenceNumber,
    serial: u64,
    outgoing: HashMap<TxId, Outgoing, IdHash>,
    outgoing_keys: HashMap<Key, TxId, PeerHash>,
    per_peer: HashMap<SocketAddr, usize, PeerHash>,
    /// Retransmission deadlines; an entry is live while its request's `deadline` is its own.
    retransmit: Deadlines<TxId>,
    /// Incoming requests in progress. A (peer, sequence) is in at most one of this and
    /// `cache`.
    pending: HashMap<Key, Pending, PeerHash>,
    /// Expiry of in-progress requests; an entry is live while its serial is its request's.
    pending_expiry: Deadlines<(u64, Key)>,
    /// Responses to answered requests, with their expiry.
    cache: ResponseCache,
    /// Seeds the request fingerprints.
    fingerprints: PeerHash,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    rescheduled: Vec<(Instant, TxId)>,
    stats: XactStats,
}

fn after(now: Instant, d: Duration) -> Instant {
    now.checked_add(d).unwrap_or(now)
}

/// Fingerprint of a message for duplicate detection: the octets with the FO bit masked.
fn fingerprint(seed: &PeerHash, message: &[u8]) -> u64 {
    let mut h = seed.build_hasher();
    if let Some((first, rest)) = message.split_first() {
        h.write_u8(first & !FLAG_FO);
        h.write(rest);
    }
    h.finish()
}

/// Decode `bytes` as exactly one message and return its type and sequence number.
fn one_message(bytes: &[u8]) -> Result<(MessageType, SequenceNumber), XactError> {
    let msg = Message::decode(bytes).map_err(XactError::InvalidMessage)?;
    let h = msg.header();
    if h.follow_on {
        return Err(XactError::FollowOn);
    }
    Ok((h.message_type, h.sequence))
}

impl Transactions {
    /// An endpoint with no transactions.
    pub fn new(mut config: TransactionConfig) -> Self {
        config.t1 = config.t1.clamp(Duration::from_nanos(1), MAX_DURATION);
        config.response_cache_ttl = config.response_cache_ttl.min(MAX_DURATION);
        Transactions {
            next_id: 0,
            next_seq: config.initial_sequence,
            serial: 0,
            outgoing: HashMap::default(),
            outgoing_keys: HashMap::default(),
            per_peer: HashMap::default(),
            retransmit: Deadlines::new(),
            pending: HashMap::default(),
            pending_expiry: Deadlines::new(),
            cache: ResponseCache::new(),
            fingerprints: PeerHash::default(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            rescheduled: Vec::new(),
            stats: XactStats::default(),
            config,
        }
    }

    /// The configuration in force (T1 clamped to at least 1 ns).
    pub fn config(&self) -> &TransactionConfig {
        &self.config
    }

    /// Counters.
    pub fn stats(&self) -> XactStats {
        self.stats
    }

    /// Next header sequence number for a request to `peer`: increments mod 2^24 per local
    /// endpoint (this instance), skipping numbers still outstanding to that peer. Numbers are
    /// never reused before 2^24 others, which keeps them out of a peer's duplicate window at
    /// any rate below 2^24 requests per response cache TTL.
    pub fn next_sequence(&mut self, peer: SocketAddr) -> SequenceNumber {
        let mut seq = self.next_seq;
        // At most as many numbers are skipped as requests are outstanding to `peer`.
        for _ in 0..=SequenceNumber::MAX.value() {
            if !self.outgoing_keys.contains_key(&(peer, seq)) {
                break;
            }
            seq = seq.next();
        }
        self.next_seq = seq.next();
        seq
    }

    /// Send a request. `bytes` is one complete encoded request whose header carries the
    /// sequence number from [`Transactions::next_sequence`] (the header is decoded and
    /// checked). Queues its first transmission; retransmits it byte-identical after T1 up to
    /// N1 times, then reports [`Event::Timeout`]. The response comes as [`Event::Response`].
    pub fn send_request(
        &mut self,
        peer: SocketAddr,
        bytes: Bytes,
        now: Instant,
    ) -> Result<TxId, XactError> {
        let (message_type, sequence) = one_message(&bytes)?;
        self.send_request_parts(peer, bytes, message_type, sequence, now)
    }

    /// [`Transactions::send_request`] for a message whose type and sequence number the caller
    /// took from its own encoder: the endpoint's messages are not decoded again.
    pub(crate) fn send_request_parts(
        &mut self,
        peer: SocketAddr,
        bytes: Bytes,
        message_type: MessageType,
        sequence: SequenceNumber,
        now: Instant,
    ) -> Result<TxId, XactError> {
        if !message_type.is_request() {
            return Err(XactError::NotARequest);
        }
        if self.outgoing_keys.contains_key(&(peer, sequence)) {
            return Err(XactError::SequenceInUse);
        }
        if self.outgoing.len() >= self.config.max_outstanding {
            return Err(XactError::TooManyOutstanding);
        }
        let per_peer = self.per_peer.entry(peer).or_insert(0);
        if *per_peer >= self.config.max_outstanding_per_peer {
            if *per_peer == 0 {
                self.per_peer.remove(&peer);
            }
            return Err(XactError::TooManyOutstandingForPeer);
        }
        *per_peer += 1;
        let id = TxId(self.next_id);
        self.next_id = self.next_id.wrapping_add(1);
        let deadline = after(now, self.config.t1);
        self.outgoing_keys.insert((peer, sequence), id);
        self.retransmit.push(deadline, id);
        self.transmits.push_back(Transmit {
            peer,
            bytes: bytes.clone(),
        });
        self.outgoing.insert(
            id,
            Outgoing {
                peer,
                sequence,
                transmissions: 1,
                deadline,
                bytes,
            },
        );
        self.stats.requests_sent += 1;
        trace!(%peer, %sequence, %id, ?message_type, "request sent");
        Ok(id)
    }

    /// Abandon an outstanding request: no more retransmissions, no event. Returns whether it
    /// was outstanding.
    pub fn cancel(&mut self, id: TxId) -> bool {
        let found = self.remove_outgoing(id).is_some();
        if found {
            self.stats.cancelled += 1;
        }
        found
    }

    /// Fail every outstanding request to `peer` with [`Event::Timeout`] (carrying the
    /// transmissions so far), oldest first, and forget the requests received from it (in
    /// progress and cached responses). Use it when the peer restarted or its path failed.
    /// Returns the number of requests failed.
    pub fn fail_peer(&mut self, peer: SocketAddr) -> usize {
        // A scan: peers fail rarely, and the hash tables keep the common operations O(1).
        let mut ids: Vec<TxId> = self
            .outgoing_keys
            .iter()
            .filter(|((p, _), _)| *p == peer)
            .map(|(_, &id)| id)
            .collect();
        ids.sort_unstable();
        let mut failed = 0;
        for id in ids {
            if let Some(o) = self.remove_outgoing(id) {
                failed += 1;
                self.events.push_back(Event::Timeout {
                    id,
                    peer,
                    transmissions: o.transmissions,
                });
            }
        }
        self.stats.failed_by_peer += failed as u64;
        let forgotten = self.forget_pending_from(peer) + self.cache.remove_peer(peer);
        debug!(%peer, failed, forgotten, "peer failed");
        failed
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`Transactions::handle_timeout`] should be called next (may be in the past).
    pub fn poll_timeout(&self) -> Option<Instant> {
        // The fronts are live (cleaned on every removal) but for rare cases, where a stale
        // front only makes `handle_timeout` come early once.
        let retransmit = self.retransmit.first().map(|(at, _)| at);
        let pending = self.pending_expiry.first().map(|(at, _)| at);
        let cache = self.cache.next_expiry();
        [retransmit, pending, cache].into_iter().flatten().min()
    }

    /// Process every deadline at or before `now`: retransmissions, request timeouts, and
    /// expiry of in-progress requests and cached responses.
    pub fn handle_timeout(&mut self, now: Instant) {
        // Rescheduled timers go back after the loop, so a deadline cannot fire twice in one
        // call whatever T1 is.
        let mut rescheduled = std::mem::take(&mut self.rescheduled);
        while let Some((at, id)) = self.retransmit.first() {
            if at > now {
                break;
            }
            self.retransmit.pop_first();
            let Some(o) = self.outgoing.get_mut(&id).filter(|o| o.deadline == at) else {
                continue;
            };
            // Retransmit while the retries so far are fewer than N1 (clause 6.4).
            if o.transmissions <= self.config.n1 {
                o.transmissions += 1;
                o.deadline = after(now, self.config.t1);
                rescheduled.push((o.deadline, id));
                self.transmits.push_back(Transmit {
                    peer: o.peer,
                    bytes: o.bytes.clone(),
                });
                self.stats.retransmissions += 1;
                self.events
                    .push_back(Event::Retransmitted { id, peer: o.peer });
                trace!(peer = %o.peer, sequence = %o.sequence, %id, n = o.transmissions, "retransmission");
            } else if let Some(o) = self.remove_outgoing(id) {
                self.stats.timeouts += 1;
                debug!(peer = %o.peer, sequence = %o.sequence, %id, "request timed out");
                self.events.push_back(Event::Timeout {
                    id,
                    peer: o.peer,
                    transmissions: o.transmissions,
                });
            }
        }
        for (at, id) in rescheduled.drain(..) {
            self.retransmit.push(at, id);
        }
        self.rescheduled = rescheduled;
        let pending = self.pending.len();
        while let Some((at, (serial, key))) = self.pending_expiry.first() {
            if at > now {
                break;
            }
            self.pending_expiry.pop_first();
            self.take_live(serial, &key);
        }
        if self.pending.len() != pending {
            self.shrink_pending();
        }
        self.cache.expire(now);
    }

    /// Outstanding outgoing requests.
    pub fn outstanding(&self) -> usize {
        self.outgoing.len()
    }

    /// Outstanding outgoing requests to `peer`.
    pub fn outstanding_to(&self, peer: SocketAddr) -> usize {
        self.per_peer.get(&peer).copied().unwrap_or(0)
    }

    /// Cached responses to incoming requests.
    pub fn cached_responses(&self) -> usize {
        self.cache.len()
    }

    /// Incoming requests delivered and not answered yet (and not expired).
    pub fn pending_requests(&self) -> usize {
        self.pending.len()
    }

    fn next_serial(&mut self) -> u64 {
        self.serial = self.serial.wrapping_add(1);
        self.serial
    }

    fn remove_outgoing(&mut self, id: TxId) -> Option<Outgoing> {
        let o = self.outgoing.remove(&id)?;
        self.outgoing_keys.remove(&(o.peer, o.sequence));
        // Its timer entry is stale now; responses come mostly in order, so it is usually at
        // the front, where it goes at once.
        let outgoing = &self.outgoing;
        self.retransmit.clean(outgoing.len(), |at, id| {
            outgoing.get(&id).is_some_and(|o| o.deadline == at)
        });
        if let Some(n) = self.per_peer.get_mut(&o.peer) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.per_peer.remove(&o.peer);
            }
        }
        Some(o)
    }
}

#[cfg(test)]
mod tests;
