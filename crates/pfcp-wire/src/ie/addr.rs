//! The flag-dependent address IEs: F-TEID (type 21, clause 8.2.3), UE IP Address (type 93,
//! clause 8.2.62) and Outer Header Creation (type 84, clause 8.2.56).
//!
//! ```text
//! F-TEID     octet 5: spare | CHID | CH | V6 | V4
//!            CH=0: TEID (4), IPv4 (4) if V4, IPv6 (16) if V6     CH=1: Choose ID (1) if CHID
//! UE IP      octet 5: spare | IP6PL | CHV6 | CHV4 | IPv6D | S/D | V4 | V6
//!            IPv4 (4) if V4, IPv6 (16) if V6, Prefix Delegation Bits (1) if IPv6D,
//!            Prefix Length (1) if IP6PL
//! OHC        octets 5-6: description; TEID if GTP-U; IPv4 if an IPv4 kind; IPv6 if an IPv6
//!            kind; Port if UDP; C-TAG (3) if C-TAG; S-TAG (3) if S-TAG
//! ```

use std::net::{Ipv4Addr, Ipv6Addr};

use nom::combinator::cond;

use crate::encode::Sink;
use crate::error::{DecodeError, EncodeError};
use crate::ie::value::{array, be_u16, be_u32, invalid, ipv4, ipv6, parse_value, u8_};
use crate::ie::{IeType, RawIe, TypedIe};

const V4: u8 = 0x01;
const V6: u8 = 0x02;
const CH: u8 = 0x04;
const CHID: u8 = 0x08;

/// F-TEID: a GTP-U tunnel endpoint, or the request that the UP function allocate one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum FTeid {
    /// CH=0: the TEID and the address(es) of the endpoint.
    Assigned {
        /// The TEID.
        teid: u32,
        /// The IPv4 address (V4).
        ipv4: Option<Ipv4Addr>,
        /// The IPv6 address (V6).
        ipv6: Option<Ipv6Addr>,
    },
    /// CH=1: the UP function chooses the TEID and address (clause 5.5.3).
    Choose {
        /// An IPv4 address is wanted (V4).
        ipv4: bool,
        /// An IPv6 address is wanted (V6).
        ipv6: bool,
        /// CHID: PDRs with the same Choose ID share one F-TEID.
        choose_id: Option<u8>,
    },
}

impl FTeid {
    /// An IPv4 endpoint.
    pub const fn ipv4(teid: u32, addr: Ipv4Addr) -> FTeid {
        FTeid::Assigned {
            teid,
            ipv4: Some(addr),
            ipv6: None,
        }
    }

    /// An IPv6 endpoint.
    pub const fn ipv6(teid: u32, addr: Ipv6Addr) -> FTeid {
        FTeid::Assigned {
            teid,
            ipv4: None,
            ipv6: Some(addr),
        }
    }

    /// Ask the UP function to choose an IPv4 endpoint (CH=1, V4=1), optionally shared by the
    /// PDRs with the same Choose ID.
    pub const fn choose_ipv4(choose_id: Option<u8>) -> FTeid {
        FTeid::Choose {
            ipv4: true,
            ipv6: false,
            choose_id,
        }
    }

    /// The TEID, if assigned.
    pub const fn teid(&self) -> Option<u32> {
        match self {
            FTeid::Assigned { teid, .. } => Some(*teid),
            FTeid::Choose { .. } => None,
        }
    }

    fn flags(&self) -> u8 {
        match self {
            FTeid::Assigned { ipv4, ipv6, .. } => {
                (if ipv4.is_some() { V4 } else { 0 }) | (if ipv6.is_some() { V6 } else { 0 })
            }
            FTeid::Choose {
                ipv4,
                ipv6,
                choose_id,
            } => {
                CH | (if *ipv4 { V4 } else { 0 })
                    | (if *ipv6 { V6 } else { 0 })
                    | (if choose_id.is_some() { CHID } else { 0 })
            }
        }
    }
}

impl<'a> TypedIe<'a> for FTeid {
    const IE_TYPE: IeType = IeType::F_TEID;

