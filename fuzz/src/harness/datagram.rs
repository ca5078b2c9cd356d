//! The `datagram` target: the FO chain a `Datagram` yields, against the input it covers and
//! against tighter resource limits.

use pfcp_wire::header::NODE_HEADER_LEN;
use pfcp_wire::{Datagram, DecodeErrorKind, DecodeLimits, Message};

use super::{check_error, item_bound, offset_in};

/// The FO chain: contiguous, bounded, non-overlapping, covering the input when all is well.
pub fn datagram(data: &[u8]) {
    let bound = item_bound(data);
    let mut it = Datagram::new(data);
    let mut items = Vec::new();
    for item in it.by_ref().take(bound) {
        items.push(item);
    }
    assert!(
        it.next().is_none(),
        "Datagram yields more items than the input can hold"
    );
    assert!(it.next().is_none(), "Datagram resumes after the end");
    assert!(!items.is_empty(), "a datagram yields at least one item");

    let mut next_at = 0usize;
    let mut last_fo: Option<bool> = None;
    let mut error = None;
    for (i, item) in items.iter().enumerate() {
        assert!(error.is_none(), "item {i} after an error");
        match item {
            Ok(m) => {
                assert!(last_fo != Some(false), "message after one with FO=0");
                let at = offset_in(data, m.as_bytes(), "message");
                assert_eq!(
                    at, next_at,
                    "message {i} is not contiguous with the previous one"
                );
                assert_eq!(m.offset(), at);
                assert!(m.as_bytes().len() >= NODE_HEADER_LEN);
                next_at = at + m.as_bytes().len();
                last_fo = Some(m.header().follow_on);
                // The same octets on their own decode to the same message.
                let alone = Message::decode(m.as_bytes())
                    .unwrap_or_else(|e| panic!("message {i} does not decode alone: {e}"));
                assert_eq!(alone.header(), m.header());
                assert_eq!(alone.ie_count(), m.ie_count());
            }
            Err(e) => {
                check_error(data, e);
                assert!(
                    e.offset >= next_at,
                    "error at {} inside message before",
                    e.offset
                );
                match e.kind {
                    DecodeErrorKind::TrailingData { count } => {
                        assert_eq!(last_fo, Some(false));
                        assert_eq!(count, data.len() - next_at);
                        assert!(count > 0);
                    }
                    DecodeErrorKind::Truncated { available: 0, .. } if last_fo == Some(true) => {
                        assert_eq!(next_at, data.len(), "FO=1 at the end");
                    }
                    _ => {}
                }
                error = Some(*e);
            }
        }
    }
    if error.is_none() {
        assert_eq!(next_at, data.len(), "messages do not cover the datagram");
        assert_eq!(last_fo, Some(false), "last message has FO=1 yet no error");
    }

    // A whole-input Message::decode succeeds exactly when the first message fills the input.
    let whole = Message::decode(data);
    let first_fills = matches!(items.first(), Some(Ok(m)) if m.as_bytes().len() == data.len());
    assert_eq!(
        whole.is_ok(),
        first_fills,
        "Message::decode vs Datagram on the whole input"
    );

    // Tighter limits never accept more: each message they accept is accepted at the same
    // place with the default limits, within the tighter counts.
    let tight = DecodeLimits::new(3, 12);
    for (i, item) in Datagram::with_limits(data, tight).take(bound).enumerate() {
        match item {
            Ok(m) => {
                assert!(m.ie_count() <= 12);
                match items.get(i) {
                    Some(Ok(d)) => {
                        assert_eq!(d.offset(), m.offset());
                        assert_eq!(d.ie_count(), m.ie_count());
                    }
                    other => panic!("tight limits accepted message {i}, defaults gave {other:?}"),
                }
            }
            Err(e) => {
                check_error(data, &e);
                break;
            }
        }
    }
}
