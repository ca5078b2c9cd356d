//! Alternate routing across route groups, in the style of Oracle DSR's "Alternate Routing
//! Across Route Groups in a Route List". TS 29.244 6.2.4.4 allows a throttled request to be
//! redirected, for example a Session Establishment Request moved to an alternate UP function.
//!
//! A [`RouteList`] holds [`RouteGroup`]s in order of preference. Each group holds peers with
//! weights supplied by the caller, for example from load control (TS 29.244 6.2.3). To route a
//! request, [`RouteList::route`] works through the groups in order:
//!
//! 1. It picks an *eligible* peer of the group (weight above 0, not yet tried for this
//!    request) at random, in proportion to the weights, using a caller-supplied draw.
//! 2. It asks the caller's [`Admission`] check whether that peer's throttles admit the
//!    request. Typically that is an [`EgressThrottle`](crate::egress::EgressThrottle) and a
//!    [`LossThrottle`](crate::loss::LossThrottle) per peer.
//! 3. If the peer refuses, it picks another peer of the same group. Once every eligible peer
//!    of the group has refused, it moves on to the next group. DSR: "Eligible Peers or
//!    Connections from the other priority Route Groups of the Route List can be used to
//!    deliver a Request after all the Peers or Connections in the current Route Group are
//!    exhausted."
//!
//! A refused admission check is not a forwarding: DSR's Maximum Per Message Forwarding
//! Allowed ([`RouteList::max_forwarding_attempts`]) counts the times a request is *sent*,
//! and alternate routing "is attempted only if the Maximum Per Message Forwarding Allowed ...
//! is not exceeded". One [`RouteList::route`] sends the request at most once, asking each
//! eligible peer at most once, so it never exceeds the limit; the limit bounds the retries
//! of one request after the peers it was sent to failed downstream (a timeout, an answer
//! asking for another peer): [`RouteList::forward`] with the request's [`Forwarding`]
//! history refuses with [`RouteFailureReason::MaxAttempts`] once the request has been sent
//! that many times, and skips the peers it was sent to. A [`RouteFailure`] is meant to be
//! handled as a rejection by the destination. TS 29.244 6.2.4.4 says a throttled request is
//! "failed locally as though the UP had rejected it". [`RouteFailure::cause`] gives cause
//! 74, "PFCP entity in congestion".
//!
//! A refused check should not count as load offered to that peer either: with
//! [`PeerThrottles::admit`](crate::peer::PeerThrottles::admit) (or
//! [`EgressThrottle::check`](crate::egress::EgressThrottle::check) and `commit`) as the
//! admission, the connections a request passes over do not see their measured rate raised by
//! traffic they never carry, so diverted traffic does not keep the preferred group congested.
//!
//! Routing does not allocate (beyond cloning the chosen peer id). Its scratch space is sized
//! when the list is built.
//!
//! ## Priority-aware overflow
//!
//! Suppose the admission check is an `EgressThrottle` per peer. A request whose priority the
//! preferred peers' congestion levels throttle then overflows to the next group, and a request
//! of higher priority stays on the preferred group. This is the two-group example of the DSR
//! guide, which the crate's tests reproduce with PFCP priorities.
//!
//! ## Example
//!
//! ```
//! use pfcp_throttle::routing::{Forwarding, RouteFailureReason, RouteGroup, RouteList};
//!
//! let preferred = RouteGroup::new().with_peer("upf-a", 1).with_peer("upf-b", 3);
//! let fallback = RouteGroup::new().with_peer("upf-c", 1);
//! let mut routes = RouteList::new(vec![preferred, fallback], 4)?;
//!
//! // Every peer admits: the preferred group, upf-b three times out of four.
//! let routed = routes.route(0x1234_5678_9abc_def0, &mut |_: &&str| true).unwrap();
//! assert_eq!(routed.group, 0);
//!
//! // upf-a and upf-b are throttled: the request overflows to upf-c after 3 checks.
//! let routed = routes.route(42, &mut |p: &&str| *p == "upf-c").unwrap();
//! assert_eq!((routed.peer, routed.group, routed.attempts), ("upf-c", 1, 3));
//!
//! // upf-c timed out: forward the request again, to another peer (upf-c skipped).
//! let mut history = Forwarding::new();
//! history.record(routed.peer);
//! let again = routes.forward(&mut history, 9, &mut |p: &&str| *p != "upf-a").unwrap();
//! assert_eq!((again.peer, history.forwards()), ("upf-b", 2));
//!
//! // Nobody admits: a failure to handle like a rejection by the UP (cause 74).
//! let failure = routes.route(7, &mut |_: &&str| false).unwrap_err();
//! assert_eq!(failure.reason, RouteFailureReason::AllRefused);
//! assert_eq!(failure.cause().0, 74);
//! # Ok::<(), pfcp_throttle::routing::RouteListError>(())
//! ```

