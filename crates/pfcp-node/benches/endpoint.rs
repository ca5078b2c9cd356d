//! Request/response rate through the tokio [`Endpoint`] on loopback, against a bare tokio UDP
//! echo pair and a C UDP echo server measured in the same run (perf-anchors S4, closed loop).
//!
//! Scenarios, each at K outstanding requests (default K = 1 and 32):
//!
//! * `heartbeat`: a CP `Endpoint` sends Heartbeat Requests (`Endpoint::heartbeat`) to a UP
//!   `Endpoint`, which answers them itself (16-octet request, 16-octet response);
//! * `establishment`: after an association, the CP sends Session Establishment Requests
//!   (`Endpoint::request`, the minimal request of `tests/loopback.rs`) and the UP's
//!   [`RequestHandler`](pfcp_node::endpoint::RequestHandler) answers each one inside the UP
//!   endpoint's task (read the CP F-SEID of the decoded request, build an accepted response
//!   with Node ID, Cause and UP F-SEID), like `tests/loopback.rs`; the CP decodes every
//!   response and counts anything but Request accepted as an error;
//! * `establishment-channel`: the same, answered by an application task that reads the
//!   incoming channel and responds through `Incoming::respond` (decoding the request itself),
//!   the endpoint's other way to serve requests;
//! * `echo` (the peer): a client socket keeps K datagrams of the request's size in flight and
//!   sends a new one per datagram received; a server socket echoes every datagram
//!   (`recv_from`/`send_to`, one task each). No PFCP work: the loopback floor.
//! * `c-echo` (the second peer): the same client against `benches/udp_echo.c` (blocking
//!   `recvfrom`/`sendto`, compiled with `cc -O2` at start-up, `$CC` if set) in a child process;
//!   its CPU time counts with this process's. Left out, with a note, if `cc` fails.
//!
//! The endpoint side runs K client tasks, each looping request → await response (how an
//! application uses the handle). Both sides of each pair live in this process on the same
//! runtime; a fresh runtime, fresh sockets and fresh endpoints per measurement. Endpoints run
//! with heartbeats off and the ingress guard opened (its default, 20 000 datagrams/s per
//! source, would cap this single-peer test; `PFCP_BENCH_DEFAULT_GUARD=1` keeps it), no UP
//! admission and no CP overload control.
//!
//! Each repetition measures every (scenario, K) triple, echo, C echo and endpoint back to back
//! (order reversed every other repetition), with a warm-up before each window. Reported per
//! measurement: round trips/s, process CPU time per round trip (from `/proc/self/stat`,
//! 10 ms ticks, plus the C echo's from `/proc/PID/stat`) and its user-mode share; then per
//! (scenario, K) the medians and the median of the per-repetition ratios endpoint/echo and
//! endpoint/C echo, with min–max. Two ratios: of the rates (what the
//! goal names; on a box shared with other work it swings with their load), and of the CPU
//! time per round trip, echo/endpoint (the rate ratio a CPU-bound run converges to; it hardly
//! moves with the load of other processes).
//!
//! Run: `cargo bench -p pfcp-node --bench endpoint`
//!
//! Environment: `PFCP_BENCH_SECS` (window, default 2), `PFCP_BENCH_WARMUP` (default 0.3),
//! `PFCP_BENCH_REPS` (default 5), `PFCP_BENCH_K` (default `1,32`), `PFCP_BENCH_FLAVOUR`
//! (`current` (default): a current-thread runtime; `multi`: multi-thread with 2 workers;
//! `both`), `PFCP_BENCH_DEFAULT_GUARD=1`, `PFCP_BENCH_CACHE` (the UP's response cache size;
//! default the endpoint's 65 536, which this load keeps full and evicting); for profiling one
//! side, `PFCP_BENCH_MSG` (`heartbeat`, `establishment` or `establishment-channel`) and
//! `PFCP_BENCH_ONLY` (`echo`, `c-echo` or `endpoint`).
//!
//! `pfcp up` itself, a separate process, against the C echo: `tests/examples/rtt.rs`.

