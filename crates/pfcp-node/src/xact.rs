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
//! discard), gives [`Event::Malformed`] with the [`DecodeError`] (whose `header`, when
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
//! ## Timers
//!
//! Retransmission deadlines and cache expiries are kept in ordered maps: `handle_timeout`
//! costs O(log n) per expired item and never scans the transactions.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt;
use std::hash::Hasher;
use std::mem::size_of;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_wire::{
    Datagram, DecodeError, DecodeErrorKind, Direction, EncodeError, Message, MessageType,
    SequenceNumber,
};
use tracing::{debug, trace};

/// The FO (follow on) bit of octet 1 (clause 7.2.2.1).
const FLAG_FO: u8 = 0x04;

/// Durations above this are treated as this (about 31 years: "never" in practice), so that
/// deadline arithmetic cannot overflow [`Instant`].
const MAX_DURATION: Duration = Duration::from_secs(1 << 30);

mod types;
pub use types::{Event, TransactionConfig, Transmit, TxId, XactError, XactStats};

type Key = (SocketAddr, SequenceNumber);

/// An outgoing request waiting for its response.
#[derive(Debug)]
struct Outgoing {
    peer: SocketAddr,
    sequence: SequenceNumber,
    transmissions: u32,
    deadline: Instant,
    bytes: Bytes,
}

#[derive(Debug)]
enum IncomingState {
    InProgress { request_type: MessageType },
    Answered { response: Bytes },
}

/// An incoming request: in progress or answered.
#[derive(Debug)]
struct Incoming {
    state: IncomingState,
    fingerprint: u64,
    /// Key in `pending_expiry` or `cache_expiry` (by state).
    expiry: (Instant, u64),
}

/// Hash table entry cost: the bucket plus its control byte, at a load of 1/2 (hashbrown runs
/// between 7/16 and 7/8).
const fn hash_entry<K, V>() -> usize {
    2 * (size_of::<(K, V)>() + 1)
}

/// B-tree entry cost: key and value at half-full nodes (deadline-ordered maps fill at the
/// right edge, which leaves nodes about half full), node headers amortised.
const fn btree_entry<K, V>() -> usize {
    2 * (size_of::<K>() + size_of::<V>()) + 4
}

/// Estimated bytes of bookkeeping per outstanding request (its record, the sequence index,
/// the retransmission timer), **excluding** the encoded request itself (kept for byte-identical
/// retransmission: its length plus the allocation's header). Per-peer counters add
/// `size_of::<(SocketAddr, usize)>()` per peer.
pub const fn approx_bytes_per_outstanding() -> usize {
    hash_entry::<TxId, Outgoing>()
        + btree_entry::<Key, TxId>()
        + btree_entry::<(Instant, TxId), ()>()
}

/// Estimated bytes per in-progress incoming request (the request itself is not kept).
pub const fn approx_bytes_per_pending_request() -> usize {
    btree_entry::<Key, Incoming>() + btree_entry::<(Instant, u64), Key>()
}

/// Estimated bytes of bookkeeping per cached response, **excluding** the response bytes
/// (shared with the transmitted copy: its length plus the allocation's header).
pub const fn approx_bytes_per_cached_response() -> usize {
    btree_entry::<Key, Incoming>() + btree_entry::<(Instant, u64), Key>()
}

/// The transaction state of one local PFCP endpoint. See the [module docs](self).
#[derive(Debug)]
pub struct Transactions {
    config: TransactionConfig,
    next_id: u64,
    next_seq: SequenceNumber,
    serial: u64,
    outgoing: HashMap<TxId, Outgoing>,
    outgoing_keys: BTreeMap<Key, TxId>,
    per_peer: HashMap<SocketAddr, usize>,
    retransmit: BTreeSet<(Instant, TxId)>,
    incoming: BTreeMap<Key, Incoming>,
    pending_expiry: BTreeMap<(Instant, u64), Key>,
    cache_expiry: BTreeMap<(Instant, u64), Key>,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    rescheduled: Vec<(Instant, TxId)>,
    stats: XactStats,
}

