//! The public value types of the transaction layer: configuration, identifiers, events,
//! transmissions, errors and counters.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use pfcp_wire::{DecodeError, EncodeError, MessageType, SequenceNumber};

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
    /// [`Transactions::handle_datagram`](crate::xact::Transactions::handle_datagram) drops datagrams unread, as if lost. Drain both
    /// queues after every call to stay well below it.
    pub max_queued: usize,
    /// The first sequence number [`Transactions::next_sequence`](crate::xact::Transactions::next_sequence) hands out (default 0).
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

/// Identifies an outgoing request (unique per [`Transactions`](crate::xact::Transactions), never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TxId(pub u64);

impl fmt::Display for TxId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tx{}", self.0)
    }
}

/// Something the transaction layer reports; drained with [`Transactions::poll_event`](crate::xact::Transactions::poll_event).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// A new request from `peer`: process it and answer with [`Transactions::send_response`](crate::xact::Transactions::send_response).
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
    /// Request `id` was sent again to `peer` (T1 expired, clause 6.4): for a caller that
    /// counts what each connection carries (an egress rate).
    Retransmitted {
        /// The request.
        id: TxId,
        /// Its destination.
        peer: SocketAddr,
    },
    /// No response after `1 + N1` transmissions, or the request failed with its peer
    /// ([`Transactions::fail_peer`](crate::xact::Transactions::fail_peer)).
    Timeout {
        /// The request.
        id: TxId,
        /// Its destination.
        peer: SocketAddr,
        /// How many times it was sent.
        transmissions: u32,
    },
    /// A message from `peer` failed to decode, or has an unknown type
    /// ([`DecodeErrorKind::UnknownMessageType`](pfcp_wire::DecodeErrorKind::UnknownMessageType),
    /// to be discarded, clause 7.6.1). The endpoint decides how to answer (`error.header`
    /// carries the sequence number when readable).
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

/// A datagram to send; drained with [`Transactions::poll_transmit`](crate::xact::Transactions::poll_transmit).
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
    /// [`Transactions::next_sequence`](crate::xact::Transactions::next_sequence)).
    #[error("sequence number in use by an outstanding request to this peer")]
    SequenceInUse,
    /// [`Transactions::send_request`](crate::xact::Transactions::send_request) got a message type that is not a request.
    #[error("message type is not a request")]
    NotARequest,
    /// [`Transactions::send_response`](crate::xact::Transactions::send_response) got a message type that is not a response (type 11
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
    /// Requests accepted by [`Transactions::send_request`](crate::xact::Transactions::send_request).
    pub requests_sent: u64,
    /// Retransmissions queued.
    pub retransmissions: u64,
    /// Requests completed by a response.
    pub responses_matched: u64,
    /// Requests failed after `1 + N1` transmissions.
    pub timeouts: u64,
    /// Requests failed by [`Transactions::fail_peer`](crate::xact::Transactions::fail_peer).
    pub failed_by_peer: u64,
    /// Requests abandoned with [`Transactions::cancel`](crate::xact::Transactions::cancel).
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
    /// Responses queued by [`Transactions::send_response`](crate::xact::Transactions::send_response).
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
