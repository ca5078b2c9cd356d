//! The owned form against spec layouts written out by hand: every edit is checked by
//! decoding the result with [`Message::decode`] and comparing the octets to the layout of
//! TS 29.244 clauses 7.2.2 (header) and 7.2.3.3 (grouped IEs), not only by round trips.

use super::*;
use crate::ie::IeType;

/// Digest 4.14: minimal Session Establishment Request, MP=1 priority 5. Body: Node ID, F-SEID,
/// Create PDR { PDR ID, Precedence, PDI { Source Interface }, FAR ID }, Create FAR { FAR ID,
/// Apply Action }.
const SER: &str = "2332005a000000000000000000000250\
                   003c000500c000020a\
                   0039000d020000000000000001c000020a\
                   0001001f003800020001001d0004000000ff000200050014000100006c000400000001\
                   0003000d006c000400000001002c000102";

fn hex(s: &str) -> Vec<u8> {
    parse_hex(&s.replace([' ', '\n'], "")).unwrap()
}

fn ser() -> OwnedMessage {
    let b = hex(SER);
    OwnedMessage::from_message(&Message::decode(&b).unwrap()).unwrap()
}

/// Encode, check the octets against `expected`, and that they decode (framing included).
fn assert_wire(m: &OwnedMessage, expected: &str) {
    let bytes = m.to_bytes().unwrap();
    assert_eq!(bytes, hex(expected), "octets");
    assert_eq!(m.encoded_len(), bytes.len());
    let d = Message::decode(&bytes).unwrap();
    assert_eq!(OwnedMessage::from_message(&d).unwrap(), *m);
}

#[test]
fn round_trip_session_establishment_request() {
    let b = hex(SER);
    let m = Message::decode(&b).unwrap();
    m.validate().unwrap();
    assert_eq!(m.ie_count(), 11);
    let owned = OwnedMessage::from_message(&m).unwrap();
    assert_eq!(owned.encoded_len(), b.len());
    assert_eq!(owned.to_bytes().unwrap(), b);
    assert_eq!(owned.body(), m.body());
    let pdr = owned.get(&[2]).unwrap();
    assert_eq!(pdr.ie_type(), IeType::CREATE_PDR);
    assert_eq!(pdr.children().count(), 4);
    assert_eq!(owned.get(&[2, 2, 0]).unwrap().value(), [0]);
    assert!(owned.get(&[2, 4]).is_none());
    assert!(owned.get(&[0, 0]).is_none(), "Node ID is not grouped");
    assert!(owned.get(&[]).is_none());
    let tree = owned.to_ies();
    assert!(matches!(&tree[2].content, IeContent::Grouped(c) if c.len() == 4));
    let rebuilt = OwnedMessage {
        body: Vec::new(),
        ..owned.clone()
    }
    .with_ies(&tree)
    .unwrap();
    assert_eq!(rebuilt, owned);
}

#[test]
fn inserting_into_a_nested_group_rewrites_every_length_around_it() {
    let mut m = ser();
    // Network Instance "internet" (type 22) as the PDI's second member: PDI 5 -> 17,
    // Create PDR 31 -> 43, Message Length 90 -> 102.
    m.insert(&[2, 2, 1], &OwnedIe::raw(IeType(22), b"internet"))
        .unwrap();
    assert_wire(
        &m,
        "23320066000000000000000000000250
         003c000500c000020a
         0039000d020000000000000001c000020a
         0001002b 003800020001 001d0004000000ff
                  00020011 0014000100 00160008696e7465726e6574
                  006c000400000001
         0003000d006c000400000001002c000102",
    );
}

#[test]
fn removing_and_resizing_members() {
    let mut m = ser();
    // Precedence out of the Create PDR: 31 -> 23; Message Length 90 -> 82.
    let gone = m.remove(&[2, 1]).unwrap();
    assert_eq!(gone, OwnedIe::raw(IeType(29), &[0, 0, 0, 0xff]));
    // Apply Action grown to two octets (FORW, then a second flag octet): Create FAR 13 -> 14,
    // Message Length 82 -> 83.
    m.set_value(&[3, 1], &[0x02, 0x00]).unwrap();
    assert_wire(
        &m,
        "23320053000000000000000000000250
         003c000500c000020a
         0039000d020000000000000001c000020a
         00010017 003800020001 000200050014000100 006c000400000001
         0003000e 006c000400000001 002c00020200",
    );
}

