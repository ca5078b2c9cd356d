//! Integer IEs of the session rules: the rule IDs (PDR, FAR, URR, QER, BAR), Precedence, QFI,
//! UR-SEQN, the time thresholds and quotas, Duration Measurement, QER Correlation ID and
//! Downlink Data Notification Delay (TS 29.244 clause 8.2).
//!
//! Each is one big-endian integer at octet 5. Octets after it are ignored on decode
//! (extendable IEs, clause 8.1.1) and never written.

use crate::encode::Sink;
use crate::error::{DecodeError, EncodeError};
use crate::ie::value::{be_u16, be_u32, parse_value, u8_};
use crate::ie::{IeType, RawIe, TypedIe};

macro_rules! int_ie {
    ($(#[$doc:meta])* $name:ident, $code:ident, $int:ty, $parse:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[cfg_attr(
            feature = "serde",
            derive(serde::Serialize, serde::Deserialize),
            serde(transparent)
        )]
        pub struct $name(pub $int);

        impl<'a> TypedIe<'a> for $name {
            const IE_TYPE: IeType = IeType::$code;
            #[inline]
            fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
                parse_value(ie, $parse).map($name)
            }
            #[inline]
            fn value_len(&self) -> usize {
                core::mem::size_of::<$int>()
            }
            #[inline]
            fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                out.put(&self.0.to_be_bytes())
            }
        }

        impl From<$int> for $name {
            fn from(v: $int) -> Self {
                $name(v)
            }
        }

        crate::encode::impl_encode!($name);
    };
}

int_ie!(
    /// PDR ID (type 56, clause 8.2.36): the Rule ID of a Packet Detection Rule, unique within
    /// the session.
    PdrId, PDR_ID, u16, be_u16
);
int_ie!(
    /// FAR ID (type 108, clause 8.2.74). Bit 8 of octet 5 set: a predefined FAR
    /// ([`FarId::is_predefined`]).
    FarId, FAR_ID, u32, be_u32
);
int_ie!(
    /// URR ID (type 81, clause 8.2.54). Bit 8 of octet 5 set: a predefined URR.
    UrrId, URR_ID, u32, be_u32
);
int_ie!(
    /// QER ID (type 109, clause 8.2.75). Bit 8 of octet 5 set: a predefined QER.
    QerId, QER_ID, u32, be_u32
);
int_ie!(
    /// BAR ID (type 88, clause 8.2.57): one octet.
    BarId, BAR_ID, u8, u8_
);
int_ie!(
    /// Precedence (type 29, clause 8.2.11): the PDR's precedence, lower values first.
    Precedence, PRECEDENCE, u32, be_u32
);
int_ie!(
    /// UR-SEQN (type 104, clause 8.2.71): the sequence number of a usage report for its URR.
    UrSeqn, UR_SEQN, u32, be_u32
);
int_ie!(
    /// Time Threshold (type 32, clause 8.2.14): seconds of use after which to report.
    TimeThreshold, TIME_THRESHOLD, u32, be_u32
);
int_ie!(
    /// Time Quota (type 74, clause 8.2.51): seconds of use allowed.
    TimeQuota, TIME_QUOTA, u32, be_u32
);
int_ie!(
    /// Duration Measurement (type 67, clause 8.2.45): seconds of use measured.
    DurationMeasurement, DURATION_MEASUREMENT, u32, be_u32
);
int_ie!(
    /// QER Correlation ID (type 28, clause 8.2.10): correlates QERs of several sessions
    /// (APN-AMBR).
    QerCorrelationId, QER_CORRELATION_ID, u32, be_u32
);
int_ie!(
    /// Downlink Data Notification Delay (type 46, clause 8.2.28): delay in multiples of 50 ms.
    DownlinkDataNotificationDelay, DOWNLINK_DATA_NOTIFICATION_DELAY, u8, u8_
);

const PREDEFINED: u32 = 0x8000_0000;

impl FarId {
    /// Whether the FAR is predefined in the UP function (bit 8 of octet 5).
    pub const fn is_predefined(self) -> bool {
        self.0 & PREDEFINED != 0
    }
}

impl UrrId {
    /// Whether the URR is predefined in the UP function (bit 8 of octet 5).
    pub const fn is_predefined(self) -> bool {
        self.0 & PREDEFINED != 0
    }
}

impl QerId {
    /// Whether the QER is predefined in the UP function (bit 8 of octet 5).
    pub const fn is_predefined(self) -> bool {
        self.0 & PREDEFINED != 0
    }
}

/// QoS Flow Identifier (type 124, clause 8.2.89): 6 bits in octet 5 (bits 8-7 spare).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(transparent))]
pub struct Qfi(u8);

impl Qfi {
    /// A QFI; `None` above 63.
    pub const fn new(qfi: u8) -> Option<Qfi> {
        if qfi <= 63 {
            Some(Qfi(qfi))
        } else {
            None
        }
    }

    /// The value, 0..=63.
    pub const fn value(self) -> u8 {
        self.0
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Qfi {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <u8 as serde::Deserialize>::deserialize(d)?;
        Qfi::new(v).ok_or_else(|| serde::de::Error::custom("QFI > 63"))
    }
}

impl<'a> TypedIe<'a> for Qfi {
    const IE_TYPE: IeType = IeType::QFI;
    /// Spare bits 8-7 are ignored.
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        parse_value(ie, u8_).map(|b| Qfi(b & 0x3f))
    }
    fn value_len(&self) -> usize {
        1
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&[self.0])
    }
}

crate::encode::impl_encode!(Qfi);

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
    fn spec_layouts() {
        // Clause 8.2.36: Type 56, Length 2, Rule ID.
        let b = [0x00, 0x38, 0x00, 0x02, 0x00, 0x01];
        assert_eq!(first(&b).decode_as::<PdrId>().unwrap(), PdrId(1));
        // Clause 8.2.74: Type 108, Length 4; predefined bit.
        let b = [0x00, 0x6c, 0x00, 0x04, 0x80, 0x00, 0x00, 0x02];
        let far = first(&b).decode_as::<FarId>().unwrap();
        assert!(far.is_predefined());
        let mut v = Vec::new();
        far.encode(&mut v).unwrap();
        assert_eq!(v, b);
        // Clause 8.2.89: spare bits ignored.
        let b = [0x00, 0x7c, 0x00, 0x01, 0xc9];
        assert_eq!(first(&b).decode_as::<Qfi>().unwrap().value(), 9);
        assert!(Qfi::new(64).is_none());
    }

    #[test]
    fn short_and_extended() {
        let b = [0x00, 0x1d, 0x00, 0x03, 0, 0, 1];
        let e = first(&b).decode_as::<Precedence>().unwrap_err();
        assert_eq!(
            e.kind,
            DecodeErrorKind::IeTooShort {
                needed: 4,
                length: 3
            }
        );
        let b = [0x00, 0x1d, 0x00, 0x05, 0, 0, 0, 0xff, 0xee];
        assert_eq!(
            first(&b).decode_as::<Precedence>().unwrap(),
            Precedence(255)
        );
    }
}
