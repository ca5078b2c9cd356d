//! CP functions that come and go (the churn run, [`ChurnSpec`]): each life's stages, the
//! successor that takes a place, the release or the vanishing, the slot a finished life
//! leaves for the next, and the per-interval look at the UP functions' tables and at whether
//! each live CP function was throttled.

use pfcp_node::cp::Destination;
use pfcp_node::{RequestError, RequestId, RequestProfile, Response};
use pfcp_wire::{Header, MessageType};

use super::{ns, up_addr, App, Engine, SimNode};
use crate::config;
use crate::record::{ChurnResult, TableSample, ThrottleCheck, UpTables};
use crate::scenario::ChurnSpec;
use crate::traffic::{splitmix, unit};

/// Where a CP function is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Stage {
    /// Offering (until `Life::ends_at`, if its life ends).
    Live,
    /// Its life ended: no more offers; its requests in flight are awaited until `deadline`,
    /// then it releases its associations.
    Draining { deadline: u64 },
    /// Its Association Release Requests are awaited until `deadline`.
    Releasing {
        pending: Vec<RequestId>,
        deadline: u64,
    },
    /// Nothing more to wait for: its slot is left for the next life.
    Done,
}

/// A CP function's life: its stages and what it saw.
#[derive(Debug, Clone)]
pub(super) struct Life {
    /// When its offers stop (a churn run's lives), if they do before the run's end.
    pub(super) ends_at: Option<u64>,
    /// It releases its associations when its life ends; otherwise it vanishes.
    pub(super) releases: bool,
    pub(super) stage: Stage,
    /// Its Association Setup Requests awaiting their answer.
    pub(super) associating: Vec<RequestId>,
    pub(super) associations_accepted: u64,
    pub(super) associations_refused: u64,
    /// Checks of its reduction while a UP function was overloaded, and those above 0.
    pub(super) checks: u64,
    pub(super) checks_throttled: u64,
}

impl Life {
    pub(super) fn new(ends_at: Option<u64>, releases: bool) -> Self {
        Life {
            ends_at,
            releases,
            stage: Stage::Live,
            associating: Vec::new(),
            associations_accepted: 0,
            associations_refused: 0,
            checks: 0,
            checks_throttled: 0,
        }
    }

    /// Whether it offers.
    pub(super) fn offering(&self) -> bool {
        self.stage == Stage::Live
    }

    /// The next moment its life moves on by itself.
    pub(super) fn next_moment(&self) -> Option<u64> {
        match &self.stage {
            Stage::Live => self.ends_at,
            Stage::Draining { deadline } | Stage::Releasing { deadline, .. } => Some(*deadline),
            Stage::Done => None,
        }
    }

    /// The outcome of request `id`, which was none of its session requests.
    pub(super) fn outcome(&mut self, id: RequestId, result: &Result<Response, RequestError>) {
        if let Some(k) = self.associating.iter().position(|a| *a == id) {
            self.associating.swap_remove(k);
            match result {
                Ok(r) if r.is_accepted() => self.associations_accepted += 1,
                _ => self.associations_refused += 1,
            }
        } else if let Stage::Releasing { pending, .. } = &mut self.stage {
            pending.retain(|p| *p != id);
        }
    }
}

/// The churn run's state.
#[derive(Debug)]
pub(super) struct Churn {
    pub(super) spec: ChurnSpec,
    /// One life, nanoseconds.
    life: u64,
    seed: u64,
    /// Lives begun.
    pub(super) started: u64,
    /// Node slots whose life ended, for the next.
    vacant: Vec<usize>,
    /// The UP functions as the CP functions' overload control names them.
    up_dests: Vec<Destination>,
    pub(super) result: ChurnResult,
}

impl Churn {
    pub(super) fn new(spec: &ChurnSpec, seed: u64, ups: usize) -> Self {
        Churn {
            spec: spec.clone(),
            life: ns(spec.life_secs()).max(1),
            seed,
            started: 0,
            vacant: Vec::new(),
            up_dests: (0..ups)
                .map(|u| Destination::node(config::up_node_id(u)))
                .collect(),
            result: ChurnResult {
                life_secs: spec.life_secs(),
                peak: vec![UpTables::default(); ups],
                ..ChurnResult::default()
            },
        }
    }

    /// When the first life of `place` ends: the places' first lives end one after the other
    /// over one life, so that lives end at an even pace.
    pub(super) fn first_end(&self, place: usize) -> u64 {
        let live = self.spec.live.max(1) as u64;
        self.life.saturating_mul(place as u64 + 1) / live
    }

