//! `pfcp decode`: one input (a file or stdin) to JSON lines.
//!
//! The input kind is detected from its first octets: a pcap or pcapng capture (see
//! [`crate::capture`]), otherwise text with one hex payload per line (blank lines and `#`
//! comments ignored, whitespace and `:` tolerated, or a JSON object with a `"hex"` member).
//! Every payload is a UDP datagram that may carry several FO-bundled messages.

use std::io::{self, BufRead, BufReader, Read, Write};

use pfcp_wire::Datagram;
use serde_json::{json, Value};

use crate::capture::{self, CaptureError, UdpDatagram};
use crate::render::{error_line, message_line, Origin};
use crate::summary::summarize;
use crate::{hex, RunError};

/// Output format of `pfcp decode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// The lossless JSON form `pfcp encode` reads, with names and decoded values.
    #[default]
    Json,
    /// The oracle's summary schema (see [`crate::summary`]).
    Summary,
}

/// Options of `pfcp decode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Output format.
    pub format: Format,
    /// Pretty-print each JSON object over several lines.
    pub pretty: bool,
    /// UDP port whose datagrams are taken from captures.
    pub port: u16,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            format: Format::Json,
            pretty: false,
            port: capture::PFCP_PORT,
        }
    }
}

/// Counts of one decode run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeStats {
    /// Messages decoded and printed.
    pub messages: u64,
    /// Error lines printed (messages or datagrams that failed to decode).
    pub failed: u64,
    /// Input problems reported on stderr (bad text lines, corrupt captures).
    pub input_errors: u64,
}

impl DecodeStats {
    /// Whether anything failed (the exit status is then 1).
    pub fn any_failure(&self) -> bool {
        self.failed > 0 || self.input_errors > 0
    }

    fn add(&mut self, other: DecodeStats) {
        self.messages += other.messages;
        self.failed += other.failed;
        self.input_errors += other.input_errors;
    }
}

/// Where a datagram came from.
#[derive(Debug, Clone, Copy)]
enum Source<'a> {
    Line(usize),
    Frame(&'a UdpDatagram<'a>),
}

impl Source<'_> {
    /// Informational keys: always for capture frames; for text lines only on error lines.
    fn origin(&self, index: usize, for_error: bool) -> Origin {
        match self {
            Source::Frame(d) => vec![
                ("frame", json!(d.frame)),
                ("src", json!(d.src.to_string())),
                ("dst", json!(d.dst.to_string())),
                ("index", json!(index)),
            ],
            Source::Line(line) if for_error => vec![("line", json!(line)), ("index", json!(index))],
            Source::Line(_) => Vec::new(),
        }
    }
}

