//! The virtual-time engine: CP and UP functions built on [`Node`], a network of datagrams with
//! delay, jitter and loss, and a clock that jumps from one event to the next.
//!
//! Everything is deterministic from the scenario's seed: events are ordered by (time,
//! destination, source, per-link sequence), and every random draw (arrivals, classes, loss,
//! jitter) comes from a seeded generator or a hash of the datagram's identity, never from the
//! order in which a node happened to iterate a table.
//!
//! ## Arrivals
//!
//! Each CP function offers at its own rate (the load's share of the capacity). Paced, its
//! offers fall on a grid of the gap at the rate in force, at a phase of its own drawn
//! uniformly over the gap at the start; a change of rate (the step) keeps the phases. With
//! phases bunched (a 10 ms spread at the start, or every CP's next offer one new gap after its
//! last one at the step down) many paced CP functions offered in bursts of one request each,
//! which the UP's wait bound refused in part while it idled in between: 200 CP functions at
//! 1.3x had a goodput of 0.18 of the ideal, 32 after a step from 10x to 1x about 0.55.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// The engine's tables: keys it makes itself, hashed with a fixed seed (deterministic, and no
/// SipHash on every datagram).
type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_node::{Node, NodeEvent, PeerEvent, RequestError, RequestId, Response};
use pfcp_throttle::classify::Procedure;
use pfcp_throttle::Classifier;
use pfcp_wire::ie::RecoveryTimeStamp;

use crate::config;
use crate::record::{CpRecorder, RunResult, Sample};
use crate::responder::{Answer, Responder};
use crate::scenario::{Arrivals, RestartSpec, Scenario, Selection, StepSpec, Strategy};
use crate::traffic::{build_request, splitmix, unit, Class, SessionCounts, SessionDriver, Work};

/// Why a run could not start.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// A node refused its configuration (the scenario passed [`Scenario::validate`]?).
    #[error("node configuration: {0}")]
    Node(#[from] pfcp_node::NodeConfigError),
    /// The plan names a UP function the scenario does not have.
    #[error("no UP function {0}")]
    NoSuchUp(usize),
}

/// What one run does with the load.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// A constant load (a multiple of the total capacity), measured after a warm-up.
    Steady(f64),
    /// A load step, recorded every control interval.
    Step(StepSpec),
    /// A UP function restarts under a constant load, recorded every control interval.
    Restart(RestartSpec),
}

const NS: u64 = 1_000_000_000;

fn ns(secs: f64) -> u64 {
    (secs.max(0.0) * NS as f64) as u64
}

/// A datagram in flight.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Delivery {
    at: u64,
    dst: usize,
    src: usize,
    seq: u64,
    bytes: Bytes,
}

/// The application on top of a node.
#[derive(Debug)]
enum App {
    Cp(Box<CpApp>),
    Up(Box<UpApp>),
}

#[derive(Debug)]
struct SimNode {
    node: Node,
    addr: SocketAddr,
    app: App,
}

/// A request in flight at a CP function.
#[derive(Debug)]
struct InFlight {
    work: Work,
    offered_at: u64,
    counted: bool,
}

/// A CP function's traffic and what it measured.
#[derive(Debug)]
struct CpApp {
    driver: SessionDriver,
    ups: Vec<SocketAddr>,
    /// The UP functions with their static weights (their capacities, as an operator
    /// configures them: Annex B combines them with the LCI), the candidates of a selection.
    candidates: Vec<(SocketAddr, u32)>,
    node_ie: Vec<u8>,
    ip: IpAddr,
    classifier: Classifier,
    selection: Selection,
    rr: usize,
    rng: u64,
    /// Where in each gap its paced offers fall, a fraction of the gap.
    phase: f64,
    next_arrival: Option<u64>,
    inflight: Map<RequestId, InFlight>,
    max_outstanding: usize,
    record: CpRecorder,
}

/// A UP function's responder and its counters at the last sample.
#[derive(Debug)]
struct UpApp {
    responder: Responder,
    last_offered: u64,
    last_served: u64,
    served_total: u64,
    offered_total: u64,
    restarts: u32,
}

