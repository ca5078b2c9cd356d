//! `crates/pfcp-wire/src/msg/messages.rs` from `crates/pfcp-wire/data/messages.tsv`: a struct
//! per message type with its builder, decoder (the visitor and verdict of `msg/walk.rs`) and
//! encoder, the `AnyMessage` dispatch enum, and the mandatory IEs of each message type
//! (`presence::mandatory_ies`). The Rust type of each IE is the typed column of
//! `ie_types.tsv` (`RawIe` where it has none), so the two tables cannot disagree.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

use super::Row;

mod emit;

use emit::{any_message, mandatory_table, message};

/// Where the data file and the generated file live, from the repository root.
pub(crate) const MESSAGES_TSV: &str = "crates/pfcp-wire/data/messages.tsv";
pub(crate) const MESSAGES_RS: &str = "crates/pfcp-wire/src/msg/messages.rs";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Presence {
    M,
    C,
    O,
}

impl Presence {
    fn letter(self) -> &'static str {
        match self {
            Presence::M => "M",
            Presence::C => "C",
            Presence::O => "O",
        }
    }
}

struct Field {
    name: String,
    /// The `IeType` constant.
    ie: String,
    presence: Presence,
    repeated: bool,
    /// The table's row name(s).
    label: String,
    note: Option<String>,
    /// The typed column of `ie_types.tsv`, as written there (`None`: a `RawIe`).
    typed: Option<String>,
}

impl Field {
    /// The Rust type of one occurrence, inside the generated module.
    fn item_type(&self) -> String {
        match &self.typed {
            Some(t) => format!("crate::{}", t.replace("<'_>", "<'a>")),
            None => "RawIe<'a>".to_string(),
        }
    }

    /// The field's type in the message struct.
    fn field_type(&self) -> String {
        let t = self.item_type();
        match (self.repeated, self.presence) {
            (true, _) => format!("IeList<'a, {t}>"),
            (false, Presence::M) => t,
            (false, _) => format!("Option<{t}>"),
        }
    }

    /// The field's type while the walk reads the IEs.
    fn walk_type(&self) -> String {
        if self.repeated {
            "Span".to_string()
        } else {
            format!("Option<{}>", self.item_type())
        }
    }

    fn presence_expr(&self, rank: Option<usize>) -> String {
        match (self.presence, rank) {
            (Presence::M, Some(r)) => format!("Presence::Mandatory({r})"),
            (Presence::C, _) | (Presence::M, None) => "Presence::Conditional".to_string(),
            (Presence::O, _) => "Presence::Optional".to_string(),
        }
    }

    /// The rustdoc line of the field.
    fn doc(&self) -> String {
        let mut d = format!("{} ({}", self.label, self.presence.letter());
        if self.repeated {
            d.push_str(", repeated");
        }
        d.push(')');
        match &self.note {
            Some(n) => {
                let _ = write!(d, ": {n}.");
            }
            None => d.push('.'),
        }
        if self.typed.is_none() {
            d.push_str(" Not typed by this crate yet: a [`RawIe`].");
        }
        d
    }
}

struct Message {
    name: String,
    constant: String,
    table: Option<String>,
    description: String,
    fields: Vec<Field>,
}

impl Message {
    fn session(&self) -> bool {
        self.constant.starts_with("SESSION_") && !self.constant.starts_with("SESSION_SET_")
    }

    fn table_ref(&self) -> String {
        match &self.table {
            Some(t) => format!("Table {t}"),
            None => "no IE table".to_string(),
        }
    }

    fn snake(&self) -> String {
        self.constant.to_lowercase()
    }

    fn mandatory(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.presence == Presence::M)
    }
}

