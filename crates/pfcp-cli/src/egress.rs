//! Egress throttling (the signalling router's Per Connection Egress Message Throttling,
//! `docs/throttle.md`) as both tools configure and report it: the named configuration sets
//! of a TOML file and their assignment per peer (`pfcp cp --egress-config` per UP function,
//! `pfcp up --report-egress-config` per CP function), the threshold pairs of the
//! `--*egress-levels` flags, the summary row of one connection and the reasons a request was
//! refused locally.
//!
//! `pfcp cp`'s route groups and the plan of its run are in `cp/egress.rs`; `pfcp up`'s
//! reporting in `up/reports.rs`. Both use this module, neither the other.

use std::collections::BTreeMap;

use pfcp_node::ResponseOrigin;
use pfcp_overload::NodeKey;
use pfcp_throttle::egress::{EgressConfig, EgressConfigSets, SetId, ThresholdPair};
use pfcp_throttle::EgressThrottle;
use serde::{Deserialize, Serialize};

/// One configuration set of the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetSpec {
    /// Max EMR (messages per second).
    pub max_rate: u32,
    /// Throttle/abatement pairs, `TT/AT,...` in percent of the Max EMR.
    #[serde(default)]
    pub levels: Option<String>,
    /// The levels alone shed: no hard cap at the Max EMR.
    #[serde(default)]
    pub level_only: bool,
    /// The cap's burst (messages).
    #[serde(default)]
    pub burst: Option<u32>,
    /// Most requests outstanding on the connection.
    #[serde(default)]
    pub max_pending: Option<u32>,
}

impl SetSpec {
    /// The set the `--*egress-max-rate`, `--*egress-levels` and `--*egress-level-only` flags
    /// describe.
    pub(crate) fn of_flags(max_rate: u32, levels: &str, level_only: bool) -> SetSpec {
        SetSpec {
            max_rate,
            levels: Some(levels.to_owned()),
            level_only,
            burst: None,
            max_pending: None,
        }
    }
}

/// `TT/AT,...` as up to three threshold pairs.
pub fn parse_levels(spec: &str) -> Result<[Option<ThresholdPair>; 3], String> {
    let mut pairs = [None; 3];
    let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{spec:?}: give 1 to 3 pairs TT/AT"));
    }
    for (slot, part) in pairs.iter_mut().zip(&parts) {
        let (tt, at) = part
            .split_once('/')
            .ok_or_else(|| format!("{part:?}: a pair is TT/AT, in percent"))?;
        let p = |v: &str| {
            v.trim()
                .parse::<u8>()
                .map_err(|_| format!("{v:?}: a percentage 0..=255"))
        };
        *slot = Some(ThresholdPair::new(p(tt)?, p(at)?));
    }
    Ok(pairs)
}

/// The validated configuration of set `name`.
pub(crate) fn config_of(name: &str, s: &SetSpec) -> Result<EgressConfig, String> {
    let mut c = EgressConfig::new(s.max_rate);
    if let Some(l) = &s.levels {
        c.thresholds = parse_levels(l).map_err(|e| format!("set {name}: {e}"))?;
    }
    c.hard_cap = !s.level_only;
    if let Some(b) = s.burst {
        c.burst = b;
    }
    c.max_pending = s.max_pending;
    c.validate().map_err(|e| format!("set {name}: {e}"))?;
    Ok(c)
}

/// Assign set `id` to `node`, with its own Max EMR `max_rate`, or `capacity` divided by
/// `connections` (default 1), or the set's.
pub(crate) fn assign(
    sets: &mut EgressConfigSets<NodeKey>,
    node: NodeKey,
    id: SetId,
    max_rate: Option<u32>,
    capacity: Option<u32>,
    connections: Option<u32>,
) -> Result<(), String> {
    let rate = match (max_rate, capacity) {
        (Some(r), _) => Some(r),
        (None, Some(cap)) => Some(
            EgressConfig::max_rate_per_connection(cap, connections.unwrap_or(1))
                .ok_or("capacity / connections is 0")?,
        ),
        (None, None) => None,
    };
    match rate {
        Some(r) => sets.assign_with_max_rate(node, id, r),
        None => sets.assign(node, id),
    }
    .map_err(|e| e.to_string())
}

/// Add the file's named `sets` and its `default` to a new [`EgressConfigSets`].
pub(crate) fn named_sets(
    specs: &BTreeMap<String, SetSpec>,
    default: Option<&str>,
) -> Result<EgressConfigSets<NodeKey>, String> {
    let mut sets = EgressConfigSets::new();
    for (name, spec) in specs {
        sets.add(name.clone(), config_of(name, spec)?)
            .map_err(|e| e.to_string())?;
    }
    if let Some(name) = default {
        let id = sets
            .find(name)
            .ok_or_else(|| format!("default: no set {name:?}"))?;
        sets.set_default(Some(id));
    }
    Ok(sets)
}

