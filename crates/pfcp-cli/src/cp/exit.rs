//! The exit status of `pfcp cp` and the plain-language text of what the endpoint reports.
//!
//! | status | when |
//! | --- | --- |
//! | 0 | the run completed: every UP function stayed associated and at most `--max-timeout-share` per cent of the requests sent timed out (overload and throttling are results, not failures) |
//! | 1 | it could not run: a bad flag value, template or capture, an address in use |
//! | 2 | usage error (an unknown flag, a missing value: clap's) |
//! | 3 | no association: a UP function did not answer the Association Setup Request or refused it |
//! | 4 | a UP function was lost during the run: it stopped answering heartbeats, restarted, released the association or no longer knew it |
//! | 5 | more than `--max-timeout-share` per cent of the requests sent timed out |
//!
//! With 4 and 5 the summary is printed as usual; the last line on stderr says why the status
//! is not 0. A run that is both (a UP function restarted, its requests timed out) exits 4.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use pfcp_node::{Error as NodeError, PeerEvent};
use pfcp_overload::NodeKey;

use super::Tally;

/// Status 3: no association could be set up.
pub const NO_ASSOCIATION: u8 = 3;
/// Status 4: a UP function was lost during the run.
pub const UP_LOST: u8 = 4;
/// Status 5: too many requests timed out.
pub const TIMEOUTS: u8 = 5;

/// Why `pfcp cp` stopped early or failed: the message and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Failure {
    pub(super) message: String,
    pub(super) status: u8,
}

impl Failure {
    /// A run that could not start (status 1).
    pub(super) fn run(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            status: 1,
        }
    }

    pub(super) fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.status)
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::run(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        Failure::run(message)
    }
}

/// The association with `up` failed: what to tell the user (status 3).
pub(super) fn association_failed(up: SocketAddr, e: &NodeError, t1: Duration) -> Failure {
    let message = match e {
        NodeError::Timeout { transmissions } => format!(
            "no answer from {up} to the Association Setup Request ({}): is a UP function \
             (`pfcp up`) listening there?",
            match transmissions {
                1 => "sent once".to_string(),
                n => format!("sent {n} times, {} apart", secs(t1)),
            }
        ),
        NodeError::Rejected(cause) => format!(
            "the UP function at {up} refused the association: cause {} ({})",
            cause.0,
            cause.name().unwrap_or("unknown cause")
        ),
        NodeError::Io(io) => format!("cannot reach {up}: {}", crate::io_error_text(io)),
        other => format!("association with {up} failed: {other}"),
    };
    Failure {
        message,
        status: NO_ASSOCIATION,
    }
}

/// `1.5 s`, `500 ms`.
fn secs(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// `upf1.example.net (127.0.0.1:8805)`, or the address alone without a Node ID.
fn who(peer: &SocketAddr, node: Option<&NodeKey>) -> String {
    match node {
        Some(n) => format!("{n} ({peer})"),
        None => peer.to_string(),
    }
}

/// A peer event in words, and whether it means the UP function was lost (status 4). `None`
/// for the events the tool reports otherwise (associations, lost sessions).
pub(super) fn describe_event(e: &PeerEvent) -> Option<(String, bool)> {
    Some(match e {
        PeerEvent::Failed { peer, node } => (
            format!(
                "the UP function {} stopped answering heartbeats: association lost",
                who(peer, node.as_ref())
            ),
            true,
        ),
        PeerEvent::Restarted { peer, node } => (
            format!(
                "the UP function {} restarted (new Recovery Time Stamp): its sessions are gone",
                who(peer, node.as_ref())
            ),
            true,
        ),
        PeerEvent::Released { peer, node } => (
            format!(
                "the UP function {} released the association",
                who(peer, node.as_ref())
            ),
            true,
        ),
        PeerEvent::NotAssociated { peer, node } => (
            format!(
                "the UP function {} no longer knows this CP function (cause 72): associating again",
                who(peer, node.as_ref())
            ),
            true,
        ),
        // Associations and lost sessions: reported by the caller.
        _ => return None,
    })
}

/// The exit status of a complete run: 4 if a UP function was lost (`lost`: what happened),
/// 5 if more than `max_share` per cent of the requests sent timed out, else 0; with the line
/// that says why.
pub(super) fn verdict(total: &Tally, lost: &[String], max_share: f64) -> Option<Failure> {
    if let Some(first) = lost.first() {
        let more = match lost.len() {
            1 => String::new(),
            n => format!(" (and {} more events)", n - 1),
        };
        return Some(Failure {
            message: format!("a UP function was lost during the run: {first}{more}"),
            status: UP_LOST,
        });
    }
    if total.sent > 0 {
        let share = total.timed_out as f64 * 100.0 / total.sent as f64;
        if share > max_share {
            return Some(Failure {
                message: format!(
                    "{} of {} requests sent timed out ({share:.2} %, more than \
                     --max-timeout-share {max_share} %)",
                    total.timed_out, total.sent
                ),
                status: TIMEOUTS,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(sent: u64, timed_out: u64) -> Tally {
        Tally {
            offered: sent,
            sent,
            timed_out,
            ..Tally::default()
        }
    }

    #[test]
    fn the_status_says_what_went_wrong() {
        assert_eq!(verdict(&tally(1000, 10), &[], 1.0), None);
        let many = verdict(&tally(1000, 11), &[], 1.0).unwrap();
        assert_eq!(many.status, TIMEOUTS);
        assert!(many.message.contains("11 of 1000"), "{}", many.message);
        assert_eq!(verdict(&tally(0, 0), &[], 0.0), None);
        // A lost UP function wins over the timeouts it caused.
        let lost = verdict(&tally(1000, 500), &["x".into(), "y".into()], 1.0).unwrap();
        assert_eq!(lost.status, UP_LOST);
        assert!(lost.message.contains("x (and 1 more"), "{}", lost.message);
    }

    #[test]
    fn events_are_words_not_debug_output() {
        let peer: SocketAddr = "127.0.0.1:8805".parse().unwrap();
        let node = Some(NodeKey::Fqdn("upf1.example.net".into()));
        let (text, lost) = describe_event(&PeerEvent::Failed { peer, node }).unwrap();
        assert!(lost);
        assert_eq!(
            text,
            "the UP function upf1.example.net (127.0.0.1:8805) stopped answering heartbeats: association lost"
        );
        let e = association_failed(
            peer,
            &NodeError::Timeout { transmissions: 4 },
            Duration::from_secs(3),
        );
        assert_eq!(e.status, NO_ASSOCIATION);
        assert!(
            e.message.starts_with("no answer from 127.0.0.1:8805"),
            "{}",
            e.message
        );
        assert!(!e.message.contains('{'));
    }
}
