//! Heartbeat round trips per second of one associated CP against real server processes on
//! loopback: a C UDP echo (the floor), `pfcp up` with its default flags and
//! `examples/minimal_up` of pfcp-node (`docs/benchmarks.md`, "pfcp-node", "One associated CP
//! against `pfcp up`").
//!
//! ```sh
//! cargo run --release -p pfcp-e2e --example rtt
//! ```
//!
//! It first builds `pfcp` and `minimal_up` in release (`cargo build --release`; skipped with
//! `PFCP_RTT_BUILD=0`) and compiles `crates/pfcp-node/benches/udp_echo.c` with `cc -O2`
//! (`$CC` if set) into `target/release/udp_echo`.
//!
//! Method. One client thread with one connected UDP socket keeps K Heartbeat Requests (valid:
//! Recovery Time Stamp IE, sequence numbers increasing by one) in flight and sends a new one
//! per response it receives, checking the response's message type. Against `pfcp up` and
//! `minimal_up` it first sets up an association (Node ID, Recovery Time Stamp, CP features;
//! Cause 1 expected) from that socket, so it is one associated CP; the C echo sends every
//! datagram back as it came. Each measurement starts a fresh server process on
//! 127.0.0.1 (port 0), waits out a warm-up, counts the round trips over a window and takes
//! the CPU time (user + system) of the server process from `/proc/PID/stat` and of this
//! process over the same window. Each repetition measures every (target, K), the targets in
//! alternating order (reversed every other repetition); the summary gives medians and the
//! median of the per-repetition ratios to the C `recvfrom`/`sendto` echo of the same
//! repetition and K, with min–max: the rate ratio (target / echo) and the CPU ratio (server
//! CPU per round trip, echo / target, the figure that hardly moves with other load on a
//! shared box).
//!
//! Targets: `c-echo` (blocking `recvfrom`/`sendto`), `c-echo-mmsg` (`recvmmsg`/`sendmmsg`,
//! batches of up to 64), `pfcp-up` (`target/release/pfcp up --listen 127.0.0.1:0`),
//! `minimal-up` (`target/release/examples/minimal_up 127.0.0.1:0`).
//!
//! Environment: `PFCP_RTT_SECS` (window, default 2), `PFCP_RTT_WARMUP` (default 0.5),
//! `PFCP_RTT_REPS` (default 5), `PFCP_RTT_K` (default `1,32`), `PFCP_RTT_TARGETS` (a comma
//! list of the targets above; default all), `PFCP_RTT_UP_BINS` (`NAME=PATH,...`: more
//! `pfcp` binaries to run as `pfcp up`, shown as `pfcp-up@NAME`, e.g. a build of an older
//! commit for a before/after comparison in one run), `PFCP_RTT_BUILD=0`.

use std::io::{self, BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pfcp_node::peer::{association_setup_request, heartbeat_request};
use pfcp_node::LocalNode;
use pfcp_overload::NodeKey;
use pfcp_wire::ie::RecoveryTimeStamp;
use pfcp_wire::{Cause, Message, MessageType, SequenceNumber};

/// The one clock read of this program.
#[allow(clippy::disallowed_methods)] // A measurement tool, not sans-IO code.
fn now() -> Instant {
    Instant::now()
}

/// A server to measure.
#[derive(Debug, Clone)]
enum Target {
    /// The C echo; `true`: `recvmmsg`/`sendmmsg`.
    CEcho(bool),
    /// `pfcp up` from this binary, named.
    PfcpUp(String, PathBuf),
    MinimalUp(PathBuf),
}

impl Target {
    fn name(&self) -> String {
        match self {
            Target::CEcho(false) => "c-echo".into(),
            Target::CEcho(true) => "c-echo-mmsg".into(),
            Target::PfcpUp(name, _) if name.is_empty() => "pfcp-up".into(),
            Target::PfcpUp(name, _) => format!("pfcp-up@{name}"),
            Target::MinimalUp(_) => "minimal-up".into(),
        }
    }

    /// A PFCP node: associate first, expect Heartbeat Responses.
    fn is_pfcp(&self) -> bool {
        !matches!(self, Target::CEcho(_))
    }

    fn command(&self, echo: &Path) -> Command {
        match self {
            Target::CEcho(mmsg) => {
                let mut c = Command::new(echo);
                c.arg(if *mmsg { "mmsg" } else { "plain" }).arg("127.0.0.1");
                c
            }
            // Default flags but the address.
            Target::PfcpUp(_, bin) => {
                let mut c = Command::new(bin);
                c.args(["up", "--listen", "127.0.0.1:0"]);
                c
            }
            Target::MinimalUp(bin) => {
                let mut c = Command::new(bin);
                c.arg("127.0.0.1:0");
                c
            }
        }
    }
}

struct Settings {
    window: Duration,
    warmup: Duration,
    reps: usize,
    ks: Vec<usize>,
    targets: Vec<Target>,
}

/// One measurement window.
#[derive(Debug, Clone, Copy)]
struct Sample {
    rate: f64,
    /// Server process CPU time per round trip, µs.
    server_us: f64,
    /// This process's CPU time per round trip, µs.
    client_us: f64,
    /// Receive timeouts (200 ms without a response; the window is refilled to K).
    timeouts: u64,
    /// Responses of the wrong type.
    wrong: u64,
}

/// A running server; killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `target` and read the address it bound from its first "listening on ADDR" line
/// (stdout for the echo and `minimal_up`, stderr for `pfcp up`). The rest of its output is
/// drained in a thread so that a full pipe never blocks it.
fn start(target: &Target, echo: &Path) -> io::Result<Server> {
    let mut child = target
        .command(echo)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let (tx, rx) = mpsc::channel::<String>();
    for pipe in [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn io::Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
    }
    let mut server = Server {
        child,
        addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
    };
    let deadline = now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(now());
        let line = rx.recv_timeout(left).map_err(|_| {
            io::Error::other(format!("{}: no \"listening on\" line", target.name()))
        })?;
        let addr = line
            .split_once("listening on ")
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .and_then(|a| a.parse().ok());
        if let Some(addr) = addr {
            server.addr = addr;
            return Ok(server);
        }
    }
}

