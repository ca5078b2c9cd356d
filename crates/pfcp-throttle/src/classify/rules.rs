//! What both rule tables share: the base [`Rule`], the state-aware [`Adjustment`]s of TS
//! 29.273 Annex C.2 with their steps ([`Adjustments`]), and the [`Classification`] that
//! reports the base rule and every adjustment that fired.

use core::fmt;

use pfcp_wire::MessagePriority;

use super::context::Registration;
use crate::loss::RequestClass;

/// Which rule gave the base priority of a classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// Emergency (fixed priority, no adjustment).
    Emergency,
    /// eMPS (fixed priority, no adjustment).
    Emps,
    /// A procedure that is never throttled (PFCP Heartbeat, Association): priority 0, no
    /// adjustment.
    NotThrottled,
    /// A DNN override.
    Dnn,
    /// An S-NSSAI override.
    Snssai,
    /// Low Access Priority.
    LowAccessPriority,
    /// The highest ARP (and no QCI / 5QI ranking higher).
    Arp,
    /// The most important QCI / 5QI, ranking higher than the ARP or with no ARP known (PFCP
    /// table, [`QosPriorities`](super::QosPriorities)).
    Qos,
    /// No ARP known (PFCP table).
    Default,
    /// The base priority of the Diameter command (SWx table: MAR, SAR).
    Command,
}

impl Rule {
    /// A short name for logs and summaries.
    pub const fn as_str(self) -> &'static str {
        match self {
            Rule::Emergency => "emergency",
            Rule::Emps => "emps",
            Rule::NotThrottled => "not_throttled",
            Rule::Dnn => "dnn",
            Rule::Snssai => "snssai",
            Rule::LowAccessPriority => "lapi",
            Rule::Arp => "arp",
            Rule::Qos => "qos",
            Rule::Default => "default",
            Rule::Command => "command",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One state-aware rule of TS 29.273 Annex C.2 (in the PFCP table, its counterpart). A
/// classification applies at most one of the first four (release, or the registration
/// state) and any of the last three, each only to the requests its sentence names (see the
/// tables of [`Classifier`](super::Classifier) and [`SwxClassifier`](super::SwxClassifier)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Adjustment {
    /// The request releases resources: "the deregistration of the user ... has a higher
    /// priority as releasing resources in the HSS" (PFCP: Session Deletion). Replaces the
    /// registration step.
    Release,
    /// Registered here: "a higher priority to the MAR or SAR commands ... as to maintain the
    /// service to the user" (PFCP: work on an established session).
    Registered,
    /// Registered with another server: "this relates to a new session".
    RegisteredElsewhere,
    /// Not registered: "a lower priority to the MAR command" (PFCP: a new session).
    NotRegistered,
    /// The first request of the procedure was admitted and succeeded: "the subsequent
    /// requests (SARs) have a higher priority, otherwise ... the initial MAR ... has been
    /// useless". SWx: SARs only.
    FollowsAdmitted,
    /// The request that establishes an additional session of a UE that has one: "if a SAR
    /// indicates a PGW_UPDATE and is related to an additional Diameter session over S6b ...
    /// a lower priority may be given to this SAR". SWx: that SAR only; PFCP: the Session
    /// Establishment only.
    AdditionalSession,
    /// The first request of a restoration after a server failure: "the new 3GPP AAA server
    /// may give a lower priority to such MAR messages". SWx: MARs only; PFCP: the Session
    /// Establishment only (the requests after it follow an admitted first step).
    Restoration,
}

impl Adjustment {
    /// Every adjustment, in the order a classification lists them.
    pub const ALL: [Adjustment; 7] = [
        Adjustment::Release,
        Adjustment::Registered,
        Adjustment::RegisteredElsewhere,
        Adjustment::NotRegistered,
        Adjustment::FollowsAdmitted,
        Adjustment::AdditionalSession,
        Adjustment::Restoration,
    ];

    /// A short name for logs and summaries.
    pub const fn as_str(self) -> &'static str {
        match self {
            Adjustment::Release => "release",
            Adjustment::Registered => "registered",
            Adjustment::RegisteredElsewhere => "registered_elsewhere",
            Adjustment::NotRegistered => "not_registered",
            Adjustment::FollowsAdmitted => "follows_admitted",
            Adjustment::AdditionalSession => "additional_session",
            Adjustment::Restoration => "restoration",
        }
    }

