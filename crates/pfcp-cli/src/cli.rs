//! The command line: argument parsing (clap) and the exit status.
//!
//! Exit status: 0 if everything decoded or encoded, 1 if any message failed, any input line
//! was bad or a file could not be read, 2 for usage errors (clap). `pfcp up` and `pfcp cp`
//! exit 0 after a complete run (overload and throttling are results, not failures) and 1 if
//! they could not run (address in use, bad template, ...); `pfcp cp` also 3 when no
//! association could be set up, 4 when a UP function was lost during the run and 5 when more
//! than `--max-timeout-share` of its requests timed out ([`crate::cp::exit`]).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::decode::{DecodeOptions, DecodeStats, Decoder, Format};
use crate::encode::{encode_input, EncodeStats};
use crate::filter::{parse_message_type, parse_seid, Filter, Peer};
use crate::{io_error_text, RunError};

/// Decode and encode PFCP (3GPP TS 29.244) messages and captures.
#[derive(Debug, Parser)]
#[command(
    name = "pfcp",
    version,
    after_help = "Examples:\n  \
        pfcp decode capture.pcapng                  one JSON object per PFCP message\n  \
        pfcp decode -f text capture.pcap            a tree per message, then a summary\n  \
        echo 2001000c00abcd0000600004e8f4a2b0 | pfcp decode\n  \
        pfcp decode capture.pcap | pfcp encode      back to hex, byte for byte\n  \
        pfcp up --capacity 2000                     a UP function emulator on 127.0.0.1:8805\n  \
        pfcp cp --up 127.0.0.1:8805 --rate 5000     load it, honouring its overload control"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decode PFCP messages: JSON lines (one per message), a text tree, or the oracle's
    /// summary schema.
    ///
    /// Each FILE (or stdin if none, or `-`) is a pcap or pcapng capture (detected from its
    /// first octets; UDP datagrams from or to the PFCP port over Ethernet, Linux SLL/SLL2,
    /// raw IP or BSD loopback) or text with one hex payload per line (blank lines and `#`
    /// comments ignored, spaces and colons allowed, or JSON lines with a "hex" member).
    /// A payload may hold several FO-bundled messages. Every IE is shown with its name; the
    /// IEs the toolkit knows with their typed fields. Responses are paired with their
    /// requests (peers and sequence number), with the response time in captures.
    ///
    /// The exit status is 1 when a message fails to decode (an "error" line, and decoding
    /// goes on), when a receiving node would reject a message (its "verdict"), and when a
    /// capture holds no PFCP on the port (stderr says which UDP ports it holds).
    #[command(after_help = DECODE_EXAMPLES)]
    Decode(DecodeArgs),
    /// Encode PFCP messages given as JSON lines (the output of `pfcp decode`) to hex, one
    /// line per message.
    ///
    /// An IE is given by its octets ("value": hex), by its members ("ies": [...], for a
    /// grouped IE) or by its typed fields ("decoded": the form `pfcp decode` prints), which
    /// the toolkit's encoder writes. Informational keys (frame, name, verdict, ...) are
    /// ignored, so `pfcp decode x.pcap | pfcp encode` gives back each message's octets.
    #[command(after_help = ENCODE_EXAMPLES)]
    Encode(EncodeArgs),
    /// Emulate a UP function: answer session requests at a capacity, protect itself from
    /// overload (cause 74) and report it to the CP functions (OCI/LCI).
    ///
    /// The first line on stderr is `pfcp up: listening on ADDR ...`; then a status line every
    /// second: requests served, rejected with cause 74, the published Overload and Load
    /// Metrics, the queue depth.
    #[command(after_help = UP_EXAMPLES)]
    Up(crate::up::UpArgs),
    /// Generate CP load: establish, modify and delete sessions on UP functions at a rate,
    /// with a priority mix, throttled by the UP functions' overload control.
    ///
    /// Prints progress every second on stderr, then a summary (with --json also one JSON
    /// object on stdout): offered, sent, throttled, redirected, succeeded, rejected by cause,
    /// timed out, per class and request type, and latency percentiles.
    ///
    /// Exit status: 0 after a complete run, 1 if it could not run, 3 if a UP function did
    /// not answer or refused the association, 4 if a UP function was lost during the run
    /// (heartbeats, restart, release), 5 if more than --max-timeout-share per cent of the
    /// requests sent timed out.
    #[command(after_help = CP_EXAMPLES)]
    Cp(crate::cp::CpArgs),
    /// Run the overload experiment: how UP functions fare under a signalling storm with no
    /// control, UP self-protection only, the Annex A.1 random Loss, and this toolkit.
    ///
    /// The default scenario (embedded; --scenario FILE for another, --print-scenario to see
    /// it) runs in virtual time (every function a real sans-IO node, deterministic from the
    /// seed) and, at small scale, on loopback UDP. Prints the tables on stdout and writes
    /// report.json and report.svg into --out (checked before the runs); progress on stderr.
    #[command(after_help = crate::sim::EXAMPLES)]
    Sim(crate::sim::SimArgs),
    /// Write the project's sample capture (samples/overload.pcap) to OUT.
    #[command(hide = true)]
    SamplePcap {
        /// Where to write the pcap file.
        out: PathBuf,
    },
}

