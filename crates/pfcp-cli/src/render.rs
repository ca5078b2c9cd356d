//! The JSON lines `pfcp decode` prints: a message in the lossless form `pfcp encode` reads
//! back, or an error object. Written straight to the output through serde (no JSON tree is
//! built per message).
//!
//! A message line holds, in this order:
//!
//! * where the message came from: `frame` (1-based), `time` (seconds since the Unix epoch),
//!   `src`, `dst` and `index` (position in the datagram) for captures; nothing for hex lines;
//! * for a response paired with its request ([`crate::pairing`]): `response_to` (the frame or
//!   line of the request) and, for captures, `response_time` (seconds);
//! * `message_type`, `message_name`, `verdict` (see [`crate::decode`]), `seid`, `sequence`,
//!   `priority`, `follow_on`: the header;
//! * `ies`: each IE as `type`, `name` (informational), `enterprise_id` (vendor IEs), then
//!   - `ies` for a grouped IE (its members, recursively);
//!   - `decoded` for an IE that `pfcp-wire` types ([`pfcp_wire::ie::AnyTypedIe`]): the serde
//!     form of the library's typed value. When encoding that value (read back from JSON) gives
//!     back the IE's octets, it is all there is; otherwise (spare bits set, octets an
//!     extendable IE added, an FQDN label with a dot) `value` comes too, and `pfcp encode`
//!     uses `value`;
//!   - `value`: the octets as lowercase hex, for every other IE;
//!   - `decode_error` (with `value`) when the typed decoder rejects the IE.
//!
//! Keys other than the header fields, `ies`, `type`, `enterprise_id`, `value` and `decoded`
//! are informational; `pfcp encode` ignores them.

use core::fmt;
use std::time::Duration;

use pfcp_wire::ie::{AnyTypedIe, IeIter};
use pfcp_wire::{DecodeError, DecodeErrorKind, IeType, Message, RawIe};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{json, Map, Value};

use crate::pairing::Paired;

/// Where a message came from, as the informational keys of its line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Origin {
    /// Frame number (captures).
    pub frame: Option<u64>,
    /// Capture time since the Unix epoch.
    pub time: Option<Duration>,
    /// Source and destination (captures).
    pub addrs: Option<(std::net::SocketAddr, std::net::SocketAddr)>,
    /// Line of hex input (shown on error lines only).
    pub line: Option<usize>,
    /// Position of the message in its datagram (shown for captures, and on error lines).
    pub index: usize,
}

impl Origin {
    fn write<M: SerializeMap>(&self, m: &mut M, error_line: bool) -> Result<(), M::Error> {
        if let Some(frame) = self.frame {
            m.serialize_entry("frame", &frame)?;
            if let Some(t) = self.time {
                m.serialize_entry("time", &t.as_secs_f64())?;
            }
            if let Some((src, dst)) = self.addrs {
                m.serialize_entry("src", &src)?;
                m.serialize_entry("dst", &dst)?;
            }
            m.serialize_entry("index", &self.index)?;
        } else if error_line {
            if let Some(line) = self.line {
                m.serialize_entry("line", &line)?;
            }
            m.serialize_entry("index", &self.index)?;
        }
        Ok(())
    }
}

/// One message line: the message, where it came from, what it pairs with and the
/// receiver's verdict.
pub struct MessageLine<'r, 'a> {
    /// The message.
    pub msg: &'r Message<'a>,
    /// Where it came from.
    pub origin: &'r Origin,
    /// What pairing found.
    pub paired: Paired,
    /// `Message::validate`'s verdict.
    pub verdict: &'r Result<(), DecodeError>,
}

impl Serialize for MessageLine<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.origin.write(&mut m, false)?;
        if let Paired::Response { request, elapsed } = self.paired {
            m.serialize_entry("response_to", &request)?;
            if let Some(e) = elapsed {
                m.serialize_entry("response_time", &e.as_secs_f64())?;
            }
        }
        let h = self.msg.header();
        let t = self.msg.message_type();
        m.serialize_entry("message_type", &t.0)?;
        m.serialize_entry("message_name", &t.name())?;
        match self.verdict {
            Ok(()) => m.serialize_entry("verdict", "valid")?,
            Err(e) => m.serialize_entry("verdict", &verdict(self.msg, e))?,
        }
        m.serialize_entry("seid", &h.seid)?;
        m.serialize_entry("sequence", &h.sequence.value())?;
        m.serialize_entry("priority", &h.priority.map(|p| p.value()))?;
        m.serialize_entry("follow_on", &h.follow_on)?;
        m.serialize_entry("ies", &IeList(self.msg.ies()))?;
        m.end()
    }
}

