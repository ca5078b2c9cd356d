//! Encoding: exact-length IE encoders and a message writer that patches lengths in place.
//!
//! Nothing here allocates per IE: IEs are written straight into a [`Sink`] (a caller's
//! `&mut [u8]` through [`SliceSink`], a `Vec<u8>`, or a `bytes::BytesMut` with the `bytes`
//! feature), and the Length of a message or grouped IE is written once its content is known.
//!
//! ```
//! use pfcp_wire::encode::{MessageWriter, SliceSink};
//! use pfcp_wire::ie::RecoveryTimeStamp;
//! use pfcp_wire::{Header, MessageType, SequenceNumber};
//!
//! let mut buf = [0u8; 64];
//! let mut sink = SliceSink::new(&mut buf);
//! let header = Header::new(MessageType::HEARTBEAT_REQUEST)
//!     .with_sequence(SequenceNumber::new(0xABCD).unwrap());
//! let mut w = MessageWriter::begin(&mut sink, &header)?;
//! w.ie(&RecoveryTimeStamp(0xE8F4_A2B0))?;
//! let n = w.finish()?;
//! // TS 29.244 clause 7.2.2 / 8.2.65 layout (digest section 1.6).
//! assert_eq!(&buf[..n], &[0x20, 0x01, 0x00, 0x0c, 0x00, 0xab, 0xcd, 0x00,
//!                         0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0]);
//! # Ok::<(), pfcp_wire::EncodeError>(())
//! ```

use crate::error::EncodeError;
use crate::header::Header;
use crate::ie::{IeType, RawIe, TypedIe, IE_HEADER_LEN};

/// Size of the buffer [`Sink::put_small`] takes: an IE header, an Enterprise ID and a short
/// value.
pub const SMALL_WRITE: usize = 28;

/// Where encoded octets go.
pub trait Sink {
    /// Octets written so far.
    fn position(&self) -> usize;
    /// Append `bytes`.
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError>;
    /// Overwrite already-written octets at `at` (used to patch Length fields).
    fn patch(&mut self, at: usize, bytes: &[u8]) -> Result<(), EncodeError>;

    /// Append the first `n` octets of `bytes` (`n <= SMALL_WRITE`). Sinks that can write the
    /// whole fixed-size array and cut it back (a `Vec`) avoid a variable-length copy.
    #[inline]
    fn put_small(&mut self, bytes: &[u8; SMALL_WRITE], n: usize) -> Result<(), EncodeError> {
        self.put(bytes.get(..n).unwrap_or(bytes))
    }
}

/// A sink over a caller's buffer.
#[derive(Debug)]
pub struct SliceSink<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl<'b> SliceSink<'b> {
    /// Write from the start of `buf`.
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceSink { buf, pos: 0 }
    }

    /// The octets written so far.
    pub fn written(&self) -> &[u8] {
        self.buf.get(..self.pos).unwrap_or_default()
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn position(&self) -> usize {
        self.pos
    }

    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        let end = self.pos + bytes.len();
        let available = self.buf.len();
        let dst = self
            .buf
            .get_mut(self.pos..end)
            .ok_or(EncodeError::BufferTooSmall {
                needed: end,
                available,
            })?;
        dst.copy_from_slice(bytes);
        self.pos = end;
        Ok(())
    }

    #[inline]
    fn patch(&mut self, at: usize, bytes: &[u8]) -> Result<(), EncodeError> {
        patch_slice(self.buf.get_mut(..self.pos).unwrap_or_default(), at, bytes)
    }
}

#[inline]
fn patch_slice(buf: &mut [u8], at: usize, bytes: &[u8]) -> Result<(), EncodeError> {
    let available = buf.len();
    let end = at + bytes.len();
    buf.get_mut(at..end)
        .ok_or(EncodeError::BufferTooSmall {
            needed: end,
            available,
        })?
        .copy_from_slice(bytes);
    Ok(())
}

