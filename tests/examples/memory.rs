//! Heap bytes per PFCP session and per association, both ends together (a CP `Node` and a UP
//! `Node` back to back in virtual time), measured with a counting global allocator.
//!
//! `cargo run --release -p pfcp-e2e --example memory [SESSIONS] [ASSOCIATIONS]`
//!
//! Each figure is the heap still live after the work and after 60 s of virtual time (the
//! transactions' retransmission and duplicate caches have expired, heartbeats run), divided by
//! the count: the steady-state cost a UPF or SMF pays, hash-table slack included.

use std::time::Duration;

use pfcp_e2e::net::Net;
use pfcp_node::RequestProfile;

fn main() {
    let mut args = std::env::args().skip(1);
    let sessions: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let associations: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1_000);

    let mut p = Net::pair(1e9);
    p.associate(0);
    p.after(Duration::from_secs(60));
    p.outcomes = Vec::new();
    let profile = RequestProfile::default();
    let info = allocation_counter::measure(|| {
        let mut seid = 1;
        while seid <= sessions {
            for _ in 0..100.min(sessions - seid + 1) {
                p.establish(0, seid, &profile);
                seid += 1;
            }
            p.after(Duration::from_millis(20));
            p.outcomes.clear();
        }
        p.after(Duration::from_secs(60));
        p.outcomes = Vec::new();
        p.cp_events = Vec::new();
    });
    let established = (1..=sessions)
        .filter(|s| p.cp.session(*s).is_some())
        .count();
    println!(
        "sessions: {established} of {sessions} established; {:.0} bytes per session (CP and UP tables together)",
        info.bytes_current as f64 / sessions as f64
    );

    let mut pairs: Vec<Net> = (0..associations).map(|_| Net::pair(1e9)).collect();
    let info = allocation_counter::measure(|| {
        for q in &mut pairs {
            q.associate(0);
            q.after(Duration::from_secs(60));
            q.outcomes = Vec::new();
            q.cp_events = Vec::new();
        }
    });
    println!(
        "associations: {associations}; {:.0} bytes per association (the peer state at both ends)",
        info.bytes_current as f64 / associations as f64
    );
}
