//! Incoming requests: duplicate detection, the requests in progress (with their expiry
//! queue) and the hand-over of their responses to the [response cache](super::cache).

use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use pfcp_wire::{Direction, MessageType, SequenceNumber};
use tracing::{debug, trace};

use super::types::{Event, Transmit, XactError};
use super::{after, one_message, Key, Pending, Transactions};

impl Transactions {
    /// A request from `peer`: `true` if it is new (now remembered as in progress), `false`
    /// for a duplicate (dropped while the original is in progress, else answered from the
    /// cache).
    pub(super) fn on_request(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        message_type: MessageType,
        fp: u64,
        now: Instant,
    ) -> bool {
        let key = (peer, sequence);
        if self.pending.contains_key(&key) {
            // Same content: a retransmission. Other content while the first is in progress:
            // the number is reused too early; drop it too (the peer retransmits it, and it is
            // delivered once the first is answered).
            self.stats.duplicates_dropped += 1;
            self.events.push_back(Event::DuplicateRequest {
                peer,
                sequence,
                replayed: false,
            });
            return false;
        }
        if let Some((cached_fp, response)) = self.cache.get(peer, sequence) {
            if cached_fp == fp {
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
                return false;
            }
            self.stats.sequence_reuses += 1;
            debug!(%peer, %sequence, "sequence number reused with new content: new request");
            self.cache.remove(peer, sequence);
        }
        self.stats.requests_received += 1;
        if self.config.max_pending_requests > 0 {
            while self.pending.len() >= self.config.max_pending_requests {
                let Some((_, (serial, old))) = self.pending_expiry.pop_first() else {
                    break;
                };
                if self.take_live(serial, &old) {
                    self.stats.pending_evictions += 1;
                }
            }
            let serial = self.next_serial();
            self.pending_expiry
                .push(after(now, self.config.response_cache_ttl), (serial, key));
            self.pending.insert(
                key,
                Pending {
                    request_type: message_type,
                    fingerprint: fp,
                    serial,
                },
            );
        }
        true
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
        self.send_response_parts(peer, request_sequence, message_type, sequence, bytes, now)
    }

    /// [`Transactions::send_response`] for a message whose type and sequence number the
    /// caller has from its encoder or its own decode (so it is not decoded again).
    pub(crate) fn send_response_parts(
        &mut self,
        peer: SocketAddr,
        request_sequence: SequenceNumber,
        message_type: MessageType,
        sequence: SequenceNumber,
        bytes: Bytes,
        now: Instant,
    ) -> Result<(), XactError> {
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
        if let Some(p) = self.pending.get(&key) {
            if p.request_type.response_type() != Some(message_type) {
                return Err(XactError::WrongResponseType {
                    request: p.request_type,
                    found: message_type,
                });
            }
            self.cache_response(key, bytes.clone(), now);
        } else if self.cache.contains(peer, sequence) {
            return Err(XactError::AlreadyAnswered);
        } else {
            self.stats.responses_untracked += 1;
            trace!(%peer, %sequence, "response to an untracked request: not cached");
        }
        self.stats.responses_sent += 1;
        self.transmits.push_back(Transmit { peer, bytes });
        Ok(())
    }

    /// Turn the in-progress entry `key` into a cached response.
    fn cache_response(&mut self, key: Key, response: Bytes, now: Instant) {
        let Some(p) = self.pending.remove(&key) else {
            return;
        };
        // Its in-progress expiry is stale now: usually at the front, where it goes.
        self.pending_removed();
        if self.config.max_cached_responses == 0 {
            return;
        }
        let (peer, sequence) = key;
        let expires = after(now, self.config.response_cache_ttl);
        self.stats.cache_evictions += self.cache.insert(
            peer,
            sequence,
            p.fingerprint,
            response,
            expires,
            self.config.max_cached_responses,
        );
    }

    /// Remove the in-progress entry `key` if `serial` is its live timer entry's.
    pub(super) fn take_live(&mut self, serial: u64, key: &Key) -> bool {
        match self.pending.entry(*key) {
            std::collections::hash_map::Entry::Occupied(e) if e.get().serial == serial => {
                e.remove();
                true
            }
            _ => false,
        }
    }

    /// After in-progress entries were removed before their time: their stale timer entries
    /// are cleaned, and the table gives back what a burst left (it never shrinks by itself),
    /// with hysteresis so that a steady load does not reallocate.
    pub(super) fn pending_removed(&mut self) {
        let pending = &self.pending;
        self.pending_expiry
            .clean(pending.len(), |_, (serial, key)| {
                pending.get(&key).is_some_and(|p| p.serial == serial)
            });
        self.shrink_pending();
    }

    /// Give back the in-progress table's room beyond 4 times its entries (and some slack).
    pub(super) fn shrink_pending(&mut self) {
        let len = self.pending.len();
        if self.pending.capacity() > len.saturating_mul(4).max(128) {
            self.pending.shrink_to(len.saturating_mul(2));
        }
    }

    /// Forget every in-progress request from `peer`; how many there were.
    pub(super) fn forget_pending_from(&mut self, peer: SocketAddr) -> usize {
        let before = self.pending.len();
        self.pending.retain(|&(p, _), _| p != peer);
        let forgotten = before.saturating_sub(self.pending.len());
        if forgotten > 0 {
            self.pending_removed();
        }
        forgotten
    }
}
