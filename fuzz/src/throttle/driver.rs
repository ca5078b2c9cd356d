//! The run of one [`Scenario`] or [`ScenarioV2`]: the parts under test built from the
//! configurations, each event to its part, the clock moved as the events say.

use std::time::{Duration, Instant};

use pfcp_throttle::{
    Classifier, MessageKind, Procedure, RequestClass, RouteGroup, RouteList, RouteListError,
};
use pfcp_wire::MessageType;

use super::routing::{expected_route_list, forward, route};
use super::{
    prio, ClassifierSpec, ContextSpecV2, EgressSpec, Event, EventV2, LossSpec, Scenario,
    ScenarioV2, When,
};
use crate::throttle_c2::Tracker;
use crate::throttle_egress::{Egress, Peer};
use crate::throttle_loss::Loss;

/// Most events run per input (bounds the cost of one input).
const MAX_EVENTS: usize = 512;

/// The base instant of a run: the one clock read. Every later instant is this one moved by
/// fuzzer-chosen durations.
#[allow(clippy::disallowed_methods)] // the one clock read: an arbitrary origin for the run
fn base_instant() -> Instant {
    Instant::now()
}

/// Run a decoded scenario of the first format.
pub fn run(s: &Scenario) {
    let mut r = Runner::new(
        &s.loss,
        (&s.egress, true),
        &s.classifier,
        0,
        &s.groups,
        s.max_attempts,
    );
    for event in s.events.iter().take(MAX_EVENTS) {
        r.event(event);
    }
}

/// Run a decoded scenario of the second format.
pub fn run_v2(s: &ScenarioV2) {
    let mut r = Runner::new(
        &s.loss,
        (&s.egress, s.hard_cap),
        &s.classifier,
        s.registered_elsewhere,
        &s.groups,
        s.max_attempts,
    );
    let mut tracker = Tracker::new(&s.tracker);
    let swx = s.swx.classifier();
    let mut peer = Peer::new(&s.peer_loss, r.egress.as_ref().map(Egress::config), r.now);
    for event in s.events.iter().take(MAX_EVENTS) {
        match event {
            EventV2::Core(e) => r.event(e),
            EventV2::Classify(ctx) => crate::throttle_c2::classify(&r.classifier, ctx, None),
            EventV2::Track(e) => {
                if let Some(w) = crate::throttle_c2::when_of(e) {
                    r.now = advance(r.now, w);
                }
                tracker.event(e, r.now, &r.classifier);
            }
            EventV2::Swx(spec) => crate::throttle_c2::classify_swx(&swx, spec),
            EventV2::Egress(e) => {
                if let Some(eg) = r.egress.as_mut() {
                    eg.event(e, &mut r.now);
                }
            }
            EventV2::LossUnsent { priority, exempt } => {
                r.loss.decide_unsent(class(*priority, *exempt));
            }
            EventV2::Peer(e) => peer.event(e, &mut r.now),
            EventV2::Sets(spec) => crate::throttle_egress::sets(spec, r.now),
            EventV2::Router(value, pfcp) => crate::throttle_egress::router(*value, *pfcp),
            EventV2::Forward {
                draw,
                admit,
                history,
            } => {
                if let Some(routes) = r.routes.as_mut() {
                    forward(routes, *draw, admit, history);
                }
            }
        }
    }
}

/// `now` moved by `when` (a backwards step only for this call: the result, not `now`).
fn advance(now: Instant, when: When) -> Instant {
    let forward = |d: Duration| now.checked_add(d).unwrap_or(now);
    match when {
        When::Now => now,
        When::Micros(n) => forward(Duration::from_micros(u64::from(n))),
        When::Millis(n) => forward(Duration::from_millis(u64::from(n))),
        When::Secs(n) => forward(Duration::from_secs(u64::from(n))),
        When::Hours(n) => forward(Duration::from_secs(u64::from(n) * 3600)),
        When::Back(_) => now,
    }
}

/// The parts under test and the clock of one run.
struct Runner {
    now: Instant,
    loss: Loss,
    classifier: Classifier,
    egress: Option<Egress>,
    routes: Option<RouteList<u8>>,
}

impl Runner {
    fn new(
        loss: &LossSpec,
        (egress, hard_cap): (&EgressSpec, bool),
        classifier: &ClassifierSpec,
        registered_elsewhere: i8,
        groups: &[Vec<(u8, u32)>],
        max_attempts: u32,
    ) -> Runner {
        let base = base_instant();
        let groups: Vec<Vec<(u8, u32)>> = groups
            .iter()
            .take(4)
            .map(|g| g.iter().take(6).copied().collect())
            .collect();
        let want = expected_route_list(&groups, max_attempts);
        let made = RouteList::new(
            groups
                .iter()
                .map(|g| {
                    g.iter()
                        .fold(RouteGroup::new(), |acc, &(p, w)| acc.with_peer(p, w))
                })
                .collect(),
            max_attempts,
        );
        let routes = match (want, made) {
            (Ok(()), Ok(r)) => Some(r),
            (Err(e), Err(got)) => {
                assert_eq!(got, e, "RouteList::new vs the rules");
                let _ = got.to_string();
                None
            }
            (want, made) => panic!(
                "RouteList rules {want:?} but new gave {:?}",
                made.map(|_| ())
            ),
        };
        Runner {
            now: base,
            loss: Loss::new(loss),
            classifier: Classifier::new(crate::throttle_c2::classifier(
                classifier,
                registered_elsewhere,
            )),
            egress: Egress::new(egress, hard_cap, base),
            routes,
        }
    }

