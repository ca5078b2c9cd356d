//! The PFCP message header (TS 29.244 clause 7.2.2).
//!
//! ```text
//! octet 1   : version (bits 8-6) | spare | spare | FO | MP | S
//! octet 2   : message type
//! octets 3-4: message length (octets after the first 4)
//! S=1 only  : octets 5-12 SEID
//! then      : 24-bit sequence number, then one octet: S=1 -> priority in bits 8-5; S=0 -> spare
//! ```

use core::fmt;

use crate::error::{DecodeError, DecodeErrorKind};
use crate::message_type::MessageType;

/// The only PFCP version (clause 7.2.2.1).
pub const PFCP_VERSION: u8 = 1;
/// Header length of node-related messages (S=0).
pub const NODE_HEADER_LEN: usize = 8;
/// Header length of session-related messages (S=1).
pub const SESSION_HEADER_LEN: usize = 16;

/// Octet 1, bit 1: S, a SEID follows (session messages, clause 7.2.2.1).
pub const FLAG_S: u8 = 0x01;
/// Octet 1, bit 2: MP, the last header octet carries the message priority (clause 7.2.2.1).
pub const FLAG_MP: u8 = 0x02;
/// Octet 1, bit 3: FO, another message follows in the same datagram (clause 7.2.1A).
pub const FLAG_FO: u8 = 0x04;
/// Octet 1, bits 8-6: the version field ([`PFCP_VERSION`] there).
pub const VERSION_MASK: u8 = 0xE0;

/// The 24-bit header sequence number (clause 7.2.2.2), checked on construction.
///
/// Not to be confused with the 32-bit Sequence Number IE that orders OCI/LCI
/// ([`crate::ie::ControlSequenceNumber`]).
///
/// # Examples
///
/// ```
/// use pfcp_wire::SequenceNumber;
///
/// assert!(SequenceNumber::new(0x100_0000).is_none()); // 24 bits
/// let last = SequenceNumber::MAX;
/// assert_eq!(last.value(), 0xff_ffff);
/// assert_eq!(last.next().value(), 0); // wraps
/// assert_eq!(SequenceNumber::wrapping(0x100_0001).value(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(transparent))]
pub struct SequenceNumber(u32);

impl SequenceNumber {
    /// Largest value, `0xFF_FFFF`.
    pub const MAX: SequenceNumber = SequenceNumber(0x00FF_FFFF);

    /// `Some` if `value` fits in 24 bits.
    pub const fn new(value: u32) -> Option<SequenceNumber> {
        if value <= Self::MAX.0 {
            Some(SequenceNumber(value))
        } else {
            None
        }
    }

    /// The low 24 bits of `value` (for counters that wrap).
    pub const fn wrapping(value: u32) -> SequenceNumber {
        SequenceNumber(value & Self::MAX.0)
    }

    /// The next number, wrapping from `0xFF_FFFF` to 0.
    #[must_use]
    pub const fn next(self) -> SequenceNumber {
        SequenceNumber::wrapping(self.0.wrapping_add(1))
    }

    /// The numeric value.
    pub const fn value(self) -> u32 {
        self.0
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for SequenceNumber {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <u32 as serde::Deserialize>::deserialize(d)?;
        SequenceNumber::new(v).ok_or_else(|| serde::de::Error::custom("sequence number > 0xFFFFFF"))
    }
}

/// Message priority, 0 (highest) to 15 (lowest) (clause 7.2.2.4.1; the direction is explicit
/// since v16.6.0, CR 0492).
///
/// `Ord` follows the *numeric* value, so `a < b` means `a` is the **higher** priority. Use
/// [`MessagePriority::is_higher_than`] where that reads better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(transparent))]
pub struct MessagePriority(u8);

impl MessagePriority {
    /// Priority 0, the highest.
    pub const HIGHEST: MessagePriority = MessagePriority(0);
    /// Priority 15, the lowest.
    pub const LOWEST: MessagePriority = MessagePriority(15);

    /// `Some` for 0..=15.
    pub const fn new(value: u8) -> Option<MessagePriority> {
        if value <= 15 {
            Some(MessagePriority(value))
        } else {
            None
        }
    }

    /// The numeric value, 0..=15.
    pub const fn value(self) -> u8 {
        self.0
    }

