//! `pfcp cp --replay CAPTURE`: the Session Establishment Requests of a pcap or pcapng
//! capture (UDP port `--replay-port`, FO-bundled messages unpacked) as the rules of the
//! sessions, in the order captured: session k sends request k modulo their number, rewritten
//! as a template's are ([`super::rules`]: this CP's Node ID and F-SEID, TEIDs + k, the UE
//! address from `--ue-pool`).
//!
//! A request that does not decode, or that a UP function would reject for its content (a
//! missing mandatory IE, a malformed typed IE: its verdict), is left out and counted; a capture
//! without any usable request is an error.

use std::fs::File;
use std::path::Path;

use pfcp_wire::{Datagram, MessageType};

use super::rules::{SessionRules, UePool};
use crate::capture::for_each_udp;
use crate::io_error_text;

/// The rules of the capture at `path`, and how many requests were left out (they do not
/// decode, or a node would reject them).
pub fn load(path: &Path, port: u16, pool: UePool) -> Result<(SessionRules, usize), String> {
    let name = path.display();
    let file = File::open(path).map_err(|e| format!("--replay {name}: {}", io_error_text(&e)))?;
    let mut bodies: Vec<Vec<u8>> = Vec::new();
    let mut left_out = 0usize;
    let mut messages = 0u64;
    let stats = for_each_udp(file, port, |d| {
        for item in Datagram::new(d.payload) {
            let Ok(msg) = item else {
                left_out += 1;
                break;
            };
            messages += 1;
            if msg.message_type() != MessageType::SESSION_ESTABLISHMENT_REQUEST {
                continue;
            }
            if msg.validate().is_ok() && msg.check_typed_ies().is_ok() {
                bodies.push(msg.body().to_vec());
            } else {
                left_out += 1;
            }
        }
        Ok(())
    })
    .map_err(|e| format!("--replay {name}: {e}"))?;
    if bodies.is_empty() {
        return Err(format!(
            "--replay {name}: no usable Session Establishment Request ({messages} PFCP messages \
             on UDP port {port} in {} frames{})",
            stats.frames,
            if left_out > 0 {
                format!(", {left_out} requests left out")
            } else {
                String::new()
            }
        ));
    }
    let rules = SessionRules::new(bodies, pool, &format!("--replay {name}"))?;
    Ok((rules, left_out))
}