fn after(now: Instant, d: Duration) -> Instant {
    now.checked_add(d).unwrap_or(now)
}

/// Fingerprint of a message for duplicate detection: the octets with the FO bit masked.
fn fingerprint(message: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
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
            outgoing: HashMap::new(),
            outgoing_keys: BTreeMap::new(),
            per_peer: HashMap::new(),
            retransmit: BTreeSet::new(),
            incoming: BTreeMap::new(),
            pending_expiry: BTreeMap::new(),
            cache_expiry: BTreeMap::new(),
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
        self.retransmit.insert((deadline, id));
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

    /// One UDP datagram received from `peer`. FO-bundled messages are unpacked and each
    /// becomes an event (or a replayed response). Responses are matched by (peer, sequence)
    /// and stop retransmission; duplicate requests are answered from the response cache or
    /// dropped if still in progress. See the [module docs](self).
    pub fn handle_datagram(&mut self, peer: SocketAddr, payload: Bytes, now: Instant) {
        if self.events.len() >= self.config.max_queued
            || self.transmits.len() >= self.config.max_queued
        {
            self.stats.datagrams_dropped += 1;
            debug!(%peer, "transaction queues full: datagram dropped");
            return;
        }
        let mut messages = Datagram::new(&payload).peekable();
        while let Some(item) = messages.next() {
            let msg = match item {
                Ok(msg) => msg,
                Err(error) => {
                    self.on_malformed(peer, error);
                    continue;
                }
            };
            if let Some(Err(e)) = messages.peek() {
                if matches!(e.kind, DecodeErrorKind::TrailingData { .. }) {
                    // The UDP length exceeds this message's Length (clause 7.6): the error,
                    // which carries this message's header, is all that is reported.
                    continue;
                }
            }
            let start = msg.offset();
            let end = start + msg.as_bytes().len();
            if end > payload.len() {
                continue;
            }
            let bytes = payload.slice(start..end);
            self.on_message(peer, &msg, bytes, now);
        }
    }

    fn on_message(&mut self, peer: SocketAddr, msg: &Message<'_>, bytes: Bytes, now: Instant) {
        let h = msg.header();
        match h.message_type.direction() {
            Some(Direction::Request) => {
                let fp = fingerprint(msg.as_bytes());
                self.on_request(peer, h.sequence, h.message_type, fp, bytes, now);
            }
            Some(Direction::Response) => self.on_response(peer, h.sequence, bytes),
            Some(Direction::Unsolicited) => {
                self.stats.version_not_supported += 1;
                debug!(%peer, "Version Not Supported Response received");
                self.events.push_back(Event::VersionNotSupported { peer });
            }
            None => {
                let error = DecodeError::new(
                    DecodeErrorKind::UnknownMessageType(h.message_type.0),
                    msg.offset(),
                )
                .with_header(msg.summary());
                self.on_malformed(peer, error);
            }
        }
    }

    fn on_malformed(&mut self, peer: SocketAddr, error: DecodeError) {
        self.stats.malformed += 1;
        debug!(%peer, %error, "malformed message");
        if self.config.fail_on_malformed_response {
            if let Some(h) = error.header {
                if h.message_type.direction() == Some(Direction::Response) {
                    if let Some(&id) = self.outgoing_keys.get(&(peer, h.sequence)) {
                        if let Some(o) = self.remove_outgoing(id) {
                            self.events.push_back(Event::MalformedResponse {
                                id,
                                peer,
                                error,
                                transmissions: o.transmissions,
                            });
                            return;
                        }
                    }
                }
            }
        }
        self.events.push_back(Event::Malformed { peer, error });
    }

    fn on_response(&mut self, peer: SocketAddr, sequence: SequenceNumber, bytes: Bytes) {
        let Some(&id) = self.outgoing_keys.get(&(peer, sequence)) else {
            self.stats.unmatched_responses += 1;
            trace!(%peer, %sequence, "unmatched response discarded");
            self.events
                .push_back(Event::UnmatchedResponse { peer, sequence });
            return;
        };
        if let Some(o) = self.remove_outgoing(id) {
            self.stats.responses_matched += 1;
            self.events.push_back(Event::Response {
                id,
                peer,
                bytes,
                transmissions: o.transmissions,
            });
        }
    }

    fn on_request(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        message_type: MessageType,
        fp: u64,
        bytes: Bytes,
        now: Instant,
    ) {
        let key = (peer, sequence);
        let mut reused = false;
        if let Some(entry) = self.incoming.get(&key) {
            match &entry.state {
                IncomingState::InProgress { .. } => {
                    // Same content: a retransmission. Other content while the first is in
                    // progress: the number is reused too early; drop it too (the peer
                    // retransmits it, and it is delivered once the first is answered).
                    self.stats.duplicates_dropped += 1;
                    self.events.push_back(Event::DuplicateRequest {
                        peer,
                        sequence,
                        replayed: false,
                    });
                    return;
                }
                IncomingState::Answered { response } if entry.fingerprint == fp => {
                    self.stats.duplicates_replayed += 1;
                    self.transmits.push_back(Transmit {
                        peer,
                        bytes: response.clone(),
                    });
                    self.events.push_back(Event::DuplicateRequest {
                        peer,
                        sequence,
                        replayed: true,
                    });
                    return;
                }
                IncomingState::Answered { .. } => reused = true,
            }
        }
        if reused {
            self.stats.sequence_reuses += 1;
            debug!(%peer, %sequence, "sequence number reused with new content: new request");
            self.remove_incoming(&key);
        }
        self.stats.requests_received += 1;
        if self.config.max_pending_requests > 0 {
            while self.pending_expiry.len() >= self.config.max_pending_requests {
                let Some((_, old)) = self.pending_expiry.pop_first() else {
                    break;
                };
                self.incoming.remove(&old);
                self.stats.pending_evictions += 1;
            }
            let expiry = (
                after(now, self.config.response_cache_ttl),
                self.next_serial(),
            );
            self.pending_expiry.insert(expiry, key);
            self.incoming.insert(
                key,
                Incoming {
                    state: IncomingState::InProgress {
                        request_type: message_type,
                    },
                    fingerprint: fp,
                    expiry,
                },
            );
        }
        self.events.push_back(Event::Request {
            peer,
            sequence,
            message_type,
            bytes,
        });
    }

    /// Answer a request delivered as [`Event::Request`]: queue `bytes` (one complete response
    /// carrying `request_sequence`) to the request's source address and port (`peer`) and
    /// cache it for duplicates for the response cache TTL.
    ///
    /// A request the layer does not track (reported as [`Event::Malformed`], or forgotten
    /// under memory pressure or after the TTL) is answered all the same, without caching.
    pub fn send_response(
        &mut self,
        peer: SocketAddr,
        request_sequence: SequenceNumber,
        bytes: Bytes,
        now: Instant,
    ) -> Result<(), XactError> {
        let (message_type, sequence) = one_message(&bytes)?;
        if message_type.direction() != Some(Direction::Response) {
            return Err(XactError::NotAResponse);
        }
        if sequence != request_sequence {
            return Err(XactError::SequenceMismatch {
                expected: request_sequence,
                found: sequence,
            });
        }
        let key = (peer, sequence);
        match self.incoming.get(&key).map(|e| &e.state) {
            Some(IncomingState::Answered { .. }) => return Err(XactError::AlreadyAnswered),
            Some(&IncomingState::InProgress { request_type }) => {
                if request_type.response_type() != Some(message_type) {
                    return Err(XactError::WrongResponseType {
                        request: request_type,
                        found: message_type,
                    });
                }
                self.cache_response(key, bytes.clone(), now);
            }
            None => {
                self.stats.responses_untracked += 1;
                trace!(%peer, %sequence, "response to an untracked request: not cached");
            }
        }
        self.stats.responses_sent += 1;
        self.transmits.push_back(Transmit { peer, bytes });
        Ok(())
    }

    /// Turn the in-progress entry `key` into a cached response.
    fn cache_response(&mut self, key: Key, response: Bytes, now: Instant) {
        if self.config.max_cached_responses == 0 {
            self.remove_incoming(&key);
            return;
        }
        while self.cache_expiry.len() >= self.config.max_cached_responses {
            let Some((_, old)) = self.cache_expiry.pop_first() else {
                break;
            };
            self.incoming.remove(&old);
            self.stats.cache_evictions += 1;
        }
        let expiry = (
            after(now, self.config.response_cache_ttl),
            self.next_serial(),
        );
        if let Some(entry) = self.incoming.get_mut(&key) {
            self.pending_expiry.remove(&entry.expiry);
            entry.expiry = expiry;
            entry.state = IncomingState::Answered { response };
            self.cache_expiry.insert(expiry, key);
        }
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
        let range = (peer, SequenceNumber::wrapping(0))..=(peer, SequenceNumber::MAX);
        let mut ids: Vec<TxId> = self
            .outgoing_keys
            .range(range.clone())
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
        let keys: Vec<Key> = self.incoming.range(range).map(|(&k, _)| k).collect();
        for key in &keys {
            self.remove_incoming(key);
        }
        debug!(%peer, failed, forgotten = keys.len(), "peer failed");
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
        let retransmit = self.retransmit.first().map(|&(at, _)| at);
        let pending = self
            .pending_expiry
            .first_key_value()
            .map(|(&(at, _), _)| at);
        let cache = self.cache_expiry.first_key_value().map(|(&(at, _), _)| at);
        [retransmit, pending, cache].into_iter().flatten().min()
    }

    /// Process every deadline at or before `now`: retransmissions, request timeouts, and
    /// expiry of in-progress requests and cached responses.
    pub fn handle_timeout(&mut self, now: Instant) {
        // Rescheduled timers go back after the loop, so a deadline cannot fire twice in one
        // call whatever T1 is.
        let mut rescheduled = std::mem::take(&mut self.rescheduled);
        while let Some(&(at, id)) = self.retransmit.first() {
            if at > now {
                break;
            }
            self.retransmit.pop_first();
            let Some(o) = self.outgoing.get_mut(&id) else {
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
        self.retransmit.extend(rescheduled.drain(..));
        self.rescheduled = rescheduled;
        for expiry in [&mut self.pending_expiry, &mut self.cache_expiry] {
            while let Some(entry) = expiry.first_entry() {
                if entry.key().0 > now {
                    break;
                }
                let key = entry.remove();
                self.incoming.remove(&key);
            }
        }
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
        self.cache_expiry.len()
    }

    /// Incoming requests delivered and not answered yet (and not expired).
    pub fn pending_requests(&self) -> usize {
        self.pending_expiry.len()
    }

    fn next_serial(&mut self) -> u64 {
        self.serial = self.serial.wrapping_add(1);
        self.serial
    }

    fn remove_outgoing(&mut self, id: TxId) -> Option<Outgoing> {
        let o = self.outgoing.remove(&id)?;
        self.outgoing_keys.remove(&(o.peer, o.sequence));
        self.retransmit.remove(&(o.deadline, id));
        if let Some(n) = self.per_peer.get_mut(&o.peer) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.per_peer.remove(&o.peer);
            }
        }
        Some(o)
    }

    fn remove_incoming(&mut self, key: &Key) -> Option<Incoming> {
        let entry = self.incoming.remove(key)?;
        match entry.state {
            IncomingState::InProgress { .. } => self.pending_expiry.remove(&entry.expiry),
            IncomingState::Answered { .. } => self.cache_expiry.remove(&entry.expiry),
        };
        Some(entry)
    }
}

#[cfg(test)]
mod tests;
