#![cfg(feature = "tokio")]
//! Overload control end to end on real UDP sockets: an overloaded UP function's OCI throttles
//! a CP function's low-priority traffic while emergency traffic passes; expiry restores full
//! traffic; a throttled establishment is redirected to a second UP function.
#![cfg(feature = "tokio")]

mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use pfcp_node::admission::AdmissionConfig;
use pfcp_node::cp::{CpConfig, Destination};
use pfcp_node::{Endpoint, Error, LocalNode, RequestProfile, TransactionConfig};
use pfcp_overload::{NodeKey, ReporterConfig};
use pfcp_throttle::routing::{RouteGroup, RouteList};
use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::{NodeId, RecoveryTimeStamp};
use pfcp_wire::{Cause, Header, MessageType};

use common::{accepted_by, bind, endpoint_config, establish, serve};

fn xact() -> TransactionConfig {
    TransactionConfig::default()
        .with_t1(Duration::from_millis(500))
        .with_n1(1)
}

/// A UP function serving `rate` establishments per second, with self-protection and
/// node-scoped OCIs (one PFCP entity per node), answering every request it admits.
async fn start_up(name: &str, rate: f64, served: Arc<AtomicU64>) -> Endpoint {
    let node = NodeKey::fqdn(name);
    let reporter = ReporterConfig::default()
        .with_node_scoped(true)
        .with_validity(Duration::from_secs(2))
        .with_refresh_before(Duration::from_millis(500))
        .with_dwell(2);
    let admission = AdmissionConfig::new(node.clone())
        .with_service_rate(Some(rate))
        .with_queue_capacity(64)
        .with_reporter(reporter);
    let cfg = endpoint_config(LocalNode::up(node, RecoveryTimeStamp(0xE8F4_A2B0)))
        .with_transactions(xact())
        .with_admission(admission);
    let (ep, channels) = bind(cfg).await;
    serve(channels, move |msg| {
        let response = accepted_by(msg, NodeId::Ipv4(Ipv4Addr::LOCALHOST), 7);
        served.fetch_add(1, Ordering::Relaxed);
        Some(response)
    });
    ep
}

async fn start_cp(routes: Option<RouteList<Destination>>) -> Endpoint {
    let mut cfg = endpoint_config(cp_node())
        .with_transactions(xact())
        .with_cp(CpConfig::default());
    if let Some(r) = routes {
        cfg = cfg.with_routes(r);
    }
    bind(cfg).await.0
}

fn cp_node() -> LocalNode {
    LocalNode::cp(
        NodeKey::Ip(Ipv4Addr::LOCALHOST.into()),
        RecoveryTimeStamp(1),
    )
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    accepted: u64,
    rejected_by_up: u64,
    throttled: u64,
    timed_out: u64,
}

