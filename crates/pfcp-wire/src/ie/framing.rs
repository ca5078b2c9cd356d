//! The framing check (TS 29.244 clauses 8.1.1 and 7.2.3.3): every IE of a message, grouped
//! IEs opened, within [`DecodeLimits`]; and [`walk_checked`], the top-level walk that checks
//! each grouped IE's interior when it reaches it (the one walk of
//! [`crate::Message::decode_view`]).

use super::{path_at, read_tlv, RawIe, Tlv, IE_HEADER_LEN};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::ie::DecodeLimits;

/// Check the framing of an IE list and every grouped IE inside it (types TS 29.244 defines as
/// grouped), within `limits`. Iterative with a fixed-size stack: no recursion, no allocation.
///
/// Returns the number of IEs seen.
///
/// # Examples
///
/// ```
/// use pfcp_wire::ie::{check_framing, DecodeLimits, IeType};
/// use pfcp_wire::Cause;
///
/// // Clause 8.1.1 TLVs: a Recovery Time Stamp (type 96), then a Create FAR (type 3, grouped)
/// // holding a FAR ID (type 108, value 1).
/// let body = [0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0,
///             0x00, 0x03, 0x00, 0x08, 0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01];
/// assert_eq!(check_framing(&body, 0, DecodeLimits::DEFAULT)?, 3); // the member counts
///
/// // The FAR ID's Length overruns the Create FAR it sits in (clause 7.2.3.3).
/// let mut bad = body;
/// bad[15] = 0x05;
/// let err = check_framing(&bad, 0, DecodeLimits::DEFAULT).err().ok_or("accepted")?;
/// assert_eq!(err.cause(), Cause::INVALID_LENGTH);
/// assert_eq!(err.path.outermost(), Some(IeType::CREATE_FAR));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_framing(
    body: &[u8],
    offset: usize,
    limits: DecodeLimits,
) -> Result<usize, DecodeError> {
    check_framing_in(body, offset, body, 0, 0, limits)
}

/// The framing check of `list`, a part of `body` (the message body at `offset`) whose IEs are
/// at nesting depth `depth + 1`, with `count` IEs already seen: what [`check_framing`] does
/// for `body`, resumable at any group, so that a walk that reads the top level itself (the
/// one walk of [`crate::Message::decode_view`]) checks each grouped IE's interior when it
/// reaches it, with the same errors (kind, offset, path) in the same order. Returns the new
/// count.
#[inline]
pub(crate) fn check_framing_in(
    body: &[u8],
    offset: usize,
    list: &[u8],
    depth: usize,
    count: usize,
    limits: DecodeLimits,
) -> Result<usize, DecodeError> {
    // Every IE has its own 4-octet header inside `list`, so `list` holds at most
    // `list.len() / 4` IEs, nested ones included: when that cannot pass `max_ies`, the walk
    // does not compare the count at every IE.
    let counted = count.saturating_add(list.len() / IE_HEADER_LEN) > limits.max_ies;
    // A stack sized for the default depth unless a caller asks for more (the stack is zeroed
    // on every call, so it is kept as small as the limit allows), of 16-bit entries when the
    // list is no longer than a Length field can say (a grouped IE's value always is).
    match (
        limits.max_depth <= SMALL_STACK,
        u16::try_from(list.len()).is_ok(),
        counted,
    ) {
        (true, true, false) => {
            check_framing_with::<u16, SMALL_STACK, false>(body, offset, list, depth, count, limits)
        }
        (true, true, true) => {
            check_framing_with::<u16, SMALL_STACK, true>(body, offset, list, depth, count, limits)
        }
        _ => check_framing_with::<usize, MAX_STACK, true>(body, offset, list, depth, count, limits),
    }
}

/// An entry of the framing check's stack: the octets a container has left after an open
/// grouped IE (at most the list's length).
trait Left: Copy + Default {
    fn new(left: usize) -> Self;
    fn get(self) -> usize;
}

impl Left for u16 {
    #[inline(always)]
    fn new(left: usize) -> u16 {
        // The list is at most `u16::MAX` octets (checked by the caller).
        left as u16
    }
    #[inline(always)]
    fn get(self) -> usize {
        usize::from(self)
    }
}

impl Left for usize {
    #[inline(always)]
    fn new(left: usize) -> usize {
        left
    }
    #[inline(always)]
    fn get(self) -> usize {
        self
    }
}

