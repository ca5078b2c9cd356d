//! Redirection of a throttled Session Establishment Request to an alternate UP function
//! (clause 6.2.4.4), and how links are made: apart from the route list, so that a redirection
//! can make and ask the alternates' links while it walks the list.

use std::collections::VecDeque;
use std::time::Instant;

use pfcp_overload::{LoadTable, NodeKey, OverloadTable};
use pfcp_throttle::{
    EgressConfigSets, LossConfig, LossRequest, LossThrottle, PeerThrottles, Refusal, RequestClass,
};

use super::super::link::{SendRhythm, UpLink, UpLinks};
use super::super::{Destination, LossMode};
use super::CpPolicy;

impl CpPolicy {
    /// Try the alternates of the route list for a request the link of `node` refused: only
    /// those not in overload themselves (their reduction is 0: one whose throttle sheds any
    /// share would still let the rest of the redirected requests through on top of its own
    /// traffic, so that with every UP function overloaded a request refused by one and tried
    /// at each of the others nearly always got through somewhere; ten UP functions at 5x in
    /// `pfcp sim`: twice their capacity arrived), each with its own throttles as a route
    /// candidate (a refusal is not counted on its connection; router: the Maximum Per Message
    /// Forwarding Allowed, [`RouteList::route`]).
    pub(super) fn redirect(
        &mut self,
        node: &NodeKey,
        others: &mut dyn UpLinks,
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
                .position(|(p, w)| p.node == *node && *w > 0)
                .and_then(|i| group.peers().get(i).map(|(_, w)| (g, i, *w)))
        });
        if let Some((g, i, _)) = skipped {
            routes.set_weight_at(g, i, 0);
        }
        let links = &self.links;
        let mut k = 0u64;
        let result = routes.route(draw, &mut |alt: &Destination| {
            k += 1;
            if alt.node == *node {
                return false;
            }
            let Some(link) = others.link_mut(&alt.node, &mut |n| links.link(n, now)) else {
                return false;
            };
            link.last_used = now;
            link.reduction(alt.entity, now) == 0
                && links
                    .admit_alternate(link, class, now, mix(draw, k))
                    .is_ok()
        });
        if let Some((g, i, w)) = skipped {
            routes.set_weight_at(g, i, w);
        }
        match result {
            Ok(routed) => Some(routed.peer),
            Err(failure) => {
                tracing::debug!(
                    node = %node,
                    reason = %failure.reason,
                    attempts = failure.attempts,
                    "cp: no alternate admitted the request"
                );
                None
            }
        }
    }
}

/// How links are made, and how their Loss throttles decide: apart from the route list, so
/// that a redirection can make and ask the alternates' links while it walks the list.
#[derive(Debug, Clone)]
pub(super) struct LinkConfig {
    pub(super) overload: pfcp_overload::OverloadConfig,
    pub(super) load: pfcp_overload::LoadConfig,
    pub(super) loss: LossConfig,
    pub(super) loss_mode: LossMode,
    pub(super) sets: EgressConfigSets<NodeKey>,
}

impl LinkConfig {
    pub(super) fn link(&self, node: &NodeKey, now: Instant) -> UpLink {
        UpLink {
            node: node.clone(),
            overload: OverloadTable::new(self.overload.clone()),
            load: LoadTable::new(self.load.clone()),
            throttles: PeerThrottles::new(
                LossThrottle::new(self.loss),
                self.sets.throttle_for(node, now),
            ),
            rhythm: SendRhythm::default(),
            implicit: Default::default(),
            owed: 0,
            exempt_refused: None,
            holds: VecDeque::new(),
            last_used: now,
        }
    }

    /// An alternate's throttles as a route candidate (it is out of overload: reduction 0, any
    /// places owed forgiven): the Loss throttle counts the request, and an egress refusal is
    /// not counted as load offered to the connection.
    fn admit_alternate(
        &self,
        link: &mut UpLink,
        class: RequestClass,
        now: Instant,
        draw: u64,
    ) -> Result<(), Refusal> {
        let draw = match self.loss_mode {
            LossMode::Deterministic => None,
            LossMode::Random => Some(draw as u32),
        };
        link.rhythm.offered(now);
        link.owed = 0;
        let r = link
            .throttles
            .admit(LossRequest::new(class).at(0).with_draw(draw), now);
        if r.is_ok() {
            link.rhythm.sent(now);
        }
        r
    }
}

/// A SplitMix64 step: the draw for the `k`-th alternate from the caller's draw. Each
/// alternate's throttle (in [`LossMode::Random`]) needs a draw of its own: reusing the
/// caller's would make its decision repeat the refused destination's.
fn mix(draw: u64, k: u64) -> u64 {
    let mut z = draw.wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
