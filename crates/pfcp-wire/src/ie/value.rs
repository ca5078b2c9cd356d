//! The value parsers of typed IEs: nom combinators over an IE's value, with an error type that
//! costs nothing on success and maps to [`DecodeError`] (the IE's offset and path).
//!
//! nom stays private to the crate: no nom type appears in the public API. Its combinators
//! (`cond`, `map`, `verify`, ...) carry the flag-dependent layouts of clause 8.2 (F-TEID, UE
//! IP Address, Outer Header Creation, Volume Measurement, SDF Filter); the primitives below read
//! fixed-size fields and record how many octets the failing field needed, so that a short IE
//! reports `IeTooShort { needed, length }` like the hand-written decoders do.

use nom::IResult;

use crate::error::{DecodeError, DecodeErrorKind};
use crate::ie::RawIe;

/// Why a value parser stopped: where (octets left at the failing field) and what. `Copy`, two
/// words: building it is the only cost of the error path and success never touches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ValueError {
    /// Octets of the value left when the failing field started.
    remaining: usize,
    kind: Failure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// The field needs this many octets and fewer are left.
    Short(usize),
    /// A value TS 29.244 reserves or forbids.
    Invalid(&'static str),
    /// A nom combinator failed (only `verify` without a message can: reported as invalid).
    Nom,
}

impl<'a> nom::error::ParseError<&'a [u8]> for ValueError {
    fn from_error_kind(input: &'a [u8], _kind: nom::error::ErrorKind) -> Self {
        ValueError {
            remaining: input.len(),
            kind: Failure::Nom,
        }
    }

    fn append(_input: &'a [u8], _kind: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
}

/// A value parser's result.
pub(crate) type PResult<'a, T> = IResult<&'a [u8], T, ValueError>;

/// Fail with a reserved or forbidden value at `input`.
#[cold]
pub(crate) fn invalid<'a, T>(input: &'a [u8], what: &'static str) -> PResult<'a, T> {
    Err(nom::Err::Error(ValueError {
        remaining: input.len(),
        kind: Failure::Invalid(what),
    }))
}

#[cold]
fn short<T>(input: &[u8], needed: usize) -> PResult<'_, T> {
    Err(nom::Err::Error(ValueError {
        remaining: input.len(),
        kind: Failure::Short(needed),
    }))
}

/// `N` octets.
#[inline]
pub(crate) fn array<const N: usize>(input: &[u8]) -> PResult<'_, [u8; N]> {
    match input.split_first_chunk::<N>() {
        Some((a, rest)) => Ok((rest, *a)),
        None => short(input, N),
    }
}

/// One octet.
#[inline]
pub(crate) fn u8_(input: &[u8]) -> PResult<'_, u8> {
    match input.split_first() {
        Some((&b, rest)) => Ok((rest, b)),
        None => short(input, 1),
    }
}

/// A big-endian 16-bit field.
#[inline]
pub(crate) fn be_u16(input: &[u8]) -> PResult<'_, u16> {
    array::<2>(input).map(|(r, a)| (r, u16::from_be_bytes(a)))
}

/// A big-endian 24-bit field.
#[inline]
pub(crate) fn be_u24(input: &[u8]) -> PResult<'_, u32> {
    array::<3>(input).map(|(r, [a, b, c])| (r, u32::from_be_bytes([0, a, b, c])))
}

/// A big-endian 32-bit field.
#[inline]
pub(crate) fn be_u32(input: &[u8]) -> PResult<'_, u32> {
    array::<4>(input).map(|(r, a)| (r, u32::from_be_bytes(a)))
}

/// A big-endian 40-bit field (the bit rates of MBR and GBR, clause 8.2.8).
#[inline]
pub(crate) fn be_u40(input: &[u8]) -> PResult<'_, u64> {
    array::<5>(input).map(|(r, [a, b, c, d, e])| (r, u64::from_be_bytes([0, 0, 0, a, b, c, d, e])))
}

/// A big-endian 64-bit field.
#[inline]
pub(crate) fn be_u64(input: &[u8]) -> PResult<'_, u64> {
    array::<8>(input).map(|(r, a)| (r, u64::from_be_bytes(a)))
}

/// An IPv4 address.
#[inline]
pub(crate) fn ipv4(input: &[u8]) -> PResult<'_, std::net::Ipv4Addr> {
    array::<4>(input).map(|(r, a)| (r, std::net::Ipv4Addr::from(a)))
}

/// An IPv6 address.
#[inline]
pub(crate) fn ipv6(input: &[u8]) -> PResult<'_, std::net::Ipv6Addr> {
    array::<16>(input).map(|(r, a)| (r, std::net::Ipv6Addr::from(a)))
}

