//! The messages Wireshark judges: every node message type with its mandatory IEs, every
//! session message type at every priority, the OCI grid, LCI, Node ID / F-SEID / feature /
//! vendor IE variants.

use super::*;

const RTS: u32 = 0xE8F4_A2B0;

fn create_pdr() -> Ie {
    Ie::Group(
        1,
        vec![
            (56, vec![0x00, 0x01]),
            (29, vec![0, 0, 0, 255]),
            (2, [0x00, 0x14, 0x00, 0x01, 0x00].to_vec()),
            (108, vec![0, 0, 0, 1]),
        ],
    )
}

fn create_far() -> Ie {
    Ie::Group(3, vec![(108, vec![0, 0, 0, 1]), (44, vec![0x02])])
}

/// Mandatory IEs of each node message type (TS 29.244 clause 7.4 tables).
fn node_ies(t: u8) -> Vec<Ie> {
    let node = Ie::NodeV4(v4("192.0.2.1"));
    match t {
        1 | 2 => vec![Ie::Rts(RTS)],
        3 | 11 => vec![],
        4 => vec![Ie::Cause(1)],
        5 => vec![node, Ie::Rts(RTS), Ie::Cpff(vec![LOAD, OVRL])],
        6 => vec![
            node,
            Ie::Cause(1),
            Ie::Rts(RTS),
            Ie::Upff(vec![UP_FEATS[4], UP_FEATS[8]]),
        ],
        7 | 9 | 14 => vec![Ie::NodeFqdn("smf1.example.net".into())],
        12 => vec![node, Ie::Raw(101, vec![0x01])],
        _ => vec![node, Ie::Cause(1)],
    }
}

/// Mandatory IEs of each session message type (clause 7.5 tables).
fn session_ies(t: u8) -> Vec<Ie> {
    match t {
        50 => vec![
            Ie::NodeV4(v4("198.51.100.1")),
            Ie::FSeid(0x1122_3344_5566_7788, Some(v4("198.51.100.1")), None),
            create_pdr(),
            create_far(),
        ],
        51 => vec![
            Ie::NodeV4(v4("198.51.100.2")),
            Ie::Cause(1),
            Ie::FSeid(7, Some(v4("198.51.100.2")), None),
        ],
        56 => vec![Ie::Raw(39, vec![0x02])],
        53 | 55 | 57 => vec![Ie::Cause(1)],
        _ => vec![],
    }
}

/// Every case.
pub fn all_cases() -> Vec<Case> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    // Node messages: 1-15 (16/17, Session Set Modification, are Release 17: Wireshark 4.0
    // does not know them), sequence 0, 1, max, random.
    for t in 1..=15u8 {
        let r = (rng.next() & 0xFF_FFFF) as u32;
        for (k, seq) in [0, 1, 0xFF_FFFF, r].into_iter().enumerate() {
            out.push(case(
                format!("node-{t}-{k}"),
                t,
                None,
                seq,
                None,
                &node_ies(t),
            ));
        }
    }
    // Session messages at every priority, and without MP with various SEIDs.
    for t in 50..=57u8 {
        for p in 0..=15u8 {
            let seid = rng.next();
            let seq = (rng.next() & 0xFF_FFFF) as u32;
            out.push(case(
                format!("sess-{t}-p{p}"),
                t,
                Some(seid),
                seq,
                Some(p),
                &session_ies(t),
            ));
        }
        for (k, seid) in [0, 1, u64::MAX, rng.next()].into_iter().enumerate() {
            let id = format!("sess-{t}-nomp-{k}");
            out.push(case(id, t, Some(seid), k as u32, None, &session_ies(t)));
        }
    }
    oci_and_lci(&mut rng, &mut out);
    identities(&mut rng, &mut out);
    features_and_vendor(&mut rng, &mut out);
    out
}

