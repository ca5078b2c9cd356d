//! The second built-in rule table: SWx (TS 29.273 Annex C.2), see [`SwxClassifier`].

use super::context::{Registration, RequestState};
use super::rules::{Adjustments, Classification, Resolved, Rule};

/// The Server-Assignment-Type AVP (code 614) of a SAR: TS 29.229 6.3.15, the values SWx uses
/// listed in TS 29.273 8.2.3.4. Any `u32` is kept; the names cover 0..=14.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ServerAssignmentType(pub u32);

impl ServerAssignmentType {
    /// NO_ASSIGNMENT (0).
    pub const NO_ASSIGNMENT: Self = Self(0);
    /// REGISTRATION (1).
    pub const REGISTRATION: Self = Self(1);
    /// RE_REGISTRATION (2).
    pub const RE_REGISTRATION: Self = Self(2);
    /// UNREGISTERED_USER (3).
    pub const UNREGISTERED_USER: Self = Self(3);
    /// TIMEOUT_DEREGISTRATION (4).
    pub const TIMEOUT_DEREGISTRATION: Self = Self(4);
    /// USER_DEREGISTRATION (5).
    pub const USER_DEREGISTRATION: Self = Self(5);
    /// TIMEOUT_DEREGISTRATION_STORE_SERVER_NAME (6).
    pub const TIMEOUT_DEREGISTRATION_STORE_SERVER_NAME: Self = Self(6);
    /// USER_DEREGISTRATION_STORE_SERVER_NAME (7).
    pub const USER_DEREGISTRATION_STORE_SERVER_NAME: Self = Self(7);
    /// ADMINISTRATIVE_DEREGISTRATION (8).
    pub const ADMINISTRATIVE_DEREGISTRATION: Self = Self(8);
    /// AUTHENTICATION_FAILURE (9).
    pub const AUTHENTICATION_FAILURE: Self = Self(9);
    /// AUTHENTICATION_TIMEOUT (10).
    pub const AUTHENTICATION_TIMEOUT: Self = Self(10);
    /// DEREGISTRATION_TOO_MUCH_DATA (11).
    pub const DEREGISTRATION_TOO_MUCH_DATA: Self = Self(11);
    /// AAA_USER_DATA_REQUEST (12).
    pub const AAA_USER_DATA_REQUEST: Self = Self(12);
    /// PGW_UPDATE (13).
    pub const PGW_UPDATE: Self = Self(13);
    /// RESTORATION (14).
    pub const RESTORATION: Self = Self(14);

    /// The value's name, `None` above 14.
    pub const fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "NO_ASSIGNMENT",
            1 => "REGISTRATION",
            2 => "RE_REGISTRATION",
            3 => "UNREGISTERED_USER",
            4 => "TIMEOUT_DEREGISTRATION",
            5 => "USER_DEREGISTRATION",
            6 => "TIMEOUT_DEREGISTRATION_STORE_SERVER_NAME",
            7 => "USER_DEREGISTRATION_STORE_SERVER_NAME",
            8 => "ADMINISTRATIVE_DEREGISTRATION",
            9 => "AUTHENTICATION_FAILURE",
            10 => "AUTHENTICATION_TIMEOUT",
            11 => "DEREGISTRATION_TOO_MUCH_DATA",
            12 => "AAA_USER_DATA_REQUEST",
            13 => "PGW_UPDATE",
            14 => "RESTORATION",
            _ => return None,
        })
    }

    /// Whether the SAR deregisters the user (releases resources in the HSS, C.2): the
    /// TIMEOUT_, USER_ and ADMINISTRATIVE_DEREGISTRATION values (with or without
    /// STORE_SERVER_NAME) and DEREGISTRATION_TOO_MUCH_DATA.
    pub const fn is_deregistration(self) -> bool {
        matches!(self.0, 4..=8 | 11)
    }
}

/// The SWx command of a request towards the HSS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum SwxCommand {
    /// Multimedia-Authentication-Request (command code 303).
    Mar,
    /// Server-Assignment-Request (command code 301) with its Server-Assignment-Type.
    Sar(ServerAssignmentType),
}

impl SwxCommand {
    /// The Diameter command code.
    pub const fn code(self) -> u32 {
        match self {
            SwxCommand::Mar => 303,
            SwxCommand::Sar(_) => 301,
        }
    }
}

