//! Information Elements: the generic TLV layer (TS 29.244 clauses 8.1.1, 8.1.2, 7.2.3) and the
//! typed IEs built on it.
//!
//! ```text
//! octets 1-2  Type (16 bits)          type >= 32768: vendor-specific
//! octets 3-4  Length (16 bits)        octets after octet 4 (includes the Enterprise ID)
//! octets 5-6  Enterprise ID           vendor-specific IEs only
//! octets ...  value, or embedded IEs for a grouped IE
//! ```
//!
//! [`RawIe`] is a zero-copy view; [`IeIter`] walks a list of IEs and never reads past its
//! container. Grouped IEs are lazy: [`RawIe::children`] parses on demand.

use core::fmt;

use crate::encode::Sink;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, IePath};

mod addr;
mod any;
mod cause_ie;
mod features;
mod flags;
mod framing;
mod fseid;
pub(crate) mod grouped;
mod ids;
mod node_id;
mod node_key;
mod octets;
mod overload;
mod rules;
mod simple;
mod timer;
mod type_table;
pub(crate) mod value;
mod volume;

pub use framing::check_framing;
pub(crate) use framing::{check_framing_in, walk_checked, MAX_STACK as MAX_FRAMING_DEPTH};
pub(crate) use type_table::with_typed_ies;

grouped::owned_is_self!(
    crate::Cause,
    OffendingIe,
    RecoveryTimeStamp,
    CpFunctionFeatures,
    UpFunctionFeatures,
    ControlSequenceNumber,
    Metric,
    OciFlags,
    Timer,
    OverloadControlInformation,
    LoadControlInformation,
    FSeid,
    FTeid,
    UeIpAddress,
    OuterHeaderCreation,
    ApplyAction,
    DestinationInterface,
    GateStatus,
    MeasurementMethod,
    OuterHeaderRemoval,
    ReportType,
    ReportingTriggers,
    SourceInterface,
    UsageReportTrigger,
    BarId,
    DownlinkDataNotificationDelay,
    DurationMeasurement,
    FarId,
    PdrId,
    Precedence,
    QerCorrelationId,
    QerId,
    Qfi,
    TimeQuota,
    TimeThreshold,
    UrSeqn,
    UrrId,
    Gbr,
    Mbr,
    VolumeMeasurement,
    VolumeQuota,
    VolumeThreshold,
);

pub use addr::{FTeid, OuterHeaderCreation, UeIpAddress};
pub use any::AnyTypedIe;
pub use features::{CpFunctionFeatures, Feature, UpFunctionFeatures, MAX_FEATURE_OCTETS};
pub use flags::{
    ApplyAction, DestinationInterface, GateStatus, MeasurementMethod, OuterHeaderRemoval,
    ReportType, ReportingTriggers, SourceInterface, UsageReportTrigger,
};
pub use fseid::FSeid;
pub use grouped::{IntoOwned, Repeated, RepeatedIter};
pub use ids::{
    BarId, DownlinkDataNotificationDelay, DurationMeasurement, FarId, PdrId, Precedence,
    QerCorrelationId, QerId, Qfi, TimeQuota, TimeThreshold, UrSeqn, UrrId,
};
pub use node_id::{Fqdn, FqdnError, NodeId, FQDN_MAX_WIRE_LEN};
pub use node_key::{NodeKey, NodeKeyError};
pub use octets::{ApplicationId, NetworkInstance, SdfFilter};
pub use overload::{
    ControlSequenceNumber, LoadControlInformation, Metric, OciFlags, OverloadControlInformation,
};
pub use rules::{
    CreateBar, CreateFar, CreatePdr, CreateQer, CreateUrr, CreatedPdr, DownlinkDataReport,
    DuplicatingParameters, ForwardingParameters, Pdi, RemoveBar, RemoveFar, RemovePdr, RemoveQer,
    RemoveUrr, UpdateBar, UpdateFar, UpdateForwardingParameters, UpdatePdr, UpdateQer, UpdateUrr,
    UsageReportSdr, UsageReportSmr, UsageReportSrr,
};
pub use simple::{OffendingIe, RecoveryTimeStamp, NTP_UNIX_OFFSET};
pub use timer::{Timer, TimerUnit, TIMER_MAX_FINITE};
pub use volume::{Gbr, Mbr, VolumeMeasurement, VolumeQuota, VolumeThreshold, BITRATE_MAX};

