//! `pfcp cp --template FILE`: the rules of every Session Establishment Request from a TOML
//! file, built with pfcp-wire's typed IEs (Create PDR with its PDI, Create FAR with its
//! Forwarding Parameters, Create QER, Create URR), then rewritten per session
//! ([`super::rules`]: TEIDs, UE IP address, CP F-SEID).
//!
//! The format (`crates/pfcp-cli/templates/basic.toml` is an example):
//!
//! ```toml
//! ue_ip_pool = "10.45.0.0/16"        # optional, default --ue-pool
//!
//! [[pdr]]
//! id = 1                              # PDR ID
//! precedence = 200                    # optional
//! source_interface = "access"         # access, core, sgi-lan, cp-function, vn-internal
//! f_teid = { choose = true }          # CH=1 (the UP function allocates); or { teid = 4096, ipv4 = "192.0.2.1" }
//! network_instance = "internet"       # optional
//! ue_ip = "source"                    # optional: source or destination, from the pool
//! far_id = 1                          # optional, a [[far]] id
//! qer_ids = [1]                       # optional, [[qer]] ids
//! urr_ids = [1]                       # optional, [[urr]] ids
//!
//! [[far]]
//! id = 1
//! apply_action = ["forw"]             # forw, drop, buff, nocp, dupl, ...
//! [far.forwarding]                    # optional
//! destination_interface = "core"      # access, core, sgi-lan, cp-function, li-function, vn-internal
//! network_instance = "internet"       # optional
//! outer_header_creation = { teid = 8192, ipv4 = "192.0.2.20" }   # optional: GTP-U/UDP/IPv4
//!
//! [[qer]]
//! id = 1
//! gate = "open"                       # open or closed (both directions)
//! mbr = { uplink = 100000, downlink = 200000 }   # kbit/s, optional
//! gbr = { uplink = 10000, downlink = 20000 }     # kbit/s, optional
//! qfi = 9                             # optional
//!
//! [[urr]]
//! id = 1
//! measurement_method = ["volum", "durat"]
//! reporting_triggers = ["volth"]
//! volume_threshold = 100000000        # octets (total), optional
//! ```

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::path::Path;

use pfcp_wire::ie::{
    CreateFar, CreatePdr, CreateQer, CreateUrr, DestinationInterface, FTeid, FarId,
    ForwardingParameters, GateStatus, Gbr, Mbr, MeasurementMethod, NetworkInstance,
    OuterHeaderCreation, Pdi, PdrId, Precedence, QerId, Qfi, ReportingTriggers, SourceInterface,
    UeIpAddress, UrrId, VolumeThreshold,
};
use pfcp_wire::Encode;
use serde::Deserialize;

use super::rules::{apply_action, SessionRules, UePool};

/// A template file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// The UE addresses of the PDRs with `ue_ip` (default: `--ue-pool`).
    #[serde(default)]
    pub ue_ip_pool: Option<String>,
    /// Create PDR, in order.
    #[serde(default)]
    pub pdr: Vec<Pdr>,
    /// Create FAR, in order.
    #[serde(default)]
    pub far: Vec<Far>,
    /// Create QER, in order.
    #[serde(default)]
    pub qer: Vec<Qer>,
    /// Create URR, in order.
    #[serde(default)]
    pub urr: Vec<Urr>,
}

/// `[[pdr]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pdr {
    /// PDR ID.
    pub id: u16,
    /// Precedence.
    pub precedence: Option<u32>,
    /// Source Interface: access, core, sgi-lan, cp-function, vn-internal.
    pub source_interface: String,
    /// Local F-TEID.
    pub f_teid: Option<TeidSpec>,
    /// Network Instance (written as DNN labels).
    pub network_instance: Option<String>,
    /// UE IP Address from the pool: `source` or `destination`.
    pub ue_ip: Option<String>,
    /// FAR ID.
    pub far_id: Option<u32>,
    /// QER IDs.
    #[serde(default)]
    pub qer_ids: Vec<u32>,
    /// URR IDs.
    #[serde(default)]
    pub urr_ids: Vec<u32>,
}

