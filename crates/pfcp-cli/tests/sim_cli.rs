//! `pfcp sim` as a user runs it: an unwritable `--out` fails before any run, `--engine real`
//! runs the scenario's loads and writes the files it names (an earlier report replaced),
//! `--metrics` keeps the scenario's runs and the small comparison runs apart, the tables'
//! columns are labelled (an insta snapshot of them on a small scenario in virtual time), the
//! progress bar is drawn on a terminal only, and the help has headings and examples.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A small scenario, a few seconds in virtual time even in a debug build: one UP function of
/// `capacity` per second, two CP functions, `strategies`, `loads`, a 3 s step and restart.
fn scenario(dir: &Path, capacity: f64, strategies: &[&str], loads: &[f64]) -> String {
    let strategies: Vec<String> = strategies.iter().map(|s| format!("\"{s}\"")).collect();
    let loads: Vec<String> = loads.iter().map(f64::to_string).collect();
    let toml = format!(
        r#"name = "tiny"
seed = 5
cps = 2
sessions_per_cp = 1000
strategies = [{}]

[[ups]]
capacity = {capacity:?}

[sweep]
loads = [{}]
warmup_secs = 0.5
measure_secs = 1.0

[step]
before = 1.0
during = 5.0
phase_secs = 1.0

[restart]
up = 0
load = 0.8
at_secs = 1.0
down_secs = 0.5
run_secs = 3.0
"#,
        strategies.join(", "),
        loads.join(", ")
    );
    let path = dir.join("tiny.toml");
    std::fs::write(&path, toml).unwrap();
    path.to_str().unwrap().to_owned()
}

fn pfcp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pfcp"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Run `pfcp ARGS` to completion; it must succeed.
fn run_ok(args: &[&str]) -> Output {
    let out = pfcp().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "pfcp {args:?}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

/// The files the last line of stdout names: `report: A and B (N s)`.
fn reported_files(stdout: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("report: "))
        .unwrap_or_else(|| panic!("no report line in {stdout}"));
    let files = line.rsplit_once(" (").map_or(line, |(f, _)| f);
    files.split(" and ").map(str::to_owned).collect()
}

#[test]
fn an_unwritable_out_fails_at_once_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let out_dir = file.join("report");
    // The default scenario: were it run first, its tables would be on stdout.
    let out = pfcp()
        .args(["sim", "--out", out_dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    let want = format!(
        "pfcp sim: --out {}: cannot create the directory: ",
        out_dir.display()
    );
    assert!(lines[0].starts_with(&want), "{stderr}");
}

#[test]
fn engine_real_runs_the_scenarios_loads_and_writes_the_files_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), 300.0, &["toolkit"], &[0.5, 2.0]);
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    // An earlier run's report, and a file of the user's.
    for name in ["report.json", "report.svg", "notes.txt"] {
        std::fs::write(out_dir.join(name), "earlier").unwrap();
    }
    let out = run_ok(&[
        "sim",
        "--engine",
        "real",
        "--scenario",
        &sc,
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    // It says what it removed, and how it scaled the scenario.
    assert!(
        stderr.contains("removed report.json and report.svg of an earlier run"),
        "{stderr}"
    );
    assert!(
        stdout.contains("loads as multiples of the capacity: 0.5x, 2x"),
        "{stdout}"
    );
    // No virtual-time table without virtual-time runs of the scenario.
    assert!(!stdout.contains("virtual time, load sweep"), "{stdout}");
    assert!(!stdout.contains("virtual time, load step"), "{stdout}");
    // The files it names exist and are this run's.
    let files = reported_files(&stdout);
    let want: Vec<String> = ["report.json", "report.svg"]
        .iter()
        .map(|f| out_dir.join(f).display().to_string())
        .collect();
    assert_eq!(files, want);
    let svg = std::fs::read_to_string(&want[1]).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    // The toolkit's colour (its triangles and lines): the real-time runs are drawn.
    assert!(svg.to_ascii_uppercase().contains("#0072B2"));
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&want[0]).unwrap()).unwrap();
    let loads: Vec<f64> = json["real_time"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["load"].as_f64().unwrap())
        .collect();
    assert_eq!(loads, [0.5, 2.0], "the scenario's loads");
    assert_eq!(json["virtual_time"]["sweep"].as_array().unwrap().len(), 0);
    assert_eq!(
        std::fs::read_to_string(out_dir.join("notes.txt")).unwrap(),
        "earlier"
    );
    // Not a terminal: no progress bar on stderr.
    assert!(
        !stderr.contains('\r') && !stderr.contains('\u{1b}'),
        "{stderr:?}"
    );
    assert!(!stderr.contains(" runs, "), "{stderr}");
}

