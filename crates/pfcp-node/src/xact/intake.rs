//! Taking in datagrams: FO bundles unpacked, each message matched (responses), checked for
//! duplicates (requests) or reported as malformed; the crate-internal form hands the endpoint
//! the messages as decoded here, so that it does not decode them again.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use pfcp_wire::{Datagram, DecodeError, DecodeErrorKind, Direction, Message, SequenceNumber};
use tracing::{debug, trace};

use super::types::{Event, TxId};
use super::{fingerprint, Transactions};

/// A datagram being taken in by [`Transactions::next_accepted`].
pub(crate) struct Intake<'p> {
    peer: SocketAddr,
    payload: &'p Bytes,
    messages: std::iter::Peekable<Datagram<'p>>,
}

/// A message of a received datagram that needs the endpoint: a new request or the response
/// to one of its requests, with the message as the intake decoded it (its octets are
/// [`message_octets`] of the payload, taken only if needed).
pub(crate) enum Accepted<'p> {
    /// A new request (now remembered as in progress).
    Request {
        sequence: SequenceNumber,
        message: Message<'p>,
    },
    /// The response to an outstanding request, which is now complete.
    Response {
        id: TxId,
        message: Message<'p>,
        transmissions: u32,
    },
}

/// The octets of `msg`, one message of the datagram `payload` it was decoded from (a
/// zero-copy slice; empty if `msg` does not lie within `payload`, which the intake rules
/// out).
pub(crate) fn message_octets(payload: &Bytes, msg: &Message<'_>) -> Bytes {
    let start = msg.offset();
    let end = start.saturating_add(msg.as_bytes().len());
    if end <= payload.len() {
        payload.slice(start..end)
    } else {
        Bytes::new()
    }
}

impl Transactions {
    /// One UDP datagram received from `peer`. FO-bundled messages are unpacked and each
    /// becomes an event (or a replayed response). Responses are matched by (peer, sequence)
    /// and stop retransmission; duplicate requests are answered from the response cache or
    /// dropped if still in progress. See the [module docs](crate::xact).
    pub fn handle_datagram(&mut self, peer: SocketAddr, payload: Bytes, now: Instant) {
        let Some(mut intake) = self.intake(peer, &payload) else {
            return;
        };
        while let Some(accepted) = self.next_accepted(&mut intake, now) {
            let event = match accepted {
                Accepted::Request { sequence, message } => Event::Request {
                    peer,
                    sequence,
                    message_type: message.message_type(),
                    bytes: message_octets(&payload, &message),
                },
                Accepted::Response {
                    id,
                    message,
                    transmissions,
                } => Event::Response {
                    id,
                    peer,
                    bytes: message_octets(&payload, &message),
                    transmissions,
                },
            };
            self.events.push_back(event);
        }
    }

    /// Start taking in one datagram (crate-internal form of
    /// [`Transactions::handle_datagram`]); `None` when a queue is full and the datagram is
    /// dropped.
    pub(crate) fn intake<'p>(
        &mut self,
        peer: SocketAddr,
        payload: &'p Bytes,
    ) -> Option<Intake<'p>> {
        if self.events.len() >= self.config.max_queued
            || self.transmits.len() >= self.config.max_queued
        {
            self.stats.datagrams_dropped += 1;
            debug!(%peer, "transaction queues full: datagram dropped");
            return None;
        }
        Some(Intake {
            peer,
            payload,
            messages: Datagram::new(payload).peekable(),
        })
    }

    /// The next new request or matched response of the datagram, with the message as decoded
    /// here, so that the endpoint does not decode its bytes a second time. Everything else
    /// (duplicates, unmatched responses, malformed messages) is handled as by
    /// [`Transactions::handle_datagram`] and queued as events.
    pub(crate) fn next_accepted<'p>(
        &mut self,
        intake: &mut Intake<'p>,
        now: Instant,
    ) -> Option<Accepted<'p>> {
        let peer = intake.peer;
        while let Some(item) = intake.messages.next() {
            let msg = match item {
                Ok(msg) => msg,
                Err(error) => {
                    self.on_malformed(peer, error);
                    continue;
                }
            };
            if let Some(Err(e)) = intake.messages.peek() {
                if matches!(e.kind, DecodeErrorKind::TrailingData { .. }) {
                    // The UDP length exceeds this message's Length (clause 7.6): the error,
                    // which carries this message's header, is all that is reported.
                    continue;
                }
            }
            if msg.offset().saturating_add(msg.as_bytes().len()) > intake.payload.len() {
                continue;
            }
            if let Some(accepted) = self.on_message(peer, msg, now) {
                return Some(accepted);
            }
        }
        None
    }

    fn on_message<'p>(
        &mut self,
        peer: SocketAddr,
        msg: Message<'p>,
        now: Instant,
    ) -> Option<Accepted<'p>> {
        let h = msg.header();
        match h.message_type.direction() {
            Some(Direction::Request) => {
                let fp = fingerprint(&self.fingerprints, msg.as_bytes());
                self.on_request(peer, h.sequence, h.message_type, fp, now)
                    .then_some(Accepted::Request {
                        sequence: h.sequence,
                        message: msg,
                    })
            }
            Some(Direction::Response) => {
                self.on_response(peer, h.sequence)
                    .map(|(id, transmissions)| Accepted::Response {
                        id,
                        message: msg,
                        transmissions,
                    })
            }
            Some(Direction::Unsolicited) => {
                self.stats.version_not_supported += 1;
                debug!(%peer, "Version Not Supported Response received");
                self.events.push_back(Event::VersionNotSupported { peer });
                None
            }
            None => {
                let error = DecodeError::new(
                    DecodeErrorKind::UnknownMessageType(h.message_type.0),
                    msg.offset(),
                )
                .with_header(msg.summary());
                self.on_malformed(peer, error);
                None
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

    /// Match a response; `Some((request, transmissions))` when it ends an outstanding
    /// request.
    fn on_response(&mut self, peer: SocketAddr, sequence: SequenceNumber) -> Option<(TxId, u32)> {
        let Some(&id) = self.outgoing_keys.get(&(peer, sequence)) else {
            self.stats.unmatched_responses += 1;
            trace!(%peer, %sequence, "unmatched response discarded");
            self.events
                .push_back(Event::UnmatchedResponse { peer, sequence });
            return None;
        };
        let o = self.remove_outgoing(id)?;
        self.stats.responses_matched += 1;
        Some((id, o.transmissions))
    }
}
