//! One-octet codes and flag sets of the session rules: Source and Destination Interface, Gate
//! Status, Outer Header Removal, Apply Action, Measurement Method, Reporting Triggers, Usage
//! Report Trigger and Report Type (TS 29.244 clause 8.2).
//!
//! Unknown codes and spare bits are kept as received (a later release may use them) and
//! written back unchanged.

use core::fmt;

use crate::encode::Sink;
use crate::error::{DecodeError, EncodeError};
use crate::ie::value::{parse_value, u8_};
use crate::ie::{IeType, RawIe, TypedIe};

macro_rules! interface_ie {
    ($(#[$doc:meta])* $name:ident, $code:ident, [$($(#[$cdoc:meta])* $c:ident = $v:literal, $n:literal;)*]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(transparent))]
        pub struct $name(pub u8);

        impl $name {
            $($(#[$cdoc])* pub const $c: $name = $name($v);)*

            /// The interface value (bits 4-1 of octet 5).
            pub const fn value(self) -> u8 {
                self.0 & 0x0f
            }

            /// The spec name, `None` for values TS 29.244 keeps spare.
            pub const fn name(self) -> Option<&'static str> {
                match self.value() {
                    $($v => Some($n),)*
                    _ => None,
                }
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(n) => write!(f, "{}({})", stringify!($name), n),
                    None => write!(f, "{}({})", stringify!($name), self.value()),
                }
            }
        }

        impl<'a> TypedIe<'a> for $name {
            const IE_TYPE: IeType = IeType::$code;
            /// Spare bits 8-5 are ignored; spare values are kept.
            fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
                parse_value(ie, u8_).map(|b| $name(b & 0x0f))
            }
            fn value_len(&self) -> usize {
                1
            }
            fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                out.put(&[self.value()])
            }
        }

        crate::encode::impl_encode!($name);
    };
}

interface_ie!(
    /// Source Interface (type 20, clause 8.2.2): where the packets a PDI matches come from.
    SourceInterface, SOURCE_INTERFACE, [
        /// 0: Access (uplink).
        ACCESS = 0, "Access";
        /// 1: Core (downlink).
        CORE = 1, "Core";
        /// 2: SGi-LAN / N6-LAN.
        SGI_LAN = 2, "SGi-LAN/N6-LAN";
        /// 3: CP-function.
        CP_FUNCTION = 3, "CP-function";
        /// 4: 5G VN Internal.
        VN_INTERNAL = 4, "5G VN Internal";
    ]
);

interface_ie!(
    /// Destination Interface (type 42, clause 8.2.24): where a FAR sends the packets.
    DestinationInterface, DESTINATION_INTERFACE, [
        /// 0: Access (downlink).
        ACCESS = 0, "Access";
        /// 1: Core (uplink).
        CORE = 1, "Core";
        /// 2: SGi-LAN / N6-LAN.
        SGI_LAN = 2, "SGi-LAN/N6-LAN";
        /// 3: CP-function.
        CP_FUNCTION = 3, "CP-function";
        /// 4: LI Function.
        LI_FUNCTION = 4, "LI Function";
        /// 5: 5G VN Internal.
        VN_INTERNAL = 5, "5G VN Internal";
    ]
);

