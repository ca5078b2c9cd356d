//! `pfcp encode`: JSON lines in the format `pfcp decode` prints to hex, one message per line.

use std::io::{BufRead, Write};

use pfcp_wire::owned::OwnedMessage;
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
    let value: Value = serde_json::from_str(line).map_err(|e| format!("invalid JSON: {e}"))?;
    if value.get("error").is_some() {
        return Err("an error line of `pfcp decode`, not a message".into());
    }
    let msg: OwnedMessage =
        serde_json::from_value(value).map_err(|e| format!("not a PFCP message: {e}"))?;
    msg.to_bytes().map_err(|e| format!("cannot encode: {e}"))
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
            r#"{"frame":1,"message_type":1,"message_name":"Heartbeat Request","seid":null,"sequence":43981,"priority":null,"follow_on":false,"ies":[{"type":96,"name":"Recovery Time Stamp","value":"e8f4a2b0","decoded":{"raw":1}}]}"#,
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
}
