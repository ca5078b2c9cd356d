//! Shared by `benches/codec.rs` (criterion, wall time) and `examples/icount.rs` (instruction
//! counts under callgrind): the message set, every operation that is timed, and the
//! conformance gate that runs before any timing.
//!
//! The message set is written as hex from the TS 29.244 layouts (clause 7.2.2 header,
//! clause 8.2 IEs; digest sections 1.6, 4.11, 4.14). Both encoders must reproduce each vector
//! byte for byte and both decoders must parse it, except where rs-pfcp 0.5 cannot (see
//! [`Vector::rs_parses`] and `docs/benchmarks.md`).

#![allow(dead_code)] // each of the two binaries uses a subset

use std::hint::black_box;
use std::net::Ipv4Addr;
use std::time::{Duration, SystemTime};

use pfcp_wire::encode::{put_ie_header, Encode, MessageWriter, Sink, SliceSink};
use pfcp_wire::ie::{
    ControlSequenceNumber, CpFunctionFeatures, FSeid, LoadControlInformation, Metric, NodeId,
    OciFlags, OverloadControlInformation, RecoveryTimeStamp, Timer, NTP_UNIX_OFFSET,
};
use pfcp_wire::{
    Cause, EncodeError, Header, IeType, Message, MessagePriority, MessageType, RawIe,
    SequenceNumber,
};

use rs_pfcp::ie as rs_ie;

// ---------------------------------------------------------------------------------------------
// The message set
// ---------------------------------------------------------------------------------------------

/// One message of the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Msg {
    /// Heartbeat Request with Recovery Time Stamp (digest 1.6).
    HbReq,
    /// Association Setup Request: Node ID IPv4, Recovery Time Stamp, CP Function Features
    /// LOAD|OVRL (digest 4.11).
    AssocSetupReq,
    /// Session Establishment Request, MP=1 priority 5: Node ID, CP F-SEID, 2 Create PDR (PDI
    /// with F-TEID / UE IP address and Network Instance, Outer Header Removal), 2 Create FAR
    /// (Forwarding Parameters, one with Outer Header Creation).
    SessEstReq,
    /// The same shapes with 10 Create PDR and 10 Create FAR (rs-pfcp's "SER 10" size class).
    SessEstReq10,
    /// Session Establishment Response, accepted: Node ID, Cause, UP F-SEID, Created PDR
    /// (PDR ID, F-TEID), LCI, OCI with OCI Flags (AOCI).
    SessEstRsp,
    /// Session Establishment Response, rejected with Cause 74 (congestion), OCI (AOCI) and
    /// LCI, no UP F-SEID (digest 1.6 worked example).
    SessEstRspRej,
    /// Session Modification Response: Cause, LCI, OCI.
    SessModRsp,
    /// Session Report Request: Report Type USAR, Usage Report (URR ID, UR-SEQN, trigger,
    /// volume and duration measurements), OCI.
    SessRptReq,
}

impl Msg {
    pub(crate) const ALL: [Msg; 8] = [
        Msg::HbReq,
        Msg::AssocSetupReq,
        Msg::SessEstReq,
        Msg::SessEstReq10,
        Msg::SessEstRsp,
        Msg::SessEstRspRej,
        Msg::SessModRsp,
        Msg::SessRptReq,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Msg::HbReq => "hb_req",
            Msg::AssocSetupReq => "assoc_setup_req",
            Msg::SessEstReq => "sess_est_req",
            Msg::SessEstReq10 => "sess_est_req_10",
            Msg::SessEstRsp => "sess_est_rsp",
            Msg::SessEstRspRej => "sess_est_rsp_rej",
            Msg::SessModRsp => "sess_mod_rsp",
            Msg::SessRptReq => "sess_rpt_req",
        }
    }

    pub(crate) fn from_name(s: &str) -> Option<Msg> {
        Msg::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Whether rs-pfcp 0.5.0 parses the message (`rs_pfcp::message::parse`).
    pub(crate) fn rs_parses(self) -> bool {
        // rs-pfcp requires the UP F-SEID in every Session Establishment Response; the spec
        // makes it conditional (present iff the cause is an acceptance, Table 7.5.3.1-1).
        self != Msg::SessEstRspRej
    }

    /// Whether the message carries OCI and LCI.
    pub(crate) fn has_oci_lci(self) -> bool {
        matches!(self, Msg::SessEstRsp | Msg::SessEstRspRej | Msg::SessModRsp)
    }

    /// Whether the message carries an OCI.
    pub(crate) fn has_oci(self) -> bool {
        self.has_oci_lci() || self == Msg::SessRptReq
    }

    /// The vector bytes.
    pub(crate) fn bytes(self) -> Vec<u8> {
        match self {
            Msg::SessEstReq10 => {
                // Same IE shapes as SessEstReq, generated (both encoders must agree on it).
                let mut buf = vec![0u8; 4096];
                let n = wire_encode(self, &P, &mut buf).expect("encode SER 10");
                buf.truncate(n);
                buf
            }
            _ => hex(self.hex()),
        }
    }

    fn hex(self) -> &'static str {
        match self {
            Msg::HbReq => HB_REQ,
            Msg::AssocSetupReq => ASSOC_SETUP_REQ,
            Msg::SessEstReq => SESS_EST_REQ,
            Msg::SessEstReq10 => "",
            Msg::SessEstRsp => SESS_EST_RSP,
            Msg::SessEstRspRej => SESS_EST_RSP_REJ,
            Msg::SessModRsp => SESS_MOD_RSP,
            Msg::SessRptReq => SESS_RPT_REQ,
        }
    }
}