// The tests' endpoint set-up, so that the bench measures the endpoints the tests check.
#[path = "../tests/common/mod.rs"]
mod common;

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pfcp_node::endpoint::{HandlerReply, RequestView};
use pfcp_node::{EndpointConfig, GuardConfig, LocalNode, TransactionConfig};
use pfcp_test_support::node::{any_port, cp_local, up_local};
use pfcp_wire::{Cause, Header, Message, MessageType};
use tokio::net::UdpSocket;
use tokio::runtime::Runtime;

use common::{accepted, establishment_ies};

/// Heartbeat Request: header without SEID (8) + Recovery Time Stamp IE (8).
const HEARTBEAT_LEN: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavour {
    /// `new_current_thread`: every task on one thread.
    Current,
    /// `new_multi_thread` with 2 workers.
    Multi,
}

impl fmt::Display for Flavour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Flavour::Current => "current",
            Flavour::Multi => "multi2",
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    Heartbeat,
    /// Answered by the UP's request handler.
    Establishment,
    /// Answered by a UP application task through the incoming channel.
    EstablishmentChannel,
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scenario::Heartbeat => "heartbeat",
            Scenario::Establishment => "establishment",
            Scenario::EstablishmentChannel => "establishment-channel",
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Echo,
    /// `benches/udp_echo.c` in a child process.
    CEcho,
    Endpoint,
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Echo => "echo",
            Variant::CEcho => "c-echo",
            Variant::Endpoint => "endpoint",
        })
    }
}

struct Settings {
    window: Duration,
    warmup: Duration,
    reps: usize,
    ks: Vec<usize>,
    flavours: Vec<Flavour>,
    default_guard: bool,
    /// Response cache size (`PFCP_BENCH_CACHE`), if not the default.
    cache: Option<usize>,
    /// Only these scenarios (`PFCP_BENCH_MSG`), for profiling.
    scenarios: Vec<Scenario>,
    /// Only these variants (`PFCP_BENCH_ONLY`), for profiling.
    variants: Vec<Variant>,
    /// The compiled C echo, if `cc` built it.
    c_echo: Option<std::path::PathBuf>,
}

impl Settings {
    fn from_env() -> Settings {
        let secs = |name: &str, default: f64| {
            let s = std::env::var(name)
                .ok()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v > 0.0)
                .unwrap_or(default);
            Duration::from_secs_f64(s)
        };
        let reps = std::env::var("PFCP_BENCH_REPS")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n: &usize| n > 0)
            .unwrap_or(5);
        let ks: Vec<usize> = std::env::var("PFCP_BENCH_K")
            .unwrap_or_else(|_| "1,32".to_owned())
            .split(',')
            .filter_map(|k| k.trim().parse().ok())
            .filter(|&k| k > 0)
            .collect();
        let flavours = match std::env::var("PFCP_BENCH_FLAVOUR").as_deref() {
            Ok("multi") => vec![Flavour::Multi],
            Ok("both") => vec![Flavour::Current, Flavour::Multi],
            _ => vec![Flavour::Current],
        };
        Settings {
            window: secs("PFCP_BENCH_SECS", 2.0),
            warmup: secs("PFCP_BENCH_WARMUP", 0.3),
            reps,
            ks: if ks.is_empty() { vec![1, 32] } else { ks },
            flavours,
            default_guard: std::env::var("PFCP_BENCH_DEFAULT_GUARD").is_ok_and(|v| v == "1"),
            cache: std::env::var("PFCP_BENCH_CACHE")
                .ok()
                .and_then(|v| v.parse().ok()),
            scenarios: match std::env::var("PFCP_BENCH_MSG").as_deref() {
                Ok("heartbeat") => vec![Scenario::Heartbeat],
                Ok("establishment") => vec![Scenario::Establishment],
                Ok("establishment-channel") => vec![Scenario::EstablishmentChannel],
                _ => vec![
                    Scenario::Heartbeat,
                    Scenario::Establishment,
                    Scenario::EstablishmentChannel,
                ],
            },
            variants: match std::env::var("PFCP_BENCH_ONLY").as_deref() {
                Ok("echo") => vec![Variant::Echo],
                Ok("c-echo") => vec![Variant::CEcho],
                Ok("endpoint") => vec![Variant::Endpoint],
                _ => vec![Variant::Echo, Variant::CEcho, Variant::Endpoint],
            },
            c_echo: build_c_echo(),
        }
    }
}

