//! What a run measures as it goes and at its end: the UP functions' counters per control
//! interval, the ideal (the capacity of the UP functions that are up, against what was
//! offered), and the [`RunResult`].

use super::{App, Engine, Plan, NS};
use crate::record::{profile_results, CpRecorder, RunResult, Sample, SlotUse, INTERVAL_IDEAL};
use crate::traffic::SessionCounts;

/// The ideal goodput, accumulated per control interval: `min(offered, capacity available)`
/// of each interval, where a UP function that is down has no capacity.
#[derive(Debug, Clone, Default)]
pub(super) struct Ideal {
    /// Requests the CP functions whose life ended offered, and saw succeed, since the last
    /// sample.
    pub(super) departed_offered: u64,
    pub(super) departed_succeeded: u64,
    /// Requests offered in the interval so far (taken at each sample).
    offered: u64,
    /// Capacity available in the interval so far, requests.
    capacity: f64,
    /// Up to when `capacity` is counted, nanoseconds.
    counted_to: u64,
    /// The intervals' sum so far, requests.
    total: f64,
}

impl Engine<'_> {
    /// Count the capacity of the UP functions up from the last count to `t`.
    pub(super) fn account_capacity(&mut self, t: u64) {
        let up: f64 = self
            .scenario
            .ups
            .iter()
            .zip(&self.down)
            .filter(|(_, down)| !**down)
            .map(|(u, _)| u.capacity)
            .sum();
        let secs = t.saturating_sub(self.ideal.counted_to) as f64 / NS as f64;
        self.ideal.capacity += up * secs;
        self.ideal.counted_to = self.ideal.counted_to.max(t);
    }

    /// Close the interval ending at `t`: its ideal is what was offered in it, up to the
    /// capacity available.
    fn close_interval(&mut self, t: u64) {
        self.account_capacity(t);
        let i = &mut self.ideal;
        i.total += (i.offered as f64).min(i.capacity);
        i.offered = 0;
        i.capacity = 0.0;
    }

    /// Read UP function `u`'s admission counters into its totals; the deltas since the last
    /// read: (offered, served).
    pub(super) fn read_up_counters(&mut self, u: usize) -> (u64, u64) {
        let down = self.down.get(u) == Some(&true);
        let n = &mut self.nodes[u];
        let App::Up(a) = &mut n.app else {
            return (0, 0);
        };
        let (off, srv, refused) = match n.node.admission() {
            Some(adm) if !down => {
                let s = adm.stats();
                (
                    s.offered,
                    s.served,
                    s.rejected + s.evicted + s.expired + s.dropped,
                )
            }
            _ => (a.last_offered, a.last_served, a.last_refused),
        };
        let d_off = off.saturating_sub(a.last_offered);
        let d_srv = srv.saturating_sub(a.last_served);
        a.refused_total += refused.saturating_sub(a.last_refused);
        a.last_offered = off;
        a.last_served = srv;
        a.last_refused = refused;
        a.offered_total += d_off;
        a.served_total += d_srv;
        a.unsampled_offered += d_off;
        a.unsampled_served += d_srv;
        (d_off, d_srv)
    }

    /// One control interval's sample.
    pub(super) fn sample(&mut self) {
        let secs = self.interval as f64 / NS as f64;
        let cap = self.scenario.capacity();
        let mut s = Sample {
            t: self.now as f64 / NS as f64,
            ..Sample::default()
        };
        let mut offered = std::mem::take(&mut self.ideal.departed_offered);
        let mut succeeded = std::mem::take(&mut self.ideal.departed_succeeded);
        for u in 0..self.nodes.len() {
            if matches!(self.nodes[u].app, App::Up(_)) {
                self.read_up_counters(u);
            }
        }
        for (i, n) in self.nodes.iter_mut().enumerate() {
            match &mut n.app {
                App::Cp(c) => {
                    offered += std::mem::take(&mut c.record.offered_now);
                    succeeded += std::mem::take(&mut c.record.succeeded_now);
                }
                App::Up(u) => {
                    let (metric, queue) = match n.node.admission() {
                        Some(a) if !self.down[i] => (a.overload_metric(), a.len() as u64),
                        _ => (0, 0),
                    };
                    s.arrived += std::mem::take(&mut u.unsampled_offered) as f64 / secs;
                    s.served += std::mem::take(&mut u.unsampled_served) as f64 / secs;
                    s.metric.push(metric);
                    s.queue.push(queue);
                }
                App::Vacant => {}
            }
        }
        self.ideal.offered += offered;
        self.close_interval(self.now);
        s.offered = offered as f64 / secs / cap;
        s.succeeded = succeeded as f64 / secs;
        if self.churn.is_some() {
            let metrics = s.metric.clone();
            self.sample_lives(&metrics);
        }
        if !matches!(self.plan, Plan::Steady(_)) {
            self.series.push(s);
        }
    }

    pub(super) fn result(mut self) -> RunResult {
        let names: Vec<String> = self.classes.iter().map(|c| c.name.clone()).collect();
        // The last, partial interval's offers and capacity.
        for n in &mut self.nodes {
            if let App::Cp(c) = &mut n.app {
                self.ideal.offered += std::mem::take(&mut c.record.offered_now);
            }
        }
        self.ideal.offered += std::mem::take(&mut self.ideal.departed_offered);
        self.close_interval(self.now);
        let mut refused_per_up = Vec::new();
        for u in 0..self.nodes.len() {
            if matches!(self.nodes[u].app, App::Up(_)) {
                self.read_up_counters(u);
            }
        }
        let churn = self.churn_result();
        let mut profiles = std::mem::take(&mut self.departed);
        let mut sessions: SessionCounts = self.departed_sessions;
        let mut slots = SlotUse {
            max_per_cp: self.slots_max,
            total: 0,
        };
        let mut datagrams = 0u64;
        for n in &mut self.nodes {
            match &mut n.app {
                App::Cp(c) => {
                    if let Some((_, r)) = profiles.iter_mut().find(|(p, _)| *p == c.profile) {
                        r.add(&mut c.record, &c.wire);
                    }
                    let d = c.driver.counts;
                    sessions.established += d.established;
                    sessions.deleted += d.deleted;
                    sessions.lost += d.lost;
                    sessions.restored += d.restored;
                    let allocated = c.driver.allocated_slots() as u64;
                    slots.max_per_cp = slots.max_per_cp.max(allocated);
                    slots.total += allocated;
                }
                App::Up(u) => {
                    datagrams += n.node.stats().datagrams_received;
                    refused_per_up.push(u.refused_total);
                }
                App::Vacant => {}
            }
        }
        let measured = (self.window.1 - self.window.0) as f64 / NS as f64;
        let by_profile = profile_results(&profiles, &names, measured);
        let mut all = CpRecorder::new(names.len(), self.scenario.ups.len());
        for (_, r) in &mut profiles {
            all.merge(&mut r.record);
        }
        let load = match self.plan {
            Plan::Steady(x) => *x,
            Plan::Step(s) => s.during,
            Plan::Restart(r) => r.load,
            Plan::Churn(c) => c.load,
        };
        let end = (self.now as f64 / NS as f64).max(1e-9);
        let mut r = all.result(
            self.strategy.name(),
            load,
            &names,
            measured,
            self.scenario.capacity(),
        );
        if !matches!(self.plan, Plan::Steady(_)) {
            r.ideal = self.ideal.total / measured.max(1e-9);
            r.ideal_basis = INTERVAL_IDEAL.into();
        }
        r.sessions = sessions;
        r.up_datagrams = datagrams as f64 / end;
        r.series = std::mem::take(&mut self.series);
        r.refused_per_up = refused_per_up;
        r.restarted_up = match self.plan {
            Plan::Restart(x) => Some(x.up),
            _ => None,
        };
        r.by_profile = by_profile;
        r.node_counters = vec![0.0; pfcp_node::node::METRICS.len()];
        for n in &self.nodes {
            let mut i = 0;
            n.node.metrics(|m, v| {
                if let Some(sum) = r.node_counters.get_mut(i) {
                    if m.kind == pfcp_node::node::MetricKind::Counter {
                        *sum += v;
                    }
                }
                i += 1;
            });
        }
        r.session_slots = slots;
        r.churn = churn;
        r
    }
}
