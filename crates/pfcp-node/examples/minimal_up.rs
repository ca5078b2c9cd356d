//! The smallest complete UP function (UPF) with overload control, on 127.0.0.1:8805.
//!
//! ```sh
//! cargo run -p pfcp-node --example minimal_up    # this terminal
//! cargo run -p pfcp-node --example minimal_cp    # another one
//! ```
//!
//! An optional argument is the address to listen on instead (port 0: any free port; the
//! address bound is printed).
//!
//! The endpoint does the protocol work: it answers Heartbeat and Association requests, queues
//! session requests by message priority and serves them at the configured rate (self-
//! protection), rejects what does not fit with cause 74 "PFCP entity in congestion", and
//! appends its Overload Control Information (OCI) to the responses while it is overloaded.
//! This program only answers the Session Establishment Requests it is handed, in a
//! [`RequestHandler`](pfcp_node::endpoint::RequestHandler): a function the endpoint calls in
//! its own task, so a request costs no hop through a channel to another task. Requests the
//! handler does not answer ([`HandlerReply::Defer`]) come through the incoming channel, for
//! work that has to wait (a real UPF would program its forwarding plane there).
//!
//! Messages are read and written through `pfcp-wire`'s typed messages
//! ([`SessionEstablishmentRequest::parse`], [`SessionEstablishmentResponse`]).

use std::net::{Ipv4Addr, SocketAddr};

use bytes::Bytes;
use pfcp_node::endpoint::{HandlerReply, RequestView};
use pfcp_node::{AdmissionConfig, Channels, Endpoint, EndpointConfig, LocalNode};
use pfcp_overload::NodeKey;
use pfcp_wire::ie::{FSeid, Fqdn, NodeId, RecoveryTimeStamp};
use pfcp_wire::msg::{SessionEstablishmentRequest, SessionEstablishmentResponse};
use pfcp_wire::{Cause, MessageType};

const NODE_ID: &str = "upf1.example.net";

/// The UP function's session state: here only the next UP SEID to hand out.
struct Sessions {
    next_up_seid: u64,
}

impl Sessions {
    /// Answer one request the endpoint has admitted (decoded, validated, from an associated
    /// CP function, highest priority first, at the service rate).
    fn handle(&mut self, request: &RequestView<'_>) -> HandlerReply {
        if request.message_type() != MessageType::SESSION_ESTABLISHMENT_REQUEST {
            // A real UPF also handles Modification, Deletion, ... (here or in a task).
            return HandlerReply::Defer;
        }
        match self.establish(request) {
            Some(response) => HandlerReply::Respond(response),
            // The endpoint builds the rejection (Cause, Node ID, the CP's SEID).
            None => HandlerReply::Reject(Cause::REQUEST_REJECTED),
        }
    }

    /// Header: the CP's SEID (from its CP F-SEID), the request's sequence number and
    /// priority. Body: our Node ID, "Request accepted" and our F-SEID for the session.
    fn establish(&mut self, request: &RequestView<'_>) -> Option<Bytes> {
        let req = SessionEstablishmentRequest::parse(request.bytes()).ok()?;
        let mut response = SessionEstablishmentResponse::new(
            NodeId::Fqdn(Fqdn::from_dotted(NODE_ID).ok()?),
            Cause::REQUEST_ACCEPTED,
        )
        .with_up_f_seid(FSeid {
            seid: self.next_up_seid,
            ipv4: Some(Ipv4Addr::LOCALHOST),
            ipv6: None,
        })
        .with_seid(req.cp_f_seid.seid)
        .with_sequence(request.sequence());
        if let Some(priority) = req.header.priority {
            response = response.with_priority(priority);
        }
        self.next_up_seid += 1;
        // The endpoint adds the OCI/LCI if due, and keeps the response for retransmissions.
        response.to_vec().ok().map(Bytes::from)
    }
}

/// Start the UP function on `listen`: 100 requests served per second, at most 64 waiting.
pub(crate) async fn start(listen: SocketAddr) -> std::io::Result<(Endpoint, Channels)> {
    let me = NodeKey::fqdn(NODE_ID);
    // The default reporter (`AdmissionConfig::default_reporter`): node-scoped OCIs (AOCI=1,
    // "the whole UP function"), so CP functions throttle new sessions too, steered a fifth
    // above the capacity that the bounded wait sheds.
    let admission = AdmissionConfig::new(me.clone())
        .with_service_rate(Some(100.0))
        .with_queue_capacity(64);
    // The Recovery Time Stamp tells peers when this node (re)started: fixed here for brevity.
    let local = LocalNode::up(me, RecoveryTimeStamp(0xE8F4_A2B0));
    let config = EndpointConfig::new(local).with_admission(admission);
    let mut sessions = Sessions { next_up_seid: 1 };
    let handler = move |request: &RequestView<'_>| sessions.handle(request);
    Endpoint::bind_with_handler(config, listen, handler).await
}

// One thread: the endpoint task and the application hand over without cross-thread wake-ups
// (`docs/benchmarks.md`, pfcp-node).
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listen = std::env::args().nth(1).unwrap_or("127.0.0.1:8805".into());
    let (endpoint, mut channels) = start(listen.parse()?).await?;
    println!(
        "UP function {NODE_ID} listening on {} (100 requests/s)",
        endpoint.local_addr()
    );

    // What the handler deferred. Holding `channels` (and `endpoint`) keeps the endpoint up.
    while let Some(request) = channels.incoming.recv().await {
        println!(
            "{} from {}: not handled in this example",
            request.reference().message_type,
            request.peer
        );
    }
    drop(endpoint);
    Ok(())
}
