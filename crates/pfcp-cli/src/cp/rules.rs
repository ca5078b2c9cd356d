//! The rules of the Session Establishment Requests `pfcp cp --template` and `--replay` send:
//! a body of IEs (Create PDR, FAR, QER, URR, ...) written once, then rewritten per session
//! so that no two sessions collide at the UP function.
//!
//! Session k (0 for the first; a session established again after its UP function lost it
//! keeps its k) gets, wherever the body has them, at any depth of grouped IEs:
//!
//! * F-TEID with a TEID (CH=0): the TEID + k (a TEID of 0 skipped); an F-TEID with CH=1
//!   is left for the UP function to choose;
//! * Outer Header Creation with a TEID: the TEID + k;
//! * UE IP Address with an IPv4 address: address k of the UE IP pool (its hosts, the
//!   network and broadcast addresses left out, round again past the last);
//! * Node ID and CP F-SEID (top level): this CP's Node ID and an F-SEID with the session's own
//!   SEID (they are written first, the body's own are dropped).
//!
//! Every other IE is copied as it is, vendor IEs too. The Session Modification Requests of a
//! session update the body's first FAR (its FAR ID and Apply Action).

use std::net::{IpAddr, Ipv4Addr};

use bytes::Bytes;
use pfcp_wire::encode::put_ie_header;
use pfcp_wire::ie::{
    ApplyAction, CreateFar, FTeid, IeIter, IeType, OuterHeaderCreation, UeIpAddress, UpdateFar,
};
use pfcp_wire::{Encode, EncodeError, Header, MessageType};

use pfcp_sim::traffic::f_seid;

/// The deepest nesting of grouped IEs rewritten (a Create PDR's PDI is at depth 2).
const MAX_DEPTH: usize = 8;

/// An IPv4 pool of UE addresses: `10.45.0.0/16`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UePool {
    /// The first host address.
    first: u32,
    /// How many host addresses.
    hosts: u32,
}

impl UePool {
    /// The default pool, `10.45.0.0/16`.
    pub const DEFAULT: UePool = UePool {
        first: u32::from_be_bytes([10, 45, 0, 1]),
        hosts: 65_534,
    };

    /// Address `k` of the pool (round again past the last).
    pub fn nth(&self, k: u64) -> Ipv4Addr {
        let i = (k % u64::from(self.hosts.max(1))) as u32;
        Ipv4Addr::from(self.first.wrapping_add(i))
    }
}

impl std::str::FromStr for UePool {
    type Err = String;

    /// `A.B.C.D/LEN`, LEN from 8 to 32 (/31 and /32: every address is a host).
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("{s:?} is not an IPv4 pool like 10.45.0.0/16");
        let (addr, len) = s.trim().split_once('/').ok_or_else(bad)?;
        let addr: Ipv4Addr = addr.parse().map_err(|_| bad())?;
        let len: u32 = len.parse().map_err(|_| bad())?;
        if !(8..=32).contains(&len) {
            return Err(format!("{s:?}: a pool's prefix length is between 8 and 32"));
        }
        let size = 1u64 << (32 - len);
        let network = u32::from(addr) & !((size - 1) as u32);
        Ok(if size <= 2 {
            UePool {
                first: network,
                hosts: size as u32,
            }
        } else {
            UePool {
                first: network + 1,
                hosts: (size - 2) as u32,
            }
        })
    }
}

/// A Session Establishment Request's rules to send for every session.
#[derive(Debug, Clone)]
pub struct SessionRules {
    /// The IEs after the Node ID and the CP F-SEID, as in the template or the capture.
    bodies: Vec<Vec<u8>>,
    /// The body of the Session Modification Requests (an Update FAR of the first FAR).
    update: Bytes,
    pool: UePool,
}