/// One run: see [`run`].
#[derive(Debug)]
struct Engine<'a> {
    scenario: &'a Scenario,
    strategy: Strategy,
    plan: &'a Plan,
    origin: Instant,
    now: u64,
    nodes: Vec<SimNode>,
    by_addr: Map<SocketAddr, usize>,
    net: BinaryHeap<Reverse<Delivery>>,
    /// Wake-ups: (time, node, generation); an entry whose generation is no longer its
    /// node's is stale and skipped.
    wakes: BinaryHeap<Reverse<(u64, usize, u64)>>,
    gens: Vec<u64>,
    /// Per node: the time of its wake-up in `wakes` that is not stale, if any.
    scheduled: Vec<Option<u64>>,
    /// Per node: what its `poll_timeout` said after the engine last gave it something (a
    /// node changes only through the engine's calls, so this is exact until the next one).
    node_due: Vec<Option<u64>>,
    link_seq: Map<(usize, usize), u64>,
    down: Vec<bool>,
    /// Offers stop here.
    offers_end: u64,
    /// The measured window.
    window: (u64, u64),
    interval: u64,
    series: Vec<Sample>,
    restart_pending: Option<(u64, u64, usize)>,
}

/// The address of UP function `i`.
fn up_addr(i: usize) -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1 + i as u8)), 8805)
}

/// The address of CP function `i`.
fn cp_addr(i: usize) -> SocketAddr {
    let i = i as u32;
    SocketAddr::new(
        IpAddr::V4(Ipv4Addr::new(
            10,
            1 + (i >> 16) as u8,
            (i >> 8) as u8,
            i as u8,
        )),
        8805,
    )
}

/// A hash of a datagram's identity, for its loss and jitter draws.
fn draw(seed: u64, src: usize, dst: usize, seq: u64, salt: u64) -> u64 {
    let mut s = seed ^ ((src as u64) << 40) ^ ((dst as u64) << 20) ^ salt.rotate_left(7);
    s = s.wrapping_add(seq.wrapping_mul(0xD1B5_4A32_D192_ED03));
    splitmix(&mut s)
}

/// Run `strategy` on `scenario` with `plan`; `origin` is the instant virtual time starts at
/// (the engine reads no clock). `classes` come from [`Scenario::validate`].
pub fn run(
    scenario: &Scenario,
    classes: &[Class],
    strategy: Strategy,
    plan: &Plan,
    origin: Instant,
) -> Result<RunResult, SimError> {
    let mut e = Engine::new(scenario, classes, strategy, plan, origin)?;
    e.run();
    Ok(e.result())
}

impl<'a> Engine<'a> {
    fn new(
        scenario: &'a Scenario,
        classes: &[Class],
        strategy: Strategy,
        plan: &'a Plan,
        origin: Instant,
    ) -> Result<Self, SimError> {
        let interval = scenario.interval_ms * 1_000_000;
        let (offers_end, window, restart_pending) = match plan {
            Plan::Steady(_) => {
                let w0 = ns(scenario.sweep.warmup_secs);
                let w1 = w0 + ns(scenario.sweep.measure_secs);
                (w1, (w0, w1), None)
            }
            Plan::Step(s) => {
                let end = ns(3.0 * s.phase_secs);
                (end, (0, end), None)
            }
            Plan::Restart(r) => {
                let end = ns(r.run_secs);
                let down = ns(r.at_secs);
                (end, (0, end), Some((down, down + ns(r.down_secs), r.up)))
            }
        };
        let mut e = Engine {
            scenario,
            strategy,
            plan,
            origin,
            now: 0,
            nodes: Vec::new(),
            by_addr: Map::default(),
            net: BinaryHeap::new(),
            wakes: BinaryHeap::new(),
            gens: Vec::new(),
            scheduled: Vec::new(),
            node_due: Vec::new(),
            link_seq: Map::default(),
            down: Vec::new(),
            offers_end,
            window,
            interval,
            series: Vec::new(),
            restart_pending,
        };
        for i in 0..scenario.ups.len() {
            let node = e.up_node(i, 0)?;
            let addr = up_addr(i);
            let ip = addr.ip();
            let responder = Responder::new(
                node.local().clone(),
                config::node_id_ie(&config::up_node_id(i)),
                ip,
            );
            e.add(SimNode {
                node,
                addr,
                app: App::Up(Box::new(UpApp {
                    responder,
                    last_offered: 0,
                    last_served: 0,
                    served_total: 0,
                    offered_total: 0,
                    restarts: 0,
                })),
            });
        }
        let ups: Vec<SocketAddr> = (0..scenario.ups.len()).map(up_addr).collect();
        for i in 0..scenario.cps {
            let addr = cp_addr(i);
            let node = e.cp_node(i)?;
            let seed = crate::traffic::driver_seed(scenario.seed, i);
            let driver = SessionDriver::new(
                classes.to_vec(),
                scenario.sessions_per_cp,
                scenario.modifications,
                scenario.redirect && scenario.ups.len() > 1,
                seed,
            );
            let n_classes = classes.len();
            e.add(SimNode {
                node,
                addr,
                app: App::Cp(Box::new(CpApp {
                    driver,
                    ups: ups.clone(),
                    candidates: ups
                        .iter()
                        .enumerate()
                        .map(|(u, a)| (*a, config::up_weight(scenario, u)))
                        .collect(),
                    node_ie: config::node_id_ie(&config::cp_node_id(i)),
                    ip: addr.ip(),
                    classifier: Classifier::default(),
                    selection: scenario.selection,
                    rr: i,
                    rng: seed ^ 0x5EED,
                    phase: 0.0,
                    next_arrival: None,
                    inflight: Map::default(),
                    max_outstanding: 65_536,
                    record: CpRecorder::new(n_classes, ups.len()),
                })),
            });
        }
        Ok(e)
    }

