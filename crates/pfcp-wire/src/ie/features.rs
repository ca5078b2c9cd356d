//! CP Function Features (type 89, clause 8.2.58) and UP Function Features (type 43, clause
//! 8.2.25): bitmaps that later releases extend. Every received octet is kept (unknown bits
//! included) so a message re-encodes byte-exact.

use core::fmt;

use crate::encode::Sink;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::ie::{IeType, RawIe, TypedIe};

/// Longest feature bitmap kept (Release 19 UP Function Features use 12 octets).
pub const MAX_FEATURE_OCTETS: usize = 32;

/// One feature bit: `octet` numbered as in the spec (5 is the first value octet), `bit` 1..=8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Feature {
    /// Spec octet number (5 = first octet of the IE value).
    pub octet: u8,
    /// Bit 1 (least significant) to 8.
    pub bit: u8,
    /// Spec abbreviation, e.g. `"OVRL"`.
    pub name: &'static str,
}

impl Feature {
    const fn index(self) -> (usize, u8) {
        (
            (self.octet as usize).saturating_sub(5),
            1u8 << ((self.bit.saturating_sub(1)) & 7),
        )
    }
}

macro_rules! features {
    ($owner:ident, $all:ident; $( $konst:ident $octet:literal / $bit:literal $name:literal $doc:literal; )*) => {
        impl $owner {
            $(
                #[doc = concat!($doc, " (octet ", stringify!($octet), " bit ", stringify!($bit), ").")]
                pub const $konst: Feature = Feature { octet: $octet, bit: $bit, name: $name };
            )*
            /// Every feature bit this crate names, in spec order.
            pub const $all: &'static [Feature] = &[ $( Self::$konst, )* ];
        }
    };
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Bits {
    len: u8,
    bytes: [u8; MAX_FEATURE_OCTETS],
}

impl Bits {
    const EMPTY: Bits = Bits {
        len: 0,
        bytes: [0; MAX_FEATURE_OCTETS],
    };

    fn decode(ie: &RawIe<'_>) -> Result<Bits, DecodeError> {
        let v = ie.value();
        if v.is_empty() {
            return Err(ie.error(DecodeErrorKind::IeTooShort {
                needed: 1,
                length: 0,
            }));
        }
        let mut bits = Bits::EMPTY;
        let dst = bits.bytes.get_mut(..v.len()).ok_or_else(|| {
            ie.error(DecodeErrorKind::InvalidValue(
                "feature bitmap longer than 32 octets",
            ))
        })?;
        dst.copy_from_slice(v);
        bits.len = v.len() as u8;
        Ok(bits)
    }

    fn as_slice(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or_default()
    }

    fn contains(&self, f: Feature) -> bool {
        let (i, mask) = f.index();
        self.as_slice().get(i).is_some_and(|b| b & mask != 0)
    }

    fn set(&mut self, f: Feature, min_len: usize) {
        let (i, mask) = f.index();
        let need = (i + 1).max(min_len).min(MAX_FEATURE_OCTETS);
        if usize::from(self.len) < need {
            self.len = need as u8;
        }
        if let Some(b) = self.bytes.get_mut(i) {
            *b |= mask;
        }
    }

    fn fmt_names(&self, f: &mut fmt::Formatter<'_>, table: &[Feature]) -> fmt::Result {
        let mut first = true;
        for feat in table.iter().filter(|x| self.contains(**x)) {
            if !first {
                f.write_str("|")?;
            }
            first = false;
            f.write_str(feat.name)?;
        }
        Ok(())
    }
}

/// CP Function Features (type 89). LOAD and OVRL tell a UP function that this CP function
/// supports load and overload control (clause 6.2.3.2, 6.2.4.2): a UP sends LCI/OCI only then.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CpFunctionFeatures(Bits);

/// UP Function Features (type 43). Two octets per "Supported-Features" field; missing octets
/// read as 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UpFunctionFeatures(Bits);

features! { CpFunctionFeatures, ALL;
    LOAD 5/1 "LOAD" "Load Control";
    OVRL 5/2 "OVRL" "Overload Control";
    EPFAR 5/3 "EPFAR" "Enhanced PFCP Association Release";
    SSET 5/4 "SSET" "SMF set";
    BUNDL 5/5 "BUNDL" "PFCP message bundling";
    MPAS 5/6 "MPAS" "Multiple PFCP associations from an SMF set";
    ARDR 5/7 "ARDR" "Additional Usage Reports in Session Deletion Response";
    UIAUR 5/8 "UIAUR" "UE IP address usage reporting";
    PSUCC 6/1 "PSUCC" "Partial success of session establishment or modification";
    RPGUR 6/2 "RPGUR" "Peer GTP-U entity restart reporting";
    PAPFD 6/3 "PAPFD" "Partial acceptance of PFD provisioning (Release 19)";
}

features! { UpFunctionFeatures, ALL;
    BUCP 5/1 "BUCP" "Downlink data buffering in CP function";
    DDND 5/2 "DDND" "Downlink Data Notification Delay";
    DLBD 5/3 "DLBD" "DL Buffering Duration";
    TRST 5/4 "TRST" "Traffic Steering";
    FTUP 5/5 "FTUP" "F-TEID allocation in the UP function";
    PFDM 5/6 "PFDM" "PFD Management procedure";
    HEEU 5/7 "HEEU" "Header Enrichment of uplink traffic";
    TREU 5/8 "TREU" "Traffic Redirection Enforcement";
    EMPU 6/1 "EMPU" "Sending of End Marker packets";
    PDIU 6/2 "PDIU" "PDI optimisation";
    UDBC 6/3 "UDBC" "UL/DL Buffering Control";
    QUOAC 6/4 "QUOAC" "Quota Action";
    TRACE 6/5 "TRACE" "Trace";
    FRRT 6/6 "FRRT" "Framed Routing";
    PFDE 6/7 "PFDE" "PFD contents with multiple values";
    EPFAR 6/8 "EPFAR" "Enhanced PFCP Association Release";
    DPDRA 7/1 "DPDRA" "Deferred PDR activation or deactivation";
    ADPDP 7/2 "ADPDP" "Activation and deactivation of pre-defined PDRs";
    UEIP 7/3 "UEIP" "UE IP address allocation in the UP function";
    SSET 7/4 "SSET" "SMF set";
    MNOP 7/5 "MNOP" "Number of packets in usage report";
    MTE 7/6 "MTE" "Multiple instances of Traffic Endpoint IDs in a PDI";
    BUNDL 7/7 "BUNDL" "PFCP message bundling";
    GCOM 7/8 "GCOM" "5G VN group communication";
    MPAS 8/1 "MPAS" "Multiple PFCP associations to the SMFs of an SMF set";
    RTTL 8/2 "RTTL" "Redundant transmission at transport layer";
    VTIME 8/3 "VTIME" "Quota validity time";
    NORP 8/4 "NORP" "Number of reports";
    IPTV 8/5 "IPTV" "IPTV service (IGMP/MLD)";
    IP6PL 8/6 "IP6PL" "UE IPv6 address(es) allocation with a prefix length other than 64";
    TSCU 8/7 "TSCU" "Time Sensitive Communication";
    MPTCP 8/8 "MPTCP" "MPTCP Proxy";
    ATSSSLL 9/1 "ATSSS-LL" "ATSSS-LL steering functionality";
    QFQM 9/2 "QFQM" "Per QoS flow per UE QoS monitoring";
    GPQM 9/3 "GPQM" "Per GTP-U path QoS monitoring";
    MTEDT 9/4 "MT-EDT" "MT-EDT";
    CIOT 9/5 "CIOT" "CIoT optimisations";
    ETHAR 9/6 "ETHAR" "Ethernet PDU session anchor relocation";
    DDDS 9/7 "DDDS" "Reporting the first buffered / discarded DL packet";
    RDS 9/8 "RDS" "Reliable Data Service";
    RTTWP 10/1 "RTTWP" "RTT measurements towards the UE without PMF";
    QUASF 10/2 "QUASF" "Usage reports for QoS flows (ATSSS)";
    NSPOC 10/3 "NSPOC" "Notifying start of pause of charging";
    L2TP 10/4 "L2TP" "L2TP";
    UPBER 10/5 "UPBER" "Uplink packet buffering during EAS relocation";
    RESPS 10/6 "RESPS" "Restoration of PFCP sessions for SGW-U/PGW-U failure";
    IPREP 10/7 "IPREP" "IP address and port number replacement";
    DNSTS 10/8 "DNSTS" "DNS traffic steering";
    DRQOS 11/1 "DRQOS" "Direct reporting of QoS monitoring events";
    MBSN4 11/2 "MBSN4" "MBS N4 sessions";
    PSUPRM 11/3 "PSUPRM" "Per slice UP resource management";
    EPPPI 11/4 "EPPPI" "Enforcement of PPI";
    RATP 11/5 "RATP" "Redirection of allowed traffic";
    UPIDP 11/6 "UPIDP" "UE IP address and port range data";
    AFSFC 11/7 "AFSFC" "Release 18+ feature AFSFC (clause 8.2.25)";
    MPQUICUDP 11/8 "MPQUIC-UDP" "Release 18+ feature MPQUIC-UDP (clause 8.2.25)";
    REDSM 12/1 "REDSM" "Release 18+ feature REDSM (clause 8.2.25)";
    DBDM 12/2 "DBDM" "Release 18+ feature DBDM (clause 8.2.25)";
    TSCTS 12/3 "TSCTS" "Release 18+ feature TSCTS (clause 8.2.25)";
    DRTSC 12/4 "DRTSC" "Release 18+ feature DRTSC (clause 8.2.25)";
    N6JEDB 12/5 "N6JEDB" "Release 18+ feature N6JEDB (clause 8.2.25)";
    QMCON 12/6 "QMCON" "Release 18+ feature QMCON (clause 8.2.25)";
    DETNET 12/7 "DETNET" "Release 18+ feature DETNET (clause 8.2.25)";
    EML4S 12/8 "EML4S" "Release 18+ feature EML4S (clause 8.2.25)";
    PDUSM 13/1 "PDUSM" "Release 18+ feature PDUSM (clause 8.2.25)";
    CNTL 13/2 "CN-TL" "Release 18+ feature CN-TL (clause 8.2.25)";
    QMDRM 13/3 "QMDRM" "Release 18+ feature QMDRM (clause 8.2.25)";
    EDBNC 13/4 "EDBNC" "Release 18+ feature EDBNC (clause 8.2.25)";
    MTSDT 13/5 "MT-SDT" "Release 18+ feature MT-SDT (clause 8.2.25)";
    UPSBIES 13/6 "UPSBIES" "Release 18+ feature UPSBIES (clause 8.2.25)";
    UMN6IP 13/7 "UMN6IP" "Release 18+ feature UMN6IP (clause 8.2.25)";
    UN6TU 13/8 "UN6TU" "Release 18+ feature UN6TU (clause 8.2.25)";
    MBSCH 14/1 "MBSCH" "Release 18+ feature MBSCH (clause 8.2.25)";
    ULM 15/3 "ULM" "Release 18 feature ULM (clause 8.2.25)";
}

macro_rules! features_impl {
    ($owner:ident, $ie:ident, $min:literal) => {
        impl $owner {
            /// No feature set: one all-zero field.
            pub const fn empty() -> Self {
                let mut bits = Bits::EMPTY;
                bits.len = $min;
                $owner(bits)
            }

            /// The bitmap from raw octets (octet 5 first); `None` if empty or longer than
            /// [`MAX_FEATURE_OCTETS`].
            pub fn from_octets(octets: &[u8]) -> Option<Self> {
                if octets.is_empty() {
                    return None;
                }
                let mut bits = Bits::EMPTY;
                bits.bytes.get_mut(..octets.len())?.copy_from_slice(octets);
                bits.len = octets.len() as u8;
                Some($owner(bits))
            }

            /// Whether `feature` is set (missing octets read as 0).
            pub fn contains(&self, feature: Feature) -> bool {
                self.0.contains(feature)
            }

            /// With `feature` set (extends the bitmap if needed).
            #[must_use]
            pub fn with(mut self, feature: Feature) -> Self {
                self.0.set(feature, $min);
                self
            }

            /// The octets as received or to be sent, unknown bits included.
            pub fn octets(&self) -> &[u8] {
                self.0.as_slice()
            }

            /// The named features that are set.
            pub fn iter(&self) -> impl Iterator<Item = Feature> + '_ {
                Self::ALL.iter().copied().filter(|f| self.contains(*f))
            }
        }

        impl Default for $owner {
            fn default() -> Self {
                Self::empty()
            }
        }

        impl fmt::Debug for $owner {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}(", stringify!($owner))?;
                self.0.fmt_names(f, Self::ALL)?;
                f.write_str(")")
            }
        }

        impl<'a> TypedIe<'a> for $owner {
            const IE_TYPE: IeType = IeType::$ie;
            fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
                Bits::decode(ie).map($owner)
            }
            fn value_len(&self) -> usize {
                usize::from(self.0.len)
            }
            fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
                out.put(self.0.as_slice())
            }
        }
    };
}

