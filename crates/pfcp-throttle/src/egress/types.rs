//! The value types of the egress throttle: message kinds, decisions, throttle reasons and
//! counters, kept apart from its state machine.

use pfcp_wire::MessageType;

use crate::classify::Procedure;
use crate::loss::RequestClass;

/// What a message sent on the connection is. Every kind counts in the measured rate (the
/// EMR) and takes its share of the Max EMR; only [`MessageKind::Request`] is a candidate for
/// throttling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MessageKind {
    /// The first transmission of a request: counted, and throttled as the level, pending
    /// limit and cap say.
    Request,
    /// An answer (a PFCP response): counted and always sent (TS 29.244 6.2.4.4: only requests
    /// are throttled; dropping an answer only causes the request to be retransmitted).
    Answer,
    /// A request sent again after its timer (PFCP T1/N1, a Diameter retransmission): counted
    /// and always sent (it was admitted at its first transmission, and must stay identical),
    /// taking no pending slot.
    Retransmission,
    /// A request for path or node management that is never throttled: PFCP Heartbeat,
    /// Association Setup / Update / Release (digest 6.3); Diameter CER, DWR, DPR. Counted and
    /// always sent, taking no pending slot.
    Management,
}

impl MessageKind {
    /// The kind of a PFCP message type: a request of a procedure that is throttled is a
    /// [`MessageKind::Request`], a Heartbeat or Association request a
    /// [`MessageKind::Management`], anything else (responses, unknown types) an
    /// [`MessageKind::Answer`]. A retransmission is known to the caller only.
    pub const fn of(message_type: MessageType) -> Self {
        if !message_type.is_request() {
            MessageKind::Answer
        } else if match Procedure::of(message_type) {
            Some(p) => p.is_throttled(),
            None => true,
        } {
            MessageKind::Request
        } else {
            MessageKind::Management
        }
    }

    /// Whether messages of this kind may be throttled (only first transmissions of requests).
    pub const fn is_throttled(self) -> bool {
        matches!(self, MessageKind::Request)
    }
}

/// A request the egress throttle would admit, from [`EgressThrottle::check`]: pass it to
/// [`EgressThrottle::commit`] when the message is sent, or drop it if it is not (then
/// nothing is counted). See the [module docs](super), "Deciding in two steps".
///
/// [`EgressThrottle::check`]: super::EgressThrottle::check
/// [`EgressThrottle::commit`]: super::EgressThrottle::commit
#[derive(Debug, PartialEq, Eq)]
#[must_use = "commit the permit when the message is sent, or drop it"]
pub struct EgressPermit {
    pub(super) kind: MessageKind,
    pub(super) class: RequestClass,
}

impl EgressPermit {
    /// The kind of the message checked.
    pub const fn kind(&self) -> MessageKind {
        self.kind
    }

    /// The class of the message checked.
    pub const fn class(&self) -> RequestClass {
        self.class
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
#[non_exhaustive]
pub struct EgressStats {
    /// Requests (first transmissions) counted in the measured rate:
    /// [`EgressThrottle::decide`](super::EgressThrottle::decide) whatever the outcome,
    /// [`EgressThrottle::commit`](super::EgressThrottle::commit), plus
    /// [`EgressThrottle::on_send`](super::EgressThrottle::on_send) of a request.
    pub offered_requests: u64,
    /// Answers counted in the measured rate.
    pub offered_answers: u64,
    /// Requests sent: admitted by `decide` or committed, plus `on_send`.
    pub sent_requests: u64,
    /// Of those, exempt requests (sent past the levels and the cap).
    pub sent_exempt: u64,
    /// Answers sent (all of them).
    pub sent_answers: u64,
    /// Retransmissions sent (all of them).
    pub sent_retransmissions: u64,
    /// Management requests sent (all of them).
    pub sent_management: u64,
    /// Requests throttled by the congestion level.
    pub throttled_level: u64,
    /// Requests throttled by the cap.
    pub throttled_rate: u64,
    /// Requests throttled by the pending limit.
    pub throttled_pending: u64,
    /// Throttled requests per priority value (all reasons).
    pub throttled_by_priority: [u64; 16],
    /// Checks ([`EgressThrottle::check`](super::EgressThrottle::check)) that refused: not
    /// counted as offered load.
    pub checks_refused: u64,
    /// How many times the level changed value (a jump of several levels counts once).
    pub level_changes: u64,
    /// Ticks processed.
    pub ticks: u64,
}

impl EgressStats {
    /// Every message counted in the measured rate: requests offered, answers,
    /// retransmissions and management requests.
    pub const fn counted(&self) -> u64 {
        self.offered_requests
            + self.offered_answers
            + self.sent_retransmissions
            + self.sent_management
    }
}
