//! The typed IEs of the session messages (TS 29.244 clause 7.5 tables, clause 8.2 layouts):
//! decoded from byte vectors written from the spec layouts, encoded by the builders back to
//! those bytes, and decoded from every real capture of the oracle (open5gs, bisdn pfcpcore,
//! go-pfcp; read from `../shared/oracle`, skipped when absent).

use std::net::Ipv4Addr;

use pfcp_test_support::skip::skip_oracle;
use pfcp_wire::encode::{Encode, MessageBuilder};
use pfcp_wire::ie::{
    ApplyAction, CreateFar, CreatePdr, CreatedPdr, DestinationInterface, FTeid, FarId,
    ForwardingParameters, IntoOwned, NetworkInstance, NodeId, OuterHeaderCreation,
    OuterHeaderRemoval, Pdi, PdrId, Precedence, ReportType, SourceInterface, UeIpAddress, UrSeqn,
    UrrId, UsageReportSrr, UsageReportTrigger, VolumeMeasurement,
};
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{DecodeErrorKind, Header, IeType, Message, MessageType, SequenceNumber, TypedIe};

/// Digest 4.14: the minimal Session Establishment Request (MP=1, priority 5), decoded OK by
/// scapy; layouts of Tables 7.5.2.2-1/-2 and 7.5.2.3-1.
const MINIMAL_SER: &str = "2332005a000000000000000000000250\
                           003c000500c000020a\
                           0039000d020000000000000001c000020a\
                           0001001f003800020001001d0004000000ff000200050014000100006c000400000001\
                           0003000d006c000400000001002c000102";

#[test]
fn minimal_establishment_request_reads_as_its_layout() {
    let b = parse_hex(MINIMAL_SER).unwrap();
    let m = Message::decode(&b).unwrap();
    m.validate().unwrap();
    m.check_typed_ies().unwrap();
    let pdrs: Vec<CreatePdr<'_>> = m.all().collect::<Result<_, _>>().unwrap();
    assert_eq!(pdrs.len(), 1);
    let pdr = &pdrs[0];
    assert_eq!(pdr.pdr_id, PdrId(1));
    assert_eq!(pdr.precedence, Some(Precedence(255)));
    assert_eq!(pdr.pdi.source_interface, SourceInterface::ACCESS);
    assert_eq!(pdr.far_id, Some(FarId(1)));
    assert!(pdr.urr_ids.is_empty() && pdr.pdi.sdf_filters.is_empty());
    let far: CreateFar<'_> = m.get().unwrap().unwrap();
    assert_eq!(far.far_id, FarId(1));
    assert_eq!(far.apply_action, ApplyAction::FORW);
    assert!(far.forwarding_parameters.is_none());

    // The builders write the same octets (the bytes come from the spec layout, not from us).
    let built_pdr = CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS))
        .with_precedence(Precedence(255))
        .with_far_id(FarId(1));
    let built_far = CreateFar::new(FarId(1), ApplyAction::FORW);
    assert_eq!(&built_pdr, pdr);
    let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST)
        .with_seid(0)
        .with_sequence(SequenceNumber::new(2).unwrap())
        .with_priority(pfcp_wire::MessagePriority::new(5).unwrap());
    let msg = MessageBuilder::new(header)
        .ie(NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 10)))
        .ie(pfcp_wire::ie::FSeid {
            seid: 1,
            ipv4: Some(Ipv4Addr::new(192, 0, 2, 10)),
            ipv6: None,
        })
        .ie(&built_pdr)
        .ie(&built_far);
    let mut out = vec![0u8; msg.encoded_len()];
    msg.encode_into(&mut out).unwrap();
    assert_eq!(out, b);
}

