#![cfg(feature = "tokio")]
//! Interop over loopback with an independent PFCP implementation: scapy's PFCP layer
//! (`scapy.contrib.pfcp`), driven by the Python peers in `tests/interop/`.
//!
//! * `scapy_up_client.py` acts as a CP towards our UP [`Endpoint`]: association, heartbeat,
//!   a Session Establishment answered by this test's application task, a version-2 request
//!   (Version Not Supported Response) and a session request from an unassociated socket
//!   (Cause 72). It checks scapy's reading of every response and exits 0 when all pass.
//!   With admission control on our UP and `--burst`, scapy also reads the OCI and LCI our
//!   overloaded UP piggybacks on its Session Establishment Responses.
//! * `scapy_up_server.py` acts as a UP towards our CP [`Endpoint`]: its session responses
//!   carry an Overload Control Information and a Load Control Information built by scapy,
//!   which `pfcp-wire` must decode as scapy meant them (and byte-exact as sent). It also
//!   prints scapy's reading of every request of ours, checked here. With CP overload control
//!   on, our CP throttles by scapy's OCI.
//!
//! Each test prints "scapy not available, skipping interop test" and passes when
//! `python3 -c "import scapy.contrib.pfcp"` fails (`PFCP_INTEROP_PYTHON` overrides `python3`).

mod common;

use std::io::{BufRead, BufReader, Read};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use bytes::Bytes;
use pfcp_node::{
    AdmissionConfig, CpConfig, EndpointConfig, LocalNode, PeerEvent, RequestProfile,
    TransactionConfig,
};
use pfcp_overload::NodeKey;
use pfcp_test_support::skip::skip_judge;
use pfcp_wire::ie::{
    ControlSequenceNumber, Fqdn, Metric, NodeId, OciFlags, RecoveryTimeStamp, Timer, TimerUnit,
};
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{Cause, Header, Message, MessageType};
use tokio::sync::mpsc;
use tokio::time::Instant;

use common::{accepted_by, bind, endpoint_config, next_event, WAIT};

/// Upper bound for one Python peer's whole run.
const SCRIPT_LIMIT: Duration = Duration::from_secs(15);

const UP_NODE: &str = "upf1.example.net";
const UP_RTS: u32 = 0xE8F4_A2B0;
const CP_RTS: u32 = 0xE8F4_0000;
/// What `scapy_up_client.py` sends (its constants).
const SCAPY_CP_NODE: &str = "scapy-smf.example.org";
const SCAPY_CP_SEID: u64 = 0x1122_3344_5566_7788;
/// What `scapy_up_server.py` answers with (its defaults).
const SCAPY_UP_NODE: &str = "scapy-upf.example.org";
const SCAPY_OCI_SEQ: u32 = 7;
const SCAPY_OCI_METRIC: u8 = 40;
const SCAPY_LCI_SEQ: u32 = 7;
const SCAPY_LCI_METRIC: u8 = 25;

fn config(local: LocalNode) -> EndpointConfig {
    endpoint_config(local).with_transactions(
        TransactionConfig::default()
            .with_t1(Duration::from_millis(500))
            .with_n1(2),
    )
}

fn up_node() -> LocalNode {
    LocalNode::up(NodeKey::fqdn(UP_NODE), RecoveryTimeStamp(UP_RTS))
}

fn cp_node() -> LocalNode {
    LocalNode::cp(
        NodeKey::Ip(Ipv4Addr::LOCALHOST.into()),
        RecoveryTimeStamp(CP_RTS),
    )
}

/// Update FAR (FAR ID 1, Apply Action DROP).
fn modification_ies() -> Bytes {
    Bytes::from(parse_hex("000a000d006c000400000001002c000101").unwrap())
}

