//! `pfcp up`: a UP function (UPF) emulator with overload control.
//!
//! It binds a [`pfcp_node::Endpoint`] with UP self-protection
//! ([`AdmissionConfig`]: a priority queue of `--queue` requests served at `--capacity`
//! requests per second). The endpoint answers Heartbeat and Association requests itself,
//! rejects what the queue cannot hold with cause 74 ("PFCP entity in congestion") and
//! piggybacks the Overload and Load Control Information (OCI/LCI) on the responses; this
//! module answers every request the admission lets through:
//!
//! * Session Establishment Request (50): Session Establishment Response (51) with the UP's
//!   Node ID, Cause 1 and a UP F-SEID (a new SEID, the `--fseid-ip` address); the header SEID
//!   is the CP's, from the request's CP F-SEID.
//! * Session Modification / Deletion Request (52 / 54): Response (53 / 55) with Cause 1; the
//!   header SEID is the CP's SEID, found from the request's header SEID (the UP's SEID) in the
//!   session table. A SEID the UP never allocated (or already deleted) gets Cause 65, "Session
//!   context not found", with SEID 0 (clause 7.2.2.4.2).
//! * Any other request that reaches the application (PFD Management, Session Set Deletion,
//!   ...): its response with Cause 76, "Service not supported".
//!
//! Every response copies the request's sequence number and message priority. Once a second a
//! status line goes to stderr; the first line is `pfcp up: listening on ADDR ...`.
//!
//! The admission counters (cause-74 rejections) and the published Overload/Load Metrics are
//! read from the `metrics` facade pfcp-node reports to, through an in-process recorder: the
//! endpoint has no API for them.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use pfcp_node::{
    AdmissionConfig, Channels, Endpoint, EndpointConfig, Incoming, LocalNode, PeerEvent,
};
use pfcp_overload::{NodeKey, ReporterConfig};
use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::{FSeid, Fqdn, NodeId, RecoveryTimeStamp};
use pfcp_wire::{Cause, Encode, EncodeError, Header, Message, MessageType};
use tokio::sync::mpsc;

use crate::meter::{self, Meter};
use crate::{io_error_text, now};

/// Arguments of `pfcp up`.
#[derive(Debug, clap::Args)]
pub struct UpArgs {
    /// Local address to listen on (port 0: any free port; the address bound is printed on the
    /// first line).
    #[arg(long, default_value = "127.0.0.1:8805", value_name = "ADDR")]
    pub listen: SocketAddr,
    /// This UP function's Node ID: an IP address or an FQDN.
    #[arg(long, default_value = "upf1.example.net", value_name = "ID")]
    pub node_id: String,
    /// Session requests served per second (the service model's rate).
    #[arg(long, default_value_t = 2000.0, value_name = "PER_SEC")]
    pub capacity: f64,
    /// Most requests waiting for service; when full, the lowest priority is rejected with
    /// cause 74.
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub queue: usize,
    /// Send node-scoped OCIs (AOCI=1): the whole UP function is overloaded, so CP functions
    /// throttle Session Establishment Requests too, not only requests on existing sessions.
    #[arg(long)]
    pub node_scoped: bool,
    /// Period of Validity of the OCIs sent.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub validity_secs: u64,
    /// Stop after SECS seconds (default: run until interrupted).
    #[arg(long, value_name = "SECS")]
    pub duration_secs: Option<u64>,
    /// Heartbeat interval towards associated CP functions; 0: none.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub heartbeat_secs: u64,
    /// Address in the UP F-SEID of new sessions (default: the listen address, or the loopback
    /// address if that is unspecified).
    #[arg(long, value_name = "IP")]
    pub fseid_ip: Option<IpAddr>,
}

/// Run `pfcp up`; errors are one line on stderr.
pub fn main(args: &UpArgs) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pfcp up: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &UpArgs) -> Result<(), String> {
    if !(args.capacity.is_finite() && args.capacity > 0.0) {
        return Err("--capacity must be a positive number of requests per second".into());
    }
    if args.queue == 0 {
        return Err("--queue must be at least 1".into());
    }
    if args.validity_secs == 0 {
        return Err("--validity-secs must be at least 1".into());
    }
    runtime()?.block_on(serve(args))
}

/// The tokio runtime of `pfcp up` and `pfcp cp`.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {}", io_error_text(&e)))
}

