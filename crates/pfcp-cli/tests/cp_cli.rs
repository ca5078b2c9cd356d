//! `pfcp cp` as a user meets it: its exit status and plain messages when no UP function
//! answers, clear errors for negative numbers, the loopback bind by default with counts that
//! agree, and session templates against `pfcp up`.

mod procs;

use std::net::UdpSocket;

use procs::{n, pfcp, start_up, summary};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn no_answer_to_the_association_is_status_3_in_words_with_progress() {
    // A socket that never answers.
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let out = pfcp(&[
        "cp",
        "--up",
        &addr,
        "--t1-ms",
        "600",
        "--n1",
        "2",
        "--duration-secs",
        "1",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!(
            "no answer from {addr} to the Association Setup Request (sent 3 times, 600 ms apart)"
        )),
        "{err}"
    );
    // Not silent while it waits: a line a second.
    assert!(
        err.contains(&format!("associating with {addr}: no answer yet after 1 s")),
        "{err}"
    );
    assert!(!err.contains("Some(") && !err.contains('{'), "{err}");
}

#[test]
fn negative_numbers_are_refused_by_name() {
    for (flag, value) in [
        ("--rate", "-5"),
        ("--duration-secs", "-1"),
        ("--max-outstanding", "-3"),
        ("--max-timeout-share", "-1"),
    ] {
        let out = pfcp(&["cp", "--up", "127.0.0.1:8805", flag, value]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(
            err.contains(flag) && err.contains("is negative"),
            "{flag}: {err}"
        );
    }
}

#[test]
fn a_loopback_up_is_loaded_from_loopback_and_the_counts_agree() {
    let up = start_up(&["--capacity", "2000", "--duration-secs", "20"]);
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--rate",
        "200",
        "--duration-secs",
        "2",
        "--json",
    ]);
    let s = summary(&out);
    let err = stderr(&out);
    assert!(err.contains(" at 127.0.0.1:"), "bound to loopback: {err}");
    let established = n(&s, "/sessions_established");
    assert!(established > 0, "{s}");
    assert_eq!(
        n(&s, "/by_request/establishment/succeeded"),
        established,
        "{s}"
    );
    assert_eq!(n(&s, "/ups/0/sessions"), established, "{s}");
    assert!(s["up_events"].as_array().is_some_and(Vec::is_empty), "{s}");
}

/// The shipped example template.
const BASIC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/templates/basic.toml");

#[test]
fn templated_sessions_are_established_on_pfcp_up() {
    let up = start_up(&["--capacity", "2000", "--duration-secs", "20"]);
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--template",
        BASIC,
        "--rate",
        "300",
        "--duration-secs",
        "2",
        "--json",
    ]);
    let s = summary(&out);
    let established = n(&s, "/by_request/establishment/succeeded");
    assert!(established > 100, "{s}");
    assert_eq!(n(&s, "/by_request/establishment/rejected"), 0, "{s}");
    assert_eq!(n(&s, "/by_request/establishment/errors"), 0, "{s}");
    // The modifications update the template's first FAR, which the UP function accepts.
    assert!(n(&s, "/by_request/modification/succeeded") > 0, "{s}");
    assert_eq!(n(&s, "/by_request/modification/rejected"), 0, "{s}");
}

#[test]
fn a_bad_template_is_status_1_naming_file_and_rule() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(
        &path,
        "[[pdr]]\nid = 1\nsource_interface = \"access\"\nfar_id = 9\n[[far]]\nid = 1\napply_action = [\"forw\"]\n",
    )
    .unwrap();
    let file = path.display().to_string();
    let out = pfcp(&["cp", "--up", "127.0.0.1:8805", "--template", &file]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "--template {file}: pdr 1: far_id 9 is not a [[far]] id"
        )),
        "{err}"
    );
    let out = pfcp(&[
        "cp",
        "--up",
        "127.0.0.1:8805",
        "--template",
        "/nonexistent.toml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--template /nonexistent.toml: No such file"),
        "{}",
        stderr(&out)
    );
}

/// A real capture of the oracle (open5gs's registration test: 23 Session Establishment
/// Requests), or `None` with a notice where the oracle is absent.
fn oracle_capture(test: &str) -> Option<std::path::PathBuf> {
    let dir = match std::env::var_os("PFCP_ORACLE_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle"),
    };
    let file = dir.join(
        "captures/agpl-3.0/open5gs+open5gs__docs__assets__pcapng__testregistration.pfcp-only.pcapng",
    );
    if file.is_file() {
        Some(file)
    } else {
        pfcp_test_support::skip::skip_oracle(test, &format!("no capture at {}", file.display()));
        None
    }
}

