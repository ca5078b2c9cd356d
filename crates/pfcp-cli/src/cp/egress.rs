//! `pfcp cp`'s egress throttling per UP connection and its route groups: the signalling
//! router's Per Connection Egress Message Throttling and Alternate Routing Across Route Groups
//! (seed 003), from flags or a TOML file (`--egress-config`).
//!
//! ```toml
//! # Named Egress Throttling Configuration Sets ("configured and assigned to Connections").
//! [sets.small]
//! max_rate = 1000                      # Max EMR, messages/s
//! levels = "60/55,80/75,100/90"        # TT-x/AT-x pairs in % of the Max EMR (1 to 3)
//! level_only = false                   # true: the levels alone shed (no cap at the Max EMR)
//! # burst = 16, max_pending = 512      # optional
//!
//! default = "small"                    # the set of the UP functions not assigned below
//!
//! [[peer]]                             # an --up address and its set
//! up = "127.0.0.1:8805"
//! set = "small"
//! max_rate = 500                       # its own Max EMR, or:
//! # capacity = 3000, connections = 2   # "the total capacity of the Peer by the number of
//! #                                    # Connections": Max EMR 1500
//!
//! route_groups = [["127.0.0.1:8805", "127.0.0.2:8805"], ["127.0.0.3:8805"]]
//! max_forwarding = 4                   # Maximum Per Message Forwarding Allowed
//! ```
//!
//! The flags `--egress-max-rate`, `--egress-levels` and `--egress-level-only` make the default
//! set (and override the file's default), `--route-group A,B` (repeated, in preference order)
//! the route groups. Sets and groups name UP functions by their `--up` address; the CP's
//! throttles are per UP function (Node ID), learned before the run.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use pfcp_node::cp::Destination;
use pfcp_overload::NodeKey;
use pfcp_throttle::egress::{EgressConfig, EgressConfigSets};
use pfcp_throttle::routing::{RouteGroup, RouteList};
use serde::Deserialize;

use super::CpArgs;
use crate::egress::{assign, config_of, named_sets, SetSpec};

/// The set of one UP function of the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerSpec {
    /// Its `--up` address.
    pub up: SocketAddr,
    /// The set's name.
    pub set: String,
    /// Its own Max EMR.
    #[serde(default)]
    pub max_rate: Option<u32>,
    /// Its capacity (messages per second), divided by `connections` for the Max EMR.
    #[serde(default)]
    pub capacity: Option<u32>,
    /// Its connections (default 1).
    #[serde(default)]
    pub connections: Option<u32>,
}

/// The `--egress-config` file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EgressFile {
    /// Named sets.
    #[serde(default)]
    pub sets: BTreeMap<String, SetSpec>,
    /// The set of the UP functions not assigned.
    #[serde(default)]
    pub default: Option<String>,
    /// Assignments.
    #[serde(default)]
    pub peer: Vec<PeerSpec>,
    /// Route groups, in preference order.
    #[serde(default)]
    pub route_groups: Vec<Vec<SocketAddr>>,
    /// Maximum Per Message Forwarding Allowed (default: the number of UP functions).
    #[serde(default)]
    pub max_forwarding: Option<u32>,
}

/// What the run's CP needs: the sets and the route list, with the UP functions' Node IDs.
#[derive(Debug)]
pub(super) struct Plan {
    file: EgressFile,
    flag_default: Option<EgressConfig>,
}

