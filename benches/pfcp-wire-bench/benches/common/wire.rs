//! pfcp-wire's side of every timed operation: decode (header, walks, typed OCI and LCI) and
//! encode from the application values.

use std::net::Ipv4Addr;

use pfcp_wire::encode::{put_ie_header, Encode, MessageWriter, Sink, SliceSink};
use pfcp_wire::ie::{self, CpFunctionFeatures, FSeid, NodeId, RecoveryTimeStamp};
use pfcp_wire::{
    Cause, EncodeError, Header, IeType, Message, MessagePriority, MessageType, RawIe,
    SequenceNumber,
};

use super::{Far, Msg, Params, Pdr};

// ---------------------------------------------------------------------------------------------
// pfcp-wire: decode
// ---------------------------------------------------------------------------------------------

/// `Message::decode` (header + framing of every IE, grouped ones included), then a walk of
/// every IE at every level touching type, length and each value octet's first and last.
#[inline(never)]
pub(crate) fn wire_decode_walk(bytes: &[u8]) -> u64 {
    let msg = Message::decode(bytes).expect("pfcp-wire decode");
    let h = msg.header();
    let mut acc = u64::from(h.sequence.value()) ^ u64::from(h.message_type.0);
    for ie in msg.ies() {
        acc = acc.wrapping_add(wire_touch(&ie.expect("framing checked")));
    }
    acc
}

/// `Message::decode` (which checks the framing of every level), then a touch of each
/// top-level IE only: the same visible work as rs-pfcp's `parse` ([`rs_parse_walk`]).
#[inline(never)]
pub(crate) fn wire_decode_top(bytes: &[u8]) -> u64 {
    let msg = Message::decode(bytes).expect("pfcp-wire decode");
    let h = msg.header();
    let mut acc = u64::from(h.sequence.value()) ^ u64::from(h.message_type.0);
    for ie in msg.ies() {
        let ie = ie.expect("framing checked");
        let v = ie.value();
        acc = acc.wrapping_add(
            u64::from(ie.ie_type().0)
                + u64::from(ie.length())
                + u64::from(v.first().copied().unwrap_or(0))
                + u64::from(v.last().copied().unwrap_or(0)),
        );
    }
    acc
}

fn wire_touch(ie: &RawIe<'_>) -> u64 {
    let v = ie.value();
    let mut acc = u64::from(ie.ie_type().0) + u64::from(ie.length());
    acc += u64::from(v.first().copied().unwrap_or(0)) + u64::from(v.last().copied().unwrap_or(0));
    if ie.ie_type().is_grouped() {
        for c in ie.children() {
            acc = acc.wrapping_add(wire_touch(&c.expect("framing checked")));
        }
    }
    acc
}

/// Header only.
#[inline(never)]
pub(crate) fn wire_header(bytes: &[u8]) -> u64 {
    let (h, n) = Header::decode(bytes).expect("header");
    u64::from(h.sequence.value()) + n as u64 + h.seid.unwrap_or(0)
}

/// Decode, then the typed OCI and LCI.
#[inline(never)]
pub(crate) fn wire_typed_oci_lci(bytes: &[u8]) -> u64 {
    let msg = Message::decode(bytes).expect("decode");
    let oci = msg
        .overload_control_information()
        .expect("OCI")
        .expect("present");
    let lci = msg
        .load_control_information()
        .expect("LCI")
        .expect("present");
    u64::from(oci.metric.percent())
        + oci.period_of_validity.duration().map_or(0, |d| d.as_secs())
        + u64::from(oci.aoci())
        + u64::from(oci.sequence_number.0)
        + u64::from(lci.metric.percent())
        + u64::from(lci.sequence_number.0)
}

/// Decode, then the typed LCI only (what rs-pfcp can also do on spec-correct bytes).
#[inline(never)]
pub(crate) fn wire_typed_lci(bytes: &[u8]) -> u64 {
    let msg = Message::decode(bytes).expect("decode");
    let lci = msg
        .load_control_information()
        .expect("LCI")
        .expect("present");
    u64::from(lci.metric.percent()) + u64::from(lci.sequence_number.0)
}

// ---------------------------------------------------------------------------------------------
// pfcp-wire: encode. Typed IEs of the crate where it has them (Node ID, F-SEID, Cause,
// Recovery Time Stamp, CP Function Features, OCI, LCI); the rule IEs it does not type are
// written through a bench-local `IeBody` trait (a few lines each, below), grouped IEs
// through `GroupWriter`.
// ---------------------------------------------------------------------------------------------