    /// At least one of V4 and V6 must be set; CHID only with CH (clause 8.2.3).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        parse_value(ie, |i| {
            let (i, flags) = u8_(i)?;
            if flags & (V4 | V6) == 0 {
                return invalid(i, "F-TEID with neither V4 nor V6 set");
            }
            if flags & CH != 0 {
                let (i, choose_id) = cond(flags & CHID != 0, u8_)(i)?;
                return Ok((
                    i,
                    FTeid::Choose {
                        ipv4: flags & V4 != 0,
                        ipv6: flags & V6 != 0,
                        choose_id,
                    },
                ));
            }
            if flags & CHID != 0 {
                return invalid(i, "F-TEID with CHID but not CH");
            }
            let (i, teid) = be_u32(i)?;
            let (i, ipv4) = cond(flags & V4 != 0, ipv4)(i)?;
            let (i, ipv6) = cond(flags & V6 != 0, ipv6)(i)?;
            Ok((i, FTeid::Assigned { teid, ipv4, ipv6 }))
        })
    }

    fn value_len(&self) -> usize {
        match self {
            FTeid::Assigned { ipv4, ipv6, .. } => {
                5 + ipv4.map_or(0, |_| 4) + ipv6.map_or(0, |_| 16)
            }
            FTeid::Choose { choose_id, .. } => 1 + usize::from(choose_id.is_some()),
        }
    }

    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        let flags = self.flags();
        if flags & (V4 | V6) == 0 {
            return Err(EncodeError::InvalidValue("F-TEID needs IPv4 or IPv6"));
        }
        out.put(&[flags])?;
        match self {
            FTeid::Assigned { teid, ipv4, ipv6 } => {
                out.put(&teid.to_be_bytes())?;
                if let Some(a) = ipv4 {
                    out.put(&a.octets())?;
                }
                if let Some(a) = ipv6 {
                    out.put(&a.octets())?;
                }
                Ok(())
            }
            FTeid::Choose { choose_id, .. } => match choose_id {
                Some(id) => out.put(&[*id]),
                None => Ok(()),
            },
        }
    }
}

const UE_V6: u8 = 0x01;
const UE_V4: u8 = 0x02;
const UE_SD: u8 = 0x04;
const UE_V6D: u8 = 0x08;
const UE_CHV4: u8 = 0x10;
const UE_CHV6: u8 = 0x20;
const UE_IP6PL: u8 = 0x40;

/// UE IP Address: the UE's address or prefix a PDI matches, or the request that the UP
/// function allocate one (CHV4/CHV6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UeIpAddress {
    /// S/D: the address is the destination address (downlink) rather than the source.
    pub destination: bool,
    /// The IPv4 address (V4).
    pub ipv4: Option<Ipv4Addr>,
    /// The IPv6 address or prefix (V6).
    pub ipv6: Option<Ipv6Addr>,
    /// IPv6 Prefix Delegation Bits (IPv6D).
    pub ipv6_prefix_delegation_bits: Option<u8>,
    /// IPv6 Prefix Length (IP6PL).
    pub ipv6_prefix_length: Option<u8>,
    /// CHV4: the UP function shall allocate an IPv4 address.
    pub choose_ipv4: bool,
    /// CHV6: the UP function shall allocate an IPv6 prefix.
    pub choose_ipv6: bool,
}

impl UeIpAddress {
    /// A UE IPv4 address, as source (`destination` false: uplink PDI) or destination.
    pub const fn ipv4(addr: Ipv4Addr, destination: bool) -> UeIpAddress {
        UeIpAddress {
            destination,
            ipv4: Some(addr),
            ipv6: None,
            ipv6_prefix_delegation_bits: None,
            ipv6_prefix_length: None,
            choose_ipv4: false,
            choose_ipv6: false,
        }
    }

    fn flags(&self) -> u8 {
        let f = |b: bool, v: u8| if b { v } else { 0 };
        f(self.ipv6.is_some(), UE_V6)
            | f(self.ipv4.is_some(), UE_V4)
            | f(self.destination, UE_SD)
            | f(self.ipv6_prefix_delegation_bits.is_some(), UE_V6D)
            | f(self.choose_ipv4, UE_CHV4)
            | f(self.choose_ipv6, UE_CHV6)
            | f(self.ipv6_prefix_length.is_some(), UE_IP6PL)
    }
}

impl<'a> TypedIe<'a> for UeIpAddress {
    const IE_TYPE: IeType = IeType::UE_IP_ADDRESS;

