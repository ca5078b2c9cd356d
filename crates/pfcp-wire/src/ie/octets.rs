//! IEs that carry octet strings: Network Instance (type 22, clause 8.2.4), Application ID
//! (type 24, clause 8.2.6) and SDF Filter (type 23, clause 8.2.5).
//!
//! Decoding borrows the octets from the message (`Cow::Borrowed`, no allocation);
//! [`IntoOwned::into_owned`] copies them for a value that outlives the buffer.
//!
//! ```text
//! SDF Filter  octet 5: spare | BID | FL | SPI | TTC | FD      octet 6: spare
//!             FD:  Length of Flow Description (2), Flow Description (IPFilterRule, RFC 6733)
//!             TTC: ToS Traffic Class (2)   SPI: Security Parameter Index (4)
//!             FL:  Flow Label (3)          BID: SDF Filter ID (4)
//! ```

use std::borrow::Cow;

use nom::combinator::cond;

use crate::encode::Sink;
use crate::error::{DecodeError, EncodeError};
use crate::ie::value::{be_u16, be_u24, be_u32, parse_value, take, u8_};
use crate::ie::{IeType, IntoOwned, RawIe, TypedIe};

macro_rules! octets_ie {
    ($(#[$doc:meta])* $name:ident, $code:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(transparent))]
        pub struct $name<'a>(
            #[cfg_attr(feature = "serde", serde(with = "crate::owned::cow_hex"))]
            pub Cow<'a, [u8]>,
        );

        impl<'a> $name<'a> {
            /// The value borrowing `octets`.
            pub const fn new(octets: &'a [u8]) -> $name<'a> {
                $name(Cow::Borrowed(octets))
            }

            /// The octets.
            pub fn as_bytes(&self) -> &[u8] {
                &self.0
            }
        }

        impl IntoOwned for $name<'_> {
            type Owned = $name<'static>;
            fn into_owned(self) -> $name<'static> {
                $name(Cow::Owned(self.0.into_owned()))
            }
        }

        impl<'a> TypedIe<'a> for $name<'a> {
            const IE_TYPE: IeType = IeType::$code;
            #[inline]
            fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
                Ok($name(Cow::Borrowed(ie.value())))
            }
            fn value_len(&self) -> usize {
                self.0.len()
            }
            fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                out.put(&self.0)
            }
        }

        crate::encode::impl_encode!($name<'_>);
    };
}

octets_ie!(
    /// Network Instance: the network (APN/DNN, VRF...) a PDI or FAR refers to; free octets,
    /// often a DNN in label form (clause 8.2.4).
    NetworkInstance,
    NETWORK_INSTANCE
);
octets_ie!(
    /// Application ID: an application the UP function detects, as configured there
    /// (clause 8.2.6).
    ApplicationId,
    APPLICATION_ID
);

const FD: u8 = 0x01;
const TTC: u8 = 0x02;
const SPI: u8 = 0x04;
const FL: u8 = 0x08;
const BID: u8 = 0x10;

/// SDF Filter: a packet filter of a PDI (clause 8.2.5).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SdfFilter<'a> {
    /// Flow Description (FD): an IPFilterRule (RFC 6733), e.g.
    /// `permit out ip from any to assigned`.
    #[cfg_attr(feature = "serde", serde(with = "crate::owned::opt_cow_hex", default))]
    pub flow_description: Option<Cow<'a, [u8]>>,
    /// ToS Traffic Class (TTC): type of service and mask.
    pub tos_traffic_class: Option<u16>,
    /// Security Parameter Index (SPI).
    pub security_parameter_index: Option<u32>,
    /// Flow Label (FL), 24 bits.
    pub flow_label: Option<u32>,
    /// SDF Filter ID (BID).
    pub sdf_filter_id: Option<u32>,
}

impl<'a> SdfFilter<'a> {
    /// A filter with a flow description only.
    pub fn flow(description: &'a [u8]) -> SdfFilter<'a> {
        SdfFilter {
            flow_description: Some(Cow::Borrowed(description)),
            ..SdfFilter::default()
        }
    }
}

impl IntoOwned for SdfFilter<'_> {
    type Owned = SdfFilter<'static>;
    fn into_owned(self) -> SdfFilter<'static> {
        SdfFilter {
            flow_description: self.flow_description.map(|d| Cow::Owned(d.into_owned())),
            tos_traffic_class: self.tos_traffic_class,
            security_parameter_index: self.security_parameter_index,
            flow_label: self.flow_label,
            sdf_filter_id: self.sdf_filter_id,
        }
    }
}

