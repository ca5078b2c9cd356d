//! The IE values of the node procedures against octets written from the layouts of clauses
//! 8.2.69, 8.2.70, 8.2.77, 8.2.78 and Tables 7.4.4.3-1, 7.4.5.1.1-1.

use std::net::{Ipv4Addr, Ipv6Addr};

use pfcp_wire::ie::{NodeId, Timer, TimerUnit};
use pfcp_wire::msg::{AssociationUpdateRequest, NodeReportRequest};

use super::*;

/// Node ID IE (type 60, clause 8.2.38): IPv4 192.0.2.10.
const NODE_ID: [u8; 9] = [0x00, 0x3c, 0x00, 0x05, 0x00, 192, 0, 2, 10];

#[test]
fn clause_8_2_70_remote_gtpu_peer_reads_v4_v6_and_refuses_short_values() {
    // Octet 5: V4 (bit 2); then the IPv4 address.
    assert_eq!(
        RemoteGtpuPeer::decode_value(&[0x02, 192, 0, 2, 77]),
        Some(RemoteGtpuPeer::ipv4(Ipv4Addr::new(192, 0, 2, 77)))
    );
    // V6 and V4: the IPv4 address first, then the IPv6 one; a DI field after them is skipped.
    let mut both = vec![0x07, 10, 0, 0, 1];
    both.extend_from_slice(&Ipv6Addr::LOCALHOST.octets());
    both.extend_from_slice(&[0x00, 0x01, 0x01]);
    assert_eq!(
        RemoteGtpuPeer::decode_value(&both),
        Some(RemoteGtpuPeer {
            ipv4: Some(Ipv4Addr::new(10, 0, 0, 1)),
            ipv6: Some(Ipv6Addr::LOCALHOST),
        })
    );
    // Shorter than the flags say, no flag, nothing at all: no peer (and no panic).
    assert_eq!(RemoteGtpuPeer::decode_value(&[0x02, 192, 0]), None);
    assert_eq!(RemoteGtpuPeer::decode_value(&[0x01, 0, 0, 0, 0]), None);
    assert_eq!(RemoteGtpuPeer::decode_value(&[0x00]), None);
    assert_eq!(RemoteGtpuPeer::decode_value(&[]), None);
}

#[test]
fn table_7_4_5_1_1_path_failure_report_written_as_the_layout() {
    let report = NodeReport::path_failure([RemoteGtpuPeer::ipv4(Ipv4Addr::new(192, 0, 2, 77))]);
    let tlvs = report.tlvs().unwrap();
    let node_id = NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 10));
    let bytes = tlvs
        .request(node_id)
        .unwrap()
        .with_sequence(pfcp_wire::SequenceNumber::new(3).unwrap())
        .to_vec()
        .unwrap();
    // Message Length: 4 (sequence, spare) + 9 + 5 + 13.
    let mut expected = vec![0x20, 12, 0x00, 0x1f, 0x00, 0x00, 0x03, 0x00];
    expected.extend_from_slice(&NODE_ID);
    // Node Report Type (101): UPFR.
    expected.extend_from_slice(&[0x00, 0x65, 0x00, 0x01, 0x01]);
    // User Plane Path Failure Report (102) holding Remote GTP-U Peer (103): V4 192.0.2.77.
    expected.extend_from_slice(&[0x00, 0x66, 0x00, 0x09]);
    expected.extend_from_slice(&[0x00, 0x67, 0x00, 0x05, 0x02, 192, 0, 2, 77]);
    assert_eq!(bytes, expected);
    // And read back from those octets.
    let req = NodeReportRequest::parse(&expected).unwrap();
    assert_eq!(NodeReport::from_request(&req), Some(report));
}

#[test]
fn table_7_4_5_1_1_a_report_type_without_its_octet_is_no_report() {
    let mut bytes = vec![0x20, 12, 0x00, 0x11, 0x00, 0x00, 0x01, 0x00];
    bytes.extend_from_slice(&NODE_ID);
    bytes.extend_from_slice(&[0x00, 0x65, 0x00, 0x00]);
    // The message may or may not decode as typed; either way no report comes of it.
    if let Ok(req) = NodeReportRequest::parse(&bytes) {
        assert_eq!(NodeReport::from_request(&req), None);
    }
}

#[test]
fn clauses_8_2_77_8_2_78_release_preparation_read_from_the_layout() {
    // Association Update Request, seq 1: Node ID, PFCP Association Release Request (111:
    // SARR and URSS), Graceful Release Period (112: unit minute 001, value 2).
    let mut bytes = vec![0x20, 0x07, 0x00, 0x17, 0x00, 0x00, 0x01, 0x00];
    bytes.extend_from_slice(&NODE_ID);
    bytes.extend_from_slice(&[0x00, 0x6f, 0x00, 0x01, 0x03]);
    bytes.extend_from_slice(&[0x00, 0x70, 0x00, 0x01, 0x22]);
    let req = AssociationUpdateRequest::parse(&bytes).unwrap();
    let prep = ReleasePreparation::from_request(&req).unwrap();
    assert!(prep.sarr && prep.urss);
    assert_eq!(
        prep.graceful_release_period,
        Timer::new(TimerUnit::OneMinute, 2)
    );
    assert_eq!(
        prep.graceful_release_period
            .and_then(Timer::duration)
            .map(|d| d.as_secs()),
        Some(120)
    );
    // Written back: the same two IEs, octet for octet.
    let update = AssociationUpdate::release(prep);
    let (flags, period) = update.release_tlvs().unwrap();
    assert_eq!(flags, [0x00, 0x6f, 0x00, 0x01, 0x03]);
    assert_eq!(period, [0x00, 0x70, 0x00, 0x01, 0x22]);
    // An update with neither IE asks no release.
    let mut b = vec![0x20, 0x07, 0x00, 0x0d, 0x00, 0x00, 0x01, 0x00];
    b.extend_from_slice(&NODE_ID);
    let plain = AssociationUpdateRequest::parse(&b).unwrap();
    assert_eq!(ReleasePreparation::from_request(&plain), None);
}
