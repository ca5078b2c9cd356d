//! The messages the judges read: every typed session IE of the crate, built with the builders
//! and encoded by this crate, in several flag combinations.

use std::net::{Ipv4Addr, Ipv6Addr};

use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::*;
use pfcp_wire::{Cause, Header, MessageType, SequenceNumber};

const V6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x17);

fn header(t: MessageType, seq: u32) -> Header {
    Header::new(t)
        .with_seid(0x1122_3344_5566_7788)
        .with_sequence(SequenceNumber::new(seq).unwrap())
}

fn node() -> NodeId<'static> {
    NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 10))
}

fn fseid() -> FSeid {
    FSeid {
        seid: 7,
        ipv4: Some(Ipv4Addr::new(192, 0, 2, 10)),
        ipv6: None,
    }
}

/// The Session Establishment Request: every Create rule, with flag-dependent layouts.
fn establishment() -> Vec<u8> {
    let pdr1 = CreatePdr::new(
        PdrId(1),
        Pdi::new(SourceInterface::ACCESS)
            .with_local_f_teid(FTeid::choose_ipv4(Some(5)))
            .with_network_instance(NetworkInstance::new(b"\x08internet"))
            .with_ue_ip_address(UeIpAddress::ipv4(Ipv4Addr::new(10, 45, 0, 2), false))
            .with_sdf_filter(SdfFilter {
                flow_description: Some(b"permit out ip from any to assigned"[..].into()),
                tos_traffic_class: Some(0x1cff),
                security_parameter_index: Some(0x0102_0304),
                flow_label: Some(0x0a_bcde),
                sdf_filter_id: Some(9),
            })
            .with_application_id(ApplicationId::new(b"app-1"))
            .with_qfi(Qfi::new(9).unwrap()),
    )
    .with_precedence(Precedence(255))
    .with_outer_header_removal(OuterHeaderRemoval {
        description: OuterHeaderRemoval::GTP_U_UDP_IPV4,
        extension_header_deletion: Some(1),
    })
    .with_far_id(FarId(1))
    .with_urr_id(UrrId(1))
    .with_urr_id(UrrId(2))
    .with_qer_id(QerId(1));
    let pdr2 = CreatePdr::new(
        PdrId(2),
        Pdi::new(SourceInterface::CORE)
            .with_local_f_teid(FTeid::Assigned {
                teid: 0x0102_0304,
                ipv4: Some(Ipv4Addr::new(198, 51, 100, 1)),
                ipv6: Some(V6),
            })
            .with_ue_ip_address(UeIpAddress {
                destination: true,
                ipv6: Some(V6),
                ipv6_prefix_length: Some(64),
                ..UeIpAddress::default()
            }),
    )
    .with_precedence(Precedence(100))
    .with_far_id(FarId(0x8000_0002));
    let far1 = CreateFar::new(FarId(1), ApplyAction::FORW)
        .with_forwarding_parameters(
            ForwardingParameters::new(DestinationInterface::CORE)
                .with_network_instance(NetworkInstance::new(b"\x08internet"))
                .with_outer_header_creation(OuterHeaderCreation::gtpu_ipv4(
                    0xab,
                    Ipv4Addr::new(192, 0, 2, 9),
                )),
        )
        .with_bar_id(BarId(1));
    let far2 = CreateFar::new(FarId(2), ApplyAction::BUFF | ApplyAction::NOCP)
        .with_duplicating_parameters(
            DuplicatingParameters::new(DestinationInterface::LI_FUNCTION)
                .with_outer_header_creation(OuterHeaderCreation::udp_ipv4(
                    Ipv4Addr::new(203, 0, 113, 5),
                    2152,
                )),
        );
    let urr = CreateUrr::new(
        UrrId(1),
        MeasurementMethod::VOLUM | MeasurementMethod::DURAT,
        ReportingTriggers::VOLTH | ReportingTriggers::TIMTH | ReportingTriggers::VOLQU,
    )
    .with_volume_threshold(VolumeThreshold {
        total: Some(1_000_000),
        uplink: Some(400_000),
        downlink: Some(600_000),
    })
    .with_volume_quota(VolumeQuota::total(5_000_000))
    .with_time_threshold(TimeThreshold(3600))
    .with_time_quota(TimeQuota(7200));
    let qer = CreateQer::new(QerId(1), GateStatus::new(true, false))
        .with_qer_correlation_id(QerCorrelationId(77))
        .with_mbr(Mbr {
            uplink: 10_000,
            downlink: 20_000,
        })
        .with_gbr(Gbr {
            uplink: 1_000,
            downlink: 2_000,
        })
        .with_qfi(Qfi::new(9).unwrap());
    let bar = CreateBar::new(BarId(1))
        .with_downlink_data_notification_delay(DownlinkDataNotificationDelay(20));
    let mut out = Vec::new();
    let mut w = MessageWriter::begin(
        &mut out,
        &header(MessageType::SESSION_ESTABLISHMENT_REQUEST, 1),
    )
    .unwrap();
    w.ie(&node())
        .unwrap()
        .ie(&fseid())
        .unwrap()
        .ie(&pdr1)
        .unwrap()
        .ie(&pdr2)
        .unwrap()
        .ie(&far1)
        .unwrap()
        .ie(&far2)
        .unwrap()
        .ie(&urr)
        .unwrap()
        .ie(&qer)
        .unwrap()
        .ie(&bar)
        .unwrap();
    w.finish().unwrap();
    out
}