fn is_ident(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn parse(tsv: &str, ie_types: &[Row]) -> Result<Vec<Message>, String> {
    let by_constant: BTreeMap<&str, &Row> =
        ie_types.iter().map(|r| (r.constant.as_str(), r)).collect();
    let mut messages: Vec<Message> = Vec::new();
    for (i, line) in tsv.lines().enumerate() {
        let at = format!("{MESSAGES_TSV}:{}", i + 1);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if let Some(head) = line.strip_prefix('[') {
            let [name, constant, table, description] = cols.as_slice() else {
                return Err(format!("{at}: a message line has 4 columns"));
            };
            let Some(name) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) else {
                return Err(format!("{at}: `[Name]` expected, got {head:?}"));
            };
            if !name.chars().all(|c| c.is_ascii_alphanumeric())
                || !name.starts_with(|c: char| c.is_ascii_uppercase())
            {
                return Err(format!("{at}: message name {name:?}"));
            }
            if !constant.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                return Err(format!("{at}: message type constant {constant:?}"));
            }
            if messages
                .iter()
                .any(|m| m.name == name || m.constant == *constant)
            {
                return Err(format!("{at}: message {name} twice"));
            }
            if description.contains('`') && description.matches('`').count() % 2 == 1 {
                return Err(format!("{at}: unbalanced backquote"));
            }
            messages.push(Message {
                name: name.to_string(),
                constant: constant.to_string(),
                table: (*table != "-").then(|| table.to_string()),
                description: description.to_string(),
                fields: Vec::new(),
            });
            continue;
        }
        let Some(message) = messages.last_mut() else {
            return Err(format!("{at}: an IE line before any message line"));
        };
        let [name, ie, presence, count, label] = cols.as_slice() else {
            return Err(format!("{at}: an IE line has 5 columns"));
        };
        if !is_ident(name) || matches!(*name, "header" | "other") {
            return Err(format!("{at}: field name {name:?}"));
        }
        let Some(row) = by_constant.get(ie) else {
            return Err(format!("{at}: {ie} is not in data/ie_types.tsv"));
        };
        let presence = match *presence {
            "M" => Presence::M,
            "C" => Presence::C,
            "O" => Presence::O,
            p => return Err(format!("{at}: presence {p:?} (M, C or O)")),
        };
        let repeated = match *count {
            "1" => false,
            "n" => true,
            c => return Err(format!("{at}: count {c:?} (1 or n)")),
        };
        if repeated && presence == Presence::O && row.typed.is_some() {
            // A malformed occurrence would be ignored, and a decoded list could then not
            // count what it yields: no table has such an IE.
            return Err(format!("{at}: a typed repeated IE must be M or C"));
        }
        if message.fields.iter().any(|f| f.name == *name) {
            return Err(format!("{at}: field {name} twice in {}", message.name));
        }
        if message.fields.iter().any(|f| f.ie == *ie) {
            return Err(format!(
                "{at}: {ie} twice in {} (one field per IE type)",
                message.name
            ));
        }
        let (label, note) = match label.split_once(" -- ") {
            Some((l, n)) => (l.to_string(), Some(n.to_string())),
            None => (label.to_string(), None),
        };
        message.fields.push(Field {
            name: name.to_string(),
            ie: ie.to_string(),
            presence,
            repeated,
            label,
            note,
            typed: row.typed.clone(),
        });
    }
    for m in &messages {
        if m.fields.iter().filter(|f| !f.repeated).count() > 64 {
            return Err(format!("{}: more than 64 single IEs", m.name));
        }
        if m.mandatory().count() > 8 {
            return Err(format!("{}: more than 8 mandatory IEs", m.name));
        }
    }
    Ok(messages)
}

/// A value of a mandatory IE for the generated examples: its expression and the paths it
/// uses.
fn example_value(f: &Field) -> Result<(String, &'static [&'static str]), String> {
    let v: (&str, &'static [&'static str]) = match (f.typed.as_deref(), f.ie.as_str()) {
        (Some("ie::NodeId<'_>"), _) => (
            "NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1))",
            &["std::net::Ipv4Addr", "pfcp_wire::ie::NodeId"],
        ),
        (Some("ie::RecoveryTimeStamp"), _) => (
            "RecoveryTimeStamp(0xE8F4_A2B0)",
            &["pfcp_wire::ie::RecoveryTimeStamp"],
        ),
        (Some("Cause"), _) => ("Cause::REQUEST_ACCEPTED", &["pfcp_wire::Cause"]),
        (Some("ie::FSeid"), _) => (
            "FSeid { seid: 1, ipv4: Some(Ipv4Addr::new(192, 0, 2, 1)), ipv6: None }",
            &["std::net::Ipv4Addr", "pfcp_wire::ie::FSeid"],
        ),
        (Some("ie::ReportType"), _) => ("ReportType::USAR", &["pfcp_wire::ie::ReportType"]),
        (Some("ie::CreatePdr<'_>"), _) => (
            "CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS)).with_far_id(FarId(1))",
            &[
                "pfcp_wire::ie::CreatePdr",
                "pfcp_wire::ie::Pdi",
                "pfcp_wire::ie::PdrId",
                "pfcp_wire::ie::SourceInterface",
                "pfcp_wire::ie::FarId",
            ],
        ),
        (Some("ie::CreateFar<'_>"), _) => (
            "CreateFar::new(FarId(1), ApplyAction::FORW)",
            &[
                "pfcp_wire::ie::CreateFar",
                "pfcp_wire::ie::FarId",
                "pfcp_wire::ie::ApplyAction",
            ],
        ),
        // Node Report Type (101, clause 8.2.69): UPFR, a User Plane Path Failure Report.
        (None, "NODE_REPORT_TYPE") => (
            "RawIe::from_tlv(&[0x00, 0x65, 0x00, 0x01, 0x01])?",
            &["pfcp_wire::RawIe"],
        ),
        // PFCP Session Change Info (290, Table 7.4.7.1-2) holding its Alternative SMF/PGW-C IP
        // Address (178, clause 8.2.163: V4 flag, 192.0.2.7).
        (None, "PFCP_SESSION_CHANGE_INFO") => (
            "RawIe::from_tlv(&[0x01, 0x22, 0x00, 0x09, 0x00, 0xb2, 0x00, 0x05, 0x02, 192, 0, 2, 7])?",
            &["pfcp_wire::RawIe"],
        ),
        (t, ie) => {
            return Err(format!(
                "no example value for the mandatory IE {ie} ({t:?}): add one to example_value"
            ))
        }
    };
    Ok((v.0.to_string(), v.1))
}

