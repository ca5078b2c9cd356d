//! An owned, lossless form of a message: every IE kept (unknown and vendor IEs included),
//! grouped IEs as trees. With the `serde` feature it is the JSON form of the `pfcp` CLI.
//!
//! `OwnedMessage::from_message(&m).to_bytes()` reproduces the input byte for byte for every
//! canonical message (spare bits 0, no MP bit on node headers).

use crate::encode::{Encode, MessageWriter, Sink};
use crate::error::{DecodeError, EncodeError};
use crate::header::{Header, MessagePriority, SequenceNumber};
use crate::ie::{EnterpriseId, IeType, RawIe, IE_HEADER_LEN};
use crate::message::Message;
use crate::message_type::MessageType;

/// An owned message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OwnedMessage {
    /// Message type.
    pub message_type: MessageType,
    /// SEID (S=1) or `None` (S=0).
    #[cfg_attr(feature = "serde", serde(default))]
    pub seid: Option<u64>,
    /// Header sequence number.
    pub sequence: SequenceNumber,
    /// Message priority (MP=1).
    #[cfg_attr(feature = "serde", serde(default))]
    pub priority: Option<MessagePriority>,
    /// FO flag.
    #[cfg_attr(feature = "serde", serde(default))]
    pub follow_on: bool,
    /// Top-level IEs in order.
    pub ies: Vec<OwnedIe>,
}

/// An owned IE.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OwnedIe {
    /// IE type.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub ie_type: IeType,
    /// Enterprise ID (vendor-specific IEs only).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub enterprise_id: Option<EnterpriseId>,
    /// Body: raw octets, or embedded IEs for grouped IEs.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub content: IeContent,
}

/// The body of an [`OwnedIe`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum IeContent {
    /// Octets after Type, Length and Enterprise ID (lowercase hex in JSON).
    #[cfg_attr(feature = "serde", serde(rename = "value", with = "value_serde"))]
    Raw(IeValue),
    /// Embedded IEs of a grouped IE.
    #[cfg_attr(feature = "serde", serde(rename = "ies"))]
    Grouped(Vec<OwnedIe>),
}

/// The value of a non-grouped [`OwnedIe`]: up to [`IeValue::INLINE`] octets are stored
/// inline (most IE values are a few octets: Cause, Recovery Time Stamp, F-SEID, rule IDs), so
/// copying a message allocates per grouped IE and per long value only.
#[derive(Clone)]
pub struct IeValue {
    repr: ValueRepr,
}

#[derive(Clone)]
enum ValueRepr {
    Inline {
        len: u8,
        octets: [u8; IeValue::INLINE],
    },
    Heap(Vec<u8>),
}

impl IeValue {
    /// Values up to this many octets need no allocation.
    pub const INLINE: usize = 22;

    /// A copy of `octets`.
    #[inline]
    pub fn new(octets: &[u8]) -> IeValue {
        let mut buf = [0u8; Self::INLINE];
        let repr = match buf.get_mut(..octets.len()) {
            Some(dst) => {
                dst.copy_from_slice(octets);
                ValueRepr::Inline {
                    len: octets.len() as u8,
                    octets: buf,
                }
            }
            None => ValueRepr::Heap(octets.to_vec()),
        };
        IeValue { repr }
    }

    /// The octets.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        match &self.repr {
            ValueRepr::Inline { len, octets } => {
                octets.get(..usize::from(*len)).unwrap_or_default()
            }
            ValueRepr::Heap(v) => v,
        }
    }

    /// The octets as a new vector.
    pub fn to_vec(&self) -> Vec<u8> {
        self.as_slice().to_vec()
    }
}

impl core::ops::Deref for IeValue {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for IeValue {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl From<Vec<u8>> for IeValue {
    fn from(v: Vec<u8>) -> IeValue {
        if v.len() <= Self::INLINE {
            IeValue::new(&v)
        } else {
            IeValue {
                repr: ValueRepr::Heap(v),
            }
        }
    }
}

impl From<&[u8]> for IeValue {
    fn from(v: &[u8]) -> IeValue {
        IeValue::new(v)
    }
}

impl<const N: usize> From<[u8; N]> for IeValue {
    fn from(v: [u8; N]) -> IeValue {
        IeValue::new(&v)
    }
}

impl PartialEq for IeValue {
    fn eq(&self, other: &IeValue) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for IeValue {}

impl PartialEq<[u8]> for IeValue {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<Vec<u8>> for IeValue {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl core::hash::Hash for IeValue {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.as_slice().hash(h);
    }
}

impl core::fmt::Debug for IeValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "IeValue({:02x?})", self.as_slice())
    }
}

#[cfg(feature = "serde")]
mod value_serde {
    use serde::{Deserializer, Serializer};

