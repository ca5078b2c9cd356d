//! Configuration of the egress throttle and its validation (the signalling router's rules:
//! first pair mandatory, pairs complete, higher levels only with lower ones, abatement below
//! throttle, levels increasing).

use core::time::Duration;

use pfcp_wire::MessagePriority;

use super::MAX_WINDOW_TICKS;
use crate::priority::RouterPriority;

/// One throttle/abatement threshold pair, each in percent of the Max EMR
/// ([`EgressConfig::max_rate`]). DSR's TT-x/AT-x, "configured in pairs".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ThresholdPair {
    /// Throttle threshold TT-x: the level rises to `x` when the measured rate reaches this
    /// percentage of the Max EMR. Range 2..=100 (DSR).
    pub throttle: u8,
    /// Abatement threshold AT-x: the level falls below `x` once the measured rate has stayed
    /// under this percentage for the abatement time. Range 1..=99 (DSR), below `throttle`.
    pub abatement: u8,
}

impl ThresholdPair {
    /// A pair of throttle and abatement percentages (checked by [`EgressConfig::validate`]).
    pub const fn new(throttle: u8, abatement: u8) -> Self {
        ThresholdPair {
            throttle,
            abatement,
        }
    }
}

/// Configuration of an [`EgressThrottle`](super::EgressThrottle): DSR's "Egress Message
/// Throttling Configuration Set" plus the hard cap and the priority mapping of PFCP. Assign
/// sets to connections with [`EgressConfigSets`](super::EgressConfigSets).
///
/// Build it with [`EgressConfig::new`], change the fields, and check it with
/// [`EgressConfig::validate`]. [`EgressThrottle::new`](super::EgressThrottle::new) also checks
/// it. A configuration read with serde is not checked until one of the two is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EgressConfig {
    /// Max EMR: the most messages per second, requests plus answers, the connection may
    /// carry. At least 1. DSR allows 10..=10 000 per connection, and advises dividing a
    /// peer's capacity by its number of connections.
    pub max_rate: u32,
    /// Length of the sliding window the measured rate is averaged over. It says how fast the
    /// measured rate follows the real one. It is rounded up to whole ticks and must span 1 to
    /// [`MAX_WINDOW_TICKS`] ticks. Default 1 s.
    pub convergence_time: Duration,
    /// How often the measured rate and the level are recomputed. Default 100 ms (DSR).
    pub tick: Duration,
    /// Threshold pairs for levels 1, 2 and 3. Level 1 is mandatory. A level may only be
    /// configured together with the levels below it. Default: level 1 only, TT-1 100 % and
    /// AT-1 80 % (the DSR defaults).
    pub thresholds: [Option<ThresholdPair>; 3],
    /// How long the measured rate must stay below AT-x before level `x` is left. Default 1 s.
    pub abatement_time: Duration,
    /// Per level (index 0 is level 1) the lowest priority still sent. Requests with a
    /// numerically larger priority value (lower priority, TS 29.244 7.2.2.4.1) are throttled
    /// at that level. The value must not grow from one level to the next. Default `[11, 7, 3]`
    /// ([`RouterPriority::DEFAULT_LEVEL_CUTOFFS`]): level 1 throttles 12..=15, level 2
    /// 8..=15 and level 3 4..=15, the router's "Requests with Priority below x" for its
    /// priorities 0..=4 (see [`crate::priority`] for the table). Exempt requests pass every
    /// level.
    pub level_cutoff: [MessagePriority; 3],
    /// Depth of the cap's token bucket in messages: the most messages sent above `max_rate`
    /// in a burst after an idle period. It also spreads the priority ladder (see the module
    /// docs). At least 1. Default 16: one token per priority step.
    pub burst: u32,
    /// The most requests admitted and not yet ended with
    /// [`EgressThrottle::on_transaction_end`](super::EgressThrottle::on_transaction_end)
    /// (DSR's pending transaction limit). `None`: no limit. Default `None`.
    pub max_pending: Option<u32>,
    /// The hard cap at the Max EMR (module docs, "Hard cap"). `false`: the level-only mode of
    /// the router, where the levels alone throttle ("Requests with Priority x or greater are
    /// allowed" at level `x`, whatever the rate). Default `true`.
    pub hard_cap: bool,
}

impl EgressConfig {
    /// A configuration with the given Max EMR (messages per second) and the defaults of
    /// every other field.
    pub const fn new(max_rate: u32) -> Self {
        EgressConfig {
            max_rate,
            convergence_time: Duration::from_secs(1),
            tick: Duration::from_millis(100),
            thresholds: [Some(ThresholdPair::new(100, 80)), None, None],
            abatement_time: Duration::from_secs(1),
            level_cutoff: RouterPriority::DEFAULT_LEVEL_CUTOFFS,
            burst: 16,
            max_pending: None,
            hard_cap: true,
        }
    }

    /// With `max_rate` set (see the field).
    #[must_use]
    pub const fn with_max_rate(mut self, max_rate: u32) -> Self {
        self.max_rate = max_rate;
        self
    }

