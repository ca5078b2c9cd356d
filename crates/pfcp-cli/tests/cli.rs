//! The `pfcp` binary as a user runs it.

#[allow(dead_code, unreachable_pub)]
mod support;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

use support::{oracle_dir, read_jsonl, str_of};

/// Heartbeat Request, sequence 0xABCD, Recovery Time Stamp 0xE8F4A2B0 (TS 29.244 layout:
/// flags 0x20, type 1, length 12, sequence, spare, IE 96 of 4 octets).
const HEARTBEAT: &str = "2001000c00abcd0000600004e8f4a2b0";

fn pfcp(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pfcp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_owned();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

fn stdout_json(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn decode_hex_from_stdin() {
    let out = pfcp(&["decode"], &format!("{HEARTBEAT}\n"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let lines = stdout_json(&out);
    assert_eq!(lines.len(), 1);
    let m = &lines[0];
    assert_eq!(m["message_type"], json!(1));
    assert_eq!(m["message_name"], json!("Heartbeat Request"));
    assert_eq!(m["seid"], Value::Null);
    assert_eq!(m["sequence"], json!(0xABCD));
    assert_eq!(m["ies"][0]["type"], json!(96));
    // The typed value encodes back to the octets: no raw copy is needed.
    assert_eq!(m["ies"][0]["decoded"], json!(0xE8F4_A2B0u32));
    assert!(m["ies"][0].get("value").is_none(), "{m}");
    // The text form: 0xE8F4A2B0 - 2208988800 = 1699357744 s after 1970.
    let out = pfcp(&["decode", "-f", "text"], &format!("{HEARTBEAT}\n"));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("    Recovery Time Stamp (96): 2023-11-07T11:49:04Z (3908346544)\n"),
        "{text}"
    );
}

#[test]
fn oracle_summary_line_for_a_known_vector() {
    let expected = concat!(
        r#"{"version":1,"message_type":1,"length":12,"seid":null,"sequence":43981,"priority":null,"#,
        r#""ies":[{"type":96,"length":4,"value":"e8f4a2b0","timestamp":3908346544}]}"#,
        "\n"
    );
    // The format's name, and the name it had (kept as an alias).
    for name in ["oracle-summary", "summary"] {
        let out = pfcp(
            &["decode", "--format", name, "-"],
            &format!("{HEARTBEAT}\n"),
        );
        assert!(out.status.success(), "{name}");
        assert_eq!(String::from_utf8(out.stdout).unwrap(), expected, "{name}");
    }
}

#[test]
fn summary_lines_match_the_oracle() {
    let Some(dir) = oracle_dir("summary_lines_match_the_oracle") else {
        return;
    };
    let corpus = read_jsonl(&dir.join("corpus/valid.jsonl"));
    let input: String = corpus
        .iter()
        .map(|l| format!("{}\n", str_of(l, "hex")))
        .collect();
    let out = pfcp(&["decode", "-f", "oracle-summary"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), corpus.len());
    for (line, c) in lines.iter().zip(&corpus) {
        // Byte-identical to the oracle's own serialisation (same keys, same order).
        assert_eq!(
            *line,
            serde_json::to_string(&c["expect"]).unwrap(),
            "{}",
            c["id"]
        );
    }
}

#[test]
fn error_line_and_exit_status_then_decoding_goes_on() {
    // Line 2: the same message cut inside its IE (length field says 12, 10 octets follow).
    let input = format!(
        "{HEARTBEAT}\n{}\n# comment\n{HEARTBEAT}\n",
        &HEARTBEAT[..28]
    );
    let out = pfcp(&["decode"], &input);
    assert_eq!(out.status.code(), Some(1));
    let lines = stdout_json(&out);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["message_type"], json!(1));
    assert_eq!(lines[2]["message_type"], json!(1));
    let e = &lines[1];
    assert_eq!(e["line"], json!(2));
    assert_eq!(e["error"]["kind"], json!("LengthExceedsData"));
    assert_eq!(e["error"]["offset"], json!(2));
    assert_eq!(e["error"]["ie_path"], json!([]));
    assert_eq!(e["error"]["cause"], json!(68));
    assert!(e["error"]["message"]
        .as_str()
        .unwrap()
        .contains("16 octets, 14 available"));
    // A wrong IE inside a grouped IE names its path; a bad hex line is a stderr line.
    let oci_overrun = "21350015000000000000000100000100003600050034000400";
    let out = pfcp(&["decode"], &format!("{oci_overrun}\nxyz\n"));
    assert_eq!(out.status.code(), Some(1));
    let lines = stdout_json(&out);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["error"]["kind"], json!("IeOverrun"));
    assert_eq!(lines[0]["error"]["ie_path"], json!([54, 52]));
    assert_eq!(
        stderr(&out),
        "pfcp: <stdin>:2: invalid hex character 'x' at column 1\n"
    );
}

#[test]
fn missing_file_is_one_clean_line() {
    let out = pfcp(&["decode", "/nonexistent/foo.pcap"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        "pfcp: cannot open /nonexistent/foo.pcap: No such file or directory\n"
    );
    let out = pfcp(&["encode", "/nonexistent/x.jsonl"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "pfcp: cannot open /nonexistent/x.jsonl: No such file or directory\n"
    );
}

#[test]
fn encode_reports_bad_lines_by_number() {
    let good = r#"{"message_type":1,"sequence":43981,"ies":[{"type":96,"value":"e8f4a2b0"}]}"#;
    let input = format!("{good}\n{{\"message_type\":1,\n{good}\n");
    let out = pfcp(&["encode"], &input);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout.clone()).unwrap(),
        format!("{HEARTBEAT}\n{HEARTBEAT}\n")
    );
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("pfcp: <stdin>:2: invalid JSON"), "{err}");
}

