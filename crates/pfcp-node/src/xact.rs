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

/// Transaction-layer settings. `T1`/`N1` are implementation-specific (clause 6.4 gives no
/// values); the defaults follow common practice (open5gs uses N1 = 3).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransactionConfig {
    /// Retransmission timer T1 (default 3 s). Values below 1 ns count as 1 ns.
    pub t1: Duration,
    /// Maximum number of retransmissions N1 (default 3): a request is sent at most `1 + N1`
    /// times.
    pub n1: u32,
    /// How long an answered request's response is kept to answer duplicates, and how long an
    /// unanswered request is remembered as in progress (default `t1 * (n1 + 1) + 1 s`, see
    /// [`TransactionConfig::default_response_cache_ttl`]). It should cover the *peer's*
    /// retransmission window; a copy arriving later is delivered as a new request.
    pub response_cache_ttl: Duration,
    /// Outstanding outgoing requests, all peers together (default 65 536).
    pub max_outstanding: usize,
    /// Outstanding outgoing requests to one peer address and port (default 4096).
    pub max_outstanding_per_peer: usize,
    /// Cached responses to incoming requests (default 65 536); the oldest is evicted to make
    /// room. 0 disables the cache (duplicates of answered requests are then delivered again).
    pub max_cached_responses: usize,
    /// Incoming requests delivered but not answered yet (default 65 536); the oldest is
    /// forgotten to make room (its answer is still sent, but not cached). Requests are
    /// delivered whatever the outgoing limits: flood protection is the endpoint's job.
    pub max_pending_requests: usize,
    /// While the event or the transmit queue holds this many items (default 65 536),
    /// [`Transactions::handle_datagram`] drops datagrams unread, as if lost. Drain both
    /// queues after every call to stay well below it.
    pub max_queued: usize,
    /// The first sequence number [`Transactions::next_sequence`] hands out (default 0).
    /// Starting elsewhere after a restart (e.g. from the clock) keeps a peer's response cache
    /// from answering new requests with responses to the previous incarnation's.
    pub initial_sequence: SequenceNumber,
    /// Rel-18 clause 7.6: a malformed response to an outstanding request (e.g. its UDP length
    /// differs from its header Length) stops the retransmissions and fails the request with
    /// [`Event::MalformedResponse`]. Default `false`: the Rel-16 (g91) behaviour, discard it
    /// ([`Event::Malformed`]) and keep retransmitting. Enable it only if the event loop
    /// handles [`Event::MalformedResponse`].
    pub fail_on_malformed_response: bool,
}

impl Default for TransactionConfig {
    fn default() -> Self {
        let t1 = Duration::from_secs(3);
        let n1 = 3;
        TransactionConfig {
            t1,
            n1,
            response_cache_ttl: Self::default_response_cache_ttl(t1, n1),
            max_outstanding: 65_536,
            max_outstanding_per_peer: 4096,
            max_cached_responses: 65_536,
            max_pending_requests: 65_536,
            max_queued: 65_536,
            initial_sequence: SequenceNumber::wrapping(0),
            fail_on_malformed_response: false,
        }
    }
}

impl TransactionConfig {
    /// `t1 * (n1 + 1) + 1 s`: a peer with the same T1 and N1 sends its last copy `t1 * n1`
    /// after the first, so this covers it with one T1 and a second of margin.
    pub const fn default_response_cache_ttl(t1: Duration, n1: u32) -> Duration {
        t1.saturating_mul(n1.saturating_add(1))
            .saturating_add(Duration::from_secs(1))
    }

    fn ttl_follows_defaults(&self) -> bool {
        self.response_cache_ttl == Self::default_response_cache_ttl(self.t1, self.n1)
    }

    /// With T1. If the response cache TTL still has its derived value, it follows.
    #[must_use]
    pub fn with_t1(mut self, t1: Duration) -> Self {
        let follow = self.ttl_follows_defaults();
        self.t1 = t1;
        if follow {
            self.response_cache_ttl = Self::default_response_cache_ttl(self.t1, self.n1);
        }
        self
    }