    const fn bit(self) -> u8 {
        1 << match self {
            Adjustment::Release => 0,
            Adjustment::Registered => 1,
            Adjustment::RegisteredElsewhere => 2,
            Adjustment::NotRegistered => 3,
            Adjustment::FollowsAdmitted => 4,
            Adjustment::AdditionalSession => 5,
            Adjustment::Restoration => 6,
        }
    }

    /// Its step in `table` (negative: a higher priority).
    pub const fn step(self, table: &Adjustments) -> i8 {
        match self {
            Adjustment::Release => table.release,
            Adjustment::Registered => table.registered,
            Adjustment::RegisteredElsewhere => table.registered_elsewhere,
            Adjustment::NotRegistered => table.not_registered,
            Adjustment::FollowsAdmitted => table.follows_admitted,
            Adjustment::AdditionalSession => table.additional_session,
            Adjustment::Restoration => table.restoration,
        }
    }
}

impl fmt::Display for Adjustment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The adjustments that fired in one classification: a set (one byte, `Copy`, `Hash`), so a
/// tool can count requests per `(class, rule, adjustments)`. Displayed as the names joined by
/// `+` (`registered+follows_admitted`), or `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct AdjustmentSet(u8);

impl AdjustmentSet {
    /// No adjustment.
    pub const EMPTY: AdjustmentSet = AdjustmentSet(0);

    /// With `a` added.
    #[must_use]
    pub const fn with(self, a: Adjustment) -> AdjustmentSet {
        AdjustmentSet(self.0 | a.bit())
    }

    /// Whether `a` fired.
    pub const fn contains(self, a: Adjustment) -> bool {
        self.0 & a.bit() != 0
    }

    /// Whether none fired.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many fired.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The adjustments that fired, in [`Adjustment::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Adjustment> {
        Adjustment::ALL
            .into_iter()
            .filter(move |a| self.contains(*a))
    }

    /// Their summed step in `table`.
    pub fn step(self, table: &Adjustments) -> i16 {
        self.iter().map(|a| i16::from(a.step(table))).sum()
    }
}

impl FromIterator<Adjustment> for AdjustmentSet {
    fn from_iter<I: IntoIterator<Item = Adjustment>>(iter: I) -> Self {
        iter.into_iter()
            .fold(AdjustmentSet::EMPTY, AdjustmentSet::with)
    }
}

impl fmt::Display for AdjustmentSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        for (i, a) in self.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(a.as_str())?;
        }
        Ok(())
    }
}

/// The step of each [`Adjustment`], in message priority values (negative = higher priority,
/// 0 being the highest). Part of each rule table; the defaults are the PFCP table's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[non_exhaustive]
pub struct Adjustments {
    /// [`Adjustment::Release`]. Default -4.
    pub release: i8,
    /// [`Adjustment::FollowsAdmitted`]. Default -3.
    pub follows_admitted: i8,
    /// [`Adjustment::Registered`]. Default -2.
    pub registered: i8,
    /// [`Adjustment::RegisteredElsewhere`]. Default 0 (as a new session).
    pub registered_elsewhere: i8,
    /// [`Adjustment::NotRegistered`]. Default 0.
    pub not_registered: i8,
    /// [`Adjustment::AdditionalSession`]. Default +2.
    pub additional_session: i8,
    /// [`Adjustment::Restoration`]. Default +4.
    pub restoration: i8,
}

impl Default for Adjustments {
    fn default() -> Self {
        Adjustments {
            release: -4,
            follows_admitted: -3,
            registered: -2,
            registered_elsewhere: 0,
            not_registered: 0,
            additional_session: 2,
            restoration: 4,
        }
    }
}

