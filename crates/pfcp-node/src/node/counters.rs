//! Every counter and gauge of a node, as one catalogue ([`Node::metrics`]): the typed stats of
//! its parts ([`NodeStats`](super::NodeStats), [`CpStats`](crate::cp::CpStats), the peer
//! table's, the ingress guard's) under the metric names an exporter publishes them by. The
//! node itself calls no metrics facade: the tokio endpoint exports the catalogue (feature
//! `metrics`, [`crate::export`]), and so can any embedding.
//!

use super::Node;

/// Whether a metric only grows or goes up and down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetricKind {
    /// A monotonic count.
    Counter,
    /// A value at an instant.
    Gauge,
}

/// One metric of the catalogue: its name, labels, kind, unit and meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Metric {
    /// The metric's name (Prometheus style, `_total` for counters).
    pub name: &'static str,
    /// Its labels.
    pub labels: &'static [(&'static str, &'static str)],
    /// Counter or gauge.
    pub kind: MetricKind,
    /// Its unit, in words (`requests`, `datagrams`, `percent`, ...).
    pub unit: &'static str,
    /// What it counts, one sentence (the `# HELP` line).
    pub help: &'static str,
}

const fn counter(
    name: &'static str,
    labels: &'static [(&'static str, &'static str)],
    unit: &'static str,
    help: &'static str,
) -> Metric {
    Metric {
        name,
        labels,
        kind: MetricKind::Counter,
        unit,
        help,
    }
}

const fn gauge(
    name: &'static str,
    labels: &'static [(&'static str, &'static str)],
    unit: &'static str,
    help: &'static str,
) -> Metric {
    Metric {
        name,
        labels,
        kind: MetricKind::Gauge,
        unit,
        help,
    }
}

const DECISIONS: &str = "CP decisions on the first transmission of a request, by outcome";
const THROTTLED: &str = "requests a throttle refused, by the throttle that refused it";
const OCI: &str = "Overload Control Information received, by what became of it";
const LCI: &str = "Load Control Information received, by what became of it";
const ADMISSION: &str = "requests offered to UP self-protection, by what became of them";
const REFUSED: &str = "requests UP self-protection refused with Cause 74, by why";