    /// With N1. If the response cache TTL still has its derived value, it follows.
    #[must_use]
    pub fn with_n1(mut self, n1: u32) -> Self {
        let follow = self.ttl_follows_defaults();
        self.n1 = n1;
        if follow {
            self.response_cache_ttl = Self::default_response_cache_ttl(self.t1, self.n1);
        }
        self
    }

    /// With the response cache TTL (set it after T1 and N1, which re-derive it otherwise).
    #[must_use]
    pub fn with_response_cache_ttl(mut self, ttl: Duration) -> Self {
        self.response_cache_ttl = ttl;
        self
    }

    /// With the overall limit of outstanding requests.
    #[must_use]
    pub fn with_max_outstanding(mut self, n: usize) -> Self {
        self.max_outstanding = n;
        self
    }

    /// With the per-peer limit of outstanding requests.
    #[must_use]
    pub fn with_max_outstanding_per_peer(mut self, n: usize) -> Self {
        self.max_outstanding_per_peer = n;
        self
    }

    /// With the limit of cached responses.
    #[must_use]
    pub fn with_max_cached_responses(mut self, n: usize) -> Self {
        self.max_cached_responses = n;
        self
    }

    /// With the limit of in-progress incoming requests.
    #[must_use]
    pub fn with_max_pending_requests(mut self, n: usize) -> Self {
        self.max_pending_requests = n;
        self
    }

    /// With the queue limit.
    #[must_use]
    pub fn with_max_queued(mut self, n: usize) -> Self {
        self.max_queued = n;
        self
    }

    /// With the first sequence number.
    #[must_use]
    pub fn with_initial_sequence(mut self, sequence: SequenceNumber) -> Self {
        self.initial_sequence = sequence;
        self
    }

    /// With the Rel-18 handling of malformed responses.
    #[must_use]
    pub fn with_fail_on_malformed_response(mut self, fail: bool) -> Self {
        self.fail_on_malformed_response = fail;
        self
    }
}

/// Identifies an outgoing request (unique per [`Transactions`], never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TxId(pub u64);

impl fmt::Display for TxId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tx{}", self.0)
    }
}

/// Something the transaction layer reports; drained with [`Transactions::poll_event`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// A new request from `peer`: process it and answer with [`Transactions::send_response`].
    Request {
        /// Source address and port (where the response goes, clause 4.2).
        peer: SocketAddr,
        /// Header sequence number (the response copies it).
        sequence: SequenceNumber,
        /// Message type.
        message_type: MessageType,
        /// The one message (a zero-copy slice of the datagram; FO may be set if it was
        /// bundled).
        bytes: Bytes,
    },
    /// The response to an outstanding request: the transaction is complete.
    Response {
        /// The request.
        id: TxId,
        /// Where it came from.
        peer: SocketAddr,
        /// The one response message (zero-copy slice of the datagram).
        bytes: Bytes,
        /// How many times the request had been sent (1 to `1 + N1`).
        transmissions: u32,
    },
    /// No response after `1 + N1` transmissions, or the request failed with its peer
    /// ([`Transactions::fail_peer`]).
    Timeout {
        /// The request.
        id: TxId,
        /// Its destination.
        peer: SocketAddr,
        /// How many times it was sent.
        transmissions: u32,
    },
    /// A message from `peer` failed to decode, or has an unknown type
    /// ([`DecodeErrorKind::UnknownMessageType`], to be discarded, clause 7.6.1). The endpoint
    /// decides how to answer (`error.header` carries the sequence number when readable).
    Malformed {
        /// Where it came from.
        peer: SocketAddr,
        /// What is wrong.
        error: DecodeError,
    },
    /// A malformed response to an outstanding request, with
    /// [`TransactionConfig::fail_on_malformed_response`]: the request is over (Rel-18
    /// clause 7.6: stop retransmitting, tell the application).
    MalformedResponse {
        /// The request.
        id: TxId,
        /// Where the response came from.
        peer: SocketAddr,
        /// What is wrong with it.
        error: DecodeError,
        /// How many times the request had been sent.
        transmissions: u32,
    },
    /// A response matching no outstanding request: discarded (clause 7.6).
    UnmatchedResponse {
        /// Where it came from.
        peer: SocketAddr,
        /// Its sequence number.
        sequence: SequenceNumber,
    },
    /// A retransmitted request. `replayed`: the cached response was queued again; otherwise
    /// the original is still in progress and the copy was dropped.
    DuplicateRequest {
        /// Where it came from.
        peer: SocketAddr,
        /// Its sequence number.
        sequence: SequenceNumber,
        /// Whether the cached response was re-sent.
        replayed: bool,
    },
    /// A Version Not Supported Response (type 11, clause 7.6.2): the peer does not speak our
    /// version. It answers no request in particular and matches nothing.
    VersionNotSupported {
        /// Where it came from.
        peer: SocketAddr,
    },
}