impl<'a> TypedIe<'a> for SdfFilter<'a> {
    const IE_TYPE: IeType = IeType::SDF_FILTER;

    /// The fields the flags announce, in order (clause 8.2.5).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        parse_value(ie, |i| {
            let (i, flags) = u8_(i)?;
            let (i, _spare) = u8_(i)?;
            let (i, flow_description) = cond(flags & FD != 0, |i| {
                let (i, n) = be_u16(i)?;
                take(usize::from(n))(i)
            })(i)?;
            let (i, tos_traffic_class) = cond(flags & TTC != 0, be_u16)(i)?;
            let (i, security_parameter_index) = cond(flags & SPI != 0, be_u32)(i)?;
            let (i, flow_label) = cond(flags & FL != 0, be_u24)(i)?;
            let (i, sdf_filter_id) = cond(flags & BID != 0, be_u32)(i)?;
            Ok((
                i,
                SdfFilter {
                    flow_description: flow_description.map(Cow::Borrowed),
                    tos_traffic_class,
                    security_parameter_index,
                    flow_label,
                    sdf_filter_id,
                },
            ))
        })
    }

    fn value_len(&self) -> usize {
        2 + self.flow_description.as_ref().map_or(0, |d| 2 + d.len())
            + self.tos_traffic_class.map_or(0, |_| 2)
            + self.security_parameter_index.map_or(0, |_| 4)
            + self.flow_label.map_or(0, |_| 3)
            + self.sdf_filter_id.map_or(0, |_| 4)
    }

    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        let f = |b: bool, v: u8| if b { v } else { 0 };
        let flags = f(self.flow_description.is_some(), FD)
            | f(self.tos_traffic_class.is_some(), TTC)
            | f(self.security_parameter_index.is_some(), SPI)
            | f(self.flow_label.is_some(), FL)
            | f(self.sdf_filter_id.is_some(), BID);
        out.put(&[flags, 0])?;
        if let Some(d) = &self.flow_description {
            let n = u16::try_from(d.len()).map_err(|_| EncodeError::LengthOverflow(d.len()))?;
            out.put(&n.to_be_bytes())?;
            out.put(d)?;
        }
        if let Some(t) = self.tos_traffic_class {
            out.put(&t.to_be_bytes())?;
        }
        if let Some(s) = self.security_parameter_index {
            out.put(&s.to_be_bytes())?;
        }
        if let Some(l) = self.flow_label {
            if l > 0x00ff_ffff {
                return Err(EncodeError::InvalidValue("flow label above 24 bits"));
            }
            out.put(l.to_be_bytes().get(1..).unwrap_or_default())?;
        }
        if let Some(id) = self.sdf_filter_id {
            out.put(&id.to_be_bytes())?;
        }
        Ok(())
    }
}

crate::encode::impl_encode!(SdfFilter<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::Encode;
    use crate::error::DecodeErrorKind;
    use crate::ie::IeIter;

    fn first(b: &[u8]) -> RawIe<'_> {
        IeIter::new(b, 0).next().unwrap().unwrap()
    }

    #[test]
    fn network_instance_borrows() {
        // Clause 8.2.4: "internet" as free octets.
        let b = [
            0x00, 0x16, 0x00, 0x08, b'i', b'n', b't', b'e', b'r', b'n', b'e', b't',
        ];
        let n = first(&b).decode_as::<NetworkInstance<'_>>().unwrap();
        assert!(matches!(n.0, Cow::Borrowed(_)));
        assert_eq!(n.as_bytes(), b"internet");
        let owned: NetworkInstance<'static> = n.clone().into_owned();
        assert_eq!(owned, n);
        let mut v = Vec::new();
        owned.encode(&mut v).unwrap();
        assert_eq!(v, b);
    }

    #[test]
    fn sdf_filter_flow_description_and_id() {
        // Clause 8.2.5: FD|BID, spare, length 26, "permit out ip from any to assigned"[..26]...
        let flow = b"permit out ip from any to assigned";
        let mut b = vec![0x00, 0x17, 0x00, (2 + 2 + flow.len() + 4) as u8, 0x11, 0x00];
        b.extend((flow.len() as u16).to_be_bytes());
        b.extend(flow);
        b.extend([0, 0, 0, 7]);
        let s = first(&b).decode_as::<SdfFilter<'_>>().unwrap();
        assert_eq!(s.flow_description.as_deref(), Some(&flow[..]));
        assert_eq!(s.sdf_filter_id, Some(7));
        assert_eq!(s.tos_traffic_class, None);
        let mut v = Vec::new();
        s.encode(&mut v).unwrap();
        assert_eq!(v, b);
        // The flow description's length runs past the IE.
        b[7] = 0xff;
        let e = first(&b).decode_as::<SdfFilter<'_>>().unwrap_err();
        assert!(matches!(e.kind, DecodeErrorKind::IeTooShort { .. }), "{e}");
    }
}
