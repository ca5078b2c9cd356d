//! The reduction a CP function applies to a UP function that refuses with Cause 74 ("PFCP
//! entity in congestion", clause 8.2.1) but sends no OCI ([`ImplicitOverload`]).
//!
//! A UP function that does not support overload control (clause 6.2.4.2 makes it optional) or
//! that chooses not to send OCIs still protects itself by refusing what it cannot serve. A CP
//! function that keeps sending everything then makes the UP function spend its capacity on
//! refusals: with `pfcp sim`'s refusal cost of a tenth of a request, 32 CP functions at 5x left
//! it 0.56 of its capacity for sessions, 0.01 at 10x. What the CP function does beyond the Loss
//! algorithm is not standardised (clause 6.2.4.4), so it may derive a reduction from the
//! refusals: it keeps the share of its requests the UP function refuses near
//! [`SURPLUS`] by moving the share it sends, and feeds that reduction to the same Loss throttle
//! an OCI would (lowest priority first, eMPS and emergency last, clause 6.2.4.5). As soon as
//! the UP function sends an OCI it speaks overload control, and this stays off for good.

use std::time::{Duration, Instant};

/// Answers judged together: the share refused over fewer is mostly noise.
const WINDOW: u32 = 20;
/// Or the answers of this long, at least one: a CP function held to a trickle answers too
/// seldom to wait for twenty before it tells that the refusals stopped.
const WINDOW_TIME: Duration = Duration::from_millis(400);
/// The surplus kept: the CP sends this much more than the UP function accepted, so that its
/// queue stays fed; at the fixed point about a tenth of what is sent is refused.
const SURPLUS: f64 = 1.1;
/// The share of a window's answers refused from which, with no reduction in force, the
/// refusals are taken for an overload.
const ONSET: f64 = 0.3;
/// The share of the distance to what a window calls for that the reduction moves.
const GAIN: f64 = 0.5;
/// A window without refusals raises the share sent by this factor (and a point): the UP
/// function had room.
const RISE: f64 = 1.25;
/// The deepest reduction: a trickle keeps the answers coming that tell the end.
const MAX_METRIC: u8 = 95;

/// A UP function's refusals as the CP function counts them, and the reduction they give.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ImplicitOverload {
    /// When the window began (its first answer).
    since: Option<Instant>,
    answers: u32,
    refused: u32,
    /// The reduction in force, percent.
    metric: u8,
    /// The UP function sent an OCI: it speaks overload control itself.
    speaks_oci: bool,
    /// The last window, with no reduction in force, was above [`ONSET`].
    above_onset: bool,
}

impl ImplicitOverload {
    /// An answer to a throttled procedure's request at `now`: `refused` with Cause 74,
    /// `carried_oci` if it had an OCI.
    pub(super) fn answered(&mut self, refused: bool, carried_oci: bool, now: Instant) {
        if carried_oci {
            *self = ImplicitOverload {
                speaks_oci: true,
                ..ImplicitOverload::default()
            };
        }
        if self.speaks_oci {
            return;
        }
        let since = *self.since.get_or_insert(now);
        self.answers += 1;
        self.refused += u32::from(refused);
        // A window of time closes only under a reduction (to tell the end of the refusals);
        // the onset is judged on full windows.
        let timed = self.metric > 0 && now.saturating_duration_since(since) >= WINDOW_TIME;
        if self.answers < WINDOW && !timed {
            return;
        }
        let share = f64::from(self.refused) / f64::from(self.answers);
        let sent = 1.0 - f64::from(self.metric) / 100.0;
        if self.metric == 0 {
            // Refusals now and then are bursts the UP function's queue could not hold, not an
            // overload to throttle for: two windows in a row above the onset are.
            let above = share >= ONSET;
            let onset = above && self.above_onset;
            self.above_onset = above;
            if !onset {
                self.answers = 0;
                self.refused = 0;
                self.since = None;
                return;
            }
        }
        let next = if self.refused == 0 {
            sent * RISE + 0.01
        } else {
            // Half way to what the window's refusals call for: a window of twenty answers
            // is a noisy measure, and a cut too deep sheds the emergency traffic too.
            sent * (1.0 - GAIN + GAIN * (1.0 - share) * SURPLUS)
        };
        let metric = (100.0 * (1.0 - next.clamp(0.0, 1.0))).round();
        self.metric = (metric as u8).min(MAX_METRIC);
        self.answers = 0;
        self.refused = 0;
        self.since = None;
    }

