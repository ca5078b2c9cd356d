//! The checks applied to the oracle corpora (valid, malformed, captures), shared by the tests
//! on the committed corpora and on corpora regenerated with other seeds.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pfcp_cli::hex;
use pfcp_cli::render::kind_name;
use pfcp_cli::summary::summarize;
use pfcp_wire::ie::{TimerUnit, ENTERPRISE_ID_3GPP};
use pfcp_wire::owned::OwnedMessage;
use pfcp_wire::{Datagram, DecodeError, DecodeErrorKind, Message};
use serde_json::Value;

use super::{json_diff, str_of, Failures};

/// Exactly one message filling `bytes`, through [`Datagram`].
pub fn decode_one(bytes: &[u8]) -> Result<Message<'_>, String> {
    let mut items = Datagram::new(bytes);
    let first = items.next().ok_or("no message")?;
    let msg = first.map_err(|e| format!("decode error: {e}"))?;
    match items.next() {
        None => Ok(msg),
        Some(Ok(_)) => Err("more than one message".into()),
        Some(Err(e)) => Err(format!("error after the message: {e}")),
    }
}

/// `summarize(msg)` must equal `expect` as JSON and in key order.
fn compare_summary(msg: &Message<'_>, expect: &Value) -> Result<(), String> {
    let got = summarize(msg);
    if &got != expect {
        let d = json_diff(&got, expect);
        return Err(format!(
            "summary differs (ours vs oracle): {}",
            d.join("; ")
        ));
    }
    let (a, b) = (serde_json::to_string(&got), serde_json::to_string(expect));
    if a.ok() != b.ok() {
        return Err("summary equal but key order differs".into());
    }
    Ok(())
}

fn bytes_of(id: &str, line: &Value, failures: &mut Failures) -> Option<Vec<u8>> {
    match hex::decode(str_of(line, "hex")) {
        Ok(b) => Some(b),
        Err(e) => {
            failures.push(id, format!("corpus hex unreadable: {e}"));
            None
        }
    }
}

/// Outcome of [`check_valid`].
#[derive(Debug, Default)]
pub struct ValidReport {
    /// Lines checked.
    pub checked: usize,
    /// Of which re-encoded byte for byte.
    pub byte_exact: usize,
    /// Lines tagged `ie_extra_octets` (re-decode to the same summary required).
    pub extra_octets: usize,
    /// Everything that failed, by id.
    pub failures: Failures,
}

/// valid.jsonl: decode (one message), summary == expect, every typed IE decodes, and the
/// owned form re-encodes byte-exact (`ie_extra_octets` lines: to the same summary).
pub fn check_valid(lines: &[Value]) -> ValidReport {
    let mut r = ValidReport::default();
    for line in lines {
        let id = str_of(line, "id");
        r.checked += 1;
        let Some(bytes) = bytes_of(id, line, &mut r.failures) else {
            continue;
        };
        let msg = match decode_one(&bytes) {
            Ok(m) => m,
            Err(e) => {
                r.failures.push(id, e);
                continue;
            }
        };
        if let Err(e) = compare_summary(&msg, &line["expect"]) {
            r.failures.push(id, e);
        }
        if let Err(e) = msg.check_typed_ies() {
            r.failures
                .push(id, format!("typed decoder rejects a valid IE: {e}"));
        }
        let tags = line["tags"].as_array().cloned().unwrap_or_default();
        let extra = tags.iter().any(|t| t == "ie_extra_octets");
        let encoded = OwnedMessage::from_message(&msg).map(|o| o.to_bytes());
        let encoded = match encoded {
            Ok(Ok(b)) => b,
            other => {
                r.failures
                    .push(id, format!("owned form does not encode: {other:?}"));
                continue;
            }
        };
        if encoded == bytes {
            r.byte_exact += 1;
        }
        if extra {
            r.extra_octets += 1;
            match decode_one(&encoded) {
                Ok(again) if summarize(&again) == summarize(&msg) => {}
                Ok(_) => r
                    .failures
                    .push(id, "re-encoded message summarises differently"),
                Err(e) => r.failures.push(id, format!("re-encoded message: {e}")),
            }
        } else if encoded != bytes {
            let got = hex::encode(&encoded);
            r.failures
                .push(id, format!("round trip not byte-exact: {got}"));
        }
    }
    r
}

/// Outcome of [`check_malformed`].
#[derive(Debug, Default)]
pub struct MalformedReport {
    /// Lines per (class, category).
    pub per_category: BTreeMap<(String, String), usize>,
    /// Error kinds seen per (class, category): what our decoder said.
    pub kinds: BTreeMap<(String, String), BTreeMap<String, usize>>,
    /// `ie_content` lines rejected at framing already (rather than by a typed decoder).
    pub ie_content_at_framing: usize,
    /// Everything that failed, by id.
    pub failures: Failures,
}

