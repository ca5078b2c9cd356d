//! The overload and load control IEs: Sequence Number (52, clause 8.2.33), Metric (53,
//! 8.2.34), OCI Flags (110, 8.2.76), Load Control Information (51, Table 7.5.3.3-1) and
//! Overload Control Information (54, Table 7.5.3.4-1).

use crate::encode::{Encode, Sink};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::ie::value::{array, parse_fixed};
use crate::ie::{read_tlv, IeType, RawIe, Timer, TypedIe};

/// A fixed-size IE (Table 8.1.2-1 "Fixed"): no extension octets (clause 7.6: Cause 68).
fn fixed<const N: usize>(ie: &RawIe<'_>) -> Result<[u8; N], DecodeError> {
    parse_fixed(ie, array::<N>)
}

/// Sequence Number IE (type 52): the 32-bit counter that orders OCIs and LCIs of one sender.
/// Distinct from the 24-bit header [`crate::SequenceNumber`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct ControlSequenceNumber(pub u32);

impl<'a> TypedIe<'a> for ControlSequenceNumber {
    const IE_TYPE: IeType = IeType::SEQUENCE_NUMBER;
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        Ok(ControlSequenceNumber(u32::from_be_bytes(fixed::<4>(ie)?)))
    }
    fn value_len(&self) -> usize {
        4
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&self.0.to_be_bytes())
    }
}

/// Metric IE (type 53): a percentage 0..=100.
///
/// Clause 8.2.34: values above 100 "shall be considered as 0". The raw octet is kept (so a
/// message re-encodes byte-exact) and [`Metric::percent`] applies the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct Metric(u8);

impl Metric {
    /// 0 %.
    pub const ZERO: Metric = Metric(0);
    /// 100 %.
    pub const FULL: Metric = Metric(100);

    /// A metric of `percent`; `None` above 100.
    pub const fn new(percent: u8) -> Option<Metric> {
        if percent <= 100 {
            Some(Metric(percent))
        } else {
            None
        }
    }

    /// The metric for a raw octet as received (any value).
    pub const fn from_raw(raw: u8) -> Metric {
        Metric(raw)
    }

    /// The effective percentage: the raw value, or 0 if it is above 100.
    pub const fn percent(self) -> u8 {
        if self.0 <= 100 {
            self.0
        } else {
            0
        }
    }

    /// The octet as received or to be sent.
    pub const fn raw(self) -> u8 {
        self.0
    }
}

impl<'a> TypedIe<'a> for Metric {
    const IE_TYPE: IeType = IeType::METRIC;
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        let [b] = fixed::<1>(ie)?;
        Ok(Metric(b))
    }
    fn value_len(&self) -> usize {
        1
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&[self.0])
    }
}

/// OCI Flags IE (type 110): bit 1 = AOCI, "associate OCI with Node ID". Spare bits are kept
/// as received; extension octets are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct OciFlags(pub u8);

impl OciFlags {
    /// AOCI set.
    pub const AOCI: OciFlags = OciFlags(0x01);

    /// Whether AOCI is set: the OCI applies to the sender's Node ID rather than to the PFCP
    /// entity (UP F-SEID address).
    pub const fn aoci(self) -> bool {
        self.0 & 0x01 != 0
    }
}

impl<'a> TypedIe<'a> for OciFlags {
    const IE_TYPE: IeType = IeType::OCI_FLAGS;
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        match ie.value().first() {
            Some(&b) => Ok(OciFlags(b)),
            None => Err(ie.error(DecodeErrorKind::IeTooShort {
                needed: 1,
                length: 0,
            })),
        }
    }
    fn value_len(&self) -> usize {
        1
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&[self.0])
    }
}

/// Decode a member into `slot` unless an earlier one did (clause 7.6.10: later repetitions
/// are ignored). Members come in any order (clause 8.1.2).
#[inline]
fn once<'a, T: TypedIe<'a>>(slot: &mut Option<T>, m: &RawIe<'a>) -> Result<(), DecodeError> {
    if slot.is_none() {
        *slot = Some(T::decode(m)?);
    }
    Ok(())
}

/// A mandatory member, or the error naming it.
#[inline]
fn required<'a, T: TypedIe<'a>>(group: &RawIe<'a>, v: Option<T>) -> Result<T, DecodeError> {
    match v {
        Some(v) => Ok(v),
        None => Err(group.error(DecodeErrorKind::MissingMember(T::IE_TYPE))),
    }
}

/// Overload Control Information (type 54, Table 7.5.3.4-1; clause 6.2.4).
///
/// Unknown member IEs are ignored by the typed form (keep the [`RawIe`] to re-encode them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OverloadControlInformation {
    /// Overload Control Sequence Number (M).
    pub sequence_number: ControlSequenceNumber,
    /// Overload Reduction Metric (M): percentage of requests the receiver should shed.
    pub metric: Metric,
    /// Period of Validity (M).
    pub period_of_validity: Timer,
    /// OCI Flags (C: present if a flag is set; absent means AOCI=0).
    pub flags: Option<OciFlags>,
}

