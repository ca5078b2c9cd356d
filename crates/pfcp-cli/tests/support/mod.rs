//! Shared by the integration tests: where the oracle is, reading its JSONL, which external
//! tools exist, JSON diffs and failure reports.

pub mod cases;
pub mod checks;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) use pfcp_test_support::skip::{skip_judge, skip_oracle};
use serde_json::Value;

/// The oracle directory: `$PFCP_ORACLE_DIR`, else `<manifest>/../../../shared/oracle`.
/// `None` (with a notice on stderr) if it does not exist.
pub fn oracle_dir(test: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("PFCP_ORACLE_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle"),
    };
    if dir.join("corpus").is_dir() {
        Some(dir)
    } else {
        skip_oracle(test, &format!("oracle not found at {}", dir.display()));
        None
    }
}

/// Every line of a JSONL file, parsed.
pub fn read_jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Whether `tshark` runs; prints a skip notice for `test` if not.
pub fn have_tshark(test: &str) -> bool {
    let ok = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip_judge(test, "tshark not found");
    }
    ok
}

/// Whether `python3 -c "import scapy"` works; prints a skip notice for `test` if not.
pub fn have_scapy(test: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import scapy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip_judge(test, "python3 with scapy not found");
    }
    ok
}

/// Human-readable differences between two JSON values (`$.ies[1].metric: 3 != 4`).
pub fn json_diff(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff_into(a, b, "$", &mut out);
    out
}

fn diff_into(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) => diff_into(v, w, &format!("{path}.{k}"), out),
                    None => out.push(format!("{path}.{k}: {v} vs missing")),
                }
            }
            for (k, w) in y {
                if !x.contains_key(k) {
                    out.push(format!("{path}.{k}: missing vs {w}"));
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                out.push(format!("{path}: {} items vs {}", x.len(), y.len()));
            }
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff_into(v, w, &format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(format!("{path}: {a} vs {b}")),
        _ => {}
    }
}

/// Failures collected over a corpus, reported together.
#[derive(Debug, Default)]
pub struct Failures {
    items: Vec<String>,
}

impl Failures {
    /// Record one failure.
    pub fn push(&mut self, id: &str, what: impl std::fmt::Display) {
        self.items.push(format!("{id}: {what}"));
    }

    /// Number recorded.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Panic listing every failure, if any.
    pub fn assert_none(&self, context: &str) {
        if self.items.is_empty() {
            return;
        }
        let mut msg = format!("{context}: {} failure(s)\n", self.items.len());
        for f in &self.items {
            let _ = writeln!(msg, "  {f}");
        }
        panic!("{msg}");
    }
}

/// `s` as a string member of `v`.
pub fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}