/// malformed.jsonl: no panic anywhere; per class the documented outcome (see the oracle README
/// and `pfcp-wire`'s "Policies").
pub fn check_malformed(lines: &[Value]) -> MalformedReport {
    let mut r = MalformedReport::default();
    for line in lines {
        let id = str_of(line, "id");
        let class = str_of(line, "class").to_owned();
        let category = str_of(line, "category").to_owned();
        let key = (class.clone(), category.clone());
        *r.per_category.entry(key.clone()).or_default() += 1;
        let Some(bytes) = bytes_of(id, line, &mut r.failures) else {
            continue;
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| check_one(&class, &category, &bytes)));
        match outcome {
            Err(_) => r.failures.push(id, "PANIC"),
            Ok(Err(e)) => r.failures.push(id, format!("[{class}/{category}] {e}")),
            Ok(Ok(seen)) => {
                if seen.at_framing && class == "ie_content" {
                    r.ie_content_at_framing += 1;
                }
                if let Some(kind) = seen.kind {
                    *r.kinds.entry(key).or_default().entry(kind).or_default() += 1;
                }
            }
        }
    }
    r
}

/// What one malformed line gave: the error kind reported, and whether it came from framing.
struct Seen {
    kind: Option<String>,
    at_framing: bool,
}

fn seen(e: &DecodeError, at_framing: bool) -> Seen {
    Seen {
        kind: Some(kind_name(e)),
        at_framing,
    }
}

/// The first error the datagram yields, if any (every item is visited).
fn framing_error(bytes: &[u8]) -> Option<DecodeError> {
    Datagram::new(bytes).filter_map(Result::err).next()
}

fn check_one(class: &str, category: &str, bytes: &[u8]) -> Result<Seen, String> {
    match class {
        "framing" | "resource" => {
            let e = framing_error(bytes).ok_or("decoded without error")?;
            let expected = match category {
                "depth_bomb" => Some(DecodeErrorKind::DepthExceeded { limit: 16 }),
                "huge_ie_count" => Some(DecodeErrorKind::TooManyIes { limit: 4096 }),
                _ => None,
            };
            if let Some(k) = expected {
                if e.kind != k {
                    return Err(format!("expected {k:?}, got {e}"));
                }
            }
            Ok(seen(&e, true))
        }
        "ie_content" => match decode_one(bytes) {
            Err(_) => Ok(Seen {
                kind: framing_error(bytes).map(|e| kind_name(&e)),
                at_framing: true,
            }),
            Ok(msg) => {
                let e = msg.check_typed_ies().err().or_else(|| msg.validate().err());
                let e = e.ok_or("typed IE checks and validate() accept it")?;
                Ok(seen(&e, false))
            }
        },
        "spec_tolerated" => spec_tolerated(category, bytes),
        "semantic" => semantic(category, bytes),
        other => Err(format!("unknown class {other}")),
    }
}

fn spec_tolerated(category: &str, bytes: &[u8]) -> Result<Seen, String> {
    let msg = decode_one(bytes)?;
    msg.check_typed_ies()
        .map_err(|e| format!("typed checks reject it: {e}"))?;
    let oci = msg
        .overload_control_information()
        .map_err(|e| e.to_string())?;
    let lci = msg.load_control_information().map_err(|e| e.to_string())?;
    match category {
        "metric_out_of_range" => {
            let metric = oci
                .map(|o| o.metric)
                .or(lci.map(|l| l.metric))
                .ok_or("no OCI or LCI")?;
            if metric.raw() <= 100 || metric.percent() != 0 {
                return Err(format!(
                    "metric raw {} reads as {} %",
                    metric.raw(),
                    metric.percent()
                ));
            }
        }
        "timer_unit_reserved" => {
            let t = oci.ok_or("no OCI")?.period_of_validity;
            let unit = t.0 >> 5;
            if !(unit == 5 || unit == 6) {
                return Err(format!(
                    "timer octet {:#04x} does not have unit 5 or 6",
                    t.0
                ));
            }
            let minutes = u64::from(t.0 & 0x1f);
            let want = Some(std::time::Duration::from_secs(60 * minutes));
            if t.unit() != TimerUnit::OtherMinutes(unit) || t.duration() != want {
                return Err(format!("timer {:#04x} reads as {:?}", t.0, t.duration()));
            }
        }
        other => return Err(format!("unknown spec_tolerated category {other}")),
    }
    Ok(Seen {
        kind: None,
        at_framing: false,
    })
}

