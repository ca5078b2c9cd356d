//! Load Control Information at the sending end (UP function; TS 29.244 clause 6.2.3.2).
//!
//! The Load Metric comes from the UP's utilisation (0.0..=1.0 of its signalling capacity, or
//! any vendor measure mapped there) with hysteresis: a new value is published only when it
//! differs from the published one by at least [`LoadReporterConfig::step`] points, so small
//! fluctuations never reach the CPs (clause 6.2.3.3.2 asks senders to avoid them). The Load
//! Control Sequence Number changes with the content and only then.
//!
//! Where it goes ([`LciPlacement`]): on Table 7.3-1's carriers (Session Establishment,
//! Modification and Deletion Responses, Session Report Requests), or, as some UP functions do
//! although the table does not list them, only in Heartbeat Requests and Responses.

use std::collections::HashMap;
use std::hash::Hash;

use pfcp_wire::ie::{ControlSequenceNumber, LoadControlInformation, Metric};
use pfcp_wire::MessageType;

/// Which messages carry the LCI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum LciPlacement {
    /// Session Establishment, Modification and Deletion Responses and Session Report Requests
    /// (Table 7.3-1). The default.
    #[default]
    Responses,
    /// Only Heartbeat Requests and Responses: not a carrier of Table 7.3-1, but where some UP
    /// functions put it (the CP side reads it with `LoadConfig::heartbeat_lci`). The load then
    /// reaches a CP function at the heartbeat's pace.
    Heartbeat,
}

impl LciPlacement {
    /// Whether a message of type `t` carries the LCI under this placement.
    pub fn carries(self, t: MessageType) -> bool {
        match self {
            LciPlacement::Responses => t.may_carry_oci(),
            LciPlacement::Heartbeat => {
                t == MessageType::HEARTBEAT_REQUEST || t == MessageType::HEARTBEAT_RESPONSE
            }
        }
    }
}

/// Configuration of a [`LoadReporter`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadReporterConfig {
    /// Smallest change published, in points. Default 5.
    pub step: u8,
    /// First sequence number. Default 1.
    pub first_sequence: u32,
    /// Most peers tracked. Default 65536.
    pub max_peers: usize,
    /// Which messages carry the LCI. Default [`LciPlacement::Responses`].
    pub placement: LciPlacement,
}

impl Default for LoadReporterConfig {
    fn default() -> Self {
        LoadReporterConfig {
            step: 5,
            first_sequence: 1,
            max_peers: 65_536,
            placement: LciPlacement::Responses,
        }
    }
}

impl LoadReporterConfig {
    /// With `step` set (see the field).
    #[must_use]
    pub fn with_step(mut self, step: u8) -> Self {
        self.step = step;
        self
    }
    /// With `first_sequence` set (see the field).
    #[must_use]
    pub fn with_first_sequence(mut self, first_sequence: u32) -> Self {
        self.first_sequence = first_sequence;
        self
    }
    /// With `max_peers` set (see the field).
    #[must_use]
    pub fn with_max_peers(mut self, max_peers: usize) -> Self {
        self.max_peers = max_peers;
        self
    }
    /// With `placement` set (see the field).
    #[must_use]
    pub fn with_placement(mut self, placement: LciPlacement) -> Self {
        self.placement = placement;
        self
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct LoadPeer {
    load_supported: bool,
    told: Option<u32>,
}

/// The UP side of load control.
///
/// # Examples
///
/// ```
/// use pfcp_overload::{LoadReporter, LoadReporterConfig};
/// use pfcp_wire::MessageType;
///
/// let mut up: LoadReporter<&str> = LoadReporter::new(LoadReporterConfig::default());
/// up.set_peer_load("smf1", true); // LOAD in its CP Function Features (clause 6.2.3.2)
/// assert_eq!(up.handle_utilisation(0.62), Some(62));
///
/// let lci = up.lci_for(&"smf1", MessageType::SESSION_ESTABLISHMENT_RESPONSE)
///     .ok_or("the first carrier after a change has the LCI")?;
/// assert_eq!(lci.metric.percent(), 62);
/// // The peer has the current number: no LCI until the load changes by a step (5 points).
/// assert!(up.lci_for(&"smf1", MessageType::SESSION_MODIFICATION_RESPONSE).is_none());
/// assert_eq!(up.handle_utilisation(0.64), None);
/// assert_eq!(up.handle_utilisation(0.70), Some(70));
/// let next = up.lci_for(&"smf1", MessageType::SESSION_DELETION_RESPONSE).ok_or("changed")?;
/// assert!(next.sequence_number.0 > lci.sequence_number.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct LoadReporter<P> {
    config: LoadReporterConfig,
    published: Option<u8>,
    seq: u32,
    peers: HashMap<P, LoadPeer>,
}

impl<P: Hash + Eq + Clone> LoadReporter<P> {
    /// A reporter that has published nothing yet.
    pub fn new(config: LoadReporterConfig) -> Self {
        LoadReporter {
            seq: config.first_sequence,
            config,
            published: None,
            peers: HashMap::new(),
        }
    }

