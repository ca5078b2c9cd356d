//! Message types (TS 29.244 clause 7.3, Table 7.3-1, Release 18).

use core::fmt;

/// A PFCP message type code (octet 2 of the header).
///
/// Unknown codes are kept as they are: the framing layer accepts them and
/// [`crate::Message::validate`] reports them (clause 7.6.1: an unknown message type is
/// silently discarded by a node).
///
/// # Examples
///
/// ```
/// use pfcp_wire::MessageType;
///
/// let request = MessageType::SESSION_ESTABLISHMENT_REQUEST;
/// assert_eq!(request, MessageType(50)); // Table 7.3-1
/// assert!(request.is_request());
/// assert_eq!(request.is_session(), Some(true));
/// assert_eq!(request.response_type(), Some(MessageType::SESSION_ESTABLISHMENT_RESPONSE));
/// // Only the responses of Table 7.3-1 and the Session Report Request carry OCI/LCI.
/// assert!(MessageType::SESSION_ESTABLISHMENT_RESPONSE.may_carry_oci());
/// assert!(!MessageType::HEARTBEAT_RESPONSE.may_carry_oci());
/// assert!(!MessageType(18).is_known());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct MessageType(pub u8);

/// Whether a message type is a request, a response, or neither (type 11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Expects a response.
    Request,
    /// Answers a request.
    Response,
    /// Version Not Supported Response: a response without a request.
    Unsolicited,
}

macro_rules! message_types {
    ($( $code:literal $konst:ident $name:literal $dir:ident $session:literal; )*) => {
        impl MessageType {
            $(
                #[doc = concat!($name, " (", stringify!($code), ").")]
                pub const $konst: MessageType = MessageType($code);
            )*

            /// The spec name, or `None` for a type Release 18 does not define.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $code => Some($name), )*
                    _ => None,
                }
            }

            /// Request, response, or unsolicited; `None` for unknown types. Taken from a
            /// table because request/response parity differs between ranges (clause 7.3).
            pub const fn direction(self) -> Option<Direction> {
                match self.0 {
                    $( $code => Some(Direction::$dir), )*
                    _ => None,
                }
            }

            /// Whether the type is a session-related message (S=1 header, clause 7.2.2.1);
            /// `None` for unknown types.
            pub const fn is_session(self) -> Option<bool> {
                match self.0 {
                    $( $code => Some($session), )*
                    _ => None,
                }
            }

            /// Every message type Release 18 defines.
            pub const ALL: &'static [MessageType] = &[ $( MessageType($code), )* ];
        }
    };
}

message_types! {
    1 HEARTBEAT_REQUEST "Heartbeat Request" Request false;
    2 HEARTBEAT_RESPONSE "Heartbeat Response" Response false;
    3 PFD_MANAGEMENT_REQUEST "PFD Management Request" Request false;
    4 PFD_MANAGEMENT_RESPONSE "PFD Management Response" Response false;
    5 ASSOCIATION_SETUP_REQUEST "Association Setup Request" Request false;
    6 ASSOCIATION_SETUP_RESPONSE "Association Setup Response" Response false;
    7 ASSOCIATION_UPDATE_REQUEST "Association Update Request" Request false;
    8 ASSOCIATION_UPDATE_RESPONSE "Association Update Response" Response false;
    9 ASSOCIATION_RELEASE_REQUEST "Association Release Request" Request false;
    10 ASSOCIATION_RELEASE_RESPONSE "Association Release Response" Response false;
    11 VERSION_NOT_SUPPORTED_RESPONSE "Version Not Supported Response" Unsolicited false;
    12 NODE_REPORT_REQUEST "Node Report Request" Request false;
    13 NODE_REPORT_RESPONSE "Node Report Response" Response false;
    14 SESSION_SET_DELETION_REQUEST "Session Set Deletion Request" Request false;
    15 SESSION_SET_DELETION_RESPONSE "Session Set Deletion Response" Response false;
    16 SESSION_SET_MODIFICATION_REQUEST "Session Set Modification Request" Request false;
    17 SESSION_SET_MODIFICATION_RESPONSE "Session Set Modification Response" Response false;
    50 SESSION_ESTABLISHMENT_REQUEST "Session Establishment Request" Request true;
    51 SESSION_ESTABLISHMENT_RESPONSE "Session Establishment Response" Response true;
    52 SESSION_MODIFICATION_REQUEST "Session Modification Request" Request true;
    53 SESSION_MODIFICATION_RESPONSE "Session Modification Response" Response true;
    54 SESSION_DELETION_REQUEST "Session Deletion Request" Request true;
    55 SESSION_DELETION_RESPONSE "Session Deletion Response" Response true;
    56 SESSION_REPORT_REQUEST "Session Report Request" Request true;
    57 SESSION_REPORT_RESPONSE "Session Report Response" Response true;
}

impl MessageType {
    /// Whether the type is defined by Release 18.
    pub const fn is_known(self) -> bool {
        self.name().is_some()
    }

    /// Whether this is a request (only requests are ever throttled, clause 6.2.4.4).
    pub const fn is_request(self) -> bool {
        matches!(self.direction(), Some(Direction::Request))
    }

    /// Whether this message may carry Overload/Load Control Information: Session
    /// Establishment/Modification/Deletion Response and Session Report Request
    /// (Tables 7.5.3.1-1, 7.5.5.1-1, 7.5.7.1-1, 7.5.8.1-1).
    pub const fn may_carry_oci(self) -> bool {
        matches!(self.0, 51 | 53 | 55 | 56)
    }

    /// For a request type, the type of its response.
    pub const fn response_type(self) -> Option<MessageType> {
        match self.direction() {
            Some(Direction::Request) => Some(MessageType(self.0 + 1)),
            _ => None,
        }
    }
}

impl fmt::Debug for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{} ({})", n, self.0),
            None => write!(f, "MessageType({})", self.0),
        }
    }
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_follows_request_in_every_range() {
        for t in MessageType::ALL {
            if let Some(r) = t.response_type() {
                assert_eq!(r.direction(), Some(Direction::Response), "{t}");
                assert_eq!(r.is_session(), t.is_session());
            }
        }
        // Clause 7.3: parity flips between ranges, so check the table, not arithmetic.
        assert!(MessageType(1).is_request());
        assert!(MessageType(12).is_request());
        assert!(MessageType(50).is_request());
        assert!(!MessageType(11).is_request());
        assert_eq!(MessageType::ALL.len(), 25);
        assert!(!MessageType(18).is_known() && !MessageType(58).is_known());
    }
}
