//! Request and response pairing, and the closing tally of `pfcp decode --format text`.
//!
//! A response answers the request of the other direction with the same Sequence Number
//! (clause 7.2.2.2: a response copies its request's; a node keys its transactions by peer and
//! sequence, so the key here is the pair of addresses and the sequence). Hex input has no
//! addresses: its messages pair by sequence alone. A retransmitted request keeps its first
//! sighting; a response with no request seen is counted as such.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::time::Duration;

use pfcp_wire::{Cause, Message, MessageType};

/// Where a message was seen: its position (frame number, or line of hex input), its time if
/// known, its addresses if known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// Frame number (captures) or line number (hex input).
    pub at: u64,
    /// Capture time since the Unix epoch.
    pub time: Option<Duration>,
    /// Source and destination.
    pub addrs: Option<(SocketAddr, SocketAddr)>,
}

/// What pairing found for one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paired {
    /// A request (its response, if any, comes later).
    Request,
    /// A request seen before with the same peers and sequence (a retransmission).
    Retransmission {
        /// Where the first copy was seen.
        first: u64,
    },
    /// The response to the request seen at `request`, `elapsed` after it (if both times are
    /// known).
    Response {
        /// Where the request was seen.
        request: u64,
        /// The response time.
        elapsed: Option<Duration>,
    },
    /// A response to no request seen.
    Unmatched,
    /// Neither a request nor a response (Version Not Supported, unknown types).
    Other,
}

type Key = (Option<(SocketAddr, SocketAddr)>, u32);

#[derive(Debug, Clone, Copy)]
struct Pending {
    request_type: MessageType,
    seen: Seen,
    answered: bool,
}

/// The pairing state and the tally of one run.
#[derive(Debug, Default)]
pub struct Pairing {
    pending: HashMap<Key, Pending>,
    /// Messages by type.
    pub by_type: BTreeMap<u8, u64>,
    /// Responses by Cause value (responses without a Cause are not counted).
    pub by_cause: BTreeMap<u8, u64>,
    /// Response times of the paired responses.
    pub response_times: Vec<Duration>,
    /// Responses paired with a request.
    pub answered: u64,
    /// Responses with no request seen.
    pub unmatched: u64,
    /// Retransmitted requests.
    pub retransmissions: u64,
}

impl Pairing {
    /// Record `msg`, seen at `seen`, and say what it pairs with.
    pub fn observe(&mut self, msg: &Message<'_>, seen: Seen) -> Paired {
        let t = msg.message_type();
        *self.by_type.entry(t.0).or_default() += 1;
        let seq = msg.header().sequence.value();
        if t.is_request() {
            let key = (seen.addrs, seq);
            if let Some(first) = self.pending.get(&key).filter(|p| p.request_type == t) {
                self.retransmissions += 1;
                return Paired::Retransmission {
                    first: first.seen.at,
                };
            }
            let p = Pending {
                request_type: t,
                seen,
                answered: false,
            };
            self.pending.insert(key, p);
            return Paired::Request;
        }
        let request_type = MessageType(t.0.wrapping_sub(1));
        if request_type.response_type() != Some(t) {
            return Paired::Other;
        }
        if let Ok(Some(c)) = msg.cause() {
            *self.by_cause.entry(c.0).or_default() += 1;
        }
        let key = (seen.addrs.map(|(s, d)| (d, s)), seq);
        match self.pending.get_mut(&key) {
            Some(p) if p.request_type == request_type => {
                let elapsed = match (p.seen.time, seen.time) {
                    (Some(a), Some(b)) => b.checked_sub(a),
                    _ => None,
                };
                if !p.answered {
                    p.answered = true;
                    self.answered += 1;
                    self.response_times.extend(elapsed);
                }
                Paired::Response {
                    request: p.seen.at,
                    elapsed,
                }
            }
            _ => {
                self.unmatched += 1;
                Paired::Unmatched
            }
        }
    }

    /// Requests seen that no response answered.
    pub fn unanswered(&self) -> u64 {
        self.pending.values().filter(|p| !p.answered).count() as u64
    }