features_impl!(CpFunctionFeatures, CP_FUNCTION_FEATURES, 1);
features_impl!(UpFunctionFeatures, UP_FUNCTION_FEATURES, 2);

crate::encode::impl_encode!(CpFunctionFeatures, UpFunctionFeatures);

/// The serde form of a features bitmap: `{"features": ["BUCP", ...], "octets": "0211"}`, the
/// named features set (in bit order) and the octets as sent, unknown bits included. Reading
/// takes `octets` when present, else sets the named `features` in the shortest bitmap.
#[cfg(feature = "serde")]
mod features_serde {
    use serde::ser::SerializeStruct;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{CpFunctionFeatures, UpFunctionFeatures};

    #[derive(Deserialize)]
    #[serde(rename = "Features")]
    struct Form {
        #[serde(default)]
        features: Vec<String>,
        #[serde(default)]
        octets: Option<String>,
    }

    macro_rules! features_serde {
        ($($owner:ident),*) => {$(
            impl Serialize for $owner {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    struct Names<'a>(&'a $owner);
                    impl Serialize for Names<'_> {
                        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                            s.collect_seq(self.0.iter().map(|f| f.name))
                        }
                    }
                    struct Octets<'a>(&'a [u8]);
                    impl Serialize for Octets<'_> {
                        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                            crate::owned::hex_serde::serialize(self.0, s)
                        }
                    }
                    let mut st = s.serialize_struct(stringify!($owner), 2)?;
                    st.serialize_field("features", &Names(self))?;
                    st.serialize_field("octets", &Octets(self.octets()))?;
                    st.end()
                }
            }

            impl<'de> Deserialize<'de> for $owner {
                fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$owner, D::Error> {
                    use serde::de::Error;
                    let form = Form::deserialize(d)?;
                    if let Some(hex) = form.octets {
                        let octets = crate::owned::parse_hex(&hex)
                            .ok_or_else(|| D::Error::custom("octets: invalid hex string"))?;
                        return $owner::from_octets(&octets).ok_or_else(|| {
                            D::Error::custom("octets: empty or longer than the bitmap")
                        });
                    }
                    let mut out = $owner::empty();
                    for name in &form.features {
                        let f = $owner::ALL
                            .iter()
                            .find(|f| f.name == name)
                            .ok_or_else(|| D::Error::custom(format!("unknown feature {name}")))?;
                        out = out.with(*f);
                    }
                    Ok(out)
                }
            }
        )*};
    }

    features_serde!(CpFunctionFeatures, UpFunctionFeatures);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::Encode;
    use crate::ie::IeIter;

    #[test]
    fn load_and_ovrl_are_the_low_bits_of_octet_5() {
        // Digest 4.11: CP Function Features with LOAD|OVRL = 0x03.
        let b = [0x00, 0x59, 0x00, 0x01, 0x03];
        let ie = IeIter::new(&b, 0).next().unwrap().unwrap();
        let f: CpFunctionFeatures = ie.decode_as().unwrap();
        assert!(f.contains(CpFunctionFeatures::LOAD));
        assert!(f.contains(CpFunctionFeatures::OVRL));
        assert!(!f.contains(CpFunctionFeatures::BUNDL));
        assert!(!f.contains(CpFunctionFeatures::PSUCC));
        let built = CpFunctionFeatures::empty()
            .with(CpFunctionFeatures::LOAD)
            .with(CpFunctionFeatures::OVRL);
        let mut v = Vec::new();
        built.encode(&mut v).unwrap();
        assert_eq!(v, b);
    }

    #[test]
    fn unknown_bits_are_kept() {
        let f = UpFunctionFeatures::from_octets(&[0x00, 0x00, 0x40, 0x00, 0xff, 0xff]).unwrap();
        assert!(f.contains(UpFunctionFeatures::BUNDL));
        assert_eq!(f.octets(), &[0x00, 0x00, 0x40, 0x00, 0xff, 0xff]);
        assert!(!f.contains(UpFunctionFeatures::UPIDP));
        assert_eq!(UpFunctionFeatures::empty().octets(), &[0, 0]);
        assert_eq!(
            UpFunctionFeatures::empty()
                .with(UpFunctionFeatures::RATP)
                .octets()
                .len(),
            7
        );
    }
}
