//! The state behind the C.2 rules, kept from what a node sees: [`StateTracker`].

use core::hash::Hash;
use core::time::Duration;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use super::context::{Registration, RequestState};

/// Configuration of a [`StateTracker`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[non_exhaustive]
pub struct TrackerConfig {
    /// Most sessions kept (at least 1). Default 65 536.
    pub max_sessions: usize,
    /// How long after its first step succeeded a procedure's follow-ups rank higher, unless
    /// [`StateTracker::on_procedure_complete`] ends it first. Default 30 s.
    pub follow_up_window: Duration,
    /// How long after a peer restart the sessions it lost are a restoration (unless
    /// re-established or released first). Default 300 s.
    pub restoration_window: Duration,
    /// `false` (PFCP, the default): `Registered` when the request's session is established.
    /// `true` (Diameter, where C.2 speaks of the *user*): `Registered` when the UE has any
    /// established session, so the SAR for a registered user's additional PDN connection is
    /// `Registered` and `additional_session`.
    pub registration_per_ue: bool,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        TrackerConfig {
            max_sessions: 65_536,
            follow_up_window: Duration::from_secs(30),
            restoration_window: Duration::from_secs(300),
            registration_per_ue: false,
        }
    }
}

impl TrackerConfig {
    /// With `max_sessions` set (see the field).
    #[must_use]
    pub fn with_max_sessions(mut self, max_sessions: usize) -> Self {
        self.max_sessions = max_sessions;
        self
    }
    /// With `follow_up_window` set (see the field).
    #[must_use]
    pub fn with_follow_up_window(mut self, window: Duration) -> Self {
        self.follow_up_window = window;
        self
    }
    /// With `restoration_window` set (see the field).
    #[must_use]
    pub fn with_restoration_window(mut self, window: Duration) -> Self {
        self.restoration_window = window;
        self
    }
    /// With `registration_per_ue` set (see the field).
    #[must_use]
    pub fn with_registration_per_ue(mut self, per_ue: bool) -> Self {
        self.registration_per_ue = per_ue;
        self
    }
}

/// Counters since creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct TrackerStats {
    /// Sessions evicted because the table was full.
    pub evicted: u64,
    /// [`StateTracker::on_peer_restart`] calls.
    pub peer_restarts: u64,
    /// Sessions marked for restoration by a peer restart.
    pub sessions_lost: u64,
}

#[derive(Debug, Clone)]
struct Session<U, P> {
    ue: Option<U>,
    peer: Option<P>,
    established: bool,
    follow_up_until: Option<Instant>,
    restoring_until: Option<Instant>,
    /// The stamp of its last event: its place in `order`.
    stamp: u64,
}