/// [`check_framing_in`] with room for `N` levels (the limit is also clamped to [`MAX_STACK`]),
/// `L` per level; `COUNTED`: compare the count with `limits.max_ies` at every IE (only
/// needed when the list could hold more).
#[inline]
fn check_framing_with<L: Left, const N: usize, const COUNTED: bool>(
    body: &[u8],
    offset: usize,
    list: &[u8],
    depth: usize,
    mut count: usize,
    limits: DecodeLimits,
) -> Result<usize, DecodeError> {
    // One cursor over `list`: `rest`, the rest of the innermost open container, and per open
    // grouped IE the number of octets its container has left after it. A grouped IE's
    // children are contiguous, so no per-level iterator is needed. Errors are those `IeIter`
    // gives (kind, offset, path); the path is rebuilt by `path_at` only when there is one.
    let max_depth = limits.max_depth.min(N).min(MAX_STACK);
    let mut after_group = [L::default(); N];
    // Open grouped IEs; the IE at the front of `rest` is at nesting depth `depth + open + 1`.
    let mut open = 0usize;
    let mut rest = list;
    let pos_of = |rest: &[u8]| rest.as_ptr().addr().wrapping_sub(body.as_ptr().addr());
    loop {
        // Close every grouped IE (and finally the list) that ends here.
        while rest.is_empty() {
            if open == 0 {
                return Ok(count);
            }
            open -= 1;
            let left = after_group.get(open).copied().unwrap_or_default().get();
            let pos = pos_of(rest);
            rest = body.get(pos..pos.wrapping_add(left)).unwrap_or_default();
        }
        let tlv = if COUNTED {
            read_counted(body, offset, pos_of(rest), rest, &mut count, limits)?
        } else {
            count += 1;
            read_framed(body, offset, pos_of(rest), rest)?
        };
        if tlv.ie_type.is_grouped() && tlv.length > 0 {
            if depth + open + 1 >= max_depth {
                let kind = DecodeErrorKind::DepthExceeded { limit: max_depth };
                return Err(framing_error(body, offset, pos_of(rest), kind, true));
            }
            if let Some(slot) = after_group.get_mut(open) {
                *slot = L::new(tlv.after.len());
            }
            open += 1;
            rest = tlv.value;
        } else {
            rest = tlv.after;
        }
    }
}

/// The IE at the front of `rest` (at `pos` in `body`), with the framing check's errors.
#[inline(always)]
fn read_framed<'a>(
    body: &[u8],
    offset: usize,
    pos: usize,
    rest: &'a [u8],
) -> Result<Tlv<'a>, DecodeError> {
    match read_tlv(rest) {
        Ok(tlv) => Ok(tlv),
        Err(e) => {
            let (kind, include_self) = e.kind();
            Err(framing_error(body, offset, pos, kind, include_self))
        }
    }
}

/// The IE at the front of `rest` (at `pos` in `body`), counted against `limits.max_ies`: the
/// step both walks share, with their errors (kind, offset, path).
#[inline(always)]
fn read_counted<'a>(
    body: &[u8],
    offset: usize,
    pos: usize,
    rest: &'a [u8],
    count: &mut usize,
    limits: DecodeLimits,
) -> Result<Tlv<'a>, DecodeError> {
    let tlv = match read_tlv(rest) {
        Ok(tlv) => tlv,
        Err(e) => {
            let (kind, include_self) = e.kind();
            return Err(framing_error(body, offset, pos, kind, include_self));
        }
    };
    *count += 1;
    if *count > limits.max_ies {
        let kind = DecodeErrorKind::TooManyIes {
            limit: limits.max_ies,
        };
        return Err(framing_error(body, offset, pos, kind, true));
    }
    Ok(tlv)
}

/// Read the IE list `body` (at `offset` in the caller's buffer) once: each top-level IE is
/// handed to `visit` after its interior's framing is checked, in order, and the walk stops at
/// the first framing error. The result is exactly [`check_framing`]'s (the count, or the same
/// error: kind, offset, path), so a caller gets `decode`'s verdict and its own per-IE work
/// from one pass. `visit` never sees an IE that follows a framing error.
#[inline(always)]
pub(crate) fn walk_checked<'a>(
    body: &'a [u8],
    offset: usize,
    limits: DecodeLimits,
    mut visit: impl FnMut(RawIe<'a>),
) -> Result<usize, DecodeError> {
    let mut rest = body;
    let mut count = 0usize;
    let pos_of = |rest: &[u8]| rest.as_ptr().addr().wrapping_sub(body.as_ptr().addr());
    while !rest.is_empty() {
        let tlv = read_counted(body, offset, pos_of(rest), rest, &mut count, limits)?;
        if tlv.ie_type.is_grouped() && tlv.length > 0 {
            let max_depth = limits.max_depth.min(MAX_STACK);
            if max_depth <= 1 {
                let kind = DecodeErrorKind::DepthExceeded { limit: max_depth };
                return Err(framing_error(body, offset, pos_of(rest), kind, true));
            }
            count = check_framing_in(body, offset, tlv.value, 1, count, limits)?;
        }
        visit(RawIe {
            value: tlv.value,
            root: body,
            root_offset: offset,
            ie_type: tlv.ie_type,
        });
        rest = tlv.after;
    }
    Ok(count)
}

/// The error `check_framing` reports at `pos` of `body`.
#[cold]
#[inline(never)]
fn framing_error(
    body: &[u8],
    offset: usize,
    pos: usize,
    kind: DecodeErrorKind,
    include_self: bool,
) -> DecodeError {
    DecodeError::new(kind, offset.wrapping_add(pos)).with_path(path_at(body, pos, include_self))
}

/// Stack of [`check_framing`] for limits up to the default depth.
const SMALL_STACK: usize = 16;

/// Deepest nesting [`check_framing`] follows whatever the configured limit.
pub(crate) const MAX_STACK: usize = 64;
