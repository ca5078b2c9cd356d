//! The priority classifier: the PFCP message priority (0 highest, 15 lowest) of a request from
//! the procedure and the session context the CP function knows (TS 29.244 clauses 6.2.4.5.1
//! and 7.2.2.4.1; the Diameter analysis of TS 29.273 Annex C.2).
//!
//! PFCP carries no ARP, eMPS or emergency information (digest section 1.4): the CP derives the
//! priority from its own session context and writes it into the header (MP=1).
//!
//! ## Rules, in order
//!
//! | # | rule | default | source |
//! |---|------|---------|--------|
//! | 1 | emergency session | priority 0, exempt | 6.2.4.5.1; C.2 "emergency ... highest priority, last to be throttled" |
//! | 2 | eMPS (MPS) session | priority 0, exempt | 6.2.4.5.1 (TS 22.153) |
//! | 3 | DNN override (operator table) | as configured | 6.2.4.5.1 "APN/DNN" |
//! | 4 | S-NSSAI override (operator table) | as configured | 5GS counterpart of the APN rule |
//! | 5 | Low Access Priority (LAPI) | base 14 | 6.2.4.5.1 "LAPI" |
//! | 6 | otherwise the highest ARP of the bearers / QoS flows concerned | ARP level 1..15 mapped to 1..15 | 6.2.4.5.2 "highest priority ARP" |
//! | 7 | no ARP known | base 8 | configurable default |
//!
//! then a state-aware adjustment (steps towards 0 are *higher* priority), clamped to 1..=15
//! so that priority 0 stays reserved for the exempt classes:
//!
//! | Diameter analysis (C.2) | PFCP counterpart | default step |
//! |---|---|---|
//! | deregistration "releases resources in the HSS": higher priority | Session Deletion (frees UP resources) | -4 |
//! | after an admitted MAR, the SARs rank higher (else the MAR was wasted) | a later step of a procedure whose first step was admitted (e.g. the Modification completing an admitted Establishment) | -3 |
//! | registered user: keep the service | work on an established session (Modification, Report Response) | -2 |
//! | user not registered: new session, lower priority | Session Establishment (new work) | 0 |
//! | SAR for an additional PDN connection: lower priority | an additional session of a UE already served | +2 |
//! | restoration after an AAA server failure: a signalling storm, lower priority | re-establishment after a peer restart | +4 |
//!
//! Node procedures (Heartbeat, Association Setup/Release) are not throttled at all (see
//! [`Procedure::is_throttled`]); they get priority 0 for self-protection queues.

use pfcp_wire::{MessagePriority, MessageType};

use crate::loss::RequestClass;

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
}

/// An S-NSSAI: slice/service type and optional slice differentiator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Snssai {
    /// SST.
    pub sst: u8,
    /// SD (24 bits), if any.
    pub sd: Option<u32>,
}

/// What the CP function knows about the request it is about to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestContext<'a> {
    /// The procedure; `None` is treated like a new session.
    pub procedure: Option<Procedure>,
    /// An emergency PDU session / PDN connection.
    pub emergency: bool,
    /// An eMPS (MPS) session.
    pub emps: bool,
    /// ARP priority levels (1 highest .. 15 lowest) of every bearer / QoS flow the message
    /// concerns; the highest (numerically smallest) counts (6.2.4.5.2).
    pub arp_levels: &'a [u8],
    /// Low Access Priority Indication of the UE.
    pub low_access_priority: bool,
    /// DNN / APN.
    pub dnn: Option<&'a str>,
    /// S-NSSAI.
    pub snssai: Option<Snssai>,
    /// The session is already established (the request works on it).
    pub established: bool,
    /// A later step of a procedure whose first step was admitted.
    pub later_step: bool,
    /// A re-establishment after a peer restart (restoration storm).
    pub restoration: bool,
    /// An additional session of a UE that already has one.
    pub additional_session: bool,
}

