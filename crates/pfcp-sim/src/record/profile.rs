//! What the CP functions of each profile ([`CpProfile`]) got, and what they put on the wire.

use serde::Serialize;

use pfcp_wire::{Header, MessageType};

use super::{CpRecorder, Tally};
use crate::scenario::CpProfile;
use crate::traffic::Step;

/// The message priorities of the session requests a group of CP functions sent, read back
/// from the datagrams' headers (TS 29.244 clause 7.2.2.4.1: MP and the priority octet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WireMarks {
    /// Datagrams sent (retransmissions included).
    pub sent: u64,
    /// Of those, without a message priority (MP = 0).
    pub unmarked: u64,
    /// Of those, per message priority 0 (highest) to 15.
    pub by_priority: [u64; 16],
}

impl WireMarks {
    /// Add `other`.
    pub(crate) fn add(&mut self, other: &WireMarks) {
        self.sent += other.sent;
        self.unmarked += other.unmarked;
        for (m, o) in self.by_priority.iter_mut().zip(other.by_priority) {
            *m += o;
        }
    }

    /// Count `datagram` in `marks` (by request type, [`Step::index`]) if it is a Session
    /// Establishment, Modification or Deletion Request; anything else, or what does not
    /// decode, is not counted.
    pub fn count(marks: &mut [WireMarks; 3], datagram: &[u8]) {
        let Ok((header, _)) = Header::decode(datagram) else {
            return;
        };
        let step = match header.message_type {
            MessageType::SESSION_ESTABLISHMENT_REQUEST => Step::Establish,
            MessageType::SESSION_MODIFICATION_REQUEST => Step::Modify,
            MessageType::SESSION_DELETION_REQUEST => Step::Delete,
            _ => return,
        };
        let Some(m) = marks.get_mut(step.index()) else {
            return;
        };
        m.sent += 1;
        match header
            .priority
            .and_then(|p| m.by_priority.get_mut(usize::from(p.value())))
        {
            Some(n) => *n += 1,
            None => m.unmarked += 1,
        }
    }
}

/// What the CP functions of one profile got, in the measured window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileResult {
    /// The profile.
    pub profile: CpProfile,
    /// CP functions of this profile (in a churn run: their lives).
    pub cps: usize,
    /// Their requests' outcomes.
    pub total: Tally,
    /// Per class, in the mix's order: (name, tally).
    pub by_class: Vec<(String, Tally)>,
    /// Their successful transactions per second.
    pub goodput: f64,
    /// Their share of every CP function's successful transactions.
    pub goodput_share: f64,
    /// Their share of every CP function's offered requests.
    pub offered_share: f64,
    /// The success share of their emergency requests (eMPS if the mix has no emergency
    /// class), if they offered any.
    pub emergency_success: Option<f64>,
    /// The message priorities in the headers of the session requests they sent, per request
    /// type (the whole run, not only the window).
    pub wire: Vec<(Step, WireMarks)>,
}

/// The records of the CP functions of one profile, merged as they are collected.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProfileRecords {
    pub(crate) cps: usize,
    pub(crate) record: CpRecorder,
    pub(crate) wire: [WireMarks; 3],
}

impl ProfileRecords {
    /// Add one CP function's records.
    pub(crate) fn add(&mut self, record: &mut CpRecorder, wire: &[WireMarks; 3]) {
        if self.cps == 0 && self.record.by_class_step.is_empty() {
            self.record = CpRecorder::new(record.by_class_step.len(), record.sessions_per_up.len());
        }
        self.cps += 1;
        self.record.merge(record);
        for (m, w) in self.wire.iter_mut().zip(wire) {
            m.add(w);
        }
    }
}

/// The per-profile results of `records` (in [`CpProfile::ALL`]'s order, profiles without CP
/// functions left out), `names` of the classes, `measured` seconds.
pub(crate) fn profile_results(
    records: &[(CpProfile, ProfileRecords)],
    names: &[String],
    measured: f64,
) -> Vec<ProfileResult> {
    let measured = measured.max(1e-9);
    let mut out: Vec<ProfileResult> = records
        .iter()
        .filter(|(_, r)| r.cps > 0)
        .map(|(profile, r)| {
            let mut by_class = vec![Tally::default(); names.len()];
            let mut total = Tally::default();
            for (k, steps) in r.record.by_class_step.iter().enumerate() {
                for t in steps {
                    if let Some(b) = by_class.get_mut(k) {
                        b.add(t);
                    }
                    total.add(t);
                }
            }
            total.offered += r.record.skipped;
            total.skipped += r.record.skipped;
            let by_class: Vec<(String, Tally)> = names.iter().cloned().zip(by_class).collect();
            let emergency_success = ["emergency", "emps"].iter().find_map(|c| {
                by_class
                    .iter()
                    .find(|(n, t)| n == c && t.offered > 0)
                    .map(|(_, t)| t.success())
            });
            ProfileResult {
                profile: *profile,
                cps: r.cps,
                total,
                by_class,
                goodput: total.succeeded as f64 / measured,
                goodput_share: 0.0,
                offered_share: 0.0,
                emergency_success,
                wire: Step::ALL.iter().copied().zip(r.wire).collect(),
            }
        })
        .collect();
    let succeeded: u64 = out.iter().map(|p| p.total.succeeded).sum();
    let offered: u64 = out.iter().map(|p| p.total.offered).sum();
    for p in &mut out {
        p.goodput_share = share(p.total.succeeded, succeeded);
        p.offered_share = share(p.total.offered, offered);
    }
    out
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Headers laid out by hand from TS 29.244 clause 7.2.2.1 (figure 7.2.2.1-1 and -2).
    #[test]
    fn marks_are_read_from_the_header() {
        let mut marks = [WireMarks::default(); 3];
        // Session Establishment Request (50), S=1 MP=1, length 12, SEID 0, sequence 1,
        // priority 0 in the high nibble of the last octet.
        let est = [0x23, 50, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x00];
        // Session Modification Request (52), S=1 MP=1, priority 12.
        let modify = [0x23, 52, 0, 12, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 2, 0xC0];
        // Session Deletion Request (54), S=1 MP=0: no priority.
        let delete = [0x21, 54, 0, 12, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 3, 0x00];
        // Heartbeat Request (1), a node message: not counted.
        let heartbeat = [0x20, 1, 0, 4, 0, 0, 4, 0];
        for d in [&est[..], &modify, &delete, &heartbeat, &[0x23]] {
            WireMarks::count(&mut marks, d);
        }
        assert_eq!((marks[0].sent, marks[0].by_priority[0]), (1, 1));
        assert_eq!((marks[1].sent, marks[1].by_priority[12]), (1, 1));
        assert_eq!((marks[2].sent, marks[2].unmarked), (1, 1));
    }
}