impl OverloadControlInformation {
    /// Whether the OCI is scoped to the sender's Node ID (AOCI) rather than to the PFCP entity.
    pub fn aoci(&self) -> bool {
        self.flags.is_some_and(|f| f.aoci())
    }
}

/// The members of an OCI or LCI (clauses 8.2.76, 8.2.77) as one tight walk reads them, the
/// first of each type; `None` at anything unusual (a framing error, a member of another
/// length). The callers then decode with their general walk, so their result is always the
/// general walk's, errors included: this is the common case made cheap, not a second decoder.
#[derive(Default)]
struct ControlMembers {
    seq: Option<ControlSequenceNumber>,
    metric: Option<Metric>,
    timer: Option<Timer>,
    flags: Option<OciFlags>,
}

#[inline]
fn control_members(mut rest: &[u8]) -> Option<ControlMembers> {
    let mut m = ControlMembers::default();
    while !rest.is_empty() {
        let tlv = read_tlv(rest).ok()?;
        rest = tlv.after;
        match (tlv.ie_type, tlv.value) {
            (IeType::SEQUENCE_NUMBER, &[a, b, c, d]) if m.seq.is_none() => {
                m.seq = Some(ControlSequenceNumber(u32::from_be_bytes([a, b, c, d])));
            }
            (IeType::METRIC, &[b]) if m.metric.is_none() => m.metric = Some(Metric(b)),
            (IeType::TIMER, &[b, ..]) if m.timer.is_none() => m.timer = Some(Timer(b)),
            (IeType::OCI_FLAGS, &[b, ..]) if m.flags.is_none() => m.flags = Some(OciFlags(b)),
            (IeType::SEQUENCE_NUMBER, _) if m.seq.is_none() => return None,
            (IeType::METRIC, _) if m.metric.is_none() => return None,
            (IeType::TIMER, _) if m.timer.is_none() => return None,
            (IeType::OCI_FLAGS, _) if m.flags.is_none() => return None,
            _ => {}
        }
    }
    Some(m)
}

impl<'a> TypedIe<'a> for OverloadControlInformation {
    const IE_TYPE: IeType = IeType::OVERLOAD_CONTROL_INFORMATION;
    /// One walk over the members (each decoded once, the first of each type).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        match control_members(ie.value()) {
            Some(ControlMembers {
                seq: Some(sequence_number),
                metric: Some(metric),
                timer: Some(period_of_validity),
                flags,
            }) => Ok(OverloadControlInformation {
                sequence_number,
                metric,
                period_of_validity,
                flags,
            }),
            _ => Self::decode_members(ie),
        }
    }

    fn value_len(&self) -> usize {
        self.sequence_number.encoded_len()
            + self.metric.encoded_len()
            + self.period_of_validity.encoded_len()
            + self.flags.encoded_len()
    }

    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        self.sequence_number.encode(out)?;
        self.metric.encode(out)?;
        self.period_of_validity.encode(out)?;
        self.flags.encode(out)
    }
}

impl<'a> OverloadControlInformation {
    /// The general walk of [`TypedIe::decode`] (each member through its own decoder).
    #[cold]
    #[inline(never)]
    fn decode_members(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        let (mut seq, mut metric, mut timer, mut flags) = (None, None, None, None);
        for m in ie.children() {
            let m = m?;
            match m.ie_type() {
                IeType::SEQUENCE_NUMBER => once(&mut seq, &m)?,
                IeType::METRIC => once(&mut metric, &m)?,
                IeType::TIMER => once(&mut timer, &m)?,
                IeType::OCI_FLAGS => once(&mut flags, &m)?,
                _ => {}
            }
        }
        Ok(OverloadControlInformation {
            sequence_number: required(ie, seq)?,
            metric: required(ie, metric)?,
            period_of_validity: required(ie, timer)?,
            flags,
        })
    }
}

/// Load Control Information (type 51, Table 7.5.3.3-1; clause 6.2.3). Always node-scoped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LoadControlInformation {
    /// Load Control Sequence Number (M).
    pub sequence_number: ControlSequenceNumber,
    /// Load Metric (M): current load in percent.
    pub metric: Metric,
}

impl<'a> TypedIe<'a> for LoadControlInformation {
    const IE_TYPE: IeType = IeType::LOAD_CONTROL_INFORMATION;
    /// One walk over the members (each decoded once, the first of each type).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        match control_members(ie.value()) {
            Some(ControlMembers {
                seq: Some(sequence_number),
                metric: Some(metric),
                ..
            }) => Ok(LoadControlInformation {
                sequence_number,
                metric,
            }),
            _ => Self::decode_members(ie),
        }
    }

    fn value_len(&self) -> usize {
        self.sequence_number.encoded_len() + self.metric.encoded_len()
    }

    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        self.sequence_number.encode(out)?;
        self.metric.encode(out)
    }
}

impl<'a> LoadControlInformation {
    /// The general walk of [`TypedIe::decode`] (each member through its own decoder).
    #[cold]
    #[inline(never)]
    fn decode_members(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        let (mut seq, mut metric) = (None, None);
        for m in ie.children() {
            let m = m?;
            match m.ie_type() {
                IeType::SEQUENCE_NUMBER => once(&mut seq, &m)?,
                IeType::METRIC => once(&mut metric, &m)?,
                _ => {}
            }
        }
        Ok(LoadControlInformation {
            sequence_number: required(ie, seq)?,
            metric: required(ie, metric)?,
        })
    }
}

