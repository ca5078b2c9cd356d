//! Conformance against the oracle (`shared/oracle`, see its README): Wireshark's and scapy's
//! readings of valid, malformed and captured PFCP messages, and Wireshark as the judge of what
//! our encoder writes.
//!
//! The oracle is found at `$PFCP_ORACLE_DIR`, else `<crate>/../../../shared/oracle`; where it
//! is absent each test prints a notice and passes. Tests needing tshark or scapy skip the same
//! way without them.

#[allow(dead_code, unreachable_pub)]
mod support;

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use pfcp_cli::hex;
use pfcp_cli::summary::summarize;
use serde_json::{json, Value};

use support::checks::{check_captures, check_malformed, check_valid, decode_one};
use support::{have_scapy, have_tshark, json_diff, oracle_dir, read_jsonl, Failures};

fn valid_corpus(path: &Path, context: &str) {
    let lines = read_jsonl(path);
    assert!(lines.len() > 300, "{context}: only {} lines", lines.len());
    let r = check_valid(&lines);
    eprintln!(
        "{context}: {} valid lines checked, {} byte-exact round trips, {} ie_extra_octets re-decoded",
        r.checked, r.byte_exact, r.extra_octets
    );
    assert_eq!(r.checked, lines.len());
    r.failures.assert_none(context);
}

fn malformed_corpus(path: &Path, context: &str) {
    let lines = read_jsonl(path);
    assert!(lines.len() > 200, "{context}: only {} lines", lines.len());
    let r = check_malformed(&lines);
    let mut classes = std::collections::BTreeMap::<&str, usize>::new();
    for ((class, category), n) in &r.per_category {
        *classes.entry(class).or_default() += n;
        let kinds = r.kinds.get(&(class.clone(), category.clone()));
        eprintln!("{context}: {class}/{category}: {n} lines, our error kinds {kinds:?}");
    }
    eprintln!(
        "{context}: per class {classes:?}; ie_content rejected at framing: {}",
        r.ie_content_at_framing
    );
    r.failures.assert_none(context);
}

#[test]
fn valid_corpus_summaries_and_round_trip() {
    let Some(dir) = oracle_dir("valid_corpus_summaries_and_round_trip") else {
        return;
    };
    valid_corpus(&dir.join("corpus/valid.jsonl"), "valid.jsonl");
}

#[test]
fn malformed_corpus_outcomes() {
    let Some(dir) = oracle_dir("malformed_corpus_outcomes") else {
        return;
    };
    malformed_corpus(&dir.join("corpus/malformed.jsonl"), "malformed.jsonl");
}

#[test]
fn capture_corpus() {
    let Some(dir) = oracle_dir("capture_corpus") else {
        return;
    };
    let lines = read_jsonl(&dir.join("corpus/captures.jsonl"));
    let r = check_captures(&lines);
    eprintln!(
        "captures.jsonl: {} payloads decoded, {} summaries compared, {} canonical round trips",
        r.checked, r.compared, r.canonical
    );
    assert!(r.compared > 300, "only {} comparable lines", r.compared);
    r.failures.assert_none("captures.jsonl");
}

/// Corpora regenerated with other seeds (scapy + tshark needed) pass the same checks.
#[test]
fn corpora_from_other_seeds() {
    let test = "corpora_from_other_seeds";
    let Some(dir) = oracle_dir(test) else {
        return;
    };
    if !have_tshark(test) || !have_scapy(test) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for (script, seed) in [("gen_corpus.py", "7"), ("gen_malformed.py", "11")] {
        let out = Command::new("python3")
            .arg(dir.join(script))
            .args(["--seed", seed, "--out-dir"])
            .arg(tmp.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{script} --seed {seed} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    valid_corpus(&tmp.path().join("valid.jsonl"), "valid.jsonl seed 7");
    malformed_corpus(
        &tmp.path().join("malformed.jsonl"),
        "malformed.jsonl seed 11",
    );
}

/// Messages built with pfcp-wire's encoders: our decoder and Wireshark must both read exactly
/// the summary computed from the builder inputs.
#[test]
fn wireshark_judges_our_encoder() {
    let test = "wireshark_judges_our_encoder";
    let cases = support::cases::all_cases();
    assert!(cases.len() > 300, "only {} cases", cases.len());
    // Our own decoder first (needs neither the oracle nor tshark).
    let mut failures = Failures::default();
    for c in &cases {
        match decode_one(&c.bytes) {
            Ok(msg) => {
                let got = summarize(&msg);
                if got != c.expect {
                    failures.push(&c.id, json_diff(&got, &c.expect).join("; "));
                }
                if let Err(e) = msg.validate().and(msg.check_typed_ies()) {
                    failures.push(&c.id, format!("our message does not validate: {e}"));
                }
            }
            Err(e) => failures.push(&c.id, e),
        }
    }
    failures.assert_none("our decoder on our encoder's messages");

    let Some(dir) = oracle_dir(test) else {
        return;
    };
    if !have_tshark(test) {
        return;
    }
    let mut file = tempfile::NamedTempFile::new().unwrap();
    for c in &cases {
        let line = json!({"id": c.id, "hex": hex::encode(&c.bytes), "expect": c.expect});
        writeln!(file, "{line}").unwrap();
    }
    file.flush().unwrap();
    let out = Command::new("python3")
        .arg(dir.join("tshark_fields.py"))
        .arg("--compare")
        .arg(file.path())
        .output()
        .unwrap();
    let mut mismatches = Failures::default();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["match"] != json!(true) {
            let id = v["id"].as_str().unwrap_or("?").to_owned();
            let what =
                json!({"diff": v["diff"], "ws_expert": v["ws_expert"], "ws_flag": v["ws_flag"]});
            mismatches.push(&id, what);
        }
    }
    eprintln!(
        "{test}: {} messages compared by tshark; {}",
        cases.len(),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    mismatches.assert_none("tshark_fields.py --compare");
    assert!(
        out.status.success(),
        "tshark_fields.py exited with {}",
        out.status
    );
}
