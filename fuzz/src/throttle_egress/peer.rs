//! Loss and egress together: [`Peer`], a [`PeerThrottles`] with shadow counts of what the Loss
//! throttle refused and what egress left unsent.

use std::time::{Duration, Instant};

use pfcp_throttle::peer::{PeerThrottles, Refusal};
use pfcp_throttle::{EgressConfig, EgressThrottle, LossConfig, LossRequest, LossThrottle};

use super::PeerEvent;
use crate::throttle::{LossSpec, When};

/// A [`PeerThrottles`] with shadow counts.
pub(crate) struct Peer {
    p: PeerThrottles,
    exact: bool,
    unsent: u64,
    throttled: u64,
}

impl Peer {
    pub(crate) fn new(loss: &LossSpec, egress: Option<EgressConfig>, start: Instant) -> Peer {
        let egress = egress.and_then(|c| EgressThrottle::new(c, start).ok());
        let config = loss_config(loss);
        Peer {
            p: PeerThrottles::new(LossThrottle::new(config), egress),
            exact: config.exact_window,
            unsent: 0,
            throttled: 0,
        }
    }

    pub(crate) fn event(&mut self, e: &PeerEvent, now: &mut Instant) {
        match e {
            PeerEvent::Reduction(r) => self.p.loss_mut().set_reduction(*r),
            PeerEvent::Request {
                class,
                routed,
                draw,
                when,
            } => {
                let t = step(now, *when);
                let class = class.class();
                let loss_before = *self.p.loss().stats();
                let egress_before = self.p.egress().map(|e| *e.stats());
                let got = match (routed, draw) {
                    (false, None) => self.p.decide(class, t),
                    (false, Some(d)) => self.p.decide(LossRequest::new(class).with_draw(*d), t),
                    (true, None) => self.p.admit(class, t),
                    (true, Some(d)) => self.p.admit(LossRequest::new(class).with_draw(*d), t),
                };
                let loss = *self.p.loss().stats();
                let egress = self.p.egress().map(|e| *e.stats());
                let rank = class.rank();
                assert_eq!(loss.offered[rank], loss_before.offered[rank] + 1);
                match got {
                    Ok(()) => {
                        assert_eq!(loss.throttled, loss_before.throttled);
                        assert_eq!(loss.unsent, loss_before.unsent);
                        if let (Some(b), Some(a)) = (egress_before, egress) {
                            assert_eq!(a.sent_requests, b.sent_requests + 1, "sent");
                        }
                    }
                    Err(Refusal::Loss(t)) => {
                        self.throttled += 1;
                        assert_eq!(t.class, class);
                        assert_eq!(loss.throttled[rank], loss_before.throttled[rank] + 1);
                        // Refused before the connection: nothing counted there.
                        assert_eq!(egress, egress_before, "a Loss refusal reached egress");
                    }
                    Err(Refusal::Egress(_)) => {
                        let (b, a) = (
                            egress_before.expect("an egress refusal without egress"),
                            egress.expect("egress"),
                        );
                        assert_eq!(a.sent_requests, b.sent_requests);
                        // The request counts as not sent towards the reduction (exempt ones
                        // are not counted in window-exact mode).
                        let unsent = !(self.exact && class.exempt);
                        assert_eq!(
                            loss.unsent[rank],
                            loss_before.unsent[rank] + u64::from(unsent),
                            "unsent"
                        );
                        self.unsent += u64::from(unsent);
                        if *routed {
                            assert_eq!(a.counted(), b.counted(), "a routed refusal was counted");
                            assert_eq!(a.checks_refused, b.checks_refused + 1);
                        } else {
                            assert_eq!(a.counted(), b.counted() + 1);
                            assert_eq!(a.offered_requests, b.offered_requests + 1);
                        }
                    }
                    Err(other) => panic!("a refusal the harness does not know: {other:?}"),
                }
                for r in 0..loss.offered.len() {
                    assert!(
                        loss.throttled[r] + loss.unsent[r] <= loss.offered[r],
                        "rank {r}: throttled {} + unsent {} > offered {}",
                        loss.throttled[r],
                        loss.unsent[r],
                        loss.offered[r]
                    );
                }
            }
            PeerEvent::OnSend(k, w) => {
                let t = step(now, *w);
                let before = self.p.egress().map(|e| e.stats().counted());
                self.p.on_send(k.kind(), t);
                if let Some(b) = before {
                    assert_eq!(self.p.egress().map(|e| e.stats().counted()), Some(b + 1));
                }
            }
            PeerEvent::End => self.p.on_transaction_end(),
        }
        assert_eq!(
            self.p.loss().stats().throttled.iter().sum::<u64>(),
            self.throttled
        );
        assert_eq!(
            self.p.loss().stats().unsent.iter().sum::<u64>(),
            self.unsent
        );
    }
}

/// The Loss configuration of `s`.
pub(crate) fn loss_config(s: &LossSpec) -> LossConfig {
    s.config()
}

/// `now` moved forward by `when` (a backwards step reads as no time).
fn step(now: &mut Instant, when: When) -> Instant {
    let d = match when {
        When::Now | When::Back(_) => Duration::ZERO,
        When::Micros(n) => Duration::from_micros(u64::from(n)),
        When::Millis(n) => Duration::from_millis(u64::from(n)),
        When::Secs(n) => Duration::from_secs(u64::from(n)),
        When::Hours(n) => Duration::from_secs(u64::from(n) * 3600),
    };
    *now = now.checked_add(d).unwrap_or(*now);
    *now
}