/// Octets of an IE's Type and Length fields.
pub const IE_HEADER_LEN: usize = 4;

/// An IE type code (Table 8.1.2-1). Types >= 32768 are vendor-specific.
///
/// # Examples
///
/// ```
/// use pfcp_wire::ie::IeType;
///
/// assert_eq!(IeType::CREATE_PDR, IeType(1));
/// assert!(IeType::CREATE_PDR.is_grouped()); // its value is a list of IEs (clause 7.2.3.3)
/// assert!(!IeType::PDR_ID.is_grouped());
/// assert!(IeType(0x8001).is_vendor()); // carries an Enterprise ID (clause 8.1.1)
/// assert!(IeType::OVERLOAD_CONTROL_INFORMATION.name().is_some());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct IeType(pub u16);

impl IeType {
    /// Whether the type is vendor-specific (bit 16 set), with an Enterprise ID (clause 8.1.1).
    #[inline]
    pub const fn is_vendor(self) -> bool {
        self.0 & 0x8000 != 0
    }

    /// The spec name, or `None` for vendor and unknown types.
    pub const fn name(self) -> Option<&'static str> {
        type_table::name(self.0)
    }

    /// Whether TS 29.244 defines this type as a grouped IE (its body is a list of IEs).
    #[inline]
    pub const fn is_grouped(self) -> bool {
        type_table::is_grouped(self.0)
    }
}

impl fmt::Debug for IeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{} ({})", n, self.0),
            None => write!(f, "IeType({})", self.0),
        }
    }
}

impl fmt::Display for IeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// IANA Private Enterprise Number of a vendor-specific IE. 10415 (3GPP) must not be used
/// (clause 8.1.1); we decode it like any other ID and leave the policy to the caller.
pub type EnterpriseId = u16;

/// Enterprise ID of 3GPP, which vendor-specific IEs must not use (clause 8.1.1).
pub const ENTERPRISE_ID_3GPP: EnterpriseId = 10415;

/// Resource limits applied while decoding (a hostile message gives an error, not a stack
/// overflow or a long walk).
///
/// # Examples
///
/// ```
/// use pfcp_wire::ie::DecodeLimits;
/// use pfcp_wire::Message;
///
/// // A Session Modification Request (clause 7.2.2 session header, Message Length 24) with a
/// // Create FAR (type 3, grouped) holding a FAR ID (type 108): two IEs, the second at depth 2
/// // (clause 8.1.1 TLVs; decoding checks the framing, not the members a Create FAR needs).
/// let bytes = [0x21, 0x34, 0x00, 0x18, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x00, 0x00, 0x01, 0x00,
///              0x00, 0x03, 0x00, 0x08, 0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01];
/// assert_eq!(Message::decode(&bytes)?.ie_count(), 2);
/// // Refused, not walked, beyond the limits.
/// assert!(Message::decode_with_limits(&bytes, DecodeLimits::new(1, 16)).is_err());
/// assert!(Message::decode_with_limits(&bytes, DecodeLimits::new(16, 1)).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeLimits {
    /// Maximum nesting depth of grouped IEs (a top-level IE is depth 1).
    pub max_depth: usize,
    /// Maximum number of IEs in one message, all levels counted.
    pub max_ies: usize,
}

impl DecodeLimits {
    /// Defaults: depth 16 (real messages nest 4-5 deep), 4096 IEs (a full 64 KiB Session
    /// Establishment Request with hundreds of rules stays well below).
    pub const DEFAULT: DecodeLimits = DecodeLimits {
        max_depth: 16,
        max_ies: 4096,
    };

    /// Limits with the given depth and count.
    pub const fn new(max_depth: usize, max_ies: usize) -> DecodeLimits {
        DecodeLimits { max_depth, max_ies }
    }
}