/// The catalogue, in the order [`Node::metrics`] gives the values.
pub const METRICS: &[Metric] = &[
    counter(
        "pfcp_datagrams_received_total",
        &[],
        "datagrams",
        "datagrams received",
    ),
    counter(
        "pfcp_ingress_dropped_total",
        &[("associated", "false")],
        "datagrams",
        "datagrams the ingress guard dropped unread, from peers without an association",
    ),
    counter(
        "pfcp_ingress_dropped_total",
        &[("associated", "true")],
        "datagrams",
        "datagrams the ingress guard dropped unread, from associated peers (a flood)",
    ),
    counter(
        "pfcp_malformed_total",
        &[],
        "datagrams",
        "datagrams that did not decode as PFCP",
    ),
    counter(
        "pfcp_requests_rejected_total",
        &[("cause", "72")],
        "requests",
        "session requests refused with Cause 72, no association",
    ),
    counter(
        "pfcp_requests_delivered_total",
        &[],
        "requests",
        "requests handed to the application",
    ),
    counter(
        "pfcp_requests_sent_total",
        &[],
        "requests",
        "requests the application sent",
    ),
    counter(
        "pfcp_requests_answered_locally_total",
        &[],
        "requests",
        "requests the node answered itself in place of the peer (throttled, no association)",
    ),
    counter(
        "pfcp_reassociations_total",
        &[],
        "requests",
        "Association Setup Requests sent to set a lost association up again",
    ),
    counter(
        "pfcp_sessions_lost_total",
        &[],
        "sessions",
        "sessions reported lost with their peer",
    ),
    counter(
        "pfcp_requests_throttled_total",
        &[("reason", "report_egress")],
        "requests",
        THROTTLED,
    ),
    gauge(
        "pfcp_peers",
        &[],
        "peers",
        "peers with a record (associated or not)",
    ),
    gauge(
        "pfcp_peers_associated",
        &[],
        "peers",
        "peers with an association",
    ),
    counter(
        "pfcp_peers_evicted_total",
        &[],
        "peers",
        "records of idle peers dropped to make room for a new peer",
    ),
    counter(
        "pfcp_peers_refused_total",
        &[],
        "peers",
        "new peers refused because the peer table was full of associated peers",
    ),
    gauge(
        "pfcp_sessions",
        &[],
        "sessions",
        "sessions in the session table",
    ),
    counter(
        "pfcp_cp_decisions_total",
        &[("decision", "send")],
        "requests",
        DECISIONS,
    ),
    counter(
        "pfcp_cp_decisions_total",
        &[("decision", "ahead")],
        "requests",
        DECISIONS,
    ),
    counter(
        "pfcp_cp_decisions_total",
        &[("decision", "redirect")],
        "requests",
        DECISIONS,
    ),
    counter(
        "pfcp_cp_decisions_total",
        &[("decision", "hold")],
        "requests",
        DECISIONS,
    ),
    counter(
        "pfcp_cp_decisions_total",
        &[("decision", "reject")],
        "requests",
        DECISIONS,
    ),
    counter(
        "pfcp_cp_decisions_total",
        &[("decision", "bypass")],
        "requests",
        DECISIONS,
    ),
    counter(
        "pfcp_cp_probes_total",
        &[],
        "requests",
        "requests the Loss throttle shed that went as probes of the UP function's overload",
    ),
    counter(
        "pfcp_cp_held_total",
        &[("outcome", "sent")],
        "requests",
        "priority requests held for a place that were sent",
    ),
    counter(
        "pfcp_cp_held_total",
        &[("outcome", "expired")],
        "requests",
        "priority requests held for a place that were rejected when the hold ended",
    ),
    counter(
        "pfcp_cp_exempt_refused_total",
        &[],
        "requests",
        "eMPS and emergency requests the UP function refused with Cause 74",
    ),
    counter(
        "pfcp_requests_throttled_total",
        &[("reason", "loss")],
        "requests",
        THROTTLED,
    ),
    counter(
        "pfcp_requests_throttled_total",
        &[("reason", "egress_level")],
        "requests",
        THROTTLED,
    ),
    counter(
        "pfcp_requests_throttled_total",
        &[("reason", "egress_rate")],
        "requests",
        THROTTLED,
    ),
    counter(
        "pfcp_requests_throttled_total",
        &[("reason", "egress_pending")],
        "requests",
        THROTTLED,
    ),
    counter(
        "pfcp_oci_received_total",
        &[("outcome", "applied")],
        "OCIs",
        OCI,
    ),
    counter(
        "pfcp_oci_received_total",
        &[("outcome", "duplicate")],
        "OCIs",
        OCI,
    ),
    counter(
        "pfcp_oci_received_total",
        &[("outcome", "stale")],
        "OCIs",
        OCI,
    ),
    counter(
        "pfcp_oci_received_total",
        &[("outcome", "malformed")],
        "OCIs",
        OCI,
    ),
    counter(
        "pfcp_oci_received_total",
        &[("outcome", "unexpected_message")],
        "OCIs",
        OCI,
    ),
    counter(
        "pfcp_oci_received_total",
        &[("outcome", "table_full")],
        "OCIs",
        OCI,
    ),
    counter(
        "pfcp_oci_received_total",
        &[("outcome", "expired_number")],
        "OCIs",
        OCI,
    ),
    counter(
        "pfcp_oci_received_total",
        &[("outcome", "other")],
        "OCIs",
        OCI,
    ),
    counter(
        "pfcp_oci_expired_total",
        &[],
        "overload states",
        "overload states whose Period of Validity ran out",
    ),
    counter(
        "pfcp_oci_evicted_total",
        &[],
        "overload states",
        "overload states evicted from a full table",
    ),
    counter(
        "pfcp_lci_received_total",
        &[("outcome", "applied")],
        "LCIs",
        LCI,
    ),
    counter(
        "pfcp_lci_received_total",
        &[("outcome", "duplicate")],
        "LCIs",
        LCI,
    ),
    counter(
        "pfcp_lci_received_total",
        &[("outcome", "stale")],
        "LCIs",
        LCI,
    ),
    counter(
        "pfcp_lci_received_total",
        &[("outcome", "malformed")],
        "LCIs",
        LCI,
    ),
    counter(
        "pfcp_lci_received_total",
        &[("outcome", "unexpected_message")],
        "LCIs",
        LCI,
    ),
    counter(
        "pfcp_lci_received_total",
        &[("outcome", "other")],
        "LCIs",
        LCI,
    ),
    counter(
        "pfcp_peer_resets_total",
        &[],
        "UP functions",
        "UP functions whose state the CP function reset (restart, release, failure)",
    ),
    counter(
        "pfcp_up_selections_total",
        &[("outcome", "selected")],
        "sessions",
        "UP selections for new sessions, by outcome",
    ),
    counter(
        "pfcp_up_selections_total",
        &[("outcome", "none")],
        "sessions",
        "UP selections for new sessions, by outcome",
    ),
    counter(
        "pfcp_admission_offered_total",
        &[("outcome", "queued")],
        "requests",
        ADMISSION,
    ),
    counter(
        "pfcp_admission_offered_total",
        &[("outcome", "rejected")],
        "requests",
        ADMISSION,
    ),
    counter(
        "pfcp_admission_offered_total",
        &[("outcome", "bypassed")],
        "requests",
        ADMISSION,
    ),
    counter(
        "pfcp_requests_rejected_total",
        &[("reason", "queue_full")],
        "requests",
        REFUSED,
    ),
    counter(
        "pfcp_requests_rejected_total",
        &[("reason", "evicted")],
        "requests",
        REFUSED,
    ),
    counter(
        "pfcp_requests_rejected_total",
        &[("reason", "expired")],
        "requests",
        REFUSED,
    ),
    counter(
        "pfcp_admission_served_total",
        &[],
        "requests",
        "requests UP self-protection served",
    ),
    counter(
        "pfcp_admission_dropped_total",
        &[],
        "requests",
        "requests UP self-protection dropped without an answer",
    ),
    counter(
        "pfcp_oci_sent_total",
        &[],
        "OCIs",
        "Overload Control Information sent to CP functions",
    ),
    counter(
        "pfcp_lci_sent_total",
        &[],
        "LCIs",
        "Load Control Information sent to CP functions",
    ),
    counter(
        "pfcp_overflow_oci_issued_total",
        &[],
        "OCIs",
        "provisional OCIs of the queue's refusals, issued before the law had a metric",
    ),
    counter(
        "pfcp_overflow_oci_ended_total",
        &[],
        "episodes",
        "provisional OCI episodes ended with a metric of 0",
    ),
    gauge(
        "pfcp_admission_queue_depth",
        &[],
        "requests",
        "requests waiting in UP self-protection's queue",
    ),
    gauge(
        "pfcp_overload_metric_published",
        &[],
        "percent",
        "the Overload Reduction Metric this UP function publishes (0: not overloaded)",
    ),
    gauge(
        "pfcp_load_metric_published",
        &[],
        "percent",
        "the Load Metric this UP function publishes",
    ),
];

