//! UP function self-protection (sans-IO): a bounded priority queue for incoming requests, a
//! service model, the measurements that drive the Overload and Load Control Information the
//! UP function advertises, and the cause-74 rejections it answers with (TS 29.244 clauses
//! 6.2.3, 6.2.4, 7.2.2.4, 7.2.3.2; digest sections 6.3 and 8).
//!
//! [`UpAdmission`] never reads the clock and does no I/O: every call that depends on time
//! takes `now`, and timers are exposed quinn-style through [`UpAdmission::poll_timeout`] and
//! [`UpAdmission::handle_timeout`].
//!
//! ## What is admitted
//!
//! Only requests of a procedure that may be throttled ([`Procedure::is_throttled`]) go through
//! the queue: Session Establishment, Modification and Deletion Requests, Session Set
//! requests, PFD Management Requests. **Heartbeat and Association requests are never queued
//! nor refused**: [`UpAdmission::offer`] hands them back as [`Admit::Bypass`] and the endpoint
//! answers them at once (a Heartbeat Request must be answered even when overloaded, clause
//! 6.2.2.2; refusing Association management would turn overload into a peer failure).
//! Responses (e.g. the Session Report Response answering the UP function's own request) and
//! unknown message types are bypassed too: only requests are admitted, and the endpoint
//! discards unknown types (clause 7.6.1) before this module sees them.
//!
//! ## Queue and priority
//!
//! Requests wait in one FIFO per message priority (0 highest, clause 7.2.2.4.1; priority 0 is
//! served newest first while its oldest has waited beyond the others' bound, see
//! [`AdmissionConfig::top_priority_max_wait`](crate::admission::AdmissionConfig::top_priority_max_wait)); a request
//! without MP gets the configured default ([`Classifier::received_request`], default 15). The
//! queue holds at most [`AdmissionConfig::queue_capacity`](crate::admission::AdmissionConfig::queue_capacity) requests. When it is full, the
//! *lowest* priority is refused first: a newcomer of a higher priority than the lowest queued
//! request evicts the newest request of that lowest priority (the one that would have been
//! served last), which is handed back in [`Admit::Queued`]`.evicted` to be rejected; otherwise
//! the newcomer is rejected ([`Admit::Rejected`]). Both answers carry cause 74, "PFCP entity
//! in congestion": rejecting with a response rather than silence avoids retransmissions
//! (digest 6.3). Requests that waited longer than [`AdmissionConfig::max_wait`](crate::admission::AdmissionConfig::max_wait) (default
//! 15 ms; [`AdmissionConfig::top_priority_max_wait`](crate::admission::AdmissionConfig::top_priority_max_wait), default 200 ms, for message priority 0 while its load fits)
//! are taken out and handed to [`UpAdmission::poll_expired`], to be refused with cause 74: the
//! bound on the latency of what is served. That is the default order,
//! [`ServiceOrder::Priority`]; with [`ServiceOrder::Arrival`] priority 0 is served first and the
//! rest in order of arrival, and a newcomer is admitted only if it will be taken up within its
//! bound (else it evicts a lower priority or is refused), which trades the order among the
//! lower priorities for goodput. The reporter steers the arrivals a fifth above the
//! capacity ([`AdmissionConfig::default_reporter`](crate::admission::AdmissionConfig::default_reporter)), so the short queue is never starved and sheds
//! the surplus, lowest priority first.
//!
//! ## Service
//!
//! * Emulators and tests set [`AdmissionConfig::service_rate`](crate::admission::AdmissionConfig::service_rate) (requests per second): a
//!   deadline scheduler serves one request per `1 / service_rate`
//!   (`next_free = max(arrival, next_free) + 1 / service_rate`, in virtual time, so a caller
//!   that polls coarsely still gets the full rate). [`UpAdmission::poll_ready`] dequeues the
//!   highest-priority request when service is available; [`UpAdmission::poll_timeout`] says
//!   when to call again.
//! * A real UP function dequeues on its own with [`UpAdmission::pop`] when a worker is free
//!   and calls [`UpAdmission::served`] when the request has been processed. (Without a service
//!   rate, `poll_ready` dequeues at once and counts the request as served.)
//!
//! ## Measurement and reporting
//!
//! Every control interval ([`ReporterConfig::interval`](pfcp_overload::ReporterConfig::interval), default 200 ms) the requests that
//! *arrived* (offered to admission, refused ones included), were *served*, and the *backlog*
//! left in the queue are fed to an [`OverloadReporter`] (the Overload Reduction Metric), and
//! the utilisation (served over the capacity of one interval, smoothed) to a
//! [`LoadReporter`] (the Load Metric). The capacity is the service rate if set, otherwise
//! [`ReporterConfig::capacity`](pfcp_overload::ReporterConfig::capacity) or the reporter's learned estimate; a UP function with a
//! better load measure feeds it with [`UpAdmission::report_utilisation`] instead. When the
//! capacity is known and the wait is bounded, the reporter's
//! [`backlog_target`](pfcp_overload::ReporterConfig::backlog_target) is at least what the
//! bound lets wait (`capacity x max_wait`): that queue is the operating level of a UP function
//! steered above its capacity, it expires by itself, and draining it would only feed its noise
//! into the metric. Intervals
//! are closed by whichever call first sees that one has ended, so the counts are exact to the
//! interval even if [`UpAdmission::handle_timeout`] runs late.
//!
//! [`UpAdmission::oci_for`] and [`UpAdmission::lci_for`] delegate to the reporters: the
//! endpoint piggybacks their answer on Session Establishment/Modification/Deletion Responses
//! (51, 53, 55) and Session Report Requests (56). For a rejected Session Establishment
//! Response the OCI carries AOCI (clause 8.2.76; the reporter sets it).
//! [`UpAdmission::build_rejection`] encodes the cause-74 response.
//!
//! ## Overflow OCI
//!
//! The reporter has no metric before the first control interval closes, and publishes none
//! while its last measurement said "not overloaded"; yet the queue may already be refusing
//! requests (a burst at start-up, or a sudden one). A UP function in overload should tell its
//! CP functions by how much to reduce (clause 6.2.4.3.1), and a cause-74 rejection without an
//! OCI tells them nothing. So while the reporter's metric is 0, [`UpAdmission::oci_for`] hands
//! a refusal (called with cause 74) towards a peer with OVRL to the reporter with the
//! *overflow metric* the queue measured
//! ([`OverloadReporter::oci_for_refusal`](pfcp_overload::OverloadReporter::oci_for_refusal)):
//! the share of the requests offered since the episode began (the start of the control
//! interval before the first refusal) beyond the reporter's target load, rounded **up** to the
//! grid of the metrics it tells. The reporter tells it as a *provisional OCI*:
//!
//! * node-scoped (AOCI=1, clause 8.2.76): the queue measures the whole UP function;
//! * Period of Validity [`ReporterConfig::provisional_validity`](pfcp_overload::ReporterConfig::provisional_validity)
//!   (default 2 s): it only bridges until the reporter's first measured metric, and a one-off
//!   burst must not throttle the CP functions for the reporter's full validity;
//! * a number of the reporter's own count, which every number on the wire comes from: a new
//!   one when the value rises or half its validity has passed (6.2.4.3.2: extending the
//!   validity needs a new number), the same one in between;
//! * its end (metric 0, a new number) to the peers that hold it once a control interval passed
//!   without a refusal.
//!
//! As soon as the reporter publishes a metric, its OCIs take over, with newer numbers. Without
//! refusals while the reporter's metric is 0, nothing changes: the reporter's OCIs go out
//! exactly as they would.
//!
//! ## Example
//!
//! ```
//! use std::net::{Ipv4Addr, SocketAddr};
//! use std::time::Instant;
//! use bytes::Bytes;
//! use pfcp_node::admission::{AdmissionConfig, Admit, UpAdmission};
//! use pfcp_overload::NodeKey;
//! use pfcp_wire::encode::MessageBuilder;
//! use pfcp_wire::{Cause, Header, Message, MessagePriority, MessageType, SequenceNumber};
//!
//! /// A Session Modification Request with MP=1 (clause 7.2.2).
//! fn modification(seq: u32, priority: u8) -> Bytes {
//!     let header = Header::new(MessageType::SESSION_MODIFICATION_REQUEST)
//!         .with_seid(7)
//!         .with_sequence(SequenceNumber::new(seq).unwrap())
//!         .with_priority(MessagePriority::new(priority).unwrap());
//!     let b = MessageBuilder::new(header);
//!     let mut buf = vec![0; b.encoded_len()];
//!     b.encode_into(&mut buf).unwrap();
//!     Bytes::from(buf)
//! }
//!
//! let now = Instant::now();
//! let me = NodeKey::Ip(Ipv4Addr::new(192, 0, 2, 1).into());
//! // Room for one waiting request, served at 1000 requests per second.
//! let config = AdmissionConfig::new(me)
//!     .with_queue_capacity(1)
//!     .with_service_rate(Some(1000.0));
//! let mut up = UpAdmission::new(config, now)?;
//! let smf: SocketAddr = "192.0.2.10:8805".parse()?;
//! let low = up.request_from(smf, modification(1, 9), None)?;
//! let high = up.request_from(smf, modification(2, 1), None)?;
//! assert_eq!(up.offer(low, now), Admit::Queued { evicted: None });
//! // Full: the higher-priority request evicts the lower one, answered with cause 74.
//! let Admit::Queued { evicted: Some(evicted) } = up.offer(high, now) else {
//!     panic!("expected an eviction");
//! };
//! let rejection = up.build_rejection(&evicted, None, None)?;
//! let msg = Message::decode(&rejection)?;
//! assert_eq!(msg.message_type(), MessageType::SESSION_MODIFICATION_RESPONSE);
//! assert_eq!(msg.header().sequence.value(), 1);
//! assert_eq!(msg.cause()?, Some(Cause::PFCP_ENTITY_IN_CONGESTION));
//! // The service model hands out the survivor.
//! assert_eq!(up.poll_ready(now).map(|r| r.sequence.value()), Some(2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Peer key
//!
//! The reporters key their per-peer state ([`PeerKey`]) by the CP function's **Node ID**
//! ([`NodeKey`]), not by its socket address: whether a CP gets OCI/LCI at all depends on the
//! CP Function Features (OVRL, LOAD) it advertised in its *association*, which is per Node
//! ID, and a CP function may send requests from any local port and several addresses (clause
//! 4.2), all of which share one overload state at the CP. A request whose
//! [`QueuedRequest::node`] is unknown is attributed to `NodeKey::Ip(peer IP)` (a CP function's
//! Node ID is commonly its address); the endpoint should fill `node` from its association
//! table.
//!
//! ## Tracing and counters
//!
//! Every decision emits a `tracing` event (`debug` per request, `info` when a published metric
//! changes) with structured fields (`peer`, `sequence`, `message_type`, `priority`, ...). The
//! counters are typed ([`AdmissionStats`], from [`UpAdmission::stats`]); the gauges are read
//! from the admission: [`UpAdmission::len`] (the queue depth), [`UpAdmission::overload_metric`]
//! and [`UpAdmission::load_metric`] (the metrics published). The module never touches a global
//! registry; the endpoint and the tools export what they read.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_overload::{LoadReporter, NodeKey, OverloadReporter, SequenceMode};
use pfcp_throttle::{Classifier, Procedure};
use pfcp_wire::{Cause, DecodeError, Header, MessagePriority, MessageType};