/// The state behind the C.2 rules per session and UE, kept from what a node reports.
///
/// Sans-IO and bounded: the caller reports events with the time, asks for the
/// [`RequestState`] of the next request, and overrides what it knows better
/// (`overrides.or(tracker.state(..))`). The tracker only reports what it has evidence for:
/// a fact it has not seen stays `None`, and the rule table's default applies.
///
/// | event | PFCP (a CP function) | SWx (a 3GPP AAA server) | effect on later requests |
/// |---|---|---|---|
/// | [`StateTracker::on_first_step_succeeded`] | a Session Establishment Response accepted, for an establishment that was admitted | a MAR answered with success, after it was admitted | `follows_admitted` for the session's requests, for [`TrackerConfig::follow_up_window`] or until [`StateTracker::on_procedure_complete`] |
/// | [`StateTracker::on_established`] | a session established at a UP function (the peer) for a UE | the user registered (SAR answered with success), one S6b session | `registration = Registered` (per session or per UE, [`TrackerConfig::registration_per_ue`]); a new session of the same UE is `additional_session` |
/// | [`StateTracker::on_peer_restart`] | a UP function restarted (new Recovery Time Stamp): its sessions are lost | (the access's AAA-Failure-Indication says it per request instead) | the lost sessions' requests are `restoration` until re-established, for [`TrackerConfig::restoration_window`] |
/// | [`StateTracker::on_released`] | a Session Deletion Response accepted | the user deregistered / the S6b session ended | the session is forgotten; the UE's next session is no longer additional |
///
/// The release of resources itself is a property of the request (the PFCP procedure, the SWx
/// Server-Assignment-Type), not of the state: the tracker leaves it `None`.
///
/// # Bounds
///
/// At most [`TrackerConfig::max_sessions`] sessions (at least 1). When full, a new session
/// evicts the one whose last event is the oldest (counted in [`TrackerStats::evicted`]); an
/// evicted session reads as unknown. Per event the work is O(1) on average except
/// [`StateTracker::on_peer_restart`] and [`StateTracker::prune`], which scan the table.
///
/// `S` identifies a session (PFCP: the CP F-SEID or the application's session id; Diameter:
/// the Session-Id), `U` a UE or session group (SUPI, IMSI, NAI), `P` a peer (the UP
/// function's Node ID; use `()` where there is one).
///
/// # Examples
///
/// ```
/// use std::time::Instant;
/// use pfcp_throttle::classify::Procedure;
/// use pfcp_throttle::{Classifier, Registration, RequestContext, StateTracker, TrackerConfig};
///
/// // Sessions by CP SEID, UEs by SUPI, UP functions by name.
/// let mut tracker: StateTracker<u64, &str, &str> = StateTracker::new(TrackerConfig::default());
/// let now = Instant::now();
/// tracker.on_established(1, Some("imsi-001010000000001"), Some("upf1"), now);
/// let state = tracker.state(Some(&1), None, now);
/// assert_eq!(state.registration, Some(Registration::Registered));
/// // A second session of the same UE is an additional session.
/// let second = tracker.state(Some(&2), Some(&"imsi-001010000000001"), now);
/// assert_eq!(second.additional_session, Some(true));
///
/// // upf1 restarted (a new Recovery Time Stamp): re-establishing session 1 is a restoration,
/// // which the classifier ranks lower (+4) than new work of the same ARP.
/// tracker.on_peer_restart(&"upf1", now);
/// let restore = tracker.state(Some(&1), None, now);
/// assert_eq!(restore.restoration, Some(true));
/// let ctx = RequestContext::new(Procedure::SessionEstablishment).with_arp([8]);
/// let classifier = Classifier::default();
/// let plain = classifier.classify(&ctx.clone()).class.priority;
/// let restoring = classifier.classify(&ctx.with_state(restore)).class.priority;
/// assert!(plain.is_higher_than(restoring));
/// ```
#[derive(Debug, Clone)]
pub struct StateTracker<S, U, P> {
    config: TrackerConfig,
    sessions: HashMap<S, Session<U, P>>,
    /// Established sessions per UE (entries with a count of zero are removed).
    ues: HashMap<U, u32>,
    /// Sessions in the order of their last event; stale entries (stamp changed) skipped.
    order: VecDeque<(S, u64)>,
    next_stamp: u64,
    stats: TrackerStats,
}