/// A Node ID given on the command line: an IP address, else an FQDN.
pub(crate) fn node_key(text: &str) -> Result<NodeKey, String> {
    if let Ok(ip) = text.parse::<IpAddr>() {
        return Ok(NodeKey::Ip(ip));
    }
    let name = text.trim_end_matches('.');
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(format!(
            "--node-id {text:?} is neither an IP address nor an FQDN ({c:?} is not allowed)"
        ));
    }
    Fqdn::from_dotted(name)
        .map_err(|e| format!("--node-id {text:?} is neither an IP address nor an FQDN: {e}"))?;
    Ok(NodeKey::fqdn(text))
}

/// The encoded Node ID IE of `node`.
pub(crate) fn node_id_ie(node: &NodeKey) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(32);
    let written = match node {
        NodeKey::Ip(IpAddr::V4(a)) => NodeId::Ipv4(*a).encode(&mut out),
        NodeKey::Ip(IpAddr::V6(a)) => NodeId::Ipv6(*a).encode(&mut out),
        NodeKey::Fqdn(name) => {
            let f = Fqdn::from_dotted(name).map_err(|e| format!("Node ID {name}: {e}"))?;
            NodeId::Fqdn(f).encode(&mut out)
        }
    };
    written.map_err(|e| format!("Node ID {node}: {e}"))?;
    Ok(out)
}

/// This process's Recovery Time Stamp. It must differ from one run to the next (a peer
/// that sees it change resets what it learned, clause 6.2.2); the process ID does that
/// without a second clock read.
pub(crate) fn recovery_time_stamp() -> RecoveryTimeStamp {
    // 2023-11-29 in seconds since 1900, plus the process ID.
    RecoveryTimeStamp(0xE8F4_A2B0_u32.wrapping_add(std::process::id()))
}

/// The loopback address of `ip`'s family.
pub(crate) fn loopback_like(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
    }
}

/// Counted by the responder.
#[derive(Debug, Default)]
struct Counts {
    /// Requests answered with Cause 1.
    served: AtomicU64,
    /// Requests answered with another cause by the emulator (65, 75, 76).
    refused: AtomicU64,
}