impl Sink for Vec<u8> {
    #[inline]
    fn position(&self) -> usize {
        self.len()
    }
    #[inline]
    fn put_small(&mut self, bytes: &[u8; SMALL_WRITE], n: usize) -> Result<(), EncodeError> {
        let end = self.len() + n.min(SMALL_WRITE);
        self.extend_from_slice(bytes);
        self.truncate(end);
        Ok(())
    }
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.extend_from_slice(bytes);
        Ok(())
    }
    #[inline]
    fn patch(&mut self, at: usize, bytes: &[u8]) -> Result<(), EncodeError> {
        patch_slice(self, at, bytes)
    }
}

#[cfg(feature = "bytes")]
impl Sink for bytes::BytesMut {
    #[inline]
    fn position(&self) -> usize {
        self.len()
    }
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.extend_from_slice(bytes);
        Ok(())
    }
    #[inline]
    fn patch(&mut self, at: usize, bytes: &[u8]) -> Result<(), EncodeError> {
        patch_slice(self, at, bytes)
    }
}

/// Something that encodes as one complete IE (Type, Length, body).
pub trait Encode {
    /// Exact number of octets [`Encode::encode`] writes, IE header included.
    fn encoded_len(&self) -> usize;
    /// Write the IE.
    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError>;
}

/// Write a whole typed IE: Type, Length, then [`TypedIe::write_value`].
///
/// # Examples
///
/// ```
/// use pfcp_wire::encode::{encode_typed, SliceSink};
/// use pfcp_wire::ie::RecoveryTimeStamp;
///
/// let mut buf = [0u8; 8];
/// let mut sink = SliceSink::new(&mut buf);
/// encode_typed(&RecoveryTimeStamp(0xe8f4_a2b0), &mut sink)?;
/// // Clause 8.1.1: Type 96, Length 4, then the NTP seconds of clause 8.2.65.
/// assert_eq!(sink.written(), &[0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0]);
///
/// // No room for another one: an error, not a partial IE past the buffer.
/// assert!(encode_typed(&RecoveryTimeStamp(0), &mut sink).is_err());
/// # Ok::<(), pfcp_wire::EncodeError>(())
/// ```
pub fn encode_typed<'a, T: TypedIe<'a>, S: Sink + ?Sized>(
    ie: &T,
    out: &mut S,
) -> Result<(), EncodeError> {
    put_ie_header(out, T::IE_TYPE, ie.value_len())?;
    ie.write_value(out)
}

/// Implements [`Encode`] for types implementing [`TypedIe`] (every typed IE of the crate).
macro_rules! impl_encode {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::encode::Encode for $t {
            #[inline]
            fn encoded_len(&self) -> usize {
                $crate::ie::IE_HEADER_LEN + $crate::ie::TypedIe::value_len(self)
            }
            #[inline]
            fn encode<S: $crate::encode::Sink + ?Sized>(
                &self,
                out: &mut S,
            ) -> Result<(), $crate::error::EncodeError> {
                $crate::encode::encode_typed(self, out)
            }
        }
    )*};
}
pub(crate) use impl_encode;

/// Write an IE's Type and Length.
///
/// # Examples
///
/// ```
/// use pfcp_wire::encode::{put_ie_header, Sink};
/// use pfcp_wire::ie::IeType;
/// use pfcp_wire::{Cause, EncodeError};
///
/// let mut out = Vec::new();
/// put_ie_header(&mut out, IeType::CAUSE, 1)?;
/// out.put(&[Cause::REQUEST_ACCEPTED.0])?;
/// // Clause 8.1.1: Type 19 and Length 1, in network order; the value follows.
/// assert_eq!(out, [0x00, 0x13, 0x00, 0x01, 0x01]);
///
/// // The Length field is 16 bits.
/// assert_eq!(put_ie_header(&mut out, IeType::CAUSE, 70_000),
///            Err(EncodeError::LengthOverflow(70_000)));
/// # Ok::<(), EncodeError>(())
/// ```
pub fn put_ie_header<S: Sink + ?Sized>(
    out: &mut S,
    ie_type: IeType,
    body_len: usize,
) -> Result<(), EncodeError> {
    let len = u16::try_from(body_len).map_err(|_| EncodeError::LengthOverflow(body_len))?;
    let t = ie_type.0.to_be_bytes();
    let l = len.to_be_bytes();
    out.put(&[t[0], t[1], l[0], l[1]])
}

