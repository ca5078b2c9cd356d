//! The oracle's "summary schema" (`shared/oracle/README.md`): what Wireshark's dissector and
//! scapy show of a message, reduced to JSON, so our decoder can be diffed against theirs.
//!
//! ```json
//! {"version": 1, "message_type": 53, "length": 67, "seid": 1, "sequence": 1, "priority": 12,
//!  "ies": [{"type": 19, "length": 1, "value": "45", "cause": 69},
//!          {"type": 54, "length": 23, "ies": [...]}]}
//! ```
//!
//! * Every IE has `type` and `length` as sent. Load Control Information (51) and Overload
//!   Control Information (54) carry `ies` (their members, nested up to [`MAX_SUMMARY_DEPTH`];
//!   deeper ones get `"depth_limit": true`); every other IE carries `value`, the lowercase hex
//!   of its body (for vendor IEs including the 2 Enterprise ID octets).
//! * Some IE types get decoded fields after `value` (Cause, UP/CP Function Features, Sequence
//!   Number, Metric, Timer, F-SEID, Node ID, Recovery Time Stamp, OCI Flags, vendor Enterprise
//!   ID), at any nesting level. A field is absent if the body is too short to hold it.
//!
//! Decoded fields come from `pfcp-wire`'s typed decoders. Where a typed decoder rejects an IE
//! the schema still shows (e.g. a Metric with an extension octet, Cause 0, an F-SEID with
//! neither address flag), the field is read from the raw octets the way the schema defines it,
//! so the summary is a total function of the message.

use std::net::{Ipv4Addr, Ipv6Addr};

use pfcp_wire::ie::{
    ControlSequenceNumber, CpFunctionFeatures, FSeid, Metric, NodeId, OciFlags, RecoveryTimeStamp,
    Timer, UpFunctionFeatures,
};
use pfcp_wire::{Cause, IeType, Message, RawIe, TypedIe};
use serde_json::{json, Map, Value};

use crate::hex;

/// Grouped IEs nested deeper than this are summarised as `{"type", "length", "depth_limit"}`.
pub const MAX_SUMMARY_DEPTH: usize = 32;

/// The UP Function Features bits the schema names (octet 5 bits 1-8, octet 6 bits 1-7), in
/// bit order; `flags` lists the set ones sorted by name.
pub const UP_FEATURE_FLAGS: [&str; 15] = [
    "BUCP", "DDND", "DLBD", "TRST", "FTUP", "PFDM", "HEEU", "TREU", "EMPU", "PDIU", "UDBC",
    "QUOAC", "TRACE", "FRRT", "PFDE",
];

/// The summary of one decoded message.
pub fn summarize(msg: &Message<'_>) -> Value {
    let h = msg.header();
    let mut m = Map::new();
    m.insert("version".into(), json!(pfcp_wire::header::PFCP_VERSION));
    m.insert("message_type".into(), json!(h.message_type.0));
    m.insert("length".into(), json!(h.length));
    m.insert("seid".into(), json!(h.seid));
    m.insert("sequence".into(), json!(h.sequence.value()));
    m.insert("priority".into(), json!(h.priority.map(|p| p.value())));
    let ies = msg
        .ies()
        .map_while(Result::ok)
        .map(|ie| summarize_ie(&ie, 0));
    m.insert("ies".into(), Value::Array(ies.collect()));
    Value::Object(m)
}

/// The summary of one IE at nesting `depth` (0 for a top-level IE).
pub fn summarize_ie(ie: &RawIe<'_>, depth: usize) -> Value {
    let t = ie.ie_type();
    let mut m = Map::new();
    m.insert("type".into(), json!(t.0));
    m.insert("length".into(), json!(ie.length()));
    if t == IeType::LOAD_CONTROL_INFORMATION || t == IeType::OVERLOAD_CONTROL_INFORMATION {
        if depth >= MAX_SUMMARY_DEPTH {
            m.insert("depth_limit".into(), Value::Bool(true));
        } else {
            let members = ie.children().map_while(Result::ok);
            let members = members.map(|c| summarize_ie(&c, depth + 1)).collect();
            m.insert("ies".into(), Value::Array(members));
        }
        return Value::Object(m);
    }
    let mut body = Vec::with_capacity(ie.value().len() + 2);
    if let Some(eid) = ie.enterprise_id() {
        body.extend_from_slice(&eid.to_be_bytes());
    }
    body.extend_from_slice(ie.value());
    m.insert("value".into(), Value::String(hex::encode(&body)));
    decoded_fields(ie, &mut m);
    Value::Object(m)
}

/// Typed decode, `None` if the typed decoder rejects the IE.
fn typed<'a, T: TypedIe<'a>>(ie: &RawIe<'a>) -> Option<T> {
    T::decode(ie).ok()
}

fn first_n<const N: usize>(v: &[u8]) -> Option<[u8; N]> {
    v.get(..N).and_then(|s| s.try_into().ok())
}