/// State-aware adjustments, in priority steps (negative = higher priority).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Adjustments {
    /// Session Deletion. Default -4.
    pub deletion: i8,
    /// Later step of an admitted procedure. Default -3.
    pub later_step: i8,
    /// Work on an established session. Default -2.
    pub established: i8,
    /// New session. Default 0.
    pub new_session: i8,
    /// Additional session of a served UE. Default +2.
    pub additional_session: i8,
    /// Restoration after a peer restart. Default +4.
    pub restoration: i8,
}

impl Default for Adjustments {
    fn default() -> Self {
        Adjustments {
            deletion: -4,
            later_step: -3,
            established: -2,
            new_session: 0,
            additional_session: 2,
            restoration: 4,
        }
    }
}

/// The classifier's configuration, loadable as data (serde feature). See the module docs for
/// the default table.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[non_exhaustive]
pub struct ClassifierConfig {
    /// Priority of emergency requests. Default 0.
    pub emergency_priority: u8,
    /// Whether emergency requests are exempt (throttled last). Default true.
    pub emergency_exempt: bool,
    /// Priority of eMPS requests. Default 0.
    pub emps_priority: u8,
    /// Whether eMPS requests are exempt. Default true.
    pub emps_exempt: bool,
    /// Base priority for ARP priority level 1..=15 (index 0 = level 1). Default: level n -> n.
    pub arp_map: [u8; 15],
    /// Base priority when no ARP is known. Default 8.
    pub no_arp_priority: u8,
    /// Base priority of Low Access Priority UEs. Default 14.
    pub low_access_priority: u8,
    /// Fixed priority per DNN (case-insensitive), before the ARP rule. Default empty.
    pub dnn_overrides: Vec<(String, u8)>,
    /// Fixed priority per S-NSSAI, before the ARP rule. Default empty.
    pub snssai_overrides: Vec<(Snssai, u8)>,
    /// State-aware adjustments.
    pub adjustments: Adjustments,
    /// Priority assumed for a received request without MP (7.2.2.4.1: "a default priority",
    /// value not specified). Default 8.
    pub request_default: u8,
}

impl Default for ClassifierConfig {
    fn default() -> Self {
        ClassifierConfig {
            emergency_priority: 0,
            emergency_exempt: true,
            emps_priority: 0,
            emps_exempt: true,
            arp_map: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
            no_arp_priority: 8,
            low_access_priority: 14,
            dnn_overrides: Vec::new(),
            snssai_overrides: Vec::new(),
            adjustments: Adjustments::default(),
            request_default: 8,
        }
    }
}

impl ClassifierConfig {
    /// With `emergency_priority` set (see the field).
    #[must_use]
    pub fn with_emergency_priority(mut self, emergency_priority: u8) -> Self {
        self.emergency_priority = emergency_priority;
        self
    }
    /// With `emergency_exempt` set (see the field).
    #[must_use]
    pub fn with_emergency_exempt(mut self, emergency_exempt: bool) -> Self {
        self.emergency_exempt = emergency_exempt;
        self
    }
    /// With `emps_priority` set (see the field).
    #[must_use]
    pub fn with_emps_priority(mut self, emps_priority: u8) -> Self {
        self.emps_priority = emps_priority;
        self
    }
    /// With `emps_exempt` set (see the field).
    #[must_use]
    pub fn with_emps_exempt(mut self, emps_exempt: bool) -> Self {
        self.emps_exempt = emps_exempt;
        self
    }
    /// With `arp_map` set (see the field).
    #[must_use]
    pub fn with_arp_map(mut self, arp_map: [u8; 15]) -> Self {
        self.arp_map = arp_map;
        self
    }
    /// With `no_arp_priority` set (see the field).
    #[must_use]
    pub fn with_no_arp_priority(mut self, no_arp_priority: u8) -> Self {
        self.no_arp_priority = no_arp_priority;
        self
    }
    /// With `low_access_priority` set (see the field).
    #[must_use]
    pub fn with_low_access_priority(mut self, low_access_priority: u8) -> Self {
        self.low_access_priority = low_access_priority;
        self
    }
    /// With `dnn_overrides` set (see the field).
    #[must_use]
    pub fn with_dnn_overrides(mut self, dnn_overrides: Vec<(String, u8)>) -> Self {
        self.dnn_overrides = dnn_overrides;
        self
    }
    /// With `snssai_overrides` set (see the field).
    #[must_use]
    pub fn with_snssai_overrides(mut self, snssai_overrides: Vec<(Snssai, u8)>) -> Self {
        self.snssai_overrides = snssai_overrides;
        self
    }
    /// With `adjustments` set (see the field).
    #[must_use]
    pub fn with_adjustments(mut self, adjustments: Adjustments) -> Self {
        self.adjustments = adjustments;
        self
    }
    /// With `request_default` set (see the field).
    #[must_use]
    pub fn with_request_default(mut self, request_default: u8) -> Self {
        self.request_default = request_default;
        self
    }
}

