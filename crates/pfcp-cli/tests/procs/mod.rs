//! The shipped tools as child processes: a `pfcp up` kept running (killed when dropped), a
//! `pfcp` run to completion with a deadline, and the reading of their summaries.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::Value;

/// A child process, killed when dropped.
pub(crate) struct Killed(pub(crate) Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A running `pfcp up`: the process, its address, its stderr lines.
pub(crate) struct Up {
    pub(crate) _process: Killed,
    pub(crate) addr: String,
    /// Its stderr lines after the first (status lines; not every test reads them).
    #[allow(dead_code)]
    pub(crate) lines: mpsc::Receiver<String>,
}

/// Start `pfcp up --listen 127.0.0.1:0 ARGS` and wait for its first line (the address).
pub(crate) fn start_up(args: &[&str]) -> Up {
    let mut all = vec!["up", "--listen", "127.0.0.1:0"];
    all.extend_from_slice(args);
    start_at(&all)
}

/// Start `pfcp ARGS` (a `pfcp up`) and wait for its first line (the address it listens on).
pub(crate) fn start_at(args: &[&str]) -> Up {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pfcp"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let process = Killed(child);
    let (tx, lines) = mpsc::channel();
    // Keep reading even once nobody listens, so that the child never blocks on stderr.
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let first = lines
        .recv_timeout(Duration::from_secs(10))
        .expect("pfcp up printed nothing");
    let addr = first
        .split("listening on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected first line: {first}"))
        .to_owned();
    Up {
        _process: process,
        addr,
        lines,
    }
}

impl Up {
    /// Wait for the process to exit by itself (it was started with `--duration-secs`), at
    /// most `limit`.
    #[allow(dead_code)] // Not every test binary that shares this module restarts a UP.
    pub(crate) fn wait_exit(mut self, limit: Duration) -> Self {
        // Polled every 20 ms (no clock read: the workspace forbids `Instant::now`).
        let step = Duration::from_millis(20);
        for _ in 0..limit.as_millis() / step.as_millis() {
            if let Ok(Some(_)) = self._process.0.try_wait() {
                break;
            }
            thread::sleep(step);
        }
        self
    }
}

/// Run `pfcp ARGS` to completion (killed and failed after 60 s).
pub(crate) fn pfcp(args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_pfcp"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg(pid.to_string()).status();
            panic!("pfcp {args:?} did not finish in 60 s");
        }
    }
}

/// The `--json` summary of a successful run (one JSON object on stdout).
pub(crate) fn summary(out: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pfcp failed: {stderr}");
    summary_any(out)
}

/// The `--json` summary of a run, whatever its exit status (`pfcp cp` prints it with 4 and 5).
#[allow(dead_code)] // Not every test binary that shares this module reads a failed run.
pub(crate) fn summary_any(out: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let mut lines = stdout.lines();
    let json = lines
        .next()
        .unwrap_or_else(|| panic!("no JSON; stderr: {stderr}"));
    assert_eq!(lines.next(), None, "one JSON object on stdout");
    println!("{stderr}{json}");
    serde_json::from_str(json).unwrap()
}

/// A UDP port nobody listens on right now.
#[allow(dead_code)] // Not every test binary that shares this module binds a fixed port.
pub(crate) fn free_udp_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The number at `path` (a JSON pointer).
pub(crate) fn n(v: &Value, path: &str) -> u64 {
    v.pointer(path)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("{path} missing in {v}"))
}