    /// Whether `self` ranks above `other` (numerically smaller).
    pub const fn is_higher_than(self, other: MessagePriority) -> bool {
        self.0 < other.0
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for MessagePriority {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <u8 as serde::Deserialize>::deserialize(d)?;
        MessagePriority::new(v).ok_or_else(|| serde::de::Error::custom("message priority > 15"))
    }
}

/// A decoded PFCP header.
///
/// Policy for MP=1 on an S=0 (node) header: node headers have no priority octet, so the MP bit
/// is **ignored** (`priority` is `None`) and the message is accepted; the encoder refuses to write
/// it (digest section 1.4, our recommendation). Spare bits are ignored on receipt and written
/// as 0.
///
/// # Examples
///
/// A Session Deletion Request header (type 54) with S=1 and MP=1, laid out as in clause 7.2.2:
/// 16 octets, the SEID in octets 5-12, the sequence number in 13-15 and the priority in the
/// upper nibble of octet 16.
///
/// ```
/// use pfcp_wire::{Header, MessagePriority, MessageType, SequenceNumber};
///
/// let bytes = [
///     0x23, 0x36, 0x00, 0x0c, // version 1, MP=1, S=1 | type 54 | Message Length 12
///     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, // SEID
///     0x00, 0x01, 0x02, 0x30, // sequence number 0x102 | priority 3, spare
/// ];
/// let (header, header_len) = Header::decode(&bytes)?;
/// assert_eq!(header_len, 16);
/// assert_eq!(header.length, 12);
///
/// // The same fields through the builder.
/// let built = Header::new(MessageType::SESSION_DELETION_REQUEST)
///     .with_seid(0x1234)
///     .with_sequence(SequenceNumber::new(0x102).ok_or("over 24 bits")?)
///     .with_priority(MessagePriority::new(3).ok_or("over 15")?);
/// assert_eq!(built.encoded_len(), header_len);
/// assert_eq!((header.seid, header.sequence, header.priority),
///            (built.seid, built.sequence, built.priority));
/// assert_eq!(header.message_type, built.message_type);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Header {
    /// Message type.
    pub message_type: MessageType,
    /// The Message Length field as received (octets after the first 4). The encoder computes
    /// its own.
    pub length: u16,
    /// SEID: `Some` iff S=1.
    pub seid: Option<u64>,
    /// Header sequence number.
    pub sequence: SequenceNumber,
    /// Message priority: `Some` iff S=1 and MP=1.
    pub priority: Option<MessagePriority>,
    /// FO flag: another message follows in the same datagram (clause 7.2.1A).
    pub follow_on: bool,
}

/// The header fields that could be read from a message that failed to decode: enough to answer
/// the peer (sequence number, SEID, message type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct HeaderSummary {
    /// Version field as received.
    pub version: u8,
    /// Message type.
    pub message_type: MessageType,
    /// SEID if S=1 and present.
    pub seid: Option<u64>,
    /// Sequence number.
    pub sequence: SequenceNumber,
    /// Priority if S=1, MP=1.
    pub priority: Option<MessagePriority>,
}

struct RawHeader {
    version: u8,
    flags: u8,
    message_type: u8,
    length: u16,
    seid: Option<u64>,
    sequence: u32,
    last: u8,
}

/// The fixed fields, or `None` if `input` is shorter than the header its S flag announces.
#[inline(always)]
fn raw_header(input: &[u8]) -> Option<RawHeader> {
    let (&[first, message_type, l0, l1], rest) = input.split_first_chunk::<4>()?;
    let (seid, rest) = if first & FLAG_S != 0 {
        let (seid, rest) = rest.split_first_chunk::<8>()?;
        (Some(u64::from_be_bytes(*seid)), rest)
    } else {
        (None, rest)
    };
    let (&[s0, s1, s2, last], _) = rest.split_first_chunk::<4>()?;
    Some(RawHeader {
        version: first >> 5,
        flags: first,
        message_type,
        length: u16::from_be_bytes([l0, l1]),
        seid,
        sequence: u32::from_be_bytes([0, s0, s1, s2]),
        last,
    })
}

impl Header {
    /// Header length on the wire for these fields: 16 if a SEID is present, else 8.
    pub const fn encoded_len(&self) -> usize {
        if self.seid.is_some() {
            SESSION_HEADER_LEN
        } else {
            NODE_HEADER_LEN
        }
    }

