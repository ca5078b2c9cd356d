//! [`MessageView`]: what a node reads from a message, in one walk over its IEs, without
//! allocation.
//!
//! The typed accessors of [`Message`] each scan the IE list again; a node that needs the
//! verdict of [`Message::validate`], the OCI, the LCI, the Cause, the Node ID, the F-SEID, the
//! Recovery Time Stamp and the session rules would scan it a dozen times. [`Message::view`]
//! visits every top-level IE once, decodes each IE a node reads once, and gives the same
//! answers:
//!
//! * the verdict of [`Message::validate`] (same error, so the same Cause and Offending IE);
//! * a malformed **mandatory** IE, or a malformed session rule IE (Create/Update/Remove PDR,
//!   FAR, URR, QER, BAR, Created PDR, Usage Report, Downlink Data Report, Report Type), makes
//!   the view an error: a node cannot act on the message (clause 7.6: Cause 68 or 69 and the
//!   Offending IE);
//! * any other malformed IE (an optional OCI or LCI, a Cause where it is not mandatory, ...) is
//!   left out (`None`, the first well-formed occurrence is kept), as clause 7.2.3.2 asks for a
//!   bad optional IE, and counted in [`MessageView::ignored`].
//!
//! So `view()` is `Ok` only if [`Message::validate`] is, and when `validate` fails `view`
//! fails with the same error.

use crate::cause::Cause;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::ie::{
    CreateBar, CreateFar, CreatePdr, CreateQer, CreateUrr, CreatedPdr, DownlinkDataReport, FSeid,
    IeType, LoadControlInformation, NodeId, OffendingIe, OverloadControlInformation,
    RecoveryTimeStamp, RemoveBar, RemoveFar, RemovePdr, RemoveQer, RemoveUrr, Repeated, ReportType,
    TypedIe, UpdateBar, UpdateFar, UpdatePdr, UpdateQer, UpdateUrr, UsageReportSdr, UsageReportSmr,
    UsageReportSrr,
};
use crate::message::Message;
use crate::presence::mandatory_ies;

/// The IEs a node reads from a message, decoded in one walk ([`Message::view`]).
///
/// Single IEs hold the first occurrence (clause 7.6.10); the repeated ones (the rules) are
/// methods giving every occurrence in order, each decoded once during the walk (so iterating
/// them cannot fail). The view stays small (a few hundred octets): the rules are read from
/// the message when iterated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MessageView<'a> {
    /// The message.
    pub message: Message<'a>,
    /// Cause.
    pub cause: Option<Cause>,
    /// Node ID.
    pub node_id: Option<NodeId<'a>>,
    /// F-SEID (the sender's).
    pub f_seid: Option<FSeid>,
    /// Recovery Time Stamp.
    pub recovery_time_stamp: Option<RecoveryTimeStamp>,
    /// Overload Control Information (`None` if absent or malformed).
    pub overload_control_information: Option<OverloadControlInformation>,
    /// Load Control Information (`None` if absent or malformed).
    pub load_control_information: Option<LoadControlInformation>,
    /// Offending IE.
    pub offending_ie: Option<OffendingIe>,
    /// Report Type (Session Report Request).
    pub report_type: Option<ReportType>,
    /// Create BAR.
    pub create_bar: Option<CreateBar>,
    /// Update BAR (Session Modification Request).
    pub update_bar: Option<UpdateBar>,
    /// Remove BAR.
    pub remove_bar: Option<RemoveBar>,
    /// Downlink Data Report.
    pub downlink_data_report: Option<DownlinkDataReport<'a>>,
    /// IEs left out because they were malformed (optional ones: OCI, LCI, ...).
    pub ignored: usize,
    /// How many of each session rule the message holds (each decoded once by the walk).
    counts: Counts,
}

/// Counts of the repeated IEs, filled during the walk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    create_pdrs: usize,
    create_fars: usize,
    create_urrs: usize,
    create_qers: usize,
    update_pdrs: usize,
    update_fars: usize,
    update_urrs: usize,
    update_qers: usize,
    remove_pdrs: usize,
    remove_fars: usize,
    remove_urrs: usize,
    remove_qers: usize,
    created_pdrs: usize,
    usage_reports_srr: usize,
    usage_reports_smr: usize,
    usage_reports_sdr: usize,
}

/// Decode the first occurrence into `slot`.
#[inline]
fn first<'a, T: TypedIe<'a>>(
    slot: &mut Option<T>,
    ie: &crate::RawIe<'a>,
) -> Result<(), DecodeError> {
    if slot.is_none() {
        *slot = Some(T::decode(ie)?);
    }
    Ok(())
}

/// Decode one more occurrence (to validate it) and count it.
#[inline]
fn count<'a, T: TypedIe<'a>>(n: &mut usize, ie: &crate::RawIe<'a>) -> Result<(), DecodeError> {
    T::decode(ie)?;
    *n += 1;
    Ok(())
}

