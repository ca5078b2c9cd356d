//! Volumes and bit rates: Volume Threshold (type 31, clause 8.2.13), Volume Quota (type 73,
//! clause 8.2.50), Volume Measurement (type 66, clause 8.2.44), MBR (type 26, clause 8.2.8) and
//! GBR (type 27, clause 8.2.9).
//!
//! ```text
//! Volume Threshold / Quota   octet 5: spare | DLVOL | ULVOL | TOVOL, then 8-octet total,
//!                            uplink, downlink volumes (octets) as flagged
//! Volume Measurement         octet 5: spare | DLNOP | ULNOP | TONOP | DLVOL | ULVOL | TOVOL,
//!                            then the flagged volumes, then the flagged packet counts
//! MBR / GBR                  octets 5-9 uplink, 10-14 downlink, kbit/s in 40 bits
//! ```

use nom::combinator::cond;

use crate::encode::Sink;
use crate::error::{DecodeError, EncodeError};
use crate::ie::value::{be_u40, be_u64, parse_value, u8_};
use crate::ie::{IeType, RawIe, TypedIe};

fn bit(present: bool, b: u8) -> u8 {
    if present {
        b
    } else {
        0
    }
}

fn put_all<S: Sink + ?Sized>(out: &mut S, values: &[Option<u64>]) -> Result<(), EncodeError> {
    for v in values.iter().flatten() {
        out.put(&v.to_be_bytes())?;
    }
    Ok(())
}

macro_rules! volume_ie {
    ($(#[$doc:meta])* $name:ident, $code:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct $name {
            /// Total volume in octets (TOVOL).
            pub total: Option<u64>,
            /// Uplink volume (ULVOL).
            pub uplink: Option<u64>,
            /// Downlink volume (DLVOL).
            pub downlink: Option<u64>,
        }

        impl $name {
            /// A total volume only.
            pub const fn total(octets: u64) -> $name {
                $name { total: Some(octets), uplink: None, downlink: None }
            }
        }

        impl<'a> TypedIe<'a> for $name {
            const IE_TYPE: IeType = IeType::$code;
            fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
                parse_value(ie, |i| {
                    let (i, f) = u8_(i)?;
                    let (i, total) = cond(f & 0x01 != 0, be_u64)(i)?;
                    let (i, uplink) = cond(f & 0x02 != 0, be_u64)(i)?;
                    let (i, downlink) = cond(f & 0x04 != 0, be_u64)(i)?;
                    Ok((i, $name { total, uplink, downlink }))
                })
            }
            fn value_len(&self) -> usize {
                1 + 8 * [self.total, self.uplink, self.downlink].iter().flatten().count()
            }
            fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                let f = bit(self.total.is_some(), 0x01)
                    | bit(self.uplink.is_some(), 0x02)
                    | bit(self.downlink.is_some(), 0x04);
                out.put(&[f])?;
                put_all(out, &[self.total, self.uplink, self.downlink])
            }
        }

        crate::encode::impl_encode!($name);
    };
}

volume_ie!(
    /// Volume Threshold: the volume after which a URR reports (clause 8.2.13).
    VolumeThreshold,
    VOLUME_THRESHOLD
);
volume_ie!(
    /// Volume Quota: the volume a URR allows before its quota action (clause 8.2.50).
    VolumeQuota,
    VOLUME_QUOTA
);

/// Volume Measurement: the volumes and packet counts a usage report carries (clause 8.2.44).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VolumeMeasurement {
    /// Total volume in octets (TOVOL).
    pub total_volume: Option<u64>,
    /// Uplink volume (ULVOL).
    pub uplink_volume: Option<u64>,
    /// Downlink volume (DLVOL).
    pub downlink_volume: Option<u64>,
    /// Total number of packets (TONOP).
    pub total_packets: Option<u64>,
    /// Uplink packets (ULNOP).
    pub uplink_packets: Option<u64>,
    /// Downlink packets (DLNOP).
    pub downlink_packets: Option<u64>,
}

impl VolumeMeasurement {
    fn fields(&self) -> [Option<u64>; 6] {
        [
            self.total_volume,
            self.uplink_volume,
            self.downlink_volume,
            self.total_packets,
            self.uplink_packets,
            self.downlink_packets,
        ]
    }
}

