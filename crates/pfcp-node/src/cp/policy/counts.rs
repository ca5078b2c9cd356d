//! What the policy counts of an OCI, an LCI and a refusal.

use pfcp_overload::{IgnoreReason, LciOutcome, OciOutcome};
use pfcp_throttle::ThrottleReason;

impl crate::cp::OciCounts {
    pub(super) fn count(&mut self, o: &OciOutcome) {
        match o {
            OciOutcome::Applied { .. } => self.applied += 1,
            OciOutcome::Ignored { reason, .. } => match reason {
                IgnoreReason::Duplicate => self.duplicate += 1,
                IgnoreReason::Stale { .. } => self.stale += 1,
                IgnoreReason::Malformed(_) => self.malformed += 1,
                IgnoreReason::UnexpectedMessage => self.unexpected_message += 1,
                IgnoreReason::TableFull => self.table_full += 1,
                IgnoreReason::Expired => self.expired_number += 1,
                _ => self.other += 1,
            },
        }
    }
}

impl crate::cp::LciCounts {
    pub(super) fn count(&mut self, l: &LciOutcome) {
        match l {
            LciOutcome::Applied { .. } => self.applied += 1,
            LciOutcome::Duplicate => self.duplicate += 1,
            LciOutcome::Stale => self.stale += 1,
            LciOutcome::Malformed(_) => self.malformed += 1,
            LciOutcome::UnexpectedMessage => self.unexpected_message += 1,
            _ => self.other += 1,
        }
    }
}

impl crate::cp::ThrottledCounts {
    pub(super) fn egress(&mut self, r: ThrottleReason) {
        match r {
            ThrottleReason::Level(_) => self.egress_level += 1,
            ThrottleReason::RateLimit => self.egress_rate += 1,
            ThrottleReason::PendingLimit => self.egress_pending += 1,
        }
    }
}
