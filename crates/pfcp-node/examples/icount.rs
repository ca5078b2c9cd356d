//! Per-request cost of the node's two hot paths, for instruction counts under callgrind
//! (`docs/benchmarks.md`, "The node per request"):
//!
//! * `cp-send N`: a CP node associated with a UP node sends N Session Establishment Requests
//!   (`Node::send_request`: classification, the overload decision, the transaction, the
//!   encode; then `poll_transmit`).
//! * `up-intake N`: a UP node with its admission takes N Session Establishment Requests in
//!   (`Node::handle_datagram`: the guard, the decode and the one walk over the IEs, the
//!   transaction layer, the admission's offer).
//!
//! Both build 2000 requests before the measured loop whatever N is, so that the difference of
//! a run with N = 2000 and one with N = 0, divided by 2000, is the cost of one request:
//!
//! ```sh
//! cargo build --release -p pfcp-node --example icount
//! for n in 0 2000; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/icount cp-send $n 2>&1 | grep refs
//! done
//! ```

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Instant;

use bytes::Bytes;
use pfcp_node::admission::AdmissionConfig;
use pfcp_node::node::{Node, NodeConfig};
use pfcp_node::{LocalNode, RequestProfile};
use pfcp_overload::NodeKey;
use pfcp_wire::ie::{
    ApplyAction, CreateFar, CreatePdr, FSeid, FarId, NodeId, Pdi, PdrId, Precedence,
    RecoveryTimeStamp, SourceInterface,
};
use pfcp_wire::msg::SessionEstablishmentRequest;
use pfcp_wire::{Header, Message, MessageType};

/// Requests built before the loop, whatever N is.
const PREBUILT: usize = 2000;
const SMF_IP: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 10);

fn up_addr() -> SocketAddr {
    SocketAddr::from((Ipv4Addr::new(192, 0, 2, 1), 8805))
}

fn cp_addr() -> SocketAddr {
    SocketAddr::from((SMF_IP, 8805))
}

/// The IEs of the `i`th Session Establishment Request (Table 7.5.2.1-1): Node ID, CP F-SEID
/// (SEID `i + 1`), Create PDR (PDR ID 1, precedence 255, PDI: source interface access, FAR ID
/// 1), Create FAR (FAR ID 1, apply action FORW).
fn ies(i: u64) -> Result<Vec<u8>, String> {
    let pdrs = [CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS))
        .with_precedence(Precedence(255))
        .with_far_id(FarId(1))];
    let fars = [CreateFar::new(FarId(1), ApplyAction::FORW)];
    let fseid = FSeid {
        seid: i + 1,
        ipv4: Some(SMF_IP),
        ipv6: None,
    };
    let message = SessionEstablishmentRequest::new(NodeId::Ipv4(SMF_IP), fseid, &pdrs, &fars)
        .to_vec()
        .map_err(|e| e.to_string())?;
    let body = Message::decode(&message).map_err(|e| e.to_string())?.body();
    Ok(body.to_vec())
}

/// A Session Establishment Request datagram: the header (SEID 0, sequence `seq`, clause
/// 7.2.2) and `ies`.
fn datagram(seq: u32, ies: &[u8]) -> Bytes {
    let len = u16::try_from(12 + ies.len()).unwrap_or(u16::MAX);
    let mut out = vec![0x21, MessageType::SESSION_ESTABLISHMENT_REQUEST.0];
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&seq.to_be_bytes()[1..]);
    out.push(0);
    out.extend_from_slice(ies);
    Bytes::from(out)
}

fn nodes(now: Instant) -> Result<(Node, Node), String> {
    let upf = NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into());
    let up = Node::new(
        NodeConfig::new(LocalNode::up(upf.clone(), RecoveryTimeStamp(3_900_000_000)))
            .with_admission(AdmissionConfig::new(upf).with_queue_capacity(4 * PREBUILT)),
        now,
    )
    .map_err(|e| e.to_string())?;
    let cp = Node::new(
        NodeConfig::new(LocalNode::cp(
            NodeKey::Ip(SMF_IP.into()),
            RecoveryTimeStamp(3_900_000_001),
        )),
        now,
    )
    .map_err(|e| e.to_string())?;
    Ok((up, cp))
}

/// Carry datagrams both ways until both nodes are quiet.
fn pump(up: &mut Node, cp: &mut Node, now: Instant) {
    for _ in 0..8 {
        let mut moved = false;
        while let Some(t) = cp.poll_transmit() {
            up.handle_datagram(cp_addr(), t.bytes, now);
            moved = true;
        }
        while let Some(t) = up.poll_transmit() {
            cp.handle_datagram(up_addr(), t.bytes, now);
            moved = true;
        }
        while up.poll_event().is_some() || cp.poll_event().is_some() {}
        if !moved {
            return;
        }
    }
}

#[allow(clippy::disallowed_methods)] // A base instant for the sans-IO nodes; nothing else reads the clock.
fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let op = args.next().unwrap_or_default();
    let n: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or("usage: icount cp-send|up-intake N")?;
    let now = Instant::now();
    let (mut up, mut cp) = nodes(now)?;
    cp.associate(up_addr(), now).map_err(|e| e.to_string())?;
    pump(&mut up, &mut cp, now);
    let ies: Vec<Vec<u8>> = (0..PREBUILT as u64).map(ies).collect::<Result<_, _>>()?;
    let mut done = 0usize;
    match op.as_str() {
        "cp-send" => {
            let profile = RequestProfile::default().with_arp(&[8]);
            for body in ies.iter().take(n) {
                let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
                if cp
                    .send_request(up_addr(), header, body, &profile, now)
                    .is_ok()
                {
                    done += 1;
                }
                while cp.poll_transmit().is_some() {}
            }
        }
        "up-intake" => {
            let datagrams: Vec<Bytes> = ies
                .iter()
                .zip(1u32..)
                .map(|(body, seq)| datagram(seq, body))
                .collect();
            for d in datagrams.into_iter().take(n) {
                up.handle_datagram(cp_addr(), d, now);
                done += 1;
            }
        }
        other => return Err(format!("unknown operation {other:?}: cp-send or up-intake")),
    }
    println!("{op}: {done} of {n}");
    Ok(())
}
