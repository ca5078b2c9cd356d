//! `pfcp encode`: JSON lines in the format `pfcp decode` prints to hex, one message per line.
//!
//! An IE is given by `value` (its octets as hex), by `ies` (the members of a grouped IE) or
//! by `decoded` (its typed fields, the serde form of [`AnyTypedIe`], as `pfcp decode` prints
//! them), which `pfcp-wire`'s encoder writes. When `value` is there, it wins.

use std::io::{BufRead, Write};

use pfcp_wire::ie::AnyTypedIe;
use pfcp_wire::owned::OwnedMessage;
use pfcp_wire::IeType;
use serde_json::Value;

use crate::{hex, RunError};

/// Counts of one encode run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EncodeStats {
    /// Messages encoded.
    pub messages: u64,
    /// Lines that could not be encoded (reported on stderr).
    pub errors: u64,
}

/// Encode one JSON line: the message's octets, or why the line is not a message.
///
/// Keys other than the [`OwnedMessage`] fields (`frame`, `name`, `decoded`, ...) are ignored.
pub fn encode_line(line: &str) -> Result<Vec<u8>, String> {
    let mut value: Value = serde_json::from_str(line).map_err(|e| format!("invalid JSON: {e}"))?;
    if value.get("error").is_some() {
        return Err("an error line of `pfcp decode`, not a message".into());
    }
    if let Some(ies) = value.get_mut("ies") {
        typed_to_octets(ies, "")?;
    }
    let msg: OwnedMessage =
        serde_json::from_value(value).map_err(|e| format!("not a PFCP message: {e}"))?;
    msg.to_bytes().map_err(|e| format!("cannot encode: {e}"))
}

/// Give every IE of the list `ies` (recursively) that has `decoded` but neither `value` nor
/// `ies` its `value`, encoded from the typed fields. `path` names the list in errors.
fn typed_to_octets(ies: &mut Value, path: &str) -> Result<(), String> {
    let Value::Array(items) = ies else {
        return Ok(());
    };
    for (i, item) in items.iter_mut().enumerate() {
        let Value::Object(ie) = item else {
            continue;
        };
        let at = format!("{path}ies[{i}]");
        if let Some(members) = ie.get_mut("ies") {
            typed_to_octets(members, &format!("{at}."))?;
            continue;
        }
        if ie.contains_key("value") {
            continue;
        }
        let (Some(t), Some(fields)) = (ie.get("type"), ie.get("decoded")) else {
            continue;
        };
        let t = t
            .as_u64()
            .and_then(|t| u16::try_from(t).ok())
            .map(IeType)
            .ok_or_else(|| format!("{at}: \"type\" is not an IE type (0-65535)"))?;
        let typed = AnyTypedIe::deserialize_as(t, fields)
            .map_err(|e| format!("{at}: \"decoded\" is not a {}: {e}", type_name(t)))?
            .ok_or_else(|| {
                format!(
                    "{at}: type {} has no typed form: give its octets as \"value\"",
                    t.0
                )
            })?;
        let mut octets = Vec::with_capacity(typed.value_len());
        typed
            .write_value(&mut octets)
            .map_err(|e| format!("{at}: cannot encode the {}: {e}", type_name(t)))?;
        let hex = hex::encode(&octets);
        ie.insert("value".into(), Value::String(hex));
    }
    Ok(())
}

fn type_name(t: IeType) -> String {
    match t.name() {
        Some(n) => n.to_owned(),
        None => format!("IE of type {}", t.0),
    }
}

/// Encode every JSON line of `input` (blank lines and `#` comments ignored) to a lowercase
/// hex line on `out`; bad lines are reported on `diag` as `pfcp: NAME:LINE: why`.
pub fn encode_input<R: BufRead, W: Write>(
    name: &str,
    input: R,
    out: &mut W,
    diag: &mut dyn Write,
) -> Result<EncodeStats, RunError> {
    let mut stats = EncodeStats::default();
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(RunError::Input)?;
        let s = line.trim();
        if s.is_empty() || s.starts_with('#') {
            continue;
        }
        match encode_line(s) {
            Ok(bytes) => {
                writeln!(out, "{}", hex::encode(&bytes)).map_err(RunError::Output)?;
                stats.messages += 1;
            }
            Err(why) => {
                writeln!(diag, "pfcp: {name}:{}: {why}", i + 1).map_err(RunError::Diagnostics)?;
                stats.errors += 1;
            }
        }
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_decode_output_and_reports_bad_lines() {
        let input = concat!(
            r#"{"frame":1,"message_type":1,"message_name":"Heartbeat Request","seid":null,"sequence":43981,"priority":null,"follow_on":false,"ies":[{"type":96,"name":"Recovery Time Stamp","value":"e8f4a2b0","decoded":1}]}"#,
            "\n\n# comment\n",
            r#"{"line":3,"error":{"kind":"Truncated"}}"#,
            "\n{\"message_type\":1}\n"
        );
        let mut out = Vec::new();
        let mut diag = Vec::new();
        let stats = encode_input("in", input.as_bytes(), &mut out, &mut diag).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "2001000c00abcd0000600004e8f4a2b0\n"
        );
        let diag = String::from_utf8(diag).unwrap();
        let lines: Vec<&str> = diag.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("pfcp: in:4: an error line"), "{diag}");
        assert!(
            lines[1].starts_with("pfcp: in:5: not a PFCP message"),
            "{diag}"
        );
        assert_eq!(
            stats,
            EncodeStats {
                messages: 1,
                errors: 2
            }
        );
    }

    /// IEs given by their typed fields are written by pfcp-wire's encoder; the octets are the
    /// spec layouts (clauses 8.2.65, 8.2.38, 7.5.2.3, 8.2.26, 8.2.74).
    #[test]
    fn typed_fields_are_encoded() {
        // Heartbeat Request, Recovery Time Stamp 0xe8f4a2b0 by its value.
        let hb = r#"{"message_type":1,"sequence":43981,"ies":[{"type":96,"decoded":3908346544}]}"#;
        assert_eq!(
            hex::encode(&encode_line(hb).unwrap()),
            "2001000c00abcd0000600004e8f4a2b0"
        );
        // Association Setup Request: Node ID by FQDN, and a Create FAR whose members are
        // typed (FAR ID 1, Apply Action FORW) inside "ies".
        let asr = r#"{"message_type":5,"sequence":1,"ies":[
            {"type":60,"decoded":{"fqdn":"upf1.example.net"}},
            {"type":3,"ies":[{"type":108,"decoded":1},{"type":44,"decoded":{"bits":2,"octets":1}}]}]}"#;
        let asr = asr.replace('\n', "");
        assert_eq!(
            hex::encode(&encode_line(&asr).unwrap()),
            concat!(
                "2005002b00000100",
                "003c0012020475706631076578616d706c65036e6574",
                "0003000d",
                "006c000400000001",
                "002c000102"
            )
        );
        // A type with no typed form, and a typed form that does not fit the type.
        let e = encode_line(r#"{"message_type":1,"sequence":1,"ies":[{"type":113,"decoded":1}]}"#)
            .unwrap_err();
        assert!(e.contains("ies[0]: type 113 has no typed form"), "{e}");
        let e = encode_line(
            r#"{"message_type":1,"sequence":1,"ies":[{"type":3,"ies":[{"type":60,"decoded":{"ipv9":1}}]}]}"#,
        )
        .unwrap_err();
        assert!(
            e.contains("ies[0].ies[0]: \"decoded\" is not a Node ID"),
            "{e}"
        );
    }
}
