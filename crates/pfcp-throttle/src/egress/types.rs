//! The value types of the egress throttle: message kinds, decisions, throttle reasons and
//! counters, kept apart from its state machine.

use pfcp_wire::MessageType;

/// Whether a message is a request (a throttling candidate) or an answer (never throttled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// A request: counted, and throttled as the level, pending limit and cap say.
    Request,
    /// An answer (a PFCP response): counted and always sent (TS 29.244 6.2.4.4: only requests
    /// are throttled).
    Answer,
}

impl MessageKind {
    /// The kind of a PFCP message type ([`MessageType::is_request`]; anything else is
    /// treated as an answer).
    pub const fn of(message_type: MessageType) -> Self {
        if message_type.is_request() {
            MessageKind::Request
        } else {
            MessageKind::Answer
        }
    }
}

/// The decision for one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum EgressDecision {
    /// Send it: it has been counted as sent.
    Send,
    /// Do not send it on this connection. Route it elsewhere
    /// ([`crate::routing`]), or fail it locally as though the peer had rejected it.
    Throttle(ThrottleReason),
}

impl EgressDecision {
    /// Whether the message may be sent.
    pub const fn is_send(self) -> bool {
        matches!(self, EgressDecision::Send)
    }
}

/// Why a request was throttled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottleReason {
    /// The connection's congestion level (1..=3) throttles the request's priority.
    Level(u8),
    /// The hard cap at the Max EMR: no token for a request of this priority, or no room
    /// for it in the admission window.
    RateLimit,
    /// [`EgressConfig::max_pending`](super::EgressConfig::max_pending) requests are
    /// outstanding.
    PendingLimit,
}

/// Counters since creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EgressStats {
    /// Requests counted in the measured rate:
    /// [`EgressThrottle::decide`](super::EgressThrottle::decide) whatever the outcome, plus
    /// [`EgressThrottle::on_send`](super::EgressThrottle::on_send).
    pub offered_requests: u64,
    /// Answers counted in the measured rate.
    pub offered_answers: u64,
    /// Requests sent: admitted by `decide`, plus `on_send`.
    pub sent_requests: u64,
    /// Answers sent (all of them).
    pub sent_answers: u64,
    /// Requests throttled by the congestion level.
    pub throttled_level: u64,
    /// Requests throttled by the cap.
    pub throttled_rate: u64,
    /// Requests throttled by the pending limit.
    pub throttled_pending: u64,
    /// Throttled requests per priority value (all reasons).
    pub throttled_by_priority: [u64; 16],
    /// How many times the level changed value (a jump of several levels counts once).
    pub level_changes: u64,
    /// Ticks processed.
    pub ticks: u64,
}
