//! The sessions the load generator drives and what it counts: the slots, the queue of
//! pending steps, and the outcome of every request ([`Tally`]) per class, per request type
//! and per UP function.
//!
//! A request the CP's overload control refuses is counted as throttled, never sent: it failed
//! locally with cause 74 as though the UP had rejected it (TS 29.244 clause 6.2.4.4). A
//! Session Establishment answered by another UP function than the one asked was redirected.
//! Requests on an established session name its PFCP entity (the UP F-SEID address), the
//! scope of an entity OCI (clause 6.2.4.3.1).

use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use pfcp_node::{Error as NodeError, RequestProfile, Response, ResponseOrigin};
use pfcp_overload::NodeKey;
use pfcp_throttle::classify::Registration;
use pfcp_wire::Message;
use serde::Serialize;

use super::Ctx;
use crate::egress::shed_reason;
use pfcp_sim::traffic::{pick, splitmix, Step};

/// Outcome counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Requests offered to the endpoint.
    pub offered: u64,
    /// Sent to a UP function (answered, or timed out).
    pub sent: u64,
    /// Not sent: refused by the CP's overload control (cause 74, locally).
    pub throttled: u64,
    /// Not sent: the UP function had no association with this CP (it restarted or failed; the
    /// node is setting the association up again), answered locally with cause 72.
    pub unassociated: u64,
    /// Answered by a UP function other than the one asked (Session Establishment only).
    pub redirected: u64,
    /// Answered with an acceptance cause.
    pub succeeded: u64,
    /// Answered with a rejection cause.
    pub rejected: u64,
    /// No response after N1 retransmissions.
    pub timed_out: u64,
    /// Failed otherwise (undecodable response, local error).
    pub errors: u64,
}

/// One session slot.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Slot {
    pub(super) class: usize,
    /// The UP function (index in `--up`) holding the session, or asked to.
    pub(super) up: usize,
    pub(super) cp_seid: u64,
    pub(super) up_seid: u64,
    pub(super) entity: Option<IpAddr>,
    pub(super) modifications_left: u32,
    /// The UP function lost the session while a step of it was in flight: established again
    /// when that step settles.
    pub(super) lost: bool,
    /// This establishment restores a lost session (it ranks as a restoration, TS 29.273
    /// annex C.2).
    pub(super) restoring: bool,
}

/// What the UP functions sent.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct UpTally {
    pub(super) answered: u64,
    /// New sessions it accepted.
    pub(super) established: u64,
    pub(super) ocis: u64,
    pub(super) last_oci: Option<u8>,
}

/// A request to make.
#[derive(Debug)]
pub(super) struct Work {
    slot: usize,
    pub(super) step: Step,
    pub(super) session: Slot,
    pub(super) addr: SocketAddr,
    pub(super) profile: RequestProfile,
    /// When it was offered (the steady-state tally counts by it).
    pub(super) offered_at: tokio::time::Instant,
}

