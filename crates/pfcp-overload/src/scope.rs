//! What an OCI or LCI applies to (TS 29.244 clauses 6.2.3.3.1, 6.2.4.3.1, 8.2.76).

use core::fmt;
use std::net::IpAddr;

/// The owned Node ID, the key of node-scoped state (LCI always, OCI with AOCI=1): pfcp-wire's
/// [`NodeKey`], re-exported here where it used to live.
pub use pfcp_wire::ie::NodeKey;

/// The owner of an overload state.
///
/// Clause 6.2.4.3.1: by default an OCI belongs to the UP PFCP *entity* whose address is in the
/// UP F-SEID of the session it arrived on; with AOCI=1 (clause 8.2.76) it belongs to the UP
/// function's *Node ID*. One UP function (one Node ID) may front several PFCP entities.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// A UP PFCP entity, by the IP address in its F-SEID.
    Entity(IpAddr),
    /// A UP function, by its Node ID.
    Node(NodeKey),
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Entity(a) => write!(f, "entity {a}"),
            Scope::Node(n) => write!(f, "node {n}"),
        }
    }
}

/// Where an OCI arrived from: what the receiver knows about the message that carried it.
///
/// # Examples
///
/// ```
/// use std::net::{IpAddr, Ipv4Addr};
/// use pfcp_overload::{NodeKey, OciOrigin, Scope};
///
/// let upf = NodeKey::fqdn("upf1.example.net");
/// let entity = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 10)); // the address in the UP F-SEID
/// let origin = OciOrigin::new(upf.clone(), Some(entity));
/// // Clause 6.2.4.3.1: without AOCI the OCI belongs to the PFCP entity ...
/// assert_eq!(origin.scope(false), Scope::Entity(entity));
/// // ... with AOCI=1 (clause 8.2.76) to the UP function's Node ID.
/// assert_eq!(origin.scope(true), Scope::Node(upf.clone()));
/// // No UP F-SEID (a rejected Session Establishment): the Node ID.
/// assert_eq!(OciOrigin::new(upf.clone(), None).scope(false), Scope::Node(upf));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciOrigin {
    /// Node ID of the UP function the CP associated with (the peer of the association).
    pub node: NodeKey,
    /// IP address in the UP F-SEID of the session the message belongs to, when known.
    /// `None` for a rejected Session Establishment Response (there is no UP F-SEID).
    pub entity: Option<IpAddr>,
}

impl OciOrigin {
    /// An origin with both scopes known.
    pub fn new(node: NodeKey, entity: Option<IpAddr>) -> Self {
        OciOrigin { node, entity }
    }

    /// The scope an OCI with the given AOCI flag applies to. Without AOCI and without a UP
    /// F-SEID address (a non-compliant rejected Session Establishment Response), fall back to
    /// the Node ID: over-applying is safer than dropping the overload signal.
    pub fn scope(&self, aoci: bool) -> Scope {
        match (aoci, self.entity) {
            (false, Some(ip)) => Scope::Entity(ip),
            _ => Scope::Node(self.node.clone()),
        }
    }
}
