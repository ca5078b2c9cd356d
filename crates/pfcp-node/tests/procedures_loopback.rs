//! The node procedures through the tokio endpoint on real UDP (loopback): a UP function's
//! Node Report (clause 6.2.9), Session Report (6.3.5) and request to release its association
//! (6.2.7), then the CP function's Association Release (6.2.8).
#![cfg(feature = "tokio")]

mod common;

use std::net::Ipv4Addr;

use common::{accepted, associated_pair, endpoint_config, establish, next_event, serve, WAIT};
use pfcp_node::procedures::{AssociationUpdate, NodeReport, ReleasePreparation, RemoteGtpuPeer};
use pfcp_node::{Error, PeerEvent, RequestProfile};
use pfcp_test_support::node::{cp_local, up_local};
use pfcp_wire::ie::{ReportType, UrSeqn, UrrId, UsageReportSrr, UsageReportTrigger};
use pfcp_wire::msg::{SessionReportRequest, SessionReportResponse};
use pfcp_wire::{Cause, MessageType};
use tokio::time::timeout;

#[tokio::test]
async fn up_reports_asks_for_release_and_the_cp_releases_over_udp() {
    let mut pair = associated_pair(endpoint_config(up_local()), endpoint_config(cp_local())).await;
    let (up_addr, cp_addr) = (pair.up.local_addr(), pair.cp.local_addr());
    assert!(matches!(
        next_event(&mut pair.cp_channels.events).await,
        PeerEvent::Associated { .. }
    ));
    // The UP's application accepts establishments with UP SEID 0x55; its events stay here.
    let mut up_events = std::mem::replace(
        &mut pair.up_channels.events,
        tokio::sync::mpsc::channel(1).1,
    );
    assert!(matches!(
        next_event(&mut up_events).await,
        PeerEvent::Associated { .. }
    ));
    let (_, empty) = tokio::sync::mpsc::channel(1);
    let up_app = std::mem::replace(&mut pair.up_channels.incoming, empty);
    serve(
        pfcp_node::Channels {
            incoming: up_app,
            events: tokio::sync::mpsc::channel(1).1,
        },
        |m| (m.message_type() == MessageType::SESSION_ESTABLISHMENT_REQUEST).then(|| accepted(m)),
    );
    let r = establish(&pair.cp, up_addr, RequestProfile::default())
        .await
        .unwrap();
    assert!(r.is_accepted());

    // Node Report: answered by the CP's node, reported as an event.
    let gnb = RemoteGtpuPeer::ipv4(Ipv4Addr::new(198, 51, 100, 7));
    pair.up
        .send_node_report(cp_addr, NodeReport::path_failure([gnb]))
        .await
        .unwrap();
    match next_event(&mut pair.cp_channels.events).await {
        PeerEvent::NodeReport { peer, report, .. } => {
            assert_eq!(peer, up_addr);
            assert_eq!(report.path_failure, [gnb]);
        }
        other => panic!("{other:?}"),
    }

    // Session Report on the UP's session 0x55: to the CP with its SEID (1), answered there.
    let usage = [UsageReportSrr::new(
        UrrId(1),
        UrSeqn(4),
        UsageReportTrigger::PERIO,
    )];
    let up = pair.up.clone();
    let to_send = usage.clone();
    let sent = tokio::spawn(async move {
        let report = SessionReportRequest::new(ReportType::USAR).with_usage_reports(&to_send);
        up.send_session_report(0x55, &report).await
    });
    let incoming = timeout(WAIT, pair.cp_channels.incoming.recv())
        .await
        .unwrap()
        .unwrap();
    let got = SessionReportRequest::parse(&incoming.bytes).unwrap();
    assert_eq!(got.header.seid, Some(1));
    assert_eq!(got.usage_reports.iter().collect::<Vec<_>>(), usage);
    let rsp = SessionReportResponse::new(Cause::REQUEST_ACCEPTED)
        .with_seid(0x55)
        .with_sequence(incoming.sequence)
        .to_vec()
        .unwrap();
    incoming.respond(rsp.into()).await.unwrap();
    assert!(sent.await.unwrap().unwrap().is_accepted());
    // Unknown session: refused before anything is sent.
    let report = SessionReportRequest::new(ReportType::USAR);
    assert!(matches!(
        pair.up.send_session_report(0x56, &report).await,
        Err(Error::Request(pfcp_node::RequestError::UnknownSession(
            0x56
        )))
    ));

    // The UP asks for the release; the CP is told, and releases.
    pair.up
        .update_association(
            cp_addr,
            AssociationUpdate::release(ReleasePreparation::release()),
        )
        .await
        .unwrap();
    assert!(matches!(
        next_event(&mut pair.cp_channels.events).await,
        PeerEvent::ReleaseRequested { preparation, .. } if preparation.sarr
    ));
    pair.cp.release_association(up_addr).await.unwrap();
    assert!(matches!(
        next_event(&mut up_events).await,
        PeerEvent::Released { .. }
    ));
    match next_event(&mut up_events).await {
        PeerEvent::SessionsLost { sessions, .. } => {
            assert_eq!(
                sessions.iter().map(|s| s.local_seid).collect::<Vec<_>>(),
                [0x55]
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(!pair
        .cp
        .inspect(|n| n.peers().is_associated(&up_addr))
        .unwrap());
    // Released: a second release is answered locally with Cause 72.
    assert!(matches!(
        pair.cp.release_association(up_addr).await,
        Err(Error::Rejected(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION))
    ));
}
