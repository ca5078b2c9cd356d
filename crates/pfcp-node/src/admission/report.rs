//! Reporting: which CP functions get OCI/LCI, closing control intervals, the OCI and LCI
//! handed out (TS 29.244 clauses 6.2.3, 6.2.4).

use std::time::Instant;

use pfcp_overload::{Measurement, WindowMeasurement};
use pfcp_wire::ie::{CpFunctionFeatures, LoadControlInformation, OverloadControlInformation};
use pfcp_wire::{Cause, MessageType};

use super::{FallWindow, PeerKey, UpAdmission, MAX_CATCH_UP};

impl UpAdmission {
    /// Record the CP Function Features a CP function advertised in its association (Setup or
    /// Update): OVRL enables OCIs and LOAD enables LCIs towards it (clauses 6.2.3.2, 6.2.4.2).
    pub fn set_peer_features(&mut self, peer: PeerKey, features: &CpFunctionFeatures) {
        let ovrl = features.contains(CpFunctionFeatures::OVRL);
        let load = features.contains(CpFunctionFeatures::LOAD);
        self.set_peer_support(peer, ovrl, load);
    }

    /// Record whether a CP function supports overload control (`ovrl`) and load control
    /// (`load`).
    pub fn set_peer_support(&mut self, peer: PeerKey, ovrl: bool, load: bool) {
        tracing::debug!(peer = %peer, ovrl, load, "admission: peer support recorded");
        self.reporter.set_peer_ovrl(peer.clone(), ovrl);
        self.load.set_peer_load(peer, load);
    }

    /// Forget a CP function (association released).
    pub fn remove_peer(&mut self, peer: &PeerKey) {
        tracing::debug!(peer = %peer, "admission: peer removed");
        self.reporter.remove_peer(peer);
        self.load.remove_peer(peer);
    }

    /// Feed the Load Metric from the UP function's own load measure (CPU, memory, sessions;
    /// 0.0 to 1.0) instead of the service utilisation: from the first call on, the control
    /// intervals no longer feed it.
    pub fn report_utilisation(&mut self, utilisation: f64) {
        self.manual_load = true;
        if let Some(load) = self.load.handle_utilisation(utilisation) {
            self.stats.load_metric_published += 1;
            tracing::info!(load, utilisation, "admission: Load Metric published");
        }
    }

    /// The OCI to piggyback on a message of `message_type` (with `cause`, for a response) to
    /// the CP function `peer`, if any ([`OverloadReporter::oci_for`](pfcp_overload::OverloadReporter::oci_for)): only on 51, 53, 55 and
    /// 56, only to peers with OVRL, with AOCI on a rejected Session Establishment Response
    /// (clauses 6.2.4.2, 6.2.4.3, 8.2.76).
    ///
    /// With `cause` 74 (a refusal) while the reporter's metric is 0, the reporter's
    /// [provisional OCI](crate::admission#overflow-oci) for the cut the queue's refusals call
    /// for ([`OverloadReporter::oci_for_refusal`](pfcp_overload::OverloadReporter::oci_for_refusal)),
    /// so that no refusal leaves without an OCI.
    pub fn oci_for(
        &mut self,
        peer: &PeerKey,
        message_type: MessageType,
        cause: Option<Cause>,
        now: Instant,
    ) -> Option<OverloadControlInformation> {
        self.advance(now);
        let before = self.reporter.provisional(now);
        let oci = if cause == Some(Cause::PFCP_ENTITY_IN_CONGESTION) {
            let in_force = before.map(|p| p.sequence_number);
            let metric = if self.reporter.metric() == 0 {
                self.overflow
                    .metric(&self.stats, in_force, self.reporter.config())
            } else {
                None
            };
            let oci = self
                .reporter
                .oci_for_refusal(peer, message_type, metric, now);
            let after = self.reporter.provisional(now).map(|p| p.sequence_number);
            self.overflow.told(in_force, after);
            oci
        } else {
            self.reporter.oci_for(peer, message_type, cause, now)
        };
        let after = self.reporter.provisional(now);
        if let Some(p) =
            after.filter(|p| before.is_none_or(|b| b.sequence_number != p.sequence_number))
        {
            if p.metric > 0 {
                self.stats.provisional_oci_issued += 1;
                tracing::info!(
                    metric = p.metric,
                    oci_sequence = p.sequence_number,
                    validity_ms = p.expires.saturating_duration_since(p.issued).as_millis() as u64,
                    "admission: provisional OCI issued (no measured metric yet)"
                );
            } else {
                self.stats.provisional_oci_ended += 1;
                tracing::info!(
                    oci_sequence = p.sequence_number,
                    "admission: provisional OCI ended (no refusal for a control interval)"
                );
            }
        }
        if let Some(o) = &oci {
            self.stats.oci_sent += 1;
            tracing::debug!(
                peer = %peer,
                message_type = message_type.0,
                oci_sequence = o.sequence_number.0,
                metric = o.metric.percent(),
                aoci = o.aoci(),
                "admission: OCI piggybacked"
            );
        }
        oci
    }

