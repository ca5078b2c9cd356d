//! The order in which the queue serves what it admitted ([`ServiceOrder`]), and whether a
//! newcomer can be served within its wait bound.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::{ServiceOrder, Waiting, PRIORITIES};

/// The queues, one per message priority (index 0 the highest).
pub(super) type Queues = [VecDeque<Waiting>; PRIORITIES];

/// The queue whose request is taken up at `at`, for a caller at `at` or later.
///
/// Only requests that had arrived by `at` compete: a caller that polls late holds requests
/// that arrived after service was available, which the model never chose at that instant
/// (taking one, served from its arrival, would idle the server in between while older ones
/// waited). If none had arrived, the earliest.
pub(super) fn next_queue(queues: &Queues, order: ServiceOrder, at: Instant) -> Option<usize> {
    let arrived = |q: &VecDeque<Waiting>| q.front().is_some_and(|w| w.arrived <= at);
    let first = match order {
        ServiceOrder::Priority => queues.iter().position(arrived),
        // Priority 0 first; otherwise the oldest front, which has arrived by `at` if any has.
        ServiceOrder::Arrival => queues.first().filter(|q| arrived(q)).map(|_| 0),
    };
    first.or_else(|| {
        queues
            .iter()
            .enumerate()
            .filter_map(|(i, q)| q.front().map(|w| (w.arrived, i)))
            .min()
            .map(|(_, i)| i)
    })
}

/// Whether a newcomer of message priority `priority` would be taken up within `limit` with
/// [`ServiceOrder::Arrival`]: after the service in progress (`busy`) and one service time
/// (`step`) for each request served before it, priority 0's only for priority 0, every
/// queued one for the rest, and what will slip ahead of it meanwhile (not for priority 0,
/// which nothing overtakes). Unknown step or limit: it fits (the capacity bounds the queue).
pub(super) fn fits_in_time(
    queues: &Queues,
    len: usize,
    priority: usize,
    busy: Duration,
    step: Option<Duration>,
    limit: Option<Duration>,
    slip: &Slip,
) -> bool {
    let (Some(step), Some(limit)) = (step, limit) else {
        return true;
    };
    let ahead = if priority == 0 {
        queues.first().map_or(0, VecDeque::len)
    } else {
        len
    };
    let ahead = u32::try_from(ahead).unwrap_or(u32::MAX);
    step.checked_mul(ahead)
        .and_then(|queued| queued.checked_add(busy))
        .map(|wait| {
            if priority == 0 {
                wait
            } else {
                slip.grown(wait)
            }
        })
        .is_some_and(|wait| wait < limit)
}

/// How much the work ahead of a waiting request grows while it waits, as a share of the
/// work queued when it was admitted ([`ServiceOrder::Arrival`]): priority 0 taken up ahead
/// of it, and the work of the refusals made meanwhile
/// ([`AdmissionConfig::rejection_cost`](super::AdmissionConfig::rejection_cost)). Admitting
/// against the bound without it, the oldest requests slip past the bound and expire, whatever
/// their priority, instead of the newcomers of the lowest one being refused.
#[derive(Debug, Clone, Default)]
pub(super) struct Slip {
    /// Work added ahead of waiting requests in the current control interval, in services.
    added: f64,
    /// The share, smoothed over control intervals.
    share: f64,
}

impl Slip {
    /// Work of `services` went ahead of the requests waiting.
    pub(super) fn add(&mut self, services: f64) {
        self.added += services;
    }

    /// A control interval of `capacity` services ended.
    pub(super) fn close_interval(&mut self, capacity: Option<f64>) {
        if let Some(c) = capacity.filter(|c| *c > 0.0) {
            self.share = 0.5 * self.share + 0.5 * (self.added / c).min(1.0);
        }
        self.added = 0.0;
    }

    /// `wait` grown by the share.
    pub(super) fn grown(&self, wait: Duration) -> Duration {
        wait.mul_f64(1.0 + self.share)
    }
}
