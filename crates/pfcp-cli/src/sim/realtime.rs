//! The real-time engine of `pfcp sim`: the scenario's UP and CP functions as real
//! [`Endpoint`]s on loopback UDP sockets in this process, driven by the wall clock, with the
//! same node configurations ([`pfcp_sim::config`]), traffic driver and records as the
//! virtual-time engine, so that the two can be compared run for run.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use pfcp_node::{
    Capture, Endpoint, EndpointConfig, Error as NodeError, HandlerReply, PeerEvent, RequestError,
    RequestView,
};
use pfcp_sim::config::{cp_config, cp_node_id, node_id_ie, up_config, up_node_id, up_weight};
use pfcp_sim::record::CpRecorder;
use pfcp_sim::responder::{Answer, Responder};
use pfcp_sim::scenario::CpProfile;
use pfcp_sim::traffic::{build_request, Class, SessionDriver, Work};
use pfcp_sim::{RunResult, Scenario, Selection, Strategy};
use pfcp_throttle::classify::Procedure;
use pfcp_throttle::Classifier;
use pfcp_wire::ie::RecoveryTimeStamp;
use pfcp_wire::Cause;
use tokio::task::JoinHandle;

use crate::pcap_out::PcapOut;
use crate::{io_error_text, now, wall_now};

/// One CP function's traffic state, shared by its pacer and its requests in flight.
#[derive(Debug)]
struct CpState {
    driver: SessionDriver,
    record: CpRecorder,
    outstanding: u64,
    rr: usize,
}

fn lock(m: &Mutex<CpState>) -> MutexGuard<'_, CpState> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Recovery Time Stamps distinct per run (they only need to differ between the functions and
/// from one run to the next of the same process).
fn stamp(run: u32, i: usize) -> RecoveryTimeStamp {
    RecoveryTimeStamp(
        3_950_000_000_u32
            .wrapping_add(run.wrapping_mul(1000))
            .wrapping_add(i as u32),
    )
}

/// Where function `i` of `kind` (1: UP, 2: CP) binds in run `run_no`: with a capture, port
/// 8805 (Wireshark dissects PFCP there) on its own loopback address `127.kind.run.(i + 1)`,
/// fresh for every run; otherwise any port of 127.0.0.1.
fn bind_addr(capturing: bool, kind: u8, run_no: u32, i: usize) -> SocketAddr {
    match (u8::try_from(run_no), u8::try_from(i + 1)) {
        (Ok(run), Ok(host)) if capturing => (Ipv4Addr::new(127, kind, run, host), 8805).into(),
        _ => (Ipv4Addr::LOCALHOST, 0).into(),
    }
}

/// A capture into `out`, timestamped with the wall clock.
fn capture_to(out: &Arc<PcapOut>) -> Capture {
    let out = out.clone();
    Capture::new(move |d| out.record(wall_now(), d.from, d.to, d.bytes))
}

