//! The messages of the typed builders (`pfcp_wire::msg`) the judges read: every one of the 25
//! message types, built from values, its typed IEs set (the session rules in several flag
//! combinations) and the IEs the crate does not type only where the table makes them
//! mandatory (with their clause 8.2 layouts).

use std::net::{Ipv4Addr, Ipv6Addr};

use pfcp_wire::ie::*;
use pfcp_wire::msg::*;
use pfcp_wire::{Cause, IeType, MessagePriority, RawIe, SequenceNumber};

const V6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x17);
const SEID: u64 = 0x1122_3344_5566_7788;

fn node() -> NodeId<'static> {
    NodeId::Fqdn(Fqdn::from_dotted("upf1.n4.example.net").unwrap())
}

fn fseid() -> FSeid {
    FSeid {
        seid: 7,
        ipv4: Some(Ipv4Addr::new(192, 0, 2, 10)),
        ipv6: Some(V6),
    }
}

fn seq(n: u32) -> SequenceNumber {
    SequenceNumber::new(n).unwrap()
}

fn oci() -> OverloadControlInformation {
    OverloadControlInformation {
        sequence_number: ControlSequenceNumber(5),
        metric: Metric::new(30).unwrap(),
        period_of_validity: Timer(0x22),
        flags: Some(OciFlags::AOCI),
    }
}

fn lci() -> LoadControlInformation {
    LoadControlInformation {
        sequence_number: ControlSequenceNumber(7),
        metric: Metric::new(55).unwrap(),
    }
}

fn rules() -> (Vec<CreatePdr<'static>>, Vec<CreateFar<'static>>) {
    let pdr1 = CreatePdr::new(
        PdrId(1),
        Pdi::new(SourceInterface::ACCESS)
            .with_local_f_teid(FTeid::choose_ipv4(Some(5)))
            .with_network_instance(NetworkInstance::new(b"\x08internet"))
            .with_ue_ip_address(UeIpAddress::ipv4(Ipv4Addr::new(10, 45, 0, 2), false))
            .with_sdf_filter(SdfFilter::flow(b"permit out ip from any to assigned"))
            .with_qfi(Qfi::new(9).unwrap()),
    )
    .with_precedence(Precedence(255))
    .with_outer_header_removal(OuterHeaderRemoval::new(OuterHeaderRemoval::GTP_U_UDP_IPV4))
    .with_far_id(FarId(1))
    .with_urr_id(UrrId(1))
    .with_qer_id(QerId(1));
    let pdr2 = CreatePdr::new(
        PdrId(2),
        Pdi::new(SourceInterface::CORE)
            .with_ue_ip_address(UeIpAddress::ipv4(Ipv4Addr::new(10, 45, 0, 2), true)),
    )
    .with_precedence(Precedence(100))
    .with_far_id(FarId(2));
    let far1 = CreateFar::new(FarId(1), ApplyAction::FORW).with_forwarding_parameters(
        ForwardingParameters::new(DestinationInterface::CORE)
            .with_network_instance(NetworkInstance::new(b"\x08internet")),
    );
    let far2 = CreateFar::new(FarId(2), ApplyAction::FORW)
        .with_forwarding_parameters(
            ForwardingParameters::new(DestinationInterface::ACCESS).with_outer_header_creation(
                OuterHeaderCreation::gtpu_ipv4(0xab, Ipv4Addr::new(192, 0, 2, 9)),
            ),
        )
        .with_bar_id(BarId(1));
    (vec![pdr1, pdr2], vec![far1, far2])
}