impl SessionRules {
    /// Rules from IE bodies (their Node ID and F-SEID are dropped): session k uses body
    /// k modulo their number. `what` names them in errors.
    pub fn new(bodies: Vec<Vec<u8>>, pool: UePool, what: &str) -> Result<Self, String> {
        let mut kept = Vec::with_capacity(bodies.len());
        let mut update = None;
        for (i, body) in bodies.iter().enumerate() {
            let mut own = Vec::with_capacity(body.len());
            for ie in IeIter::new(body, 0) {
                let ie = ie.map_err(|e| format!("{what}: request {}: {e}", i + 1))?;
                if ie.ie_type() == IeType::NODE_ID || ie.ie_type() == IeType::F_SEID {
                    continue;
                }
                if update.is_none() && ie.ie_type() == IeType::CREATE_FAR {
                    if let Ok(far) = ie.decode_as::<CreateFar<'_>>() {
                        update = Some((far.far_id, far.apply_action));
                    }
                }
                ie.encode(&mut own)
                    .map_err(|e| format!("{what}: request {}: {e}", i + 1))?;
            }
            // Checked once here, so that building a session's request cannot fail on it.
            rewrite(&own, 0, &pool, 0, &mut Vec::new())
                .map_err(|e| format!("{what}: request {}: {e}", i + 1))?;
            kept.push(own);
        }
        if kept.is_empty() {
            return Err(format!("{what}: no Session Establishment Request"));
        }
        let (far_id, action) = update.ok_or_else(|| {
            format!("{what}: no Create FAR (a Session Establishment Request needs one)")
        })?;
        let mut update = Vec::new();
        UpdateFar::new(far_id)
            .with_apply_action(action)
            .encode(&mut update)
            .map_err(|e| format!("{what}: {e}"))?;
        Ok(SessionRules {
            bodies: kept,
            update: Bytes::from(update),
            pool,
        })
    }

    /// How many requests the rules cycle through.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether there are none (never, once built).
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// The Session Establishment Request of session `k` (SEID `cp_seid` at `fseid_ip`; the
    /// encoded Node ID IE `node_ie`): header and IEs.
    pub fn establishment(
        &self,
        k: u64,
        cp_seid: u64,
        node_ie: &[u8],
        fseid_ip: IpAddr,
    ) -> Result<(Header, Bytes), EncodeError> {
        let n = self.bodies.len().max(1) as u64;
        let body = self
            .bodies
            .get((k % n) as usize)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut ies = Vec::with_capacity(node_ie.len() + 17 + body.len());
        ies.extend_from_slice(node_ie);
        f_seid(cp_seid, fseid_ip).encode(&mut ies)?;
        rewrite(body, k, &self.pool, 0, &mut ies)?;
        let h = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
        Ok((h, Bytes::from(ies)))
    }

    /// The Session Modification Request of the session the UP function knows as `up_seid`.
    pub fn modification(&self, up_seid: u64) -> (Header, Bytes) {
        (
            Header::new(MessageType::SESSION_MODIFICATION_REQUEST).with_seid(up_seid),
            self.update.clone(),
        )
    }
}

/// `teid` + `k`, skipping 0 (not a valid TEID for a tunnel).
fn shift(teid: u32, k: u64) -> u32 {
    let t = teid.wrapping_add(k as u32);
    if t == 0 {
        1
    } else {
        t
    }
}

/// Write the IE list `list` rewritten for session `k` to `out` (see the module docs).
fn rewrite(
    list: &[u8],
    k: u64,
    pool: &UePool,
    depth: usize,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let bad = |_| EncodeError::InvalidValue("a rule's IEs do not decode");
    for ie in IeIter::new(list, 0) {
        let ie = ie.map_err(bad)?;
        let t = ie.ie_type();
        if t == IeType::F_TEID {
            match ie.decode_as::<FTeid>().map_err(bad)? {
                FTeid::Assigned { teid, ipv4, ipv6 } => FTeid::Assigned {
                    teid: shift(teid, k),
                    ipv4,
                    ipv6,
                }
                .encode(out)?,
                choose => choose.encode(out)?,
            }
        } else if t == IeType::OUTER_HEADER_CREATION {
            let mut ohc = ie.decode_as::<OuterHeaderCreation>().map_err(bad)?;
            ohc.teid = ohc.teid.map(|teid| shift(teid, k));
            ohc.encode(out)?;
        } else if t == IeType::UE_IP_ADDRESS {
            let mut ue = ie.decode_as::<UeIpAddress>().map_err(bad)?;
            if ue.ipv4.is_some() {
                ue.ipv4 = Some(pool.nth(k));
            }
            ue.encode(out)?;
        } else if t.is_grouped() && ie.enterprise_id().is_none() && depth < MAX_DEPTH {
            let mut members = Vec::with_capacity(ie.value().len());
            rewrite(ie.value(), k, pool, depth + 1, &mut members)?;
            put_ie_header(out, t, members.len())?;
            out.extend_from_slice(&members);
        } else {
            ie.encode(out)?;
        }
    }
    Ok(())
}

