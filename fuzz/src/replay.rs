//! The replay driver shared by the crates' `tests/fuzz_corpus.rs`: runs a fuzz harness over
//! every seed of `fuzz/corpus/<target>/`, every minimized crasher of `fuzz/regressions/<target>/`
//! and a set of pseudo-random inputs, on stable, without libFuzzer. Included with `#[path]`
//! (not part of the fuzz crate itself), so one copy serves every crate.

use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// `fuzz/` relative to the including crate's manifest (`crates/<name>`).
pub(crate) fn fuzz_dir(manifest_dir: &str) -> PathBuf {
    Path::new(manifest_dir).join("../../fuzz")
}

/// The input files in `dir`, sorted; `*.md` and dotfiles (`.gitkeep`) are skipped.
pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
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

/// Run `harness` on every input; report every input it panics on (not just the first).
pub(crate) fn replay(target: &str, inputs: &[PathBuf], harness: fn(&[u8])) {
    let mut failures = Vec::new();
    for path in inputs {
        let data = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if panic::catch_unwind(AssertUnwindSafe(|| harness(&data))).is_err() {
            failures.push(path.display().to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "{target} failed on {} of {} inputs:\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}

/// The seed corpus of `target`: at least `min_seeds` files, all passing.
pub(crate) fn corpus(manifest_dir: &str, target: &str, min_seeds: usize, harness: fn(&[u8])) {
    let seeds = files(&fuzz_dir(manifest_dir).join("corpus").join(target));
    assert!(
        seeds.len() >= min_seeds,
        "fuzz/corpus/{target} has {} seeds (see fuzz/README.md)",
        seeds.len()
    );
    replay(target, &seeds, harness);
}

/// The minimized crashers of `target` (the directory and the target must exist).
pub(crate) fn regressions(manifest_dir: &str, target: &str, harness: fn(&[u8])) {
    let fuzz = fuzz_dir(manifest_dir);
    let dir = fuzz.join("regressions").join(target);
    assert!(dir.is_dir(), "{} missing", dir.display());
    let file = fuzz.join("fuzz_targets").join(format!("{target}.rs"));
    assert!(file.is_file(), "{} missing", file.display());
    replay(target, &files(&dir), harness);
}

/// `count` pseudo-random inputs (xorshift, fixed seed) up to `max_len` octets: the harness is
/// exercised even where the corpus is thin.
pub(crate) fn pseudo_random(count: usize, max_len: u64, harness: fn(&[u8])) {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..count {
        let len = (next() % max_len) as usize;
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        harness(&data);
    }
}