/// Every message type, built by its typed builder and encoded.
pub(crate) fn all() -> Vec<Vec<u8>> {
    let rts = RecoveryTimeStamp(0xE8F4_A2B0);
    let cause = Cause::REQUEST_ACCEPTED;
    let up = UpFunctionFeatures::empty()
        .with(UpFunctionFeatures::FTUP)
        .with(UpFunctionFeatures::PFDE);
    let cp = CpFunctionFeatures::empty()
        .with(CpFunctionFeatures::LOAD)
        .with(CpFunctionFeatures::OVRL);
    let offending = OffendingIe(IeType::NODE_ID);
    let prio = MessagePriority::new(4).unwrap();
    // Node Report Type (101, clause 8.2.69): UPFR.
    let report_type = RawIe::from_tlv(&[0x00, 0x65, 0x00, 0x01, 0x01]).unwrap();
    // PFCP Session Change Info (290, Table 7.4.7.1-2): Alternative SMF/PGW-C IP Address
    // (178, clause 8.2.163: V4, 192.0.2.7).
    let change = [RawIe::from_tlv(&[
        0x01, 0x22, 0x00, 0x09, 0x00, 0xb2, 0x00, 0x05, 0x02, 192, 0, 2, 7,
    ])
    .unwrap()];
    // PDN Type (113, clause 8.2.79): IPv4v6.
    let pdn_type = RawIe::from_tlv(&[0x00, 0x71, 0x00, 0x01, 0x03]).unwrap();
    let (pdrs, fars) = rules();
    let urrs = [CreateUrr::new(
        UrrId(1),
        MeasurementMethod::VOLUM | MeasurementMethod::DURAT,
        ReportingTriggers::VOLTH | ReportingTriggers::TIMTH,
    )
    .with_volume_threshold(VolumeThreshold {
        total: Some(1_000_000),
        uplink: None,
        downlink: None,
    })
    .with_time_threshold(TimeThreshold(3600))];
    let qers = [CreateQer::new(QerId(1), GateStatus::OPEN).with_mbr(Mbr {
        uplink: 10_000,
        downlink: 20_000,
    })];
    let created = [CreatedPdr::new(PdrId(1))
        .with_local_f_teid(FTeid::ipv4(0xbeef, Ipv4Addr::new(192, 0, 2, 1)))];
    let updates = [UpdatePdr::new(PdrId(2)).with_precedence(Precedence(10))];
    let update_fars = [UpdateFar::new(FarId(2)).with_apply_action(ApplyAction::BUFF)];
    let removes = [RemovePdr::new(PdrId(7))];
    let remove_fars = [RemoveFar::new(FarId(7))];
    let measurement = VolumeMeasurement {
        total_volume: Some(3000),
        uplink_volume: Some(1000),
        downlink_volume: Some(2000),
        ..VolumeMeasurement::default()
    };
    let smr_reports = [
        UsageReportSmr::new(UrrId(1), UrSeqn(0), UsageReportTrigger::IMMER)
            .with_volume_measurement(measurement),
    ];
    let sdr_reports = [
        UsageReportSdr::new(UrrId(1), UrSeqn(9), UsageReportTrigger::TERMR)
            .with_duration_measurement(DurationMeasurement(300)),
    ];
    let srr_reports = [
        UsageReportSrr::new(UrrId(1), UrSeqn(4), UsageReportTrigger::VOLTH)
            .with_volume_measurement(measurement)
            .with_duration_measurement(DurationMeasurement(61)),
    ];
    let ddr = DownlinkDataReport::new().with_pdr_id(PdrId(2));

    let v = |r: Result<Vec<u8>, pfcp_wire::EncodeError>| r.unwrap();
    vec![
        v(HeartbeatRequest::new(rts).with_sequence(seq(1)).to_vec()),
        v(HeartbeatResponse::new(rts).with_sequence(seq(1)).to_vec()),
        v(PfdManagementRequest::new().with_node_id(node()).to_vec()),
        v(PfdManagementResponse::new(cause)
            .with_offending_ie(offending)
            .with_node_id(node())
            .to_vec()),
        v(AssociationSetupRequest::new(node(), rts)
            .with_cp_function_features(cp)
            .to_vec()),
        v(AssociationSetupResponse::new(node(), cause, rts)
            .with_up_function_features(up)
            .to_vec()),
        v(AssociationUpdateRequest::new(node())
            .with_up_function_features(up)
            .to_vec()),
        v(AssociationUpdateResponse::new(node(), cause)
            .with_cp_function_features(cp)
            .to_vec()),
        v(AssociationReleaseRequest::new(node()).to_vec()),
        v(AssociationReleaseResponse::new(node(), cause).to_vec()),
        v(VersionNotSupportedResponse::new().to_vec()),
        v(NodeReportRequest::new(node(), report_type).to_vec()),
        v(NodeReportResponse::new(node(), cause).to_vec()),
        v(SessionSetDeletionRequest::new(node()).to_vec()),
        v(
            SessionSetDeletionResponse::new(node(), Cause::REQUEST_REJECTED)
                .with_offending_ie(offending)
                .to_vec(),
        ),
        v(SessionSetModificationRequest::new(node(), &change).to_vec()),
        v(SessionSetModificationResponse::new(node(), cause).to_vec()),
        v(
            SessionEstablishmentRequest::new(node(), fseid(), &pdrs, &fars)
                .with_create_urrs(&urrs)
                .with_create_qers(&qers)
                .with_create_bar(CreateBar::new(BarId(1)))
                .with_pdn_type(pdn_type)
                .with_recovery_time_stamp(rts)
                .with_priority(prio)
                .with_sequence(seq(2))
                .to_vec(),
        ),
        v(SessionEstablishmentResponse::new(node(), cause)
            .with_up_f_seid(fseid())
            .with_created_pdrs(&created)
            .with_load_control_information(lci())
            .with_overload_control_information(oci())
            .with_seid(SEID)
            .with_priority(prio)
            .to_vec()),
        v(SessionModificationRequest::new()
            .with_cp_f_seid(fseid())
            .with_remove_pdrs(&removes)
            .with_remove_fars(&remove_fars)
            .with_create_urrs(&urrs)
            .with_update_pdrs(&updates)
            .with_update_fars(&update_fars)
            .with_update_bar(UpdateBar::new(BarId(1)))
            .with_seid(SEID)
            .to_vec()),
        v(SessionModificationResponse::new(cause)
            .with_created_pdrs(&created)
            .with_overload_control_information(oci())
            .with_usage_reports(&smr_reports)
            .with_seid(SEID)
            .to_vec()),
        v(SessionDeletionRequest::new().with_seid(SEID).to_vec()),
        v(SessionDeletionResponse::new(cause)
            .with_load_control_information(lci())
            .with_usage_reports(&sdr_reports)
            .with_seid(SEID)
            .to_vec()),
        v(
            SessionReportRequest::new(ReportType::USAR | ReportType::DLDR)
                .with_downlink_data_report(ddr)
                .with_usage_reports(&srr_reports)
                .with_overload_control_information(oci())
                .with_seid(SEID)
                .with_priority(prio)
                .to_vec(),
        ),
        v(SessionReportResponse::new(cause)
            .with_cp_f_seid(fseid())
            .with_n4_u_f_teid(FTeid::ipv4(0x0102_0304, Ipv4Addr::new(198, 51, 100, 1)))
            .with_node_id(node())
            .with_seid(SEID)
            .to_vec()),
    ]
}
