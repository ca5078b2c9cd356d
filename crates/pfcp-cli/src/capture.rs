//! PFCP datagrams out of pcap and pcapng captures: the files are read with `pcap-parser`, the
//! link, IP and UDP layers with `etherparse`.
//!
//! Link types: Ethernet (with VLAN tags), Linux cooked capture SLL and SLL2, raw IP (101, and
//! the platform values 12/14, 228, 229), BSD loopback/NULL and OpenBSD LOOP. IPv4 and IPv6.
//! Every UDP datagram with the PFCP port as source or destination port is handed on; IP
//! fragments and truncated frames are counted as unparsed. A datagram quoted inside an ICMP
//! error is not PFCP traffic that arrived, and is skipped (Wireshark shows it as PFCP).

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use etherparse::{EtherType, NetSlice, SlicedPacket, TransportSlice};
use pcap_parser::pcapng::Block;
use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::{LegacyPcapReader, Linktype, PcapBlockOwned, PcapError, PcapNGReader};

/// The registered PFCP port (TS 29.244 clause 7.2).
pub const PFCP_PORT: u16 = 8805;

const INITIAL_BUFFER: usize = 1 << 16;
/// Largest capture record accepted (a corrupt length field must not allocate gigabytes).
const MAX_BUFFER: usize = 1 << 22;

/// The first octets of a classic pcap file (both byte orders, micro- and nanosecond) or of a
/// pcapng Section Header Block.
pub fn is_capture(prefix: &[u8]) -> bool {
    matches!(
        prefix,
        [0xa1, 0xb2, 0xc3, 0xd4, ..]
            | [0xd4, 0xc3, 0xb2, 0xa1, ..]
            | [0xa1, 0xb2, 0x3c, 0x4d, ..]
            | [0x4d, 0x3c, 0xb2, 0xa1, ..]
            | [0x0a, 0x0d, 0x0d, 0x0a, ..]
    )
}

/// A UDP datagram found in a capture.
#[derive(Debug, Clone, Copy)]
pub struct UdpDatagram<'a> {
    /// 1-based frame number (as Wireshark counts).
    pub frame: u64,
    /// When the frame was captured, since the Unix epoch (`None` if the record's timestamp
    /// cannot be read: a pcapng interface with an invalid resolution).
    pub time: Option<Duration>,
    /// Source address and port.
    pub src: SocketAddr,
    /// Destination address and port.
    pub dst: SocketAddr,
    /// The UDP payload.
    pub payload: &'a [u8],
}

/// What a capture held besides the datagrams handed on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Frames (packet records) read.
    pub frames: u64,
    /// UDP datagrams to or from the port, handed to the callback.
    pub datagrams: u64,
    /// Frames whose link/IP/UDP layers could not be parsed (truncated, IP fragment, ...).
    pub unparsed: u64,
    /// Frames of a link type this reader does not handle.
    pub unsupported_link: u64,
    /// The other UDP datagrams, counted by the lower of their two ports (the service's port,
    /// as a rule): what a capture held when the port given finds nothing.
    pub other_ports: BTreeMap<u16, u64>,
}

