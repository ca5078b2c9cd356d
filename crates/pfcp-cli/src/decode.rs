//! `pfcp decode`: inputs (files or stdin) to JSON lines, a text tree or the oracle's summary
//! schema.
//!
//! The input kind is detected from its first octets: a pcap or pcapng capture (see
//! [`crate::capture`]), otherwise text with one hex payload per line (blank lines and `#`
//! comments ignored, whitespace and `:` tolerated, or a JSON object with a `"hex"` member).
//! Every payload is a UDP datagram that may carry several FO-bundled messages.
//!
//! Each message line of the JSON format carries the receiver's verdict, `"verdict": "valid"`
//! or `"verdict": {"invalid": {...}}` with the Cause and Offending IE a node answers with:
//! [`pfcp_wire::Message::validate`] and its error's [`pfcp_wire::DecodeError::cause`] and
//! [`pfcp_wire::DecodeError::offending_ie`], the functions `pfcp-node` answers with. The exit
//! status is 1 when any message is invalid (in every format; the oracle summary lines stay in
//! the oracle's schema), and when a capture holds no PFCP on the port given.
//!
//! Requests and responses are paired ([`crate::pairing`]) over the whole run; the filters
//! ([`crate::filter`]) choose which messages are printed, not which are paired or checked.

use std::io::{self, BufRead, BufReader, Read, Write};

use pfcp_wire::{Datagram, DecodeError, Message};

use crate::capture::{self, CaptureError, UdpDatagram};
use crate::filter::Filter;
use crate::pairing::{Paired, Pairing, Seen};
use crate::render::{ErrorLine, MessageLine, Origin};
use crate::summary::summarize;
use crate::{hex, text, RunError};

/// Output format of `pfcp decode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// The lossless JSON form `pfcp encode` reads, with names and decoded values.
    #[default]
    Json,
    /// A tree per message like `tshark -V`, then a summary ([`crate::text`]).
    Text,
    /// The oracle's summary schema (see [`crate::summary`]).
    OracleSummary,
}

/// Options of `pfcp decode`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Output format.
    pub format: Format,
    /// Pretty-print each JSON object over several lines.
    pub pretty: bool,
    /// UDP port whose datagrams are taken from captures.
    pub port: u16,
    /// Which messages to print.
    pub filter: Filter,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            format: Format::Json,
            pretty: false,
            port: capture::PFCP_PORT,
            filter: Filter::default(),
        }
    }
}

/// Counts of one decode run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeStats {
    /// Messages decoded.
    pub messages: u64,
    /// Error lines printed (messages or datagrams that failed to decode).
    pub failed: u64,
    /// Messages that decoded but that a receiving node rejects ([`Message::validate`]).
    pub invalid: u64,
    /// Input problems reported on stderr (bad text lines, corrupt captures, captures with no
    /// PFCP on the port).
    pub input_errors: u64,
}

impl DecodeStats {
    /// Whether anything failed (the exit status is then 1).
    pub fn any_failure(&self) -> bool {
        self.failed > 0 || self.invalid > 0 || self.input_errors > 0
    }

    fn add(&mut self, other: DecodeStats) {
        self.messages += other.messages;
        self.failed += other.failed;
        self.invalid += other.invalid;
        self.input_errors += other.input_errors;
    }
}

/// A decode run over one or more inputs: the output, the pairing state and the counts.
pub struct Decoder<'o, W: Write> {
    out: &'o mut W,
    opts: DecodeOptions,
    pairing: Pairing,
    stats: DecodeStats,
    /// Messages printed (the filters' choice).
    shown: u64,
}

/// Decode one input and finish (the text summary included). `name` names it in messages on
/// `diag` (stderr).
pub fn decode_input<R: Read, W: Write>(
    name: &str,
    input: R,
    out: &mut W,
    diag: &mut dyn Write,
    opts: &DecodeOptions,
) -> Result<DecodeStats, RunError> {
    let mut d = Decoder::new(out, opts.clone());
    d.input(name, input, diag)?;
    d.finish()
}

