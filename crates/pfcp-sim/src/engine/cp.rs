//! The CP functions' side of the engine: their traffic, their offers on their own grid
//! (module docs of the engine, "Arrivals"), the message priority their profile puts in the
//! header, and what they record of each outcome.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use pfcp_node::{Node, RequestError, RequestId, Response};
use pfcp_throttle::classify::Procedure;
use pfcp_throttle::Classifier;
use pfcp_wire::ie::RecoveryTimeStamp;

use super::lives::Life;
use super::{ns, up_addr, App, Arrivals, Engine, Map, SimError, SimNode};
use crate::config;
use crate::record::{CpRecorder, WireMarks};
use crate::scenario::{CpProfile, Selection};
use crate::traffic::{build_request, splitmix, unit, SessionDriver, Work};

/// A request in flight at a CP function.
#[derive(Debug)]
pub(super) struct InFlight {
    pub(super) work: Work,
    pub(super) offered_at: u64,
    pub(super) counted: bool,
}

/// A CP function's traffic and what it measured.
#[derive(Debug)]
pub(super) struct CpApp {
    /// Its place among the CP functions offering at once (its number but in a churn run).
    pub(super) place: usize,
    pub(super) profile: CpProfile,
    pub(super) driver: SessionDriver,
    pub(super) ups: Vec<SocketAddr>,
    /// The UP functions with their static weights (their capacities, as an operator
    /// configures them: Annex B combines them with the LCI), the candidates of a selection.
    pub(super) candidates: Vec<(SocketAddr, u32)>,
    pub(super) node_ie: Vec<u8>,
    pub(super) ip: IpAddr,
    pub(super) classifier: Classifier,
    pub(super) selection: Selection,
    pub(super) rr: usize,
    pub(super) rng: u64,
    /// Where in each gap its paced offers fall, a fraction of the gap.
    pub(super) phase: f64,
    pub(super) next_arrival: Option<u64>,
    pub(super) inflight: Map<RequestId, InFlight>,
    pub(super) max_outstanding: usize,
    pub(super) record: CpRecorder,
    /// The priorities in the headers of the session requests it sent.
    pub(super) wire: [WireMarks; 3],
    pub(super) life: Life,
}

/// The address of CP function `i` (below 2^23, [`Scenario::validate`]).
pub(super) fn cp_addr(i: usize) -> SocketAddr {
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

impl Engine<'_> {
    /// CP function `number` in `place` (its profile is the place's), offering until
    /// `ends_at` if its life ends.
    pub(super) fn cp_node(
        &self,
        number: usize,
        place: usize,
        ends_at: Option<u64>,
    ) -> Result<SimNode, SimError> {
        let scenario = self.scenario;
        let profile = scenario.cp_profile(place);
        let rts = RecoveryTimeStamp(3_800_000_000_u32.wrapping_add(number as u32));
        let config = config::cp_config_with(scenario, number, self.strategy, rts, profile);
        let node = Node::new(config, self.instant(self.now))?;
        let addr = cp_addr(number);
        let seed = crate::traffic::driver_seed(scenario.seed, number);
        let driver = SessionDriver::new(
            self.classes.to_vec(),
            scenario.sessions_per_cp,
            scenario.modifications,
            scenario.redirect && scenario.ups.len() > 1,
            seed,
        );
        let ups: Vec<SocketAddr> = (0..scenario.ups.len()).map(up_addr).collect();
        let releases = self.churn.as_ref().is_some_and(|c| c.releases(number));
        Ok(SimNode {
            node,
            addr,
            app: App::Cp(Box::new(CpApp {
                place,
                profile,
                driver,
                candidates: ups
                    .iter()
                    .enumerate()
                    .map(|(u, a)| (*a, config::up_weight(scenario, u)))
                    .collect(),
                ups,
                node_ie: config::node_id_ie(&config::cp_node_id(number)),
                ip: addr.ip(),
                classifier: Classifier::default(),
                selection: scenario.selection,
                rr: number,
                rng: seed ^ 0x5EED,
                phase: 0.0,
                next_arrival: None,
                inflight: Map::default(),
                max_outstanding: 65_536,
                record: CpRecorder::new(self.classes.len(), scenario.ups.len()),
                wire: [WireMarks::default(); 3],
                life: Life::new(ends_at, releases),
            })),
        })
    }

    /// CP function `i` starts: it associates with every UP function now and offers from
    /// 50 ms later.
    pub(super) fn start_cp(&mut self, i: usize) {
        let now = self.now;
        let t = self.instant(now);
        let ups: Vec<SocketAddr> = (0..self.scenario.ups.len()).map(up_addr).collect();
        let SimNode { node, app, .. } = &mut self.nodes[i];
        let App::Cp(c) = app else {
            return;
        };
        for &u in &ups {
            if let Ok(id) = node.associate(u, t) {
                c.life.associating.push(id);
            }
        }
        // Each CP function offers at a phase of its own, uniform over its gap (module docs,
        // "Arrivals").
        c.phase = unit(splitmix(&mut c.rng));
        let phase = c.phase;
        let first = now
            + ns(0.05)
            + ns(match self.scenario.arrivals {
                Arrivals::Paced => phase * self.gap_at(now, phase),
                Arrivals::Poisson => self.gap_at(now, phase),
            });
        self.next_arrival(i, first);
        self.pump(i);
    }

    /// The gap in seconds from one offer of a CP function at `t` to its next: the offered
    /// rate's period when paced, an exponential draw from `u` (uniform in [0, 1)) when Poisson.
    pub(super) fn gap_at(&self, t: u64, u: f64) -> f64 {
        let rate = self.load_at(t) * self.scenario.capacity() / self.offering_cps() as f64;
        match self.scenario.arrivals {
            Arrivals::Poisson => -(1.0 - u).ln() / rate.max(1e-9),
            Arrivals::Paced => 1.0 / rate.max(1e-9),
        }
    }

    pub(super) fn next_arrival(&mut self, i: usize, at: u64) {
        let end = self.offers_end;
        if let App::Cp(c) = &mut self.nodes[i].app {
            let life_end = c.life.ends_at.unwrap_or(u64::MAX);
            c.next_arrival = (at < end && at < life_end && c.life.offering()).then_some(at);
        }
    }

    /// One offer of CP function `i`.
    pub(super) fn offer(&mut self, i: usize) {
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
        // The header's message priority is the profile's: with this toolkit's profile, every
        // strategy marks its requests with the classifier's priority, so that the UP's
        // self-protection can rank them (clause 6.2.4.5.2).
        let mt = header.message_type;
        let classified = c
            .classifier
            .classify(&work.profile.context(Procedure::of(mt)))
            .class
            .priority;
        let header = match c.profile.header_priority(mt, classified) {
            Some(p) => header.with_priority(p),
            None => header,
        };
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
}

impl CpApp {
    pub(super) fn settle(&mut self, f: InFlight, result: Result<Response, RequestError>, now: u64) {
        let latency = Duration::from_nanos(now.saturating_sub(f.offered_at));
        let settled = self
            .record
            .settle(&f.work, &result, &self.ups, latency, f.counted);
        self.driver.settle(&f.work, settled);
    }
}