/// A gauge about one UP function, labelled with its Node ID (`up`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LinkMetric {
    /// The gauge's name.
    pub name: &'static str,
    /// Its unit.
    pub unit: &'static str,
    /// What it is.
    pub help: &'static str,
}

/// The gauges a CP function publishes per UP function, in the order [`Node::link_metrics`]
/// gives their values.
pub const LINK_METRICS: &[LinkMetric] = &[
    LinkMetric {
        name: "pfcp_cp_up_reduction",
        unit: "percent",
        help: "the overload reduction a new session's request to the UP function meets (its entity's or the node's OCI, the larger)",
    },
    LinkMetric {
        name: "pfcp_cp_up_load",
        unit: "percent",
        help: "the Load Metric the UP function advertised, if any",
    },
];

impl Node {
    /// The value of every metric of [`METRICS`], in its order.
    pub fn metrics(&self, mut f: impl FnMut(&'static Metric, f64)) {
        let n = self.stats;
        let c = self.cp.as_ref().map(|c| *c.stats()).unwrap_or_default();
        let p = self.peers.stats();
        let guard = self.guard.dropped_associated();
        let a = self
            .admission
            .as_ref()
            .map(|a| *a.stats())
            .unwrap_or_default();
        let (queue, overload, load) = self.admission.as_ref().map_or((0, 0, 0), |a| {
            (
                a.len() as u64,
                u64::from(a.overload_metric()),
                u64::from(a.load_metric().unwrap_or(0)),
            )
        });
        let values: [u64; METRICS.len()] = [
            n.datagrams_received,
            self.guard.dropped().saturating_sub(guard),
            guard,
            n.malformed,
            n.rejected_no_association,
            n.requests_delivered,
            n.requests_sent,
            n.requests_answered_locally,
            n.reassociations,
            n.sessions_lost,
            n.reports_throttled,
            self.peers.len() as u64,
            self.peers.associated().count() as u64,
            p.evicted,
            p.refused,
            self.sessions.len() as u64,
            c.sent.saturating_sub(c.sent_ahead + c.held_sent),
            c.sent_ahead,
            c.redirected,
            c.held,
            c.rejected.saturating_sub(c.held_expired),
            c.bypassed,
            c.probes,
            c.held_sent,
            c.held_expired,
            c.exempt_refused,
            c.throttled.loss,
            c.throttled.egress_level,
            c.throttled.egress_rate,
            c.throttled.egress_pending,
            c.oci.applied,
            c.oci.duplicate,
            c.oci.stale,
            c.oci.malformed,
            c.oci.unexpected_message,
            c.oci.table_full,
            c.oci.expired_number,
            c.oci.other,
            c.oci_expired,
            c.oci_evicted,
            c.lci.applied,
            c.lci.duplicate,
            c.lci.stale,
            c.lci.malformed,
            c.lci.unexpected_message,
            c.lci.other,
            c.peer_resets,
            c.selections,
            c.selections_none,
            a.queued,
            a.rejected,
            a.bypassed,
            a.rejected,
            a.evicted,
            a.expired,
            a.served,
            a.dropped,
            a.oci_sent,
            a.lci_sent,
            a.provisional_oci_issued,
            a.provisional_oci_ended,
            queue,
            overload,
            load,
        ];
        for (m, v) in METRICS.iter().zip(values) {
            f(m, v as f64);
        }
    }

    /// The gauges of [`LINK_METRICS`] for each UP function this CP function has a link to, at
    /// `now`: its Node ID and the values in the catalogue's order (`None`: no value).
    pub fn link_metrics(
        &self,
        now: std::time::Instant,
        mut f: impl FnMut(&pfcp_overload::NodeKey, &[Option<f64>]),
    ) {
        for p in self.peers.records() {
            if let Some(link) = p.up.as_deref() {
                let entity = Some(p.addr.ip());
                let values = [
                    Some(f64::from(link.reduction(entity, now))),
                    link.load(now).map(f64::from),
                ];
                f(link.node(), &values);
            }
        }
    }
}
