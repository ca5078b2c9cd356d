//! Egress Message Throttling Configuration Sets, assigned to connections: the router's
//! "Egress Throttling Configuration Sets can be configured and assigned to Connections", with
//! a Max EMR per connection or per peer ("dividing the total capacity of the Peer by the
//! number of Connections").

use core::hash::Hash;
use std::collections::HashMap;
use std::time::Instant;

use super::config::{EgressConfig, EgressConfigError};
use super::EgressThrottle;

/// A configuration set of an [`EgressConfigSets`] (from [`EgressConfigSets::add`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SetId(usize);

/// Why a set or an assignment was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EgressSetError {
    /// The configuration (or the set with the connection's Max EMR) is not valid.
    #[error("configuration set: {0}")]
    Config(#[from] EgressConfigError),
    /// No set with this id in this collection.
    #[error("no configuration set {0:?}")]
    UnknownSet(SetId),
    /// A set of this name exists already.
    #[error("configuration set {0:?} exists already")]
    DuplicateName(String),
}

/// Named egress configurations and the set (and Max EMR) of each connection `C` (a peer
/// address, a Node ID, a Diameter connection id).
///
/// ```
/// use pfcp_throttle::egress::{EgressConfig, EgressConfigSets};
///
/// let mut sets = EgressConfigSets::new();
/// let hss = sets.add("hss", EgressConfig::new(1000))?;
/// let fallback = sets.add("fallback", EgressConfig::new(200))?;
/// sets.set_default(Some(fallback));
/// // HSS-1 has two connections and takes 3000 msg/s: 1500 each.
/// assert_eq!(sets.assign_peer(["hss1-a", "hss1-b"], hss, 3000)?, 1500);
/// sets.assign("hss2-a", hss)?;
/// assert_eq!(sets.config_for(&"hss1-b").map(|c| c.max_rate), Some(1500));
/// assert_eq!(sets.config_for(&"hss2-a").map(|c| c.max_rate), Some(1000));
/// assert_eq!(sets.config_for(&"other").map(|c| c.max_rate), Some(200));
/// # Ok::<(), pfcp_throttle::egress::EgressSetError>(())
/// ```
#[derive(Debug, Clone)]
pub struct EgressConfigSets<C> {
    sets: Vec<(String, EgressConfig)>,
    default: Option<SetId>,
    /// Per connection: its set and its own Max EMR, if any.
    connections: HashMap<C, (SetId, Option<u32>)>,
}

impl<C> Default for EgressConfigSets<C> {
    fn default() -> Self {
        EgressConfigSets {
            sets: Vec::new(),
            default: None,
            connections: HashMap::new(),
        }
    }
}

impl<C: Hash + Eq> EgressConfigSets<C> {
    /// No set, no assignment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a set (checked with [`EgressConfig::validate`]).
    pub fn add(
        &mut self,
        name: impl Into<String>,
        config: EgressConfig,
    ) -> Result<SetId, EgressSetError> {
        let name = name.into();
        if self.find(&name).is_some() {
            return Err(EgressSetError::DuplicateName(name));
        }
        config.validate()?;
        self.sets.push((name, config));
        Ok(SetId(self.sets.len() - 1))
    }

    /// The set named `name`.
    pub fn find(&self, name: &str) -> Option<SetId> {
        self.sets.iter().position(|(n, _)| n == name).map(SetId)
    }

    /// The configuration of set `id`.
    pub fn set(&self, id: SetId) -> Option<&EgressConfig> {
        self.sets.get(id.0).map(|(_, c)| c)
    }

    /// The set of connections without an assignment (`None`: such connections have no egress
    /// throttle).
    pub fn set_default(&mut self, id: Option<SetId>) {
        self.default = id.filter(|id| self.set(*id).is_some());
    }

    /// The set of connections without an assignment, if any ([`EgressConfigSets::set_default`]).
    pub fn default_set(&self) -> Option<SetId> {
        self.default
    }

    /// The set assigned to `connection` and its own Max EMR, if it has an assignment (not the
    /// default).
    pub fn assignment(&self, connection: &C) -> Option<(SetId, Option<u32>)> {
        self.connections.get(connection).copied()
    }

    /// Assigns set `id` to `connection`, with the set's Max EMR.
    pub fn assign(&mut self, connection: C, id: SetId) -> Result<(), EgressSetError> {
        self.set(id).ok_or(EgressSetError::UnknownSet(id))?;
        self.connections.insert(connection, (id, None));
        Ok(())
    }

    /// Assigns set `id` to `connection` with its own Max EMR (the per-connection, or
    /// per-peer, Max EMR); the result is checked.
    pub fn assign_with_max_rate(
        &mut self,
        connection: C,
        id: SetId,
        max_rate: u32,
    ) -> Result<(), EgressSetError> {
        let config = self.set(id).ok_or(EgressSetError::UnknownSet(id))?;
        config.with_max_rate(max_rate).validate()?;
        self.connections.insert(connection, (id, Some(max_rate)));
        Ok(())
    }

    /// Assigns set `id` to every connection of a peer that takes `peer_capacity` messages per
    /// second, each with the Max EMR [`EgressConfig::max_rate_per_connection`] gives (the
    /// router's guideline: the capacity divided by the number of connections, a connection
    /// listed twice counted once). Returns that Max EMR; nothing is assigned on an error.
    pub fn assign_peer(
        &mut self,
        connections: impl IntoIterator<Item = C>,
        id: SetId,
        peer_capacity: u32,
    ) -> Result<u32, EgressSetError> {
        let config = *self.set(id).ok_or(EgressSetError::UnknownSet(id))?;
        // A connection listed twice is one connection.
        let mut distinct: Vec<C> = Vec::new();
        for c in connections {
            if !distinct.contains(&c) {
                distinct.push(c);
            }
        }
        let connections = distinct;
        let n = u32::try_from(connections.len()).unwrap_or(u32::MAX);
        let rate = EgressConfig::max_rate_per_connection(peer_capacity, n)
            .ok_or(EgressSetError::Config(EgressConfigError::MaxRate))?;
        config.with_max_rate(rate).validate()?;
        for c in connections {
            self.connections.insert(c, (id, Some(rate)));
        }
        Ok(rate)
    }

    /// Removes the assignment of `connection` (it falls back to the default set).
    pub fn unassign(&mut self, connection: &C) {
        self.connections.remove(connection);
    }

    /// The configuration of `connection`: its set with its own Max EMR, or the default set;
    /// `None` if neither.
    pub fn config_for(&self, connection: &C) -> Option<EgressConfig> {
        match self.connections.get(connection) {
            Some(&(id, rate)) => {
                let config = *self.set(id)?;
                Some(rate.map_or(config, |r| config.with_max_rate(r)))
            }
            None => self.default.and_then(|id| self.set(id).copied()),
        }
    }

    /// A new egress throttle for `connection`, ticking from `now`, with
    /// [`EgressConfigSets::config_for`]; `None` if the connection has no set.
    pub fn throttle_for(&self, connection: &C, now: Instant) -> Option<EgressThrottle> {
        // Every set and Max EMR was validated when added or assigned.
        EgressThrottle::new(self.config_for(connection)?, now).ok()
    }
}
