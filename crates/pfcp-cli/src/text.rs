//! `pfcp decode --format text`: each message as a tree, in the manner of `tshark -V`: where it
//! was seen, the header, the receiver's verdict, what it pairs with, then every IE with its
//! name and typed fields ([`crate::describe`]), grouped IEs indented with their members.

use std::io::{self, Write};

use pfcp_wire::ie::{AnyTypedIe, IeIter};
use pfcp_wire::{DecodeError, Message, RawIe};

use crate::describe::{cause_text, fields, utc};
use crate::pairing::{ms, Paired};
use crate::render::{action, ie_name, Hex, Origin};

const INDENT: &str = "    ";

/// The first line of a record: `Frame 3: <time>, <src> -> <dst>` or `Line 3:`, and the
/// message's position in its datagram when it is not the first.
fn origin_line(out: &mut dyn Write, origin: &Origin) -> io::Result<()> {
    match origin.frame {
        Some(f) => write!(out, "Frame {f}:")?,
        None => write!(out, "Line {}:", origin.line.unwrap_or_default())?,
    }
    if let Some(t) = origin.time {
        write!(out, " {},", utc(t, true))?;
    }
    if let Some((src, dst)) = origin.addrs {
        write!(out, " {src} -> {dst}")?;
    }
    if origin.index > 0 {
        write!(out, " (message {} of the datagram)", origin.index + 1)?;
    }
    writeln!(out)
}

/// Write the tree of one message and a blank line.
pub fn write_message(
    out: &mut dyn Write,
    msg: &Message<'_>,
    origin: &Origin,
    paired: Paired,
    verdict: &Result<(), DecodeError>,
) -> io::Result<()> {
    origin_line(out, origin)?;
    let h = msg.header();
    let t = msg.message_type();
    match t.name() {
        Some(n) => writeln!(out, "PFCP {n} ({})", t.0)?,
        None => writeln!(out, "PFCP unknown message type {}", t.0)?,
    }
    writeln!(
        out,
        "{INDENT}Version: 1, FO: {}, MP: {}, S: {}",
        u8::from(h.follow_on),
        u8::from(h.priority.is_some()),
        u8::from(h.seid.is_some())
    )?;
    writeln!(out, "{INDENT}Length: {}", h.length)?;
    if let Some(seid) = h.seid {
        writeln!(out, "{INDENT}SEID: 0x{seid:016x}")?;
    }
    writeln!(out, "{INDENT}Sequence Number: {}", h.sequence.value())?;
    if let Some(p) = h.priority {
        writeln!(out, "{INDENT}Message Priority: {}", p.value())?;
    }
    let at = if origin.frame.is_some() {
        "frame"
    } else {
        "line"
    };
    match paired {
        Paired::Response {
            request,
            elapsed: Some(e),
        } => writeln!(
            out,
            "{INDENT}[Response to the request in {at} {request}, after {}]",
            ms(e)
        )?,
        Paired::Response { request, .. } => {
            writeln!(out, "{INDENT}[Response to the request in {at} {request}]")?
        }
        Paired::Retransmission { first } => writeln!(
            out,
            "{INDENT}[Retransmission of the request in {at} {first}]"
        )?,
        Paired::Unmatched => writeln!(out, "{INDENT}[No request seen for this response]")?,
        Paired::Request | Paired::Other => {}
    }
    if let Err(e) = verdict {
        let offending = match e.offending_ie() {
            Some(t) => format!(", Offending IE {}", ie_label(t)),
            None => String::new(),
        };
        writeln!(
            out,
            "{INDENT}[Invalid: {e}; a node would {} it: Cause {}{offending}]",
            action(msg, e),
            cause_text(e.cause())
        )?;
    }
    write_ies(out, msg.ies(), 1)?;
    writeln!(out)
}

fn ie_label(t: pfcp_wire::IeType) -> String {
    match ie_name(t) {
        Some(n) => format!("{n} ({})", t.0),
        None => format!("Unknown IE type {}", t.0),
    }
}

fn write_ies(out: &mut dyn Write, ies: IeIter<'_>, depth: usize) -> io::Result<()> {
    for ie in ies.map_while(Result::ok) {
        write_ie(out, &ie, depth)?;
    }
    Ok(())
}