const DECODE_EXAMPLES: &str = "Examples:
  pfcp decode capture.pcapng                     one JSON line per PFCP message
  pfcp decode -f text capture.pcap               a tree per message, then a summary
  pfcp decode -f text --type session-establishment-request --peer 10.0.0.1 capture.pcap
  pfcp decode -f text --seid 0x1 capture.pcap    one session (header SEID or F-SEID)
  pfcp decode --port 8806 capture.pcap           PFCP on another UDP port
  echo 2001000c00abcd0000600004e8f4a2b0 | pfcp decode -f text
  pfcp decode capture.pcap | pfcp encode         back to hex, byte for byte
  pfcp decode -f oracle-summary capture.pcap     the oracle's schema, comparable with tshark";

const ENCODE_EXAMPLES: &str = "Examples:
  pfcp decode capture.pcap | pfcp encode
  echo '{\"message_type\":1,\"sequence\":1,\"ies\":[{\"type\":96,\"decoded\":3908346544}]}' | pfcp encode
  echo '{\"message_type\":1,\"sequence\":1,\"ies\":[{\"type\":96,\"value\":\"e8f4a2b0\"}]}' | pfcp encode";

const UP_EXAMPLES: &str = "Examples:
  pfcp up                                        a UP function on 127.0.0.1:8805, 2000 requests/s
  pfcp up --listen 127.0.0.1:8806 --capacity 500 --node-id upf2.example.net
  pfcp up --capacity 1000 --duration-secs 20 --series-ms 200 --json > up.json
  pfcp up --report-rate 650                      also send Session Report Requests
  pfcp up --capacity 1000 --metrics 127.0.0.1:9185   Prometheus counters";

const CP_EXAMPLES: &str = "Examples:
  pfcp cp --up 127.0.0.1:8805 --rate 5000 --duration-secs 10
  pfcp cp --up 127.0.0.1:8805 --template crates/pfcp-cli/templates/basic.toml --rate 500
  pfcp cp --up 127.0.0.1:8805 --replay capture.pcapng --ue-pool 10.46.0.0/16
  pfcp cp --up 127.0.0.1:8805 --rate 5000 --ramp 5 --max-outstanding 200
  pfcp cp --up 127.0.0.1:8805 --up 127.0.0.1:8806 --up-weights 1500,500 --rate 1800
  pfcp cp --up 127.0.0.1:8805 --mix emergency=5,arp2=25,arp12=70 --json > cp.json

Exit status: 0 complete run, 1 could not run, 2 usage, 3 no association, 4 a UP function
lost during the run, 5 more than --max-timeout-share per cent of the requests timed out.";

/// Output format of `pfcp decode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Lossless JSON lines (the input of `pfcp encode`) with IE names and typed fields.
    Json,
    /// A tree per message (like tshark -V), then a summary by message type and Cause.
    Text,
    /// The oracle's summary schema, comparable with Wireshark's dissection.
    #[value(name = "oracle-summary", alias = "summary")]
    OracleSummary,
}

