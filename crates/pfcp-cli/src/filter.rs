//! The message filters of `pfcp decode`: `--type`, `--seid`, `--peer`. A message is shown
//! when it passes every filter given (and, within `--type`, any of the types listed).

use std::net::{IpAddr, SocketAddr};

use pfcp_wire::ie::FSeid;
use pfcp_wire::{IeType, Message, MessageType, TypedIe};

/// Which messages to show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Message types (any of them); empty: every type.
    pub types: Vec<MessageType>,
    /// A SEID: in the header, or in an F-SEID IE of the message (the SEID a peer asks to be
    /// addressed with, clause 8.2.37).
    pub seid: Option<u64>,
    /// An address (and port) the message comes from or goes to (captures only).
    pub peer: Option<Peer>,
}

/// The `--peer` filter: an IP address, or an address and port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// Any port of this address.
    Ip(IpAddr),
    /// This address and port.
    Socket(SocketAddr),
}

impl Peer {
    /// Parse `10.0.0.1`, `2001:db8::1`, `10.0.0.1:8805` or `[2001:db8::1]:8805`.
    pub fn parse(s: &str) -> Result<Peer, String> {
        if let Ok(ip) = s.parse::<IpAddr>() {
            return Ok(Peer::Ip(ip));
        }
        s.parse::<SocketAddr>().map(Peer::Socket).map_err(|_| {
            format!(
                "{s:?} is not an IP address or ADDRESS:PORT (e.g. 10.0.0.1, [2001:db8::1]:8805)"
            )
        })
    }

    fn matches(self, a: SocketAddr) -> bool {
        match self {
            Peer::Ip(ip) => a.ip() == ip,
            Peer::Socket(s) => a == s,
        }
    }
}

/// Parse a message type given by code (`50`) or by name, ignoring case, spaces, `-` and `_`
/// (`"Session Establishment Request"`, `session-establishment-request`).
pub fn parse_message_type(s: &str) -> Result<MessageType, String> {
    if let Ok(code) = s.trim().parse::<u8>() {
        return Ok(MessageType(code));
    }
    let want = squash(s);
    (0..=u8::MAX)
        .map(MessageType)
        .find(|t| t.name().is_some_and(|n| squash(n) == want))
        .ok_or_else(|| {
            format!("unknown message type {s:?} (a code 0-255 or a name such as heartbeat-request)")
        })
}

/// Lowercase letters and digits only.
fn squash(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

impl Filter {
    /// Whether no filter is set.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty() && self.seid.is_none() && self.peer.is_none()
    }

    /// Whether `msg`, sent from `src` to `dst` (if known), is shown. A `--peer` filter hides
    /// every message whose addresses are unknown (hex input).
    pub fn matches(&self, msg: &Message<'_>, addrs: Option<(SocketAddr, SocketAddr)>) -> bool {
        if !self.types.is_empty() && !self.types.contains(&msg.message_type()) {
            return false;
        }
        if let Some(peer) = self.peer {
            match addrs {
                Some((src, dst)) if peer.matches(src) || peer.matches(dst) => {}
                _ => return false,
            }
        }
        if let Some(seid) = self.seid {
            let in_header = msg.header().seid == Some(seid);
            let in_fseid = || {
                msg.ies()
                    .map_while(Result::ok)
                    .filter(|ie| ie.ie_type() == IeType::F_SEID)
                    .any(|ie| FSeid::decode(&ie).is_ok_and(|f| f.seid == seid))
            };
            if !in_header && !in_fseid() {
                return false;
            }
        }
        true
    }
}

/// Parse a SEID given in decimal or as `0x` hex.
pub fn parse_seid(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|_| format!("{s:?} is not a SEID (decimal, or hex with 0x)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn message_types_by_code_or_name() {
        assert_eq!(parse_message_type("1"), Ok(MessageType(1)));
        let ser = MessageType(50);
        assert_eq!(parse_message_type("Session Establishment Request"), Ok(ser));
        assert_eq!(parse_message_type("session-establishment-request"), Ok(ser));
        assert_eq!(parse_message_type("SESSION_ESTABLISHMENT_REQUEST"), Ok(ser));
        assert!(parse_message_type("session-foo").is_err());
        assert_eq!(parse_seid("0x1f"), Ok(31));
        assert_eq!(parse_seid("31"), Ok(31));
        assert!(parse_seid("x").is_err());
        assert_eq!(
            Peer::parse("10.0.0.1"),
            Ok(Peer::Ip("10.0.0.1".parse().unwrap()))
        );
        assert_eq!(
            Peer::parse("[2001:db8::1]:8805"),
            Ok(Peer::Socket(addr("[2001:db8::1]:8805")))
        );
        assert!(Peer::parse("10.0.0").is_err());
    }

    #[test]
    fn filters_combine() {
        // Heartbeat Request (clause 7.4.2.1, no SEID), and a Session Establishment Request
        // with header SEID 0 and an F-SEID of SEID 0x1234, IPv4 192.0.2.1 (clause 8.2.37).
        let hb = hex::decode("2001000c00abcd0000600004e8f4a2b0").unwrap();
        let ser = hex::decode(
            "2132001d000000000000000000000100\
             0039000d02000000000000123 4c0000201"
                .replace(' ', "")
                .as_str(),
        )
        .unwrap();
        let hb = Message::decode(&hb).unwrap();
        let ser = Message::decode(&ser).unwrap();
        let peers = Some((addr("192.0.2.1:8805"), addr("192.0.2.2:8805")));
        let all = Filter::default();
        assert!(all.is_empty());
        assert!(all.matches(&hb, None) && all.matches(&ser, peers));
        let types = Filter {
            types: vec![MessageType(50), MessageType(2)],
            ..Filter::default()
        };
        assert!(!types.matches(&hb, None));
        assert!(types.matches(&ser, None));
        let seid = Filter {
            seid: Some(0x1234),
            ..Filter::default()
        };
        assert!(seid.matches(&ser, None));
        assert!(!seid.matches(&hb, None));
        let seid0 = Filter {
            seid: Some(0),
            ..Filter::default()
        };
        assert!(seid0.matches(&ser, None), "header SEID 0");
        let peer = Filter {
            peer: Some(Peer::Ip("192.0.2.2".parse().unwrap())),
            ..Filter::default()
        };
        assert!(peer.matches(&ser, peers));
        assert!(!peer.matches(&ser, None), "no addresses: not shown");
        let port = Filter {
            peer: Some(Peer::Socket(addr("192.0.2.2:9999"))),
            ..Filter::default()
        };
        assert!(!port.matches(&ser, peers));
        let both = Filter {
            types: vec![MessageType(50)],
            seid: Some(7),
            peer: None,
        };
        assert!(!both.matches(&ser, peers));
    }
}
