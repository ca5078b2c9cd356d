//! The message set: which messages are timed, what each carries, and their bytes, written as
//! hex from the TS 29.244 layouts.

use super::wire::wire_encode;
use super::P;

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
pub(super) fn hex(s: &str) -> Vec<u8> {
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
