//! The priority classifiers: the message priority (0 highest, 15 lowest) of a request from
//! the procedure, the session context and the state the sender knows (TS 29.244 clauses
//! 6.2.4.5.1 and 7.2.2.4.1; the analysis of TS 29.273 Annex C.2).
//!
//! Two built-in rule tables share one state type ([`RequestState`]), one set of state-aware
//! adjustments ([`Adjustment`], steps in [`Adjustments`]) and one result
//! ([`Classification`], which names the base rule and every adjustment that fired):
//!
//! * [`Classifier`] for PFCP requests, from a [`RequestContext`] (the table below);
//! * [`SwxClassifier`] for the SWx requests of a 3GPP AAA server towards an HSS (MAR, SAR),
//!   from a [`SwxRequest`]: the table Annex C.2 describes (see [`SwxClassifier`]).
//!
//! A [`StateTracker`] keeps the state the rules need from what a node sees (a first request
//! admitted and succeeded, a session established, a peer restarted, a session released) and
//! produces the [`RequestState`] for the next request, which the caller may override.
//!
//! PFCP carries no ARP, eMPS or emergency information (digest section 1.4): the CP derives the
//! priority from its own session context and writes it into the header (MP=1).
//!
//! ## The PFCP table: base rules, in order
//!
//! | # | rule | default | source |
//! |---|------|---------|--------|
//! | 1 | emergency session | priority 0, exempt | 6.2.4.5.1; C.2 "emergency ... highest priority, last to be throttled" |
//! | 2 | eMPS (MPS) session | priority 0, exempt | 6.2.4.5.1 (TS 22.153) |
//! | 3 | Heartbeat, Association (never throttled) | priority 0 | digest 6.3 |
//! | 4 | DNN override (operator table) | as configured | 6.2.4.5.1 "APN/DNN" |
//! | 5 | S-NSSAI override (operator table) | as configured | 5GS counterpart of the APN rule |
//! | 6 | Low Access Priority (LAPI) | base 14 | 6.2.4.5.1 "LAPI" |
//! | 7 | otherwise the more important of the highest ARP of the bearers / QoS flows concerned and their most important QCI / 5QI ([`Rule::Arp`] on a tie, [`Rule::Qos`] when the QCI / 5QI ranks higher) | ARP level 1..15 mapped to 1..15; QCI / 5QI: mission-critical 2, other GBR 5, non-GBR none ([`QosPriorities`]) | 6.2.4.5.2 "highest priority ARP"; 6.2.4.5.1 "QCI"; TS 23.203 Table 6.1.7-A, TS 23.501 Table 5.7.4-1 |
//! | 8 | neither known (no ARP, no QCI / 5QI with a priority) | base 8 | configurable default |
//!
//! A request without QCI or 5QI ranks exactly as the table without rule 7's QoS half: the
//! QoS values can only raise a request above what its ARP gives, never lower it.
//!
//! Rules 1-3 are fixed (no adjustment). Otherwise the state-aware adjustments follow (steps
//! towards 0 are *higher* priority), clamped to 1..=15 so that priority 0 stays reserved for
//! the exempt classes. One of the first four applies, and any of the last three, each only to
//! the requests its sentence names:
//!
//! | C.2 sentence | PFCP counterpart | [`Adjustment`] | default step | fires when |
//! |---|---|---|---|---|
//! | "the deregistration of the user ... has a higher priority as releasing resources" | Session Deletion | `Release` | -4 | `releases_resources`, default: the procedure is Session Deletion |
//! | "if the user is registered ... a higher priority ... to maintain the service" | work on an established session | `Registered` | -2 | `registration`, default: Modification, Deletion, Report, Session Set |
//! | "registered ... with another 3GPP AAA server ... this relates to a new session" | (a session held by another CP) | `RegisteredElsewhere` | 0 | `registration` only |
//! | "if the user is not already registered ... a lower priority to the MAR" | Session Establishment (new work) | `NotRegistered` | 0 | `registration`, default: Establishment and the rest |
//! | "after a not throttled and successful MAR, the subsequent requests (SARs) have a higher priority" | a later request of a procedure whose first step was admitted and succeeded (the Modification completing an admitted Establishment; the Establishment at a second UP function of the same procedure) | `FollowsAdmitted` | -3 | `follows_admitted`, any procedure |
//! | "if a SAR indicates a PGW_UPDATE and is related to an additional Diameter session ... a lower priority may be given to this SAR" | the Session Establishment of an additional session of a UE already served | `AdditionalSession` | +2 | `additional_session`, on a Session Establishment (or no procedure) only |
//! | "in a restoration procedure ... a lower priority may be given to such MAR messages" | the re-establishment after a UP function's failure | `Restoration` | +4 | `restoration`, on a Session Establishment (or no procedure) only |
//!
//! The last two fire on the first request of a session only, as C.2 lowers "this SAR" and
//! "such MAR messages" only: the work that follows an admitted re-establishment ranks as any
//! other (and higher while it follows an admitted first step).
//!
//! `docs/throttle.md` lists each rule with the code and the test that holds it.
//!
//! A request without a priority (MP=0) takes [`ClassifierConfig::request_default`], by
//! default 15, the lowest: the signalling router's "all Requests are assigned a Priority of
//! 0" (its lowest), shed first (see [`crate::priority`] for the mapping of the router's
//! priorities to PFCP's).