impl CaptureStats {
    /// The `n` ports of [`CaptureStats::other_ports`] with the most datagrams, most first.
    pub fn busiest_other_ports(&self, n: usize) -> Vec<(u16, u64)> {
        let mut v: Vec<(u16, u64)> = self.other_ports.iter().map(|(p, c)| (*p, *c)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}

/// A pcapng interface: its link type and timestamp resolution (units per second, `None` if
/// invalid) and offset (seconds).
#[derive(Debug, Clone, Copy)]
struct Interface {
    link: Linktype,
    resolution: Option<u64>,
    offset: i64,
}

/// A pcapng timestamp (`units` of 1/`resolution` s, plus `offset` s) as a duration.
fn pcapng_time(units: u64, resolution: u64, offset: i64) -> Option<Duration> {
    let secs = units.checked_div(resolution)?;
    let frac = units.checked_rem(resolution)?;
    let nanos = u128::from(frac) * 1_000_000_000 / u128::from(resolution);
    let secs = secs.checked_add_signed(offset)?;
    Some(Duration::new(secs, u32::try_from(nanos).ok()?))
}

/// A capture that cannot be read to its end.
#[derive(Debug)]
pub enum CaptureError {
    /// The capture is corrupt or truncated after `frames` frames.
    Corrupt {
        /// Frames read before the problem.
        frames: u64,
        /// What pcap-parser reported.
        reason: String,
    },
    /// The callback failed (e.g. writing the output).
    Output(io::Error),
}

impl core::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CaptureError::Corrupt { frames, reason } => {
                write!(
                    f,
                    "corrupt or truncated capture after frame {frames}: {reason}"
                )
            }
            CaptureError::Output(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CaptureError {}

/// Wraps a reader so every `read` fills the buffer unless the input ends (pcap-parser reads
/// the file header with a single `read`, which a pipe may answer with a few octets only).
struct FillReader<R>(R);

impl<R: Read> Read for FillReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.0.read(buf.get_mut(n..).unwrap_or_default()) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }
}

fn pcap_err<I>(e: &PcapError<I>) -> String {
    match e {
        PcapError::Eof => "end of file".into(),
        PcapError::BufferTooSmall => format!("record larger than {MAX_BUFFER} octets"),
        PcapError::UnexpectedEof => "unexpected end of file".into(),
        PcapError::ReadError => "read error".into(),
        PcapError::Incomplete(_) => "incomplete record".into(),
        PcapError::HeaderNotRecognized => "header not recognized".into(),
        PcapError::NomError(_, k) | PcapError::OwnedNomError(_, k) => {
            format!("parse error ({k:?})")
        }
    }
}

/// Call `f` for every UDP datagram of the capture in `reader` (pcap or pcapng, detected from
/// the magic) whose source or destination port is `port`.
pub fn for_each_udp<R: Read>(
    reader: R,
    port: u16,
    mut f: impl FnMut(&UdpDatagram<'_>) -> io::Result<()>,
) -> Result<CaptureStats, CaptureError> {
    let mut reader = FillReader(reader);
    let mut magic = [0u8; 4];
    let got = reader.read(&mut magic).map_err(CaptureError::Output)?;
    let head = magic.get(..got).unwrap_or_default();
    let corrupt = |frames, reason| CaptureError::Corrupt { frames, reason };
    let input = FillReader(io::Cursor::new(magic).take(got as u64).chain(reader));
    let mut rdr: Box<dyn PcapReaderIterator> = if head.first() == Some(&0x0a) {
        Box::new(PcapNGReader::new(INITIAL_BUFFER, input).map_err(|e| corrupt(0, pcap_err(&e)))?)
    } else {
        Box::new(
            LegacyPcapReader::new(INITIAL_BUFFER, input).map_err(|e| corrupt(0, pcap_err(&e)))?,
        )
    };
    let mut stats = CaptureStats::default();
    let mut legacy_link = Linktype::ETHERNET;
    let mut legacy_nanos = false;
    let mut interfaces: Vec<Interface> = Vec::new();
    let mut capacity = INITIAL_BUFFER;
    loop {
        let offset = match rdr.next() {
            Ok((offset, block)) => {
                let packet = match &block {
                    PcapBlockOwned::LegacyHeader(h) => {
                        legacy_link = h.network;
                        legacy_nanos = h.is_nanosecond_precision();
                        None
                    }
                    PcapBlockOwned::Legacy(b) => {
                        let frac = if legacy_nanos {
                            b.ts_usec
                        } else {
                            b.ts_usec.saturating_mul(1000)
                        };
                        // A fraction of a second or more is a corrupt record: no time.
                        let time = (frac < 1_000_000_000)
                            .then(|| Duration::new(u64::from(b.ts_sec), frac));
                        Some((legacy_link, b.data, time))
                    }
                    PcapBlockOwned::NG(Block::SectionHeader(_)) => {
                        interfaces.clear();
                        None
                    }
                    PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                        interfaces.push(Interface {
                            link: idb.linktype,
                            resolution: idb.ts_resolution(),
                            offset: idb.ts_offset(),
                        });
                        None
                    }
                    PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                        let iface = usize::try_from(epb.if_id)
                            .ok()
                            .and_then(|i| interfaces.get(i).copied());
                        let len = usize::try_from(epb.caplen).unwrap_or(usize::MAX);
                        let data = epb.data.get(..len).unwrap_or(epb.data);
                        let units = u64::from(epb.ts_high) << 32 | u64::from(epb.ts_low);
                        let time = iface.and_then(|i| pcapng_time(units, i.resolution?, i.offset));
                        let link = iface.map_or(Linktype(-1), |i| i.link);
                        Some((link, data, time))
                    }
                    PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                        let link = interfaces.first().map_or(Linktype(-1), |i| i.link);
                        let len = usize::try_from(spb.origlen).unwrap_or(usize::MAX);
                        Some((link, spb.data.get(..len).unwrap_or(spb.data), None))
                    }
                    PcapBlockOwned::NG(_) => None,
                };
                if let Some((link, data, time)) = packet {
                    stats.frames += 1;
                    match udp_of(link, data) {
                        Parsed::Udp(src, dst, payload) => {
                            if src.port() == port || dst.port() == port {
                                stats.datagrams += 1;
                                let frame = stats.frames;
                                let d = UdpDatagram {
                                    frame,
                                    time,
                                    src,
                                    dst,
                                    payload,
                                };
                                f(&d).map_err(CaptureError::Output)?;
                            } else {
                                let p = src.port().min(dst.port());
                                *stats.other_ports.entry(p).or_default() += 1;
                            }
                        }
                        Parsed::Other => {}
                        Parsed::Unparsed => stats.unparsed += 1,
                        Parsed::UnsupportedLink => stats.unsupported_link += 1,
                    }
                }
                offset
            }
            Err(PcapError::Eof) => break,
            Err(PcapError::Incomplete(_)) => {
                rdr.refill()
                    .map_err(|e| corrupt(stats.frames, pcap_err(&e)))?;
                continue;
            }
            Err(PcapError::BufferTooSmall) if capacity < MAX_BUFFER => {
                capacity = (capacity * 2).min(MAX_BUFFER);
                rdr.grow(capacity);
                rdr.refill()
                    .map_err(|e| corrupt(stats.frames, pcap_err(&e)))?;
                continue;
            }
            Err(e) => return Err(corrupt(stats.frames, pcap_err(&e))),
        };
        rdr.consume(offset);
    }
    Ok(stats)
}