    /// The LCI to piggyback on a message of `message_type` to the CP function `peer`, if any
    /// ([`LoadReporter::lci_for`](pfcp_overload::LoadReporter::lci_for)).
    pub fn lci_for(
        &mut self,
        peer: &PeerKey,
        message_type: MessageType,
    ) -> Option<LoadControlInformation> {
        let lci = self.load.lci_for(peer, message_type);
        if let Some(l) = &lci {
            self.stats.lci_sent += 1;
            tracing::debug!(
                peer = %peer,
                message_type = message_type.0,
                lci_sequence = l.sequence_number.0,
                metric = l.metric.percent(),
                "admission: LCI piggybacked"
            );
        }
        lci
    }

    /// Close every control interval that ended at or before `now`, feed the window of a fall
    /// of demand, and start the count of OCI sequence numbers again if that is due.
    pub(super) fn advance(&mut self, now: Instant) {
        let mut closed = 0u32;
        while self.interval_end <= now {
            if closed >= MAX_CATCH_UP {
                // A long gap: the skipped intervals were idle; restart the grid at `now`.
                self.interval_end = now.checked_add(self.interval).unwrap_or(now);
                break;
            }
            let end = self.interval_end;
            self.close_interval(end);
            closed += 1;
            match end.checked_add(self.interval) {
                Some(next) => self.interval_end = next,
                None => break,
            }
        }
        if closed > 0 {
            self.overflow.interval_started(&self.stats);
        }
        if let Some((arrived, exempt)) = self.window.advance(now) {
            let w = WindowMeasurement {
                arrived,
                exempt,
                backlog: self.len as u64,
                intervals: FallWindow::intervals(),
            };
            if let Some(metric) = self.reporter.handle_window(&w, now) {
                self.stats.published(metric);
                tracing::info!(
                    metric,
                    oci_sequence = self.reporter.sequence_number(),
                    arrived,
                    exempt,
                    "admission: metric lowered within the interval (demand fell)"
                );
            }
        }
        if self.sequence_reset_at.is_some_and(|t| now >= t) {
            self.sequence_reset_at = None;
            self.reporter.restart_sequence();
            tracing::info!("admission: the count of OCI sequence numbers starts again");
        }
    }

    /// With [`AdmissionConfig::adapt_target_load`](crate::admission::AdmissionConfig::adapt_target_load), size the reporter's target to the
    /// burstiness of this interval's arrivals (`admission/surplus.rs`).
    fn size_surplus(&mut self, end: Instant, arrived: u64) {
        let configured = self.config.reporter.target_load;
        // Overloaded while a metric is in force, or while more arrives than the UP function
        // serves: arrivals between the capacity and the configured target call for no metric,
        // yet their surplus is refused, and only a sized target ends that.
        let overloaded = self.reporter.metric() > 0
            || self.reporter.capacity().is_some_and(|c| arrived as f64 > c);
        // The wait bound in service times: the queue the surplus keeps fed.
        let bound = match (self.config.max_wait, self.reporter.config().capacity) {
            (Some(wait), Some(capacity)) => {
                capacity * wait.as_secs_f64() / self.interval.as_secs_f64()
            }
            _ => 0.0,
        };
        let target = self
            .surplus
            .close_interval(end, overloaded, configured, bound);
        if let (Some(target), true) = (target, self.config.adapt_target_load) {
            self.reporter.set_target_load(target);
        }
    }

    fn close_interval(&mut self, end: Instant) {
        let m = Measurement {
            arrived: self.arrived,
            served: self.served,
            backlog: self.len as u64,
        };
        self.arrived = 0;
        self.served = 0;
        self.size_surplus(end, m.arrived);
        self.top
            .close_interval(end, self.interval, self.reporter.capacity());
        self.slip.close_interval(self.reporter.capacity());
        if let Some(metric) = self.reporter.handle_measurement(&m, end) {
            self.stats.published(metric);
            tracing::info!(
                metric,
                oci_sequence = self.reporter.sequence_number(),
                arrived = m.arrived,
                served = m.served,
                backlog = m.backlog,
                "admission: Overload Reduction Metric published"
            );
        }
        let capacity = match self.service_step {
            Some(step) => Some(self.interval.as_secs_f64() / step.as_secs_f64()),
            None => self.reporter.capacity(),
        };
        if let Some(cap) = capacity.filter(|c| *c > 0.0 && !self.manual_load) {
            let u = (m.served as f64 / cap).min(1.0);
            let a = self.config.load_smoothing;
            let smoothed = self.utilisation.map_or(u, |prev| a * u + (1.0 - a) * prev);
            self.utilisation = Some(smoothed);
            if let Some(load) = self.load.handle_utilisation(smoothed) {
                self.stats.load_metric_published += 1;
                tracing::info!(
                    load,
                    utilisation = smoothed,
                    "admission: Load Metric published"
                );
            }
        }
    }
}