use pfcp_wire::{MessagePriority, MessageType};

mod config;
mod context;
mod qos;
mod rules;
mod swx;
mod tracker;

pub use config::ClassifierConfig;
pub use context::{ArpLevels, Registration, RequestContext, RequestState, Snssai};
pub use qos::{QosClass, QosIds, QosPriorities, QosRange};
pub use rules::{Adjustment, AdjustmentSet, Adjustments, Classification, Rule};
pub use swx::{ServerAssignmentType, SwxClassifier, SwxCommand, SwxRequest, SwxRules};
pub use tracker::{StateTracker, TrackerConfig, TrackerStats};

use rules::{prio, Resolved};

/// The PFCP procedure a request starts or belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Procedure {
    /// Heartbeat (6.2.2): never throttled.
    Heartbeat,
    /// Association Setup / Update / Release (6.2.6, 6.2.7, 6.2.8).
    Association,
    /// PFD Management (6.2.5).
    PfdManagement,
    /// Node Report (6.2.9).
    NodeReport,
    /// Session Set Deletion / Modification (6.2.10, 6.2.11).
    SessionSet,
    /// Session Establishment (6.3.2): new work.
    SessionEstablishment,
    /// Session Modification (6.3.3).
    SessionModification,
    /// Session Deletion (6.3.4): releases resources.
    SessionDeletion,
    /// Session Report (6.3.5).
    SessionReport,
}

impl Procedure {
    /// The procedure of a message type (requests and responses alike); `None` for unknown
    /// types.
    pub const fn of(message_type: MessageType) -> Option<Procedure> {
        Some(match message_type.0 {
            1 | 2 => Procedure::Heartbeat,
            3 | 4 => Procedure::PfdManagement,
            5..=10 => Procedure::Association,
            12 | 13 => Procedure::NodeReport,
            14..=17 => Procedure::SessionSet,
            50 | 51 => Procedure::SessionEstablishment,
            52 | 53 => Procedure::SessionModification,
            54 | 55 => Procedure::SessionDeletion,
            56 | 57 => Procedure::SessionReport,
            _ => return None,
        })
    }

    /// Whether requests of this procedure are candidates for throttling. Heartbeat (path
    /// supervision) and Association management are not: throttling them would turn overload
    /// into a failure of the peer (digest 6.3 recommendation).
    pub const fn is_throttled(self) -> bool {
        !matches!(self, Procedure::Heartbeat | Procedure::Association)
    }

    /// Whether the procedure starts a session (Session Establishment): the PFCP counterpart
    /// of C.2's MAR, the only request the `AdditionalSession` and `Restoration` adjustments
    /// fire on.
    pub const fn starts_session(self) -> bool {
        matches!(self, Procedure::SessionEstablishment)
    }

    /// Whether the procedure works on sessions that exist (Modification, Deletion, Report,
    /// Session Set): the PFCP counterpart of "the user is registered" when the caller does
    /// not say ([`RequestState::registration`] `None`).
    pub const fn works_on_existing_session(self) -> bool {
        matches!(
            self,
            Procedure::SessionModification
                | Procedure::SessionDeletion
                | Procedure::SessionReport
                | Procedure::SessionSet
        )
    }
}

