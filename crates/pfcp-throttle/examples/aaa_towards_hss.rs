//! A 3GPP AAA server sending SWx requests (MAR, SAR) to overloaded HSSs with pfcp-throttle,
//! and no PFCP: the SWx rule table of TS 29.273 Annex C.2 with the state a tracker keeps, a
//! Loss throttle per HSS driven by the reduction the HSS reports (a Diameter overload report,
//! RFC 7683's OC-Reduction-Percentage), an egress throttle per connection (the signalling
//! router's Max EMR and levels), and a route list of two route groups.
//!
//! Simulated time, deterministic traffic: 8 s of users attaching (MAR, then SAR if the MAR
//! was admitted and succeeded), registered users re-authenticating, additional PDN
//! connections (SAR PGW_UPDATE), restorations (AAA-Failure-Indication), deregistrations and
//! emergency attaches, at 2600 requests per second where the three HSSs take 2600 messages
//! per second in all. HSS-1 reports a 40 % reduction from t = 2 s. Each HSS is asked through
//! [`PeerThrottles::admit`]: its Loss and egress throttles decide together (a request the
//! connection refuses counts towards the HSS's reduction), and a connection that refuses a
//! request the route list then sends elsewhere does not count it as offered load. The summary
//! shows what each class got.
//!
//! Run: `cargo run -p pfcp-throttle --example aaa_towards_hss`

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use pfcp_throttle::classify::{Registration, RequestState, ServerAssignmentType};
use pfcp_throttle::egress::{EgressConfig, EgressThrottle, ThresholdPair};
use pfcp_throttle::peer::PeerThrottles;
use pfcp_throttle::routing::{RouteGroup, RouteList};
use pfcp_throttle::{
    LossThrottle, StateTracker, SwxClassifier, SwxCommand, SwxRequest, TrackerConfig,
};

/// The one clock read: a base for simulated time (the crate never reads the clock).
#[allow(clippy::disallowed_methods)]
fn t0() -> Instant {
    Instant::now()
}

/// xorshift64: deterministic traffic.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One HSS: the Loss throttle its overload reports drive and the egress throttle of the
/// connection to it, deciding together.
struct Hss {
    name: &'static str,
    throttles: PeerThrottles,
}

impl Hss {
    fn new(name: &'static str, capacity: u32, connections: u32, now: Instant) -> Hss {
        // Levels at 60/80/100 % of the Max EMR; "Max EMR = the peer's capacity / its
        // connections".
        let mut config = EgressConfig::new(1);
        config.thresholds = [
            Some(ThresholdPair::new(60, 55)),
            Some(ThresholdPair::new(80, 75)),
            Some(ThresholdPair::new(100, 90)),
        ];
        let config = config
            .for_connection_of(capacity, connections)
            .expect("a valid configuration");
        let egress = EgressThrottle::new(config, now).expect("a valid configuration");
        Hss {
            name,
            throttles: PeerThrottles::new(LossThrottle::default(), Some(egress)),
        }
    }
}

/// What one class of requests got.
#[derive(Default)]
struct Tally {
    offered: u64,
    sent: BTreeMap<&'static str, u64>,
    refused: u64,
}