/// Decode one input. `name` names it in messages on `diag` (stderr).
pub fn decode_input<R: Read, W: Write>(
    name: &str,
    input: R,
    out: &mut W,
    diag: &mut dyn Write,
    opts: &DecodeOptions,
) -> Result<DecodeStats, RunError> {
    let mut input = input;
    let mut prefix = [0u8; 4];
    let mut got = 0;
    while got < prefix.len() {
        match input.read(prefix.get_mut(got..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(RunError::Input(e)),
        }
    }
    let head = prefix.get(..got).unwrap_or_default();
    let is_capture = capture::is_capture(head);
    let whole = io::Cursor::new(prefix).take(got as u64).chain(input);
    if is_capture {
        decode_capture(name, whole, out, diag, opts)
    } else {
        decode_text(name, BufReader::new(whole), out, diag, opts)
    }
}

fn decode_capture<R: Read, W: Write>(
    name: &str,
    input: R,
    out: &mut W,
    diag: &mut dyn Write,
    opts: &DecodeOptions,
) -> Result<DecodeStats, RunError> {
    let mut stats = DecodeStats::default();
    let result = capture::for_each_udp(input, opts.port, |d| {
        stats.add(decode_datagram(d.payload, Source::Frame(d), out, opts)?);
        Ok(())
    });
    let diag_err = RunError::Diagnostics;
    match result {
        Ok(c) => {
            if c.unparsed > 0 {
                let n = c.unparsed;
                writeln!(
                    diag,
                    "pfcp: {name}: {n} frame(s) not parsed down to UDP (truncated or IP fragments)"
                )
                .map_err(diag_err)?;
            }
            if c.unsupported_link > 0 {
                let n = c.unsupported_link;
                writeln!(
                    diag,
                    "pfcp: {name}: {n} frame(s) of an unsupported link type skipped"
                )
                .map_err(diag_err)?;
            }
        }
        Err(CaptureError::Output(e)) => return Err(RunError::Output(e)),
        Err(e) => {
            writeln!(diag, "pfcp: {name}: {e}").map_err(diag_err)?;
            stats.input_errors += 1;
        }
    }
    Ok(stats)
}

fn decode_text<R: BufRead, W: Write>(
    name: &str,
    mut input: R,
    out: &mut W,
    diag: &mut dyn Write,
    opts: &DecodeOptions,
) -> Result<DecodeStats, RunError> {
    let mut stats = DecodeStats::default();
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    let mut seen_payload = false;
    loop {
        buf.clear();
        let n = input.read_until(b'\n', &mut buf).map_err(RunError::Input)?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let binary = buf.contains(&0) || std::str::from_utf8(&buf).is_err();
        if binary && !seen_payload {
            // Not text at all: one line for the file, not one per "line" of binary data.
            writeln!(diag, "pfcp: {name}: not a pcap, pcapng or hex text file")
                .map_err(RunError::Diagnostics)?;
            stats.input_errors += 1;
            break;
        }
        let text = String::from_utf8_lossy(&buf);
        match hex::parse_line(&text) {
            Ok(None) => {}
            Ok(Some(payload)) => {
                seen_payload = true;
                let s = decode_datagram(&payload, Source::Line(line_no), out, opts)
                    .map_err(RunError::Output)?;
                stats.add(s);
            }
            Err(e) => {
                writeln!(diag, "pfcp: {name}:{line_no}: {e}").map_err(RunError::Diagnostics)?;
                stats.input_errors += 1;
            }
        }
    }
    Ok(stats)
}

/// Print every message of one datagram (and the error that ends it, if any).
fn decode_datagram<W: Write>(
    payload: &[u8],
    source: Source<'_>,
    out: &mut W,
    opts: &DecodeOptions,
) -> io::Result<DecodeStats> {
    let mut stats = DecodeStats::default();
    for (index, item) in Datagram::new(payload).enumerate() {
        let line = match item {
            Ok(msg) => match opts.format {
                Format::Summary => Ok(summarize(&msg)),
                Format::Json => message_line(&msg, &source.origin(index, false)),
            },
            Err(e) => Err(error_line(&e, &source.origin(index, true))),
        };
        match &line {
            Ok(_) => stats.messages += 1,
            Err(_) => stats.failed += 1,
        }
        write_json(out, line.as_ref().unwrap_or_else(|e| e), opts.pretty)?;
    }
    Ok(stats)
}

/// Write one JSON value and a newline.
pub fn write_json<W: Write>(out: &mut W, value: &Value, pretty: bool) -> io::Result<()> {
    if pretty {
        serde_json::to_writer_pretty(&mut *out, value)?;
    } else {
        serde_json::to_writer(&mut *out, value)?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8], format: Format) -> (String, String, DecodeStats) {
        let mut out = Vec::new();
        let mut diag = Vec::new();
        let opts = DecodeOptions {
            format,
            ..DecodeOptions::default()
        };
        let stats = decode_input("t", input, &mut out, &mut diag, &opts).unwrap();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(diag).unwrap(),
            stats,
        )
    }

    #[test]
    fn text_lines_errors_and_continuation() {
        let input = b"# heartbeat\n\n2001000c00abcd0000600004e8f4a2b0\nzz\n4001000c0000010000600004e8754700\n{\"hex\":\"2002000c00abcd0000600004e8f4a2b0\"}\n";
        let (out, diag, stats) = run(input, Format::Summary);
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["sequence"], json!(0xabcd));
        assert_eq!(lines[1]["line"], json!(5));
        assert_eq!(lines[1]["error"]["kind"], json!("UnsupportedVersion"));
        assert_eq!(lines[2]["message_type"], json!(2));
        assert_eq!(diag, "pfcp: t:4: invalid hex character 'z' at column 1\n");
        assert_eq!(
            stats,
            DecodeStats {
                messages: 2,
                failed: 1,
                input_errors: 1
            }
        );
    }

    #[test]
    fn binary_input_is_one_diagnostic() {
        let (out, diag, stats) = run(b"\x20\x01\x00\x0c\x00\n\xff\xfe\n\x00\n", Format::Json);
        assert_eq!(out, "");
        assert_eq!(diag, "pfcp: t: not a pcap, pcapng or hex text file\n");
        assert_eq!(stats.input_errors, 1);
    }

    #[test]
    fn messages_before_a_bad_one_are_printed() {
        // Heartbeat Request with FO=1, then 3 stray octets.
        let input = b"2401000c00abcd0000600004e8f4a2b0200100\n";
        let (out, _, stats) = run(input, Format::Json);
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["follow_on"], json!(true));
        assert_eq!(lines[1]["index"], json!(1));
        assert_eq!(lines[1]["error"]["offset"], json!(16));
        assert_eq!(stats.failed, 1);
    }
}
