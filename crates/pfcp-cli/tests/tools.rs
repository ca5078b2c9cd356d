//! `pfcp up` and `pfcp cp` as a user runs them, on loopback: a CP load generator at four
//! times a UP emulator's capacity is throttled by the UP's overload control, emergency
//! sessions keep their priority, and the summary is one JSON object.

mod procs;

use std::net::UdpSocket;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use procs::{n, pfcp, start_up, summary};
use serde_json::Value;

/// The largest Overload Reduction Metric in `pfcp up`'s status lines so far.
fn max_overload_metric(lines: &mpsc::Receiver<String>) -> u64 {
    lines
        .try_iter()
        .filter_map(|l| {
            let rest = l.split("overload metric").nth(1)?;
            rest.split('%').next()?.trim().parse::<u64>().ok()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn cp_load_is_throttled_by_the_up_overload_control() {
    let up = start_up(&[
        "--capacity",
        "500",
        "--node-scoped",
        "--duration-secs",
        "30",
    ]);
    // Four times the UP's capacity, for 3 s.
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--rate",
        "2000",
        "--duration-secs",
        "3",
        "--mix",
        "emergency=5,arp2=25,arp12=70",
        "--t1-ms",
        "500",
        "--n1",
        "1",
        "--json",
    ]);
    let s = summary(&out);
    let offered = n(&s, "/offered");
    assert!(offered >= 3000, "the pacer fell far behind: {offered}");
    assert_eq!(
        n(&s, "/sent") + n(&s, "/throttled") + n(&s, "/errors"),
        offered
    );
    assert!(n(&s, "/succeeded") > 0);
    // The UP's OCIs reached the CP, and its overload control shed load locally.
    assert!(n(&s, "/ups/0/ocis") > 0);
    assert!(n(&s, "/throttled") > 0);
    assert!(max_overload_metric(&up.lines) > 0);
    // Emergency sessions are established whatever the overload: the reduction is taken from
    // the lower priorities (the establishments of the other classes are 95 % of them).
    assert_eq!(
        n(&s, "/by_class/emergency/by_request/establishment/throttled"),
        0
    );
    // Throttled last: a smaller share of emergency requests than of ARP 12 ones. (Their
    // modifications and deletions can be throttled: most sessions established are emergency
    // or ARP 2 ones, so the reduction of requests on sessions cannot always be reached from
    // the rest, clause 6.2.4.5.1.)
    let share = |class: &str| {
        n(&s, &format!("/by_class/{class}/throttled")) as f64
            / n(&s, &format!("/by_class/{class}/offered")).max(1) as f64
    };
    assert!(share("emergency") < share("arp12"), "{s}");
    assert!(s.pointer("/latency_ms/p50").is_some_and(Value::is_f64));
    assert!(s.pointer("/latency_ms/p99").is_some_and(Value::is_f64));
    // The counts above each bound, for combining processes: bounds in order, counts falling.
    let above: Vec<(u64, u64)> = s
        .pointer("/latency_ms/above_ms")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|x| (n(x, "/ms"), n(x, "/count"))).collect())
        .unwrap_or_default();
    assert_eq!(
        above.iter().map(|a| a.0).collect::<Vec<_>>(),
        [5, 10, 15, 20, 50, 100],
        "{s}"
    );
    let samples = n(&s, "/latency_ms/samples");
    assert!(above.windows(2).all(|w| w[1].1 <= w[0].1), "{s}");
    assert!(above.first().is_some_and(|a| a.1 <= samples), "{s}");
    assert_eq!(
        s.pointer("/by_request")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect::<Vec<_>>()),
        Some(vec![
            "establishment".to_string(),
            "modification".to_string(),
            "deletion".to_string()
        ])
    );

    // With the regional rule, no emergency request at all is throttled.
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--rate",
        "2000",
        "--duration-secs",
        "2",
        "--never-throttle-exempt",
        "--t1-ms",
        "500",
        "--n1",
        "1",
        "--json",
    ]);
    let s = summary(&out);
    assert!(n(&s, "/succeeded") > 0);
    assert!(n(&s, "/throttled") > 0);
    assert!(n(&s, "/by_class/emergency/offered") > 0);
    assert_eq!(n(&s, "/by_class/emergency/throttled"), 0);
}

