//! What `pfcp up` reads of its counters and gauges at one instant: for the status line once a
//! second, the series (`--series-ms`) and the summary.

use std::sync::atomic::Ordering;

use pfcp_node::admission::AdmissionStats;
use pfcp_node::Endpoint;

use super::Counts;
use crate::meter::Meter;

/// Counters and gauges at one instant.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Snapshot {
    pub(super) served: u64,
    pub(super) refused: u64,
    pub(super) rejected_74: u64,
    pub(super) overload: f64,
    pub(super) load: f64,
    pub(super) queue: f64,
    /// The target load the reporter steers to (sized to the arrivals while overloaded).
    pub(super) target_load: f64,
    pub(super) kernel_drops: Option<u64>,
    pub(super) guard_drops: u64,
}

/// What the node's admission says at one instant: its counters and gauges.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct AdmissionReading {
    pub(super) stats: AdmissionStats,
    pub(super) overload: u8,
    pub(super) load: Option<u8>,
    pub(super) queue: usize,
    pub(super) target_load: f64,
}

impl AdmissionReading {
    /// The endpoint's node's admission, read under its lock (none: all zero).
    pub(super) fn of(endpoint: &Endpoint) -> AdmissionReading {
        endpoint
            .inspect(|n| {
                n.admission().map(|a| AdmissionReading {
                    stats: *a.stats(),
                    overload: a.overload_metric(),
                    load: a.load_metric(),
                    queue: a.len(),
                    target_load: a.reporter().target_load(),
                })
            })
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// Requests the admission refused with cause 74: queue full, evicted, waited too long.
    pub(super) fn refused(&self) -> u64 {
        let s = &self.stats;
        s.rejected + s.evicted + s.expired
    }
}

impl Snapshot {
    pub(super) fn take(meter: &Meter, counts: &Counts, endpoint: &Endpoint) -> Snapshot {
        let adm = AdmissionReading::of(endpoint);
        Snapshot {
            kernel_drops: endpoint.kernel_drops(),
            guard_drops: endpoint.inspect(|n| n.guard().dropped()).unwrap_or(0),
            served: counts.served.load(Ordering::Relaxed),
            refused: counts.refused.load(Ordering::Relaxed),
            // Every cause-74 rejection: the admission's (queue full, evicted, waited too long)
            // and the endpoint's (application channel full). (Cause 72, "no association", is
            // counted apart.)
            rejected_74: adm.refused()
                + meter.counter_where("pfcp_requests_rejected_total", |labels| {
                    labels
                        .iter()
                        .any(|l| l.key() == "cause" && l.value() == "74")
                }),
            overload: f64::from(adm.overload),
            load: f64::from(adm.load.unwrap_or(0)),
            queue: adm.queue as f64,
            target_load: adm.target_load,
        }
    }

    pub(super) fn status_line(&self, last: &Snapshot, secs: u64) -> String {
        format!(
            "[{secs:>4}s] served {:>6}/s (total {}) | rejected cause 74 {:>6}/s (total {}) | \
             overload metric {:>3}% (target load {:.2}) | load {:>3}% | queue {} | dropped: \
             kernel {}, guard {}",
            self.served.saturating_sub(last.served),
            self.served,
            self.rejected_74.saturating_sub(last.rejected_74),
            self.rejected_74,
            self.overload.round(),
            self.target_load,
            self.load.round(),
            self.queue.round(),
            self.kernel_drops.map_or("?".into(), |d| d.to_string()),
            self.guard_drops
        )
    }
}