/// What the AAA server knows about a SWx request it is about to send: the input of
/// [`SwxClassifier::classify`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SwxRequest {
    /// MAR or SAR.
    pub command: SwxCommand,
    /// For a PDN connection for emergency services.
    pub emergency: bool,
    /// The request received from the access carried the AAA-Failure-Indication AVP: a
    /// restoration after the failure of the old AAA server (C.2). Read as
    /// `state.restoration` when that is `None`, on a MAR only ("such MAR messages").
    pub aaa_failure_indication: bool,
    /// The C.2 state (registration, follow-up of an admitted MAR, additional session, ...).
    pub state: RequestState,
}

impl SwxRequest {
    /// A MAR with nothing else known.
    pub const fn mar() -> Self {
        SwxRequest {
            command: SwxCommand::Mar,
            emergency: false,
            aaa_failure_indication: false,
            state: RequestState::UNKNOWN,
        }
    }

    /// A SAR of the given type with nothing else known.
    pub const fn sar(assignment: ServerAssignmentType) -> Self {
        SwxRequest {
            command: SwxCommand::Sar(assignment),
            ..SwxRequest::mar()
        }
    }

    /// With `emergency` set.
    #[must_use]
    pub const fn with_emergency(mut self, emergency: bool) -> Self {
        self.emergency = emergency;
        self
    }

    /// With `aaa_failure_indication` set.
    #[must_use]
    pub const fn with_aaa_failure_indication(mut self, present: bool) -> Self {
        self.aaa_failure_indication = present;
        self
    }

    /// With the C.2 state.
    #[must_use]
    pub const fn with_state(mut self, state: RequestState) -> Self {
        self.state = state;
        self
    }
}

/// The SWx rule table (see [`SwxClassifier`] for the defaults and their sources).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[non_exhaustive]
pub struct SwxRules {
    /// Base priority of a MAR. Default 8.
    pub mar: u8,
    /// Base priority of a SAR. Default 8.
    pub sar: u8,
    /// Priority of emergency requests. Default 0.
    pub emergency_priority: u8,
    /// Whether emergency requests are exempt (throttled last). Default true.
    pub emergency_exempt: bool,
    /// The state-aware steps. Default: the PFCP table's ([`Adjustments::default`]).
    pub adjustments: Adjustments,
}

impl Default for SwxRules {
    fn default() -> Self {
        SwxRules {
            mar: 8,
            sar: 8,
            emergency_priority: 0,
            emergency_exempt: true,
            adjustments: Adjustments::default(),
        }
    }
}

impl SwxRules {
    /// With the base priorities of MAR and SAR.
    #[must_use]
    pub fn with_bases(mut self, mar: u8, sar: u8) -> Self {
        self.mar = mar;
        self.sar = sar;
        self
    }
    /// With `emergency_priority` and `emergency_exempt` set.
    #[must_use]
    pub fn with_emergency(mut self, priority: u8, exempt: bool) -> Self {
        self.emergency_priority = priority;
        self.emergency_exempt = exempt;
        self
    }
    /// With `adjustments` set.
    #[must_use]
    pub fn with_adjustments(mut self, adjustments: Adjustments) -> Self {
        self.adjustments = adjustments;
        self
    }
}