/// A Create PDR with everything this crate types in a PDI, and a Create FAR forwarding
/// through a GTP-U tunnel; hex from the layouts of clause 8.2 (each IE annotated).
#[test]
fn rich_rules_read_as_their_layout() {
    let hex = concat!(
        "0001",
        "0054", // Create PDR, 84
        "0038000200",
        "02",               //   PDR ID 2
        "001d000400000064", //   Precedence 100
        "0002",
        "002d",               //   PDI, 45
        "0014000101",         //     Source Interface Core
        "0016000408696e74",   //     Network Instance "\x08int"
        "005d0005060a2d0002", //     UE IP Address S/D V4 10.45.0.2
        "0017000e",
        "0100",
        "000a",
        "7065726d6974206f7574", // SDF Filter FD "permit out"
        "007c000109",           //     QFI 9
        "005f000100",           //   OHR GTP-U/UDP/IPv4
        "006c000400000002",     //   FAR ID 2
        "0051000400000007",     //   URR ID 7
        "0003",
        "0024",             // Create FAR, 36
        "006c000400000002", //   FAR ID 2
        "002c000102",       //   Apply Action FORW
        "0004",
        "0013",                         //   Forwarding Parameters, 19
        "002a000100",                   //     Destination Interface Access
        "0054000a0100000000abc0000209", //     OHC GTP-U/UDP/IPv4 TEID 0xab
    );
    let b = parse_hex(hex).unwrap();
    let mut it = pfcp_wire::ie::IeIter::new(&b, 0);
    let pdr: CreatePdr<'_> = it.next().unwrap().unwrap().decode_as().unwrap();
    let far: CreateFar<'_> = it.next().unwrap().unwrap().decode_as().unwrap();
    assert_eq!(pdr.pdi.source_interface, SourceInterface::CORE);
    assert_eq!(
        pdr.pdi
            .network_instance
            .as_ref()
            .map(NetworkInstance::as_bytes),
        Some(&b"\x08int"[..])
    );
    assert_eq!(
        pdr.pdi.ue_ip_addresses.first(),
        Some(UeIpAddress::ipv4(Ipv4Addr::new(10, 45, 0, 2), true))
    );
    let sdf = pdr.pdi.sdf_filters.first().unwrap();
    assert_eq!(sdf.flow_description.as_deref(), Some(&b"permit out"[..]));
    assert_eq!(pdr.pdi.qfis.first().map(|q| q.value()), Some(9));
    assert_eq!(
        pdr.outer_header_removal,
        Some(OuterHeaderRemoval::new(OuterHeaderRemoval::GTP_U_UDP_IPV4))
    );
    assert_eq!(pdr.urr_ids.iter().collect::<Vec<_>>(), [UrrId(7)]);
    let fp = far.forwarding_parameters.as_ref().unwrap();
    assert_eq!(fp.destination_interface, DestinationInterface::ACCESS);
    assert_eq!(
        fp.outer_header_creation,
        Some(OuterHeaderCreation::gtpu_ipv4(
            0xab,
            Ipv4Addr::new(192, 0, 2, 9)
        ))
    );

    // Re-encoded from the decoded view (repeated members copied octet for octet) and from
    // the owned form (built member by member): the same octets both ways.
    let mut again = Vec::new();
    pdr.encode(&mut again).unwrap();
    far.encode(&mut again).unwrap();
    assert_eq!(again, b);
    let owned_pdr: CreatePdr<'static> = pdr.clone().into_owned();
    let owned_far: CreateFar<'static> = far.clone().into_owned();
    assert_eq!(owned_pdr, pdr);
    let mut from_owned = Vec::new();
    owned_pdr.encode(&mut from_owned).unwrap();
    owned_far.encode(&mut from_owned).unwrap();
    assert_eq!(from_owned, b);

    // And the builders, from application values.
    let built = CreateFar::new(FarId(2), ApplyAction::FORW).with_forwarding_parameters(
        ForwardingParameters::new(DestinationInterface::ACCESS).with_outer_header_creation(
            OuterHeaderCreation::gtpu_ipv4(0xab, Ipv4Addr::new(192, 0, 2, 9)),
        ),
    );
    assert_eq!(built, far);
}

#[test]
fn missing_members_and_bad_members_are_named() {
    // Create PDR without its PDI: MissingMember(PDI) at the Create PDR.
    let b = parse_hex("00010006003800020001").unwrap();
    let ie = pfcp_wire::ie::IeIter::new(&b, 0).next().unwrap().unwrap();
    let e = ie.decode_as::<CreatePdr<'_>>().unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::MissingMember(IeType::PDI));
    assert_eq!(e.path.depth(), 1);
    // A PDI whose F-TEID is short: the error is at the F-TEID, three levels down.
    let b = parse_hex("0001001300380002000100020009001500050100000001").unwrap();
    let ie = pfcp_wire::ie::IeIter::new(&b, 0).next().unwrap().unwrap();
    let e = ie.decode_as::<CreatePdr<'_>>().unwrap_err();
    assert!(matches!(e.kind, DecodeErrorKind::IeTooShort { .. }), "{e}");
    assert_eq!(
        e.path.types().collect::<Vec<_>>(),
        [IeType::CREATE_PDR, IeType::PDI, IeType::F_TEID]
    );
    assert_eq!(e.offset, 14);
}