enum Parsed<'a> {
    Udp(SocketAddr, SocketAddr, &'a [u8]),
    /// Parsed, but not UDP (or not IP).
    Other,
    Unparsed,
    UnsupportedLink,
}

/// The UDP layer of one frame of link type `link`.
fn udp_of(link: Linktype, data: &[u8]) -> Parsed<'_> {
    let sliced = match link {
        Linktype::ETHERNET => SlicedPacket::from_ethernet(data),
        // SLL (16 octets, protocol type at 14) and SLL2 (20 octets, protocol type first) by
        // hand: etherparse's SLL parser rejects ARPHRD_LOOPBACK, which `tcpdump -i any`
        // records for traffic on lo (all the open5gs captures).
        Linktype::LINUX_SLL => match sll_payload(data, 14, 16) {
            Some((ether_type, rest)) => SlicedPacket::from_ether_type(ether_type, rest),
            None => return Parsed::Unparsed,
        },
        Linktype::LINUX_SLL2 => match sll_payload(data, 0, 20) {
            Some((ether_type, rest)) => SlicedPacket::from_ether_type(ether_type, rest),
            None => return Parsed::Unparsed,
        },
        Linktype::RAW | Linktype::IPV4 | Linktype::IPV6 | Linktype(12) | Linktype(14) => {
            SlicedPacket::from_ip(data)
        }
        // 4-octet address family (host order for NULL, network order for LOOP), then IP.
        Linktype::NULL | Linktype::LOOP => match data.get(4..) {
            Some(rest) => SlicedPacket::from_ip(rest),
            None => return Parsed::Unparsed,
        },
        _ => return Parsed::UnsupportedLink,
    };
    let Ok(sliced) = sliced else {
        return Parsed::Unparsed;
    };
    let (src, dst): (IpAddr, IpAddr) = match &sliced.net {
        Some(NetSlice::Ipv4(ip)) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        Some(NetSlice::Ipv6(ip)) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        _ => return Parsed::Other,
    };
    match &sliced.transport {
        Some(TransportSlice::Udp(udp)) => Parsed::Udp(
            SocketAddr::new(src, udp.source_port()),
            SocketAddr::new(dst, udp.destination_port()),
            udp.payload(),
        ),
        Some(_) => Parsed::Other,
        None if is_fragment(&sliced) => Parsed::Unparsed,
        None => Parsed::Other,
    }
}

/// The protocol type at `at` and the octets after a cooked header of `header_len`.
fn sll_payload(data: &[u8], at: usize, header_len: usize) -> Option<(EtherType, &[u8])> {
    let proto = data.get(at..at + 2)?;
    let proto = u16::from_be_bytes([*proto.first()?, *proto.get(1)?]);
    Some((EtherType(proto), data.get(header_len..)?))
}

