//! Deciding in two steps: [`EgressThrottle::check`] asks without counting anything,
//! [`EgressThrottle::commit`] counts the message once it is sent. A route list asks several
//! connections for one request and sends it on one: the refusals of the others are not load
//! offered to them, so they must not raise those connections' measured rate (and level).

use std::time::Instant;

use super::types::{EgressPermit, MessageKind, ThrottleReason};
use super::EgressThrottle;
use crate::loss::RequestClass;

impl EgressThrottle {
    /// Whether a message of `kind` and `class` would be sent at `now`, without counting it:
    /// the same checks as [`EgressThrottle::decide`] (level, pending limit, cap; exempt
    /// requests and every other kind pass), and nothing recorded but a refusal in
    /// [`EgressStats::checks_refused`](super::EgressStats::checks_refused). A refused check
    /// is not offered load on this connection: it does not raise the measured rate, the
    /// level or the cap's demand estimate.
    ///
    /// Commit the permit with [`EgressThrottle::commit`] at the same `now` if the message is
    /// sent here (the guarantee of the admission window holds for a commit at the instant of
    /// its check), or drop it. Checks are not reservations: two checks followed by two
    /// commits may admit one message more than the cap would have.
    #[inline]
    pub fn check(
        &mut self,
        kind: MessageKind,
        class: impl Into<RequestClass>,
        now: Instant,
    ) -> Result<EgressPermit, ThrottleReason> {
        let class = class.into();
        self.catch_up(now);
        let permit = EgressPermit { kind, class };
        if kind != MessageKind::Request {
            return Ok(permit);
        }
        let q = class.priority.value();
        let pending_full = u64::from(self.pending) >= self.pending_limit;
        // The order of `decide`: an exempt request meets the pending limit only; the others
        // the level, the pending limit, the cap.
        let refusal = if class.exempt {
            pending_full.then_some(ThrottleReason::PendingLimit)
        } else if q > self.level_cut {
            Some(ThrottleReason::Level(self.level))
        } else if pending_full {
            Some(ThrottleReason::PendingLimit)
        } else if self.config.hard_cap
            && !self
                .cap
                .admits(q, self.window.current.admitted, now, self.next_tick_at)
        {
            Some(ThrottleReason::RateLimit)
        } else {
            None
        };
        match refusal {
            Some(reason) => {
                self.stats.checks_refused += 1;
                Err(reason)
            }
            None => Ok(permit),
        }
    }

    /// Counts the message of a permit from [`EgressThrottle::check`] as sent at `now`: in the
    /// measured rate, as a token and a place in the admission window and, for a request, a
    /// pending slot (what [`EgressThrottle::decide`] counts for a message it sends).
    #[inline]
    pub fn commit(&mut self, permit: EgressPermit, now: Instant) {
        self.catch_up(now);
        self.window.current.total = self.window.current.total.saturating_add(1);
        let EgressPermit { kind, class } = permit;
        if kind != MessageKind::Request {
            self.count_unthrottled(kind);
            return;
        }
        self.stats.offered_requests += 1;
        if class.exempt {
            self.admit_exempt();
            return;
        }
        if self.config.hard_cap {
            let q = class.priority.value();
            if let Some(d) = self.window.current.demand.get_mut(usize::from(q & 15)) {
                *d = d.saturating_add(1);
            }
        }
        self.admit_request();
    }
}