/// The second built-in rule table: the SWx requests of a 3GPP AAA server towards an
/// overloaded HSS (MAR and SAR), as TS 29.273 Annex C.2 analyses them. No PFCP: the result
/// is a [`Classification`] whose class feeds the same Loss and egress throttles.
///
/// Each adjustment fires only on the command its sentence names: the registration state
/// lowers the MAR ("a lower priority to the MAR command"), a registered user's MAR and SAR
/// rank higher, only SARs follow an admitted MAR, only the SAR PGW_UPDATE of an additional
/// S6b session is lowered ("this SAR"), only MARs of a restoration are lowered ("such MAR
/// messages"), and only SARs deregister.
///
/// | C.2 sentence | request | fires | default priority |
/// |---|---|---|---|
/// | "Diameter requests related to PDN connections for emergency services have the highest priority ... the last to be throttled" | any, `emergency` | [`Rule::Emergency`] (fixed) | 0, exempt (configurable: "depending on regional/national requirements") |
/// | "if the user is not already registered ... a lower priority to the MAR" (attach, handover from 3GPP access) | MAR, not registered | `NotRegistered` | 8 |
/// | "registered in the HSS but with another 3GPP AAA server, apart a restoration case ... a new session" | MAR, registered elsewhere | `RegisteredElsewhere` | 8 |
/// | "after a not throttled and successful MAR, the subsequent requests (SARs) have a higher priority" | SAR after an admitted MAR | `FollowsAdmitted` (and `Registered` for a registered user) | 5 (3) |
/// | "if the user is registered ... a higher priority to the MAR or SAR commands ... to maintain the service" | MAR or SAR, registered | `Registered` | 6 |
/// | "if a SAR indicates a PGW_UPDATE and is related to an additional Diameter session over S6b ... a lower priority may be given to this SAR" | SAR PGW_UPDATE, registered, additional | `Registered` + `AdditionalSession` | 8 (5 after an admitted MAR) |
/// | "in a restoration procedure ... the AAA-Failure-Indication AVP ... a lower priority ... to such MAR messages" | MAR with AAA-Failure-Indication (registered elsewhere: at the failed server) | `RegisteredElsewhere` + `Restoration` | 12 |
/// | "the deregistration of the user ... has a higher priority as releasing resources in the HSS" | SAR with a deregistration type | `Release` | 4 |
///
/// A SAR of a user not registered here that follows no admitted MAR takes the base, 8.
///
/// The base priority of both commands is 8 and the steps are the PFCP table's
/// ([`Adjustments::default`]). `AdditionalSession` +2 takes back what `Registered` gives:
/// the additional PDN connection ranks as the new work it is, level with an attach, below the
/// service the user has. The defaults keep one ordering the annex gives a reason for: a SAR
/// that follows an admitted MAR ranks above that MAR whatever else is known ("otherwise ...
/// the initial MAR command processed by the (overloaded) HSS has been useless"); a larger
/// `AdditionalSession` step would rank the SAR PGW_UPDATE after a registered user's admitted
/// MAR below the MAR. Each row is a test named by its sentence (`tests/c2_rules.rs`).
///
/// The table is data: [`SwxRules`].
///
/// # Examples
///
/// ```
/// use pfcp_throttle::classify::ServerAssignmentType;
/// use pfcp_throttle::{SwxClassifier, SwxRequest};
///
/// let swx = SwxClassifier::default();
/// let priority = |request: &SwxRequest| swx.classify(request).class.priority.value();
/// // Rows of the table above: a MAR of a user not registered, base 8 ...
/// assert_eq!(priority(&SwxRequest::mar()), 8);
/// // ... a restoration MAR (AAA-Failure-Indication) lower, 12 ...
/// assert_eq!(priority(&SwxRequest::mar().with_aaa_failure_indication(true)), 12);
/// // ... a deregistration SAR, releasing resources in the HSS, higher, 4.
/// assert_eq!(priority(&SwxRequest::sar(ServerAssignmentType::USER_DEREGISTRATION)), 4);
/// // Emergency: 0, exempt.
/// assert!(swx.classify(&SwxRequest::mar().with_emergency(true)).class.exempt);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct SwxClassifier {
    rules: SwxRules,
}

impl SwxClassifier {
    /// A classifier with `rules`.
    pub const fn new(rules: SwxRules) -> Self {
        SwxClassifier { rules }
    }

    /// The table.
    pub const fn rules(&self) -> &SwxRules {
        &self.rules
    }

    /// Classify a request: emergency (fixed), otherwise the command's base priority and
    /// every C.2 adjustment that fires.
    pub fn classify(&self, request: &SwxRequest) -> Classification {
        let r = &self.rules;
        if request.emergency {
            return Classification::fixed(
                r.emergency_priority,
                r.emergency_exempt,
                Rule::Emergency,
            );
        }
        let (base, sar) = match request.command {
            SwxCommand::Mar => (r.mar, None),
            SwxCommand::Sar(t) => (r.sar, Some(t)),
        };
        let mar = sar.is_none();
        let s = request.state;
        let deregistration = sar.is_some_and(ServerAssignmentType::is_deregistration);
        let registration = s.registration.unwrap_or(Registration::NotRegistered);
        // Each fact only on the command its sentence names (see the table above).
        let resolved = Resolved {
            release: !mar && s.releases_resources.unwrap_or(deregistration),
            registration: (mar || registration == Registration::Registered).then_some(registration),
            follows_admitted: !mar && s.follows_admitted.unwrap_or(false),
            additional_session: sar == Some(ServerAssignmentType::PGW_UPDATE)
                && s.additional_session.unwrap_or(false),
            restoration: mar && s.restoration.unwrap_or(request.aaa_failure_indication),
        };
        Classification::adjusted(base, Rule::Command, resolved, &r.adjustments)
    }
}