    /// Whether CP function `number` releases its associations when its life ends (or
    /// vanishes): a draw from the seed.
    pub(super) fn releases(&self, number: usize) -> bool {
        let mut s = self.seed ^ 0xC4u64.rotate_left(56) ^ (number as u64).wrapping_mul(0x9E37);
        unit(splitmix(&mut s)) >= self.spec.vanish
    }

    /// Count a life's checks and associations.
    fn fold(&mut self, life: &Life) {
        let t: &mut ThrottleCheck = &mut self.result.throttle;
        if life.checks > 0 {
            t.lives_checked += 1;
            if life.checks_throttled > 0 {
                t.lives_throttled += 1;
            } else if life.checks >= 2 {
                t.lives_never_throttled += 1;
            }
        }
        t.checks += life.checks;
        t.checks_throttled += life.checks_throttled;
        self.result.associations_accepted += life.associations_accepted;
        // Those still unanswered when the life ended went unanswered.
        self.result.associations_refused +=
            life.associations_refused + life.associating.len() as u64;
    }
}

impl Engine<'_> {
    /// Move CP function `i`'s life on: its end, its drain, its release, its slot.
    pub(super) fn life_step(&mut self, i: usize) {
        let now = self.now;
        let App::Cp(c) = &mut self.nodes[i].app else {
            return;
        };
        match &c.life.stage {
            Stage::Live if c.life.ends_at.is_some_and(|e| e <= now) => self.end_life(i),
            Stage::Live => {}
            Stage::Draining { deadline } => {
                if *deadline <= now {
                    self.vacate(i);
                } else if c.inflight.is_empty() {
                    self.release(i);
                }
            }
            Stage::Releasing { pending, deadline } => {
                if pending.is_empty() || *deadline <= now {
                    self.vacate(i);
                }
            }
            Stage::Done => self.vacate(i),
        }
    }

    /// CP function `i`'s offers end: a successor takes its place, and it releases its
    /// associations once its requests are answered, or vanishes at once.
    fn end_life(&mut self, i: usize) {
        let now = self.now;
        let drain = ns(self.scenario.t1_ms as f64 / 1000.0 * f64::from(self.scenario.n1 + 1));
        let (place, releases) = match &mut self.nodes[i].app {
            App::Cp(c) => {
                c.next_arrival = None;
                c.life.ends_at = None;
                (c.place, c.life.releases)
            }
            _ => return,
        };
        self.spawn_successor(place);
        let Some(churn) = self.churn.as_mut() else {
            return;
        };
        if releases {
            churn.result.released += 1;
            if let App::Cp(c) = &mut self.nodes[i].app {
                c.life.stage = Stage::Draining {
                    deadline: now + drain,
                };
            }
            self.life_step(i);
        } else {
            churn.result.vanished += 1;
            self.vacate(i);
        }
    }

    /// A new CP function in `place`, in a slot a finished life left or a new one, if the run
    /// has lives left and time to offer.
    fn spawn_successor(&mut self, place: usize) {
        let now = self.now;
        let Some(churn) = self.churn.as_ref() else {
            return;
        };
        if churn.started >= churn.spec.associations as u64 || now >= self.offers_end {
            return;
        }
        let number = churn.started as usize;
        let end = now.saturating_add(churn.life);
        let ends_at = (end < self.offers_end).then_some(end);
        // Its configuration is the first lives' with another number: accepted as theirs was.
        let Ok(cp) = self.cp_node(number, place, ends_at) else {
            return;
        };
        let Some(churn) = self.churn.as_mut() else {
            return;
        };
        churn.started += 1;
        churn.result.started = churn.started;
        let i = match churn.vacant.pop() {
            Some(i) => {
                self.by_addr.insert(cp.addr, i);
                self.nodes[i] = cp;
                self.gens[i] += 1;
                self.scheduled[i] = None;
                self.node_due[i] = None;
                i
            }
            None => self.add(cp),
        };
        self.start_cp(i);
    }

    /// CP function `i` sends an Association Release Request to every UP function (clause
    /// 6.2.8).
    fn release(&mut self, i: usize) {
        let now = self.now;
        let t = self.instant(now);
        let ups: Vec<_> = (0..self.scenario.ups.len()).map(up_addr).collect();
        let deadline =
            now + ns(self.scenario.t1_ms as f64 / 1000.0 * f64::from(self.scenario.n1 + 1));
        let SimNode { node, app, .. } = &mut self.nodes[i];
        let App::Cp(c) = app else {
            return;
        };
        let header = Header::new(MessageType::ASSOCIATION_RELEASE_REQUEST);
        let profile = RequestProfile::default();
        let mut pending: Vec<RequestId> = Vec::new();
        for u in ups {
            if node.peers().is_associated(&u) {
                if let Ok(id) = node.send_request(u, header, &c.node_ie, &profile, t) {
                    pending.push(id);
                }
            }
        }
        c.life.stage = if pending.is_empty() {
            Stage::Done
        } else {
            Stage::Releasing { pending, deadline }
        };
        self.pump(i);
    }

    /// CP function `i`'s life is over: what it measured joins the departed's, and its slot
    /// is left for the next life (datagrams still on their way to it are dropped).
    pub(super) fn vacate(&mut self, i: usize) {
        let app = std::mem::replace(&mut self.nodes[i].app, App::Vacant);
        let App::Cp(mut c) = app else {
            self.nodes[i].app = app;
            return;
        };
        self.ideal.departed_offered += std::mem::take(&mut c.record.offered_now);
        self.ideal.departed_succeeded += std::mem::take(&mut c.record.succeeded_now);
        self.slots_max = self.slots_max.max(c.driver.allocated_slots() as u64);
        let d = c.driver.counts;
        let s = &mut self.departed_sessions;
        s.established += d.established;
        s.deleted += d.deleted;
        s.lost += d.lost;
        s.restored += d.restored;
        if let Some((_, r)) = self.departed.iter_mut().find(|(p, _)| *p == c.profile) {
            r.add(&mut c.record, &c.wire);
        }
        if let Some(churn) = self.churn.as_mut() {
            churn.fold(&c.life);
            churn.vacant.push(i);
        }
        let addr = self.nodes[i].addr;
        if self.by_addr.get(&addr) == Some(&i) {
            self.by_addr.remove(&addr);
        }
        self.gens[i] += 1;
        self.scheduled[i] = None;
        self.node_due[i] = None;
    }

    /// The churn run's look at one control interval: each UP function's tables, and each live
    /// CP function's reduction towards each UP function that published a metric above 0
    /// (`metrics`, per UP function).
    pub(super) fn sample_lives(&mut self, metrics: &[u8]) {
        let t = self.instant(self.now);
        let Some(churn) = self.churn.as_mut() else {
            return;
        };
        let mut sample = TableSample {
            t: self.now as f64 / 1e9,
            engine_nodes: self.nodes.len(),
            released: churn.result.released,
            vanished: churn.result.vanished,
            ..TableSample::default()
        };
        for (i, n) in self.nodes.iter_mut().enumerate() {
            match &mut n.app {
                App::Up(_) => {
                    let x = &n.node;
                    let tables = if self.down.get(i) == Some(&true) {
                        UpTables::default()
                    } else {
                        UpTables {
                            peers: x.peers().len(),
                            associated: x.peers().associated().count(),
                            sessions: x.session_count(),
                            guard_sources: x.guard().len(),
                            cached_responses: x.transactions().cached_responses(),
                            pending_requests: x.transactions().pending_requests(),
                            outstanding: x.transactions().outstanding(),
                        }
                    };
                    if let Some(p) = churn.result.peak.get_mut(sample.ups.len()) {
                        *p = p.max(tables);
                    }
                    sample.ups.push(tables);
                }
                App::Cp(c) if c.life.offering() => {
                    sample.live_cps += 1;
                    if n.node.cp().is_none() {
                        continue;
                    }
                    for (u, dest) in churn.up_dests.iter().enumerate() {
                        let overloaded = metrics.get(u).is_some_and(|&m| m > 0);
                        if overloaded && n.node.peers().is_associated(&up_addr(u)) {
                            c.life.checks += 1;
                            if n.node.reduction(dest, t) > 0 {
                                c.life.checks_throttled += 1;
                            }
                        }
                    }
                }
                App::Cp(_) => sample.leaving_cps += 1,
                App::Vacant => {}
            }
        }
        churn.result.tables.push(sample);
    }

    /// The churn run's result: the lives still running counted in.
    pub(super) fn churn_result(&mut self) -> Option<ChurnResult> {
        let mut churn = self.churn.take()?;
        for n in &self.nodes {
            if let App::Cp(c) = &n.app {
                churn.fold(&c.life);
            }
        }
        let mut r = churn.result;
        for n in &self.nodes {
            if let App::Up(u) = &n.app {
                r.releases_seen += u.releases_seen;
                r.failures_seen += u.failures_seen;
            }
        }
        Some(r)
    }
}
