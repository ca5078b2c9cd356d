//! The Loss throttle's model for the `throttle` target (`throttle.rs`): a shadow count of the
//! stats, the documented credit rule of the window-exact mode, and the run bounds it
//! guarantees, checked after every decision.

use pfcp_throttle::loss::RANKS;
use pfcp_throttle::{Decision, LossRequest, LossStats, LossThrottle, RequestClass};
use pfcp_wire::MessageType;

use crate::throttle::LossSpec;

pub(crate) struct Loss {
    t: LossThrottle,
    never_exempt: bool,
    strict: bool,
    exact: bool,
    /// Window-exact mode: `sum(M) - 100 x (drops + unsent)` over the counted (non-exempt,
    /// deterministic) requests. Every window's deviation is bounded by the range of this
    /// error over the window.
    error: i64,
    /// The error's range since the credit last lost information (an unsent request beyond
    /// `max_credit`): below `max_credit + 1/2` requests.
    wide_range: (i64, i64),
    /// The error's range since the first drop after the last unsent request (or since the
    /// start): below one request, the guarantee without unsent requests. `None` between an
    /// unsent request and the next drop, while the credit may lie below `-1/2`.
    strict_range: Option<(i64, i64)>,
    /// Window-exact mode: the drop credit as documented (1/100 request), kept by the model.
    credit: i64,
    /// `max_credit` in 1/100 request.
    bound: i64,
    shadow: LossStats,
}

impl Loss {
    pub(crate) fn new(s: &LossSpec) -> Loss {
        let config = s.config();
        Loss {
            t: LossThrottle::new(config),
            never_exempt: s.never_throttle_exempt,
            strict: s.escalate_after.is_none(),
            exact: s.exact_window,
            error: 0,
            wide_range: (0, 0),
            strict_range: Some((0, 0)),
            credit: 0,
            bound: i64::from(s.max_credit.max(1)) * 100,
            shadow: LossStats::default(),
        }
    }

    pub(crate) fn set_reduction(&mut self, r: u8) {
        self.t.set_reduction(r);
        assert_eq!(self.t.reduction(), r.min(100));
    }