fn decoded_fields(ie: &RawIe<'_>, m: &mut Map<String, Value>) {
    let v = ie.value();
    let t = ie.ie_type();
    if let Some(eid) = ie.enterprise_id() {
        m.insert("enterprise_id".into(), json!(eid));
        return;
    }
    match t {
        IeType::CAUSE => {
            let cause = typed::<Cause>(ie)
                .map(|c| c.0)
                .or_else(|| v.first().copied());
            if let Some(c) = cause {
                m.insert("cause".into(), json!(c));
            }
        }
        IeType::UP_FUNCTION_FEATURES => {
            if let Some(f) = typed::<UpFunctionFeatures>(ie) {
                m.insert("flags".into(), json!(up_flags(f.octets())));
            }
        }
        IeType::CP_FUNCTION_FEATURES => {
            if let Some(f) = typed::<CpFunctionFeatures>(ie) {
                let load = f.contains(CpFunctionFeatures::LOAD);
                m.insert("load".into(), Value::Bool(load));
                let ovrl = f.contains(CpFunctionFeatures::OVRL);
                m.insert("ovrl".into(), Value::Bool(ovrl));
            }
        }
        IeType::SEQUENCE_NUMBER => {
            let n = typed::<ControlSequenceNumber>(ie)
                .map(|s| s.0)
                .or_else(|| first_n::<4>(v).map(u32::from_be_bytes));
            if let Some(n) = n {
                m.insert("sequence_number".into(), json!(n));
            }
        }
        IeType::METRIC => {
            let raw = typed::<Metric>(ie)
                .map(Metric::raw)
                .or_else(|| v.first().copied());
            if let Some(raw) = raw {
                m.insert("metric".into(), json!(raw));
            }
        }
        IeType::TIMER => {
            if let Some(timer) = typed::<Timer>(ie) {
                m.insert("timer_unit".into(), json!(timer.unit().code()));
                m.insert("timer_value".into(), json!(timer.value()));
            }
        }
        IeType::F_SEID => f_seid_fields(ie, m),
        IeType::NODE_ID => node_id_fields(ie, m),
        IeType::RECOVERY_TIME_STAMP => {
            if let Some(ts) = typed::<RecoveryTimeStamp>(ie) {
                m.insert("timestamp".into(), json!(ts.0));
            }
        }
        IeType::OCI_FLAGS => {
            if let Some(f) = typed::<OciFlags>(ie) {
                m.insert("aoci".into(), Value::Bool(f.aoci()));
            }
        }
        _ => {}
    }
}

/// Sorted names of the schema's UP Function Features bits set in `octets`.
fn up_flags(octets: &[u8]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = UP_FEATURE_FLAGS
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            let (octet, bit) = (i / 8, i % 8);
            octets.get(octet).is_some_and(|b| b & (1 << bit) != 0)
        })
        .map(|(_, name)| *name)
        .collect();
    names.sort_unstable();
    names
}

fn f_seid_fields(ie: &RawIe<'_>, m: &mut Map<String, Value>) {
    let (seid, ipv4, ipv6) = match typed::<FSeid>(ie) {
        Some(f) => (f.seid, f.ipv4, f.ipv6),
        None => {
            // Neither flag set, or an address cut short: what the octets hold.
            let v = ie.value();
            let (Some(&flags), Some(seid)) = (v.first(), v.get(1..).and_then(first_n::<8>)) else {
                return;
            };
            let rest = v.get(9..).unwrap_or_default();
            let ipv4 = (flags & 0x02 != 0)
                .then(|| first_n::<4>(rest).map(Ipv4Addr::from))
                .flatten();
            let after_v4 = if flags & 0x02 != 0 {
                rest.get(4..)
            } else {
                Some(rest)
            };
            let ipv6 = (flags & 0x01 != 0)
                .then(|| after_v4.and_then(first_n::<16>).map(Ipv6Addr::from))
                .flatten();
            (u64::from_be_bytes(seid), ipv4, ipv6)
        }
    };
    m.insert("seid".into(), json!(seid));
    m.insert("ipv4".into(), json!(ipv4.map(|a| a.to_string())));
    m.insert("ipv6".into(), json!(ipv6.map(ipv6_text)));
}

fn node_id_fields(ie: &RawIe<'_>, m: &mut Map<String, Value>) {
    let v = ie.value();
    let Some((&first, addr)) = v.split_first() else {
        return;
    };
    let node_type = first & 0x0f;
    m.insert("node_id_type".into(), json!(node_type));
    let text = match typed::<NodeId<'_>>(ie) {
        Some(NodeId::Fqdn(name)) => Some(fqdn_text(name.labels())),
        Some(NodeId::Ipv6(a)) => Some(ipv6_text(a)),
        Some(id) => Some(id.to_string()),
        None => match node_type {
            0 => first_n::<4>(addr).map(|a| Ipv4Addr::from(a).to_string()),
            1 => first_n::<16>(addr).map(|a| ipv6_text(Ipv6Addr::from(a))),
            2 if !addr.is_empty() => Some(fqdn_text(raw_labels(addr))),
            _ => None,
        },
    };
    if let Some(text) = text {
        m.insert("node_id".into(), Value::String(text));
    }
}

