//! The requests of a session's life: its [`Step`]s and the header and IEs of each.
//!
//! A Session Establishment Request (TS 29.244 clause 7.5.2) carries the CP function's Node ID,
//! its CP F-SEID and the smallest rule set the UP must accept (one PDR, one FAR); a Session
//! Modification Request (7.5.4) updates that FAR; a Session Deletion Request (7.5.6) has no
//! IE. The last two are addressed by the UP's SEID in the header.

use std::net::IpAddr;

use bytes::Bytes;
use pfcp_wire::ie::FSeid;
use pfcp_wire::{Encode, EncodeError, Header, MessageType};

use super::sessions::Slot;

/// A step of a session's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Establish,
    Modify,
    Delete,
}

/// Every step, in the order of a session's life (and of the summary's rows).
pub(super) const STEPS: [Step; 3] = [Step::Establish, Step::Modify, Step::Delete];

impl Step {
    /// Its position in [`STEPS`] (the per-step tallies are arrays in that order).
    pub(super) fn index(self) -> usize {
        match self {
            Step::Establish => 0,
            Step::Modify => 1,
            Step::Delete => 2,
        }
    }

    /// Its name in the summary.
    pub(super) fn name(self) -> &'static str {
        match self {
            Step::Establish => "establishment",
            Step::Modify => "modification",
            Step::Delete => "deletion",
        }
    }
}

/// Create PDR (PDR ID 1, precedence 255, PDI: source interface access, FAR ID 1) and Create
/// FAR (FAR ID 1, apply action FORW): the mandatory rules of a Session Establishment Request.
const CREATE_PDR_AND_FAR: &[u8] = &[
    0x00, 0x01, 0x00, 0x1f, // Create PDR
    0x00, 0x38, 0x00, 0x02, 0x00, 0x01, // PDR ID 1
    0x00, 0x1d, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, // Precedence 255
    0x00, 0x02, 0x00, 0x05, 0x00, 0x14, 0x00, 0x01, 0x00, // PDI: Source Interface access
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x03, 0x00, 0x0d, // Create FAR
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x2c, 0x00, 0x01, 0x02, // Apply Action FORW
];

/// Update FAR (FAR ID 1, apply action FORW): the body of the Session Modification Requests.
const UPDATE_FAR: &[u8] = &[
    0x00, 0x0a, 0x00, 0x0d, // Update FAR
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x2c, 0x00, 0x01, 0x02, // Apply Action FORW
];

/// The header and IEs of a session's request.
pub(super) fn build_request(
    step: Step,
    slot: &Slot,
    node_ie: &[u8],
    fseid_ip: IpAddr,
) -> Result<(Header, Bytes), EncodeError> {
    Ok(match step {
        Step::Establish => {
            let mut ies = Vec::with_capacity(node_ie.len() + 17 + CREATE_PDR_AND_FAR.len());
            ies.extend_from_slice(node_ie);
            FSeid {
                seid: slot.cp_seid,
                ipv4: match fseid_ip {
                    IpAddr::V4(a) => Some(a),
                    IpAddr::V6(_) => None,
                },
                ipv6: match fseid_ip {
                    IpAddr::V6(a) => Some(a),
                    IpAddr::V4(_) => None,
                },
            }
            .encode(&mut ies)?;
            ies.extend_from_slice(CREATE_PDR_AND_FAR);
            let h = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
            (h, Bytes::from(ies))
        }
        Step::Modify => (
            Header::new(MessageType::SESSION_MODIFICATION_REQUEST).with_seid(slot.up_seid),
            Bytes::from_static(UPDATE_FAR),
        ),
        Step::Delete => (
            Header::new(MessageType::SESSION_DELETION_REQUEST).with_seid(slot.up_seid),
            Bytes::new(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use pfcp_overload::NodeKey;
    use pfcp_wire::Message;

    use super::*;
    use crate::up::node_id_ie;

    #[test]
    fn requests_are_valid_pfcp() {
        let node_ie = node_id_ie(&NodeKey::fqdn("smf1.example.net")).unwrap();
        let slot = Slot {
            cp_seid: 0x1234,
            up_seid: 0x99,
            ..Slot::default()
        };
        for step in STEPS {
            let (h, ies) =
                build_request(step, &slot, &node_ie, Ipv4Addr::LOCALHOST.into()).unwrap();
            let mut out = Vec::new();
            let h = h.with_sequence(pfcp_wire::SequenceNumber::new(5).unwrap());
            let mut w = pfcp_wire::encode::MessageWriter::begin(&mut out, &h).unwrap();
            w.raw_ies(&ies).unwrap();
            w.finish().unwrap();
            let msg = Message::decode(&out).unwrap();
            msg.validate().unwrap();
            msg.check_typed_ies().unwrap();
            if step == Step::Establish {
                assert_eq!(msg.f_seid().unwrap().unwrap().seid, 0x1234);
                assert_eq!(
                    msg.node_id().unwrap().unwrap().to_string(),
                    "smf1.example.net"
                );
            } else {
                assert_eq!(msg.header().seid, Some(0x99));
            }
        }
    }
}