fn oci_and_lci(rng: &mut Rng, out: &mut Vec<Case>) {
    // The OCI grid in rejecting Session Establishment Responses.
    for unit in [0u8, 1, 2, 3, 4, 7] {
        for (ai, aoci) in [None, Some(false), Some(true)].into_iter().enumerate() {
            for metric in [0u8, 30, 100] {
                let value = (rng.next() % 32) as u8;
                let seq = rng.next() as u32;
                let ies = [
                    Ie::NodeV4(v4("198.51.100.2")),
                    Ie::Cause(74),
                    Ie::Oci(seq, metric, unit, value, aoci),
                ];
                let id = format!("oci-u{unit}-a{ai}-m{metric}");
                out.push(case(id, 51, Some(rng.next()), 9, Some(unit * 2), &ies));
            }
        }
    }
    // Edges: sequence numbers 0 and max, timer values 0 and 31, in 53, 55 and 56.
    for (k, (seq, value)) in [(0u32, 0u8), (u32::MAX, 31), (1, 31), (u32::MAX, 0)]
        .iter()
        .enumerate()
    {
        let oci = Ie::Oci(*seq, 50, 1, *value, Some(true));
        out.push(case(
            format!("oci-edge-53-{k}"),
            53,
            Some(1),
            2,
            None,
            &[Ie::Cause(1), oci.clone()],
        ));
        out.push(case(
            format!("oci-edge-55-{k}"),
            55,
            Some(1),
            3,
            None,
            &[Ie::Cause(1), oci.clone()],
        ));
        let ies = [Ie::Raw(39, vec![0x02]), oci, Ie::Lci(*seq, 100 - value)];
        out.push(case(
            format!("oci-edge-56-{k}"),
            56,
            Some(1),
            4,
            Some(1),
            &ies,
        ));
    }
    // LCI alone.
    for metric in [0u8, 1, 50, 99, 100] {
        for (k, seq) in [0u32, 1, u32::MAX].into_iter().enumerate() {
            let ies = [Ie::Cause(1), Ie::Lci(seq, metric)];
            out.push(case(
                format!("lci-m{metric}-{k}"),
                53,
                Some(rng.next()),
                5,
                Some(15),
                &ies,
            ));
        }
    }
}

fn identities(rng: &mut Rng, out: &mut Vec<Case>) {
    let rts = Ie::Rts(RTS);
    let v4s = ["0.0.0.0", "10.0.0.1", "192.0.2.255", "255.255.255.255"];
    for (k, a) in v4s.iter().enumerate() {
        let ies = [Ie::NodeV4(v4(a)), rts.clone()];
        out.push(case(
            format!("nodeid-v4-{k}"),
            5,
            None,
            k as u32,
            None,
            &ies,
        ));
    }
    let v6s = [
        "::",
        "::1",
        "2001:db8::1",
        "fe80::1:2:3:4",
        "2001:db8:0:1:0:0:0:1",
        "2001:0:0:1:0:0:1:1",
        "1:2:3:4:5:6:7:8",
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "::ffff:192.0.2.1",
    ];
    for (k, a) in v6s.iter().enumerate() {
        let ies = [Ie::NodeV6(v6(a)), rts.clone()];
        out.push(case(
            format!("nodeid-v6-{k}"),
            5,
            None,
            k as u32,
            None,
            &ies,
        ));
    }
    let label63 = "a".repeat(63);
    let long = [label63.as_str(); 3].join(".")
        + ".b23456789012345678901234567890123456789012345678901234567890";
    let fqdns = [
        "a",
        "upf",
        "upf1.example.net",
        "x-1.y_2.z",
        label63.as_str(),
        long.as_str(),
    ];
    for (k, name) in fqdns.iter().enumerate() {
        let ies = [Ie::NodeFqdn((*name).into()), rts.clone()];
        out.push(case(
            format!("nodeid-fqdn-{k}"),
            5,
            None,
            k as u32,
            None,
            &ies,
        ));
    }
    // F-SEID with IPv4, IPv6, both, in Session Establishment Request and Response.
    let fseids = [
        (Some(v4("203.0.113.9")), None),
        (None, Some(v6("2001:db8::9"))),
        (Some(v4("203.0.113.10")), Some(v6("2001:db8:1::a"))),
    ];
    for (k, (a4, a6)) in fseids.iter().enumerate() {
        let seid = rng.next();
        let mut req = session_ies(50);
        req[1] = Ie::FSeid(seid, *a4, *a6);
        out.push(case(format!("fseid-50-{k}"), 50, Some(0), 1, Some(5), &req));
        let resp = [
            Ie::NodeV4(v4("198.51.100.2")),
            Ie::Cause(1),
            Ie::FSeid(!seid, *a4, *a6),
        ];
        out.push(case(
            format!("fseid-51-{k}"),
            51,
            Some(seid),
            1,
            Some(5),
            &resp,
        ));
    }
    // Recovery Time Stamps.
    for (k, ts) in [0u32, 1, u32::MAX, rng.next() as u32]
        .into_iter()
        .enumerate()
    {
        out.push(case(format!("rts-{k}"), 2, None, 7, None, &[Ie::Rts(ts)]));
    }
    // Rejection causes, with an Offending IE where the cause calls for one.
    for c in [2u8, 3, 64, 65, 66, 67, 68, 69, 72, 73, 74, 75, 76, 77, 79] {
        let mut ies = vec![Ie::Cause(c)];
        if (66..=69).contains(&c) {
            ies.push(Ie::Offending(60));
        }
        out.push(case(format!("cause-{c}"), 55, Some(2), 8, None, &ies));
    }
}

