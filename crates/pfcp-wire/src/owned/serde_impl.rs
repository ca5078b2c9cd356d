//! The JSON form of [`OwnedMessage`]: the header fields and the IEs as trees
//! ([`OwnedIe`]), the shape the tree form had (the `pfcp` CLI reads and writes it). Through
//! mirror structs, so the buffer itself never reaches serde; deserializing builds the buffer
//! with [`OwnedMessage::push`], so a JSON message that breaks the invariant (a vendor type
//! without an Enterprise ID, a grouped type whose value does not frame as IEs, an IE over
//! 65 535 octets) is refused here rather than when encoded.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{OwnedIe, OwnedMessage};
use crate::header::{MessagePriority, SequenceNumber};
use crate::message_type::MessageType;

/// What is written: every field, `null` for absent options.
#[derive(Serialize)]
#[serde(rename = "OwnedMessage")]
struct Out {
    message_type: MessageType,
    seid: Option<u64>,
    sequence: SequenceNumber,
    priority: Option<MessagePriority>,
    follow_on: bool,
    ies: Vec<OwnedIe>,
}

/// What is read: the options and FO may be left out; other keys are ignored.
#[derive(Deserialize)]
#[serde(rename = "OwnedMessage")]
struct In {
    message_type: MessageType,
    #[serde(default)]
    seid: Option<u64>,
    sequence: SequenceNumber,
    #[serde(default)]
    priority: Option<MessagePriority>,
    #[serde(default)]
    follow_on: bool,
    ies: Vec<OwnedIe>,
}

impl Serialize for OwnedMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Out {
            message_type: self.message_type,
            seid: self.seid,
            sequence: self.sequence,
            priority: self.priority,
            follow_on: self.follow_on,
            ies: self.to_ies(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for OwnedMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<OwnedMessage, D::Error> {
        let m = In::deserialize(d)?;
        let mut out = OwnedMessage::new(m.message_type, m.sequence);
        out.seid = m.seid;
        out.priority = m.priority;
        out.follow_on = m.follow_on;
        out.with_ies(&m.ies).map_err(serde::de::Error::custom)
    }
}