    /// A header for `message_type` with sequence 0, no SEID, no priority, FO=0. The S flag
    /// follows from `seid`, so set it with [`Header::with_seid`] for session messages.
    pub const fn new(message_type: MessageType) -> Header {
        Header {
            message_type,
            length: 0,
            seid: None,
            sequence: SequenceNumber(0),
            priority: None,
            follow_on: false,
        }
    }

    /// With a SEID (S=1).
    #[must_use]
    pub const fn with_seid(mut self, seid: u64) -> Header {
        self.seid = Some(seid);
        self
    }

    /// With a sequence number.
    #[must_use]
    pub const fn with_sequence(mut self, sequence: SequenceNumber) -> Header {
        self.sequence = sequence;
        self
    }

    /// With a message priority (MP=1; only encoded on S=1 headers).
    #[must_use]
    pub const fn with_priority(mut self, priority: MessagePriority) -> Header {
        self.priority = Some(priority);
        self
    }

    /// With the FO flag.
    #[must_use]
    pub const fn with_follow_on(mut self, follow_on: bool) -> Header {
        self.follow_on = follow_on;
        self
    }

    /// Decode a header from the start of `input`, which holds the whole message (or more).
    ///
    /// Checks the version, the length against the header kind, and that `input` holds the
    /// whole message (`length + 4` octets). Returns the header and the header's length.
    pub fn decode(input: &[u8]) -> Result<(Header, usize), DecodeError> {
        Self::decode_inline(input)
    }

    /// [`Header::decode`], inlined into `Message`'s decoders (the `Result` then never goes
    /// through memory); the public function stays out of line.
    #[inline(always)]
    pub(crate) fn decode_inline(input: &[u8]) -> Result<(Header, usize), DecodeError> {
        let needed_min = match input.first() {
            Some(b) if b & FLAG_S != 0 => SESSION_HEADER_LEN,
            _ => NODE_HEADER_LEN,
        };
        let raw = match raw_header(input) {
            Some(raw) => raw,
            None => {
                return Err(DecodeError::new(
                    DecodeErrorKind::Truncated {
                        needed: needed_min,
                        available: input.len(),
                    },
                    0,
                ))
            }
        };
        let session = raw.seid.is_some();
        let priority = if session && raw.flags & FLAG_MP != 0 {
            MessagePriority::new(raw.last >> 4)
        } else {
            None
        };
        let summary = HeaderSummary {
            version: raw.version,
            message_type: MessageType(raw.message_type),
            seid: raw.seid,
            sequence: SequenceNumber::wrapping(raw.sequence),
            priority,
        };
        if raw.version != PFCP_VERSION {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedVersion {
                    version: raw.version,
                },
                0,
            )
            .with_header(summary));
        }
        let header_len = if session {
            SESSION_HEADER_LEN
        } else {
            NODE_HEADER_LEN
        };
        // Message Length counts everything after octet 4 (clause 7.2.2.1).
        let minimum = (header_len - 4) as u16;
        if raw.length < minimum {
            return Err(DecodeError::new(
                DecodeErrorKind::LengthBelowHeader {
                    length: raw.length,
                    minimum,
                },
                2,
            )
            .with_header(summary));
        }
        let total = usize::from(raw.length) + 4;
        if total > input.len() {
            return Err(DecodeError::new(
                DecodeErrorKind::LengthExceedsData {
                    needed: total,
                    available: input.len(),
                },
                2,
            )
            .with_header(summary));
        }
        Ok((
            Header {
                message_type: MessageType(raw.message_type),
                length: raw.length,
                seid: raw.seid,
                sequence: summary.sequence,
                priority,
                follow_on: raw.flags & FLAG_FO != 0,
            },
            header_len,
        ))
    }

    /// Write the header into `out` (at least [`Header::encoded_len`] octets) with the given
    /// Message Length field value.
    pub(crate) fn write(&self, out: &mut [u8], length: u16) -> Option<()> {
        let mut first = PFCP_VERSION << 5;
        if self.follow_on {
            first |= FLAG_FO;
        }
        let seq = self.sequence.value().to_be_bytes();
        let len = length.to_be_bytes();
        match self.seid {
            Some(seid) => {
                first |= FLAG_S;
                let prio = match self.priority {
                    Some(p) => {
                        first |= FLAG_MP;
                        p.value() << 4
                    }
                    None => 0,
                };
                let s = seid.to_be_bytes();
                let bytes: [u8; SESSION_HEADER_LEN] = [
                    first,
                    self.message_type.0,
                    len[0],
                    len[1],
                    s[0],
                    s[1],
                    s[2],
                    s[3],
                    s[4],
                    s[5],
                    s[6],
                    s[7],
                    seq[1],
                    seq[2],
                    seq[3],
                    prio,
                ];
                out.get_mut(..SESSION_HEADER_LEN)?.copy_from_slice(&bytes);
            }
            None => {
                let bytes: [u8; NODE_HEADER_LEN] = [
                    first,
                    self.message_type.0,
                    len[0],
                    len[1],
                    seq[1],
                    seq[2],
                    seq[3],
                    0,
                ];
                out.get_mut(..NODE_HEADER_LEN)?.copy_from_slice(&bytes);
            }
        }
        Some(())
    }
}