    /// The fields the flags announce, in order (clause 8.2.62).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        parse_value(ie, |i| {
            let (i, flags) = u8_(i)?;
            let (i, ipv4) = cond(flags & UE_V4 != 0, ipv4)(i)?;
            let (i, ipv6) = cond(flags & UE_V6 != 0, ipv6)(i)?;
            let (i, ipv6_prefix_delegation_bits) = cond(flags & UE_V6D != 0, u8_)(i)?;
            let (i, ipv6_prefix_length) = cond(flags & UE_IP6PL != 0, u8_)(i)?;
            Ok((
                i,
                UeIpAddress {
                    destination: flags & UE_SD != 0,
                    ipv4,
                    ipv6,
                    ipv6_prefix_delegation_bits,
                    ipv6_prefix_length,
                    choose_ipv4: flags & UE_CHV4 != 0,
                    choose_ipv6: flags & UE_CHV6 != 0,
                },
            ))
        })
    }

    fn value_len(&self) -> usize {
        1 + self.ipv4.map_or(0, |_| 4)
            + self.ipv6.map_or(0, |_| 16)
            + usize::from(self.ipv6_prefix_delegation_bits.is_some())
            + usize::from(self.ipv6_prefix_length.is_some())
    }

    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&[self.flags()])?;
        if let Some(a) = self.ipv4 {
            out.put(&a.octets())?;
        }
        if let Some(a) = self.ipv6 {
            out.put(&a.octets())?;
        }
        if let Some(b) = self.ipv6_prefix_delegation_bits {
            out.put(&[b])?;
        }
        if let Some(b) = self.ipv6_prefix_length {
            out.put(&[b])?;
        }
        Ok(())
    }
}

/// Outer Header Creation: the outer header a FAR puts on forwarded packets (GTP-U tunnel,
/// UDP, IP, VLAN tags).
///
/// `description` is octets 5-6 (octet 5 in the high byte); the other fields are present
/// exactly when the description asks for them, which the decoder guarantees and the encoder
/// checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OuterHeaderCreation {
    /// Outer Header Creation Description (octets 5-6).
    pub description: u16,
    /// TEID (GTP-U kinds).
    pub teid: Option<u32>,
    /// IPv4 address (GTP-U/UDP/IPv4, UDP/IPv4, IPv4).
    pub ipv4: Option<Ipv4Addr>,
    /// IPv6 address (GTP-U/UDP/IPv6, UDP/IPv6, IPv6).
    pub ipv6: Option<Ipv6Addr>,
    /// UDP port (UDP kinds).
    pub port: Option<u16>,
    /// C-TAG (3 octets).
    pub c_tag: Option<[u8; 3]>,
    /// S-TAG (3 octets).
    pub s_tag: Option<[u8; 3]>,
}

impl OuterHeaderCreation {
    /// GTP-U/UDP/IPv4 (octet 5 bit 1).
    pub const GTP_U_UDP_IPV4: u16 = 0x0100;
    /// GTP-U/UDP/IPv6 (octet 5 bit 2).
    pub const GTP_U_UDP_IPV6: u16 = 0x0200;
    /// UDP/IPv4 (octet 5 bit 3).
    pub const UDP_IPV4: u16 = 0x0400;
    /// UDP/IPv6 (octet 5 bit 4).
    pub const UDP_IPV6: u16 = 0x0800;
    /// IPv4 (octet 5 bit 5).
    pub const IPV4: u16 = 0x1000;
    /// IPv6 (octet 5 bit 6).
    pub const IPV6: u16 = 0x2000;
    /// C-TAG (octet 5 bit 7).
    pub const C_TAG: u16 = 0x4000;
    /// S-TAG (octet 5 bit 8).
    pub const S_TAG: u16 = 0x8000;
    /// N19 Indication (octet 6 bit 1).
    pub const N19: u16 = 0x0001;
    /// N6 Indication (octet 6 bit 2).
    pub const N6: u16 = 0x0002;

    const HAS_TEID: u16 = Self::GTP_U_UDP_IPV4 | Self::GTP_U_UDP_IPV6;
    const HAS_V4: u16 = Self::GTP_U_UDP_IPV4 | Self::UDP_IPV4 | Self::IPV4;
    const HAS_V6: u16 = Self::GTP_U_UDP_IPV6 | Self::UDP_IPV6 | Self::IPV6;
    const HAS_PORT: u16 = Self::UDP_IPV4 | Self::UDP_IPV6;

