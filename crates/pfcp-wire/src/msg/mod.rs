//! Typed messages (TS 29.244 clauses 7.4 and 7.5): one struct per message type, with a field
//! per IE of its table, a decoder, a builder and an encoder.
//!
//! ```
//! use std::net::Ipv4Addr;
//! use pfcp_wire::ie::{ApplyAction, CreateFar, CreatePdr, FSeid, FarId, NodeId, Pdi, PdrId,
//!                     SourceInterface};
//! use pfcp_wire::msg::SessionEstablishmentRequest;
//! use pfcp_wire::SequenceNumber;
//!
//! // CP function: the rules, then the message (written in one pass, lengths patched in place).
//! let pdrs = [CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS)).with_far_id(FarId(1))];
//! let fars = [CreateFar::new(FarId(1), ApplyAction::FORW)];
//! let cp = Ipv4Addr::new(192, 0, 2, 10);
//! let req = SessionEstablishmentRequest::new(
//!     NodeId::Ipv4(cp),
//!     FSeid { seid: 1, ipv4: Some(cp), ipv6: None },
//!     &pdrs,
//!     &fars,
//! )
//! .with_sequence(SequenceNumber::new(2).unwrap());
//! let bytes = req.to_vec()?;
//!
//! // UP function: one walk over the message, no allocation.
//! let got = SessionEstablishmentRequest::parse(&bytes)?;
//! assert_eq!(got.cp_f_seid.seid, 1);
//! for pdr in &got.create_pdrs {
//!     assert_eq!(pdr.far_id, Some(FarId(1)));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Fields
//!
//! The fields follow the message's table, in its order ([`data/messages.tsv`] holds the tables;
//! `cargo xtask codegen` writes the structs from it):
//!
//! * a mandatory IE (M) is its value; a conditional (C) or optional (O) one an `Option`;
//! * an IE the table lets a message repeat (the Create PDRs, the Usage Reports, ...) is an
//!   [`IeList`], in order, whatever its presence;
//! * an IE this crate types is its typed IE ([`NodeId`](crate::ie::NodeId),
//!   [`CreatePdr`](crate::ie::CreatePdr), ...); any other is a [`RawIe`];
//! * [`OtherIes`]: the IEs the table does not list (of a later release, vendor-specific, or of
//!   another message), kept in order and octet for octet.
//!
//! The FQ-CSIDs that a table lists under several names (SGW-C, MME, PGW-C/SMF, ...) are one
//! repeated field: nothing on the wire tells them apart.
//!
//! # Decoding
//!
//! [`TypedMessage::decode`] reads a decoded [`Message`] in one walk over its IEs;
//! [`TypedMessage::parse`] decodes the bytes and reads them in the same walk, with the result of
//! the two steps. Nothing is allocated: a repeated IE is a view of the message. The verdict
//! follows clause 7.6:
//!
//! 1. the message type and the S flag, as [`Message::validate`] checks them;
//! 2. the mandatory IEs in the table's order: the first that is missing
//!    ([`DecodeErrorKind::MissingMandatory`], Cause 66) or whose first occurrence does not
//!    decode gives the error. These are the IEs and the errors of `validate` (its list,
//!    [`presence::mandatory_ies`], comes from the same table), so a message `validate` refuses
//!    is refused with the same error;
//! 3. then the first IE in the message that does not decode among the conditional IEs and the
//!    later occurrences of a repeated mandatory IE (a malformed Create PDR rejects a Session
//!    Establishment Request wherever it is).
//!
//! An optional IE that does not decode is left out, and so are the repetitions of an IE the
//! table does not let repeat (clause 7.6.10: the first one counts). [`DecodeError::cause`] and
//! [`DecodeError::offending_ie`] say what to answer a refused request with.
//!
//! # Encoding
//!
//! `new` takes the mandatory IEs, `with_*` sets the others and the header's sequence number
//! (and SEID and priority for a session message), and `encode` writes the message in one pass
//! into any [`Sink`] through [`MessageWriter`](crate::encode::MessageWriter):
//! the IEs in the table's order, then the other IEs. `encoded_len` is exact. A decoded message
//! encodes too: its typed IEs from their values, its [`RawIe`]s and the repeated IEs it holds
//! as a view as the octets received (members this crate does not type included). So a
//! message whose IEs came in the table's order and whose single IEs carry no octets beyond
//! their fields encodes to its own octets.
//!
//! [`data/messages.tsv`]: https://github.com/pfcp-overload/pfcp-overload/blob/main/crates/pfcp-wire/data/messages.tsv
//! [`DecodeErrorKind::MissingMandatory`]: crate::DecodeErrorKind::MissingMandatory
//! [`presence::mandatory_ies`]: crate::presence::mandatory_ies

use crate::encode::{Sink, SliceSink};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::header::Header;
use crate::ie::{check_framing, DecodeLimits, IeIter, RawIe};
use crate::message::Message;
use crate::message_type::MessageType;

mod list;
mod messages;
mod walk;

pub use list::{IeList, IeListIter, MessageIe, OtherIes, OtherIesIter, RawIes};
pub use messages::*;

pub(crate) use messages::mandatory_ies;

