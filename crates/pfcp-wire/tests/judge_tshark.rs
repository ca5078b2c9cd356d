//! Wireshark judges the session IEs this crate encodes: every typed session IE, built with the
//! builders and encoded by this crate (`tests/judge/messages.rs`), is read back by tshark
//! (`tests/judge/session_fields.py`, PDML) with no malformed flag and no error, IE for IE, and
//! each field Wireshark decodes equals the value this crate decodes from the same octets.
//! Every message the typed builders write (`tests/judge/typed_messages.rs`, all 25 types) is read
//! by tshark the same way, with no malformed flag.
//! Skipped (with a notice) where tshark or python3 is missing; `.ci/run` installs tshark.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::process::{Command, Stdio};

use pfcp_test_support::skip::{skip_judge, skip_oracle};
use pfcp_wire::ie::*;
use pfcp_wire::{IeType, Message, RawIe, TypedIe};
use serde_json::Value;

#[path = "judge/messages.rs"]
mod messages;
#[path = "judge/typed_messages.rs"]
mod typed_messages;

fn have(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Wireshark's reading of `payloads`, one JSON value per payload.
fn wireshark(payloads: &[Vec<u8>]) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/judge/session_fields.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut input = String::new();
    for p in payloads {
        for b in p {
            input.push_str(&format!("{b:02x}"));
        }
        input.push('\n');
    }
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "session_fields.py failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn b(set: bool) -> String {
    if set { "1" } else { "0" }.to_string()
}

fn typed<'a, T: TypedIe<'a>>(ie: &RawIe<'a>) -> T {
    ie.decode_as::<T>()
        .unwrap_or_else(|e| panic!("{}: {e}", ie.ie_type()))
}

