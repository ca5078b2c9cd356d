//! The session table of a [`Node`](crate::node::Node): for every PFCP session this node holds, the
//! peer's F-SEID (TS 29.244 clause 5.1.2: each side allocates its own SEID and learns the
//! other's from the F-SEID exchanged in the Session Establishment Request and Response).
//!
//! The node needs it for two things, without the caller passing anything:
//!
//! * **Scope** (clause 6.2.4.3.1): an OCI belongs by default to the PFCP entity at the address of
//!   the UP F-SEID. A CP's later requests on a session (header SEID = the UP's SEID) are
//!   throttled by that entity's overload, and an OCI in a UP's Session Report Request (header
//!   SEID = the CP's SEID) is recorded for that entity.
//! * **Restarts** (clauses 6.2.6, 6.2.7): when a peer restarts or loses the association, the
//!   sessions held with it are gone; the node reports them ([`PeerEvent::SessionsLost`]) and
//!   forgets them.
//!
//! The table is bounded ([`NodeConfig::max_sessions`]); beyond it new sessions are not
//! tracked (their requests are then scoped to the UP function alone).
//!
//! [`PeerEvent::SessionsLost`]: crate::peer::PeerEvent::SessionsLost
//! [`NodeConfig::max_sessions`]: crate::node::NodeConfig::max_sessions

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};

use pfcp_overload::NodeKey;
use pfcp_wire::ie::FSeid;

/// One session as this node knows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Session {
    /// This node's SEID (from its own F-SEID).
    pub local_seid: u64,
    /// The peer's SEID (from the peer's F-SEID).
    pub remote_seid: u64,
    /// The address in the peer's F-SEID: for a CP, the UP PFCP entity holding the session.
    pub remote_ip: Option<IpAddr>,
    /// The peer's address and port (where the session's requests go).
    pub peer: SocketAddr,
    /// The peer's Node ID, if it was associated.
    pub node: Option<NodeKey>,
}

impl Session {
    /// A session between this node's `local_seid` and the peer's F-SEID `remote`.
    pub fn new(local_seid: u64, remote: &FSeid, peer: SocketAddr, node: Option<NodeKey>) -> Self {
        Session {
            local_seid,
            remote_seid: remote.seid,
            remote_ip: fseid_ip(remote),
            peer,
            node,
        }
    }
}

/// The address of an F-SEID (IPv4 preferred when both are present, as a dual-stack peer
/// reaches us on one of them).
pub(crate) fn fseid_ip(f: &FSeid) -> Option<IpAddr> {
    f.ipv4.map(IpAddr::V4).or(f.ipv6.map(IpAddr::V6))
}

/// Sessions by local SEID, with an index by (peer, remote SEID).
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    by_local: HashMap<u64, Session, foldhash::fast::RandomState>,
    by_remote: HashMap<(SocketAddr, u64), u64, foldhash::fast::RandomState>,
    max: usize,
}

impl Sessions {
    pub(crate) fn new(max: usize) -> Self {
        Sessions {
            max,
            ..Sessions::default()
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.by_local.len()
    }

    /// Record `s`, replacing a session with the same local SEID; `false` if the table is full.
    pub(crate) fn insert(&mut self, s: Session) -> bool {
        if let Some(old) = self.by_local.get(&s.local_seid) {
            self.by_remote.remove(&(old.peer, old.remote_seid));
        } else if self.by_local.len() >= self.max {
            return false;
        }
        self.by_remote.insert((s.peer, s.remote_seid), s.local_seid);
        self.by_local.insert(s.local_seid, s);
        true
    }

    pub(crate) fn get(&self, local_seid: u64) -> Option<&Session> {
        self.by_local.get(&local_seid)
    }

    /// The session whose peer `peer` knows it by `remote_seid`.
    pub(crate) fn by_remote(&self, peer: SocketAddr, remote_seid: u64) -> Option<&Session> {
        self.by_remote
            .get(&(peer, remote_seid))
            .and_then(|l| self.by_local.get(l))
    }

    pub(crate) fn remove(&mut self, local_seid: u64) -> Option<Session> {
        let s = self.by_local.remove(&local_seid)?;
        self.by_remote.remove(&(s.peer, s.remote_seid));
        Some(s)
    }

    pub(crate) fn remove_by_remote(
        &mut self,
        peer: SocketAddr,
        remote_seid: u64,
    ) -> Option<Session> {
        let local = self.by_remote.remove(&(peer, remote_seid))?;
        self.by_local.remove(&local)
    }

    /// Take out every session held with `peer`, or with any address of `node`.
    pub(crate) fn take_peer(&mut self, peer: SocketAddr, node: Option<&NodeKey>) -> Vec<Session> {
        // A scan: peers restart rarely, and the tables keep the per-request paths O(1).
        let lost: Vec<u64> = self
            .by_local
            .values()
            .filter(|s| s.peer == peer || (node.is_some() && s.node.as_ref() == node))
            .map(|s| s.local_seid)
            .collect();
        let mut out: Vec<Session> = lost.into_iter().filter_map(|l| self.remove(l)).collect();
        out.sort_unstable_by_key(|s| s.local_seid);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn fseid(seid: u64, ip: [u8; 4]) -> FSeid {
        FSeid {
            seid,
            ipv4: Some(Ipv4Addr::from(ip)),
            ipv6: None,
        }
    }

    #[test]
    fn indexed_both_ways_and_bounded() {
        let up: SocketAddr = "192.0.2.1:8805".parse().unwrap();
        let mut t = Sessions::new(2);
        assert!(t.insert(Session::new(1, &fseid(100, [192, 0, 2, 7]), up, None)));
        assert!(t.insert(Session::new(2, &fseid(200, [192, 0, 2, 8]), up, None)));
        assert!(!t.insert(Session::new(3, &fseid(300, [192, 0, 2, 9]), up, None)));
        assert_eq!(
            t.by_remote(up, 200).and_then(|s| s.remote_ip),
            Some(IpAddr::from([192, 0, 2, 8]))
        );
        assert_eq!(t.remove_by_remote(up, 100).map(|s| s.local_seid), Some(1));
        assert!(t.get(1).is_none());
        // Replacing a local SEID moves its remote index entry.
        assert!(t.insert(Session::new(2, &fseid(201, [192, 0, 2, 8]), up, None)));
        assert!(t.by_remote(up, 200).is_none());
        assert_eq!(t.by_remote(up, 201).map(|s| s.local_seid), Some(2));
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn a_restarted_peer_takes_its_sessions_along() {
        let a: SocketAddr = "192.0.2.1:8805".parse().unwrap();
        let a2: SocketAddr = "192.0.2.2:8805".parse().unwrap();
        let b: SocketAddr = "198.51.100.1:8805".parse().unwrap();
        let node = NodeKey::fqdn("upf1.example.net");
        let mut t = Sessions::new(16);
        t.insert(Session::new(
            5,
            &fseid(1, [192, 0, 2, 1]),
            a,
            Some(node.clone()),
        ));
        t.insert(Session::new(
            3,
            &fseid(2, [192, 0, 2, 2]),
            a2,
            Some(node.clone()),
        ));
        t.insert(Session::new(4, &fseid(3, [198, 51, 100, 1]), b, None));
        let lost = t.take_peer(a, Some(&node));
        assert_eq!(
            lost.iter().map(|s| s.local_seid).collect::<Vec<_>>(),
            vec![3, 5]
        );
        assert_eq!(t.len(), 1);
        assert!(t.by_remote(a2, 2).is_none());
    }
}
