//! `pfcp up --series-ms`: the counters of every period of a few milliseconds, for the `--json`
//! summary, so that a step of load can be read off the UP function itself (settling, spread)
//! with the shipped tools, as `pfcp sim` reads it off its virtual UPs.

use serde::Serialize;

use super::snapshot::Snapshot;

/// One period of the series.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Period {
    /// Seconds since the start, at the end of the period.
    pub t: f64,
    /// Requests served (answered with an acceptance) in the period.
    pub served: u64,
    /// Requests the responder answered with a rejection (e.g. an unknown session).
    pub refused: u64,
    /// Requests the endpoint rejected with cause 74 (queue full, waited too long).
    pub rejected_74: u64,
    /// The Overload Reduction Metric published at the end of the period.
    pub metric: u8,
    /// Requests waiting at the end of the period.
    pub queue: u64,
}

/// The periods recorded so far.
#[derive(Debug, Default)]
pub struct Series {
    periods: Vec<Period>,
    last: Snapshot,
}

impl Series {
    /// Close the period ending `t` seconds after the start, at counters `snap`.
    /// A period that would end no later than the last one (the final, partial period when the
    /// run stops on a tick) is added to it, so that the times strictly increase.
    pub(super) fn record(&mut self, t: f64, snap: Snapshot) {
        let last = std::mem::replace(&mut self.last, snap);
        let p = Period {
            t: (t * 1000.0).round() / 1000.0,
            served: snap.served.saturating_sub(last.served),
            refused: snap.refused.saturating_sub(last.refused),
            rejected_74: snap.rejected_74.saturating_sub(last.rejected_74),
            metric: snap.overload.round().clamp(0.0, 100.0) as u8,
            queue: snap.queue.round().max(0.0) as u64,
        };
        match self.periods.last_mut() {
            Some(prev) if p.t <= prev.t => {
                prev.served += p.served;
                prev.refused += p.refused;
                prev.rejected_74 += p.rejected_74;
                prev.metric = p.metric;
                prev.queue = p.queue;
            }
            _ => self.periods.push(p),
        }
    }

    /// The periods, oldest first.
    pub fn periods(&self) -> &[Period] {
        &self.periods
    }
}

/// The next tick of `ticks`, or never without a series.
pub(super) async fn tick(ticks: &mut Option<tokio::time::Interval>) {
    match ticks {
        Some(t) => {
            t.tick().await;
        }
        None => std::future::pending::<()>().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_are_differences_of_the_counters() {
        let mut s = Series::default();
        let at = |served, rejected_74, overload, queue| Snapshot {
            served,
            rejected_74,
            overload,
            queue,
            ..Snapshot::default()
        };
        s.record(0.1, at(10, 0, 0.0, 2.0));
        s.record(0.2, at(25, 4, 88.4, 7.0));
        s.record(0.30000001, at(25, 9, 89.6, 0.0));
        let p = s.periods();
        assert_eq!(p.len(), 3);
        assert_eq!(
            (p[0].served, p[0].rejected_74, p[0].metric, p[0].queue),
            (10, 0, 0, 2)
        );
        assert_eq!(
            (p[1].served, p[1].rejected_74, p[1].metric, p[1].queue),
            (15, 4, 88, 7)
        );
        assert_eq!(
            (p[2].t, p[2].served, p[2].rejected_74, p[2].metric),
            (0.3, 0, 5, 90)
        );
        // The sums are the totals: nothing is lost between periods.
        assert_eq!(p.iter().map(|p| p.served).sum::<u64>(), 25);
        // A last period ending on the same millisecond joins the one before.
        s.record(0.3002, at(27, 9, 0.0, 0.0));
        let p = s.periods();
        assert_eq!(p.len(), 3);
        assert_eq!(
            (p[2].t, p[2].served, p[2].metric, p[2].queue),
            (0.3, 2, 0, 0)
        );
    }
}
