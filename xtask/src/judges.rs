//! The independent judges the tests call (Wireshark's tshark, scapy) and the oracle corpus.
//!
//! Tests skip, with a notice, when a judge is missing, so that `cargo test` works anywhere.
//! Under `cargo xtask ci` a skip would make a green run prove nothing, so the preflight fails
//! when tshark or scapy is missing (`.ci/run` installs both) and the tests get
//! `PFCP_REQUIRE_JUDGES=1`, which turns each of their skips into a failure. The oracle
//! (`../shared/oracle`, or `$PFCP_ORACLE_DIR`) lives outside the repository and cannot be
//! installed: where it exists the tests get `PFCP_REQUIRE_ORACLE=1` (every test must find it);
//! where it does not, the preflight says loudly which tests will skip.
//!
//! `PFCP_ALLOW_SKIP=1` restores the skips, for a developer machine without the tools.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Check the judges; the environment the test runs get.
pub(crate) fn preflight(root: &Path) -> Result<Vec<(&'static str, &'static str)>, String> {
    let mut missing = Vec::new();
    if !runs("tshark", &["--version"]) {
        missing.push("tshark (apt-get install tshark)");
    }
    if !runs("python3", &["-c", "import scapy.contrib.pfcp"]) {
        missing.push("scapy (python3 -m pip install scapy==2.8.0)");
    }
    let allow_skip = std::env::var_os("PFCP_ALLOW_SKIP").is_some_and(|v| v == "1");
    let mut env = Vec::new();
    if missing.is_empty() {
        eprintln!("xtask ci: judges present (tshark, scapy): their tests must run");
        env.push(("PFCP_REQUIRE_JUDGES", "1"));
    } else if allow_skip {
        eprintln!(
            "xtask ci: PFCP_ALLOW_SKIP=1 and missing {}: their tests skip",
            missing.join(", ")
        );
    } else {
        return Err(format!(
            "missing {}: the tests that use them would skip and a green run would not prove \
             them (.ci/run installs both; PFCP_ALLOW_SKIP=1 lets them skip)",
            missing.join(", ")
        ));
    }
    let oracle = oracle_dir(root);
    if oracle.join("corpus").is_dir() {
        eprintln!(
            "xtask ci: oracle at {}: every test that reads it must find it",
            oracle.display()
        );
        env.push(("PFCP_REQUIRE_ORACLE", "1"));
    } else {
        eprintln!(
            "xtask ci: NOTICE: no oracle at {} (set PFCP_ORACLE_DIR): the corpus and capture \
             tests skip",
            oracle.display()
        );
    }
    Ok(env)
}

/// `$PFCP_ORACLE_DIR`, else `../shared/oracle` beside the repository (where the tests look).
fn oracle_dir(root: &Path) -> PathBuf {
    match std::env::var_os("PFCP_ORACLE_DIR") {
        Some(d) => PathBuf::from(d),
        None => root.join("../shared/oracle"),
    }
}

fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