    /// The reduction in force, percent (0 once the UP function has sent an OCI).
    pub(super) fn metric(&self) -> u8 {
        if self.speaks_oci {
            0
        } else {
            self.metric
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::disallowed_methods)] // An arbitrary base instant; the module never reads the clock.
    fn base() -> Instant {
        Instant::now()
    }

    #[test]
    fn a_trickle_hears_the_end_of_the_refusals_within_a_few_windows_of_time() {
        let t0 = base();
        let mut i = ImplicitOverload::default();
        for _ in 0..WINDOW * 3 {
            i.answered(true, false, t0);
        }
        assert!(i.metric() >= 50, "{}", i.metric());
        // Then one answer a second, none refused: each closes a window of time.
        let mut secs = 0;
        while i.metric() > 0 && secs < 60 {
            secs += 1;
            i.answered(false, false, t0 + Duration::from_secs(secs));
        }
        assert!(secs <= 20, "{secs} s");
    }

    /// A UP function that accepts `capacity` requests a second and refuses the rest, before
    /// a CP offering `offered` a second: the rate the CP sends at after each of `answers`
    /// answers (each refused with the share the rate sent at that moment exceeds the
    /// capacity by, spread evenly).
    fn settle(offered: f64, capacity: f64, answers: usize) -> Vec<f64> {
        let t0 = base();
        let mut i = ImplicitOverload::default();
        let mut debt = 0.0;
        (0..answers)
            .map(|_| {
                let sent = offered * (1.0 - f64::from(i.metric()) / 100.0);
                debt += ((sent - capacity) / sent).max(0.0);
                let refused = debt >= 1.0;
                if refused {
                    debt -= 1.0;
                }
                i.answered(refused, false, t0);
                sent
            })
            .collect()
    }

    #[test]
    fn the_refusals_steer_what_is_sent_to_a_tenth_above_what_is_accepted() {
        // 5000 offered, 1000 accepted: after a few windows, 1000-1250 are sent, and stay so.
        let sent = settle(5000.0, 1000.0, 2000);
        let late = &sent[1000..];
        assert!(
            late.iter().all(|s| (1000.0..1300.0).contains(s)),
            "{:?}",
            &late[..40]
        );
        // Below the capacity nothing is refused and nothing is held back.
        assert!(settle(800.0, 1000.0, 500).iter().all(|s| *s == 800.0));
    }

    #[test]
    fn without_refusals_the_reduction_goes_back_to_zero() {
        let t0 = base();
        let mut i = ImplicitOverload::default();
        for _ in 0..WINDOW * 3 {
            i.answered(true, false, t0);
        }
        assert!(i.metric() > 50, "{}", i.metric());
        for _ in 0..WINDOW * 20 {
            i.answered(false, false, t0);
        }
        assert_eq!(i.metric(), 0);
    }

    #[test]
    fn a_up_function_that_sends_an_oci_is_left_to_it() {
        let t0 = base();
        let mut i = ImplicitOverload::default();
        for _ in 0..WINDOW * 3 {
            i.answered(true, false, t0);
        }
        assert!(i.metric() > 0);
        i.answered(true, true, t0);
        for _ in 0..WINDOW * 3 {
            i.answered(true, false, t0);
        }
        assert_eq!(i.metric(), 0);
    }
}
