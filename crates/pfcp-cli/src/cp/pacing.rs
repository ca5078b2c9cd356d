//! The pacer and the transactions: requests offered at `--rate` (changed at the times of
//! `--rate-steps`, [`RateSchedule`]) on a 1 ms tick, each run as its own task through the
//! endpoint's overload control, and its outcome settled in the shared [`State`].
//!
//! An offer that finds no room (`--max-outstanding` requests waiting, or every session slot
//! busy) is skipped and counted, never delayed, so that the offered rate stays the one asked
//! for: the reduction of TS 29.244 clause 6.2.4.4 is a share of the requests the
//! CP function would otherwise send, so the offered load must not bend to the throttling.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pfcp_node::{Error as NodeError, RequestError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::args::RateStep;
use super::sessions::{lock, State, Work};
use super::Ctx;
use crate::now;
use pfcp_sim::traffic::{build_request, Step};

/// The offered rate over time: `--rate` from the start, then each of `--rate-steps` from its
/// time on (a step of demand at the CP itself, as `pfcp sim`'s step scenario makes it).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RateSchedule {
    first: f64,
    steps: Vec<RateStep>,
    /// `--ramp`: seconds over which the rate rises linearly from 0 to the schedule's.
    ramp: f64,
}

impl RateSchedule {
    /// `first` per second from the start, then the steps (sorted by time, as
    /// [`super::CpArgs::check`] requires).
    pub(super) fn new(first: f64, steps: &[RateStep]) -> Self {
        RateSchedule {
            first,
            steps: steps.to_vec(),
            ramp: 0.0,
        }
    }

    /// With the rate rising linearly from 0 over the first `secs` seconds (`--ramp`): the
    /// schedule's rate times `t / secs` until then.
    pub(super) fn with_ramp(mut self, secs: f64) -> Self {
        self.ramp = secs.max(0.0);
        self
    }

    /// The integral of the ramp's factor, `min(1, t / ramp)`, from 0 to `t`.
    fn ramped(&self, t: f64) -> f64 {
        let t = t.max(0.0);
        if self.ramp <= 0.0 {
            t
        } else if t <= self.ramp {
            t * t / (2.0 * self.ramp)
        } else {
            t - self.ramp / 2.0
        }
    }

    /// Requests due by `elapsed` seconds: the integral of the rate (times the ramp's factor).
    pub(super) fn due(&self, elapsed: f64) -> f64 {
        let mut due = 0.0;
        let (mut from, mut rate) = (0.0, self.first);
        for step in &self.steps {
            if step.at_secs >= elapsed {
                break;
            }
            due += (self.ramped(step.at_secs) - self.ramped(from)) * rate;
            (from, rate) = (step.at_secs, step.rate);
        }
        due + (self.ramped(elapsed.max(from)) - self.ramped(from)) * rate
    }
}

/// Offer requests as `schedule` says for `duration` (or until interrupted); how long it
/// offered.
pub(super) async fn offer(
    ctx: &Arc<Ctx>,
    state: &Arc<Mutex<State>>,
    permits: &Arc<Semaphore>,
    schedule: &RateSchedule,
    duration: Duration,
) -> Duration {
    let interrupted = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(interrupted);
    let start = now();
    let mut issued: u64 = 0;
    let mut ticks = tokio::time::interval(Duration::from_millis(1));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = &mut interrupted => {
                eprintln!("pfcp cp: interrupted");
                break;
            }
            _ = ticks.tick() => {}
        }
        let elapsed = now().duration_since(start);
        if elapsed >= duration {
            break;
        }
        let due = schedule.due(elapsed.as_secs_f64()) as u64;
        while issued < due {
            issued += 1;
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                lock(state).skipped_outstanding += 1;
                continue;
            };
            let work = {
                let mut st = lock(state);
                let work = st.next_work(ctx);
                if work.is_none() {
                    st.skipped_no_session += 1;
                }
                work
            };
            if let Some(work) = work {
                tokio::spawn(transact(ctx.clone(), state.clone(), work, permit));
            }
        }
    }
    now().duration_since(start).min(duration)
}

