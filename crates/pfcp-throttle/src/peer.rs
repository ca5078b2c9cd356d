//! The Loss throttle and the egress throttle of one destination, deciding together:
//! [`PeerThrottles`].
//!
//! A request towards a peer meets two throttles: the [`LossThrottle`] its overload reports
//! drive (TS 29.244 6.2.4.4 OCI; Diameter's DOIC reports) and the [`EgressThrottle`] of the
//! connection to it (the router's Max EMR and levels). Asked one after the other, they shed
//! too much: the Loss throttle counts a request it lets through as sent, and when the egress
//! throttle then refuses it the Loss throttle sheds another one to make up its reduction.
//! [`PeerThrottles`] tells the Loss throttle that such a request was not sent after all
//! ([`LossThrottle::unsent`]), so together they shed what the larger of the two asks, not
//! the sum.
//!
//! Two ways to ask, for the two ways a request reaches a peer:
//!
//! * [`PeerThrottles::decide`]: the peer is the request's only destination. An egress refusal
//!   is counted on the connection as offered load (the router's offered rate).
//! * [`PeerThrottles::admit`]: the peer is a candidate of a [`RouteList`](crate::RouteList).
//!   An egress refusal is not counted on the connection ([`EgressThrottle::check`]): the
//!   request goes to another peer, and counting it here would keep this connection congested
//!   with traffic it never carries.
//!
//! ```
//! use std::time::Instant;
//! use pfcp_throttle::egress::{EgressConfig, EgressThrottle};
//! use pfcp_throttle::peer::PeerThrottles;
//! use pfcp_throttle::{LossThrottle, MessagePriority, RequestClass};
//!
//! # #[allow(clippy::disallowed_methods)]
//! let now = Instant::now();
//! let egress = EgressThrottle::new(EgressConfig::new(100), now)?;
//! let mut hss = PeerThrottles::new(LossThrottle::default(), Some(egress));
//! hss.loss_mut().set_reduction(20);
//! let class = RequestClass::new(MessagePriority::HIGHEST);
//! let sent = (0..100).filter(|_| hss.decide(class, now).is_ok()).count();
//! // The cap takes 16 at once (its burst). The Loss throttle shed 4 of the first 20 (its
//! // 20 %); the 80 the cap refused after that count as drops for it, so it shed no more
//! // (had it taken them for sent requests, it would have gone on shedding a fifth).
//! let loss = hss.loss().stats();
//! assert_eq!(sent, 16);
//! assert_eq!(loss.throttled.iter().sum::<u64>(), 4);
//! assert_eq!(loss.unsent.iter().sum::<u64>(), 80);
//! # Ok::<(), pfcp_throttle::egress::EgressConfigError>(())
//! ```

use std::time::Instant;

use crate::egress::{EgressDecision, EgressThrottle, MessageKind, ThrottleReason};
use crate::loss::{Decision, LossRequest, LossThrottle, RequestClass, Throttled};

/// Why [`PeerThrottles`] refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The Loss throttle (the peer's overload reduction).
    Loss(Throttled),
    /// The egress throttle of the connection.
    Egress(ThrottleReason),
}

/// The throttles of one destination: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct PeerThrottles {
    loss: LossThrottle,
    egress: Option<EgressThrottle>,
}

impl PeerThrottles {
    /// The two throttles (the egress one optional: a peer whose capacity is not known).
    pub fn new(loss: LossThrottle, egress: Option<EgressThrottle>) -> Self {
        PeerThrottles { loss, egress }
    }

    /// The Loss throttle.
    pub fn loss(&self) -> &LossThrottle {
        &self.loss
    }

    /// The Loss throttle, e.g. to set the reduction a new overload report asks.
    pub fn loss_mut(&mut self) -> &mut LossThrottle {
        &mut self.loss
    }

    /// The egress throttle, if any.
    pub fn egress(&self) -> Option<&EgressThrottle> {
        self.egress.as_ref()
    }

    /// The egress throttle, if any.
    pub fn egress_mut(&mut self) -> Option<&mut EgressThrottle> {
        self.egress.as_mut()
    }

    /// The first transmission of a request whose only destination is this peer: the Loss
    /// throttle ([`LossThrottle::decide`]: `request` is the [`RequestClass`], or a
    /// [`LossRequest`] with the reduction this request meets and the draw for the random
    /// mode), then the egress throttle ([`EgressThrottle::decide`], a refusal counted as
    /// offered load). If the egress throttle refuses, the Loss throttle counts the request as
    /// not sent ([`LossThrottle::unsent`]). `Ok`: send it; it has been counted as sent.
    pub fn decide(&mut self, request: impl Into<LossRequest>, now: Instant) -> Result<(), Refusal> {
        let request = request.into();
        let loss = self.loss.decide(request);
        self.loss_then(loss, request.class, now, false)
    }

