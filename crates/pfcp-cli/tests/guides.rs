//! The task guides of `docs/guide/` as a user runs them: every shell block a page marks for CI
//! runs with the built `pfcp`, and what the page says it prints is held to what it prints.
//!
//! A block is marked by HTML comment lines right before its ```` ```sh ```` fence:
//!
//! * `<!-- ci -->`: run it; it must exit 0.
//! * `<!-- ci: output -->`: also, every line of the next ```` ```text ```` block of the page
//!   (the output the page shows) appears in what the commands print, stdout or stderr, except
//!   lines that are only `...` (the page left something out there).
//! * `<!-- ci: expect TEXT -->`: also, `TEXT` appears in what the commands print (for output
//!   that varies from run to run, as a load test's does).
//!
//! Each page's marked blocks run in order, each with `bash -euo pipefail`, in one temporary
//! directory per page (a block may read what an earlier one wrote) holding the repository's
//! `samples/`, `scenarios/` and `crates/pfcp-cli/templates/` (the paths the pages give are the repository's), with the
//! built `pfcp` first on `PATH`. A block's loopback addresses `127.0.0.1:8805` to
//! `127.0.0.1:8809` are replaced by free ports, the same for the whole page, so that a UP
//! function the page starts does not meet another one running on the machine. The pages run
//! one at a time, each block within a time limit.

use std::collections::HashMap;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

/// Pages run one at a time: their UP functions would otherwise share the machine's cores.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The longest a block may run (a debug build; the pages keep their commands short).
const BLOCK_LIMIT: Duration = Duration::from_secs(120);

/// What a block must show.
#[derive(Debug, Default)]
struct Checks {
    /// The lines of the page's output block that must appear.
    output: bool,
    /// Substrings that must appear.
    expect: Vec<String>,
}

/// A shell block marked for CI.
#[derive(Debug)]
struct Block {
    /// Its first line in the page (1-based), for the messages.
    line: usize,
    /// The commands.
    script: String,
    /// What it must print.
    checks: Checks,
    /// The next ```text block of the page, if any.
    shown: Option<String>,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The marked blocks of `page`, in order.
fn blocks(page: &str) -> Vec<Block> {
    let lines: Vec<&str> = page.lines().collect();
    let mut out = Vec::new();
    let mut marks: Option<Checks> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if let Some(rest) = line
            .strip_prefix("<!-- ci")
            .and_then(|r| r.strip_suffix("-->"))
        {
            let checks = marks.get_or_insert_with(Checks::default);
            let rest = rest.trim();
            if rest == ": output" {
                checks.output = true;
            } else if let Some(text) = rest.strip_prefix(": expect ") {
                checks.expect.push(text.trim().to_owned());
            } else {
                assert!(rest.is_empty(), "line {}: unknown CI mark {line:?}", i + 1);
            }
            i += 1;
            continue;
        }
        if line.starts_with("```") {
            let (body, end) = fenced(&lines, i);
            if let Some(checks) = marks.take() {
                assert_eq!(line, "```sh", "line {}: a CI mark before {line:?}", i + 1);
                let shown = next_text_block(&lines, end);
                out.push(Block {
                    line: i + 1,
                    script: body,
                    checks,
                    shown,
                });
            }
            i = end;
            continue;
        }
        i += 1;
    }
    out
}

/// The body of the fenced block opening at `start`, and the index after its closing fence.
fn fenced(lines: &[&str], start: usize) -> (String, usize) {
    let mut body = String::new();
    let mut i = start + 1;
    while i < lines.len() && lines[i].trim() != "```" {
        body.push_str(lines[i]);
        body.push('\n');
        i += 1;
    }
    (body, i + 1)
}

/// The body of the first ```text block at or after `from`, before any other ```sh block.
fn next_text_block(lines: &[&str], from: usize) -> Option<String> {
    let mut i = from;
    while i < lines.len() {
        let line = lines[i].trim();
        if line == "```text" {
            return Some(fenced(lines, i).0);
        }
        if line.starts_with("```") {
            return None;
        }
        i += 1;
    }
    None
}

/// A UDP port on the loopback nobody uses right now.
fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .map(|a| a.port())
        .unwrap()
}