impl<'o, W: Write> Decoder<'o, W> {
    /// A run writing to `out`.
    pub fn new(out: &'o mut W, opts: DecodeOptions) -> Self {
        Decoder {
            out,
            opts,
            pairing: Pairing::default(),
            stats: DecodeStats::default(),
            shown: 0,
        }
    }

    /// Decode one input; its counts (also added to the run's).
    pub fn input<R: Read>(
        &mut self,
        name: &str,
        input: R,
        diag: &mut dyn Write,
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
        let stats = if is_capture {
            self.capture(name, whole, diag)?
        } else {
            self.text(name, BufReader::new(whole), diag)?
        };
        self.stats.add(stats);
        Ok(stats)
    }

    /// End the run: the text format's summary; the run's counts.
    pub fn finish(self) -> Result<DecodeStats, RunError> {
        if self.opts.format == Format::Text {
            let shown = (!self.opts.filter.is_empty()).then_some(self.shown);
            self.out
                .write_all(self.pairing.summary(shown).as_bytes())
                .map_err(RunError::Output)?;
        }
        Ok(self.stats)
    }

    fn capture<R: Read>(
        &mut self,
        name: &str,
        input: R,
        diag: &mut dyn Write,
    ) -> Result<DecodeStats, RunError> {
        let mut stats = DecodeStats::default();
        let result = capture::for_each_udp(input, self.opts.port, |d| {
            stats.add(self.datagram(d.payload, Source::Frame(d))?);
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
                if c.datagrams == 0 {
                    let port = self.opts.port;
                    let seen = c.busiest_other_ports(5);
                    let seen = if seen.is_empty() {
                        format!("no UDP datagrams in its {} frame(s)", c.frames)
                    } else {
                        let list: Vec<String> = seen
                            .iter()
                            .map(|(p, n)| format!("{p} ({n} datagram{})", plural(*n)))
                            .collect();
                        format!("UDP ports seen: {}", list.join(", "))
                    };
                    writeln!(diag, "pfcp: no PFCP on UDP port {port} in {name}; {seen}")
                        .map_err(diag_err)?;
                    stats.input_errors += 1;
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

    fn text<R: BufRead>(
        &mut self,
        name: &str,
        mut input: R,
        diag: &mut dyn Write,
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
                    let s = self
                        .datagram(&payload, Source::Line(line_no))
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
    fn datagram(&mut self, payload: &[u8], source: Source<'_>) -> io::Result<DecodeStats> {
        let mut stats = DecodeStats::default();
        for (index, item) in Datagram::new(payload).enumerate() {
            let origin = source.origin(index);
            match item {
                Ok(msg) => {
                    stats.messages += 1;
                    let verdict = msg.validate();
                    if verdict.is_err() {
                        stats.invalid += 1;
                    }
                    let seen = Seen {
                        at: origin
                            .frame
                            .unwrap_or(origin.line.unwrap_or_default() as u64),
                        time: origin.time,
                        addrs: origin.addrs,
                    };
                    let paired = self.pairing.observe(&msg, seen);
                    if self.opts.filter.matches(&msg, origin.addrs) {
                        self.shown += 1;
                        self.message(&msg, &origin, paired, &verdict)?;
                    }
                }
                Err(e) => {
                    stats.failed += 1;
                    if self.opts.filter.is_empty() {
                        self.error(&origin, &e)?;
                    }
                }
            }
        }
        Ok(stats)
    }

    fn message(
        &mut self,
        msg: &Message<'_>,
        origin: &Origin,
        paired: Paired,
        verdict: &Result<(), DecodeError>,
    ) -> io::Result<()> {
        match self.opts.format {
            Format::Json => {
                let line = MessageLine {
                    msg,
                    origin,
                    paired,
                    verdict,
                };
                write_json(self.out, &line, self.opts.pretty)
            }
            Format::Text => text::write_message(self.out, msg, origin, paired, verdict),
            Format::OracleSummary => write_json(self.out, &summarize(msg), self.opts.pretty),
        }
    }

    fn error(&mut self, origin: &Origin, e: &DecodeError) -> io::Result<()> {
        match self.opts.format {
            Format::Text => text::write_error(self.out, origin, e),
            Format::Json | Format::OracleSummary => {
                write_json(self.out, &ErrorLine { origin, error: e }, self.opts.pretty)
            }
        }
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Where a datagram came from.
#[derive(Debug, Clone, Copy)]
enum Source<'a> {
    Line(usize),
    Frame(&'a UdpDatagram<'a>),
}

impl Source<'_> {
    fn origin(&self, index: usize) -> Origin {
        match self {
            Source::Frame(d) => Origin {
                frame: Some(d.frame),
                time: d.time,
                addrs: Some((d.src, d.dst)),
                line: None,
                index,
            },
            Source::Line(line) => Origin {
                line: Some(*line),
                index,
                ..Origin::default()
            },
        }
    }
}

/// Write one JSON value and a newline.
pub fn write_json<W: Write + ?Sized, T: serde::Serialize>(
    out: &mut W,
    value: &T,
    pretty: bool,
) -> io::Result<()> {
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

    use serde_json::{json, Value};

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
        let (out, diag, stats) = run(input, Format::OracleSummary);
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
                invalid: 0,
                input_errors: 1
            }
        );
    }

    fn lines(out: &str) -> Vec<Value> {
        out.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Three invalid messages, from the header and IE layouts (clauses 7.2.2,
    /// 8.2.65, 8.2.38, 8.2.1): each decodes, and each line says what a node answers.
    #[test]
    fn invalid_messages_carry_the_cause_and_offending_ie() {
        // Heartbeat Request, Recovery Time Stamp with 0 of its 4 octets.
        let hb = "2001000800abcd0000600000";
        // Association Setup Request, empty Node ID, then a Recovery Time Stamp.
        let asr = "2005001000000200003c000000600004e8f4a2b0";
        // Session Deletion Response (SEID 1), empty Cause.
        let sdr = "2137001000000000000000010000030000130000";
        let valid = "2001000c00abcd0000600004e8f4a2b0";
        let input = format!("{hb}\n{asr}\n{sdr}\n{valid}\n");
        let (out, diag, stats) = run(input.as_bytes(), Format::Json);
        assert_eq!(diag, "");
        let l = lines(&out);
        assert_eq!(l.len(), 4);
        let expect = [
            (96, "Recovery Time Stamp", "discard"),
            (60, "Node ID", "reject"),
            (19, "Cause", "notify"),
        ];
        for (line, (ie, name, action)) in l.iter().zip(expect) {
            let v = &line["verdict"]["invalid"];
            assert_eq!(v["cause"], json!(68), "{line}");
            assert_eq!(v["cause_name"], json!("Invalid length"), "{line}");
            assert_eq!(v["offending_ie"], json!(ie), "{line}");
            assert_eq!(v["offending_ie_name"], json!(name), "{line}");
            assert_eq!(v["kind"], json!("IeTooShort"), "{line}");
            assert_eq!(v["action"], json!(action), "{line}");
            // The message itself is still printed in full (the encoder reads it back).
            assert!(line["ies"].is_array());
        }
        assert_eq!(l[3]["verdict"], json!("valid"));
        let keys: Vec<&String> = l[3].as_object().unwrap().keys().collect();
        let at = keys.iter().position(|k| *k == "message_name").unwrap();
        assert_eq!(keys[at + 1], "verdict");
        assert_eq!(stats.invalid, 3);
        assert_eq!(stats.messages, 4);
        assert!(stats.any_failure(), "exit status 1");
    }

    #[test]
    fn missing_mandatory_and_unknown_types() {
        // Session Establishment Response (SEID 1) with a Cause but no Node ID: Cause 66.
        let ser = "213300110000000000000001000004000013000101";
        // Message type 99 (unknown): discarded silently.
        let unknown = "2063000400000500";
        let (out, _, stats) = run(format!("{ser}\n{unknown}\n").as_bytes(), Format::Json);
        let l = lines(&out);
        let v = &l[0]["verdict"]["invalid"];
        assert_eq!(v["cause"], json!(66));
        assert_eq!(v["offending_ie"], json!(60));
        assert_eq!(v["kind"], json!("MissingMandatory"));
        let u = &l[1]["verdict"]["invalid"];
        assert_eq!(u["kind"], json!("UnknownMessageType"));
        assert_eq!(u["action"], json!("discard"));
        assert_eq!(u["offending_ie"], Value::Null);
        assert_eq!(stats.invalid, 2);
    }

    /// The oracle's `ie_content` class (framing fine, an IE body wrong for its type): every
    /// message whose bad IE is mandatory is invalid with Cause 68 or 69 naming that IE; the
    /// others carry a bad optional or conditional IE (OCI, LCI, CP/UP Function Features, the
    /// F-SEID of a response), which a receiver ignores (clause 7.2.3.2), so they are valid.
    #[test]
    fn the_oracle_ie_content_corpus_gets_verdicts() {
        // `$PFCP_ORACLE_DIR`, else the oracle beside the repository.
        let dir = std::env::var_os("PFCP_ORACLE_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle")
            });
        let path = dir.join("corpus/malformed.jsonl");
        let Ok(text) = std::fs::read_to_string(&path) else {
            assert!(
                std::env::var_os("PFCP_REQUIRE_ORACLE").is_none(),
                "{} not found, and PFCP_REQUIRE_ORACLE is set (cargo xtask ci found the oracle)",
                path.display()
            );
            eprintln!("{} not found, skipping", path.display());
            return;
        };
        let input: String = text
            .lines()
            .filter(|l| l.contains("\"class\":\"ie_content\""))
            .map(|l| format!("{l}\n"))
            .collect();
        let (out, _, stats) = run(input.as_bytes(), Format::Json);
        let l = lines(&out);
        assert_eq!(l.len(), 39);
        let optional = [
            IeTypeCode::OCI,
            IeTypeCode::LCI,
            IeTypeCode::CP_FEATURES,
            IeTypeCode::UP_FEATURES,
            IeTypeCode::F_SEID,
        ];
        for line in &l {
            let types: Vec<u64> = line["ies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|ie| ie["type"].as_u64().unwrap())
                .collect();
            match &line["verdict"] {
                Value::String(v) => {
                    assert_eq!(v, "valid");
                    assert!(
                        types.iter().any(|t| optional.contains(t)),
                        "valid without an optional IE to blame: {line}"
                    );
                }
                v => {
                    let inv = &v["invalid"];
                    assert!([68, 69].contains(&inv["cause"].as_u64().unwrap()), "{line}");
                    let ie = inv["offending_ie"].as_u64().unwrap();
                    assert!(types.contains(&ie), "{line}");
                }
            }
        }
        assert_eq!(stats.invalid, 24);
    }

    /// IE type codes of the optional IEs above.
    struct IeTypeCode;
    impl IeTypeCode {
        const OCI: u64 = 54;
        const LCI: u64 = 51;
        const CP_FEATURES: u64 = 89;
        const UP_FEATURES: u64 = 43;
        const F_SEID: u64 = 57;
    }

    #[test]
    fn oracle_summary_lines_keep_the_oracle_schema_and_the_exit_status() {
        let hb = "2001000800abcd0000600000";
        let (out, _, stats) = run(format!("{hb}\n").as_bytes(), Format::OracleSummary);
        let l = lines(&out);
        assert!(l[0].get("verdict").is_none(), "{}", l[0]);
        assert_eq!(l[0]["message_type"], json!(1));
        assert_eq!(stats.invalid, 1);
        assert!(stats.any_failure());
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
