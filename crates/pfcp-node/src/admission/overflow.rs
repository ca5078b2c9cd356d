//! The overflow metric: what the queue's own refusals call for while the reporter publishes no
//! metric (TS 29.244 clauses 6.2.4.3.1, 6.2.4.4.2.1; see the [module docs](super#overflow-oci)).
//!
//! The reporter needs one closed control interval before it has a metric, and it publishes
//! nothing while its last measurement said "not overloaded". A refusal in that window would
//! otherwise go out without an OCI, and a cause 74 alone does not tell the CP function by how
//! much to reduce. So the admission measures its refusals since the episode began and hands
//! the cut they call for to the reporter ([`OverloadReporter::oci_for_refusal`]), which tells
//! it as a provisional OCI with a number of its own count: one place decides what OCI a peer
//! gets, and every number on the wire comes from it.
//!
//! [`OverloadReporter::oci_for_refusal`]: pfcp_overload::OverloadReporter::oci_for_refusal

use pfcp_overload::ReporterConfig;

use super::types::AdmissionStats;

/// The counts behind the overflow metric (a field of [`UpAdmission`](super::UpAdmission)).
#[derive(Debug, Clone, Default)]
pub(super) struct Overflow {
    /// The offered and refused totals when the current control interval began.
    interval_base: Counts,
    /// The same when the previous interval began: the first refusal of an episode measures
    /// from there, so that its sample holds at least one whole interval (a burst of refusals
    /// among the first few requests of an interval is no share of anything).
    previous_base: Counts,
    /// Where the episode in force counts from, and the provisional OCI it gave.
    episode: Option<(Counts, u32)>,
}

/// Totals of requests offered to admission and refused by it (rejected, evicted, expired).
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    offered: u64,
    refused: u64,
}

impl Counts {
    fn of(stats: &AdmissionStats) -> Counts {
        Counts {
            offered: stats.offered,
            refused: stats
                .rejected
                .saturating_add(stats.evicted)
                .saturating_add(stats.expired),
        }
    }
}

impl Overflow {
    /// A control interval began: later episodes count from here.
    pub(super) fn interval_started(&mut self, stats: &AdmissionStats) {
        self.previous_base = self.interval_base;
        self.interval_base = Counts::of(stats);
    }

    /// The metric the refusals of the episode call for at a refusal: counted from where the
    /// episode of the provisional OCI in force (`in_force`, its number) began, or from the
    /// start of the previous interval for a new episode.
    pub(super) fn metric(
        &self,
        stats: &AdmissionStats,
        in_force: Option<u32>,
        config: &ReporterConfig,
    ) -> Option<u8> {
        let base = self.base(in_force);
        let counts = Counts::of(stats);
        overflow_metric(
            counts.offered.saturating_sub(base.offered),
            counts.refused.saturating_sub(base.refused),
            config,
        )
    }

    fn base(&self, in_force: Option<u32>) -> Counts {
        match (self.episode, in_force) {
            (Some((base, seq)), Some(s)) if seq == s => base,
            _ => self.previous_base,
        }
    }

    /// The reporter's provisional OCI after the refusal: the episode goes on under its new
    /// number (`before`: the one in force before the refusal).
    pub(super) fn told(&mut self, before: Option<u32>, after: Option<u32>) {
        if let Some(seq) = after {
            let base = self.base(before);
            self.episode = Some((base, seq));
        }
    }
}

/// The metric an overflow asks for: the cut that brings the arrivals of the episode down to
/// the reporter's target load (`1 - target_load x admitted / offered`, the feed-forward law on
/// the episode's counts, where `admitted` is what the queue kept), in percent, rounded *up* to
/// the grid of the metrics the reporter tells ([`ReporterConfig::metric_step`]), at least one
/// step of it, at most [`ReporterConfig::max_told`]; one step for a refusal admission did not
/// count (none counted in the episode). `None` when no cut is due: no request offered in the
/// episode yet (refusals of requests that arrived before it, expired from the queue, say
/// nothing of its arrivals), or a surplus within what the target allows (with a target above
/// 1 the queue sheds a few requests by design, and an OCI for them would throttle the CP
/// functions below the capacity).
pub(super) fn overflow_metric(offered: u64, refused: u64, config: &ReporterConfig) -> Option<u8> {
    let step = u64::from(config.metric_step());
    let cap = u64::from(config.max_told());
    if cap == 0 {
        return None;
    }
    match (offered, refused) {
        // The refusal at hand was not counted by admission (the application's channel was
        // full): one step.
        (_, 0) => return u8::try_from(step.min(cap)).ok(),
        (0, _) => return None,
        _ => {}
    }
    let admitted = offered.saturating_sub(refused) as f64 / offered as f64;
    let target = if config.target_load.is_finite() && config.target_load > 0.0 {
        config.target_load
    } else {
        1.0
    };
    let percent = (100.0 * (1.0 - target * admitted)).clamp(0.0, 100.0);
    if percent <= 1e-9 {
        return None;
    }
    // Less a hair of rounding error, so that an exact 20 % (1 - 1.2 x 2/3) stays 20.
    let metric = ((percent - 1e-9).ceil() as u64)
        .div_ceil(step)
        .saturating_mul(step)
        .clamp(step, cap);
    u8::try_from(metric).ok()
}

#[cfg(test)]
mod tests;