    /// Record whether a peer advertised LOAD in CP Function Features (clause 6.2.3.2).
    pub fn set_peer_load(&mut self, peer: P, load: bool) {
        if let Some(p) = self.peers.get_mut(&peer) {
            p.load_supported = load;
        } else if self.peers.len() < self.config.max_peers {
            self.peers.insert(
                peer,
                LoadPeer {
                    load_supported: load,
                    told: None,
                },
            );
        }
    }

    /// Forget a peer.
    pub fn remove_peer(&mut self, peer: &P) {
        self.peers.remove(peer);
    }

    /// Feed the current utilisation (clamped to 0..=1); returns the newly published load if
    /// it changed.
    pub fn handle_utilisation(&mut self, utilisation: f64) -> Option<u8> {
        let load = (utilisation.clamp(0.0, 1.0) * 100.0).round() as u8;
        let publish = match self.published {
            None => true,
            Some(p) => p.abs_diff(load) >= self.config.step.max(1) || (load == 0 && p != 0),
        };
        if !publish {
            return None;
        }
        if self.published.is_some() {
            self.seq = self.seq.wrapping_add(1);
        }
        self.published = Some(load);
        Some(load)
    }

    /// The published load, if any.
    pub fn load(&self) -> Option<u8> {
        self.published
    }

    /// The LCI to piggyback on the next message of `message_type` to `peer`: only to peers
    /// with LOAD, only on the messages of [`LoadReporterConfig::placement`], until the peer
    /// has the current number.
    pub fn lci_for(
        &mut self,
        peer: &P,
        message_type: MessageType,
    ) -> Option<LoadControlInformation> {
        if !self.config.placement.carries(message_type) {
            return None;
        }
        let load = self.published?;
        let seq = self.seq;
        let p = self.peers.get_mut(peer)?;
        if !p.load_supported || p.told == Some(seq) {
            return None;
        }
        p.told = Some(seq);
        Some(LoadControlInformation {
            sequence_number: ControlSequenceNumber(seq),
            metric: Metric::new(load.min(100)).unwrap_or(Metric::FULL),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hysteresis_and_sequence() {
        let mut r = LoadReporter::new(LoadReporterConfig::default());
        r.set_peer_load("cp1", true);
        r.set_peer_load("cp2", false);
        assert_eq!(r.handle_utilisation(0.42), Some(42));
        let first = r
            .lci_for(&"cp1", MessageType::SESSION_MODIFICATION_RESPONSE)
            .unwrap();
        assert_eq!(first.metric.percent(), 42);
        // Already has it; other peer lacks LOAD; heartbeat cannot carry it.
        assert!(r
            .lci_for(&"cp1", MessageType::SESSION_DELETION_RESPONSE)
            .is_none());
        assert!(r
            .lci_for(&"cp2", MessageType::SESSION_DELETION_RESPONSE)
            .is_none());
        // Changes under the step are not published.
        assert_eq!(r.handle_utilisation(0.45), None);
        assert_eq!(r.handle_utilisation(0.39), None);
        assert_eq!(r.handle_utilisation(0.50), Some(50));
        let second = r
            .lci_for(&"cp1", MessageType::SESSION_REPORT_REQUEST)
            .unwrap();
        assert_eq!(second.sequence_number.0, first.sequence_number.0 + 1);
        assert!(r.lci_for(&"cp1", MessageType::HEARTBEAT_RESPONSE).is_none());
    }

    /// Placed in Heartbeat messages only: the session messages carry none.
    #[test]
    fn an_lci_placed_in_heartbeats_goes_only_there() {
        let mut r = LoadReporter::new(
            LoadReporterConfig::default().with_placement(LciPlacement::Heartbeat),
        );
        r.set_peer_load("cp1", true);
        r.set_peer_load("cp2", true);
        assert_eq!(r.handle_utilisation(0.42), Some(42));
        assert!(r
            .lci_for(&"cp1", MessageType::SESSION_MODIFICATION_RESPONSE)
            .is_none());
        let lci = r.lci_for(&"cp1", MessageType::HEARTBEAT_REQUEST).unwrap();
        assert_eq!(lci.metric.percent(), 42);
        assert!(r.lci_for(&"cp1", MessageType::HEARTBEAT_RESPONSE).is_none());
        assert!(r.lci_for(&"cp2", MessageType::HEARTBEAT_RESPONSE).is_some());
    }
}
