//! An owned, lossless form of a message: every IE kept (unknown and vendor IEs included).
//! With the `serde` feature it is the JSON form of the `pfcp` CLI.
//!
//! [`OwnedMessage`] is wire-backed: it holds the header fields and the IE octets exactly as
//! they go on the wire (TS 29.244 clause 7.2.3: Type, Length, Enterprise ID, value; a grouped
//! IE's value is its embedded IEs, clause 7.2.3.3), in one buffer. Copying a decoded message
//! is one allocation and one copy, and encoding it is its header and one copy; reading walks
//! the buffer with the crate's zero-copy [`IeIter`] (typed IEs decode straight from it), and
//! edits go through methods ([`OwnedMessage::insert`], [`OwnedMessage::remove`],
//! [`OwnedMessage::replace`], [`OwnedMessage::set_value`], [`OwnedMessage::group`]) that
//! rewrite the Length of every grouped IE around the edit. `docs/benchmarks.md` ("The oracle
//! corpus") has its costs against rs-pfcp's `parse` and `marshal_into`.
//!
//! The buffer's invariant, kept by every method: it is a list of complete IEs, and the value
//! of every IE of a grouped type ([`crate::IeType::is_grouped`]) is such a list too, nested at most
//! [`MAX_DEPTH`] deep: exactly what [`crate::Message::decode`]'s framing check accepts
//! (within its [`crate::DecodeLimits`]). So walking it cannot fail, and a message built here
//! decodes again.
//!
//! `OwnedMessage::from_message(&m).to_bytes()` reproduces the input byte for byte for every
//! canonical message (spare bits 0, no MP bit on node headers): the IE octets are copied, not
//! re-encoded.

use crate::encode::{Sink, SMALL_WRITE};
use crate::error::{DecodeError, EncodeError};
use crate::header::{Header, MessagePriority, SequenceNumber};
use crate::ie::{IeIter, RawIe};
use crate::message::Message;
use crate::message_type::MessageType;

mod edit;
mod hex;
#[cfg(feature = "serde")]
mod serde_impl;
mod tree;

pub use edit::Group;
pub use hex::parse_hex;
#[cfg(feature = "serde")]
pub(crate) use hex::{cow_hex, hex_serde, opt_cow_hex};
pub use tree::{IeContent, IeValue, OwnedIe};

/// The deepest nesting of grouped IEs an owned message holds (a top-level IE is depth 1):
/// the framing check's own ceiling, so that whatever is built here can be checked.
pub const MAX_DEPTH: usize = crate::ie::MAX_FRAMING_DEPTH;

/// An owned message: the header fields, and the IEs as wire octets (see the module
/// documentation for the invariant the IE octets keep).
///
/// Equal when the header fields and the IE octets are (the octets of a list of IEs determine
/// the IEs, and the other way round).
///
/// # Examples
///
/// ```
/// use pfcp_wire::ie::IeType;
/// use pfcp_wire::owned::{OwnedIe, OwnedMessage};
/// use pfcp_wire::{Message, MessageType, SequenceNumber};
///
/// let seq = SequenceNumber::new(42).ok_or("over 24 bits")?;
/// let mut msg = OwnedMessage::new(MessageType::HEARTBEAT_REQUEST, seq);
/// msg.push(&OwnedIe::raw(IeType::RECOVERY_TIME_STAMP, &[0xe8, 0xf4, 0xa2, 0xb0]))?;
/// let bytes = msg.to_bytes()?;
/// // Clause 7.2.2 node header (Message Length 12, sequence 42), clause 8.1.1 TLV of type 96.
/// assert_eq!(bytes, [0x20, 0x01, 0x00, 0x0c, 0x00, 0x00, 0x2a, 0x00,
///                    0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0]);
///
/// // Lossless both ways.
/// let back = OwnedMessage::from_message(&Message::decode(&bytes)?)?;
/// assert_eq!(back, msg);
/// assert_eq!(back.ies().count(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct OwnedMessage {
    /// Message type.
    pub message_type: MessageType,
    /// SEID (S=1) or `None` (S=0).
    pub seid: Option<u64>,
    /// Header sequence number.
    pub sequence: SequenceNumber,
    /// Message priority (MP=1).
    pub priority: Option<MessagePriority>,
    /// FO flag.
    pub follow_on: bool,
    /// The IEs as on the wire, in order.
    body: Vec<u8>,
}

impl OwnedMessage {
    /// A message of `message_type` with `sequence`, no SEID, no priority, FO=0 and no IEs;
    /// set the public fields and add IEs with [`OwnedMessage::push`].
    pub fn new(message_type: MessageType, sequence: SequenceNumber) -> OwnedMessage {
        OwnedMessage {
            message_type,
            seid: None,
            sequence,
            priority: None,
            follow_on: false,
            body: Vec::new(),
        }
    }

