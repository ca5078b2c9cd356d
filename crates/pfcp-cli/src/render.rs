//! The JSON lines `pfcp decode` prints: a message in the lossless form `pfcp encode` reads
//! back, or an error object.
//!
//! A message line is the serde form of [`pfcp_wire::owned::OwnedMessage`] with informational
//! keys added, which the encoder ignores (serde skips unknown keys):
//!
//! * before the message fields, where the message came from: `frame` (1-based), `src`, `dst`
//!   and `index` (position in the datagram) for captures;
//! * `message_name` after `message_type`;
//! * per IE, `name` after `type`, and `decoded` (see [`crate::decoded`]) last.

use pfcp_wire::owned::OwnedMessage;
use pfcp_wire::{DecodeError, IeType, Message, RawIe};
use serde_json::{json, Map, Value};

use crate::decoded::decoded;

/// Informational keys placed first on a line (where the message came from).
pub type Origin = Vec<(&'static str, Value)>;

/// The JSON line of a decoded message: `Ok(line)`, or `Err(error line)` in the (unexpected)
/// case that the message cannot be copied into its owned form.
pub fn message_line(msg: &Message<'_>, origin: &Origin) -> Result<Value, Value> {
    let owned = OwnedMessage::from_message(msg).map_err(|e| error_line(&e, origin))?;
    let base = match serde_json::to_value(&owned) {
        Ok(Value::Object(map)) => map,
        Ok(_) | Err(_) => {
            return Err(plain_error_line(
                "Internal",
                "message does not serialize",
                origin,
            ))
        }
    };
    let mut out = Map::new();
    for (k, v) in origin {
        out.insert((*k).to_owned(), v.clone());
    }
    for (k, v) in base {
        if k == "ies" {
            out.insert(k, annotate(v, msg.ies().map_while(Result::ok)));
            continue;
        }
        let is_type = k == "message_type";
        out.insert(k, v);
        if is_type {
            out.insert("message_name".into(), json!(msg.message_type().name()));
        }
    }
    Ok(Value::Object(out))
}

/// Add `name` and `decoded` to the serialized IEs `list`, walking the raw IEs alongside.
fn annotate<'a>(list: Value, raws: impl Iterator<Item = RawIe<'a>>) -> Value {
    let Value::Array(items) = list else {
        return list;
    };
    let mut raws = raws;
    let items = items.into_iter().map(|item| match (item, raws.next()) {
        (Value::Object(map), Some(ie)) => {
            let mut out = Map::new();
            for (k, v) in map {
                let is_type = k == "type";
                let v = if k == "ies" {
                    annotate(v, ie.children().map_while(Result::ok))
                } else {
                    v
                };
                out.insert(k, v);
                if is_type {
                    if let Some(name) = ie_name(ie.ie_type()) {
                        out.insert("name".into(), Value::String(name.to_owned()));
                    }
                }
            }
            if let Some(d) = decoded(&ie) {
                out.insert("decoded".into(), d);
            }
            Value::Object(out)
        }
        (other, _) => other,
    });
    Value::Array(items.collect())
}

/// The name shown for an IE type: the spec name, "Vendor-specific", or `None` if unknown.
pub fn ie_name(t: IeType) -> Option<&'static str> {
    match t.name() {
        Some(n) => Some(n),
        None if t.is_vendor() => Some("Vendor-specific"),
        None => None,
    }
}

/// The `error` object of a decode error: `kind`, `message` (the error's Display text),
/// `offset`, `ie_path` (IE types, outermost first), `cause` (the Cause value the peer should
/// get) and, when the header could be read, `header`.
pub fn error_object(e: &DecodeError) -> Value {
    let path: Vec<u16> = e.path.types().map(|t| t.0).collect();
    let mut m = Map::new();
    m.insert("kind".into(), json!(kind_name(e)));
    m.insert("message".into(), json!(e.to_string()));
    m.insert("offset".into(), json!(e.offset));
    m.insert("ie_path".into(), json!(path));
    m.insert("cause".into(), json!(e.cause().0));
    if let Some(h) = e.header {
        m.insert(
            "header".into(),
            json!({
                "version": h.version,
                "message_type": h.message_type.0,
                "seid": h.seid,
                "sequence": h.sequence.value(),
                "priority": h.priority.map(|p| p.value()),
            }),
        );
    }
    Value::Object(m)
}

/// The variant name of the error's kind (`"IeOverrun"`, `"UnsupportedVersion"`, ...).
pub fn kind_name(e: &DecodeError) -> String {
    let debug = format!("{:?}", e.kind);
    debug
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect()
}

/// An error line: the origin keys, then `"error": {...}`.
pub fn error_line(e: &DecodeError, origin: &Origin) -> Value {
    with_origin(origin, error_object(e))
}

/// An error line for a failure that is not a [`DecodeError`] (only `kind` and `message`).
pub fn plain_error_line(kind: &str, message: &str, origin: &Origin) -> Value {
    with_origin(origin, json!({"kind": kind, "message": message}))
}

fn with_origin(origin: &Origin, error: Value) -> Value {
    let mut m = Map::new();
    for (k, v) in origin {
        m.insert((*k).to_owned(), v.clone());
    }
    m.insert("error".into(), error);
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex;
    use pfcp_wire::Datagram;

    #[test]
    fn names_decoded_and_order() {
        // Heartbeat Request with a Recovery Time Stamp and an unknown IE type 4000.
        let b = hex::decode("20010018e27626000fa00008d4a2b377ccc3867000600004e8754700").unwrap();
        let msg = Message::decode(&b).unwrap();
        let line = message_line(&msg, &vec![("frame", json!(3))]).unwrap();
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "frame",
                "message_type",
                "message_name",
                "seid",
                "sequence",
                "priority",
                "follow_on",
                "ies"
            ]
        );
        assert_eq!(line["message_name"], json!("Heartbeat Request"));
        assert!(line["ies"][0].get("name").is_none());
        assert!(line["ies"][0].get("decoded").is_none());
        assert_eq!(line["ies"][1]["name"], json!("Recovery Time Stamp"));
        assert_eq!(line["ies"][1]["decoded"]["raw"], json!(3_900_000_000u32));
        assert_eq!(
            line["ies"][1]["decoded"]["utc"],
            json!("2023-08-02T21:20:00Z")
        );
        let ie_keys: Vec<&str> = line["ies"][1]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(ie_keys, ["type", "name", "value", "decoded"]);
    }

    #[test]
    fn error_object_fields() {
        // Version 2 Heartbeat Request.
        let b = hex::decode("4001000c0000010000600004e8754700").unwrap();
        let e = Datagram::new(&b).next().unwrap().unwrap_err();
        let o = error_object(&e);
        assert_eq!(o["kind"], json!("UnsupportedVersion"));
        assert_eq!(o["header"]["version"], json!(2));
        assert_eq!(o["header"]["sequence"], json!(1));
        assert_eq!(o["ie_path"], json!([]));
        assert_eq!(o["message"], json!(e.to_string()));
    }
}