fn write_ie(out: &mut dyn Write, ie: &RawIe<'_>, depth: usize) -> io::Result<()> {
    let pad = INDENT.repeat(depth);
    let t = ie.ie_type();
    write!(out, "{pad}{}", ie_label(t))?;
    if let Some(eid) = ie.enterprise_id() {
        write!(out, ", Enterprise ID {eid}")?;
    }
    if t.is_grouped() {
        writeln!(out)?;
        return write_ies(out, ie.children(), depth + 1);
    }
    match AnyTypedIe::decode(ie) {
        Some(Ok(v)) => {
            let f = fields(&v);
            match f.as_slice() {
                [("", text)] => writeln!(out, ": {text}")?,
                _ => {
                    writeln!(out)?;
                    for (label, text) in &f {
                        writeln!(out, "{pad}{INDENT}{label}: {text}")?;
                    }
                }
            }
            if !v.reproduces(ie.value()) {
                writeln!(
                    out,
                    "{pad}{INDENT}[Octets beyond the typed fields: {}]",
                    Hex(ie.value())
                )?;
            }
        }
        Some(Err(e)) if ie.value().is_empty() => {
            writeln!(out, ": (empty)")?;
            writeln!(out, "{pad}{INDENT}[Malformed: {e}]")?;
        }
        Some(Err(e)) => {
            writeln!(out, ": {}", Hex(ie.value()))?;
            writeln!(out, "{pad}{INDENT}[Malformed: {e}]")?;
        }
        None if ie.value().is_empty() => writeln!(out, ": (empty)")?,
        None => writeln!(out, ": {}", Hex(ie.value()))?,
    }
    Ok(())
}

/// An octet string that failed to decode as a message: where, and why.
pub fn write_error(out: &mut dyn Write, origin: &Origin, e: &DecodeError) -> io::Result<()> {
    origin_line(out, origin)?;
    writeln!(out, "{INDENT}[Malformed: {e}]")?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex;

    fn text(h: &str, origin: &Origin, paired: Paired) -> String {
        let b = hex::decode(h).unwrap();
        let m = Message::decode(&b).unwrap();
        let mut out = Vec::new();
        write_message(&mut out, &m, origin, paired, &m.validate()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_response_with_its_pairing_and_typed_ies() {
        // Association Setup Response (clause 7.4.4.2): Cause 1, Node ID IPv4 10.0.0.2,
        // Recovery Time Stamp 0xe8f4a2b0, CP Function Features LOAD|OVRL.
        let h = "2006001f000001000013000101003c0005000a00000200600004e8f4a2b000590001 03";
        let origin = Origin {
            frame: Some(2),
            time: Some(std::time::Duration::from_micros(1_700_000_000_250_000)),
            addrs: Some((
                "10.0.0.2:8805".parse().unwrap(),
                "10.0.0.1:8805".parse().unwrap(),
            )),
            ..Origin::default()
        };
        let paired = Paired::Response {
            request: 1,
            elapsed: Some(std::time::Duration::from_micros(1500)),
        };
        let t = text(&h.replace(' ', ""), &origin, paired);
        let want = "\
Frame 2: 2023-11-14 22:13:20.250000 UTC, 10.0.0.2:8805 -> 10.0.0.1:8805
PFCP Association Setup Response (6)
    Version: 1, FO: 0, MP: 0, S: 0
    Length: 31
    Sequence Number: 1
    [Response to the request in frame 1, after 1.500 ms]
    Cause (19): Request accepted (success) (1)
    Node ID (60): IPv4 10.0.0.2
    Recovery Time Stamp (96): 2023-11-07T11:49:04Z (3908346544)
    CP Function Features (89): LOAD, OVRL

";
        assert_eq!(t, want);
    }

    #[test]
    fn invalid_messages_say_what_a_node_answers() {
        // Association Setup Request with an empty Node ID, then a Recovery Time Stamp.
        let t = text(
            "2005001000000200003c000000600004e8f4a2b0",
            &Origin {
                line: Some(3),
                ..Origin::default()
            },
            Paired::Request,
        );
        assert!(t.starts_with("Line 3:\n"), "{t}");
        assert!(
            t.contains(
                "a node would reject it: Cause Invalid length (68), Offending IE Node ID (60)]"
            ),
            "{t}"
        );
        assert!(t.contains("    Node ID (60): (empty)\n"), "{t}");
    }
}