/// Arguments of `pfcp decode`.
#[derive(Debug, clap::Args)]
pub struct DecodeArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = FormatArg::Json, help_heading = "Output")]
    pub format: FormatArg,
    /// Pretty-print each JSON object over several lines (not readable by `pfcp encode`).
    #[arg(long, help_heading = "Output")]
    pub pretty: bool,
    /// UDP port of the PFCP traffic in captures (source or destination).
    #[arg(long, default_value_t = crate::capture::PFCP_PORT, value_name = "PORT", help_heading = "Input")]
    pub port: u16,
    /// Only messages of this type: a name (session-establishment-request) or a code (50);
    /// repeat or separate with commas for several.
    #[arg(long = "type", value_name = "TYPE", value_delimiter = ',', value_parser = parse_message_type, help_heading = "Filters")]
    pub types: Vec<pfcp_wire::MessageType>,
    /// Only messages of this session: SEID in the header or in an F-SEID (decimal or 0x hex).
    #[arg(long, value_name = "SEID", value_parser = parse_seid, help_heading = "Filters")]
    pub seid: Option<u64>,
    /// Only messages from or to this address (10.0.0.1) or address and port (10.0.0.1:8805);
    /// captures only.
    #[arg(long, value_name = "ADDR", value_parser = Peer::parse, help_heading = "Filters")]
    pub peer: Option<Peer>,
    /// Captures or hex text files; stdin if none or `-`.
    #[arg(value_name = "FILE", help_heading = "Input")]
    pub files: Vec<PathBuf>,
}

/// Arguments of `pfcp encode`.
#[derive(Debug, clap::Args)]
pub struct EncodeArgs {
    /// JSON lines files; stdin if none or `-`.
    #[arg(value_name = "FILE", help_heading = "Input")]
    pub files: Vec<PathBuf>,
}

/// Run the command line; the process exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // The node tools print from their own threads: dispatch them before stdout is locked.
    let command = match cli.command {
        Command::Up(args) => return crate::up::main(&args),
        Command::Cp(args) => return crate::cp::main(&args),
        Command::Sim(args) => return crate::sim::main(&args),
        other => other,
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut diag = io::stderr();
    let result = match command {
        Command::Up(_) | Command::Cp(_) | Command::Sim(_) => Ok(true),
        Command::Decode(args) => run_decode(&args, &mut out, &mut diag),
        Command::Encode(args) => run_encode(&args, &mut out, &mut diag),
        Command::SamplePcap { out: path } => match crate::sample::write_sample_pcap(&path) {
            Ok(()) => Ok(true),
            Err(e) => {
                let _ = writeln!(
                    diag,
                    "pfcp: cannot write {}: {}",
                    path.display(),
                    io_error_text(&e)
                );
                Ok(false)
            }
        },
    };
    let result = result.and_then(|ok| out.flush().map(|()| ok).map_err(RunError::Output));
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        // The reader went away (`pfcp decode x | head`): stop quietly.
        Err(RunError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
        Err(RunError::Output(e)) => {
            let _ = writeln!(diag, "pfcp: cannot write output: {}", io_error_text(&e));
            ExitCode::FAILURE
        }
        Err(RunError::Input(e)) => {
            let _ = writeln!(diag, "pfcp: cannot read input: {}", io_error_text(&e));
            ExitCode::FAILURE
        }
        Err(RunError::Diagnostics(_)) => ExitCode::FAILURE,
    }
}

/// The inputs: the named files, or stdin (`None`) if there are none.
fn inputs(files: &[PathBuf]) -> Vec<Option<&PathBuf>> {
    if files.is_empty() {
        return vec![None];
    }
    files
        .iter()
        .map(|f| if f.as_os_str() == "-" { None } else { Some(f) })
        .collect()
}

