//! The overflow OCI: what a cause-74 refusal carries while the reporter publishes no metric
//! (TS 29.244 clauses 6.2.4.3.1, 6.2.4.3.2, 8.2.76; see the [module docs](super#overflow-oci)).
//!
//! The reporter needs one closed control interval before it has a metric, and it publishes
//! nothing while its last measurement said "not overloaded". A refusal in that window would
//! otherwise go out without an OCI, and a cause 74 alone does not tell the CP function by how
//! much to reduce. So the admission derives a metric from what it saw itself (the cut that
//! brings the requests offered down to the reporter's target), publishes it node-scoped with a short Period of
//! Validity, and hands over to the reporter as soon as the reporter has something to say.
//!
//! ## Sequence numbers
//!
//! Both sources share one Overload Control Sequence Number space on the wire, and the CP
//! function keeps only what is newer (6.2.4.3.2). The reporter owns its counter, so the
//! admission adds a `bias` to every number the reporter hands out: zero until the first
//! overflow OCI, so without one nothing changes on the wire. Issuing an overflow OCI takes the
//! next number after everything sent so far and raises the bias past it, so the reporter's
//! next publication (at the same counter value for its very first one, higher afterwards) is
//! newer than the overflow OCI at the CP function. With numbers from an epoch
//! ([`SequenceMode::EpochSeconds`]) the first overflow OCI starts from the epoch clock, as the
//! reporter's first number would, so it is newer than a previous run's numbers too.
//!
//! While the overflow OCI is in force, an OCI of the reporter's older state (its metric 0) is
//! replaced by the overflow OCI: sent with the raised bias it would otherwise look newer and
//! end the reduction early.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use pfcp_overload::{OverloadReporter, ReporterConfig, SequenceMode};
use pfcp_wire::ie::{ControlSequenceNumber, Metric, OciFlags, OverloadControlInformation, Timer};
use pfcp_wire::{Cause, MessageType};

use super::types::{AdmissionConfigError, AdmissionStats};
use super::{PeerKey, UpAdmission};

/// The state behind the overflow OCI (a field of [`UpAdmission`]).
#[derive(Debug, Clone)]
pub(super) struct Overflow {
    /// Added (wrapping) to the reporter's sequence numbers on the wire.
    bias: u32,
    /// The offered and refused totals when the current control interval began.
    interval_base: Counts,
    /// The same when the previous interval began: the first overflow OCI of an episode
    /// measures from there, so that its sample holds at least one whole interval (a burst of
    /// refusals among the first few requests of an interval is no share of anything).
    previous_base: Counts,
    /// The overflow OCI last issued, if any.
    current: Option<Issued>,
    /// Its Period of Validity as encoded, and the same as a duration.
    timer: Timer,
    validity: Duration,
    /// The peers told a non-zero overflow OCI, and when what they were told expires: they
    /// are told its end ([`UpAdmission::overflow_end_for`]).
    told: HashMap<PeerKey, Instant>,
    /// The last refusal that asked for an overflow OCI.
    last_refusal: Option<Instant>,
}

/// Totals of requests offered to admission and refused by it (rejected, evicted, expired).
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    offered: u64,
    refused: u64,
}