/// The Session Modification Request: every Update and Remove rule.
fn modification() -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = MessageWriter::begin(
        &mut out,
        &header(MessageType::SESSION_MODIFICATION_REQUEST, 2),
    )
    .unwrap();
    w.ie(&UpdatePdr::new(PdrId(1))
        .with_outer_header_removal(OuterHeaderRemoval::new(OuterHeaderRemoval::GTP_U_UDP_IPV6))
        .with_precedence(Precedence(10))
        .with_pdi(Pdi::new(SourceInterface::ACCESS))
        .with_far_id(FarId(3))
        .with_urr_id(UrrId(4))
        .with_qer_id(QerId(5)))
        .unwrap()
        .ie(&UpdateFar::new(FarId(3))
            .with_apply_action(ApplyAction::DROP)
            .with_update_forwarding_parameters(
                UpdateForwardingParameters::new()
                    .with_destination_interface(DestinationInterface::ACCESS)
                    .with_network_instance(NetworkInstance::new(b"\x03ims"))
                    .with_outer_header_creation(OuterHeaderCreation::gtpu_ipv6(0x77, V6)),
            )
            .with_bar_id(BarId(2)))
        .unwrap()
        .ie(&UpdateUrr::new(UrrId(4))
            .with_measurement_method(MeasurementMethod::EVENT)
            .with_reporting_triggers(ReportingTriggers::PERIO | ReportingTriggers::LIUSA)
            .with_volume_threshold(VolumeThreshold {
                uplink: Some(10),
                ..VolumeThreshold::default()
            })
            .with_time_quota(TimeQuota(60)))
        .unwrap()
        .ie(&UpdateQer::new(QerId(5))
            .with_gate_status(GateStatus::CLOSED)
            .with_mbr(Mbr {
                uplink: 1,
                downlink: 0xff_ffff_ffff,
            }))
        .unwrap()
        .ie(&RemovePdr::new(PdrId(7)))
        .unwrap()
        .ie(&RemoveFar::new(FarId(7)))
        .unwrap()
        .ie(&RemoveUrr::new(UrrId(7)))
        .unwrap()
        .ie(&RemoveQer::new(QerId(7)))
        .unwrap()
        .ie(&UpdateBar::new(BarId(2))
            .with_downlink_data_notification_delay(DownlinkDataNotificationDelay(1)))
        .unwrap()
        .ie(&RemoveBar::new(BarId(3)))
        .unwrap();
    w.finish().unwrap();
    out
}

/// The responses and the report: Created PDR, Usage Reports (three kinds), Downlink Data
/// Report, Report Type.
fn reports() -> Vec<Vec<u8>> {
    let created = CreatedPdr::new(PdrId(1))
        .with_local_f_teid(FTeid::ipv4(0xbeef, Ipv4Addr::new(192, 0, 2, 1)))
        .with_ue_ip_address(UeIpAddress::ipv4(Ipv4Addr::new(10, 45, 0, 3), true));
    let mut rsp = Vec::new();
    let mut w = MessageWriter::begin(
        &mut rsp,
        &header(MessageType::SESSION_ESTABLISHMENT_RESPONSE, 1),
    )
    .unwrap();
    w.ie(&node())
        .unwrap()
        .ie(&Cause::REQUEST_ACCEPTED)
        .unwrap()
        .ie(&fseid())
        .unwrap()
        .ie(&created)
        .unwrap();
    w.finish().unwrap();

    let measurement = VolumeMeasurement {
        total_volume: Some(3000),
        uplink_volume: Some(1000),
        downlink_volume: Some(2000),
        total_packets: Some(30),
        uplink_packets: Some(10),
        downlink_packets: Some(20),
    };
    let mut srr = Vec::new();
    let mut w =
        MessageWriter::begin(&mut srr, &header(MessageType::SESSION_REPORT_REQUEST, 3)).unwrap();
    w.ie(&(ReportType::USAR | ReportType::DLDR))
        .unwrap()
        .ie(&DownlinkDataReport::new()
            .with_pdr_id(PdrId(1))
            .with_pdr_id(PdrId(2)))
        .unwrap()
        .ie(
            &UsageReportSrr::new(UrrId(1), UrSeqn(4), UsageReportTrigger::VOLTH)
                .with_volume_measurement(measurement)
                .with_duration_measurement(DurationMeasurement(61)),
        )
        .unwrap();
    w.finish().unwrap();

    let mut smr = Vec::new();
    let mut w = MessageWriter::begin(
        &mut smr,
        &header(MessageType::SESSION_MODIFICATION_RESPONSE, 2),
    )
    .unwrap();
    w.ie(&Cause::REQUEST_ACCEPTED)
        .unwrap()
        .ie(
            &UsageReportSmr::new(UrrId(4), UrSeqn(0), UsageReportTrigger::IMMER)
                .with_volume_measurement(VolumeMeasurement {
                    downlink_volume: Some(5),
                    ..VolumeMeasurement::default()
                }),
        )
        .unwrap();
    w.finish().unwrap();

    let mut sdr = Vec::new();
    let mut w =
        MessageWriter::begin(&mut sdr, &header(MessageType::SESSION_DELETION_RESPONSE, 4)).unwrap();
    w.ie(&Cause::REQUEST_ACCEPTED)
        .unwrap()
        .ie(
            &UsageReportSdr::new(UrrId(1), UrSeqn(9), UsageReportTrigger::TERMR)
                .with_duration_measurement(DurationMeasurement(300)),
        )
        .unwrap();
    w.finish().unwrap();
    vec![rsp, srr, smr, sdr]
}

/// Every message of the judge set.
pub(crate) fn all() -> Vec<Vec<u8>> {
    let mut v = vec![establishment(), modification()];
    v.extend(reports());
    v
}