/// Digest 1.6: seq 0x00ABCD, Recovery Time Stamp 0xE8F4A2B0.
const HB_REQ: &str = "
20 01 00 0c 00 ab cd 00
00 60 00 04 e8 f4 a2 b0";

/// Digest 4.11: CP with LOAD|OVRL.
const ASSOC_SETUP_REQ: &str = "
20 05 00 1a 00 00 01 00
00 3c 00 05 00 c0 00 02 0a
00 60 00 04 e8 f4 a2 b0
00 59 00 01 03";

/// 241 octets. Header: S=1, MP=1, SEID 0, seq 2, priority 5 (upper nibble of octet 16).
const SESS_EST_REQ: &str = "
23 32 00 ed 00 00 00 00 00 00 00 00 00 00 02 50
00 3c 00 05 00 c0 00 02 0a                              Node ID 192.0.2.10
00 39 00 0d 02 00 00 00 00 00 00 00 01 c0 00 02 0a      CP F-SEID 1, v4
00 01 00 3d                                             Create PDR (61)
   00 38 00 02 00 01                                    PDR ID 1
   00 1d 00 04 00 00 00 64                              Precedence 100
   00 02 00 1e                                          PDI (30)
      00 14 00 01 00                                    Source Interface Access
      00 15 00 09 01 00 00 10 00 c6 33 64 01            F-TEID v4 0x1000 198.51.100.1
      00 16 00 08 69 6e 74 65 72 6e 65 74               Network Instance 'internet'
   00 5f 00 01 00                                       Outer Header Removal GTP-U/UDP/IPv4
   00 6c 00 04 00 00 00 01                              FAR ID 1
00 01 00 34                                             Create PDR (52)
   00 38 00 02 00 02                                    PDR ID 2
   00 1d 00 04 00 00 00 c8                              Precedence 200
   00 02 00 1a                                          PDI (26)
      00 14 00 01 01                                    Source Interface Core
      00 16 00 08 69 6e 74 65 72 6e 65 74               Network Instance 'internet'
      00 5d 00 05 06 0a 2d 00 02                        UE IP Address v4 S/D 10.45.0.2
   00 6c 00 04 00 00 00 02                              FAR ID 2
00 03 00 22                                             Create FAR (34)
   00 6c 00 04 00 00 00 01                              FAR ID 1
   00 2c 00 01 02                                       Apply Action FORW
   00 04 00 11                                          Forwarding Parameters (17)
      00 2a 00 01 01                                    Destination Interface Core
      00 16 00 08 69 6e 74 65 72 6e 65 74               Network Instance 'internet'
00 03 00 24                                             Create FAR (36)
   00 6c 00 04 00 00 00 02                              FAR ID 2
   00 2c 00 01 02                                       Apply Action FORW
   00 04 00 13                                          Forwarding Parameters (19)
      00 2a 00 01 00                                    Destination Interface Access
      00 54 00 0a 01 00 00 00 20 00 c6 33 64 14         OHC GTP-U/UDP/IPv4 0x2000 198.51.100.20
";

