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