/// An F-TEID: `{ choose = true }` (CH=1, optionally `choose_id`) or `{ teid, ipv4 }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeidSpec {
    /// CH=1: the UP function allocates the TEID.
    #[serde(default)]
    pub choose: bool,
    /// CHID (with `choose`).
    pub choose_id: Option<u8>,
    /// The first session's TEID (session k: + k).
    pub teid: Option<u32>,
    /// The tunnel's IPv4 address.
    pub ipv4: Option<Ipv4Addr>,
}

/// `[[far]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Far {
    /// FAR ID.
    pub id: u32,
    /// Apply Action flags.
    pub apply_action: Vec<String>,
    /// Forwarding Parameters.
    pub forwarding: Option<Forwarding>,
}

/// `[far.forwarding]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Forwarding {
    /// Destination Interface.
    pub destination_interface: String,
    /// Network Instance.
    pub network_instance: Option<String>,
    /// Outer Header Creation, GTP-U/UDP/IPv4.
    pub outer_header_creation: Option<Tunnel>,
}

/// A GTP-U/UDP/IPv4 tunnel: the first session's TEID (session k: + k) and the peer address.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tunnel {
    /// TEID.
    pub teid: u32,
    /// Peer address.
    pub ipv4: Ipv4Addr,
}

/// `[[qer]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qer {
    /// QER ID.
    pub id: u32,
    /// Gate Status: open or closed.
    #[serde(default = "open")]
    pub gate: String,
    /// MBR, kbit/s.
    pub mbr: Option<Bitrate>,
    /// GBR, kbit/s.
    pub gbr: Option<Bitrate>,
    /// QFI.
    pub qfi: Option<u8>,
}

fn open() -> String {
    "open".into()
}

/// Uplink and downlink bit rates, kbit/s.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bitrate {
    /// Uplink.
    pub uplink: u64,
    /// Downlink.
    pub downlink: u64,
}

/// `[[urr]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Urr {
    /// URR ID.
    pub id: u32,
    /// Measurement Method flags: durat, volum, event.
    pub measurement_method: Vec<String>,
    /// Reporting Triggers flags: perio, volth, timth, ...
    pub reporting_triggers: Vec<String>,
    /// Volume Threshold, total octets.
    pub volume_threshold: Option<u64>,
}

/// Read and build the template at `path`: its rules, or an error naming the file and the
/// rule.
pub fn load(path: &Path, default_pool: UePool) -> Result<SessionRules, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--template {name}: {}", crate::io_error_text(&e)))?;
    parse(&text, &name, default_pool)
}

/// Build the template `text` (from file `name`).
pub fn parse(text: &str, name: &str, default_pool: UePool) -> Result<SessionRules, String> {
    let t: Template =
        toml::from_str(text).map_err(|e| format!("--template {name}: {}", e.to_string().trim()))?;
    let what = format!("--template {name}");
    let pool = match &t.ue_ip_pool {
        Some(p) => p.parse().map_err(|e| format!("{what}: ue_ip_pool: {e}"))?,
        None => default_pool,
    };
    let body = t.body().map_err(|e| format!("{what}: {e}"))?;
    SessionRules::new(vec![body], pool, &what)
}

