//! Small fixed-layout IEs: Recovery Time Stamp (96, clause 8.2.65) and Offending IE (40,
//! clause 8.2.22).

use core::time::Duration;

use crate::encode::Sink;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::ie::{IeType, RawIe, TypedIe};

fn first_n<const N: usize>(ie: &RawIe<'_>) -> Result<[u8; N], DecodeError> {
    let v = ie.value();
    v.get(..N).and_then(|s| s.try_into().ok()).ok_or_else(|| {
        ie.error(DecodeErrorKind::IeTooShort {
            needed: N,
            length: v.len(),
        })
    })
}

/// Seconds between the NTP epoch (1900-01-01) and the Unix epoch (1970-01-01).
pub const NTP_UNIX_OFFSET: u64 = 2_208_988_800;

/// Recovery Time Stamp: when the PFCP entity started, in seconds since 1900-01-01 UTC (the
/// first 32 bits of an NTP timestamp, RFC 5905). A changed value from a peer means it restarted.
///
/// Compare for *equality* to detect restarts, never by order (the field wraps in 2036).
/// Extension octets after the first four are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct RecoveryTimeStamp(pub u32);

impl RecoveryTimeStamp {
    /// The time since the Unix epoch, resolving the NTP era as RFC 4330 section 3 does: values
    /// with the top bit clear are in era 1 (from 2036-02-07 06:28:16 UTC), as TS 29.244 v19
    /// notes.
    pub const fn since_unix_epoch(self) -> Option<Duration> {
        let secs = self.0 as u64;
        let ntp = if secs & 0x8000_0000 != 0 {
            secs
        } else {
            secs + (1u64 << 32)
        };
        match ntp.checked_sub(NTP_UNIX_OFFSET) {
            Some(s) => Some(Duration::from_secs(s)),
            None => None,
        }
    }

    /// The stamp for `since_unix_epoch` (the caller reads its own clock; truncates to whole
    /// seconds and wraps into the 32-bit field like NTP).
    pub const fn from_unix(since_unix_epoch: Duration) -> RecoveryTimeStamp {
        RecoveryTimeStamp((since_unix_epoch.as_secs().wrapping_add(NTP_UNIX_OFFSET)) as u32)
    }
}

impl<'a> TypedIe<'a> for RecoveryTimeStamp {
    const IE_TYPE: IeType = IeType::RECOVERY_TIME_STAMP;
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        Ok(RecoveryTimeStamp(u32::from_be_bytes(first_n::<4>(ie)?)))
    }
    fn value_len(&self) -> usize {
        4
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&self.0.to_be_bytes())
    }
}

/// Offending IE: the type of the missing or faulty IE a rejection is about (causes 66-69).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct OffendingIe(pub IeType);

impl<'a> TypedIe<'a> for OffendingIe {
    const IE_TYPE: IeType = IeType::OFFENDING_IE;
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        Ok(OffendingIe(IeType(u16::from_be_bytes(first_n::<2>(ie)?))))
    }
    fn value_len(&self) -> usize {
        2
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&self.0 .0.to_be_bytes())
    }
}

crate::encode::impl_encode!(RecoveryTimeStamp, OffendingIe);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ntp_eras() {
        // 0xE8F4A2B0 is in era 0: 2023-10-...; check against the arithmetic by hand.
        let t = RecoveryTimeStamp(0xE8F4_A2B0);
        assert_eq!(
            t.since_unix_epoch(),
            Some(Duration::from_secs(0xE8F4_A2B0 - NTP_UNIX_OFFSET))
        );
        // Era 1: 0 means 2036-02-07 06:28:16 UTC = Unix 2085978496.
        assert_eq!(
            RecoveryTimeStamp(0).since_unix_epoch(),
            Some(Duration::from_secs(2_085_978_496))
        );
        assert_eq!(
            RecoveryTimeStamp::from_unix(Duration::from_secs(2_085_978_496)),
            RecoveryTimeStamp(0)
        );
    }
}