    use super::IeValue;

    pub(super) fn serialize<S: Serializer>(v: &IeValue, s: S) -> Result<S::Ok, S::Error> {
        super::hex_serde::serialize(v.as_slice(), s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<IeValue, D::Error> {
        super::hex_serde::deserialize(d).map(IeValue::from)
    }
}

/// The number of IEs in the list `ies` (framing checked).
#[inline]
fn count(ies: &crate::ie::IeIter<'_>) -> usize {
    ies.clone().count()
}

impl OwnedIe {
    /// Copy a raw IE; grouped IE types (as TS 29.244 defines them) become trees.
    pub fn from_raw(ie: &RawIe<'_>) -> Result<OwnedIe, DecodeError> {
        let content = if ie.ie_type().is_grouped() {
            let members = ie.children();
            let mut children = Vec::with_capacity(count(&members));
            for c in members {
                children.push(OwnedIe::from_raw(&c?)?);
            }
            IeContent::Grouped(children)
        } else {
            IeContent::Raw(IeValue::new(ie.value()))
        };
        Ok(OwnedIe {
            ie_type: ie.ie_type(),
            enterprise_id: ie.enterprise_id(),
            content,
        })
    }

    fn body_len(&self) -> usize {
        let eid = if self.enterprise_id.is_some() { 2 } else { 0 };
        eid + match &self.content {
            IeContent::Raw(v) => v.len(),
            IeContent::Grouped(c) => c.iter().map(Encode::encoded_len).sum(),
        }
    }
}

impl Encode for OwnedIe {
    fn encoded_len(&self) -> usize {
        IE_HEADER_LEN + self.body_len()
    }

    /// A grouped IE's Length is patched once its members are written (one pass, no length
    /// computed per level).
    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        if self.ie_type.is_vendor() != self.enterprise_id.is_some() {
            return Err(EncodeError::InvalidValue(
                "vendor-specific IE types (>= 32768) need an Enterprise ID, others must not have one",
            ));
        }
        let eid = self.enterprise_id.map(u16::to_be_bytes);
        let t = self.ie_type.0.to_be_bytes();
        match &self.content {
            IeContent::Raw(v) => {
                let body = v.len() + eid.map_or(0, |_| 2);
                let len = u16::try_from(body).map_err(|_| EncodeError::LengthOverflow(body))?;
                let l = len.to_be_bytes();
                let mut head = [t[0], t[1], l[0], l[1], 0, 0];
                let n = match eid {
                    Some([e0, e1]) => {
                        head[4] = e0;
                        head[5] = e1;
                        6
                    }
                    None => 4,
                };
                if let ValueRepr::Inline { len, octets } = &v.repr {
                    // Header and value in one fixed-size write, cut to length: no variable-
                    // length copy (a `memcpy` call) per small IE.
                    let mut buf = [0u8; crate::encode::SMALL_WRITE];
                    let [t0, t1, l0, l1, e0, e1] = head;
                    let value = if n == 6 {
                        buf.split_first_chunk_mut::<6>().map(|(h, rest)| {
                            *h = [t0, t1, l0, l1, e0, e1];
                            rest
                        })
                    } else {
                        buf.split_first_chunk_mut::<4>().map(|(h, rest)| {
                            *h = [t0, t1, l0, l1];
                            rest
                        })
                    };
                    if let Some(dst) =
                        value.and_then(|r| r.first_chunk_mut::<{ IeValue::INLINE }>())
                    {
                        *dst = *octets;
                    }
                    return out.put_small(&buf, n + usize::from(*len));
                }
                out.put(head.get(..n).unwrap_or_default())?;
                out.put(v)
            }
            IeContent::Grouped(children) => {
                let start = out.position();
                match eid {
                    Some([e0, e1]) => out.put(&[t[0], t[1], 0, 0, e0, e1])?,
                    None => out.put(&[t[0], t[1], 0, 0])?,
                }
                for c in children {
                    c.encode(out)?;
                }
                let body = out.position() - start - IE_HEADER_LEN;
                let len = u16::try_from(body).map_err(|_| EncodeError::LengthOverflow(body))?;
                out.patch(start + 2, &len.to_be_bytes())
            }
        }
    }
}

impl OwnedMessage {
    /// Copy a decoded message.
    pub fn from_message(m: &Message<'_>) -> Result<OwnedMessage, DecodeError> {
        let top = m.ies();
        let mut ies = Vec::with_capacity(count(&top));
        for ie in top {
            ies.push(OwnedIe::from_raw(&ie?)?);
        }
        let h = m.header();
        Ok(OwnedMessage {
            message_type: h.message_type,
            seid: h.seid,
            sequence: h.sequence,
            priority: h.priority,
            follow_on: h.follow_on,
            ies,
        })
    }

