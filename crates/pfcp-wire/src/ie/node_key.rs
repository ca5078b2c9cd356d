//! The owned Node ID ([`NodeKey`]): a [`NodeId`] that outlives its datagram, compared and
//! hashed as the key of per-node state (associations, overload and load control).

use core::fmt;
use core::str::FromStr;
use std::net::IpAddr;
use std::sync::Arc;

use super::node_id::{Fqdn, FqdnError, NodeId};
use crate::encode::{Encode, Sink};
use crate::error::EncodeError;

/// An owned Node ID (clause 8.2.38): an IP address, or an FQDN stored dotted and lowercased.
///
/// FQDNs compare case-insensitively (DNS names, RFC 4343). A `NodeKey` made by
/// [`NodeKey::from_node_id`] or parsed ([`FromStr`]) holds a valid FQDN; one made by
/// [`NodeKey::fqdn`] is not checked until it is encoded.
///
/// ```
/// use pfcp_wire::ie::{NodeId, NodeKey};
/// use pfcp_wire::Encode;
///
/// let key: NodeKey = "UPF1.example.net.".parse().unwrap();
/// assert_eq!(key, NodeKey::fqdn("upf1.example.net"));
/// let mut ie = Vec::new();
/// key.encode(&mut ie).unwrap();
/// // Node ID IE (60), type FQDN (2), the name in DNS label form.
/// assert_eq!(&ie[..5], &[0x00, 0x3c, 0x00, 0x12, 0x02]);
/// assert_eq!(NodeKey::from_node_id(&key.to_node_id().unwrap()), key);
/// assert!("not a name".parse::<NodeKey>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeKey {
    /// Node ID of type IPv4 or IPv6.
    Ip(IpAddr),
    /// Node ID of type FQDN, dotted and lowercased, without a trailing dot. Shared: a clone
    /// costs a reference count, and keys cloned from one another compare by address before
    /// comparing names.
    Fqdn(Arc<str>),
}

impl NodeKey {
    /// The key of a decoded Node ID (allocates for an FQDN).
    pub fn from_node_id(id: &NodeId<'_>) -> NodeKey {
        match id {
            NodeId::Ipv4(a) => NodeKey::Ip(IpAddr::V4(*a)),
            NodeId::Ipv6(a) => NodeKey::Ip(IpAddr::V6(*a)),
            NodeId::Fqdn(f) => NodeKey::Fqdn(f.to_string().to_ascii_lowercase().into()),
        }
    }

    /// The key of a dotted FQDN given by configuration (lowercased, a trailing dot removed;
    /// not validated: see [`FromStr`] for that).
    pub fn fqdn(name: &str) -> NodeKey {
        NodeKey::Fqdn(name.trim_end_matches('.').to_ascii_lowercase().into())
    }

    /// The Node ID IE's value, borrowing this key; an error for an FQDN that is not a valid
    /// name (only a key made by [`NodeKey::fqdn`] can hold one).
    pub fn to_node_id(&self) -> Result<NodeId<'_>, FqdnError> {
        Ok(match self {
            NodeKey::Ip(IpAddr::V4(a)) => NodeId::Ipv4(*a),
            NodeKey::Ip(IpAddr::V6(a)) => NodeId::Ipv6(*a),
            NodeKey::Fqdn(name) => NodeId::Fqdn(Fqdn::from_dotted(name)?),
        })
    }
}

/// Why a text is not a Node ID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NodeKeyError {
    /// A character no host name has (letters, digits, `-`, `_` and `.` are allowed).
    #[error("{text:?} is neither an IP address nor an FQDN ({found:?} is not allowed)")]
    Character {
        /// The text.
        text: String,
        /// The first character not allowed.
        found: char,
    },
    /// Not a valid FQDN.
    #[error("{text:?} is neither an IP address nor an FQDN: {error}")]
    Fqdn {
        /// The text.
        text: String,
        /// What is wrong with it as a name.
        error: FqdnError,
    },
}

impl FromStr for NodeKey {
    type Err = NodeKeyError;

    /// An IP address, else an FQDN (a trailing dot accepted, case folded).
    fn from_str(text: &str) -> Result<NodeKey, NodeKeyError> {
        if let Ok(ip) = text.parse::<IpAddr>() {
            return Ok(NodeKey::Ip(ip));
        }
        let name = text.trim_end_matches('.');
        if let Some(found) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        {
            return Err(NodeKeyError::Character {
                text: text.into(),
                found,
            });
        }
        Fqdn::from_dotted(name).map_err(|error| NodeKeyError::Fqdn {
            text: text.into(),
            error,
        })?;
        Ok(NodeKey::fqdn(name))
    }
}

impl From<IpAddr> for NodeKey {
    fn from(a: IpAddr) -> Self {
        NodeKey::Ip(a)
    }
}

impl From<&NodeId<'_>> for NodeKey {
    fn from(id: &NodeId<'_>) -> Self {
        NodeKey::from_node_id(id)
    }
}

impl fmt::Display for NodeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeKey::Ip(a) => write!(f, "{a}"),
            NodeKey::Fqdn(n) => f.write_str(n),
        }
    }
}

/// Encodes the Node ID IE (type 60); an FQDN that is not a valid name fails with
/// [`EncodeError::InvalidValue`].
impl Encode for NodeKey {
    fn encoded_len(&self) -> usize {
        self.to_node_id().map_or(0, |id| id.encoded_len())
    }

    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        let id = self
            .to_node_id()
            .map_err(|_| EncodeError::InvalidValue("Node ID FQDN"))?;
        id.encode(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ie::TypedIe;
    use std::net::Ipv4Addr;

    #[test]
    fn an_ipv4_key_encodes_as_the_digest_layout() {
        // Node ID IE: type 60, length 5, type 0 (IPv4), 192.0.2.1.
        let mut ie = Vec::new();
        NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into())
            .encode(&mut ie)
            .unwrap();
        assert_eq!(ie, [0x00, 0x3c, 0x00, 0x05, 0x00, 192, 0, 2, 1]);
    }

    #[test]
    fn keys_round_trip_through_the_ie_and_compare_without_case() {
        let key = NodeKey::fqdn("UPF1.Example.NET");
        let mut ie = Vec::new();
        key.encode(&mut ie).unwrap();
        let raw = crate::ie::IeIter::new(&ie, 0).next().unwrap().unwrap();
        let back = NodeKey::from_node_id(&NodeId::decode(&raw).unwrap());
        assert_eq!(back, key);
        assert_eq!(back.to_string(), "upf1.example.net");
    }

    #[test]
    fn text_that_is_no_name_is_refused_with_the_reason() {
        assert!(matches!(
            "a b".parse::<NodeKey>(),
            Err(NodeKeyError::Character { found: ' ', .. })
        ));
        assert!(matches!(
            "a..b".parse::<NodeKey>(),
            Err(NodeKeyError::Fqdn {
                error: FqdnError::EmptyLabel,
                ..
            })
        ));
        assert_eq!(
            "2001:db8::1".parse::<NodeKey>().unwrap(),
            NodeKey::Ip("2001:db8::1".parse().unwrap())
        );
        let bad = NodeKey::fqdn("a..b");
        assert!(bad.encode(&mut Vec::new()).is_err());
    }
}