/// A bench-local IE body (the IEs the crate does not type).
trait IeBody {
    const IE_TYPE: IeType;
    fn body_len(&self) -> usize;
    fn write_body<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError>;
}

fn encode_body<T: IeBody, S: Sink + ?Sized>(ie: &T, out: &mut S) -> Result<(), EncodeError> {
    put_ie_header(out, T::IE_TYPE, ie.body_len())?;
    ie.write_body(out)
}

macro_rules! be_ie {
    ($name:ident, $code:literal, $t:ty) => {
        struct $name($t);
        impl IeBody for $name {
            const IE_TYPE: IeType = IeType($code);
            fn body_len(&self) -> usize {
                core::mem::size_of::<$t>()
            }
            fn write_body<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                out.put(&self.0.to_be_bytes())
            }
        }
    };
}

/// `Encode` for the bench-local `IeBody` types (the crate's own typed IEs implement both).
macro_rules! encode_via_body {
    ($($t:ty),* $(,)?) => {$(
        impl Encode for $t {
            fn encoded_len(&self) -> usize {
                4 + IeBody::body_len(self)
            }
            fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                encode_body(self, out)
            }
        }
    )*};
}

be_ie!(PdrId, 56, u16);
be_ie!(Precedence, 29, u32);
be_ie!(FarId, 108, u32);
be_ie!(SourceInterface, 20, u8);
be_ie!(DestinationInterface, 42, u8);
be_ie!(ApplyAction, 44, u8);
be_ie!(OuterHeaderRemoval, 95, u8);
be_ie!(ReportType, 39, u8);
be_ie!(UrrId, 81, u32);
be_ie!(UrSeqn, 104, u32);
be_ie!(DurationMeasurement, 67, u32);

struct NetworkInstance<'a>(&'a str);
impl IeBody for NetworkInstance<'_> {
    const IE_TYPE: IeType = IeType(22);
    fn body_len(&self) -> usize {
        self.0.len()
    }
    fn write_body<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(self.0.as_bytes())
    }
}

/// F-TEID with V4 only.
struct FTeidV4(u32, Ipv4Addr);
impl IeBody for FTeidV4 {
    const IE_TYPE: IeType = IeType(21);
    fn body_len(&self) -> usize {
        9
    }
    fn write_body<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        let t = self.0.to_be_bytes();
        let a = self.1.octets();
        out.put(&[0x01, t[0], t[1], t[2], t[3], a[0], a[1], a[2], a[3]])
    }
}

/// UE IP Address, V4 with S/D = 1 (destination).
struct UeIpV4Dst(Ipv4Addr);
impl IeBody for UeIpV4Dst {
    const IE_TYPE: IeType = IeType(93);
    fn body_len(&self) -> usize {
        5
    }
    fn write_body<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        let a = self.0.octets();
        out.put(&[0x06, a[0], a[1], a[2], a[3]])
    }
}

/// Outer Header Creation, GTP-U/UDP/IPv4.
struct OhcGtpuV4(u32, Ipv4Addr);
impl IeBody for OhcGtpuV4 {
    const IE_TYPE: IeType = IeType(84);
    fn body_len(&self) -> usize {
        10
    }
    fn write_body<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        let t = self.0.to_be_bytes();
        let a = self.1.octets();
        out.put(&[0x01, 0x00, t[0], t[1], t[2], t[3], a[0], a[1], a[2], a[3]])
    }
}

/// Usage Report Trigger, 3 octets.
struct UsageReportTrigger([u8; 3]);
impl IeBody for UsageReportTrigger {
    const IE_TYPE: IeType = IeType(63);
    fn body_len(&self) -> usize {
        3
    }
    fn write_body<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&self.0)
    }
}

/// Volume Measurement with TOVOL|ULVOL|DLVOL.
struct VolumeMeasurement(u64, u64, u64);
impl IeBody for VolumeMeasurement {
    const IE_TYPE: IeType = IeType(66);
    fn body_len(&self) -> usize {
        25
    }
    fn write_body<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&[0x07])?;
        out.put(&self.0.to_be_bytes())?;
        out.put(&self.1.to_be_bytes())?;
        out.put(&self.2.to_be_bytes())
    }
}

