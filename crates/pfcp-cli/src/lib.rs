//! The library half of the `pfcp` command-line tool: everything `pfcp decode` and
//! `pfcp encode` do, usable from tests and other programs.
//!
//! * [`decode`]: one input (hex lines, pcap, pcapng) to JSON lines, in the lossless format
//!   ([`render`], with [`decoded`] values) or the oracle's summary schema ([`summary`]).
//! * [`encode`]: those JSON lines back to hex.
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
pub mod decoded;
pub mod encode;
pub mod hex;
mod meter;
pub mod render;
pub mod sample;
pub mod sim;
pub mod summary;
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

/// The only clock read of `pfcp up` and `pfcp cp`: tokio's clock (monotonic; the sans-IO
/// crates never read a clock, they are given the time).
pub(crate) fn now() -> tokio::time::Instant {
    tokio::time::Instant::now()
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