impl<'a> Message<'a> {
    /// Everything a node reads from this message, in one walk, with the verdict of
    /// [`Message::validate`] (see the [module docs](crate::view)). `Err` carries the header
    /// summary and maps to the Cause and Offending IE to answer with.
    pub fn view(&self) -> Result<MessageView<'a>, DecodeError> {
        let summary = self.summary();
        let at = |kind| DecodeError::new(kind, self.offset()).with_header(summary);
        let t = self.message_type();
        let Some(session) = t.is_session() else {
            return Err(at(DecodeErrorKind::UnknownMessageType(t.0)));
        };
        if session != self.header().seid.is_some() {
            return Err(at(DecodeErrorKind::SFlagMismatch));
        }
        let mandatory = mandatory_ies(t);
        let mut v = MessageView::empty(*self);
        let mut n = Counts::default();
        // Mandatory IEs seen, by position in `mandatory` (at most 4 per message type), and
        // the error of the first occurrence of each.
        let mut seen = 0u8;
        let mut mandatory_errors: [Option<DecodeError>; 4] = [None; 4];
        let mut rule_error: Option<DecodeError> = None;
        for ie in self.ies() {
            let ie = ie?;
            let ty = ie.ie_type();
            let index = mandatory.iter().position(|&m| m == ty);
            let decoded = match ty {
                IeType::CAUSE => first(&mut v.cause, &ie),
                IeType::NODE_ID => first(&mut v.node_id, &ie),
                IeType::F_SEID => first(&mut v.f_seid, &ie),
                IeType::RECOVERY_TIME_STAMP => first(&mut v.recovery_time_stamp, &ie),
                IeType::OVERLOAD_CONTROL_INFORMATION => {
                    first(&mut v.overload_control_information, &ie)
                }
                IeType::LOAD_CONTROL_INFORMATION => first(&mut v.load_control_information, &ie),
                IeType::OFFENDING_IE => first(&mut v.offending_ie, &ie),
                IeType::REPORT_TYPE => first(&mut v.report_type, &ie),
                IeType::CREATE_PDR => count::<CreatePdr<'a>>(&mut n.create_pdrs, &ie),
                IeType::CREATE_FAR => count::<CreateFar<'a>>(&mut n.create_fars, &ie),
                IeType::CREATE_URR => count::<CreateUrr>(&mut n.create_urrs, &ie),
                IeType::CREATE_QER => count::<CreateQer>(&mut n.create_qers, &ie),
                IeType::CREATE_BAR => first(&mut v.create_bar, &ie),
                IeType::UPDATE_PDR => count::<UpdatePdr<'a>>(&mut n.update_pdrs, &ie),
                IeType::UPDATE_FAR => count::<UpdateFar<'a>>(&mut n.update_fars, &ie),
                IeType::UPDATE_URR => count::<UpdateUrr>(&mut n.update_urrs, &ie),
                IeType::UPDATE_QER => count::<UpdateQer>(&mut n.update_qers, &ie),
                IeType::UPDATE_BAR_SMR => first(&mut v.update_bar, &ie),
                IeType::REMOVE_PDR => count::<RemovePdr>(&mut n.remove_pdrs, &ie),
                IeType::REMOVE_FAR => count::<RemoveFar>(&mut n.remove_fars, &ie),
                IeType::REMOVE_URR => count::<RemoveUrr>(&mut n.remove_urrs, &ie),
                IeType::REMOVE_QER => count::<RemoveQer>(&mut n.remove_qers, &ie),
                IeType::REMOVE_BAR => first(&mut v.remove_bar, &ie),
                IeType::CREATED_PDR => count::<CreatedPdr<'a>>(&mut n.created_pdrs, &ie),
                IeType::USAGE_REPORT_SRR => count::<UsageReportSrr>(&mut n.usage_reports_srr, &ie),
                IeType::USAGE_REPORT_SMR => count::<UsageReportSmr>(&mut n.usage_reports_smr, &ie),
                IeType::USAGE_REPORT_SDR => count::<UsageReportSdr>(&mut n.usage_reports_sdr, &ie),
                IeType::DOWNLINK_DATA_REPORT => first(&mut v.downlink_data_report, &ie),
                _ => Ok(()),
            };
            match (decoded, index) {
                (Ok(()), Some(i)) => seen |= 1 << i,
                (Ok(()), None) => {}
                (Err(e), Some(i)) => {
                    // Only the first occurrence counts for a mandatory IE (as `validate`).
                    if seen & (1 << i) == 0 {
                        seen |= 1 << i;
                        if let Some(slot) = mandatory_errors.get_mut(i) {
                            *slot = Some(e);
                        }
                    }
                }
                (Err(e), None) if is_rule(ty) => {
                    rule_error.get_or_insert(e);
                }
                (Err(_), None) => v.ignored += 1,
            }
        }
        // `validate`'s verdict: the mandatory IEs in its order, missing or malformed.
        for (i, &m) in mandatory.iter().enumerate() {
            if let Some(e) = mandatory_errors.get_mut(i).and_then(Option::take) {
                return Err(e.with_header(summary));
            }
            if seen & (1 << i) == 0 {
                return Err(at(DecodeErrorKind::MissingMandatory(m)));
            }
        }
        if let Some(e) = rule_error {
            return Err(e.with_header(summary));
        }
        v.counts = n;
        Ok(v)
    }
}

