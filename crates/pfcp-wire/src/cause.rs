//! Cause values (TS 29.244 clause 8.2.1, Table 8.2.1-1, up to Release 19).

use core::fmt;

/// A Cause value. Unknown values are kept; [`Cause::is_acceptance`] applies the spec's rule
/// for them (1-63 accepted, 64-255 rejected).
///
/// # Examples
///
/// ```
/// use pfcp_wire::Cause;
///
/// assert_eq!(Cause::REQUEST_ACCEPTED, Cause(1));
/// assert_eq!(Cause::PFCP_ENTITY_IN_CONGESTION.is_acceptance(), Some(false)); // 74
/// // Clause 8.2.1: an unknown value is read as 1 (acceptance) or 64 (rejection).
/// assert_eq!(Cause(60).effective(), Cause::REQUEST_ACCEPTED);
/// assert_eq!(Cause(200).effective(), Cause::REQUEST_REJECTED);
/// assert_eq!(Cause(0).is_acceptance(), None); // reserved
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct Cause(pub u8);

macro_rules! causes {
    ($( $code:literal $konst:ident $name:literal; )*) => {
        impl Cause {
            $(
                #[doc = concat!($name, " (", stringify!($code), ").")]
                pub const $konst: Cause = Cause($code);
            )*

            /// The spec name, `None` for values the table does not define.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $code => Some($name), )*
                    _ => None,
                }
            }
        }
    };
}

causes! {
    1 REQUEST_ACCEPTED "Request accepted (success)";
    2 MORE_USAGE_REPORT_TO_SEND "More Usage Report to send";
    3 REQUEST_PARTIALLY_ACCEPTED "Request partially accepted";
    64 REQUEST_REJECTED "Request rejected (reason not specified)";
    65 SESSION_CONTEXT_NOT_FOUND "Session context not found";
    66 MANDATORY_IE_MISSING "Mandatory IE missing";
    67 CONDITIONAL_IE_MISSING "Conditional IE missing";
    68 INVALID_LENGTH "Invalid length";
    69 MANDATORY_IE_INCORRECT "Mandatory IE incorrect";
    70 INVALID_FORWARDING_POLICY "Invalid Forwarding Policy";
    71 INVALID_F_TEID_ALLOCATION_OPTION "Invalid F-TEID allocation option";
    72 NO_ESTABLISHED_PFCP_ASSOCIATION "No established PFCP Association";
    73 RULE_CREATION_MODIFICATION_FAILURE "Rule creation/modification Failure";
    74 PFCP_ENTITY_IN_CONGESTION "PFCP entity in congestion";
    75 NO_RESOURCES_AVAILABLE "No resources available";
    76 SERVICE_NOT_SUPPORTED "Service not supported";
    77 SYSTEM_FAILURE "System failure";
    78 REDIRECTION_REQUESTED "Redirection Requested";
    79 ALL_DYNAMIC_ADDRESSES_ARE_OCCUPIED "All dynamic addresses are occupied";
    80 UNKNOWN_PRE_DEFINED_RULE "Unknown Pre-defined Rule";
    81 UNKNOWN_APPLICATION_ID "Unknown Application ID";
    82 L2TP_TUNNEL_ESTABLISHMENT_FAILURE "L2TP tunnel Establishment failure";
    83 L2TP_SESSION_ESTABLISHMENT_FAILURE "L2TP session Establishment failure";
    84 L2TP_TUNNEL_RELEASE "L2TP tunnel release";
    85 L2TP_SESSION_RELEASE "L2TP session release";
    86 SESSION_RESTORATION_FAILURE "PFCP session restoration failure due to requested resource not available";
    87 L2TP_TUNNEL_AUTH_FAILURE "L2TP tunnel Establishment failure - Tunnel Auth Failure";
    88 L2TP_SESSION_AUTH_FAILURE "L2TP Session Establishment failure - Session Auth Failure";
    89 L2TP_LNS_NOT_REACHABLE "L2TP tunnel Establishment failure - LNS not reachable";
    90 PFD_CONTENTS_SYNTAX_ERROR "PFD Contents Syntax Error";
    91 PFD_CONTENTS_SEMANTICS_ERROR "PFD Contents Semantics Error";
    92 PFD_APPLICATION_ID_UNKNOWN "PFD Application Id Unknown";
}

impl Cause {
    /// Acceptance (1-63) versus rejection (64-255). Value 0 is reserved and is neither: the IE
    /// is invalid (`None`).
    pub const fn is_acceptance(self) -> Option<bool> {
        match self.0 {
            0 => None,
            1..=63 => Some(true),
            _ => Some(false),
        }
    }

    /// How a receiver must treat the value (clause 8.2.1): an unknown acceptance value as 1,
    /// an unknown rejection value as 64.
    pub const fn effective(self) -> Cause {
        if self.name().is_some() || self.0 == 0 {
            self
        } else if self.0 < 64 {
            Cause::REQUEST_ACCEPTED
        } else {
            Cause::REQUEST_REJECTED
        }
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{} ({})", n, self.0),
            None => write!(f, "Cause({})", self.0),
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_values_follow_clause_8_2_1() {
        assert_eq!(Cause(40).effective(), Cause::REQUEST_ACCEPTED);
        assert_eq!(Cause(200).effective(), Cause::REQUEST_REJECTED);
        assert_eq!(Cause(74).effective(), Cause::PFCP_ENTITY_IN_CONGESTION);
        assert_eq!(Cause(0).is_acceptance(), None);
        assert_eq!(Cause::PFCP_ENTITY_IN_CONGESTION.0, 74);
    }
}