    /// The closing summary: messages by type, responses by Cause, pairing and response
    /// times (minimum, median, maximum); `shown`, when filters chose fewer messages than
    /// were seen, says how many were printed.
    pub fn summary(&self, shown: Option<u64>) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let total: u64 = self.by_type.values().sum();
        match shown {
            Some(n) => {
                let _ = writeln!(s, "Summary: {total} PFCP messages ({n} shown)");
            }
            None => {
                let _ = writeln!(s, "Summary: {total} PFCP messages");
            }
        }
        for (t, n) in &self.by_type {
            let t = MessageType(*t);
            let name = t.name().unwrap_or("Unknown message type");
            let _ = writeln!(s, "    {n:>7}  {name} ({})", t.0);
        }
        if !self.by_cause.is_empty() {
            let _ = writeln!(s, "Responses by Cause:");
            for (c, n) in &self.by_cause {
                let name = Cause(*c).name().unwrap_or("unknown Cause value");
                let _ = writeln!(s, "    {n:>7}  {name} ({c})");
            }
        }
        let _ = writeln!(
            s,
            "Pairs: {} answered, {} unanswered requests, {} responses without a request, {} retransmitted requests",
            self.answered,
            self.unanswered(),
            self.unmatched,
            self.retransmissions
        );
        if !self.response_times.is_empty() {
            let mut v = self.response_times.clone();
            v.sort_unstable();
            let pick = |q: usize| v.get((v.len() - 1) * q / 100).copied().unwrap_or_default();
            let _ = writeln!(
                s,
                "Response time: min {}, median {}, max {} ({} pairs)",
                ms(pick(0)),
                ms(pick(50)),
                ms(pick(100)),
                v.len()
            );
        }
        s
    }
}

/// A duration in milliseconds with three decimals: `1.234 ms`.
pub fn ms(d: Duration) -> String {
    format!("{}.{:03} ms", d.as_millis(), d.as_micros() % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex;

    fn msg(h: &str) -> Vec<u8> {
        hex::decode(h).unwrap()
    }

    fn seen(at: u64, ms: u64, from: &str, to: &str) -> Seen {
        Seen {
            at,
            time: Some(Duration::from_millis(ms)),
            addrs: Some((from.parse().unwrap(), to.parse().unwrap())),
        }
    }

    /// Heartbeat Request and Response (clauses 7.4.2.1-2) with sequence `seq`: the layouts of
    /// clause 7.2.2 with a Recovery Time Stamp.
    fn hb(response: bool, seq: u32) -> Vec<u8> {
        let t = if response { "02" } else { "01" };
        msg(&format!("20{t}000c{seq:06x}0000600004e8f4a2b0"))
    }

    #[test]
    fn pairs_by_peers_and_sequence() {
        let (a, b, c) = ("10.0.0.1:8805", "10.0.0.2:8805", "10.0.0.3:8805");
        let mut p = Pairing::default();
        let req = hb(false, 7);
        let rsp = hb(true, 7);
        fn m(b: &[u8]) -> Message<'_> {
            Message::decode(b).unwrap()
        }
        assert_eq!(p.observe(&m(&req), seen(1, 100, a, b)), Paired::Request);
        // The same sequence from another peer is another transaction.
        assert_eq!(p.observe(&m(&req), seen(2, 101, c, b)), Paired::Request);
        // A retransmission of the first.
        assert_eq!(
            p.observe(&m(&req), seen(3, 102, a, b)),
            Paired::Retransmission { first: 1 }
        );
        // A response in the same direction as the request answers nothing.
        assert_eq!(p.observe(&m(&rsp), seen(4, 103, a, b)), Paired::Unmatched);
        assert_eq!(
            p.observe(&m(&rsp), seen(5, 112, b, a)),
            Paired::Response {
                request: 1,
                elapsed: Some(Duration::from_millis(12))
            }
        );
        // Another sequence number answers nothing.
        assert_eq!(
            p.observe(&m(&hb(true, 8)), seen(6, 113, b, c)),
            Paired::Unmatched
        );
        assert_eq!(p.answered, 1);
        assert_eq!(p.unanswered(), 1);
        assert_eq!(p.unmatched, 2);
        assert_eq!(p.retransmissions, 1);
        assert_eq!(p.by_type.get(&1), Some(&3));
        assert_eq!(p.response_times, vec![Duration::from_millis(12)]);
        let s = p.summary(None);
        assert!(s.contains("3  Heartbeat Request (1)"), "{s}");
        assert!(
            s.contains("Response time: min 12.000 ms, median 12.000 ms, max 12.000 ms"),
            "{s}"
        );
    }

    #[test]
    fn hex_input_pairs_by_sequence_and_counts_causes() {
        // Association Setup Request / Response (clauses 7.4.4.1-2): Node ID IPv4 10.0.0.1,
        // Recovery Time Stamp; the response with Cause 1 (Request accepted).
        let req = msg("20050015000001000060000400000000003c0005000a000001");
        let rsp = msg("2006001a000001000013000101003c0005000a00000200600004e8f4a2b0");
        let mut p = Pairing::default();
        let at = |n| Seen {
            at: n,
            time: None,
            addrs: None,
        };
        assert_eq!(
            p.observe(&Message::decode(&req).unwrap(), at(1)),
            Paired::Request
        );
        assert_eq!(
            p.observe(&Message::decode(&rsp).unwrap(), at(2)),
            Paired::Response {
                request: 1,
                elapsed: None
            }
        );
        assert_eq!(p.by_cause.get(&1), Some(&1));
        assert!(p
            .summary(None)
            .contains("1  Request accepted (success) (1)"));
        assert!(p
            .summary(Some(1))
            .starts_with("Summary: 2 PFCP messages (1 shown)\n"));
    }
}