impl Template {
    /// The IEs of the rules, with the first session's TEIDs and UE address (the pool's
    /// rewriting sets the address).
    fn body(&self) -> Result<Vec<u8>, String> {
        if self.pdr.is_empty() || self.far.is_empty() {
            return Err(
                "a Session Establishment Request needs at least one [[pdr]] and one [[far]]".into(),
            );
        }
        let fars = ids("far", self.far.iter().map(|f| f.id))?;
        let qers = ids("qer", self.qer.iter().map(|q| q.id))?;
        let urrs = ids("urr", self.urr.iter().map(|u| u.id))?;
        ids("pdr", self.pdr.iter().map(|p| u32::from(p.id)))?;
        let mut out = Vec::new();
        let enc = |e: pfcp_wire::EncodeError| e.to_string();
        for p in &self.pdr {
            let at = format!("pdr {}", p.id);
            let mut pdi =
                Pdi::new(source_interface(&p.source_interface).map_err(|e| format!("{at}: {e}"))?);
            if let Some(f) = &p.f_teid {
                pdi = pdi.with_local_f_teid(f_teid(f).map_err(|e| format!("{at}: f_teid: {e}"))?);
            }
            if let Some(n) = &p.network_instance {
                pdi = pdi
                    .with_network_instance(network_instance(n).map_err(|e| format!("{at}: {e}"))?);
            }
            if let Some(dir) = &p.ue_ip {
                let destination = match dir.as_str() {
                    "source" => false,
                    "destination" => true,
                    other => {
                        return Err(format!(
                            "{at}: ue_ip {other:?}: source (uplink) or destination (downlink)"
                        ))
                    }
                };
                pdi = pdi.with_ue_ip_address(UeIpAddress::ipv4(Ipv4Addr::UNSPECIFIED, destination));
            }
            let mut pdr = CreatePdr::new(PdrId(p.id), pdi);
            if let Some(x) = p.precedence {
                pdr = pdr.with_precedence(Precedence(x));
            }
            if let Some(id) = p.far_id {
                if !fars.contains(&id) {
                    return Err(format!("{at}: far_id {id} is not a [[far]] id"));
                }
                pdr = pdr.with_far_id(FarId(id));
            }
            for &id in &p.qer_ids {
                if !qers.contains(&id) {
                    return Err(format!("{at}: qer_ids: {id} is not a [[qer]] id"));
                }
                pdr = pdr.with_qer_id(QerId(id));
            }
            for &id in &p.urr_ids {
                if !urrs.contains(&id) {
                    return Err(format!("{at}: urr_ids: {id} is not a [[urr]] id"));
                }
                pdr = pdr.with_urr_id(UrrId(id));
            }
            pdr.encode(&mut out)
                .map_err(|e| format!("{at}: {}", enc(e)))?;
        }
        for f in &self.far {
            let at = format!("far {}", f.id);
            let action = apply_action(&f.apply_action).map_err(|e| format!("{at}: {e}"))?;
            let mut far = CreateFar::new(FarId(f.id), action);
            if let Some(fw) = &f.forwarding {
                let dest = destination_interface(&fw.destination_interface)
                    .map_err(|e| format!("{at}: {e}"))?;
                let mut p = ForwardingParameters::new(dest);
                if let Some(n) = &fw.network_instance {
                    p = p.with_network_instance(
                        network_instance(n).map_err(|e| format!("{at}: {e}"))?,
                    );
                }
                if let Some(t) = &fw.outer_header_creation {
                    p = p
                        .with_outer_header_creation(OuterHeaderCreation::gtpu_ipv4(t.teid, t.ipv4));
                }
                far = far.with_forwarding_parameters(p);
            }
            far.encode(&mut out)
                .map_err(|e| format!("{at}: {}", enc(e)))?;
        }
        for u in &self.urr {
            let at = format!("urr {}", u.id);
            let method = flags(
                &u.measurement_method,
                MeasurementMethod::NAMED,
                "measurement_method",
            )
            .map_err(|e| format!("{at}: {e}"))?;
            let triggers = flags(
                &u.reporting_triggers,
                ReportingTriggers::NAMED,
                "reporting_triggers",
            )
            .map_err(|e| format!("{at}: {e}"))?;
            let mut urr = CreateUrr::new(UrrId(u.id), method, triggers);
            if let Some(v) = u.volume_threshold {
                urr = urr.with_volume_threshold(VolumeThreshold::total(v));
            }
            urr.encode(&mut out)
                .map_err(|e| format!("{at}: {}", enc(e)))?;
        }
        for q in &self.qer {
            let at = format!("qer {}", q.id);
            let gate = match q.gate.as_str() {
                "open" => GateStatus::OPEN,
                "closed" => GateStatus::CLOSED,
                other => return Err(format!("{at}: gate {other:?}: open or closed")),
            };
            let mut qer = CreateQer::new(QerId(q.id), gate);
            if let Some(b) = &q.mbr {
                qer = qer.with_mbr(Mbr {
                    uplink: b.uplink,
                    downlink: b.downlink,
                });
            }
            if let Some(b) = &q.gbr {
                qer = qer.with_gbr(Gbr {
                    uplink: b.uplink,
                    downlink: b.downlink,
                });
            }
            if let Some(x) = q.qfi {
                let qfi = Qfi::new(x).ok_or_else(|| format!("{at}: qfi {x}: from 0 to 63"))?;
                qer = qer.with_qfi(qfi);
            }
            qer.encode(&mut out)
                .map_err(|e| format!("{at}: {}", enc(e)))?;
        }
        Ok(out)
    }
}