    /// A GTP-U/UDP/IPv4 tunnel to `addr` with `teid`.
    pub const fn gtpu_ipv4(teid: u32, addr: Ipv4Addr) -> OuterHeaderCreation {
        OuterHeaderCreation {
            description: Self::GTP_U_UDP_IPV4,
            teid: Some(teid),
            ipv4: Some(addr),
            ipv6: None,
            port: None,
            c_tag: None,
            s_tag: None,
        }
    }

    /// A GTP-U/UDP/IPv6 tunnel to `addr` with `teid`.
    pub const fn gtpu_ipv6(teid: u32, addr: Ipv6Addr) -> OuterHeaderCreation {
        OuterHeaderCreation {
            description: Self::GTP_U_UDP_IPV6,
            teid: Some(teid),
            ipv4: None,
            ipv6: Some(addr),
            port: None,
            c_tag: None,
            s_tag: None,
        }
    }

    /// A UDP/IPv4 header to `addr`:`port`.
    pub const fn udp_ipv4(addr: Ipv4Addr, port: u16) -> OuterHeaderCreation {
        OuterHeaderCreation {
            description: Self::UDP_IPV4,
            teid: None,
            ipv4: Some(addr),
            ipv6: None,
            port: Some(port),
            c_tag: None,
            s_tag: None,
        }
    }

    fn wants(&self, kinds: u16) -> bool {
        self.description & kinds != 0
    }

    fn consistent(&self) -> bool {
        self.teid.is_some() == self.wants(Self::HAS_TEID)
            && self.ipv4.is_some() == self.wants(Self::HAS_V4)
            && self.ipv6.is_some() == self.wants(Self::HAS_V6)
            && self.port.is_some() == self.wants(Self::HAS_PORT)
            && self.c_tag.is_some() == self.wants(Self::C_TAG)
            && self.s_tag.is_some() == self.wants(Self::S_TAG)
    }
}

impl<'a> TypedIe<'a> for OuterHeaderCreation {
    const IE_TYPE: IeType = IeType::OUTER_HEADER_CREATION;

    /// The fields the description asks for, in order; a description asking for none is
    /// invalid (clause 8.2.56).
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        parse_value(ie, |i| {
            let (i, description) = be_u16(i)?;
            let w = |k: u16| description & k != 0;
            if description & 0xff00 == 0 {
                return invalid(i, "Outer Header Creation Description without a header kind");
            }
            let (i, teid) = cond(w(Self::HAS_TEID), be_u32)(i)?;
            let (i, ipv4) = cond(w(Self::HAS_V4), ipv4)(i)?;
            let (i, ipv6) = cond(w(Self::HAS_V6), ipv6)(i)?;
            let (i, port) = cond(w(Self::HAS_PORT), be_u16)(i)?;
            let (i, c_tag) = cond(w(Self::C_TAG), array::<3>)(i)?;
            let (i, s_tag) = cond(w(Self::S_TAG), array::<3>)(i)?;
            Ok((
                i,
                OuterHeaderCreation {
                    description,
                    teid,
                    ipv4,
                    ipv6,
                    port,
                    c_tag,
                    s_tag,
                },
            ))
        })
    }

    fn value_len(&self) -> usize {
        2 + self.teid.map_or(0, |_| 4)
            + self.ipv4.map_or(0, |_| 4)
            + self.ipv6.map_or(0, |_| 16)
            + self.port.map_or(0, |_| 2)
            + self.c_tag.map_or(0, |_| 3)
            + self.s_tag.map_or(0, |_| 3)
    }

    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        if !self.consistent() || self.description & 0xff00 == 0 {
            return Err(EncodeError::InvalidValue(
                "Outer Header Creation fields do not match its description",
            ));
        }
        out.put(&self.description.to_be_bytes())?;
        if let Some(t) = self.teid {
            out.put(&t.to_be_bytes())?;
        }
        if let Some(a) = self.ipv4 {
            out.put(&a.octets())?;
        }
        if let Some(a) = self.ipv6 {
            out.put(&a.octets())?;
        }
        if let Some(p) = self.port {
            out.put(&p.to_be_bytes())?;
        }
        if let Some(t) = self.c_tag {
            out.put(&t)?;
        }
        if let Some(t) = self.s_tag {
            out.put(&t)?;
        }
        Ok(())
    }
}