/// Everything the pacer, the transactions and the progress lines share.
#[derive(Debug)]
pub(super) struct State {
    pub(super) total: Tally,
    pub(super) by_class: Vec<Tally>,
    pub(super) by_step: [Tally; 3],
    pub(super) by_class_step: Vec<[Tally; 3]>,
    pub(super) rejected_by_cause: BTreeMap<u8, u64>,
    pub(super) errors_by_kind: BTreeMap<String, u64>,
    pub(super) skipped_outstanding: u64,
    pub(super) skipped_no_session: u64,
    pub(super) latencies_us: Vec<u32>,
    slots: Vec<Slot>,
    free: Vec<usize>,
    ready: VecDeque<(usize, Step)>,
    /// Sessions established less than `--hold-ms` ago, in the order they become ready.
    held: VecDeque<(tokio::time::Instant, usize, Step)>,
    hold: Duration,
    rng: u64,
    next_cp_seid: u64,
    next_up: usize,
    pub(super) established: u64,
    pub(super) deleted: u64,
    /// Sessions the UP functions lost (restart, failed heartbeats) and those established
    /// again.
    pub(super) lost: u64,
    pub(super) restored: u64,
    pub(super) per_up: Vec<UpTally>,
    /// Per class, the new sessions each UP function accepted (where its sessions went).
    pub(super) class_per_up: Vec<Vec<u64>>,
    pub(super) outstanding: u64,
    pub(super) stopping: bool,
    /// Requests refused locally, by the throttle and reason ([`shed_reason`]).
    pub(super) shed_by_reason: BTreeMap<String, u64>,
    /// The same per class.
    pub(super) class_shed: Vec<BTreeMap<String, u64>>,
    /// Per UP function, the level of its egress connection sampled each second.
    pub(super) levels: Vec<Vec<u8>>,
    /// With `--track-state`: per classification label (`p3 arp registered+follows_admitted`),
    /// requests offered, sent and refused locally.
    pub(super) by_label: BTreeMap<String, LabelTally>,
    /// With `--warmup-secs`: what requests started after the warm-up came to.
    pub(super) steady: Option<Steady>,
    /// Whether the request being settled started after the warm-up.
    in_steady: bool,
    /// What happened to UP functions lost during the run (failed heartbeats, restarts,
    /// releases), in words: the exit status is 4 if there is any.
    pub(super) up_events: Vec<String>,
}

/// The requests that started after the warm-up (`--warmup-secs`): the steady state, without
/// the first seconds in which no OCI has reached the CP yet.
#[derive(Debug)]
pub(super) struct Steady {
    /// When the warm-up ends.
    pub(super) from: tokio::time::Instant,
    pub(super) total: Tally,
    pub(super) by_class: Vec<Tally>,
    pub(super) latencies_us: Vec<u32>,
}

/// The requests of one classification label.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct LabelTally {
    /// Offered.
    pub offered: u64,
    /// Sent to a UP function.
    pub sent: u64,
    /// Refused by the CP's overload control.
    pub throttled: u64,
}

/// Most latency samples kept (40 MB).
const MAX_SAMPLES: usize = 10_000_000;

impl State {
    pub(super) fn new(sessions: usize, classes: usize, ups: usize, seed: u64) -> Self {
        State {
            total: Tally::default(),
            by_class: vec![Tally::default(); classes],
            by_step: [Tally::default(); 3],
            by_class_step: vec![[Tally::default(); 3]; classes],
            rejected_by_cause: BTreeMap::new(),
            errors_by_kind: BTreeMap::new(),
            skipped_outstanding: 0,
            skipped_no_session: 0,
            latencies_us: Vec::new(),
            slots: vec![Slot::default(); sessions],
            free: (0..sessions).rev().collect(),
            ready: VecDeque::new(),
            held: VecDeque::new(),
            hold: Duration::ZERO,
            rng: seed,
            next_cp_seid: 1,
            next_up: 0,
            established: 0,
            deleted: 0,
            lost: 0,
            restored: 0,
            per_up: vec![UpTally::default(); ups],
            class_per_up: vec![vec![0; ups]; classes],
            outstanding: 0,
            stopping: false,
            shed_by_reason: BTreeMap::new(),
            class_shed: vec![BTreeMap::new(); classes],
            levels: vec![Vec::new(); ups],
            by_label: BTreeMap::new(),
            steady: None,
            in_steady: false,
            up_events: Vec::new(),
        }
    }

    /// Count a request of classification `label` and its outcome.
    pub(super) fn count_label(&mut self, label: String, result: &Result<Response, NodeError>) {
        let t = self.by_label.entry(label).or_default();
        t.offered += 1;
        match result {
            Ok(r) if r.is_local() => t.throttled += 1,
            Ok(_) => t.sent += 1,
            Err(_) => {}
        }
    }

