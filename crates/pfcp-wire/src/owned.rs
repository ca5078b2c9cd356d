//! An owned, lossless form of a message: every IE kept (unknown and vendor IEs included),
//! grouped IEs as trees. With the `serde` feature it is the JSON form of the `pfcp` CLI.
//!
//! `OwnedMessage::from_message(&m).to_bytes()` reproduces the input byte for byte for every
//! canonical message (spare bits 0, no MP bit on node headers).

use crate::encode::{put_ie_header, Encode, MessageWriter, Sink};
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
    #[cfg_attr(feature = "serde", serde(rename = "value", with = "hex_serde"))]
    Raw(Vec<u8>),
    /// Embedded IEs of a grouped IE.
    #[cfg_attr(feature = "serde", serde(rename = "ies"))]
    Grouped(Vec<OwnedIe>),
}

impl OwnedIe {
    /// Copy a raw IE; grouped IE types (as TS 29.244 defines them) become trees.
    pub fn from_raw(ie: &RawIe<'_>) -> Result<OwnedIe, DecodeError> {
        let content = if ie.ie_type().is_grouped() {
            let mut children = Vec::new();
            for c in ie.children() {
                children.push(OwnedIe::from_raw(&c?)?);
            }
            IeContent::Grouped(children)
        } else {
            IeContent::Raw(ie.value().to_vec())
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

    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        if self.ie_type.is_vendor() != self.enterprise_id.is_some() {
            return Err(EncodeError::InvalidValue(
                "vendor-specific IE types (>= 32768) need an Enterprise ID, others must not have one",
            ));
        }
        put_ie_header(out, self.ie_type, self.body_len())?;
        if let Some(e) = self.enterprise_id {
            out.put(&e.to_be_bytes())?;
        }
        match &self.content {
            IeContent::Raw(v) => out.put(v),
            IeContent::Grouped(children) => {
                for c in children {
                    c.encode(out)?;
                }
                Ok(())
            }
        }
    }
}

impl OwnedMessage {
    /// Copy a decoded message.
    pub fn from_message(m: &Message<'_>) -> Result<OwnedMessage, DecodeError> {
        let mut ies = Vec::new();
        for ie in m.ies() {
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