/// A Session Report Request with a Usage Report (Table 7.5.8.3-1) and a Created PDR with a
/// chosen F-TEID (Table 7.5.3.2-1), from their layouts.
#[test]
fn reports_read_as_their_layout() {
    let hex = concat!(
        "0027000102", // Report Type USAR
        "0050",
        "0024",             // Usage Report (SRR), 36
        "0051000400000007", //   URR ID 7
        "0068000400000003", //   UR-SEQN 3
        "003f0003",
        "000800",                     //   Usage Report Trigger TERMR (3 octets)
        "004200090100000000000004d2", //   Volume Measurement TOVOL 1234
        "0008",
        "0013", // Created PDR, 19
        "0038000200",
        "05", //   PDR ID 5
        "0015000901",
        "0000beef",
        "c0000201", //   F-TEID V4 0xbeef 192.0.2.1
    );
    let b = parse_hex(hex).unwrap();
    let mut it = pfcp_wire::ie::IeIter::new(&b, 0);
    let rt: ReportType = it.next().unwrap().unwrap().decode_as().unwrap();
    assert_eq!(rt, ReportType::USAR);
    let ur: UsageReportSrr = it.next().unwrap().unwrap().decode_as().unwrap();
    assert_eq!((ur.urr_id, ur.ur_seqn), (UrrId(7), UrSeqn(3)));
    assert!(ur.usage_report_trigger.contains(UsageReportTrigger::TERMR));
    assert_eq!(
        ur.volume_measurement,
        Some(VolumeMeasurement {
            total_volume: Some(1234),
            ..VolumeMeasurement::default()
        })
    );
    let created: CreatedPdr<'_> = it.next().unwrap().unwrap().decode_as().unwrap();
    assert_eq!(created.pdr_id, PdrId(5));
    assert_eq!(
        created.local_f_teid,
        Some(FTeid::ipv4(0xbeef, Ipv4Addr::new(192, 0, 2, 1)))
    );
    let mut again = Vec::new();
    rt.encode(&mut again).unwrap();
    ur.encode(&mut again).unwrap();
    created.encode(&mut again).unwrap();
    assert_eq!(again, b);
}

// ---------------------------------------------------------------------------------------------
// Real captures

fn oracle_file(name: &str) -> Option<String> {
    let dir = std::env::var_os("PFCP_ORACLE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle")
        });
    match std::fs::read_to_string(dir.join("corpus").join(name)) {
        Ok(s) => Some(s),
        Err(_) => {
            skip_oracle(
                "session_ies",
                &format!("oracle corpus {name} not found under {}", dir.display()),
            );
            None
        }
    }
}

/// The `"hex"` member of each JSON line (the corpus writes it as a plain lowercase string).
fn hex_payloads(jsonl: &str) -> Vec<Vec<u8>> {
    jsonl
        .lines()
        .filter_map(|l| {
            let at = l.find("\"hex\":\"")? + 7;
            let end = at + l.get(at..)?.find('"')?;
            parse_hex(l.get(at..end)?)
        })
        .collect()
}

/// Decode `ie` as `T`, re-encode it, decode again: the same value; for a leaf IE whose layout
/// is canonical, the same octets too.
fn check_one<'a, T>(ie: &pfcp_wire::RawIe<'a>, exact: bool) -> Result<(), String>
where
    T: TypedIe<'a> + Encode + PartialEq + std::fmt::Debug,
{
    let v = ie.decode_as::<T>().map_err(|e| format!("{e}"))?;
    let mut out = Vec::new();
    v.encode(&mut out).map_err(|e| format!("encode: {e}"))?;
    if out.len() != v.encoded_len() {
        return Err("encoded_len".into());
    }
    let mut orig = Vec::new();
    ie.encode(&mut orig).map_err(|e| format!("{e}"))?;
    if exact && out != orig {
        return Err(format!("re-encoded {out:02x?} != {orig:02x?}"));
    }
    // Leaked so the re-decoded value may borrow it for `'a` (a few KiB per test run).
    let out: &'a [u8] = Box::leak(out.into_boxed_slice());
    let again = pfcp_wire::ie::IeIter::new(out, 0)
        .next()
        .ok_or("nothing encoded")?
        .map_err(|e| format!("{e}"))?;
    let back = T::decode(&again).map_err(|e| format!("re-decode: {e}"))?;
    if back != v {
        return Err(format!("{back:?} != {v:?}"));
    }
    Ok(())
}

