//! Writing captures: UDP datagrams as a classic pcap file (LINKTYPE_RAW: an IPv4 or IPv6
//! header, then UDP, built with `etherparse`; the file format by `pcap-file`) that Wireshark
//! opens and dissects as PFCP on port 8805.

use std::fs::File;
use std::io::BufWriter;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::DataLink;

/// A pcap file being written, shared by every endpoint of a run; each datagram is recorded
/// with its time since the Unix epoch.
pub(crate) struct PcapOut {
    path: PathBuf,
    state: Mutex<State>,
}

struct State {
    writer: Option<PcapWriter<BufWriter<File>>>,
    packets: u64,
    /// The first failure; later datagrams are not written.
    error: Option<String>,
}

impl std::fmt::Debug for PcapOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PcapOut").field("path", &self.path).finish()
    }
}

impl PcapOut {
    /// Create (or truncate) `path` and write the pcap header.
    pub(crate) fn create(path: &Path) -> Result<PcapOut, String> {
        let file = File::create(path)
            .map_err(|e| format!("{}: {}", path.display(), crate::io_error_text(&e)))?;
        let header = PcapHeader {
            datalink: DataLink::RAW,
            ..PcapHeader::default()
        };
        let writer = PcapWriter::with_header(BufWriter::new(file), header)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(PcapOut {
            path: path.to_owned(),
            state: Mutex::new(State {
                writer: Some(writer),
                packets: 0,
                error: None,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Record one datagram from `from` to `to` at `at` (since the Unix epoch). Addresses of
    /// different families (a v4-mapped peer of a v6 socket) are written as IPv6.
    pub(crate) fn record(&self, at: Duration, from: SocketAddr, to: SocketAddr, payload: &[u8]) {
        let mut st = self.lock();
        if st.error.is_some() {
            return;
        }
        let packet = match udp_packet(from, to, payload) {
            Ok(p) => p,
            Err(e) => {
                st.error = Some(e);
                return;
            }
        };
        let Ok(len) = u32::try_from(packet.len()) else {
            return;
        };
        let written = st.writer.as_mut().map(|w| {
            w.write_packet(&PcapPacket::new(at, len, &packet))
                .map_err(|e| e.to_string())
        });
        match written {
            Some(Ok(_)) => st.packets += 1,
            Some(Err(e)) => st.error = Some(e),
            None => {}
        }
    }

    /// Flush and close the file: the number of datagrams written, or the first failure.
    pub(crate) fn finish(&self) -> Result<u64, String> {
        let mut st = self.lock();
        let flushed = st.writer.take().map(|w| {
            use std::io::Write;
            w.into_writer()
                .flush()
                .map_err(|e| crate::io_error_text(&e))
        });
        if let Some(e) = st.error.take() {
            return Err(format!("{}: {e}", self.path.display()));
        }
        if let Some(Err(e)) = flushed {
            return Err(format!("{}: {e}", self.path.display()));
        }
        Ok(st.packets)
    }
}

/// An IP + UDP packet carrying `payload` from `from` to `to`.
fn udp_packet(from: SocketAddr, to: SocketAddr, payload: &[u8]) -> Result<Vec<u8>, String> {
    let builder = match (from.ip(), to.ip()) {
        (IpAddr::V4(s), IpAddr::V4(d)) => PacketBuilder::ipv4(s.octets(), d.octets(), 64),
        (s, d) => PacketBuilder::ipv6(v6(s).octets(), v6(d).octets(), 64),
    }
    .udp(from.port(), to.port());
    let mut packet = Vec::with_capacity(builder.size(payload.len()));
    builder
        .write(&mut packet, payload)
        .map_err(|e| e.to_string())?;
    Ok(packet)
}

fn v6(ip: IpAddr) -> std::net::Ipv6Addr {
    match ip {
        IpAddr::V4(a) => a.to_ipv6_mapped(),
        IpAddr::V6(a) => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datagrams_read_back_with_their_addresses_and_payloads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.pcap");
        let out = PcapOut::create(&path).unwrap();
        let a: SocketAddr = "127.1.0.1:8805".parse().unwrap();
        let b: SocketAddr = "127.2.0.1:8805".parse().unwrap();
        // A Heartbeat Request (clause 7.4.2.1): version 1, type 1, length 12, sequence 1,
        // Recovery Time Stamp.
        let hb = [
            0x20, 0x01, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x00, 0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4,
            0xa2, 0xb0,
        ];
        out.record(Duration::from_secs(1_700_000_000), a, b, &hb);
        out.record(Duration::from_millis(1_700_000_000_500), b, a, &hb);
        assert_eq!(out.finish(), Ok(2));
        // Read back with the crate's own reader (pcap-parser), as `pfcp decode` does.
        let mut seen = Vec::new();
        let file = std::fs::File::open(&path).unwrap();
        let stats = crate::capture::for_each_udp(file, 8805, |d| {
            seen.push((d.src, d.dst, d.payload.to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(stats.frames, 2);
        assert_eq!(seen, vec![(a, b, hb.to_vec()), (b, a, hb.to_vec())]);
    }
}
