//! Decode and encode errors.
//!
//! A [`DecodeError`] always says *what* went wrong ([`DecodeErrorKind`]), *where* (the byte
//! offset from the start of the message, or of the datagram for [`crate::Datagram`]), and
//! *inside which IE* (the [`IePath`] of IE types from the outermost IE inwards). It maps to the
//! Cause a PFCP peer should receive ([`DecodeError::cause`], TS 29.244 clause 7.6).

use core::fmt;

use crate::cause::Cause;
use crate::header::HeaderSummary;
use crate::ie::IeType;

/// How many IE levels an [`IePath`] records; deeper levels are counted but not stored.
pub const IE_PATH_CAPACITY: usize = 8;

/// The chain of IE types from a message's top level down to the IE an error concerns.
///
/// Stored inline (no allocation). Paths deeper than [`IE_PATH_CAPACITY`] keep the outermost
/// levels and report the true depth through [`IePath::depth`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct IePath {
    types: [u16; IE_PATH_CAPACITY],
    depth: u16,
}

impl IePath {
    /// The empty path (an error in the message header or at top level before any IE).
    pub const EMPTY: IePath = IePath {
        types: [0; IE_PATH_CAPACITY],
        depth: 0,
    };

    /// This path with `ie_type` appended as the innermost level.
    #[must_use]
    pub fn push(mut self, ie_type: IeType) -> IePath {
        if let Some(slot) = self.types.get_mut(usize::from(self.depth)) {
            *slot = ie_type.0;
        }
        self.depth = self.depth.saturating_add(1);
        self
    }

    /// Number of levels (0 for a header error, 1 for a top-level IE).
    pub fn depth(&self) -> usize {
        usize::from(self.depth)
    }

    /// The recorded IE types, outermost first (at most [`IE_PATH_CAPACITY`]).
    pub fn types(&self) -> impl Iterator<Item = IeType> + '_ {
        let n = self.depth().min(IE_PATH_CAPACITY);
        self.types.iter().take(n).map(|&t| IeType(t))
    }

    /// The innermost recorded IE type, if any.
    pub fn innermost(&self) -> Option<IeType> {
        self.types().last()
    }

    /// The outermost (top-level) IE type, if any: the one to name in an Offending IE.
    pub fn outermost(&self) -> Option<IeType> {
        self.types().next()
    }
}

impl fmt::Debug for IePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for IePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.depth == 0 {
            return f.write_str("header");
        }
        for (i, t) in self.types().enumerate() {
            if i > 0 {
                f.write_str(" > ")?;
            }
            write!(f, "{}", t.0)?;
        }
        if self.depth() > IE_PATH_CAPACITY {
            write!(f, " > ... ({} levels)", self.depth)?;
        }
        Ok(())
    }
}

/// What went wrong while decoding. See [`DecodeError`] for where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// Fewer octets than a fixed-size field or header needs.
    #[error("truncated: needed {needed} octets, {available} available")]
    Truncated {
        /// Octets the structure needs.
        needed: usize,
        /// Octets that were there.
        available: usize,
    },
    /// The header's version is not 1 (clause 7.6.2: answer with Version Not Supported Response).
    #[error("unsupported PFCP version {version}")]
    UnsupportedVersion {
        /// The version field as received.
        version: u8,
    },
    /// The Message Length field is below the minimum for the header kind (4 or 12).
    #[error("message length {length} below the header minimum {minimum}")]
    LengthBelowHeader {
        /// Message Length field.
        length: u16,
        /// Minimum for this header (S=0: 4, S=1: 12).
        minimum: u16,
    },
    /// The Message Length field claims more octets than the datagram holds.
    #[error("message length claims {needed} octets, {available} available")]
    LengthExceedsData {
        /// Octets the Message Length implies (Length + 4).
        needed: usize,
        /// Octets available.
        available: usize,
    },
    /// Octets follow the last message (FO=0) of a datagram (clause 7.2.1A, 7.6).
    #[error("{count} trailing octets after a message with FO=0")]
    TrailingData {
        /// Number of unexplained octets.
        count: usize,
    },
    /// Fewer than 4 octets left for an IE's Type and Length.
    #[error("IE header truncated: {available} octets left, 4 needed")]
    IeHeaderTruncated {
        /// Octets left in the enclosing body.
        available: usize,
    },
    /// An IE's Length runs past the end of its enclosing message or grouped IE.
    #[error("IE length {length} overruns its container ({available} octets left)")]
    IeOverrun {
        /// The IE's Length field.
        length: u16,
        /// Octets left in the container after the IE header.
        available: usize,
    },
    /// A vendor-specific IE (type >= 32768) is shorter than its 2-octet Enterprise ID.
    #[error("vendor-specific IE length {length} < 2 (Enterprise ID)")]
    VendorIeTooShort {
        /// The IE's Length field.
        length: u16,
    },
    /// Grouped IEs nest deeper than the configured limit.
    #[error("grouped IEs nested deeper than {limit}")]
    DepthExceeded {
        /// The limit in force.
        limit: usize,
    },
    /// The message holds more IEs (all levels counted) than the configured limit.
    #[error("more than {limit} IEs in one message")]
    TooManyIes {
        /// The limit in force.
        limit: usize,
    },
    /// A typed IE body is shorter than its fixed fields.
    #[error("IE body of {length} octets, at least {needed} needed")]
    IeTooShort {
        /// Octets the fixed fields need.
        needed: usize,
        /// The IE's body length.
        length: usize,
    },
    /// A fixed-size IE whose Length differs from its size (clause 7.6: Cause 68).
    #[error("IE length {length}, fixed size is {expected}")]
    IeLengthMismatch {
        /// The fixed size of the IE body.
        expected: usize,
        /// The IE's body length.
        length: usize,
    },
    /// A field holds a value that TS 29.244 reserves or forbids.
    #[error("invalid value: {0}")]
    InvalidValue(&'static str),
    /// A grouped IE lacks one of its mandatory members.
    #[error("grouped IE lacks mandatory member IE type {0}")]
    MissingMember(IeType),
    /// A message lacks one of its mandatory IEs (clause 7.6.3.3: Cause 66).
    #[error("mandatory IE type {0} missing")]
    MissingMandatory(IeType),
    /// The message type is not defined by TS 29.244 (clause 7.6.1: silently discard).
    #[error("unknown message type {0}")]
    UnknownMessageType(u8),
    /// The S flag contradicts the message type (node messages have S=0, session S=1).
    #[error("S flag does not match message type")]
    SFlagMismatch,
    /// A typed message of one type was asked for a message of another
    /// ([`crate::msg::TypedMessage::decode`]).
    #[error("message type {found}, expected {expected}")]
    UnexpectedMessageType {
        /// The type asked for.
        expected: crate::MessageType,
        /// The message's type.
        found: crate::MessageType,
    },
}