/// The key of the reporters' per-peer state: the CP function's Node ID (see the
/// [module docs](self#peer-key)).
pub type PeerKey = NodeKey;

/// Number of message priorities (0..=15).
const PRIORITIES: usize = 16;
/// Most control intervals replayed at once after a long gap (enough for the reporter's dwell
/// to bring a published metric down); older ones are skipped.
const MAX_CATCH_UP: u32 = 64;

mod order;
mod overflow;
mod profile;
mod rejection;
mod report;
mod service;
mod surplus;
mod top;
mod types;
mod window;
use overflow::Overflow;
pub use profile::{LciIn, OciOn, OciScope, OciSequence, ProfileError, UpProfile};
use rejection::node_id_of;
use surplus::Surplus;
use top::TopPriority;
pub use types::{
    AdmissionConfig, AdmissionConfigError, AdmissionStats, Admit, QueuedRequest, RejectionError,
    ServiceOrder, UnknownServiceOrder, WhenFull,
};
use window::FallWindow;

#[derive(Debug, Clone)]
struct Waiting {
    request: QueuedRequest,
    arrived: Instant,
}

/// Self-protection of a UP function: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct UpAdmission {
    config: AdmissionConfig,
    classifier: Classifier,
    queues: [VecDeque<Waiting>; PRIORITIES],
    len: usize,
    expired: VecDeque<QueuedRequest>,
    service_step: Option<Duration>,
    next_free: Instant,
    interval: Duration,
    interval_end: Instant,
    arrived: u64,
    served: u64,
    /// How bursty the arrivals are, and the target load that gives.
    surplus: Surplus,
    /// Priority 0's arrivals, and whether its load fits.
    top: TopPriority,
    /// How much the work ahead of a waiting request grows while it waits.
    slip: order::Slip,
    utilisation: Option<f64>,
    manual_load: bool,
    /// Arrivals over the last half interval, in which the end of an overload shows first.
    window: FallWindow,
    reporter: OverloadReporter<PeerKey>,
    load: LoadReporter<PeerKey>,
    overflow: Overflow,
    /// When the count of OCI sequence numbers starts again
    /// ([`AdmissionConfig::sequence_reset_after`](crate::admission::AdmissionConfig::sequence_reset_after)).
    sequence_reset_at: Option<Instant>,
    stats: AdmissionStats,
}

