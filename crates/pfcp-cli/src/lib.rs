//! The library half of the `pfcp` command-line tool: everything `pfcp decode` and
//! `pfcp encode` do, usable from tests and other programs.
//!
//! * [`decode`]: inputs (hex lines, pcap, pcapng) to JSON lines in the lossless format
//!   ([`render`], the typed IEs through `pfcp-wire`'s serde forms), a text tree ([`text`],
//!   [`describe`]) with request/response pairing ([`pairing`]) and filters ([`filter`]), or
//!   the oracle's summary schema ([`summary`]).
//! * [`encode`]: those JSON lines back to hex (IEs given by octets or by typed fields).
//! * [`capture`]: UDP datagrams out of pcap/pcapng files (Ethernet, SLL, SLL2, raw IP, NULL).
//! * [`sample`]: the project's sample capture, `samples/overload.pcap`.
//! * [`up`]: `pfcp up`, a UP function emulator with self-protection and OCI/LCI reporting.
//! * [`cp`]: `pfcp cp`, a CP function load generator that honours the UP functions' OCIs.
//! * [`sim`]: `pfcp sim`, the end-to-end overload experiment (virtual time and loopback).
//! * [`cli`]: the command line itself.
//!
//! Nothing here panics on input: bad bytes become error lines, bad files one-line messages.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable
    )
)]

pub mod capture;
pub mod cli;
pub mod cp;
pub mod decode;
pub mod describe;
pub mod egress;
pub mod encode;
pub mod filter;
pub mod hex;
mod meter;
mod node_setup;
mod number;
pub mod pairing;
mod pcap_out;
pub mod render;
pub mod sample;
pub mod sim;
pub mod summary;
pub mod text;
pub mod up;

use std::io;

/// An I/O failure while running a command, by the stream it happened on.
#[derive(Debug)]
pub enum RunError {
    /// Reading the input.
    Input(io::Error),
    /// Writing the output (a closed pipe included).
    Output(io::Error),
    /// Writing diagnostics to stderr.
    Diagnostics(io::Error),
}

/// The clock of the tools: tokio's monotonic clock (the sans-IO crates never read a clock,
/// they are given the time).
pub(crate) fn now() -> tokio::time::Instant {
    tokio::time::Instant::now()
}

/// The tools' only wall-clock read, once: the time since the Unix epoch and the monotonic
/// [`now`] at that moment, so that later wall times are `start + (now() - at)`.
fn start() -> (std::time::Duration, tokio::time::Instant) {
    static START: std::sync::OnceLock<(std::time::Duration, tokio::time::Instant)> =
        std::sync::OnceLock::new();
    *START.get_or_init(|| {
        #[allow(clippy::disallowed_methods)] // The one wall-clock read (see above).
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        (unix, now())
    })
}

/// The wall time now, since the Unix epoch (for capture timestamps), from [`start`] and the
/// monotonic clock.
pub(crate) fn wall_now() -> std::time::Duration {
    let (unix, at) = start();
    unix + now().saturating_duration_since(at)
}

/// This process's Recovery Time Stamp: its start time in seconds since 1900 (clause 8.2.65;
/// it wraps in 2036 as the field does).
pub(crate) fn start_time() -> pfcp_wire::ie::RecoveryTimeStamp {
    // Seconds from 1900-01-01 to 1970-01-01.
    const NTP_TO_UNIX: u64 = 2_208_988_800;
    pfcp_wire::ie::RecoveryTimeStamp((start().0.as_secs() + NTP_TO_UNIX) as u32)
}

/// The text of an I/O error without the "(os error N)" suffix, e.g. "No such file or
/// directory".
pub fn io_error_text(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s.get(..i).unwrap_or(&s).to_owned(),
        None => s,
    }
}