    fn record(&mut self, class: usize, step: Step, f: impl Fn(&mut Tally)) {
        if let (true, Some(s)) = (self.in_steady, self.steady.as_mut()) {
            f(&mut s.total);
            if let Some(t) = s.by_class.get_mut(class) {
                f(t);
            }
        }
        f(&mut self.total);
        if let Some(t) = self.by_class.get_mut(class) {
            f(t);
        }
        if let Some(t) = self.by_step.get_mut(step.index()) {
            f(t);
        }
        if let Some(t) = self
            .by_class_step
            .get_mut(class)
            .and_then(|steps| steps.get_mut(step.index()))
        {
            f(t);
        }
    }

    /// Keep a steady-state tally of the requests that start at `from` or later.
    pub(super) fn count_steady_from(&mut self, from: tokio::time::Instant) {
        self.steady = Some(Steady {
            from,
            total: Tally::default(),
            by_class: vec![Tally::default(); self.by_class.len()],
            latencies_us: Vec::new(),
        });
    }

    /// With sessions held `hold` after their establishment before their next step.
    pub(super) fn with_hold(mut self, hold: Duration) -> Self {
        self.hold = hold;
        self
    }

    /// The next request: a pending step of a session, else a new session's establishment.
    pub(super) fn next_work(&mut self, ctx: &Ctx) -> Option<Work> {
        if !self.held.is_empty() {
            let t = crate::now();
            while let Some((_, slot, step)) = self.held.front().filter(|h| h.0 <= t).copied() {
                self.held.pop_front();
                self.ready.push_back((slot, step));
            }
        }
        let (slot, step) = match self.ready.pop_front() {
            Some(next) => next,
            None => {
                let slot = self.free.pop()?;
                let class = pick(&ctx.classes, splitmix(&mut self.rng));
                // With route groups, a new session is asked of the preferred group; the route
                // list moves it when that group is congested.
                let eligible = if ctx.preferred.is_empty() {
                    ctx.ups.len()
                } else {
                    ctx.preferred.len()
                };
                let nth = |i: usize| ctx.preferred.get(i).copied().unwrap_or(i);
                let up = match ctx.select {
                    super::Select::RoundRobin => {
                        let up = nth(self.next_up % eligible.max(1));
                        self.next_up = self.next_up.wrapping_add(1);
                        up
                    }
                    super::Select::Load => {
                        let candidates: Vec<(SocketAddr, u32)> = (0..eligible)
                            .filter_map(|i| ctx.ups.get(nth(i)))
                            .map(|u| (u.addr, u.weight))
                            .collect();
                        ctx.endpoint
                            .select_up(&candidates)
                            .ok()
                            .flatten()
                            .and_then(|a| ctx.ups.iter().position(|u| u.addr == a))
                            .unwrap_or(0)
                    }
                };
                let cp_seid = self.next_cp_seid;
                self.next_cp_seid += 1;
                if let Some(s) = self.slots.get_mut(slot) {
                    *s = Slot {
                        class,
                        up,
                        cp_seid,
                        up_seid: 0,
                        entity: None,
                        modifications_left: ctx.modifications,
                        lost: false,
                        restoring: false,
                    };
                }
                (slot, Step::Establish)
            }
        };
        let session = *self.slots.get(slot)?;
        let addr = ctx.ups.get(session.up)?.addr;
        let class = ctx.classes.get(session.class)?;
        let mut profile = class.profile.clone();
        match step {
            Step::Establish => {
                profile = profile.with_redirect(ctx.redirect);
                if session.restoring {
                    profile.context.state.restoration = Some(true);
                }
            }
            Step::Modify | Step::Delete => {
                profile.context.state.registration = Some(Registration::Registered);
                if let Some(ip) = session.entity {
                    profile = profile.with_entity(ip);
                }
            }
        }
        let offered_at = crate::now();
        self.in_steady = self.steady.as_ref().is_some_and(|s| offered_at >= s.from);
        self.record(session.class, step, |t| t.offered += 1);
        self.outstanding += 1;
        Some(Work {
            slot,
            step,
            session,
            addr,
            profile,
            offered_at,
        })
    }