    fn add(&mut self, n: SimNode) {
        let i = self.nodes.len();
        self.by_addr.insert(n.addr, i);
        self.nodes.push(n);
        self.gens.push(0);
        self.scheduled.push(None);
        self.node_due.push(None);
        self.down.push(false);
    }

    fn instant(&self, t: u64) -> Instant {
        self.origin + Duration::from_nanos(t)
    }

    /// The load (multiple of capacity) offered at `t`.
    fn load_at(&self, t: u64) -> f64 {
        match self.plan {
            Plan::Steady(x) => *x,
            Plan::Step(s) => {
                let phase = ns(s.phase_secs).max(1);
                if t / phase == 1 {
                    s.during
                } else {
                    s.before
                }
            }
            Plan::Restart(r) => r.load,
        }
    }

    fn up_node(&self, i: usize, restarts: u32) -> Result<Node, SimError> {
        let rts = RecoveryTimeStamp(3_900_000_000 + 1000 * restarts + i as u32);
        let config =
            config::up_config(self.scenario, i, self.strategy, rts).ok_or(SimError::NoSuchUp(i))?;
        Ok(Node::new(config, self.instant(self.now))?)
    }

    fn cp_node(&self, i: usize) -> Result<Node, SimError> {
        let rts = RecoveryTimeStamp(3_800_000_000 + i as u32);
        let config = config::cp_config(self.scenario, i, self.strategy, rts);
        Ok(Node::new(config, self.instant(self.now))?)
    }

    fn run(&mut self) {
        // Associations first; the load starts 50 ms later.
        let ups: Vec<SocketAddr> = (0..self.scenario.ups.len()).map(up_addr).collect();
        for i in 0..self.nodes.len() {
            let is_cp = matches!(self.nodes[i].app, App::Cp(_));
            if is_cp {
                let t = self.instant(0);
                for &u in &ups {
                    let _ = self.nodes[i].node.associate(u, t);
                }
                // Each CP function offers at a phase of its own, uniform over its gap (module
                // docs, "Arrivals").
                let phase = match &mut self.nodes[i].app {
                    App::Cp(c) => {
                        c.phase = unit(splitmix(&mut c.rng));
                        c.phase
                    }
                    App::Up(_) => 0.0,
                };
                let first = ns(0.05)
                    + ns(match self.scenario.arrivals {
                        Arrivals::Paced => phase * self.gap_at(0, phase),
                        Arrivals::Poisson => self.gap_at(0, phase),
                    });
                self.next_arrival(i, first);
            }
            self.pump(i);
        }
        let drain = ns(self.scenario.t1_ms as f64 / 1000.0 * f64::from(self.scenario.n1 + 1) + 1.0);
        let hard_end = self.offers_end + drain;
        let mut next_sample = self.interval;
        loop {
            let next_net = self.net.peek().map(|Reverse(d)| d.at);
            let next_wake = self.wakes.peek().map(|Reverse((t, _, _))| *t);
            let next_restart =
                self.restart_pending
                    .map(|(d, u, _)| if self.down.iter().any(|&x| x) { u } else { d });
            let t = [next_net, next_wake, Some(next_sample), next_restart]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(hard_end);
            if t > hard_end || (t > self.offers_end && self.idle()) {
                break;
            }
            self.now = t;
            if Some(t) == next_restart {
                self.restart_step(t);
                continue;
            }
            if t == next_sample {
                self.sample();
                next_sample += self.interval;
                continue;
            }
            if next_net == Some(t) {
                if let Some(Reverse(d)) = self.net.pop() {
                    self.deliver(d);
                }
                continue;
            }
            if let Some(Reverse((_, i, g))) = self.wakes.pop() {
                if self.gens.get(i) == Some(&g) {
                    self.scheduled[i] = None;
                    if !self.down[i] {
                        self.wake(i);
                    }
                }
            }
        }
    }