/// The Wireshark fields of `ie`, as this crate decodes them (empty for IEs compared by their
/// members only).
fn expected(ie: &RawIe<'_>) -> Vec<(&'static str, String)> {
    let t = ie.ie_type();
    let n = |s: &'static str, v: u64| (s, v.to_string());
    match t {
        IeType::PDR_ID => vec![n("pfcp.pdr_id", u64::from(typed::<PdrId>(ie).0))],
        IeType::PRECEDENCE => vec![n("pfcp.precedence", u64::from(typed::<Precedence>(ie).0))],
        IeType::SOURCE_INTERFACE => {
            let v = typed::<SourceInterface>(ie).value();
            vec![n("pfcp.source_interface", u64::from(v))]
        }
        IeType::DESTINATION_INTERFACE => {
            let v = typed::<DestinationInterface>(ie).value();
            vec![n("pfcp.dst_interface", u64::from(v))]
        }
        IeType::F_TEID => match typed::<FTeid>(ie) {
            FTeid::Assigned { teid, ipv4, ipv6 } => {
                let mut v = vec![
                    ("pfcp.f_teid_flags.ch", b(false)),
                    ("pfcp.f_teid_flags.v4", b(ipv4.is_some())),
                    ("pfcp.f_teid_flags.v6", b(ipv6.is_some())),
                    ("pfcp.f_teid.teid", format!("0x{teid:08x}")),
                ];
                v.extend(ipv4.map(|a| ("pfcp.f_teid.ipv4_addr", a.to_string())));
                v.extend(ipv6.map(|a| ("pfcp.f_teid.ipv6_addr", a.to_string())));
                v
            }
            FTeid::Choose {
                ipv4,
                ipv6,
                choose_id,
            } => {
                let mut v = vec![
                    ("pfcp.f_teid_flags.ch", b(true)),
                    ("pfcp.f_teid_flags.ch_id", b(choose_id.is_some())),
                    ("pfcp.f_teid_flags.v4", b(ipv4)),
                    ("pfcp.f_teid_flags.v6", b(ipv6)),
                ];
                v.extend(choose_id.map(|c| ("pfcp.f_teid.choose_id", format!("{c:02x}"))));
                v
            }
        },
        IeType::UE_IP_ADDRESS => {
            let u = typed::<UeIpAddress>(ie);
            let mut v = vec![
                ("pfcp.ue_ip_address_flag.v4", b(u.ipv4.is_some())),
                ("pfcp.ue_ip_address_flag.v6", b(u.ipv6.is_some())),
                ("pfcp.ue_ip_address_flag.sd", b(u.destination)),
                ("pfcp.ue_ip_address_flag.chv4", b(u.choose_ipv4)),
                ("pfcp.ue_ip_address_flag.chv6", b(u.choose_ipv6)),
                (
                    "pfcp.ue_ip_address_flag.v6pl",
                    b(u.ipv6_prefix_length.is_some()),
                ),
            ];
            v.extend(u.ipv4.map(|a| ("pfcp.ue_ip_addr_ipv4", a.to_string())));
            v.extend(u.ipv6.map(|a| ("pfcp.ue_ip_addr_ipv6", a.to_string())));
            v.extend(
                u.ipv6_prefix_length
                    .map(|l| n("pfcp.ue_ip_addr_ipv6_prefix_length", u64::from(l))),
            );
            v
        }
        IeType::OUTER_HEADER_CREATION => {
            let o = typed::<OuterHeaderCreation>(ie);
            let mut v = vec![n("pfcp.outer_hdr_desc", u64::from(o.description))];
            v.extend(
                o.teid
                    .map(|t| ("pfcp.outer_hdr_creation.teid", format!("0x{t:08x}"))),
            );
            v.extend(
                o.ipv4
                    .map(|a| ("pfcp.outer_hdr_creation.ipv4", a.to_string())),
            );
            v.extend(
                o.ipv6
                    .map(|a| ("pfcp.outer_hdr_creation.ipv6", a.to_string())),
            );
            v.extend(
                o.port
                    .map(|p| n("pfcp.outer_hdr_creation.port", u64::from(p))),
            );
            v
        }
        IeType::OUTER_HEADER_REMOVAL => {
            let o = typed::<OuterHeaderRemoval>(ie);
            let mut v = vec![n("pfcp.out_hdr_desc", u64::from(o.description))];
            v.extend(
                o.extension_header_deletion
                    .map(|e| ("pfcp.gtpu_ext_hdr_del.pdu_sess_cont", b(e & 1 != 0))),
            );
            v
        }
        IeType::NETWORK_INSTANCE => {
            // DNN label form ("\x08internet"): Wireshark shows the labels dotted.
            // Otherwise (free text) as it is.
            let ni = typed::<NetworkInstance<'_>>(ie);
            let mut labels = Vec::new();
            let mut rest = ni.as_bytes();
            while let Some((&len, tail)) = rest.split_first() {
                let Some((l, r)) = tail.split_at_checked(usize::from(len)) else {
                    labels = vec![String::from_utf8_lossy(ni.as_bytes()).into_owned()];
                    break;
                };
                labels.push(String::from_utf8_lossy(l).into_owned());
                rest = r;
            }
            vec![("pfcp.network_instance", labels.join("."))]
        }
        IeType::APPLICATION_ID => {
            let a = typed::<ApplicationId<'_>>(ie);
            vec![(
                "pfcp.application_id_str",
                String::from_utf8_lossy(a.as_bytes()).into_owned(),
            )]
        }
        IeType::SDF_FILTER => {
            let s = typed::<SdfFilter<'_>>(ie);
            let mut v = vec![
                ("pfcp.sdf_filter.fd", b(s.flow_description.is_some())),
                ("pfcp.sdf_filter.ttc", b(s.tos_traffic_class.is_some())),
                (
                    "pfcp.sdf_filter.spi",
                    b(s.security_parameter_index.is_some()),
                ),
                ("pfcp.sdf_filter.fl", b(s.flow_label.is_some())),
                ("pfcp.sdf_filter.bid", b(s.sdf_filter_id.is_some())),
            ];
            if let Some(d) = &s.flow_description {
                v.push(n("pfcp.flow_desc_len", d.len() as u64));
                v.push(("pfcp.flow_desc", String::from_utf8_lossy(d).into_owned()));
            }
            if let Some(t) = s.tos_traffic_class {
                v.push(("pfcp.traffic_class", format!("0x{:02x}", t >> 8)));
                v.push(("pfcp.traffic_mask", format!("0x{:02x}", t & 0xff)));
            }
            v.extend(
                s.security_parameter_index
                    .map(|x| ("pfcp.spi", format!("0x{x:08x}"))),
            );
            v.extend(
                s.flow_label
                    .map(|x| ("pfcp.flow_label", format!("0x{x:06x}"))),
            );
            v.extend(
                s.sdf_filter_id
                    .map(|x| n("pfcp.sdf_filter_id", u64::from(x))),
            );
            v
        }
        IeType::QFI => vec![(
            "pfcp.qfi_value",
            format!("0x{:02x}", typed::<Qfi>(ie).value()),
        )],
        IeType::FAR_ID => {
            let f = typed::<FarId>(ie);
            vec![
                ("pfcp.far_id_flg", b(f.is_predefined())),
                n("pfcp.far_id", u64::from(f.0 & 0x7fff_ffff)),
            ]
        }
        IeType::URR_ID => {
            let u = typed::<UrrId>(ie);
            vec![
                ("pfcp.urr_id_flg", b(u.is_predefined())),
                n("pfcp.urr_id", u64::from(u.0 & 0x7fff_ffff)),
            ]
        }
        IeType::QER_ID => {
            let q = typed::<QerId>(ie);
            vec![
                ("pfcp.qer_id_flg", b(q.is_predefined())),
                n("pfcp.qer_id", u64::from(q.0 & 0x7fff_ffff)),
            ]
        }
        IeType::BAR_ID => vec![n("pfcp.bar_id", u64::from(typed::<BarId>(ie).0))],
        IeType::APPLY_ACTION => {
            let a = typed::<ApplyAction>(ie);
            [
                ("pfcp.apply_action.drop", ApplyAction::DROP),
                ("pfcp.apply_action.forw", ApplyAction::FORW),
                ("pfcp.apply_action.buff", ApplyAction::BUFF),
                ("pfcp.apply_action.nocp", ApplyAction::NOCP),
                ("pfcp.apply_action.dupl", ApplyAction::DUPL),
                ("pfcp.apply_action.ipma", ApplyAction::IPMA),
                ("pfcp.apply_action.ipmd", ApplyAction::IPMD),
                ("pfcp.apply_action.dfrt", ApplyAction::DFRT),
            ]
            .into_iter()
            .map(|(f, flag)| (f, b(a.contains(flag))))
            .collect()
        }
        IeType::GATE_STATUS => {
            let g = typed::<GateStatus>(ie);
            vec![
                n("pfcp.gate_status.ulgate", u64::from(g.ul())),
                n("pfcp.gate_status.dlgate", u64::from(g.dl())),
            ]
        }
        IeType::MBR => {
            let m = typed::<Mbr>(ie);
            vec![n("pfcp.ul_mbr", m.uplink), n("pfcp.dl_mbr", m.downlink)]
        }
        IeType::GBR => {
            let g = typed::<Gbr>(ie);
            vec![n("pfcp.ul_gbr", g.uplink), n("pfcp.dl_gbr", g.downlink)]
        }
        IeType::QER_CORRELATION_ID => vec![n(
            "pfcp.qer_correlation_id",
            u64::from(typed::<QerCorrelationId>(ie).0),
        )],
        IeType::MEASUREMENT_METHOD => {
            let m = typed::<MeasurementMethod>(ie);
            vec![
                (
                    "pfcp.measurement_method_flags.durat",
                    b(m.contains(MeasurementMethod::DURAT)),
                ),
                (
                    "pfcp.measurement_method_flags.volume",
                    b(m.contains(MeasurementMethod::VOLUM)),
                ),
                (
                    "pfcp.measurement_method_flags.event",
                    b(m.contains(MeasurementMethod::EVENT)),
                ),
            ]
        }
        IeType::REPORTING_TRIGGERS => {
            let r = typed::<ReportingTriggers>(ie);
            ReportingTriggers::NAMED
                .iter()
                .filter(|(name, _)| !["REEMR", "UPINT"].contains(name))
                .map(|(name, flag)| {
                    let field = match *name {
                        "PERIO" => "pfcp.reporting_triggers_flags.perio",
                        "VOLTH" => "pfcp.reporting_triggers_flags.volth",
                        "TIMTH" => "pfcp.reporting_triggers_flags.timth",
                        "QUHTI" => "pfcp.reporting_triggers_flags.quhti",
                        "START" => "pfcp.reporting_triggers_flags.start",
                        "STOPT" => "pfcp.reporting_triggers_flags.stopt",
                        "DROTH" => "pfcp.reporting_triggers_flags.droth",
                        "LIUSA" => "pfcp.reporting_triggers_flags.liusa",
                        "VOLQU" => "pfcp.reporting_triggers_flags.volqu",
                        "TIMQU" => "pfcp.reporting_triggers_flags.timqu",
                        "ENVCL" => "pfcp.reporting_triggers_flags.envcl",
                        "MACAR" => "pfcp.reporting_triggers_flags.macar",
                        "EVETH" => "pfcp.reporting_triggers_flags.eveth",
                        "EVEQU" => "pfcp.reporting_triggers_flags.evequ",
                        "IPMJL" => "pfcp.reporting_triggers_flags.ipmjl",
                        _ => "pfcp.reporting_triggers_flags.quvti",
                    };
                    (field, b(r.contains(*flag)))
                })
                .collect()
        }
        IeType::USAGE_REPORT_TRIGGER => {
            let u = typed::<UsageReportTrigger>(ie);
            let mut v = vec![
                (
                    "pfcp.usage_report_trigger.immer",
                    b(u.contains(UsageReportTrigger::IMMER)),
                ),
                (
                    "pfcp.usage_report_trigger_flags.volth",
                    b(u.contains(UsageReportTrigger::VOLTH)),
                ),
                (
                    "pfcp.usage_report_trigger_flags.timth",
                    b(u.contains(UsageReportTrigger::TIMTH)),
                ),
                (
                    "pfcp.usage_report_trigger_flags.perio",
                    b(u.contains(UsageReportTrigger::PERIO)),
                ),
            ];
            if u.octets >= 2 {
                v.push((
                    "pfcp.usage_report_trigger.term",
                    b(u.contains(UsageReportTrigger::TERMR)),
                ));
                v.push((
                    "pfcp.usage_report_trigger_flags.volqu",
                    b(u.contains(UsageReportTrigger::VOLQU)),
                ));
            }
            v
        }
        IeType::REPORT_TYPE => {
            let r = typed::<ReportType>(ie);
            vec![
                ("pfcp.report_type.dldr", b(r.contains(ReportType::DLDR))),
                ("pfcp.report_type.usar", b(r.contains(ReportType::USAR))),
                ("pfcp.report_type.erir", b(r.contains(ReportType::ERIR))),
                ("pfcp.report_type.upir", b(r.contains(ReportType::UPIR))),
            ]
        }
        IeType::VOLUME_THRESHOLD | IeType::VOLUME_QUOTA => {
            let (p, v) = if t == IeType::VOLUME_THRESHOLD {
                let v = typed::<VolumeThreshold>(ie);
                ("volume_threshold", [v.total, v.uplink, v.downlink])
            } else {
                let v = typed::<VolumeQuota>(ie);
                ("volume_quota", [v.total, v.uplink, v.downlink])
            };
            let names = ["tovol", "ulvol", "dlvol"];
            let mut out = Vec::new();
            for (name, value) in names.iter().zip(v) {
                let flag: &'static str = Box::leak(format!("pfcp.{p}_flags.{name}").into());
                out.push((flag, b(value.is_some())));
                if let Some(x) = value {
                    let field: &'static str = Box::leak(format!("pfcp.{p}.{name}").into());
                    out.push(n(field, x));
                }
            }
            out
        }
        IeType::VOLUME_MEASUREMENT => {
            let m = typed::<VolumeMeasurement>(ie);
            let values = [
                ("tovol", "tovol", m.total_volume),
                ("ulvol", "ulvol", m.uplink_volume),
                ("dlvol", "dlvol", m.downlink_volume),
                ("tonop", "tonop", m.total_packets),
                ("ulnop", "ulnop", m.uplink_packets),
                ("dlnops", "dlnop", m.downlink_packets),
            ];
            let mut out = Vec::new();
            for (flag, field, value) in values {
                let f: &'static str =
                    Box::leak(format!("pfcp.volume_measurement_flags.{flag}").into());
                out.push((f, b(value.is_some())));
                if let Some(x) = value {
                    let f: &'static str =
                        Box::leak(format!("pfcp.volume_measurement.{field}").into());
                    out.push(n(f, x));
                }
            }
            out
        }
        IeType::TIME_THRESHOLD => {
            vec![n(
                "pfcp.time_threshold",
                u64::from(typed::<TimeThreshold>(ie).0),
            )]
        }
        IeType::TIME_QUOTA => vec![n("pfcp.time_quota", u64::from(typed::<TimeQuota>(ie).0))],
        IeType::DURATION_MEASUREMENT => vec![n(
            "pfcp.duration_measurement",
            u64::from(typed::<DurationMeasurement>(ie).0),
        )],
        IeType::UR_SEQN => vec![n("pfcp.ur_seqn", u64::from(typed::<UrSeqn>(ie).0))],
        IeType::DOWNLINK_DATA_NOTIFICATION_DELAY => vec![n(
            "pfcp.dl_data_notification_delay",
            u64::from(typed::<DownlinkDataNotificationDelay>(ie).0),
        )],
        _ => Vec::new(),
    }
}

