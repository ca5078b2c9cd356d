//! The node configurations of a strategy, shared by the virtual-time engine and the real-time
//! one (`pfcp sim` on loopback sockets), so that both run the same functions.

use std::time::Duration;

use pfcp_node::admission::WhenFull;
use pfcp_node::cp::{CpConfig, Destination, LossMode};
use pfcp_node::{AdmissionConfig, LocalNode, NodeConfig, PriorityPolicy, TransactionConfig};
use pfcp_overload::{ControlLaw, NodeKey, UpSelector};
use pfcp_throttle::routing::{RouteGroup, RouteList};
use pfcp_wire::ie::{CpFunctionFeatures, RecoveryTimeStamp};
use pfcp_wire::Encode;

use crate::scenario::{CpProfile, Scenario, Strategy};

/// The Node ID of UP function `i`.
pub fn up_node_id(i: usize) -> NodeKey {
    NodeKey::fqdn(&format!("upf{}.sim.example", i + 1))
}

/// The Node ID of CP function `i`.
pub fn cp_node_id(i: usize) -> NodeKey {
    NodeKey::fqdn(&format!("smf{}.sim.example", i + 1))
}

/// The transactions of every node: the scenario's T1 and N1.
pub fn transactions(scenario: &Scenario) -> TransactionConfig {
    TransactionConfig::default()
        .with_t1(Duration::from_millis(scenario.t1_ms))
        .with_n1(scenario.n1)
}

/// UP function `i` under `strategy`, with Recovery Time Stamp `rts`: admission at its capacity,
/// the strategy's refusal (a drop for no control, Cause 74 otherwise), its reporter law, its
/// profile ([`UpSpec::profile`](crate::scenario::UpSpec::profile), under this toolkit's
/// strategy), and whether it trusts the message priority (not without control: a plain
/// FIFO). `None` for no such UP function or a profile that does not parse.
///
/// # Examples
///
/// ```
/// use std::time::Instant;
/// use pfcp_node::Node;
/// use pfcp_sim::config::{cp_config, up_config, up_node_id};
/// use pfcp_sim::{Scenario, Strategy};
/// use pfcp_wire::ie::RecoveryTimeStamp;
///
/// let scenario = Scenario::default();
/// let rts = RecoveryTimeStamp(0xe8f4_a2b0);
/// let up = up_config(&scenario, 0, Strategy::Toolkit, rts).ok_or("the scenario has a UP 0")?;
/// assert_eq!(up.local.node_id, up_node_id(0));
/// assert!(up_config(&scenario, scenario.ups.len(), Strategy::Toolkit, rts).is_none());
/// // Both build nodes.
/// Node::new(up, Instant::now())?;
/// Node::new(cp_config(&scenario, 0, Strategy::Toolkit, rts), Instant::now())?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn up_config(
    scenario: &Scenario,
    i: usize,
    strategy: Strategy,
    rts: RecoveryTimeStamp,
) -> Option<NodeConfig> {
    let spec = scenario.ups.get(i)?;
    let key = up_node_id(i);
    let law = match strategy {
        Strategy::RandomLoss => ControlLaw::Utilisation,
        _ => ControlLaw::default(),
    };
    let mut reporter = AdmissionConfig::default_reporter()
        .with_interval(Duration::from_millis(scenario.interval_ms))
        .with_law(law);
    if let Some(validity) = spec.oci_validity().ok()? {
        reporter = reporter.with_validity(validity);
    }
    let when_full = match strategy {
        Strategy::NoControl => WhenFull::Drop,
        _ => WhenFull::Reject,
    };
    // No control is a plain FIFO: nothing leaves it but by service or a full queue.
    let max_wait = match strategy {
        Strategy::NoControl => None,
        _ => Some(spec.max_wait().ok()?),
    };
    let mut admission = AdmissionConfig::new(key.clone())
        .with_service_rate(Some(spec.capacity))
        .with_queue_capacity(spec.queue)
        .with_rejection_cost(scenario.rejection_cost)
        .with_when_full(when_full)
        .with_max_wait(max_wait)
        .with_reporter(reporter);
    // Its profile under this toolkit's strategy (the others are what they compare against);
    // a clock's numbers start from the Recovery Time Stamp, the NTP seconds of its start.
    if strategy == Strategy::Toolkit {
        admission = spec
            .profile()
            .ok()?
            .apply(admission, rts.0)
            .with_service_order(spec.service_order().ok()?);
    }
    let priority = PriorityPolicy::default().with_trust_received(strategy != Strategy::NoControl);
    Some(
        NodeConfig::new(LocalNode::up(key, rts))
            .with_transactions(transactions(scenario))
            .with_admission(admission)
            .with_priority_policy(priority)
            .with_seed(scenario.seed ^ ((i as u64) << 8) ^ u64::from(rts.0)),
    )
}

