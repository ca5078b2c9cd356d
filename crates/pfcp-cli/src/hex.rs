//! Hex text: lowercase encoding, and the tolerant line parser of `pfcp decode`.

use core::fmt;

/// Lowercase hex of `bytes`, two digits per octet, no separators.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        for nibble in [b >> 4, b & 0x0f] {
            let digit = DIGITS.get(usize::from(nibble)).copied().unwrap_or(b'0');
            out.push(char::from(digit));
        }
    }
    out
}

/// Why a text line is not a hex payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HexError {
    /// A character that is neither a hex digit nor an ignored separator.
    InvalidChar {
        /// The character.
        ch: char,
        /// Its 1-based column in the line.
        column: usize,
    },
    /// An odd number of hex digits.
    OddLength(usize),
    /// A JSON line that is not an object with a string `"hex"` member.
    Json(String),
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexError::InvalidChar { ch, column } => {
                write!(f, "invalid hex character {ch:?} at column {column}")
            }
            HexError::OddLength(n) => write!(f, "odd number of hex digits ({n})"),
            HexError::Json(e) => write!(f, "invalid JSON line: {e}"),
        }
    }
}

impl std::error::Error for HexError {}

/// Parse hex digits, ignoring whitespace, `:` separators and one leading `0x`.
pub fn decode(text: &str) -> Result<Vec<u8>, HexError> {
    let trimmed = text.trim_start();
    let skipped = text.len() - trimmed.len();
    let (body, skipped) = match trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
    {
        Some(rest) => (rest, skipped + 2),
        None => (trimmed, skipped),
    };
    let mut digits = Vec::with_capacity(body.len());
    for (i, ch) in body.chars().enumerate() {
        if ch.is_whitespace() || ch == ':' {
            continue;
        }
        match ch.to_digit(16) {
            // A hex digit is < 16 and fits in u8.
            Some(d) => digits.push(d as u8),
            None => {
                return Err(HexError::InvalidChar {
                    ch,
                    column: skipped + i + 1,
                })
            }
        }
    }
    if digits.len() % 2 != 0 {
        return Err(HexError::OddLength(digits.len()));
    }
    Ok(digits
        .chunks_exact(2)
        .map(|pair| match pair {
            [hi, lo] => hi << 4 | lo,
            _ => 0,
        })
        .collect())
}

/// One line of text input: `Ok(None)` for blank and `#` comment lines, else the payload of a
/// hex line or of a JSON line's `"hex"` member.
pub fn parse_line(line: &str) -> Result<Option<Vec<u8>>, HexError> {
    let s = line.trim();
    if s.is_empty() || s.starts_with('#') {
        return Ok(None);
    }
    if s.starts_with('{') {
        let value: serde_json::Value =
            serde_json::from_str(s).map_err(|e| HexError::Json(e.to_string()))?;
        let hex = value
            .get("hex")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| HexError::Json("no string member \"hex\"".to_owned()))?;
        return decode(hex).map(Some);
    }
    decode(s).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_separators() {
        assert_eq!(encode(&[0x00, 0xab, 0x7f]), "00ab7f");
        assert_eq!(decode("00ab7f").unwrap(), vec![0x00, 0xab, 0x7f]);
        assert_eq!(
            decode(" 0x20:01 00 0c\t").unwrap(),
            vec![0x20, 0x01, 0x00, 0x0c]
        );
        assert_eq!(decode("AbCd").unwrap(), vec![0xab, 0xcd]);
        assert_eq!(decode("").unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn errors() {
        assert_eq!(decode("abc"), Err(HexError::OddLength(3)));
        assert_eq!(
            decode("ab zz"),
            Err(HexError::InvalidChar { ch: 'z', column: 4 })
        );
        assert!(matches!(parse_line("{\"x\":1}"), Err(HexError::Json(_))));
        assert!(matches!(parse_line("{nope"), Err(HexError::Json(_))));
    }

    #[test]
    fn lines() {
        assert_eq!(parse_line("   "), Ok(None));
        assert_eq!(parse_line("# comment"), Ok(None));
        assert_eq!(
            parse_line("{\"id\":\"a\",\"hex\":\"0102\"}"),
            Ok(Some(vec![1, 2]))
        );
        assert_eq!(parse_line("01 02"), Ok(Some(vec![1, 2])));
    }
}
