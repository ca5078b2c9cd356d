//! What the text form shows of a typed IE: its fields with their names, units and flags by
//! name (TS 29.244 clause 8.2), from `pfcp-wire`'s typed value.
//!
//! A field with an empty label is the IE's one-line value, shown after its name.

use std::fmt::Write as _;
use std::time::Duration;

use pfcp_wire::ie::*;
use pfcp_wire::Cause;

/// Fields of a typed IE: `(label, text)`; an empty label is the whole value on one line.
pub type Fields = Vec<(&'static str, String)>;

fn one(text: String) -> Fields {
    vec![("", text)]
}

fn opt<T>(v: &mut Fields, label: &'static str, x: Option<T>, f: impl FnOnce(T) -> String) {
    if let Some(x) = x {
        v.push((label, f(x)));
    }
}

/// The names of the flags set, `|`-separated, and any unnamed bits as hex; `none` if empty.
fn flag_names<T: Copy>(named: &[(&'static str, T)], contains: impl Fn(T) -> bool) -> String {
    let names: Vec<&str> = named
        .iter()
        .filter(|(_, f)| contains(*f))
        .map(|(n, _)| *n)
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(" | ")
    }
}

macro_rules! flags_text {
    ($ty:ident, $v:expr) => {{
        let v: $ty = $v;
        let named = flag_names($ty::NAMED, |f| v.contains(f));
        let known = $ty::NAMED.iter().fold(0u32, |acc, (_, f)| acc | f.bits);
        let spare = v.bits & !known;
        if spare != 0 {
            format!("{named} (spare bits 0x{spare:x})")
        } else {
            named
        }
    }};
}

/// A volume in octets.
fn octets(n: u64) -> String {
    format!("{n} octets")
}

/// A bit rate in kbps (clause 8.2.8).
fn kbps(n: u64) -> String {
    format!("{n} kbps")
}

/// A duration in seconds.
fn secs(n: u32) -> String {
    format!("{n} s")
}

/// A Network Instance: the labels dotted if the octets are in DNS label form (clause 8.2.4
/// allows a DNN, an APN in label form, or free text), else the text as it is.
pub fn network_instance_text(octets: &[u8]) -> String {
    let mut labels = Vec::new();
    let mut rest = octets;
    while let Some((&len, tail)) = rest.split_first() {
        match tail.split_at_checked(usize::from(len)) {
            Some((l, r)) if len > 0 && l.iter().all(u8::is_ascii_graphic) => {
                labels.push(String::from_utf8_lossy(l).into_owned());
                rest = r;
            }
            _ => return printable(octets),
        }
    }
    labels.join(".")
}

/// Octets as text, with bytes outside printable ASCII as `\xNN`.
pub fn printable(octets: &[u8]) -> String {
    let mut s = String::with_capacity(octets.len());
    for &b in octets {
        if b == b' ' || b.is_ascii_graphic() {
            s.push(char::from(b));
        } else {
            let _ = write!(s, "\\x{b:02x}");
        }
    }
    s
}

/// A Timer (clause 8.2.36): the duration with its unit and value.
pub fn timer_text(t: Timer) -> String {
    let unit = match t.unit() {
        TimerUnit::TwoSeconds => "2 s",
        TimerUnit::OneMinute => "1 min",
        TimerUnit::TenMinutes => "10 min",
        TimerUnit::OneHour => "1 h",
        TimerUnit::TenHours => "10 h",
        TimerUnit::OtherMinutes(_) => "1 min (reserved unit code)",
        TimerUnit::Infinite => return "infinite".into(),
    };
    match t.duration() {
        Some(d) if t.is_stopped() => format!("stopped ({} s, unit {unit})", d.as_secs()),
        Some(d) => format!("{} s ({} x {unit})", d.as_secs(), t.value()),
        None => "infinite".into(),
    }
}

/// `d` after the Unix epoch as `2026-01-01 00:00:00.000000 UTC` (`micros`) or RFC 3339
/// `2026-01-01T00:00:00Z`.
pub fn utc(d: Duration, micros: bool) -> String {
    let secs = d.as_secs();
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, mo, da) = civil_from_days(days);
    let (h, mi, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    if micros {
        let us = d.subsec_micros();
        format!("{y:04}-{mo:02}-{da:02} {h:02}:{mi:02}:{s:02}.{us:06} UTC")
    } else {
        format!("{y:04}-{mo:02}-{da:02}T{h:02}:{mi:02}:{s:02}Z")
    }
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

fn rule_id(id: u32, predefined: bool) -> String {
    if predefined {
        format!("{} (predefined)", id & 0x7fff_ffff)
    } else {
        id.to_string()
    }
}

fn named_code(name: Option<&str>, code: u8) -> String {
    match name {
        Some(n) => format!("{n} ({code})"),
        None => format!("spare ({code})"),
    }
}

/// Outer Header Removal descriptions (clause 8.2.64).
fn ohr_name(d: u8) -> Option<&'static str> {
    Some(match d {
        0 => "GTP-U/UDP/IPv4",
        1 => "GTP-U/UDP/IPv6",
        2 => "UDP/IPv4",
        3 => "UDP/IPv6",
        4 => "IPv4",
        5 => "IPv6",
        6 => "GTP-U/UDP/IP",
        7 => "VLAN S-TAG",
        8 => "S-TAG and C-TAG",
        _ => return None,
    })
}

/// Outer Header Creation description bits (clause 8.2.56, octets 5-6).
const OHC_BITS: [(&str, u16); 10] = [
    ("GTP-U/UDP/IPv4", OuterHeaderCreation::GTP_U_UDP_IPV4),
    ("GTP-U/UDP/IPv6", OuterHeaderCreation::GTP_U_UDP_IPV6),
    ("UDP/IPv4", OuterHeaderCreation::UDP_IPV4),
    ("UDP/IPv6", OuterHeaderCreation::UDP_IPV6),
    ("IPv4", OuterHeaderCreation::IPV4),
    ("IPv6", OuterHeaderCreation::IPV6),
    ("C-TAG", OuterHeaderCreation::C_TAG),
    ("S-TAG", OuterHeaderCreation::S_TAG),
    ("N19 indication", 0x0001),
    ("N6 indication", 0x0002),
];

fn gate(code: u8) -> String {
    match code {
        0 => "OPEN (0)".into(),
        1 => "CLOSED (1)".into(),
        c => format!("spare ({c})"),
    }
}

fn yes(b: bool) -> String {
    if b { "yes" } else { "no" }.into()
}

/// The fields of a typed IE (grouped IEs have none: their members are shown).
pub fn fields(v: &AnyTypedIe<'_>) -> Fields {
    match v {
        AnyTypedIe::Cause(c) => one(cause_text(*c)),
        AnyTypedIe::SourceInterface(i) => one(named_code(i.name(), i.value())),
        AnyTypedIe::DestinationInterface(i) => one(named_code(i.name(), i.value())),
        AnyTypedIe::FTeid(FTeid::Assigned { teid, ipv4, ipv6 }) => {
            let mut f = vec![("TEID", format!("0x{teid:08x}"))];
            opt(&mut f, "IPv4 address", *ipv4, |a| a.to_string());
            opt(&mut f, "IPv6 address", *ipv6, |a| a.to_string());
            f
        }
        AnyTypedIe::FTeid(FTeid::Choose {
            ipv4,
            ipv6,
            choose_id,
        }) => {
            let mut f = vec![
                ("CH", "the UP function allocates the F-TEID".into()),
                ("IPv4 (V4)", yes(*ipv4)),
                ("IPv6 (V6)", yes(*ipv6)),
            ];
            opt(&mut f, "Choose ID", *choose_id, |c| c.to_string());
            f
        }
        AnyTypedIe::NetworkInstance(n) => one(network_instance_text(n.as_bytes())),
        AnyTypedIe::ApplicationId(a) => one(printable(a.as_bytes())),
        AnyTypedIe::SdfFilter(s) => {
            let mut f = Vec::new();
            opt(
                &mut f,
                "Flow Description",
                s.flow_description.as_ref(),
                |d| printable(d),
            );
            opt(&mut f, "ToS Traffic Class", s.tos_traffic_class, |t| {
                format!("0x{:02x}, mask 0x{:02x}", t >> 8, t & 0xff)
            });
            opt(
                &mut f,
                "Security Parameter Index",
                s.security_parameter_index,
                |x| format!("0x{x:08x}"),
            );
            opt(&mut f, "Flow Label", s.flow_label, |x| format!("0x{x:06x}"));
            opt(&mut f, "SDF Filter ID", s.sdf_filter_id, |x| x.to_string());
            f
        }
        AnyTypedIe::GateStatus(g) => vec![("UL gate", gate(g.ul())), ("DL gate", gate(g.dl()))],
        AnyTypedIe::Mbr(m) => vec![("UL MBR", kbps(m.uplink)), ("DL MBR", kbps(m.downlink))],
        AnyTypedIe::Gbr(g) => vec![("UL GBR", kbps(g.uplink)), ("DL GBR", kbps(g.downlink))],
        AnyTypedIe::QerCorrelationId(q) => one(q.0.to_string()),
        AnyTypedIe::Precedence(p) => one(p.0.to_string()),
        AnyTypedIe::VolumeThreshold(VolumeThreshold {
            total,
            uplink,
            downlink,
        })
        | AnyTypedIe::VolumeQuota(VolumeQuota {
            total,
            uplink,
            downlink,
        }) => {
            let mut f = Vec::new();
            opt(&mut f, "Total volume", *total, octets);
            opt(&mut f, "Uplink volume", *uplink, octets);
            opt(&mut f, "Downlink volume", *downlink, octets);
            f
        }
        AnyTypedIe::TimeThreshold(t) => one(secs(t.0)),
        AnyTypedIe::TimeQuota(t) => one(secs(t.0)),
        AnyTypedIe::DurationMeasurement(t) => one(secs(t.0)),
        AnyTypedIe::ReportingTriggers(r) => one(flags_text!(ReportingTriggers, *r)),
        AnyTypedIe::ReportType(r) => one(flags_text!(ReportType, *r)),
        AnyTypedIe::ApplyAction(a) => one(flags_text!(ApplyAction, *a)),
        AnyTypedIe::MeasurementMethod(m) => one(flags_text!(MeasurementMethod, *m)),
        AnyTypedIe::UsageReportTrigger(u) => one(flags_text!(UsageReportTrigger, *u)),
        AnyTypedIe::OffendingIe(o) => one(match o.0.name() {
            Some(n) => format!("{n} ({})", o.0 .0),
            None => format!("IE type {}", o.0 .0),
        }),
        AnyTypedIe::UpFunctionFeatures(f) => one(feature_names(f.iter().map(|x| x.name))),
        AnyTypedIe::CpFunctionFeatures(f) => one(feature_names(f.iter().map(|x| x.name))),
        AnyTypedIe::DownlinkDataNotificationDelay(d) => {
            one(format!("{} ms ({} x 50 ms)", u32::from(d.0) * 50, d.0))
        }
        AnyTypedIe::ControlSequenceNumber(s) => one(s.0.to_string()),
        AnyTypedIe::Metric(m) if m.raw() > 100 => {
            one(format!("{} (above 100: read as 0 %)", m.raw()))
        }
        AnyTypedIe::Metric(m) => one(format!("{} %", m.percent())),
        AnyTypedIe::Timer(t) => one(timer_text(*t)),
        AnyTypedIe::PdrId(p) => one(p.0.to_string()),
        AnyTypedIe::FarId(x) => one(rule_id(x.0, x.is_predefined())),
        AnyTypedIe::UrrId(x) => one(rule_id(x.0, x.is_predefined())),
        AnyTypedIe::QerId(x) => one(rule_id(x.0, x.is_predefined())),
        AnyTypedIe::BarId(b) => one(b.0.to_string()),
        AnyTypedIe::UrSeqn(u) => one(u.0.to_string()),
        AnyTypedIe::Qfi(q) => one(q.value().to_string()),
        AnyTypedIe::FSeid(f) => {
            let mut v = vec![("SEID", format!("0x{:016x}", f.seid))];
            opt(&mut v, "IPv4 address", f.ipv4, |a| a.to_string());
            opt(&mut v, "IPv6 address", f.ipv6, |a| a.to_string());
            v
        }
        AnyTypedIe::NodeId(n) => one(match n {
            NodeId::Ipv4(a) => format!("IPv4 {a}"),
            NodeId::Ipv6(a) => format!("IPv6 {a}"),
            NodeId::Fqdn(f) => {
                let labels: Vec<String> = f.labels().map(printable).collect();
                format!("FQDN {}", labels.join("."))
            }
        }),
        AnyTypedIe::VolumeMeasurement(m) => {
            let mut f = Vec::new();
            opt(&mut f, "Total volume", m.total_volume, octets);
            opt(&mut f, "Uplink volume", m.uplink_volume, octets);
            opt(&mut f, "Downlink volume", m.downlink_volume, octets);
            opt(&mut f, "Total packets", m.total_packets, |n| n.to_string());
            opt(&mut f, "Uplink packets", m.uplink_packets, |n| {
                n.to_string()
            });
            opt(&mut f, "Downlink packets", m.downlink_packets, |n| {
                n.to_string()
            });
            f
        }
        AnyTypedIe::OuterHeaderCreation(o) => {
            let kinds: Vec<&str> = OHC_BITS
                .iter()
                .filter(|(_, b)| o.description & b != 0)
                .map(|(n, _)| *n)
                .collect();
            let mut f = vec![(
                "Description",
                format!("{} (0x{:04x})", kinds.join(" | "), o.description),
            )];
            opt(&mut f, "TEID", o.teid, |t| format!("0x{t:08x}"));
            opt(&mut f, "IPv4 address", o.ipv4, |a| a.to_string());
            opt(&mut f, "IPv6 address", o.ipv6, |a| a.to_string());
            opt(&mut f, "Port", o.port, |p| p.to_string());
            opt(&mut f, "C-TAG", o.c_tag, |t| crate::hex::encode(&t));
            opt(&mut f, "S-TAG", o.s_tag, |t| crate::hex::encode(&t));
            f
        }
        AnyTypedIe::OuterHeaderRemoval(o) => {
            let mut f = vec![(
                "Description",
                named_code(ohr_name(o.description), o.description),
            )];
            opt(
                &mut f,
                "GTP-U Extension Header Deletion",
                o.extension_header_deletion,
                |e| {
                    if e & 1 != 0 {
                        format!("PDU Session Container (0x{e:02x})")
                    } else {
                        format!("0x{e:02x}")
                    }
                },
            );
            f
        }
        AnyTypedIe::UeIpAddress(u) => {
            let dir = if u.destination {
                "destination"
            } else {
                "source"
            };
            let mut f = vec![("S/D", format!("{dir} address"))];
            opt(&mut f, "IPv4 address", u.ipv4, |a| a.to_string());
            opt(&mut f, "IPv6 address", u.ipv6, |a| a.to_string());
            opt(
                &mut f,
                "IPv6 Prefix Delegation Bits",
                u.ipv6_prefix_delegation_bits,
                |b| b.to_string(),
            );
            opt(&mut f, "IPv6 Prefix Length", u.ipv6_prefix_length, |l| {
                l.to_string()
            });
            if u.choose_ipv4 {
                f.push(("CHV4", "the UP function allocates an IPv4 address".into()));
            }
            if u.choose_ipv6 {
                f.push(("CHV6", "the UP function allocates an IPv6 prefix".into()));
            }
            f
        }
        AnyTypedIe::RecoveryTimeStamp(r) => one(match r.since_unix_epoch() {
            Some(d) => format!("{} ({})", utc(d, false), r.0),
            None => r.0.to_string(),
        }),
        AnyTypedIe::OciFlags(f) => one(if f.aoci() {
            "AOCI (the OCI applies to the node)".into()
        } else {
            format!("none (0x{:02x})", f.0)
        }),
        // Grouped IEs: their members are shown instead.
        _ => Vec::new(),
    }
}

/// A Cause value with its name (clause 8.2.1).
pub fn cause_text(c: Cause) -> String {
    format!("{} ({})", c.name().unwrap_or("unknown Cause value"), c.0)
}

fn feature_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = names.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_timers() {
        assert_eq!(utc(Duration::ZERO, false), "1970-01-01T00:00:00Z");
        assert_eq!(
            utc(Duration::from_secs(951_782_400), false),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            utc(Duration::from_micros(1_767_225_599_000_001), true),
            "2025-12-31 23:59:59.000001 UTC"
        );
        // NTP era 1 starts at 2036-02-07T06:28:16Z.
        let era1 = RecoveryTimeStamp(0).since_unix_epoch().unwrap();
        assert_eq!(utc(era1, false), "2036-02-07T06:28:16Z");
        // Clause 8.2.36: unit 001 (1 minute), value 2.
        assert_eq!(timer_text(Timer(0x22)), "120 s (2 x 1 min)");
        assert_eq!(timer_text(Timer::INFINITE), "infinite");
        assert_eq!(
            timer_text(Timer(0xa3)),
            "180 s (3 x 1 min (reserved unit code))"
        );
    }

    #[test]
    fn texts_of_octet_strings() {
        assert_eq!(network_instance_text(b"\x08internet"), "internet");
        assert_eq!(network_instance_text(b"\x03ims\x03mnc"), "ims.mnc");
        assert_eq!(network_instance_text(b"internet"), "internet");
        assert_eq!(printable(b"a\x00b"), "a\\x00b");
    }

    #[test]
    fn flags_by_name() {
        let a = ApplyAction::FORW;
        assert_eq!(fields(&AnyTypedIe::ApplyAction(a)), one("FORW".into()));
        let both = ApplyAction {
            bits: ApplyAction::FORW.bits | ApplyAction::NOCP.bits,
            octets: 1,
        };
        assert_eq!(
            fields(&AnyTypedIe::ApplyAction(both)),
            one("FORW | NOCP".into())
        );
        let spare = ReportType {
            bits: 0x80,
            octets: 1,
        };
        assert_eq!(
            fields(&AnyTypedIe::ReportType(spare)),
            one("none (spare bits 0x80)".into())
        );
    }
}