/// One measurement window.
#[derive(Debug, Clone, Copy)]
struct Sample {
    /// Round trips completed per second.
    rate: f64,
    /// Process CPU time (user + system) per round trip, µs.
    cpu_us: f64,
    /// User-mode share of that CPU time.
    user_share: f64,
    /// Failed requests (timeouts, rejections, anything but a normal answer).
    errors: u64,
}

fn runtime(flavour: Flavour) -> io::Result<Runtime> {
    match flavour {
        Flavour::Current => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Flavour::Multi => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build(),
    }
}

/// `benches/udp_echo.c` compiled into the target's scratch directory; `None` (with a note) if
/// the compiler fails.
fn build_c_echo() -> Option<std::path::PathBuf> {
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("udp_echo");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/udp_echo.c");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    match std::process::Command::new(&cc)
        .arg("-O2")
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .status()
    {
        Ok(s) if s.success() => Some(out),
        other => {
            println!("# c-echo left out: {cc} on {}: {other:?}", src.display());
            None
        }
    }
}

/// Process CPU ticks (user, system) of this process and, if given, a child.
fn cpu_ticks(child: Option<u32>) -> (u64, u64) {
    let (u, s) = proc_ticks("self");
    match child {
        Some(pid) => {
            let (cu, cs) = proc_ticks(&pid.to_string());
            (u + cu, s + cs)
        }
        None => (u, s),
    }
}

/// CPU ticks (user, system) from `/proc/PID/stat` (fields 14 and 15).
fn proc_ticks(pid: &str) -> (u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_comm = stat.rsplit_once(')').map(|(_, s)| s).unwrap_or_default();
    let fields: Vec<&str> = after_comm.split_whitespace().collect();
    let field = |i: usize| fields.get(i).and_then(|v| v.parse().ok()).unwrap_or(0);
    // After the command name: state is field 3, so utime (14) and stime (15) are 11 and 12.
    (field(11), field(12))
}

/// Clock ticks per second of `/proc/self/stat` (`getconf CLK_TCK` is 100 on Linux).
const CLK_TCK: f64 = 100.0;

/// Wait out the warm-up, then count completions over the window (CPU time: this process's and
/// `child`'s).
async fn window(
    done: &AtomicU64,
    errors: &AtomicU64,
    settings: &Settings,
    child: Option<u32>,
) -> Sample {
    tokio::time::sleep(settings.warmup).await;
    let (c0, e0) = (done.load(Ordering::Relaxed), errors.load(Ordering::Relaxed));
    let (u0, s0) = cpu_ticks(child);
    let t0 = tokio::time::Instant::now();
    tokio::time::sleep(settings.window).await;
    let elapsed = t0.elapsed().as_secs_f64();
    let (u1, s1) = cpu_ticks(child);
    let n = done.load(Ordering::Relaxed) - c0;
    let errors = errors.load(Ordering::Relaxed) - e0;
    let (user, sys) = ((u1 - u0) as f64, (s1 - s0) as f64);
    let cpu = (user + sys) / CLK_TCK;
    Sample {
        rate: n as f64 / elapsed,
        cpu_us: if n > 0 {
            cpu * 1e6 / n as f64
        } else {
            f64::NAN
        },
        user_share: if user + sys > 0.0 {
            user / (user + sys)
        } else {
            f64::NAN
        },
        errors,
    }
}

/// The C echo server, killed when dropped.
struct CEchoServer(std::process::Child);