impl fmt::Display for MessagePriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for SequenceNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Digest 1.6: Heartbeat Request, seq 0x00ABCD (bytes from the spec layout, checked by scapy).
    const HEARTBEAT: [u8; 16] = [
        0x20, 0x01, 0x00, 0x0c, 0x00, 0xab, 0xcd, 0x00, 0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2,
        0xb0,
    ];

    #[test]
    fn node_header_fields() {
        let (h, n) = Header::decode(&HEARTBEAT).unwrap();
        assert_eq!(n, 8);
        assert_eq!(h.message_type, MessageType::HEARTBEAT_REQUEST);
        assert_eq!(h.length, 12);
        assert_eq!(h.seid, None);
        assert_eq!(h.sequence.value(), 0xABCD);
        assert_eq!(h.priority, None);
        assert!(!h.follow_on);
    }

    #[test]
    fn priority_is_the_upper_nibble_of_octet_16() {
        // 0x23: S=1, MP=1; octet 16 = 0x30 -> priority 3 (digest 1.6).
        let b = [
            0x23, 0x33, 0x00, 0x0c, 0, 0, 0, 0, 0, 0, 0, 1, 0x00, 0x01, 0x02, 0x30,
        ];
        let (h, n) = Header::decode(&b).unwrap();
        assert_eq!(n, 16);
        assert_eq!(h.priority, MessagePriority::new(3));
        assert_eq!(h.seid, Some(1));
        assert_eq!(h.sequence.value(), 0x102);
        let mut out = [0u8; 16];
        h.write(&mut out, 12).unwrap();
        assert_eq!(out, b);
    }

    #[test]
    fn mp_on_node_header_is_ignored() {
        let mut b = HEARTBEAT;
        b[0] = 0x22;
        b[7] = 0x50;
        let (h, _) = Header::decode(&b).unwrap();
        assert_eq!(h.priority, None);
    }

    #[test]
    fn wrong_version_keeps_header_for_version_not_supported() {
        let mut b = HEARTBEAT;
        b[0] = 0x40;
        let e = Header::decode(&b).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnsupportedVersion { version: 2 });
        let h = e.header.unwrap();
        assert_eq!(h.sequence.value(), 0xABCD);
        assert_eq!(h.message_type, MessageType::HEARTBEAT_REQUEST);
    }

    #[test]
    fn length_checks() {
        let mut b = HEARTBEAT;
        b[3] = 3;
        assert!(matches!(
            Header::decode(&b).unwrap_err().kind,
            DecodeErrorKind::LengthBelowHeader { .. }
        ));
        b[3] = 13;
        assert!(matches!(
            Header::decode(&b).unwrap_err().kind,
            DecodeErrorKind::LengthExceedsData {
                needed: 17,
                available: 16
            }
        ));
        for n in 0..8 {
            assert!(matches!(
                Header::decode(&HEARTBEAT[..n]).unwrap_err().kind,
                DecodeErrorKind::Truncated { .. }
            ));
        }
    }

    #[test]
    fn checked_newtypes() {
        assert!(MessagePriority::new(16).is_none());
        assert!(SequenceNumber::new(0x0100_0000).is_none());
        assert_eq!(SequenceNumber::MAX.next().value(), 0);
        assert!(MessagePriority::HIGHEST.is_higher_than(MessagePriority::LOWEST));
    }
}
