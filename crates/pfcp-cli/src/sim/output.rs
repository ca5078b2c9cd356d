//! The files of `pfcp sim`: the `--out` directory is made and a write tried in it before any
//! run, so a directory that cannot be written fails at once and no results are lost; the
//! report of an earlier run there is removed at the same moment, so a run that stops early
//! never leaves an older report looking like its own.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::plot;
use super::report::Report;
use crate::io_error_text;

/// The report's file names in `--out`, in the order they are written.
pub(super) const FILES: [&str; 2] = ["report.json", "report.svg"];

/// A checked `--out` directory.
#[derive(Debug)]
pub(super) struct OutDir {
    dir: PathBuf,
}

/// What [`OutDir::prepare`] found.
#[derive(Debug)]
pub(super) struct Prepared {
    /// The directory.
    pub out: OutDir,
    /// The files of an earlier report it removed.
    pub removed: Vec<&'static str>,
}

impl OutDir {
    /// Create `dir` (and its parents), write and remove a probe file in it, and remove the
    /// report files of an earlier run. The error is one line naming the directory.
    pub(super) fn prepare(dir: &Path) -> Result<Prepared, String> {
        let fail = |what: &str, e: &std::io::Error| {
            format!("--out {}: {what}: {}", dir.display(), io_error_text(e))
        };
        std::fs::create_dir_all(dir).map_err(|e| fail("cannot create the directory", &e))?;
        let probe = dir.join(format!(".pfcp-sim-write-test-{}", std::process::id()));
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
            .and_then(|mut f| f.write_all(b"pfcp sim\n").and_then(|()| f.sync_all()));
        // The probe goes whether or not the write worked (it may exist half-written).
        let _ = std::fs::remove_file(&probe);
        written.map_err(|e| fail("cannot write there", &e))?;
        let mut removed = Vec::new();
        for name in FILES {
            match std::fs::remove_file(dir.join(name)) {
                Ok(()) => removed.push(name),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(fail(&format!("cannot remove the earlier {name}"), &e)),
            }
        }
        Ok(Prepared {
            out: OutDir {
                dir: dir.to_owned(),
            },
            removed,
        })
    }

    /// The path of `name` in the directory.
    pub(super) fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Write `report` as [`FILES`]; their paths.
    pub(super) fn write(&self, report: &Report) -> Result<Vec<PathBuf>, String> {
        let [json_name, svg_name] = FILES;
        let json_path = self.path(json_name);
        let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        std::fs::write(&json_path, json)
            .map_err(|e| format!("{}: {}", json_path.display(), io_error_text(&e)))?;
        let svg_path = self.path(svg_name);
        plot::draw(report, &svg_path)?;
        Ok(vec![json_path, svg_path])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_earlier_report_is_removed_and_other_files_kept() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["report.json", "report.svg", "notes.txt"] {
            std::fs::write(dir.path().join(name), "earlier").unwrap();
        }
        let p = OutDir::prepare(dir.path()).unwrap();
        assert_eq!(p.removed, ["report.json", "report.svg"]);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["notes.txt"],
            "the probe is gone, the user's file stays"
        );
        // Nothing to remove the second time.
        assert!(OutDir::prepare(dir.path()).unwrap().removed.is_empty());
    }

    #[test]
    fn a_directory_under_a_file_is_refused_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain");
        std::fs::write(&file, "x").unwrap();
        let bad = file.join("out");
        let e = OutDir::prepare(&bad).unwrap_err();
        assert!(
            e.starts_with(&format!("--out {}: cannot create", bad.display())),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1);
    }
}