    fn event(&mut self, event: &Event) {
        match event {
            Event::SetReduction(r) => self.loss.set_reduction(*r),
            Event::Decide { priority, exempt } => self.loss.decide(class(*priority, *exempt)),
            Event::DecideMany {
                n,
                priority,
                exempt,
            } => {
                for _ in 0..*n {
                    self.loss.decide(class(*priority, *exempt));
                }
            }
            Event::DecideDraw {
                priority,
                exempt,
                draw,
            } => self.loss.decide_draw(class(*priority, *exempt), *draw),
            Event::DecideMessage {
                message_type,
                priority,
                exempt,
            } => self
                .loss
                .decide_message(MessageType(*message_type), class(*priority, *exempt)),
            Event::Classify(ctx) => {
                crate::throttle_c2::classify(&self.classifier, &ContextSpecV2::from(ctx), None)
            }
            Event::Received(p) => {
                let got = self.classifier.received_request(p.map(prio));
                match p {
                    Some(p) => assert_eq!(got, prio(*p)),
                    None => assert_eq!(
                        got.value(),
                        self.classifier.config().request_default.min(15)
                    ),
                }
                assert_eq!(Classifier::response(got), got);
            }
            Event::Egress {
                request,
                priority,
                when,
            } => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    e.decide(kind(*request), RequestClass::new(prio(*priority)), t);
                }
            }
            Event::EgressBurst {
                n,
                request,
                priority,
                when,
            } => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    for _ in 0..*n {
                        e.decide(kind(*request), RequestClass::new(prio(*priority)), t);
                    }
                }
            }
            Event::EgressMessage {
                message_type,
                priority,
                when,
            } => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    let mt = MessageType(*message_type);
                    let _ = Procedure::of(mt).map(Procedure::is_throttled);
                    e.decide_message(mt, RequestClass::new(prio(*priority)), t);
                }
            }
            Event::OnSend { request, when } => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    e.on_send(kind(*request), t);
                }
            }
            Event::TransactionEnd => {
                if let Some(e) = self.egress.as_mut() {
                    e.end();
                }
            }
            Event::EgressTimeout(when) => {
                if let Some(e) = self.egress.as_mut() {
                    let t = e.at(&mut self.now, *when);
                    e.timeout(t);
                }
            }
            Event::EgressTimeoutAtPoll => {
                if let Some(e) = self.egress.as_mut() {
                    if let Some(p) = e.t.poll_timeout() {
                        self.now = self.now.max(p);
                        e.latest = e.latest.max(self.now);
                    }
                    e.timeout(self.now);
                }
            }
            Event::Route {
                draw,
                admit,
                within,
            } => {
                if let Some(r) = self.routes.as_mut() {
                    route(r, *draw, admit, *within);
                }
            }
            Event::SetWeight { peer, weight } => {
                if let Some(r) = self.routes.as_mut() {
                    let known = r
                        .groups()
                        .iter()
                        .any(|g| g.peers().iter().any(|(p, _)| p == peer));
                    assert_eq!(r.set_weight(peer, *weight), known);
                }
            }
            Event::SetWeightAt {
                group,
                index,
                weight,
            } => {
                if let Some(r) = self.routes.as_mut() {
                    let (g, i) = (usize::from(*group % 5), usize::from(*index % 7));
                    let exists = r.groups().get(g).is_some_and(|x| i < x.len());
                    assert_eq!(r.set_weight_at(g, i, *weight), exists);
                    if exists {
                        assert_eq!(r.groups()[g].peers()[i].1, *weight);
                    }
                }
            }
            Event::SetMaxAttempts(n) => {
                if let Some(r) = self.routes.as_mut() {
                    let before = r.max_forwarding_attempts();
                    match r.set_max_forwarding_attempts(*n) {
                        Ok(()) => assert_eq!(r.max_forwarding_attempts(), *n),
                        Err(e) => {
                            assert_eq!((*n, e), (0, RouteListError::ZeroAttempts));
                            assert_eq!(r.max_forwarding_attempts(), before);
                        }
                    }
                }
            }
        }
    }
}

fn class(priority: u8, exempt: bool) -> RequestClass {
    if exempt {
        RequestClass::exempt(prio(priority))
    } else {
        RequestClass::new(prio(priority))
    }
}

fn kind(request: bool) -> MessageKind {
    if request {
        MessageKind::Request
    } else {
        MessageKind::Answer
    }
}