fn features_and_vendor(rng: &mut Rng, out: &mut Vec<Case>) {
    let node = Ie::NodeV4(v4("192.0.2.1"));
    let cp_sets: [&[Feat]; 7] = [
        &[],
        &[LOAD],
        &[OVRL],
        &[LOAD, OVRL],
        &[LOAD, OVRL, CP_BUNDL, UIAUR],
        &[OVRL, PSUCC],
        &[LOAD, RPGUR],
    ];
    for (k, set) in cp_sets.iter().enumerate() {
        let ies = [node.clone(), Ie::Rts(RTS), Ie::Cpff(set.to_vec())];
        out.push(case(format!("cpff-{k}"), 5, None, 3, None, &ies));
    }
    // Each UP bit alone, then mixed sets spanning 2, 3 and 4 octets.
    let mut up_sets: Vec<Vec<Feat>> = UP_FEATS.iter().map(|f| vec![*f]).collect();
    up_sets.push(vec![]);
    up_sets.push(UP_FEATS[..15].to_vec());
    up_sets.push(UP_FEATS.to_vec());
    up_sets.push(vec![UP_FEATS[0], UP_FEATS[14], UP_FEATS[19]]);
    for (k, set) in up_sets.into_iter().enumerate() {
        let ies = [node.clone(), Ie::Cause(1), Ie::Rts(RTS), Ie::Upff(set)];
        out.push(case(format!("upff-{k}"), 6, None, 4, None, &ies));
    }
    // Vendor IEs (Enterprise IDs without a Wireshark sub-dissector, data never empty) and
    // unknown IE types, in Heartbeat Requests and inside a Session Report Request.
    let vendors = [
        (0x8000u16, 32473u16),
        (0xFFFF, 9),
        (0x8123, 94),
        (0x9000, 65535),
        (0xA000, 0),
    ];
    for (k, (t, eid)) in vendors.into_iter().enumerate() {
        let data: Vec<u8> = (0..=k).map(|_| rng.next() as u8).collect();
        let ies = [Ie::Rts(RTS), Ie::Vendor(t, eid, data.clone())];
        out.push(case(format!("vendor-{k}"), 1, None, 5, None, &ies));
        let ies = [
            Ie::Raw(39, vec![0x02]),
            Ie::Vendor(t, eid, data),
            Ie::Oci(1, 10, 2, 3, None),
        ];
        out.push(case(
            format!("vendor-56-{k}"),
            56,
            Some(3),
            5,
            Some(0),
            &ies,
        ));
    }
    for (k, t) in [400u16, 1000, 32767].into_iter().enumerate() {
        let ies = [Ie::Rts(RTS), Ie::Raw(t, vec![0xde, 0xad, k as u8])];
        out.push(case(format!("unknown-ie-{k}"), 1, None, 6, None, &ies));
    }
}
