//! What a sender knows about a request before it classifies it: the PFCP
//! [`RequestContext`] (procedure, emergency, eMPS, ARP, QCI / 5QI, LAPI, DNN, S-NSSAI) and the
//! [`RequestState`] of TS 29.273 Annex C.2 that both rule tables read (registered or not,
//! a follow-up of an admitted first request, an additional session, a restoration, a
//! release of resources).

use std::borrow::Cow;

use super::qos::QosIds;
use super::Procedure;

/// An S-NSSAI: slice/service type and optional slice differentiator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Snssai {
    /// SST.
    pub sst: u8,
    /// SD (24 bits), if any.
    pub sd: Option<u32>,
}

/// The ARP priority levels (1 highest .. 15 lowest, TS 23.501 5.7.2.2) of every bearer or QoS
/// flow a message concerns, as a set: TS 29.244 6.2.4.5.2 ranks a message by "the highest
/// priority ARP" among them, so the set is all the classifier needs. Two bytes, `Copy`, no
/// allocation; levels outside 1..=15 are not ARP priority levels and are not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArpLevels(u16);

impl ArpLevels {
    /// No ARP known.
    pub const NONE: ArpLevels = ArpLevels(0);

    /// The set of the valid levels of `levels` (0 and values above 15 are skipped).
    pub fn from_levels(levels: &[u8]) -> ArpLevels {
        levels.iter().fold(ArpLevels::NONE, |set, &l| set.with(l))
    }

    /// One level (none if it is not in 1..=15).
    pub const fn single(level: u8) -> ArpLevels {
        ArpLevels::NONE.with(level)
    }

    /// With `level` added (unchanged if it is not in 1..=15).
    #[must_use]
    pub const fn with(self, level: u8) -> ArpLevels {
        if level >= 1 && level <= 15 {
            ArpLevels(self.0 | 1 << level)
        } else {
            self
        }
    }

    /// Adds `level`; `false` (and no change) if it is not in 1..=15.
    pub fn insert(&mut self, level: u8) -> bool {
        let valid = (1..=15).contains(&level);
        *self = self.with(level);
        valid
    }

    /// The highest priority level of the set (numerically smallest), `None` for an empty set.
    pub const fn highest(self) -> Option<u8> {
        if self.0 == 0 {
            None
        } else {
            Some(self.0.trailing_zeros() as u8)
        }
    }

    /// Whether no level is known.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `level` is in the set.
    pub const fn contains(self, level: u8) -> bool {
        level >= 1 && level <= 15 && self.0 & (1 << level) != 0
    }

    /// The levels, highest priority first.
    pub fn iter(self) -> impl Iterator<Item = u8> {
        (1u8..=15).filter(move |&l| self.contains(l))
    }
}

impl From<&[u8]> for ArpLevels {
    fn from(levels: &[u8]) -> Self {
        ArpLevels::from_levels(levels)
    }
}

impl<const N: usize> From<[u8; N]> for ArpLevels {
    fn from(levels: [u8; N]) -> Self {
        ArpLevels::from_levels(&levels)
    }
}

impl FromIterator<u8> for ArpLevels {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Self {
        iter.into_iter().fold(ArpLevels::NONE, ArpLevels::with)
    }
}

/// Whether the user (Diameter) or the session (PFCP) a request is for is registered at the
/// sender (TS 29.273 Annex C.2: "The 3GPP AAA server can take into account if it has already
/// registered the user").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Registration {
    /// Not registered: the request starts new work (C.2: a lower priority to the MAR).
    #[default]
    NotRegistered,
    /// Registered with another server (C.2: "registered in the HSS but with another 3GPP AAA
    /// server, apart a restoration case ... this relates to a new session").
    RegisteredElsewhere,
    /// Registered here: the request maintains a service the user has (C.2: "a higher priority
    /// to the MAR or SAR commands ... as to maintain the service to the user"). The PFCP
    /// counterpart: the request works on an established session.
    Registered,
}