#[test]
fn encode_of_decode_gives_the_input_back() {
    // With the oracle: its whole valid corpus; without: the sample's payloads.
    let hexes: Vec<String> = match oracle_dir("encode_of_decode_gives_the_input_back") {
        Some(dir) => read_jsonl(&dir.join("corpus/valid.jsonl"))
            .iter()
            .map(|l| str_of(l, "hex").to_owned())
            .collect(),
        None => pfcp_cli::sample::sample_frames()
            .unwrap()
            .iter()
            // One message per line: leave out the FO bundle (FO flag 0x04).
            .filter(|f| f.payload.first().is_some_and(|b| b & 0x04 == 0))
            .map(|f| pfcp_cli::hex::encode(&f.payload))
            .collect(),
    };
    let input: String = hexes.iter().map(|h| format!("{h}\n")).collect();
    let decoded = pfcp(&["decode"], &input);
    assert!(decoded.status.success(), "{}", stderr(&decoded));
    let json = String::from_utf8(decoded.stdout).unwrap();
    assert!(
        json.contains("\"decoded\""),
        "informational keys are in the input of encode"
    );
    let encoded = pfcp(&["encode"], &json);
    assert!(encoded.status.success(), "{}", stderr(&encoded));
    let text = String::from_utf8(encoded.stdout).unwrap();
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got, hexes);
}