/// Run `f` on every input; `Ok(false)` if a file could not be opened (reported on `diag`).
fn for_each_input(
    files: &[PathBuf],
    diag: &mut dyn Write,
    mut f: impl FnMut(&str, Box<dyn io::Read + '_>, &mut dyn Write) -> Result<bool, RunError>,
) -> Result<bool, RunError> {
    let mut ok = true;
    for input in inputs(files) {
        let (name, reader): (String, Box<dyn io::Read>) = match input {
            None => ("<stdin>".into(), Box::new(io::stdin().lock())),
            Some(path) => {
                let name = path.display().to_string();
                match File::open(path) {
                    Ok(file) => (name, Box::new(file)),
                    Err(e) => {
                        writeln!(diag, "pfcp: cannot open {name}: {}", io_error_text(&e))
                            .map_err(RunError::Diagnostics)?;
                        ok = false;
                        continue;
                    }
                }
            }
        };
        match f(&name, reader, diag) {
            Ok(good) => ok &= good,
            Err(RunError::Input(e)) => {
                writeln!(diag, "pfcp: cannot read {name}: {}", io_error_text(&e))
                    .map_err(RunError::Diagnostics)?;
                ok = false;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(ok)
}

fn run_decode(
    args: &DecodeArgs,
    mut out: &mut dyn Write,
    diag: &mut dyn Write,
) -> Result<bool, RunError> {
    let opts = DecodeOptions {
        format: match args.format {
            FormatArg::Json => Format::Json,
            FormatArg::Text => Format::Text,
            FormatArg::OracleSummary => Format::OracleSummary,
        },
        pretty: args.pretty,
        port: args.port,
        filter: Filter {
            types: args.types.clone(),
            seid: args.seid,
            peer: args.peer,
        },
    };
    let mut decoder = Decoder::new(&mut out, opts);
    let opened = for_each_input(&args.files, diag, |name, reader, diag| {
        let s = decoder.input(name, reader, diag)?;
        Ok(!s.any_failure())
    })?;
    let total: DecodeStats = decoder.finish()?;
    Ok(opened && !total.any_failure())
}

fn run_encode(
    args: &EncodeArgs,
    mut out: &mut dyn Write,
    diag: &mut dyn Write,
) -> Result<bool, RunError> {
    let mut total = EncodeStats::default();
    let opened = for_each_input(&args.files, diag, |name, reader, diag| {
        let s = encode_input(name, BufReader::new(reader), &mut out, diag)?;
        total.messages += s.messages;
        total.errors += s.errors;
        Ok(s.errors == 0)
    })?;
    Ok(opened && total.errors == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every subcommand's help ends with examples of itself, names no Rust path, and every
    /// flag the examples (its own and the top level's) use is one of its visible flags.
    #[test]
    fn every_help_has_examples_with_visible_flags_and_no_rust_paths() {
        let mut top = Cli::command();
        let top_help = top.render_long_help().to_string();
        for name in ["decode", "encode", "up", "cp", "sim"] {
            let mut sub = Cli::command()
                .find_subcommand(name)
                .cloned()
                .unwrap_or_else(|| panic!("no subcommand {name}"));
            let help = sub.render_long_help().to_string();
            let examples = help
                .split_once("Examples:\n")
                .map(|(_, e)| e.to_string())
                .unwrap_or_else(|| panic!("pfcp {name} --help has no Examples: section"));
            assert!(
                examples.contains(&format!("pfcp {name}")),
                "pfcp {name}: {examples}"
            );
            assert!(
                !help.contains("::"),
                "pfcp {name} --help names a Rust path:\n{help}"
            );
            // The flags of its examples, and of the top level's lines about it.
            let lines = examples.lines().chain(
                top_help
                    .lines()
                    .filter(|l| l.trim_start().starts_with(&format!("pfcp {name} "))),
            );
            for line in lines {
                let mine = line.split('|').next().unwrap_or_default();
                let mine = mine
                    .split(&format!("pfcp {name}"))
                    .nth(1)
                    .unwrap_or_default();
                for flag in mine.split_whitespace().filter(|w| w.starts_with("--")) {
                    let long = flag
                        .trim_start_matches("--")
                        .split('=')
                        .next()
                        .unwrap_or_default();
                    let arg = sub
                        .get_arguments()
                        .find(|a| a.get_long() == Some(long))
                        .unwrap_or_else(|| panic!("pfcp {name}: example flag {flag} unknown"));
                    assert!(
                        !arg.is_hide_set(),
                        "pfcp {name}: example uses hidden {flag}"
                    );
                }
            }
        }
    }

    fn cp_args(extra: &[&str]) -> crate::cp::CpArgs {
        let argv = ["pfcp", "cp", "--up", "127.0.0.1:8805"].iter().chain(extra);
        match Cli::try_parse_from(argv).map(|c| c.command) {
            Ok(Command::Cp(a)) => a,
            other => panic!("not a cp command: {other:?}"),
        }
    }

    /// CPs started together with default flags must not draw in lockstep: with one seed
    /// each picked the same class at the same offer, and their emergency sessions reached
    /// the UP function in bursts of one per CP.
    #[test]
    fn cp_seed_defaults_to_one_per_node_id_and_the_flag_wins() {
        let a = cp_args(&["--node-id", "smf-1.example.net"]);
        let b = cp_args(&["--node-id", "smf-2.example.net"]);
        assert_ne!(a.seed(), b.seed());
        assert_eq!(
            a.seed(),
            cp_args(&["--node-id", "smf-1.example.net"]).seed()
        );
        let given = cp_args(&["--node-id", "smf-1.example.net", "--seed", "7"]);
        assert_eq!(given.seed(), 7);
        // The default Node ID names the process, so its seed is this process's.
        assert_eq!(cp_args(&[]).seed(), cp_args(&[]).seed());
    }
}