use pfcp_wire::Cause;

/// The caller's check of whether a peer's throttles admit the request being routed.
///
/// [`RouteList::route`] calls it at most once per peer and request, in trial order. The first
/// peer it admits is the one returned, and the request must then be sent to that peer. So an
/// implementation may record its decision, as
/// [`EgressThrottle::decide`](crate::egress::EgressThrottle::decide) does. Every closure
/// `FnMut(&P) -> bool` is an `Admission<P>`.
pub trait Admission<P: ?Sized> {
    /// Whether `peer` takes the request.
    fn admit(&mut self, peer: &P) -> bool;
}

impl<P: ?Sized, F: FnMut(&P) -> bool> Admission<P> for F {
    fn admit(&mut self, peer: &P) -> bool {
        self(peer)
    }
}

/// A group of peers of equal preference, each with a weight (DSR's Route Group). A peer with
/// weight 0 is not eligible.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RouteGroup<P> {
    peers: Vec<(P, u32)>,
}

impl<P> Default for RouteGroup<P> {
    fn default() -> Self {
        RouteGroup { peers: Vec::new() }
    }
}

impl<P> RouteGroup<P> {
    /// An empty group.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a peer with its weight (builder style).
    #[must_use]
    pub fn with_peer(mut self, peer: P, weight: u32) -> Self {
        self.push(peer, weight);
        self
    }

    /// Adds a peer with its weight.
    pub fn push(&mut self, peer: P, weight: u32) {
        self.peers.push((peer, weight));
    }

    /// The peers and their weights, in insertion order (the `index` of [`Routed`]).
    pub fn peers(&self) -> &[(P, u32)] {
        &self.peers
    }

    /// Number of peers.
    pub fn len(&self) -> usize {
        self.peers.len()
    }

    /// Whether the group has no peer.
    pub fn is_empty(&self) -> bool {
        self.peers.is_empty()
    }
}

/// Why a [`RouteList`] was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteListError {
    /// `max_forwarding_attempts` is zero.
    #[error("max_forwarding_attempts must be at least 1")]
    ZeroAttempts,
    /// A peer appears twice in the list. It would be asked twice for one request.
    #[error("groups: peer {index} of group {group} appears earlier in the list")]
    DuplicatePeer {
        /// Group of the second occurrence.
        group: usize,
        /// Its index in the group.
        index: usize,
    },
}

/// Where a request was routed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Routed<P> {
    /// The peer that admitted it.
    pub peer: P,
    /// Its group (0: the most preferred).
    pub group: usize,
    /// Its index in the group.
    pub index: usize,
    /// Admission checks made, this one included (at least 1). The request was sent once.
    pub attempts: u32,
}

/// Why no peer was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum RouteFailureReason {
    /// No peer of any group has a weight above 0. No check was made.
    #[error("no eligible peer")]
    NoEligiblePeer,
    /// Every eligible peer of every group refused.
    #[error("every eligible peer refused")]
    AllRefused,
    /// The request has been sent [`RouteList::max_forwarding_attempts`] times already
    /// (DSR's Maximum Per Message Forwarding Allowed). No check was made.
    #[error("maximum forwarding attempts reached")]
    MaxAttempts,
}

/// A request could not be routed. Handle it as a rejection by the destination (TS 29.244
/// 6.2.4.4: "failed locally as though the UP had rejected it").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("request not routed: {reason} after {attempts} attempt(s)")]
pub struct RouteFailure {
    /// Why.
    pub reason: RouteFailureReason,
    /// Admission checks made.
    pub attempts: u32,
}

impl RouteFailure {
    /// The cause to report upward as if the peer had rejected the request: 74, "PFCP entity
    /// in congestion" (TS 29.244 8.2.1). Mark it as locally generated.
    pub const fn cause(&self) -> Cause {
        Cause::PFCP_ENTITY_IN_CONGESTION
    }
}

