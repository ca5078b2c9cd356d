//! Per-call cost of the hot paths of both ends, with 1 and 1000 peers:
//!
//! * CP: `OverloadTable::handle_oci` (a new sequence number every call, and a duplicate), for
//!   an entity scope (IP key) and a node scope (FQDN key); `reduction` for a peer with state
//!   (entity and node entries) and for a peer without any (the common case: no overload).
//! * UP: `OverloadReporter::oci_for` for a peer that already has the current OCI (returns
//!   `None`), and after a refresh gave a new sequence number (the refresh is included);
//!   `handle_measurement` in steady overload (no change to publish).
//! * A reference point measured in the same run: `HashMap<IpAddr, u8>::get`.
//!
//! Run: `cargo bench -p pfcp-overload --bench overload -- --warm-up-time 1 --measurement-time 3`

use std::collections::HashMap;
use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pfcp_overload::{
    Measurement, NodeKey, OciOrigin, OverloadReporter, OverloadTable, ReporterConfig,
};
use pfcp_test_support::clock::origin as base_instant;
use pfcp_test_support::ies::oci_secs;
use pfcp_wire::MessageType;

const SIZES: [usize; 2] = [1, 1000];

/// Node ID (a realistic FQDN) and PFCP entity address of peer `i`.
fn peer(i: usize) -> (NodeKey, IpAddr) {
    (
        NodeKey::fqdn(&format!("upf{i}.n4.region1.operator.example.net")),
        IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i as u32)),
    )
}

/// A CP table holding `n` peers, each with an entity-scoped and a node-scoped OCI.
fn table_with(n: usize, now: Instant) -> OverloadTable {
    let mut t = OverloadTable::default();
    for i in 0..n {
        let (node, ip) = peer(i);
        let origin = OciOrigin::new(node, Some(ip));
        t.handle_oci(&origin, &oci_secs(1, 20, 60, false), now);
        t.handle_oci(&origin, &oci_secs(1, 30, 120, true), now);
    }
    assert_eq!(t.len(), 2 * n);
    t
}

fn bench_handle_oci(c: &mut Criterion) {
    let now = base_instant();
    let mut g = c.benchmark_group("handle_oci");
    for n in SIZES {
        // The peer under test is one of the n (the last one added).
        let (node, ip) = peer(n - 1);
        let origin = OciOrigin::new(node, Some(ip));
        for (scope, aoci) in [("entity", false), ("node_fqdn", true)] {
            let mut t = table_with(n, now);
            let mut seq = 1u32;
            g.bench_function(BenchmarkId::new(format!("new_seq/{scope}"), n), |b| {
                b.iter(|| {
                    seq = seq.wrapping_add(1);
                    black_box(t.handle_oci(&origin, &oci_secs(seq, 40, 60, aoci), now))
                });
            });
            let mut t = table_with(n, now);
            let dup = oci_secs(1, 40, 60, aoci);
            g.bench_function(BenchmarkId::new(format!("duplicate/{scope}"), n), |b| {
                b.iter(|| black_box(t.handle_oci(&origin, black_box(&dup), now)));
            });
        }
    }
    g.finish();
}

fn bench_reduction(c: &mut Criterion) {
    let now = base_instant();
    let mut g = c.benchmark_group("reduction");
    for n in SIZES {
        let t = table_with(n, now);
        let (node, ip) = peer(n - 1);
        g.bench_function(BenchmarkId::new("hit", n), |b| {
            b.iter(|| black_box(t.reduction(black_box(Some(ip)), black_box(&node), now)));
        });
        let (node, ip) = peer(n + 7);
        g.bench_function(BenchmarkId::new("miss", n), |b| {
            b.iter(|| black_box(t.reduction(black_box(Some(ip)), black_box(&node), now)));
        });
        // Reference point: one std HashMap lookup by IP address.
        let map: HashMap<IpAddr, u8> = (0..n).map(|i| (peer(i).1, 20)).collect();
        let ip = peer(n - 1).1;
        g.bench_function(
            BenchmarkId::new("reference_hashmap_ipaddr_u8_get", n),
            |b| {
                b.iter(|| black_box(map.get(black_box(&ip)).copied()));
            },
        );
    }
    g.finish();
}

fn overloaded() -> Measurement {
    Measurement {
        arrived: 200,
        served: 100,
        backlog: 0,
    }
}

/// A UP reporter (capacity 100/interval) with `n` OVRL peers, publishing 50 %.
fn reporter_with(n: usize, now: Instant) -> OverloadReporter<NodeKey> {
    let cfg = ReporterConfig::default().with_capacity(Some(100.0));
    let mut r = OverloadReporter::new(cfg);
    for i in 0..n {
        r.set_peer_ovrl(peer(i).0, true);
    }
    assert_eq!(r.handle_measurement(&overloaded(), now), Some(50));
    r
}

fn bench_reporter(c: &mut Criterion) {
    let base = base_instant();
    let msg = MessageType::SESSION_MODIFICATION_RESPONSE;
    let mut g = c.benchmark_group("reporter");
    for n in SIZES {
        let cp = peer(n - 1).0;

        let mut r = reporter_with(n, base);
        assert!(r.oci_for(&cp, msg, None, base).is_some());
        g.bench_function(BenchmarkId::new("oci_for/current", n), |b| {
            b.iter(|| black_box(r.oci_for(black_box(&cp), msg, None, base)));
        });

        // A refresh due (same metric, new sequence number) every call: the OCI for the peer.
        let mut r = reporter_with(n, base);
        let mut now = base;
        let period = r.config().validity - r.config().refresh_before;
        let mut refresh_and_tell = move || {
            now += period;
            r.oci_for(black_box(&cp), msg, None, now)
        };
        assert!(
            refresh_and_tell().is_some(),
            "each refresh is news to the peer"
        );
        g.bench_function(BenchmarkId::new("refresh+oci_for/new_seq", n), |b| {
            b.iter(|| black_box(refresh_and_tell()));
        });

        // Steady state: demand stays 2x capacity and the CPs shed the published 50 %, so
        // half of it arrives; the reporter recomputes 50 % and has nothing to publish.
        let mut r = reporter_with(n, base);
        let m = Measurement {
            arrived: 100,
            served: 100,
            backlog: 0,
        };
        g.bench_function(BenchmarkId::new("handle_measurement/steady", n), |b| {
            b.iter(|| black_box(r.handle_measurement(black_box(&m), base)));
        });
        assert_eq!(r.metric(), 50);
    }
    g.finish();
}

criterion_group!(benches, bench_handle_oci, bench_reduction, bench_reporter);
criterion_main!(benches);
