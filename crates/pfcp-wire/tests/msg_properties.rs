//! Property tests of the typed messages (`pfcp_wire::msg`): every one of the 25 message types,
//! built from generated values (typed IEs, repeated rules, IEs this crate does not type, vendor
//! and unknown IEs, header fields), encodes to exactly `encoded_len()` octets that decode, in
//! one walk and in two steps, to the same values; and re-encodes to the same octets.

use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use pfcp_wire::ie::*;
use pfcp_wire::msg::*;
use pfcp_wire::{Cause, IeType, Message, MessagePriority, RawIe, SequenceNumber};

// ---------------------------------------------------------------------------------------------
// Strategies

fn fseid() -> impl Strategy<Value = FSeid> {
    (any::<u64>(), any::<[u8; 4]>(), any::<[u8; 16]>(), 1u8..=3).prop_map(
        |(seid, v4, v6, which)| FSeid {
            seid,
            ipv4: (which & 2 != 0).then(|| v4.into()),
            ipv6: (which & 1 != 0).then(|| v6.into()),
        },
    )
}

fn node_id() -> impl Strategy<Value = NodeId<'static>> {
    prop_oneof![
        any::<[u8; 4]>().prop_map(|a| NodeId::Ipv4(a.into())),
        any::<[u8; 16]>().prop_map(|a| NodeId::Ipv6(a.into())),
        proptest::sample::select(&["upf1.example.net", "smf", "a.b.c.d.e"][..])
            .prop_map(|s| NodeId::Fqdn(Fqdn::from_dotted(s).unwrap())),
    ]
}

fn oci() -> impl Strategy<Value = OverloadControlInformation> {
    (
        any::<u32>(),
        0u8..=100,
        any::<u8>(),
        option::of(any::<u8>()),
    )
        .prop_map(|(seq, metric, timer, flags)| OverloadControlInformation {
            sequence_number: ControlSequenceNumber(seq),
            metric: Metric::new(metric).unwrap(),
            period_of_validity: Timer(timer),
            flags: flags.map(OciFlags),
        })
}

fn lci() -> impl Strategy<Value = LoadControlInformation> {
    (any::<u32>(), 0u8..=100).prop_map(|(seq, metric)| LoadControlInformation {
        sequence_number: ControlSequenceNumber(seq),
        metric: Metric::new(metric).unwrap(),
    })
}

fn f_teid() -> impl Strategy<Value = FTeid> {
    prop_oneof![
        (any::<u32>(), any::<[u8; 4]>()).prop_map(|(t, a)| FTeid::ipv4(t, a.into())),
        option::of(any::<u8>()).prop_map(FTeid::choose_ipv4),
    ]
}

fn ue_ip() -> impl Strategy<Value = UeIpAddress> {
    (any::<[u8; 4]>(), any::<bool>()).prop_map(|(a, d)| UeIpAddress::ipv4(a.into(), d))
}

const NETWORK_INSTANCES: &[&[u8]] = &[b"internet", b"\x03ims"];

fn pdi() -> impl Strategy<Value = Pdi<'static>> {
    (
        0u8..=15,
        option::of(f_teid()),
        option::of(proptest::sample::select(NETWORK_INSTANCES)),
        vec(ue_ip(), 0..3),
        vec(0u8..=63, 0..3),
    )
        .prop_map(|(si, teid, ni, ues, qfis)| {
            let mut p = Pdi::new(SourceInterface(si));
            if let Some(t) = teid {
                p = p.with_local_f_teid(t);
            }
            if let Some(n) = ni {
                p = p.with_network_instance(NetworkInstance::new(n));
            }
            for u in ues {
                p = p.with_ue_ip_address(u);
            }
            for q in qfis {
                p = p.with_qfi(Qfi::new(q).unwrap());
            }
            p
        })
}

fn create_pdr() -> impl Strategy<Value = CreatePdr<'static>> {
    (
        any::<u16>(),
        pdi(),
        option::of(any::<u32>()),
        option::of(any::<u32>()),
        vec(any::<u32>(), 0..3),
    )
        .prop_map(|(id, pdi, prec, far, urrs)| {
            let mut r = CreatePdr::new(PdrId(id), pdi);
            if let Some(p) = prec {
                r = r.with_precedence(Precedence(p));
            }
            if let Some(f) = far {
                r = r.with_far_id(FarId(f));
            }
            for u in urrs {
                r = r.with_urr_id(UrrId(u));
            }
            r
        })
}