    /// With `hard_cap` set (see the field): `false` for the level-only mode.
    #[must_use]
    pub const fn with_hard_cap(mut self, hard_cap: bool) -> Self {
        self.hard_cap = hard_cap;
        self
    }

    /// The Max EMR of each of a peer's `connections` for a peer that can take
    /// `peer_capacity` messages per second: the router's guideline, "set the Max EMR on each
    /// Connection by dividing the total capacity of the Peer by the number of Connections".
    /// Rounded down, so the connections together never exceed the capacity; `None` if there
    /// is no connection or the share is below one message per second.
    pub const fn max_rate_per_connection(peer_capacity: u32, connections: u32) -> Option<u32> {
        match peer_capacity.checked_div(connections) {
            Some(0) | None => None,
            Some(rate) => Some(rate),
        }
    }

    /// This configuration for one of a peer's `connections`, with the Max EMR of
    /// [`EgressConfig::max_rate_per_connection`], checked with [`EgressConfig::validate`].
    pub fn for_connection_of(
        self,
        peer_capacity: u32,
        connections: u32,
    ) -> Result<Self, EgressConfigError> {
        let rate = EgressConfig::max_rate_per_connection(peer_capacity, connections)
            .ok_or(EgressConfigError::MaxRate)?;
        let config = self.with_max_rate(rate);
        config.validate()?;
        Ok(config)
    }

    /// Builds the `thresholds` field from DSR-style separate TT-1..3 and AT-1..3 values,
    /// where `tt[i]` and `at[i]` hold TT-(i+1) and AT-(i+1). The only check is that each
    /// level has both or neither ([`EgressConfigError::IncompletePair`]). Check the rest with
    /// [`EgressConfig::validate`].
    pub fn thresholds_from_parts(
        tt: [Option<u8>; 3],
        at: [Option<u8>; 3],
    ) -> Result<[Option<ThresholdPair>; 3], EgressConfigError> {
        let mut out = [None; 3];
        for (level, ((slot, t), a)) in (1u8..).zip(out.iter_mut().zip(tt).zip(at)) {
            *slot = match (t, a) {
                (Some(throttle), Some(abatement)) => Some(ThresholdPair::new(throttle, abatement)),
                (None, None) => None,
                _ => return Err(EgressConfigError::IncompletePair { level }),
            };
        }
        Ok(out)
    }

    /// Number of configured levels (1..=3 for a valid configuration).
    pub fn levels(&self) -> u8 {
        self.thresholds
            .iter()
            .take_while(|p| p.is_some())
            .fold(0, |n, _| n + 1)
    }

    /// Checks the configuration. The first error found is returned, and its variant names the
    /// offending field:
    ///
    /// * `max_rate > 0`, `tick > 0`, and `convergence_time` spans 1..=[`MAX_WINDOW_TICKS`]
    ///   ticks;
    /// * `burst >= 1`, and `max_pending` is at least 1 if it is set;
    /// * TT-1/AT-1 are configured, and TT-3/AT-3 only with TT-2/AT-2 (DSR: "the Max EMR and
    ///   the TT-1 and AT-1 Thresholds must be configured ... if TT-3/AT-3 is configured,
    ///   TT-2/AT-2 must be configured");
    /// * each TT is in 2..=100 and each AT in 1..=99 (the DSR ranges), with AT-x < TT-x;
    /// * TT-1 < TT-2 < TT-3 and AT-1 < AT-2 < AT-3;
    /// * the cut-offs do not grow from one level to the next (all three are checked).
    pub fn validate(&self) -> Result<(), EgressConfigError> {
        if self.max_rate == 0 {
            return Err(EgressConfigError::MaxRate);
        }
        if self.tick.is_zero() {
            return Err(EgressConfigError::Tick);
        }
        let ticks = self
            .convergence_time
            .as_nanos()
            .div_ceil(self.tick.as_nanos());
        if ticks == 0 || ticks > u128::from(MAX_WINDOW_TICKS) {
            return Err(EgressConfigError::ConvergenceTime {
                convergence_time: self.convergence_time,
                tick: self.tick,
            });
        }
        if self.burst == 0 {
            return Err(EgressConfigError::Burst);
        }
        if self.max_pending == Some(0) {
            return Err(EgressConfigError::MaxPending);
        }
        let [first, ..] = self.thresholds;
        if first.is_none() {
            return Err(EgressConfigError::MissingFirstPair);
        }
        // The pair of the level below (None: not configured).
        let mut previous: Option<ThresholdPair> = None;
        for (level, pair) in (1u8..).zip(self.thresholds) {
            let Some(pair) = pair else {
                previous = None;
                continue;
            };
            if level > 1 && previous.is_none() {
                return Err(EgressConfigError::PairWithoutLower { level });
            }
            if !(2..=100).contains(&pair.throttle) {
                return Err(EgressConfigError::ThrottleRange {
                    level,
                    value: pair.throttle,
                });
            }
            if !(1..=99).contains(&pair.abatement) {
                return Err(EgressConfigError::AbatementRange {
                    level,
                    value: pair.abatement,
                });
            }
            if pair.abatement >= pair.throttle {
                return Err(EgressConfigError::AbatementNotBelowThrottle {
                    level,
                    throttle: pair.throttle,
                    abatement: pair.abatement,
                });
            }
            if let Some(prev) = previous {
                if pair.throttle <= prev.throttle {
                    return Err(EgressConfigError::ThrottleNotIncreasing {
                        level,
                        value: pair.throttle,
                        lower: prev.throttle,
                    });
                }
                if pair.abatement <= prev.abatement {
                    return Err(EgressConfigError::AbatementNotIncreasing {
                        level,
                        value: pair.abatement,
                        lower: prev.abatement,
                    });
                }
            }
            previous = Some(pair);
        }
        let [c1, c2, c3] = self.level_cutoff;
        for (level, lower, cut) in [(2u8, c1, c2), (3, c2, c3)] {
            if cut > lower {
                return Err(EgressConfigError::CutoffNotMonotonic {
                    level,
                    value: cut.value(),
                    lower: lower.value(),
                });
            }
        }
        Ok(())
    }

