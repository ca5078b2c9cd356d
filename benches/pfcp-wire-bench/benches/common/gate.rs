//! The conformance gate, run before any timing: both encoders reproduce every vector and both
//! decoders parse it, or the run stops at the first disagreement.

use std::hint::black_box;

use pfcp_wire::Message;

use super::floor::{bare_count, bare_walk};
use super::rs::{
    rs_encode, rs_parse_error, rs_parse_walk_children, rs_typed_lci, rs_typed_oci_fails,
};
use super::wire::{wire_encode, wire_typed_encode, wire_typed_oci_lci};
use super::{Msg, P};

fn to_hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Check every vector before timing anything; panics with the first disagreement.
/// Returns one line per message describing what rs-pfcp can and cannot do with it.
pub(crate) fn conformance_gate() -> Vec<String> {
    let mut notes = Vec::new();
    let mut buf = vec![0u8; 8192];
    for m in Msg::ALL {
        let bytes = m.bytes();
        // pfcp-wire decodes and validates, and the floor agrees on the IE count.
        let msg = Message::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", m.name()));
        msg.validate()
            .unwrap_or_else(|e| panic!("{}: validate: {e}", m.name()));
        msg.check_typed_ies()
            .unwrap_or_else(|e| panic!("{}: typed: {e}", m.name()));
        let hlen = msg.header().encoded_len();
        assert_eq!(
            msg.ie_count(),
            bare_count(&bytes[hlen..]),
            "{}: IE count",
            m.name()
        );
        assert_ne!(bare_walk(&bytes), 0, "{}: floor", m.name());
        // pfcp-wire encodes the same bytes.
        let n = wire_encode(m, &P, &mut buf).expect("encode");
        assert_eq!(
            to_hex(&buf[..n]),
            to_hex(&bytes),
            "{}: pfcp-wire encode",
            m.name()
        );
        // The typed messages: their builders write the same bytes, their decoder reads them.
        match wire_typed_encode(m, &P, &mut buf) {
            Some(n) => assert_eq!(
                to_hex(&buf[..n]),
                to_hex(&bytes),
                "{}: pfcp-wire typed encode",
                m.name()
            ),
            None => notes.push(format!(
                "{}: not built by the typed builder (its OCI precedes its LCI; the builder \
                 writes the table's order)",
                m.name()
            )),
        }
        let typed = pfcp_wire::msg::AnyMessage::parse(&bytes)
            .unwrap_or_else(|e| panic!("{}: typed parse: {e}", m.name()));
        assert_eq!(typed.message_type(), msg.message_type());
        if m.has_oci_lci() {
            black_box(wire_typed_oci_lci(&bytes));
        }
        // rs-pfcp.
        if m.rs_parses() {
            if let Some(e) = rs_parse_error(&bytes) {
                panic!("{}: rs-pfcp parse: {e}", m.name());
            }
            black_box(rs_parse_walk_children(&bytes));
            let mut v = Vec::new();
            rs_encode(m, &P, &mut v);
            assert_eq!(to_hex(&v), to_hex(&bytes), "{}: rs-pfcp encode", m.name());
            if m.has_oci() {
                let e = rs_typed_oci_fails(&bytes)
                    .unwrap_or_else(|| panic!("{}: rs-pfcp typed OCI unexpectedly ok", m.name()));
                notes.push(format!(
                    "{}: rs-pfcp parses the message; its typed OCI fails: {e}",
                    m.name()
                ));
            }
            if m.has_oci_lci() {
                black_box(rs_typed_lci(&bytes));
            }
        } else {
            let e = rs_parse_error(&bytes)
                .unwrap_or_else(|| panic!("{}: rs-pfcp unexpectedly parses", m.name()));
            notes.push(format!("{}: rs-pfcp parse fails: {e}", m.name()));
        }
    }
    notes
}