/// Offer `n` establishment requests at `per_second` with `profile`; tally the outcomes.
async fn offer(
    cp: &Endpoint,
    up: SocketAddr,
    n: u64,
    per_second: u64,
    profile: RequestProfile,
) -> Tally {
    let mut tasks = Vec::new();
    let gap = Duration::from_micros(1_000_000 / per_second.max(1));
    for _ in 0..n {
        let cp = cp.clone();
        let profile = profile.clone();
        tasks.push(tokio::spawn(
            async move { establish(&cp, up, profile).await },
        ));
        tokio::time::sleep(gap).await;
    }
    let mut t = Tally::default();
    for task in tasks {
        match task.await.unwrap() {
            Ok(r) if r.is_local() => t.throttled += 1,
            Ok(r) => match r.cause {
                Some(Cause::REQUEST_ACCEPTED) => t.accepted += 1,
                _ => t.rejected_by_up += 1,
            },
            Err(Error::Timeout { .. }) => t.timed_out += 1,
            Err(e) => panic!("{e}"),
        }
    }
    t
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overloaded_up_throttles_low_priority_and_emergency_passes() {
    let served = Arc::new(AtomicU64::new(0));
    let up = start_up("upf1.example.net", 200.0, served.clone()).await;
    let cp = start_cp(None).await;
    cp.associate(up.local_addr()).await.unwrap();

    // 3x the UP's capacity in low-priority establishments, with emergency ones alongside.
    let low = RequestProfile::default().with_arp(&[12]);
    let emergency = RequestProfile::emergency();
    let (cp2, up_addr) = (cp.clone(), up.local_addr());
    let em = tokio::spawn(async move { offer(&cp2, up_addr, 40, 20, emergency).await });
    let lo = offer(&cp, up.local_addr(), 1200, 600, low).await;
    let em = em.await.unwrap();
    println!(
        "low: {lo:?}\nemergency: {em:?}\nserved by UP: {}",
        served.load(Ordering::Relaxed)
    );
    // The CP sheds a large share of the low-priority traffic locally (the OCI works) ...
    assert!(lo.throttled >= 300, "{lo:?}");
    // ... and every emergency request is sent and accepted.
    assert_eq!(em.throttled, 0, "{em:?}");
    assert_eq!(em.accepted, 40, "{em:?}");

    // When the load stops, the metric returns to 0 and the OCI's validity runs out: full
    // traffic again.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let after = offer(
        &cp,
        up.local_addr(),
        40,
        20,
        RequestProfile::default().with_arp(&[12]),
    )
    .await;
    println!("after: {after:?}");
    assert_eq!(after.throttled, 0, "{after:?}");
    assert_eq!(after.accepted, 40, "{after:?}");
}