fn walk(ies: pfcp_wire::ie::IeIter<'_>, seen: &mut [usize; 512], failures: &mut Vec<String>) {
    use pfcp_wire::ie::*;
    for ie in ies {
        let ie = ie.unwrap();
        let t = ie.ie_type();
        if let Some(n) = seen.get_mut(usize::from(t.0)) {
            *n += 1;
        }
        macro_rules! leaf {
            ($($ty:ty),*) => {
                $(if t == <$ty as TypedIe<'_>>::IE_TYPE {
                    if let Err(e) = check_one::<$ty>(&ie, true) {
                        failures.push(format!("{t} at {}: {e}", ie.offset()));
                    }
                })*
            };
        }
        macro_rules! group {
            ($($ty:ty),*) => {
                $(if t == <$ty as TypedIe<'_>>::IE_TYPE {
                    if let Err(e) = check_one::<$ty>(&ie, false) {
                        failures.push(format!("{t} at {}: {e}", ie.offset()));
                    }
                })*
            };
        }
        leaf!(
            SourceInterface,
            FTeid,
            NetworkInstance<'_>,
            SdfFilter<'_>,
            ApplicationId<'_>,
            GateStatus,
            Mbr,
            Gbr,
            QerCorrelationId,
            Precedence,
            VolumeThreshold,
            TimeThreshold,
            ReportingTriggers,
            ReportType,
            DestinationInterface,
            ApplyAction,
            PdrId,
            MeasurementMethod,
            UsageReportTrigger,
            VolumeMeasurement,
            DurationMeasurement,
            VolumeQuota,
            TimeQuota,
            UrrId,
            OuterHeaderCreation,
            BarId,
            UeIpAddress,
            OuterHeaderRemoval,
            UrSeqn,
            FarId,
            QerId,
            Qfi
        );
        group!(
            CreatePdr<'_>,
            Pdi<'_>,
            CreateFar<'_>,
            ForwardingParameters<'_>,
            DuplicatingParameters,
            CreateUrr,
            CreateQer,
            CreatedPdr<'_>,
            UpdatePdr<'_>,
            UpdateFar<'_>,
            UpdateForwardingParameters<'_>,
            UpdateUrr,
            UpdateQer,
            RemovePdr,
            RemoveFar,
            RemoveUrr,
            RemoveQer,
            UsageReportSmr,
            UsageReportSdr,
            UsageReportSrr,
            DownlinkDataReport<'_>,
            CreateBar,
            UpdateBar,
            RemoveBar
        );
        if t.is_grouped() {
            walk(ie.children(), seen, failures);
        }
    }
}

/// Every typed session IE of every real capture decodes, re-encodes to what it decoded from
/// (leaf IEs octet for octet) and decodes again to the same value.
#[test]
fn every_capture_ie_decodes_and_round_trips() {
    let Some(text) = oracle_file("captures.jsonl") else {
        return;
    };
    let payloads = hex_payloads(&text);
    assert!(payloads.len() > 300, "{} payloads", payloads.len());
    let mut seen = [0usize; 512];
    let mut failures = Vec::new();
    for p in &payloads {
        for m in pfcp_wire::Datagram::new(p) {
            let m = m.unwrap();
            m.check_typed_ies()
                .unwrap_or_else(|e| panic!("{}: {e}", MessageType(m.message_type().0)));
            walk(m.ies(), &mut seen, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The captures carry the session IEs this crate types: each was checked many times.
    for t in [
        IeType::CREATE_PDR,
        IeType::PDI,
        IeType::CREATE_FAR,
        IeType::FORWARDING_PARAMETERS,
        IeType::CREATE_URR,
        IeType::CREATE_QER,
        IeType::CREATED_PDR,
        IeType::UPDATE_FAR,
        IeType::F_TEID,
        IeType::UE_IP_ADDRESS,
        IeType::NETWORK_INSTANCE,
        IeType::OUTER_HEADER_CREATION,
        IeType::OUTER_HEADER_REMOVAL,
        IeType::APPLY_ACTION,
        IeType::MBR,
        IeType::QFI,
        IeType::REPORT_TYPE,
    ] {
        let n = seen[usize::from(t.0)];
        assert!(n > 0, "no {t} in the captures");
        eprintln!("{t}: {n}");
    }
}
