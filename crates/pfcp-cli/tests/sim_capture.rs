//! `pfcp sim --pcap`: the real-time runs' datagrams in a capture that Wireshark (tshark, the
//! independent judge) dissects as PFCP without a malformed frame, and that `pfcp decode`
//! reads back as valid messages.

#[allow(dead_code, unreachable_pub)] // Only the tshark check of the shared support is used here.
mod support;

use std::process::Command;

use serde_json::Value;
use support::have_tshark;

/// Run `pfcp ARGS` to completion; its stdout.
fn pfcp(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pfcp"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pfcp {args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn sim_capture_of_the_real_time_runs_is_dissected_by_wireshark() {
    let dir = tempfile::tempdir().unwrap();
    // The default scenario, shortened: this toolkit only, 0.5 s + 1 s per load.
    let toml = pfcp(&["sim", "--print-scenario"]);
    let mut scenario: toml::Table = toml.parse().unwrap();
    scenario.insert(
        "strategies".into(),
        toml::Value::Array(vec!["toolkit".into()]),
    );
    let sweep = scenario
        .get_mut("sweep")
        .and_then(toml::Value::as_table_mut)
        .unwrap();
    sweep.insert("warmup_secs".into(), 0.5.into());
    sweep.insert("measure_secs".into(), 1.0.into());
    let path = dir.path().join("short.toml");
    std::fs::write(&path, toml::to_string(&scenario).unwrap()).unwrap();
    let pcap = dir.path().join("run.pcap");
    let out = dir.path().join("report");
    let stdout = pfcp(&[
        "sim",
        "--engine",
        "real",
        // The comparison's loads (the scenario's six would take twice as long).
        "--real-loads",
        "0.5,2,5",
        "--scenario",
        path.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let written: u64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("capture: "))
        .and_then(|l| l.split(" (").nth(1))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no capture line in {stdout}"));
    assert!(written > 100, "{written}");
    // Our own reader: every datagram is a valid PFCP message (exit status 0).
    let decoded = pfcp(&["decode", pcap.to_str().unwrap()]);
    let lines: Vec<Value> = decoded
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() as u64 >= written, "{} < {written}", lines.len());
    if !have_tshark("sim_capture_of_the_real_time_runs_is_dissected_by_wireshark") {
        return;
    }
    let t = Command::new("tshark")
        .args([
            "-r",
            pcap.to_str().unwrap(),
            "-T",
            "fields",
            "-e",
            "frame.number",
        ])
        .args(["-e", "pfcp.msg_type", "-e", "_ws.malformed"])
        .output()
        .unwrap();
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    let text = String::from_utf8(t.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len() as u64, written, "frames in the file");
    let malformed = rows
        .iter()
        .filter(|r| r.get(2).is_some_and(|m| !m.is_empty()))
        .count();
    assert_eq!(malformed, 0, "Wireshark marks {malformed} frames malformed");
    // Every frame is PFCP on port 8805, and the run's procedures are there.
    assert!(rows.iter().all(|r| r.get(1).is_some_and(|t| !t.is_empty())));
    for want in ["5", "6", "50", "51", "52", "53", "54", "55"] {
        assert!(
            rows.iter()
                .any(|r| r.get(1).is_some_and(|t| t.split(',').any(|x| x == want))),
            "no message type {want}"
        );
    }
}