#[test]
fn replayed_establishments_of_a_real_capture_are_accepted_by_pfcp_up() {
    let Some(capture) = oracle_capture("replayed_establishments_of_a_real_capture") else {
        return;
    };
    let capture = capture.display().to_string();
    let up = start_up(&["--capacity", "2000", "--duration-secs", "20"]);
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--replay",
        &capture,
        "--rate",
        "300",
        "--duration-secs",
        "2",
        "--json",
    ]);
    let s = summary(&out);
    let err = stderr(&out);
    assert!(
        err.contains("replaying the 23 Session Establishment Requests of"),
        "{err}"
    );
    // More sessions than requests in the capture: each request is sent several times, each
    // time rewritten, and the UP function accepts every one.
    let established = n(&s, "/by_request/establishment/succeeded");
    assert!(established > 46, "{s}");
    assert_eq!(n(&s, "/by_request/establishment/rejected"), 0, "{s}");
    assert_eq!(n(&s, "/by_request/establishment/errors"), 0, "{s}");
}

#[test]
fn a_capture_without_establishments_is_status_1() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("none.pcap");
    let out = pfcp(&["sample-pcap", &path.display().to_string()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let file = path.display().to_string();
    let out = pfcp(&[
        "cp",
        "--up",
        "127.0.0.1:8805",
        "--replay",
        &file,
        "--replay-port",
        "9999",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("--replay {file}: no usable Session Establishment Request (0 PFCP messages on UDP port 9999")),
        "{err}"
    );
}

#[test]
fn a_ramp_offers_half_the_requests_of_its_span_and_the_outstanding_are_bounded() {
    let up = start_up(&["--capacity", "5000", "--duration-secs", "20"]);
    // A ramp over the whole run: half of rate x duration.
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--rate",
        "400",
        "--duration-secs",
        "2",
        "--ramp",
        "2",
        "--json",
    ]);
    let s = summary(&out);
    let offered = n(&s, "/offered");
    assert!((300..=440).contains(&offered), "offered {offered}: {s}");
    assert!(stderr(&out).contains("(rising from 0 over 2 s)"));
    // One request at a time: the offers of a tick beyond the first are skipped, counted.
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--rate",
        "3000",
        "--duration-secs",
        "1",
        "--max-outstanding",
        "1",
        "--json",
    ]);
    let s = summary(&out);
    assert!(n(&s, "/skipped_max_outstanding") > 0, "{s}");
    // Every due offer is made or counted as skipped (the pacer's last millisecond tick may
    // fall just short of the end).
    let due = n(&s, "/offered") + n(&s, "/skipped_max_outstanding") + n(&s, "/skipped_no_session");
    assert!((2950..=3000).contains(&due), "{due}: {s}");
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--ramp",
        "20",
        "--duration-secs",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--ramp 20 s is longer than --duration-secs (5 s)"));
}

/// `--functions 8`: eight CP functions in one process, each a CP function of its own to the
/// UP function (eight associations, eight Node IDs), the rate split among them, one summary
/// whose counts add up.
#[test]
fn several_cp_functions_in_one_process_associate_apart_and_sum_up() {
    let up = start_up(&["--capacity", "2000", "--duration-secs", "20"]);
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--functions",
        "8",
        "--node-id",
        "smf.pool.example",
        "--rate",
        "400",
        "--duration-secs",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("8 CP functions in this process, smf-1.pool.example to smf-8.pool.example"),
        "{err}"
    );
    let s = summary(&out);
    // The rate is the process's: 400/s for 2 s, all offered, nearly all answered (the UP
    // function is far from its capacity).
    let offered = n(&s, "/offered");
    assert!((780..=820).contains(&offered), "{s}");
    let established = n(&s, "/sessions_established");
    assert_eq!(
        n(&s, "/by_request/establishment/succeeded"),
        established,
        "{s}"
    );
    assert_eq!(n(&s, "/ups/0/sessions"), established, "{s}");
    let classes: u64 = ["emergency", "arp2", "arp12"]
        .iter()
        .map(|c| n(&s, &format!("/by_class/{c}/offered")))
        .sum();
    assert_eq!(classes, offered, "{s}");
    assert_eq!(n(&s, "/latency_ms/samples"), n(&s, "/succeeded"), "{s}");
    // The UP function saw eight CP functions associate, one per Node ID.
    let mut associated: Vec<String> = up
        .lines
        .try_iter()
        .filter_map(|l| {
            l.split("associated with ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .map(str::to_owned)
        })
        .collect();
    associated.sort();
    associated.dedup();
    let expected: Vec<String> = (1..=8).map(|i| format!("smf-{i}.pool.example")).collect();
    assert_eq!(associated, expected);
}

#[test]
fn functions_refuse_what_they_cannot_split() {
    for (extra, says) in [
        (
            &["--functions", "0"][..],
            "--functions must be between 1 and",
        ),
        (
            &["--functions", "2", "--listen", "127.0.0.1:9999"][..],
            "port 0",
        ),
        (&["--functions", "2", "--node-id", "10.0.0.1"][..], "FQDN"),
        (
            &["--functions", "2", "--egress-max-rate", "100"][..],
            "egress",
        ),
    ] {
        let mut args = vec!["cp", "--up", "127.0.0.1:8805", "--duration-secs", "1"];
        args.extend_from_slice(extra);
        let out = pfcp(&args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}");
        assert!(stderr(&out).contains(says), "{extra:?}: {}", stderr(&out));
    }
}
