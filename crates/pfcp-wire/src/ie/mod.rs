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

use crate::error::{DecodeError, DecodeErrorKind, IePath};

mod cause_ie;
mod features;
mod fseid;
mod node_id;
mod overload;
mod simple;
mod timer;
mod type_table;

pub use features::{CpFunctionFeatures, Feature, UpFunctionFeatures, MAX_FEATURE_OCTETS};
pub use fseid::FSeid;
pub use node_id::{Fqdn, FqdnError, NodeId, FQDN_MAX_WIRE_LEN};
pub use overload::{
    ControlSequenceNumber, LoadControlInformation, Metric, OciFlags, OverloadControlInformation,
};
pub use simple::{OffendingIe, RecoveryTimeStamp, NTP_UNIX_OFFSET};
pub use timer::{Timer, TimerUnit, TIMER_MAX_FINITE};

/// Octets of an IE's Type and Length fields.
pub const IE_HEADER_LEN: usize = 4;

/// An IE type code (Table 8.1.2-1). Types >= 32768 are vendor-specific.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct IeType(pub u16);

impl IeType {
    /// Whether the type is vendor-specific (bit 16 set), with an Enterprise ID (clause 8.1.1).
    pub const fn is_vendor(self) -> bool {
        self.0 & 0x8000 != 0
    }

    /// The spec name, or `None` for vendor and unknown types.
    pub const fn name(self) -> Option<&'static str> {
        type_table::name(self.0)
    }

    /// Whether TS 29.244 defines this type as a grouped IE (its body is a list of IEs).
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
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RawIe<'a> {
    ie_type: IeType,
    enterprise_id: Option<EnterpriseId>,
    length: u16,
    value: &'a [u8],
    offset: usize,
    path: IePath,
}

impl<'a> RawIe<'a> {
    /// The IE type.
    pub fn ie_type(&self) -> IeType {
        self.ie_type
    }

    /// The Enterprise ID of a vendor-specific IE.
    pub fn enterprise_id(&self) -> Option<EnterpriseId> {
        self.enterprise_id
    }

    /// The Length field as received (includes the Enterprise ID octets).
    pub fn length(&self) -> u16 {
        self.length
    }

    /// The body after Type, Length and (for vendor IEs) Enterprise ID.
    pub fn value(&self) -> &'a [u8] {
        self.value
    }

    /// Offset of the IE's Type field from the start of the decoded buffer.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// IE types from the top level down to and including this IE.
    pub fn path(&self) -> IePath {
        self.path
    }

    /// Octets this IE occupies on the wire.
    pub fn encoded_len(&self) -> usize {
        IE_HEADER_LEN + usize::from(self.length)
    }

    /// Offset of the first value octet (after the Enterprise ID for vendor IEs).
    pub fn value_offset(&self) -> usize {
        self.offset + IE_HEADER_LEN + if self.enterprise_id.is_some() { 2 } else { 0 }
    }

    /// The embedded IEs, reading the value as a grouped IE body (clause 7.2.3.3). Works on any
    /// IE; errors carry this IE's path.
    pub fn children(&self) -> IeIter<'a> {
        IeIter::with_path(self.value, self.value_offset(), self.path)
    }

    /// An error about this IE's content.
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.offset).with_path(self.path)
    }

    /// Decode this IE as the typed IE `T`, checking the type code first.
    pub fn decode_as<T: TypedIe<'a>>(&self) -> Result<T, DecodeError> {
        if self.ie_type != T::IE_TYPE {
            return Err(self.error(DecodeErrorKind::InvalidValue("unexpected IE type")));
        }
        T::decode(self)
    }
}

impl fmt::Debug for RawIe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RawIe");
        d.field("type", &self.ie_type);
        if let Some(e) = self.enterprise_id {
            d.field("enterprise_id", &e);
        }
        d.field("length", &self.length)
            .field("offset", &self.offset)
            .finish_non_exhaustive()
    }
}

/// A typed IE: decoded from a [`RawIe`] with a total function, encoded exactly.
pub trait TypedIe<'a>: Sized {
    /// The IE type code.
    const IE_TYPE: IeType;

    /// Decode the IE's body. Never panics; errors name the IE (path and offset).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError>;
}

/// Iterator over a list of IEs (a message body or a grouped IE's body).
///
/// Yields `Err` once and then stops if the list is malformed; IEs before the error are still
/// yielded (nothing already accepted is lost).
#[derive(Clone, Debug)]
pub struct IeIter<'a> {
    rest: &'a [u8],
    offset: usize,
    parent: IePath,
    failed: bool,
}