#[test]
fn a_group_handle_edits_members_at_any_depth() {
    let mut m = ser();
    {
        let mut pdr = m.group(&[2]).unwrap();
        assert_eq!(pdr.len(), 4);
        let mut pdi = pdr.group(2).unwrap();
        // Source Interface CORE (1), then an appended QFI (type 124, 1 octet): PDI 5 -> 10.
        pdi.set_value(0, &[1]).unwrap();
        pdi.push(&OwnedIe::raw(IeType(124), &[9])).unwrap();
        assert_eq!(pdi.len(), 2);
        assert_eq!(pdi.get(1).unwrap().value(), [9]);
    }
    // Create PDR 31 -> 36, Message Length 90 -> 95.
    assert_wire(
        &m,
        "2332005f000000000000000000000250
         003c000500c000020a
         0039000d020000000000000001c000020a
         00010024 003800020001 001d0004000000ff
                  0002000a 0014000101 007c000109
                  006c000400000001
         0003000d006c000400000001002c000102",
    );
    // A grouped member replaced by a tree: the Create FAR becomes { FAR ID 2 }.
    let far = OwnedIe::grouped(
        IeType::CREATE_FAR,
        vec![OwnedIe::raw(IeType(108), &[0, 0, 0, 2])],
    );
    let old = m.replace(&[3], &far).unwrap();
    assert!(matches!(old.content, IeContent::Grouped(ref c) if c.len() == 2));
    assert_eq!(m.get(&[3, 0]).unwrap().value(), [0, 0, 0, 2]);
    assert_eq!(m.get(&[3]).unwrap().length(), 8);
}

#[test]
fn refused_edits_leave_the_message_unchanged() {
    let mut m = ser();
    let before = m.clone();
    let leaf = OwnedIe::raw(IeType(124), &[9]);
    // Paths that lead nowhere.
    assert!(m.insert(&[], &leaf).is_err());
    assert!(
        m.insert(&[2, 5], &leaf).is_err(),
        "past the end of the group"
    );
    assert!(m.insert(&[0, 0], &leaf).is_err(), "into Node ID");
    assert!(m.remove(&[9]).is_err());
    assert!(m.group(&[0]).is_err());
    // Vendor types need an Enterprise ID, others must not have one.
    assert!(m.push(&OwnedIe::raw(IeType(0x8001), b"x")).is_err());
    assert!(m.push(&OwnedIe::vendor(IeType(22), 10415, b"x")).is_err());
    // A grouped type given octets that do not frame as IEs.
    assert!(m
        .push(&OwnedIe::raw(IeType::CREATE_PDR, &[0, 1, 0]))
        .is_err());
    // A member that would push the Create PDR's Length past 65 535.
    let big = OwnedIe::raw(IeType(22), &vec![0x61; 65_530]);
    assert!(matches!(
        m.insert(&[2, 0], &big),
        Err(EncodeError::LengthOverflow(_))
    ));
    assert_eq!(m, before);
    // Appending at the end of a group is allowed; raw octets that frame are accepted for a
    // grouped type and read back as members.
    m.insert(&[3, 2], &leaf).unwrap();
    m.push(&OwnedIe::raw(IeType::CREATE_PDR, &[0, 56, 0, 2, 0, 7]))
        .unwrap();
    assert_eq!(m.get(&[4, 0]).unwrap().value(), [0, 7]);
    assert_eq!(m.get(&[3]).unwrap().children().count(), 3);
    Message::decode(&m.to_bytes().unwrap()).unwrap();
}

#[test]
fn vendor_ies_keep_their_enterprise_id() {
    let mut m = OwnedMessage::new(MessageType::HEARTBEAT_REQUEST, SequenceNumber::wrapping(7));
    m.push(&OwnedIe::raw(IeType(96), &[0xe5, 0x1d, 0x5f, 0x00]))
        .unwrap();
    m.push(&OwnedIe::vendor(IeType(0x8002), 10415, &[1, 2]))
        .unwrap();
    m.set_value(&[1], &[3, 4, 5]).unwrap();
    // Node header (clause 7.2.2.1, S=0): Message Length 4 + 8 + 9 = 21.
    assert_wire(
        &m,
        "20010015 00000700
         00600004e51d5f00
         80020005 28af 030405",
    );
    assert_eq!(m.get(&[1]).unwrap().enterprise_id(), Some(10415));
}
