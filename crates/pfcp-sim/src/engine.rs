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
//!
//! ## Nodes and wake-ups
//!
//! Each node has at most one live entry in the wake-up heap, at the earlier of its `Node`'s
//! timeout and its application's next moment (an offer, the end of a CP function's life); an
//! entry is pushed only when that time changes. A node changes only through the engine's
//! calls, so the timeout it gave after the last call holds until the next one and is not
//! polled again on waking.
//!
//! ## Modules
//!
//! `cp` (the CP functions: their offers, the priorities in their headers, their records),
//! `network` (datagrams with delay, jitter and loss), `lives` (CP functions that come and go:
//! the churn run), `measure` (the samples per control interval, the ideal, the run's result).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use pfcp_node::{Node, NodeEvent, PeerEvent};
use pfcp_wire::ie::RecoveryTimeStamp;

use crate::config;
use crate::record::{ProfileRecords, RunResult, Sample};
use crate::responder::{Answer, Responder};
use crate::scenario::{Arrivals, ChurnSpec, CpProfile, RestartSpec, Scenario, StepSpec, Strategy};
use crate::traffic::{splitmix, unit, Class, SessionCounts};

mod cp;
mod lives;
mod measure;
mod network;

use cp::CpApp;
use lives::Churn;
use measure::Ideal;
use network::Delivery;

/// The engine's tables: keys it makes itself, hashed with a fixed seed (deterministic, and no
/// SipHash on every datagram).
type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

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
    /// CP functions come and go under a constant load, recorded every control interval.
    Churn(ChurnSpec),
}

const NS: u64 = 1_000_000_000;

fn ns(secs: f64) -> u64 {
    (secs.max(0.0) * NS as f64) as u64
}

/// The application on top of a node.
#[derive(Debug)]
enum App {
    Cp(Box<CpApp>),
    Up(Box<UpApp>),
    /// A CP function's life ended: the slot waits for the next one.
    Vacant,
}

#[derive(Debug)]
struct SimNode {
    node: Node,
    addr: SocketAddr,
    app: App,
}

/// A UP function's responder and its counters at the last sample.
#[derive(Debug)]
struct UpApp {
    responder: Responder,
    last_offered: u64,
    last_served: u64,
    last_refused: u64,
    served_total: u64,
    offered_total: u64,
    refused_total: u64,
    /// Counted since the last sample (read early when the UP function goes down).
    unsampled_offered: u64,
    unsampled_served: u64,
    restarts: u32,
    /// Associations released by a CP function, and found failed by the heartbeats.
    releases_seen: u64,
    failures_seen: u64,
}

/// One run: see [`run`].
#[derive(Debug)]
struct Engine<'a> {
    scenario: &'a Scenario,
    classes: &'a [Class],
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
    /// What the CP functions whose life ended measured, per profile.
    departed: Vec<(CpProfile, ProfileRecords)>,
    departed_sessions: SessionCounts,
    /// The most session slots a departed CP function's driver allocated.
    slots_max: u64,
    /// The ideal, accumulated per control interval.
    ideal: Ideal,
    /// The churn run's lives, if this is one.
    churn: Option<Churn>,
}