impl Encode for RawIe<'_> {
    fn encoded_len(&self) -> usize {
        IE_HEADER_LEN + usize::from(self.length())
    }

    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        put_ie_header(out, self.ie_type(), usize::from(self.length()))?;
        if let Some(e) = self.enterprise_id() {
            out.put(&e.to_be_bytes())?;
        }
        out.put(self.value())
    }
}

/// Writes a grouped IE: header first with a placeholder Length, children, then the Length.
///
/// [`GroupWriter::finish`] writes the Length. A group dropped without it (an early return, a
/// forgotten call) would leave a Length of 0 and its children as siblings of the group: instead
/// it marks the whole message broken, and every later call of the message's writer or of an
/// enclosing group, `finish` included, fails with [`EncodeError::UnfinishedGroup`].
#[derive(Debug)]
#[must_use = "a grouped IE needs `finish` to write its Length"]
pub struct GroupWriter<'s, S: Sink + ?Sized> {
    out: &'s mut S,
    start: usize,
    /// Shared by the message's writer and all its groups: a group was dropped unfinished.
    broken: &'s mut bool,
    finished: bool,
}

impl<'s, S: Sink + ?Sized> GroupWriter<'s, S> {
    fn open(out: &'s mut S, broken: &'s mut bool, ie_type: IeType) -> Result<Self, EncodeError> {
        if *broken {
            return Err(EncodeError::UnfinishedGroup);
        }
        let start = out.position();
        put_ie_header(out, ie_type, 0)?;
        Ok(GroupWriter {
            out,
            start,
            broken,
            finished: false,
        })
    }

    #[inline]
    fn check(&self) -> Result<(), EncodeError> {
        if *self.broken {
            Err(EncodeError::UnfinishedGroup)
        } else {
            Ok(())
        }
    }

    /// Add a child IE.
    pub fn ie<E: Encode + ?Sized>(&mut self, ie: &E) -> Result<&mut Self, EncodeError> {
        self.check()?;
        ie.encode(self.out)?;
        Ok(self)
    }

    /// Open a nested grouped IE; [`GroupWriter::finish`] it before adding to this one.
    pub fn group(&mut self, ie_type: IeType) -> Result<GroupWriter<'_, S>, EncodeError> {
        GroupWriter::open(self.out, self.broken, ie_type)
    }

    /// Patch the Length; returns the octets the grouped IE occupies.
    pub fn finish(mut self) -> Result<usize, EncodeError> {
        self.finished = true;
        self.check()?;
        let total = self.out.position() - self.start;
        let body = total - IE_HEADER_LEN;
        let len = u16::try_from(body).map_err(|_| EncodeError::LengthOverflow(body))?;
        self.out.patch(self.start + 2, &len.to_be_bytes())?;
        Ok(total)
    }
}

impl<S: Sink + ?Sized> Drop for GroupWriter<'_, S> {
    fn drop(&mut self) {
        if !self.finished {
            *self.broken = true;
        }
    }
}

/// Writes one message: header first, IEs, then the Message Length patched in place.
#[derive(Debug)]
#[must_use = "a message needs `finish` to write its Message Length"]
pub struct MessageWriter<'s, S: Sink + ?Sized> {
    out: &'s mut S,
    start: usize,
    /// A group of this message was dropped without `finish` (see [`GroupWriter`]).
    broken: bool,
}

impl<'s, S: Sink + ?Sized> MessageWriter<'s, S> {
    /// Write `header` (its `length` field is ignored and computed).
    pub fn begin(out: &'s mut S, header: &Header) -> Result<Self, EncodeError> {
        if header.seid.is_none() && header.priority.is_some() {
            // Clause 7.2.2.1: node headers have no priority octet; refuse rather than drop it.
            return Err(EncodeError::InvalidValue(
                "message priority needs a session (S=1) header",
            ));
        }
        let start = out.position();
        let mut bytes = [0u8; crate::header::SESSION_HEADER_LEN];
        let n = header.encoded_len();
        header
            .write(&mut bytes, 0)
            .ok_or(EncodeError::InvalidValue("header"))?;
        out.put(bytes.get(..n).unwrap_or_default())?;
        Ok(MessageWriter {
            out,
            start,
            broken: false,
        })
    }

