//! What `pfcp cp` prints while it runs: one progress line per second on stderr (the rates
//! of the last second, the requests outstanding and each UP function's last Overload
//! Reduction Metric, TS 29.244 clause 6.2.4.3), and the association changes the endpoint
//! reports.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pfcp_node::PeerEvent;
use tokio::sync::mpsc;

use super::exit::describe_event;
use super::sessions::{lock, State, Tally};
use super::Ctx;
use crate::now;

/// A progress line per second.
pub(super) async fn report_progress(
    ctx: Arc<Ctx>,
    state: Arc<Mutex<State>>,
    start: tokio::time::Instant,
) {
    let second = Duration::from_secs(1);
    let mut ticks = tokio::time::interval_at(start + second, second);
    let mut last = Tally::default();
    loop {
        ticks.tick().await;
        // The level of each UP function's egress connection (the router's congestion level).
        let levels: Vec<Option<u8>> = ctx
            .endpoint
            .inspect(|n| {
                ctx.ups
                    .iter()
                    .map(|u| {
                        n.up_link(&u.node)
                            .and_then(|l| l.egress_throttle())
                            .map(|e| e.level())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let (t, outstanding, per_up) = {
            let mut st = lock(&state);
            for (trace, l) in st.levels.iter_mut().zip(&levels) {
                trace.push(l.unwrap_or(0));
            }
            (st.total, st.outstanding, st.per_up.clone())
        };
        let ocis: Vec<Option<u8>> = per_up.iter().map(|t| t.last_oci).collect();
        let mut line = line(&ctx, start, "", &t, &last, outstanding, &ocis);
        if levels.iter().any(Option::is_some) {
            line.push_str(" | level");
            for l in &levels {
                let _ = match l {
                    Some(l) => write!(line, " {l}"),
                    None => write!(line, " -"),
                };
            }
        }
        eprintln!("{line}");
        last = t;
    }
}

/// The progress line of the second that ended: the rates of `t` since `last`, the requests
/// outstanding, and each UP function's last Overload Reduction Metric (`ocis`, in the order of
/// `ctx.ups`). `who` comes after the time (a pool says how many functions run).
pub(super) fn line(
    ctx: &Ctx,
    start: tokio::time::Instant,
    who: &str,
    t: &Tally,
    last: &Tally,
    outstanding: u64,
    ocis: &[Option<u8>],
) -> String {
    let mut line = format!(
        "pfcp cp: [{:>4}s] {who}offered {:>6}/s | sent {:>6} | throttled {:>6} | redirected {:>5} | \
         succeeded {:>6} | rejected {:>5} | timed out {:>4} | outstanding {:>5} | OCI",
        now().duration_since(start).as_secs(),
        t.offered - last.offered,
        t.sent - last.sent,
        t.throttled - last.throttled,
        t.redirected - last.redirected,
        t.succeeded - last.succeeded,
        t.rejected - last.rejected,
        t.timed_out - last.timed_out,
        outstanding,
    );
    for (up, oci) in ctx.ups.iter().zip(ocis) {
        let _ = match oci {
            Some(m) => write!(line, " {} {m}%", up.node),
            None => write!(line, " {} -", up.node),
        };
    }
    line
}

/// Print association changes during the run, in words; a lost UP function is remembered
/// for the exit status ([`super::exit`]); sessions a UP function lost are established again
/// (restorations), and the line counts those the summary counts (the sessions still in use).
pub(super) async fn report_events(
    mut events: mpsc::Receiver<PeerEvent>,
    state: Arc<Mutex<State>>,
    modifications: u32,
    // Whether to print the associations made (one function of a pool leaves them to the
    // first).
    associations: bool,
) {
    while let Some(e) = events.recv().await {
        match &e {
            PeerEvent::Associated { peer, node } => {
                if associations {
                    eprintln!("pfcp cp: associated with {node} ({peer})");
                }
            }
            PeerEvent::SessionsLost { peer, sessions, .. } => {
                let seids: Vec<u64> = sessions.iter().map(|s| s.local_seid).collect();
                let lost = lock(&state).sessions_lost(&seids, modifications);
                eprintln!("pfcp cp: {peer} lost {lost} sessions: establishing them again");
            }
            other => {
                if let Some((text, lost)) = describe_event(other) {
                    eprintln!("pfcp cp: {text}");
                    if lost {
                        lock(&state).up_events.push(text);
                    }
                }
            }
        }
    }
}
