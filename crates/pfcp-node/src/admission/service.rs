//! The queue and its service model: queueing a request, the wait limits, the request taken up
//! next, expiry after the wait bound and the cost of a refusal (see the
//! [module docs](super#service)).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::{order, QueuedRequest, UpAdmission, Waiting, PRIORITIES};
#[cfg(doc)]
use super::{AdmissionConfig, TopPriority};

/// The shortest wait limit, in service times of the service model.
const MIN_WAIT_SERVICES: u32 = 4;
/// The same for priority 0 while its load fits: on a slow UP function (200 requests/s, 5 ms a
/// request) an emergency session's three requests from a few CPs at once are a burst that 4
/// service times refused (emergency success 0.989 at 2x in `pfcp sim`'s small scenario, 1.000
/// with 8).
const TOP_MIN_WAIT_SERVICES: u32 = 8;

impl UpAdmission {
    pub(super) fn push(&mut self, request: QueuedRequest, now: Instant) {
        let p = usize::from(request.priority.value()).min(PRIORITIES - 1);
        tracing::debug!(
            peer = %request.peer,
            sequence = request.sequence.value(),
            message_type = request.message_type.0,
            priority = p,
            queued = self.len + 1,
            "admission: queued"
        );
        if p == 0 && self.len > self.queues.first().map_or(0, VecDeque::len) {
            self.slip.add(1.0);
        }
        if let Some(q) = self.queues.get_mut(p) {
            q.push_back(Waiting {
                request,
                arrived: now,
            });
            self.len += 1;
            self.stats.queued += 1;
        }
    }

    /// The numerically largest (lowest) priority with a waiting request.
    pub(super) fn lowest_queued(&self) -> Option<u8> {
        (0..PRIORITIES as u8).rev().find(|&p| {
            self.queues
                .get(usize::from(p))
                .is_some_and(|q| !q.is_empty())
        })
    }

    /// How long a request of message priority `p` may wait: its configured limit (priority 0
    /// the others' while its own load does not fit: its surplus then cannot be served, and
    /// waiting would only delay the rest of it), but at least [`MIN_WAIT_SERVICES`] service
    /// times (a limit shorter than that would refuse nearly everything that has to queue at
    /// all), [`TOP_MIN_WAIT_SERVICES`] for priority 0 while its load fits.
    pub(super) fn wait_limit(&self, p: usize) -> Option<Duration> {
        let (limit, services) = if p == 0 && !self.top_surplus() {
            (self.config.top_priority_max_wait, TOP_MIN_WAIT_SERVICES)
        } else {
            (self.config.max_wait, MIN_WAIT_SERVICES)
        };
        let limit = limit?;
        let floor = self
            .service_step
            .and_then(|s| s.checked_mul(services))
            .unwrap_or(Duration::ZERO);
        Some(limit.max(floor))
    }

    /// Whether priority 0 holds a surplus the UP function cannot serve, so that it waits no
    /// longer than the others ([`TopPriority::surplus`]).
    fn top_surplus(&self) -> bool {
        self.top.surplus(
            self.queues.first().map_or(0, VecDeque::len),
            self.service_step,
            self.wait_limit(PRIORITIES - 1),
            self.reporter.capacity(),
        )
    }

    pub(super) fn dequeue(&mut self, now: Instant) -> Option<Waiting> {
        self.sweep(now);
        let index = order::next_queue(&self.queues, self.config.service_order, now)?;
        self.take(index, now)
    }

    /// The request the service model takes up at `next_free`, for a caller at `now` (see
    /// [`order::next_queue`]).
    pub(super) fn dequeue_served_at(&mut self, now: Instant) -> Option<Waiting> {
        self.sweep(now);
        let at = self.next_free.min(now);
        let index = order::next_queue(&self.queues, self.config.service_order, at)?;
        self.take(index, at)
    }

