//! The typed messages (`pfcp_wire::msg`) on every message of the oracle's corpora (`valid`,
//! `malformed`) and of the real captures (open5gs, bisdn pfcpcore, go-pfcp), read from
//! `$PFCP_ORACLE_DIR` or `../shared/oracle` and skipped with a notice when absent:
//!
//! * the one walk of `parse` gives what `Message::decode` then the typed decode give, on every
//!   message, every cut of it and three one-octet changes per position;
//! * the typed decode agrees with `validate` (a message it refuses is refused with its error)
//!   and with the typed accessors;
//! * every message decoded into its typed form and built again is the octets received, in
//!   the order the builders write: the IEs of the message's table in the table's order, then
//!   the others (the test reorders the received IEs by the table of `data/messages.tsv`, the
//!   spec's, and says how many needed it); and so it is when every repeated IE is rebuilt from
//!   its typed values, the members the typed IEs do not hold left out (the test's own list of
//!   them, `MEMBERS`).

use std::collections::HashMap;
use std::path::PathBuf;

use pfcp_test_support::skip::skip_oracle;
use pfcp_wire::msg::{AnyMessage, IeList, MessageIe};
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{Datagram, Message, MessageType};

fn oracle() -> PathBuf {
    std::env::var_os("PFCP_ORACLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle")
        })
}