impl Default for DecodeLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A zero-copy view of one IE.
///
/// Small on purpose (it is built for every IE walked): the offset and the IE path are not
/// stored but derived on demand from the IE list the walk started at (`root`), which errors
/// and [`RawIe::path`] re-walk. Only IEs already yielded are re-walked, so that cannot fail.
#[derive(Clone, Copy)]
pub struct RawIe<'a> {
    /// The value; the Length field and the Enterprise ID are derived from it (the octets
    /// before it in `root`).
    value: &'a [u8],
    /// The IE list the iteration that produced this IE started at, and its offset in the
    /// caller's buffer.
    root: &'a [u8],
    root_offset: usize,
    ie_type: IeType,
}

impl<'a> RawIe<'a> {
    /// The IE type.
    #[inline]
    pub fn ie_type(&self) -> IeType {
        self.ie_type
    }

    /// The Enterprise ID of a vendor-specific IE.
    #[inline]
    pub fn enterprise_id(&self) -> Option<EnterpriseId> {
        if !self.ie_type.is_vendor() {
            return None;
        }
        // The two octets before the value (checked when the IE was read).
        let pos = self.value_pos();
        let eid = match self.root.get(pos.wrapping_sub(2)..pos) {
            Some(&[a, b]) => u16::from_be_bytes([a, b]),
            _ => 0,
        };
        Some(eid)
    }

    /// The Length field as received (includes the Enterprise ID octets).
    #[inline]
    pub fn length(&self) -> u16 {
        // The value was cut to the Length field (minus the Enterprise ID), so this fits.
        (self.value.len() + self.header_len() - IE_HEADER_LEN) as u16
    }

    /// The body after Type, Length and (for vendor IEs) Enterprise ID.
    #[inline]
    pub fn value(&self) -> &'a [u8] {
        self.value
    }

    /// Position of the value's first octet in `root`.
    #[inline]
    fn value_pos(&self) -> usize {
        self.value
            .as_ptr()
            .addr()
            .wrapping_sub(self.root.as_ptr().addr())
    }

    /// Octets before the value: Type, Length and, for vendor IEs, the Enterprise ID.
    #[inline]
    fn header_len(&self) -> usize {
        IE_HEADER_LEN + if self.ie_type.is_vendor() { 2 } else { 0 }
    }

    /// Offset of the IE's Type field from the start of the decoded buffer.
    #[inline]
    pub fn offset(&self) -> usize {
        self.value_offset().wrapping_sub(self.header_len())
    }

    /// IE types from the top level down to and including this IE.
    pub fn path(&self) -> IePath {
        let pos = self.value_pos().wrapping_sub(self.header_len());
        path_at(self.root, pos, true)
    }

    /// Octets this IE occupies on the wire.
    #[inline]
    pub fn encoded_len(&self) -> usize {
        self.header_len() + self.value.len()
    }

    /// Offset of the first value octet (after the Enterprise ID for vendor IEs).
    #[inline]
    pub fn value_offset(&self) -> usize {
        self.root_offset.wrapping_add(self.value_pos())
    }

    /// The embedded IEs, reading the value as a grouped IE body (clause 7.2.3.3). Works on any
    /// IE; errors carry this IE's path.
    #[inline]
    pub fn children(&self) -> IeIter<'a> {
        IeIter {
            rest: self.value,
            root: self.root,
            root_offset: self.root_offset,
        }
    }

    /// A member of this grouped IE read by `read_tlv` from its value: what `children()`
    /// yields for it.
    #[inline(always)]
    fn member(&self, value: &'a [u8], ie_type: IeType) -> RawIe<'a> {
        RawIe {
            value,
            root: self.root,
            root_offset: self.root_offset,
            ie_type,
        }
    }

    /// The member of this grouped IE at the front of `rest` (a tail of its value), with its
    /// type, and `rest` moved past it. `None` at the end, and at a malformed member, where
    /// `rest` stays as it was: a walk that ends with `rest` not empty has `children()`'s error,
    /// `children_error`. The members are read with `read_tlv` (in registers; an error
    /// value on every step cost 2-17 % of the typed reads in callgrind): a grouped IE's `check`
    /// and `decode` walk them with this.
    #[inline(always)]
    fn next_member(&self, rest: &mut &'a [u8]) -> Option<(IeType, RawIe<'a>)> {
        if rest.is_empty() {
            return None;
        }
        let tlv = read_tlv(rest).ok()?;
        *rest = tlv.after;
        Some((tlv.ie_type, self.member(tlv.value, tlv.ie_type)))
    }

    /// The error `children()` gives for the malformed member at the front of `rest` (a tail
    /// of this IE's value).
    #[cold]
    #[inline(never)]
    fn children_error(&self, rest: &'a [u8]) -> DecodeError {
        let mut it = IeIter {
            rest,
            root: self.root,
            root_offset: self.root_offset,
        };
        match it.next() {
            Some(Err(e)) => e,
            _ => self.error(DecodeErrorKind::InvalidValue("malformed member")),
        }
    }

    /// An error about this IE's content.
    #[cold]
    #[inline(never)]
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.offset()).with_path(self.path())
    }

    /// Decode this IE as the typed IE `T`, checking the type code first.
    pub fn decode_as<T: TypedIe<'a>>(&self) -> Result<T, DecodeError> {
        if self.ie_type != T::IE_TYPE {
            return Err(self.error(DecodeErrorKind::InvalidValue("unexpected IE type")));
        }
        T::decode(self)
    }
}

