//! Priority requests held for a place ([`CpConfig::exempt_hold`](crate::cp::CpConfig)): the
//! policy's part (tickets, outcomes, counts); the link keeps the queue.

use std::time::Instant;

use pfcp_throttle::{RequestClass, Throttled};

use super::super::hold::{HoldOutcome, HoldTicket};
use super::super::link::{Held, UpLink};
use super::super::Destination;
use super::CpPolicy;

impl CpPolicy {
    /// Hold a request the Loss throttle shed (`why`) if holding is on and the link has room:
    /// the ticket and the deadline.
    pub(super) fn hold(
        &mut self,
        link: &mut UpLink,
        dest: &Destination,
        why: Throttled,
        now: Instant,
    ) -> Option<(HoldTicket, Instant)> {
        let until = now.checked_add(self.hold?)?;
        if link.holds.len() >= self.hold_max {
            return None;
        }
        let ticket = HoldTicket(self.next_ticket);
        self.next_ticket += 1;
        link.holds.push_back(Held {
            ticket,
            dest: dest.clone(),
            why,
            until,
        });
        Some((ticket, until))
    }

    /// The oldest held request of the link whose hold has not ended by `now`, taken out to
    /// be sent (its outcome [`HoldOutcome::Send`] queued); those whose hold ended are rejected
    /// on the way. Its class, for the throttle's books.
    pub(super) fn release_one(&mut self, link: &mut UpLink, now: Instant) -> Option<RequestClass> {
        self.expire_holds(link, now);
        let held = link.holds.pop_front()?;
        self.outcomes.push_back((held.ticket, HoldOutcome::Send));
        Some(held.why.class)
    }

    /// Send the held requests of the link whose reduction is 0 again, if its egress throttle
    /// lets them through (they count as sent anyway); the others of them are rejected.
    pub(super) fn release_unthrottled(&mut self, link: &mut UpLink, now: Instant) {
        for h in link.take_unthrottled(now) {
            if link.throttles.send_anyway(h.why.class, now, false).is_ok() {
                link.rhythm.sent(now);
                self.stats.sent += 1;
                self.stats.held_sent += 1;
                self.outcomes.push_back((h.ticket, HoldOutcome::Send));
            } else {
                self.stats.rejected += 1;
                self.stats.held_expired += 1;
                self.outcomes
                    .push_back((h.ticket, HoldOutcome::Reject(h.why)));
            }
        }
    }

    pub(super) fn expire_holds(&mut self, link: &mut UpLink, now: Instant) {
        for h in link.take_expired(now) {
            self.stats.rejected += 1;
            self.stats.held_expired += 1;
            self.outcomes
                .push_back((h.ticket, HoldOutcome::Reject(h.why)));
        }
    }

    /// The outcome of a request held by [`CpDecision::Hold`](super::super::CpDecision::Hold): the caller sends it
    /// ([`HoldOutcome::Send`]) or fails it locally ([`HoldOutcome::Reject`]). Outcomes come
    /// from [`CpPolicy::decide`], [`CpPolicy::handle_timeout`] and [`CpPolicy::forget`]; poll
    /// after each of them until `None`.
    pub fn poll_hold(&mut self) -> Option<(HoldTicket, HoldOutcome)> {
        self.outcomes.pop_front()
    }
}
