//! Timer IE (type 55, TS 29.244 clause 8.2.35): one octet, unit in bits 8-6, value in 5-1.
//!
//! Used as the Period of Validity of an OCI. The encoding is the GTPv2-C "EPC Timer", not the
//! NAS GPRS Timer of TS 24.008 (there unit 111 means "deactivated"; here it means infinite).

use core::time::Duration;

use crate::encode::Sink;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::ie::{IeType, RawIe, TypedIe};

/// The timer unit (bits 8-6 of the Timer octet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TimerUnit {
    /// 000: value x 2 seconds.
    TwoSeconds,
    /// 001: value x 1 minute.
    OneMinute,
    /// 010: value x 10 minutes.
    TenMinutes,
    /// 011: value x 1 hour.
    OneHour,
    /// 100: value x 10 hours.
    TenHours,
    /// 101 or 110 (the code is kept): "other values shall be interpreted as multiples of
    /// 1 minute in this version of the protocol".
    OtherMinutes(u8),
    /// 111: the timer is infinite.
    Infinite,
}

impl TimerUnit {
    /// The 3-bit code.
    pub const fn code(self) -> u8 {
        match self {
            TimerUnit::TwoSeconds => 0,
            TimerUnit::OneMinute => 1,
            TimerUnit::TenMinutes => 2,
            TimerUnit::OneHour => 3,
            TimerUnit::TenHours => 4,
            TimerUnit::OtherMinutes(c) => c & 0x07,
            TimerUnit::Infinite => 7,
        }
    }

    /// The unit for a 3-bit code (total: every code has a meaning).
    pub const fn from_code(code: u8) -> TimerUnit {
        match code & 0x07 {
            0 => TimerUnit::TwoSeconds,
            1 => TimerUnit::OneMinute,
            2 => TimerUnit::TenMinutes,
            3 => TimerUnit::OneHour,
            4 => TimerUnit::TenHours,
            7 => TimerUnit::Infinite,
            c => TimerUnit::OtherMinutes(c),
        }
    }

    /// Seconds per step; `None` for infinite.
    pub const fn step_secs(self) -> Option<u64> {
        match self {
            TimerUnit::TwoSeconds => Some(2),
            TimerUnit::OneMinute | TimerUnit::OtherMinutes(_) => Some(60),
            TimerUnit::TenMinutes => Some(600),
            TimerUnit::OneHour => Some(3600),
            TimerUnit::TenHours => Some(36_000),
            TimerUnit::Infinite => None,
        }
    }
}

/// A Timer value: the raw octet, with accessors for its meaning.
///
/// * `0x00` (unit 000, value 0): the timer is **stopped**; [`Timer::duration`] gives
///   `Some(Duration::ZERO)`. As a Period of Validity that means already expired.
/// * unit 111: **infinite**; [`Timer::duration`] gives `None`.
/// * units 101/110: minutes.
///
/// Extension octets after the first (a later release) are ignored on decode.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use pfcp_wire::ie::{Timer, TimerUnit};
///
/// // 2 minutes: unit 001 (1 minute) in bits 8-6, value 2 in bits 5-1.
/// let t = Timer::from_duration(Duration::from_secs(120)).ok_or("over 310 hours")?;
/// assert_eq!(t, Timer(0b001_00010));
/// assert_eq!((t.unit(), t.value()), (TimerUnit::OneMinute, 2));
/// // 63 s cannot be exact (31 x 2 s is the most): rounded up, never shortened.
/// let up = Timer::from_duration(Duration::from_secs(63)).ok_or("over 310 hours")?;
/// assert_eq!(up.duration(), Some(Duration::from_secs(120)));
/// assert_eq!(Timer(0xe0).duration(), None); // unit 111: infinite
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct Timer(pub u8);

/// The largest finite timer: 31 x 10 hours = 310 hours.
pub const TIMER_MAX_FINITE: Duration = Duration::from_secs(31 * 36_000);

impl Timer {
    /// The stopped timer (`0x00`).
    pub const STOPPED: Timer = Timer(0x00);
    /// The infinite timer (`0xE0`: unit 111, value 0).
    pub const INFINITE: Timer = Timer(0xE0);

    /// A timer from unit and 5-bit value; `None` if `value > 31`.
    pub const fn new(unit: TimerUnit, value: u8) -> Option<Timer> {
        if value > 31 {
            None
        } else {
            Some(Timer((unit.code() << 5) | value))
        }
    }

    /// The unit (bits 8-6).
    pub const fn unit(self) -> TimerUnit {
        TimerUnit::from_code(self.0 >> 5)
    }

    /// The value (bits 5-1).
    pub const fn value(self) -> u8 {
        self.0 & 0x1F
    }

    /// Whether the timer is stopped (`0x00`).
    pub const fn is_stopped(self) -> bool {
        self.0 == 0
    }

    /// Whether the timer is infinite (unit 111).
    pub const fn is_infinite(self) -> bool {
        matches!(self.unit(), TimerUnit::Infinite)
    }