/// The `name{labels} value` lines of a Prometheus text exposition.
fn samples<'a>(body: &'a str, name: &str) -> Vec<(&'a str, f64)> {
    body.lines()
        .filter(|l| l.starts_with(name) && l.as_bytes().get(name.len()) == Some(&b'{'))
        .filter_map(|l| {
            let (labels, value) = l.rsplit_once(' ')?;
            Some((labels, value.parse().ok()?))
        })
        .collect()
}

/// GET the scrape endpoint at `port`; the body, if it answered.
fn scrape(port: u16) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n")
        .ok()?;
    let mut response = String::new();
    s.read_to_string(&mut response).ok()?;
    response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned())
}

/// The gauge of `strategy` at `load` with `engine` and `scale` in `body`.
fn gauge(body: &str, engine: &str, scale: &str, strategy: &str, load: f64) -> Option<f64> {
    let want = [
        format!("engine=\"{engine}\""),
        format!("scale=\"{scale}\""),
        "plan=\"steady\"".to_owned(),
        format!("strategy=\"{strategy}\""),
        format!("load=\"{load}\""),
    ];
    samples(body, "pfcp_sim_goodput_ratio")
        .into_iter()
        .find(|(labels, _)| want.iter().all(|w| labels.contains(w.as_str())))
        .map(|(_, v)| v)
}