/// Compare our IE list with Wireshark's, IE for IE; returns the typed IEs compared.
fn compare(
    ours: pfcp_wire::ie::IeIter<'_>,
    theirs: &[Value],
    path: &str,
    seen: &mut BTreeMap<u16, usize>,
    failures: &mut Vec<String>,
) {
    let ours: Vec<RawIe<'_>> = ours.map(Result::unwrap).collect();
    if ours.len() != theirs.len() {
        failures.push(format!(
            "{path}: {} IEs, Wireshark {}",
            ours.len(),
            theirs.len()
        ));
        return;
    }
    for (ie, ws) in ours.iter().zip(theirs) {
        let t = ie.ie_type();
        let at = format!("{path} > {}", t.0);
        if ws["type"].as_u64() != Some(u64::from(t.0))
            || ws["length"].as_u64() != Some(u64::from(ie.length()))
        {
            failures.push(format!("{at}: type/length {} {} vs {ws}", t.0, ie.length()));
            continue;
        }
        let fields = &ws["fields"];
        let want = expected(ie);
        if !want.is_empty() || t.is_grouped() {
            *seen.entry(t.0).or_default() += 1;
        }
        for (name, value) in want {
            let got = fields[name].get(0).and_then(Value::as_str);
            if got != Some(value.as_str()) {
                failures.push(format!("{at}: {name} = {got:?}, ours {value:?}"));
            }
        }
        if t.is_grouped() {
            let children = ws["ies"].as_array().cloned().unwrap_or_default();
            compare(ie.children(), &children, &at, seen, failures);
        }
    }
}