impl Drop for CEchoServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start the C echo on 127.0.0.1 and read its port from its first line.
fn c_echo_server(path: &std::path::Path) -> io::Result<(CEchoServer, SocketAddr)> {
    use std::io::BufRead;
    let mut child = std::process::Command::new(path)
        .args(["plain", "127.0.0.1"])
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        std::io::BufReader::new(out).read_line(&mut line)?;
    }
    let server = CEchoServer(child);
    let addr = line
        .split_whitespace()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| io::Error::other(format!("udp_echo said {line:?}")))?;
    Ok((server, addr))
}

/// The echo pair: K datagrams of `size` octets in flight; the server a tokio task, or the C
/// echo in a child process (`c`).
async fn echo(size: usize, k: usize, c: bool, settings: &Settings) -> io::Result<Sample> {
    let client = UdpSocket::bind(any_port()).await?;
    let done = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let mut c_server = None;
    let to = match (c, &settings.c_echo) {
        (true, Some(path)) => {
            let (server, addr) = c_echo_server(path)?;
            c_server = Some(server);
            addr
        }
        (true, None) => return Err(io::Error::other("no C echo")),
        (false, _) => {
            let server = UdpSocket::bind(any_port()).await?;
            let to = server.local_addr()?;
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65_535];
                loop {
                    let Ok((n, from)) = server.recv_from(&mut buf).await else {
                        continue;
                    };
                    let _ = server.send_to(buf.get(..n).unwrap_or_default(), from).await;
                }
            });
            to
        }
    };
    let payload = vec![0x21u8; size];
    for _ in 0..k {
        client.send_to(&payload, to).await?;
    }
    let (d, e) = (done.clone(), errors.clone());
    tokio::spawn(async move {
        let mut buf = vec![0u8; 65_535];
        loop {
            if client.recv_from(&mut buf).await.is_err() {
                e.fetch_add(1, Ordering::Relaxed);
            }
            d.fetch_add(1, Ordering::Relaxed);
            if client.send_to(&payload, to).await.is_err() {
                e.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    let child = c_server.as_ref().map(|s| s.0.id());
    let sample = window(&done, &errors, settings, child).await;
    drop(c_server);
    Ok(sample)
}

/// The tests' endpoint configuration, but with the default transaction timers (the endpoint
/// as deployed) and, unless `PFCP_BENCH_DEFAULT_GUARD=1`, the ingress guard opened: its
/// default rate would cap this single-peer load.
fn config(local: LocalNode, settings: &Settings) -> EndpointConfig {
    let mut transactions = TransactionConfig::default();
    if let Some(n) = settings.cache {
        transactions = transactions.with_max_cached_responses(n);
    }
    let mut c = common::endpoint_config(local).with_transactions(transactions);
    if !settings.default_guard {
        c = c.with_guard(GuardConfig::default().with_rate(1e12).with_burst(1e12));
    }
    c
}

/// The encoded size of the Session Establishment Request the CP sends (SEID header, 16).
fn establishment_len() -> usize {
    16 + establishment_ies().len()
}

/// A CP endpoint and a UP endpoint, K client tasks on the CP handle.
async fn endpoints(scenario: Scenario, k: usize, settings: &Settings) -> io::Result<Sample> {
    let done = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let up_config = config(up_local(), settings);
    let (up, up_ch) = if scenario == Scenario::Establishment {
        let handler = |req: &RequestView<'_>| HandlerReply::Respond(accepted(req.message()));
        common::bind_with_handler(up_config, handler).await
    } else {
        common::bind(up_config).await
    };
    let (cp, cp_ch) = common::bind(config(cp_local(), settings)).await;
    let to = up.local_addr();
    if scenario != Scenario::Heartbeat {
        cp.associate(to).await.map_err(io::Error::other)?;
    }
    if scenario == Scenario::EstablishmentChannel {
        common::serve(up_ch, |msg| Some(accepted(msg)));
    } else {
        // Keep the UP's receivers open for the whole window.
        tokio::spawn(async move {
            let _held = up_ch;
            std::future::pending::<()>().await;
        });
    }
    let ies = establishment_ies();
    for _ in 0..k {
        let (cp, d, e, ies) = (cp.clone(), done.clone(), errors.clone(), ies.clone());
        tokio::spawn(async move {
            loop {
                let ok = match scenario {
                    Scenario::Heartbeat => cp.heartbeat(to).await.is_ok(),
                    Scenario::Establishment | Scenario::EstablishmentChannel => {
                        let header =
                            Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
                        match cp.request(to, header, ies.clone()).await {
                            Ok(resp) => {
                                Message::decode(&resp.bytes)
                                    .ok()
                                    .and_then(|m| m.cause().ok().flatten())
                                    == Some(Cause::REQUEST_ACCEPTED)
                            }
                            Err(_) => false,
                        }
                    }
                };
                if ok {
                    d.fetch_add(1, Ordering::Relaxed);
                } else {
                    // A failed slot stops: the others keep the loop going, the count shows it.
                    e.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            }
        });
    }
    let sample = window(&done, &errors, settings, None).await;
    drop(cp_ch);
    Ok(sample)
}

fn measure(
    flavour: Flavour,
    scenario: Scenario,
    variant: Variant,
    k: usize,
    settings: &Settings,
) -> io::Result<Sample> {
    let rt = runtime(flavour)?;
    let size = match scenario {
        Scenario::Heartbeat => HEARTBEAT_LEN,
        Scenario::Establishment | Scenario::EstablishmentChannel => establishment_len(),
    };
    let sample = rt.block_on(async {
        match variant {
            Variant::Echo => echo(size, k, false, settings).await,
            Variant::CEcho => echo(size, k, true, settings).await,
            Variant::Endpoint => endpoints(scenario, k, settings).await,
        }
    });
    rt.shutdown_timeout(Duration::from_secs(1));
    sample
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| !x.is_nan());
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let hi = v.get(n / 2).copied().unwrap_or(f64::NAN);
    if n % 2 == 1 {
        hi
    } else {
        (v.get(n / 2 - 1).copied().unwrap_or(hi) + hi) / 2.0
    }
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .filter(|x| !x.is_nan())
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
    let settings = Settings::from_env();
    println!(
        "# pfcp-node endpoint vs tokio and C UDP echo: window {:.1} s, warm-up {:.1} s, {} repetitions, \
         K = {:?}, guard {}, response cache {}, nproc {}, loadavg before {}",
        settings.window.as_secs_f64(),
        settings.warmup.as_secs_f64(),
        settings.reps,
        settings.ks,
        if settings.default_guard {
            "default"
        } else {
            "open"
        },
        settings
            .cache
            .map_or_else(|| "default".to_owned(), |n| n.to_string()),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        loadavg(),
    );
    println!(
        "# request sizes: heartbeat {HEARTBEAT_LEN} octets, establishment {} octets",
        establishment_len()
    );
    for &flavour in &settings.flavours {
        // (scenario, k) -> (echo samples, endpoint samples, C echo samples)
        let points: Vec<(Scenario, usize)> = settings
            .scenarios
            .iter()
            .flat_map(|&s| settings.ks.iter().map(move |&k| (s, k)))
            .collect();
        let mut results: Vec<(Vec<Sample>, Vec<Sample>, Vec<Sample>)> = points
            .iter()
            .map(|_| (Vec::new(), Vec::new(), Vec::new()))
            .collect();
        for rep in 0..settings.reps {
            for (&(scenario, k), (echoes, eps, c_echoes)) in points.iter().zip(results.iter_mut()) {
                let mut order = [Variant::Echo, Variant::CEcho, Variant::Endpoint];
                if rep % 2 == 1 {
                    order.reverse();
                }
                let wanted = |v: &Variant| {
                    settings.variants.contains(v)
                        && (*v != Variant::CEcho || settings.c_echo.is_some())
                };
                for variant in order.into_iter().filter(wanted) {
                    let s = measure(flavour, scenario, variant, k, &settings)?;
                    println!(
                        "{{\"scenario\":\"S4\",\"runtime\":\"{flavour}\",\"msg\":\"{scenario}\",\
                         \"k\":{k},\"variant\":\"{variant}\",\"rep\":{rep},\"rt_per_s\":{:.0},\
                         \"cpu_us_per_rt\":{:.2},\"user_share\":{:.2},\"errors\":{},\
                         \"loadavg\":{}}}",
                        s.rate,
                        s.cpu_us,
                        s.user_share,
                        s.errors,
                        loadavg()
                    );
                    match variant {
                        Variant::Echo => echoes.push(s),
                        Variant::CEcho => c_echoes.push(s),
                        Variant::Endpoint => eps.push(s),
                    }
                }
            }
        }
        println!();
        println!(
            "## runtime {flavour}: medians of {} repetitions",
            settings.reps
        );
        println!();
        println!(
            "| scenario | K | echo rt/s | endpoint rt/s | ratio endpoint/echo (min–max) \
             | CPU µs/rt echo | CPU µs/rt endpoint | CPU ratio echo/endpoint (min–max) \
             | user share echo / endpoint | errors |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (&(scenario, k), (echoes, eps, _)) in points.iter().zip(results.iter()) {
            // Per repetition: the pair measured back to back.
            let pairs = || echoes.iter().zip(eps.iter());
            let ratios: Vec<f64> = pairs().map(|(e, p)| p.rate / e.rate).collect();
            let cpu_ratios: Vec<f64> = pairs().map(|(e, p)| e.cpu_us / p.cpu_us).collect();
            let (lo, hi) = min_max(&ratios);
            let (cpu_lo, cpu_hi) = min_max(&cpu_ratios);
            let med = |v: &[Sample], f: fn(&Sample) -> f64| median(v.iter().map(f).collect());
            println!(
                "| {scenario} | {k} | {:.0} | {:.0} | {:.2} ({:.2}–{:.2}) | {:.1} | {:.1} \
                 | {:.2} ({:.2}–{:.2}) | {:.2} / {:.2} | {} |",
                med(echoes, |s| s.rate),
                med(eps, |s| s.rate),
                median(ratios),
                lo,
                hi,
                med(echoes, |s| s.cpu_us),
                med(eps, |s| s.cpu_us),
                median(cpu_ratios),
                cpu_lo,
                cpu_hi,
                med(echoes, |s| s.user_share),
                med(eps, |s| s.user_share),
                eps.iter().map(|s| s.errors).sum::<u64>(),
            );
        }
        println!();
        if results.iter().all(|(_, _, c)| c.is_empty()) {
            continue;
        }
        println!("Against the C echo (`benches/udp_echo.c`, its CPU time included):");
        println!();
        println!(
            "| scenario | K | C echo rt/s | endpoint rt/s | ratio endpoint/C echo (min–max) \
             | CPU µs/rt C echo | CPU µs/rt endpoint | CPU ratio C echo/endpoint (min–max) |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (&(scenario, k), (_, eps, c_echoes)) in points.iter().zip(results.iter()) {
            let pairs = || c_echoes.iter().zip(eps.iter());
            let ratios: Vec<f64> = pairs().map(|(e, p)| p.rate / e.rate).collect();
            let cpu_ratios: Vec<f64> = pairs().map(|(e, p)| e.cpu_us / p.cpu_us).collect();
            let (lo, hi) = min_max(&ratios);
            let (cpu_lo, cpu_hi) = min_max(&cpu_ratios);
            let med = |v: &[Sample], f: fn(&Sample) -> f64| median(v.iter().map(f).collect());
            println!(
                "| {scenario} | {k} | {:.0} | {:.0} | {:.2} ({:.2}–{:.2}) | {:.1} | {:.1} \
                 | {:.2} ({:.2}–{:.2}) |",
                med(c_echoes, |s| s.rate),
                med(eps, |s| s.rate),
                median(ratios),
                lo,
                hi,
                med(c_echoes, |s| s.cpu_us),
                med(eps, |s| s.cpu_us),
                median(cpu_ratios),
                cpu_lo,
                cpu_hi,
            );
        }
        println!();
    }
    Ok(())
}
