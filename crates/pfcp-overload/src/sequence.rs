//! Ordering of OCI/LCI sequence numbers (TS 29.244 clauses 6.2.3.3.2, 6.2.4.3.2).
//!
//! The spec orders by plain magnitude ("larger is newer") but asks the receiver to "be prepared"
//! for smaller values after a roll-over or a restart. Our policy:
//!
//! * larger is newer, equal is the same, smaller is older;
//! * except across the wrap: if the stored number lies in the top `window` of the 32-bit
//!   space and the received one in the bottom `window`, the received one is newer (it
//!   wrapped). The default window is 1 % of the space, as Diameter DOIC does (RFC 7683);
//! * a restart of the peer is handled by the caller flushing the peer's state (a changed
//!   Recovery Time Stamp or a new association), after which any number is accepted.

/// How a received sequence number relates to the stored one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SequenceOrder {
    /// Numerically larger: replaces the stored state.
    Newer,
    /// Smaller, but the counter plausibly wrapped from the top of the space to the bottom.
    Wrapped,
    /// Equal: the same information again (a retransmission or a repeat); must not restart the
    /// validity timer (clause 6.2.4.3.2 NOTE 1).
    Same,
    /// Smaller: stale (a retransmitted or reordered message).
    Older,
}

impl SequenceOrder {
    /// Whether the received information replaces the stored one.
    pub const fn is_newer(self) -> bool {
        matches!(self, SequenceOrder::Newer | SequenceOrder::Wrapped)
    }
}

/// Default wrap window: 1 % of the 32-bit space.
pub const DEFAULT_WRAP_WINDOW: u32 = u32::MAX / 100;

/// Compare `received` with `stored` under the wrap policy of this module.
pub const fn compare(stored: u32, received: u32, window: u32) -> SequenceOrder {
    if received == stored {
        SequenceOrder::Same
    } else if received > stored {
        SequenceOrder::Newer
    } else if stored >= u32::MAX - window && received <= window {
        SequenceOrder::Wrapped
    } else {
        SequenceOrder::Older
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_order_and_wrap() {
        let w = DEFAULT_WRAP_WINDOW;
        assert_eq!(compare(5, 6, w), SequenceOrder::Newer);
        assert_eq!(compare(5, 5, w), SequenceOrder::Same);
        assert_eq!(compare(5, 4, w), SequenceOrder::Older);
        assert_eq!(compare(u32::MAX, 0, w), SequenceOrder::Wrapped);
        assert_eq!(compare(u32::MAX - 10, 3, w), SequenceOrder::Wrapped);
        // Outside the window: a big jump backwards is stale, not a wrap.
        assert_eq!(compare(u32::MAX / 2, 3, w), SequenceOrder::Older);
        assert_eq!(compare(u32::MAX, w + 1, w), SequenceOrder::Older);
    }
}
