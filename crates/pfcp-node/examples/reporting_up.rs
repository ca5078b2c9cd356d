//! A UP function (UPF) that reports usage, on 127.0.0.1:8805 (an optional argument is the
//! address to listen on instead; port 0: any free port).
//!
//! ```sh
//! cargo run -p pfcp-node --example reporting_up
//! ```
//!
//! * **Establishment** (TS 29.244 clause 6.3.2): it answers every Session Establishment Request
//!   with its UP F-SEID and a Created PDR for each PDR whose Local F-TEID has the CH flag set:
//!   the F-TEID it allocated (clause 5.5.3; PDRs with the same CHOOSE ID share one). Deletion
//!   Requests are answered and forget the session.
//! * **Usage reports** (clause 6.3.5): every second (or the interval given to [`start`]) it
//!   sends a Session Report Request on each session with a Usage Report per URR the CP
//!   function created (UR-SEQN counting up, trigger PERIO, the volume measured), through
//!   [`Endpoint::send_session_report`]: the node finds the CP function and its SEID in its
//!   session table, and adds this UP's OCI/LCI when due.
//! * **A CP function restarts** (clause 6.2.6): its new Association Setup Request carries
//!   another Recovery Time Stamp; the node reports the restart and the sessions it took along
//!   ([`PeerEvent::SessionsLost`]), and this program drops them and stops reporting on them.
//!   The new association is the node's; the sessions the CP function establishes again are
//!   new ones.
//!
//! Messages are read and written through `pfcp-wire`'s typed messages only.

use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use pfcp_node::endpoint::{HandlerReply, RequestView};
use pfcp_node::{Endpoint, EndpointConfig, LocalNode, PeerEvent};
use pfcp_overload::NodeKey;
use pfcp_wire::ie::{
    CreatedPdr, FSeid, FTeid, Fqdn, NodeId, RecoveryTimeStamp, ReportType, UrSeqn, UrrId,
    UsageReportSrr, UsageReportTrigger, VolumeMeasurement,
};
use pfcp_wire::msg::{
    SessionDeletionRequest, SessionDeletionResponse, SessionEstablishmentRequest,
    SessionEstablishmentResponse, SessionReportRequest,
};
use pfcp_wire::{Cause, MessageType};

const NODE_ID: &str = "upf2.example.net";
/// The N3 addresses of the F-TEIDs this UP function allocates.
const N3_V4: Ipv4Addr = Ipv4Addr::LOCALHOST;
const N3_V6: Ipv6Addr = Ipv6Addr::LOCALHOST;

/// One session as this UP function keeps it.
#[derive(Debug)]
struct UpSession {
    /// The CP function's SEID (the header SEID of what goes to it).
    cp_seid: u64,
    /// The URRs the CP function created, with their next UR-SEQN.
    urrs: Vec<(UrrId, u32)>,
    /// Octets "forwarded" so far (made up: this UPF forwards nothing).
    volume: u64,
}

/// The sessions by UP SEID, and what the next ones get.
#[derive(Debug, Default)]
struct State {
    sessions: HashMap<u64, UpSession>,
    next_up_seid: u64,
    next_teid: u32,
}

/// The running UP function: its endpoint and its sessions.
#[derive(Debug, Clone)]
pub(crate) struct ReportingUp {
    /// The endpoint (its address, its node).
    pub(crate) endpoint: Endpoint,
    state: Arc<Mutex<State>>,
}

