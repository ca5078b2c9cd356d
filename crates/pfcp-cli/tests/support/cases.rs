//! Messages built with `pfcp-wire`'s encoders, each with the summary Wireshark should show,
//! computed here from the builder inputs (spec layouts written out by hand), never by
//! decoding our own bytes.

use std::net::{Ipv4Addr, Ipv6Addr};

use pfcp_wire::encode::MessageWriter;
use pfcp_wire::ie::{
    ControlSequenceNumber, CpFunctionFeatures, FSeid, Feature, Fqdn, LoadControlInformation,
    Metric, NodeId, OciFlags, OffendingIe, OverloadControlInformation, RecoveryTimeStamp, Timer,
    TimerUnit, UpFunctionFeatures,
};
use pfcp_wire::owned::{IeContent, OwnedIe};
use pfcp_wire::{Cause, Header, IeType, MessagePriority, MessageType, SequenceNumber};
use serde_json::{json, Map, Value};

/// One test message: id, octets from our encoder, the summary expected from the inputs.
pub struct Case {
    pub id: String,
    pub bytes: Vec<u8>,
    pub expect: Value,
}

/// A feature bit: `pfcp-wire`'s constant (what we build with) and the spec position (what
/// we expect on the wire, copied from TS 29.244 clauses 8.2.25 / 8.2.58).
#[derive(Clone, Copy)]
pub struct Feat {
    wire: Feature,
    name: &'static str,
    octet: usize,
    bit: u8,
}

const fn cp(wire: Feature, name: &'static str, octet: usize, bit: u8) -> Feat {
    Feat {
        wire,
        name,
        octet,
        bit,
    }
}

type Cp = CpFunctionFeatures;
type Up = UpFunctionFeatures;
const LOAD: Feat = cp(Cp::LOAD, "LOAD", 5, 1);
const OVRL: Feat = cp(Cp::OVRL, "OVRL", 5, 2);
const CP_BUNDL: Feat = cp(Cp::BUNDL, "BUNDL", 5, 5);
const UIAUR: Feat = cp(Cp::UIAUR, "UIAUR", 5, 8);
const PSUCC: Feat = cp(Cp::PSUCC, "PSUCC", 6, 1);
const RPGUR: Feat = cp(Cp::RPGUR, "RPGUR", 6, 2);
/// The 15 UP bits the summary names, then some it does not (EPFAR, octets 7 and 8).
const UP_FEATS: [Feat; 20] = [
    cp(Up::BUCP, "BUCP", 5, 1),
    cp(Up::DDND, "DDND", 5, 2),
    cp(Up::DLBD, "DLBD", 5, 3),
    cp(Up::TRST, "TRST", 5, 4),
    cp(Up::FTUP, "FTUP", 5, 5),
    cp(Up::PFDM, "PFDM", 5, 6),
    cp(Up::HEEU, "HEEU", 5, 7),
    cp(Up::TREU, "TREU", 5, 8),
    cp(Up::EMPU, "EMPU", 6, 1),
    cp(Up::PDIU, "PDIU", 6, 2),
    cp(Up::UDBC, "UDBC", 6, 3),
    cp(Up::QUOAC, "QUOAC", 6, 4),
    cp(Up::TRACE, "TRACE", 6, 5),
    cp(Up::FRRT, "FRRT", 6, 6),
    cp(Up::PFDE, "PFDE", 6, 7),
    cp(Up::EPFAR, "EPFAR", 6, 8),
    cp(Up::DPDRA, "DPDRA", 7, 1),
    cp(Up::UEIP, "UEIP", 7, 3),
    cp(Up::BUNDL, "BUNDL", 7, 7),
    cp(Up::MPAS, "MPAS", 8, 1),
];

/// An IE to build, and to predict.
#[derive(Clone)]
pub enum Ie {
    Cause(u8),
    NodeV4(Ipv4Addr),
    NodeV6(Ipv6Addr),
    NodeFqdn(String),
    FSeid(u64, Option<Ipv4Addr>, Option<Ipv6Addr>),
    Rts(u32),
    Cpff(Vec<Feat>),
    Upff(Vec<Feat>),
    /// Sequence number, metric, timer unit, timer value, OCI Flags (None: absent).
    Oci(u32, u8, u8, u8, Option<bool>),
    Lci(u32, u8),
    Offending(u16),
    Vendor(u16, u16, Vec<u8>),
    /// An IE the summary shows as `value` only.
    Raw(u16, Vec<u8>),
    /// A grouped IE (not OCI/LCI) of raw members.
    Group(u16, Vec<(u16, Vec<u8>)>),
}