    /// Count the result of `w` and schedule the session's next step.
    pub(super) fn settle(
        &mut self,
        ctx: &Ctx,
        w: &Work,
        result: Result<Response, NodeError>,
        latency: Duration,
    ) {
        self.outstanding = self.outstanding.saturating_sub(1);
        // Counted in the steady state if it was offered after the warm-up, as its offer was.
        self.in_steady = self.steady.as_ref().is_some_and(|s| w.offered_at >= s.from);
        let (class, step) = (w.session.class, w.step);
        let mut holder = w.session.up;
        let mut accepted = false;
        let mut up_fseid = None;
        let mut outcome = "error";
        match result {
            Ok(r) if matches!(r.origin, ResponseOrigin::NoAssociation) => {
                outcome = "unassociated";
                self.record(class, step, |t| t.unassociated += 1)
            }
            Ok(r) if r.is_local() => {
                outcome = "throttled";
                let reason = shed_reason(&r.origin);
                if let Some(m) = self.class_shed.get_mut(class) {
                    *m.entry(reason.clone()).or_insert(0) += 1;
                }
                *self.shed_by_reason.entry(reason).or_insert(0) += 1;
                self.record(class, step, |t| t.throttled += 1)
            }
            Ok(r) => match Message::decode(&r.bytes) {
                Ok(msg) => {
                    self.record(class, step, |t| t.sent += 1);
                    if step == Step::Establish {
                        if let Some(i) = msg
                            .node_id()
                            .ok()
                            .flatten()
                            .and_then(|n| ctx.index_of.get(&NodeKey::from_node_id(&n)).copied())
                        {
                            holder = i;
                        }
                        if holder != w.session.up {
                            self.record(class, step, |t| t.redirected += 1);
                        }
                    }
                    if let Some(u) = self.per_up.get_mut(holder) {
                        u.answered += 1;
                        if let Ok(Some(oci)) = msg.overload_control_information() {
                            u.ocis += 1;
                            u.last_oci = Some(oci.metric.percent());
                            let peer = ctx.ups.get(holder).map(|u| u.node.to_string());
                            let peer = peer.unwrap_or_default();
                            metrics::counter!("pfcp_cp_oci_received_total", "peer" => peer.clone())
                                .increment(1);
                            metrics::gauge!("pfcp_cp_overload_metric_percent", "peer" => peer)
                                .set(f64::from(oci.metric.percent()));
                        }
                    }
                    match msg.cause().ok().flatten() {
                        Some(c) if c.is_acceptance() == Some(true) => {
                            accepted = true;
                            outcome = "succeeded";
                            self.record(class, step, |t| t.succeeded += 1);
                            let us = u32::try_from(latency.as_micros()).unwrap_or(u32::MAX);
                            if self.latencies_us.len() < MAX_SAMPLES {
                                self.latencies_us.push(us);
                            }
                            if let (true, Some(s)) = (self.in_steady, self.steady.as_mut()) {
                                if s.latencies_us.len() < MAX_SAMPLES {
                                    s.latencies_us.push(us);
                                }
                            }
                            up_fseid = msg.f_seid().ok().flatten();
                        }
                        cause => {
                            outcome = "rejected";
                            self.record(class, step, |t| t.rejected += 1);
                            let code = cause.map_or(0, |c| c.0);
                            *self.rejected_by_cause.entry(code).or_default() += 1;
                        }
                    }
                }
                Err(_) => {
                    self.record(class, step, |t| {
                        t.sent += 1;
                        t.errors += 1;
                    });
                    *self
                        .errors_by_kind
                        .entry("undecodable response".into())
                        .or_default() += 1;
                }
            },
            Err(NodeError::Timeout { .. }) => {
                outcome = "timed_out";
                self.record(class, step, |t| {
                    t.sent += 1;
                    t.timed_out += 1;
                })
            }
            Err(e) => {
                self.record(class, step, |t| t.errors += 1);
                *self.errors_by_kind.entry(e.to_string()).or_default() += 1;
            }
        }
        let name = ctx.classes.get(class).map_or("", |c| c.name.as_str());
        let peer = ctx.ups.get(holder).map(|u| u.node.to_string());
        let labels = [
            ("class", name.to_string()),
            ("step", step.name().to_string()),
            ("outcome", outcome.to_string()),
            ("peer", peer.unwrap_or_default()),
        ];
        metrics::counter!("pfcp_cp_requests_total", &labels).increment(1);
        if accepted {
            metrics::histogram!("pfcp_cp_request_duration_seconds", "class" => name.to_string())
                .record(latency.as_secs_f64());
        }
        if step == Step::Establish && accepted {
            // Counted whatever happens to the session next (the run ending, the UP function
            // losing it): the summary's establishments that succeeded are these.
            self.established += 1;
            if let Some(u) = self.per_up.get_mut(holder) {
                u.established += 1;
            }
            if let Some(n) = self
                .class_per_up
                .get_mut(class)
                .and_then(|c| c.get_mut(holder))
            {
                *n += 1;
            }
        }
        if self.stopping {
            return;
        }
        let Some(slot) = self.slots.get_mut(w.slot) else {
            return;
        };
        if slot.lost {
            // Lost while this step was in flight: establish it again, whatever the answer.
            restore(slot, ctx.modifications);
            self.ready.push_back((w.slot, Step::Establish));
            return;
        }
        let next = match step {
            Step::Establish => match up_fseid {
                Some(f) if accepted => {
                    slot.up = holder;
                    slot.up_seid = f.seid;
                    slot.entity = f.ipv4.map(IpAddr::V4).or(f.ipv6.map(IpAddr::V6));
                    if slot.restoring {
                        slot.restoring = false;
                        self.restored += 1;
                    }
                    Some(if slot.modifications_left > 0 {
                        Step::Modify
                    } else {
                        Step::Delete
                    })
                }
                _ => None,
            },
            Step::Modify => {
                slot.modifications_left = slot.modifications_left.saturating_sub(1);
                Some(if accepted && slot.modifications_left > 0 {
                    Step::Modify
                } else {
                    Step::Delete
                })
            }
            Step::Delete => {
                if accepted {
                    self.deleted += 1;
                }
                None
            }
        };
        match next {
            Some(s) if step == Step::Establish && !self.hold.is_zero() => {
                self.held.push_back((crate::now() + self.hold, w.slot, s));
            }
            Some(s) => self.ready.push_back((w.slot, s)),
            None => self.free.push(w.slot),
        }
    }
}