/// The payloads of a corpus file, with their tags.
fn corpus(name: &str) -> Vec<(Vec<u8>, String)> {
    let path = oracle().join("corpus").join(name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        skip_oracle("msg_corpus", &format!("{} not found", path.display()));
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| {
            let at = l.find("\"hex\":\"")? + 7;
            let end = at + l.get(at..)?.find('"')?;
            let tags = l
                .find("\"tags\":[")
                .and_then(|t| {
                    l.get(t..)
                        .and_then(|r| r.find(']').map(|e| r[..e].to_string()))
                })
                .unwrap_or_default();
            Some((parse_hex(l.get(at..end)?)?, tags))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// One walk, two steps; `validate`; the accessors

/// `AnyMessage::parse` gives what `Message::decode` then `Message::typed` give, on every
/// message of the corpora, on every truncation and on three one-octet changes per position.
#[test]
fn parse_is_decode_then_typed() {
    let mut n = 0usize;
    for name in ["valid.jsonl", "malformed.jsonl", "captures.jsonl"] {
        for (p, _) in corpus(name) {
            let bound = p.len().min(400);
            let mut inputs: Vec<Vec<u8>> = (0..=bound)
                .chain(p.len().checked_sub(4))
                .map(|cut| p.get(..cut).unwrap_or_default().to_vec())
                .collect();
            for i in 0..bound {
                for f in [|o: u8| o ^ 1, |_| 0xff, |o: u8| o.wrapping_add(4)] {
                    let mut b = p.clone();
                    if let Some(o) = b.get_mut(i) {
                        *o = f(*o);
                    }
                    inputs.push(b);
                }
            }
            for b in &inputs {
                let two = Message::decode(b).and_then(|m| m.typed());
                assert_eq!(AnyMessage::parse(b), two, "{name}: {b:02x?}");
                n += 1;
            }
        }
    }
    eprintln!("{n} inputs");
}

/// Every decoded field equals what the accessor for its IE gives (the first occurrence).
fn check_fields(m: &Message<'_>, t: &AnyMessage<'_>) {
    use AnyMessage as A;
    match t {
        A::HeartbeatRequest(x) => {
            assert_eq!(
                Some(x.recovery_time_stamp),
                m.recovery_time_stamp().unwrap()
            )
        }
        A::AssociationSetupRequest(x) => {
            assert_eq!(Some(x.node_id), m.node_id().unwrap());
            assert_eq!(x.up_function_features, m.up_function_features().unwrap());
            assert_eq!(x.cp_function_features, m.cp_function_features().unwrap());
        }
        A::AssociationSetupResponse(x) => {
            assert_eq!(Some(x.cause), m.cause().unwrap());
            assert_eq!(
                Some(x.recovery_time_stamp),
                m.recovery_time_stamp().unwrap()
            );
        }
        A::SessionEstablishmentRequest(x) => {
            assert_eq!(Some(x.cp_f_seid), m.f_seid().unwrap());
            let pdrs: Vec<_> = m.all().collect::<Result<_, _>>().unwrap();
            assert_eq!(x.create_pdrs.iter().collect::<Vec<_>>(), pdrs);
            let fars: Vec<_> = m.all().collect::<Result<_, _>>().unwrap();
            assert_eq!(x.create_fars.iter().collect::<Vec<_>>(), fars);
        }
        A::SessionEstablishmentResponse(x) => {
            assert_eq!(x.up_f_seid, m.f_seid().unwrap());
            // Optional: a malformed one is left out.
            assert_eq!(
                x.overload_control_information,
                m.overload_control_information().ok().flatten()
            );
            assert_eq!(
                x.load_control_information,
                m.load_control_information().ok().flatten()
            );
            assert_eq!(x.offending_ie, m.offending_ie().unwrap());
            let created: Vec<_> = m.all().collect::<Result<_, _>>().unwrap();
            assert_eq!(x.created_pdrs.iter().collect::<Vec<_>>(), created);
        }
        A::SessionModificationResponse(x) => {
            assert_eq!(Some(x.cause), m.cause().unwrap());
            assert_eq!(
                x.overload_control_information,
                m.overload_control_information().ok().flatten()
            );
        }
        A::SessionDeletionResponse(x) => {
            assert_eq!(
                x.load_control_information,
                m.load_control_information().ok().flatten()
            );
        }
        A::SessionReportRequest(x) => {
            let reports: Vec<_> = m.all().collect::<Result<_, _>>().unwrap();
            assert_eq!(x.usage_reports.iter().collect::<Vec<_>>(), reports);
        }
        _ => {}
    }
    // Every IE is a field's or one of the others, or was left out.
    assert!(t.header().message_type == m.message_type());
}

#[test]
fn typed_agrees_with_validate_and_the_accessors() {
    let (mut typed, mut refused, mut stricter) = (0usize, 0usize, Vec::new());
    for name in ["valid.jsonl", "malformed.jsonl", "captures.jsonl"] {
        for (p, _) in corpus(name) {
            for m in Datagram::new(&p).flatten() {
                let t = m.typed();
                match (&t, m.validate()) {
                    (Ok(t), Ok(())) => {
                        check_fields(&m, t);
                        // Encoded and read again: the same message.
                        let b = t.to_vec().unwrap();
                        assert_eq!(b.len(), t.encoded_len());
                        assert_eq!(AnyMessage::parse(&b).as_ref(), Ok(t));
                        typed += 1;
                    }
                    (Ok(_), Err(e)) => panic!("typed accepted what validate refuses: {e}"),
                    (Err(te), Err(ve)) => {
                        assert_eq!(*te, ve);
                        refused += 1;
                    }
                    (Err(e), Ok(())) => stricter.push(format!("{name}: {e}")),
                }
            }
        }
    }
    eprintln!(
        "{typed} typed, {refused} refused as by validate, {} refused by the typed decode only: \
         {stricter:#?}",
        stricter.len()
    );
    // Only malformed messages (a conditional IE too short, an F-SEID without address) are
    // refused for an IE `validate` does not check.
    assert!(stricter.iter().all(|s| s.starts_with("malformed.jsonl")));
    if typed > 0 {
        assert!(typed > 700 && refused > 40, "{typed} {refused}");
    }
}

// ---------------------------------------------------------------------------------------------
// The model of the rebuild: tables, members, octets

/// The members each typed grouped IE holds, in the order of its table (Tables 7.5.2.2-1 to
/// 7.5.8.3-1, 7.5.3.3-1, 7.5.3.4-1): type -> member types.
const MEMBERS: &[(u16, &[u16])] = &[
    (1, &[56, 29, 2, 95, 108, 81, 109]),
    (2, &[20, 21, 22, 93, 23, 24, 124]),
    (3, &[108, 44, 4, 5, 88]),
    (4, &[42, 22, 84]),
    (5, &[42, 84]),
    (6, &[81, 62, 37, 31, 73, 32, 74]),
    (7, &[109, 28, 25, 26, 27, 124]),
    (8, &[56, 21, 93]),
    (9, &[56, 95, 29, 2, 108, 81, 109]),
    (10, &[108, 44, 11, 88]),
    (11, &[42, 22, 84]),
    (13, &[81, 62, 37, 31, 73, 32, 74]),
    (14, &[109, 28, 25, 26, 27, 124]),
    (15, &[56]),
    (16, &[108]),
    (17, &[81]),
    (18, &[109]),
    (51, &[52, 53]),
    (54, &[52, 53, 55, 110]),
    (78, &[81, 104, 63, 66, 67]),
    (79, &[81, 104, 63, 66, 67]),
    (80, &[81, 104, 63, 66, 67]),
    (83, &[56]),
    (85, &[88, 46]),
    (86, &[88, 46]),
    (87, &[88]),
];

fn members(t: u16) -> Option<&'static [u16]> {
    MEMBERS.iter().find(|(g, _)| *g == t).map(|(_, m)| *m)
}

/// One row of a message's table.
struct Row {
    ie_type: u16,
    repeated: bool,
    typed: bool,
}

/// The tables of `data/messages.tsv` by message type, the Rust-typed IE types of
/// `data/ie_types.tsv` resolving the constants.
fn tables() -> HashMap<u8, Vec<Row>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let ies = std::fs::read_to_string(dir.join("ie_types.tsv")).unwrap();
    let mut code = HashMap::new();
    let mut typed = HashMap::new();
    for l in ies.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = l.split('\t').collect();
        code.insert(f[1].to_string(), f[0].parse::<u16>().unwrap());
        typed.insert(f[1].to_string(), f[3] != "-");
    }
    let by_name: HashMap<String, u8> = MessageType::ALL
        .iter()
        .map(|t| (t.name().unwrap().to_uppercase().replace(' ', "_"), t.0))
        .collect();
    let text = std::fs::read_to_string(dir.join("messages.tsv")).unwrap();
    let mut out: HashMap<u8, Vec<Row>> = HashMap::new();
    let mut current = 0u8;
    for l in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = l.split('\t').collect();
        if l.starts_with('[') {
            current = by_name[f[1]];
            out.insert(current, Vec::new());
        } else {
            out.get_mut(&current).unwrap().push(Row {
                ie_type: code[f[1]],
                repeated: f[3] == "n",
                typed: typed[f[1]],
            });
        }
    }
    assert_eq!(out.len(), 25);
    out
}

