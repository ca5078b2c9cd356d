//! The signalling router's message priorities and PFCP's, in one table.
//!
//! The router (Oracle DSR's "User Configurable Message Priority", used with its Per
//! Connection Egress Message Throttling) gives each request a priority from 0 (lowest) to 4
//! (highest) and, at congestion level `x`, throttles "Requests with Priority below x" while
//! "Requests with Priority x or greater are allowed". PFCP's message priority runs the other
//! way: 0 is the highest, 15 the lowest (TS 29.244 7.2.2.4.1), and the crate's throttles rank
//! by it. [`RouterPriority`] maps one onto the other:
//!
//! | router priority | PFCP priorities | [`RouterPriority::to_pfcp`] | throttled by egress level (default cut-offs `[11, 7, 3]`) |
//! |---|---|---|---|
//! | 4 (highest; DSR keeps it for NGN-PS) | 0 (the exempt classes: emergency, eMPS) | 0 | never |
//! | 3 | 1..=3 | 3 | never |
//! | 2 | 4..=7 | 7 | 3 |
//! | 1 | 8..=11 | 11 | 2 and 3 |
//! | 0 (lowest; every request without a priority) | 12..=15 | 15 | 1, 2 and 3 |
//!
//! The default level cut-offs of [`EgressConfig`](crate::egress::EgressConfig) are the band
//! edges ([`RouterPriority::DEFAULT_LEVEL_CUTOFFS`]), so level `x` sends exactly the PFCP
//! priorities of router priority `x` or greater, as the router does.
//!
//! **Requests without a priority.** The router: "If a Message Priority Configuration Set is
//! not assigned ... all Requests are assigned a Priority of 0", its lowest, so level 1
//! sheds them first. The crate does the same with [`UNPRIORITISED`], PFCP 15:
//! [`ClassifierConfig::request_default`](crate::ClassifierConfig::request_default) (the
//! configurable default for a request without MP) and [`RequestClass::default`] both use it.
//! Beware `MessagePriority::default()` of `pfcp-wire`: it is 0, the *highest* priority, so it
//! is not a default for an unprioritised request.

use pfcp_wire::MessagePriority;

use crate::loss::RequestClass;

/// The PFCP priority of a request that has none: 15, the lowest (the router's priority 0).
pub const UNPRIORITISED: MessagePriority = MessagePriority::LOWEST;

/// A signalling router's message priority: 0 (lowest) to 4 (highest). A checked newtype.
///
/// # Examples
///
/// ```
/// use pfcp_throttle::{MessagePriority, RouterPriority};
///
/// let router = RouterPriority::new(2).ok_or("router priorities are 0..=4")?;
/// // The band of PFCP priorities 4..=7 (see the module table); the lowest of it.
/// assert_eq!(router.to_pfcp().value(), 7);
/// let p5 = MessagePriority::new(5).ok_or("PFCP priorities are 0..=15")?;
/// assert_eq!(RouterPriority::from_pfcp(p5), router);
/// // Only router priority 4, PFCP 0, is exempt.
/// assert!(!router.class().exempt);
/// assert!(RouterPriority::HIGHEST.class().exempt);
/// assert!(RouterPriority::new(5).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RouterPriority(u8);

impl RouterPriority {
    /// 0, the lowest: requests without a priority.
    pub const LOWEST: RouterPriority = RouterPriority(0);
    /// 4, the highest.
    pub const HIGHEST: RouterPriority = RouterPriority(4);

    /// The egress level cut-offs that follow the router: level `x` (index `x - 1`) sends the
    /// PFCP priorities of router priority `x` or greater, 11, 7 and 3.
    pub const DEFAULT_LEVEL_CUTOFFS: [MessagePriority; 3] = [
        RouterPriority(1).to_pfcp(),
        RouterPriority(2).to_pfcp(),
        RouterPriority(3).to_pfcp(),
    ];

    /// `Some` for 0..=4.
    pub const fn new(value: u8) -> Option<RouterPriority> {
        if value <= 4 {
            Some(RouterPriority(value))
        } else {
            None
        }
    }

    /// The value, 0..=4.
    pub const fn value(self) -> u8 {
        self.0
    }

    /// The PFCP priorities of this band, highest first (see the [module table](self)).
    pub const fn pfcp_band(self) -> (MessagePriority, MessagePriority) {
        let (high, low) = match self.0 {
            4 => (0, 0),
            3 => (1, 3),
            2 => (4, 7),
            1 => (8, 11),
            _ => (12, 15),
        };
        (pfcp(high), pfcp(low))
    }

    /// The PFCP priority this router priority maps to: the lowest of its band, so that a
    /// level cut-off at the band edge sends it and a lower band's requests are shed first.
    pub const fn to_pfcp(self) -> MessagePriority {
        self.pfcp_band().1
    }

    /// The router priority of a PFCP priority (the band it falls in).
    pub const fn from_pfcp(p: MessagePriority) -> RouterPriority {
        RouterPriority(match p.value() {
            0 => 4,
            1..=3 => 3,
            4..=7 => 2,
            8..=11 => 1,
            _ => 0,
        })
    }

    /// The class of a request of this router priority: priority 4 is the exempt class (DSR
    /// never throttles it by level), the others are not exempt.
    pub const fn class(self) -> RequestClass {
        if self.0 >= 4 {
            RequestClass::exempt(self.to_pfcp())
        } else {
            RequestClass::new(self.to_pfcp())
        }
    }
}

const fn pfcp(v: u8) -> MessagePriority {
    match MessagePriority::new(v) {
        Some(p) => p,
        None => MessagePriority::LOWEST,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_cover_the_pfcp_priorities_once_and_round_trip() {
        let mut seen = [0u8; 16];
        for r in 0..=4u8 {
            let r = RouterPriority::new(r).unwrap();
            let (high, low) = r.pfcp_band();
            for v in high.value()..=low.value() {
                seen[usize::from(v)] += 1;
                assert_eq!(
                    RouterPriority::from_pfcp(MessagePriority::new(v).unwrap()),
                    r
                );
            }
            assert_eq!(RouterPriority::from_pfcp(r.to_pfcp()), r);
        }
        assert_eq!(seen, [1; 16]);
        assert_eq!(RouterPriority::new(5), None);
        assert_eq!(RouterPriority::LOWEST.to_pfcp(), UNPRIORITISED);
        assert_eq!(RouterPriority::default(), RouterPriority::LOWEST);
        let cut: Vec<u8> = RouterPriority::DEFAULT_LEVEL_CUTOFFS
            .iter()
            .map(|p| p.value())
            .collect();
        assert_eq!(cut, [11, 7, 3]);
        assert!(RouterPriority::HIGHEST.class().exempt);
        assert!(!RouterPriority::new(3).unwrap().class().exempt);
    }
}