impl State {
    /// The UP function lost these sessions (by the CP's SEID, from
    /// [`PeerEvent::SessionsLost`](pfcp_node::PeerEvent::SessionsLost)): each is established
    /// again, as a restoration, at its next step (clauses 6.2.6, 6.2.7: the CP restores what it
    /// still needs). A session that is not in use any more is left alone. How many were in
    /// use (counted in `lost`).
    pub(super) fn sessions_lost(&mut self, cp_seids: &[u64], modifications: u32) -> u64 {
        if self.stopping {
            return 0;
        }
        let before = self.lost;
        let free: std::collections::HashSet<usize> = self.free.iter().copied().collect();
        for (i, slot) in self.slots.iter_mut().enumerate() {
            if free.contains(&i) || !cp_seids.contains(&slot.cp_seid) {
                continue;
            }
            self.lost += 1;
            let waiting = self
                .ready
                .iter_mut()
                .map(|(s, step)| (s, step))
                .chain(self.held.iter_mut().map(|(_, s, step)| (s, step)))
                .find(|(s, _)| **s == i);
            match waiting {
                Some((_, step)) => {
                    *step = Step::Establish;
                    restore(slot, modifications);
                }
                None => slot.lost = true,
            }
        }
        self.lost - before
    }
}

/// A lost session's slot, made ready to be established again.
fn restore(slot: &mut Slot, modifications: u32) {
    slot.lost = false;
    slot.restoring = true;
    slot.up_seid = 0;
    slot.entity = None;
    slot.modifications_left = modifications;
}

pub(super) fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}