/// `script` with the page's loopback ports replaced (see the module docs).
fn with_ports(script: &str, ports: &mut HashMap<u16, u16>) -> String {
    let mut s = script.to_owned();
    for port in 8805..=8809 {
        let from = format!("127.0.0.1:{port}");
        if s.contains(&from) {
            let to = *ports.entry(port).or_insert_with(free_port);
            s = s.replace(&from, &format!("127.0.0.1:{to}"));
        }
    }
    s
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Run `script` in `dir` with `bin` first on `PATH`; its exit success and what it printed.
fn run(script: &str, dir: &Path, bin: &Path) -> (bool, String) {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let log = dir.join(".block-output");
    let file = std::fs::File::create(&log).unwrap();
    let mut child = Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .process_group(0)
        .spawn()
        .unwrap();
    // Polled every 50 ms, counted (no clock read: the workspace forbids `Instant::now`).
    const POLL: Duration = Duration::from_millis(50);
    let mut polls = 0u32;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if POLL * polls > BLOCK_LIMIT {
            break None;
        }
        std::thread::sleep(POLL);
        polls += 1;
    };
    // Whatever the block left running (a UP function in the background) goes with it.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let _ = child.wait();
    let printed = std::fs::read_to_string(&log).unwrap_or_default();
    match status {
        Some(s) => (s.success(), printed),
        None => (
            false,
            format!("{printed}\n[timed out after {BLOCK_LIMIT:?}]"),
        ),
    }
}

/// Run the marked blocks of `docs/guide/NAME` and check them; the number of blocks run.
fn run_page(name: &str) -> usize {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let page_path = repo().join("docs/guide").join(name);
    let page = std::fs::read_to_string(&page_path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for sub in ["samples", "scenarios", "crates/pfcp-cli/templates"] {
        copy_dir(&repo().join(sub), &dir.path().join(sub));
    }
    let bin = dir.path().join(".bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pfcp"), bin.join("pfcp")).unwrap();
    let mut ports = HashMap::new();
    let blocks = blocks(&page);
    for b in &blocks {
        let script = with_ports(&b.script, &mut ports);
        let (ok, printed) = run(&script, dir.path(), &bin);
        let here = format!("{name}:{}", b.line);
        assert!(
            ok,
            "{here}: the block failed:\n{script}\n--- it printed:\n{printed}"
        );
        if b.checks.output {
            let shown = b
                .shown
                .as_deref()
                .unwrap_or_else(|| panic!("{here}: `ci: output` without a text block"));
            for want in shown.lines().map(str::trim_end) {
                if want.trim().is_empty() || want.trim() == "..." {
                    continue;
                }
                assert!(
                    printed.lines().any(|l| l.trim_end() == want),
                    "{here}: the page shows {want:?}, not printed:\n{printed}"
                );
            }
        }
        for want in &b.checks.expect {
            assert!(
                printed.contains(want.as_str()),
                "{here}: {want:?} not printed:\n{printed}"
            );
        }
    }
    blocks.len()
}

#[test]
fn marks_are_read() {
    let page = "<!-- ci -->\n```sh\necho a\n```\n\n```text\na\n```\n\
                <!-- ci: output -->\n<!-- ci: expect b c -->\n```sh\necho b c\n```\n\
                ```sh\nnot run\n```\n```text\nb c\n```\n";
    let b = blocks(page);
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].script, "echo a\n");
    assert_eq!(b[0].shown.as_deref(), Some("a\n"));
    assert!(!b[0].checks.output);
    assert!(b[1].checks.output);
    assert_eq!(b[1].checks.expect, ["b c"]);
    // The next text block, not one after another shell block.
    assert_eq!(b[1].shown, None);
}

/// The pages of `docs/guide/`, without the index.
fn pages() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("docs/guide"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && n != "README.md")
        .collect();
    names.sort();
    names
}

/// Every shell block of every page is run here, or says why not in an HTML comment right
/// before it (`<!-- not in CI: ... -->`), and every page with marked blocks has its test.
#[test]
fn every_shell_block_is_run_or_says_why() {
    let tested = [
        "inspect-captures.md",
        "load-test-a-upf.md",
        "run-the-experiment.md",
        "tune-the-control-law.md",
    ];
    for name in pages() {
        let page = std::fs::read_to_string(repo().join("docs/guide").join(&name)).unwrap();
        let lines: Vec<&str> = page.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim() != "```sh" {
                continue;
            }
            let before = i.checked_sub(1).map_or("", |j| lines[j].trim());
            assert!(
                before.ends_with("-->"),
                "{name}:{}: a shell block neither marked for CI nor saying why not",
                i + 1
            );
        }
        assert_eq!(
            !blocks(&page).is_empty(),
            tested.contains(&name.as_str()),
            "{name}: marked blocks and a test of its own go together"
        );
    }
}

#[test]
fn inspect_captures() {
    assert!(run_page("inspect-captures.md") > 0);
}

#[test]
fn load_test_a_upf() {
    assert!(run_page("load-test-a-upf.md") > 0);
}

#[test]
fn run_the_experiment() {
    assert!(run_page("run-the-experiment.md") > 0);
}

#[test]
fn tune_the_control_law() {
    assert!(run_page("tune-the-control-law.md") > 0);
}
