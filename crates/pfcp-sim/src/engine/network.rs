//! The network of the engine: datagrams in flight with delay, jitter and loss, drawn from a
//! hash of each datagram's identity (its link and sequence number), never from the order of
//! events.

use std::cmp::Reverse;
use std::net::SocketAddr;

use bytes::Bytes;

use super::{ns, App, Engine, SimNode};
use crate::record::WireMarks;
use crate::traffic::{splitmix, unit};

/// A datagram in flight, between the addresses `from` and `to` of the nodes at `src` and `dst`
/// when it was sent (a node whose life ended is no longer there to receive it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Delivery {
    pub(super) at: u64,
    pub(super) dst: usize,
    pub(super) src: usize,
    pub(super) seq: u64,
    pub(super) from: SocketAddr,
    pub(super) to: SocketAddr,
    pub(super) bytes: Bytes,
}

/// A hash of a datagram's identity, for its loss and jitter draws.
pub(super) fn draw(seed: u64, src: usize, dst: usize, seq: u64, salt: u64) -> u64 {
    let mut s = seed ^ ((src as u64) << 40) ^ ((dst as u64) << 20) ^ salt.rotate_left(7);
    s = s.wrapping_add(seq.wrapping_mul(0xD1B5_4A32_D192_ED03));
    splitmix(&mut s)
}

impl Engine<'_> {
    pub(super) fn deliver(&mut self, d: Delivery) {
        let Some(n) = self.nodes.get(d.dst) else {
            return;
        };
        // Down, or the life it was sent to ended.
        if self.down[d.dst] || n.addr != d.to || matches!(n.app, App::Vacant) {
            return;
        }
        let t = self.instant(self.now);
        self.nodes[d.dst].node.handle_datagram(d.from, d.bytes, t);
        self.pump(d.dst);
    }

    pub(super) fn send(&mut self, src: usize, to: SocketAddr, bytes: Bytes) {
        let Some(&dst) = self.by_addr.get(&to) else {
            return;
        };
        if self.down[src] {
            return;
        }
        let from = match &mut self.nodes[src] {
            SimNode {
                app: App::Vacant, ..
            } => return,
            SimNode {
                app: App::Cp(c),
                addr,
                ..
            } => {
                WireMarks::count(&mut c.wire, &bytes);
                *addr
            }
            n => n.addr,
        };
        let seq = {
            let s = self.link_seq.entry((src, dst)).or_insert(0);
            *s += 1;
            *s
        };
        let link = &self.scenario.link;
        let seed = self.scenario.seed;
        if link.loss > 0.0 && unit(draw(seed, src, dst, seq, 1)) < link.loss {
            return;
        }
        let delay = link.delay_ms + link.jitter_ms * unit(draw(seed, src, dst, seq, 2));
        let at = self.now + ns(delay / 1000.0).max(1);
        self.net.push(Reverse(Delivery {
            at,
            dst,
            src,
            seq,
            from,
            to,
            bytes,
        }));
    }
}