async fn serve(args: &UpArgs) -> Result<(), String> {
    let meter = meter::install();
    let node = node_key(&args.node_id)?;
    let node_ie = node_id_ie(&node)?;
    let validity = Duration::from_secs(args.validity_secs);
    let reporter = ReporterConfig::default()
        .with_node_scoped(args.node_scoped)
        .with_validity(validity)
        .with_refresh_before(validity.min(Duration::from_secs(5 * 4)) / 4);
    let admission = AdmissionConfig::new(node.clone())
        .with_service_rate(Some(args.capacity))
        .with_queue_capacity(args.queue)
        .with_reporter(reporter);
    let heartbeat = (args.heartbeat_secs > 0).then(|| Duration::from_secs(args.heartbeat_secs));
    let local = LocalNode::up(node.clone(), recovery_time_stamp());
    let config = EndpointConfig::new(local.clone())
        .with_admission(admission)
        .with_heartbeat_interval(heartbeat);
    let (endpoint, channels) = Endpoint::bind(config, args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {}", args.listen, io_error_text(&e)))?;
    let addr = endpoint.local_addr();
    eprintln!(
        "pfcp up: listening on {addr} (Node ID {node}, capacity {}/s, queue {}, {} OCIs valid {} s)",
        args.capacity,
        args.queue,
        if args.node_scoped {
            "node-scoped"
        } else {
            "entity-scoped"
        },
        args.validity_secs
    );
    let fseid_ip = args.fseid_ip.unwrap_or(if addr.ip().is_unspecified() {
        loopback_like(addr.ip())
    } else {
        addr.ip()
    });
    let counts = Arc::new(Counts::default());
    let Channels { incoming, events } = channels;
    let responder = Responder::new(local, node_ie, fseid_ip);
    tokio::spawn(answer(incoming, responder, counts.clone()));
    tokio::spawn(report_events(events));

    let start = now();
    let deadline = async {
        match args.duration_secs {
            Some(s) => tokio::time::sleep(Duration::from_secs(s)).await,
            None => std::future::pending().await,
        }
    };
    let interrupted = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(deadline, interrupted);
    let mut ticks =
        tokio::time::interval_at(start + Duration::from_secs(1), Duration::from_secs(1));
    let mut last = Snapshot::take(&meter, &counts);
    loop {
        tokio::select! {
            _ = &mut deadline => break,
            _ = &mut interrupted => break,
            _ = ticks.tick() => {
                let snap = Snapshot::take(&meter, &counts);
                let secs = now().duration_since(start).as_secs();
                eprintln!("pfcp up: {}", snap.status_line(&last, secs));
                last = snap;
            }
        }
    }
    let snap = Snapshot::take(&meter, &counts);
    eprintln!(
        "pfcp up: stopped after {:.1} s: served {}, rejected with cause 74 {}, refused {}",
        now().duration_since(start).as_secs_f64(),
        snap.served,
        snap.rejected_74,
        snap.refused
    );
    drop(endpoint);
    Ok(())
}

/// Counters and gauges at one instant.
#[derive(Debug, Clone, Copy, Default)]
struct Snapshot {
    served: u64,
    refused: u64,
    rejected_74: u64,
    overload: f64,
    load: f64,
    queue: f64,
}

impl Snapshot {
    fn take(meter: &Meter, counts: &Counts) -> Snapshot {
        Snapshot {
            served: counts.served.load(Ordering::Relaxed),
            refused: counts.refused.load(Ordering::Relaxed),
            // Every cause-74 rejection of the endpoint: queue full, evicted, waited too long,
            // application channel full. (Cause 72, "no association", is counted apart.)
            rejected_74: meter.counter_where("pfcp_requests_rejected_total", |labels| {
                !labels
                    .iter()
                    .any(|l| l.key() == "cause" && l.value() != "74")
            }),
            overload: meter.gauge("pfcp_overload_metric_published").unwrap_or(0.0),
            load: meter.gauge("pfcp_load_metric_published").unwrap_or(0.0),
            queue: meter.gauge("pfcp_admission_queue_depth").unwrap_or(0.0),
        }
    }

    fn status_line(&self, last: &Snapshot, secs: u64) -> String {
        format!(
            "[{secs:>4}s] served {:>6}/s (total {}) | rejected cause 74 {:>6}/s (total {}) | \
             overload metric {:>3}% | load {:>3}% | queue {}",
            self.served.saturating_sub(last.served),
            self.served,
            self.rejected_74.saturating_sub(last.rejected_74),
            self.rejected_74,
            self.overload.round(),
            self.load.round(),
            self.queue.round()
        )
    }
}

/// Answer the requests the endpoint hands over, one at a time (the service model already
/// paced them).
async fn answer(
    mut incoming: mpsc::Receiver<Incoming>,
    mut responder: Responder,
    counts: Arc<Counts>,
) {
    let mut reported = false;
    while let Some(request) = incoming.recv().await {
        let answered = match request.message() {
            Ok(msg) => responder.answer(&msg),
            Err(_) => continue,
        };
        match answered {
            Ok(Some((bytes, accepted))) => {
                let counter = if accepted {
                    &counts.served
                } else {
                    &counts.refused
                };
                counter.fetch_add(1, Ordering::Relaxed);
                if request.respond(bytes).await.is_err() {
                    return;
                }
            }
            Ok(None) => {}
            Err(e) if !reported => {
                reported = true;
                eprintln!("pfcp up: a response could not be encoded: {e}");
            }
            Err(_) => {}
        }
    }
}

/// Print association changes.
async fn report_events(mut events: mpsc::Receiver<PeerEvent>) {
    while let Some(e) = events.recv().await {
        let text = match &e {
            PeerEvent::Associated { peer, node } => format!("associated with {node} at {peer}"),
            PeerEvent::Released { peer, node } => {
                format!("association released by {}", who(peer, node.as_ref()))
            }
            PeerEvent::Restarted { peer, node } => {
                format!("{} restarted", who(peer, node.as_ref()))
            }
            PeerEvent::Failed { peer, node } => {
                format!("{} stopped answering heartbeats", who(peer, node.as_ref()))
            }
            other => format!("{other:?}"),
        };
        eprintln!("pfcp up: {text}");
    }
}

fn who(peer: &SocketAddr, node: Option<&NodeKey>) -> String {
    match node {
        Some(n) => format!("{n} at {peer}"),
        None => peer.to_string(),
    }
}

/// Most sessions held at once; beyond, establishments get Cause 75, "No resources available".
const MAX_SESSIONS: usize = 1 << 20;

/// The session-handling half of the emulated UP function.
#[derive(Debug)]
struct Responder {
    local: LocalNode,
    node_ie: Vec<u8>,
    fseid_ip: IpAddr,
    next_seid: u64,
    /// UP SEID -> CP SEID.
    sessions: HashMap<u64, u64>,
}

impl Responder {
    fn new(local: LocalNode, node_ie: Vec<u8>, fseid_ip: IpAddr) -> Self {
        Responder {
            local,
            node_ie,
            fseid_ip,
            next_seid: 1,
            sessions: HashMap::new(),
        }
    }

    /// The response to `msg` and whether it accepts the request; `None` for a message that
    /// is not a request.
    fn answer(&mut self, msg: &Message<'_>) -> Result<Option<(Bytes, bool)>, EncodeError> {
        let request = msg.header();
        let Some(rt) = msg.message_type().response_type() else {
            return Ok(None);
        };
        let header_seid = request.seid.unwrap_or(0);
        let answer = match msg.message_type() {
            MessageType::SESSION_ESTABLISHMENT_REQUEST => {
                let Some(cp_seid) = msg.f_seid().ok().flatten().map(|f| f.seid) else {
                    return self.refuse(request, rt, None, Cause::MANDATORY_IE_MISSING);
                };
                if self.sessions.len() >= MAX_SESSIONS {
                    return self.refuse(request, rt, Some(cp_seid), Cause::NO_RESOURCES_AVAILABLE);
                }
                let up_seid = self.allocate();
                self.sessions.insert(up_seid, cp_seid);
                let fseid = FSeid {
                    seid: up_seid,
                    ipv4: match self.fseid_ip {
                        IpAddr::V4(a) => Some(a),
                        IpAddr::V6(_) => None,
                    },
                    ipv6: match self.fseid_ip {
                        IpAddr::V6(a) => Some(a),
                        IpAddr::V4(_) => None,
                    },
                };
                accepted(request, rt, cp_seid, |w| {
                    w.raw_ies(&self.node_ie)?;
                    w.ie(&Cause::REQUEST_ACCEPTED)?;
                    w.ie(&fseid)?;
                    Ok(())
                })?
            }
            MessageType::SESSION_MODIFICATION_REQUEST => match self.sessions.get(&header_seid) {
                Some(&cp_seid) => accepted(request, rt, cp_seid, |w| {
                    w.ie(&Cause::REQUEST_ACCEPTED)?;
                    Ok(())
                })?,
                None => return self.refuse(request, rt, None, Cause::SESSION_CONTEXT_NOT_FOUND),
            },
            MessageType::SESSION_DELETION_REQUEST => match self.sessions.remove(&header_seid) {
                Some(cp_seid) => accepted(request, rt, cp_seid, |w| {
                    w.ie(&Cause::REQUEST_ACCEPTED)?;
                    Ok(())
                })?,
                None => return self.refuse(request, rt, None, Cause::SESSION_CONTEXT_NOT_FOUND),
            },
            _ => return self.refuse(request, rt, request.seid, Cause::SERVICE_NOT_SUPPORTED),
        };
        Ok(Some((answer, true)))
    }

    fn refuse(
        &self,
        request: &Header,
        rt: MessageType,
        cp_seid: Option<u64>,
        cause: Cause,
    ) -> Result<Option<(Bytes, bool)>, EncodeError> {
        pfcp_node::peer::session_or_node_rejection(
            &self.local,
            rt,
            request.sequence,
            cp_seid,
            request.priority,
            cause,
            None,
        )
        .map(|b| Some((b, false)))
    }

    /// A UP SEID not in use (never 0: SEID 0 means "unknown", clause 7.2.2.4.2).
    fn allocate(&mut self) -> u64 {
        loop {
            let seid = self.next_seid;
            self.next_seid = self.next_seid.wrapping_add(1).max(1);
            if !self.sessions.contains_key(&seid) {
                return seid;
            }
        }
    }
}

/// A session response of type `rt` to `request` (same sequence number and priority) with SEID
/// `cp_seid`, its IEs written by `ies`.
fn accepted(
    request: &Header,
    rt: MessageType,
    cp_seid: u64,
    ies: impl FnOnce(&mut MessageWriter<'_, Vec<u8>>) -> Result<(), EncodeError>,
) -> Result<Bytes, EncodeError> {
    let mut header = Header::new(rt)
        .with_seid(cp_seid)
        .with_sequence(request.sequence);
    if let Some(p) = request.priority {
        header = header.with_priority(p);
    }
    let mut out = Vec::with_capacity(64);
    let mut w = MessageWriter::begin(&mut out, &header)?;
    ies(&mut w)?;
    w.finish()?;
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfcp_wire::encode::MessageBuilder;
    use pfcp_wire::{MessagePriority, SequenceNumber};

    fn responder() -> Responder {
        let node = NodeKey::fqdn("upf1.example.net");
        let ie = node_id_ie(&node).unwrap();
        let local = LocalNode::up(node, RecoveryTimeStamp(1));
        Responder::new(local, ie, IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)))
    }

    fn request(t: MessageType, seid: u64, seq: u32, ies: &[u8]) -> Vec<u8> {
        let h = Header::new(t)
            .with_seid(seid)
            .with_sequence(SequenceNumber::new(seq).unwrap())
            .with_priority(MessagePriority::new(3).unwrap());
        let mut out = Vec::new();
        let mut w = MessageWriter::begin(&mut out, &h).unwrap();
        w.raw_ies(ies).unwrap();
        w.finish().unwrap();
        out
    }

    #[test]
    fn a_session_lives_and_dies() {
        let mut up = responder();
        let b = MessageBuilder::new(Header::new(MessageType::HEARTBEAT_REQUEST)).ie(FSeid {
            seid: 0xABCD,
            ipv4: Some(Ipv4Addr::LOCALHOST),
            ipv6: None,
        });
        let mut fseid = vec![0; b.encoded_len()];
        b.encode_into(&mut fseid).unwrap();
        // The F-SEID IE alone (after the 8-octet node header).
        let est = request(
            MessageType::SESSION_ESTABLISHMENT_REQUEST,
            0,
            7,
            &fseid[8..],
        );
        let (rsp, ok) = up.answer(&Message::decode(&est).unwrap()).unwrap().unwrap();
        assert!(ok);
        let rsp = Message::decode(&rsp).unwrap();
        assert_eq!(
            rsp.message_type(),
            MessageType::SESSION_ESTABLISHMENT_RESPONSE
        );
        assert_eq!(rsp.header().seid, Some(0xABCD));
        assert_eq!(rsp.header().sequence.value(), 7);
        assert_eq!(rsp.header().priority.map(|p| p.value()), Some(3));
        assert_eq!(rsp.cause().unwrap(), Some(Cause::REQUEST_ACCEPTED));
        assert_eq!(
            rsp.node_id().unwrap().unwrap().to_string(),
            "upf1.example.net"
        );
        let up_seid = rsp.f_seid().unwrap().unwrap().seid;
        rsp.validate().unwrap();

        let m = request(MessageType::SESSION_MODIFICATION_REQUEST, up_seid, 8, &[]);
        let (rsp, ok) = up.answer(&Message::decode(&m).unwrap()).unwrap().unwrap();
        let rsp = Message::decode(&rsp).unwrap();
        assert!(ok);
        assert_eq!(
            rsp.message_type(),
            MessageType::SESSION_MODIFICATION_RESPONSE
        );
        assert_eq!(rsp.header().seid, Some(0xABCD));

        let d = request(MessageType::SESSION_DELETION_REQUEST, up_seid, 9, &[]);
        let (rsp, ok) = up.answer(&Message::decode(&d).unwrap()).unwrap().unwrap();
        let rsp = Message::decode(&rsp).unwrap();
        assert!(ok);
        assert_eq!(rsp.message_type(), MessageType::SESSION_DELETION_RESPONSE);
        assert_eq!(rsp.header().seid, Some(0xABCD));
        assert_eq!(rsp.header().sequence.value(), 9);

        // Deleted: the session is gone.
        let (rsp, ok) = up.answer(&Message::decode(&d).unwrap()).unwrap().unwrap();
        let rsp = Message::decode(&rsp).unwrap();
        assert!(!ok);
        assert_eq!(rsp.header().seid, Some(0));
        assert_eq!(rsp.cause().unwrap(), Some(Cause::SESSION_CONTEXT_NOT_FOUND));
    }

    #[test]
    fn node_ids_parse() {
        assert_eq!(
            node_key("192.0.2.1").unwrap(),
            NodeKey::Ip([192, 0, 2, 1].into())
        );
        assert_eq!(
            node_key("UPF1.example.net.").unwrap(),
            NodeKey::fqdn("upf1.example.net")
        );
        assert!(node_key("not a name").is_err());
    }
}