/// RFC 5952 text of an IPv6 address: lowercase, the first longest run of two or more zero
/// groups as `::`, and no dotted-quad tail (Rust's `Display` writes IPv4-mapped addresses as
/// `::ffff:a.b.c.d`; the oracle normalises with Python's `ipaddress`, which does not).
pub fn ipv6_text(a: Ipv6Addr) -> String {
    let g = a.segments();
    // (start, len) of the first longest zero run.
    let mut best = (0usize, 0usize);
    let mut i = 0;
    while i < g.len() {
        let len = g.iter().skip(i).take_while(|&&x| x == 0).count();
        if len > best.1 {
            best = (i, len);
        }
        i += len.max(1);
    }
    let hex = |s: &[u16]| {
        s.iter()
            .map(|x| format!("{x:x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    if best.1 < 2 {
        return hex(&g);
    }
    let (head, rest) = g.split_at(best.0);
    let tail = rest.get(best.1..).unwrap_or_default();
    format!("{}::{}", hex(head), hex(tail))
}

/// Labels of a (possibly malformed) FQDN in DNS label form; a label that overruns the data
/// is cut at its end.
fn raw_labels(mut rest: &[u8]) -> impl Iterator<Item = &[u8]> {
    core::iter::from_fn(move || {
        let (&len, tail) = rest.split_first()?;
        let n = usize::from(len).min(tail.len());
        let (label, after) = tail.split_at(n);
        rest = after;
        Some(label)
    })
}

/// Labels joined with dots, printable ASCII as is (spaces included, as Wireshark shows them),
/// other octets as `\xNN`.
fn fqdn_text<'a>(labels: impl Iterator<Item = &'a [u8]>) -> String {
    let mut out = String::new();
    for (i, label) in labels.enumerate() {
        if i > 0 {
            out.push('.');
        }
        for &b in label {
            if (0x20..0x7f).contains(&b) {
                out.push(char::from(b));
            } else {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary_of(hex: &str) -> Value {
        let bytes = hex::decode(hex).unwrap();
        let msg = Message::decode(&bytes).unwrap();
        summarize(&msg)
    }

    #[test]
    fn readme_example_shape_and_key_order() {
        // Session Modification Response, S=1 MP=1 priority 12, Cause 69, OCI with 4 members.
        let s = summary_of(
            "2335002c0000000000000001000001c0001300014500360017003400040000000100350001000037000116006e000100",
        );
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"{"version":1,"message_type":53,"length":44,"seid":1,"sequence":1,"priority":12,"ies":["#,
                r#"{"type":19,"length":1,"value":"45","cause":69},"#,
                r#"{"type":54,"length":23,"ies":["#,
                r#"{"type":52,"length":4,"value":"00000001","sequence_number":1},"#,
                r#"{"type":53,"length":1,"value":"00","metric":0},"#,
                r#"{"type":55,"length":1,"value":"16","timer_unit":0,"timer_value":22},"#,
                r#"{"type":110,"length":1,"value":"00","aoci":false}]}]}"#
            )
        );
    }

    #[test]
    fn raw_fallbacks() {
        // F-SEID with neither flag (the typed decoder rejects it) still shows its SEID.
        let s = summary_of("2133001900000000000000010000010000390009000000000000000007");
        assert_eq!(s["ies"][0]["seid"], json!(7));
        assert_eq!(s["ies"][0]["ipv4"], Value::Null);
        // Cause 0 (reserved) and a zero-length Metric.
        let s = summary_of("2137001900000000000000010000010000130001000035000000330000");
        assert_eq!(s["ies"][0]["cause"], json!(0));
        assert!(s["ies"][1].get("metric").is_none());
        assert_eq!(s["ies"][2]["ies"], json!([]));
    }

    #[test]
    fn fqdn_rendering() {
        assert_eq!(fqdn_text(raw_labels(b"\x03upf\x01a")), "upf.a");
        assert_eq!(fqdn_text(raw_labels(b"\x05a b\x01")), "a b\\x01");
        let v6 = |s: &str| ipv6_text(s.parse().unwrap());
        assert_eq!(v6("::"), "::");
        assert_eq!(v6("::1"), "::1");
        assert_eq!(v6("2001:db8::1"), "2001:db8::1");
        assert_eq!(v6("2001:db8:0:1:0:0:0:1"), "2001:db8:0:1::1");
        assert_eq!(v6("2001:0:0:1:0:0:1:1"), "2001::1:0:0:1:1");
        assert_eq!(v6("1:0:2:0:3:0:4:0"), "1:0:2:0:3:0:4:0");
        assert_eq!(v6("::ffff:192.0.2.1"), "::ffff:c000:201");
        assert_eq!(up_flags(&[0x11, 0xa0]), vec!["BUCP", "FRRT", "FTUP"]);
    }
}
