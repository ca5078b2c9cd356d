//! Redirection of throttled Session Establishment Requests to alternate UP functions: TS
//! 29.244 clause 6.2.4.4 lets a CP function send a request its throttles refuse elsewhere
//! instead of failing it locally. The alternates come from the route list
//! ([`RouteList`](pfcp_throttle::RouteList): route groups in preference order, see
//! [`pfcp_throttle::routing`]), and each one is tried with its own throttles, so a redirected
//! request still honours the alternate's overload control.
//!
//! Only a Session Establishment Request can move: a request on an existing session belongs
//! to the UP function (and PFCP entity) that holds the session. And only to an alternate that
//! is not in overload itself (its reduction is 0): one whose throttle sheds any share would
//! still let the rest of the redirected requests through on top of its own traffic, so that
//! with every UP function overloaded a request refused by one and tried at each of the others
//! nearly always got through somewhere (ten UP functions at 5x in `pfcp sim`: twice their
//! capacity arrived, goodput 0.91 of the ideal; 0.97 with this rule).
//!
//! The alternates are asked as route candidates
//! ([`PeerThrottles::admit_at`](pfcp_throttle::PeerThrottles::admit_at)): a refusal is not
//! counted on their connections, and a forwarding attempt is counted only when the request
//! is sent (router: the Maximum Per Message Forwarding Allowed;
//! [`RouteList::route`](pfcp_throttle::RouteList::route)).

use std::time::Instant;

use pfcp_throttle::RequestClass;

use super::{CpOverloadControl, Destination};

impl CpOverloadControl {
    /// Try the alternates of the route list for a request `dest` refused.
    pub(super) fn redirect(
        &mut self,
        dest: &Destination,
        class: RequestClass,
        now: Instant,
        draw: u64,
    ) -> Option<Destination> {
        let routes = self.routes.as_mut()?;
        // Make the original UP function ineligible for this request (a route list may list
        // it), so that it costs no forwarding attempt; its weight is restored below.
        let skipped = routes.groups().iter().enumerate().find_map(|(g, group)| {
            group
                .peers()
                .iter()
                .position(|(p, w)| p.node == dest.node && *w > 0)
                .and_then(|i| group.peers().get(i).map(|(_, w)| (g, i, *w)))
        });
        if let Some((g, i, _)) = skipped {
            routes.set_weight_at(g, i, 0);
        }
        let throttles = &mut self.throttles;
        let overload = &self.overload;
        let mut k = 0u64;
        let result = routes.route(draw, &mut |alt: &Destination| {
            k += 1;
            // Not to an alternate in overload (module docs).
            alt.node != dest.node
                && overload.reduction(alt.entity, &alt.node, now) == 0
                && throttles
                    .admit(overload, alt, class, true, now, mix(draw, k))
                    .is_ok()
        });
        if let Some((g, i, w)) = skipped {
            routes.set_weight_at(g, i, w);
        }
        match result {
            Ok(routed) => Some(routed.peer),
            Err(failure) => {
                tracing::debug!(
                    node = %dest.node,
                    reason = %failure.reason,
                    attempts = failure.attempts,
                    "cp: no alternate admitted the request"
                );
                None
            }
        }
    }
}

/// A SplitMix64 step: the draw for the `k`-th alternate from the caller's draw. Each
/// alternate's throttle (in [`LossMode::Random`](super::LossMode::Random)) needs a draw of
/// its own: reusing the caller's would make its decision repeat the refused destination's.
fn mix(draw: u64, k: u64) -> u64 {
    let mut z = draw.wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