    /// Copy a decoded message: its header fields and its IE octets (one allocation).
    ///
    /// The decoders of this crate check every IE's framing (grouped IEs included), which is
    /// this form's invariant, so this never fails on a [`Message`] they returned; the
    /// `Result` keeps the signature of the tree form it replaced.
    #[inline]
    pub fn from_message(m: &Message<'_>) -> Result<OwnedMessage, DecodeError> {
        let h = m.header();
        Ok(OwnedMessage {
            message_type: h.message_type,
            seid: h.seid,
            sequence: h.sequence,
            priority: h.priority,
            follow_on: h.follow_on,
            body: m.body().to_vec(),
        })
    }

    /// The header these fields describe (its `length` field is 0: the encoder computes it).
    pub fn header(&self) -> Header {
        let mut h = Header::new(self.message_type)
            .with_sequence(self.sequence)
            .with_follow_on(self.follow_on);
        if let Some(s) = self.seid {
            h = h.with_seid(s);
        }
        if let Some(p) = self.priority {
            h = h.with_priority(p);
        }
        h
    }

    /// The IE octets, as they follow the header on the wire.
    #[inline]
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The top-level IEs, read from the buffer ([`RawIe::offset`] counts from the start of
    /// [`OwnedMessage::body`]). The invariant makes every item `Ok`; [`RawIe::children`] of a
    /// grouped IE reads its members, and [`RawIe::decode_as`] the typed IEs.
    #[inline]
    pub fn ies(&self) -> IeIter<'_> {
        IeIter::new(&self.body, 0)
    }

    /// The IE at `path`: indices from the top level down, `[2, 0]` being the first member of
    /// the third top-level IE. `None` if there is no such IE, or a step goes into an IE that
    /// is not of a grouped type.
    pub fn get(&self, path: &[usize]) -> Option<RawIe<'_>> {
        let (&last, parents) = path.split_last()?;
        let mut list = self.ies();
        for &i in parents {
            let ie = list.nth(i)?.ok()?;
            if !ie.ie_type().is_grouped() {
                return None;
            }
            list = ie.children();
        }
        list.nth(last)?.ok()
    }

    /// The top-level IEs as trees (a copy; edits go through the methods of `OwnedMessage`).
    pub fn to_ies(&self) -> Vec<OwnedIe> {
        // The invariant makes every IE readable, so nothing is skipped here.
        self.ies()
            .filter_map(|ie| OwnedIe::from_raw(&ie.ok()?).ok())
            .collect()
    }

    /// Exact octets [`OwnedMessage::encode`] writes.
    #[inline]
    pub fn encoded_len(&self) -> usize {
        self.header().encoded_len() + self.body.len()
    }

    /// Write the message (clause 7.2.2: the header with its Message Length, then the IE
    /// octets as stored); returns the octets written.
    #[inline]
    pub fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<usize, EncodeError> {
        let h = self.header();
        if h.seid.is_none() && h.priority.is_some() {
            // Clause 7.2.2.1: node headers have no priority octet; refuse rather than drop it.
            return Err(EncodeError::InvalidValue(
                "message priority needs a session (S=1) header",
            ));
        }
        let header_len = h.encoded_len();
        let total = header_len + self.body.len();
        // The Message Length counts the octets after the first 4 (clause 7.2.2.1).
        let length = total - 4;
        let len = u16::try_from(length).map_err(|_| EncodeError::LengthOverflow(length))?;
        // The header as one fixed-size write cut to length (no variable-length copy for it),
        // then the IE octets in one copy.
        let mut head = [0u8; SMALL_WRITE];
        h.write(&mut head, len)
            .ok_or(EncodeError::InvalidValue("header"))?;
        out.put_small(&head, header_len)?;
        out.put(&self.body)?;
        Ok(total)
    }

    /// The message as a new vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut v = Vec::with_capacity(self.encoded_len());
        self.encode(&mut v)?;
        Ok(v)
    }
}

/// The header fields and the IEs as trees (the octets themselves are in
/// [`OwnedMessage::body`]).
impl core::fmt::Debug for OwnedMessage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("OwnedMessage")
            .field("message_type", &self.message_type)
            .field("seid", &self.seid)
            .field("sequence", &self.sequence)
            .field("priority", &self.priority)
            .field("follow_on", &self.follow_on)
            .field("ies", &self.to_ies())
            .finish()
    }
}

#[cfg(test)]
mod tests;