/// A failure is one line on stderr and exit status 1.
fn fails_with(args: &[&str], expected: &str) {
    fails_with_status(args, expected, 1);
}

/// A failure is one line on stderr and exit status `status`.
fn fails_with_status(args: &[&str], expected: &str, status: i32) {
    let out = pfcp(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
}

#[test]
fn errors_are_one_line() {
    // Nobody there: the association times out (within a second: no progress line), status 3.
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    fails_with_status(
        &["cp", "--up", &addr, "--t1-ms", "100", "--n1", "0"],
        &format!("pfcp cp: no answer from {addr} to the Association Setup Request (sent once)"),
        3,
    );
    fails_with(
        &["cp", "--up", &addr, "--mix", "gold=1"],
        "pfcp cp: --mix: unknown class",
    );
    fails_with(
        &["cp", "--up", &addr, "--up-weights", "3,1"],
        "pfcp cp: --up-weights: 2 weights for 1 --up",
    );
    fails_with(
        &["up", "--listen", &addr, "--duration-secs", "1"],
        &format!("pfcp up: cannot listen on {addr}"),
    );
    fails_with(
        &["up", "--listen", "127.0.0.1:0", "--capacity", "0"],
        "pfcp up: --capacity",
    );
}

/// `pfcp up`'s first line says both wait bounds, the priority-0 one as configured.
#[test]
fn up_first_line_says_the_wait_bounds() {
    let first = |extra: &[&str]| {
        let mut args = vec!["up", "--listen", "127.0.0.1:0", "--duration-secs", "1"];
        args.extend_from_slice(extra);
        let out = pfcp(&args);
        assert!(out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        stderr.lines().next().unwrap_or_default().to_owned()
    };
    let default = first(&[]);
    assert!(
        default.contains("max wait 15 ms (priority 0: 200 ms)"),
        "{default}"
    );
    let set = first(&["--priority-max-wait-ms", "15", "--max-wait-ms", "20"]);
    assert!(set.contains("max wait 20 ms (priority 0: 15 ms)"), "{set}");
    let none = first(&["--priority-max-wait-ms", "0"]);
    assert!(none.contains("(priority 0: none)"), "{none}");
}

#[test]
fn cp_help_documents_the_loss_mode() {
    let out = pfcp(&["cp", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("--loss-mode <MODE>"), "{help}");
    // Both values, with what each favours, and the default.
    for text in [
        "priority",
        "exact",
        "[default: priority]",
        "one percentage point",
    ] {
        assert!(help.contains(text), "{text:?} missing in:\n{help}");
    }
}

/// `--loss-mode exact`: the Loss throttles pace the drops window-exactly, blind to the
/// priority of non-exempt requests (each class sheds about the same share), and never throttle
/// emergency requests (pfcp-throttle's `LossConfig::exact_window`).
#[test]
fn cp_exact_loss_mode_sheds_every_class_alike() {
    let up = start_up(&[
        "--capacity",
        "500",
        "--node-scoped",
        "--duration-secs",
        "30",
    ]);
    let out = pfcp(&[
        "cp",
        "--up",
        &up.addr,
        "--rate",
        "1000",
        "--duration-secs",
        "3",
        "--mix",
        "emergency=5,arp2=25,arp12=70",
        "--loss-mode",
        "exact",
        "--t1-ms",
        "500",
        "--n1",
        "1",
        "--json",
    ]);
    let s = summary(&out);
    assert_eq!(
        s.pointer("/loss_mode").and_then(Value::as_str),
        Some("exact")
    );
    assert!(n(&s, "/succeeded") > 0);
    assert!(n(&s, "/ups/0/ocis") > 0);
    assert!(n(&s, "/throttled") > 0);
    // Exempt requests are neither counted nor throttled in this mode, on any destination.
    assert!(n(&s, "/by_class/emergency/offered") > 0);
    assert_eq!(n(&s, "/by_class/emergency/throttled"), 0);
    // Class-blind: the establishments of ARP 2 shed the share ARP 12 ones do. (At twice the
    // capacity the reduction is about 60 %: the default mode takes it from ARP 12, some 85 % of
    // whose establishments go, and ARP 2 keeps almost all of its own.)
    let share = |class: &str| {
        let at = |what: &str| format!("/by_class/{class}/by_request/establishment/{what}");
        n(&s, &at("throttled")) as f64 / n(&s, &at("offered")).max(1) as f64
    };
    let (arp2, arp12) = (share("arp2"), share("arp12"));
    assert!(arp12 > 0.2, "{s}");
    assert!(
        (arp2 - arp12).abs() < 0.15,
        "ARP 2 shed {arp2:.3} of its establishments, ARP 12 {arp12:.3}: {s}"
    );
}

/// A TCP port nobody listens on right now.
fn free_tcp_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One scrape of a Prometheus endpoint: the exposition text (HTTP/1.0, so not chunked).
fn scrape(addr: &str) -> String {
    use std::io::{Read, Write};
    let mut last = None;
    for _ in 0..50 {
        match std::net::TcpStream::connect(addr) {
            Ok(mut s) => {
                s.write_all(b"GET /metrics HTTP/1.0\r\n\r\n").unwrap();
                let mut text = String::new();
                s.read_to_string(&mut text).unwrap();
                assert!(text.starts_with("HTTP/1."), "{text}");
                assert!(text.contains(" 200 "), "{text}");
                return text.split("\r\n\r\n").nth(1).unwrap_or("").to_owned();
            }
            Err(e) => last = Some(e),
        }
        thread::sleep(Duration::from_millis(100));
    }
    panic!("no scrape endpoint at {addr}: {last:?}");
}

/// The sum of the samples of `name` whose labels include every one of `labels`.
fn sample_sum(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            let metric = series.split('{').next()?;
            (metric == name && labels.iter().all(|want| series.contains(want)))
                .then(|| value.parse::<f64>().ok())?
        })
        .sum()
}

#[test]
fn metrics_endpoints_serve_what_the_summaries_say() {
    let up_metrics = format!("127.0.0.1:{}", free_tcp_port());
    let up = start_up(&["--capacity", "1000", "--metrics", &up_metrics]);
    let cp_metrics = format!("127.0.0.1:{}", free_tcp_port());
    let cp = {
        let (up_addr, cp_metrics) = (up.addr.clone(), cp_metrics.clone());
        thread::spawn(move || {
            pfcp(&[
                "cp",
                "--up",
                &up_addr,
                "--rate",
                "2000",
                "--duration-secs",
                "3",
                "--json",
                "--metrics",
                &cp_metrics,
            ])
        })
    };
    // While the CP runs: its requests by class and outcome, and the CP side's overload
    // counters from pfcp-node.
    thread::sleep(Duration::from_millis(2000));
    let during = scrape(&cp_metrics);
    assert!(during.contains("# HELP pfcp_cp_requests_total"), "{during}");
    let emergency = sample_sum(&during, "pfcp_cp_requests_total", &[r#"class="emergency""#]);
    assert!(emergency > 0.0, "{during}");
    assert!(
        sample_sum(&during, "pfcp_oci_received_total", &[]) > 0.0,
        "{during}"
    );
    assert!(
        sample_sum(&during, "pfcp_cp_request_duration_seconds_count", &[]) > 0.0,
        "{during}"
    );
    // The OCIs by the UP function that sent them (its Node ID as the `peer` label).
    assert!(
        sample_sum(
            &during,
            "pfcp_cp_oci_received_total",
            &[r#"peer="upf1.example.net""#]
        ) > 0.0,
        "{during}"
    );
    assert_described(&during);
    let s = summary(&cp.join().unwrap());
    // After the CP has settled every transaction, the UP's endpoint agrees with the CP's
    // summary: every accepted answer the CP counted was served and counted by the UP. `pfcp
    // up` exports its admission's counters every 20 ms: the scrape waits for the next export.
    let mut after = scrape(&up_metrics);
    for _ in 0..50 {
        let served = sample_sum(&after, "pfcp_admission_served_total", &[]);
        if served >= n(&s, "/succeeded") as f64 {
            break;
        }
        thread::sleep(Duration::from_millis(20));
        after = scrape(&up_metrics);
    }
    let accepted = sample_sum(
        &after,
        "pfcp_up_requests_answered_total",
        &[r#"outcome="accepted""#],
    );
    assert_eq!(accepted, n(&s, "/succeeded") as f64, "{after}");
    assert_eq!(
        sample_sum(&after, "pfcp_admission_served_total", &[]),
        accepted,
        "{after}"
    );
    let rejected_74 = s
        .pointer("/rejected_by_cause/74")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    assert!(
        sample_sum(&after, "pfcp_requests_rejected_total", &[]) >= rejected_74 as f64,
        "{after}"
    );
    assert!(after.contains("pfcp_oci_sent_total"), "{after}");
    // The UP's answers by the CP function that asked (its default Node ID names its PID).
    assert!(
        sample_sum(
            &after,
            "pfcp_up_requests_answered_total",
            &[r#"peer="smf-"#]
        ) > 0.0,
        "{after}"
    );
    assert_described(&after);
}

/// Every metric of a scrape has its `# HELP` line (a summary's `_sum` and `_count` are
/// described under its own name).
fn assert_described(text: &str) {
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let name = line.split(['{', ' ']).next().unwrap_or_default();
        let base = name
            .strip_suffix("_sum")
            .or_else(|| name.strip_suffix("_count"))
            .unwrap_or(name);
        assert!(
            text.contains(&format!("# HELP {name} ")) || text.contains(&format!("# HELP {base} ")),
            "{name} has no description:\n{text}"
        );
    }
}

#[test]
fn metrics_address_errors_are_one_line() {
    fails_with(
        &["up", "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0"],
        "pfcp up: --metrics needs a port",
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    fails_with(
        &[
            "up",
            "--listen",
            "127.0.0.1:0",
            "--metrics",
            &addr,
            "--duration-secs",
            "1",
        ],
        &format!("pfcp up: --metrics {addr}:"),
    );
}

#[test]
fn cp_egress_sets_route_groups_and_the_level_summary() {
    // The router's PCEMT through `pfcp cp`: UP1 has a small connection (Max EMR 100/s, one
    // pair 60/55 %, level-only) and UP2 a large one; the route list prefers UP1. At level 1,
    // UP1's connection refuses PFCP priorities 12..=15 (ARP 12): their establishments go to
    // UP2 (the refused checks are not offered load on UP1), ARP 2 passes the level.
    let (up1, up2) = two_ups("30");
    let path = std::env::temp_dir().join(format!("pfcp-egress-{}.toml", std::process::id()));
    let text = format!(
        "route_groups = [[\"{a}\"], [\"{b}\"]]\n\
         [sets.small]\nmax_rate = 100\nlevels = \"60/55\"\nlevel_only = true\n\
         [sets.big]\nmax_rate = 100000\n\
         [[peer]]\nup = \"{a}\"\nset = \"small\"\n\
         [[peer]]\nup = \"{b}\"\nset = \"big\"\n",
        a = up1.addr,
        b = up2.addr
    );
    std::fs::write(&path, text).unwrap();
    let config = path.to_string_lossy().into_owned();
    let out = pfcp(&[
        "cp",
        "--up",
        &up1.addr,
        "--up",
        &up2.addr,
        "--select",
        "round-robin",
        "--egress-config",
        &config,
        "--rate",
        "300",
        "--duration-secs",
        "3",
        "--mix",
        "arp2=50,arp12=50",
        "--track-state",
        "--json",
    ]);
    let _ = std::fs::remove_file(&path);
    let s = summary(&out);
    let egress = s.pointer("/egress").and_then(Value::as_array).unwrap();
    let small = egress
        .iter()
        .find(|e| e["node_id"] == "upf1.example.net")
        .unwrap_or_else(|| panic!("no egress row for UP1: {s}"));
    assert_eq!(small["max_rate"], 100);
    assert_eq!(small["hard_cap"], false);
    let levels: Vec<u64> = small["levels"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert!(
        levels.contains(&1),
        "UP1 at level 1 at some point: {levels:?}"
    );
    assert!(n(small, "/checks_refused") > 0, "{small}");
    // ARP 12 establishments asked of UP1 went to UP2; ARP 2 was never refused.
    assert!(
        n(&s, "/by_class/arp12/by_request/establishment/redirected") > 0,
        "{s}"
    );
    assert_eq!(n(&s, "/by_class/arp2/throttled"), 0, "{s}");
    // Level-only: what was shed, was shed by a level (UP2's large set sheds nothing).
    let shed = s
        .pointer("/shed_by_reason")
        .and_then(Value::as_object)
        .unwrap();
    assert!(
        shed.keys().all(|k| k.starts_with("egress level")),
        "{shed:?}"
    );
    // --track-state: the modifications that follow an accepted establishment rank higher
    // (C.2), and the summary counts them under that classification.
    let labels = s
        .pointer("/by_classification")
        .and_then(Value::as_object)
        .unwrap();
    let follows: u64 = labels
        .iter()
        .filter(|(k, _)| k.contains("registered+follows_admitted"))
        .map(|(_, v)| n(v, "/sent"))
        .sum();
    assert!(follows > 0, "{labels:?}");
}

/// Two `pfcp up` of 5000 requests/s for `secs` seconds, upf1 and upf2.example.net.
fn two_ups(secs: &str) -> (procs::Up, procs::Up) {
    let up = |node: &str| {
        start_up(&[
            "--capacity",
            "5000",
            "--duration-secs",
            secs,
            "--node-id",
            node,
        ])
    };
    (up("upf1.example.net"), up("upf2.example.net"))
}

/// `--up-weights`: with static weights the new sessions follow them, the LCI only correcting
/// the split (two UP functions far from their capacity: about 3 to 1 for weights 3,1, where
/// equal weights give about 1 to 1).
#[test]
fn cp_up_weights_split_new_sessions() {
    let (up1, up2) = two_ups("20");
    let share = |weights: Option<&str>| {
        let mut args = vec![
            "cp",
            "--up",
            &up1.addr,
            "--up",
            &up2.addr,
            "--rate",
            "300",
            "--duration-secs",
            "3",
            "--json",
        ];
        if let Some(w) = weights {
            args.extend(["--up-weights", w]);
        }
        let s = summary(&pfcp(&args));
        let [a, b] = [0, 1].map(|i| n(&s, &format!("/ups/{i}/sessions")) as f64);
        assert!(a + b > 100.0, "{s}");
        a / (a + b)
    };
    let weighted = share(Some("3,1"));
    assert!(
        (0.68..=0.82).contains(&weighted),
        "weights 3,1: {weighted:.3}"
    );
    let equal = share(None);
    assert!((0.4..=0.6).contains(&equal), "equal weights: {equal:.3}");
}

/// A `pfcp up --series-ms 100 --json` of `capacity` requests/s for `secs` seconds on a free
/// loopback port, started half a second ago: its address and the thread waiting for its output.
fn up_with_series(
    capacity: &'static str,
    secs: &'static str,
) -> (String, thread::JoinHandle<std::process::Output>) {
    let port = procs::free_udp_port();
    let listen = format!("127.0.0.1:{port}");
    let up = {
        let listen = listen.clone();
        thread::spawn(move || {
            pfcp(&[
                "up",
                "--listen",
                &listen,
                "--capacity",
                capacity,
                "--duration-secs",
                secs,
                "--series-ms",
                "100",
                "--json",
            ])
        })
    };
    thread::sleep(Duration::from_millis(500));
    (listen, up)
}

/// `pfcp up --series-ms`: the summary's series adds up to its totals, period by period in
/// order, so that a step of load can be read off the UP function with the shipped tools.
#[test]
fn up_series_adds_up_to_the_summary() {
    let (listen, up) = up_with_series("500", "3");
    // Twice the capacity for a second: some requests are served, some refused.
    let cp = summary(&pfcp(&[
        "cp",
        "--up",
        &listen,
        "--rate",
        "1000",
        "--duration-secs",
        "1",
        "--json",
    ]));
    assert!(n(&cp, "/succeeded") > 0);
    let s = summary(&up.join().unwrap());
    let series = s["series"].as_array().expect("a series");
    assert!(series.len() >= 2, "{s}");
    for key in ["served", "rejected_74", "refused"] {
        let sum: u64 = series.iter().map(|p| n(p, &format!("/{key}"))).sum();
        assert_eq!(sum, n(&s, &format!("/{key}")), "{key}");
    }
    let t: Vec<f64> = series.iter().filter_map(|p| p["t"].as_f64()).collect();
    assert_eq!(t.len(), series.len());
    assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
    assert!(series.iter().any(|p| n(p, "/served") > 0));
    // At twice the capacity the UP published a metric; the series samples it, so its largest
    // is above 0 and no larger than the summary's peak.
    let metric = series.iter().map(|p| n(p, "/metric")).max();
    assert!(
        metric.is_some_and(|m| m > 0 && m <= n(&s, "/max_overload_metric")),
        "{metric:?}: {s}"
    );
    // The control interval of the OCIs: the default.
    assert_eq!(s["interval_ms"].as_u64(), Some(200), "{s}");
    // The target load: the default 1.2, sized to the arrivals; where a status line saw the
    // overload, what it was then lies within the sizing's range.
    assert_eq!(s["target_load"]["configured"].as_f64(), Some(1.2), "{s}");
    assert_eq!(s["target_load"]["sized"].as_bool(), Some(true), "{s}");
    let last = &s["target_load"]["last_overloaded"];
    assert!(
        last.is_null() || last.as_f64().is_some_and(|t| (1.0..=1.5).contains(&t)),
        "{s}"
    );
    // The CP stopped more than a second before the UP: its queue is empty at the end, also
    // when the last requests in it expired rather than being served.
    assert_eq!(series.last().map(|p| n(p, "/queue")), Some(0), "{s}");
}

/// `pfcp cp --rate-steps`: the offered rate follows the schedule (the CP's own step of
/// demand), the summary echoes it, and the UP function's series shows the step.
#[test]
fn cp_rate_steps_change_the_offered_rate() {
    let (listen, up) = up_with_series("5000", "4");
    // 200/s for a second, then 1000/s for a second: 1 200 offered, well within the capacity.
    let cp = summary(&pfcp(&[
        "cp",
        "--up",
        &listen,
        "--rate",
        "200",
        "--rate-steps",
        "1:1000",
        "--duration-secs",
        "2",
        "--json",
    ]));
    let offered = n(&cp, "/offered");
    assert!((1140..=1210).contains(&offered), "{cp}");
    assert_eq!(cp["rate_steps"][0]["at_secs"].as_f64(), Some(1.0), "{cp}");
    assert_eq!(cp["rate_steps"][0]["rate"].as_f64(), Some(1000.0), "{cp}");
    // The UP's busiest period is the high rate's (about 100 in 100 ms), and its busy
    // periods before that the low rate's (about 20).
    let s = summary(&up.join().unwrap());
    let served: Vec<u64> = s["series"]
        .as_array()
        .expect("a series")
        .iter()
        .map(|p| n(p, "/served"))
        .collect();
    let peak = served.iter().copied().max().unwrap_or(0);
    assert!((85..=120).contains(&peak), "{served:?}");
    let first_busy = served.iter().position(|&x| x > 0).unwrap_or(0);
    let low = served.get(first_busy + 1..first_busy + 9).unwrap_or(&[]);
    assert!(
        !low.is_empty() && low.iter().all(|&x| (10..=30).contains(&x)),
        "{served:?}"
    );
}

/// `--rate-steps` out of order or past the run is a one-line error naming the flag.
#[test]
fn cp_rate_steps_must_be_in_order_within_the_run() {
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    fails_with(
        &["cp", "--up", &addr, "--rate-steps", "2:500,1:100"],
        "pfcp cp: --rate-steps: 1:100 must come after 2 s",
    );
    fails_with(
        &[
            "cp",
            "--up",
            &addr,
            "--duration-secs",
            "3",
            "--rate-steps",
            "3:500",
        ],
        "before --duration-secs (3 s)",
    );
    let out = pfcp(&["cp", "--up", &addr, "--rate-steps", "1:fast"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("rate \"fast\" is not a non-negative number"),
        "{stderr}"
    );
}
