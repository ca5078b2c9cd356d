//! The state tracker's model: a [`StateTracker`] and a model of its documented events
//! (eviction order included) kept side by side, its state fed to the classifier.

use std::collections::BTreeMap;
use std::time::Instant;

use pfcp_throttle::classify::{Registration, RequestState, StateTracker, TrackerConfig};
use pfcp_throttle::Classifier;

use super::pfcp::classify;
use super::{TrackEvent, TrackerSpec};
use crate::throttle::When;

#[derive(Debug, Clone)]
struct ModelSession {
    ue: Option<u8>,
    peer: Option<u8>,
    established: bool,
    follow: Option<Instant>,
    restoring: Option<Instant>,
    stamp: u64,
}

/// A tracker and a model of its documented behaviour, kept side by side.
pub(crate) struct Tracker {
    t: StateTracker<u8, u8, u8>,
    config: TrackerConfig,
    model: BTreeMap<u8, ModelSession>,
    stamp: u64,
    evicted: u64,
}

impl Tracker {
    pub(crate) fn new(s: &TrackerSpec) -> Tracker {
        let config = TrackerConfig::default()
            .with_max_sessions(usize::from(s.max_sessions % 8))
            .with_follow_up_window(s.follow_up_window.get())
            .with_restoration_window(s.restoration_window.get())
            .with_registration_per_ue(s.registration_per_ue);
        Tracker {
            t: StateTracker::new(config),
            config,
            model: BTreeMap::new(),
            stamp: 0,
            evicted: 0,
        }
    }

    fn touch(&mut self, s: u8) -> &mut ModelSession {
        let stamp = self.stamp;
        self.stamp += 1;
        if !self.model.contains_key(&s) {
            while self.model.len() >= self.config.max_sessions.max(1) {
                let oldest = *self
                    .model
                    .iter()
                    .min_by_key(|(_, e)| e.stamp)
                    .expect("a full table has a session")
                    .0;
                self.model.remove(&oldest);
                self.evicted += 1;
            }
        }
        let e = self.model.entry(s).or_insert(ModelSession {
            ue: None,
            peer: None,
            established: false,
            follow: None,
            restoring: None,
            stamp,
        });
        e.stamp = stamp;
        e
    }

    fn sessions_of(&self, ue: u8) -> u32 {
        self.model
            .values()
            .filter(|e| e.established && e.ue == Some(ue))
            .count() as u32
    }

    fn expected_state(&self, session: Option<u8>, ue: Option<u8>, now: Instant) -> RequestState {
        let entry = session.and_then(|s| self.model.get(&s));
        let ue = ue.or(entry.and_then(|e| e.ue));
        let established = entry.is_some_and(|e| e.established);
        let n = ue.map_or(0, |u| self.sessions_of(u));
        let registered = if self.config.registration_per_ue {
            n > 0
        } else {
            established
        };
        let live = |t: Option<Instant>| t.is_some_and(|t| now < t);
        RequestState {
            registration: registered.then_some(Registration::Registered),
            follows_admitted: entry.is_some_and(|e| live(e.follow)).then_some(true),
            additional_session: (session.is_some()
                && !established
                && n.saturating_sub(u32::from(established)) > 0)
                .then_some(true),
            restoration: entry.is_some_and(|e| live(e.restoring)).then_some(true),
            releases_resources: None,
        }
    }

    /// Run one event at `now` (already moved by the event's `When`).
    pub(crate) fn event(&mut self, e: &TrackEvent, now: Instant, classifier: &Classifier) {
        match e {
            TrackEvent::FirstStep(s, _) => {
                let s = s % 16;
                self.t.on_first_step_succeeded(s, now);
                let until = now.checked_add(self.config.follow_up_window).or(Some(now));
                self.touch(s).follow = until;
            }
            TrackEvent::Complete(s) => {
                let s = s % 16;
                self.t.on_procedure_complete(&s);
                if let Some(e) = self.model.get_mut(&s) {
                    e.follow = None;
                }
            }
            TrackEvent::Established {
                session, ue, peer, ..
            } => {
                let (s, ue, peer) = (session % 16, ue.map(|u| u % 4), peer.map(|p| p % 3));
                self.t.on_established(s, ue, peer, now);
                let e = self.touch(s);
                e.ue = ue;
                e.peer = peer;
                e.established = true;
                e.restoring = None;
            }
            TrackEvent::Released(s) => {
                let s = s % 16;
                self.t.on_released(&s);
                self.model.remove(&s);
            }
            TrackEvent::PeerRestart(p, _) => {
                let p = p % 3;
                self.t.on_peer_restart(&p, now);
                let until = now
                    .checked_add(self.config.restoration_window)
                    .or(Some(now));
                for e in self.model.values_mut() {
                    if e.established && e.peer == Some(p) {
                        e.established = false;
                        e.restoring = until;
                        e.follow = None;
                    }
                }
            }
            TrackEvent::Prune(_) => {
                self.t.prune(now);
                let live = |t: Option<Instant>| t.is_some_and(|t| now < t);
                self.model
                    .retain(|_, e| e.established || live(e.follow) || live(e.restoring));
            }
            TrackEvent::State {
                session,
                ue,
                request,
                ..
            } => {
                let (s, u) = (session.map(|s| s % 16), ue.map(|u| u % 4));
                let got = self.t.state(s.as_ref(), u.as_ref(), now);
                assert_eq!(got, self.expected_state(s, u, now), "tracked state");
                assert_eq!(got.releases_resources, None);
                // The caller's facts override the tracked ones, field by field.
                let merged = request.state.state().or(got);
                classify(classifier, request, Some(merged));
            }
        }
        self.check();
    }

    fn check(&self) {
        assert!(
            self.t.len() <= self.config.max_sessions.max(1),
            "tracker bound"
        );
        assert_eq!(self.t.len(), self.model.len(), "tracked sessions");
        assert_eq!(self.t.is_empty(), self.model.is_empty());
        assert_eq!(self.t.stats().evicted, self.evicted, "evictions");
        for u in 0..4 {
            assert_eq!(
                self.t.sessions_of(&u),
                self.sessions_of(u),
                "sessions of UE {u}"
            );
        }
    }
}

/// The instant of a tracker event.
pub(crate) fn when_of(e: &TrackEvent) -> Option<When> {
    match e {
        TrackEvent::FirstStep(_, w)
        | TrackEvent::PeerRestart(_, w)
        | TrackEvent::Prune(w)
        | TrackEvent::Established { when: w, .. }
        | TrackEvent::State { when: w, .. } => Some(*w),
        TrackEvent::Complete(_) | TrackEvent::Released(_) => None,
    }
}