/// 114 octets. SEID 1, seq 2, no MP: rs-pfcp 0.5's Session Establishment Response keeps its
/// header private, so its builder cannot set a message priority.
const SESS_EST_RSP: &str = "
21 33 00 6e 00 00 00 00 00 00 00 01 00 00 02 00
00 3c 00 05 00 c6 33 64 01                              Node ID 198.51.100.1
00 13 00 01 01                                          Cause 1 (accepted)
00 39 00 0d 02 11 22 33 44 55 66 77 88 c6 33 64 07      UP F-SEID
00 08 00 13                                             Created PDR (19)
   00 38 00 02 00 01                                    PDR ID 1
   00 15 00 09 01 00 00 10 00 c6 33 64 01               F-TEID v4 0x1000 198.51.100.1
00 33 00 0d                                             LCI (13)
   00 34 00 04 00 00 00 07                              Sequence Number 7
   00 35 00 01 37                                       Metric 55 %
00 36 00 17                                             OCI (23)
   00 34 00 04 00 00 00 05                              Sequence Number 5
   00 35 00 01 1e                                       Metric 30 %
   00 37 00 01 22                                       Timer 2 min (1 octet, clause 8.2.35)
   00 6e 00 01 01                                       OCI Flags AOCI
";

/// Digest 1.6 worked example, 74 octets: rejected with Cause 74, OCI (AOCI) and LCI.
const SESS_EST_RSP_REJ: &str = "
23 33 00 46 00 00 00 00 00 00 00 01 00 01 02 30
00 3c 00 05 00 c0 00 02 01
00 13 00 01 4a
00 36 00 17
   00 34 00 04 00 00 00 05
   00 35 00 01 1e
   00 37 00 01 22
   00 6e 00 01 01
00 33 00 0d
   00 34 00 04 00 00 00 07
   00 35 00 01 37
";

/// 65 octets. SEID 1, seq 0x000103, priority 5.
const SESS_MOD_RSP: &str = "
23 35 00 3d 00 00 00 00 00 00 00 01 00 01 03 50
00 13 00 01 01                                          Cause 1
00 33 00 0d                                             LCI
   00 34 00 04 00 00 00 07
   00 35 00 01 37
00 36 00 17                                             OCI
   00 34 00 04 00 00 00 05
   00 35 00 01 1e
   00 37 00 01 22
   00 6e 00 01 01
";

/// 112 octets. SEID 1, seq 0x000104, priority 5.
const SESS_RPT_REQ: &str = "
23 38 00 6c 00 00 00 00 00 00 00 01 00 01 04 50
00 27 00 01 02                                          Report Type USAR
00 50 00 3c                                             Usage Report (60)
   00 51 00 04 00 00 00 01                              URR ID 1
   00 68 00 04 00 00 00 03                              UR-SEQN 3
   00 3f 00 03 01 00 00                                 Usage Report Trigger PERIO
   00 42 00 19 07                                       Volume Measurement TOVOL|ULVOL|DLVOL
      00 00 00 00 00 0f 42 40                           total 1000000
      00 00 00 00 00 03 0d 40                           uplink 200000
      00 00 00 00 00 0c 35 00                           downlink 800000
   00 43 00 04 00 00 00 3c                              Duration Measurement 60 s
00 36 00 17                                             OCI
   00 34 00 04 00 00 00 05
   00 35 00 01 1e
   00 37 00 01 22
   00 6e 00 01 01
";