/// Run `strategy` at `load` (a multiple of the total capacity) on loopback: the warm-up, the
/// measured window, and the drain of the requests still in flight. With `pcap`, every
/// datagram of the UP functions goes there (what they receive and send: all of the run's
/// PFCP traffic).
pub(super) async fn run(
    sc: &Scenario,
    classes: &[Class],
    strategy: Strategy,
    load: f64,
    run_no: u32,
    pcap: Option<&Arc<PcapOut>>,
) -> Result<RunResult, String> {
    let capturing = pcap.is_some();
    let mut ups = Vec::new();
    for i in 0..sc.ups.len() {
        let addr = bind_addr(capturing, 1, run_no, i);
        let node = up_config(sc, i, strategy, stamp(run_no, i)).ok_or("no such UP function")?;
        let local = node.local.clone();
        let fseid_ip = match addr.ip() {
            IpAddr::V4(a) if !a.is_unspecified() => a,
            _ => Ipv4Addr::LOCALHOST,
        };
        let mut responder =
            Responder::new(local.clone(), node_id_ie(&up_node_id(i)), fseid_ip.into());
        // SEIDs from a counter: none is reused within a run.
        let handler =
            move |view: &RequestView<'_>| match responder.answer(view.request(), |_| false) {
                Ok(Answer::Respond(bytes, _)) => HandlerReply::Respond(bytes),
                Ok(Answer::Reject(cause)) => HandlerReply::Reject(cause),
                Err(_) => HandlerReply::Reject(Cause::SYSTEM_FAILURE),
            };
        let mut config = EndpointConfig::new(local).with_node(node);
        if let Some(out) = pcap {
            config = config.with_capture(capture_to(out));
        }
        let (ep, channels) = Endpoint::bind_with_handler(config, addr, handler)
            .await
            .map_err(|e| format!("cannot bind a UP endpoint: {}", io_error_text(&e)))?;
        ups.push((ep, channels));
    }
    let up_addrs: Vec<SocketAddr> = ups.iter().map(|(e, _)| e.local_addr()).collect();
    let weights: Vec<(SocketAddr, u32)> = up_addrs
        .iter()
        .enumerate()
        .map(|(i, a)| (*a, up_weight(sc, i)))
        .collect();
    let mut cps = Vec::new();
    for i in 0..sc.cps {
        let node = cp_config(sc, i, strategy, stamp(run_no, 100 + i));
        let config = EndpointConfig::new(node.local.clone()).with_node(node);
        let (ep, channels) = Endpoint::bind(config, bind_addr(capturing, 2, run_no, i))
            .await
            .map_err(|e| format!("cannot bind a CP endpoint: {}", io_error_text(&e)))?;
        for &u in &up_addrs {
            ep.associate(u)
                .await
                .map_err(|e| format!("association with {u} failed: {e}"))?;
        }
        cps.push((ep, channels));
    }
    let rate = load * sc.capacity() / sc.cps as f64;
    let warmup = Duration::from_secs_f64(sc.sweep.warmup_secs);
    let measure = Duration::from_secs_f64(sc.sweep.measure_secs);
    let start = now();
    let mut tasks: Vec<JoinHandle<()>> = Vec::new();
    let mut states = Vec::new();
    for (i, (ep, channels)) in cps.iter_mut().enumerate() {
        let seed = pfcp_sim::traffic::driver_seed(sc.seed, i);
        let redirect = sc.redirect && sc.ups.len() > 1;
        let driver = SessionDriver::new(
            classes.to_vec(),
            sc.sessions_per_cp,
            sc.modifications,
            redirect,
            seed,
        );
        let state = Arc::new(Mutex::new(CpState {
            driver,
            record: CpRecorder::new(classes.len(), sc.ups.len()),
            outstanding: 0,
            rr: i,
        }));
        states.push(state.clone());
        // Sessions a restarted UP function lost are established again.
        let mut events = std::mem::replace(&mut channels.events, tokio::sync::mpsc::channel(1).1);
        let lost_state = state.clone();
        tasks.push(tokio::spawn(async move {
            while let Some(e) = events.recv().await {
                if let PeerEvent::SessionsLost { sessions, .. } = e {
                    lock(&lost_state)
                        .driver
                        .lost(sessions.iter().map(|s| s.local_seid));
                }
            }
        }));
        let pacer = Pacer {
            endpoint: ep.clone(),
            state,
            ups: up_addrs.clone(),
            weights: weights.clone(),
            selection: sc.selection,
            node_ie: node_id_ie(&cp_node_id(i)),
            profile: sc.cp_profile(i),
            rate,
            warmup,
            measure,
        };
        tasks.push(tokio::spawn(pacer.run(start)));
    }
    // Offers end with the window; then the requests in flight are waited for (each ends by
    // T1 x (N1 + 1) at the latest).
    tokio::time::sleep_until(start + warmup + measure).await;
    let drain = Duration::from_millis(sc.t1_ms) * (sc.n1 + 1) + Duration::from_millis(500);
    let deadline = now() + drain;
    while now() < deadline && states.iter().any(|s| lock(s).outstanding > 0) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let names: Vec<String> = classes.iter().map(|c| c.name.clone()).collect();
    let mut all = CpRecorder::new(classes.len(), sc.ups.len());
    let mut sessions = pfcp_sim::traffic::SessionCounts::default();
    for s in &states {
        let mut st = lock(s);
        all.merge(&mut st.record);
        let d = st.driver.counts;
        sessions.established += d.established;
        sessions.deleted += d.deleted;
        sessions.lost += d.lost;
        sessions.restored += d.restored;
    }
    let mut datagrams = 0u64;
    for (ep, _) in &ups {
        datagrams += ep.inspect(|n| n.stats().datagrams_received).unwrap_or(0);
    }
    for t in &tasks {
        t.abort();
    }
    let elapsed = now().duration_since(start).as_secs_f64().max(1e-9);
    let mut r = all.result(
        strategy.name(),
        load,
        &names,
        measure.as_secs_f64(),
        sc.capacity(),
    );
    r.sessions = sessions;
    r.up_datagrams = datagrams as f64 / elapsed;
    Ok(r)
}