fn python() -> String {
    std::env::var("PFCP_INTEROP_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

fn scapy_available() -> bool {
    Command::new(python())
        .args(["-c", "import scapy.contrib.pfcp"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

macro_rules! skip_without_scapy {
    () => {
        if !scapy_available() {
            skip_judge("interop", "scapy not available");
            return;
        }
    };
}

/// A running Python peer. Its stdout and stderr are collected by reader threads; the process
/// is killed when this guard drops (also when the test panics).
struct Script {
    name: &'static str,
    child: Child,
    stdout: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<String>>,
    readers: Vec<JoinHandle<()>>,
}

impl Script {
    fn spawn(name: &'static str, args: &[&str]) -> Script {
        let path = format!("{}/tests/interop/{name}", env!("CARGO_MANIFEST_DIR"));
        let mut child = Command::new(python())
            .args(["-u", "-B"])
            .arg(&path)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {path}: {e}"));
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(String::new()));
        let out_pipe = child.stdout.take().unwrap();
        let err_pipe = child.stderr.take().unwrap();
        let lines = Arc::clone(&stdout);
        let out_reader = std::thread::spawn(move || {
            for line in BufReader::new(out_pipe).lines() {
                match line {
                    Ok(l) => lines.lock().unwrap().push(l),
                    Err(_) => break,
                }
            }
        });
        let text = Arc::clone(&stderr);
        let err_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            let mut pipe = err_pipe;
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                text.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Script {
            name,
            child,
            stdout,
            stderr,
            readers: vec![out_reader, err_reader],
        }
    }

    fn lines(&self) -> Vec<String> {
        self.stdout.lock().unwrap().clone()
    }

    /// Everything the script printed so far, for failure messages.
    fn transcript(&self) -> String {
        format!(
            "----- {} stdout -----\n{}\n----- {} stderr -----\n{}",
            self.name,
            self.lines().join("\n"),
            self.name,
            self.stderr.lock().unwrap()
        )
    }

    /// The first stdout line matching `pred`, waiting up to `limit`.
    async fn wait_line(&self, limit: Duration, pred: impl Fn(&str) -> bool) -> Option<String> {
        let end = Instant::now() + limit;
        loop {
            if let Some(l) = self.stdout.lock().unwrap().iter().find(|l| pred(l)) {
                return Some(l.clone());
            }
            if Instant::now() >= end {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Wait (without blocking the runtime) for the process to exit and its output to be read.
    async fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let end = Instant::now() + limit;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                break s;
            }
            if Instant::now() >= end {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        while !self.readers.iter().all(|r| r.is_finished()) && Instant::now() < end {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Some(status)
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// What the test's UP application did with one request.
#[derive(Debug)]
struct Handled {
    message_type: MessageType,
    sequence: u32,
    cp_seid: Option<u64>,
    peer: SocketAddr,
}

/// Bind our UP endpoint with `cfg`, answer its Session Establishment Requests from an
/// application task, run `scapy_up_client.py` against it with `extra` arguments and check it
/// passed. Returns its transcript and what reached the application.
async fn run_scapy_client(cfg: EndpointConfig, extra: &[&str]) -> (String, Vec<Handled>) {
    let (up, ch) = bind(cfg).await;
    let pfcp_node::Channels {
        mut incoming,
        mut events,
    } = ch;

    // The UP application: answers Session Establishment Requests with the CP's SEID.
    let (handled_tx, mut handled_rx) = mpsc::unbounded_channel();
    let app = tokio::spawn(async move {
        while let Some(req) = incoming.recv().await {
            let msg = req.message().unwrap();
            let cp_seid = msg.f_seid().ok().flatten().map(|f| f.seid);
            let _ = handled_tx.send(Handled {
                message_type: msg.message_type(),
                sequence: msg.header().sequence.value(),
                cp_seid,
                peer: req.peer,
            });
            if msg.message_type() != MessageType::SESSION_ESTABLISHMENT_REQUEST {
                continue;
            }
            // The UP's own Node ID (as in the Association Setup Response).
            let node_id = NodeId::Fqdn(Fqdn::from_dotted(UP_NODE).unwrap());
            let response = accepted_by(&msg, node_id, 0x55);
            req.respond(response).await.unwrap();
        }
    });

    let target = up.local_addr().to_string();
    let rts = format!("{UP_RTS:#x}");
    let mut args = vec![
        "--target",
        &target,
        "--expect-rts",
        &rts,
        "--expect-node-id",
        UP_NODE,
    ];
    args.extend_from_slice(extra);
    let mut client = Script::spawn("scapy_up_client.py", &args);
    let status = client.wait_exit(SCRIPT_LIMIT).await;
    let transcript = client.transcript();
    println!("{transcript}");
    if app.is_finished() {
        // The application task only ends by panicking: surface that first.
        app.await.unwrap();
        panic!("the UP application task stopped\n{transcript}");
    }
    match status {
        Some(s) => assert!(s.success(), "scapy_up_client.py failed: {s}\n{transcript}"),
        None => panic!("scapy_up_client.py still running after {SCRIPT_LIMIT:?}\n{transcript}"),
    }
    assert!(
        !transcript.contains("SCAPY-ISSUE"),
        "scapy read our responses differently from their bytes\n{transcript}"
    );

    // The endpoint recorded the association with scapy's Node ID.
    let e = next_event(&mut events).await;
    assert!(
        matches!(&e, PeerEvent::Associated { node, .. } if *node == NodeKey::fqdn(SCAPY_CP_NODE)),
        "{e:?}"
    );
    app.abort();
    let mut handled = Vec::new();
    while let Ok(h) = handled_rx.try_recv() {
        handled.push(h);
    }
    (transcript, handled)
}

#[tokio::test]
async fn scapy_cp_client_against_our_up_endpoint() {
    skip_without_scapy!();
    let (_, handled) = run_scapy_client(config(up_node()), &[]).await;
    // Exactly one request reached the application: the associated socket's establishment.
    // The version-2 request and the unassociated socket's request were answered by the
    // endpoint itself.
    assert_eq!(handled.len(), 1, "{handled:?}");
    let first = &handled[0];
    assert_eq!(
        first.message_type,
        MessageType::SESSION_ESTABLISHMENT_REQUEST
    );
    assert_eq!(first.sequence, 3);
    assert_eq!(first.cp_seid, Some(SCAPY_CP_SEID));
    assert!(first.peer.ip().is_loopback());
}

/// Our UP with admission control, overloaded by a burst from scapy: the OCI and LCI our
/// endpoint piggybacks on its Session Establishment Responses must read back in scapy.
#[tokio::test]
async fn scapy_reads_the_oci_and_lci_of_our_overloaded_up() {
    skip_without_scapy!();
    // 10 establishments per second = 1 per 100 ms control interval; a burst of 8 is 8x that.
    let admission = AdmissionConfig::new(NodeKey::fqdn(UP_NODE))
        .with_service_rate(Some(10.0))
        .with_queue_capacity(4);
    let cfg = config(up_node()).with_admission(admission);
    let (transcript, handled) =
        run_scapy_client(cfg, &["--burst", "8", "--expect-oci", "--expect-lci"]).await;
    assert!(handled.len() >= 2, "{handled:?}");
    // Every OCI/LCI line scapy printed: metric within 0..=100 was checked by the script.
    assert!(transcript.contains("\nOCI burst: "), "{transcript}");
    assert!(transcript.contains("\nLCI burst: "), "{transcript}");
}

/// Check the overload and load information scapy put in a session response.
fn assert_scapy_overload_info(m: &Message<'_>, what: &str) {
    let oci = m
        .overload_control_information()
        .unwrap_or_else(|e| panic!("{what}: OCI does not decode: {e}"))
        .unwrap_or_else(|| panic!("{what}: no OCI"));
    assert_eq!(oci.sequence_number, ControlSequenceNumber(SCAPY_OCI_SEQ));
    assert_eq!(oci.metric, Metric::new(SCAPY_OCI_METRIC).unwrap());
    assert_eq!(oci.metric.percent(), 40);
    assert_eq!(
        oci.period_of_validity,
        Timer::new(TimerUnit::OneMinute, 1).unwrap()
    );
    assert_eq!(
        oci.period_of_validity.duration(),
        Some(Duration::from_secs(60))
    );
    assert_eq!(oci.flags, Some(OciFlags::AOCI));
    assert!(oci.aoci(), "{what}: AOCI");
    let lci = m
        .load_control_information()
        .unwrap_or_else(|e| panic!("{what}: LCI does not decode: {e}"))
        .unwrap_or_else(|| panic!("{what}: no LCI"));
    assert_eq!(lci.sequence_number, ControlSequenceNumber(SCAPY_LCI_SEQ));
    assert_eq!(lci.metric, Metric::new(SCAPY_LCI_METRIC).unwrap());
    m.check_typed_ies()
        .unwrap_or_else(|e| panic!("{what}: typed IEs: {e}"));
}

fn fail(server: &Script, what: &str, e: &dyn std::fmt::Display) -> ! {
    panic!("{what}: {e}\n{}", server.transcript())
}

/// The hex the server logged for its response of type `mt` with sequence `seq`.
async fn sent_hex(server: &Script, mt: u8, seq: u32) -> String {
    let prefix = format!("SENT mt={mt} seq={seq} ");
    let line = server
        .wait_line(WAIT, |l| l.starts_with(&prefix))
        .await
        .unwrap_or_else(|| panic!("server never logged {prefix}\n{}", server.transcript()));
    line.split_whitespace()
        .find_map(|w| w.strip_prefix("hex="))
        .expect("hex= field")
        .to_owned()
}

/// scapy's summary (JSON) of the first request of type `mt` we sent.
async fn received_summary(server: &Script, mt: u8) -> String {
    let prefix = format!("RECV mt={mt} ");
    server
        .wait_line(WAIT, |l| l.starts_with(&prefix))
        .await
        .unwrap_or_else(|| panic!("server never logged {prefix}\n{}", server.transcript()))
}

/// `scapy_up_server.py` running, and the address it listens on (from its `PORT` line).
async fn start_server() -> (Script, SocketAddr) {
    let server = Script::spawn("scapy_up_server.py", &["--max-seconds", "15"]);
    let port_line = server
        .wait_line(WAIT, |l| l.starts_with("PORT "))
        .await
        .unwrap_or_else(|| panic!("no PORT line\n{}", server.transcript()));
    let port: u16 = port_line["PORT ".len()..].trim().parse().unwrap();
    let up_addr: SocketAddr = (Ipv4Addr::LOCALHOST, port).into();
    (server, up_addr)
}

#[tokio::test]
async fn our_cp_endpoint_against_scapy_up_server() {
    skip_without_scapy!();
    let (server, up_addr) = start_server().await;

    let (cp, mut ch) = bind(config(cp_node())).await;

    // Association: scapy's response (Node ID FQDN, Cause, RTS, 2-octet UP features).
    if let Err(e) = cp.associate(up_addr).await {
        fail(&server, "associate", &e);
    }
    let e = next_event(&mut ch.events).await;
    assert!(
        matches!(&e, PeerEvent::Associated { node, .. } if *node == NodeKey::fqdn(SCAPY_UP_NODE)),
        "{e:?}\n{}",
        server.transcript()
    );
    if let Err(e) = cp.heartbeat(up_addr).await {
        fail(&server, "heartbeat", &e);
    }

    // Session Establishment: the response carries scapy's LCI and OCI.
    let resp = match common::establish(&cp, up_addr, RequestProfile::default()).await {
        Ok(r) => r,
        Err(e) => fail(&server, "session establishment", &e),
    };
    let m = Message::decode(&resp.bytes)
        .unwrap_or_else(|e| fail(&server, "establishment response", &e));
    m.validate()
        .unwrap_or_else(|e| fail(&server, "establishment response", &e));
    assert_eq!(
        m.message_type(),
        MessageType::SESSION_ESTABLISHMENT_RESPONSE
    );
    assert_eq!(m.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
    assert_eq!(m.header().seid, Some(1), "the CP SEID of our CP F-SEID");
    assert_eq!(
        m.node_id().unwrap().map(|n| NodeKey::from_node_id(&n)),
        Some(NodeKey::fqdn(SCAPY_UP_NODE))
    );
    let up_seid = m.f_seid().unwrap().expect("UP F-SEID").seid;
    assert_scapy_overload_info(&m, "establishment response");
    let seq = m.header().sequence.value();
    assert_eq!(hex(&resp.bytes), sent_hex(&server, 51, seq).await);

    // Modification and Deletion: same OCI/LCI.
    for (req_type, resp_type, ies) in [
        (
            MessageType::SESSION_MODIFICATION_REQUEST,
            MessageType::SESSION_MODIFICATION_RESPONSE,
            modification_ies(),
        ),
        (
            MessageType::SESSION_DELETION_REQUEST,
            MessageType::SESSION_DELETION_RESPONSE,
            Bytes::new(),
        ),
    ] {
        let resp = match cp
            .request(up_addr, Header::new(req_type).with_seid(up_seid), ies)
            .await
        {
            Ok(r) => r,
            Err(e) => fail(&server, "session request", &e),
        };
        let m =
            Message::decode(&resp.bytes).unwrap_or_else(|e| fail(&server, "session response", &e));
        m.validate()
            .unwrap_or_else(|e| fail(&server, "session response", &e));
        assert_eq!(m.message_type(), resp_type);
        assert_eq!(m.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
        assert_eq!(m.header().seid, Some(1));
        assert_scapy_overload_info(&m, "modification/deletion response");
        assert_eq!(
            hex(&resp.bytes),
            sent_hex(&server, resp_type.0, m.header().sequence.value()).await
        );
    }

    // What scapy read from our requests.
    let setup = received_summary(&server, 5).await;
    for want in [
        r#""node_id":"127.0.0.1","node_id_type":0"#,
        &format!(r#""timestamp":{CP_RTS}"#),
        r#""load":1"#,
        r#""ovrl":1"#,
    ] {
        assert!(
            setup.contains(want),
            "scapy's Association Setup Request lacks {want}: {setup}"
        );
    }
    let hb = received_summary(&server, 1).await;
    assert!(hb.contains(&format!(r#""timestamp":{CP_RTS}"#)), "{hb}");
    let est = received_summary(&server, 50).await;
    for want in [
        &format!(r#""seid":0,"sequence":{seq}"#),
        r#""ipv4":"192.0.2.10","ipv6":null,"length":13,"name":"IE F-SEID","seid":1,"type":57"#,
        r#""name":"IE Create PDR""#,
        r#""name":"IE Create FAR""#,
    ] {
        assert!(
            est.contains(want),
            "scapy's Session Establishment Request lacks {want}: {est}"
        );
    }
    let modif = received_summary(&server, 52).await;
    assert!(modif.contains(&format!(r#""seid":{up_seid},"#)), "{modif}");
    received_summary(&server, 54).await;
    let transcript = server.transcript();
    println!("{transcript}");
    assert!(
        !transcript.contains("SCAPY-ISSUE"),
        "scapy read our requests differently from their bytes\n{transcript}"
    );
}

/// Our CP with overload control applies the OCI scapy built (metric 40, AOCI, 1 minute):
/// about 40 % of later low-priority establishments towards that UP are throttled locally
/// and never reach it.
#[tokio::test]
async fn our_cp_throttles_by_the_oci_scapy_sent() {
    skip_without_scapy!();
    let (server, up_addr) = start_server().await;
    let cfg = config(cp_node()).with_cp(CpConfig::default());
    let (cp, _ch) = bind(cfg).await;
    if let Err(e) = cp.associate(up_addr).await {
        fail(&server, "associate", &e);
    }
    let establish = || common::establish(&cp, up_addr, RequestProfile::default());
    // The first establishment brings the OCI.
    if let Err(e) = establish().await {
        fail(&server, "first establishment", &e);
    }
    let (mut sent, mut throttled) = (0u32, 0u32);
    for _ in 0..50 {
        match establish().await {
            Ok(r) if r.is_local() => {
                assert_eq!(r.cause, Some(Cause::PFCP_ENTITY_IN_CONGESTION));
                throttled += 1;
            }
            Ok(_) => sent += 1,
            Err(e) => fail(&server, "establishment", &e),
        }
    }
    println!("after scapy's OCI (metric 40): {sent} sent, {throttled} throttled locally");
    assert!(
        (15..=25).contains(&throttled),
        "{throttled} of 50 throttled for metric 40\n{}",
        server.transcript()
    );
    // The throttled ones never reached scapy (its log may lag a little behind).
    let reached = || {
        server
            .lines()
            .iter()
            .filter(|l| l.starts_with("RECV mt=50 "))
            .count()
    };
    let end = Instant::now() + WAIT;
    while reached() < 1 + sent as usize && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(reached(), 1 + sent as usize, "{}", server.transcript());
}