impl UpAdmission {
    /// An empty admission whose first control interval starts at `now`.
    pub fn new(config: AdmissionConfig, now: Instant) -> Result<Self, AdmissionConfigError> {
        let service_step = match config.service_rate {
            None => None,
            Some(rate) if rate.is_finite() && rate > 0.0 => {
                let nanos = (1e9 / rate).round().max(1.0);
                // `nanos` is at most 1e9 / f64::MIN_POSITIVE rounded: saturate rather than wrap.
                Some(Duration::from_nanos(if nanos >= u64::MAX as f64 {
                    u64::MAX
                } else {
                    nanos as u64
                }))
            }
            Some(rate) => return Err(AdmissionConfigError::ServiceRate(rate)),
        };
        let interval = config.reporter.interval;
        if interval.is_zero() {
            return Err(AdmissionConfigError::Interval);
        }
        config.reporter.validate()?;
        let s = config.load_smoothing;
        if !(s > 0.0 && s <= 1.0) {
            return Err(AdmissionConfigError::LoadSmoothing(s));
        }
        let r = config.rejection_cost;
        if !(0.0..=1.0).contains(&r) {
            return Err(AdmissionConfigError::RejectionCost(r));
        }
        node_id_of(&config.node_id)?;
        let mut reporter_config = config.reporter.clone();
        if let Some(ntp) = config.oci_clock {
            reporter_config.sequence = SequenceMode::ntp_seconds(now, ntp);
        }
        if let (None, Some(rate)) = (reporter_config.capacity, config.service_rate) {
            reporter_config = reporter_config.with_capacity(Some(rate * interval.as_secs_f64()));
        }
        // What the wait bound lets wait is the queue's operating level, not a backlog to drain:
        // it expires by itself, and draining it only fed the backlog's noise into the metric.
        if let (Some(capacity), Some(bound)) = (reporter_config.capacity, config.max_wait) {
            let bounded = capacity * bound.as_secs_f64() / interval.as_secs_f64();
            reporter_config.backlog_target = reporter_config.backlog_target.max(bounded);
        }
        let sequence_reset_at = config
            .sequence_reset_after
            .and_then(|after| now.checked_add(after));
        Ok(UpAdmission {
            overflow: Overflow::default(),
            sequence_reset_at,
            classifier: Classifier::new(config.classifier.clone()),
            reporter: OverloadReporter::new(reporter_config),
            load: LoadReporter::new(config.load_reporter.clone()),
            config,
            queues: std::array::from_fn(|_| VecDeque::new()),
            len: 0,
            expired: VecDeque::new(),
            service_step,
            next_free: now,
            interval,
            interval_end: now.checked_add(interval).unwrap_or(now),
            arrived: 0,
            served: 0,
            surplus: Surplus::new(interval, now),
            top: TopPriority::default(),
            slip: order::Slip::default(),
            utilisation: None,
            manual_load: false,
            window: FallWindow::new(interval, now),
            stats: AdmissionStats::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &AdmissionConfig {
        &self.config
    }

    /// Counters since creation (the endpoint and the tools export them).
    pub fn stats(&self) -> &AdmissionStats {
        &self.stats
    }

    /// Requests waiting: the queue depth.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no request is waiting.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The Overload Reduction Metric currently published (0: not overloaded).
    pub fn overload_metric(&self) -> u8 {
        self.reporter.metric()
    }

    /// The Load Metric currently published, if any.
    pub fn load_metric(&self) -> Option<u8> {
        self.load.load()
    }

    /// The overload reporter (read-only).
    pub fn reporter(&self) -> &OverloadReporter<PeerKey> {
        &self.reporter
    }

    /// The priority a request without MP is handled with
    /// ([`ClassifierConfig::request_default`](pfcp_throttle::ClassifierConfig)).
    pub fn default_priority(&self) -> MessagePriority {
        self.classifier.received_request(None)
    }

    /// Build a [`QueuedRequest`] from a received message's octets: reads the header (the
    /// sequence number, type and MP priority) and applies the default priority to a request
    /// without MP (clause 7.2.2.4.1).
    pub fn request_from(
        &self,
        peer: SocketAddr,
        bytes: Bytes,
        node: Option<NodeKey>,
    ) -> Result<QueuedRequest, DecodeError> {
        let (header, _) = Header::decode(&bytes)?;
        Ok(QueuedRequest {
            peer,
            sequence: header.sequence,
            message_type: header.message_type,
            priority: self.classifier.received_request(header.priority),
            bytes,
            node,
        })
    }

    /// Offer a received request at `now`. See [`Admit`] and the [module docs](self).
    pub fn offer(&mut self, request: QueuedRequest, now: Instant) -> Admit {
        self.advance(now);
        if !is_admitted(request.message_type) {
            self.stats.bypassed += 1;
            tracing::debug!(
                peer = %request.peer,
                sequence = request.sequence.value(),
                message_type = request.message_type.0,
                "admission: bypassed (not subject to admission)"
            );
            return Admit::Bypass(request);
        }
        self.arrived += 1;
        self.surplus.record(now);
        self.stats.offered += 1;
        self.reporter.record_arrival(&request.peer_key());
        self.window
            .record(request.priority == MessagePriority::HIGHEST);
        if request.priority == MessagePriority::HIGHEST {
            // Priority 0 is the classifier's level for eMPS and emergency (exempt) requests.
            self.reporter.record_exempt();
            self.top
                .arrival(now, self.interval, self.reporter.capacity());
        }
        let priority = request.priority;
        let p = usize::from(priority.value()).min(PRIORITIES - 1);
        let in_time = match self.config.service_order {
            ServiceOrder::Priority => true,
            ServiceOrder::Arrival => order::fits_in_time(
                &self.queues,
                self.len,
                p,
                self.busy(now),
                self.step_estimate(),
                self.wait_limit(p),
                &self.slip,
            ),
        };
        let admit = if in_time && self.len < self.config.queue_capacity {
            self.push(request, now);
            Admit::Queued { evicted: None }
        } else {
            match self.lowest_queued() {
                // Priority 0 that does not fit in time waits behind its own only: evicting
                // another priority would not make it fit.
                Some(lowest) if priority.value() < lowest && (in_time || p != 0) => {
                    let evicted = self
                        .queues
                        .get_mut(usize::from(lowest))
                        .and_then(VecDeque::pop_back)
                        .map(|w| w.request);
                    if evicted.is_some() {
                        self.len -= 1;
                    }
                    self.push(request, now);
                    if let Some(e) = &evicted {
                        self.charge_refusal(now);
                        self.stats.evicted += 1;
                        tracing::debug!(
                            peer = %e.peer,
                            sequence = e.sequence.value(),
                            message_type = e.message_type.0,
                            priority = e.priority.value(),
                            by_priority = priority.value(),
                            "admission: evicted by a higher-priority request"
                        );
                    }
                    Admit::Queued { evicted }
                }
                _ => {
                    self.charge_refusal(now);
                    self.stats.rejected += 1;
                    tracing::debug!(
                        peer = %request.peer,
                        sequence = request.sequence.value(),
                        message_type = request.message_type.0,
                        priority = priority.value(),
                        queued = self.len,
                        "admission: rejected, no room within the wait bound"
                    );
                    return Admit::Rejected {
                        request,
                        cause: Cause::PFCP_ENTITY_IN_CONGESTION,
                    };
                }
            }
        };
        admit
    }

    /// The service model: the highest-priority request, if service is available at `now`
    /// (one request per `1 / service_rate`; without a service rate, at once). The request
    /// counts as served.
    pub fn poll_ready(&mut self, now: Instant) -> Option<QueuedRequest> {
        self.advance(now);
        if self.service_step.is_some_and(|_| self.next_free > now) {
            return None;
        }
        let waiting = match self.service_step {
            Some(_) => self.dequeue_served_at(now)?,
            None => self.dequeue(now)?,
        };
        if let Some(step) = self.service_step {
            let start = self.next_free.max(waiting.arrived);
            self.next_free = start.checked_add(step).unwrap_or(start);
        }
        self.count_served();
        tracing::debug!(
            peer = %waiting.request.peer,
            sequence = waiting.request.sequence.value(),
            message_type = waiting.request.message_type.0,
            priority = waiting.request.priority.value(),
            waited_us = now.saturating_duration_since(waiting.arrived).as_micros() as u64,
            "admission: served"
        );
        Some(waiting.request)
    }

    /// Dequeue the highest-priority request regardless of the service model, for a UP
    /// function that runs its own workers; call [`UpAdmission::served`] once it is processed.
    pub fn pop(&mut self, now: Instant) -> Option<QueuedRequest> {
        self.advance(now);
        let waiting = self.dequeue(now)?;
        tracing::debug!(
            peer = %waiting.request.peer,
            sequence = waiting.request.sequence.value(),
            message_type = waiting.request.message_type.0,
            priority = waiting.request.priority.value(),
            "admission: dequeued"
        );
        Some(waiting.request)
    }

    /// A request taken with [`UpAdmission::pop`] has been processed (counts in the
    /// measurement).
    pub fn served(&mut self, now: Instant) {
        self.advance(now);
        self.count_served();
    }

    /// A request that waited [`AdmissionConfig::max_wait`](crate::admission::AdmissionConfig::max_wait) or longer: answer it with cause
    /// 74 (or drop it). Checked by [`UpAdmission::poll_ready`], [`UpAdmission::pop`] and
    /// [`UpAdmission::handle_timeout`].
    pub fn poll_expired(&mut self) -> Option<QueuedRequest> {
        self.expired.pop_front()
    }

    /// The next instant at which something is due: a request can be served (the service
    /// model, while requests wait), a control interval ends, a request exceeds `max_wait`, or
    /// the count of OCI sequence numbers starts again. It may be in the past (then it is due
    /// now). (The OCI validity needs no timer: it is extended when a message to a peer finds
    /// it due.)
    pub fn poll_timeout(&self) -> Option<Instant> {
        let mut t = Some(self.interval_end);
        let mut earliest = |c: Option<Instant>| {
            if let Some(c) = c {
                t = Some(t.map_or(c, |t| t.min(c)));
            }
        };
        if self.len > 0 && self.service_step.is_some() {
            earliest(Some(self.next_free));
        }
        earliest(self.sequence_reset_at);
        if self.reporter.metric() > 0 {
            earliest(Some(self.window.next_end()));
        }
        for (p, q) in self.queues.iter().enumerate() {
            if let (Some(limit), Some(front)) = (self.wait_limit(p), q.front()) {
                earliest(front.arrived.checked_add(limit));
            }
        }
        t
    }

    /// Close the control intervals that ended by `now` (feeding the reporters) and take out
    /// requests past `max_wait`.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.advance(now);
        self.sweep(now);
    }

    /// A request refused with [`WhenFull::Drop`] was dropped (counted; no answer).
    pub fn dropped(&mut self) {
        self.stats.dropped += 1;
    }

    fn count_served(&mut self) {
        self.served += 1;
        self.stats.served += 1;
    }
}

/// Whether a message of this type goes through the queue: requests of throttled procedures.
fn is_admitted(message_type: MessageType) -> bool {
    message_type.is_request() && Procedure::of(message_type).is_some_and(Procedure::is_throttled)
}

#[cfg(test)]
mod tests;