fn create_far() -> impl Strategy<Value = CreateFar<'static>> {
    (
        any::<u32>(),
        0u8..=0x3f,
        option::of((0u8..=15, any::<u32>(), any::<[u8; 4]>())),
    )
        .prop_map(|(id, action, fwd)| {
            let action = ApplyAction {
                bits: u32::from(action),
                octets: 1,
            };
            let mut f = CreateFar::new(FarId(id), action);
            if let Some((di, teid, a)) = fwd {
                f = f.with_forwarding_parameters(
                    ForwardingParameters::new(DestinationInterface(di))
                        .with_outer_header_creation(OuterHeaderCreation::gtpu_ipv4(teid, a.into())),
                );
            }
            f
        })
}

fn create_urr() -> impl Strategy<Value = CreateUrr> {
    (any::<u32>(), option::of(any::<u32>())).prop_map(|(id, t)| {
        let u = CreateUrr::new(
            UrrId(id),
            MeasurementMethod::VOLUM,
            ReportingTriggers::VOLTH,
        );
        match t {
            Some(t) => u.with_time_threshold(TimeThreshold(t)),
            None => u,
        }
    })
}

fn create_qer() -> impl Strategy<Value = CreateQer> {
    (any::<u32>(), any::<bool>(), option::of(0u8..=63)).prop_map(|(id, open, qfi)| {
        let q = CreateQer::new(QerId(id), GateStatus::new(open, !open));
        match qfi {
            Some(v) => q.with_qfi(Qfi::new(v).unwrap()),
            None => q,
        }
    })
}

fn usage(id: u32, seq: u32) -> (UrrId, UrSeqn, UsageReportTrigger) {
    (UrrId(id), UrSeqn(seq), UsageReportTrigger::VOLTH)
}

/// Value octets for a `RawIe` of `t`: its members for a grouped type (leaf IEs of an unknown
/// type), the octets themselves otherwise.
fn raw_tlv(t: IeType, value: &[u8]) -> Vec<u8> {
    let body = if t.is_grouped() {
        let mut b = vec![0x03, 0xe8];
        b.extend((value.len() as u16).to_be_bytes());
        b.extend(value);
        b
    } else {
        value.to_vec()
    };
    let mut out = t.0.to_be_bytes().to_vec();
    out.extend((body.len() as u16).to_be_bytes());
    out.extend(body);
    out
}

/// Everything a message of any type is built from.
#[derive(Debug, Clone)]
struct Material {
    seq: u32,
    seid: u64,
    priority: Option<u8>,
    /// Which optional IEs are set (one bit each, by position in the builder calls).
    present: u64,
    node: NodeId<'static>,
    fseid: FSeid,
    cause: u8,
    rts: u32,
    up: Vec<u8>,
    cp: Vec<u8>,
    oci: OverloadControlInformation,
    lci: LoadControlInformation,
    offending: u16,
    report: u8,
    teid: FTeid,
    pdrs: Vec<CreatePdr<'static>>,
    fars: Vec<CreateFar<'static>>,
    urrs: Vec<CreateUrr>,
    qers: Vec<CreateQer>,
    ids: Vec<u32>,
    /// The value of every IE set as a `RawIe`.
    raw: Vec<u8>,
    /// Vendor IEs (Enterprise ID, value) and IEs of a later release (type, value).
    vendor: Vec<(u16, u16, Vec<u8>)>,
    later: Vec<(u16, Vec<u8>)>,
}

