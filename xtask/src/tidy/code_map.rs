//! The code map of `docs/ARCHITECTURE.md` against the tree: every path it names exists, and
//! every Rust source file of [`LARGE_FILE_LINES`] lines or more is named in it.
//!
//! A *name* is a span in backticks that looks like a path: no spaces, only the characters
//! of a path, a letter, and a `/` or a known file extension (`` `ie/value.rs` ``,
//! `` `tests/judge/` ``, `` `Cargo.toml` ``). Spans with `::` (Rust paths), fenced code blocks
//! and anything else are prose. A name resolves against the repository root, and under a
//! heading that names a directory (`` ### `crates/pfcp-wire` ``) also against that directory
//! and its `src/`: the code map names `ie/value.rs` in the section of
//! `crates/pfcp-wire`. A name ending in `/` must be a directory; any other may be a file or a
//! directory (`` `crates/pfcp-wire` ``).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// Source files at least this long must be named in the code map.
pub(crate) const LARGE_FILE_LINES: usize = 300;

/// The directories whose Rust files the code map must cover.
const COVERED_DIRS: [&str; 5] = ["crates", "tests", "xtask", "fuzz", "benches"];

/// Extensions that make a backticked span without a `/` a file name.
const FILE_EXTENSIONS: [&str; 10] = [
    ".rs", ".md", ".toml", ".tsv", ".c", ".py", ".sh", ".txt", ".json", ".pcap",
];

/// One path named in the code map, with the directory of the section that names it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Name {
    text: String,
    base: Option<String>,
}

/// The problems of the code map `arch` (the text of `docs/ARCHITECTURE.md`) in the
/// repository at `root`, one line per offending path.
pub(crate) fn check(root: &Path, arch: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut named = BTreeSet::new();
    for name in names(root, arch) {
        match resolve(root, &name) {
            Some(path) => {
                named.insert(path);
            }
            None => problems.push(match &name.base {
                Some(base) => format!(
                    "docs/ARCHITECTURE.md names `{}` (section `{base}`), which does not exist",
                    name.text
                ),
                None => format!(
                    "docs/ARCHITECTURE.md names `{}`, which does not exist",
                    name.text
                ),
            }),
        }
    }
    let mut sources = Vec::new();
    for dir in COVERED_DIRS {
        rust_files(root, dir, &mut sources);
    }
    sources.sort();
    for rel in sources {
        let lines = fs::read_to_string(root.join(&rel))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= LARGE_FILE_LINES && !named.contains(&rel) {
            problems.push(format!(
                "{rel} ({lines} lines) is not named in docs/ARCHITECTURE.md's code map"
            ));
        }
    }
    problems
}

/// Every path-like span of `arch`, in order, with its section's directory.
fn names(root: &Path, arch: &str) -> Vec<Name> {
    let mut out = Vec::new();
    let mut base: Option<String> = None;
    let mut fenced = false;
    for line in arch.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let spans = backticked(line);
        if trimmed.starts_with('#') {
            // A heading starts a section: its first path-like span, if it is a directory,
            // is where the section's names live.
            base = spans
                .iter()
                .find(|s| looks_like_path(s))
                .map(|s| s.trim_end_matches('/').to_string())
                .filter(|d| !d.is_empty() && root.join(d).is_dir());
        }
        for span in spans {
            if looks_like_path(span) {
                out.push(Name {
                    text: span.to_string(),
                    base: base.clone(),
                });
            }
        }
    }
    out
}

/// The spans between backticks on `line` (an unclosed one is prose).
fn backticked(line: &str) -> Vec<&str> {
    // An odd number of backticks leaves the last span unclosed: prose.
    let closed = line.matches('`').count() / 2;
    line.split('`').skip(1).step_by(2).take(closed).collect()
}

/// Whether a backticked span names a file or a directory rather than code or prose.
fn looks_like_path(span: &str) -> bool {
    !span.is_empty()
        && span
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && span.chars().any(|c| c.is_ascii_alphabetic())
        && !span.starts_with('/')
        && (span.contains('/') || FILE_EXTENSIONS.iter().any(|e| span.ends_with(e)))
}