    /// The peer as a candidate of a route list: as [`PeerThrottles::decide`], but an egress
    /// refusal is not counted on the connection ([`EgressThrottle::check`], then
    /// [`EgressThrottle::commit`] on success). The Loss throttle counts the request either way
    /// (it was offered to this peer, and a redirected request is one this peer shed).
    pub fn admit(&mut self, request: impl Into<LossRequest>, now: Instant) -> Result<(), Refusal> {
        let request = request.into();
        let loss = self.loss.decide(request);
        self.loss_then(loss, request.class, now, true)
    }

    /// After a [`Refusal::Loss`] of this request: send it anyway, if the egress throttle lets
    /// it through (counted as load offered to the connection unless `routed`, as in
    /// [`PeerThrottles::admit`]). The Loss throttle takes its drop back
    /// ([`LossThrottle::send_anyway`]); an egress refusal then makes it a drop again
    /// ([`LossThrottle::unsent`]). For a caller that overrides the Loss throttle now and
    /// then, e.g. a CP function that would otherwise send too seldom to hear the peer's
    /// overload end (TS 29.244 6.2.4: OCI only rides on the peer's own messages).
    pub fn send_anyway(
        &mut self,
        class: RequestClass,
        now: Instant,
        routed: bool,
    ) -> Result<(), Refusal> {
        self.loss.send_anyway(class);
        self.loss_then(Decision::Send, class, now, routed)
    }

    /// After a [`Refusal::Loss`] of this request: send it **ahead** of a later request that
    /// both throttles let through and the caller then holds back in its place
    /// ([`PeerThrottles::give_way`]), if the egress throttle lets it through (counted as load
    /// offered to the connection unless `routed`). The Loss throttle's credit does not move
    /// ([`LossThrottle::sent_ahead`]): an eMPS or emergency request trades places with a
    /// lower-priority one, and the peer receives as many requests as the reduction allows.
    pub fn send_ahead(
        &mut self,
        class: RequestClass,
        now: Instant,
        routed: bool,
    ) -> Result<(), Refusal> {
        if let Some(reason) = self.egress_refusal(class, now, routed) {
            return Err(Refusal::Egress(reason));
        }
        self.loss.sent_ahead(class);
        Ok(())
    }

    /// A request of `class` that both throttles let through is not sent: it gives its place
    /// to one sent ahead of it ([`PeerThrottles::send_ahead`]). The Loss throttle counts it as
    /// unsent ([`LossThrottle::gave_way`]) and the egress throttle frees its pending slot; the
    /// egress rate keeps both, one message more than went (the request sent ahead was
    /// counted when it went).
    pub fn give_way(&mut self, class: RequestClass) {
        self.loss.gave_way(class);
        if let Some(e) = &mut self.egress {
            e.on_transaction_end();
        }
    }

    /// Another message sent to the peer without a decision (an answer, a retransmission, a
    /// management message): counted on the connection ([`EgressThrottle::on_send`]).
    pub fn on_send(&mut self, kind: MessageKind, now: Instant) {
        if let Some(e) = &mut self.egress {
            e.on_send(kind, now);
        }
    }

    /// A request admitted here has ended (answered, timed out, abandoned): frees its
    /// pending slot.
    pub fn on_transaction_end(&mut self) {
        if let Some(e) = &mut self.egress {
            e.on_transaction_end();
        }
    }

    fn loss_then(
        &mut self,
        loss: Decision,
        class: RequestClass,
        now: Instant,
        routed: bool,
    ) -> Result<(), Refusal> {
        if let Decision::Throttle(t) = loss {
            return Err(Refusal::Loss(t));
        }
        match self.egress_refusal(class, now, routed) {
            None => Ok(()),
            Some(reason) => {
                self.loss.unsent(class);
                Err(Refusal::Egress(reason))
            }
        }
    }

    /// Ask the egress throttle (if any) to let a request of `class` through: why not, if it
    /// refused. `routed`: as in [`PeerThrottles::admit`], a refusal is not counted as offered.
    fn egress_refusal(
        &mut self,
        class: RequestClass,
        now: Instant,
        routed: bool,
    ) -> Option<ThrottleReason> {
        let egress = self.egress.as_mut()?;
        if routed {
            match egress.check(MessageKind::Request, class, now) {
                Ok(permit) => {
                    egress.commit(permit, now);
                    None
                }
                Err(reason) => Some(reason),
            }
        } else {
            match egress.decide(MessageKind::Request, class, now) {
                EgressDecision::Send => None,
                EgressDecision::Throttle(reason) => Some(reason),
            }
        }
    }
}
