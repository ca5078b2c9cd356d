//! The typed messages (`pfcp_wire::msg`) in the `decode_message` target: decoding is total, the
//! one walk of `parse` is `Message::decode` then the typed decode (with tight limits too), the
//! typed decode refuses what `validate` refuses with its error, and a decoded message built
//! again re-decodes equal, in `encoded_len()` octets, and encodes the same a second time.

use pfcp_wire::msg::AnyMessage;
use pfcp_wire::{DecodeLimits, EncodeError, Message};

use super::check_error;

pub(super) fn check_typed(data: &[u8]) {
    for limits in [
        DecodeLimits::DEFAULT,
        DecodeLimits::new(2, 4),
        DecodeLimits::new(1, 1),
    ] {
        let two = Message::decode_with_limits(data, limits).and_then(|m| AnyMessage::decode(&m));
        let one = AnyMessage::parse_with_limits(data, limits);
        assert_eq!(one, two, "AnyMessage::parse vs decode + typed, {limits:?}");
    }
    let Ok(m) = Message::decode(data) else {
        return;
    };
    let typed = m.typed();
    match (&typed, m.validate()) {
        (Ok(_), Err(e)) => panic!("typed accepted what validate refuses: {e}"),
        (Err(t), Err(v)) => assert_eq!(*t, v, "typed and validate refuse differently"),
        (Err(e), Ok(())) => check_error(data, e),
        (Ok(_), Ok(())) => {}
    }
    let Ok(t) = typed else {
        return;
    };
    // Every field read (a repeated IE decodes each occurrence).
    let _ = format!("{t:?}");
    assert_eq!(t.header().message_type, m.message_type());
    let bytes = match t.to_vec() {
        Ok(b) => b,
        // Typed IEs write at least the octets of this release, so a message at the 16-bit
        // limit may not fit again.
        Err(EncodeError::LengthOverflow(_)) => return,
        Err(e) => panic!("a decoded message does not encode: {e}"),
    };
    assert_eq!(bytes.len(), t.encoded_len(), "encoded_len vs to_vec");
    let again = AnyMessage::parse(&bytes)
        .unwrap_or_else(|e| panic!("a built message does not decode: {e}"));
    assert_eq!(again, t, "build(decode(b)) decodes to another message");
    assert_eq!(
        again.to_vec().ok().as_ref(),
        Some(&bytes),
        "encoding a decoded message is not idempotent"
    );
}