impl<'a> IeIter<'a> {
    /// Iterate the IEs in `body`, whose first octet is at `offset` in the caller's buffer.
    pub fn new(body: &'a [u8], offset: usize) -> Self {
        Self::with_path(body, offset, IePath::EMPTY)
    }

    pub(crate) fn with_path(body: &'a [u8], offset: usize, parent: IePath) -> Self {
        IeIter {
            rest: body,
            offset,
            parent,
            failed: false,
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

    fn fail(
        &mut self,
        kind: DecodeErrorKind,
        path: IePath,
    ) -> Option<Result<RawIe<'a>, DecodeError>> {
        self.failed = true;
        Some(Err(DecodeError::new(kind, self.offset).with_path(path)))
    }
}

impl<'a> Iterator for IeIter<'a> {
    type Item = Result<RawIe<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let (after_header, t, length) = match self.rest {
            [t0, t1, l0, l1, after_header @ ..] => (
                after_header,
                u16::from_be_bytes([*t0, *t1]),
                u16::from_be_bytes([*l0, *l1]),
            ),
            _ => {
                let available = self.rest.len();
                return self.fail(
                    DecodeErrorKind::IeHeaderTruncated { available },
                    self.parent,
                );
            }
        };
        let ie_type = IeType(t);
        let path = self.parent.push(ie_type);
        let (body, after) = match after_header.split_at_checked(usize::from(length)) {
            Some(v) => v,
            None => {
                let available = after_header.len();
                return self.fail(DecodeErrorKind::IeOverrun { length, available }, path);
            }
        };
        let (enterprise_id, value) = if ie_type.is_vendor() {
            match body {
                [a, b, value @ ..] => (Some(u16::from_be_bytes([*a, *b])), value),
                _ => return self.fail(DecodeErrorKind::VendorIeTooShort { length }, path),
            }
        } else {
            (None, body)
        };
        let ie = RawIe {
            ie_type,
            enterprise_id,
            length,
            value,
            offset: self.offset,
            path,
        };
        self.offset += IE_HEADER_LEN + usize::from(length);
        self.rest = after;
        Some(Ok(ie))
    }
}

/// Check the framing of an IE list and every grouped IE inside it (types TS 29.244 defines as
/// grouped), within `limits`. Iterative with a fixed-size stack: no recursion, no allocation.
///
/// Returns the number of IEs seen.
pub fn check_framing(
    body: &[u8],
    offset: usize,
    limits: DecodeLimits,
) -> Result<usize, DecodeError> {
    // One cursor over `body` and, per open grouped IE, where it ends and its type (for error
    // paths): a grouped IE's children are contiguous, so no per-level iterator is needed. The
    // depth limit bounds the stack; MAX_STACK bounds it again should a caller configure an
    // absurd depth. Errors are those `IeIter` gives (kind, offset, path).
    let max_depth = limits.max_depth.min(MAX_STACK);
    let mut ends = [0usize; MAX_STACK];
    let mut types = [0u16; MAX_STACK];
    // The path of the enclosing grouped IEs at `depth` (types[0] is the body's slot).
    let path_of = |types: &[u16; MAX_STACK], depth: usize| {
        types
            .iter()
            .take(depth)
            .skip(1)
            .fold(IePath::EMPTY, |p, &t| p.push(IeType(t)))
    };
    if let Some(e) = ends.first_mut() {
        *e = body.len();
    }
    let mut depth = 1usize;
    let mut pos = 0usize;
    let mut count = 0usize;
    loop {
        // Close every grouped IE (and finally the body) that ends here.
        let mut end = ends.get(depth - 1).copied().unwrap_or_default();
        while pos == end {
            depth -= 1;
            if depth == 0 {
                return Ok(count);
            }
            end = ends.get(depth - 1).copied().unwrap_or_default();
        }
        // pos < end.
        let (t, l) = match body.get(pos..end) {
            Some([t0, t1, l0, l1, ..]) => (
                u16::from_be_bytes([*t0, *t1]),
                u16::from_be_bytes([*l0, *l1]),
            ),
            _ => {
                let kind = DecodeErrorKind::IeHeaderTruncated {
                    available: end - pos,
                };
                return Err(DecodeError::new(kind, offset + pos).with_path(path_of(&types, depth)));
            }
        };
        let ie_type = IeType(t);
        let value_start = pos + IE_HEADER_LEN;
        let value_end = value_start + usize::from(l);
        let ie_error = |types: &[u16; MAX_STACK], kind| {
            DecodeError::new(kind, offset + pos).with_path(path_of(types, depth).push(ie_type))
        };
        if value_end > end {
            let kind = DecodeErrorKind::IeOverrun {
                length: l,
                available: end - value_start,
            };
            return Err(ie_error(&types, kind));
        }
        if ie_type.is_vendor() && l < 2 {
            let kind = DecodeErrorKind::VendorIeTooShort { length: l };
            return Err(ie_error(&types, kind));
        }
        count += 1;
        if count > limits.max_ies {
            let kind = DecodeErrorKind::TooManyIes {
                limit: limits.max_ies,
            };
            return Err(ie_error(&types, kind));
        }
        if ie_type.is_grouped() && l > 0 {
            if depth >= max_depth {
                let kind = DecodeErrorKind::DepthExceeded { limit: max_depth };
                return Err(ie_error(&types, kind));
            }
            if let (Some(e), Some(ty)) = (ends.get_mut(depth), types.get_mut(depth)) {
                *e = value_end;
                *ty = t;
            }
            depth += 1;
            pos = value_start;
        } else {
            pos = value_end;
        }
    }
}

