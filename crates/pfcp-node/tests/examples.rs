//! The examples' own code, run against each other on loopback so that CI keeps them working:
//! `minimal_cp` against `minimal_up`, and a CP function written here with the typed messages
//! against `reporting_up` (Created PDRs with the F-TEIDs it allocated, usage reports, a CP
//! restart). The example files are included as modules: what runs here is what `cargo run
//! --example` runs, but for `main`.
#![cfg(feature = "tokio")]

#[allow(dead_code)]
#[path = "../examples/minimal_cp.rs"]
mod minimal_cp;
#[allow(dead_code)]
#[path = "../examples/minimal_up.rs"]
mod minimal_up;
#[allow(dead_code)]
#[path = "../examples/reporting_up.rs"]
mod reporting_up;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use bytes::Bytes;
use pfcp_node::{Channels, Endpoint, EndpointConfig, Incoming, LocalNode};
use pfcp_overload::NodeKey;
use pfcp_test_support::node::any_port;
use pfcp_wire::ie::{
    ApplyAction, CreateFar, CreatePdr, CreateUrr, FSeid, FTeid, FarId, MeasurementMethod, NodeId,
    Pdi, PdrId, RecoveryTimeStamp, ReportType, ReportingTriggers, SourceInterface, UrrId,
};
use pfcp_wire::msg::{
    SessionEstablishmentRequest, SessionEstablishmentResponse, SessionReportRequest,
    SessionReportResponse,
};
use pfcp_wire::{Cause, Header, Message, MessageType};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(5);

#[tokio::test]
async fn minimal_cp_against_minimal_up() {
    let (up, _channels) = minimal_up::start(any_port()).await.unwrap();
    let s = minimal_cp::run(up.local_addr(), 40, Duration::from_millis(3))
        .await
        .unwrap();
    assert_eq!(s.offered, 40);
    // Every request was answered: by the UP (accepted, or refused with its OCI) or by the
    // CP's own throttle; and the UP accepted some.
    assert_eq!(s.failed, 0);
    assert!(s.accepted > 0, "{s:?}");
    assert!(s.accepted + s.throttled <= s.offered, "{s:?}");
    assert!(up.inspect(|n| n.session_count()).unwrap() >= s.accepted as usize);
}

