//! Repository hygiene, run by `cargo xtask tidy`, by `cargo xtask ci`, and as a `#[test]`.
//!
//! * every crate under `crates/` is named in `docs/ARCHITECTURE.md` and has a README;
//! * every path `docs/ARCHITECTURE.md` names exists, and every Rust file of 300 lines or more
//!   under `crates/`, `tests/`, `xtask/`, `fuzz/` and `benches/` is named there
//!   ([`code_map`]);
//! * every publishable crate's manifest has the metadata crates.io users rely on;
//! * licence files and the CHANGELOG exist;
//! * no test is ignored or marked should-panic, and no todo or unimplemented stub exists.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

mod code_map;

/// Everything tidy found wrong.
#[derive(Debug)]
pub(crate) struct TidyError(Vec<String>);

impl fmt::Display for TidyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.0 {
            writeln!(f, "  - {p}")?;
        }
        Ok(())
    }
}

pub(crate) fn run(root: &Path) -> Result<(), TidyError> {
    let mut problems = Vec::new();
    let arch = fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap_or_default();
    if arch.is_empty() {
        problems.push("docs/ARCHITECTURE.md is missing".to_string());
    }
    if !arch.is_empty() {
        problems.extend(code_map::check(root, &arch));
    }
    for f in ["LICENSE-MIT", "LICENSE-APACHE", "CHANGELOG.md", "README.md"] {
        if !root.join(f).exists() {
            problems.push(format!("{f} is missing"));
        }
    }
    for krate in dirs(&root.join("crates")) {
        let name = krate
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !arch.contains(&name) {
            problems.push(format!("docs/ARCHITECTURE.md does not mention {name}"));
        }
        if !krate.join("README.md").exists() {
            problems.push(format!("crates/{name} has no README.md"));
        }
        let manifest = fs::read_to_string(krate.join("Cargo.toml")).unwrap_or_default();
        if !manifest.contains("publish = false") {
            for key in [
                "description",
                "license",
                "repository",
                "readme",
                "keywords",
                "categories",
            ] {
                if !manifest.contains(key) {
                    problems.push(format!("crates/{name}/Cargo.toml lacks `{key}`"));
                }
            }
        }
    }
    let mut sources = Vec::new();
    for dir in ["crates", "xtask", "fuzz/fuzz_targets", "fuzz/src"] {
        rust_files(&root.join(dir), &mut sources);
    }
    // Built at run time so this file does not trip its own check.
    let banned = [
        ["#[", "ignore]"].concat(),
        ["#[", "should_panic"].concat(),
        ["todo", "!("].concat(),
        ["unimplemented", "!("].concat(),
    ];
    for file in sources {
        let text = fs::read_to_string(&file).unwrap_or_default();
        for b in &banned {
            if text.contains(b.as_str()) {
                problems.push(format!("{} contains `{b}`", file.display()));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(TidyError(problems))
    }
}

fn dirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn repository_is_tidy() {
        if let Err(e) = super::run(&crate::root()) {
            panic!("tidy found problems:\n{e}");
        }
    }
}