/// Route groups in order of preference (DSR's Route List), with the per-message forwarding
/// limit. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct RouteList<P> {
    groups: Vec<RouteGroup<P>>,
    max_forwarding_attempts: u32,
    /// Per peer of the group being tried: already tried for this request.
    tried: Vec<bool>,
}

impl<P: Eq> RouteList<P> {
    /// A route list over `groups`, the most preferred first. Fails if
    /// `max_forwarding_attempts` is 0 or a peer appears twice. The check is quadratic in the
    /// number of peers, and it runs only here.
    pub fn new(
        groups: Vec<RouteGroup<P>>,
        max_forwarding_attempts: u32,
    ) -> Result<Self, RouteListError> {
        if max_forwarding_attempts == 0 {
            return Err(RouteListError::ZeroAttempts);
        }
        let all = || {
            groups
                .iter()
                .enumerate()
                .flat_map(|(g, group)| group.peers.iter().enumerate().map(move |(i, p)| (g, i, p)))
        };
        for (n, (group, index, (peer, _))) in all().enumerate() {
            if all().take(n).any(|(_, _, (other, _))| other == peer) {
                return Err(RouteListError::DuplicatePeer { group, index });
            }
        }
        let widest = groups.iter().map(RouteGroup::len).max().unwrap_or(0);
        Ok(RouteList {
            groups,
            max_forwarding_attempts,
            tried: vec![false; widest],
        })
    }

    /// Sets the weight of `peer`, for example from the load control information (LCI) it
    /// sent. Weight 0 makes it ineligible. Returns `false` if the peer is not in the list.
    pub fn set_weight(&mut self, peer: &P, weight: u32) -> bool {
        for group in &mut self.groups {
            if let Some(entry) = group.peers.iter_mut().find(|(p, _)| p == peer) {
                entry.1 = weight;
                return true;
            }
        }
        false
    }
}

impl<P> RouteList<P> {
    /// The groups, the most preferred first.
    pub fn groups(&self) -> &[RouteGroup<P>] {
        &self.groups
    }

    /// The most times one request may be sent (DSR's "Maximum Per Message Forwarding
    /// Allowed"): its first transmission and its forwardings after a failure downstream.
    /// Refused admission checks do not count.
    pub fn max_forwarding_attempts(&self) -> u32 {
        self.max_forwarding_attempts
    }

    /// Changes the limit. 0 is rejected.
    pub fn set_max_forwarding_attempts(&mut self, attempts: u32) -> Result<(), RouteListError> {
        if attempts == 0 {
            return Err(RouteListError::ZeroAttempts);
        }
        self.max_forwarding_attempts = attempts;
        Ok(())
    }

    /// Sets the weight of the peer at `index` in `group`. Returns `false` if there is no such
    /// peer.
    pub fn set_weight_at(&mut self, group: usize, index: usize, weight: u32) -> bool {
        match self
            .groups
            .get_mut(group)
            .and_then(|g| g.peers.get_mut(index))
        {
            Some(entry) => {
                entry.1 = weight;
                true
            }
            None => false,
        }
    }

    /// Routes the first transmission of one request: asks the eligible peers, group by
    /// group, each at most once, and returns the first that admits (see
    /// [`RouteList::route_within`]).
    pub fn route<A>(&mut self, draw: u64, admission: &mut A) -> Result<Routed<P>, RouteFailure>
    where
        P: Clone,
        A: Admission<P> + ?Sized,
    {
        self.route_within(self.max_forwarding_attempts, draw, admission)
    }

    /// Routes one request that may still be sent `forwards_left` times: with 0 it fails with
    /// [`RouteFailureReason::MaxAttempts`] and asks nobody, otherwise it routes as
    /// [`RouteList::route`] does (refused checks do not count against the limit). To retry
    /// after the chosen peer failed downstream, [`RouteList::forward`] keeps the count and the
    /// peers already used.
    ///
    /// `draw` is a uniformly random `u64` from the caller's RNG. The successive picks of one
    /// request are derived from it (SplitMix64), so equal draws give equal routes. Each pick
    /// chooses among the untried peers of the current group with weight above 0, with a
    /// probability proportional to the weight. The admission is asked once per pick. The
    /// first peer it admits is returned.
    pub fn route_within<A>(
        &mut self,
        forwards_left: u32,
        draw: u64,
        admission: &mut A,
    ) -> Result<Routed<P>, RouteFailure>
    where
        P: Clone,
        A: Admission<P> + ?Sized,
    {
        self.route_inner(forwards_left, &|_: &P| false, draw, admission)
    }