/// Which rule decided a classification (for tracing and tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Emergency.
    Emergency,
    /// eMPS.
    Emps,
    /// A DNN override.
    Dnn,
    /// An S-NSSAI override.
    Snssai,
    /// Low Access Priority.
    LowAccessPriority,
    /// The highest ARP.
    Arp,
    /// No ARP known.
    Default,
}

/// The result of classifying a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classification {
    /// Priority and exemption, ready for the throttles.
    pub class: RequestClass,
    /// The rule that gave the base priority.
    pub rule: Rule,
}

/// Derives message priorities from request context.
#[derive(Debug, Clone, Default)]
pub struct Classifier {
    config: ClassifierConfig,
}

fn prio(v: u8) -> MessagePriority {
    MessagePriority::new(v.min(15)).unwrap_or(MessagePriority::LOWEST)
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

    /// Classify a request.
    pub fn classify(&self, ctx: &RequestContext<'_>) -> Classification {
        let c = &self.config;
        if ctx.emergency {
            return fixed(c.emergency_priority, c.emergency_exempt, Rule::Emergency);
        }
        if ctx.emps {
            return fixed(c.emps_priority, c.emps_exempt, Rule::Emps);
        }
        if ctx.procedure.is_some_and(|p| !p.is_throttled()) {
            return fixed(0, false, Rule::Default);
        }
        let (base, rule) = if let Some(p) = ctx.dnn.and_then(|d| {
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
        } else if let Some(&level) = ctx
            .arp_levels
            .iter()
            .filter(|l| (1..=15).contains(*l))
            .min()
        {
            let mapped = c
                .arp_map
                .get(usize::from(level) - 1)
                .copied()
                .unwrap_or(c.no_arp_priority);
            (mapped, Rule::Arp)
        } else {
            (c.no_arp_priority, Rule::Default)
        };
        let a = &c.adjustments;
        let mut step = 0i16;
        step += i16::from(match ctx.procedure {
            Some(Procedure::SessionDeletion) => a.deletion,
            _ if ctx.established => a.established,
            _ => a.new_session,
        });
        if ctx.later_step {
            step += i16::from(a.later_step);
        }
        if ctx.additional_session {
            step += i16::from(a.additional_session);
        }
        if ctx.restoration {
            step += i16::from(a.restoration);
        }
        let v = (i16::from(base) + step).clamp(1, 15) as u8;
        Classification {
            class: RequestClass::new(prio(v)),
            rule,
        }
    }

    /// The priority to handle a received request with: its own (MP=1) or the configured
    /// default (7.2.2.4.1).
    pub fn received_request(&self, priority: Option<MessagePriority>) -> MessagePriority {
        priority.unwrap_or_else(|| prio(self.config.request_default))
    }

    /// The priority of a response: the request's (7.2.2.4.1: a response should carry the
    /// same priority as its request; one received without MP takes the request's).
    pub fn response(request: MessagePriority) -> MessagePriority {
        request
    }
}

fn fixed(p: u8, exempt: bool, rule: Rule) -> Classification {
    Classification {
        class: RequestClass {
            priority: prio(p),
            exempt,
        },
        rule,
    }
}

#[cfg(test)]
mod tests;