crate::encode::impl_encode!(
    ControlSequenceNumber,
    Metric,
    OciFlags,
    OverloadControlInformation,
    LoadControlInformation
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ie::IeIter;

    // Digest 1.6: OCI seq 5, metric 30, timer 0x22 (2 min), AOCI=1; then an LCI seq 7, 55 %.
    const OCI: [u8; 27] = [
        0x00, 0x36, 0x00, 0x17, 0x00, 0x34, 0x00, 0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x35, 0x00,
        0x01, 0x1e, 0x00, 0x37, 0x00, 0x01, 0x22, 0x00, 0x6e, 0x00, 0x01, 0x01,
    ];
    const LCI: [u8; 17] = [
        0x00, 0x33, 0x00, 0x0d, 0x00, 0x34, 0x00, 0x04, 0x00, 0x00, 0x00, 0x07, 0x00, 0x35, 0x00,
        0x01, 0x37,
    ];

    fn first(b: &[u8]) -> RawIe<'_> {
        IeIter::new(b, 0).next().unwrap().unwrap()
    }

    #[test]
    fn oci_from_spec_layout() {
        let oci: OverloadControlInformation = first(&OCI).decode_as().unwrap();
        assert_eq!(oci.sequence_number, ControlSequenceNumber(5));
        assert_eq!(oci.metric.percent(), 30);
        assert_eq!(oci.period_of_validity, Timer(0x22));
        assert!(oci.aoci());
        let mut v = Vec::new();
        oci.encode(&mut v).unwrap();
        assert_eq!(v, OCI);
        assert_eq!(oci.encoded_len(), OCI.len());
    }

    #[test]
    fn lci_from_spec_layout() {
        let lci: LoadControlInformation = first(&LCI).decode_as().unwrap();
        assert_eq!(lci.sequence_number, ControlSequenceNumber(7));
        assert_eq!(lci.metric.percent(), 55);
        let mut v = Vec::new();
        lci.encode(&mut v).unwrap();
        assert_eq!(v, LCI);
    }

    /// The tight walk of `decode` gives the general walk's result (value or error) on every
    /// cut and every one-octet change of an OCI and an LCI (members repeated, reordered, too
    /// short, too long, framing errors, vendor IEs).
    #[test]
    fn tight_walk_is_the_general_walk() {
        let mut both = OCI.to_vec();
        both.extend_from_slice(&LCI[4..]);
        both[3] = (both.len() - 4) as u8;
        for base in [&OCI[..], &LCI[..], &both[..]] {
            let mut inputs = vec![base.to_vec()];
            for cut in 4..base.len() {
                let mut v = base[..cut].to_vec();
                v[3] = (cut - 4) as u8;
                inputs.push(v);
            }
            for i in 4..base.len() {
                for x in [
                    0x00, 0x01, 0x02, 0x04, 0x05, 0x34, 0x35, 0x37, 0x6e, 0x80, 0xff,
                ] {
                    let mut v = base.to_vec();
                    v[i] = x;
                    inputs.push(v);
                }
            }
            for v in &inputs {
                let ie = RawIe {
                    value: &v[4..],
                    root: v,
                    root_offset: 0,
                    ie_type: IeType::OVERLOAD_CONTROL_INFORMATION,
                };
                assert_eq!(
                    OverloadControlInformation::decode(&ie),
                    OverloadControlInformation::decode_members(&ie),
                    "{v:02x?}"
                );
                assert_eq!(
                    LoadControlInformation::decode(&ie),
                    LoadControlInformation::decode_members(&ie),
                    "{v:02x?}"
                );
            }
        }
    }

    #[test]
    fn metric_above_100_reads_as_zero_but_keeps_raw() {
        let m = Metric::from_raw(200);
        assert_eq!(m.percent(), 0);
        assert_eq!(m.raw(), 200);
        assert!(Metric::new(101).is_none());
    }

    #[test]
    fn missing_member_is_named() {
        // OCI without its Timer.
        let b = [
            0x00, 0x36, 0x00, 0x0d, 0x00, 0x34, 0x00, 0x04, 0, 0, 0, 5, 0x00, 0x35, 0x00, 0x01,
            0x1e,
        ];
        let e = first(&b)
            .decode_as::<OverloadControlInformation>()
            .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::MissingMember(IeType::TIMER));
    }

    #[test]
    fn short_sequence_number_is_an_error() {
        let b = [0x00, 0x33, 0x00, 0x07, 0x00, 0x34, 0x00, 0x03, 0, 0, 7];
        let e = first(&b).decode_as::<LoadControlInformation>().unwrap_err();
        assert_eq!(
            e.kind,
            DecodeErrorKind::IeTooShort {
                needed: 4,
                length: 3
            }
        );
        assert_eq!(e.offset, 4);
        assert_eq!(e.path.depth(), 2);
    }
}