/// The real captures (open5gs, bisdn pfcpcore, go-pfcp; `$PFCP_ORACLE_DIR` or
/// `../shared/oracle`, skipped when absent): Wireshark's fields of every typed session IE equal
/// what this crate decodes.
#[test]
fn wireshark_reads_the_captures_session_ies_as_we_do() {
    let test = "wireshark_reads_the_captures_session_ies_as_we_do";
    let dir = std::env::var_os("PFCP_ORACLE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle")
        });
    let path = dir.join("corpus/captures.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        skip_oracle(test, &format!("{} not found", path.display()));
        return;
    };
    if !have("tshark", "--version") || !have("python3", "--version") {
        skip_judge(test, "tshark or python3 not found");
        return;
    }
    let payloads: Vec<Vec<u8>> = text
        .lines()
        .filter_map(|l| {
            let at = l.find("\"hex\":\"")? + 7;
            let end = at + l[at..].find('"')?;
            pfcp_wire::owned::parse_hex(&l[at..end])
        })
        .filter(|p| Message::decode(p).is_ok())
        .collect();
    let ws = wireshark(&payloads);
    let mut seen = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, (p, w)) in payloads.iter().zip(&ws).enumerate() {
        let m = Message::decode(p).unwrap();
        let ies = w["ies"].as_array().cloned().unwrap_or_default();
        compare(
            m.ies(),
            &ies,
            &format!("capture {i}"),
            &mut seen,
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let n: usize = seen.values().sum();
    eprintln!(
        "{test}: {n} IEs of {} types in {} messages judged",
        seen.len(),
        payloads.len()
    );
    assert!(n > 1000, "{n}");
}

/// With `PFCP_JUDGE_DUMP=1`, print the judged messages as hex (to run the scripts by hand).
#[test]
fn dump_when_asked() {
    if std::env::var_os("PFCP_JUDGE_DUMP").is_some() {
        for m in messages::all() {
            println!(
                "{}",
                m.iter().map(|b| format!("{b:02x}")).collect::<String>()
            );
        }
    }
}

#[test]
fn wireshark_reads_every_typed_session_ie_as_we_do() {
    let test = "wireshark_reads_every_typed_session_ie_as_we_do";
    if !have("tshark", "--version") || !have("python3", "--version") {
        skip_judge(test, "tshark or python3 not found");
        return;
    }
    let msgs = messages::all();
    for m in &msgs {
        Message::decode(m).unwrap().validate().unwrap();
    }
    let ws = wireshark(&msgs);
    assert_eq!(ws.len(), msgs.len());
    let mut seen = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, (m, w)) in msgs.iter().zip(&ws).enumerate() {
        assert_eq!(
            w["ws_flag"],
            Value::Bool(false),
            "message {i}: Wireshark flagged it: {}",
            w["expert"]
        );
        let m = Message::decode(m).unwrap();
        compare(
            m.ies(),
            w["ies"].as_array().unwrap(),
            &format!("message {i}"),
            &mut seen,
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every typed session IE of the crate was judged.
    macro_rules! judged {
        ($($t:ty),*) => {$(
            let code = <$t as TypedIe<'_>>::IE_TYPE;
            assert!(seen.contains_key(&code.0), "{code} never reached Wireshark");
        )*};
    }
    judged!(
        CreatePdr<'_>,
        Pdi<'_>,
        CreateFar<'_>,
        ForwardingParameters<'_>,
        DuplicatingParameters,
        CreateUrr,
        CreateQer,
        CreateBar,
        CreatedPdr<'_>,
        UpdatePdr<'_>,
        UpdateFar<'_>,
        UpdateForwardingParameters<'_>,
        UpdateUrr,
        UpdateQer,
        UpdateBar,
        RemovePdr,
        RemoveFar,
        RemoveUrr,
        RemoveQer,
        RemoveBar,
        UsageReportSrr,
        UsageReportSmr,
        UsageReportSdr,
        DownlinkDataReport<'_>,
        PdrId,
        FarId,
        UrrId,
        QerId,
        BarId,
        Precedence,
        SourceInterface,
        DestinationInterface,
        FTeid,
        UeIpAddress,
        OuterHeaderCreation,
        OuterHeaderRemoval,
        NetworkInstance<'_>,
        ApplicationId<'_>,
        SdfFilter<'_>,
        Qfi,
        ApplyAction,
        GateStatus,
        Mbr,
        Gbr,
        QerCorrelationId,
        MeasurementMethod,
        ReportingTriggers,
        UsageReportTrigger,
        ReportType,
        VolumeThreshold,
        VolumeQuota,
        VolumeMeasurement,
        TimeThreshold,
        TimeQuota,
        DurationMeasurement,
        UrSeqn,
        DownlinkDataNotificationDelay
    );
    eprintln!(
        "{test}: {} IEs of {} types judged",
        seen.values().sum::<usize>(),
        seen.len()
    );
}

/// Every message type, written by the typed builders (`pfcp_wire::msg`): Wireshark finds one
/// PFCP message of that type, flags nothing, and reads every IE as this crate does.
#[test]
fn wireshark_reads_the_typed_builders_messages() {
    let test = "wireshark_reads_the_typed_builders_messages";
    if !have("tshark", "--version") || !have("python3", "--version") {
        skip_judge(test, "tshark or python3 not found");
        return;
    }
    let msgs = typed_messages::all();
    let mut types = std::collections::BTreeSet::new();
    for m in &msgs {
        let t = pfcp_wire::msg::AnyMessage::parse(m).unwrap();
        types.insert(t.message_type().0);
        Message::decode(m).unwrap().validate().unwrap();
    }
    assert_eq!(types.len(), 25, "every message type once");
    let ws = wireshark(&msgs);
    assert_eq!(ws.len(), msgs.len());
    let mut seen = BTreeMap::new();
    let mut failures = Vec::new();
    for (m, w) in msgs.iter().zip(&ws) {
        let msg = Message::decode(m).unwrap();
        let t = msg.message_type();
        assert_eq!(
            w["ws_flag"],
            Value::Bool(false),
            "{t}: Wireshark flagged it: {}",
            w["expert"]
        );
        compare(
            msg.ies(),
            w["ies"].as_array().unwrap(),
            &format!("{t}"),
            &mut seen,
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{test}: {} messages, {} typed IEs of {} types judged",
        msgs.len(),
        seen.values().sum::<usize>(),
        seen.len()
    );
}
