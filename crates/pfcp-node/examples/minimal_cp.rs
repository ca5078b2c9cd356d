//! The smallest complete CP function (SMF) with overload control, against the UP function of
//! the `minimal_up` example on 127.0.0.1:8805 (start that one first; an optional argument is
//! the UP function's address instead).
//!
//! It offers 300 Session Establishment Requests per second for 2 s, three times what that UP
//! function serves; one in ten is for an emergency session, the others have ARP priority level
//! 12. Once the UP function reports its overload (an OCI on its responses), the endpoint sends
//! only the share the OCI allows and fails the others locally with `Error::Throttled`, as
//! though the UP had rejected them with cause 74 (TS 29.244 clause 6.2.4.4). Emergency
//! requests are throttled last.
//!
//! The requests are built, and the responses read, with `pfcp-wire`'s typed messages
//! ([`SessionEstablishmentRequest`] with its Create PDR and Create FAR,
//! [`SessionEstablishmentResponse::parse`]).

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use bytes::Bytes;
use pfcp_node::{CpConfig, Endpoint, EndpointConfig, LocalNode, RequestProfile, Response};
use pfcp_overload::NodeKey;
use pfcp_wire::ie::{
    ApplyAction, CreateFar, CreatePdr, FSeid, FarId, Fqdn, NodeId, Pdi, PdrId, Precedence,
    RecoveryTimeStamp, SourceInterface,
};
use pfcp_wire::msg::{SessionEstablishmentRequest, SessionEstablishmentResponse};
use pfcp_wire::{Header, Message, MessageType};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const NODE_ID: &str = "smf1.example.net";

/// The IEs of a Session Establishment Request (Table 7.5.2.1-1): our Node ID, our F-SEID
/// (SEID `cp_seid`), and the rules every establishment must carry: Create PDR (PDR ID 1,
/// precedence 255, PDI: source interface access, FAR ID 1) and Create FAR (FAR ID 1, apply
/// action FORW).
pub(crate) fn establishment(cp_seid: u64) -> Result<Bytes, BoxError> {
    let pdrs = [CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS))
        .with_precedence(Precedence(255))
        .with_far_id(FarId(1))];
    let fars = [CreateFar::new(FarId(1), ApplyAction::FORW)];
    let fseid = FSeid {
        seid: cp_seid,
        ipv4: Some(Ipv4Addr::LOCALHOST),
        ipv6: None,
    };
    let node_id = NodeId::Fqdn(Fqdn::from_dotted(NODE_ID)?);
    let message = SessionEstablishmentRequest::new(node_id, fseid, &pdrs, &fars).to_vec()?;
    // The node writes the header (sequence number, SEID, priority): only the IEs go to it.
    Ok(Bytes::copy_from_slice(Message::decode(&message)?.body()))
}

/// What became of the requests of [`run`].
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Summary {
    /// Requests offered.
    pub(crate) offered: u32,
    /// Accepted by the UP function.
    pub(crate) accepted: u32,
    /// Refused by this CP's own overload control, never sent.
    pub(crate) throttled: u32,
    /// Of those, emergency requests.
    pub(crate) emergency_throttled: u32,
    /// Without a response (timed out, or the endpoint failed).
    pub(crate) failed: u32,
}

/// Associate with the UP function at `up`, then offer `count` establishments, one every
/// `interval`, and count what became of them.
pub(crate) async fn run(
    up: SocketAddr,
    count: u64,
    interval: Duration,
) -> Result<Summary, BoxError> {
    // A CP function advertises OVRL and LOAD: it acts on the UP functions' OCIs and LCIs.
    let local = LocalNode::cp(NodeKey::fqdn(NODE_ID), RecoveryTimeStamp(0xE8F4_A2B1));
    let config = EndpointConfig::new(local).with_cp(CpConfig::default());
    let (cp, _channels) = Endpoint::bind(config, "127.0.0.1:0".parse()?).await?;
    if let Err(e) = cp.associate(up).await {
        return Err(format!("association with {up} failed ({e}): is minimal_up running?").into());
    }
    println!("associated with the UP function at {up}");

    let mut requests = Vec::new();
    for n in 1..=count {
        // What the session is: the CP's overload control derives the message priority from it.
        let (class, profile) = if n % 10 == 0 {
            ("emergency", RequestProfile::emergency())
        } else {
            ("ARP 12", RequestProfile::default().with_arp(&[12]))
        };
        let (cp, ies) = (cp.clone(), establishment(n)?);
        requests.push(tokio::spawn(async move {
            // SEID 0 in the header: the UP has no session for it yet.
            let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
            let outcome = cp.request_with(up, header, ies, profile).await;
            let (accepted, throttled) = match outcome {
                Ok(r) => report(n, class, &r)?,
                Err(e) => {
                    println!("#{n} {class}: {e}");
                    return Ok((class, None));
                }
            };
            Ok::<_, pfcp_wire::DecodeError>((class, Some((accepted, throttled))))
        }));
        tokio::time::sleep(interval).await;
    }
    let mut summary = Summary::default();
    for r in requests {
        let (class, answered) = r.await??;
        summary.offered += 1;
        let Some((accepted, throttled)) = answered else {
            summary.failed += 1;
            continue;
        };
        summary.accepted += u32::from(accepted);
        summary.throttled += u32::from(throttled);
        summary.emergency_throttled += u32::from(throttled && class == "emergency");
    }
    Ok(summary)
}

/// Print what became of request `n`; whether it was accepted, and whether this CP throttled
/// it.
fn report(n: u64, class: &str, r: &Response) -> Result<(bool, bool), pfcp_wire::DecodeError> {
    let rsp = SessionEstablishmentResponse::parse(&r.bytes)?;
    if r.is_local() {
        // Refused by this CP's own overload control: a Cause-74 response generated in place of
        // the UP's, never sent.
        println!("#{n} {class}: throttled locally ({})", rsp.cause);
        return Ok((false, true));
    }
    match rsp.overload_control_information {
        Some(oci) => println!(
            "#{n} {class}: {}, OCI: reduce by {}% for {:?}",
            rsp.cause,
            oci.metric.percent(),
            oci.period_of_validity.duration().unwrap_or(Duration::MAX)
        ),
        None => println!("#{n} {class}: {}", rsp.cause),
    }
    Ok((r.is_accepted(), false))
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let up = std::env::args().nth(1).unwrap_or("127.0.0.1:8805".into());
    // ~300 requests per second for 2 s.
    let s = run(up.parse()?, 600, Duration::from_millis(3)).await?;
    println!(
        "{} requests: {} accepted, {} throttled locally ({} of them emergency), {} without a response",
        s.offered, s.accepted, s.throttled, s.emergency_throttled, s.failed
    );
    Ok(())
}