    /// Nothing more to wait for: no CP function has a request in flight.
    fn idle(&self) -> bool {
        self.nodes.iter().all(|n| match &n.app {
            App::Cp(c) => c.inflight.is_empty(),
            App::Up(_) => true,
        })
    }

    fn restart_step(&mut self, t: u64) {
        let Some((down_at, up_at, u)) = self.restart_pending else {
            return;
        };
        if !self.down[u] && t == down_at {
            // Stops answering: everything in its queue is gone with it.
            self.down[u] = true;
            self.gens[u] += 1;
            self.scheduled[u] = None;
            if down_at == up_at {
                self.restart_step(t);
            }
            return;
        }
        if self.down[u] {
            let restarts = match &mut self.nodes[u].app {
                App::Up(a) => {
                    a.restarts += 1;
                    a.restarts
                }
                App::Cp(_) => 0,
            };
            // Its configuration was accepted at the start: it is accepted again.
            let Ok(node) = self.up_node(u, restarts) else {
                self.restart_pending = None;
                return;
            };
            if let App::Up(a) = &mut self.nodes[u].app {
                let ip = up_addr(u).ip();
                a.responder = Responder::new(
                    node.local().clone(),
                    config::node_id_ie(&config::up_node_id(u)),
                    ip,
                );
                a.last_offered = 0;
                a.last_served = 0;
            }
            self.nodes[u].node = node;
            self.down[u] = false;
            self.restart_pending = None;
            self.reschedule(u);
        }
    }

    fn deliver(&mut self, d: Delivery) {
        if self.down[d.dst] {
            return;
        }
        let from = self.nodes[d.src].addr;
        let t = self.instant(self.now);
        self.nodes[d.dst].node.handle_datagram(from, d.bytes, t);
        self.pump(d.dst);
    }

    fn wake(&mut self, i: usize) {
        let now = self.now;
        let t = self.instant(now);
        if self.node_due[i].is_some_and(|d| d <= now) {
            self.nodes[i].node.handle_timeout(t);
        }
        let due = match &self.nodes[i].app {
            App::Cp(c) => c.next_arrival.is_some_and(|a| a <= now),
            App::Up(_) => false,
        };
        if due {
            self.offer(i);
            let (u, phase) = match &mut self.nodes[i].app {
                App::Cp(c) => (unit(splitmix(&mut c.rng)), c.phase),
                App::Up(_) => (0.5, 0.0),
            };
            let next = match self.scenario.arrivals {
                Arrivals::Poisson => now + ns(self.gap_at(now, u)).max(1),
                Arrivals::Paced => {
                    // The next point of the CP's own grid at the rate in force: a change of
                    // rate keeps the phases apart.
                    let gap = self.gap_at(now, u);
                    // (An offer on the grid is at a whole number of gaps less rounding: the
                    // margin keeps that rounding from offering twice.)
                    let k = (now as f64 / NS as f64 / gap - phase + 1e-3).floor() + 1.0;
                    ns((k + phase) * gap).max(now + 1)
                }
            };
            self.next_arrival(i, next);
        }
        self.pump(i);
    }

    /// The gap in seconds from one offer of a CP function at `t` to its next: the offered
    /// rate's period when paced, an exponential draw from `u` (uniform in [0, 1)) when Poisson.
    fn gap_at(&self, t: u64, u: f64) -> f64 {
        let rate = self.load_at(t) * self.scenario.capacity() / self.scenario.cps as f64;
        match self.scenario.arrivals {
            Arrivals::Poisson => -(1.0 - u).ln() / rate.max(1e-9),
            Arrivals::Paced => 1.0 / rate.max(1e-9),
        }
    }

    fn next_arrival(&mut self, i: usize, at: u64) {
        let end = self.offers_end;
        if let App::Cp(c) = &mut self.nodes[i].app {
            c.next_arrival = (at < end).then_some(at);
        }
    }

