//! The run of one [`Scenario`]: each event to the CP or the UP model, the invariants of both
//! checked after every event.

use std::time::Instant;

use pfcp_overload::Measurement;
use pfcp_wire::encode::Encode;
use pfcp_wire::ie::{
    ControlSequenceNumber, LoadControlInformation, Metric, OverloadControlInformation, Timer,
};
use pfcp_wire::Message;

use super::cp::{entities, flags, nodes, origin, pick, Cp};
use super::up::Up;
use super::{seq_value, CauseSpec, Event, Scenario};

/// Most events run per input (bounds the cost of one input).
const MAX_EVENTS: usize = 512;

/// The base instant of a run. The harness is the only place that reads the clock: every
/// later instant is this one advanced by fuzzer-chosen durations, so a run does not depend on
/// when it happens.
#[allow(clippy::disallowed_methods)] // the one clock read: an arbitrary origin for the run
fn base_instant() -> Instant {
    Instant::now()
}

/// A PFCP message (node or session header) with the given IEs: Cause, F-SEID, OCI, LCI.
fn build_message(
    message_type: u8,
    oci: Option<&OverloadControlInformation>,
    lci: Option<&LoadControlInformation>,
    fseid: Option<(u8, bool)>,
) -> Vec<u8> {
    let mut body = Vec::new();
    // Cause: Request accepted.
    body.extend_from_slice(&[0x00, 0x13, 0x00, 0x01, 0x01]);
    if let Some((v4, v6)) = fseid {
        let mut v = vec![if v6 { 0x03 } else { 0x02 }];
        v.extend_from_slice(&0x1234_5678_9abc_def0u64.to_be_bytes());
        v.extend_from_slice(&[198, 51, 100, v4]);
        if v6 {
            v.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, v4]);
        }
        body.extend_from_slice(&[0x00, 0x39]);
        body.extend_from_slice(&(v.len() as u16).to_be_bytes());
        body.extend_from_slice(&v);
    }
    if let Some(o) = oci {
        o.encode(&mut body).expect("OCI encodes");
    }
    if let Some(l) = lci {
        l.encode(&mut body).expect("LCI encodes");
    }
    let session = message_type >= 50;
    let header_len = if session { 16 } else { 8 };
    let mut m = vec![if session { 0x21 } else { 0x20 }, message_type];
    m.extend_from_slice(&((header_len - 4 + body.len()) as u16).to_be_bytes());
    if session {
        m.extend_from_slice(&1u64.to_be_bytes());
    }
    m.extend_from_slice(&[0, 0, 7, 0]);
    m.extend_from_slice(&body);
    m
}

/// Run a decoded scenario.
pub fn run(s: &Scenario) {
    let base = base_instant();
    let mut now = base;
    let mut cp = Cp::new(s);
    let mut up = Up::new(s, base);
    for peer in 0..4u8 {
        if s.ovrl_peers >> peer & 1 == 1 {
            up.set_ovrl(peer, true);
        }
        if s.load_peers >> peer & 1 == 1 {
            up.set_load(peer, true);
        }
    }
    for event in s.events.iter().take(MAX_EVENTS) {
        match event {
            Event::Advance(step) => now = now.checked_add(step.get()).unwrap_or(now),
            Event::Oci {
                origin: o,
                seq,
                metric,
                timer,
                flags: f,
            } => {
                let origin = origin(*o);
                let flags = flags(*f);
                let aoci = flags.is_some_and(|f| f.aoci());
                let seq = cp.seq(&origin.scope(aoci), *seq);
                let oci = OverloadControlInformation {
                    sequence_number: ControlSequenceNumber(seq),
                    metric: Metric::from_raw(*metric),
                    period_of_validity: Timer(*timer),
                    flags,
                };
                cp.oci(&origin, &oci, now);
            }
            Event::Built {
                origin: o,
                message_type,
                oci,
                lci,
                fseid,
            } => {
                let oci = oci.map(|(seq, metric, timer, f)| OverloadControlInformation {
                    sequence_number: ControlSequenceNumber(seq),
                    metric: Metric::from_raw(metric),
                    period_of_validity: Timer(timer),
                    flags: flags(f),
                });
                let lci = lci.map(|(seq, metric)| LoadControlInformation {
                    sequence_number: ControlSequenceNumber(seq),
                    metric: Metric::from_raw(metric),
                });
                let bytes = build_message(message_type.get().0, oci.as_ref(), lci.as_ref(), *fseid);
                let m = Message::decode(&bytes).expect("built message decodes");
                assert_eq!(m.overload_control_information(), Ok(oci));
                assert_eq!(m.load_control_information(), Ok(lci));
                cp.message(&origin(*o), &bytes, now);
            }
            Event::Raw { origin: o, bytes } => cp.message(&origin(*o), bytes, now),
            Event::Timeout => {
                cp.table.handle_timeout(now);
                cp.after_timeout(now);
            }
            Event::TimeoutAtPoll => {
                if let Some(t) = cp.table.poll_timeout() {
                    now = now.max(t);
                    cp.table.handle_timeout(now);
                    cp.after_timeout(now);
                }
            }
            Event::Reset(n) => cp.reset(&pick(&nodes(), *n)),
            Event::Reduction {
                entity,
                node,
                ahead,
            } => {
                let q = now.checked_add(ahead.get()).unwrap_or(now);
                let (e, n) = (pick(&entities(), *entity), pick(&nodes(), *node));
                assert_eq!(
                    cp.table.reduction(e, &n, q),
                    cp.expected_reduction(e, &n, q),
                    "reduction ahead of the timers"
                );
                cp.check_reductions(q);
            }
            Event::Drain(n) => cp.drain(*n),
            Event::Lci { node, seq, metric } => {
                let node = pick(&nodes(), *node);
                let last = cp.last_lci.get(&node).copied().unwrap_or(0);
                let lci = LoadControlInformation {
                    sequence_number: ControlSequenceNumber(seq_value(*seq, last)),
                    metric: Metric::from_raw(*metric),
                };
                cp.lci(&node, &lci, now);
            }
            Event::LoadReset(n) => {
                let node = pick(&nodes(), *n);
                cp.loads.reset_peer(&node);
                assert_eq!(cp.loads.load(&node, now), None);
            }
            Event::Select { candidates, draw } => cp.select(candidates, *draw, now),
            Event::Measure {
                arrived,
                served,
                backlog,
            } => {
                let m = Measurement {
                    arrived: arrived.get(),
                    served: served.get(),
                    backlog: backlog.get(),
                };
                up.measure(&m, now);
            }
            Event::ReporterTimeout => up.restart(),
            Event::ReporterTimeoutAtPoll => {
                now = now.checked_add(up.refresh_lead()).unwrap_or(now);
            }
            Event::OciFor {
                peer,
                repeat,
                message_type,
                cause,
            } => {
                for _ in 0..=repeat % 3 {
                    up.oci_for(peer % 4, message_type.get(), cause.map(CauseSpec::get), now);
                }
            }
            Event::SetOvrl { peer, ovrl } => up.set_ovrl(peer % 4, *ovrl),
            Event::RemovePeer(p) => up.remove(p % 4),
            Event::Utilisation(u) => up.utilisation(u.get(0.5)),
            Event::LciFor {
                peer,
                repeat,
                message_type,
            } => {
                for _ in 0..=repeat % 3 {
                    up.lci_for(peer % 4, message_type.get(), now);
                }
            }
            Event::SetLoad { peer, load } => up.set_load(peer % 4, *load),
            Event::LoadRemovePeer(p) => up.lremove(p % 4),
        }
        cp.check(now);
        up.check_metric();
        up.current();
    }
}
