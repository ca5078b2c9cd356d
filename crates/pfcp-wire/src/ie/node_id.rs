//! Node ID IE (type 60, TS 29.244 clause 8.2.38).
//!
//! ```text
//! octet 5  : spare (bits 8-5) | Node ID Type (bits 4-1): 0 IPv4, 1 IPv6, 2 FQDN
//! octets 6..: 4-octet IPv4 / 16-octet IPv6 / FQDN in DNS label form without the root label
//! ```

use core::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use crate::encode::Sink;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::ie::{IeType, RawIe, TypedIe};

/// Maximum FQDN length on the wire (RFC 1035 section 2.3.4: 255 octets including the root
/// label, which PFCP omits).
pub const FQDN_MAX_WIRE_LEN: usize = 254;

/// A validated FQDN, zero-copy: either the wire form (length-prefixed labels) as received, or
/// a dotted name given by the caller for encoding.
///
/// Equality and hashing compare the labels, octet for octet, whichever form each side is in:
/// a name built with [`Fqdn::from_dotted`] equals the same name decoded from the wire (a Node
/// ID keys association and overload state, so this matters).
#[derive(Clone, Copy)]
pub struct Fqdn<'a> {
    repr: FqdnRepr<'a>,
}

impl PartialEq for Fqdn<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.wire_len() == other.wire_len() && self.labels().eq(other.labels())
    }
}

impl Eq for Fqdn<'_> {}

impl core::hash::Hash for Fqdn<'_> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        // The wire form, whatever the representation (consistent with `eq`).
        for label in self.labels() {
            state.write_u8(label.len() as u8);
            state.write(label);
        }
    }
}

#[derive(Clone, Copy)]
enum FqdnRepr<'a> {
    Wire(&'a [u8]),
    Dotted(&'a str),
}

/// Why a name is not a valid FQDN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FqdnError {
    /// No labels.
    #[error("empty FQDN")]
    Empty,
    /// A label of length 0 (a trailing root label, or `..` in a dotted name).
    #[error("empty label")]
    EmptyLabel,
    /// A label longer than 63 octets.
    #[error("label longer than 63 octets")]
    LabelTooLong,
    /// A label length octet points past the end of the data.
    #[error("label overruns the data")]
    LabelOverrun,
    /// More than 254 octets in wire form.
    #[error("FQDN longer than 254 octets")]
    TooLong,
}

impl FqdnError {
    fn as_str(self) -> &'static str {
        match self {
            FqdnError::Empty => "Node ID FQDN is empty",
            FqdnError::EmptyLabel => "Node ID FQDN has an empty label",
            FqdnError::LabelTooLong => "Node ID FQDN label longer than 63 octets",
            FqdnError::LabelOverrun => "Node ID FQDN label overruns the IE",
            FqdnError::TooLong => "Node ID FQDN longer than 254 octets",
        }
    }
}