/// The egress connection to one UP function (the signalling router's PCEMT): its level over
/// time and what it carried and shed.
#[derive(Debug, Clone, Serialize)]
pub struct EgressSummary {
    /// The UP function's Node ID.
    pub node_id: String,
    /// Its Max EMR (messages per second).
    pub max_rate: u32,
    /// Whether the cap at the Max EMR is on (off: level-only mode).
    pub hard_cap: bool,
    /// Its level, sampled each second of the run.
    pub levels: Vec<u8>,
    /// Seconds spent at level 0, 1, 2, 3 (of the samples).
    pub seconds_at_level: [u64; 4],
    /// Every message counted in its rate: requests offered, answers, retransmissions,
    /// Heartbeat and Association messages.
    pub counted: u64,
    /// Requests sent (first transmissions).
    pub sent_requests: u64,
    /// Answers sent (never throttled).
    pub sent_answers: u64,
    /// Retransmissions sent.
    pub sent_retransmissions: u64,
    /// Heartbeat and Association messages sent.
    pub sent_management: u64,
    /// Requests shed by the level / by the cap / by the pending limit.
    pub throttled_level: u64,
    /// Requests shed by the cap.
    pub throttled_rate: u64,
    /// Requests shed by the pending limit.
    pub throttled_pending: u64,
    /// Route-candidate checks refused (not counted as offered load).
    pub checks_refused: u64,
}

impl EgressSummary {
    /// The row of connection `name`'s throttle `e`, with its `levels` sampled each second.
    pub(crate) fn of(name: String, e: &EgressThrottle, levels: &[u8]) -> Self {
        let s = e.stats();
        let mut at = [0u64; 4];
        for l in levels {
            if let Some(n) = at.get_mut(usize::from(*l)) {
                *n += 1;
            }
        }
        EgressSummary {
            node_id: name,
            max_rate: e.config().max_rate,
            hard_cap: e.config().hard_cap,
            levels: levels.to_vec(),
            seconds_at_level: at,
            counted: s.counted(),
            sent_requests: s.sent_requests,
            sent_answers: s.sent_answers,
            sent_retransmissions: s.sent_retransmissions,
            sent_management: s.sent_management,
            throttled_level: s.throttled_level,
            throttled_rate: s.throttled_rate,
            throttled_pending: s.throttled_pending,
            checks_refused: s.checks_refused,
        }
    }

    /// The text line of this connection, `to` naming the peer.
    pub(crate) fn render(&self, to: &str) -> String {
        let levels: String = self
            .levels
            .iter()
            .map(|l| char::from(b'0' + l.min(&9)))
            .collect();
        format!(
            "egress to {to} (Max EMR {}/s{}): level over time [{}], seconds at level 0-3 {:?}; \
             counted {} (requests {}, answers {}, retransmissions {}, management {}); shed by \
             level {}, by the cap {}, pending {}; route checks refused {}",
            self.max_rate,
            if self.hard_cap { "" } else { ", level-only" },
            levels,
            self.seconds_at_level,
            self.counted,
            self.sent_requests,
            self.sent_answers,
            self.sent_retransmissions,
            self.sent_management,
            self.throttled_level,
            self.throttled_rate,
            self.throttled_pending,
            self.checks_refused
        )
    }
}

/// The label of a local refusal: `loss`, `egress level X` (the router's level that shed
/// it), `egress rate` (the cap at the Max EMR), `egress pending`, or another reason.
pub(crate) fn shed_reason(origin: &ResponseOrigin) -> String {
    use pfcp_node::RejectReason;
    use pfcp_throttle::ThrottleReason;
    let egress = |r: &ThrottleReason| match r {
        ThrottleReason::Level(x) => format!("egress level {x}"),
        ThrottleReason::RateLimit => "egress rate".into(),
        ThrottleReason::PendingLimit => "egress pending".into(),
    };
    match origin {
        ResponseOrigin::Throttled(RejectReason::Loss(_)) => "loss".into(),
        ResponseOrigin::Throttled(RejectReason::Egress(r) | RejectReason::ReportEgress(r)) => {
            egress(r)
        }
        ResponseOrigin::Throttled(RejectReason::NoAlternateAddress) => {
            "no alternate address".into()
        }
        _ => "other".into(),
    }
}

/// `reason: n, ...`.
pub(crate) fn by_reason(m: &BTreeMap<String, u64>) -> String {
    m.iter()
        .map(|(k, n)| format!("{k}: {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_as_pairs_and_reject_the_rest() {
        let p = parse_levels("60/55, 80/75,100/90").unwrap();
        assert_eq!(p[1], Some(ThresholdPair::new(80, 75)));
        assert!(parse_levels("60").is_err());
        assert!(parse_levels("1/1,2/2,3/3,4/4").is_err());
    }
}