/// Deepest nesting [`check_framing`] follows whatever the configured limit.
const MAX_STACK: usize = 64;

/// The iterator-based framing check [`check_framing`] replaced; the oracle for its errors.
#[cfg(test)]
fn check_framing_iter(
    body: &[u8],
    offset: usize,
    limits: DecodeLimits,
) -> Result<usize, DecodeError> {
    // One iterator per open grouped level. The depth limit bounds the stack; MAX_STACK bounds
    // it again should a caller configure an absurd depth.
    let max_depth = limits.max_depth.min(MAX_STACK);
    let mut stack: [Option<IeIter<'_>>; MAX_STACK] = [const { None }; MAX_STACK];
    let mut depth = 1usize;
    if let Some(slot) = stack.first_mut() {
        *slot = Some(IeIter::new(body, offset));
    }
    let mut count = 0usize;
    while depth > 0 {
        let next = match stack.get_mut(depth - 1).and_then(Option::as_mut) {
            Some(it) => it.next(),
            None => None,
        };
        match next {
            None => {
                depth -= 1;
            }
            Some(Err(e)) => return Err(e),
            Some(Ok(ie)) => {
                count += 1;
                if count > limits.max_ies {
                    return Err(ie.error(DecodeErrorKind::TooManyIes {
                        limit: limits.max_ies,
                    }));
                }
                if ie.ie_type.is_grouped() && !ie.value.is_empty() {
                    if depth >= max_depth {
                        return Err(ie.error(DecodeErrorKind::DepthExceeded { limit: max_depth }));
                    }
                    if let Some(slot) = stack.get_mut(depth) {
                        *slot = Some(ie.children());
                        depth += 1;
                    }
                }
            }
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_ie_carries_enterprise_id() {
        // Digest 3.1: type 32769, len 4, EID 18681, data aa bb.
        let b = [0x80, 0x01, 0x00, 0x04, 0x48, 0xf9, 0xaa, 0xbb];
        let ie = IeIter::new(&b, 0).next().unwrap().unwrap();
        assert_eq!(ie.ie_type(), IeType(32769));
        assert_eq!(ie.enterprise_id(), Some(18681));
        assert_eq!(ie.value(), &[0xaa, 0xbb]);
        assert_eq!(ie.length(), 4);
    }

    #[test]
    fn zero_length_ie_is_legal() {
        let b = [0x00, 0x13, 0x00, 0x00, 0x00, 0x60, 0x00, 0x00];
        let ies: Vec<_> = IeIter::new(&b, 0).collect::<Result<_, _>>().unwrap();
        assert_eq!(ies.len(), 2);
        assert!(ies.iter().all(|ie| ie.value().is_empty()));
    }

    #[test]
    fn overrun_keeps_earlier_ies_and_names_the_ie() {
        let b = [0x00, 0x13, 0x00, 0x01, 0x01, 0x00, 0x60, 0x00, 0x09, 0x00];
        let mut it = IeIter::new(&b, 16);
        assert!(it.next().unwrap().is_ok());
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(e.offset, 21);
        assert_eq!(e.path.innermost(), Some(IeType(96)));
        assert!(matches!(
            e.kind,
            DecodeErrorKind::IeOverrun {
                length: 9,
                available: 1
            }
        ));
        assert!(it.next().is_none());
    }

    #[test]
    fn depth_bomb_is_an_error() {
        // 40 nested OCIs (type 54), innermost empty.
        let depth = 40;
        let mut b = Vec::new();
        for i in 0..depth {
            let len = (depth - 1 - i) * 4;
            b.extend_from_slice(&[0x00, 0x36]);
            b.extend_from_slice(&(len as u16).to_be_bytes());
        }
        let e = check_framing(&b, 0, DecodeLimits::DEFAULT).unwrap_err();
        assert!(matches!(
            e.kind,
            DecodeErrorKind::DepthExceeded { limit: 16 }
        ));
        assert_eq!(e.path.depth(), 16);
    }

    /// `check_framing` gives exactly what the iterator-based check gives (count, or error kind,
    /// offset and path), on valid bodies and on every truncation and many one-octet mutations.
    #[test]
    fn check_framing_agrees_with_iterator() {
        let seeds: [&[u8]; 4] = [
            // Digest 4.14 Session Establishment Request body (Create PDR with PDI, Create FAR).
            &[
                0x00, 0x3c, 0x00, 0x05, 0x00, 0xc0, 0x00, 0x02, 0x0a, 0x00, 0x39, 0x00, 0x0d, 0x02,
                0, 0, 0, 0, 0, 0, 0, 1, 0xc0, 0x00, 0x02, 0x0a, 0x00, 0x01, 0x00, 0x1f, 0x00, 0x38,
                0x00, 0x02, 0x00, 0x01, 0x00, 0x1d, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, 0x00, 0x02,
                0x00, 0x05, 0x00, 0x14, 0x00, 0x01, 0x00, 0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00,
                0x01, 0x00, 0x03, 0x00, 0x0d, 0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00,
                0x2c, 0x00, 0x01, 0x02,
            ],
            // OCI then LCI (digest 1.6).
            &[
                0x00, 0x36, 0x00, 0x17, 0x00, 0x34, 0x00, 0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x35,
                0x00, 0x01, 0x1e, 0x00, 0x37, 0x00, 0x01, 0x22, 0x00, 0x6e, 0x00, 0x01, 0x01, 0x00,
                0x33, 0x00, 0x0d, 0x00, 0x34, 0x00, 0x04, 0x00, 0x00, 0x00, 0x07, 0x00, 0x35, 0x00,
                0x01, 0x37,
            ],
            // Vendor IE, empty grouped IE, zero-length IE, nested empty group at the end.
            &[
                0x80, 0x01, 0x00, 0x04, 0x48, 0xf9, 0xaa, 0xbb, 0x00, 0x01, 0x00, 0x00, 0x00, 0x13,
                0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x02, 0x00, 0x04, 0x00, 0x03, 0x00, 0x00,
            ],
            &[],
        ];
        let limits = [
            DecodeLimits::DEFAULT,
            DecodeLimits::new(2, 4096),
            DecodeLimits::new(1, 5),
            DecodeLimits::new(0, 0),
            DecodeLimits::new(3, 3),
            DecodeLimits::new(100, 100),
        ];
        let check = |b: &[u8]| {
            for l in limits {
                let got = check_framing(b, 7, l);
                assert_eq!(got, check_framing_iter(b, 7, l), "{b:02x?} {l:?}");
            }
        };
        for seed in seeds {
            for n in 0..=seed.len() {
                check(&seed[..n]);
            }
            for i in 0..seed.len() {
                let near = [seed[i] ^ 1, seed[i].wrapping_add(1)];
                for v in [0x00, 0x01, 0x02, 0x04, 0x36, 0x80, 0xff]
                    .into_iter()
                    .chain(near)
                {
                    let mut b = seed.to_vec();
                    b[i] = v;
                    check(&b);
                }
            }
        }
    }

    #[test]
    fn ie_count_limit() {
        let b = [0u8, 200, 0, 0].repeat(10);
        assert_eq!(check_framing(&b, 0, DecodeLimits::new(4, 10)).unwrap(), 10);
        assert!(matches!(
            check_framing(&b, 0, DecodeLimits::new(4, 9))
                .unwrap_err()
                .kind,
            DecodeErrorKind::TooManyIes { limit: 9 }
        ));
    }
}
