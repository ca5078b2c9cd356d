//! The pacer and the transactions: requests offered at `--rate` on a 1 ms tick, each run as
//! its own task through the endpoint's overload control, and its outcome settled in the
//! shared [`State`].
//!
//! An offer that finds no room (`--max-outstanding` requests waiting, or every session slot
//! busy) is skipped and counted, never delayed, so that the offered rate stays the one asked
//! for: the reduction of TS 29.244 clause 6.2.4.4 is a share of the requests the
//! CP function would otherwise send, so the offered load must not bend to the throttling.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pfcp_node::{Error as NodeError, RequestError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::sessions::{lock, State, Work};
use super::Ctx;
use crate::now;
use pfcp_sim::traffic::build_request;

/// Offer requests at `rate` for `duration` (or until interrupted); how long it offered.
pub(super) async fn offer(
    ctx: &Arc<Ctx>,
    state: &Arc<Mutex<State>>,
    permits: &Arc<Semaphore>,
    rate: f64,
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
        let due = (elapsed.as_secs_f64() * rate) as u64;
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
    let result = match build_request(work.step, s.cp_seid, s.up_seid, &ctx.node_ie, ctx.fseid_ip) {
        Ok((header, ies)) => {
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