/// A CP function of this test at `addr`, started at `stamp`.
async fn bind_cp(addr: SocketAddr, stamp: u32) -> (Endpoint, Channels) {
    let local = LocalNode::cp(NodeKey::fqdn("smf9.example.net"), RecoveryTimeStamp(stamp));
    // The address of a CP function just stopped is free once its task has ended.
    for _ in 0..250 {
        if let Ok(cp) = Endpoint::bind(EndpointConfig::new(local.clone()), addr).await {
            return cp;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{addr} not free again");
}

/// Establish session `cp_seid` on `up`: PDRs 1 and 2 ask for an F-TEID with CHOOSE ID 1, PDR
/// 3 for one of its own; one URR (ID 7, volume, periodic). The UP's response, parsed.
async fn establish(cp: &Endpoint, up: SocketAddr, cp_seid: u64) -> (u64, Vec<(PdrId, FTeid)>) {
    let choose = |id| Pdi::new(SourceInterface::ACCESS).with_local_f_teid(FTeid::choose_ipv4(id));
    let pdrs = [
        CreatePdr::new(PdrId(1), choose(Some(1))).with_far_id(FarId(1)),
        CreatePdr::new(PdrId(2), choose(Some(1))).with_far_id(FarId(1)),
        CreatePdr::new(PdrId(3), choose(None)).with_far_id(FarId(1)),
    ];
    let fars = [CreateFar::new(FarId(1), ApplyAction::FORW)];
    let urrs = [CreateUrr::new(
        UrrId(7),
        MeasurementMethod::VOLUM,
        ReportingTriggers::PERIO,
    )];
    let ip = Ipv4Addr::LOCALHOST;
    let req = SessionEstablishmentRequest::new(
        NodeId::Ipv4(ip),
        FSeid {
            seid: cp_seid,
            ipv4: Some(ip),
            ipv6: None,
        },
        &pdrs,
        &fars,
    )
    .with_create_urrs(&urrs)
    .to_vec()
    .unwrap();
    let ies = Bytes::copy_from_slice(Message::decode(&req).unwrap().body());
    let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
    let r = cp.request(up, header, ies).await.unwrap();
    let rsp = SessionEstablishmentResponse::parse(&r.bytes).unwrap();
    assert_eq!(rsp.cause, Cause::REQUEST_ACCEPTED);
    assert_eq!(rsp.header.seid, Some(cp_seid));
    let created = rsp
        .created_pdrs
        .iter()
        .map(|c| (c.pdr_id, c.local_f_teid.unwrap()))
        .collect();
    (rsp.up_f_seid.unwrap().seid, created)
}

/// The next Session Report Request that reaches `cp`'s application; answered accepted if its
/// SEID is `seid`, else with Cause 65 (a session this CP does not know). Its SEID and the
/// UR-SEQN of its first usage report.
async fn next_report(channels: &mut Channels, seid: u64) -> (u64, u32) {
    let incoming: Incoming = timeout(WAIT, channels.incoming.recv())
        .await
        .unwrap()
        .unwrap();
    let req = SessionReportRequest::parse(&incoming.bytes).unwrap();
    assert_eq!(req.report_type, ReportType::USAR);
    let usage = req.usage_reports.iter().next().unwrap();
    assert_eq!(usage.urr_id, UrrId(7));
    assert!(usage
        .volume_measurement
        .and_then(|v| v.total_volume)
        .is_some());
    let got = req.header.seid.unwrap();
    let cause = if got == seid {
        Cause::REQUEST_ACCEPTED
    } else {
        Cause::SESSION_CONTEXT_NOT_FOUND
    };
    let rsp = SessionReportResponse::new(cause)
        .with_seid(0)
        .with_sequence(incoming.sequence)
        .to_vec()
        .unwrap();
    incoming.respond(rsp.into()).await.unwrap();
    (got, usage.ur_seqn.0)
}

#[tokio::test]
async fn reporting_up_allocates_f_teids_reports_usage_and_survives_a_cp_restart() {
    let up = reporting_up::start(any_port(), Duration::from_millis(50))
        .await
        .unwrap();
    let up_addr = up.endpoint.local_addr();
    let (cp, mut channels) = bind_cp(any_port(), 100).await;
    let cp_addr = cp.local_addr();
    cp.associate(up_addr).await.unwrap();

    // Created PDRs: PDRs 1 and 2 share the F-TEID of CHOOSE ID 1, PDR 3 has another.
    let (_, created) = establish(&cp, up_addr, 1).await;
    let teid = |pdr: u16| match created.iter().find(|(p, _)| *p == PdrId(pdr)) {
        Some((_, FTeid::Assigned { teid, ipv4, .. })) => {
            assert_eq!(*ipv4, Some(Ipv4Addr::LOCALHOST));
            *teid
        }
        other => panic!("PDR {pdr}: {other:?}"),
    };
    assert_eq!(created.len(), 3);
    assert_eq!(teid(1), teid(2));
    assert_ne!(teid(1), teid(3));
    assert_eq!(up.session_count(), 1);

    // Usage reports on it, UR-SEQN counting up from 1.
    let (seid, first) = next_report(&mut channels, 1).await;
    assert_eq!((seid, first), (1, 1));
    let (seid, second) = next_report(&mut channels, 1).await;
    assert_eq!((seid, second), (1, 2));

    // The CP function restarts at the same address with another Recovery Time Stamp.
    drop((cp, channels));
    let (cp, mut channels) = bind_cp(cp_addr, 101).await;
    cp.associate(up_addr).await.unwrap();
    // The UP function's node saw the restart and the example dropped the session.
    timeout(WAIT, async {
        while up.session_count() != 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap();
    assert_eq!(up.endpoint.inspect(|n| n.session_count()).unwrap(), 0);
    assert!(up
        .endpoint
        .inspect(|n| n.peers().is_associated(&cp_addr))
        .unwrap());

    // A session established anew is reported on from UR-SEQN 1. Reports of the old session
    // sent before the restart was seen may still be retransmitted: refused with Cause 65.
    let (up_seid, _) = establish(&cp, up_addr, 100).await;
    assert_eq!(up.session_count(), 1);
    let mut fresh = None;
    for _ in 0..50 {
        let (seid, seqn) = next_report(&mut channels, 100).await;
        if seid == 100 {
            fresh = Some(seqn);
            break;
        }
    }
    assert_eq!(fresh, Some(1));
    let held = up
        .endpoint
        .inspect(|n| n.session(up_seid).map(|s| s.remote_seid))
        .unwrap();
    assert_eq!(held, Some(100));
}