    /// One offer of CP function `i`.
    fn offer(&mut self, i: usize) {
        let now = self.now;
        let t = self.instant(now);
        let counted = now >= self.window.0 && now < self.window.1;
        let SimNode { node, app, .. } = &mut self.nodes[i];
        let App::Cp(c) = app else {
            return;
        };
        let full = c.inflight.len() >= c.max_outstanding;
        let work = if full {
            None
        } else {
            let CpApp {
                driver,
                ups,
                candidates,
                selection,
                rr,
                ..
            } = &mut **c;
            driver.next(|| match selection {
                Selection::RoundRobin => {
                    *rr = rr.wrapping_add(1);
                    *rr % ups.len().max(1)
                }
                Selection::Load => node
                    .select_up(candidates, t)
                    .and_then(|a| ups.iter().position(|u| *u == a))
                    .unwrap_or(0),
            })
        };
        let Some(work) = work else {
            c.record.skipped(counted);
            return;
        };
        let Ok((header, ies)) =
            build_request(work.step, work.cp_seid, work.up_seid, &c.node_ie, c.ip)
        else {
            return;
        };
        // Every strategy marks its requests with the classifier's priority, so that the UP's
        // self-protection can rank them (clause 6.2.4.5.2).
        let mt = header.message_type;
        let priority = c
            .classifier
            .classify(&work.profile.context(Procedure::of(mt)))
            .class
            .priority;
        let header = header.with_priority(priority);
        let Some(&to) = c.ups.get(work.up) else {
            return;
        };
        c.record.offered(&work, counted);
        match node.send_request(to, header, &ies, &work.profile, t) {
            Ok(id) => {
                c.inflight.insert(
                    id,
                    InFlight {
                        work,
                        offered_at: now,
                        counted,
                    },
                );
            }
            Err(_) => {
                let failed = Err(RequestError::Timeout { transmissions: 0 });
                let settled = c
                    .record
                    .settle(&work, &failed, &c.ups, Duration::ZERO, counted);
                c.driver.settle(&work, settled);
            }
        }
    }

    /// Drain node `i`: transmits to the network, events to its application, until quiet.
    fn pump(&mut self, i: usize) {
        loop {
            let mut any = false;
            while let Some(tx) = self.nodes[i].node.poll_transmit() {
                any = true;
                self.send(i, tx.peer, tx.bytes);
            }
            while let Some(e) = self.nodes[i].node.poll_event() {
                any = true;
                self.on_event(i, e);
            }
            if !any {
                break;
            }
        }
        self.reschedule(i);
    }

    fn reschedule(&mut self, i: usize) {
        let node_t = self.nodes[i]
            .node
            .poll_timeout()
            .map(|d| d.saturating_duration_since(self.origin).as_nanos() as u64);
        self.node_due[i] = node_t;
        let app_t = match &self.nodes[i].app {
            App::Cp(c) => c.next_arrival,
            App::Up(_) => None,
        };
        let t = [node_t, app_t]
            .into_iter()
            .flatten()
            .min()
            .map(|t| t.max(self.now));
        if t == self.scheduled[i] {
            // Already due then (most deliveries leave a CP's next offer where it was).
            return;
        }
        self.gens[i] += 1;
        self.scheduled[i] = t;
        if let Some(t) = t {
            self.wakes.push(Reverse((t, i, self.gens[i])));
        }
    }

    fn send(&mut self, src: usize, to: SocketAddr, bytes: Bytes) {
        let Some(&dst) = self.by_addr.get(&to) else {
            return;
        };
        if self.down[src] {
            return;
        }
        let seq = {
            let s = self.link_seq.entry((src, dst)).or_insert(0);
            *s += 1;
            *s
        };
        let link = &self.scenario.link;
        let seed = self.scenario.seed;
        if link.loss > 0.0 && unit(draw(seed, src, dst, seq, 1)) < link.loss {
            return;
        }
        let delay = link.delay_ms + link.jitter_ms * unit(draw(seed, src, dst, seq, 2));
        let at = self.now + ns(delay / 1000.0).max(1);
        self.net.push(Reverse(Delivery {
            at,
            dst,
            src,
            seq,
            bytes,
        }));
    }