impl<'a> Fqdn<'a> {
    /// Validate the wire form (RFC 1035 section 3.1 labels, no terminating zero octet).
    pub fn from_wire(wire: &'a [u8]) -> Result<Fqdn<'a>, FqdnError> {
        if wire.is_empty() {
            return Err(FqdnError::Empty);
        }
        if wire.len() > FQDN_MAX_WIRE_LEN {
            return Err(FqdnError::TooLong);
        }
        let mut rest = wire;
        while let Some((&len, tail)) = rest.split_first() {
            let len = usize::from(len);
            if len == 0 {
                return Err(FqdnError::EmptyLabel);
            }
            if len > 63 {
                return Err(FqdnError::LabelTooLong);
            }
            rest = tail.get(len..).ok_or(FqdnError::LabelOverrun)?;
        }
        Ok(Fqdn {
            repr: FqdnRepr::Wire(wire),
        })
    }

    /// Validate a dotted name such as `upf1.example.net` (a trailing dot is not accepted).
    pub fn from_dotted(name: &'a str) -> Result<Fqdn<'a>, FqdnError> {
        if name.is_empty() {
            return Err(FqdnError::Empty);
        }
        if name.len() + 1 > FQDN_MAX_WIRE_LEN {
            return Err(FqdnError::TooLong);
        }
        for label in name.split('.') {
            if label.is_empty() {
                return Err(FqdnError::EmptyLabel);
            }
            if label.len() > 63 {
                return Err(FqdnError::LabelTooLong);
            }
        }
        Ok(Fqdn {
            repr: FqdnRepr::Dotted(name),
        })
    }

    /// Whether the dotted form names the labels exactly (every label UTF-8 without a dot), so
    /// that [`Fqdn::from_dotted`] of it gives the same wire form; [`fmt::Display`] escapes
    /// the others (RFC 4343), which does not read back.
    pub fn is_dotted_exact(&self) -> bool {
        self.labels()
            .all(|l| !l.contains(&b'.') && std::str::from_utf8(l).is_ok())
    }

    /// Octets of the wire form.
    pub fn wire_len(&self) -> usize {
        match self.repr {
            FqdnRepr::Wire(w) => w.len(),
            FqdnRepr::Dotted(d) => d.len() + 1,
        }
    }

    /// The labels, in order.
    pub fn labels(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let (wire, dotted) = match self.repr {
            FqdnRepr::Wire(w) => (Some(w), None),
            FqdnRepr::Dotted(d) => (None, Some(d)),
        };
        let mut rest = wire.unwrap_or_default();
        let from_wire = core::iter::from_fn(move || {
            let (&len, tail) = rest.split_first()?;
            let label = tail.get(..usize::from(len))?;
            rest = tail.get(usize::from(len)..).unwrap_or_default();
            Some(label)
        });
        let from_dotted = dotted
            .into_iter()
            .flat_map(|d| d.split('.').map(str::as_bytes));
        from_wire.chain(from_dotted)
    }

    fn write<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        match self.repr {
            FqdnRepr::Wire(w) => out.put(w),
            FqdnRepr::Dotted(_) => {
                for label in self.labels() {
                    // Labels were checked to be 1..=63 octets.
                    out.put(&[label.len() as u8])?;
                    out.put(label)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Fqdn<'_> {
    /// Dotted form; octets outside printable ASCII are escaped as `\DDD` (RFC 4343).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, label) in self.labels().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            for &b in label {
                if b.is_ascii_graphic() && b != b'.' && b != b'\\' {
                    write!(f, "{}", b as char)?;
                } else {
                    write!(f, "\\{b:03}")?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Fqdn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fqdn({self})")
    }
}

/// Node ID: the identity of a PFCP node, keys associations and node-scoped (AOCI) overload
/// and load state.
///
/// # Examples
///
/// ```
/// use std::net::Ipv4Addr;
/// use pfcp_wire::encode::{encode_typed, SliceSink};
/// use pfcp_wire::ie::{IeIter, NodeId, TypedIe};
///
/// let mut buf = [0u8; 16];
/// let mut sink = SliceSink::new(&mut buf);
/// encode_typed(&NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)), &mut sink)?;
/// // Clause 8.2.38: type 60, Length 5, Node ID Type 0 (IPv4) in the low nibble, the address.
/// let wire = [0x00, 0x3c, 0x00, 0x05, 0x00, 192, 0, 2, 1];
/// assert_eq!(sink.written(), &wire);
///
/// let ie = IeIter::new(&wire, 0).next().ok_or("no IE")??;
/// assert_eq!(NodeId::decode(&ie)?, NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeId<'a> {
    /// Type 0.
    Ipv4(Ipv4Addr),
    /// Type 1.
    Ipv6(Ipv6Addr),
    /// Type 2.
    Fqdn(Fqdn<'a>),
}

impl fmt::Display for NodeId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeId::Ipv4(a) => write!(f, "{a}"),
            NodeId::Ipv6(a) => write!(f, "{a}"),
            NodeId::Fqdn(n) => write!(f, "{n}"),
        }
    }
}

impl NodeId<'_> {
    /// The Node ID Type code.
    pub const fn type_code(&self) -> u8 {
        match self {
            NodeId::Ipv4(_) => 0,
            NodeId::Ipv6(_) => 1,
            NodeId::Fqdn(_) => 2,
        }
    }
}

impl<'a> TypedIe<'a> for NodeId<'a> {
    const IE_TYPE: IeType = IeType::NODE_ID;

