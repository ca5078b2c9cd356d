//! Builders of the overload and load control IEs the tests feed in (TS 29.244 clauses
//! 7.5.5 / 8.2.76 for the OCI, 7.5.4 for the LCI): every field given, nothing encoded, so the
//! values under test are plain to read. `metric` is a raw octet, out-of-range values (above
//! 100) included, as a peer may send them.

use std::time::Duration;

use pfcp_wire::ie::{
    ControlSequenceNumber, LoadControlInformation, Metric, OciFlags, OverloadControlInformation,
    Timer,
};

/// An OCI: sequence number, raw metric, Period of Validity, AOCI (node scope) or not.
pub fn oci(seq: u32, metric: u8, validity: Timer, aoci: bool) -> OverloadControlInformation {
    OverloadControlInformation {
        sequence_number: ControlSequenceNumber(seq),
        metric: Metric::from_raw(metric),
        period_of_validity: validity,
        flags: aoci.then_some(OciFlags::AOCI),
    }
}

/// [`oci`] with a Period of Validity of `secs` seconds (infinite if it cannot be encoded).
pub fn oci_secs(seq: u32, metric: u8, secs: u64, aoci: bool) -> OverloadControlInformation {
    oci(seq, metric, timer_secs(secs), aoci)
}

/// An LCI: sequence number and raw load metric.
pub fn lci(seq: u32, load: u8) -> LoadControlInformation {
    LoadControlInformation {
        sequence_number: ControlSequenceNumber(seq),
        metric: Metric::from_raw(load),
    }
}

/// A Timer of `secs` seconds, or the infinite one if it cannot be encoded (8.2.121).
pub fn timer_secs(secs: u64) -> Timer {
    Timer::from_duration(Duration::from_secs(secs)).unwrap_or(Timer::INFINITE)
}

/// The IEs of a minimal Session Establishment Request from the spec digest's byte layout
/// (section 4.14; TS 29.244 Table 7.5.2.1-1): Node ID (IPv4 192.0.2.10), CP F-SEID (SEID 1,
/// 192.0.2.10), Create PDR (PDR ID 1, precedence 255, PDI: source interface access, FAR ID 1),
/// Create FAR (FAR ID 1, apply action FORW). Written from the layout, not by our encoder.
pub fn minimal_establishment_ies() -> Vec<u8> {
    const HEX: &str = "003c000500c000020a\
                       0039000d020000000000000001c000020a\
                       0001001f003800020001001d0004000000ff000200050014000100006c000400000001\
                       0003000d006c000400000001002c000102";
    (0..HEX.len())
        .step_by(2)
        .filter_map(|i| HEX.get(i..i + 2))
        .filter_map(|b| u8::from_str_radix(b, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfcp_wire::ie::IeIter;

    #[test]
    fn the_minimal_establishment_holds_the_mandatory_ies() {
        let ies = minimal_establishment_ies();
        let types: Vec<u16> = IeIter::new(&ies, 0)
            .map(|ie| ie.unwrap().ie_type().0)
            .collect();
        // Node ID, CP F-SEID, Create PDR, Create FAR (Table 7.5.2.1-1).
        assert_eq!(types, [60, 57, 1, 3]);
    }
}