/// A datagram to send; drained with [`Transactions::poll_transmit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Destination address and port.
    pub peer: SocketAddr,
    /// The UDP payload.
    pub bytes: Bytes,
}

/// Why a request or response was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum XactError {
    /// [`TransactionConfig::max_outstanding`] requests are outstanding.
    #[error("too many outstanding requests")]
    TooManyOutstanding,
    /// [`TransactionConfig::max_outstanding_per_peer`] requests are outstanding to this peer.
    #[error("too many outstanding requests to this peer")]
    TooManyOutstandingForPeer,
    /// A request with this sequence number is outstanding to this peer (use
    /// [`Transactions::next_sequence`]).
    #[error("sequence number in use by an outstanding request to this peer")]
    SequenceInUse,
    /// [`Transactions::send_request`] got a message type that is not a request.
    #[error("message type is not a request")]
    NotARequest,
    /// [`Transactions::send_response`] got a message type that is not a response (type 11
    /// included: it answers no request).
    #[error("message type is not a response")]
    NotAResponse,
    /// The response's header sequence number is not the request's.
    #[error("response carries sequence number {found}, the request {expected}")]
    SequenceMismatch {
        /// The request's.
        expected: SequenceNumber,
        /// The response's.
        found: SequenceNumber,
    },
    /// The response type does not answer the request type (clause 7.3).
    #[error("response type {found} does not answer request type {request}")]
    WrongResponseType {
        /// The request's type.
        request: MessageType,
        /// The response's type.
        found: MessageType,
    },
    /// This request was answered already (all replies to one request must be the same; the
    /// cached response answers its duplicates).
    #[error("request already answered")]
    AlreadyAnswered,
    /// The bytes are not exactly one well-framed PFCP message.
    #[error("invalid message: {0}")]
    InvalidMessage(#[source] DecodeError),
    /// The message has FO=1: give one message, not a bundle.
    #[error("message has the FO flag set")]
    FollowOn,
    /// Building the message failed (for callers that encode and send in one step).
    #[error("encoding failed: {0}")]
    Encode(#[from] EncodeError),
}

/// Counters since creation (never reset; they wrap only after 2^64).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct XactStats {
    /// Requests accepted by [`Transactions::send_request`].
    pub requests_sent: u64,
    /// Retransmissions queued.
    pub retransmissions: u64,
    /// Requests completed by a response.
    pub responses_matched: u64,
    /// Requests failed after `1 + N1` transmissions.
    pub timeouts: u64,
    /// Requests failed by [`Transactions::fail_peer`].
    pub failed_by_peer: u64,
    /// Requests abandoned with [`Transactions::cancel`].
    pub cancelled: u64,
    /// Responses discarded as unmatched.
    pub unmatched_responses: u64,
    /// New incoming requests delivered.
    pub requests_received: u64,
    /// Duplicates answered from the cache.
    pub duplicates_replayed: u64,
    /// Duplicates dropped while the original was in progress.
    pub duplicates_dropped: u64,
    /// Requests reusing an answered request's sequence number with other content.
    pub sequence_reuses: u64,
    /// Responses queued by [`Transactions::send_response`].
    pub responses_sent: u64,
    /// Of those, responses to requests no longer (or never) tracked: sent, not cached.
    pub responses_untracked: u64,
    /// Malformed messages (unknown types included).
    pub malformed: u64,
    /// Version Not Supported Responses received.
    pub version_not_supported: u64,
    /// Cached responses evicted before their TTL to make room.
    pub cache_evictions: u64,
    /// In-progress requests forgotten to make room.
    pub pending_evictions: u64,
    /// Datagrams dropped because a queue was full.
    pub datagrams_dropped: u64,
}

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