/// Two UPs, the first slow; a CP with a route list given at bind time (`late_routes` false)
/// or after the associations through `Endpoint::set_routes`.
async fn redirect_scenario(late_routes: bool) {
    let served1 = Arc::new(AtomicU64::new(0));
    let served2 = Arc::new(AtomicU64::new(0));
    let up1 = start_up("upf1.example.net", 100.0, served1.clone()).await;
    let up2 = start_up("upf2.example.net", 1000.0, served2.clone()).await;
    let routes = RouteList::new(
        vec![
            RouteGroup::new().with_peer(Destination::node(NodeKey::fqdn("upf1.example.net")), 1),
            RouteGroup::new().with_peer(Destination::node(NodeKey::fqdn("upf2.example.net")), 1),
        ],
        2,
    )
    .unwrap();
    let cp = if late_routes {
        start_cp(None).await
    } else {
        start_cp(Some(routes.clone())).await
    };
    cp.associate(up1.local_addr()).await.unwrap();
    cp.associate(up2.local_addr()).await.unwrap();
    if late_routes {
        cp.set_routes(Some(routes)).unwrap();
    }
    let profile = RequestProfile::default()
        .with_arp(&[12])
        .with_redirect(true);
    let t = offer(&cp, up1.local_addr(), 600, 400, profile).await;
    let (s1, s2) = (
        served1.load(Ordering::Relaxed),
        served2.load(Ordering::Relaxed),
    );
    println!("late routes {late_routes}: {t:?}; served by upf1 {s1}, by upf2 {s2}");
    assert!(s2 >= 100, "nothing redirected: upf2 served {s2}");
    assert_eq!(t.throttled, 0, "{t:?}");
    assert!(t.accepted >= 500, "{t:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn throttled_establishments_are_redirected_to_a_second_up() {
    redirect_scenario(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routes_can_be_set_after_the_associations() {
    redirect_scenario(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn up_session_reports_pass_the_egress_throttle_towards_the_cp() {
    // The CP answers every Session Report Request.
    let (cp, cp_channels) = bind(endpoint_config(cp_node()).with_transactions(xact())).await;
    let received = Arc::new(AtomicU64::new(0));
    let counter = received.clone();
    serve(cp_channels, move |msg| {
        let h = Header::new(MessageType::SESSION_REPORT_RESPONSE)
            .with_seid(msg.header().seid.unwrap_or(0))
            .with_sequence(msg.header().sequence);
        let b = MessageBuilder::new(h).ie(Cause::REQUEST_ACCEPTED);
        let mut out = BytesMut::zeroed(b.encoded_len());
        b.encode_into(&mut out).unwrap();
        counter.fetch_add(1, Ordering::Relaxed);
        Some(out.freeze())
    });
    // A UP whose reports towards each CP are capped at 100 messages/s (burst 16).
    let up_cfg = endpoint_config(LocalNode::up(
        NodeKey::fqdn("upf1.example.net"),
        RecoveryTimeStamp(2),
    ))
    .with_transactions(xact())
    .with_report_egress(pfcp_throttle::EgressConfig::new(100));
    let (up, _up_ch) = bind(up_cfg).await;
    up.associate(cp.local_addr()).await.unwrap();
    // A storm of 400 usage reports within about 0.4 s.
    let mut tasks = Vec::new();
    for i in 0..400u64 {
        let up = up.clone();
        let to = cp.local_addr();
        tasks.push(tokio::spawn(async move {
            // Session Report Request: Report Type (USAR), SEID of the CP's session.
            let h = Header::new(MessageType::SESSION_REPORT_REQUEST).with_seid(i + 1);
            up.request(to, h, Bytes::from_static(&[0x00, 0x27, 0x00, 0x01, 0x02]))
                .await
        }));
        if i % 10 == 9 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    let (mut sent, mut throttled) = (0u64, 0u64);
    for t in tasks {
        match t.await.unwrap() {
            Ok(r) if r.is_local() => throttled += 1,
            Ok(_) => sent += 1,
            Err(e) => panic!("{e}"),
        }
    }
    let got = received.load(Ordering::Relaxed);
    println!("reports: {sent} sent, {throttled} throttled at the UP, {got} received by the CP");
    assert!(throttled >= 200, "{throttled}");
    assert_eq!(got, sent);
    // The reports carry no MP: the lowest priority (the router's 0), which level 1 sheds
    // once the offered rate reaches the Max EMR. What goes is the burst and the first ticks'.
    assert!((5..=60).contains(&sent), "{sent}");
}

/// A UP function that refuses every session request with cause 74: the CP pipeline hears the
/// refusals of its priority requests (clause 6.2.4.5.1), and only those, so that it stops
/// sending shed ones ahead of places that do not exist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cp_hears_when_the_up_refuses_its_priority_requests() {
    let node = NodeKey::fqdn("upf-refusing");
    let cfg = endpoint_config(LocalNode::up(node, RecoveryTimeStamp(0xE8F4_A2B0)))
        .with_transactions(xact());
    let (up, mut channels) = bind(cfg).await;
    tokio::spawn(async move {
        while let Some(req) = channels.incoming.recv().await {
            let _ = req.reject(Cause::PFCP_ENTITY_IN_CONGESTION).await;
        }
    });
    let cp = start_cp(None).await;
    cp.associate(up.local_addr()).await.unwrap();
    let refused = |cp: &Endpoint| {
        cp.inspect(|n| n.cp().map(|c| c.stats().exempt_refused))
            .unwrap()
    };
    let low = establish(
        &cp,
        up.local_addr(),
        RequestProfile::default().with_arp(&[12]),
    )
    .await
    .unwrap();
    assert_eq!(low.cause, Some(Cause::PFCP_ENTITY_IN_CONGESTION));
    assert!(!low.is_local());
    assert_eq!(refused(&cp), Some(0));
    let emergency = establish(&cp, up.local_addr(), RequestProfile::emergency())
        .await
        .unwrap();
    assert_eq!(emergency.cause, Some(Cause::PFCP_ENTITY_IN_CONGESTION));
    assert!(!emergency.is_local());
    assert_eq!(refused(&cp), Some(1));
}