/// A set of flag octets (octet 5 is bits 0-7, octet 6 bits 8-15, ...) and how many octets it
/// occupies on the wire: at least `min` are read, at least `encode` written by the
/// constants, at most `max` kept.
macro_rules! flags_ie {
    (
        $(#[$doc:meta])* $name:ident, $code:ident, min $min:literal, encode $emin:literal,
        max $max:literal,
        [$($(#[$cdoc:meta])* $c:ident = $octet:literal : $bit:literal;)*]
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct $name {
            /// The flag octets, octet 5 in the low 8 bits.
            pub bits: u32,
            /// Octets on the wire.
            pub octets: u8,
        }

        impl $name {
            $($(#[$cdoc])* pub const $c: $name = $name {
                bits: 1 << (($octet - 5) * 8 + $bit - 1),
                octets: if $octet - 4 > $emin { $octet - 4 } else { $emin },
            };)*

            /// No flag set, in the shortest encoding this crate writes.
            pub const EMPTY: $name = $name { bits: 0, octets: $emin };

            /// Every named flag, with its name.
            pub const NAMED: &'static [(&'static str, $name)] = &[$((stringify!($c), $name::$c)),*];

            /// Whether every flag of `other` is set.
            pub const fn contains(self, other: $name) -> bool {
                self.bits & other.bits == other.bits
            }

            /// The union (the longer encoding of the two).
            #[must_use]
            pub const fn union(self, other: $name) -> $name {
                $name {
                    bits: self.bits | other.bits,
                    octets: if self.octets > other.octets { self.octets } else { other.octets },
                }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::EMPTY
            }
        }

        impl core::ops::BitOr for $name {
            type Output = $name;
            fn bitor(self, other: $name) -> $name {
                self.union(other)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}(", stringify!($name))?;
                let mut first = true;
                for (n, flag) in Self::NAMED {
                    if self.contains(*flag) {
                        if !first {
                            f.write_str("|")?;
                        }
                        f.write_str(n)?;
                        first = false;
                    }
                }
                write!(f, "; {:#x}/{})", self.bits, self.octets)
            }
        }

        impl<'a> TypedIe<'a> for $name {
            const IE_TYPE: IeType = IeType::$code;
            /// At least the octets of the release this crate follows; octets past the last
            /// known one are ignored.
            fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
                parse_value(ie, |i| {
                    let (rest, octets) = crate::ie::value::take($min)(i)?;
                    let extra = rest.get(..($max - $min)).unwrap_or(rest);
                    let mut bits = 0u32;
                    for (k, &b) in octets.iter().chain(extra).enumerate() {
                        bits |= u32::from(b) << (8 * k);
                    }
                    Ok((&[][..], $name { bits, octets: ($min + extra.len()) as u8 }))
                })
            }
            fn value_len(&self) -> usize {
                usize::from(self.octets)
            }
            fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                let b = self.bits.to_le_bytes();
                let n = usize::from(self.octets);
                let fits = n >= 4 || self.bits >> (8 * n) == 0;
                if !($min..=4).contains(&n) || !fits {
                    return Err(EncodeError::InvalidValue(concat!(
                        stringify!($name), ": flags beyond its octet count"
                    )));
                }
                out.put(b.get(..n).unwrap_or_default())
            }
        }

        crate::encode::impl_encode!($name);
    };
}

flags_ie!(
    /// Apply Action (type 44, clause 8.2.26): what a FAR does with the packets.
    ApplyAction, APPLY_ACTION, min 1, encode 1, max 2, [
        /// Drop.
        DROP = 5:1;
        /// Forward.
        FORW = 5:2;
        /// Buffer.
        BUFF = 5:3;
        /// Notify the CP function (of the first buffered downlink packet).
        NOCP = 5:4;
        /// Duplicate (lawful interception).
        DUPL = 5:5;
        /// IP multicast accept.
        IPMA = 5:6;
        /// IP multicast deny.
        IPMD = 5:7;
        /// Duplicate for redundant transmission.
        DFRT = 5:8;
        /// Eliminate duplicate packets for redundant transmission.
        EDRT = 6:1;
        /// Buffered downlink packet notification.
        BDPN = 6:2;
        /// Discarded downlink packet notification.
        DDPN = 6:3;
        /// Forward and replicate MBS data using the local tunnel.
        FSSM = 6:4;
        /// Forward and replicate MBS data using unicast transport.
        MBSU = 6:5;
    ]
);

flags_ie!(
    /// Measurement Method (type 62, clause 8.2.40): what a URR measures.
    MeasurementMethod, MEASUREMENT_METHOD, min 1, encode 1, max 1, [
        /// Duration.
        DURAT = 5:1;
        /// Volume.
        VOLUM = 5:2;
        /// Events.
        EVENT = 5:3;
    ]
);