/// Equal when type, Enterprise ID, Length, value octets, offset and IE path are.
impl PartialEq for RawIe<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.ie_type == other.ie_type
            && self.enterprise_id() == other.enterprise_id()
            && self.length() == other.length()
            && self.value == other.value
            && self.offset() == other.offset()
            && self.path() == other.path()
    }
}

impl Eq for RawIe<'_> {}

impl fmt::Debug for RawIe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RawIe");
        d.field("type", &self.ie_type);
        if let Some(e) = self.enterprise_id() {
            d.field("enterprise_id", &e);
        }
        d.field("length", &self.length())
            .field("offset", &self.offset())
            .finish_non_exhaustive()
    }
}

/// One IE read from the front of an IE list by [`read_tlv`].
#[derive(Clone, Copy)]
struct Tlv<'a> {
    ie_type: IeType,
    /// The Length field (Enterprise ID included).
    length: u16,
    /// The value, after the Enterprise ID for vendor IEs.
    value: &'a [u8],
    /// The rest of the list after this IE.
    after: &'a [u8],
}

/// Why [`read_tlv`] could not read an IE.
#[derive(Clone, Copy)]
enum TlvError {
    /// Fewer than 4 octets left.
    HeaderTruncated { available: usize },
    /// The Length runs past the list.
    Overrun {
        ie_type: IeType,
        length: u16,
        available: usize,
    },
    /// A vendor IE shorter than its Enterprise ID.
    VendorTooShort { ie_type: IeType, length: u16 },
}

impl TlvError {
    /// The error kind, and whether the IE path includes the IE itself (it does when its type
    /// could be read).
    #[inline]
    fn kind(self) -> (DecodeErrorKind, bool) {
        match self {
            TlvError::HeaderTruncated { available } => {
                (DecodeErrorKind::IeHeaderTruncated { available }, false)
            }
            TlvError::Overrun {
                length, available, ..
            } => (DecodeErrorKind::IeOverrun { length, available }, true),
            TlvError::VendorTooShort { length, .. } => {
                (DecodeErrorKind::VendorIeTooShort { length }, true)
            }
        }
    }

    fn ie_type(self) -> Option<IeType> {
        match self {
            TlvError::HeaderTruncated { .. } => None,
            TlvError::Overrun { ie_type, .. } | TlvError::VendorTooShort { ie_type, .. } => {
                Some(ie_type)
            }
        }
    }
}

