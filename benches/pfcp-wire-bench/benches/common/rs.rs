//! rs-pfcp 0.5's side of every timed operation: parse (header, walks, typed LCI, and the
//! errors it gives where it cannot) and build + marshal from the same application values.

use std::hint::black_box;
use std::net::Ipv4Addr;
use std::time::{Duration, SystemTime};

use pfcp_wire::ie::NTP_UNIX_OFFSET;
use pfcp_wire::IeType;
use rs_pfcp::ie as rs_ie;

use super::{Far, Msg, Params, Pdr};

// ---------------------------------------------------------------------------------------------
// rs-pfcp: decode
// ---------------------------------------------------------------------------------------------

/// rs-pfcp's full message parse (`message::parse`: header, every top-level IE copied into an
/// owned `Ie`, mandatory IEs checked), then a touch of each top-level IE. rs-pfcp does not
/// parse grouped IEs' children here.
#[inline(never)]
pub(crate) fn rs_parse_walk(bytes: &[u8]) -> u64 {
    let msg = rs_pfcp::message::parse(bytes).expect("rs-pfcp parse");
    let mut acc = u64::from(msg.sequence().0) ^ u64::from(msg.msg_type_code());
    for ie in msg.all_ies() {
        acc = acc.wrapping_add(rs_touch_top(ie));
    }
    acc
}

fn rs_touch_top(ie: &rs_ie::Ie) -> u64 {
    let v = &ie.payload;
    u64::from(ie.raw_type())
        + u64::from(ie.len())
        + u64::from(v.first().copied().unwrap_or(0))
        + u64::from(v.last().copied().unwrap_or(0))
}

/// [`rs_parse_walk`] plus every grouped IE's children, read with rs-pfcp's own IE parser
/// (`IeIterator`, recursively): the same work as [`wire_decode_walk`].
#[inline(never)]
pub(crate) fn rs_parse_walk_children(bytes: &[u8]) -> u64 {
    let msg = rs_pfcp::message::parse(bytes).expect("rs-pfcp parse");
    let mut acc = u64::from(msg.sequence().0) ^ u64::from(msg.msg_type_code());
    for ie in msg.all_ies() {
        acc = acc.wrapping_add(rs_touch_deep(ie));
    }
    acc
}

fn rs_touch_deep(ie: &rs_ie::Ie) -> u64 {
    let mut acc = rs_touch_top(ie);
    if IeType(ie.raw_type()).is_grouped() {
        for c in rs_ie::IeIterator::new(&ie.payload) {
            acc = acc.wrapping_add(rs_touch_deep(&c.expect("rs-pfcp child IE")));
        }
    }
    acc
}

#[inline(never)]
pub(crate) fn rs_header(bytes: &[u8]) -> u64 {
    let h = rs_pfcp::message::header::Header::unmarshal(bytes).expect("rs-pfcp header");
    u64::from(h.sequence_number.0) + u64::from(h.len()) + h.seid.0
}

/// rs-pfcp: parse, then the typed LCI. Its typed OCI cannot be decoded from these bytes (see
/// [`rs_typed_oci_fails`]).
#[inline(never)]
pub(crate) fn rs_typed_lci(bytes: &[u8]) -> u64 {
    let msg = rs_pfcp::message::parse(bytes).expect("rs-pfcp parse");
    let ie = msg
        .ies(rs_ie::IeType::LoadControlInformation)
        .next()
        .expect("LCI present");
    let lci = rs_ie::load_control_information::LoadControlInformation::unmarshal(&ie.payload)
        .expect("rs-pfcp LCI");
    u64::from(lci.metric.value) + u64::from(lci.sequence_number.value)
}

/// rs-pfcp's typed OCI on a spec-correct OCI: the error it gives (its Timer wants 4 octets).
pub(super) fn rs_typed_oci_fails(bytes: &[u8]) -> Option<String> {
    let msg = rs_pfcp::message::parse(bytes).ok()?;
    let ie = msg.ies(rs_ie::IeType::OverloadControlInformation).next()?;
    rs_ie::overload_control_information::OverloadControlInformation::unmarshal(&ie.payload)
        .err()
        .map(|e| e.to_string())
}