fn material() -> impl Strategy<Value = Material> {
    let a = (
        0u32..=0x00FF_FFFF,
        any::<u64>(),
        option::of(0u8..=15),
        any::<u64>(),
        node_id(),
        fseid(),
        1u8..=255,
        any::<u32>(),
        vec(any::<u8>(), 1..=6),
        vec(any::<u8>(), 1..=6),
        oci(),
        lci(),
    );
    let b = (
        any::<u16>(),
        any::<u8>(),
        f_teid(),
        vec(create_pdr(), 1..4),
        vec(create_far(), 1..4),
        vec(create_urr(), 0..3),
        vec(create_qer(), 0..3),
        vec(any::<u32>(), 1..4),
        vec(any::<u8>(), 0..12),
        vec(
            (0x8000u16..=0xffff, any::<u16>(), vec(any::<u8>(), 0..8)),
            0..3,
        ),
        // Types past the table of Release 17 (322 and up) that are no vendor type.
        vec((400u16..0x8000, vec(any::<u8>(), 0..8)), 0..3),
    );
    (a, b).prop_map(|(a, b)| Material {
        seq: a.0,
        seid: a.1,
        priority: a.2,
        present: a.3,
        node: a.4,
        fseid: a.5,
        cause: a.6,
        rts: a.7,
        up: a.8,
        cp: a.9,
        oci: a.10,
        lci: a.11,
        offending: b.0,
        report: b.1,
        teid: b.2,
        pdrs: b.3,
        fars: b.4,
        urrs: b.5,
        qers: b.6,
        ids: b.7,
        raw: b.8,
        vendor: b.9,
        later: b.10,
    })
}

// ---------------------------------------------------------------------------------------------
// The check

/// `m` encodes to `encoded_len()` octets that read back, in one walk and in two steps, as `m`,
/// and re-encode to the same octets; returns them.
fn round_trip<'a, M: TypedMessage<'a>>(m: &M) -> Result<Vec<u8>, TestCaseError> {
    let bytes = m
        .to_vec()
        .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(bytes.len(), m.encoded_len());
    let bytes: &'static [u8] = Vec::leak(bytes.clone());
    let back = M::parse(bytes).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(&back, m);
    let msg = Message::decode(bytes).unwrap();
    let again = M::decode(&msg);
    prop_assert_eq!(again.as_ref(), Ok(&back));
    prop_assert_eq!(
        AnyMessage::parse(bytes).map(|a| a.message_type()),
        Ok(M::MESSAGE_TYPE)
    );
    prop_assert_eq!(back.to_vec().unwrap(), bytes);
    Ok(bytes.to_vec())
}

/// The `RawIe` of type `t` built from the material's raw octets.
struct Raws(HashMap<u16, Vec<u8>>);

impl Raws {
    fn new(value: &[u8]) -> Raws {
        // Every IE type the builders below set as a `RawIe`.
        let types = [
            IeType::SOURCE_IP_ADDRESS,
            IeType::APPLICATION_IDS_PFDS,
            IeType::SMF_SET_ID,
            IeType::ALTERNATIVE_SMF_IP_ADDRESS,
            IeType::NF_INSTANCE_ID,
            IeType::GRACEFUL_RELEASE_PERIOD,
            IeType::UE_IP_ADDRESS_USAGE_INFORMATION,
            IeType::NODE_REPORT_TYPE,
            IeType::USER_PLANE_PATH_FAILURE_REPORT,
            IeType::GTP_U_PATH_QOS_REPORT,
            IeType::FQ_CSID,
            IeType::PFCP_SESSION_CHANGE_INFO,
            IeType::PDN_TYPE,
            IeType::CREATE_TRAFFIC_ENDPOINT,
            IeType::APN_DNN,
            IeType::FAILED_RULE_ID,
            IeType::CREATED_TRAFFIC_ENDPOINT,
            IeType::QUERY_URR,
            IeType::PFCPSMREQ_FLAGS,
            IeType::ADDITIONAL_USAGE_REPORTS_INFORMATION,
            IeType::PFCPSDRSP_FLAGS,
            IeType::ERROR_INDICATION_REPORT,
            IeType::UPDATE_BAR_SRR,
            IeType::VENDOR_SPECIFIC_NODE_REPORT_TYPE,
        ];
        Raws(types.iter().map(|t| (t.0, raw_tlv(*t, value))).collect())
    }

    fn get(&self, t: IeType) -> RawIe<'_> {
        RawIe::from_tlv(&self.0[&t.0]).unwrap()
    }
}