    /// Forwards a request again (after the peers of `history` failed downstream): fails with
    /// [`RouteFailureReason::MaxAttempts`] once `history` holds
    /// [`RouteList::max_forwarding_attempts`] forwardings, skips the peers it holds (they are
    /// not eligible, and cost no check), and records the peer it routes to.
    pub fn forward<A>(
        &mut self,
        history: &mut Forwarding<P>,
        draw: u64,
        admission: &mut A,
    ) -> Result<Routed<P>, RouteFailure>
    where
        P: Clone + Eq,
        A: Admission<P> + ?Sized,
    {
        let left = self
            .max_forwarding_attempts
            .saturating_sub(history.forwards());
        let used = &history.peers;
        let routed = self.route_inner(left, &|p: &P| used.contains(p), draw, admission)?;
        history.peers.push(routed.peer.clone());
        Ok(routed)
    }

    fn route_inner<A>(
        &mut self,
        forwards_left: u32,
        skip: &dyn Fn(&P) -> bool,
        draw: u64,
        admission: &mut A,
    ) -> Result<Routed<P>, RouteFailure>
    where
        P: Clone,
        A: Admission<P> + ?Sized,
    {
        let mut rng = SplitMix64(draw);
        let mut attempts = 0u32;
        let mut eligible_seen = false;
        for (g, group) in self.groups.iter().enumerate() {
            let Some(tried) = self.tried.get_mut(..group.peers.len()) else {
                continue;
            };
            // A skipped peer counts as tried: not eligible for this request.
            for (t, (peer, _)) in tried.iter_mut().zip(&group.peers) {
                *t = skip(peer);
            }
            loop {
                let total: u64 = group
                    .peers
                    .iter()
                    .zip(tried.iter())
                    .filter(|(_, &t)| !t)
                    .map(|((_, w), _)| u64::from(*w))
                    .sum();
                if total == 0 {
                    break;
                }
                eligible_seen = true;
                if forwards_left == 0 {
                    return Err(RouteFailure {
                        reason: RouteFailureReason::MaxAttempts,
                        attempts,
                    });
                }
                // Uniform in 0..total (multiply-shift, bias below 2^-32 for any sane total).
                let mut pick = ((u128::from(rng.next()) * u128::from(total)) >> 64) as u64;
                let mut chosen = None;
                for (i, ((peer, w), t)) in group.peers.iter().zip(tried.iter_mut()).enumerate() {
                    if *t || *w == 0 {
                        continue;
                    }
                    let w = u64::from(*w);
                    if pick < w {
                        *t = true;
                        chosen = Some((i, peer));
                        break;
                    }
                    pick -= w;
                }
                let Some((index, peer)) = chosen else {
                    break;
                };
                attempts += 1;
                if admission.admit(peer) {
                    return Ok(Routed {
                        peer: peer.clone(),
                        group: g,
                        index,
                        attempts,
                    });
                }
            }
        }
        Err(RouteFailure {
            reason: if eligible_seen {
                RouteFailureReason::AllRefused
            } else {
                RouteFailureReason::NoEligiblePeer
            },
            attempts,
        })
    }
}

/// The peers one request was sent to, in order: its forwardings, for
/// [`RouteList::forward`] and the Maximum Per Message Forwarding Allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forwarding<P> {
    peers: Vec<P>,
}

impl<P> Default for Forwarding<P> {
    fn default() -> Self {
        Forwarding { peers: Vec::new() }
    }
}

impl<P> Forwarding<P> {
    /// A request not sent yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that the request was sent to `peer` (its first transmission, routed with
    /// [`RouteList::route`] or sent directly).
    pub fn record(&mut self, peer: P) {
        self.peers.push(peer);
    }

    /// How many times the request was sent.
    pub fn forwards(&self) -> u32 {
        u32::try_from(self.peers.len()).unwrap_or(u32::MAX)
    }

    /// The peers it was sent to, in order.
    pub fn peers(&self) -> &[P] {
        &self.peers
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): the successive picks of one routing decision from
/// the caller's single draw.
#[derive(Debug, Clone, Copy)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests;