/// A list of IEs (a message body or a group's members).
struct IeList<'a>(IeIter<'a>);

impl Serialize for IeList<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for ie in self.0.clone().map_while(Result::ok) {
            seq.serialize_element(&IeJson(&ie))?;
        }
        seq.end()
    }
}

/// One IE.
struct IeJson<'r, 'a>(&'r RawIe<'a>);

impl Serialize for IeJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ie = self.0;
        let t = ie.ie_type();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("type", &t.0)?;
        if let Some(name) = ie_name(t) {
            m.serialize_entry("name", name)?;
        }
        if let Some(eid) = ie.enterprise_id() {
            m.serialize_entry("enterprise_id", &eid)?;
        }
        if t.is_grouped() {
            m.serialize_entry("ies", &IeList(ie.children()))?;
            return m.end();
        }
        match AnyTypedIe::decode(ie) {
            Some(Ok(v)) => {
                if !v.reproduces(ie.value()) || !v.serde_exact() {
                    m.serialize_entry("value", &Hex(ie.value()))?;
                }
                m.serialize_entry("decoded", &v)?;
            }
            Some(Err(e)) => {
                m.serialize_entry("value", &Hex(ie.value()))?;
                m.serialize_entry("decode_error", &error_object(&e))?;
            }
            None => m.serialize_entry("value", &Hex(ie.value()))?,
        }
        m.end()
    }
}

/// Octets as lowercase hex, written without an intermediate string.
pub struct Hex<'a>(pub &'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut buf = [0u8; 128];
        for chunk in self.0.chunks(64) {
            let mut n = 0;
            for &b in chunk {
                for nibble in [b >> 4, b & 0x0f] {
                    if let (Some(slot), Some(d)) = (buf.get_mut(n), DIGITS.get(usize::from(nibble)))
                    {
                        *slot = *d;
                    }
                    n += 1;
                }
            }
            // Only ASCII digits were written.
            f.write_str(std::str::from_utf8(buf.get(..n).unwrap_or_default()).unwrap_or(""))?;
        }
        Ok(())
    }
}

impl Serialize for Hex<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The name shown for an IE type: the spec name, "Vendor-specific", or `None` if unknown.
pub fn ie_name(t: IeType) -> Option<&'static str> {
    match t.name() {
        Some(n) => Some(n),
        None if t.is_vendor() => Some("Vendor-specific"),
        None => None,
    }
}

/// What a node does with a message `validate` rejects (clause 7.6): `"reject"` (a request,
/// answered with the Cause and Offending IE), `"discard"` (an unknown message type, or a
/// Heartbeat Request) or `"notify"` (a response: nothing is sent back, the application is
/// told).
pub fn action(msg: &Message<'_>, e: &DecodeError) -> &'static str {
    let t = msg.message_type();
    match e.kind {
        DecodeErrorKind::UnknownMessageType(_) => "discard",
        // Clause 7.6: no rejection for a Heartbeat Request.
        _ if t.is_request() && t != pfcp_wire::MessageType::HEARTBEAT_REQUEST => "reject",
        _ if t.is_request() => "discard",
        _ => "notify",
    }
}

/// The `verdict` of an invalid message: `{"invalid": {"cause", "cause_name",
/// "offending_ie", "offending_ie_name", "kind", "error", "action"}}`.
fn verdict(msg: &Message<'_>, e: &DecodeError) -> Value {
    let cause = e.cause();
    let offending = e.offending_ie();
    json!({ "invalid": {
        "cause": cause.0,
        "cause_name": cause.name(),
        "offending_ie": offending.map(|t| t.0),
        "offending_ie_name": offending.and_then(|t| t.name()),
        "kind": kind_name(e),
        "error": e.to_string(),
        "action": action(msg, e),
    }})
}

/// The `error` object of a decode error: `kind`, `message` (the error's Display text),
/// `offset`, `ie_path` (IE types, outermost first), `cause` (the Cause value the peer should
/// get) and, when the header could be read, `header`.
pub fn error_object(e: &DecodeError) -> Value {
    let path: Vec<u16> = e.path.types().map(|t| t.0).collect();
    let mut m = Map::new();
    m.insert("kind".into(), json!(kind_name(e)));
    m.insert("message".into(), json!(e.to_string()));
    m.insert("offset".into(), json!(e.offset));
    m.insert("ie_path".into(), json!(path));
    m.insert("cause".into(), json!(e.cause().0));
    if let Some(h) = e.header {
        m.insert(
            "header".into(),
            json!({
                "version": h.version,
                "message_type": h.message_type.0,
                "seid": h.seid,
                "sequence": h.sequence.value(),
                "priority": h.priority.map(|p| p.value()),
            }),
        );
    }
    Value::Object(m)
}

/// The variant name of the error's kind (`"IeOverrun"`, `"UnsupportedVersion"`, ...).
pub fn kind_name(e: &DecodeError) -> String {
    let debug = format!("{:?}", e.kind);
    debug
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect()
}

/// An error line: the origin keys, then `"error": {...}`.
pub struct ErrorLine<'r> {
    /// Where the octets came from.
    pub origin: &'r Origin,
    /// The decode error.
    pub error: &'r DecodeError,
}