/// Every message type built from `m` and checked.
fn check_all(m: &Material) -> Result<usize, TestCaseError> {
    let raws = Raws::new(&m.raw);
    let r = |t| raws.get(t);
    let bit = |i: u32| m.present & (1 << i) != 0;
    let seq = SequenceNumber::new(m.seq).unwrap();
    let prio = m.priority.map(|p| MessagePriority::new(p).unwrap());
    let node = m.node;
    let cause = Cause(m.cause);
    let rts = RecoveryTimeStamp(m.rts);
    let up = UpFunctionFeatures::from_octets(&m.up).unwrap();
    let cp = CpFunctionFeatures::from_octets(&m.cp).unwrap();
    let offending = OffendingIe(IeType(m.offending));
    let report = ReportType {
        bits: u32::from(m.report),
        octets: 1,
    };
    let tlvs: Vec<Vec<u8>> = m
        .vendor
        .iter()
        .map(|(t, eid, v)| {
            let mut b = t.to_be_bytes().to_vec();
            b.extend(((v.len() + 2) as u16).to_be_bytes());
            b.extend(eid.to_be_bytes());
            b.extend(v);
            b
        })
        .chain(m.later.iter().map(|(t, v)| raw_tlv(IeType(*t), v)))
        .collect();
    let other: Vec<RawIe<'_>> = tlvs.iter().map(|b| RawIe::from_tlv(b).unwrap()).collect();
    let other = &other[..];
    let raw2 = [r(IeType::FQ_CSID), r(IeType::FQ_CSID)];
    let created: Vec<CreatedPdr<'static>> = m
        .ids
        .iter()
        .map(|&id| CreatedPdr::new(PdrId(id as u16)).with_local_f_teid(m.teid))
        .collect();
    let updates: Vec<UpdatePdr<'static>> = m
        .ids
        .iter()
        .map(|&id| UpdatePdr::new(PdrId(id as u16)).with_far_id(FarId(id)))
        .collect();
    let update_fars: Vec<UpdateFar<'static>> = m
        .ids
        .iter()
        .map(|&id| UpdateFar::new(FarId(id)).with_apply_action(ApplyAction::DROP))
        .collect();
    let update_urrs: Vec<UpdateUrr> = m.ids.iter().map(|&i| UpdateUrr::new(UrrId(i))).collect();
    let update_qers: Vec<UpdateQer> = m.ids.iter().map(|&i| UpdateQer::new(QerId(i))).collect();
    let remove_pdrs: Vec<RemovePdr> = m
        .ids
        .iter()
        .map(|&i| RemovePdr::new(PdrId(i as u16)))
        .collect();
    let remove_fars: Vec<RemoveFar> = m.ids.iter().map(|&i| RemoveFar::new(FarId(i))).collect();
    let remove_urrs: Vec<RemoveUrr> = m.ids.iter().map(|&i| RemoveUrr::new(UrrId(i))).collect();
    let remove_qers: Vec<RemoveQer> = m.ids.iter().map(|&i| RemoveQer::new(QerId(i))).collect();
    let smr_reports: Vec<UsageReportSmr> = m
        .ids
        .iter()
        .map(|&i| {
            let (a, b, c) = usage(i, i ^ 7);
            UsageReportSmr::new(a, b, c).with_duration_measurement(DurationMeasurement(i))
        })
        .collect();
    let sdr_reports: Vec<UsageReportSdr> = m
        .ids
        .iter()
        .map(|&i| {
            let (a, b, c) = usage(i, 1);
            UsageReportSdr::new(a, b, c)
        })
        .collect();
    let srr_reports: Vec<UsageReportSrr> = m
        .ids
        .iter()
        .map(|&i| {
            let (a, b, c) = usage(i, 2);
            UsageReportSrr::new(a, b, c).with_volume_measurement(VolumeMeasurement {
                total_volume: Some(u64::from(i)),
                ..VolumeMeasurement::default()
            })
        })
        .collect();
    let ddr = m.ids.iter().fold(DownlinkDataReport::new(), |d, &i| {
        d.with_pdr_id(PdrId(i as u16))
    });

    let mut n = 0usize;
    macro_rules! check {
        ($msg:expr) => {{
            round_trip(&$msg.with_sequence(seq).with_other(other))?;
            n += 1;
        }};
    }
    macro_rules! session {
        ($msg:expr) => {{
            let s = $msg.with_seid(m.seid);
            match prio {
                Some(p) => check!(s.with_priority(p)),
                None => check!(s),
            }
        }};
    }
    macro_rules! opt {
        ($msg:expr, $i:expr, $with:ident, $v:expr) => {
            if bit($i) {
                $msg.$with($v)
            } else {
                $msg
            }
        };
    }

    let hb = HeartbeatRequest::new(rts);
    check!(opt!(
        hb,
        0,
        with_source_ip_address,
        r(IeType::SOURCE_IP_ADDRESS)
    ));
    check!(HeartbeatResponse::new(rts));
    let pfd = PfdManagementRequest::new().with_application_ids_pfds(&raw2[..0]);
    let pfd = opt!(pfd, 1, with_node_id, node);
    let pfds = [r(IeType::APPLICATION_IDS_PFDS)];
    check!(opt!(pfd, 2, with_application_ids_pfds, &pfds));
    let pfd = PfdManagementResponse::new(cause);
    check!(opt!(
        opt!(pfd, 3, with_offending_ie, offending),
        4,
        with_node_id,
        node
    ));

    let asr = AssociationSetupRequest::new(node, rts);
    let asr = opt!(asr, 5, with_up_function_features, up);
    let asr = opt!(asr, 6, with_cp_function_features, cp);
    let asr = opt!(asr, 7, with_smf_set_id, r(IeType::SMF_SET_ID));
    check!(opt!(
        asr,
        8,
        with_upf_instance_id,
        r(IeType::NF_INSTANCE_ID)
    ));
    let asp = AssociationSetupResponse::new(node, cause, rts);
    let asp = opt!(asp, 9, with_up_function_features, up);
    let alt = [r(IeType::ALTERNATIVE_SMF_IP_ADDRESS)];
    check!(opt!(asp, 10, with_alternative_smf_ip_addresses, &alt));
    let aur = AssociationUpdateRequest::new(node);
    let aur = opt!(aur, 11, with_cp_function_features, cp);
    let aur = opt!(
        aur,
        12,
        with_graceful_release_period,
        r(IeType::GRACEFUL_RELEASE_PERIOD)
    );
    let usage_info = [r(IeType::UE_IP_ADDRESS_USAGE_INFORMATION)];
    check!(opt!(
        aur,
        13,
        with_ue_ip_address_usage_information,
        &usage_info
    ));
    let aup = AssociationUpdateResponse::new(node, cause);
    check!(opt!(aup, 14, with_up_function_features, up));
    check!(AssociationReleaseRequest::new(node));
    check!(AssociationReleaseResponse::new(node, cause));
    check!(VersionNotSupportedResponse::new());

    let nrr = NodeReportRequest::new(node, r(IeType::NODE_REPORT_TYPE));
    let nrr = opt!(
        nrr,
        15,
        with_user_plane_path_failure_report,
        r(IeType::USER_PLANE_PATH_FAILURE_REPORT)
    );
    let qos = [
        r(IeType::GTP_U_PATH_QOS_REPORT),
        r(IeType::GTP_U_PATH_QOS_REPORT),
    ];
    let nrr = opt!(nrr, 16, with_gtp_u_path_qos_reports, &qos);
    check!(opt!(
        nrr,
        17,
        with_vendor_specific_node_report_type,
        r(IeType::VENDOR_SPECIFIC_NODE_REPORT_TYPE)
    ));
    check!(opt!(
        NodeReportResponse::new(node, cause),
        18,
        with_offending_ie,
        offending
    ));
    check!(opt!(
        SessionSetDeletionRequest::new(node),
        19,
        with_fq_csids,
        &raw2
    ));
    check!(SessionSetDeletionResponse::new(node, cause));
    let change = [r(IeType::PFCP_SESSION_CHANGE_INFO)];
    check!(SessionSetModificationRequest::new(node, &change));
    check!(opt!(
        SessionSetModificationResponse::new(node, cause),
        20,
        with_offending_ie,
        offending
    ));

    let ser = SessionEstablishmentRequest::new(node, m.fseid, &m.pdrs, &m.fars)
        .with_create_urrs(&m.urrs)
        .with_create_qers(&m.qers);
    let ser = opt!(ser, 21, with_create_bar, CreateBar::new(BarId(m.cause)));
    let ser = opt!(ser, 22, with_pdn_type, r(IeType::PDN_TYPE));
    let ser = opt!(ser, 23, with_fq_csids, &raw2);
    let cte = [r(IeType::CREATE_TRAFFIC_ENDPOINT)];
    let ser = opt!(ser, 24, with_create_traffic_endpoints, &cte);
    let ser = opt!(ser, 25, with_apn_dnn, r(IeType::APN_DNN));
    let ser = opt!(ser, 26, with_recovery_time_stamp, rts);
    session!(ser);
    let sers = SessionEstablishmentResponse::new(node, cause).with_created_pdrs(&created);
    let sers = opt!(sers, 27, with_up_f_seid, m.fseid);
    let sers = opt!(sers, 28, with_offending_ie, offending);
    let sers = opt!(sers, 29, with_load_control_information, m.lci);
    let sers = opt!(sers, 30, with_overload_control_information, m.oci);
    let sers = opt!(sers, 31, with_failed_rule_id, r(IeType::FAILED_RULE_ID));
    let cte2 = [r(IeType::CREATED_TRAFFIC_ENDPOINT)];
    session!(opt!(sers, 32, with_created_traffic_endpoints, &cte2));
    let smr = SessionModificationRequest::new()
        .with_remove_pdrs(&remove_pdrs)
        .with_remove_fars(&remove_fars)
        .with_remove_urrs(&remove_urrs)
        .with_remove_qers(&remove_qers)
        .with_update_pdrs(&updates)
        .with_update_fars(&update_fars)
        .with_update_urrs(&update_urrs)
        .with_update_qers(&update_qers);
    let smr = opt!(smr, 33, with_cp_f_seid, m.fseid);
    let smr = opt!(smr, 34, with_create_pdrs, &m.pdrs);
    let smr = opt!(smr, 35, with_create_fars, &m.fars);
    let smr = opt!(smr, 36, with_remove_bar, RemoveBar::new(BarId(1)));
    let smr = opt!(smr, 37, with_update_bar, UpdateBar::new(BarId(2)));
    let smr = opt!(smr, 38, with_pfcpsmreq_flags, r(IeType::PFCPSMREQ_FLAGS));
    let query = [r(IeType::QUERY_URR)];
    let smr = opt!(smr, 39, with_query_urrs, &query);
    session!(opt!(smr, 40, with_node_id, node));
    let smrs = SessionModificationResponse::new(cause)
        .with_created_pdrs(&created)
        .with_usage_reports(&smr_reports);
    let smrs = opt!(smrs, 41, with_overload_control_information, m.oci);
    let smrs = opt!(smrs, 42, with_load_control_information, m.lci);
    session!(opt!(
        smrs,
        43,
        with_additional_usage_reports_information,
        r(IeType::ADDITIONAL_USAGE_REPORTS_INFORMATION)
    ));
    session!(SessionDeletionRequest::new());
    let sdrs = SessionDeletionResponse::new(cause).with_usage_reports(&sdr_reports);
    let sdrs = opt!(sdrs, 44, with_offending_ie, offending);
    let sdrs = opt!(sdrs, 45, with_overload_control_information, m.oci);
    session!(opt!(
        sdrs,
        46,
        with_pfcpsdrsp_flags,
        r(IeType::PFCPSDRSP_FLAGS)
    ));
    let srr = SessionReportRequest::new(report).with_usage_reports(&srr_reports);
    let srr = opt!(srr, 47, with_downlink_data_report, ddr.clone());
    let srr = opt!(
        srr,
        48,
        with_error_indication_report,
        r(IeType::ERROR_INDICATION_REPORT)
    );
    let srr = opt!(srr, 49, with_load_control_information, m.lci);
    let srr = opt!(srr, 50, with_old_cp_f_seid, m.fseid);
    session!(opt!(srr, 51, with_cause, cause));
    let srrs = SessionReportResponse::new(cause);
    let srrs = opt!(srrs, 52, with_update_bar, r(IeType::UPDATE_BAR_SRR));
    let srrs = opt!(srrs, 53, with_n4_u_f_teid, m.teid);
    let srrs = opt!(srrs, 54, with_cp_f_seid, m.fseid);
    let srrs = opt!(srrs, 55, with_pgw_c_smf_fq_csid, r(IeType::FQ_CSID));
    session!(opt!(srrs, 56, with_node_id, node));
    Ok(n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every message type, built from generated values, reads back as built.
    #[test]
    fn every_message_type_reads_back_as_built(m in material()) {
        prop_assert_eq!(check_all(&m)?, 25);
    }

    /// The values themselves come back, field by field (not only through the messages'
    /// equality): the rules of a Session Establishment Request and its header.
    #[test]
    fn establishment_values_come_back(m in material()) {
        let req = SessionEstablishmentRequest::new(m.node, m.fseid, &m.pdrs, &m.fars)
            .with_create_urrs(&m.urrs)
            .with_seid(m.seid)
            .with_sequence(SequenceNumber::new(m.seq).unwrap());
        let bytes = req.to_vec().unwrap();
        let back = SessionEstablishmentRequest::parse(&bytes).unwrap();
        prop_assert_eq!(back.create_pdrs.iter().collect::<Vec<_>>(), m.pdrs.clone());
        prop_assert_eq!(back.create_fars.iter().collect::<Vec<_>>(), m.fars.clone());
        prop_assert_eq!(back.create_urrs.iter().collect::<Vec<_>>(), m.urrs.clone());
        prop_assert!(back.create_qers.is_empty() && back.other.is_empty());
        prop_assert_eq!((back.node_id, back.cp_f_seid), (m.node, m.fseid));
        prop_assert_eq!(back.header.seid, Some(m.seid));
        prop_assert_eq!(back.header.sequence.value(), m.seq);
        // The other IEs come back in order, octet for octet.
        let ies: Vec<Vec<u8>> = m.later.iter().map(|(t, v)| raw_tlv(IeType(*t), v)).collect();
        let raw: Vec<RawIe<'_>> = ies.iter().map(|b| RawIe::from_tlv(b).unwrap()).collect();
        let with = req.with_other(&raw).to_vec().unwrap();
        let back = SessionEstablishmentRequest::parse(&with).unwrap();
        let got: Vec<(u16, Vec<u8>)> = back.other.iter().map(|ie| (ie.ie_type().0, ie.value().to_vec())).collect();
        let want: Vec<(u16, Vec<u8>)> = raw.iter().map(|ie| (ie.ie_type().0, ie.value().to_vec())).collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn the_material_covers_every_message_type() {
    // One fixed material, every optional bit set: all 25 types built and checked.
    let m = Material {
        seq: 1,
        seid: 2,
        priority: Some(3),
        present: u64::MAX,
        node: NodeId::Ipv6(Ipv6Addr::LOCALHOST),
        fseid: FSeid {
            seid: 9,
            ipv4: Some(Ipv4Addr::LOCALHOST),
            ipv6: None,
        },
        cause: 1,
        rts: 7,
        up: vec![1],
        cp: vec![3],
        oci: OverloadControlInformation {
            sequence_number: ControlSequenceNumber(1),
            metric: Metric::new(10).unwrap(),
            period_of_validity: Timer(0x22),
            flags: None,
        },
        lci: LoadControlInformation {
            sequence_number: ControlSequenceNumber(2),
            metric: Metric::new(20).unwrap(),
        },
        offending: 60,
        report: 2,
        teid: FTeid::ipv4(5, Ipv4Addr::LOCALHOST),
        pdrs: vec![CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS))],
        fars: vec![CreateFar::new(FarId(1), ApplyAction::FORW)],
        urrs: Vec::new(),
        qers: Vec::new(),
        ids: vec![1, 2],
        raw: vec![1, 2, 3],
        vendor: vec![(0x8001, 18681, vec![0xaa])],
        later: vec![(400, vec![7])],
    };
    assert_eq!(check_all(&m).unwrap(), 25);
}