fn semantic(category: &str, bytes: &[u8]) -> Result<Seen, String> {
    if category == "bad_version" {
        let e = framing_error(bytes).ok_or("decoded without error")?;
        let version = bytes.first().map(|b| b >> 5).unwrap_or_default();
        if e.kind != (DecodeErrorKind::UnsupportedVersion { version }) {
            return Err(format!(
                "expected UnsupportedVersion {{ version: {version} }}, got {e}"
            ));
        }
        if e.header.is_none_or(|h| h.version != version) {
            return Err("no header summary (needed to answer Version Not Supported)".into());
        }
        return Ok(seen(&e, true));
    }
    let msg = decode_one(bytes)?;
    let expect_validate = |kind: DecodeErrorKind| match msg.validate() {
        Err(e) if e.kind == kind => Ok(seen(&e, false)),
        other => Err(format!("validate(): expected {kind:?}, got {other:?}")),
    };
    match category {
        "mp_without_s" => {
            let flags = bytes.first().copied().unwrap_or_default();
            if flags & 0x03 != 0x02 {
                return Err("corpus line is not S=0, MP=1".into());
            }
            match msg.header().priority {
                None => Ok(Seen {
                    kind: None,
                    at_framing: false,
                }),
                Some(p) => Err(format!("priority {p} read from a node header")),
            }
        }
        "s_flag_mismatch" => expect_validate(DecodeErrorKind::SFlagMismatch),
        "unknown_message_type" => {
            let t = bytes.get(1).copied().unwrap_or_default();
            expect_validate(DecodeErrorKind::UnknownMessageType(t))
        }
        "group_missing_member" => {
            let oci = msg.overload_control_information().err();
            let lci = msg.load_control_information().err();
            let e = oci.or(lci).ok_or("OCI/LCI accessors accept it")?;
            match e.kind {
                DecodeErrorKind::MissingMember(_) | DecodeErrorKind::IeTooShort { .. } => {
                    Ok(seen(&e, false))
                }
                _ => Err(format!("expected MissingMember or IeTooShort, got {e}")),
            }
        }
        "enterprise_3gpp" => {
            let kept = msg.ies().flatten().any(|ie| {
                ie.ie_type().is_vendor() && ie.enterprise_id() == Some(ENTERPRISE_ID_3GPP)
            });
            if kept {
                Ok(Seen {
                    kind: None,
                    at_framing: false,
                })
            } else {
                Err("vendor IE with Enterprise ID 10415 not kept".into())
            }
        }
        "fseid_inconsistent" => match msg.f_seid() {
            Err(e) if matches!(e.kind, DecodeErrorKind::InvalidValue(_)) => Ok(seen(&e, false)),
            other => Err(format!(
                "F-SEID accessor: expected InvalidValue, got {other:?}"
            )),
        },
        other => Err(format!("unknown semantic category {other}")),
    }
}

/// Outcome of [`check_captures`].
#[derive(Debug, Default)]
pub struct CapturesReport {
    /// Lines (unique payloads) checked.
    pub checked: usize,
    /// Lines whose summary was compared (ws_flag=false, scapy_agrees=true).
    pub compared: usize,
    /// Lines with a canonical header (spare bits 0), checked for a byte-exact round trip.
    pub canonical: usize,
    /// Everything that failed, by id.
    pub failures: Failures,
}

/// Whether the header's spare bits are zero (the encoder writes them as 0).
fn canonical_header(bytes: &[u8]) -> bool {
    let Some(&flags) = bytes.first() else {
        return false;
    };
    let s = flags & 0x01 != 0;
    let mp = flags & 0x02 != 0;
    let last = if s { bytes.get(15) } else { bytes.get(7) };
    let spare_last = match last {
        Some(&b) if s && mp => b & 0x0f,
        Some(&b) => b,
        None => return false,
    };
    let mp_on_node_header = mp && !s;
    flags & 0x18 == 0 && !mp_on_node_header && spare_last == 0
}

/// captures.jsonl: every payload decodes; summaries match where Wireshark and scapy agree;
/// typed IEs decode; canonical messages re-encode byte for byte.
pub fn check_captures(lines: &[Value]) -> CapturesReport {
    let mut r = CapturesReport::default();
    for line in lines {
        let id = str_of(line, "id");
        r.checked += 1;
        let Some(bytes) = bytes_of(id, line, &mut r.failures) else {
            continue;
        };
        let msgs: Vec<_> = Datagram::new(&bytes).collect();
        let mut ok = Vec::new();
        for m in msgs {
            match m {
                Ok(m) => ok.push(m),
                Err(e) => r.failures.push(id, format!("decode error: {e}")),
            }
        }
        for msg in &ok {
            if let Err(e) = msg.check_typed_ies() {
                r.failures
                    .push(id, format!("typed decoder rejects it: {e}"));
            }
        }
        let agreed = line["ws_flag"] == Value::Bool(false) && line["scapy_agrees"] == true;
        if agreed {
            r.compared += 1;
            match ok.as_slice() {
                [msg] => {
                    if let Err(e) = compare_summary(msg, &line["expect"]) {
                        r.failures.push(id, e);
                    }
                }
                _ => r
                    .failures
                    .push(id, format!("{} messages, expected 1", ok.len())),
            }
        }
        if canonical_header(&bytes) {
            r.canonical += 1;
            let encoded: Vec<u8> = ok
                .iter()
                .filter_map(|m| OwnedMessage::from_message(m).ok()?.to_bytes().ok())
                .flatten()
                .collect();
            if encoded != bytes {
                r.failures.push(id, "round trip not byte-exact");
            }
        }
    }
    r
}
