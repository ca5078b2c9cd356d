//! `pfcp cp --profile`: the CP functions of a deployment that are not this toolkit's, on
//! loopback against `pfcp up`.

mod procs;

use procs::{n, pfcp, start_up, summary};

/// A CP function without overload control advertises no OVRL, so the UP function sends it no
/// OCI, and it throttles nothing however overloaded the UP function is: what it offers beyond
/// the capacity is refused by the UP function's self-protection (Cause 74).
#[test]
fn cp_without_overload_control_gets_no_oci_and_throttles_nothing() {
    let up = start_up(&[
        "--capacity",
        "500",
        "--node-scoped",
        "--duration-secs",
        "30",
    ]);
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--rate",
        "2000",
        "--duration-secs",
        "3",
        "--t1-ms",
        "500",
        "--n1",
        "1",
        "--profile",
        "no-overload-control",
        "--json",
    ]);
    let s = summary(&out);
    assert!(n(&s, "/offered") >= 3000, "{s}");
    assert_eq!(n(&s, "/throttled"), 0, "{s}");
    assert_eq!(n(&s, "/ups/0/ocis"), 0, "{s}");
    assert!(n(&s, "/rejected") > 0, "{s}");
    assert!(n(&s, "/succeeded") > 0, "{s}");
}

/// The profile's own group in the help, and what cannot go with it, as one line.
#[test]
fn profile_flag_is_documented_and_checked() {
    let out = pfcp(&["cp", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("CP profile:"), "{help}");
    for value in ["toolkit", "no-overload-control", "fixed-priority"] {
        assert!(help.contains(value), "{value}: {help}");
    }
    let out = pfcp(&[
        "cp",
        "--up",
        "127.0.0.1:9",
        "--up",
        "127.0.0.1:10",
        "--redirect",
        "--profile",
        "no-overload-control",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--profile no-overload-control"), "{stderr}");
}