/// The ids of the rules of one kind, checked unique.
fn ids(kind: &str, all: impl Iterator<Item = u32>) -> Result<BTreeSet<u32>, String> {
    let mut seen = BTreeSet::new();
    for id in all {
        if !seen.insert(id) {
            return Err(format!("{kind} id {id} is given twice"));
        }
    }
    Ok(seen)
}

fn source_interface(name: &str) -> Result<SourceInterface, String> {
    Ok(match name {
        "access" => SourceInterface::ACCESS,
        "core" => SourceInterface::CORE,
        "sgi-lan" | "n6-lan" => SourceInterface::SGI_LAN,
        "cp-function" => SourceInterface::CP_FUNCTION,
        "vn-internal" => SourceInterface::VN_INTERNAL,
        other => {
            return Err(format!(
                "source_interface {other:?}: access, core, sgi-lan, cp-function or vn-internal"
            ))
        }
    })
}

fn destination_interface(name: &str) -> Result<DestinationInterface, String> {
    Ok(match name {
        "access" => DestinationInterface::ACCESS,
        "core" => DestinationInterface::CORE,
        "sgi-lan" | "n6-lan" => DestinationInterface::SGI_LAN,
        "cp-function" => DestinationInterface::CP_FUNCTION,
        "li-function" => DestinationInterface::LI_FUNCTION,
        "vn-internal" => DestinationInterface::VN_INTERNAL,
        other => return Err(format!(
            "destination_interface {other:?}: access, core, sgi-lan, cp-function, li-function or vn-internal"
        )),
    })
}

fn f_teid(f: &TeidSpec) -> Result<FTeid, String> {
    match (f.choose, f.teid, f.ipv4) {
        (true, None, None) => Ok(FTeid::choose_ipv4(f.choose_id)),
        (false, Some(teid), Some(addr)) if f.choose_id.is_none() => Ok(FTeid::ipv4(teid, addr)),
        _ => Err("either { choose = true } (optionally with choose_id) or { teid = N, ipv4 = \"A.B.C.D\" }".into()),
    }
}

/// A Network Instance written as DNN labels (TS 23.003 clause 9.1: `internet` is 8 followed
/// by the 8 letters), as the 3GPP encoding of a DNN is.
fn network_instance(name: &str) -> Result<NetworkInstance<'static>, String> {
    let mut v = Vec::with_capacity(name.len() + 1);
    for label in name.split('.') {
        let len = u8::try_from(label.len())
            .ok()
            .filter(|l| (1..=63).contains(l));
        let Some(len) = len else {
            return Err(format!(
                "network_instance {name:?}: labels of 1 to 63 characters, separated by dots"
            ));
        };
        v.push(len);
        v.extend_from_slice(label.as_bytes());
    }
    Ok(NetworkInstance(Cow::Owned(v)))
}