flags_ie!(
    /// Reporting Triggers (type 37, clause 8.2.19): when a URR reports.
    ReportingTriggers, REPORTING_TRIGGERS, min 2, encode 2, max 3, [
        /// Periodic reporting.
        PERIO = 5:1;
        /// Volume threshold reached.
        VOLTH = 5:2;
        /// Time threshold reached.
        TIMTH = 5:3;
        /// Quota holding time.
        QUHTI = 5:4;
        /// Start of traffic.
        START = 5:5;
        /// Stop of traffic.
        STOPT = 5:6;
        /// Dropped downlink traffic threshold.
        DROTH = 5:7;
        /// Linked usage reporting.
        LIUSA = 5:8;
        /// Volume quota exhausted.
        VOLQU = 6:1;
        /// Time quota exhausted.
        TIMQU = 6:2;
        /// Envelope closure.
        ENVCL = 6:3;
        /// MAC addresses reporting.
        MACAR = 6:4;
        /// Event threshold reached.
        EVETH = 6:5;
        /// Event quota reached.
        EVEQU = 6:6;
        /// IP multicast join/leave.
        IPMJL = 6:7;
        /// Quota validity time.
        QUVTI = 6:8;
        /// Report the end marker reception.
        REEMR = 7:1;
        /// User plane inactivity timer.
        UPINT = 7:2;
    ]
);

flags_ie!(
    /// Usage Report Trigger (type 63, clause 8.2.41): why a usage report was sent. Octets 5
    /// and 6 exist since Release 15, so at least those two are written (a 1-octet IE, which
    /// some peers send, is still read); scapy's Release-15 decoder desynchronises on one.
    UsageReportTrigger, USAGE_REPORT_TRIGGER, min 1, encode 2, max 3, [
        /// Periodic reporting.
        PERIO = 5:1;
        /// Volume threshold reached.
        VOLTH = 5:2;
        /// Time threshold reached.
        TIMTH = 5:3;
        /// Quota holding time.
        QUHTI = 5:4;
        /// Start of traffic.
        START = 5:5;
        /// Stop of traffic.
        STOPT = 5:6;
        /// Dropped downlink traffic threshold.
        DROTH = 5:7;
        /// Immediate report (query).
        IMMER = 5:8;
        /// Volume quota exhausted.
        VOLQU = 6:1;
        /// Time quota exhausted.
        TIMQU = 6:2;
        /// Linked usage reporting.
        LIUSA = 6:3;
        /// Termination report.
        TERMR = 6:4;
        /// Monitoring time.
        MONIT = 6:5;
        /// Envelope closure.
        ENVCL = 6:6;
        /// MAC addresses reporting.
        MACAR = 6:7;
        /// Event threshold reached.
        EVETH = 6:8;
        /// Event quota reached.
        EVEQU = 7:1;
        /// Termination by UP function report.
        TEBUR = 7:2;
        /// IP multicast join/leave.
        IPMJL = 7:3;
        /// Quota validity time.
        QUVTI = 7:4;
        /// Report the end marker reception.
        EMRRE = 7:5;
        /// User plane inactivity timer.
        UPINT = 7:6;
    ]
);

flags_ie!(
    /// Report Type (type 39, clause 8.2.21): what a Session Report Request reports.
    ReportType, REPORT_TYPE, min 1, encode 1, max 1, [
        /// Downlink Data Report.
        DLDR = 5:1;
        /// Usage Report.
        USAR = 5:2;
        /// Error Indication Report.
        ERIR = 5:3;
        /// User Plane Inactivity Report.
        UPIR = 5:4;
        /// TSC Management Information Report.
        TMIR = 5:5;
        /// Session Report.
        SESR = 5:6;
        /// UP Initiated Session Request.
        UISR = 5:7;
    ]
);