/// One request and its outcome.
async fn transact(
    ctx: Arc<Ctx>,
    state: Arc<Mutex<State>>,
    work: Work,
    _permit: OwnedSemaphorePermit,
) {
    let started = now();
    let s = &work.session;
    let mut label = None;
    let built = match (&ctx.rules, work.step) {
        // Session k of the run has CP SEID k + 1 (a restored session keeps both).
        (Some(r), Step::Establish) => r.establishment(
            s.cp_seid.wrapping_sub(1),
            s.cp_seid,
            &ctx.node_ie,
            ctx.fseid_ip,
        ),
        (Some(r), Step::Modify) => Ok(r.modification(s.up_seid)),
        _ => build_request(work.step, s.cp_seid, s.up_seid, &ctx.node_ie, ctx.fseid_ip),
    };
    let result = match built {
        Ok((header, ies)) => {
            // `--profile fixed-priority`: its priorities, not the class's (the node keeps a
            // priority the header already has).
            let header = match ctx.profile.fixed_priority(header.message_type) {
                Some(p) => header.with_priority(p),
                None => header,
            };
            if ctx.classify {
                // The label the CP's overload control gives it (TS 29.273 C.2: every
                // adjustment that fired), from the node's tracked state now.
                let at = started.into_std();
                label = ctx
                    .endpoint
                    .inspect(|n| n.classify(work.addr, &header, &ies, &work.profile, at))
                    .ok()
                    .flatten()
                    .map(|c| c.to_string());
            }
            ctx.endpoint
                .request_with(work.addr, header, ies, work.profile.clone())
                .await
        }
        Err(e) => Err(NodeError::Request(RequestError::Encode(e))),
    };
    let latency = now().duration_since(started);
    let mut st = lock(&state);
    if let Some(label) = label {
        st.count_label(label, &result);
    }
    st.settle(&ctx, &work, result, latency);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(at_secs: f64, rate: f64) -> RateStep {
        RateStep { at_secs, rate }
    }

    #[test]
    fn a_schedule_without_steps_is_the_rate() {
        let s = RateSchedule::new(250.0, &[]);
        assert_eq!(s.due(0.0), 0.0);
        assert_eq!(s.due(2.0), 500.0);
    }

    #[test]
    fn the_due_requests_are_the_integral_of_the_steps() {
        // 1x -> 10x -> 1x of 100/s: 1 s at 100, 1 s at 1000, then 100 again.
        let s = RateSchedule::new(100.0, &[step(1.0, 1000.0), step(2.0, 100.0)]);
        assert_eq!(s.due(0.5), 50.0);
        assert_eq!(s.due(1.0), 100.0);
        assert_eq!(s.due(1.5), 600.0);
        assert_eq!(s.due(2.0), 1100.0);
        assert_eq!(s.due(3.0), 1200.0);
    }

    #[test]
    fn a_ramp_rises_linearly_to_the_rate() {
        // 1000/s after a ramp of 2 s: 250 by 1 s (the rate at 500/s then), 1000 by 2 s, then
        // 1000 more each second.
        let s = RateSchedule::new(1000.0, &[]).with_ramp(2.0);
        assert_eq!(s.due(0.0), 0.0);
        assert_eq!(s.due(1.0), 250.0);
        assert_eq!(s.due(2.0), 1000.0);
        assert_eq!(s.due(3.0), 2000.0);
        // The rate at t is the slope of the due requests: half the rate at half the ramp.
        let slope = (s.due(1.001) - s.due(0.999)) / 0.002;
        assert!((slope - 500.0).abs() < 1e-6, "{slope}");
        // A step during the ramp is ramped too.
        let s = RateSchedule::new(100.0, &[step(1.0, 300.0)]).with_ramp(2.0);
        assert_eq!(s.due(1.0), 25.0);
        assert_eq!(s.due(2.0), 25.0 + 300.0 * 0.75);
        assert_eq!(s.due(3.0), 25.0 + 300.0 * 1.75);
        // No ramp: the plain schedule.
        let s = RateSchedule::new(100.0, &[]).with_ramp(0.0);
        assert_eq!(s.due(1.5), 150.0);
    }

    #[test]
    fn a_pause_offers_nothing_until_the_next_step() {
        let s = RateSchedule::new(100.0, &[step(1.0, 0.0), step(3.0, 50.0)]);
        assert_eq!(s.due(2.5), 100.0);
        assert_eq!(s.due(4.0), 150.0);
    }
}