    pub(super) fn window_ticks(&self) -> u32 {
        let ticks = self
            .convergence_time
            .as_nanos()
            .div_ceil(self.tick.as_nanos().max(1));
        u32::try_from(ticks)
            .unwrap_or(MAX_WINDOW_TICKS)
            .clamp(1, MAX_WINDOW_TICKS)
    }
}

/// Why an [`EgressConfig`] was rejected. Each variant names the field at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EgressConfigError {
    /// `max_rate` is zero.
    #[error("max_rate (Max EMR) must be at least 1 message/s")]
    MaxRate,
    /// `tick` is zero.
    #[error("tick must be longer than zero")]
    Tick,
    /// `convergence_time` is shorter than one tick or spans more than [`MAX_WINDOW_TICKS`].
    #[error(
        "convergence_time {convergence_time:?} must span 1 to {MAX_WINDOW_TICKS} ticks of {tick:?}"
    )]
    ConvergenceTime {
        /// The configured convergence time.
        convergence_time: Duration,
        /// The configured tick.
        tick: Duration,
    },
    /// `burst` is zero.
    #[error("burst must be at least 1 message")]
    Burst,
    /// `max_pending` is `Some(0)`.
    #[error("max_pending must be at least 1 when set")]
    MaxPending,
    /// `thresholds[0]` (TT-1/AT-1) is missing.
    #[error("thresholds: TT-1/AT-1 (level 1) is mandatory")]
    MissingFirstPair,
    /// Only one of TT-x and AT-x was given ([`EgressConfig::thresholds_from_parts`]).
    #[error("thresholds: TT-{level} and AT-{level} must be configured together")]
    IncompletePair {
        /// The level (1..=3).
        level: u8,
    },
    /// Level `level` is configured without level `level - 1`.
    #[error("thresholds: level {level} is configured without the level below it")]
    PairWithoutLower {
        /// The level (2 or 3).
        level: u8,
    },
    /// A throttle threshold is outside 2..=100 %.
    #[error("thresholds: TT-{level} = {value} % is outside 2..=100")]
    ThrottleRange {
        /// The level (1..=3).
        level: u8,
        /// The configured percentage.
        value: u8,
    },
    /// An abatement threshold is outside 1..=99 %.
    #[error("thresholds: AT-{level} = {value} % is outside 1..=99")]
    AbatementRange {
        /// The level (1..=3).
        level: u8,
        /// The configured percentage.
        value: u8,
    },
    /// AT-x is not below TT-x.
    #[error("thresholds: AT-{level} = {abatement} % must be below TT-{level} = {throttle} %")]
    AbatementNotBelowThrottle {
        /// The level (1..=3).
        level: u8,
        /// TT-x.
        throttle: u8,
        /// AT-x.
        abatement: u8,
    },
    /// TT-x is not above TT-(x-1).
    #[error("thresholds: TT-{level} = {value} % must be above the level below ({lower} %)")]
    ThrottleNotIncreasing {
        /// The level (2 or 3).
        level: u8,
        /// TT-x.
        value: u8,
        /// TT-(x-1).
        lower: u8,
    },
    /// AT-x is not above AT-(x-1).
    #[error("thresholds: AT-{level} = {value} % must be above the level below ({lower} %)")]
    AbatementNotIncreasing {
        /// The level (2 or 3).
        level: u8,
        /// AT-x.
        value: u8,
        /// AT-(x-1).
        lower: u8,
    },
    /// A level's cut-off lets through a lower priority than the level below it does.
    #[error(
        "level_cutoff: level {level} cut-off {value} must not be a lower priority than the level below's ({lower})"
    )]
    CutoffNotMonotonic {
        /// The level (2 or 3).
        level: u8,
        /// Its cut-off (priority value).
        value: u8,
        /// The cut-off of the level below.
        lower: u8,
    },
}