/// The session rule IEs: malformed, they make the view an error even where not mandatory.
fn is_rule(ty: IeType) -> bool {
    matches!(
        ty,
        IeType::CREATE_PDR
            | IeType::CREATE_FAR
            | IeType::CREATE_URR
            | IeType::CREATE_QER
            | IeType::CREATE_BAR
            | IeType::UPDATE_PDR
            | IeType::UPDATE_FAR
            | IeType::UPDATE_URR
            | IeType::UPDATE_QER
            | IeType::UPDATE_BAR_SMR
            | IeType::REMOVE_PDR
            | IeType::REMOVE_FAR
            | IeType::REMOVE_URR
            | IeType::REMOVE_QER
            | IeType::REMOVE_BAR
            | IeType::CREATED_PDR
            | IeType::USAGE_REPORT_SRR
            | IeType::USAGE_REPORT_SMR
            | IeType::USAGE_REPORT_SDR
            | IeType::DOWNLINK_DATA_REPORT
            | IeType::REPORT_TYPE
    )
}

impl<'a> MessageView<'a> {
    /// Every Create PDR, in order.
    pub fn create_pdrs(&self) -> Repeated<'a, CreatePdr<'a>> {
        Repeated::in_list(self.message.body(), self.counts.create_pdrs)
    }

    /// Every Create FAR, in order.
    pub fn create_fars(&self) -> Repeated<'a, CreateFar<'a>> {
        Repeated::in_list(self.message.body(), self.counts.create_fars)
    }

    /// Every Create URR, in order.
    pub fn create_urrs(&self) -> Repeated<'a, CreateUrr> {
        Repeated::in_list(self.message.body(), self.counts.create_urrs)
    }

    /// Every Create QER, in order.
    pub fn create_qers(&self) -> Repeated<'a, CreateQer> {
        Repeated::in_list(self.message.body(), self.counts.create_qers)
    }

    /// Every Update PDR, in order.
    pub fn update_pdrs(&self) -> Repeated<'a, UpdatePdr<'a>> {
        Repeated::in_list(self.message.body(), self.counts.update_pdrs)
    }

    /// Every Update FAR, in order.
    pub fn update_fars(&self) -> Repeated<'a, UpdateFar<'a>> {
        Repeated::in_list(self.message.body(), self.counts.update_fars)
    }

    /// Every Update URR, in order.
    pub fn update_urrs(&self) -> Repeated<'a, UpdateUrr> {
        Repeated::in_list(self.message.body(), self.counts.update_urrs)
    }

    /// Every Update QER, in order.
    pub fn update_qers(&self) -> Repeated<'a, UpdateQer> {
        Repeated::in_list(self.message.body(), self.counts.update_qers)
    }

    /// Every Remove PDR, in order.
    pub fn remove_pdrs(&self) -> Repeated<'a, RemovePdr> {
        Repeated::in_list(self.message.body(), self.counts.remove_pdrs)
    }

    /// Every Remove FAR, in order.
    pub fn remove_fars(&self) -> Repeated<'a, RemoveFar> {
        Repeated::in_list(self.message.body(), self.counts.remove_fars)
    }

    /// Every Remove URR, in order.
    pub fn remove_urrs(&self) -> Repeated<'a, RemoveUrr> {
        Repeated::in_list(self.message.body(), self.counts.remove_urrs)
    }

    /// Every Remove QER, in order.
    pub fn remove_qers(&self) -> Repeated<'a, RemoveQer> {
        Repeated::in_list(self.message.body(), self.counts.remove_qers)
    }

    /// Every Created PDR, in order.
    pub fn created_pdrs(&self) -> Repeated<'a, CreatedPdr<'a>> {
        Repeated::in_list(self.message.body(), self.counts.created_pdrs)
    }

    /// Every Usage Report (Session Report Request), in order.
    pub fn usage_reports_srr(&self) -> Repeated<'a, UsageReportSrr> {
        Repeated::in_list(self.message.body(), self.counts.usage_reports_srr)
    }

    /// Every Usage Report (Session Modification Response), in order.
    pub fn usage_reports_smr(&self) -> Repeated<'a, UsageReportSmr> {
        Repeated::in_list(self.message.body(), self.counts.usage_reports_smr)
    }

    /// Every Usage Report (Session Deletion Response), in order.
    pub fn usage_reports_sdr(&self) -> Repeated<'a, UsageReportSdr> {
        Repeated::in_list(self.message.body(), self.counts.usage_reports_sdr)
    }

    fn empty(message: Message<'a>) -> Self {
        MessageView {
            message,
            cause: None,
            node_id: None,
            f_seid: None,
            recovery_time_stamp: None,
            overload_control_information: None,
            load_control_information: None,
            offending_ie: None,
            report_type: None,
            create_bar: None,
            update_bar: None,
            remove_bar: None,
            downlink_data_report: None,
            ignored: 0,
            counts: Counts::default(),
        }
    }
}
