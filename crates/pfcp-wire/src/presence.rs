//! Mandatory IEs per message type (TS 29.244 clause 7.4 and 7.5 message tables, Release 18).
//!
//! Only IEs with presence "M" for every interface are listed; conditional IEs depend on the
//! procedure and are the application's business. (Session Establishment Request's MBS Session
//! N4mb Control Information is mandatory on N4mb only, so it is not listed.)

use crate::ie::IeType;
use crate::message_type::MessageType;

/// The mandatory IEs of `message_type` (empty for types without any, or unknown types).
#[inline]
pub fn mandatory_ies(message_type: MessageType) -> &'static [IeType] {
    const RTS: IeType = IeType::RECOVERY_TIME_STAMP;
    const NODE: IeType = IeType::NODE_ID;
    const CAUSE: IeType = IeType::CAUSE;
    match message_type.0 {
        // Heartbeat Request/Response (Tables 7.4.2.1-1, 7.4.2.2-1).
        1 | 2 => &[RTS],
        // PFD Management Response (Table 7.4.3.2-1).
        4 => &[CAUSE],
        // Association Setup Request/Response (7.4.4.1-1, 7.4.4.2-1).
        5 => &[NODE, RTS],
        6 => &[NODE, CAUSE, RTS],
        // Association Update/Release Request (7.4.4.3-1, 7.4.4.5-1), Session Set Deletion and
        // Modification Request (7.4.6.1-1, 7.4.7.1-1).
        7 | 9 | 14 | 16 => &[NODE],
        // Their responses, and Node Report Response (7.4.4.4-1, 7.4.4.6-1, 7.4.5.2-1, ...).
        8 | 10 | 13 | 15 | 17 => &[NODE, CAUSE],
        // Node Report Request (7.4.5.1-1).
        12 => &[NODE, IeType::NODE_REPORT_TYPE],
        // Session Establishment Request (7.5.2.1-1).
        50 => &[NODE, IeType::F_SEID, IeType::CREATE_PDR, IeType::CREATE_FAR],
        // Session Establishment Response (7.5.3.1-1).
        51 => &[NODE, CAUSE],
        // Session Modification/Deletion/Report Response (7.5.5.1-1, 7.5.7.1-1, 7.5.9.1-1).
        53 | 55 | 57 => &[CAUSE],
        // Session Report Request (7.5.8.1-1).
        56 => &[IeType::REPORT_TYPE],
        _ => &[],
    }
}
