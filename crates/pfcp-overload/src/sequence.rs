//! Ordering of OCI/LCI sequence numbers (TS 29.244 clauses 6.2.3.3.2, 6.2.4.3.2).
//!
//! The spec orders by "larger is newer" but asks the receiver to "be prepared to receive (and
//! process)" a smaller value after a roll-over of the 32-bit counter or a restart of the UP
//! function, and lets the UP function fill the number from its clock. Our policy:
//!
//! * **Serial numbers** (RFC 1982): the numbers live on a circle of 2^32. A number up to 2^31
//!   ahead of the stored one is newer, whether or not the counter passed `u32::MAX` in
//!   between; one behind it is older. A UP function whose numbers come from its clock (NTP
//!   seconds) crosses the wrap like any other second, and a late retransmission of a number
//!   from before the wrap stays older after it.
//! * **A reset**: a number more than `reset_window` behind the stored one cannot be a late
//!   retransmission or a reordering (those are a few numbers behind: a sender issues a number
//!   per change of content or of validity, a handful a second at most, and a retransmitted
//!   message is at most T1 x N1 old), so the sender counts from a new start: it is processed
//!   ([`SequenceOrder::Reset`]). The default window, 4096 numbers, is some minutes of changes
//!   of a UP function in overload.
//! * A reset closer than that is told by the UP function's Recovery Time Stamp: a changed one
//!   (a restart, clause 6.2.2) makes the caller flush the peer's state
//!   (`OverloadTable::reset_peer`, `LoadTable::reset_peer`), after which any number is
//!   accepted; so does the end of the stored state's validity.
//!
//! `docs/overload-control.md`, "Sequence numbers", shows the cases.

/// How a received sequence number relates to the stored one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SequenceOrder {
    /// Ahead of the stored one by less than 2^31 (across the wrap or not): replaces it.
    Newer,
    /// Equal: the same information again (a retransmission or a repeat); must not restart the
    /// validity timer (clause 6.2.4.3.2 NOTE 1).
    Same,
    /// Behind the stored one by at most the reset window: stale (a retransmitted or reordered
    /// message).
    Older,
    /// Behind the stored one by more than the reset window: the sender's counter started
    /// again (a restart); processed like a newer number.
    Reset,
}

impl SequenceOrder {
    /// Whether the received information replaces the stored one.
    pub const fn is_newer(self) -> bool {
        matches!(self, SequenceOrder::Newer | SequenceOrder::Reset)
    }
}

/// Default reset window: 4096 numbers behind the stored one.
pub const DEFAULT_RESET_WINDOW: u32 = 4096;

/// Half the circle: the largest distance at which "ahead" is defined (RFC 1982).
const HALF: u32 = 1 << 31;

/// Whether `a` is serially after `b` (RFC 1982 with `SERIAL_BITS` = 32): ahead by 1 to
/// 2^31 - 1.
///
/// # Examples
///
/// ```
/// use pfcp_overload::sequence::is_after;
///
/// assert!(is_after(6, 5));
/// assert!(is_after(2, u32::MAX)); // across the wrap of the 32-bit counter
/// assert!(!is_after(5, 5));
/// assert!(!is_after(u32::MAX, 2));
/// ```
pub const fn is_after(a: u32, b: u32) -> bool {
    let d = a.wrapping_sub(b);
    d != 0 && d < HALF
}

/// Compare `received` with `stored` under the policy of this module.
///
/// # Examples
///
/// ```
/// use pfcp_overload::sequence::{compare, SequenceOrder, DEFAULT_RESET_WINDOW};
///
/// let w = DEFAULT_RESET_WINDOW;
/// assert_eq!(compare(100, 101, w), SequenceOrder::Newer);
/// assert_eq!(compare(100, 100, w), SequenceOrder::Same); // must not restart validity
/// assert_eq!(compare(100, 98, w), SequenceOrder::Older); // a late retransmission
/// assert_eq!(compare(100_000, 1, w), SequenceOrder::Reset); // the sender started again
/// assert!(compare(100_000, 1, w).is_newer());
/// ```
pub const fn compare(stored: u32, received: u32, reset_window: u32) -> SequenceOrder {
    if received == stored {
        SequenceOrder::Same
    } else if is_after(received, stored) {
        SequenceOrder::Newer
    } else if stored.wrapping_sub(received) > reset_window {
        SequenceOrder::Reset
    } else {
        SequenceOrder::Older
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: u32 = DEFAULT_RESET_WINDOW;

    #[test]
    fn rfc_1982_order_both_ways_across_the_wrap() {
        assert_eq!(compare(5, 6, W), SequenceOrder::Newer);
        assert_eq!(compare(5, 5, W), SequenceOrder::Same);
        assert_eq!(compare(5, 4, W), SequenceOrder::Older);
        // Across the wrap, forwards: newer.
        assert_eq!(compare(u32::MAX, 0, W), SequenceOrder::Newer);
        assert_eq!(compare(u32::MAX - 10, 3, W), SequenceOrder::Newer);
        // Across the wrap, backwards: a late number from before the wrap is older.
        assert_eq!(compare(3, u32::MAX - 10, W), SequenceOrder::Older);
        assert_eq!(compare(0, u32::MAX, W), SequenceOrder::Older);
        // Up to half the circle ahead is newer.
        assert_eq!(compare(0, HALF - 1, W), SequenceOrder::Newer);
    }

    /// Clause 6.2.4.3.2: "shall be prepared to receive (and process)" a smaller number after a
    /// restart. Behind by more than the window is a reset; by the window or less, stale.
    #[test]
    fn clause_6_2_4_3_2_a_jump_back_beyond_the_window_is_a_reset() {
        assert_eq!(compare(10_000, 1, W), SequenceOrder::Reset);
        assert_eq!(compare(W + 2, 1, W), SequenceOrder::Reset);
        assert_eq!(compare(W + 1, 1, W), SequenceOrder::Older);
        // Half the circle away either way is no longer "ahead": a reset.
        assert_eq!(compare(0, HALF, W), SequenceOrder::Reset);
        // A counter that restarted far below a high count.
        assert_eq!(compare(1_000_000_000, 1, W), SequenceOrder::Reset);
        // Below a clock-based count (NTP seconds, about 3.9e9), 1 is less than 2^31 ahead on
        // the circle: newer.
        assert_eq!(compare(3_900_000_000, 1, W), SequenceOrder::Newer);
        assert!(SequenceOrder::Reset.is_newer());
        assert!(!SequenceOrder::Older.is_newer());
        // A window of 0: anything behind is a reset.
        assert_eq!(compare(5, 4, 0), SequenceOrder::Reset);
    }

    /// An independent statement of the order: the signed distance from stored to received.
    #[test]
    fn the_order_is_the_sign_of_the_distance_on_the_circle() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let stored = x as u32;
            let received = (x >> 32) as u32;
            let ahead = i64::from(received) - i64::from(stored);
            let ahead = ahead.rem_euclid(1 << 32);
            let want = match ahead {
                0 => SequenceOrder::Same,
                a if a < 1 << 31 => SequenceOrder::Newer,
                a if (1i64 << 32) - a <= i64::from(W) => SequenceOrder::Older,
                _ => SequenceOrder::Reset,
            };
            assert_eq!(compare(stored, received, W), want, "{stored} {received}");
        }
    }
}