/// Clock ticks per second of `/proc/PID/stat` (`getconf CLK_TCK` is 100 on Linux).
const CLK_TCK: f64 = 100.0;

/// CPU time (user + system, all threads) of process `pid` (`"self"` for this one), s.
fn cpu_secs(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_comm = stat.rsplit_once(')').map(|(_, s)| s).unwrap_or_default();
    let fields: Vec<&str> = after_comm.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // After the command name: state is field 3, so utime (14) and stime (15) are 11 and 12.
    (field(11) + field(12)) as f64 / CLK_TCK
}

fn cp_node() -> LocalNode {
    LocalNode::cp(
        NodeKey::Ip(Ipv4Addr::LOCALHOST.into()),
        RecoveryTimeStamp(0xE8F4_0000),
    )
}

/// Association Setup from `socket`: Cause 1 expected.
fn associate(socket: &UdpSocket, local: &LocalNode) -> io::Result<()> {
    let request =
        association_setup_request(local, SequenceNumber::wrapping(1)).map_err(io::Error::other)?;
    let mut buf = [0u8; 2048];
    for _ in 0..5 {
        socket.send(&request)?;
        let Ok(n) = socket.recv(&mut buf) else {
            continue;
        };
        let msg = Message::decode(buf.get(..n).unwrap_or_default()).map_err(io::Error::other)?;
        if msg.message_type() == MessageType::ASSOCIATION_SETUP_RESPONSE {
            return match msg.cause() {
                Ok(Some(Cause::REQUEST_ACCEPTED)) => Ok(()),
                other => Err(io::Error::other(format!("association refused: {other:?}"))),
            };
        }
    }
    Err(io::Error::other("no Association Setup Response"))
}