/// rs-pfcp's parse error on `bytes`, if any.
pub(super) fn rs_parse_error(bytes: &[u8]) -> Option<String> {
    rs_pfcp::message::parse(bytes).err().map(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------------
// rs-pfcp: encode (typed IEs + message builders, then `marshal_into` a reused Vec)
// ---------------------------------------------------------------------------------------------

fn rs_recovery(p: &Params) -> rs_ie::Ie {
    let unix = u64::from(p.recovery) - NTP_UNIX_OFFSET;
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(unix);
    rs_ie::recovery_time_stamp::RecoveryTimeStamp::new(t).to_ie()
}

fn rs_node_v4(a: Ipv4Addr) -> rs_ie::Ie {
    rs_ie::node_id::NodeId::new_ipv4(a).to_ie()
}

fn rs_fseid(seid: u64, a: Ipv4Addr) -> rs_ie::Ie {
    let f = rs_ie::fseid::Fseid::new(seid, Some(a), None);
    rs_ie::Ie::new(rs_ie::IeType::Fseid, f.marshal())
}

fn rs_fteid(teid: u32, a: Ipv4Addr) -> rs_ie::f_teid::Fteid {
    rs_ie::f_teid::FteidBuilder::new()
        .teid(teid)
        .ipv4(a)
        .build()
        .expect("rs-pfcp F-TEID")
}

fn rs_cause(v: rs_ie::cause::CauseValue) -> rs_ie::Ie {
    rs_ie::Ie::new(
        rs_ie::IeType::Cause,
        rs_ie::cause::Cause::new(v).marshal().to_vec(),
    )
}

fn rs_lci(p: &Params) -> rs_ie::Ie {
    let l = rs_ie::load_control_information::LoadControlInformation::new(
        rs_ie::sequence_number::SequenceNumber::new(p.lci.sequence_number.0),
        rs_ie::metric::Metric::new(p.lci.metric.raw()),
    );
    rs_ie::Ie::new(rs_ie::IeType::LoadControlInformation, l.marshal())
}

/// rs-pfcp's typed OCI writes a 4-octet Timer and drops OCI Flags, so it cannot produce a
/// spec-correct OCI; this uses its generic grouped-IE constructor with its typed members
/// where they are right (Sequence Number, Metric, OCI Flags) and a raw 1-octet Timer.
fn rs_oci(p: &Params) -> rs_ie::Ie {
    use rs_ie::{Ie, IeType};
    Ie::new_grouped(
        IeType::OverloadControlInformation,
        vec![
            rs_ie::sequence_number::SequenceNumber::new(p.oci.sequence_number.0).to_ie(),
            Ie::new(
                IeType::Metric,
                rs_ie::metric::Metric::new(p.oci.metric.raw())
                    .marshal()
                    .to_vec(),
            ),
            Ie::new(IeType::Timer, vec![p.oci.period_of_validity.0]),
            rs_ie::oci_flags::OciFlags::AOCI.to_ie(),
        ],
    )
}

fn rs_create_pdr(p: &Params, r: &Pdr) -> rs_ie::create_pdr::CreatePdr {
    use rs_ie::source_interface::{SourceInterface, SourceInterfaceValue};
    let si = if r.source_interface == 0 {
        SourceInterfaceValue::Access
    } else {
        SourceInterfaceValue::Core
    };
    let mut pdi = rs_ie::pdi::PdiBuilder::new(SourceInterface::new(si));
    if let Some((teid, a)) = r.f_teid {
        pdi = pdi.f_teid(rs_fteid(teid, a));
    }
    pdi = pdi.network_instance(rs_ie::network_instance::NetworkInstance::new(
        p.network_instance,
    ));
    if let Some(a) = r.ue_ip {
        let mut ue = rs_ie::ue_ip_address::UeIpAddress::new(Some(a), None);
        ue.source_destination = true;
        pdi = pdi.ue_ip_address(ue);
    }
    let mut b = rs_ie::create_pdr::CreatePdrBuilder::new(rs_ie::pdr_id::PdrId::new(r.id))
        .precedence(rs_ie::precedence::Precedence::new(r.precedence))
        .pdi(pdi.build().expect("rs-pfcp PDI"));
    if let Some(d) = r.outer_header_removal {
        b = b.outer_header_removal(rs_ie::outer_header_removal::OuterHeaderRemoval::new(d));
    }
    b.far_id(rs_ie::far_id::FarId::new(r.far_id))
        .build()
        .expect("rs-pfcp Create PDR")
}

fn rs_create_far(p: &Params, f: &Far) -> rs_ie::create_far::CreateFar {
    use rs_ie::destination_interface::{DestinationInterface, Interface};
    let di = if f.destination_interface == 0 {
        Interface::Access
    } else {
        Interface::Core
    };
    let mut fp =
        rs_ie::forwarding_parameters::ForwardingParameters::new(DestinationInterface::new(di));
    if f.network_instance {
        fp = fp.with_network_instance(rs_ie::network_instance::NetworkInstance::new(
            p.network_instance,
        ));
    }
    if let Some((teid, a)) = f.outer_header_creation {
        fp.outer_header_creation =
            Some(rs_ie::outer_header_creation::OuterHeaderCreation::gtpu_ipv4(teid, a));
    }
    rs_ie::create_far::CreateFarBuilder::new(rs_ie::far_id::FarId::new(f.id))
        .apply_action(rs_ie::apply_action::ApplyAction::new(f.apply_action))
        .forwarding_parameters(fp)
        .build()
        .expect("rs-pfcp Create FAR")
}

/// Build `m` with rs-pfcp's typed IEs and message builder.
pub(crate) fn rs_build(m: Msg, p: &Params) -> Option<Box<dyn rs_pfcp::message::Message>> {
    use rs_pfcp::message::*;
    let prio = |h: &mut header::Header| {
        // rs-pfcp writes `message_priority` as the whole octet 16; the spec's priority is its
        // upper nibble, so hand it the octet.
        h.has_mp = true;
        h.message_priority = 5 << 4;
    };
    Some(match m {
        Msg::HbReq => Box::new(
            heartbeat_request::HeartbeatRequestBuilder::new(0xABCDu32)
                .recovery_time_stamp_ie(rs_recovery(p))
                .build(),
        ),
        Msg::AssocSetupReq => Box::new(
            association_setup_request::AssociationSetupRequestBuilder::new(1u32)
                .node_id_ie(rs_node_v4(p.cp_addr))
                .recovery_time_stamp_ie(rs_recovery(p))
                .cp_function_features(
                    rs_ie::cp_function_features::CPFunctionFeatures::new(0x03).to_ie(),
                )
                .build(),
        ),
        Msg::SessEstReq | Msg::SessEstReq10 => {
            let (pdrs, fars): (&[Pdr], &[Far]) = if m == Msg::SessEstReq {
                (&p.pdrs2, &p.fars2)
            } else {
                (&p.pdrs10, &p.fars10)
            };
            let mut b =
                session_establishment_request::SessionEstablishmentRequestBuilder::new(0u64, 2u32)
                    .node_id_ie(rs_node_v4(p.cp_addr))
                    .fseid_ie(rs_fseid(p.cp_seid, p.cp_addr));
            for r in pdrs {
                b = b.add_pdr(rs_create_pdr(p, r));
            }
            for f in fars {
                b = b.add_far(rs_create_far(p, f));
            }
            let mut msg = b.build().expect("rs-pfcp SER");
            prio(&mut msg.header);
            Box::new(msg)
        }
        Msg::SessEstRsp => {
            let created = rs_ie::created_pdr::CreatedPdr::new(rs_ie::pdr_id::PdrId::new(1))
                .f_teid(rs_fteid(0x1000, Ipv4Addr::new(198, 51, 100, 1)))
                .to_ie();
            let msg =
                session_establishment_response::SessionEstablishmentResponseBuilder::accepted(
                    p.cp_seid, 2u32,
                )
                .node_id_ie(rs_node_v4(p.up_addr))
                .fseid_ie(rs_fseid(p.up_seid, Ipv4Addr::new(198, 51, 100, 7)))
                .created_pdr(created)
                .load_control_information(rs_lci(p))
                .overload_control_information(rs_oci(p))
                .build()
                .expect("rs-pfcp SERsp");
            Box::new(msg)
        }
        Msg::SessEstRspRej => return None,
        Msg::SessModRsp => {
            let mut msg = session_modification_response::SessionModificationResponseBuilder::new(
                p.cp_seid, 0x103u32,
            )
            .cause_ie(rs_cause(rs_ie::cause::CauseValue::RequestAccepted))
            .load_control_information(rs_lci(p))
            .overload_control_information(rs_oci(p))
            .build();
            prio(&mut msg.header);
            Box::new(msg)
        }
        Msg::SessRptReq => {
            let ur = rs_ie::usage_report::UsageReportBuilder::new(rs_ie::urr_id::UrrId::new(1))
                .sequence_number(rs_ie::ur_seqn::UrSeqn::new(3))
                .periodic_report()
                .volume_measurement(rs_ie::volume_measurement::VolumeMeasurement::new(
                    0x07,
                    Some(1_000_000),
                    Some(200_000),
                    Some(800_000),
                    None,
                    None,
                    None,
                ))
                .duration_measurement(rs_ie::duration_measurement::DurationMeasurement::new(60))
                .build()
                .expect("rs-pfcp Usage Report");
            let mut msg =
                session_report_request::SessionReportRequestBuilder::new(p.cp_seid, 0x104u32)
                    .report_type_usage()
                    .usage_reports(vec![ur.to_ie()])
                    .overload_control_information(rs_oci(p))
                    .build();
            prio(&mut msg.header);
            Box::new(msg)
        }
    })
}

/// rs-pfcp: build from values and marshal into `buf` (cleared first, capacity reused).
#[inline(never)]
pub(crate) fn rs_encode(m: Msg, p: &Params, buf: &mut Vec<u8>) -> usize {
    buf.clear();
    let msg = rs_build(m, p).expect("rs-pfcp can build");
    msg.marshal_into(buf);
    buf.len()
}

/// rs-pfcp: marshal an already-built message into `buf` (its cheapest encode path: the IEs
/// hold their encoded payloads already).
#[inline(never)]
pub(crate) fn rs_marshal_prebuilt(msg: &dyn rs_pfcp::message::Message, buf: &mut Vec<u8>) -> usize {
    buf.clear();
    msg.marshal_into(buf);
    buf.len()
}

// ---------------------------------------------------------------------------------------------
// rs-pfcp: parse and type every IE (the same work as pfcp-wire's typed messages)
// ---------------------------------------------------------------------------------------------

/// rs-pfcp's typed decoder of one IE, the value read (`black_box`); the IEs it has no typed
/// form for in these messages, and the OCI (whose 1-octet Timer it refuses), read raw.
fn rs_typed_ie(ie: &rs_ie::Ie) -> u64 {
    fn read<T>(v: Result<T, rs_pfcp::error::PfcpError>) -> u64 {
        black_box(&v.expect("rs-pfcp typed IE"));
        1
    }
    let p = &ie.payload;
    match ie.raw_type() {
        1 => read(rs_ie::create_pdr::CreatePdr::unmarshal(p)),
        3 => read(rs_ie::create_far::CreateFar::unmarshal(p)),
        8 => read(rs_ie::created_pdr::CreatedPdr::unmarshal(p)),
        19 => read(rs_ie::cause::Cause::unmarshal(p)),
        39 => read(rs_ie::report_type::ReportType::unmarshal(p)),
        51 => read(rs_ie::load_control_information::LoadControlInformation::unmarshal(p)),
        57 => read(rs_ie::fseid::Fseid::unmarshal(p)),
        60 => read(rs_ie::node_id::NodeId::unmarshal(p)),
        80 => read(rs_ie::usage_report_srr::UsageReportSrr::unmarshal(p)),
        89 => read(rs_ie::cp_function_features::CPFunctionFeatures::unmarshal(
            p,
        )),
        96 => read(rs_ie::recovery_time_stamp::RecoveryTimeStamp::unmarshal(p)),
        _ => rs_touch_top(ie),
    }
}

/// rs-pfcp's `message::parse`, then every IE decoded by its typed decoder: what
/// [`super::super::typed_common::wire_typed`] does (but the OCI, see [`rs_typed_ie`]).
#[inline(never)]
pub(crate) fn rs_typed(bytes: &[u8]) -> u64 {
    let msg = rs_pfcp::message::parse(bytes).expect("rs-pfcp parse");
    let mut acc = u64::from(msg.sequence().0);
    for ie in msg.all_ies() {
        acc = acc.wrapping_add(rs_typed_ie(ie));
    }
    acc
}
