//! The informational `"decoded"` object of an IE in the JSON format: what `pfcp-wire`'s typed
//! decoder makes of it. `pfcp encode` ignores it.

use core::time::Duration;

use pfcp_wire::ie::{
    ControlSequenceNumber, CpFunctionFeatures, FSeid, LoadControlInformation, Metric, NodeId,
    OciFlags, OffendingIe, OverloadControlInformation, RecoveryTimeStamp, Timer, TimerUnit,
    UpFunctionFeatures,
};
use pfcp_wire::{Cause, DecodeError, IeType, RawIe, TypedIe};
use serde_json::{json, Value};

use crate::render::error_object;

/// The decoded form of `ie` if `pfcp-wire` has a typed decoder for its type: `Some(object)`,
/// or `Some({"error": {...}})` if that decoder rejects the IE; `None` for other types.
pub fn decoded(ie: &RawIe<'_>) -> Option<Value> {
    let result = match ie.ie_type() {
        IeType::CAUSE => typed::<Cause>(ie).map(cause),
        IeType::NODE_ID => typed::<NodeId<'_>>(ie).map(|n| node_id(&n)),
        IeType::F_SEID => typed::<FSeid>(ie).map(f_seid),
        IeType::TIMER => typed::<Timer>(ie).map(timer),
        IeType::METRIC => typed::<Metric>(ie).map(metric),
        IeType::SEQUENCE_NUMBER => {
            typed::<ControlSequenceNumber>(ie).map(|s| json!({"sequence_number": s.0}))
        }
        IeType::OCI_FLAGS => typed::<OciFlags>(ie).map(|f| json!({"aoci": f.aoci()})),
        IeType::OVERLOAD_CONTROL_INFORMATION => typed::<OverloadControlInformation>(ie).map(oci),
        IeType::LOAD_CONTROL_INFORMATION => typed::<LoadControlInformation>(ie).map(lci),
        IeType::CP_FUNCTION_FEATURES => typed::<CpFunctionFeatures>(ie).map(|f| {
            let names: Vec<_> = f.iter().map(|x| x.name).collect();
            json!({ "features": names })
        }),
        IeType::UP_FUNCTION_FEATURES => typed::<UpFunctionFeatures>(ie).map(|f| {
            let names: Vec<_> = f.iter().map(|x| x.name).collect();
            json!({ "features": names })
        }),
        IeType::RECOVERY_TIME_STAMP => typed::<RecoveryTimeStamp>(ie).map(recovery_time_stamp),
        IeType::OFFENDING_IE => {
            typed::<OffendingIe>(ie).map(|o| json!({"ie_type": o.0 .0, "name": o.0.name()}))
        }
        _ => return None,
    };
    Some(result.unwrap_or_else(|e| json!({ "error": error_object(&e) })))
}

fn typed<'a, T: TypedIe<'a>>(ie: &RawIe<'a>) -> Result<T, DecodeError> {
    T::decode(ie)
}

fn cause(c: Cause) -> Value {
    json!({"cause": c.0, "name": c.name(), "acceptance": c.is_acceptance()})
}

fn node_id(n: &NodeId<'_>) -> Value {
    let kind = match n {
        NodeId::Ipv4(_) => "ipv4",
        NodeId::Ipv6(_) => "ipv6",
        NodeId::Fqdn(_) => "fqdn",
    };
    json!({"node_id_type": n.type_code(), "kind": kind, "node_id": n.to_string()})
}

fn f_seid(f: FSeid) -> Value {
    json!({"seid": f.seid, "ipv4": f.ipv4.map(|a| a.to_string()), "ipv6": f.ipv6.map(|a| a.to_string())})
}

/// A Timer: raw octet, unit code and its meaning, value, total seconds (null if infinite).
pub fn timer(t: Timer) -> Value {
    let unit = t.unit();
    let unit_text = match unit {
        TimerUnit::TwoSeconds => "2 seconds",
        TimerUnit::OneMinute => "1 minute",
        TimerUnit::TenMinutes => "10 minutes",
        TimerUnit::OneHour => "1 hour",
        TimerUnit::TenHours => "10 hours",
        TimerUnit::OtherMinutes(_) => "1 minute (reserved unit, read as minutes)",
        TimerUnit::Infinite => "infinite",
    };
    json!({
        "raw": t.0,
        "unit": unit.code(),
        "unit_text": unit_text,
        "value": t.value(),
        "seconds": t.duration().map(|d| d.as_secs()),
        "infinite": t.is_infinite(),
        "stopped": t.is_stopped(),
    })
}

/// A Metric: the octet as sent and the effective percentage (above 100 reads as 0).
pub fn metric(m: Metric) -> Value {
    json!({"raw": m.raw(), "percent": m.percent()})
}

fn oci(o: OverloadControlInformation) -> Value {
    json!({
        "sequence_number": o.sequence_number.0,
        "metric": metric(o.metric),
        "period_of_validity": timer(o.period_of_validity),
        "aoci": o.aoci(),
    })
}

fn lci(l: LoadControlInformation) -> Value {
    json!({"sequence_number": l.sequence_number.0, "metric": metric(l.metric)})
}

fn recovery_time_stamp(ts: RecoveryTimeStamp) -> Value {
    json!({"raw": ts.0, "utc": ts.since_unix_epoch().map(rfc3339)})
}

/// `d` after the Unix epoch as RFC 3339 UTC text, e.g. `2026-01-01T00:00:00Z`.
pub fn rfc3339(d: Duration) -> String {
    let secs = d.as_secs();
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, mo, da) = civil_from_days(days);
    format!(
        "{y:04}-{mo:02}-{da:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_known_dates() {
        assert_eq!(rfc3339(Duration::ZERO), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            rfc3339(Duration::from_secs(1_767_225_599)),
            "2025-12-31T23:59:59Z"
        );
        // NTP era 1 starts at 2036-02-07T06:28:16Z.
        let era1 = RecoveryTimeStamp(0).since_unix_epoch().unwrap();
        assert_eq!(rfc3339(era1), "2036-02-07T06:28:16Z");
    }

    #[test]
    fn timer_meanings() {
        let t = timer(Timer(0x22));
        assert_eq!(t["seconds"], json!(120));
        assert_eq!(t["unit"], json!(1));
        let inf = timer(Timer::INFINITE);
        assert_eq!(inf["seconds"], Value::Null);
        assert_eq!(inf["infinite"], json!(true));
        assert_eq!(timer(Timer(0xa3))["seconds"], json!(180));
        assert_eq!(timer(Timer(0))["stopped"], json!(true));
        assert_eq!(metric(Metric::from_raw(200))["percent"], json!(0));
    }
}