    /// Decodes types 0-2; reserved types 3-15 and short addresses are errors (clause 8.2.38).
    /// Octets after an IPv4/IPv6 address are ignored (extendable IE).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        let v = ie.value();
        let Some((&t, addr)) = v.split_first() else {
            return Err(ie.error(DecodeErrorKind::IeTooShort {
                needed: 1,
                length: 0,
            }));
        };
        let short = |needed| {
            ie.error(DecodeErrorKind::IeTooShort {
                needed,
                length: v.len(),
            })
        };
        match t & 0x0F {
            0 => {
                let a: [u8; 4] = addr
                    .get(..4)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| short(5))?;
                Ok(NodeId::Ipv4(Ipv4Addr::from(a)))
            }
            1 => {
                let a: [u8; 16] = addr
                    .get(..16)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| short(17))?;
                Ok(NodeId::Ipv6(Ipv6Addr::from(a)))
            }
            2 => Fqdn::from_wire(addr)
                .map(NodeId::Fqdn)
                .map_err(|e| ie.error(DecodeErrorKind::InvalidValue(e.as_str()))),
            _ => Err(ie.error(DecodeErrorKind::InvalidValue(
                "Node ID type is reserved (0 IPv4, 1 IPv6, 2 FQDN)",
            ))),
        }
    }
    fn value_len(&self) -> usize {
        1 + match self {
            NodeId::Ipv4(_) => 4,
            NodeId::Ipv6(_) => 16,
            NodeId::Fqdn(n) => n.wire_len(),
        }
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&[self.type_code()])?;
        match self {
            NodeId::Ipv4(a) => out.put(&a.octets()),
            NodeId::Ipv6(a) => out.put(&a.octets()),
            NodeId::Fqdn(n) => n.write(out),
        }
    }
}

