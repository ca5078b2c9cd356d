#![cfg(feature = "tokio")]
//! No amplification (project issue "pfcp-node", guard rails): whatever datagram reaches an
//! endpoint, it answers with at most one datagram, and that answer is bounded by a small fixed
//! size that does not grow with the request. A reflector would need answers larger than the
//! spoofed requests that trigger them; a PFCP endpoint has to send some answers (TS 29.244
//! 7.6: Cause, Offending IE; 6.2.6: Heartbeat), so the property is "bounded, never echoing".
//!
//! The datagrams are real protocol messages from the TS 29.244 layouts (digest sections 4.x),
//! every truncation of them, seeded byte flips and random bytes, sent over real loopback UDP
//! to a UP endpoint with the default configuration.

mod common;

use std::collections::HashSet;

use pfcp_node::GuardConfig;
use pfcp_test_support::node::{any_port, up_local};
use pfcp_test_support::rng::XorShift;
use pfcp_wire::owned::parse_hex;
use pfcp_wire::Header;
use tokio::net::UdpSocket;
use tokio::time::timeout;

use common::{bind, endpoint_config, WAIT};

/// The largest answer the endpoint may send to anything: a header with SEID (16), Cause (5),
/// the UP's Node ID (here a 16-character FQDN: 4 + 1 + 17), Recovery Time Stamp (8), UP
/// Function Features (4 + up to 10 octets), Offending IE (6), and OCI and LCI (4 + 1 + 4 + 4 + 5
/// = 18 and 4 + 1 + 4 + 5 = 14 with their Sequence Number, Metric, Timer and Flags members).
/// 16 + 5 + 22 + 8 + 14 + 6 + 18 + 14 = 103.
const MAX_ANSWER: usize = 103;

/// Requests from the TS 29.244 layouts (hex as in the specification digest).
fn bases() -> Vec<Vec<u8>> {
    [
        // Heartbeat Request, Recovery Time Stamp (7.4.2.1).
        "2001000c000001000060000400000001",
        // Association Setup Request: Node ID IPv4 127.0.0.1, Recovery Time Stamp (7.4.4.1).
        "2005001500000200003c0005007f0000010060000400000002",
        // Association Release Request: Node ID (7.4.4.5).
        "2009000d00000300003c0005007f000001",
        // Session Establishment Request, SEID 0, minimal (7.5.2): Node ID, CP F-SEID, one PDR,
        // one FAR.
        "2132005a000000000000000000000400003c000500c000020a\
         0039000d020000000000000001c000020a\
         0001001f003800020001001d0004000000ff000200050014000100006c000400000001\
         0003000d006c000400000001002c000102",
        // Session Deletion Request, SEID 1 (7.5.6).
        "2136000c000000000000000100000500",
        // Session Modification Request with only the header (7.5.4), SEID 1.
        "2134000c000000000000000100000600",
        // Version 2 (7.4.4.7 Version Not Supported).
        "4001000c000007000060000400000001",
    ]
    .iter()
    .map(|h| parse_hex(&h.replace(char::is_whitespace, "")).unwrap())
    .collect()
}

fn datagrams() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rng = XorShift(0x0DDB_1A5E_5BAD_5EED);
    for base in bases() {
        out.push(base.clone());
        for len in 0..base.len() {
            out.push(base[..len].to_vec());
        }
        for _ in 0..150 {
            let mut m = base.clone();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() % m.len() as u64) as usize;
                m[i] ^= 1 << (rng.next() % 8);
            }
            out.push(m);
        }
    }
    for _ in 0..300 {
        let len = (rng.next() % 120) as usize;
        out.push((0..len).map(|_| rng.next() as u8).collect());
    }
    out
}

/// A Heartbeat Request with a sequence number from the probe range (0xFFxxxx): its answer
/// is a fence after which the answers to an earlier datagram have all arrived (one task, one
/// socket, in order on loopback).
fn probe(n: u32) -> Vec<u8> {
    let seq = 0x00FF_0000 | (n & 0xFFFF);
    let mut m = parse_hex("2001000c000000000060000400000001").unwrap();
    m[4..7].copy_from_slice(&seq.to_be_bytes()[1..]);
    m
}

fn is_probe_answer(d: &[u8]) -> bool {
    Header::decode(d)
        .map(|(h, _)| h.message_type.0 == 2 && h.sequence.value() >> 16 == 0xFF)
        .unwrap_or(false)
}

#[tokio::test]
async fn every_answer_is_single_and_bounded() {
    // The ingress guard is not under test: ~4700 datagrams from one unassociated source in a
    // fraction of a second would exceed its default rate, and a silent drop is no answer.
    let config = endpoint_config(up_local())
        .with_guard(GuardConfig::default().with_rate(1e9).with_burst(1e9));
    let (up, _channels) = bind(config).await;
    let peer = UdpSocket::bind(any_port()).await.unwrap();

    let datagrams = datagrams();
    let (mut bytes_in, mut bytes_out, mut answered, mut largest) = (0usize, 0usize, 0usize, 0);
    let mut kinds = HashSet::new();
    let mut buf = vec![0u8; 65_536];
    for (n, d) in datagrams.iter().enumerate() {
        peer.send_to(d, up.local_addr()).await.unwrap();
        peer.send_to(&probe(2 * n as u32), up.local_addr())
            .await
            .unwrap();
        bytes_in += d.len();
        let mut answers = 0;
        let mut probes = 0;
        loop {
            let (len, _) = timeout(WAIT, peer.recv_from(&mut buf))
                .await
                .unwrap_or_else(|_| {
                    panic!("the probe after datagram {n} ({d:02x?}) is not answered")
                })
                .unwrap();
            let answer = &buf[..len];
            if is_probe_answer(answer) {
                // The first probe may share a receive batch with the datagram, and the
                // endpoint may send its answers in another order within a batch. The second
                // probe is sent after the first one's answer arrived, so it is read in a later
                // batch: every answer to the datagram has arrived before its answer.
                probes += 1;
                if probes == 2 {
                    break;
                }
                peer.send_to(&probe(2 * n as u32 + 1), up.local_addr())
                    .await
                    .unwrap();
                continue;
            }
            answers += 1;
            bytes_out += len;
            largest = largest.max(len);
            if let Ok((h, _)) = Header::decode(answer) {
                kinds.insert(h.message_type.0);
            }
            assert!(
                len <= MAX_ANSWER,
                "datagram {n} ({} octets, {:02x?}) drew a {len}-octet answer",
                d.len(),
                d
            );
        }
        assert!(answers <= 1, "datagram {n} drew {answers} answers");
        answered += answers;
    }
    println!(
        "{} datagrams, {bytes_in} octets in; {answered} answered, {bytes_out} octets out; \
         largest answer {largest}; answer types {kinds:?}",
        datagrams.len()
    );
    // Over the whole corpus the endpoint sends fewer octets than it receives.
    assert!(
        bytes_out <= bytes_in,
        "{bytes_out} octets out for {bytes_in} in"
    );
    // The corpus reaches the answering paths: Heartbeat, Association Setup and Release, a
    // session response (Cause 72 or 7.6) and Version Not Supported.
    for t in [2u8, 6, 10, 11] {
        assert!(kinds.contains(&t), "no answer of type {t}: {kinds:?}");
    }
    assert!(
        kinds.iter().any(|t| (51..=57).contains(t)),
        "no session response: {kinds:?}"
    );
}
