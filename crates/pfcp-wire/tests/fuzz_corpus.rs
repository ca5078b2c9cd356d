//! Replays the fuzz corpus (`fuzz/corpus/<target>/`) and the minimized crashers
//! (`fuzz/regressions/<target>/`) through the fuzz harnesses, on stable, without libFuzzer.
//!
//! The harness is the fuzz crate's own `fuzz/src/harness.rs`, compiled here as a module: one
//! copy of the checks, two drivers. Every file of every target's directories goes through
//! every harness (the checks hold for any input; a seed of one target is a good input for the
//! others too).

use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use pfcp_wire::{Datagram, Message};

// The harness's `pub` items are the fuzz crate's API; here they are a private module.
#[allow(unreachable_pub)]
#[path = "../../../fuzz/src/harness.rs"]
mod harness;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The input files under `dir` (recursively), sorted; `*.md` and dotfiles (`.gitkeep`) are
/// skipped.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if !name.starts_with('.') && !name.ends_with(".md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn all_inputs() -> Vec<PathBuf> {
    let root = fuzz_dir();
    let mut v = files(&root.join("corpus"));
    v.extend(files(&root.join("regressions")));
    v
}

/// Run `harness` on every input; report every input it panics on (not just the first).
fn replay(name: &str) {
    let (_, harness) = harness::TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("harness exists");
    let inputs = all_inputs();
    let own = files(&fuzz_dir().join("corpus").join(name));
    assert!(
        own.len() >= 50,
        "fuzz/corpus/{name} has {} seeds: run fuzz/gen_seeds.py",
        own.len()
    );
    let mut failures = Vec::new();
    for path in &inputs {
        let data = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if panic::catch_unwind(AssertUnwindSafe(|| harness(&data))).is_err() {
            failures.push(path.display().to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "{name} failed on {} of {} inputs:\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_decode_message() {
    replay("decode_message");
}

#[test]
fn corpus_roundtrip() {
    replay("roundtrip");
}

#[test]
fn corpus_datagram() {
    replay("datagram");
}

#[test]
fn corpus_typed_ie() {
    replay("typed_ie");
}

#[test]
fn every_target_has_a_regressions_dir() {
    for (name, _) in harness::TARGETS {
        let dir = fuzz_dir().join("regressions").join(name);
        assert!(dir.is_dir(), "{} missing", dir.display());
        let target = fuzz_dir().join("fuzz_targets").join(format!("{name}.rs"));
        assert!(target.is_file(), "{} missing", target.display());
    }
}

/// The seeds are what their names say: oracle-valid messages and captures decode (bundles
/// too), and the bombs are refused.
#[test]
fn seeds_decode_as_the_oracle_says() {
    let mut valid = 0;
    for path in all_inputs() {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let data = fs::read(&path).unwrap();
        if name.starts_with("valid-") {
            let m = Message::decode(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(m.as_bytes().len(), data.len());
            valid += 1;
        } else if name.starts_with("seed-fo2-") || name.starts_with("seed-fo3-") {
            let mut n = 0;
            for m in Datagram::new(&data) {
                m.unwrap_or_else(|e| panic!("{name}: {e}"));
                n += 1;
            }
            assert_eq!(
                n,
                if name.starts_with("seed-fo2-") { 2 } else { 3 },
                "{name}"
            );
        } else if name.starts_with("seed-fo-dangling-") {
            let items: Vec<_> = Datagram::new(&data).collect();
            assert_eq!(items.len(), 3, "{name}");
            assert!(
                items[2].is_err(),
                "{name}: FO=1 on the last message must be an error"
            );
        } else if name.starts_with("malformed-") && data.len() > 4096 {
            // The resource bombs: refused by the default limits, not crashed on.
            assert!(Message::decode(&data).is_err(), "{name}");
        }
    }
    assert!(valid >= 50, "only {valid} valid seeds");
}