crate::encode::impl_encode!(FTeid, UeIpAddress, OuterHeaderCreation);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::Encode;
    use crate::error::DecodeErrorKind;
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
    fn f_teid_layouts() {
        // Clause 8.2.3: V4, TEID 0x0000_0001, 10.0.0.1.
        let b = [0x00, 0x15, 0x00, 0x09, 0x01, 0, 0, 0, 1, 10, 0, 0, 1];
        let f = first(&b).decode_as::<FTeid>().unwrap();
        assert_eq!(f, FTeid::ipv4(1, Ipv4Addr::new(10, 0, 0, 1)));
        assert_eq!(encoded(&f), b);
        // CH=1, CHID=1, V4: Choose ID 5, no TEID or address.
        let b = [0x00, 0x15, 0x00, 0x02, 0x0d, 0x05];
        let f = first(&b).decode_as::<FTeid>().unwrap();
        assert_eq!(f, FTeid::choose_ipv4(Some(5)));
        assert_eq!(f.teid(), None);
        assert_eq!(encoded(&f), b);
        // V4 and V6 announced, only the IPv4 address there.
        let b = [0x00, 0x15, 0x00, 0x09, 0x03, 0, 0, 0, 1, 10, 0, 0, 1];
        let e = first(&b).decode_as::<FTeid>().unwrap_err();
        assert_eq!(
            e.kind,
            DecodeErrorKind::IeTooShort {
                needed: 25,
                length: 9
            }
        );
        for bad in [
            [0x00, 0x15, 0x00, 0x01, 0x00],
            [0x00, 0x15, 0x00, 0x01, 0x09],
        ] {
            let e = first(&bad).decode_as::<FTeid>().unwrap_err();
            assert!(matches!(e.kind, DecodeErrorKind::InvalidValue(_)), "{e}");
        }
    }

    #[test]
    fn ue_ip_address_layouts() {
        // Clause 8.2.62: V4 with S/D (destination), 10.45.0.2.
        let b = [0x00, 0x5d, 0x00, 0x05, 0x06, 10, 45, 0, 2];
        let u = first(&b).decode_as::<UeIpAddress>().unwrap();
        assert_eq!(u, UeIpAddress::ipv4(Ipv4Addr::new(10, 45, 0, 2), true));
        assert_eq!(encoded(&u), b);
        // CHV4 alone: 1 octet.
        let b = [0x00, 0x5d, 0x00, 0x01, 0x10];
        let u = first(&b).decode_as::<UeIpAddress>().unwrap();
        assert!(u.choose_ipv4 && u.ipv4.is_none());
        assert_eq!(encoded(&u), b);
        // V6 + IP6PL: address then prefix length 64.
        let mut b = vec![0x00, 0x5d, 0x00, 0x12, 0x41];
        b.extend([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        b.push(64);
        let u = first(&b).decode_as::<UeIpAddress>().unwrap();
        assert_eq!(u.ipv6_prefix_length, Some(64));
        assert_eq!(encoded(&u), b);
    }

    #[test]
    fn outer_header_creation_layouts() {
        // Clause 8.2.56: GTP-U/UDP/IPv4, TEID 0x11, 192.0.2.9.
        let b = [
            0x00, 0x54, 0x00, 0x0a, 0x01, 0x00, 0, 0, 0, 0x11, 192, 0, 2, 9,
        ];
        let o = first(&b).decode_as::<OuterHeaderCreation>().unwrap();
        assert_eq!(
            o,
            OuterHeaderCreation::gtpu_ipv4(0x11, Ipv4Addr::new(192, 0, 2, 9))
        );
        assert_eq!(encoded(&o), b);
        // UDP/IPv4 with port 2152: no TEID.
        let b = [0x00, 0x54, 0x00, 0x08, 0x04, 0x00, 192, 0, 2, 9, 0x08, 0x68];
        let o = first(&b).decode_as::<OuterHeaderCreation>().unwrap();
        assert_eq!(
            o,
            OuterHeaderCreation::udp_ipv4(Ipv4Addr::new(192, 0, 2, 9), 2152)
        );
        assert_eq!(encoded(&o), b);
        let mut wrong = o;
        wrong.teid = Some(1);
        assert!(wrong.encode(&mut Vec::new()).is_err());
        let none = [0x00, 0x54, 0x00, 0x02, 0x00, 0x01];
        assert!(first(&none).decode_as::<OuterHeaderCreation>().is_err());
    }
}