/// An IE of a list: type, whole TLV, value.
type Tlv<'a> = (u16, &'a [u8], &'a [u8]);

/// The IEs of a list.
fn tlvs(mut b: &[u8]) -> Vec<Tlv<'_>> {
    let mut out = Vec::new();
    while b.len() >= 4 {
        let t = u16::from_be_bytes([b[0], b[1]]);
        let n = 4 + usize::from(u16::from_be_bytes([b[2], b[3]]));
        let (ie, rest) = b.split_at(n);
        let value = &ie[4 + if t >= 0x8000 { 2 } else { 0 }..];
        out.push((t, ie, value));
        b = rest;
    }
    out
}

/// A grouped IE as the typed IE writes it: the members it holds, in its table's order, each
/// such itself.
fn canonical_group(t: u16, value: &[u8], out: &mut Vec<u8>) {
    let held = members(t).expect("a typed group");
    let mut kept: Vec<_> = tlvs(value)
        .into_iter()
        .filter(|(m, ..)| held.contains(m))
        .collect();
    kept.sort_by_key(|(m, ..)| held.iter().position(|h| h == m));
    let mut body = Vec::new();
    for (m, ie, v) in kept {
        if members(m).is_some() {
            canonical_group(m, v, &mut body);
        } else {
            body.extend_from_slice(ie);
        }
    }
    out.extend_from_slice(&t.to_be_bytes());
    out.extend_from_slice(&(body.len() as u16).to_be_bytes());
    out.extend(body);
}

/// The octets the builders write for the message `p` decoded into its typed form: its IEs in
/// the order of its table (the first of a single IE; the others after them, in order), the
/// typed grouped IEs re-encoded (`lists_as_values`: the repeated ones too) and the others as
/// received. Returns them and whether the received IEs had to be reordered.
fn rebuilt(p: &[u8], table: &[Row], lists_as_values: bool) -> (Vec<u8>, bool) {
    let header_len = if p[0] & 1 == 1 { 16 } else { 8 };
    let end = 4 + usize::from(u16::from_be_bytes([p[2], p[3]]));
    let ies = tlvs(&p[header_len..end]);
    let mut seen = Vec::new();
    let mut ranked: Vec<(usize, Tlv<'_>)> = Vec::new();
    for ie in ies.iter().copied() {
        match table.iter().position(|r| r.ie_type == ie.0) {
            Some(i) if !table[i].repeated && seen.contains(&i) => {} // clause 7.6.10
            Some(i) => {
                seen.push(i);
                ranked.push((i, ie));
            }
            None => ranked.push((usize::MAX, ie)),
        }
    }
    let received: Vec<u16> = ranked.iter().map(|(_, ie)| ie.0).collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    let reordered = ranked.iter().map(|(_, ie)| ie.0).collect::<Vec<_>>() != received
        || ranked.len() != ies.len();
    let mut out = p[..header_len].to_vec();
    for (rank, (t, ie, value)) in ranked {
        let row = table.get(rank);
        let typed_group = members(t).is_some() && row.is_some_and(|r| r.typed);
        let re_encoded = row.is_some_and(|r| !r.repeated || lists_as_values);
        if typed_group && re_encoded {
            canonical_group(t, value, &mut out);
        } else {
            out.extend_from_slice(ie);
        }
    }
    let len = (out.len() - 4) as u16;
    out[2..4].copy_from_slice(&len.to_be_bytes());
    (out, reordered)
}

// ---------------------------------------------------------------------------------------------
// The rebuild

/// `l` rebuilt from its typed values (a leaked `Vec`: the test's messages live for its run).
fn values<'a, T: MessageIe<'a> + 'a>(l: &IeList<'a, T>) -> IeList<'a, T> {
    let v: &'a [T] = Vec::leak(l.iter().collect());
    IeList::from(v)
}