/// Derives PFCP message priorities from request context: see the [module docs](self).
///
/// # Examples
///
/// ```
/// use pfcp_throttle::classify::Procedure;
/// use pfcp_throttle::{Classifier, MessagePriority, RequestContext, Rule};
///
/// let classifier = Classifier::default();
/// // An emergency session: priority 0 and exempt, throttled last (clause 6.2.4.5.1).
/// let ctx = RequestContext::new(Procedure::SessionEstablishment).with_emergency(true);
/// let emergency = classifier.classify(&ctx);
/// assert_eq!(emergency.rule, Rule::Emergency);
/// assert_eq!(emergency.class.priority, MessagePriority::HIGHEST);
/// assert!(emergency.class.exempt);
///
/// // Bearers at ARP 9 and 3: the highest ARP gives the base priority (clause 6.2.4.5.2).
/// let ctx = RequestContext::new(Procedure::SessionEstablishment).with_arp([9, 3]);
/// let arp = classifier.classify(&ctx);
/// assert_eq!((arp.rule, arp.base.value()), (Rule::Arp, 3));
/// assert!(!arp.class.exempt);
///
/// // A received request without MP: the lowest priority by default (clause 7.2.2.4.1).
/// assert_eq!(classifier.received_request(None), MessagePriority::LOWEST);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Classifier {
    config: ClassifierConfig,
}

impl Classifier {
    /// A classifier with `config`.
    pub fn new(config: ClassifierConfig) -> Self {
        Classifier { config }
    }

    /// The configuration.
    pub fn config(&self) -> &ClassifierConfig {
        &self.config
    }

    /// Classify a request: the base rule, then every state-aware adjustment that fires (see
    /// the module docs for both tables).
    pub fn classify(&self, ctx: &RequestContext<'_>) -> Classification {
        let c = &self.config;
        if ctx.emergency {
            return Classification::fixed(
                c.emergency_priority,
                c.emergency_exempt,
                Rule::Emergency,
            );
        }
        if ctx.emps {
            return Classification::fixed(c.emps_priority, c.emps_exempt, Rule::Emps);
        }
        if ctx.procedure.is_some_and(|p| !p.is_throttled()) {
            return Classification::fixed(0, false, Rule::NotThrottled);
        }
        let (base, rule) = if let Some(p) = ctx.dnn.as_deref().and_then(|d| {
            c.dnn_overrides
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(d))
                .map(|(_, p)| *p)
        }) {
            (p, Rule::Dnn)
        } else if let Some(p) = ctx.snssai.and_then(|s| {
            c.snssai_overrides
                .iter()
                .find(|(n, _)| *n == s)
                .map(|(_, p)| *p)
        }) {
            (p, Rule::Snssai)
        } else if ctx.low_access_priority {
            (c.low_access_priority, Rule::LowAccessPriority)
        } else {
            let arp = ctx.arp.highest().map(|level| {
                c.arp_map
                    .get(usize::from(level).saturating_sub(1))
                    .copied()
                    .unwrap_or(c.no_arp_priority)
            });
            // Without QCI / 5QI (the usual case) the QoS table is not consulted.
            let qos = if ctx.qci.is_empty() && ctx.five_qi.is_empty() {
                None
            } else {
                c.qos.best(ctx.qci, ctx.five_qi)
            };
            match (arp, qos) {
                (Some(a), Some(q)) if q < a.min(15) => (q, Rule::Qos),
                (Some(a), _) => (a, Rule::Arp),
                (None, Some(q)) => (q, Rule::Qos),
                (None, None) => (c.no_arp_priority, Rule::Default),
            }
        };
        Classification::adjusted(base, rule, resolve(ctx), &c.adjustments)
    }

    /// The priority to handle a received request with: its own (MP=1) or the configured
    /// default (7.2.2.4.1), by default the lowest.
    pub fn received_request(&self, priority: Option<MessagePriority>) -> MessagePriority {
        priority.unwrap_or_else(|| prio(self.config.request_default))
    }

    /// The priority of a response: the request's (7.2.2.4.1: a response should carry the
    /// same priority as its request; one received without MP takes the request's).
    pub fn response(request: MessagePriority) -> MessagePriority {
        request
    }
}

/// The PFCP table's defaults for the facts the caller left `None`, each limited to the
/// requests its rule names.
fn resolve(ctx: &RequestContext<'_>) -> Resolved {
    let s = ctx.state;
    let procedure = ctx.procedure;
    // No procedure is treated like a new session.
    let starts_session = procedure.is_none_or(Procedure::starts_session);
    Resolved {
        release: s
            .releases_resources
            .unwrap_or(procedure == Some(Procedure::SessionDeletion)),
        registration: Some(s.registration.unwrap_or(
            if procedure.is_some_and(Procedure::works_on_existing_session) {
                Registration::Registered
            } else {
                Registration::NotRegistered
            },
        )),
        follows_admitted: s.follows_admitted.unwrap_or(false),
        additional_session: starts_session && s.additional_session.unwrap_or(false),
        restoration: starts_session && s.restoration.unwrap_or(false),
    }
}

#[cfg(test)]
mod tests;
