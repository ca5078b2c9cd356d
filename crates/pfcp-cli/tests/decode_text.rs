//! `pfcp decode --format text`, the filters, pairing and the diagnostics of an input without
//! PFCP, on the binary as a user runs it.

#[allow(dead_code, unreachable_pub)]
mod support;

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{json, Value};

use support::oracle_dir;

fn pfcp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pfcp"))
        .args(args)
        .output()
        .unwrap()
}

fn sample() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples/overload.pcap")
        .display()
        .to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The text tree of the public go-pfcp capture (MIT), every frame, kept as a snapshot: a
/// change to the tree is a reviewed change of `tests/snapshots/`.
#[test]
fn text_tree_of_a_public_capture() {
    let Some(dir) = oracle_dir("text_tree_of_a_public_capture") else {
        return;
    };
    let path = dir.join("captures/mit/wmnsk+go-pfcp__pcap__pfcp.pcap");
    let out = pfcp(&["decode", "-f", "text", path.to_str().unwrap()]);
    // Some of its messages are invalid (the exit status says so), the tree is printed whole.
    let text = stdout(&out);
    assert!(text.contains("\nSummary: "), "{text}");
    insta::assert_snapshot!("go_pfcp_text", text);
}

/// The text tree of the project's sample capture (always there: `samples/overload.pcap`).
#[test]
fn text_tree_of_the_sample_capture() {
    let out = pfcp(&["decode", "-f", "text", &sample()]);
    assert!(out.status.success(), "{}", stderr(&out));
    insta::assert_snapshot!("sample_text", stdout(&out));
}

#[test]
fn no_pfcp_on_the_port_says_what_was_seen() {
    let s = sample();
    let out = pfcp(&["decode", "--port", "8806", &s]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        format!("pfcp: no PFCP on UDP port 8806 in {s}; UDP ports seen: 8805 (7 datagrams)\n")
    );
    // The text format too (the summary still closes the output).
    let out = pfcp(&["decode", "-f", "text", "--port", "8806", &s]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("Summary: 0 PFCP messages"));
}

/// The sample capture (`samples/overload.pcap`, built by `pfcp_cli::sample`): a Heartbeat,
/// an Association Setup, a Session Establishment (SEID 0x1001 in the CP F-SEID, answered
/// with SEID 0x1001 in the header) and two bundled Session Deletion Requests (SEIDs 0x2001,
/// 0x2002), 2 ms between request and response.
#[test]
fn text_pairs_requests_and_responses_and_closes_with_a_summary() {
    let out = pfcp(&["decode", "-f", "text", &sample()]);
    let text = stdout(&out);
    assert!(
        text.contains(
            "Frame 2: 2026-01-01 00:00:00.002000 UTC, 127.0.0.2:8805 -> 127.0.0.1:8805\n\
             PFCP Heartbeat Response (2)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("    [Response to the request in frame 1, after 2.000 ms]\n"),
        "{text}"
    );
    assert!(
        text.contains("(message 2 of the datagram)\nPFCP Session Deletion Request (54)"),
        "{text}"
    );
    let summary = &text[text.find("Summary:").unwrap()..];
    assert!(
        summary.starts_with("Summary: 8 PFCP messages\n"),
        "{summary}"
    );
    assert!(
        summary.contains("      2  Session Deletion Request (54)\n"),
        "{summary}"
    );
    assert!(
        summary.contains("      1  PFCP entity in congestion (74)\n"),
        "{summary}"
    );
    assert!(
        summary.contains("Pairs: 3 answered, 2 unanswered requests, 0 responses without a request"),
        "{summary}"
    );
}

fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn filters_choose_the_messages() {
    let s = sample();
    let types = |args: &[&str]| -> Vec<u64> {
        let mut a = vec!["decode"];
        a.extend_from_slice(args);
        a.push(&s);
        json_lines(&pfcp(&a))
            .iter()
            .map(|m| m["message_type"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(types(&["--type", "heartbeat-request"]), [1]);
    assert_eq!(types(&["--type", "Heartbeat Response,5"]), [2, 5]);
    assert_eq!(types(&["--type", "1", "--type", "2"]), [1, 2]);
    // SEID 0x1001: the establishment request's CP F-SEID, and the response's header.
    assert_eq!(types(&["--seid", "0x1001"]), [50, 51]);
    assert_eq!(types(&["--seid", "8194"]), [54]);
    assert_eq!(types(&["--seid", "0x99"]), Vec::<u64>::new());
    assert_eq!(types(&["--peer", "127.0.0.2"]).len(), 8);
    assert_eq!(types(&["--peer", "127.0.0.9"]), Vec::<u64>::new());
    assert_eq!(
        types(&[
            "--peer",
            "127.0.0.1:8805",
            "--type",
            "association-setup-response"
        ]),
        [6]
    );
    let bad = pfcp(&["decode", "--type", "nope", &s]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("unknown message type \"nope\""),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn json_lines_carry_time_and_pairing() {
    let lines = json_lines(&pfcp(&["decode", &sample()]));
    let rsp = &lines[1];
    assert_eq!(rsp["frame"], json!(2));
    // 2026-01-01T00:00:00.002Z.
    assert_eq!(rsp["time"], json!(1_767_225_600.002));
    assert_eq!(rsp["response_to"], json!(1));
    assert!((rsp["response_time"].as_f64().unwrap() - 0.002).abs() < 1e-9);
    assert!(lines[0].get("response_to").is_none());
}

#[test]
fn encode_takes_typed_fields() {
    // Heartbeat Request with the Recovery Time Stamp given by its value (clause 8.2.65).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.jsonl");
    std::fs::write(
        &path,
        r#"{"message_type":1,"sequence":43981,"ies":[{"type":96,"decoded":3908346544}]}"#,
    )
    .unwrap();
    let out = pfcp(&["encode", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "2001000c00abcd0000600004e8f4a2b0\n");
}
