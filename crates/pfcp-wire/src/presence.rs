//! Mandatory IEs per message type (TS 29.244 clause 7.4 and 7.5 message tables, Release 17).
//!
//! The lists come from the message tables of `data/messages.tsv`, the source of the typed
//! messages too ([`crate::msg`]), so `validate` and the typed decoders agree on them. Only IEs
//! with presence "M" for every interface are listed; conditional IEs depend on the procedure
//! and are the application's business. (Session Establishment Request's MBS Session N4mb
//! Control Information is mandatory on N4mb only, so it is not listed.)

use crate::ie::IeType;
use crate::message_type::MessageType;

/// The mandatory IEs of `message_type`, in its table's order (empty for types without any,
/// or unknown types).
///
/// # Examples
///
/// ```
/// use pfcp_wire::ie::IeType;
/// use pfcp_wire::presence::mandatory_ies;
/// use pfcp_wire::MessageType;
///
/// // Table 7.4.4.1-1: Node ID and Recovery Time Stamp are mandatory.
/// assert_eq!(mandatory_ies(MessageType::ASSOCIATION_SETUP_REQUEST),
///            &[IeType::NODE_ID, IeType::RECOVERY_TIME_STAMP]);
/// // Table 7.4.2.1-1: Heartbeat Request.
/// assert_eq!(mandatory_ies(MessageType::HEARTBEAT_REQUEST), &[IeType::RECOVERY_TIME_STAMP]);
/// ```
#[inline]
pub fn mandatory_ies(message_type: MessageType) -> &'static [IeType] {
    crate::msg::mandatory_ies(message_type)
}