impl Serialize for ErrorLine<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.origin.write(&mut m, true)?;
        m.serialize_entry("error", &error_object(self.error))?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex;
    use pfcp_wire::Datagram;

    fn line(msg: &Message<'_>, origin: &Origin) -> Value {
        let ok = Ok(());
        let l = MessageLine {
            msg,
            origin,
            paired: Paired::Request,
            verdict: &ok,
        };
        serde_json::to_value(&l).unwrap()
    }

    #[test]
    fn names_decoded_and_order() {
        // Heartbeat Request with an unknown IE type 4000 and a Recovery Time Stamp.
        let b = hex::decode("20010018e27626000fa00008d4a2b377ccc3867000600004e8754700").unwrap();
        let msg = Message::decode(&b).unwrap();
        let origin = Origin {
            frame: Some(3),
            ..Origin::default()
        };
        let line = line(&msg, &origin);
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "frame",
                "index",
                "message_type",
                "message_name",
                "verdict",
                "seid",
                "sequence",
                "priority",
                "follow_on",
                "ies"
            ]
        );
        assert_eq!(line["message_name"], json!("Heartbeat Request"));
        assert!(line["ies"][0].get("name").is_none());
        assert_eq!(line["ies"][0]["value"], json!("d4a2b377ccc38670"));
        assert!(line["ies"][0].get("decoded").is_none());
        assert_eq!(line["ies"][1]["name"], json!("Recovery Time Stamp"));
        // 0xe8754700 = 3 900 000 000 s after 1900.
        assert_eq!(line["ies"][1]["decoded"], json!(3_900_000_000u32));
        let ie_keys: Vec<&str> = line["ies"][1]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(ie_keys, ["type", "name", "decoded"]);
    }

    #[test]
    fn raw_octets_kept_where_the_typed_value_drops_some() {
        // Source Interface with spare bits set (clause 8.2.2: 0xf1 reads as Core), and an
        // empty Cause (clause 8.2.1 needs one octet).
        let b = hex::decode("2001000900000100001400 01f1".replace(" ", "").as_str()).unwrap();
        let msg = Message::decode(&b).unwrap();
        let l = line(&msg, &Origin::default());
        assert_eq!(l["ies"][0]["value"], json!("f1"));
        assert_eq!(l["ies"][0]["decoded"], json!(1));
        let b = hex::decode("2001000c000001000013000000600000").unwrap();
        let msg = Message::decode(&b).unwrap();
        let l = line(&msg, &Origin::default());
        assert_eq!(l["ies"][0]["value"], json!(""));
        assert_eq!(l["ies"][0]["decode_error"]["kind"], json!("IeTooShort"));
    }

    #[test]
    fn error_line_fields() {
        // Version 2 Heartbeat Request.
        let b = hex::decode("4001000c0000010000600004e8754700").unwrap();
        let e = Datagram::new(&b).next().unwrap().unwrap_err();
        let origin = Origin {
            line: Some(4),
            ..Origin::default()
        };
        let v = serde_json::to_value(ErrorLine {
            origin: &origin,
            error: &e,
        })
        .unwrap();
        assert_eq!(v["line"], json!(4));
        let o = &v["error"];
        assert_eq!(o["kind"], json!("UnsupportedVersion"));
        assert_eq!(o["header"]["version"], json!(2));
        assert_eq!(o["header"]["sequence"], json!(1));
        assert_eq!(o["ie_path"], json!([]));
        assert_eq!(o["message"], json!(e.to_string()));
    }

    #[test]
    fn hex_is_lowercase_and_long_values_chunk() {
        let long: Vec<u8> = (0..=200u8).collect();
        assert_eq!(Hex(&long).to_string(), hex::encode(&long));
        assert_eq!(Hex(&[0xAB]).to_string(), "ab");
    }
}