/// What every typed message of this module implements: decode, parse and encode, for code
/// generic over the message type.
///
/// ```
/// use pfcp_wire::ie::RecoveryTimeStamp;
/// use pfcp_wire::msg::{HeartbeatRequest, HeartbeatResponse, TypedMessage};
///
/// /// Encode and read back any message.
/// fn round_trip<'a, M: TypedMessage<'a>>(m: &M, buf: &'a mut Vec<u8>) -> M {
///     *buf = m.to_vec().unwrap();
///     M::parse(buf).unwrap()
/// }
/// let hb = HeartbeatRequest::new(RecoveryTimeStamp(7));
/// assert_eq!(round_trip(&hb, &mut Vec::new()), hb);
/// let rsp = HeartbeatResponse::new(RecoveryTimeStamp(8));
/// assert_eq!(round_trip(&rsp, &mut Vec::new()).header().message_type, HeartbeatResponse::MESSAGE_TYPE);
/// ```
pub trait TypedMessage<'a>: Sized + Clone + core::fmt::Debug + PartialEq {
    /// The message type.
    const MESSAGE_TYPE: MessageType;

    /// The message in `message` (decoded by [`Message::decode`]), in one walk over its IEs
    /// (see the [module docs](self) for the verdict).
    fn decode(message: &Message<'a>) -> Result<Self, DecodeError>;

    /// [`TypedMessage::parse`] with explicit resource limits.
    fn parse_with_limits(bytes: &'a [u8], limits: DecodeLimits) -> Result<Self, DecodeError>;

    /// The message in `bytes`: `Message::decode(bytes)` and [`TypedMessage::decode`] in one
    /// walk, with their result (the same value, or the same error).
    fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Self::parse_with_limits(bytes, DecodeLimits::DEFAULT)
    }

    /// The header.
    fn header(&self) -> &Header;

    /// The octets [`TypedMessage::encode`] writes.
    fn encoded_len(&self) -> usize;

    /// Write the message into `out` in one pass; returns its length.
    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<usize, EncodeError>;

    /// Write the message at the start of `buf`; returns its length. A buffer too small is
    /// [`EncodeError::BufferTooSmall`] with the message's length.
    fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        // One pass: the length is computed only when the buffer turns out too small.
        let available = buf.len();
        match self.encode(&mut SliceSink::new(buf)) {
            Err(EncodeError::BufferTooSmall { .. }) => Err(EncodeError::BufferTooSmall {
                needed: self.encoded_len(),
                available,
            }),
            r => r,
        }
    }

    /// The message's octets.
    fn to_vec(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.encode(&mut out)?;
        Ok(out)
    }
}

impl<'a> Message<'a> {
    /// This message, typed by its message type ([`AnyMessage::decode`]).
    ///
    /// ```
    /// use pfcp_wire::msg::AnyMessage;
    /// use pfcp_wire::Message;
    ///
    /// // Heartbeat Request, Recovery Time Stamp 0xE8F4A2B0 (digest section 1.6).
    /// let bytes = [0x20, 0x01, 0x00, 0x0c, 0x00, 0xab, 0xcd, 0x00,
    ///              0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0];
    /// let AnyMessage::HeartbeatRequest(hb) = Message::decode(&bytes)?.typed()? else {
    ///     unreachable!()
    /// };
    /// assert_eq!(hb.recovery_time_stamp.0, 0xE8F4_A2B0);
    /// # Ok::<(), pfcp_wire::DecodeError>(())
    /// ```
    pub fn typed(&self) -> Result<AnyMessage<'a>, DecodeError> {
        AnyMessage::decode(self)
    }
}

impl<'a> RawIe<'a> {
    /// The IE whose octets (Type, Length, the Enterprise ID of a vendor IE, the value) are
    /// exactly `tlv`: for the IEs a typed message holds as a `RawIe`. A grouped IE's members
    /// are framing-checked as [`Message::decode`] checks them.
    ///
    /// ```
    /// use pfcp_wire::{IeType, RawIe};
    ///
    /// // PDN Type (113, clause 8.2.79): IPv4.
    /// let ie = RawIe::from_tlv(&[0x00, 0x71, 0x00, 0x01, 0x01])?;
    /// assert_eq!((ie.ie_type(), ie.value()), (IeType::PDN_TYPE, &[1][..]));
    /// assert!(RawIe::from_tlv(&[0x00, 0x71, 0x00, 0x02, 0x01]).is_err());
    /// # Ok::<(), pfcp_wire::DecodeError>(())
    /// ```
    pub fn from_tlv(tlv: &'a [u8]) -> Result<RawIe<'a>, DecodeError> {
        check_framing(tlv, 0, DecodeLimits::DEFAULT)?;
        let mut ies = IeIter::new(tlv, 0);
        match (ies.next(), ies.next()) {
            (Some(Ok(ie)), None) => Ok(ie),
            (Some(Err(e)), _) => Err(e),
            (None, _) => Err(DecodeError::new(
                DecodeErrorKind::IeHeaderTruncated { available: 0 },
                0,
            )),
            (Some(Ok(ie)), Some(_)) => Err(DecodeError::new(
                DecodeErrorKind::TrailingData {
                    count: tlv.len() - ie.encoded_len(),
                },
                ie.encoded_len(),
            )),
        }
    }
}