#[test]
fn metrics_keep_the_scenarios_runs_apart_from_the_small_comparison() {
    let dir = tempfile::tempdir().unwrap();
    // 1000/s, so that the comparison's small scale (800/s) differs from the scenario's.
    let sc = scenario(dir.path(), 1000.0, &["no-control", "toolkit"], &[2.0]);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out_dir = dir.path().join("out");
    let mut child = pfcp()
        .args(["sim", "--scenario", &sc, "--real-loads", "2"])
        .args(["--out", out_dir.to_str().unwrap()])
        .args(["--metrics", &format!("127.0.0.1:{port}"), "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Scrape until it ends; keep the last body with a real-time run in it.
    let mut seen = None;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if let Some(body) = scrape(port) {
            if body.contains("engine=\"real\"") {
                seen = Some(body);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    let body = seen.expect("no scrape while the real-time runs ran");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    let ratio = |r: &Value| r["goodput"].as_f64().unwrap() / r["ideal"].as_f64().unwrap();
    let sweep = json["virtual_time"]["sweep"].as_array().unwrap();
    let twins = json["real_time"]["virtual_runs"].as_array().unwrap();
    assert_eq!(sweep.len(), 2);
    assert_eq!(twins.len(), 2);
    let mut differ = false;
    for (full, small) in sweep.iter().zip(twins) {
        let strategy = full["strategy"].as_str().unwrap();
        assert_eq!(small["strategy"].as_str(), Some(strategy));
        // After the real-time runs started, the scenario's figure is still its own.
        let g = gauge(&body, "virtual", "full", strategy, 2.0);
        assert!(
            g.is_some_and(|g| (g - ratio(full)).abs() < 1e-9),
            "{strategy}: {g:?} against {}\n{body}",
            ratio(full)
        );
        let g = gauge(&body, "virtual", "small", strategy, 2.0);
        assert!(
            g.is_some_and(|g| (g - ratio(small)).abs() < 1e-9),
            "{strategy} small: {g:?} against {}\n{body}",
            ratio(small)
        );
        differ |= (ratio(full) - ratio(small)).abs() > 1e-6;
    }
    assert!(
        differ,
        "the two scales gave the same figures: the test would show nothing"
    );
    assert!(
        gauge(&body, "real", "small", "no-control", 2.0).is_some(),
        "{body}"
    );
}

/// The tables of a run, without the last line (the files and the seconds it took).
fn tables(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| !l.starts_with("report: "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_tables_have_labelled_columns_and_a_legend() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), 300.0, &["no-control", "toolkit"], &[0.5, 3.0]);
    let out_dir = dir.path().join("out");
    let out = run_ok(&[
        "sim",
        "--engine",
        "virtual",
        "--scenario",
        &sc,
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    for label in [
        "load  ideal/s  strategy         goodput/ideal   emergency success   p99 ms",
        "  goodput/ideal: successful requests per second over the ideal",
        "  emergency success: share of the emergency class's requests that succeeded",
        "  p99 ms: 99th percentile latency",
        "settle up  settle down   swing  1 s swing  noise  pattern",
        "  settle up, settle down: seconds after the step",
        "% of the capacity",
        "sessions lost  restored  goodput/ideal  answered locally",
    ] {
        assert!(stdout.contains(label), "no {label:?} in\n{stdout}");
    }
    // Deterministic from the seed: the whole tables as they read.
    insta::assert_snapshot!("tiny_virtual_tables", tables(&stdout));
}

/// Whether util-linux's `script` (a terminal for a command) runs here.
fn have_script(test: &str) -> bool {
    let ok = Command::new("script")
        .args(["-qec", "true", "/dev/null"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("{test}: script (util-linux) not found, skipping");
    }
    ok
}

#[test]
fn the_progress_bar_is_drawn_on_a_terminal_unless_quiet() {
    if !have_script("the_progress_bar_is_drawn_on_a_terminal_unless_quiet") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), 300.0, &["toolkit"], &[2.0]);
    let on_terminal = |quiet: bool| -> String {
        let out_dir = dir.path().join(if quiet { "quiet" } else { "loud" });
        let command = format!(
            "{} sim --engine real --scenario {sc} --out {}{}",
            env!("CARGO_BIN_EXE_pfcp"),
            out_dir.display(),
            if quiet { " --quiet" } else { "" }
        );
        let out = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stdout));
        // What the terminal got; the JSON never has the bar.
        let json = std::fs::read_to_string(out_dir.join("report.json")).unwrap();
        assert!(!json.contains(" runs, "));
        text(&out.stdout)
    };
    let loud = on_terminal(false);
    assert!(
        loud.contains("1/2 runs, ") || loud.contains("0/2 runs, "),
        "{loud:?}"
    );
    assert!(loud.contains("real time: toolkit at 2x"), "{loud:?}");
    let quiet = on_terminal(true);
    assert!(!quiet.contains(" runs, "), "{quiet:?}");
    assert!(!quiet.contains("virtual-time runs on"), "{quiet:?}");
    assert!(
        quiet.contains("real time on loopback"),
        "the tables: {quiet:?}"
    );
}

#[test]
fn the_help_has_headings_and_examples_and_no_rust_paths() {
    let help = text(&run_ok(&["sim", "--help"]).stdout);
    for heading in ["Scenario:", "Engines:", "Output:", "Examples:"] {
        assert!(
            help.lines().any(|l| l == heading),
            "no {heading} in\n{help}"
        );
    }
    assert!(
        help.contains("pfcp sim --engine virtual --out results"),
        "{help}"
    );
    assert!(!help.contains("::"), "a Rust path in\n{help}");
    assert!(!help.contains('`'), "markdown in\n{help}");
}

/// `pfcp sim | head -3`: the reader goes away before the tables are written. That is no
/// error and no panic (Rust ignores SIGPIPE, so the write fails with EPIPE): the run
/// completes, the report is written, the exit status is 0 and stderr says nothing.
#[test]
fn a_reader_that_goes_away_is_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), 200.0, &["toolkit"], &[2.0]);
    let out = dir.path().join("out");
    let mut child = pfcp()
        .args([
            "sim",
            "--engine",
            "virtual",
            "-q",
            "--scenario",
            &sc,
            "--out",
        ])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The run takes far longer than this: the pipe is closed before anything is written.
    drop(child.stdout.take());
    let done = child.wait_with_output().unwrap();
    let stderr = text(&done.stderr);
    assert!(done.status.success(), "{:?}: {stderr}", done.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["scenario"]["name"], "tiny");
}