/// The address of UP function `i`.
fn up_addr(i: usize) -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1 + i as u8)), 8805)
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
        classes: &'a [Class],
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
            Plan::Churn(c) => {
                let end = ns(c.run_secs);
                (end, (0, end), None)
            }
        };
        let mut e = Engine {
            scenario,
            classes,
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
            departed: CpProfile::ALL
                .iter()
                .map(|&p| (p, ProfileRecords::default()))
                .collect(),
            departed_sessions: SessionCounts::default(),
            slots_max: 0,
            ideal: Ideal::default(),
            churn: match plan {
                Plan::Churn(c) => Some(Churn::new(c, scenario.seed, scenario.ups.len())),
                _ => None,
            },
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
                    last_refused: 0,
                    served_total: 0,
                    offered_total: 0,
                    refused_total: 0,
                    unsampled_offered: 0,
                    unsampled_served: 0,
                    restarts: 0,
                    releases_seen: 0,
                    failures_seen: 0,
                })),
            });
        }
        let first_lives = match &e.churn {
            Some(c) => c.spec.live,
            None => scenario.cps,
        };
        for i in 0..first_lives {
            // In a churn run the places' first lives end one after the other over a life.
            let ends_at = e.churn.as_ref().map(|c| c.first_end(i));
            let cp = e.cp_node(i, i, ends_at)?;
            e.add(cp);
        }
        if let Some(c) = &mut e.churn {
            c.started = first_lives as u64;
            c.result.started = c.started;
        }
        Ok(e)
    }

    fn add(&mut self, n: SimNode) -> usize {
        let i = self.nodes.len();
        self.by_addr.insert(n.addr, i);
        self.nodes.push(n);
        self.gens.push(0);
        self.scheduled.push(None);
        self.node_due.push(None);
        self.down.push(false);
        i
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
            Plan::Churn(c) => c.load,
        }
    }

    /// CP functions offering at once: the load's shares.
    fn offering_cps(&self) -> usize {
        match &self.churn {
            Some(c) => c.spec.live,
            None => self.scenario.cps,
        }
    }

    fn up_node(&self, i: usize, restarts: u32) -> Result<Node, SimError> {
        let rts = RecoveryTimeStamp(3_900_000_000 + 1000 * restarts + i as u32);
        let config =
            config::up_config(self.scenario, i, self.strategy, rts).ok_or(SimError::NoSuchUp(i))?;
        Ok(Node::new(config, self.instant(self.now))?)
    }

    fn run(&mut self) {
        // Associations first; the load starts 50 ms later.
        for i in 0..self.nodes.len() {
            match self.nodes[i].app {
                App::Cp(_) => self.start_cp(i),
                _ => self.pump(i),
            }
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
            App::Up(_) | App::Vacant => true,
        })
    }

    fn restart_step(&mut self, t: u64) {
        let Some((down_at, up_at, u)) = self.restart_pending else {
            return;
        };
        // The capacity up to now was there; from now on it is not (or is again).
        self.account_capacity(t);
        if !self.down[u] && t == down_at {
            // Stops answering: everything in its queue is gone with it.
            self.read_up_counters(u);
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
                _ => 0,
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
                a.last_refused = 0;
            }
            self.nodes[u].node = node;
            self.down[u] = false;
            self.restart_pending = None;
            self.reschedule(u);
        }
    }

    fn wake(&mut self, i: usize) {
        let now = self.now;
        let t = self.instant(now);
        if matches!(self.nodes[i].app, App::Vacant) {
            return;
        }
        if self.node_due[i].is_some_and(|d| d <= now) {
            self.nodes[i].node.handle_timeout(t);
        }
        if self.churn.is_some() {
            self.life_step(i);
        }
        let due = match &self.nodes[i].app {
            App::Cp(c) => c.next_arrival.is_some_and(|a| a <= now),
            _ => false,
        };
        if due {
            self.offer(i);
            let (u, phase) = match &mut self.nodes[i].app {
                App::Cp(c) => (unit(splitmix(&mut c.rng)), c.phase),
                _ => (0.5, 0.0),
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
        if self.churn.is_some() {
            self.life_step(i);
        }
        self.reschedule(i);
    }

    fn reschedule(&mut self, i: usize) {
        let (node_t, app_t) = match &self.nodes[i].app {
            App::Vacant => (None, None),
            app => {
                let node_t = self.nodes[i]
                    .node
                    .poll_timeout()
                    .map(|d| d.saturating_duration_since(self.origin).as_nanos() as u64);
                let app_t = match app {
                    App::Cp(c) => [c.next_arrival, c.life.next_moment()]
                        .into_iter()
                        .flatten()
                        .min(),
                    _ => None,
                };
                (node_t, app_t)
            }
        };
        self.node_due[i] = node_t;
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
            (App::Up(u), NodeEvent::Peer(PeerEvent::Released { .. })) => u.releases_seen += 1,
            (App::Up(u), NodeEvent::Peer(PeerEvent::Failed { .. })) => u.failures_seen += 1,
            (App::Cp(c), NodeEvent::Outcome { id, result }) => match c.inflight.remove(&id) {
                Some(f) => c.settle(f, result, now),
                None => c.life.outcome(id, &result),
            },
            (App::Cp(c), NodeEvent::Peer(PeerEvent::SessionsLost { sessions, .. })) => {
                c.driver.lost(sessions.iter().map(|s| s.local_seid));
            }
            (App::Cp(_), NodeEvent::Request(req)) => {
                let _ = node.reject(&req.reference, pfcp_wire::Cause::SERVICE_NOT_SUPPORTED, t);
            }
            _ => {}
        }
    }
}