/// The state-aware facts of TS 29.273 Annex C.2, one typed value for both rule tables.
///
/// Each fact is an `Option`: `None` is "not known", and the rule table supplies the default
/// (for PFCP from the procedure: a Session Modification works on an established session, a
/// Session Deletion releases resources; for SWx from the command). A
/// [`StateTracker`](super::StateTracker) produces a value from what a node has seen, with
/// `Some` only where it has evidence; a caller's own value overrides it field by field with
/// [`RequestState::or`]: `caller.or(tracked)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct RequestState {
    /// Registered here, elsewhere, or not. `None`: from the procedure / command.
    pub registration: Option<Registration>,
    /// The first request of the procedure this request continues was admitted (not
    /// throttled) and succeeded (C.2: "after a not throttled and successful MAR, the
    /// subsequent requests (SARs) have a higher priority"). Read on SARs only (SWx), on any
    /// request (PFCP). `None`: false.
    pub follows_admitted: Option<bool>,
    /// An additional PDN connection / PDU session of a UE that already has one (C.2: "a SAR
    /// indicates a PGW_UPDATE and is related to an additional Diameter session ... a lower
    /// priority may be given to this SAR"). Read on that request only: the SAR PGW_UPDATE
    /// (SWx), the Session Establishment (PFCP). `None`: false.
    pub additional_session: Option<bool>,
    /// Part of a restoration after a server or peer failure (C.2: the AAA-Failure-Indication
    /// AVP; PFCP: a re-establishment after a UP function restart). Read on the restoration's
    /// first request only: the MAR (SWx: "such MAR messages"), the Session Establishment
    /// (PFCP). `None`: false, or the request's own indication (SWx:
    /// [`SwxRequest::aaa_failure_indication`](super::SwxRequest)).
    pub restoration: Option<bool>,
    /// The request releases resources at the peer (C.2: "the deregistration of the user ...
    /// has a higher priority as releasing resources in the HSS"). `None`: from the procedure
    /// (PFCP Session Deletion) or the command (SWx SAR with a deregistration type).
    pub releases_resources: Option<bool>,
}

impl RequestState {
    /// Nothing known.
    pub const UNKNOWN: RequestState = RequestState {
        registration: None,
        follows_admitted: None,
        additional_session: None,
        restoration: None,
        releases_resources: None,
    };

    /// Field by field, `self`'s value where it has one, `other`'s otherwise: a caller's
    /// overrides on top of a tracker's state (`overrides.or(tracked)`).
    #[must_use]
    pub fn or(self, other: RequestState) -> RequestState {
        RequestState {
            registration: self.registration.or(other.registration),
            follows_admitted: self.follows_admitted.or(other.follows_admitted),
            additional_session: self.additional_session.or(other.additional_session),
            restoration: self.restoration.or(other.restoration),
            releases_resources: self.releases_resources.or(other.releases_resources),
        }
    }

    /// With `registration` set (see the field).
    #[must_use]
    pub fn with_registration(mut self, registration: Registration) -> Self {
        self.registration = Some(registration);
        self
    }
    /// With `follows_admitted` set (see the field).
    #[must_use]
    pub fn with_follows_admitted(mut self, follows_admitted: bool) -> Self {
        self.follows_admitted = Some(follows_admitted);
        self
    }
    /// With `additional_session` set (see the field).
    #[must_use]
    pub fn with_additional_session(mut self, additional_session: bool) -> Self {
        self.additional_session = Some(additional_session);
        self
    }
    /// With `restoration` set (see the field).
    #[must_use]
    pub fn with_restoration(mut self, restoration: bool) -> Self {
        self.restoration = Some(restoration);
        self
    }
    /// With `releases_resources` set (see the field).
    #[must_use]
    pub fn with_releases_resources(mut self, releases_resources: bool) -> Self {
        self.releases_resources = Some(releases_resources);
        self
    }
}