/// Hex with whitespace; anything after two spaces of a line's hex is a comment.
pub(crate) fn hex(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in s.lines() {
        // The hex part ends at the first token that is not a 2-digit hex byte.
        for tok in line.split_whitespace() {
            if tok.len() == 2 && tok.bytes().all(|b| b.is_ascii_hexdigit()) {
                out.push(u8::from_str_radix(tok, 16).expect("hex"));
            } else {
                break;
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Application values the encoders start from (passed through black_box each iteration so no
// encoder can constant-fold the message).
// ---------------------------------------------------------------------------------------------

pub(crate) struct Pdr {
    id: u16,
    precedence: u32,
    source_interface: u8,
    f_teid: Option<(u32, Ipv4Addr)>,
    ue_ip: Option<Ipv4Addr>,
    outer_header_removal: Option<u8>,
    far_id: u32,
}

pub(crate) struct Far {
    id: u32,
    apply_action: u8,
    destination_interface: u8,
    network_instance: bool,
    outer_header_creation: Option<(u32, Ipv4Addr)>,
}

pub(crate) struct Params {
    recovery: u32,
    cp_addr: Ipv4Addr,
    up_addr: Ipv4Addr,
    cp_seid: u64,
    up_seid: u64,
    network_instance: &'static str,
    pdrs2: [Pdr; 2],
    fars2: [Far; 2],
    pdrs10: [Pdr; 10],
    fars10: [Far; 10],
    oci: OverloadControlInformation,
    lci: LoadControlInformation,
}

const fn uplink_pdr(id: u16) -> Pdr {
    Pdr {
        id,
        precedence: 100 * id as u32,
        source_interface: 0,
        f_teid: Some((0x1000 + id as u32 - 1, Ipv4Addr::new(198, 51, 100, 1))),
        ue_ip: None,
        outer_header_removal: Some(0),
        far_id: id as u32,
    }
}

const fn downlink_pdr(id: u16) -> Pdr {
    Pdr {
        id,
        precedence: 100 * id as u32,
        source_interface: 1,
        f_teid: None,
        ue_ip: Some(Ipv4Addr::new(10, 45, 0, id as u8)),
        outer_header_removal: None,
        far_id: id as u32,
    }
}

const fn uplink_far(id: u32) -> Far {
    Far {
        id,
        apply_action: 0x02,
        destination_interface: 1,
        network_instance: true,
        outer_header_creation: None,
    }
}

const fn downlink_far(id: u32) -> Far {
    Far {
        id,
        apply_action: 0x02,
        destination_interface: 0,
        network_instance: false,
        outer_header_creation: Some((0x2000 + id - 2, Ipv4Addr::new(198, 51, 100, 20))),
    }
}

pub(crate) const P: Params = Params {
    recovery: 0xE8F4_A2B0,
    cp_addr: Ipv4Addr::new(192, 0, 2, 10),
    up_addr: Ipv4Addr::new(198, 51, 100, 1),
    cp_seid: 1,
    up_seid: 0x1122_3344_5566_7788,
    network_instance: "internet",
    pdrs2: [uplink_pdr(1), downlink_pdr(2)],
    fars2: [uplink_far(1), downlink_far(2)],
    pdrs10: [
        uplink_pdr(1),
        downlink_pdr(2),
        uplink_pdr(3),
        downlink_pdr(4),
        uplink_pdr(5),
        downlink_pdr(6),
        uplink_pdr(7),
        downlink_pdr(8),
        uplink_pdr(9),
        downlink_pdr(10),
    ],
    fars10: [
        uplink_far(1),
        downlink_far(2),
        uplink_far(3),
        downlink_far(4),
        uplink_far(5),
        downlink_far(6),
        uplink_far(7),
        downlink_far(8),
        uplink_far(9),
        downlink_far(10),
    ],
    oci: OverloadControlInformation {
        sequence_number: ControlSequenceNumber(5),
        metric: Metric::from_raw(30),
        period_of_validity: Timer(0x22),
        flags: Some(OciFlags::AOCI),
    },
    lci: LoadControlInformation {
        sequence_number: ControlSequenceNumber(7),
        metric: Metric::from_raw(55),
    },
};

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
// The floor: a minimal hand-written TLV walk (no error types, no offsets, no limits)
// ---------------------------------------------------------------------------------------------

#[inline(never)]
pub(crate) fn bare_walk(bytes: &[u8]) -> u64 {
    let Some(&b0) = bytes.first() else { return 0 };
    let hlen = if b0 & 1 != 0 { 16 } else { 8 };
    if bytes.len() < hlen {
        return 0;
    }
    let len = usize::from(u16::from_be_bytes([bytes[2], bytes[3]])) + 4;
    if len != bytes.len() {
        return 0;
    }
    bare_list(&bytes[hlen..])
}

fn bare_list(mut b: &[u8]) -> u64 {
    let mut acc = 0u64;
    while b.len() >= 4 {
        let t = u16::from_be_bytes([b[0], b[1]]);
        let l = usize::from(u16::from_be_bytes([b[2], b[3]]));
        let Some(v) = b.get(4..4 + l) else { return acc };
        acc += u64::from(t) + l as u64;
        acc +=
            u64::from(v.first().copied().unwrap_or(0)) + u64::from(v.last().copied().unwrap_or(0));
        if IeType(t).is_grouped() {
            acc = acc.wrapping_add(bare_list(v));
        }
        b = &b[4 + l..];
    }
    acc
}

/// Number of IEs at all levels, as the floor sees them (checked against pfcp-wire's count).
pub(crate) fn bare_count(mut b: &[u8]) -> usize {
    let mut n = 0;
    while b.len() >= 4 {
        let t = u16::from_be_bytes([b[0], b[1]]);
        let l = usize::from(u16::from_be_bytes([b[2], b[3]]));
        let v = &b[4..4 + l];
        n += 1;
        if IeType(t).is_grouped() {
            n += bare_count(v);
        }
        b = &b[4 + l..];
    }
    n
}

#[inline(never)]
pub(crate) fn bare_header(bytes: &[u8]) -> u64 {
    let b0 = bytes[0];
    let (seid, at) = if b0 & 1 != 0 {
        (u64::from_be_bytes(bytes[4..12].try_into().expect("8")), 12)
    } else {
        (0, 4)
    };
    let seq = u32::from_be_bytes([0, bytes[at], bytes[at + 1], bytes[at + 2]]);
    u64::from(seq) + (at as u64 + 4) + seid
}

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
pub(crate) fn rs_typed_oci_fails(bytes: &[u8]) -> Option<String> {
    let msg = rs_pfcp::message::parse(bytes).ok()?;
    let ie = msg.ies(rs_ie::IeType::OverloadControlInformation).next()?;
    rs_ie::overload_control_information::OverloadControlInformation::unmarshal(&ie.payload)
        .err()
        .map(|e| e.to_string())
}

/// rs-pfcp's parse error on `bytes`, if any.
pub(crate) fn rs_parse_error(bytes: &[u8]) -> Option<String> {
    rs_pfcp::message::parse(bytes).err().map(|e| e.to_string())
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
// Conformance gate
// ---------------------------------------------------------------------------------------------

fn to_hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Check every vector before timing anything; panics with the first disagreement.
/// Returns one line per message describing what rs-pfcp can and cannot do with it.
pub(crate) fn conformance_gate() -> Vec<String> {
    let mut notes = Vec::new();
    let mut buf = vec![0u8; 8192];
    for m in Msg::ALL {
        let bytes = m.bytes();
        // pfcp-wire decodes and validates, and the floor agrees on the IE count.
        let msg = Message::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", m.name()));
        msg.validate()
            .unwrap_or_else(|e| panic!("{}: validate: {e}", m.name()));
        msg.check_typed_ies()
            .unwrap_or_else(|e| panic!("{}: typed: {e}", m.name()));
        let hlen = msg.header().encoded_len();
        assert_eq!(
            msg.ie_count(),
            bare_count(&bytes[hlen..]),
            "{}: IE count",
            m.name()
        );
        assert_ne!(bare_walk(&bytes), 0, "{}: floor", m.name());
        // pfcp-wire encodes the same bytes.
        let n = wire_encode(m, &P, &mut buf).expect("encode");
        assert_eq!(
            to_hex(&buf[..n]),
            to_hex(&bytes),
            "{}: pfcp-wire encode",
            m.name()
        );
        if m.has_oci_lci() {
            black_box(wire_typed_oci_lci(&bytes));
        }
        // rs-pfcp.
        if m.rs_parses() {
            if let Some(e) = rs_parse_error(&bytes) {
                panic!("{}: rs-pfcp parse: {e}", m.name());
            }
            black_box(rs_parse_walk_children(&bytes));
            let mut v = Vec::new();
            rs_encode(m, &P, &mut v);
            assert_eq!(to_hex(&v), to_hex(&bytes), "{}: rs-pfcp encode", m.name());
            if m.has_oci() {
                let e = rs_typed_oci_fails(&bytes)
                    .unwrap_or_else(|| panic!("{}: rs-pfcp typed OCI unexpectedly ok", m.name()));
                notes.push(format!(
                    "{}: rs-pfcp parses the message; its typed OCI fails: {e}",
                    m.name()
                ));
            }
            if m.has_oci_lci() {
                black_box(rs_typed_lci(&bytes));
            }
        } else {
            let e = rs_parse_error(&bytes)
                .unwrap_or_else(|| panic!("{}: rs-pfcp unexpectedly parses", m.name()));
            notes.push(format!("{}: rs-pfcp parse fails: {e}", m.name()));
        }
    }
    notes
}