/// CP function `i` under `strategy`, with its profile from the scenario
/// ([`Scenario::cp_profile`]): see [`cp_config_with`].
pub fn cp_config(
    scenario: &Scenario,
    i: usize,
    strategy: Strategy,
    rts: RecoveryTimeStamp,
) -> NodeConfig {
    cp_config_with(scenario, i, strategy, rts, scenario.cp_profile(i))
}

/// CP function `i` under `strategy` with `profile`: overload control for random Loss and this
/// toolkit (none for the other two: their CP functions ignore OCI; none for a CP function of
/// [`CpProfile::NoOverloadControl`] under any strategy, which also advertises no OVRL or LOAD
/// feature), and the route list of every UP function when the scenario redirects.
pub fn cp_config_with(
    scenario: &Scenario,
    i: usize,
    strategy: Strategy,
    rts: RecoveryTimeStamp,
    profile: CpProfile,
) -> NodeConfig {
    let mut local = LocalNode::cp(cp_node_id(i), rts);
    if !profile.supports_overload_control() {
        // It advertises neither OVRL nor LOAD (clauses 6.2.3.2, 6.2.4.2): the UP functions
        // know it takes no OCI.
        local.cp_features = CpFunctionFeatures::empty();
    }
    let mut config = NodeConfig::new(local)
        .with_transactions(transactions(scenario))
        .with_seed(scenario.seed ^ 0xCCCC_0000 ^ i as u64);
    // The CPs weigh the UP functions by their capacities (the engine's candidates), so the
    // LCI only corrects the split (`UpSelector::spare_offset`).
    let selecting = CpConfig::default().with_selector(UpSelector::default().with_spare_offset(25));
    let cp = match strategy {
        _ if !profile.supports_overload_control() => None,
        Strategy::NoControl | Strategy::SelfProtection => None,
        // Annex A.1 as written: random drops, no probes, no priority requests sent ahead or
        // held (the toolkit's own additions).
        Strategy::RandomLoss => Some(
            selecting
                .with_loss_mode(LossMode::Random)
                .with_probe_gap_factor(None)
                .with_probe_fall_factor(None)
                .with_exempt_hold(None)
                .with_exempt_ahead_max(0),
        ),
        Strategy::Toolkit => Some(selecting),
    };
    if let Some(cp) = cp {
        config = config.with_cp(cp);
        if scenario.redirect && scenario.ups.len() > 1 {
            let groups = (0..scenario.ups.len())
                .map(|u| RouteGroup::new().with_peer(Destination::node(up_node_id(u)), 1))
                .collect();
            let attempts = u32::try_from(scenario.ups.len()).unwrap_or(u32::MAX);
            if let Ok(routes) = RouteList::new(groups, attempts) {
                config = config.with_routes(routes);
            }
        }
    }
    config
}

/// The static weight a CP function gives UP function `i` for UP selection: its capacity, as an
/// operator configures it (Annex B combines it with the LCI).
pub fn up_weight(scenario: &Scenario, i: usize) -> u32 {
    scenario.ups.get(i).map_or(1, |u| {
        u.capacity.round().clamp(1.0, f64::from(u32::MAX)) as u32
    })
}

/// The encoded Node ID IE of `key` (empty if it is an FQDN that cannot be encoded).
pub fn node_id_ie(key: &NodeKey) -> Vec<u8> {
    let mut out = Vec::with_capacity(32);
    if key.encode(&mut out).is_err() {
        out.clear();
    }
    out
}
