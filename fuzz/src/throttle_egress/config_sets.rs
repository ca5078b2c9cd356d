//! Configuration sets and the per-connection Max EMR, built and queried against a model (their
//! input types with them), and the router priority mapping against the documented table.

use std::collections::HashMap;
use std::time::Instant;

use arbitrary::Arbitrary;
use pfcp_throttle::egress::{EgressConfigSets, EgressSetError, MAX_WINDOW_TICKS};
use pfcp_throttle::{
    Decision, EgressConfig, EgressConfigError, RequestClass, RouterPriority, UNPRIORITISED,
};
use pfcp_wire::MessagePriority;

use crate::throttle::{prio, ShapedEgressSpec};

/// Configuration sets, built and queried against a model.
#[derive(Arbitrary, Debug, Clone)]
pub struct SetsSpec {
    /// Sets: a name (mod 4, so some repeat) and a configuration.
    sets: Vec<(u8, ShapedEgressSpec)>,
    /// The default set, by index.
    default: Option<u8>,
    /// Operations, then queries.
    ops: Vec<SetsOp>,
}

/// One operation on configuration sets. Connections are `u8 % 8`, sets an index into those
/// added.
#[derive(Arbitrary, Debug, Clone)]
pub enum SetsOp {
    /// `assign`.
    Assign(u8, u8),
    /// `assign_with_max_rate`.
    AssignRate(u8, u8, u32),
    /// `assign_peer`.
    Peer(Vec<u8>, u8, u32),
    /// `unassign`.
    Unassign(u8),
    /// `config_for` and `throttle_for`, against the model.
    Query(u8),
}

/// Build the sets of `s` and check every operation against a model.
pub(crate) fn sets(s: &SetsSpec, now: Instant) {
    let mut sets: EgressConfigSets<u8> = EgressConfigSets::new();
    let mut ids = Vec::new();
    let mut names: Vec<u8> = Vec::new();
    let mut configs = Vec::new();
    for (name, spec) in s.sets.iter().take(6) {
        let name = name % 4;
        let config = spec.config();
        match sets.add(format!("set-{name}"), config) {
            Ok(id) => {
                assert!(!names.contains(&name), "a duplicate name was added");
                assert_eq!(sets.find(&format!("set-{name}")), Some(id));
                assert_eq!(sets.set(id), Some(&config));
                names.push(name);
                ids.push(id);
                configs.push(config);
            }
            Err(EgressSetError::DuplicateName(n)) => {
                assert!(names.contains(&name), "{n} refused as a duplicate");
            }
            Err(e) => panic!("a valid set refused: {e}"),
        }
    }
    if ids.is_empty() {
        return;
    }
    let pick = |i: u8| usize::from(i) % ids.len();
    let default = s.default.map(pick);
    sets.set_default(default.map(|i| ids[i]));
    // The model: connection -> (set index, own Max EMR).
    let mut model: HashMap<u8, (usize, Option<u32>)> = HashMap::new();
    for op in s.ops.iter().take(32) {
        match op {
            SetsOp::Assign(c, i) => {
                let (c, i) = (c % 8, pick(*i));
                assert!(sets.assign(c, ids[i]).is_ok());
                model.insert(c, (i, None));
            }
            SetsOp::AssignRate(c, i, rate) => {
                let (c, i) = (c % 8, pick(*i));
                let got = sets.assign_with_max_rate(c, ids[i], *rate);
                let want = configs[i].with_max_rate(*rate).validate();
                assert_eq!(got.is_ok(), want.is_ok(), "assign_with_max_rate {rate}");
                if got.is_ok() {
                    model.insert(c, (i, Some(*rate)));
                }
            }
            SetsOp::Peer(conns, i, capacity) => {
                let i = pick(*i);
                let mut distinct: Vec<u8> = Vec::new();
                for c in conns.iter().take(8).map(|c| c % 8) {
                    if !distinct.contains(&c) {
                        distinct.push(c);
                    }
                }
                let n = distinct.len() as u32;
                let want = EgressConfig::max_rate_per_connection(*capacity, n);
                // The documented rule: capacity / connections, none below 1 msg/s.
                assert_eq!(want, capacity.checked_div(n).filter(|r| *r > 0));
                let got = sets.assign_peer(conns.iter().take(8).map(|c| c % 8), ids[i], *capacity);
                match (got, want) {
                    (Ok(rate), Some(w)) => {
                        assert_eq!(rate, w);
                        assert!(u64::from(rate) * u64::from(n) <= u64::from(*capacity));
                        for c in distinct {
                            model.insert(c, (i, Some(rate)));
                        }
                    }
                    (Err(_), None) => {}
                    (got, want) => panic!("assign_peer {got:?}, model {want:?}"),
                }
                let per = configs[i].for_connection_of(*capacity, n);
                assert_eq!(per.map(|c| c.max_rate).ok(), want);
            }
            SetsOp::Unassign(c) => {
                sets.unassign(&(c % 8));
                model.remove(&(c % 8));
            }
            SetsOp::Query(c) => {
                let c = c % 8;
                let want = match model.get(&c) {
                    Some(&(i, rate)) => {
                        Some(rate.map_or(configs[i], |r| configs[i].with_max_rate(r)))
                    }
                    None => default.map(|i| configs[i]),
                };
                assert_eq!(sets.config_for(&c), want, "config of connection {c}");
                let throttle = sets.throttle_for(&c, now);
                assert_eq!(throttle.map(|t| *t.config()), want);
            }
        }
    }
}

/// The router priority mapping of `value`, checked against the documented table.
pub(crate) fn router(value: u8, pfcp: u8) {
    let r = RouterPriority::new(value);
    assert_eq!(r.is_some(), value <= 4);
    let p = prio(pfcp);
    let from = RouterPriority::from_pfcp(p);
    let (high, low) = from.pfcp_band();
    assert!(high <= p && p <= low, "{p:?} outside the band of {from:?}");
    assert_eq!(RouterPriority::from_pfcp(from.to_pfcp()), from);
    // Level x (cut-off of the table) sends router priority x or greater.
    for (x, cut) in (1u8..).zip(RouterPriority::DEFAULT_LEVEL_CUTOFFS) {
        assert_eq!(p <= cut, from.value() >= x, "{p:?} at level {x}");
    }
    if let Some(r) = r {
        assert_eq!(r.value(), value);
        assert_eq!(r.class().exempt, value == 4);
        assert_eq!(r.class().priority, r.to_pfcp());
    }
    assert_eq!(RequestClass::default(), RequestClass::new(UNPRIORITISED));
    assert_eq!(RequestClass::from(p), RequestClass::new(p));
    let _ = Decision::Send;
    let _: MessagePriority = UNPRIORITISED;
    let _ = MAX_WINDOW_TICKS;
    let _ = EgressConfigError::MaxRate;
}