encode_via_body!(
    PdrId,
    Precedence,
    FarId,
    SourceInterface,
    DestinationInterface,
    ApplyAction,
    OuterHeaderRemoval,
    ReportType,
    UrrId,
    UrSeqn,
    DurationMeasurement,
    NetworkInstance<'_>,
    FTeidV4,
    UeIpV4Dst,
    OhcGtpuV4,
    UsageReportTrigger,
    VolumeMeasurement,
);

fn seq(v: u32) -> SequenceNumber {
    SequenceNumber::wrapping(v)
}

const PRIO5: MessagePriority = match MessagePriority::new(5) {
    Some(p) => p,
    None => MessagePriority::HIGHEST,
};

/// Encode `m` from `p` into `buf`; returns the octets written.
#[inline(never)]
pub(crate) fn wire_encode(m: Msg, p: &Params, buf: &mut [u8]) -> Result<usize, EncodeError> {
    let mut sink = SliceSink::new(buf);
    match m {
        Msg::HbReq => {
            let h = Header::new(MessageType::HEARTBEAT_REQUEST).with_sequence(seq(0xABCD));
            let mut w = MessageWriter::begin(&mut sink, &h)?;
            w.ie(&RecoveryTimeStamp(p.recovery))?;
            w.finish()
        }
        Msg::AssocSetupReq => {
            let h = Header::new(MessageType::ASSOCIATION_SETUP_REQUEST).with_sequence(seq(1));
            let mut w = MessageWriter::begin(&mut sink, &h)?;
            w.ie(&NodeId::Ipv4(p.cp_addr))?
                .ie(&RecoveryTimeStamp(p.recovery))?
                .ie(&CpFunctionFeatures::empty()
                    .with(CpFunctionFeatures::LOAD)
                    .with(CpFunctionFeatures::OVRL))?;
            w.finish()
        }
        Msg::SessEstReq | Msg::SessEstReq10 => {
            let (pdrs, fars): (&[Pdr], &[Far]) = if m == Msg::SessEstReq {
                (&p.pdrs2, &p.fars2)
            } else {
                (&p.pdrs10, &p.fars10)
            };
            let h = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST)
                .with_seid(0)
                .with_sequence(seq(2))
                .with_priority(PRIO5);
            let mut w = MessageWriter::begin(&mut sink, &h)?;
            w.ie(&NodeId::Ipv4(p.cp_addr))?.ie(&FSeid {
                seid: p.cp_seid,
                ipv4: Some(p.cp_addr),
                ipv6: None,
            })?;
            for r in pdrs {
                let mut g = w.group(IeType::CREATE_PDR)?;
                g.ie(&PdrId(r.id))?.ie(&Precedence(r.precedence))?;
                let mut pdi = g.group(IeType::PDI)?;
                pdi.ie(&SourceInterface(r.source_interface))?;
                if let Some((teid, a)) = r.f_teid {
                    pdi.ie(&FTeidV4(teid, a))?;
                }
                pdi.ie(&NetworkInstance(p.network_instance))?;
                if let Some(a) = r.ue_ip {
                    pdi.ie(&UeIpV4Dst(a))?;
                }
                pdi.finish()?;
                if let Some(d) = r.outer_header_removal {
                    g.ie(&OuterHeaderRemoval(d))?;
                }
                g.ie(&FarId(r.far_id))?;
                g.finish()?;
            }
            for f in fars {
                let mut g = w.group(IeType::CREATE_FAR)?;
                g.ie(&FarId(f.id))?.ie(&ApplyAction(f.apply_action))?;
                let mut fp = g.group(IeType::FORWARDING_PARAMETERS)?;
                fp.ie(&DestinationInterface(f.destination_interface))?;
                if f.network_instance {
                    fp.ie(&NetworkInstance(p.network_instance))?;
                }
                if let Some((teid, a)) = f.outer_header_creation {
                    fp.ie(&OhcGtpuV4(teid, a))?;
                }
                fp.finish()?;
                g.finish()?;
            }
            w.finish()
        }
        Msg::SessEstRsp => {
            let h = Header::new(MessageType::SESSION_ESTABLISHMENT_RESPONSE)
                .with_seid(p.cp_seid)
                .with_sequence(seq(2));
            let mut w = MessageWriter::begin(&mut sink, &h)?;
            w.ie(&NodeId::Ipv4(p.up_addr))?
                .ie(&Cause::REQUEST_ACCEPTED)?
                .ie(&FSeid {
                    seid: p.up_seid,
                    ipv4: Some(Ipv4Addr::new(198, 51, 100, 7)),
                    ipv6: None,
                })?;
            let mut g = w.group(IeType::CREATED_PDR)?;
            g.ie(&PdrId(1))?
                .ie(&FTeidV4(0x1000, Ipv4Addr::new(198, 51, 100, 1)))?;
            g.finish()?;
            w.ie(&p.lci)?.ie(&p.oci)?;
            w.finish()
        }
        Msg::SessEstRspRej => {
            let h = Header::new(MessageType::SESSION_ESTABLISHMENT_RESPONSE)
                .with_seid(1)
                .with_sequence(seq(0x102))
                .with_priority(MessagePriority::new(3).unwrap_or(PRIO5));
            let mut w = MessageWriter::begin(&mut sink, &h)?;
            w.ie(&NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)))?
                .ie(&Cause::PFCP_ENTITY_IN_CONGESTION)?
                .ie(&p.oci)?
                .ie(&p.lci)?;
            w.finish()
        }
        Msg::SessModRsp => {
            let h = Header::new(MessageType::SESSION_MODIFICATION_RESPONSE)
                .with_seid(p.cp_seid)
                .with_sequence(seq(0x103))
                .with_priority(PRIO5);
            let mut w = MessageWriter::begin(&mut sink, &h)?;
            w.ie(&Cause::REQUEST_ACCEPTED)?.ie(&p.lci)?.ie(&p.oci)?;
            w.finish()
        }
        Msg::SessRptReq => {
            let h = Header::new(MessageType::SESSION_REPORT_REQUEST)
                .with_seid(p.cp_seid)
                .with_sequence(seq(0x104))
                .with_priority(PRIO5);
            let mut w = MessageWriter::begin(&mut sink, &h)?;
            w.ie(&ReportType(0x02))?;
            let mut g = w.group(IeType(80))?;
            g.ie(&UrrId(1))?
                .ie(&UrSeqn(3))?
                .ie(&UsageReportTrigger([0x01, 0, 0]))?
                .ie(&VolumeMeasurement(1_000_000, 200_000, 800_000))?
                .ie(&DurationMeasurement(60))?;
            g.finish()?;
            w.ie(&p.oci)?;
            w.finish()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// pfcp-wire: encode through the typed messages (`pfcp_wire::msg`): the crate's typed IEs and
// the message builders, written in one pass.
// ---------------------------------------------------------------------------------------------

/// The Create PDR of `r`, with the crate's typed IEs.
fn typed_pdr<'a>(r: &Pdr, network_instance: &'a str) -> ie::CreatePdr<'a> {
    let mut pdi = ie::Pdi::new(ie::SourceInterface(r.source_interface))
        .with_network_instance(ie::NetworkInstance::new(network_instance.as_bytes()));
    if let Some((teid, a)) = r.f_teid {
        pdi = pdi.with_local_f_teid(ie::FTeid::ipv4(teid, a));
    }
    if let Some(a) = r.ue_ip {
        pdi = pdi.with_ue_ip_address(ie::UeIpAddress::ipv4(a, true));
    }
    let mut pdr = ie::CreatePdr::new(ie::PdrId(r.id), pdi)
        .with_precedence(ie::Precedence(r.precedence))
        .with_far_id(ie::FarId(r.far_id));
    if let Some(d) = r.outer_header_removal {
        pdr = pdr.with_outer_header_removal(ie::OuterHeaderRemoval::new(d));
    }
    pdr
}