/// The offers of one CP function at `rate` per second, spread evenly on a 1 ms tick.
struct Pacer {
    endpoint: Endpoint,
    state: Arc<Mutex<CpState>>,
    ups: Vec<SocketAddr>,
    weights: Vec<(SocketAddr, u32)>,
    selection: Selection,
    node_ie: Vec<u8>,
    /// What its headers carry (the scenario's `cp_groups`).
    profile: CpProfile,
    rate: f64,
    warmup: Duration,
    measure: Duration,
}

impl Pacer {
    async fn run(self, start: tokio::time::Instant) {
        let classifier = Arc::new(Classifier::default());
        let mut ticks = tokio::time::interval(Duration::from_millis(1));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut issued = 0u64;
        let end = self.warmup + self.measure;
        loop {
            ticks.tick().await;
            let elapsed = now().duration_since(start);
            if elapsed >= end {
                return;
            }
            let due = (elapsed.as_secs_f64() * self.rate) as u64;
            while issued < due {
                issued += 1;
                let counted = elapsed >= self.warmup;
                let work = {
                    let mut st = lock(&self.state);
                    let CpState { driver, rr, .. } = &mut *st;
                    let (ups, weights, ep) = (&self.ups, &self.weights, &self.endpoint);
                    let w = driver.next(|| match self.selection {
                        Selection::RoundRobin => {
                            *rr = rr.wrapping_add(1);
                            *rr % ups.len().max(1)
                        }
                        Selection::Load => ep
                            .select_up(weights)
                            .ok()
                            .flatten()
                            .and_then(|a| ups.iter().position(|u| *u == a))
                            .unwrap_or(0),
                    });
                    match &w {
                        Some(w) => {
                            st.record.offered(w, counted);
                            st.outstanding += 1;
                        }
                        None => st.record.skipped(counted),
                    }
                    w
                };
                if let Some(w) = work {
                    tokio::spawn(transact(
                        self.endpoint.clone(),
                        self.state.clone(),
                        w,
                        self.ups.clone(),
                        self.node_ie.clone(),
                        Marking {
                            classifier: classifier.clone(),
                            profile: self.profile,
                        },
                        counted,
                    ));
                }
            }
        }
    }
}

/// How a CP function marks its requests: its classifier's priority, put in the header as its
/// profile says (as the virtual-time engine does).
struct Marking {
    classifier: Arc<Classifier>,
    profile: CpProfile,
}

/// One request and its outcome, recorded as the virtual-time engine records it.
async fn transact(
    ep: Endpoint,
    state: Arc<Mutex<CpState>>,
    w: Work,
    ups: Vec<SocketAddr>,
    node_ie: Vec<u8>,
    marking: Marking,
    counted: bool,
) {
    let started = now();
    let result = match (
        build_request(
            w.step,
            w.cp_seid,
            w.up_seid,
            &node_ie,
            Ipv4Addr::LOCALHOST.into(),
        ),
        ups.get(w.up),
    ) {
        (Ok((header, ies)), Some(&to)) => {
            let mt = header.message_type;
            let classified = marking
                .classifier
                .classify(&w.profile.context(Procedure::of(mt)))
                .class
                .priority;
            let header = match marking.profile.header_priority(mt, classified) {
                Some(p) => header.with_priority(p),
                None => header,
            };
            ep.request_with(to, header, ies, w.profile.clone())
                .await
                .map_err(|e| match e {
                    NodeError::Request(r) => r,
                    NodeError::Timeout { transmissions } => RequestError::Timeout { transmissions },
                    _ => RequestError::Timeout { transmissions: 0 },
                })
        }
        _ => Err(RequestError::Timeout { transmissions: 0 }),
    };
    let latency = now().duration_since(started);
    let mut st = lock(&state);
    st.outstanding = st.outstanding.saturating_sub(1);
    let settled = st.record.settle(&w, &result, &ups, latency, counted);
    st.driver.settle(&w, settled);
}