    #[inline]
    fn check(&self) -> Result<(), EncodeError> {
        if self.broken {
            Err(EncodeError::UnfinishedGroup)
        } else {
            Ok(())
        }
    }

    /// Add an IE.
    pub fn ie<E: Encode + ?Sized>(&mut self, ie: &E) -> Result<&mut Self, EncodeError> {
        self.check()?;
        ie.encode(self.out)?;
        Ok(self)
    }

    /// Open a grouped IE; call [`GroupWriter::finish`] before adding the next IE (a group
    /// dropped unfinished makes this writer fail from then on).
    pub fn group(&mut self, ie_type: IeType) -> Result<GroupWriter<'_, S>, EncodeError> {
        GroupWriter::open(self.out, &mut self.broken, ie_type)
    }

    /// Append IEs that are already encoded (complete TLVs, e.g. a message body kept from
    /// earlier). The caller vouches for their framing; [`crate::Message::decode`] of the
    /// result checks it.
    pub fn raw_ies(&mut self, ies: &[u8]) -> Result<&mut Self, EncodeError> {
        self.check()?;
        self.out.put(ies)?;
        Ok(self)
    }

    /// Patch the Message Length; returns the octets the message occupies.
    pub fn finish(self) -> Result<usize, EncodeError> {
        self.check()?;
        let total = self.out.position() - self.start;
        let length = total - 4;
        let len = u16::try_from(length).map_err(|_| EncodeError::LengthOverflow(length))?;
        self.out.patch(self.start + 2, &len.to_be_bytes())?;
        Ok(total)
    }
}

impl<T: Encode + ?Sized> Encode for &T {
    fn encoded_len(&self) -> usize {
        (**self).encoded_len()
    }
    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        (**self).encode(out)
    }
}

/// A conditional IE: `None` encodes to nothing.
impl<T: Encode> Encode for Option<T> {
    fn encoded_len(&self) -> usize {
        self.as_ref().map_or(0, Encode::encoded_len)
    }
    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        match self {
            Some(ie) => ie.encode(out),
            None => Ok(()),
        }
    }
}

/// A list of IEs of one kind (e.g. several Create PDRs), in order.
impl<T: Encode> Encode for [T] {
    fn encoded_len(&self) -> usize {
        self.iter().map(Encode::encoded_len).sum()
    }
    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        self.iter().try_for_each(|ie| ie.encode(out))
    }
}

/// A statically typed list of IEs built by [`MessageBuilder::ie`]: `((((), A), B), C)`.
pub trait IeList {
    /// Octets of all IEs.
    fn list_len(&self) -> usize;
    /// Write all IEs in order.
    fn write_list<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError>;
}

impl IeList for () {
    fn list_len(&self) -> usize {
        0
    }
    fn write_list<S: Sink + ?Sized>(&self, _out: &mut S) -> Result<(), EncodeError> {
        Ok(())
    }
}

impl<L: IeList, E: Encode> IeList for (L, E) {
    fn list_len(&self) -> usize {
        self.0.list_len() + self.1.encoded_len()
    }
    fn write_list<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        self.0.write_list(out)?;
        self.1.encode(out)
    }
}

/// A message as a header plus a statically typed list of IEs, with an exact
/// [`MessageBuilder::encoded_len`] known before writing. Nothing is allocated: IEs are stored
/// by value (or by reference: `&T` encodes like `T`) and written straight into the sink.
///
/// ```
/// use pfcp_wire::encode::MessageBuilder;
/// use pfcp_wire::ie::{ControlSequenceNumber, LoadControlInformation, Metric};
/// use pfcp_wire::{Cause, Header, MessageType};
///
/// let lci = LoadControlInformation {
///     sequence_number: ControlSequenceNumber(7),
///     metric: Metric::new(55).unwrap(),
/// };
/// let msg = MessageBuilder::new(Header::new(MessageType::SESSION_DELETION_RESPONSE).with_seid(9))
///     .ie(Cause::REQUEST_ACCEPTED)
///     .ie(Some(lci))
///     .ie(None::<Cause>);
/// let mut buf = vec![0u8; msg.encoded_len()];
/// assert_eq!(msg.encode_into(&mut buf)?, 16 + 5 + 17);
/// # Ok::<(), pfcp_wire::EncodeError>(())
/// ```
#[derive(Debug, Clone)]
pub struct MessageBuilder<L = ()> {
    header: Header,
    ies: L,
}