/// Gate Status (type 25, clause 8.2.7): uplink gate in bits 4-3, downlink gate in bits 2-1 of
/// octet 5; 0 is OPEN, 1 CLOSED (2 and 3 are spare and kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct GateStatus(pub u8);

impl GateStatus {
    /// Both gates open.
    pub const OPEN: GateStatus = GateStatus(0);
    /// Both gates closed.
    pub const CLOSED: GateStatus = GateStatus(0x05);

    /// The status with the given gates (`true`: open).
    pub const fn new(ul_open: bool, dl_open: bool) -> GateStatus {
        GateStatus(if ul_open { 0 } else { 0x04 } | if dl_open { 0 } else { 0x01 })
    }

    /// The uplink gate code (0 OPEN, 1 CLOSED).
    pub const fn ul(self) -> u8 {
        (self.0 >> 2) & 0x03
    }

    /// The downlink gate code (0 OPEN, 1 CLOSED).
    pub const fn dl(self) -> u8 {
        self.0 & 0x03
    }
}

impl<'a> TypedIe<'a> for GateStatus {
    const IE_TYPE: IeType = IeType::GATE_STATUS;
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        parse_value(ie, u8_).map(|b| GateStatus(b & 0x0f))
    }
    fn value_len(&self) -> usize {
        1
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&[self.0 & 0x0f])
    }
}

/// Outer Header Removal (type 95, clause 8.2.64): which outer header the UP function removes,
/// and (octet 6, optional) which GTP-U extension headers it deletes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OuterHeaderRemoval {
    /// Outer Header Removal Description (octet 5).
    pub description: u8,
    /// GTP-U Extension Header Deletion (octet 6): bit 1, the PDU Session Container.
    pub extension_header_deletion: Option<u8>,
}

impl OuterHeaderRemoval {
    /// 0: GTP-U/UDP/IPv4.
    pub const GTP_U_UDP_IPV4: u8 = 0;
    /// 1: GTP-U/UDP/IPv6.
    pub const GTP_U_UDP_IPV6: u8 = 1;
    /// 2: UDP/IPv4.
    pub const UDP_IPV4: u8 = 2;
    /// 3: UDP/IPv6.
    pub const UDP_IPV6: u8 = 3;
    /// 4: IPv4.
    pub const IPV4: u8 = 4;
    /// 5: IPv6.
    pub const IPV6: u8 = 5;
    /// 6: GTP-U/UDP/IP (either version).
    pub const GTP_U_UDP_IP: u8 = 6;
    /// 7: VLAN S-TAG.
    pub const VLAN_S_TAG: u8 = 7;
    /// 8: S-TAG and C-TAG.
    pub const S_TAG_AND_C_TAG: u8 = 8;

    /// Remove the header `description` (no extension header deletion octet).
    pub const fn new(description: u8) -> OuterHeaderRemoval {
        OuterHeaderRemoval {
            description,
            extension_header_deletion: None,
        }
    }
}

impl<'a> TypedIe<'a> for OuterHeaderRemoval {
    const IE_TYPE: IeType = IeType::OUTER_HEADER_REMOVAL;
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        parse_value(ie, |i| {
            let (i, description) = u8_(i)?;
            let (i, extension_header_deletion) = nom::combinator::opt(u8_)(i)?;
            Ok((
                i,
                OuterHeaderRemoval {
                    description,
                    extension_header_deletion,
                },
            ))
        })
    }
    fn value_len(&self) -> usize {
        1 + usize::from(self.extension_header_deletion.is_some())
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        match self.extension_header_deletion {
            Some(e) => out.put(&[self.description, e]),
            None => out.put(&[self.description]),
        }
    }
}