/// Read the IE at the front of `rest` (clause 8.1.1): Type, Length, the Enterprise ID of a
/// vendor IE, the value. The one TLV reader of the crate: [`IeIter`], [`check_framing`] and
/// the IE path walk all read IEs with it, so they cannot disagree on where an IE ends.
///
/// Slice patterns, always inlined: `docs/benchmarks.md` measured them against nom's `be_u16` /
/// `take` here (twice the instructions for the same checks).
#[inline(always)]
fn read_tlv(rest: &[u8]) -> Result<Tlv<'_>, TlvError> {
    let Some((&[t0, t1, l0, l1], after_header)) = rest.split_first_chunk::<4>() else {
        return Err(TlvError::HeaderTruncated {
            available: rest.len(),
        });
    };
    let ie_type = IeType(u16::from_be_bytes([t0, t1]));
    let length = u16::from_be_bytes([l0, l1]);
    let Some((body, after)) = after_header.split_at_checked(usize::from(length)) else {
        return Err(TlvError::Overrun {
            ie_type,
            length,
            available: after_header.len(),
        });
    };
    let value = if ie_type.is_vendor() {
        match body.split_first_chunk::<2>() {
            Some((_, value)) => value,
            None => return Err(TlvError::VendorTooShort { ie_type, length }),
        }
    } else {
        body
    };
    Ok(Tlv {
        ie_type,
        length,
        value,
        after,
    })
}

/// The IE path at position `target` of the IE list `root`, by walking `root` again: the types
/// of the IEs that contain `target` past their header and, if `include_self`, of the IE that
/// starts at `target`. Total: stops wherever the octets stop making sense.
///
/// Errors are rare, so they pay for their path here instead of every IE carrying one.
fn path_at(root: &[u8], target: usize, include_self: bool) -> IePath {
    let mut path = IePath::EMPTY;
    let mut pos = 0usize;
    let mut end = root.len();
    while pos < end && pos <= target {
        let rest = root.get(pos..end).unwrap_or_default();
        let tlv = match read_tlv(rest) {
            Ok(tlv) => tlv,
            Err(e) => {
                if let (true, true, Some(t)) = (pos == target, include_self, e.ie_type()) {
                    path = path.push(t);
                }
                break;
            }
        };
        if pos == target {
            if include_self {
                path = path.push(tlv.ie_type);
            }
            break;
        }
        let value_end = end - tlv.after.len();
        if target < value_end {
            // Inside this IE: descend into its value.
            path = path.push(tlv.ie_type);
            end = value_end;
            pos = value_end - tlv.value.len();
        } else {
            pos = value_end;
        }
    }
    path
}

/// A typed IE: its type code, a total decoder from a [`RawIe`], and an exact-length encoder of
/// its value. The one trait every typed IE implements; [`Encode`](crate::encode::Encode)
/// (the whole IE: Type, Length, value) follows from it for every typed IE of this crate.
///
/// `value_len` is exact: `write_value` writes that many octets or fails, so a message's
/// lengths are known before anything is written.
pub trait TypedIe<'a>: Sized {
    /// The IE type code.
    const IE_TYPE: IeType;

    /// Decode the IE's value. Never panics; errors name the IE (path and offset).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError>;

    /// Exact length of the value (after Type and Length).
    fn value_len(&self) -> usize;

    /// Write exactly [`TypedIe::value_len`] octets, or fail if the value cannot be encoded.
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError>;

    /// Whether the IE decodes: the same verdict and error as [`TypedIe::decode`], without
    /// building the value (what [`crate::Message::validate`] needs; grouped IEs check their
    /// members in place).
    #[inline]
    fn check(ie: &RawIe<'a>) -> Result<(), DecodeError> {
        Self::decode(ie).map(|_| ())
    }
}