    /// The header these fields describe.
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

    /// Exact octets [`OwnedMessage::encode`] writes.
    pub fn encoded_len(&self) -> usize {
        self.header().encoded_len() + self.ies.iter().map(Encode::encoded_len).sum::<usize>()
    }

    /// Write the message.
    pub fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<usize, EncodeError> {
        let mut w = MessageWriter::begin(out, &self.header())?;
        for ie in &self.ies {
            w.ie(ie)?;
        }
        w.finish()
    }

    /// The message as a new vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut v = Vec::with_capacity(self.encoded_len());
        self.encode(&mut v)?;
        Ok(v)
    }
}

#[cfg(feature = "serde")]
mod hex_serde {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(v.len() * 2);
        for &b in v {
            out.push(char::from(
                HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0'),
            ));
            out.push(char::from(
                HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0'),
            ));
        }
        s.serialize_str(&out)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        crate::owned::parse_hex(&s).ok_or_else(|| serde::de::Error::custom("invalid hex string"))
    }
}

/// Serde for `Cow<[u8]>` as lowercase hex (the typed octet-string IEs).
#[cfg(feature = "serde")]
pub(crate) mod cow_hex {
    use std::borrow::Cow;

    use serde::{Deserializer, Serializer};

    #[allow(clippy::ptr_arg)] // serde's `with` hands the field by reference
    pub(crate) fn serialize<S: Serializer>(v: &Cow<'_, [u8]>, s: S) -> Result<S::Ok, S::Error> {
        super::hex_serde::serialize(v, s)
    }

    pub(crate) fn deserialize<'de, 'a, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Cow<'a, [u8]>, D::Error> {
        super::hex_serde::deserialize(d).map(Cow::Owned)
    }
}

/// Serde for `Option<Cow<[u8]>>` as lowercase hex or null.
#[cfg(feature = "serde")]
pub(crate) mod opt_cow_hex {
    use std::borrow::Cow;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        v: &Option<Cow<'_, [u8]>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match v {
            Some(b) => super::hex_serde::serialize(b, s),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, 'a, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Cow<'a, [u8]>>, D::Error> {
        let s = Option::<Cow<'de, str>>::deserialize(d)?;
        match s {
            None => Ok(None),
            Some(s) => crate::owned::parse_hex(&s)
                .map(|v| Some(Cow::Owned(v)))
                .ok_or_else(|| serde::de::Error::custom("invalid hex string")),
        }
    }
}

/// Parse a hex string (even length, any case, no separators); `None` if invalid.
pub fn parse_hex(s: &str) -> Option<Vec<u8>> {
    fn nib(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let b = s.as_bytes();
    if b.len() % 2 != 0 {
        return None;
    }
    b.chunks_exact(2)
        .map(|p| match p {
            [h, l] => Some(nib(*h)? << 4 | nib(*l)?),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_session_establishment_request() {
        // Digest 4.14: minimal Session Establishment Request, MP=1 priority 5.
        let hex = "2332005a000000000000000000000250\
                   003c000500c000020a\
                   0039000d020000000000000001c000020a\
                   0001001f003800020001001d0004000000ff000200050014000100006c000400000001\
                   0003000d006c000400000001002c000102";
        let b = parse_hex(hex).unwrap();
        let m = Message::decode(&b).unwrap();
        m.validate().unwrap();
        assert_eq!(m.ie_count(), 11);
        let owned = OwnedMessage::from_message(&m).unwrap();
        assert_eq!(owned.encoded_len(), b.len());
        assert_eq!(owned.to_bytes().unwrap(), b);
        match &owned.ies[2].content {
            IeContent::Grouped(c) => assert_eq!(c.len(), 4),
            IeContent::Raw(_) => panic!("Create PDR is grouped"),
        }
    }
}