    /// How long the service in progress still takes, by the service model (none without).
    pub(super) fn busy(&self, now: Instant) -> Duration {
        match self.service_step {
            Some(_) => self.next_free.saturating_duration_since(now),
            None => Duration::ZERO,
        }
    }

    /// One service time: the service model's, or else the one of the configured capacity
    /// ([`ReporterConfig::capacity`](pfcp_overload::ReporterConfig::capacity)). Not the
    /// reporter's learned estimate: it learns from what was served, and a bound on admission
    /// drawn from it could only ratchet down.
    pub(super) fn step_estimate(&self) -> Option<Duration> {
        self.service_step.or_else(|| {
            self.config
                .reporter
                .capacity
                .filter(|c| c.is_finite() && *c >= 1.0)
                .map(|c| self.interval.div_f64(c))
        })
    }

    /// The next request of priority `index` to take up at `at`: the oldest, except in a
    /// backlog of priority 0 beyond the others' wait bound, where it is the newest that had
    /// arrived by then (see [`AdmissionConfig::top_priority_max_wait`]).
    fn take(&mut self, index: usize, at: Instant) -> Option<Waiting> {
        let bound = self.wait_limit(PRIORITIES - 1);
        let q = self.queues.get_mut(index)?;
        let backlogged = index == 0
            && bound.is_some_and(|b| {
                q.front()
                    .is_some_and(|w| at.saturating_duration_since(w.arrived) > b)
            });
        let waiting = if backlogged {
            let newest = q.iter().rposition(|w| w.arrived <= at).unwrap_or(0);
            q.remove(newest)?
        } else {
            q.pop_front()?
        };
        self.len -= 1;
        Some(waiting)
    }

    /// Move the requests that waited `max_wait` or longer to the expired list (not only
    /// longer: at exactly `max_wait` the deadline [`UpAdmission::poll_timeout`] gave is due,
    /// and leaving it would make that deadline come back at once, a busy loop).
    ///
    /// With a service model the wait ends when service is available, `next_free`, if that
    /// comes before `now`: a caller that polls late (a timer that fires a millisecond after
    /// its deadline, a task busy with a burst of datagrams) must not expire the requests the
    /// model serves in its own time, or the queue refuses work while the server idles.
    pub(super) fn sweep(&mut self, now: Instant) {
        let now = match self.service_step {
            Some(_) => now.min(self.next_free),
            None => now,
        };
        let before = self.expired.len();
        let limits: [Option<Duration>; PRIORITIES] = std::array::from_fn(|p| self.wait_limit(p));
        for (q, limit) in self.queues.iter_mut().zip(limits) {
            let Some(max_wait) = limit else { continue };
            while q
                .front()
                .is_some_and(|w| now.saturating_duration_since(w.arrived) >= max_wait)
            {
                if let Some(w) = q.pop_front() {
                    self.len -= 1;
                    self.stats.expired += 1;
                    tracing::debug!(
                        peer = %w.request.peer,
                        sequence = w.request.sequence.value(),
                        message_type = w.request.message_type.0,
                        priority = w.request.priority.value(),
                        "admission: expired after max_wait"
                    );
                    self.expired.push_back(w.request);
                }
            }
        }
        for _ in before..self.expired.len() {
            self.charge_refusal(now);
        }
    }

    /// A refusal's work delays the service model by `rejection_cost` of one service.
    ///
    /// While requests wait, the server is busy without a break, so the work goes at the end of
    /// the model's schedule, `next_free`, even if that is before `now` (a caller that polls
    /// late): from `now` it would throw away the service the model still owes.
    pub(super) fn charge_refusal(&mut self, now: Instant) {
        if let Some(step) = self.service_step {
            if self.config.rejection_cost > 0.0 {
                let start = if self.len > 0 {
                    self.next_free
                } else {
                    self.next_free.max(now)
                };
                if self.len > 0 {
                    self.slip.add(self.config.rejection_cost);
                }
                let cost = step.mul_f64(self.config.rejection_cost);
                self.next_free = start.checked_add(cost).unwrap_or(start);
            }
        }
    }
}