/// Iterator over a list of IEs (a message body or a grouped IE's body).
///
/// Yields `Err` once and then stops if the list is malformed; IEs before the error are still
/// yielded (nothing already accepted is lost).
///
/// # Examples
///
/// A message body of two IEs in the format of clause 8.1.1 (Type, Length, value): a Recovery
/// Time Stamp (type 96) and a Cause (type 19) of value 1, Request accepted (clause 8.2.1).
///
/// ```
/// use pfcp_wire::ie::{IeIter, IeType};
///
/// let body = [0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0, 0x00, 0x13, 0x00, 0x01, 0x01];
/// let mut types = Vec::new();
/// for ie in IeIter::new(&body, 0) {
///     types.push(ie?.ie_type());
/// }
/// assert_eq!(types, [IeType::RECOVERY_TIME_STAMP, IeType::CAUSE]);
///
/// let cause = IeIter::new(&body, 0).find(IeType::CAUSE)?.ok_or("no Cause")?;
/// assert_eq!(cause.value(), &[1]);
///
/// // The Cause announces one octet that is not there: the first IE, then an error.
/// let mut cut = IeIter::new(&body[..12], 0);
/// assert!(matches!(cut.next(), Some(Ok(_))));
/// assert!(matches!(cut.next(), Some(Err(_))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct IeIter<'a> {
    /// What is left of the list (emptied after an error).
    rest: &'a [u8],
    /// The list the walk started at (the top of the IE paths) and its offset.
    root: &'a [u8],
    root_offset: usize,
}

impl<'a> IeIter<'a> {
    /// Iterate the IEs in `body`, whose first octet is at `offset` in the caller's buffer.
    #[inline]
    pub fn new(body: &'a [u8], offset: usize) -> Self {
        IeIter {
            rest: body,
            root: body,
            root_offset: offset,
        }
    }

    /// The IEs of the list `root` (at `root_offset`) from the IE at position `pos` on: what
    /// `IeIter::new(root, root_offset)` yields after the IEs before `pos` (the typed messages'
    /// lists start at their first occurrence).
    #[inline]
    pub(crate) fn resume(root: &'a [u8], root_offset: usize, pos: usize) -> Self {
        IeIter {
            rest: root.get(pos..).unwrap_or_default(),
            root,
            root_offset,
        }
    }

    /// Find the first IE of `ie_type` (clause 7.6.10: later repetitions are ignored).
    pub fn find(mut self, ie_type: IeType) -> Result<Option<RawIe<'a>>, DecodeError> {
        self.try_find(|ie| ie.ie_type == ie_type)
    }

    fn try_find(
        &mut self,
        mut pred: impl FnMut(&RawIe<'a>) -> bool,
    ) -> Result<Option<RawIe<'a>>, DecodeError> {
        for ie in self {
            let ie = ie?;
            if pred(&ie) {
                return Ok(Some(ie));
            }
        }
        Ok(None)
    }

    /// The error for the IE (or IE header) at the front of `rest`; stops the iteration.
    #[inline(always)]
    fn fail(&mut self, kind: DecodeErrorKind, include_self: bool) -> DecodeError {
        let e = list_error(self.rest, self.root, self.root_offset, kind, include_self);
        self.rest = &[];
        e
    }
}

/// The error for the IE (or IE header) at the front of `rest`, a tail of the list `root` at
/// `root_offset`. Out of line and by value, so that the iterator never escapes to memory.
#[cold]
#[inline(never)]
fn list_error(
    rest: &[u8],
    root: &[u8],
    root_offset: usize,
    kind: DecodeErrorKind,
    include_self: bool,
) -> DecodeError {
    let pos = rest.as_ptr().addr().wrapping_sub(root.as_ptr().addr());
    DecodeError::new(kind, root_offset.wrapping_add(pos)).with_path(path_at(
        root,
        pos,
        include_self,
    ))
}

impl<'a> Iterator for IeIter<'a> {
    type Item = Result<RawIe<'a>, DecodeError>;

    // Always inlined: out of line, every IE pays a call and a trip of the 88-octet item
    // through memory; inlined, the item stays in registers and the error arms stay cold.
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        match read_tlv(self.rest) {
            Ok(tlv) => {
                self.rest = tlv.after;
                Some(Ok(RawIe {
                    value: tlv.value,
                    root: self.root,
                    root_offset: self.root_offset,
                    ie_type: tlv.ie_type,
                }))
            }
            Err(e) => {
                let (kind, include_self) = e.kind();
                Some(Err(self.fail(kind, include_self)))
            }
        }
    }
}

#[cfg(test)]
mod tests;