/// A decode failure: what, where (octet offset) and in which IE.
///
/// `offset` counts from the start of the buffer handed to the decoder ([`crate::Message::decode`]
/// or [`crate::Datagram::new`]); for typed IE decoding it is the offset of the IE's Type field
/// when known.
///
/// # Examples
///
/// A Heartbeat Request without its mandatory Recovery Time Stamp (a clause 7.2.2 node header
/// of Message Length 4, sequence number 43) maps to the rejection of clause 7.6: Cause 66 with
/// the missing IE as Offending IE, and the header fields to answer with.
///
/// ```
/// use pfcp_wire::ie::IeType;
/// use pfcp_wire::{Cause, Message};
///
/// let bytes = [0x20, 0x01, 0x00, 0x04, 0x00, 0x00, 0x2b, 0x00];
/// let Err(err) = Message::decode(&bytes)?.validate() else {
///     return Err("accepted a Heartbeat Request without Recovery Time Stamp".into());
/// };
/// assert_eq!(err.cause(), Cause::MANDATORY_IE_MISSING);
/// assert_eq!(err.offending_ie(), Some(IeType::RECOVERY_TIME_STAMP));
/// assert_eq!(err.header.map(|h| h.sequence.value()), Some(43));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeError {
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// Byte offset of the offending structure.
    pub offset: usize,
    /// IE types from the top level inwards; empty for header errors.
    pub path: IePath,
    /// The header fields, when the header could be read (lets a node answer the peer, e.g.
    /// with Version Not Supported Response or a rejection carrying the right sequence number).
    pub header: Option<HeaderSummary>,
}

impl DecodeError {
    /// A new error with an empty path and no header.
    pub fn new(kind: DecodeErrorKind, offset: usize) -> Self {
        DecodeError {
            kind,
            offset,
            path: IePath::EMPTY,
            header: None,
        }
    }

    /// This error with the IE path set.
    #[must_use]
    pub fn with_path(mut self, path: IePath) -> Self {
        self.path = path;
        self
    }

    /// This error with the header summary attached.
    #[must_use]
    pub fn with_header(mut self, header: HeaderSummary) -> Self {
        self.header = Some(header);
        self
    }

    /// The Cause value a peer should get when this error rejects its request
    /// (TS 29.244 clause 7.6): 68 for length errors, 66 for a missing mandatory IE, 69 for an
    /// incorrect one, 64 otherwise.
    pub fn cause(&self) -> Cause {
        use DecodeErrorKind as K;
        match self.kind {
            K::LengthBelowHeader { .. }
            | K::LengthExceedsData { .. }
            | K::TrailingData { .. }
            | K::IeHeaderTruncated { .. }
            | K::IeOverrun { .. }
            | K::VendorIeTooShort { .. }
            | K::IeTooShort { .. }
            | K::IeLengthMismatch { .. }
            | K::Truncated { .. } => Cause::INVALID_LENGTH,
            K::MissingMandatory(_) => Cause::MANDATORY_IE_MISSING,
            K::InvalidValue(_) | K::MissingMember(_) => Cause::MANDATORY_IE_INCORRECT,
            _ => Cause::REQUEST_REJECTED,
        }
    }

    /// The IE type to put in an Offending IE (clause 8.2.22): the top-level IE involved, or for
    /// a missing mandatory IE the missing type.
    pub fn offending_ie(&self) -> Option<IeType> {
        match self.kind {
            DecodeErrorKind::MissingMandatory(t) => Some(t),
            _ => self.path.outermost(),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.kind, self.offset)?;
        if self.path.depth() > 0 {
            write!(f, " in IE {}", self.path)?;
        }
        Ok(())
    }
}

impl core::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.kind)
    }
}

/// An encode failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The caller's buffer is too small.
    #[error("buffer too small: {needed} octets needed, {available} available")]
    BufferTooSmall {
        /// Octets the encoding needs in total.
        needed: usize,
        /// Octets the buffer has.
        available: usize,
    },
    /// An IE body or a message would exceed the 16-bit Length field.
    #[error("length {0} does not fit the 16-bit Length field")]
    LengthOverflow(usize),
    /// A value cannot be represented on the wire.
    #[error("value not encodable: {0}")]
    InvalidValue(&'static str),
    /// A grouped IE's writer was dropped without `finish`: its Length was never written, so
    /// the message is refused rather than sent with the group's members as its siblings.
    #[error("a grouped IE was left without finish()")]
    UnfinishedGroup,
}
