//! Skipping a test whose judge or data is missing, as `cargo xtask ci` wants it: a notice
//! locally, a failure under CI, where a skipped judge would make a green run prove nothing.

/// Skip `test` (Wireshark's tshark or scapy is missing, `why`) with a notice; under
/// `cargo xtask ci` (`PFCP_REQUIRE_JUDGES` set) fail instead.
pub fn skip_judge(test: &str, why: &str) {
    assert!(
        std::env::var_os("PFCP_REQUIRE_JUDGES").is_none(),
        "{test}: {why}, and PFCP_REQUIRE_JUDGES is set (cargo xtask ci): this test must run"
    );
    eprintln!("{test}: {why}, skipping");
}

/// Skip `test` (the oracle corpus is not where it looked, `why`) with a notice; where
/// `cargo xtask ci` found the oracle (`PFCP_REQUIRE_ORACLE` set) fail instead: the test looked
/// in the wrong place.
pub fn skip_oracle(test: &str, why: &str) {
    assert!(
        std::env::var_os("PFCP_REQUIRE_ORACLE").is_none(),
        "{test}: {why}, and PFCP_REQUIRE_ORACLE is set (cargo xtask ci found the oracle)"
    );
    eprintln!("{test}: {why}, skipping");
}
