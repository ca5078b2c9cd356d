//! The tree form of an IE ([`OwnedIe`]): what the mutation methods of
//! [`OwnedMessage`](super::OwnedMessage) take and give back, and the element of its JSON
//! form. A tree is encoded into the message's buffer when it is added, so the message itself
//! never holds one.

use crate::encode::{Encode, Sink};
use crate::error::{DecodeError, EncodeError};
use crate::ie::{EnterpriseId, IeType, RawIe, IE_HEADER_LEN};

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
        crate::owned::hex::hex_serde::serialize(v.as_slice(), s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<IeValue, D::Error> {
        crate::owned::hex::hex_serde::deserialize(d).map(IeValue::from)
    }
}

/// The number of IEs in the list `ies` (framing checked).
#[inline]
fn count(ies: &crate::ie::IeIter<'_>) -> usize {
    ies.clone().count()
}

impl OwnedIe {
    /// A non-grouped IE with `value` (no Enterprise ID: for types below 32 768).
    pub fn raw(ie_type: IeType, value: &[u8]) -> OwnedIe {
        OwnedIe {
            ie_type,
            enterprise_id: None,
            content: IeContent::Raw(IeValue::new(value)),
        }
    }

    /// A vendor-specific IE (clause 8.1.1: types from 32 768 carry an Enterprise ID).
    pub fn vendor(ie_type: IeType, enterprise_id: EnterpriseId, value: &[u8]) -> OwnedIe {
        OwnedIe {
            ie_type,
            enterprise_id: Some(enterprise_id),
            content: IeContent::Raw(IeValue::new(value)),
        }
    }

    /// A grouped IE with `members` (clause 7.2.3.3).
    pub fn grouped(ie_type: IeType, members: Vec<OwnedIe>) -> OwnedIe {
        OwnedIe {
            ie_type,
            enterprise_id: None,
            content: IeContent::Grouped(members),
        }
    }

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
