//! [`AnyTypedIe`]: every typed IE of this crate in one enum, chosen by the IE type, so a
//! program that meets IEs of any type (a decoder printing a message, a tool encoding IEs given
//! by their fields) can decode, encode and (feature `serde`) serialize them without a match
//! of its own.
//!
//! The serde form of a value is that of the type it holds (untagged: the IE type says which);
//! [`AnyTypedIe::deserialize_as`] reads it back for a given IE type.

use crate::encode::{Encode, Sink};
use crate::error::{DecodeError, EncodeError};
use crate::ie::*;
use crate::Cause;

macro_rules! any_typed_ie {
    ($($variant:ident($ty:ty) = $code:ident,)*) => {
        /// A typed IE of any type this crate decodes (the list `Message::validate` checks).
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum AnyTypedIe<'a> {
            $(#[doc = concat!("IE type `", stringify!($code), "`: [`", stringify!($variant), "`].")] $variant($ty),)*
        }

        impl<'a> AnyTypedIe<'a> {
            /// Whether this crate has a typed form for IEs of type `t`.
            pub const fn is_typed(t: IeType) -> bool {
                matches!(t, $(IeType::$code)|*)
            }

            /// The typed form of `ie`: `None` if this crate has none for its type, else the
            /// typed decoder's verdict.
            pub fn decode(ie: &RawIe<'a>) -> Option<Result<AnyTypedIe<'a>, DecodeError>> {
                match ie.ie_type() {
                    $(IeType::$code => Some(<$ty as TypedIe<'a>>::decode(ie).map(AnyTypedIe::$variant)),)*
                    _ => None,
                }
            }

            /// The IE type of the value.
            pub const fn ie_type(&self) -> IeType {
                match self {
                    $(AnyTypedIe::$variant(_) => IeType::$code,)*
                }
            }

            /// Exact length of the value (after Type and Length).
            pub fn value_len(&self) -> usize {
                match self {
                    $(AnyTypedIe::$variant(v) => TypedIe::value_len(v),)*
                }
            }

            /// Write exactly [`AnyTypedIe::value_len`] octets, or fail if the value cannot be
            /// encoded.
            pub fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                match self {
                    $(AnyTypedIe::$variant(v) => TypedIe::write_value(v, out),)*
                }
            }

            /// Read the serde form of a value of IE type `t` (the form [`AnyTypedIe`]
            /// serializes to): `Ok(None)` if this crate has no typed form for `t` (`d` is then
            /// left unread).
            #[cfg(feature = "serde")]
            pub fn deserialize_as<D: serde::Deserializer<'a>>(
                t: IeType,
                d: D,
            ) -> Result<Option<AnyTypedIe<'a>>, D::Error> {
                match t {
                    $(IeType::$code => <$ty as serde::Deserialize<'a>>::deserialize(d)
                        .map(|v| Some(AnyTypedIe::$variant(v))),)*
                    _ => Ok(None),
                }
            }
        }

        #[cfg(feature = "serde")]
        impl serde::Serialize for AnyTypedIe<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(AnyTypedIe::$variant(v) => v.serialize(s),)*
                }
            }
        }

        #[cfg(test)]
        const LISTED: &[IeType] = &[$(IeType::$code),*];
    };
}