impl<'a> TypedIe<'a> for VolumeMeasurement {
    const IE_TYPE: IeType = IeType::VOLUME_MEASUREMENT;
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        parse_value(ie, |i| {
            let (i, f) = u8_(i)?;
            let (i, total_volume) = cond(f & 0x01 != 0, be_u64)(i)?;
            let (i, uplink_volume) = cond(f & 0x02 != 0, be_u64)(i)?;
            let (i, downlink_volume) = cond(f & 0x04 != 0, be_u64)(i)?;
            let (i, total_packets) = cond(f & 0x08 != 0, be_u64)(i)?;
            let (i, uplink_packets) = cond(f & 0x10 != 0, be_u64)(i)?;
            let (i, downlink_packets) = cond(f & 0x20 != 0, be_u64)(i)?;
            Ok((
                i,
                VolumeMeasurement {
                    total_volume,
                    uplink_volume,
                    downlink_volume,
                    total_packets,
                    uplink_packets,
                    downlink_packets,
                },
            ))
        })
    }
    fn value_len(&self) -> usize {
        1 + 8 * self.fields().iter().flatten().count()
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        let mut f = 0u8;
        for (k, v) in self.fields().iter().enumerate() {
            f |= bit(v.is_some(), 1 << k);
        }
        out.put(&[f])?;
        put_all(out, &self.fields())
    }
}

/// The largest bit rate a 40-bit field holds, in kbit/s.
pub const BITRATE_MAX: u64 = (1 << 40) - 1;

macro_rules! bitrate_ie {
    ($(#[$doc:meta])* $name:ident, $code:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct $name {
            /// Uplink, kbit/s (at most [`BITRATE_MAX`]).
            pub uplink: u64,
            /// Downlink, kbit/s (at most [`BITRATE_MAX`]).
            pub downlink: u64,
        }

        impl<'a> TypedIe<'a> for $name {
            const IE_TYPE: IeType = IeType::$code;
            fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
                parse_value(ie, |i| {
                    let (i, uplink) = be_u40(i)?;
                    let (i, downlink) = be_u40(i)?;
                    Ok((i, $name { uplink, downlink }))
                })
            }
            fn value_len(&self) -> usize {
                10
            }
            fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                if self.uplink > BITRATE_MAX || self.downlink > BITRATE_MAX {
                    return Err(EncodeError::InvalidValue("bit rate above 40 bits"));
                }
                let u = self.uplink.to_be_bytes();
                let d = self.downlink.to_be_bytes();
                out.put(u.get(3..).unwrap_or_default())?;
                out.put(d.get(3..).unwrap_or_default())
            }
        }

        crate::encode::impl_encode!($name);
    };
}

bitrate_ie!(
    /// MBR: the maximum bit rate of a QER (clause 8.2.8).
    Mbr,
    MBR
);
bitrate_ie!(
    /// GBR: the guaranteed bit rate of a QER (clause 8.2.9).
    Gbr,
    GBR
);

crate::encode::impl_encode!(VolumeMeasurement);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::Encode;
    use crate::ie::IeIter;

    fn first(b: &[u8]) -> RawIe<'_> {
        IeIter::new(b, 0).next().unwrap().unwrap()
    }

    fn encoded<E: Encode>(e: &E) -> Vec<u8> {
        let mut v = Vec::new();
        e.encode(&mut v).unwrap();
        assert_eq!(v.len(), e.encoded_len());
        v
    }

    #[test]
    fn volume_threshold_total_only() {
        // Clause 8.2.13: TOVOL, 1 000 000 octets.
        let b = [
            0x00, 0x1f, 0x00, 0x09, 0x01, 0, 0, 0, 0, 0, 0x0f, 0x42, 0x40,
        ];
        let v = first(&b).decode_as::<VolumeThreshold>().unwrap();
        assert_eq!(v, VolumeThreshold::total(1_000_000));
        assert_eq!(encoded(&v), b);
    }

    #[test]
    fn volume_measurement_volumes_then_packets() {
        // Clause 8.2.44: TOVOL | TONOP: total 0x100 octets, then 3 packets.
        let b = [
            0x00, 0x42, 0x00, 0x11, 0x09, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3,
        ];
        let v = first(&b).decode_as::<VolumeMeasurement>().unwrap();
        assert_eq!(v.total_volume, Some(0x100));
        assert_eq!(v.total_packets, Some(3));
        assert_eq!(v.uplink_volume, None);
        assert_eq!(encoded(&v), b);
    }

    #[test]
    fn bit_rates_are_40_bits() {
        // Clause 8.2.8: UL 0x01_0000_0000 kbit/s, DL 1000.
        let b = [
            0x00, 0x1a, 0x00, 0x0a, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xe8,
        ];
        let m = first(&b).decode_as::<Mbr>().unwrap();
        assert_eq!((m.uplink, m.downlink), (1 << 32, 1000));
        assert_eq!(encoded(&m), b);
        let too_big = Gbr {
            uplink: 1 << 40,
            downlink: 0,
        };
        assert!(too_big.encode(&mut Vec::new()).is_err());
    }
}