    fn on_event(&mut self, i: usize, e: NodeEvent) {
        let now = self.now;
        let t = self.instant(now);
        let SimNode { node, app, .. } = &mut self.nodes[i];
        match (app, e) {
            (App::Up(u), NodeEvent::Request(req)) => {
                let answer = u.responder.answer(&req, |s| node.session(s).is_some());
                let _ = match answer {
                    Ok(Answer::Respond(bytes, _)) => node.respond(&req.reference, bytes, t),
                    Ok(Answer::Reject(cause)) => node.reject(&req.reference, cause, t),
                    Err(_) => node.reject(&req.reference, pfcp_wire::Cause::SYSTEM_FAILURE, t),
                };
            }
            (App::Cp(c), NodeEvent::Outcome { id, result }) => {
                if let Some(f) = c.inflight.remove(&id) {
                    c.settle(f, result, now);
                }
            }
            (App::Cp(c), NodeEvent::Peer(PeerEvent::SessionsLost { sessions, .. })) => {
                c.driver.lost(sessions.iter().map(|s| s.local_seid));
            }
            (App::Cp(_), NodeEvent::Request(req)) => {
                let _ = node.reject(&req.reference, pfcp_wire::Cause::SERVICE_NOT_SUPPORTED, t);
            }
            _ => {}
        }
    }

    /// One control interval's sample.
    fn sample(&mut self) {
        let secs = self.interval as f64 / NS as f64;
        let cap = self.scenario.capacity();
        let mut s = Sample {
            t: self.now as f64 / NS as f64,
            ..Sample::default()
        };
        let (mut offered, mut succeeded) = (0u64, 0u64);
        for (i, n) in self.nodes.iter_mut().enumerate() {
            match &mut n.app {
                App::Cp(c) => {
                    offered += std::mem::take(&mut c.record.offered_now);
                    succeeded += std::mem::take(&mut c.record.succeeded_now);
                }
                App::Up(u) => {
                    let (off, srv, metric, queue) = match n.node.admission() {
                        Some(a) if !self.down[i] => (
                            a.stats().offered,
                            a.stats().served,
                            a.overload_metric(),
                            a.len() as u64,
                        ),
                        _ => (u.last_offered, u.last_served, 0, 0),
                    };
                    let d_off = off.saturating_sub(u.last_offered);
                    let d_srv = srv.saturating_sub(u.last_served);
                    u.last_offered = off;
                    u.last_served = srv;
                    u.offered_total += d_off;
                    u.served_total += d_srv;
                    s.arrived += d_off as f64 / secs;
                    s.served += d_srv as f64 / secs;
                    s.metric.push(metric);
                    s.queue.push(queue);
                }
            }
        }
        s.offered = offered as f64 / secs / cap;
        s.succeeded = succeeded as f64 / secs;
        if !matches!(self.plan, Plan::Steady(_)) {
            self.series.push(s);
        }
    }

    fn result(mut self) -> RunResult {
        let names: Vec<String> = self
            .nodes
            .iter()
            .find_map(|n| match &n.app {
                App::Cp(c) => Some(c.driver.classes().iter().map(|c| c.name.clone()).collect()),
                App::Up(_) => None,
            })
            .unwrap_or_default();
        let mut all = CpRecorder::new(names.len(), self.scenario.ups.len());
        let mut sessions = SessionCounts::default();
        let mut datagrams = 0u64;
        for n in &mut self.nodes {
            match &mut n.app {
                App::Cp(c) => {
                    all.merge(&mut c.record);
                    let d = c.driver.counts;
                    sessions.established += d.established;
                    sessions.deleted += d.deleted;
                    sessions.lost += d.lost;
                    sessions.restored += d.restored;
                }
                App::Up(_) => datagrams += n.node.stats().datagrams_received,
            }
        }
        let measured = (self.window.1 - self.window.0) as f64 / NS as f64;
        let load = match self.plan {
            Plan::Steady(x) => *x,
            Plan::Step(s) => s.during,
            Plan::Restart(r) => r.load,
        };
        let end = (self.now as f64 / NS as f64).max(1e-9);
        let mut r = all.result(
            self.strategy.name(),
            load,
            &names,
            measured,
            self.scenario.capacity(),
        );
        r.sessions = sessions;
        r.up_datagrams = datagrams as f64 / end;
        r.series = std::mem::take(&mut self.series);
        r
    }
}

impl CpApp {
    fn settle(&mut self, f: InFlight, result: Result<Response, RequestError>, now: u64) {
        let latency = Duration::from_nanos(now.saturating_sub(f.offered_at));
        let settled = self
            .record
            .settle(&f.work, &result, &self.ups, latency, f.counted);
        self.driver.settle(&f.work, settled);
    }
}