/// The `use` lines of an example.
fn uses(paths: &BTreeSet<String>) -> Vec<String> {
    let mut by_module: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in paths {
        let (module, item) = p.rsplit_once("::").unwrap_or(("", p));
        by_module
            .entry(module.to_string())
            .or_default()
            .push(item.to_string());
    }
    by_module
        .into_iter()
        .map(|(module, items)| match items.as_slice() {
            [one] => format!("use {module}::{one};"),
            _ => format!("use {module}::{{{}}};", items.join(", ")),
        })
        .collect()
}

/// The example of a message's struct docs: built with its mandatory IEs, encoded, decoded.
fn example(m: &Message) -> Result<Vec<String>, String> {
    let mut paths: BTreeSet<String> = BTreeSet::new();
    paths.insert(format!("pfcp_wire::msg::{}", m.name));
    paths.insert("pfcp_wire::SequenceNumber".to_string());
    let mut lets = Vec::new();
    let mut args = Vec::new();
    for f in m.mandatory() {
        let (expr, used) = example_value(f)?;
        paths.extend(used.iter().map(|p| p.to_string()));
        if f.repeated {
            lets.push(format!("let {} = [{expr}];", f.name));
            args.push(format!("&{}", f.name));
        } else if expr.len() > 40 {
            lets.push(format!("let {} = {expr};", f.name));
            args.push(f.name.clone());
        } else {
            args.push(expr);
        }
    }
    let mut out = uses(&paths);
    out.push(String::new());
    out.extend(lets);
    out.push(format!("let msg = {}::new({})", m.name, args.join(", ")));
    if m.session() {
        out.push("    .with_seid(0x1122_3344_5566_7788)".to_string());
    }
    out.push("    .with_sequence(SequenceNumber::new(7).unwrap());".to_string());
    out.push("let bytes = msg.to_vec()?;".to_string());
    out.push(format!("let back = {}::parse(&bytes)?;", m.name));
    out.push("assert_eq!(back, msg);".to_string());
    out.push("assert_eq!(back.header.sequence.value(), 7);".to_string());
    out.push("# Ok::<(), Box<dyn std::error::Error>>(())".to_string());
    Ok(out)
}

/// The generated `messages.rs` for the data files' texts.
pub(crate) fn generate(tsv: &str, ie_types_tsv: &str) -> Result<String, String> {
    let ie_types = super::parse(ie_types_tsv)?;
    let messages = parse(tsv, &ie_types)?;
    let mut s = String::new();
    s.push_str(
        "//! The typed messages of TS 29.244 clauses 7.4 and 7.5 (see the [module docs](crate::msg)),\n\
         //! the [`AnyMessage`] dispatch and the mandatory IEs of each message type.\n\
         //!\n\
         //! @generated by `cargo xtask codegen` from `data/messages.tsv` (the IE tables) and\n\
         //! `data/ie_types.tsv` (the Rust type of each IE). Do not edit: change the data files and\n\
         //! regenerate.\n\
         \n\
         use crate::encode::{Encode, MessageWriter, Sink};\n\
         use crate::error::{DecodeError, DecodeErrorKind, EncodeError};\n\
         use crate::header::{Header, MessagePriority, SequenceNumber};\n\
         use crate::ie::{DecodeLimits, IeType, RawIe};\n\
         use crate::message::Message;\n\
         use crate::message_type::MessageType;\n\
         use crate::msg::list::{same_option, IeList, MessageIe, OtherIes};\n\
         use crate::msg::walk::{self, Fields, Presence, Span, Walk};\n\
         use crate::msg::TypedMessage;\n",
    );
    for m in &messages {
        message(&mut s, m)?;
    }
    any_message(&mut s, &messages);
    mandatory_table(&mut s, &messages);
    rustfmt(&s)
}