    /// The duration: `None` if infinite, `Some(ZERO)` if stopped (or any zero value).
    pub const fn duration(self) -> Option<Duration> {
        match self.unit().step_secs() {
            Some(step) => Some(Duration::from_secs(step * self.value() as u64)),
            None => None,
        }
    }

    /// The timer for `d`: the smallest unit that represents `d` exactly with a value <= 31,
    /// else the smallest representable value above `d` (rounding *up*, so a validity period
    /// is never shortened). `Duration::ZERO` gives the stopped timer. `None` if `d` exceeds
    /// [`TIMER_MAX_FINITE`]: it never wraps or masks silently; use [`Timer::INFINITE`] if
    /// that is what is meant.
    pub fn from_duration(d: Duration) -> Option<Timer> {
        if d.is_zero() {
            return Some(Timer::STOPPED);
        }
        if d > TIMER_MAX_FINITE {
            return None;
        }
        const UNITS: [TimerUnit; 5] = [
            TimerUnit::TwoSeconds,
            TimerUnit::OneMinute,
            TimerUnit::TenMinutes,
            TimerUnit::OneHour,
            TimerUnit::TenHours,
        ];
        // Whole seconds, rounding a fractional second up.
        let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
        // Exact representation first.
        for unit in UNITS {
            let step = unit.step_secs().unwrap_or(1);
            if secs % step == 0 && secs / step <= 31 {
                return Timer::new(unit, (secs / step) as u8);
            }
        }
        // Otherwise the smallest value above `secs`; every unit's candidate is tried because a
        // coarser unit can land closer (e.g. 63 s -> 2 min: 64 s would need 32 x 2 s).
        let mut best: Option<(u64, Timer)> = None;
        for unit in UNITS {
            let step = unit.step_secs().unwrap_or(1);
            let v = secs.div_ceil(step);
            if v <= 31 {
                let total = v * step;
                if best.is_none_or(|(b, _)| total < b) {
                    best = Timer::new(unit, v as u8).map(|t| (total, t));
                }
            }
        }
        best.map(|(_, t)| t)
    }
}

impl<'a> TypedIe<'a> for Timer {
    const IE_TYPE: IeType = IeType::TIMER;

    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        match ie.value().first() {
            Some(&b) => Ok(Timer(b)),
            None => Err(ie.error(DecodeErrorKind::IeTooShort {
                needed: 1,
                length: 0,
            })),
        }
    }
    fn value_len(&self) -> usize {
        1
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&[self.0])
    }
}

crate::encode::impl_encode!(Timer);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_examples() {
        // Digest 4.5 decoding examples.
        assert_eq!(Timer(0x22).duration(), Some(Duration::from_secs(120)));
        assert_eq!(Timer(0x05).duration(), Some(Duration::from_secs(10)));
        assert_eq!(Timer(0x7f).duration(), Some(Duration::from_secs(31 * 3600)));
        assert_eq!(
            Timer(0x8c).duration(),
            Some(Duration::from_secs(120 * 3600))
        );
        assert_eq!(Timer(0xe0).duration(), None);
        assert_eq!(Timer(0xa3).duration(), Some(Duration::from_secs(180)));
        assert_eq!(Timer(0xc3).duration(), Some(Duration::from_secs(180)));
        assert!(Timer(0x00).is_stopped());
        assert_eq!(Timer(0x00).duration(), Some(Duration::ZERO));
    }

    #[test]
    fn from_duration_picks_exact_or_rounds_up() {
        assert_eq!(Timer::from_duration(Duration::ZERO), Some(Timer(0x00)));
        assert_eq!(
            Timer::from_duration(Duration::from_secs(10)),
            Some(Timer(0x05))
        );
        assert_eq!(
            Timer::from_duration(Duration::from_secs(120)),
            Some(Timer(0x22))
        );
        // 1 s is not representable: 2 s.
        assert_eq!(
            Timer::from_duration(Duration::from_secs(1)),
            Some(Timer(0x01))
        );
        // 62 s is 31 x 2 s; 63 s would need 32 x 2 s, so 2 min is the next value above.
        assert_eq!(
            Timer::from_duration(Duration::from_secs(62)),
            Some(Timer(0x1f))
        );
        assert_eq!(
            Timer::from_duration(Duration::from_secs(63)).and_then(Timer::duration),
            Some(Duration::from_secs(120))
        );
        assert_eq!(Timer::from_duration(TIMER_MAX_FINITE), Some(Timer(0x9f)));
        assert_eq!(
            Timer::from_duration(TIMER_MAX_FINITE + Duration::from_secs(1)),
            None
        );
    }

    #[test]
    fn from_duration_never_shortens() {
        for s in (1..1_200_000u64).step_by(997) {
            let d = Duration::from_secs(s);
            if let Some(t) = Timer::from_duration(d) {
                assert!(t.duration().unwrap() >= d, "{s}");
            }
        }
    }
}