/// The Create FAR of `f`.
fn typed_far<'a>(f: &Far, network_instance: &'a str) -> ie::CreateFar<'a> {
    let mut fp = ie::ForwardingParameters::new(ie::DestinationInterface(f.destination_interface));
    if f.network_instance {
        fp = fp.with_network_instance(ie::NetworkInstance::new(network_instance.as_bytes()));
    }
    if let Some((teid, a)) = f.outer_header_creation {
        fp = fp.with_outer_header_creation(ie::OuterHeaderCreation::gtpu_ipv4(teid, a));
    }
    let action = ie::ApplyAction {
        bits: u32::from(f.apply_action),
        octets: 1,
    };
    ie::CreateFar::new(ie::FarId(f.id), action).with_forwarding_parameters(fp)
}

/// Encode `m` from `p` into `buf` through the typed messages; returns the octets written.
/// The rules are built into arrays on the stack (the message borrows them). `None` for
/// `sess_est_rsp_rej`, whose digest bytes carry the OCI before the LCI: the builder writes
/// Table 7.5.3.1-1's order.
#[inline(never)]
pub(crate) fn wire_typed_encode(m: Msg, p: &Params, buf: &mut [u8]) -> Option<usize> {
    use pfcp_wire::msg::{
        AssociationSetupRequest, HeartbeatRequest, SessionEstablishmentRequest,
        SessionEstablishmentResponse, SessionModificationResponse, SessionReportRequest,
    };
    let n = match m {
        Msg::HbReq => HeartbeatRequest::new(RecoveryTimeStamp(p.recovery))
            .with_sequence(seq(0xABCD))
            .encode_into(buf),
        Msg::AssocSetupReq => {
            AssociationSetupRequest::new(NodeId::Ipv4(p.cp_addr), RecoveryTimeStamp(p.recovery))
                .with_cp_function_features(
                    CpFunctionFeatures::empty()
                        .with(CpFunctionFeatures::LOAD)
                        .with(CpFunctionFeatures::OVRL),
                )
                .with_sequence(seq(1))
                .encode_into(buf)
        }
        Msg::SessEstReq | Msg::SessEstReq10 => {
            let fseid = FSeid {
                seid: p.cp_seid,
                ipv4: Some(p.cp_addr),
                ipv6: None,
            };
            let ni = p.network_instance;
            let node = NodeId::Ipv4(p.cp_addr);
            let write = |pdrs: &[ie::CreatePdr<'_>], fars: &[ie::CreateFar<'_>], buf: &mut [u8]| {
                SessionEstablishmentRequest::new(node, fseid, pdrs, fars)
                    .with_sequence(seq(2))
                    .with_priority(PRIO5)
                    .encode_into(buf)
            };
            if m == Msg::SessEstReq {
                let pdrs = p.pdrs2.each_ref().map(|r| typed_pdr(r, ni));
                let fars = p.fars2.each_ref().map(|f| typed_far(f, ni));
                write(&pdrs, &fars, buf)
            } else {
                let pdrs = p.pdrs10.each_ref().map(|r| typed_pdr(r, ni));
                let fars = p.fars10.each_ref().map(|f| typed_far(f, ni));
                write(&pdrs, &fars, buf)
            }
        }
        Msg::SessEstRsp => {
            let created = [ie::CreatedPdr::new(ie::PdrId(1))
                .with_local_f_teid(ie::FTeid::ipv4(0x1000, Ipv4Addr::new(198, 51, 100, 1)))];
            SessionEstablishmentResponse::new(NodeId::Ipv4(p.up_addr), Cause::REQUEST_ACCEPTED)
                .with_up_f_seid(FSeid {
                    seid: p.up_seid,
                    ipv4: Some(Ipv4Addr::new(198, 51, 100, 7)),
                    ipv6: None,
                })
                .with_created_pdrs(&created)
                .with_load_control_information(p.lci)
                .with_overload_control_information(p.oci)
                .with_seid(p.cp_seid)
                .with_sequence(seq(2))
                .encode_into(buf)
        }
        Msg::SessEstRspRej => return None,
        Msg::SessModRsp => SessionModificationResponse::new(Cause::REQUEST_ACCEPTED)
            .with_load_control_information(p.lci)
            .with_overload_control_information(p.oci)
            .with_seid(p.cp_seid)
            .with_sequence(seq(0x103))
            .with_priority(PRIO5)
            .encode_into(buf),
        Msg::SessRptReq => {
            let trigger = ie::UsageReportTrigger {
                bits: 0x01,
                octets: 3,
            };
            let reports = [
                ie::UsageReportSrr::new(ie::UrrId(1), ie::UrSeqn(3), trigger)
                    .with_volume_measurement(ie::VolumeMeasurement {
                        total_volume: Some(1_000_000),
                        uplink_volume: Some(200_000),
                        downlink_volume: Some(800_000),
                        ..ie::VolumeMeasurement::default()
                    })
                    .with_duration_measurement(ie::DurationMeasurement(60)),
            ];
            SessionReportRequest::new(ie::ReportType::USAR)
                .with_usage_reports(&reports)
                .with_overload_control_information(p.oci)
                .with_seid(p.cp_seid)
                .with_sequence(seq(0x104))
                .with_priority(PRIO5)
                .encode_into(buf)
        }
    };
    Some(n.expect("typed encode"))
}
