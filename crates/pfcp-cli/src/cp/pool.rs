//! `pfcp cp --functions N`: several CP functions in one process, an SMF pool in front of the
//! UP functions. Each is a CP function of its own, as a UP function sees it (its socket, its
//! Node ID, its association, its overload state and throttles, its session slots); they share
//! the process, its runtime and the summary, which is theirs together.
//!
//! Each function's arguments are the command line's with `-I` appended to the Node ID's first
//! label (I from 1), a seed of its own, and the rate, the rate steps, the session slots and
//! the concurrency limit split evenly ([`function_args`]). Their tallies add up
//! ([`absorb`]); the latency percentiles are taken over every function's samples together.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::args::CpArgs;
use super::progress;
use super::sessions::{lock, State, Tally};
use super::Ctx;

/// Most CP functions in one process.
pub(super) const MAX_FUNCTIONS: u32 = 10_000;

/// The running functions, for the progress line: each registers once associated.
pub(super) type Registry = Mutex<Vec<(Arc<Ctx>, Arc<Mutex<State>>)>>;

/// The Node ID of function `i` (from 1) of a pool whose Node ID is `base`: `-i` appended to
/// its first label (`smf-7.example.net` -> `smf-7-3.example.net`).
pub(super) fn function_node_id(base: &str, i: u32) -> String {
    match base.split_once('.') {
        Some((first, rest)) => format!("{first}-{i}.{rest}"),
        None => format!("{base}-{i}"),
    }
}

/// The arguments of function `i` (from 1) of `args.functions`.
pub(super) fn function_args(args: &CpArgs, i: u32) -> CpArgs {
    let n = args.functions.max(1);
    let share = |x: usize| x.div_ceil(n as usize).max(1);
    let mut f = args.clone();
    f.functions = 1;
    f.node_id = Some(function_node_id(&args.node_id(), i));
    // With --seed, a stream of its own per function; without, each derives one from its
    // Node ID.
    f.seed = args
        .seed
        .map(|s| s ^ u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    f.rate = args.rate / f64::from(n);
    for step in &mut f.rate_steps {
        step.rate /= f64::from(n);
    }
    f.sessions = share(args.sessions);
    f.max_outstanding = share(args.max_outstanding);
    // The process's exporter is installed once, before the functions start.
    f.metrics = None;
    f
}

impl Tally {
    /// Add `o`'s counts.
    pub(super) fn add(&mut self, o: &Tally) {
        self.offered += o.offered;
        self.sent += o.sent;
        self.throttled += o.throttled;
        self.unassociated += o.unassociated;
        self.redirected += o.redirected;
        self.succeeded += o.succeeded;
        self.rejected += o.rejected;
        self.timed_out += o.timed_out;
        self.errors += o.errors;
    }
}

fn add_all(into: &mut [Tally], from: &[Tally]) {
    for (a, b) in into.iter_mut().zip(from) {
        a.add(b);
    }
}

fn add_counts<K: Ord + Clone>(
    into: &mut std::collections::BTreeMap<K, u64>,
    from: &std::collections::BTreeMap<K, u64>,
) {
    for (k, n) in from {
        *into.entry(k.clone()).or_default() += n;
    }
}

/// Add what another function of the pool came to into `into` (same classes and UP functions):
/// the counts add up, the latency samples are kept together, a UP function's last OCI is the
/// highest any function last saw.
pub(super) fn absorb(into: &mut State, o: &State) {
    into.total.add(&o.total);
    add_all(&mut into.by_class, &o.by_class);
    add_all(&mut into.by_step, &o.by_step);
    for (a, b) in into.by_class_step.iter_mut().zip(&o.by_class_step) {
        add_all(a, b);
    }
    add_counts(&mut into.rejected_by_cause, &o.rejected_by_cause);
    add_counts(&mut into.errors_by_kind, &o.errors_by_kind);
    into.skipped_outstanding += o.skipped_outstanding;
    into.skipped_no_session += o.skipped_no_session;
    into.latencies_us.extend_from_slice(&o.latencies_us);
    into.established += o.established;
    into.deleted += o.deleted;
    into.lost += o.lost;
    into.restored += o.restored;
    for (a, b) in into.per_up.iter_mut().zip(&o.per_up) {
        a.answered += b.answered;
        a.established += b.established;
        a.ocis += b.ocis;
        a.last_oci = a.last_oci.max(b.last_oci);
    }
    for (a, b) in into.class_per_up.iter_mut().zip(&o.class_per_up) {
        for (x, y) in a.iter_mut().zip(b) {
            *x += y;
        }
    }
    add_counts(&mut into.shed_by_reason, &o.shed_by_reason);
    for (a, b) in into.class_shed.iter_mut().zip(&o.class_shed) {
        add_counts(a, b);
    }
    for (k, t) in &o.by_label {
        let e = into.by_label.entry(k.clone()).or_default();
        e.offered += t.offered;
        e.sent += t.sent;
        e.throttled += t.throttled;
    }
    if let (Some(a), Some(b)) = (&mut into.steady, &o.steady) {
        a.total.add(&b.total);
        add_all(&mut a.by_class, &b.by_class);
        a.latencies_us.extend_from_slice(&b.latencies_us);
    }
    into.up_events.extend(o.up_events.iter().cloned());
}

/// The pool's progress line each second: the functions' rates together, the requests
/// outstanding, and per UP function the highest Overload Reduction Metric any function last
/// saw (TS 29.244 clause 6.2.4.3).
pub(super) async fn report_progress(
    functions: u32,
    registry: Arc<Registry>,
    start: tokio::time::Instant,
) {
    let second = Duration::from_secs(1);
    let mut ticks = tokio::time::interval_at(start + second, second);
    let mut last = Tally::default();
    loop {
        ticks.tick().await;
        let members: Vec<(Arc<Ctx>, Arc<Mutex<State>>)> =
            registry.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut t = Tally::default();
        let mut outstanding = 0;
        let mut ocis: Vec<Option<u8>> = Vec::new();
        for (_, state) in &members {
            let st = lock(state);
            t.add(&st.total);
            outstanding += st.outstanding;
            ocis.resize(st.per_up.len(), None);
            for (o, up) in ocis.iter_mut().zip(&st.per_up) {
                *o = (*o).max(up.last_oci);
            }
        }
        if let Some((ctx, _)) = members.first() {
            let who = format!("{}/{functions} functions | ", members.len());
            eprintln!(
                "{}",
                progress::line(ctx, start, &who, &t, &last, outstanding, &ocis)
            );
        }
        last = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_function_has_a_node_id_of_its_own() {
        assert_eq!(
            function_node_id("smf-7.example.net", 3),
            "smf-7-3.example.net"
        );
        assert_eq!(function_node_id("smf", 12), "smf-12");
    }
}