impl<S, U, P> StateTracker<S, U, P>
where
    S: Hash + Eq + Clone,
    U: Hash + Eq + Clone,
    P: Eq,
{
    /// An empty tracker.
    pub fn new(config: TrackerConfig) -> Self {
        StateTracker {
            config,
            sessions: HashMap::new(),
            ues: HashMap::new(),
            order: VecDeque::new(),
            next_stamp: 0,
            stats: TrackerStats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &TrackerConfig {
        &self.config
    }

    /// Counters since creation.
    pub fn stats(&self) -> &TrackerStats {
        &self.stats
    }

    /// Sessions kept.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether no session is kept.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Established sessions of `ue`.
    pub fn sessions_of(&self, ue: &U) -> u32 {
        self.ues.get(ue).copied().unwrap_or(0)
    }

    /// The first request of a procedure on `session` was admitted and succeeded: the
    /// follow-ups rank higher (`follows_admitted`) for the follow-up window.
    pub fn on_first_step_succeeded(&mut self, session: S, now: Instant) {
        let until = now.checked_add(self.config.follow_up_window);
        let entry = self.touch(session);
        entry.follow_up_until = until.or(Some(now));
    }

    /// The procedure on `session` is complete: its requests no longer follow an admitted
    /// first step.
    pub fn on_procedure_complete(&mut self, session: &S) {
        if let Some(e) = self.sessions.get_mut(session) {
            e.follow_up_until = None;
        }
    }

    /// `session` of `ue` is established at `peer` (again, after a restoration: the mark is
    /// cleared).
    pub fn on_established(&mut self, session: S, ue: Option<U>, peer: Option<P>, _now: Instant) {
        let (old_ue, was_established) = {
            let entry = self.touch(session);
            let old = (entry.ue.take(), entry.established);
            entry.ue = ue.clone();
            entry.peer = peer;
            entry.established = true;
            entry.restoring_until = None;
            old
        };
        if was_established {
            if let Some(u) = old_ue {
                self.ue_dec(&u);
            }
        }
        if let Some(u) = ue {
            *self.ues.entry(u).or_insert(0) += 1;
        }
    }

    /// `session` was released: it is forgotten.
    pub fn on_released(&mut self, session: &S) {
        if let Some(e) = self.sessions.remove(session) {
            if e.established {
                if let Some(u) = &e.ue {
                    self.ue_dec(u);
                }
            }
        }
        self.compact();
    }

    /// `peer` restarted and lost its sessions: each one established there becomes a
    /// restoration, until re-established or released, for the restoration window.
    pub fn on_peer_restart(&mut self, peer: &P, now: Instant) {
        self.stats.peer_restarts += 1;
        let until = now
            .checked_add(self.config.restoration_window)
            .or(Some(now));
        let mut lost = Vec::new();
        for e in self.sessions.values_mut() {
            if e.established && e.peer.as_ref() == Some(peer) {
                e.established = false;
                e.restoring_until = until;
                e.follow_up_until = None;
                if let Some(u) = &e.ue {
                    lost.push(u.clone());
                }
                self.stats.sessions_lost += 1;
            }
        }
        for u in &lost {
            self.ue_dec(u);
        }
    }

    /// Drops the sessions that carry nothing any more at `now` (not established, their
    /// follow-up and restoration windows over). Optional: the bound holds without it.
    pub fn prune(&mut self, now: Instant) {
        self.sessions.retain(|_, e| {
            e.established
                || e.follow_up_until.is_some_and(|t| now < t)
                || e.restoring_until.is_some_and(|t| now < t)
        });
        self.compact();
    }

    /// The state for a request on `session` (if it has one) of `ue` (if known; otherwise the
    /// session's) at `now`: `Some` only for what the tracker has evidence of. Override with
    /// the caller's knowledge: `overrides.or(tracker.state(..))`.
    pub fn state(&self, session: Option<&S>, ue: Option<&U>, now: Instant) -> RequestState {
        let entry = session.and_then(|s| self.sessions.get(s));
        let ue = ue.or_else(|| entry.and_then(|e| e.ue.as_ref()));
        let established = entry.is_some_and(|e| e.established);
        let ue_sessions = ue.map_or(0, |u| self.sessions_of(u));
        // The UE's *other* established sessions.
        let others = ue_sessions.saturating_sub(u32::from(established));
        let registered = if self.config.registration_per_ue {
            ue_sessions > 0
        } else {
            established
        };
        let live = |t: Option<Instant>| t.is_some_and(|t| now < t);
        RequestState {
            registration: registered.then_some(Registration::Registered),
            follows_admitted: entry
                .is_some_and(|e| live(e.follow_up_until))
                .then_some(true),
            additional_session: (session.is_some() && !established && others > 0).then_some(true),
            restoration: entry
                .is_some_and(|e| live(e.restoring_until))
                .then_some(true),
            releases_resources: None,
        }
    }

    fn ue_dec(&mut self, ue: &U) {
        if let Some(n) = self.ues.get_mut(ue) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.ues.remove(ue);
            }
        }
    }

    /// The entry of `session`, created if needed (evicting the oldest when full), its stamp
    /// renewed.
    fn touch(&mut self, session: S) -> &mut Session<U, P> {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        if !self.sessions.contains_key(&session) {
            while self.sessions.len() >= self.config.max_sessions.max(1) {
                if !self.evict_oldest() {
                    break;
                }
            }
        }
        // Compact before the push: the new stamp is not in the table yet.
        self.compact();
        self.order.push_back((session.clone(), stamp));
        let entry = self.sessions.entry(session).or_insert(Session {
            ue: None,
            peer: None,
            established: false,
            follow_up_until: None,
            restoring_until: None,
            stamp,
        });
        entry.stamp = stamp;
        entry
    }

    /// Evicts the live session at the front of `order`; `false` if there is none.
    fn evict_oldest(&mut self) -> bool {
        while let Some((key, stamp)) = self.order.pop_front() {
            if self.sessions.get(&key).is_some_and(|e| e.stamp == stamp) {
                if let Some(e) = self.sessions.remove(&key) {
                    if e.established {
                        if let Some(u) = &e.ue {
                            self.ue_dec(u);
                        }
                    }
                }
                self.stats.evicted += 1;
                return true;
            }
        }
        false
    }

    /// Drops stale entries of `order` once they outnumber the live ones.
    fn compact(&mut self) {
        if self.order.len() > 2 * self.sessions.len() + 64 {
            let sessions = &self.sessions;
            self.order
                .retain(|(k, stamp)| sessions.get(k).is_some_and(|e| e.stamp == *stamp));
        }
    }
}