fn tlv(t: u16, body: &[u8]) -> Vec<u8> {
    let mut v = t.to_be_bytes().to_vec();
    v.extend_from_slice(&(body.len() as u16).to_be_bytes());
    v.extend_from_slice(body);
    v
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// IPv6 text as Python's `ipaddress` prints it (RFC 5952, no dotted-quad tail).
fn v6_text(a: Ipv6Addr) -> String {
    let g = a.segments();
    let mut best: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < 8 {
        if g[i] == 0 {
            let j = (i..8).find(|&k| g[k] != 0).unwrap_or(8);
            if j - i >= 2 && best.is_none_or(|(s, e)| j - i > e - s) {
                best = Some((i, j));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    let part = |s: &[u16]| {
        s.iter()
            .map(|x| format!("{x:x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    match best {
        Some((s, e)) => format!("{}::{}", part(&g[..s]), part(&g[e..])),
        None => part(&g),
    }
}

fn feature_octets(feats: &[Feat], min_len: usize) -> Vec<u8> {
    let len = feats
        .iter()
        .map(|f| f.octet - 4)
        .max()
        .unwrap_or(0)
        .max(min_len);
    let mut v = vec![0u8; len];
    for f in feats {
        v[f.octet - 5] |= 1 << (f.bit - 1);
    }
    v
}

fn obj(t: u16, body: &[u8], extra: Value) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!(t));
    m.insert("length".into(), json!(body.len()));
    m.insert("value".into(), json!(hex(body)));
    if let Value::Object(e) = extra {
        m.extend(e);
    }
    Value::Object(m)
}

fn group_obj(t: u16, members: Vec<Value>) -> Value {
    let len: u64 = members
        .iter()
        .map(|m| 4 + m["length"].as_u64().unwrap())
        .sum();
    json!({"type": t, "length": len, "ies": members})
}

impl Ie {
    /// The summary this IE must have.
    pub fn expect(&self) -> Value {
        match self {
            Ie::Cause(c) => obj(19, &[*c], json!({"cause": c})),
            Ie::NodeV4(a) => {
                let body = [&[0u8][..], &a.octets()].concat();
                obj(
                    60,
                    &body,
                    json!({"node_id_type": 0, "node_id": a.to_string()}),
                )
            }
            Ie::NodeV6(a) => {
                let body = [&[1u8][..], &a.octets()].concat();
                obj(
                    60,
                    &body,
                    json!({"node_id_type": 1, "node_id": v6_text(*a)}),
                )
            }
            Ie::NodeFqdn(name) => {
                let mut body = vec![2u8];
                for label in name.split('.') {
                    body.push(label.len() as u8);
                    body.extend_from_slice(label.as_bytes());
                }
                obj(60, &body, json!({"node_id_type": 2, "node_id": name}))
            }
            Ie::FSeid(seid, v4, v6) => {
                let flags = u8::from(v4.is_some()) << 1 | u8::from(v6.is_some());
                let mut body = vec![flags];
                body.extend_from_slice(&seid.to_be_bytes());
                body.extend(v4.iter().flat_map(|a| a.octets()));
                body.extend(v6.iter().flat_map(|a| a.octets()));
                let extra = json!({"seid": seid, "ipv4": v4.map(|a| a.to_string()), "ipv6": v6.map(v6_text)});
                obj(57, &body, extra)
            }
            Ie::Rts(n) => obj(96, &n.to_be_bytes(), json!({"timestamp": n})),
            Ie::Cpff(feats) => {
                let body = feature_octets(feats, 1);
                let has = |n| feats.iter().any(|f| f.name == n);
                obj(89, &body, json!({"load": has("LOAD"), "ovrl": has("OVRL")}))
            }
            Ie::Upff(feats) => {
                let body = feature_octets(feats, 2);
                let mut names: Vec<&str> = feats
                    .iter()
                    .filter(|f| f.octet < 6 || (f.octet == 6 && f.bit < 8))
                    .map(|f| f.name)
                    .collect();
                names.sort_unstable();
                obj(43, &body, json!({ "flags": names }))
            }
            Ie::Oci(seq, metric, unit, value, aoci) => {
                let mut members = vec![
                    obj(52, &seq.to_be_bytes(), json!({"sequence_number": seq})),
                    obj(53, &[*metric], json!({"metric": metric})),
                    obj(
                        55,
                        &[unit << 5 | value],
                        json!({"timer_unit": unit, "timer_value": value}),
                    ),
                ];
                if let Some(a) = aoci {
                    members.push(obj(110, &[u8::from(*a)], json!({"aoci": a})));
                }
                group_obj(54, members)
            }
            Ie::Lci(seq, metric) => group_obj(
                51,
                vec![
                    obj(52, &seq.to_be_bytes(), json!({"sequence_number": seq})),
                    obj(53, &[*metric], json!({"metric": metric})),
                ],
            ),
            Ie::Offending(t) => obj(40, &t.to_be_bytes(), json!({})),
            Ie::Vendor(t, eid, data) => {
                let body = [&eid.to_be_bytes()[..], data].concat();
                obj(*t, &body, json!({"enterprise_id": eid}))
            }
            Ie::Raw(t, body) => obj(*t, body, json!({})),
            Ie::Group(t, children) => {
                let body: Vec<u8> = children.iter().flat_map(|(ct, b)| tlv(*ct, b)).collect();
                obj(*t, &body, json!({}))
            }
        }
    }

    /// Write this IE with `pfcp-wire`'s typed encoders.
    fn write(&self, w: &mut MessageWriter<'_, Vec<u8>>) {
        let raw = |t: u16, b: &[u8]| OwnedIe {
            ie_type: IeType(t),
            enterprise_id: None,
            content: IeContent::Raw(b.into()),
        };
        let r = match self {
            Ie::Cause(c) => w.ie(&Cause(*c)),
            Ie::NodeV4(a) => w.ie(&NodeId::Ipv4(*a)),
            Ie::NodeV6(a) => w.ie(&NodeId::Ipv6(*a)),
            Ie::NodeFqdn(n) => w.ie(&NodeId::Fqdn(Fqdn::from_dotted(n).unwrap())),
            Ie::FSeid(seid, ipv4, ipv6) => w.ie(&FSeid {
                seid: *seid,
                ipv4: *ipv4,
                ipv6: *ipv6,
            }),
            Ie::Rts(n) => w.ie(&RecoveryTimeStamp(*n)),
            Ie::Cpff(f) => w.ie(&f.iter().fold(Cp::empty(), |acc, x| acc.with(x.wire))),
            Ie::Upff(f) => w.ie(&f.iter().fold(Up::empty(), |acc, x| acc.with(x.wire))),
            Ie::Oci(seq, metric, unit, value, aoci) => w.ie(&OverloadControlInformation {
                sequence_number: ControlSequenceNumber(*seq),
                metric: Metric::new(*metric).unwrap(),
                period_of_validity: Timer::new(TimerUnit::from_code(*unit), *value).unwrap(),
                flags: aoci.map(|a| if a { OciFlags::AOCI } else { OciFlags(0) }),
            }),
            Ie::Lci(seq, metric) => w.ie(&LoadControlInformation {
                sequence_number: ControlSequenceNumber(*seq),
                metric: Metric::new(*metric).unwrap(),
            }),
            Ie::Offending(t) => w.ie(&OffendingIe(IeType(*t))),
            Ie::Vendor(t, eid, data) => w.ie(&OwnedIe {
                ie_type: IeType(*t),
                enterprise_id: Some(*eid),
                content: IeContent::Raw(data.as_slice().into()),
            }),
            Ie::Raw(t, b) => w.ie(&raw(*t, b)),
            Ie::Group(t, children) => w.ie(&OwnedIe {
                ie_type: IeType(*t),
                enterprise_id: None,
                content: IeContent::Grouped(children.iter().map(|(ct, b)| raw(*ct, b)).collect()),
            }),
        };
        r.unwrap();
    }
}

/// Build one message and its expected summary.
pub fn case(id: String, t: u8, seid: Option<u64>, seq: u32, prio: Option<u8>, ies: &[Ie]) -> Case {
    let mut header = Header::new(MessageType(t)).with_sequence(SequenceNumber::new(seq).unwrap());
    if let Some(s) = seid {
        header = header.with_seid(s);
    }
    if let Some(p) = prio {
        header = header.with_priority(MessagePriority::new(p).unwrap());
    }
    let mut bytes = Vec::new();
    let mut w = MessageWriter::begin(&mut bytes, &header).unwrap();
    for ie in ies {
        ie.write(&mut w);
    }
    w.finish().unwrap();
    let expect_ies: Vec<Value> = ies.iter().map(Ie::expect).collect();
    let body: u64 = expect_ies
        .iter()
        .map(|i| 4 + i["length"].as_u64().unwrap())
        .sum();
    let length = if seid.is_some() { 12 } else { 4 } + body;
    let expect = json!({
        "version": 1, "message_type": t, "length": length, "seid": seid,
        "sequence": seq, "priority": prio, "ies": expect_ies,
    });
    Case { id, bytes, expect }
}

/// A small deterministic generator (xorshift64*), for "random" field values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn v4(s: &str) -> Ipv4Addr {
    s.parse().unwrap()
}

fn v6(s: &str) -> Ipv6Addr {
    s.parse().unwrap()
}

mod set;
#[allow(unused_imports)]
pub use set::all_cases;
