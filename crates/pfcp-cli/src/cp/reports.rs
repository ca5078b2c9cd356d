//! The UP functions' Session Report Requests (clause 7.5.8), answered in the endpoint's
//! request handler ([`pfcp_sim::responder::answer_report`]): Cause 1 for a session this CP
//! holds, Cause 65 for one it does not. The answers count in the egress rate of the
//! connection to that UP function (the router's EMR is requests plus answers), which is how a
//! reporting UP function loads it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pfcp_node::{HandlerReply, RequestView};
use pfcp_sim::responder::{answer_report, Answer};
use pfcp_wire::{Cause, MessageType};

use super::summary::ReportTally;

/// What the handler answered, shared with the summary.
#[derive(Debug, Default)]
pub(super) struct ReportCounter {
    accepted: AtomicU64,
    unknown_session: AtomicU64,
}

impl ReportCounter {
    pub(super) fn snapshot(&self) -> ReportTally {
        ReportTally {
            accepted: self.accepted.load(Ordering::Relaxed),
            unknown_session: self.unknown_session.load(Ordering::Relaxed),
        }
    }
}

/// The request handler of `pfcp cp`'s endpoint: every request a UP function sends that the
/// endpoint does not answer itself (Heartbeat, Association) ends here.
pub(super) fn handler(
    counter: Arc<ReportCounter>,
) -> impl FnMut(&RequestView<'_>) -> HandlerReply + Send + 'static {
    move |view: &RequestView<'_>| {
        let report = view.message_type() == MessageType::SESSION_REPORT_REQUEST;
        match answer_report(view.request()) {
            Ok(Answer::Respond(bytes, _)) => {
                counter.accepted.fetch_add(1, Ordering::Relaxed);
                HandlerReply::Respond(bytes)
            }
            Ok(Answer::Reject(cause)) => {
                if report && cause == Cause::SESSION_CONTEXT_NOT_FOUND {
                    counter.unknown_session.fetch_add(1, Ordering::Relaxed);
                }
                HandlerReply::Reject(cause)
            }
            Err(_) => HandlerReply::Reject(Cause::SYSTEM_FAILURE),
        }
    }
}