/// Every capture file of the oracle: frame numbers, addresses and payloads agree with
/// `captures.jsonl` (extracted there with tshark).
#[test]
fn decode_the_oracle_captures() {
    let Some(dir) = oracle_dir("decode_the_oracle_captures") else {
        return;
    };
    let corpus = read_jsonl(&dir.join("corpus/captures.jsonl"));
    // (file, frame) -> payload hex, from the oracle.
    let mut expected: BTreeMap<(String, u64), String> = BTreeMap::new();
    for line in &corpus {
        for s in line["sources"].as_array().unwrap() {
            let key = (str_of(s, "file").to_owned(), s["frame"].as_u64().unwrap());
            expected.insert(key, str_of(line, "hex").to_owned());
        }
    }
    let files: std::collections::BTreeSet<&String> = expected.keys().map(|(f, _)| f).collect();
    assert_eq!(files.len(), 8);
    let (mut total, mut skipped, mut typed_only) = (0, 0, 0);
    for file in files {
        let path = dir.join(file);
        let out = pfcp(&["decode", path.to_str().unwrap()], "");
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{file}");
        // `pfcp decode FILE | pfcp encode`: one hex line per message, in order.
        let json = String::from_utf8(out.stdout.clone()).unwrap();
        let encoded = pfcp(&["encode"], &json);
        assert!(encoded.status.success(), "{file}: {}", stderr(&encoded));
        let encoded = String::from_utf8(encoded.stdout).unwrap();
        let lines = stdout_json(&out);
        assert_eq!(encoded.lines().count(), lines.len(), "{file}");
        // Rebuild each frame's payload from its messages.
        let mut got: BTreeMap<(String, u64), String> = BTreeMap::new();
        for (m, hex) in lines.iter().zip(encoded.lines()) {
            assert!(m.get("error").is_none(), "{file}: {m}");
            let src = str_of(m, "src");
            let dst = str_of(m, "dst");
            assert!(
                src.ends_with(":8805") || dst.ends_with(":8805"),
                "{file}: {src} {dst}"
            );
            typed_only += count_typed_only(&m["ies"]);
            let key = (file.clone(), m["frame"].as_u64().unwrap());
            got.entry(key).or_default().push_str(hex);
        }
        let mut want: BTreeMap<_, _> = expected
            .iter()
            .filter(|((f, _), _)| f == file)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // The oracle lists every frame Wireshark shows PFCP in, including PFCP datagrams
        // quoted inside ICMP errors, which are not PFCP traffic and which we skip.
        let quoted = icmp_quoting_frames(&path);
        match &quoted {
            Some(frames) => want.retain(|(_, frame), _| !frames.contains(frame)),
            None => want.retain(|k, _| got.contains_key(k)),
        }
        assert!(!got.is_empty(), "{file}");
        assert_eq!(got, want, "{file}");
        total += got.len();
        skipped += quoted.map_or(0, |q| q.len());
    }
    eprintln!(
        "{total} PFCP frames decoded and re-encoded ({typed_only} IEs from their typed fields \
         alone), {skipped} ICMP-quoted frames skipped"
    );
    assert!(total >= 380, "only {total} frames");
    // The F-TEIDs, UE IP Addresses, Outer Header Creations, rule IDs ... of the captures
    // reach the output typed, and come back from those fields alone.
    assert!(typed_only > 2000, "only {typed_only} IEs typed");
}

/// IEs (at any depth) given by their typed fields only: `decoded` without `value`.
fn count_typed_only(ies: &Value) -> usize {
    ies.as_array().map_or(0, |list| {
        list.iter()
            .map(|ie| {
                let own = usize::from(ie.get("decoded").is_some() && ie.get("value").is_none());
                own + count_typed_only(&ie["ies"])
            })
            .sum()
    })
}

/// Frames where Wireshark finds PFCP inside an ICMP error (`None` without tshark).
fn icmp_quoting_frames(path: &Path) -> Option<Vec<u64>> {
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(path)
        .args([
            "-Y",
            "pfcp && (icmp || icmpv6)",
            "-T",
            "fields",
            "-e",
            "frame.number",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    Some(text.lines().filter_map(|l| l.trim().parse().ok()).collect())
}

#[test]
fn pretty_and_help() {
    let out = pfcp(&["decode", "--pretty"], &format!("{HEARTBEAT}\n"));
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().count() > 5);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["sequence"], json!(0xABCD));
    let help = pfcp(&["decode", "--help"], "");
    assert!(help.status.success());
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains("pcapng") && help.contains("--format"),
        "{help}"
    );
    for heading in ["Output:", "Input:", "Filters:", "Examples:"] {
        assert!(help.contains(heading), "{heading}: {help}");
    }
    assert!(help.contains("pfcp decode -f text"), "{help}");
    let encode_help = pfcp(&["encode", "--help"], "");
    let encode_help = String::from_utf8(encode_help.stdout).unwrap();
    assert!(encode_help.contains("Examples:"), "{encode_help}");
    // No Rust paths in what a user reads.
    for h in [&help, &encode_help] {
        assert!(!h.contains("::") && !h.contains("pfcp_wire"), "{h}");
    }
    let bad = pfcp(&["decode", "--format", "xml"], "");
    assert_eq!(bad.status.code(), Some(2));
}
