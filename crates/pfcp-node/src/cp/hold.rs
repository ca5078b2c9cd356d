//! Priority requests held for a slot (TS 29.244 clause 6.2.4.5.1): an eMPS or emergency
//! request the Loss throttle sheds waits up to [`CpConfig::exempt_hold`] for a
//! lower-priority request to the same UP function that the throttle lets through, and takes
//! its place. The number of requests sent is the throttle's; only which ones changes.
//!
//! The caller keeps the request's bytes; this module keeps a [`HoldTicket`] per held request,
//! its class and its deadline, and queues what becomes of each ([`HoldOutcome`]).

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use pfcp_overload::NodeKey;
use pfcp_throttle::{RequestClass, Throttled};

use super::{CpConfig, Destination};

/// Names one request held by [`CpDecision::Hold`](super::CpDecision::Hold) until its
/// [`HoldOutcome`] comes from
/// [`CpOverloadControl::poll_hold`](super::CpOverloadControl::poll_hold).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HoldTicket(u64);

impl HoldTicket {
    /// The ticket's number (unique per pipeline, increasing).
    pub fn get(self) -> u64 {
        self.0
    }
}

/// What becomes of a held request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HoldOutcome {
    /// Send it now: a lower-priority request to its UP function yielded its slot (and was
    /// rejected in its place), or the reduction that shed it ended.
    Send,
    /// Fail it locally as the Loss throttle's rejection (cause 74): no slot came before the
    /// hold ended, or the UP function's state was reset.
    Reject(Throttled),
}

#[derive(Debug, Clone)]
struct Held {
    ticket: HoldTicket,
    dest: Destination,
    why: Throttled,
    until: Instant,
}

/// The held requests of every UP function, oldest first, and the outcomes not yet polled.
#[derive(Debug, Clone)]
pub(super) struct Holds {
    hold: Option<Duration>,
    max_per_up: usize,
    next: u64,
    queues: HashMap<NodeKey, VecDeque<Held>>,
    count: usize,
    outcomes: VecDeque<(HoldTicket, HoldOutcome)>,
}

impl Holds {
    pub(super) fn new(config: &CpConfig) -> Self {
        Holds {
            hold: config.exempt_hold.filter(|d| !d.is_zero()),
            max_per_up: config.exempt_hold_max,
            next: 0,
            queues: HashMap::new(),
            count: 0,
            outcomes: VecDeque::new(),
        }
    }

    /// Hold a request the Loss throttle shed (`why`) if holding is on and `dest`'s UP
    /// function has room: the ticket and the deadline.
    pub(super) fn hold(
        &mut self,
        dest: &Destination,
        why: Throttled,
        now: Instant,
    ) -> Option<(HoldTicket, Instant)> {
        let until = now.checked_add(self.hold?)?;
        let queue = self.queues.entry(dest.node.clone()).or_default();
        if queue.len() >= self.max_per_up {
            return None;
        }
        let ticket = HoldTicket(self.next);
        self.next += 1;
        queue.push_back(Held {
            ticket,
            dest: dest.clone(),
            why,
            until,
        });
        self.count += 1;
        Some((ticket, until))
    }

    /// Whether UP function `node` has held requests.
    pub(super) fn any(&self, node: &NodeKey) -> bool {
        self.count > 0 && self.queues.get(node).is_some_and(|q| !q.is_empty())
    }

    /// The oldest held request of `node` whose hold has not ended by `now`, taken out to be
    /// sent (its outcome [`HoldOutcome::Send`] queued); those whose hold ended are rejected
    /// on the way. Its class, for the throttle's books.
    pub(super) fn release_one(&mut self, node: &NodeKey, now: Instant) -> Option<RequestClass> {
        self.expire_node(node, now);
        let held = self.queues.get_mut(node)?.pop_front()?;
        self.count -= 1;
        self.outcomes.push_back((held.ticket, HoldOutcome::Send));
        Some(held.why.class)
    }

    /// Take out every held request of `node` whose reduction `reduction_of` now reads 0
    /// (the overload that shed it ended), for the caller to settle
    /// ([`Holds::settle`]): their tickets, and why they were shed.
    pub(super) fn take_unthrottled(
        &mut self,
        node: &NodeKey,
        mut reduction_of: impl FnMut(&Destination) -> u8,
    ) -> Vec<(HoldTicket, Throttled)> {
        let mut taken = Vec::new();
        if let Some(queue) = self.queues.get_mut(node) {
            queue.retain(|h| {
                let keep = reduction_of(&h.dest) != 0;
                if !keep {
                    taken.push((h.ticket, h.why));
                }
                keep
            });
        }
        self.count -= taken.len();
        taken
    }

    /// Queue the outcome of a request taken out by [`Holds::take_unthrottled`].
    pub(super) fn settle(&mut self, ticket: HoldTicket, outcome: HoldOutcome) {
        self.outcomes.push_back((ticket, outcome));
    }

    /// The UP functions with held requests.
    pub(super) fn nodes(&self) -> Vec<NodeKey> {
        if self.count == 0 {
            return Vec::new();
        }
        self.queues
            .iter()
            .filter(|(_, q)| !q.is_empty())
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Reject the held requests whose hold ended by `now`; how many.
    pub(super) fn expire(&mut self, now: Instant) -> usize {
        self.nodes().iter().map(|n| self.expire_node(n, now)).sum()
    }

    fn expire_node(&mut self, node: &NodeKey, now: Instant) -> usize {
        let Some(queue) = self.queues.get_mut(node) else {
            return 0;
        };
        let mut n = 0;
        while queue.front().is_some_and(|h| h.until <= now) {
            if let Some(h) = queue.pop_front() {
                self.outcomes
                    .push_back((h.ticket, HoldOutcome::Reject(h.why)));
                n += 1;
            }
        }
        if queue.is_empty() {
            self.queues.remove(node);
        }
        self.count -= n;
        n
    }

    /// Reject every held request of `node` (its state was reset); how many.
    pub(super) fn forget(&mut self, node: &NodeKey) -> usize {
        let Some(queue) = self.queues.remove(node) else {
            return 0;
        };
        let n = queue.len();
        for h in queue {
            self.outcomes
                .push_back((h.ticket, HoldOutcome::Reject(h.why)));
        }
        self.count -= n;
        n
    }

    /// The earliest end of a hold.
    pub(super) fn poll_timeout(&self) -> Option<Instant> {
        if self.count == 0 {
            return None;
        }
        self.queues
            .values()
            .filter_map(|q| q.front().map(|h| h.until))
            .min()
    }

    /// The next outcome of a held request.
    pub(super) fn poll(&mut self) -> Option<(HoldTicket, HoldOutcome)> {
        self.outcomes.pop_front()
    }
}