/// The path, relative to the root with `/` separators, that `name` refers to, if it exists.
fn resolve(root: &Path, name: &Name) -> Option<String> {
    let dir = name.text.ends_with('/');
    let text = name.text.trim_end_matches('/');
    let mut candidates = vec![text.to_string()];
    if let Some(base) = &name.base {
        candidates.push(format!("{base}/{text}"));
        candidates.push(format!("{base}/src/{text}"));
    }
    candidates.into_iter().find(|c| {
        let p = root.join(c);
        if dir {
            p.is_dir()
        } else {
            p.exists()
        }
    })
}

/// Rust files under `root/dir`, relative to `root` with `/` separators; build output
/// (`target/`) is not source.
fn rust_files(root: &Path, dir: &str, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = format!("{dir}/{name}");
        let path = entry.path();
        if path.is_dir() {
            if name != "target" {
                rust_files(root, &rel, out);
            }
        } else if name.ends_with(".rs") {
            out.push(rel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A scratch tree under the system's temporary directory, removed when dropped.
    struct Tree(PathBuf);

    impl Tree {
        fn new(tag: &str) -> Tree {
            let dir =
                std::env::temp_dir().join(format!("xtask-code-map-{tag}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).expect("create the scratch tree");
            Tree(dir)
        }

        fn file(&self, rel: &str, lines: usize) {
            let p = self.0.join(rel);
            fs::create_dir_all(p.parent().expect("a file has a parent")).expect("create dirs");
            fs::write(&p, "// line\n".repeat(lines)).expect("write a file");
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn spans_that_look_like_paths() {
        for yes in [
            "ie/value.rs",
            "tests/judge/",
            "Cargo.toml",
            ".ci/run",
            "fuzz/",
        ] {
            assert!(looks_like_path(yes), "{yes}");
        }
        for no in [
            "Message::decode",
            "pfcp_node::endpoint::now",
            "1/8",
            "max_wait",
            "cargo xtask tidy",
            "0.97",
            "/etc/passwd",
            "",
        ] {
            assert!(!looks_like_path(no), "{no}");
        }
        assert_eq!(backticked("a `b` c `d` e `f"), vec!["b", "d"]);
    }

    #[test]
    fn names_resolve_under_their_section_and_large_files_must_be_named() {
        let t = Tree::new("resolve");
        t.file("crates/demo/src/big.rs", LARGE_FILE_LINES);
        t.file("crates/demo/src/ie/value.rs", LARGE_FILE_LINES + 1);
        t.file("crates/demo/src/small.rs", LARGE_FILE_LINES - 1);
        t.file("crates/demo/tests/unnamed.rs", LARGE_FILE_LINES);
        t.file("crates/demo/target/debug/out.rs", LARGE_FILE_LINES);
        t.file("xtask/src/main.rs", 10);
        let arch = "\
# Architecture\n\
`xtask/src/main.rs` at the root.\n\
### `crates/demo`\n\
- `big.rs`, `ie/value.rs`, `Message::view`, `src/gone.rs`, `tests/judge/`\n\
```\n\
`inside/a/fence.rs`\n\
```\n\
## Invariants\n\
`big.rs` outside the section does not resolve.\n";
        let problems = check(&t.0, arch);
        assert_eq!(
            problems,
            vec![
                "docs/ARCHITECTURE.md names `src/gone.rs` (section `crates/demo`), which does \
                 not exist"
                    .to_string(),
                "docs/ARCHITECTURE.md names `tests/judge/` (section `crates/demo`), which does \
                 not exist"
                    .to_string(),
                "docs/ARCHITECTURE.md names `big.rs`, which does not exist".to_string(),
                format!(
                    "crates/demo/tests/unnamed.rs ({LARGE_FILE_LINES} lines) is not named in \
                     docs/ARCHITECTURE.md's code map"
                ),
            ]
        );
    }
}