/// A flag set from its names (case-insensitive), from the IE's table of names.
fn flags<T: Copy + std::ops::BitOr<Output = T> + Default>(
    names: &[String],
    table: &[(&str, T)],
    what: &str,
) -> Result<T, String> {
    if names.is_empty() {
        return Err(format!("{what} is empty"));
    }
    let mut set = T::default();
    for name in names {
        let flag = table
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                let known: Vec<String> =
                    table.iter().map(|(n, _)| n.to_ascii_lowercase()).collect();
                format!("{what}: {name:?} is not one of {}", known.join(", "))
            })?;
        set = set | flag;
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfcp_wire::ie::{IeIter, IeType};
    use pfcp_wire::Message;
    use std::net::IpAddr;

    const BASIC: &str = include_str!("../../templates/basic.toml");

    /// What a session's request says: its F-SEID's SEID, the UE address and the TEIDs.
    fn ids_of(bytes: &[u8]) -> (u64, Vec<Ipv4Addr>, Vec<u32>) {
        let m = Message::decode(bytes).unwrap();
        let seid = m.f_seid().unwrap().unwrap().seid;
        let (mut ue, mut teids) = (Vec::new(), Vec::new());
        fn walk(list: &[u8], ue: &mut Vec<Ipv4Addr>, teids: &mut Vec<u32>) {
            for ie in IeIter::new(list, 0) {
                let ie = ie.unwrap();
                if ie.ie_type() == IeType::UE_IP_ADDRESS {
                    ue.extend(ie.decode_as::<UeIpAddress>().unwrap().ipv4);
                } else if ie.ie_type() == IeType::OUTER_HEADER_CREATION {
                    teids.extend(ie.decode_as::<OuterHeaderCreation>().unwrap().teid);
                } else if ie.ie_type() == IeType::F_TEID {
                    if let FTeid::Assigned { teid, .. } = ie.decode_as::<FTeid>().unwrap() {
                        teids.push(teid);
                    }
                } else if ie.ie_type().is_grouped() {
                    walk(ie.value(), ue, teids);
                }
            }
        }
        walk(m.body(), &mut ue, &mut teids);
        (seid, ue, teids)
    }

    fn request(rules: &SessionRules, k: u64) -> Vec<u8> {
        let node = pfcp_wire::ie::NodeId::Ipv4(Ipv4Addr::LOCALHOST);
        let mut node_ie = Vec::new();
        node.encode(&mut node_ie).unwrap();
        let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let (h, ies) = rules.establishment(k, k + 1, &node_ie, ip).unwrap();
        let mut out = Vec::new();
        let mut w = pfcp_wire::encode::MessageWriter::begin(&mut out, &h).unwrap();
        w.raw_ies(&ies).unwrap();
        w.finish().unwrap();
        out
    }

    #[test]
    fn two_sessions_get_their_own_ue_address_teids_and_seid() {
        let rules = parse(BASIC, "basic.toml", UePool::DEFAULT).unwrap();
        let (seid0, ue0, teid0) = ids_of(&request(&rules, 0));
        let (seid1, ue1, teid1) = ids_of(&request(&rules, 1));
        assert_ne!(seid0, seid1);
        // The uplink and the downlink PDR match the same UE: one address per session.
        assert_eq!(ue0, [Ipv4Addr::new(10, 45, 0, 1); 2]);
        assert_eq!(ue1, [Ipv4Addr::new(10, 45, 0, 2); 2]);
        assert!(!teid0.is_empty(), "the template gives TEIDs");
        assert_eq!(teid0.len(), teid1.len());
        assert!(teid0
            .iter()
            .zip(&teid1)
            .all(|(a, b)| b == &a.wrapping_add(1)));
        // The request is one a UP function accepts: every mandatory IE, typed IEs valid.
        let bytes = request(&rules, 7);
        let m = Message::decode(&bytes).unwrap();
        m.validate().unwrap();
        m.check_typed_ies().unwrap();
    }

    #[test]
    fn bad_templates_say_what_and_where() {
        let err = |t: &str| parse(t, "t.toml", UePool::DEFAULT).unwrap_err();
        assert!(err("pdr = 3").contains("--template t.toml"));
        let e = err("[[pdr]]\nid = 1\nsource_interface = \"moon\"\n[[far]]\nid = 1\napply_action = [\"forw\"]\n");
        assert!(e.contains("pdr 1: source_interface \"moon\""), "{e}");
        let e = err("[[pdr]]\nid = 1\nsource_interface = \"access\"\nfar_id = 2\n[[far]]\nid = 1\napply_action = [\"forw\"]\n");
        assert!(e.contains("far_id 2 is not a [[far]] id"), "{e}");
        let e = err("[[pdr]]\nid = 1\nsource_interface = \"access\"\n[[far]]\nid = 1\napply_action = [\"fly\"]\n");
        assert!(e.contains("far 1: apply action \"fly\""), "{e}");
        let e = err("[[pdr]]\nid = 1\nsource_interface = \"access\"\nsurprise = 1\n");
        assert!(e.contains("surprise"), "{e}");
        let e = err("ue_ip_pool = \"10.0.0.0\"\n");
        assert!(e.contains("ue_ip_pool"), "{e}");
    }
}