impl Counts {
    fn of(stats: &AdmissionStats) -> Counts {
        Counts {
            offered: stats.offered,
            refused: stats
                .rejected
                .saturating_add(stats.evicted)
                .saturating_add(stats.expired),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Issued {
    metric: u8,
    /// Its number on the wire.
    sequence: u32,
    issued: Instant,
    expires: Instant,
    /// The reporter's number when it was issued: once the reporter moves on, its information
    /// is newer and the overflow OCI is no longer in force.
    reporter_sequence: u32,
    /// Where the episode's counts start.
    base: Counts,
}

impl Overflow {
    /// The state for `validity`, or the configuration error.
    pub(super) fn new(validity: Duration) -> Result<Overflow, AdmissionConfigError> {
        let timer = Timer::from_duration(validity)
            .filter(|_| !validity.is_zero())
            .ok_or(AdmissionConfigError::OverflowOciValidity(validity))?;
        Ok(Overflow {
            bias: 0,
            interval_base: Counts::default(),
            previous_base: Counts::default(),
            current: None,
            // What the CP function applies is the encoded timer (rounded up), so that is
            // what the UP function counts on too.
            validity: timer.duration().unwrap_or(validity),
            timer,
            told: HashMap::new(),
            last_refusal: None,
        })
    }

    /// A control interval began: later episodes count from here.
    pub(super) fn interval_started(&mut self, stats: &AdmissionStats) {
        self.previous_base = self.interval_base;
        self.interval_base = Counts::of(stats);
    }

    /// The overflow OCI in force at `now`, if any: issued while the reporter was at
    /// `reporter_sequence`, the reporter still there with metric 0, and not expired.
    fn in_force(&self, reporter: &OverloadReporter<PeerKey>, now: Instant) -> Option<Issued> {
        self.current.filter(|i| {
            reporter.metric() == 0
                && reporter.sequence_number() == i.reporter_sequence
                && now < i.expires
        })
    }

    fn oci(&self, issued: &Issued) -> OverloadControlInformation {
        OverloadControlInformation {
            sequence_number: ControlSequenceNumber(issued.sequence),
            metric: Metric::from_raw(issued.metric),
            period_of_validity: self.timer,
            // Node-scoped: the queue measures the whole UP function (clause 8.2.76).
            flags: Some(OciFlags::AOCI),
        }
    }
}

impl UpAdmission {
    /// Whether a refusal to `peer` gets the overflow OCI rather than the reporter's: the
    /// reporter has no metric to tell, and `peer` may receive OCIs at all.
    pub(super) fn wants_overflow_oci(
        &self,
        peer: &PeerKey,
        message_type: MessageType,
        cause: Option<Cause>,
    ) -> bool {
        cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION)
            && message_type.may_carry_oci()
            && self.reporter.metric() == 0
            // The reporter keeps the peers' OVRL support (clause 6.2.4.2).
            && self.reporter.peer_ovrl(peer)
    }

    /// The overflow OCI for a refusal at `now`: the one in force if it still says enough,
    /// else a new one with a fresh sequence number.
    pub(super) fn overflow_oci(&mut self, now: Instant) -> Option<OverloadControlInformation> {
        self.overflow.last_refusal = Some(now);
        let reporter_sequence = self.reporter.sequence_number();
        let in_force = self.overflow.in_force(&self.reporter, now);
        let base = in_force.map_or(self.overflow.previous_base, |i| i.base);
        let counts = Counts::of(&self.stats);
        let metric = overflow_metric(
            counts.offered.saturating_sub(base.offered),
            counts.refused.saturating_sub(base.refused),
            self.reporter.config(),
        )?;
        if let Some(i) = in_force {
            // Within an episode the value only rises (raise fast, like the reporter), and the
            // number stays while nothing changes: a CP function that already has it keeps its
            // timer (6.2.4.3.2 NOTE 1). Past half its validity it is re-derived with a new
            // number, which extends the validity while the refusals go on.
            let young = now.saturating_duration_since(i.issued) < self.overflow.validity / 2;
            if young && metric <= i.metric {
                return Some(self.overflow.oci(&i));
            }
        }
        let sequence = self.next_overflow_sequence(now);
        let issued = Issued {
            metric,
            sequence,
            issued: now,
            expires: now.checked_add(self.overflow.validity).unwrap_or(now),
            reporter_sequence,
            base,
        };
        self.overflow.current = Some(issued);
        metrics::counter!("pfcp_overflow_oci_issued_total").increment(1);
        tracing::info!(
            metric,
            oci_sequence = sequence,
            offered = counts.offered.saturating_sub(base.offered),
            refused = counts.refused.saturating_sub(base.refused),
            validity_ms = self.overflow.validity.as_millis() as u64,
            "admission: overflow OCI issued (no measured metric yet)"
        );
        Some(self.overflow.oci(&issued))
    }

    /// A number for an overflow OCI: newer than everything sent so far and older than
    /// whatever the reporter sends next.
    fn next_overflow_sequence(&mut self, now: Instant) -> u32 {
        // The lowest number the reporter may send next: its current one (it may still send
        // it), or, before its first publication with numbers from an epoch, the epoch clock
        // now (its first number comes from there; starting the overflow OCIs there too keeps
        // them newer than a previous run's, which is what that mode is for).
        let floor = match (
            self.reporter.current_oci(false),
            self.reporter.config().sequence,
        ) {
            (None, SequenceMode::EpochSeconds { epoch, offset }) => {
                offset.wrapping_add(now.saturating_duration_since(epoch).as_secs() as u32)
            }
            _ => self.reporter.sequence_number(),
        };
        // Newer than everything sent so far (the floor as sent, plus one) ...
        let sequence = floor.wrapping_add(self.overflow.bias).wrapping_add(1);
        // ... and older than whatever the reporter sends next (>= the floor).
        self.overflow.bias = sequence.wrapping_add(1).wrapping_sub(floor);
        sequence
    }

    /// `oci` was handed to `peer`: if it is the non-zero overflow OCI in force, the peer is
    /// told its end later.
    pub(super) fn overflow_told(&mut self, peer: &PeerKey, oci: &OverloadControlInformation) {
        let expires = self
            .overflow
            .current
            .filter(|i| i.metric > 0 && i.sequence == oci.sequence_number.0)
            .map(|i| i.expires);
        if let Some(e) = expires {
            self.overflow.told.insert(peer.clone(), e);
        }
    }

    /// The end of an overflow episode for `peer`, if it is due: `peer` was told a non-zero
    /// overflow OCI that has not expired, and a whole control interval passed without a
    /// refusal while the reporter still publishes no metric. The CP function would
    /// otherwise apply the overflow's reduction for the rest of its validity (2 s, the
    /// shortest a Timer IE encodes beyond 0), long after the surge that caused it: `pfcp
    /// sim`'s step down showed CPs holding 5-10 % for 1.6 s. The end is an OCI of metric 0,
    /// node-scoped like the overflow OCI, with a number newer than it (and older than the
    /// reporter's next); every peer told the episode gets the same one.
    pub(super) fn overflow_end_for(
        &mut self,
        peer: &PeerKey,
        now: Instant,
    ) -> Option<OverloadControlInformation> {
        let expires = *self.overflow.told.get(peer)?;
        let reporter_moved = self.overflow.current.is_some_and(|i| {
            self.reporter.sequence_number() != i.reporter_sequence || self.reporter.metric() > 0
        });
        if reporter_moved {
            // The reporter's information is newer and goes to every peer it concerns.
            self.overflow.told.clear();
            return None;
        }
        if now >= expires {
            self.overflow.told.remove(peer);
            return None;
        }
        let calm = self
            .overflow
            .last_refusal
            .is_none_or(|t| now.saturating_duration_since(t) >= self.interval);
        if !calm {
            return None;
        }
        let current = self.overflow.current?;
        let end = if current.metric == 0 {
            current
        } else {
            let end = Issued {
                metric: 0,
                sequence: self.next_overflow_sequence(now),
                issued: now,
                ..current
            };
            self.overflow.current = Some(end);
            metrics::counter!("pfcp_overflow_oci_ended_total").increment(1);
            tracing::info!(
                oci_sequence = end.sequence,
                "admission: overflow OCI ended (no refusal for a control interval)"
            );
            end
        };
        self.overflow.told.remove(peer);
        Some(self.overflow.oci(&end))
    }

    /// The reporter's `oci` as sent on the wire: with the sequence bias, or replaced by the
    /// overflow OCI while that is in force (the reporter's state is older).
    pub(super) fn reporter_oci_on_wire(
        &self,
        mut oci: OverloadControlInformation,
        now: Instant,
    ) -> OverloadControlInformation {
        if let Some(i) = self.overflow.in_force(&self.reporter, now) {
            return self.overflow.oci(&i);
        }
        oci.sequence_number =
            ControlSequenceNumber(oci.sequence_number.0.wrapping_add(self.overflow.bias));
        oci
    }
}

/// The metric an overflow tells: the cut that brings the arrivals of the episode down to the
/// reporter's target load (`1 - target_load x admitted / offered`, the feed-forward law on the
/// episode's counts, where `admitted` is what the queue kept), in percent, rounded *up* to the
/// reporter's step, at most its highest publishable value; one step for a refusal admission
/// did not count (none counted in the episode). `None` when no cut is due: no
/// request offered in the episode yet (refusals of requests that arrived before it, expired
/// from the queue, say nothing of its arrivals), or a surplus within what the target allows
/// (with a target above 1 the queue sheds a few requests by design, and an OCI for them would
/// throttle the CP functions below the capacity).
fn overflow_metric(offered: u64, refused: u64, config: &ReporterConfig) -> Option<u8> {
    let step = u64::from(config.step.max(1));
    // The reporter's own ceiling: `max_metric` (never above 100, clause 8.2.34) in steps.
    let cap = u64::from(config.max_metric.min(100)) / step * step;
    if cap == 0 {
        return None;
    }
    match (offered, refused) {
        // The refusal at hand was not counted by admission (the application's channel was
        // full): one step.
        (_, 0) => return u8::try_from(step.min(cap)).ok(),
        (0, _) => return None,
        _ => {}
    }
    let admitted = offered.saturating_sub(refused) as f64 / offered as f64;
    let target = if config.target_load.is_finite() && config.target_load > 0.0 {
        config.target_load
    } else {
        1.0
    };
    let percent = (100.0 * (1.0 - target * admitted)).clamp(0.0, 100.0);
    if percent <= 1e-9 {
        return None;
    }
    // Less a hair of rounding error, so that an exact 20 % (1 - 1.2 x 2/3) stays 20.
    let metric = ((percent - 1e-9).ceil() as u64)
        .div_ceil(step)
        .saturating_mul(step)
        .clamp(step, cap);
    u8::try_from(metric).ok()
}

#[cfg(test)]
mod tests;