crate::encode::impl_encode!(NodeId<'_>);

/// The serde form of a Node ID: `{"ipv4": "192.0.2.1"}`, `{"ipv6": "2001:db8::1"}` or
/// `{"fqdn": "upf1.example.net"}`: the labels as they are, joined by dots, when that names
/// them exactly ([`Fqdn::is_dotted_exact`]), else the escaped [`fmt::Display`] form, which
/// does not read back to the same octets.
#[cfg(feature = "serde")]
mod node_id_serde {
    use std::net::{Ipv4Addr, Ipv6Addr};

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{Fqdn, NodeId};

    #[derive(Deserialize)]
    #[serde(rename = "NodeId", rename_all = "snake_case")]
    enum Form<'a> {
        Ipv4(Ipv4Addr),
        Ipv6(Ipv6Addr),
        Fqdn(&'a str),
    }

    impl Serialize for NodeId<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            match self {
                NodeId::Ipv4(a) => s.serialize_newtype_variant("NodeId", 0, "ipv4", a),
                NodeId::Ipv6(a) => s.serialize_newtype_variant("NodeId", 1, "ipv6", a),
                NodeId::Fqdn(n) if n.is_dotted_exact() => {
                    let labels: Vec<&str> = n
                        .labels()
                        .map(|l| std::str::from_utf8(l).unwrap_or_default())
                        .collect();
                    s.serialize_newtype_variant("NodeId", 2, "fqdn", &labels.join("."))
                }
                NodeId::Fqdn(n) => s.serialize_newtype_variant("NodeId", 2, "fqdn", &n.to_string()),
            }
        }
    }

    /// An FQDN is borrowed from the input: a JSON string with escapes cannot be read.
    impl<'de> Deserialize<'de> for NodeId<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NodeId<'de>, D::Error> {
            Ok(match Form::deserialize(d)? {
                Form::Ipv4(a) => NodeId::Ipv4(a),
                Form::Ipv6(a) => NodeId::Ipv6(a),
                Form::Fqdn(name) => NodeId::Fqdn(
                    Fqdn::from_dotted(name).map_err(|e| serde::de::Error::custom(e.as_str()))?,
                ),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::Encode;
    use crate::ie::IeIter;

    // Digest 4.7: upf1.example.net.
    const FQDN_IE: [u8; 22] = [
        0x00, 0x3c, 0x00, 0x12, 0x02, 0x04, 0x75, 0x70, 0x66, 0x31, 0x07, 0x65, 0x78, 0x61, 0x6d,
        0x70, 0x6c, 0x65, 0x03, 0x6e, 0x65, 0x74,
    ];

    fn decode(b: &[u8]) -> Result<NodeId<'_>, DecodeError> {
        IeIter::new(b, 0).next().unwrap().unwrap().decode_as()
    }

    #[test]
    fn fqdn_is_label_form() {
        let n = decode(&FQDN_IE).unwrap();
        assert_eq!(n.to_string(), "upf1.example.net");
        let built = NodeId::Fqdn(Fqdn::from_dotted("upf1.example.net").unwrap());
        let mut v = Vec::new();
        built.encode(&mut v).unwrap();
        assert_eq!(v, FQDN_IE);
        assert_eq!(built.encoded_len(), FQDN_IE.len());
    }

    #[test]
    fn ipv4() {
        let b = [0x00, 0x3c, 0x00, 0x05, 0x00, 0xc0, 0x00, 0x02, 0x01];
        assert_eq!(
            decode(&b).unwrap(),
            NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1))
        );
        assert!(decode(&[0x00, 0x3c, 0x00, 0x04, 0x00, 0xc0, 0x00, 0x02]).is_err());
    }

    #[test]
    fn dotted_and_wire_forms_compare_equal() {
        use std::collections::hash_map::DefaultHasher;
        use std::hash::{Hash, Hasher};
        fn hash(f: &Fqdn<'_>) -> u64 {
            let mut h = DefaultHasher::new();
            f.hash(&mut h);
            h.finish()
        }
        let dotted = Fqdn::from_dotted("upf1.example.net").unwrap();
        let wire = Fqdn::from_wire(&FQDN_IE[5..]).unwrap();
        assert_eq!(dotted, wire);
        assert_eq!(hash(&dotted), hash(&wire));
        assert_eq!(NodeId::Fqdn(dotted), decode(&FQDN_IE).unwrap());
        // Same octets, other label boundaries: different names.
        assert_ne!(
            Fqdn::from_dotted("ab.c").unwrap(),
            Fqdn::from_dotted("a.bc").unwrap()
        );
        assert_ne!(
            Fqdn::from_wire(&[2, b'a', b'b', 1, b'c']).unwrap(),
            Fqdn::from_wire(&[1, b'a', 2, b'b', b'c']).unwrap()
        );
    }

    #[test]
    fn bad_fqdns() {
        assert_eq!(
            Fqdn::from_wire(&[3, b'a', b'b', b'c', 0]),
            Err(FqdnError::EmptyLabel)
        );
        assert_eq!(Fqdn::from_wire(&[9, b'a']), Err(FqdnError::LabelOverrun));
        let mut long = vec![64u8];
        long.extend([b'a'; 64]);
        assert_eq!(Fqdn::from_wire(&long), Err(FqdnError::LabelTooLong));
        assert_eq!(Fqdn::from_dotted("a..b"), Err(FqdnError::EmptyLabel));
        assert!(decode(&[0x00, 0x3c, 0x00, 0x01, 0x03]).is_err());
    }
}
