//! The endpoint's UDP socket: buffer sizes and the kernel's drop count.
//!
//! A burst of requests larger than the socket's receive buffer is dropped by the kernel before
//! the node sees it: no priority, no Cause 74, only retransmissions later. The default buffer
//! (about 200 KiB on Linux) holds some 300 small PFCP messages; the endpoint asks for 8 MiB and
//! reports what the OS granted (Linux clamps to `net.core.rmem_max` and reports twice the
//! granted size, its bookkeeping included). The kernel counts the datagrams it drops per socket;
//! [`DropCounter`] reads that count (the `drops` column of `/proc/net/udp`, the counter
//! `SO_RXQ_OVFL` reports), so an operator sees that the buffer, not the node, refused them.

use tokio::net::UdpSocket;
use tracing::warn;

/// Socket settings of an [`Endpoint`](super::Endpoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SocketConfig {
    /// Receive buffer to ask for, octets (clamped by the OS). Default 8 MiB.
    pub recv_buffer: usize,
    /// Send buffer to ask for, octets (clamped by the OS). Default 4 MiB.
    pub send_buffer: usize,
}

impl Default for SocketConfig {
    fn default() -> Self {
        SocketConfig {
            recv_buffer: 8 << 20,
            send_buffer: 4 << 20,
        }
    }
}

impl SocketConfig {
    /// With a receive buffer of `octets`.
    #[must_use]
    pub fn with_recv_buffer(mut self, octets: usize) -> Self {
        self.recv_buffer = octets;
        self
    }

    /// With a send buffer of `octets`.
    #[must_use]
    pub fn with_send_buffer(mut self, octets: usize) -> Self {
        self.send_buffer = octets;
        self
    }
}

/// The buffer sizes the OS reports for a socket, octets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SocketBuffers {
    /// Receive buffer.
    pub recv: usize,
    /// Send buffer.
    pub send: usize,
}

/// Ask for the configured buffers and read back what the OS set (a refusal is logged, not an
/// error: the socket works with its defaults).
pub(super) fn configure(socket: &UdpSocket, config: &SocketConfig) -> SocketBuffers {
    let s = socket2::SockRef::from(socket);
    if let Err(e) = s.set_recv_buffer_size(config.recv_buffer) {
        warn!(error = %e, asked = config.recv_buffer, "receive buffer not set");
    }
    if let Err(e) = s.set_send_buffer_size(config.send_buffer) {
        warn!(error = %e, asked = config.send_buffer, "send buffer not set");
    }
    SocketBuffers {
        recv: s.recv_buffer_size().unwrap_or(0),
        send: s.send_buffer_size().unwrap_or(0),
    }
}

/// Reads the kernel's count of datagrams dropped on one socket.
#[derive(Debug)]
pub(super) struct DropCounter {
    /// The socket's inode (Linux), which names its line in `/proc/net/udp{,6}`.
    inode: Option<u64>,
}

impl DropCounter {
    pub(super) fn new(socket: &UdpSocket) -> Self {
        DropCounter {
            inode: socket_inode(socket),
        }
    }

    /// The count, `None` where the OS does not tell.
    pub(super) fn read(&self) -> Option<u64> {
        let inode = self.inode?;
        ["/proc/net/udp", "/proc/net/udp6"].iter().find_map(|p| {
            std::fs::read_to_string(p)
                .ok()
                .and_then(|t| drops_of(&t, inode))
        })
    }
}

#[cfg(target_os = "linux")]
fn socket_inode(socket: &UdpSocket) -> Option<u64> {
    use std::os::fd::AsRawFd;
    let link = std::fs::read_link(format!("/proc/self/fd/{}", socket.as_raw_fd())).ok()?;
    let name = link.to_str()?;
    name.strip_prefix("socket:[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

#[cfg(not(target_os = "linux"))]
fn socket_inode(_socket: &UdpSocket) -> Option<u64> {
    None
}

/// The `drops` column (the last) of the line of `/proc/net/udp` text whose `inode` column (the
/// tenth) is `inode`.
fn drops_of(table: &str, inode: u64) -> Option<u64> {
    table.lines().skip(1).find_map(|line| {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let ino: u64 = cols.get(9)?.parse().ok()?;
        (ino == inode).then(|| cols.last()?.parse().ok()).flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drops_column_of_the_socket_line() {
        // Two lines of a Linux 6.1 /proc/net/udp.
        let table = "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops            \n\
  120: 0100007F:2275 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 33196 2 0000000000000000 483     \n\
  121: 0100007F:2276 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 33197 2 0000000000000000 0       \n";
        assert_eq!(drops_of(table, 33196), Some(483));
        assert_eq!(drops_of(table, 33197), Some(0));
        assert_eq!(drops_of(table, 1), None);
    }
}