/// One measurement: a fresh server, K in flight, a warm-up, then the window.
fn measure(target: &Target, k: usize, echo: &Path, settings: &Settings) -> io::Result<Sample> {
    let server = start(target, echo)?;
    let pid = server.child.id().to_string();
    let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))?;
    socket.connect(server.addr)?;
    socket.set_read_timeout(Some(Duration::from_millis(200)))?;
    let local = cp_node();
    if target.is_pfcp() {
        associate(&socket, &local)?;
    }
    let mut request = heartbeat_request(&local, SequenceNumber::wrapping(2))
        .map_err(io::Error::other)?
        .to_vec();
    // Header without SEID: the sequence number is octets 5 to 7.
    let mut seq: u32 = 2;
    let mut send_next = |socket: &UdpSocket| -> io::Result<()> {
        let [_, a, b, c] = seq.to_be_bytes();
        if let Some(s) = request.get_mut(4..7) {
            s.copy_from_slice(&[a, b, c]);
        }
        seq = (seq + 1) & 0x00FF_FFFF;
        socket.send(&request).map(drop)
    };
    // The echo sends the request back.
    let expected = if target.is_pfcp() {
        MessageType::HEARTBEAT_RESPONSE.0
    } else {
        MessageType::HEARTBEAT_REQUEST.0
    };
    let mut buf = [0u8; 2048];
    let mut checked = false;
    let (mut done, mut timeouts, mut wrong, mut turns) = (0u64, 0u64, 0u64, 0u64);
    let start = now();
    let warm = start + settings.warmup;
    let end = warm + settings.window;
    let mut mark: Option<(Instant, u64, f64, f64, u64, u64)> = None;
    for _ in 0..k {
        send_next(&socket)?;
    }
    loop {
        match socket.recv(&mut buf) {
            Ok(n) => {
                let got = buf.get(..n).unwrap_or_default();
                if got.get(1) == Some(&expected) {
                    done += 1;
                } else {
                    wrong += 1;
                }
                if !checked && target.is_pfcp() {
                    // Once per measurement: a complete, valid Heartbeat Response.
                    let msg = Message::decode(got).map_err(io::Error::other)?;
                    if msg.recovery_time_stamp().ok().flatten().is_none() {
                        return Err(io::Error::other("Heartbeat Response without a stamp"));
                    }
                    checked = true;
                }
                send_next(&socket)?;
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                // Lost datagrams: refill the window (late responses only add to it).
                timeouts += 1;
                for _ in 0..k {
                    send_next(&socket)?;
                }
            }
            Err(e) => return Err(e),
        }
        turns += 1;
        // The clock every 64 turns (a read costs about 25 ns here).
        if turns % 64 == 0 {
            let t = now();
            if mark.is_none() && t >= warm {
                mark = Some((t, done, cpu_secs(&pid), cpu_secs("self"), timeouts, wrong));
            } else if t >= end {
                break;
            }
        }
    }
    let t1 = now();
    let (s1, c1) = (cpu_secs(&pid), cpu_secs("self"));
    let (t0, d0, s0, c0, to0, w0) = mark.ok_or_else(|| io::Error::other("no window"))?;
    let n = (done - d0).max(1) as f64;
    Ok(Sample {
        rate: n / t1.duration_since(t0).as_secs_f64(),
        server_us: (s1 - s0) * 1e6 / n,
        client_us: (c1 - c0) * 1e6 / n,
        timeouts: timeouts - to0,
        wrong: wrong - w0,
    })
}

fn env_f64(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v > 0.0)
        .unwrap_or(default)
}

/// `target/release` (this example runs from `target/release/examples`).
fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let target = exe
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("target"), Path::to_path_buf);
    target.join("release")
}

/// Build the servers: the Rust ones with cargo, the C echo with `cc`.
fn build(release: &Path) -> io::Result<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."));
    if std::env::var("PFCP_RTT_BUILD").as_deref() != Ok("0") {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(root)
            .args([
                "build",
                "--release",
                "-p",
                "pfcp-cli",
                "--bin",
                "pfcp",
                "-p",
                "pfcp-node",
                "--example",
                "minimal_up",
            ])
            .status()?;
        if !status.success() {
            return Err(io::Error::other("cargo build failed"));
        }
    }
    let echo = release.join("udp_echo");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(cc)
        .args(["-O2", "-o"])
        .arg(&echo)
        .arg(root.join("crates/pfcp-node/benches/udp_echo.c"))
        .status()?;
    if !status.success() {
        return Err(io::Error::other("cc failed on udp_echo.c"));
    }
    Ok(echo)
}

fn settings(release: &Path) -> Settings {
    let ks: Vec<usize> = std::env::var("PFCP_RTT_K")
        .unwrap_or_else(|_| "1,32".into())
        .split(',')
        .filter_map(|k| k.trim().parse().ok())
        .filter(|&k| k > 0)
        .collect();
    let wanted = std::env::var("PFCP_RTT_TARGETS")
        .unwrap_or_else(|_| "c-echo,c-echo-mmsg,pfcp-up,minimal-up".into());
    let mut targets = Vec::new();
    for name in wanted.split(',').map(str::trim) {
        match name {
            "c-echo" => targets.push(Target::CEcho(false)),
            "c-echo-mmsg" => targets.push(Target::CEcho(true)),
            "pfcp-up" => targets.push(Target::PfcpUp(String::new(), release.join("pfcp"))),
            "minimal-up" => {
                targets.push(Target::MinimalUp(
                    release.join("examples").join("minimal_up"),
                ));
            }
            other => eprintln!("rtt: unknown target {other:?} ignored"),
        }
    }
    for bin in std::env::var("PFCP_RTT_UP_BINS")
        .unwrap_or_default()
        .split(',')
    {
        if let Some((name, path)) = bin.split_once('=') {
            targets.push(Target::PfcpUp(
                name.trim().into(),
                PathBuf::from(path.trim()),
            ));
        }
    }
    // Ratios are to the plain echo: it must be there.
    if !targets.iter().any(|t| matches!(t, Target::CEcho(false))) {
        targets.insert(0, Target::CEcho(false));
    }
    Settings {
        window: Duration::from_secs_f64(env_f64("PFCP_RTT_SECS", 2.0)),
        warmup: Duration::from_secs_f64(env_f64("PFCP_RTT_WARMUP", 0.5)),
        reps: env_f64("PFCP_RTT_REPS", 5.0) as usize,
        ks: if ks.is_empty() { vec![1, 32] } else { ks },
        targets,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v.get(n / 2).copied().unwrap_or(f64::NAN),
        n => {
            (v.get(n / 2 - 1).copied().unwrap_or(f64::NAN)
                + v.get(n / 2).copied().unwrap_or(f64::NAN))
                / 2.0
        }
    }
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .next()
        .unwrap_or("?")
        .to_owned()
}