/// `n` octets.
#[inline]
pub(crate) fn take(n: usize) -> impl Fn(&[u8]) -> PResult<'_, &[u8]> {
    move |input: &[u8]| match input.split_at_checked(n) {
        Some((a, rest)) => Ok((rest, a)),
        None => short(input, n),
    }
}

/// Run `parser` over `ie`'s value. Octets after what the parser reads are ignored (clause
/// 8.1.1: an IE may be extended in later releases). Errors become a [`DecodeError`] at the
/// IE, with its path; a short field reports the octets needed up to its end.
#[inline]
pub(crate) fn parse_value<'a, T>(
    ie: &RawIe<'a>,
    parser: impl FnOnce(&'a [u8]) -> PResult<'a, T>,
) -> Result<T, DecodeError> {
    match parser(ie.value()) {
        Ok((_, v)) => Ok(v),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(value_error(ie, e)),
        Err(nom::Err::Incomplete(_)) => Err(value_error(
            ie,
            ValueError {
                remaining: 0,
                kind: Failure::Short(1),
            },
        )),
    }
}

/// [`parse_value`] for a fixed-size IE: the value must be exactly what the parser reads
/// (clause 7.6: Cause 68 otherwise).
#[inline]
pub(crate) fn parse_fixed<'a, T>(
    ie: &RawIe<'a>,
    parser: impl FnOnce(&'a [u8]) -> PResult<'a, T>,
) -> Result<T, DecodeError> {
    match parser(ie.value()) {
        Ok(([], v)) => Ok(v),
        Ok((rest, _)) => Err(ie.error(DecodeErrorKind::IeLengthMismatch {
            expected: ie.value().len() - rest.len(),
            length: ie.value().len(),
        })),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(value_error(ie, e)),
        Err(nom::Err::Incomplete(_)) => Err(value_error(
            ie,
            ValueError {
                remaining: 0,
                kind: Failure::Short(1),
            },
        )),
    }
}

#[cold]
#[inline(never)]
fn value_error(ie: &RawIe<'_>, e: ValueError) -> DecodeError {
    let length = ie.value().len();
    let at = length.saturating_sub(e.remaining);
    let kind = match e.kind {
        Failure::Short(n) => DecodeErrorKind::IeTooShort {
            needed: at + n,
            length,
        },
        Failure::Invalid(what) => DecodeErrorKind::InvalidValue(what),
        Failure::Nom => DecodeErrorKind::InvalidValue("field value out of range"),
    };
    ie.error(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ie::IeIter;
    use nom::combinator::cond;
    use nom::sequence::tuple;

    fn ie(bytes: &[u8]) -> RawIe<'_> {
        IeIter::new(bytes, 0).next().unwrap().unwrap()
    }

    #[test]
    fn short_fields_report_the_octets_needed() {
        // Type 56 (PDR ID), 1 octet of 2.
        let b = [0, 56, 0, 1, 7];
        let e = parse_value(&ie(&b), be_u16).unwrap_err();
        assert_eq!(
            e.kind,
            DecodeErrorKind::IeTooShort {
                needed: 2,
                length: 1
            }
        );
        assert_eq!((e.offset, e.path.depth()), (0, 1));
        // A flag-announced field: flag octet, then a 4-octet field of which 2 are there.
        let b = [0, 21, 0, 3, 1, 0xaa, 0xbb];
        let p = |i| tuple((u8_, cond(true, be_u32)))(i);
        let e = parse_value(&ie(&b), p).unwrap_err();
        assert_eq!(
            e.kind,
            DecodeErrorKind::IeTooShort {
                needed: 5,
                length: 3
            }
        );
    }

    #[test]
    fn fixed_values_must_fill_the_ie() {
        let b = [0, 56, 0, 3, 0, 7, 0];
        let e = parse_fixed(&ie(&b), be_u16).unwrap_err();
        assert_eq!(
            e.kind,
            DecodeErrorKind::IeLengthMismatch {
                expected: 2,
                length: 3
            }
        );
        assert_eq!(parse_value(&ie(&b), be_u16).unwrap(), 7);
        let b = [0, 20, 0, 1, 0x0f];
        let e = parse_value(&ie(&b), |i| {
            let (i, v) = u8_(i)?;
            if v > 4 {
                return invalid(i, "reserved");
            }
            Ok((i, v))
        })
        .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::InvalidValue("reserved"));
        assert_eq!(e.cause(), crate::Cause::MANDATORY_IE_INCORRECT);
    }
}