any_typed_ie! {
    CreatePdr(CreatePdr<'a>) = CREATE_PDR,
    Pdi(Pdi<'a>) = PDI,
    CreateFar(CreateFar<'a>) = CREATE_FAR,
    ForwardingParameters(ForwardingParameters<'a>) = FORWARDING_PARAMETERS,
    DuplicatingParameters(DuplicatingParameters) = DUPLICATING_PARAMETERS,
    CreateUrr(CreateUrr) = CREATE_URR,
    CreateQer(CreateQer) = CREATE_QER,
    CreatedPdr(CreatedPdr<'a>) = CREATED_PDR,
    UpdatePdr(UpdatePdr<'a>) = UPDATE_PDR,
    UpdateFar(UpdateFar<'a>) = UPDATE_FAR,
    UpdateForwardingParameters(UpdateForwardingParameters<'a>) = UPDATE_FORWARDING_PARAMETERS,
    UpdateUrr(UpdateUrr) = UPDATE_URR,
    UpdateQer(UpdateQer) = UPDATE_QER,
    RemovePdr(RemovePdr) = REMOVE_PDR,
    RemoveFar(RemoveFar) = REMOVE_FAR,
    RemoveUrr(RemoveUrr) = REMOVE_URR,
    RemoveQer(RemoveQer) = REMOVE_QER,
    Cause(Cause) = CAUSE,
    SourceInterface(SourceInterface) = SOURCE_INTERFACE,
    FTeid(FTeid) = F_TEID,
    NetworkInstance(NetworkInstance<'a>) = NETWORK_INSTANCE,
    SdfFilter(SdfFilter<'a>) = SDF_FILTER,
    ApplicationId(ApplicationId<'a>) = APPLICATION_ID,
    GateStatus(GateStatus) = GATE_STATUS,
    Mbr(Mbr) = MBR,
    Gbr(Gbr) = GBR,
    QerCorrelationId(QerCorrelationId) = QER_CORRELATION_ID,
    Precedence(Precedence) = PRECEDENCE,
    VolumeThreshold(VolumeThreshold) = VOLUME_THRESHOLD,
    TimeThreshold(TimeThreshold) = TIME_THRESHOLD,
    ReportingTriggers(ReportingTriggers) = REPORTING_TRIGGERS,
    ReportType(ReportType) = REPORT_TYPE,
    OffendingIe(OffendingIe) = OFFENDING_IE,
    DestinationInterface(DestinationInterface) = DESTINATION_INTERFACE,
    UpFunctionFeatures(UpFunctionFeatures) = UP_FUNCTION_FEATURES,
    ApplyAction(ApplyAction) = APPLY_ACTION,
    DownlinkDataNotificationDelay(DownlinkDataNotificationDelay) = DOWNLINK_DATA_NOTIFICATION_DELAY,
    LoadControlInformation(LoadControlInformation) = LOAD_CONTROL_INFORMATION,
    ControlSequenceNumber(ControlSequenceNumber) = SEQUENCE_NUMBER,
    Metric(Metric) = METRIC,
    OverloadControlInformation(OverloadControlInformation) = OVERLOAD_CONTROL_INFORMATION,
    Timer(Timer) = TIMER,
    PdrId(PdrId) = PDR_ID,
    FSeid(FSeid) = F_SEID,
    NodeId(NodeId<'a>) = NODE_ID,
    MeasurementMethod(MeasurementMethod) = MEASUREMENT_METHOD,
    UsageReportTrigger(UsageReportTrigger) = USAGE_REPORT_TRIGGER,
    VolumeMeasurement(VolumeMeasurement) = VOLUME_MEASUREMENT,
    DurationMeasurement(DurationMeasurement) = DURATION_MEASUREMENT,
    VolumeQuota(VolumeQuota) = VOLUME_QUOTA,
    TimeQuota(TimeQuota) = TIME_QUOTA,
    UsageReportSmr(UsageReportSmr) = USAGE_REPORT_SMR,
    UsageReportSdr(UsageReportSdr) = USAGE_REPORT_SDR,
    UsageReportSrr(UsageReportSrr) = USAGE_REPORT_SRR,
    UrrId(UrrId) = URR_ID,
    DownlinkDataReport(DownlinkDataReport<'a>) = DOWNLINK_DATA_REPORT,
    OuterHeaderCreation(OuterHeaderCreation) = OUTER_HEADER_CREATION,
    CreateBar(CreateBar) = CREATE_BAR,
    UpdateBar(UpdateBar) = UPDATE_BAR_SMR,
    RemoveBar(RemoveBar) = REMOVE_BAR,
    BarId(BarId) = BAR_ID,
    CpFunctionFeatures(CpFunctionFeatures) = CP_FUNCTION_FEATURES,
    UeIpAddress(UeIpAddress) = UE_IP_ADDRESS,
    OuterHeaderRemoval(OuterHeaderRemoval) = OUTER_HEADER_REMOVAL,
    RecoveryTimeStamp(RecoveryTimeStamp) = RECOVERY_TIME_STAMP,
    UrSeqn(UrSeqn) = UR_SEQN,
    FarId(FarId) = FAR_ID,
    QerId(QerId) = QER_ID,
    OciFlags(OciFlags) = OCI_FLAGS,
    Qfi(Qfi) = QFI,
}

impl AnyTypedIe<'_> {
    /// Whether the value is a grouped IE (its members are IEs of their own).
    pub fn is_grouped(&self) -> bool {
        self.ie_type().is_grouped()
    }

    /// Whether encoding the value gives back exactly `octets` (the value of the IE it was
    /// decoded from). Typed decoders read what the spec defines and ignore the rest (spare
    /// bits, octets an extendable IE adds), so a caller that must be lossless keeps the raw
    /// octets when this is false.
    pub fn reproduces(&self, octets: &[u8]) -> bool {
        let len = self.value_len();
        if len != octets.len() {
            return false;
        }
        let mut buf = [0u8; 64];
        match buf.get_mut(..len) {
            Some(dst) => {
                let mut sink = crate::encode::SliceSink::new(dst);
                self.write_value(&mut sink).is_ok() && sink.written() == octets
            }
            None => {
                let mut v = Vec::with_capacity(len);
                self.write_value(&mut v).is_ok() && v == octets
            }
        }
    }
}

impl AnyTypedIe<'_> {
    /// Whether the serde form reads back ([`AnyTypedIe::deserialize_as`]) as this value: true
    /// for every value but a Node ID whose FQDN has a label that is not UTF-8 or holds a dot
    /// (written escaped, see [`Fqdn::is_dotted_exact`]).
    pub fn serde_exact(&self) -> bool {
        !matches!(self, AnyTypedIe::NodeId(NodeId::Fqdn(f)) if !f.is_dotted_exact())
    }
}

impl Encode for AnyTypedIe<'_> {
    #[inline]
    fn encoded_len(&self) -> usize {
        IE_HEADER_LEN + self.value_len()
    }

    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        crate::encode::put_ie_header(out, self.ie_type(), self.value_len())?;
        self.write_value(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The enum covers exactly the typed IEs `Message::validate` dispatches on.
    #[test]
    fn lists_every_typed_ie() {
        macro_rules! codes {
            ($($code:ident => $ty:ty,)*) => { &[$(IeType::$code),*] };
        }
        let validated: &[IeType] = crate::ie::type_table::with_typed_ies!(codes);
        let mut a: Vec<u16> = validated.iter().map(|t| t.0).collect();
        let mut b: Vec<u16> = LISTED.iter().map(|t| t.0).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        for t in LISTED {
            assert!(AnyTypedIe::is_typed(*t));
        }
        assert!(!AnyTypedIe::is_typed(IeType::PDN_TYPE));
    }

    #[test]
    fn decodes_by_type_and_encodes_back() {
        // Recovery Time Stamp 0xe8f4a2b0 (clause 8.2.65) and a PDN Type (no typed form).
        let b = [
            0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0, 0x00, 0x71, 0x00, 0x01, 0x01,
        ];
        let mut ies = IeIter::new(&b, 0);
        let rts = ies.next().unwrap().unwrap();
        let v = AnyTypedIe::decode(&rts).unwrap().unwrap();
        assert_eq!(
            v,
            AnyTypedIe::RecoveryTimeStamp(RecoveryTimeStamp(0xe8f4_a2b0))
        );
        assert!(v.reproduces(rts.value()));
        assert!(!v.reproduces(&[0xe8, 0xf4, 0xa2, 0xb1]));
        let mut out = Vec::new();
        v.encode(&mut out).unwrap();
        assert_eq!(out, b[..8]);
        assert!(AnyTypedIe::decode(&ies.next().unwrap().unwrap()).is_none());
    }

    #[test]
    fn spare_bits_are_not_reproduced() {
        // Source Interface with spare bits 8-5 set (clause 8.2.2): the typed value drops them.
        let b = [0x00, 0x14, 0x00, 0x01, 0xf1];
        let ie = IeIter::new(&b, 0).next().unwrap().unwrap();
        let v = AnyTypedIe::decode(&ie).unwrap().unwrap();
        assert_eq!(v, AnyTypedIe::SourceInterface(SourceInterface::CORE));
        assert!(!v.reproduces(ie.value()));
    }
}