impl Plan {
    /// The plan of the flags and the file; `None` if neither asks for anything.
    pub(super) fn of(args: &CpArgs) -> Result<Option<Plan>, String> {
        let mut file = match &args.egress_config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("--egress-config {}: {e}", path.display()))?;
                toml::from_str::<EgressFile>(&text)
                    .map_err(|e| format!("--egress-config {}: {e}", path.display()))?
            }
            None => EgressFile::default(),
        };
        if !args.route_group.is_empty() {
            file.route_groups = args
                .route_group
                .iter()
                .map(|g| {
                    g.split(',')
                        .map(|a| {
                            a.trim()
                                .parse::<SocketAddr>()
                                .map_err(|_| format!("--route-group: {a:?} is not an address"))
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
                .collect::<Result<_, _>>()?;
        }
        let flag_default = match args.egress_max_rate {
            Some(rate) => {
                let spec = SetSpec::of_flags(rate, &args.egress_levels, args.egress_level_only);
                Some(config_of("--egress-max-rate", &spec)?)
            }
            None => None,
        };
        let used = flag_default.is_some() || !file.sets.is_empty() || !file.route_groups.is_empty();
        for addr in file
            .peer
            .iter()
            .map(|p| &p.up)
            .chain(file.route_groups.iter().flatten())
        {
            if !args.ups.contains(addr) {
                return Err(format!("{addr} is not one of the --up addresses"));
            }
        }
        Ok(used.then_some(Plan { file, flag_default }))
    }

    /// Whether the plan has route groups (Session Establishment Requests may move).
    pub(super) fn routes(&self) -> bool {
        !self.file.route_groups.is_empty()
    }

    /// The `--up` addresses of the first route group (empty without route groups).
    pub(super) fn preferred_group(&self) -> &[SocketAddr] {
        self.file.route_groups.first().map_or(&[], Vec::as_slice)
    }

    /// The configuration sets assigned to the UP functions (`node_of` an `--up` address).
    pub(super) fn sets(
        &self,
        node_of: impl Fn(&SocketAddr) -> Option<NodeKey>,
    ) -> Result<EgressConfigSets<NodeKey>, String> {
        let default = self
            .file
            .default
            .as_deref()
            .filter(|_| self.flag_default.is_none());
        let mut sets = named_sets(&self.file.sets, default)?;
        if let Some(c) = self.flag_default {
            let id = sets
                .add("--egress-max-rate", c)
                .map_err(|e| e.to_string())?;
            sets.set_default(Some(id));
        }
        for p in &self.file.peer {
            let id = sets
                .find(&p.set)
                .ok_or_else(|| format!("peer {}: no set {:?}", p.up, p.set))?;
            let node = node_of(&p.up).ok_or_else(|| format!("peer {}: unknown", p.up))?;
            assign(&mut sets, node, id, p.max_rate, p.capacity, p.connections)
                .map_err(|e| format!("peer {}: {e}", p.up))?;
        }
        Ok(sets)
    }

    /// The route list of the route groups, if any.
    pub(super) fn route_list(
        &self,
        node_of: impl Fn(&SocketAddr) -> Option<NodeKey>,
    ) -> Result<Option<RouteList<Destination>>, String> {
        if self.file.route_groups.is_empty() {
            return Ok(None);
        }
        let mut groups = Vec::new();
        let mut peers = 0u32;
        for g in &self.file.route_groups {
            let mut group = RouteGroup::new();
            for a in g {
                let node = node_of(a).ok_or_else(|| format!("route group: {a} unknown"))?;
                group.push(Destination::node(node), 1);
                peers += 1;
            }
            groups.push(group);
        }
        let attempts = self.file.max_forwarding.unwrap_or(peers.max(1));
        RouteList::new(groups, attempts)
            .map(Some)
            .map_err(|e| format!("route groups: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;

    #[test]
    fn the_file_assigns_sets_and_the_max_emr_of_a_peer_of_two_connections() {
        let text = r#"
            default = "big"
            route_groups = [["127.0.0.1:8805"], ["127.0.0.2:8805"]]
            [sets.big]
            max_rate = 1000
            [sets.small]
            max_rate = 100
            levels = "60/55"
            level_only = true
            [[peer]]
            up = "127.0.0.1:8805"
            set = "small"
            capacity = 300
            connections = 2
        "#;
        let file: EgressFile = toml::from_str(text).unwrap();
        let plan = Plan {
            file,
            flag_default: None,
        };
        let a: SocketAddr = "127.0.0.1:8805".parse().unwrap();
        let node_of = |s: &SocketAddr| Some(NodeKey::Ip(s.ip()));
        let sets = plan.sets(node_of).unwrap();
        let c = sets.config_for(&NodeKey::Ip(a.ip())).unwrap();
        assert_eq!((c.max_rate, c.hard_cap, c.levels()), (150, false, 1));
        let other = sets
            .config_for(&NodeKey::Ip("127.0.0.9".parse().unwrap()))
            .unwrap();
        assert_eq!(other.max_rate, 1000);
        let routes = plan.route_list(node_of).unwrap().unwrap();
        assert_eq!(routes.groups().len(), 2);
    }
}