    /// Checks common to every decision on a request of `class` that was counted.
    pub(crate) fn after(&mut self, class: RequestClass, d: Decision, draw: Option<u32>) {
        let rank = class.rank();
        assert!(rank < RANKS);
        let reduction = self.t.reduction();
        let boundary = self.t.boundary_rank();
        assert!(boundary <= RANKS, "boundary {boundary}");
        self.shadow.offered[rank] += 1;
        let throttled = match d {
            Decision::Send => false,
            Decision::Throttle(t) => {
                assert_eq!(t.reduction, reduction, "reported reduction");
                assert_eq!(t.class, class, "reported class");
                true
            }
        };
        if throttled {
            self.shadow.throttled[rank] += 1;
        }
        if reduction == 0 {
            assert!(!throttled, "reduction 0 throttled {class:?}");
        }
        if class.exempt && self.never_exempt {
            assert!(!throttled, "exempt throttled despite never_throttle_exempt");
        }
        let exempt_spared = class.exempt && self.never_exempt;
        match draw {
            Some(_) => {
                // Random mode: 1 below the boundary, 0 above.
                if reduction > 0 && rank < boundary && !exempt_spared {
                    assert!(throttled, "rank {rank} below boundary {boundary} sent");
                }
                if rank > boundary {
                    assert!(
                        !throttled,
                        "rank {rank} above boundary {boundary} throttled"
                    );
                }
                if reduction == 100 && !exempt_spared {
                    assert!(throttled, "reduction 100 sent a request in random mode");
                }
            }
            None if self.exact => {
                // Window-exact mode: exempt requests pass uncounted; the rest are paced by
                // the credit alone (no boundary, no escalation).
                if class.exempt {
                    assert!(!throttled, "exact mode throttled an exempt request");
                } else {
                    // The documented rule: +M per request, a drop at half a request, -1
                    // per drop, within max_credit.
                    if reduction > 0 {
                        self.credit += i64::from(reduction);
                        let due = self.credit >= 50;
                        assert_eq!(throttled, due, "exact mode: credit {}", self.credit);
                        if due {
                            self.credit -= 100;
                        }
                        self.credit = self.credit.clamp(-self.bound, self.bound);
                    }
                    assert!(self.credit < 50 && self.credit >= -self.bound);
                    self.error += i64::from(reduction) - 100 * i64::from(throttled);
                    let e = self.error;
                    let (lo, hi) = &mut self.wide_range;
                    (*lo, *hi) = ((*lo).min(e), (*hi).max(e));
                    assert!(
                        *hi - *lo < self.bound + 50,
                        "exact mode: error range {lo}..{hi} (1/100 request) with unsent ones"
                    );
                    match &mut self.strict_range {
                        Some((lo, hi)) => {
                            (*lo, *hi) = ((*lo).min(e), (*hi).max(e));
                            assert!(
                                *hi - *lo < 100,
                                "exact mode: error range {lo}..{hi} (1/100 request)"
                            );
                        }
                        // After a drop the credit is back in [-1/2, +1/2).
                        None if throttled => self.strict_range = Some((e, e)),
                        None => {}
                    }
                }
            }
            None => {
                let escalated = throttled && rank > boundary;
                if escalated {
                    self.shadow.escalated += 1;
                }
                if rank > boundary && (class.exempt || self.strict) {
                    assert!(
                        !throttled,
                        "rank {rank} above boundary {boundary} throttled"
                    );
                }
                if self.strict && reduction > 0 && rank < boundary && !exempt_spared {
                    assert!(throttled, "strict mode sent rank {rank} below {boundary}");
                }
            }
        }
        let stats = self.t.stats();
        assert_eq!(*stats, self.shadow, "stats differ from the shadow count");
        for (t, o) in stats.throttled.iter().zip(&stats.offered) {
            assert!(t <= o, "throttled {t} > offered {o}");
        }
        let total: u64 = stats.throttled.iter().sum();
        assert!(stats.escalated <= total);
    }

    pub(crate) fn decide(&mut self, class: RequestClass) {
        let d = self.t.decide(class);
        self.after(class, d, None);
    }

    /// A deterministic decision; if it sent, the request is reported not sent after all.
    pub(crate) fn decide_unsent(&mut self, class: RequestClass) {
        let d = self.t.decide(class);
        self.after(class, d, None);
        if !d.is_send() {
            return;
        }
        self.t.unsent(class);
        if self.exact && class.exempt {
            // Not counted in window-exact mode.
        } else {
            self.shadow.unsent[class.rank()] += 1;
            if self.exact {
                // A drop the throttle did not choose: it counts towards the target, and the
                // one-request guarantee waits for the next drop of the throttle's own.
                let lowered = self.credit - 100;
                self.credit = lowered.max(-self.bound);
                self.error -= 100;
                self.strict_range = None;
                if lowered < -self.bound {
                    // Beyond max_credit the credit forgets the excess, by design.
                    self.error += -self.bound - lowered;
                    self.wide_range = (self.error, self.error);
                }
                let e = self.error;
                let (lo, hi) = &mut self.wide_range;
                (*lo, *hi) = ((*lo).min(e), (*hi).max(e));
            }
        }
        assert_eq!(*self.t.stats(), self.shadow, "stats after unsent");
        for ((t, u), o) in self
            .shadow
            .throttled
            .iter()
            .zip(&self.shadow.unsent)
            .zip(&self.shadow.offered)
        {
            assert!(t + u <= *o, "throttled {t} + unsent {u} > offered {o}");
        }
    }

    pub(crate) fn decide_draw(&mut self, class: RequestClass, draw: u32) {
        let d = self.t.decide(LossRequest::new(class).with_draw(draw));
        self.after(class, d, Some(draw));
    }

    pub(crate) fn decide_message(&mut self, mt: MessageType, class: RequestClass) {
        // Only requests reach the Loss throttle (clause 6.2.4.4): its caller filters the rest.
        if mt.is_request() {
            let d = self.t.decide(class);
            self.after(class, d, None);
        }
    }
}