fn is_fragment(sliced: &SlicedPacket<'_>) -> bool {
    match &sliced.net {
        Some(NetSlice::Ipv4(ip)) => ip.payload().fragmented,
        Some(NetSlice::Ipv6(ip)) => ip.payload().fragmented,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magics() {
        assert!(is_capture(&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0]));
        assert!(is_capture(&[0x0a, 0x0d, 0x0d, 0x0a]));
        assert!(!is_capture(b"2001000c"));
        assert!(!is_capture(&[0xa1, 0xb2]));
    }

    #[test]
    fn garbage_after_header_is_an_error_not_a_panic() {
        let mut file = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        file.extend_from_slice(&[0xff, 0xff, 0, 0, 1, 0, 0, 0]);
        // A record claiming 4 GiB.
        file.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        let r = for_each_udp(&file[..], PFCP_PORT, |_| Ok(()));
        assert!(
            matches!(r, Err(CaptureError::Corrupt { frames: 0, .. })),
            "{r:?}"
        );
        // Cut inside the file header.
        assert!(for_each_udp(&file[..10], PFCP_PORT, |_| Ok(())).is_err());
    }

    /// IPv4/UDP 8805 -> 8805 carrying `ab cd`.
    const IP: [u8; 30] = [
        0x45, 0, 0, 30, 0, 0, 0, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 2, 0x22, 0x65, 0x22,
        0x65, 0, 10, 0, 0, 0xab, 0xcd,
    ];

    fn payloads(file: &[u8]) -> Vec<(u64, Vec<u8>)> {
        let mut got = Vec::new();
        for_each_udp(file, PFCP_PORT, |d| {
            got.push((d.frame, d.payload.to_vec()));
            Ok(())
        })
        .unwrap();
        got
    }

    #[test]
    fn big_endian_nanosecond_pcap() {
        let mut f = Vec::new();
        f.extend_from_slice(&0xa1b2_3c4du32.to_be_bytes());
        f.extend_from_slice(&[
            0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 101,
        ]);
        for _ in 0..2 {
            f.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 30, 0, 0, 0, 30]);
            f.extend_from_slice(&IP);
        }
        assert_eq!(
            payloads(&f),
            vec![(1, vec![0xab, 0xcd]), (2, vec![0xab, 0xcd])]
        );
    }

    #[test]
    fn pcapng_with_two_interfaces() {
        let block = |t: u32, body: &[u8]| {
            let len = (12 + body.len()) as u32;
            [
                &t.to_le_bytes()[..],
                &len.to_le_bytes(),
                body,
                &len.to_le_bytes(),
            ]
            .concat()
        };
        let mut shb = 0x1a2b_3c4du32.to_le_bytes().to_vec();
        shb.extend_from_slice(&[1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        let idb = |link: u16| [&link.to_le_bytes()[..], &[0, 0, 0, 0, 0, 0]].concat();
        let epb = |if_id: u32, data: &[u8]| {
            let mut b = if_id.to_le_bytes().to_vec();
            b.extend_from_slice(&[0; 8]);
            b.extend_from_slice(&(data.len() as u32).to_le_bytes());
            b.extend_from_slice(&(data.len() as u32).to_le_bytes());
            b.extend_from_slice(data);
            b.resize(b.len().div_ceil(4) * 4, 0);
            b
        };
        let mut sll2 = vec![0x08, 0x00];
        sll2.resize(20, 0);
        sll2.extend_from_slice(&IP);
        let f = [
            block(0x0a0d_0d0a, &shb),
            block(1, &idb(101)),
            block(1, &idb(276)),
            block(6, &epb(1, &sll2)),
            block(6, &epb(0, &IP)),
            block(6, &epb(7, &IP)),
        ]
        .concat();
        // Frame 3 names an interface that does not exist: counted, not handed on.
        assert_eq!(
            payloads(&f),
            vec![(1, vec![0xab, 0xcd]), (2, vec![0xab, 0xcd])]
        );
    }

    #[test]
    fn link_types() {
        let ip = IP;
        let check = |link, frame: Vec<u8>| match udp_of(link, &frame) {
            Parsed::Udp(s, d, p) => {
                assert_eq!(s.to_string(), "127.0.0.1:8805");
                assert_eq!(d.to_string(), "127.0.0.2:8805");
                assert_eq!(p, [0xab, 0xcd]);
            }
            _ => panic!("link {link:?} not parsed"),
        };
        check(Linktype::RAW, ip.to_vec());
        check(Linktype::NULL, [&[2, 0, 0, 0][..], &ip].concat());
        let mut eth = vec![0u8; 12];
        eth.extend_from_slice(&[0x08, 0x00]);
        check(Linktype::ETHERNET, [&eth[..], &ip].concat());
        let mut sll2 = vec![0x08, 0x00];
        sll2.resize(20, 0);
        check(Linktype::LINUX_SLL2, [&sll2[..], &ip].concat());
        // SLL with ARPHRD_LOOPBACK (772), as `tcpdump -i any` writes for lo.
        let mut sll = vec![0, 0, 0x03, 0x04, 0, 6];
        sll.resize(14, 0);
        sll.extend_from_slice(&[0x08, 0x00]);
        check(Linktype::LINUX_SLL, [&sll[..], &ip].concat());
        assert!(matches!(
            udp_of(Linktype(147), &ip),
            Parsed::UnsupportedLink
        ));
        assert!(matches!(udp_of(Linktype::RAW, &ip[..25]), Parsed::Unparsed));
    }
}