fn main() -> io::Result<()> {
    let release = release_dir();
    let echo = build(&release)?;
    let settings = settings(&release);
    println!(
        "# rtt: one CP, Heartbeat, window {:.1} s, warm-up {:.1} s, {} repetitions, K = {:?}, \
         nproc {}, loadavg before {}",
        settings.window.as_secs_f64(),
        settings.warmup.as_secs_f64(),
        settings.reps,
        settings.ks,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        loadavg()
    );
    let n = settings.targets.len();
    // [k][target] -> samples, one per repetition.
    let mut results: Vec<Vec<Vec<Sample>>> = vec![vec![Vec::new(); n]; settings.ks.len()];
    for rep in 0..settings.reps {
        for (ki, &k) in settings.ks.iter().enumerate() {
            let mut order: Vec<usize> = (0..n).collect();
            if rep % 2 == 1 {
                order.reverse();
            }
            for ti in order {
                let Some(target) = settings.targets.get(ti) else {
                    continue;
                };
                let s = measure(target, k, &echo, &settings)?;
                println!(
                    "{{\"target\":\"{}\",\"k\":{k},\"rep\":{rep},\"rt_per_s\":{:.0},\
                     \"server_cpu_us_per_rt\":{:.2},\"client_cpu_us_per_rt\":{:.2},\
                     \"timeouts\":{},\"wrong\":{},\"loadavg\":{}}}",
                    target.name(),
                    s.rate,
                    s.server_us,
                    s.client_us,
                    s.timeouts,
                    s.wrong,
                    loadavg()
                );
                if let Some(v) = results.get_mut(ki).and_then(|r| r.get_mut(ti)) {
                    v.push(s);
                }
            }
        }
    }
    let echo_index = settings
        .targets
        .iter()
        .position(|t| matches!(t, Target::CEcho(false)))
        .unwrap_or(0);
    println!();
    println!(
        "| K | target | rt/s | rate ratio to c-echo (min–max) | server CPU µs/rt \
         | CPU ratio c-echo/target (min–max) | client CPU µs/rt | timeouts | wrong |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for (ki, &k) in settings.ks.iter().enumerate() {
        let Some(per_target) = results.get(ki) else {
            continue;
        };
        let Some(echoes) = per_target.get(echo_index) else {
            continue;
        };
        for (target, samples) in settings.targets.iter().zip(per_target) {
            let pairs = || echoes.iter().zip(samples);
            let rates: Vec<f64> = pairs().map(|(e, s)| s.rate / e.rate).collect();
            let cpus: Vec<f64> = pairs().map(|(e, s)| e.server_us / s.server_us).collect();
            let (rlo, rhi) = min_max(&rates);
            let (clo, chi) = min_max(&cpus);
            let med = |f: fn(&Sample) -> f64| median(samples.iter().map(f).collect());
            println!(
                "| {k} | {} | {:.0} | {:.2} ({:.2}–{:.2}) | {:.2} | {:.2} ({:.2}–{:.2}) | {:.2} \
                 | {} | {} |",
                target.name(),
                med(|s| s.rate),
                median(rates),
                rlo,
                rhi,
                med(|s| s.server_us),
                median(cpus),
                clo,
                chi,
                med(|s| s.client_us),
                samples.iter().map(|s| s.timeouts).sum::<u64>(),
                samples.iter().map(|s| s.wrong).sum::<u64>(),
            );
        }
    }
    Ok(())
}