/// An Apply Action from its flag names (`forw`, `drop`, `buff`, `nocp`, `dupl`, ...).
pub(crate) fn apply_action(names: &[String]) -> Result<ApplyAction, String> {
    let mut action = ApplyAction::EMPTY;
    for name in names {
        let flag = ApplyAction::NAMED
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                let known: Vec<String> = ApplyAction::NAMED
                    .iter()
                    .map(|(n, _)| n.to_ascii_lowercase())
                    .collect();
                format!("apply action {name:?}: one of {}", known.join(", "))
            })?;
        action = action | flag;
    }
    if action == ApplyAction::EMPTY {
        return Err("apply_action is empty: give at least one of forw, drop, buff".into());
    }
    Ok(action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_hands_out_its_hosts_in_turn() {
        let p: UePool = "10.45.0.0/16".parse().unwrap();
        assert_eq!(p, UePool::DEFAULT);
        assert_eq!(p.nth(0), Ipv4Addr::new(10, 45, 0, 1));
        assert_eq!(p.nth(255), Ipv4Addr::new(10, 45, 1, 0));
        assert_eq!(p.nth(65_534), Ipv4Addr::new(10, 45, 0, 1));
        let small: UePool = "192.0.2.9/30".parse().unwrap();
        assert_eq!(small.nth(0), Ipv4Addr::new(192, 0, 2, 9));
        assert_eq!(small.nth(2), Ipv4Addr::new(192, 0, 2, 9));
        assert!("10.45.0.0".parse::<UePool>().is_err());
        assert!("10.45.0.0/40".parse::<UePool>().is_err());
        assert!("2001:db8::/64".parse::<UePool>().is_err());
    }

    /// A captured request's body: its own Node ID and F-SEID, a PDR with a given F-TEID and a
    /// UE address, a FAR.
    fn captured() -> Vec<u8> {
        use pfcp_wire::ie::{FarId, NodeId, Pdi, PdrId, SourceInterface};
        let mut b = Vec::new();
        NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1))
            .encode(&mut b)
            .unwrap();
        f_seid(0xabc, IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)))
            .encode(&mut b)
            .unwrap();
        let pdi = Pdi::new(SourceInterface::ACCESS)
            .with_local_f_teid(FTeid::ipv4(0x10, Ipv4Addr::new(192, 0, 2, 2)))
            .with_ue_ip_address(UeIpAddress::ipv4(Ipv4Addr::new(172, 16, 0, 9), false));
        pfcp_wire::ie::CreatePdr::new(PdrId(1), pdi)
            .with_far_id(FarId(7))
            .encode(&mut b)
            .unwrap();
        CreateFar::new(FarId(7), ApplyAction::FORW | ApplyAction::NOCP)
            .encode(&mut b)
            .unwrap();
        b
    }

    #[test]
    fn a_captured_request_is_rewritten_per_session() {
        let rules = SessionRules::new(vec![captured()], UePool::DEFAULT, "test").unwrap();
        let mut node_ie = Vec::new();
        pfcp_wire::ie::NodeId::Ipv4(Ipv4Addr::LOCALHOST)
            .encode(&mut node_ie)
            .unwrap();
        let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let (_, ies) = rules.establishment(3, 4, &node_ie, ip).unwrap();
        let top: Vec<_> = IeIter::new(&ies, 0).map(Result::unwrap).collect();
        // One Node ID and one F-SEID: this CP's, with the session's SEID.
        let count = |t| top.iter().filter(|ie| ie.ie_type() == t).count();
        assert_eq!((count(IeType::NODE_ID), count(IeType::F_SEID)), (1, 1));
        let fseid = top
            .iter()
            .find(|ie| ie.ie_type() == IeType::F_SEID)
            .unwrap()
            .decode_as::<pfcp_wire::ie::FSeid>()
            .unwrap();
        assert_eq!((fseid.seid, fseid.ipv4), (4, Some(Ipv4Addr::LOCALHOST)));
        let pdr = top
            .iter()
            .find(|ie| ie.ie_type() == IeType::CREATE_PDR)
            .unwrap()
            .decode_as::<pfcp_wire::ie::CreatePdr<'_>>()
            .unwrap();
        assert_eq!(
            pdr.pdi.local_f_teid,
            Some(FTeid::ipv4(0x13, Ipv4Addr::new(192, 0, 2, 2)))
        );
        let ue: Vec<UeIpAddress> = pdr.pdi.ue_ip_addresses.iter().collect();
        assert_eq!(ue, [UeIpAddress::ipv4(Ipv4Addr::new(10, 45, 0, 4), false)]);
        // The modifications update the first FAR with its own action.
        let (h, body) = rules.modification(99);
        assert_eq!(h.seid, Some(99));
        let far = IeIter::new(&body, 0)
            .next()
            .unwrap()
            .unwrap()
            .decode_as::<UpdateFar<'_>>()
            .unwrap();
        assert_eq!(far.far_id.0, 7);
        assert_eq!(
            far.apply_action,
            Some(ApplyAction::FORW | ApplyAction::NOCP)
        );
    }

    #[test]
    fn rules_without_a_far_or_requests_are_refused() {
        let e = SessionRules::new(Vec::new(), UePool::DEFAULT, "x").unwrap_err();
        assert_eq!(e, "x: no Session Establishment Request");
        let e = SessionRules::new(vec![vec![0, 1, 0, 0]], UePool::DEFAULT, "x").unwrap_err();
        assert!(e.contains("no Create FAR"), "{e}");
        let e = SessionRules::new(vec![vec![0, 1, 0, 9]], UePool::DEFAULT, "x").unwrap_err();
        assert!(e.starts_with("x: request 1:"), "{e}");
    }

    #[test]
    fn teids_skip_zero() {
        assert_eq!(shift(u32::MAX, 1), 1);
        assert_eq!(shift(0x100, 5), 0x105);
    }
}