/// What a PFCP CP function knows about a request it is about to send: the input of
/// [`Classifier::classify`](super::Classifier::classify).
///
/// Borrowed or owned: the DNN is a [`Cow`], so a `RequestContext<'static>` owns its data (a
/// node can keep one per session or per request profile) and [`RequestContext::reborrow`]
/// gives a borrowed copy without allocating. Everything else is `Copy` (the ARP levels are a
/// set of 15 bits, the QCI and 5QI values sets of 256).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct RequestContext<'a> {
    /// The procedure; `None` is treated like a new session (Session Establishment).
    pub procedure: Option<Procedure>,
    /// An emergency PDU session / PDN connection.
    pub emergency: bool,
    /// An eMPS (MPS) session.
    pub emps: bool,
    /// ARP priority levels of every bearer / QoS flow the message concerns; the highest
    /// counts (6.2.4.5.2).
    pub arp: ArpLevels,
    /// QCI of every EPS bearer the message concerns (TS 23.203 6.1.7; TS 29.244 6.2.4.5.1
    /// "QCI"); the most important counts. Empty: not known.
    pub qci: QosIds,
    /// 5QI of every QoS flow the message concerns (TS 23.501 5.7.2.1, the 5GC counterpart of
    /// the QCI); the most important counts. Empty: not known.
    pub five_qi: QosIds,
    /// Low Access Priority Indication of the UE.
    pub low_access_priority: bool,
    /// DNN / APN.
    pub dnn: Option<Cow<'a, str>>,
    /// S-NSSAI.
    pub snssai: Option<Snssai>,
    /// The state-aware facts of C.2 (see [`RequestState`]).
    pub state: RequestState,
}

impl<'a> RequestContext<'a> {
    /// A context for `procedure` with nothing else known.
    pub fn new(procedure: Procedure) -> Self {
        RequestContext {
            procedure: Some(procedure),
            ..RequestContext::default()
        }
    }

    /// A copy that borrows this one's DNN (no allocation).
    pub fn reborrow(&self) -> RequestContext<'_> {
        RequestContext {
            procedure: self.procedure,
            emergency: self.emergency,
            emps: self.emps,
            arp: self.arp,
            qci: self.qci,
            five_qi: self.five_qi,
            low_access_priority: self.low_access_priority,
            dnn: self.dnn.as_deref().map(Cow::Borrowed),
            snssai: self.snssai,
            state: self.state,
        }
    }

    /// An owned copy (the DNN copied if it was borrowed).
    pub fn into_owned(self) -> RequestContext<'static> {
        RequestContext {
            procedure: self.procedure,
            emergency: self.emergency,
            emps: self.emps,
            arp: self.arp,
            qci: self.qci,
            five_qi: self.five_qi,
            low_access_priority: self.low_access_priority,
            dnn: self.dnn.map(|d| Cow::Owned(d.into_owned())),
            snssai: self.snssai,
            state: self.state,
        }
    }

    /// With `procedure` set.
    #[must_use]
    pub fn with_procedure(mut self, procedure: Procedure) -> Self {
        self.procedure = Some(procedure);
        self
    }
    /// With `emergency` set.
    #[must_use]
    pub fn with_emergency(mut self, emergency: bool) -> Self {
        self.emergency = emergency;
        self
    }
    /// With `emps` set.
    #[must_use]
    pub fn with_emps(mut self, emps: bool) -> Self {
        self.emps = emps;
        self
    }
    /// With the ARP levels of `levels` (invalid ones skipped, see [`ArpLevels`]).
    #[must_use]
    pub fn with_arp(mut self, levels: impl Into<ArpLevels>) -> Self {
        self.arp = levels.into();
        self
    }
    /// With the QCI values of `values` (see [`QosIds`]).
    #[must_use]
    pub fn with_qci(mut self, values: impl Into<QosIds>) -> Self {
        self.qci = values.into();
        self
    }
    /// With the 5QI values of `values` (see [`QosIds`]).
    #[must_use]
    pub fn with_five_qi(mut self, values: impl Into<QosIds>) -> Self {
        self.five_qi = values.into();
        self
    }
    /// With `low_access_priority` set.
    #[must_use]
    pub fn with_low_access_priority(mut self, lapi: bool) -> Self {
        self.low_access_priority = lapi;
        self
    }
    /// With the DNN.
    #[must_use]
    pub fn with_dnn(mut self, dnn: impl Into<Cow<'a, str>>) -> Self {
        self.dnn = Some(dnn.into());
        self
    }
    /// With the S-NSSAI.
    #[must_use]
    pub fn with_snssai(mut self, snssai: Snssai) -> Self {
        self.snssai = Some(snssai);
        self
    }
    /// With the C.2 state.
    #[must_use]
    pub fn with_state(mut self, state: RequestState) -> Self {
        self.state = state;
        self
    }
}
