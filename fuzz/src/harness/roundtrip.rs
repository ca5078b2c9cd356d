//! The `roundtrip` target: every decoded message through the owned form and back, byte for
//! byte but for the header bits pfcp-wire ignores.

use pfcp_wire::encode::SliceSink;
use pfcp_wire::header::SESSION_HEADER_LEN;
use pfcp_wire::owned::OwnedMessage;
use pfcp_wire::{Datagram, EncodeError, Message};

use super::item_bound;

/// Decode → owned → encode → decode for every message of the datagram.
pub fn roundtrip(data: &[u8]) {
    for m in Datagram::new(data).take(item_bound(data)).flatten() {
        roundtrip_message(&m);
    }
}

fn roundtrip_message(m: &Message<'_>) {
    let original = m.as_bytes();
    let owned = OwnedMessage::from_message(m)
        .unwrap_or_else(|e| panic!("from_message failed on a decoded message: {e}"));
    let bytes = owned
        .to_bytes()
        .unwrap_or_else(|e| panic!("re-encoding a decoded message failed: {e}"));
    assert_eq!(owned.encoded_len(), bytes.len(), "encoded_len vs to_bytes");
    assert_eq!(
        bytes.len(),
        original.len(),
        "re-encoding changed the length"
    );

    // Into a caller's buffer: exactly encoded_len octets suffice, one fewer does not.
    let mut exact = vec![0u8; bytes.len()];
    assert_eq!(
        owned.encode(&mut SliceSink::new(&mut exact)),
        Ok(bytes.len())
    );
    assert_eq!(exact, bytes, "SliceSink and Vec encodings differ");
    let mut short = vec![0u8; bytes.len() - 1];
    assert!(matches!(
        owned.encode(&mut SliceSink::new(&mut short)),
        Err(EncodeError::BufferTooSmall { .. })
    ));

    let again = Message::decode(&bytes)
        .unwrap_or_else(|e| panic!("re-encoded message does not decode: {e}"));
    let owned2 = OwnedMessage::from_message(&again)
        .unwrap_or_else(|e| panic!("from_message failed on the re-encoding: {e}"));
    assert_eq!(owned2, owned, "decode(encode(decode(b))) != decode(b)");
    assert_eq!(again.ie_count(), m.ie_count());
    assert_eq!(again.header().seid, m.header().seid);
    assert_eq!(again.header().priority, m.header().priority);
    assert_eq!(again.header().sequence, m.header().sequence);
    assert_eq!(again.header().follow_on, m.header().follow_on);
    // The IEs are copied byte for byte, whatever their content.
    assert_eq!(again.body(), m.body(), "re-encoding changed the IE octets");
    assert_eq!(
        owned2.to_bytes().ok().as_ref(),
        Some(&bytes),
        "encoding is not idempotent"
    );

    if bytes == original {
        return;
    }
    // Not canonical: only the header's spare bits (and MP on a node header) may differ.
    let hl = m.header().encoded_len();
    let canonical = canonical_header(original, hl);
    assert_eq!(
        bytes.get(..hl),
        canonical.get(..hl),
        "header re-encoded differently than by clearing spare bits"
    );
}

/// The header of `msg` with the bits pfcp-wire ignores cleared: octet 1 spare bits, MP on a
/// node header, the spare octet of a node header, the spare nibble after the priority (or the
/// whole octet 16 without MP).
fn canonical_header(msg: &[u8], hl: usize) -> [u8; SESSION_HEADER_LEN] {
    let mut h = [0u8; SESSION_HEADER_LEN];
    for (d, s) in h.iter_mut().zip(msg.iter().take(hl)) {
        *d = *s;
    }
    let session = h[0] & 0x01 != 0;
    let mp = h[0] & 0x02 != 0;
    h[0] &= if session { 0xE7 } else { 0xE5 };
    let last = hl - 1;
    h[last] = if session && mp { h[last] & 0xF0 } else { 0 };
    h
}