impl MessageBuilder<()> {
    /// A message with `header` and no IEs yet.
    pub fn new(header: Header) -> Self {
        MessageBuilder { header, ies: () }
    }
}

impl<L: IeList> MessageBuilder<L> {
    /// Append an IE (anything [`Encode`]: typed IEs, `Option`s, slices, references).
    pub fn ie<E: Encode>(self, ie: E) -> MessageBuilder<(L, E)> {
        MessageBuilder {
            header: self.header,
            ies: (self.ies, ie),
        }
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Exact number of octets the message occupies.
    pub fn encoded_len(&self) -> usize {
        self.header.encoded_len() + self.ies.list_len()
    }

    /// Write the message into `out`; returns its length.
    pub fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<usize, EncodeError> {
        let w = MessageWriter::begin(out, &self.header)?;
        self.ies.write_list(w.out)?;
        w.finish()
    }

    /// Write the message at the start of `buf`; returns its length.
    pub fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        let needed = self.encoded_len();
        if buf.len() < needed {
            return Err(EncodeError::BufferTooSmall {
                needed,
                available: buf.len(),
            });
        }
        self.encode(&mut SliceSink::new(buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ie::{ControlSequenceNumber, Metric};
    use crate::{Message, MessageType};

    fn lci_header() -> Header {
        Header::new(MessageType::SESSION_DELETION_RESPONSE).with_seid(9)
    }

    #[test]
    fn finished_groups_patch_their_lengths() {
        // LCI (type 51) with Sequence Number 7 and Metric 55: digest 1.6 layout.
        let mut v = Vec::new();
        let mut w = MessageWriter::begin(&mut v, &lci_header()).unwrap();
        let mut g = w.group(IeType::LOAD_CONTROL_INFORMATION).unwrap();
        g.ie(&ControlSequenceNumber(7)).unwrap();
        g.ie(&Metric::new(55).unwrap()).unwrap();
        assert_eq!(g.finish().unwrap(), 17);
        assert_eq!(w.finish().unwrap(), 33);
        assert_eq!(
            &v[16..],
            &[0, 0x33, 0, 13, 0, 0x34, 0, 4, 0, 0, 0, 7, 0, 0x35, 0, 1, 55]
        );
        assert_eq!(Message::decode(&v).unwrap().ie_count(), 3);
    }

    #[test]
    fn a_group_dropped_without_finish_breaks_the_message() {
        let mut v = Vec::new();
        let mut w = MessageWriter::begin(&mut v, &lci_header()).unwrap();
        {
            let mut g = w.group(IeType::LOAD_CONTROL_INFORMATION).unwrap();
            g.ie(&ControlSequenceNumber(7)).unwrap();
            drop(g);
        }
        // Its Sequence Number would otherwise become a sibling of an empty LCI.
        assert_eq!(
            w.ie(&Metric::new(55).unwrap()).unwrap_err(),
            EncodeError::UnfinishedGroup
        );
        assert_eq!(w.raw_ies(&[]).unwrap_err(), EncodeError::UnfinishedGroup);
        assert!(matches!(
            w.group(IeType::OVERLOAD_CONTROL_INFORMATION),
            Err(EncodeError::UnfinishedGroup)
        ));
        assert_eq!(w.finish().unwrap_err(), EncodeError::UnfinishedGroup);
    }

    #[test]
    fn a_nested_group_dropped_without_finish_fails_its_parent() {
        let mut v = Vec::new();
        let mut w = MessageWriter::begin(&mut v, &lci_header()).unwrap();
        let mut pdr = w.group(IeType::CREATE_PDR).unwrap();
        let pdi = pdr.group(IeType::PDI).unwrap();
        drop(pdi);
        assert_eq!(
            pdr.ie(&Metric::ZERO).unwrap_err(),
            EncodeError::UnfinishedGroup
        );
        assert_eq!(pdr.finish().unwrap_err(), EncodeError::UnfinishedGroup);
        assert_eq!(w.finish().unwrap_err(), EncodeError::UnfinishedGroup);
    }
}