impl Adjustments {
    /// With the step of `a` set.
    #[must_use]
    pub fn with(mut self, a: Adjustment, step: i8) -> Self {
        let slot = match a {
            Adjustment::Release => &mut self.release,
            Adjustment::Registered => &mut self.registered,
            Adjustment::RegisteredElsewhere => &mut self.registered_elsewhere,
            Adjustment::NotRegistered => &mut self.not_registered,
            Adjustment::FollowsAdmitted => &mut self.follows_admitted,
            Adjustment::AdditionalSession => &mut self.additional_session,
            Adjustment::Restoration => &mut self.restoration,
        };
        *slot = step;
        self
    }
}

/// The result of classifying a request: the class for the throttles, and how it was reached
/// (for tracing, tests and per-class summaries; its `Display` is a compact label such as
/// `p3 arp registered+follows_admitted`, with `!` after the priority for an exempt class).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Classification {
    /// Priority and exemption, ready for the throttles.
    pub class: RequestClass,
    /// The rule that gave the base priority.
    pub rule: Rule,
    /// The base priority, before the adjustments.
    pub base: MessagePriority,
    /// Every adjustment that fired (empty for the fixed rules: emergency, eMPS, not
    /// throttled).
    pub adjustments: AdjustmentSet,
    /// The summed step of the adjustments, before the clamp to 1..=15.
    pub step: i16,
}

impl Classification {
    /// A fixed classification: no adjustment.
    pub(crate) fn fixed(priority: u8, exempt: bool, rule: Rule) -> Classification {
        let p = prio(priority);
        Classification {
            class: RequestClass {
                priority: p,
                exempt,
            },
            rule,
            base: p,
            adjustments: AdjustmentSet::EMPTY,
            step: 0,
        }
    }

    /// `base` moved by the steps of the adjustments `facts` fire, clamped to 1..=15 so that
    /// priority 0 stays reserved for the exempt classes.
    pub(crate) fn adjusted(
        base: u8,
        rule: Rule,
        facts: Resolved,
        table: &Adjustments,
    ) -> Classification {
        let base = base.min(15);
        // Straight-line: the set and the summed step together (no loop over the table).
        let (mut set, mut step) = match facts.first() {
            Some(first) => (
                AdjustmentSet::EMPTY.with(first),
                i16::from(first.step(table)),
            ),
            None => (AdjustmentSet::EMPTY, 0),
        };
        for (on, a) in [
            (facts.follows_admitted, Adjustment::FollowsAdmitted),
            (facts.additional_session, Adjustment::AdditionalSession),
            (facts.restoration, Adjustment::Restoration),
        ] {
            if on {
                set = set.with(a);
                step += i16::from(a.step(table));
            }
        }
        let value = (i16::from(base) + step).clamp(1, 15);
        Classification {
            class: RequestClass::new(prio(u8::try_from(value).unwrap_or(15))),
            rule,
            base: prio(base),
            adjustments: set,
            step,
        }
    }
}

impl fmt::Display for Classification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "p{}", self.class.priority.value())?;
        if self.class.exempt {
            f.write_str("!")?;
        }
        write!(f, " {}", self.rule)?;
        if !self.adjustments.is_empty() {
            write!(f, " {}", self.adjustments)?;
        }
        Ok(())
    }
}

/// The C.2 facts of one request once every `None` has its table default and each fact is
/// limited to the requests its rule names: which adjustments fire.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resolved {
    pub(crate) release: bool,
    /// `None`: no registration rule names this request (SWx: a SAR of a user not registered
    /// here).
    pub(crate) registration: Option<Registration>,
    pub(crate) follows_admitted: bool,
    pub(crate) additional_session: bool,
    pub(crate) restoration: bool,
}

impl Resolved {
    /// The one of release and the registration states that applies, if any: release
    /// replaces the registration step; the other three facts add to it.
    fn first(self) -> Option<Adjustment> {
        if self.release {
            return Some(Adjustment::Release);
        }
        self.registration.map(|r| match r {
            Registration::Registered => Adjustment::Registered,
            Registration::RegisteredElsewhere => Adjustment::RegisteredElsewhere,
            Registration::NotRegistered => Adjustment::NotRegistered,
        })
    }
}

pub(crate) fn prio(v: u8) -> MessagePriority {
    MessagePriority::new(v.min(15)).unwrap_or(MessagePriority::LOWEST)
}
