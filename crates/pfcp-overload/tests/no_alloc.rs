//! The per-request and per-message paths allocate nothing once the state exists:
//!
//! * CP: `OverloadTable::reduction` (asked for every request sent to a UP; FQDN Node IDs
//!   included), `get`, `poll_timeout`, `LoadTable::load`, `UpSelector::select`;
//! * UP: `OverloadReporter::oci_for` (asked for every eligible message), `current_oci`,
//!   `handle_measurement` and the validity refresh in steady state, `LoadReporter::lci_for`.
//!
//! The counting global allocator is `allocation-counter`'s (it counts per thread, so the test
//! harness's own threads never pollute the count); this test binary is the only one of the
//! crate that links it. State and keys are built first, then only the calls are measured.

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use allocation_counter::measure;
use pfcp_overload::{
    Candidate, LoadReporter, LoadReporterConfig, LoadTable, Measurement, NodeKey, OciOrigin,
    OverloadReporter, OverloadTable, ReporterConfig, Scope, UpSelector,
};
use pfcp_test_support::clock::origin as base_instant;
use pfcp_test_support::ies::oci_secs;
use pfcp_wire::ie::{ControlSequenceNumber, LoadControlInformation, Metric};
use pfcp_wire::{Cause, MessageType};

fn peer(i: usize) -> (NodeKey, IpAddr) {
    (
        NodeKey::fqdn(&format!("upf{i}.n4.region1.operator.example.net")),
        IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i as u32)),
    )
}

#[test]
fn cp_lookups_allocate_nothing() {
    let now = base_instant();
    let mut t = OverloadTable::default();
    for i in 0..100 {
        let (node, ip) = peer(i);
        let origin = OciOrigin::new(node, Some(ip));
        t.handle_oci(&origin, &oci_secs(1, 20, 60, false), now);
        t.handle_oci(&origin, &oci_secs(1, 30 + (i % 50) as u8, 60, true), now);
    }
    let mut loads = LoadTable::default();
    let candidates: Vec<Candidate> = (0..10)
        .map(|i| {
            let node = peer(i).0;
            loads.handle_lci(
                &node,
                &LoadControlInformation {
                    sequence_number: ControlSequenceNumber(1),
                    metric: Metric::from_raw(10 * i as u8),
                },
                now,
            );
            Candidate { node, weight: 1 }
        })
        .collect();
    let (node, ip) = peer(42);
    let (stranger, stranger_ip) = peer(1000);
    let entity_scope = Scope::Entity(ip);
    let node_scope = Scope::Node(node.clone());
    let selector = UpSelector::default();
    let later = now + Duration::from_secs(61);

    let mut sum = 0u64;
    let info = measure(|| {
        for draw in 0..100u64 {
            sum += u64::from(t.reduction(black_box(Some(ip)), black_box(&node), now));
            sum += u64::from(t.reduction(black_box(None), black_box(&node), now));
            sum += u64::from(t.reduction(black_box(Some(stranger_ip)), &stranger, now));
            sum += u64::from(t.reduction(Some(ip), &node, later));
            sum += u64::from(t.get(black_box(&entity_scope)).is_some());
            sum += u64::from(t.get(black_box(&node_scope)).is_some());
            sum += u64::from(t.poll_timeout().is_some());
            sum += u64::from(loads.load(black_box(&node), now).unwrap_or(0));
            let pick = selector.select(&candidates, &loads, &t, now, black_box(draw));
            sum += pick.map_or(0, |i| i as u64);
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
    // The calls did real work: reductions 72 (node 42) and loads were found.
    assert_eq!(t.reduction(Some(ip), &node, now), 72);
    assert!(sum > 0);
}

#[test]
fn up_steady_state_allocates_nothing() {
    let mut now = base_instant();
    let cfg = ReporterConfig::feed_forward().with_capacity(Some(100.0));
    let mut r: OverloadReporter<NodeKey> = OverloadReporter::new(cfg);
    let peers: Vec<NodeKey> = (0..100).map(|i| peer(i).0).collect();
    for p in &peers {
        r.set_peer_ovrl(p.clone(), true);
    }
    let demand = Measurement {
        arrived: 200,
        served: 100,
        backlog: 0,
    };
    // Demand 2x capacity, and the CPs shed what they are told: half of it arrives.
    let shed = Measurement {
        arrived: 100,
        served: 100,
        backlog: 0,
    };
    assert_eq!(r.handle_measurement(&demand, now), Some(50));
    for _ in 0..5 {
        r.handle_measurement(&shed, now);
    }
    let modify = MessageType::SESSION_MODIFICATION_RESPONSE;
    let establish = MessageType::SESSION_ESTABLISHMENT_RESPONSE;
    let rejected = Some(Cause::PFCP_ENTITY_IN_CONGESTION);
    let mut lr: LoadReporter<NodeKey> = LoadReporter::new(LoadReporterConfig::default());
    for p in &peers {
        lr.set_peer_load(p.clone(), true);
    }
    lr.handle_utilisation(0.4);
    let refresh = r.config().validity - r.config().refresh_before;

    let mut sent = 0u32;
    let info = measure(|| {
        for round in 0..10 {
            for p in &peers {
                sent += u32::from(r.oci_for(p, modify, None, now).is_some());
                sent += u32::from(r.oci_for(p, establish, rejected, now).is_some());
                sent += u32::from(lr.lci_for(p, modify).is_some());
            }
            black_box(r.current_oci(round % 2 == 0));
            black_box(r.handle_measurement(black_box(&shed), now));
            black_box(lr.handle_utilisation(black_box(0.41)));
            // A refresh is due: same metric, new number, so every peer is told again.
            now += refresh;
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
    assert_eq!(r.metric(), 50);
    // Each round, each peer got the entity- and the node-scoped OCI; the LCI once in all.
    assert_eq!(sent, 10 * 2 * 100 + 100);
}