/// `text` formatted by rustfmt (as `cargo fmt` would: the generated file is part of the crate).
fn rustfmt(text: &str) -> Result<String, String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rustfmt: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("rustfmt: no stdin")?;
    let input = text.to_string();
    // Written from a thread: rustfmt may fill its stdout before it has read all of stdin.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("rustfmt: {e}"))?;
    writer
        .join()
        .map_err(|_| "rustfmt: the writer panicked".to_string())?
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "rustfmt refused the generated code: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("rustfmt: {e}"))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::{generate, MESSAGES_RS, MESSAGES_TSV};
    use crate::codegen::IE_TYPES_TSV;

    /// The committed file is what the data files generate.
    #[test]
    fn generated_messages_are_fresh() {
        let root = crate::root();
        let tsv = fs::read_to_string(root.join(MESSAGES_TSV)).unwrap();
        let ie_types = fs::read_to_string(root.join(IE_TYPES_TSV)).unwrap();
        let want = generate(&tsv, &ie_types).unwrap();
        let have = fs::read_to_string(root.join(MESSAGES_RS)).unwrap_or_default();
        assert!(
            have == want,
            "{MESSAGES_RS} is stale: run `cargo xtask codegen` and commit the result"
        );
    }

    const IES: &str = "1\tCREATE_PDR\tgrouped\tie::CreatePdr<'_>\tCreate PDR\n\
                       60\tNODE_ID\tvalue\tie::NodeId<'_>\tNode ID\n\
                       65\tFQ_CSID\tvalue\t-\tFQ-CSID\n";

    #[test]
    fn bad_tables_are_refused() {
        let ok = "[AssociationReleaseRequest]\tASSOCIATION_RELEASE_REQUEST\t7.4.4.5-1\tRelease.\n\
                  node_id\tNODE_ID\tM\t1\tNode ID\n\
                  fq_csids\tFQ_CSID\tO\tn\tFQ-CSID -- a note\n";
        let text = generate(ok, IES).unwrap();
        assert!(text.contains("pub node_id: crate::ie::NodeId<'a>,"));
        assert!(text.contains("pub fq_csids: IeList<'a, RawIe<'a>>,"));
        assert!(text.contains("FQ-CSID (O, repeated): a note."));
        assert!(text.contains("MessageType::ASSOCIATION_RELEASE_REQUEST => &[IeType::NODE_ID],"));
        // An IE before a message, an unknown IE type, a bad presence or count, a field or IE
        // type twice, a typed optional repeated IE, a bad name.
        for bad in [
            "node_id\tNODE_ID\tM\t1\tNode ID\n",
            "[A]\tA\t-\tx\nnode_id\tNODE_IDX\tM\t1\tNode ID\n",
            "[A]\tA\t-\tx\nnode_id\tNODE_ID\tX\t1\tNode ID\n",
            "[A]\tA\t-\tx\nnode_id\tNODE_ID\tM\t2\tNode ID\n",
            "[A]\tA\t-\tx\nnode_id\tNODE_ID\tM\t1\tN\nnode_id\tFQ_CSID\tC\t1\tF\n",
            "[A]\tA\t-\tx\nnode_id\tNODE_ID\tM\t1\tN\nnode\tNODE_ID\tC\t1\tN\n",
            "[A]\tA\t-\tx\npdrs\tCREATE_PDR\tO\tn\tCreate PDR\n",
            "[A]\tA\t-\tx\nNodeId\tNODE_ID\tM\t1\tNode ID\n",
            "[A]\tA\t-\tx\nother\tNODE_ID\tM\t1\tNode ID\n",
            "[a]\tA\t-\tx\n",
            "[A]\tA\t-\n",
        ] {
            assert!(generate(bad, IES).is_err(), "{bad:?}");
        }
    }
}