impl ReportingUp {
    /// Sessions this program holds.
    pub(crate) fn session_count(&self) -> usize {
        lock(&self.state).sessions.len()
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A task that panicked while holding it left the table as it was: go on with it.
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Answer the session requests the endpoint admitted.
fn handle(state: &Mutex<State>, request: &RequestView<'_>) -> HandlerReply {
    let answer = match request.message_type() {
        MessageType::SESSION_ESTABLISHMENT_REQUEST => establish(state, request),
        MessageType::SESSION_DELETION_REQUEST => delete(state, request),
        _ => return HandlerReply::Defer,
    };
    match answer {
        Some(response) => HandlerReply::Respond(response),
        None => HandlerReply::Reject(Cause::REQUEST_REJECTED),
    }
}

/// A new session: UP F-SEID, a Created PDR with the F-TEID allocated for each PDR with CH set.
fn establish(state: &Mutex<State>, request: &RequestView<'_>) -> Option<Bytes> {
    let req = SessionEstablishmentRequest::parse(request.bytes()).ok()?;
    let mut st = lock(state);
    st.next_up_seid += 1;
    let up_seid = st.next_up_seid;
    let mut chosen: HashMap<u8, u32> = HashMap::new();
    let mut created = Vec::new();
    for pdr in &req.create_pdrs {
        let Some(FTeid::Choose {
            ipv4, choose_id, ..
        }) = pdr.pdi.local_f_teid
        else {
            continue;
        };
        // PDRs with the same CHOOSE ID share the F-TEID (clause 5.5.3).
        let shared = choose_id.and_then(|c| chosen.get(&c).copied());
        let teid = match shared {
            Some(t) => t,
            None => {
                st.next_teid += 1;
                if let Some(c) = choose_id {
                    chosen.insert(c, st.next_teid);
                }
                st.next_teid
            }
        };
        let f_teid = if ipv4 {
            FTeid::ipv4(teid, N3_V4)
        } else {
            FTeid::ipv6(teid, N3_V6)
        };
        created.push(CreatedPdr::new(pdr.pdr_id).with_local_f_teid(f_teid));
    }
    let urrs = req.create_urrs.iter().map(|u| (u.urr_id, 0)).collect();
    let cp_seid = req.cp_f_seid.seid;
    let response = SessionEstablishmentResponse::new(
        NodeId::Fqdn(Fqdn::from_dotted(NODE_ID).ok()?),
        Cause::REQUEST_ACCEPTED,
    )
    .with_up_f_seid(FSeid {
        seid: up_seid,
        ipv4: Some(N3_V4),
        ipv6: None,
    })
    .with_created_pdrs(created.as_slice())
    .with_seid(cp_seid)
    .with_sequence(request.sequence())
    .to_vec()
    .ok()?;
    st.sessions.insert(
        up_seid,
        UpSession {
            cp_seid,
            urrs,
            volume: 0,
        },
    );
    Some(response.into())
}

/// The end of a session (header SEID: ours).
fn delete(state: &Mutex<State>, request: &RequestView<'_>) -> Option<Bytes> {
    let req = SessionDeletionRequest::parse(request.bytes()).ok()?;
    let up_seid = req.header.seid?;
    let session = lock(state).sessions.remove(&up_seid);
    let (cause, cp_seid) = match session {
        Some(s) => (Cause::REQUEST_ACCEPTED, s.cp_seid),
        // Clause 7.2.2.4.2: SEID 0 when the session is unknown.
        None => (Cause::SESSION_CONTEXT_NOT_FOUND, 0),
    };
    let response = SessionDeletionResponse::new(cause)
        .with_seid(cp_seid)
        .with_sequence(request.sequence())
        .to_vec()
        .ok()?;
    Some(response.into())
}

/// One round of usage reports: a Session Report Request per session with URRs, each sent
/// from its own task (a CP function that does not answer delays no other).
fn report_usage(up: &ReportingUp) {
    let mut st = lock(&up.state);
    for (&up_seid, session) in st.sessions.iter_mut() {
        if session.urrs.is_empty() {
            continue;
        }
        session.volume += 1500;
        let volume = VolumeMeasurement {
            total_volume: Some(session.volume),
            uplink_volume: Some(session.volume / 3),
            downlink_volume: Some(session.volume - session.volume / 3),
            ..VolumeMeasurement::default()
        };
        let reports: Vec<UsageReportSrr> = session
            .urrs
            .iter_mut()
            .map(|(urr, seqn)| {
                *seqn = seqn.wrapping_add(1);
                UsageReportSrr::new(*urr, UrSeqn(*seqn), UsageReportTrigger::PERIO)
                    .with_volume_measurement(volume)
            })
            .collect();
        let up = up.clone();
        tokio::spawn(async move {
            let report = SessionReportRequest::new(ReportType::USAR).with_usage_reports(&reports);
            match up.endpoint.send_session_report(up_seid, &report).await {
                Ok(r) if r.cause == Some(Cause::SESSION_CONTEXT_NOT_FOUND) => {
                    // The CP function no longer knows it (clause 6.3.5): it is gone.
                    lock(&up.state).sessions.remove(&up_seid);
                }
                Ok(_) => {}
                Err(e) => println!("usage report of session {up_seid:#x}: {e}"),
            }
        });
    }
}

/// What the node reports of its peers: a CP function's restart (or failure, or release) takes
/// its sessions along.
fn on_peer_event(up: &ReportingUp, event: &PeerEvent) {
    match event {
        PeerEvent::SessionsLost { peer, sessions, .. } => {
            let mut st = lock(&up.state);
            for s in sessions {
                st.sessions.remove(&s.local_seid);
            }
            println!(
                "{} sessions of the CP function at {peer} dropped; {} left",
                sessions.len(),
                st.sessions.len()
            );
        }
        PeerEvent::Restarted { peer, node } => {
            println!("the CP function at {peer} ({node:?}) restarted");
        }
        PeerEvent::Associated { peer, node } => {
            println!("associated with the CP function {node} at {peer}");
        }
        other => println!("{other:?}"),
    }
}

/// Start the UP function on `listen`, reporting usage every `report_every`; it runs until
/// the runtime stops.
pub(crate) async fn start(
    listen: SocketAddr,
    report_every: Duration,
) -> std::io::Result<ReportingUp> {
    let local = LocalNode::up(NodeKey::fqdn(NODE_ID), RecoveryTimeStamp(0xE8F4_A2C0));
    let state = Arc::new(Mutex::new(State::default()));
    let for_handler = state.clone();
    let handler = move |request: &RequestView<'_>| handle(&for_handler, request);
    let (endpoint, mut channels) =
        Endpoint::bind_with_handler(EndpointConfig::new(local), listen, handler).await?;
    let up = ReportingUp { endpoint, state };
    let events = up.clone();
    tokio::spawn(async move {
        while let Some(e) = channels.events.recv().await {
            on_peer_event(&events, &e);
        }
    });
    tokio::spawn(async move {
        // What the handler does not answer (modifications, ...): refused in this example.
        while let Some(request) = channels.incoming.recv().await {
            let _ = request.reject(Cause::REQUEST_REJECTED).await;
        }
    });
    let reporter = up.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(report_every);
        loop {
            every.tick().await;
            report_usage(&reporter);
        }
    });
    Ok(up)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listen = std::env::args().nth(1).unwrap_or("127.0.0.1:8805".into());
    let up = start(listen.parse()?, Duration::from_secs(1)).await?;
    println!(
        "UP function {NODE_ID} listening on {}, usage reports every second",
        up.endpoint.local_addr()
    );
    loop {
        tokio::time::sleep(Duration::from_secs(10)).await;
        println!("{} sessions", up.session_count());
    }
}