crate::encode::impl_encode!(GateStatus, OuterHeaderRemoval);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::Encode;
    use crate::ie::IeIter;

    fn first(b: &[u8]) -> RawIe<'_> {
        IeIter::new(b, 0).next().unwrap().unwrap()
    }

    fn encoded<E: Encode>(e: &E) -> Vec<u8> {
        let mut v = Vec::new();
        e.encode(&mut v).unwrap();
        assert_eq!(v.len(), e.encoded_len());
        v
    }

    #[test]
    fn interfaces() {
        // Clause 8.2.2: Type 20, Length 1, spare | value 1 (Core).
        let b = [0x00, 0x14, 0x00, 0x01, 0x01];
        let s = first(&b).decode_as::<SourceInterface>().unwrap();
        assert_eq!(s, SourceInterface::CORE);
        assert_eq!(s.name(), Some("Core"));
        assert_eq!(encoded(&s), b);
        let b = [0x00, 0x2a, 0x00, 0x01, 0xf4];
        let d = first(&b).decode_as::<DestinationInterface>().unwrap();
        assert_eq!(d, DestinationInterface::LI_FUNCTION);
    }

    #[test]
    fn apply_action_lengths() {
        // Clause 8.2.26: FORW|NOCP in one octet (Rel-15), then BDPN in a second (Rel-16).
        let b = [0x00, 0x2c, 0x00, 0x01, 0x0a];
        let a = first(&b).decode_as::<ApplyAction>().unwrap();
        assert!(a.contains(ApplyAction::FORW) && a.contains(ApplyAction::NOCP));
        assert_eq!(a, ApplyAction::FORW | ApplyAction::NOCP);
        assert_eq!(encoded(&a), b);
        let b = [0x00, 0x2c, 0x00, 0x02, 0x04, 0x02];
        let a = first(&b).decode_as::<ApplyAction>().unwrap();
        assert_eq!(a, ApplyAction::BUFF | ApplyAction::BDPN);
        assert_eq!(encoded(&a), b);
        let bad = ApplyAction {
            bits: 0x100,
            octets: 1,
        };
        assert!(bad.encode(&mut Vec::new()).is_err());
    }

    #[test]
    fn triggers_and_report_type() {
        // Reporting Triggers, clause 8.2.19: VOLTH|TIMTH, then VOLQU.
        let b = [0x00, 0x25, 0x00, 0x02, 0x06, 0x01];
        let t = first(&b).decode_as::<ReportingTriggers>().unwrap();
        assert_eq!(
            t,
            ReportingTriggers::VOLTH | ReportingTriggers::TIMTH | ReportingTriggers::VOLQU
        );
        assert_eq!(encoded(&t), b);
        let short = [0x00, 0x25, 0x00, 0x01, 0x06];
        assert!(first(&short).decode_as::<ReportingTriggers>().is_err());
        // Usage Report Trigger, clause 8.2.41: 3 octets, TERMR in octet 6.
        let b = [0x00, 0x3f, 0x00, 0x03, 0x00, 0x08, 0x00];
        let t = first(&b).decode_as::<UsageReportTrigger>().unwrap();
        assert!(t.contains(UsageReportTrigger::TERMR));
        assert_eq!(encoded(&t), b);
        // Report Type, clause 8.2.21: USAR.
        let b = [0x00, 0x27, 0x00, 0x01, 0x02];
        assert_eq!(
            first(&b).decode_as::<ReportType>().unwrap(),
            ReportType::USAR
        );
    }

    #[test]
    fn gate_status_and_removal() {
        // Clause 8.2.7: UL open, DL closed.
        let b = [0x00, 0x19, 0x00, 0x01, 0x01];
        let g = first(&b).decode_as::<GateStatus>().unwrap();
        assert_eq!((g.ul(), g.dl()), (0, 1));
        assert_eq!(g, GateStatus::new(true, false));
        // Clause 8.2.64: GTP-U/UDP/IPv4, with the PDU Session Container deletion octet.
        let b = [0x00, 0x5f, 0x00, 0x02, 0x00, 0x01];
        let r = first(&b).decode_as::<OuterHeaderRemoval>().unwrap();
        assert_eq!(r.description, OuterHeaderRemoval::GTP_U_UDP_IPV4);
        assert_eq!(r.extension_header_deletion, Some(1));
        assert_eq!(encoded(&r), b);
    }
}