fn main() {
    let start = t0();
    let classifier = SwxClassifier::default();
    // Registration is per user on SWx (C.2 speaks of "the user"); sessions are the access
    // (STa/SWm) and S6b sessions, keyed here by number.
    let mut users: StateTracker<u64, u64, ()> =
        StateTracker::new(TrackerConfig::default().with_registration_per_ue(true));
    let mut hss = [
        Hss::new("HSS-1", 1000, 1, start),
        Hss::new("HSS-2", 1000, 1, start),
        Hss::new("HSS-3", 600, 1, start),
    ];
    // HSS-1 and HSS-2 preferred, HSS-3 when both refuse. Each request is sent once (a
    // refused check is not a forwarding).
    let mut routes = RouteList::new(
        vec![
            RouteGroup::new().with_peer(0usize, 1).with_peer(1, 1),
            RouteGroup::new().with_peer(2usize, 1),
        ],
        1,
    )
    .expect("a valid route list");

    let mut rng = Rng(0x5EED_0001_2345_6789);
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut next_session = 1_000_000u64;
    let gap = Duration::from_micros(1_000_000 / 2600);
    let mut now = start;
    while now < start + Duration::from_secs(8) {
        now += gap;
        if now >= start + Duration::from_secs(2) {
            hss[0].throttles.loss_mut().set_reduction(40);
        }
        let user = rng.below(4_000);
        let access_session = user;
        let known = users.state(None, Some(&user), now);
        let registered = known.registration == Some(Registration::Registered);
        let request = match rng.below(100) {
            0..=1 => SwxRequest::mar().with_emergency(true),
            2..=6 if registered => SwxRequest::sar(ServerAssignmentType::USER_DEREGISTRATION),
            7..=11 if registered => {
                // An additional PDN connection: a new S6b session of a registered user.
                next_session += 1;
                let state = users.state(Some(&next_session), Some(&user), now);
                SwxRequest::sar(ServerAssignmentType::PGW_UPDATE).with_state(state)
            }
            12..=14 => SwxRequest::mar()
                .with_aaa_failure_indication(true)
                .with_state(
                    RequestState::UNKNOWN.with_registration(Registration::RegisteredElsewhere),
                ),
            _ => SwxRequest::mar().with_state(users.state(Some(&access_session), Some(&user), now)),
        };
        let class = classifier.classify(&request);
        let tally = tallies.entry(class.to_string()).or_default();
        tally.offered += 1;

        // Route: each HSS is asked at most once, its Loss and egress throttles together.
        let draw = rng.next();
        let routed = routes.route(draw, &mut |i: &usize| {
            hss[*i].throttles.admit(class.class, now).is_ok()
        });
        let Ok(routed) = routed else {
            // No HSS took it: fail it towards the access (DIAMETER_TOO_BUSY).
            tally.refused += 1;
            continue;
        };
        let peer = &mut hss[routed.peer];
        *tally.sent.entry(peer.name).or_default() += 1;
        // The HSS answers at once in this example: the answer frees the pending slot.
        peer.throttles.on_transaction_end();
        match request.command {
            SwxCommand::Mar if !request.emergency => {
                // An admitted, successful MAR: the SAR that follows ranks higher.
                users.on_first_step_succeeded(access_session, now);
                let sar = SwxRequest::sar(ServerAssignmentType::REGISTRATION)
                    .with_state(users.state(Some(&access_session), Some(&user), now));
                let sar_class = classifier.classify(&sar);
                let t = tallies.entry(sar_class.to_string()).or_default();
                t.offered += 1;
                // The SAR goes to the HSS that served the MAR: its only destination.
                let h = &mut hss[routed.peer];
                if h.throttles.decide(sar_class.class, now).is_ok() {
                    h.throttles.on_transaction_end();
                    *t.sent.entry(h.name).or_default() += 1;
                    users.on_established(access_session, Some(user), None, now);
                    users.on_procedure_complete(&access_session);
                } else {
                    t.refused += 1;
                }
            }
            SwxCommand::Sar(t) if t.is_deregistration() => users.on_released(&access_session),
            SwxCommand::Sar(ServerAssignmentType::PGW_UPDATE) => {
                users.on_established(next_session, Some(user), None, now);
            }
            _ => {}
        }
    }

    println!(
        "{:<44} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "class", "offered", "HSS-1", "HSS-2", "HSS-3", "refused"
    );
    for (class, t) in &tallies {
        let sent = |n: &str| t.sent.get(n).copied().unwrap_or(0);
        println!(
            "{class:<44} {:>8} {:>8} {:>8} {:>8} {:>8}",
            t.offered,
            sent("HSS-1"),
            sent("HSS-2"),
            sent("HSS-3"),
            t.refused
        );
    }
    for h in &hss {
        let e = h.throttles.egress().expect("an egress throttle");
        let s = e.stats();
        let loss = h.throttles.loss().stats();
        println!(
            "{}: level {} at the end, {} requests sent, {} refused by the levels or the cap \
             as a route candidate (not counted as offered load there); the Loss throttle shed \
             {} itself and counted those {} towards the HSS's reduction",
            h.name,
            e.level(),
            s.sent_requests,
            s.checks_refused + s.throttled_level + s.throttled_rate,
            loss.throttled.iter().sum::<u64>(),
            loss.unsent.iter().sum::<u64>()
        );
    }
}