/// `t` with every repeated typed IE rebuilt from its values.
fn with_values<'a>(t: &AnyMessage<'a>) -> AnyMessage<'a> {
    use AnyMessage as A;
    let mut t = t.clone();
    match &mut t {
        A::SessionEstablishmentRequest(m) => {
            m.create_pdrs = values(&m.create_pdrs);
            m.create_fars = values(&m.create_fars);
            m.create_urrs = values(&m.create_urrs);
            m.create_qers = values(&m.create_qers);
        }
        A::SessionEstablishmentResponse(m) => m.created_pdrs = values(&m.created_pdrs),
        A::SessionModificationRequest(m) => {
            m.remove_pdrs = values(&m.remove_pdrs);
            m.remove_fars = values(&m.remove_fars);
            m.remove_urrs = values(&m.remove_urrs);
            m.remove_qers = values(&m.remove_qers);
            m.create_pdrs = values(&m.create_pdrs);
            m.create_fars = values(&m.create_fars);
            m.create_urrs = values(&m.create_urrs);
            m.create_qers = values(&m.create_qers);
            m.update_pdrs = values(&m.update_pdrs);
            m.update_fars = values(&m.update_fars);
            m.update_urrs = values(&m.update_urrs);
            m.update_qers = values(&m.update_qers);
        }
        A::SessionModificationResponse(m) => {
            m.created_pdrs = values(&m.created_pdrs);
            m.usage_reports = values(&m.usage_reports);
        }
        A::SessionDeletionResponse(m) => m.usage_reports = values(&m.usage_reports),
        A::SessionReportRequest(m) => m.usage_reports = values(&m.usage_reports),
        _ => {}
    }
    t
}

fn rebuild_all(lists_as_values: bool) {
    let tables = tables();
    let mut failures = Vec::new();
    let mut total = 0usize;
    for name in ["captures.jsonl", "valid.jsonl"] {
        let (mut exact, mut reordered, mut trimmed, mut skipped) = (0usize, 0, 0, 0);
        let mut types = std::collections::BTreeMap::new();
        for (p, tags) in corpus(name) {
            // Timer, OCI Flags and Recovery Time Stamp with an octet beyond their fields: the
            // typed IE keeps its fields, not the extension (the oracle's README says so).
            if tags.contains("ie_extra_octets") {
                skipped += 1;
                continue;
            }
            let t = AnyMessage::parse(&p).unwrap_or_else(|e| panic!("{name}: {e}: {p:02x?}"));
            let t = if lists_as_values { with_values(&t) } else { t };
            let (want, moved) = rebuilt(&p, &tables[&p[1]], lists_as_values);
            let got = t.to_vec().unwrap();
            *types.entry(t.message_type()).or_insert(0) += 1;
            if got != want {
                failures.push(format!(
                    "{name} {:?}:\n  got  {got:02x?}\n  want {want:02x?}\n  recv {p:02x?}",
                    t.message_type()
                ));
            } else if got == p {
                exact += 1;
            } else if moved {
                reordered += 1;
            } else {
                trimmed += 1;
            }
            // The rebuilt message reads back as the same message.
            assert_eq!(AnyMessage::parse(&got).as_ref(), Ok(&t), "{name}");
        }
        let n = exact + reordered + trimmed;
        total += n;
        eprintln!(
            "{name}: rebuilt {n} messages ({types:?}): {exact} octet for octet as received, \
             {reordered} with their IEs put in the table's order, {trimmed} without members \
             the typed IEs do not hold; {skipped} with extension octets not compared"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if total > 0 {
        assert!(total > 700, "{total}");
    }
}

#[test]
fn every_message_rebuilds_octet_for_octet() {
    rebuild_all(false);
}

#[test]
fn every_message_rebuilds_from_its_typed_values() {
    rebuild_all(true);
}
