//! scapy (`scapy.contrib.pfcp`, Release 15 tables) as the second judge of the session IEs this
//! crate encodes: every message of `tests/judge/messages.rs` dissects without error, IE for
//! IE, and every field scapy types equals what this crate decodes (fields added after
//! Release 15, which scapy does not know, are left to Wireshark's judge). Skipped where
//! python3 with scapy is missing; `.ci/run` installs scapy 2.8.0.

use std::io::Write as _;
use std::process::{Command, Stdio};

use pfcp_test_support::skip::skip_judge;
use pfcp_wire::ie::*;
use pfcp_wire::{IeType, Message, RawIe, TypedIe};
use serde_json::{json, Value};

#[path = "judge/messages.rs"]
mod messages;

fn have_scapy() -> bool {
    Command::new("python3")
        .args(["-c", "import scapy.contrib.pfcp"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn scapy(payloads: &[Vec<u8>]) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/judge/scapy_fields.py");
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
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "scapy_fields.py failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn typed<'a, T: TypedIe<'a>>(ie: &RawIe<'a>) -> T {
    ie.decode_as::<T>()
        .unwrap_or_else(|e| panic!("{}: {e}", ie.ie_type()))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn flag(set: bool) -> Value {
    json!(u8::from(set))
}

/// The scapy fields of `ie` as this crate decodes them.
fn expected(ie: &RawIe<'_>) -> Vec<(&'static str, Value)> {
    let t = ie.ie_type();
    match t {
        IeType::PDR_ID => vec![("id", json!(typed::<PdrId>(ie).0))],
        IeType::FAR_ID => vec![("id", json!(typed::<FarId>(ie).0))],
        IeType::URR_ID => vec![("id", json!(typed::<UrrId>(ie).0))],
        IeType::QER_ID => vec![("id", json!(typed::<QerId>(ie).0))],
        IeType::BAR_ID => vec![("id", json!(typed::<BarId>(ie).0))],
        IeType::PRECEDENCE => vec![("precedence", json!(typed::<Precedence>(ie).0))],
        IeType::SOURCE_INTERFACE => {
            vec![("interface", json!(typed::<SourceInterface>(ie).value()))]
        }
        IeType::DESTINATION_INTERFACE => {
            vec![(
                "interface",
                json!(typed::<DestinationInterface>(ie).value()),
            )]
        }
        IeType::F_TEID => match typed::<FTeid>(ie) {
            FTeid::Assigned { teid, ipv4, ipv6 } => {
                let mut v = vec![
                    ("CH", flag(false)),
                    ("V4", flag(ipv4.is_some())),
                    ("V6", flag(ipv6.is_some())),
                    ("TEID", json!(teid)),
                ];
                v.extend(ipv4.map(|a| ("ipv4", json!(a.to_string()))));
                v.extend(ipv6.map(|a| ("ipv6", json!(a.to_string()))));
                v
            }
            FTeid::Choose {
                ipv4,
                ipv6,
                choose_id,
            } => {
                let mut v = vec![
                    ("CH", flag(true)),
                    ("CHID", flag(choose_id.is_some())),
                    ("V4", flag(ipv4)),
                    ("V6", flag(ipv6)),
                ];
                v.extend(choose_id.map(|c| ("choose_id", json!(c))));
                v
            }
        },
        IeType::UE_IP_ADDRESS => {
            let u = typed::<UeIpAddress>(ie);
            let mut v = vec![
                ("SD", flag(u.destination)),
                ("V4", flag(u.ipv4.is_some())),
                ("V6", flag(u.ipv6.is_some())),
            ];
            v.extend(u.ipv4.map(|a| ("ipv4", json!(a.to_string()))));
            v.extend(u.ipv6.map(|a| ("ipv6", json!(a.to_string()))));
            v
        }
        IeType::NETWORK_INSTANCE => {
            // scapy reads a DNN in label form as its dotted name.
            let ni = typed::<NetworkInstance<'_>>(ie);
            let mut labels: Vec<&[u8]> = Vec::new();
            let mut rest = ni.as_bytes();
            while let Some((&len, tail)) = rest.split_first() {
                let Some((l, r)) = tail.split_at_checked(usize::from(len)) else {
                    return Vec::new();
                };
                labels.push(l);
                rest = r;
            }
            vec![("instance", json!(hex(&labels.join(&b'.'))))]
        }
        IeType::APPLICATION_ID => {
            vec![("id", json!(hex(typed::<ApplicationId<'_>>(ie).as_bytes())))]
        }
        IeType::SDF_FILTER => {
            let s = typed::<SdfFilter<'_>>(ie);
            let mut v = vec![
                ("FD", flag(s.flow_description.is_some())),
                ("TTC", flag(s.tos_traffic_class.is_some())),
                ("SPI", flag(s.security_parameter_index.is_some())),
                ("FL", flag(s.flow_label.is_some())),
                ("BID", flag(s.sdf_filter_id.is_some())),
            ];
            v.extend(
                s.flow_description
                    .as_ref()
                    .map(|d| ("flow_description", json!(hex(d)))),
            );
            if let Some(t) = s.tos_traffic_class {
                v.push(("tos_traffic_class", json!(t >> 8)));
                v.push(("tos_traffic_mask", json!(t & 0xff)));
            }
            v.extend(
                s.security_parameter_index
                    .map(|x| ("security_parameter_index", json!(x))),
            );
            v.extend(s.flow_label.map(|x| ("flow_label", json!(x))));
            v.extend(s.sdf_filter_id.map(|x| ("sdf_filter_id", json!(x))));
            v
        }
        IeType::QFI => vec![("QFI", json!(typed::<Qfi>(ie).value()))],
        IeType::OUTER_HEADER_REMOVAL => {
            let o = typed::<OuterHeaderRemoval>(ie);
            let mut v = vec![("header", json!(o.description))];
            v.extend(
                o.extension_header_deletion
                    .map(|e| ("pdu_session_container", json!(e & 1))),
            );
            v
        }
        IeType::OUTER_HEADER_CREATION => {
            let o = typed::<OuterHeaderCreation>(ie);
            let d = o.description;
            let mut v = vec![
                (
                    "GTPUUDPIPV4",
                    flag(d & OuterHeaderCreation::GTP_U_UDP_IPV4 != 0),
                ),
                (
                    "GTPUUDPIPV6",
                    flag(d & OuterHeaderCreation::GTP_U_UDP_IPV6 != 0),
                ),
                ("UDPIPV4", flag(d & OuterHeaderCreation::UDP_IPV4 != 0)),
                ("UDPIPV6", flag(d & OuterHeaderCreation::UDP_IPV6 != 0)),
            ];
            v.extend(o.teid.map(|x| ("TEID", json!(x))));
            v.extend(o.ipv4.map(|a| ("ipv4", json!(a.to_string()))));
            v.extend(o.ipv6.map(|a| ("ipv6", json!(a.to_string()))));
            v.extend(o.port.map(|p| ("port", json!(p))));
            v
        }
        IeType::APPLY_ACTION => {
            let a = typed::<ApplyAction>(ie);
            vec![
                ("DROP", flag(a.contains(ApplyAction::DROP))),
                ("FORW", flag(a.contains(ApplyAction::FORW))),
                ("BUFF", flag(a.contains(ApplyAction::BUFF))),
                ("NOCP", flag(a.contains(ApplyAction::NOCP))),
                ("DUPL", flag(a.contains(ApplyAction::DUPL))),
            ]
        }
        IeType::GATE_STATUS => {
            let g = typed::<GateStatus>(ie);
            vec![("ul", json!(g.ul())), ("dl", json!(g.dl()))]
        }
        IeType::MBR => {
            let m = typed::<Mbr>(ie);
            vec![("ul", json!(m.uplink)), ("dl", json!(m.downlink))]
        }
        IeType::GBR => {
            let g = typed::<Gbr>(ie);
            vec![("ul", json!(g.uplink)), ("dl", json!(g.downlink))]
        }
        IeType::QER_CORRELATION_ID => vec![("id", json!(typed::<QerCorrelationId>(ie).0))],
        IeType::MEASUREMENT_METHOD => {
            let m = typed::<MeasurementMethod>(ie);
            vec![
                ("DURAT", flag(m.contains(MeasurementMethod::DURAT))),
                ("VOLUM", flag(m.contains(MeasurementMethod::VOLUM))),
                ("EVENT", flag(m.contains(MeasurementMethod::EVENT))),
            ]
        }
        IeType::REPORTING_TRIGGERS => {
            let r = typed::<ReportingTriggers>(ie);
            [
                ("periodic_reporting", ReportingTriggers::PERIO),
                ("volume_threshold", ReportingTriggers::VOLTH),
                ("time_threshold", ReportingTriggers::TIMTH),
                ("quota_holding_time", ReportingTriggers::QUHTI),
                ("start_of_traffic", ReportingTriggers::START),
                ("stop_of_traffic", ReportingTriggers::STOPT),
                ("dropped_dl_traffic_threshold", ReportingTriggers::DROTH),
                ("linked_usage_reporting", ReportingTriggers::LIUSA),
                ("volume_quota", ReportingTriggers::VOLQU),
                ("time_quota", ReportingTriggers::TIMQU),
                ("envelope_closure", ReportingTriggers::ENVCL),
                ("mac_addresses_reporting", ReportingTriggers::MACAR),
                ("event_threshold", ReportingTriggers::EVETH),
                ("event_quota", ReportingTriggers::EVEQU),
            ]
            .into_iter()
            .map(|(n, f)| (n, flag(r.contains(f))))
            .collect()
        }
        IeType::USAGE_REPORT_TRIGGER => {
            let u = typed::<UsageReportTrigger>(ie);
            [
                ("PERIO", UsageReportTrigger::PERIO),
                ("VOLTH", UsageReportTrigger::VOLTH),
                ("TIMTH", UsageReportTrigger::TIMTH),
                ("QUHTI", UsageReportTrigger::QUHTI),
                ("START", UsageReportTrigger::START),
                ("STOPT", UsageReportTrigger::STOPT),
                ("DROTH", UsageReportTrigger::DROTH),
                ("IMMER", UsageReportTrigger::IMMER),
                ("VOLQU", UsageReportTrigger::VOLQU),
                ("TIMQU", UsageReportTrigger::TIMQU),
                ("LIUSA", UsageReportTrigger::LIUSA),
                ("TERMR", UsageReportTrigger::TERMR),
                ("MONIT", UsageReportTrigger::MONIT),
                ("ENVCL", UsageReportTrigger::ENVCL),
                ("MACAR", UsageReportTrigger::MACAR),
                ("EVETH", UsageReportTrigger::EVETH),
            ]
            .into_iter()
            .map(|(n, f)| (n, flag(u.contains(f))))
            .collect()
        }
        IeType::REPORT_TYPE => {
            let r = typed::<ReportType>(ie);
            vec![
                ("DLDR", flag(r.contains(ReportType::DLDR))),
                ("USAR", flag(r.contains(ReportType::USAR))),
                ("ERIR", flag(r.contains(ReportType::ERIR))),
                ("UPIR", flag(r.contains(ReportType::UPIR))),
            ]
        }
        IeType::VOLUME_THRESHOLD | IeType::VOLUME_QUOTA | IeType::VOLUME_MEASUREMENT => {
            let (total, uplink, downlink) = match t {
                IeType::VOLUME_THRESHOLD => {
                    let v = typed::<VolumeThreshold>(ie);
                    (v.total, v.uplink, v.downlink)
                }
                IeType::VOLUME_QUOTA => {
                    let v = typed::<VolumeQuota>(ie);
                    (v.total, v.uplink, v.downlink)
                }
                _ => {
                    // scapy's Release-15 layout: the volumes (packet counts come later).
                    let v = typed::<VolumeMeasurement>(ie);
                    (v.total_volume, v.uplink_volume, v.downlink_volume)
                }
            };
            let mut v = vec![
                ("TOVOL", flag(total.is_some())),
                ("ULVOL", flag(uplink.is_some())),
                ("DLVOL", flag(downlink.is_some())),
            ];
            v.extend(total.map(|x| ("total", json!(x))));
            v.extend(uplink.map(|x| ("uplink", json!(x))));
            v.extend(downlink.map(|x| ("downlink", json!(x))));
            v
        }
        IeType::TIME_THRESHOLD => vec![("threshold", json!(typed::<TimeThreshold>(ie).0))],
        IeType::TIME_QUOTA => vec![("quota", json!(typed::<TimeQuota>(ie).0))],
        IeType::DURATION_MEASUREMENT => {
            vec![("duration", json!(typed::<DurationMeasurement>(ie).0))]
        }
        IeType::UR_SEQN => vec![("number", json!(typed::<UrSeqn>(ie).0))],
        IeType::DOWNLINK_DATA_NOTIFICATION_DELAY => {
            vec![("delay", json!(typed::<DownlinkDataNotificationDelay>(ie).0))]
        }
        _ => Vec::new(),
    }
}

fn compare(
    ours: pfcp_wire::ie::IeIter<'_>,
    theirs: &[Value],
    path: &str,
    judged: &mut usize,
    failures: &mut Vec<String>,
) {
    let ours: Vec<RawIe<'_>> = ours.map(Result::unwrap).collect();
    if ours.len() != theirs.len() {
        failures.push(format!(
            "{path}: {} IEs, scapy {}",
            ours.len(),
            theirs.len()
        ));
        return;
    }
    for (ie, sc) in ours.iter().zip(theirs) {
        let at = format!("{path} > {}", ie.ie_type().0);
        if sc["type"].as_u64() != Some(u64::from(ie.ie_type().0)) {
            failures.push(format!("{at}: scapy type {}", sc["type"]));
            continue;
        }
        let want = expected(ie);
        if !want.is_empty() {
            *judged += 1;
        }
        for (name, value) in want {
            if sc["fields"][name] != value {
                failures.push(format!(
                    "{at} ({}): {name} = {}, ours {value}",
                    sc["class"], sc["fields"][name]
                ));
            }
        }
        if ie.ie_type().is_grouped() {
            let children = sc["ies"].as_array().cloned().unwrap_or_default();
            compare(ie.children(), &children, &at, judged, failures);
        }
    }
}

#[test]
fn scapy_reads_every_typed_session_ie_as_we_do() {
    let test = "scapy_reads_every_typed_session_ie_as_we_do";
    if !have_scapy() {
        skip_judge(test, "python3 with scapy not found");
        return;
    }
    let msgs = messages::all();
    let sc = scapy(&msgs);
    assert_eq!(sc.len(), msgs.len());
    let mut judged = 0;
    let mut failures = Vec::new();
    for (i, (m, s)) in msgs.iter().zip(&sc).enumerate() {
        assert_eq!(s["error"], Value::Null, "message {i}: scapy failed");
        let m = Message::decode(m).unwrap();
        let ies = s["ies"].as_array().cloned().unwrap_or_default();
        compare(
            m.ies(),
            &ies,
            &format!("message {i}"),
            &mut judged,
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{test}: {judged} leaf IEs judged");
    assert!(judged > 80, "{judged}");
}
