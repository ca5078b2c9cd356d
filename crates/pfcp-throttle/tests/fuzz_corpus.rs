//! Replays the `throttle` fuzz corpus (`fuzz/corpus/throttle/`) and its minimized crashers
//! (`fuzz/regressions/throttle/`) through the fuzz harness, on stable, without libFuzzer.
//!
//! The harness is the fuzz crate's own `fuzz/src/throttle.rs`, compiled here as a module: one
//! copy of the checks (and of the `arbitrary` input types), two drivers. A crash found by
//! libFuzzer becomes a test by copying its minimized input into `fuzz/regressions/throttle/`.

use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

// The harness's `pub` items are the fuzz crate's API; here they are a private module.
#[allow(unreachable_pub, dead_code)]
#[path = "../../../fuzz/src/throttle.rs"]
mod throttle;

const TARGET: &str = "throttle";

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The input files in `dir`, sorted; `*.md` and dotfiles (`.gitkeep`) are skipped.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        p.is_file() && !name.starts_with('.') && !name.ends_with(".md")
    });
    out.sort();
    out
}

/// Run the harness on every input; report every input it panics on (not just the first).
fn replay(inputs: &[PathBuf]) {
    let mut failures = Vec::new();
    for path in inputs {
        let data = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if panic::catch_unwind(AssertUnwindSafe(|| throttle::throttle(&data))).is_err() {
            failures.push(path.display().to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "{TARGET} failed on {} of {} inputs:\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus() {
    let seeds = files(&fuzz_dir().join("corpus").join(TARGET));
    assert!(
        seeds.len() >= 20,
        "fuzz/corpus/{TARGET} has {} seeds (see fuzz/README.md)",
        seeds.len()
    );
    replay(&seeds);
}

#[test]
fn regressions() {
    let dir = fuzz_dir().join("regressions").join(TARGET);
    assert!(dir.is_dir(), "{} missing", dir.display());
    let target = fuzz_dir().join("fuzz_targets").join(format!("{TARGET}.rs"));
    assert!(target.is_file(), "{} missing", target.display());
    replay(&files(&dir));
}

/// The harness on pseudo-random inputs (xorshift, fixed seed): exercised even where the
/// corpus is thin, and a check that it rejects nothing it should accept.
#[test]
fn pseudo_random_inputs() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..300 {
        let len = (next() % 600) as usize;
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        throttle::throttle(&data);
    }
}
