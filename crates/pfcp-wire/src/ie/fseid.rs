//! F-SEID IE (type 57, TS 29.244 clause 8.2.37).
//!
//! ```text
//! octet 5    : spare (bits 8-3) | V4 (bit 2) | V6 (bit 1)
//! octets 6-13: SEID
//! then       : IPv4 address if V4, then IPv6 address if V6
//! ```

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::encode::Sink;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::ie::{IeType, RawIe, TypedIe};

const V6: u8 = 0x01;
const V4: u8 = 0x02;

/// F-SEID: a session endpoint identifier and the address of the PFCP entity that allocated it.
///
/// The address in the UP function's F-SEID is the default owner of an OCI (clause 6.2.4.3.1).
///
/// # Examples
///
/// ```
/// use std::net::Ipv4Addr;
/// use pfcp_wire::encode::{encode_typed, SliceSink};
/// use pfcp_wire::ie::{FSeid, IeIter, TypedIe};
///
/// let f_seid = FSeid { seid: 0x1234, ipv4: Some(Ipv4Addr::new(192, 0, 2, 1)), ipv6: None };
/// let mut buf = [0u8; 32];
/// let mut sink = SliceSink::new(&mut buf);
/// encode_typed(&f_seid, &mut sink)?;
/// // Clause 8.2.37: type 57, Length 13, flags (V4 = bit 2), the SEID, the IPv4 address.
/// let wire = [0x00, 0x39, 0x00, 0x0d, 0x02,
///             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 192, 0, 2, 1];
/// assert_eq!(sink.written(), &wire);
///
/// let ie = IeIter::new(&wire, 0).next().ok_or("no IE")??;
/// assert_eq!(FSeid::decode(&ie)?, f_seid);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FSeid {
    /// The SEID.
    pub seid: u64,
    /// The IPv4 address (V4 flag).
    pub ipv4: Option<Ipv4Addr>,
    /// The IPv6 address (V6 flag).
    pub ipv6: Option<Ipv6Addr>,
}

impl<'a> TypedIe<'a> for FSeid {
    const IE_TYPE: IeType = IeType::F_SEID;

    /// At least one of V4/V6 must be set (clause 8.2.37); the addresses the flags announce must
    /// be present. Octets after them are ignored (extendable IE).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        let v = ie.value();
        let short = |needed: usize| {
            ie.error(DecodeErrorKind::IeTooShort {
                needed,
                length: v.len(),
            })
        };
        let (&flags, rest) = v.split_first().ok_or_else(|| short(9))?;
        let seid: [u8; 8] = rest
            .get(..8)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| short(9))?;
        let mut needed = 9;
        let ipv4 = if flags & V4 != 0 {
            let a: [u8; 4] = v
                .get(needed..needed + 4)
                .and_then(|s| s.try_into().ok())
                .ok_or_else(|| short(needed + 4))?;
            needed += 4;
            Some(Ipv4Addr::from(a))
        } else {
            None
        };
        let ipv6 = if flags & V6 != 0 {
            let a: [u8; 16] = v
                .get(needed..needed + 16)
                .and_then(|s| s.try_into().ok())
                .ok_or_else(|| short(needed + 16))?;
            Some(Ipv6Addr::from(a))
        } else {
            None
        };
        if ipv4.is_none() && ipv6.is_none() {
            return Err(ie.error(DecodeErrorKind::InvalidValue(
                "F-SEID with neither V4 nor V6 set",
            )));
        }
        Ok(FSeid {
            seid: u64::from_be_bytes(seid),
            ipv4,
            ipv6,
        })
    }
    fn value_len(&self) -> usize {
        9 + self.ipv4.map_or(0, |_| 4) + self.ipv6.map_or(0, |_| 16)
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        let flags = self.ipv4.map_or(0, |_| V4) | self.ipv6.map_or(0, |_| V6);
        if flags == 0 {
            return Err(EncodeError::InvalidValue(
                "F-SEID needs an IPv4 or IPv6 address",
            ));
        }
        out.put(&[flags])?;
        out.put(&self.seid.to_be_bytes())?;
        if let Some(a) = self.ipv4 {
            out.put(&a.octets())?;
        }
        if let Some(a) = self.ipv6 {
            out.put(&a.octets())?;
        }
        Ok(())
    }
}

crate::encode::impl_encode!(FSeid);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::Encode;
    use crate::ie::IeIter;

    // Digest 4.8: SEID 0x1122334455667788, 198.51.100.7.
    const V4_IE: [u8; 17] = [
        0x00, 0x39, 0x00, 0x0d, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xc6, 0x33,
        0x64, 0x07,
    ];

    #[test]
    fn spec_example() {
        let ie = IeIter::new(&V4_IE, 0).next().unwrap().unwrap();
        let f: FSeid = ie.decode_as().unwrap();
        assert_eq!(f.seid, 0x1122_3344_5566_7788);
        assert_eq!(f.ipv4, Some(Ipv4Addr::new(198, 51, 100, 7)));
        assert_eq!(f.ipv6, None);
        let mut v = Vec::new();
        f.encode(&mut v).unwrap();
        assert_eq!(v, V4_IE);
    }

    #[test]
    fn inconsistent_flags() {
        let mut b = V4_IE.to_vec();
        b[4] = 0x03; // V4 and V6 but only the IPv4 address.
        let ie = IeIter::new(&b, 0).next().unwrap().unwrap();
        assert!(matches!(
            ie.decode_as::<FSeid>().unwrap_err().kind,
            DecodeErrorKind::IeTooShort {
                needed: 29,
                length: 13
            }
        ));
        b[4] = 0x00;
        let ie = IeIter::new(&b, 0).next().unwrap().unwrap();
        assert!(matches!(
            ie.decode_as::<FSeid>().unwrap_err().kind,
            DecodeErrorKind::InvalidValue(_)
        ));
    }
}
