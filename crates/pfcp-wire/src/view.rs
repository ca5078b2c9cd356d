//! [`MessageView`]: what a node reads from a message, in one walk over its IEs, without
//! allocation.
//!
//! The typed accessors of [`Message`] each scan the IE list again; a node that needs the
//! verdict of [`Message::validate`], the OCI, the LCI, the Cause, the Node ID, the F-SEID and
//! the Recovery Time Stamp would scan it eight times. [`Message::view`] visits every top-level
//! IE once and decodes each IE a node reads once:
//!
//! * the verdict is [`Message::validate`]'s, error for error (so the same Cause and Offending
//!   IE): `view()` is `Ok` exactly when `validate()` is;
//! * a malformed IE that is not mandatory (an optional OCI or LCI, a Cause where the message
//!   type does not require one, ...) is left out (`None`: clause 7.2.3.2, a bad optional IE
//!   is ignored) and counted in [`MessageView::ignored`];
//! * the session rules (Create/Update/Remove PDR, FAR, URR, QER, Created PDR, Usage Reports)
//!   are read when the node iterates them ([`MessageView::create_pdrs`], ...), each item a
//!   `Result`: the walk only notes where they are, so a node that only forwards or rejects the
//!   message does not pay for decoding them.

use crate::cause::Cause;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::ie::{walk_checked, DecodeLimits};
use crate::ie::{
    CreateBar, CreateFar, CreatePdr, CreateQer, CreateUrr, CreatedPdr, DownlinkDataReport, FSeid,
    IeType, LoadControlInformation, NodeId, OffendingIe, OverloadControlInformation, RawIe,
    RecoveryTimeStamp, RemoveBar, RemoveFar, RemovePdr, RemoveQer, RemoveUrr, ReportType, TypedIe,
    UpdateBar, UpdateFar, UpdatePdr, UpdateQer, UpdateUrr, UsageReportSdr, UsageReportSmr,
    UsageReportSrr,
};
use crate::message::{split_message, trailing_data, with_summary, Framed, Message};
use crate::presence::mandatory_ies;

/// The IEs a node reads from a message, decoded in one walk ([`Message::view`]).
///
/// Single IEs hold the first occurrence (clause 7.6.10). The session rules are methods that
/// decode every occurrence, in order, when iterated.
///
/// # Examples
///
/// A Session Deletion Response (type 55, a clause 7.2.2 session header) with Cause 1, Request
/// accepted (clause 8.2.1), and an OCI (type 54) whose Length of 0 leaves out its mandatory
/// members, IEs in the TLV format of clause 8.1.1: the view keeps the message and leaves out
/// the malformed optional IE (clause 7.2.3.2).
///
/// ```
/// use pfcp_wire::{Cause, Message, MessageType};
///
/// let bytes = [
///     0x21, 0x37, 0x00, 0x15, // version 1, S=1 | type 55 | Message Length 21
///     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, // SEID
///     0x00, 0x00, 0x2a, 0x00, // sequence number 42 | no priority
///     0x00, 0x13, 0x00, 0x01, 0x01, // Cause: Request accepted
///     0x00, 0x36, 0x00, 0x00, // OCI without members
/// ];
/// let view = Message::decode_view(&bytes)?;
/// assert_eq!(view.message.message_type(), MessageType::SESSION_DELETION_RESPONSE);
/// assert_eq!(view.cause, Some(Cause::REQUEST_ACCEPTED));
/// assert_eq!(view.overload_control_information, None);
/// assert_eq!(view.ignored, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// IEs left out because they were malformed and not mandatory (OCI, LCI, ...).
    pub ignored: usize,
}

/// Decode the first occurrence into `slot`.
#[inline(always)]
fn first<'a, T: TypedIe<'a>>(slot: &mut Option<T>, ie: &RawIe<'a>) -> Result<(), DecodeError> {
    if slot.is_none() {
        *slot = Some(T::decode(ie)?);
    }
    Ok(())
}

/// The state of one view walk: the values read so far, the mandatory IEs seen and the first
/// error among them. Shared by [`Message::view`] and [`Message::decode_view`].
struct Walk<'a> {
    cause: Option<Cause>,
    node_id: Option<NodeId<'a>>,
    f_seid: Option<FSeid>,
    recovery_time_stamp: Option<RecoveryTimeStamp>,
    overload_control_information: Option<OverloadControlInformation>,
    load_control_information: Option<LoadControlInformation>,
    offending_ie: Option<OffendingIe>,
    report_type: Option<ReportType>,
    ignored: usize,
    mandatory: &'static [IeType],
    /// Mandatory IEs seen, by position in `mandatory` (at most 4 per message type).
    seen: u8,
    /// The first error among the mandatory IEs' first occurrences, by position.
    failed: Option<(usize, DecodeError)>,
}

impl<'a> Walk<'a> {
    #[inline(always)]
    fn new(mandatory: &'static [IeType]) -> Walk<'a> {
        Walk {
            cause: None,
            node_id: None,
            f_seid: None,
            recovery_time_stamp: None,
            overload_control_information: None,
            load_control_information: None,
            offending_ie: None,
            report_type: None,
            ignored: 0,
            mandatory,
            seen: 0,
            failed: None,
        }
    }

    /// Read one top-level IE (framing checked).
    #[inline(always)]
    fn visit(&mut self, ie: &RawIe<'a>) {
        let ty = ie.ie_type();
        let decoded = match ty {
            IeType::CAUSE => first(&mut self.cause, ie),
            IeType::NODE_ID => first(&mut self.node_id, ie),
            IeType::F_SEID => first(&mut self.f_seid, ie),
            IeType::RECOVERY_TIME_STAMP => first(&mut self.recovery_time_stamp, ie),
            IeType::OVERLOAD_CONTROL_INFORMATION => {
                first(&mut self.overload_control_information, ie)
            }
            IeType::LOAD_CONTROL_INFORMATION => first(&mut self.load_control_information, ie),
            IeType::OFFENDING_IE => first(&mut self.offending_ie, ie),
            IeType::REPORT_TYPE => first(&mut self.report_type, ie),
            _ => {
                // Other mandatory IEs (Create PDR, Create FAR, Node Report Type): decoded
                // where `validate` decodes them, the first occurrence.
                match position(self.mandatory, ty) {
                    Some(i) if self.seen & (1 << i) == 0 => {
                        self.seen |= 1 << i;
                        if let Err(e) = crate::message::check_typed(ie) {
                            keep_first(&mut self.failed, i, e);
                        }
                    }
                    _ => {}
                }
                return;
            }
        };
        match position(self.mandatory, ty) {
            Some(i) if self.seen & (1 << i) == 0 => {
                self.seen |= 1 << i;
                if let Err(e) = decoded {
                    keep_first(&mut self.failed, i, e);
                }
            }
            Some(_) => {}
            None => {
                if decoded.is_err() {
                    self.ignored += 1;
                }
            }
        }
    }

    /// `validate`'s verdict (the first mandatory IE, in its order, missing or malformed) and
    /// the view of `message`.
    #[inline(always)]
    fn finish(self, message: &Message<'a>) -> Result<MessageView<'a>, DecodeError> {
        for (i, &m) in self.mandatory.iter().enumerate() {
            if let Some((at, e)) = self.failed {
                if at == i {
                    return Err(e.with_header(message.summary()));
                }
            }
            if self.seen & (1 << i) == 0 {
                return Err(message.view_error(DecodeErrorKind::MissingMandatory(m)));
            }
        }
        Ok(MessageView {
            message: *message,
            cause: self.cause,
            node_id: self.node_id,
            f_seid: self.f_seid,
            recovery_time_stamp: self.recovery_time_stamp,
            overload_control_information: self.overload_control_information,
            load_control_information: self.load_control_information,
            offending_ie: self.offending_ie,
            report_type: self.report_type,
            ignored: self.ignored,
        })
    }
}

impl<'a> Message<'a> {
    /// Everything a node reads from this message, in one walk, with the verdict of
    /// [`Message::validate`] (see the [module docs](crate::view)). `Err` carries the header
    /// summary and maps to the Cause and Offending IE to answer with.
    // Inlined so that the view is built in the caller's frame: out of line, returning the
    // 184-octet view cost a `memcpy` per message (13 % of the time in the corpus bench).
    #[inline]
    pub fn view(&self) -> Result<MessageView<'a>, DecodeError> {
        self.message_checks()?;
        let mut walk = Walk::new(mandatory_ies(self.message_type()));
        for ie in self.ies() {
            // Framing was checked by decode: no error here.
            let Ok(ie) = ie else { break };
            walk.visit(&ie);
        }
        walk.finish(self)
    }

    /// [`Message::decode`] and [`Message::view`] in one walk over the IEs: the framing check
    /// of a grouped IE (TS 29.244 clauses 8.1.1, 7.2.3.3) is made when the walk reaches it,
    /// and the view reads each top-level IE as it is checked.
    ///
    /// The result is exactly `Message::decode(bytes).and_then(|m| m.view())`'s: the same
    /// view, or the same error (a framing error anywhere in the message comes first, as in
    /// `decode`, then the message-level checks of [`Message::validate`] in its order). So the
    /// [`MessageView::message`] it returns has [`Message::decode`]'s contract: every IE's
    /// framing is checked, and iterating it cannot fail.
    #[inline]
    pub fn decode_view(bytes: &'a [u8]) -> Result<MessageView<'a>, DecodeError> {
        Self::decode_view_with_limits(bytes, DecodeLimits::DEFAULT)
    }

    /// [`Message::decode_view`] with explicit resource limits (those of
    /// [`Message::decode_with_limits`]).
    #[inline]
    pub fn decode_view_with_limits(
        bytes: &'a [u8],
        limits: DecodeLimits,
    ) -> Result<MessageView<'a>, DecodeError> {
        let Framed {
            header,
            header_len,
            bytes,
            trailing,
        } = split_message(bytes, 0)?;
        let body = bytes.get(header_len..).unwrap_or_default();
        let mut walk = Walk::new(mandatory_ies(header.message_type));
        let ie_count = match walk_checked(body, header_len, limits, |ie| walk.visit(&ie)) {
            Ok(n) => n,
            Err(e) => return Err(with_summary(e, &header)),
        };
        if !trailing.is_empty() {
            return Err(trailing_data(trailing.len(), bytes.len(), &header));
        }
        let message = Message::from_parts(header, header_len, bytes, 0, ie_count);
        message.message_checks()?;
        walk.finish(&message)
    }

    /// The message-level checks of [`Message::validate`] before its IEs: a defined type, the
    /// S flag that type needs.
    #[inline(always)]
    fn message_checks(&self) -> Result<(), DecodeError> {
        let t = self.message_type();
        let Some(session) = t.is_session() else {
            return Err(self.view_error(DecodeErrorKind::UnknownMessageType(t.0)));
        };
        if session != self.header().seid.is_some() {
            return Err(self.view_error(DecodeErrorKind::SFlagMismatch));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn view_error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.offset()).with_header(self.summary())
    }
}

/// The position of `ty` in `mandatory` (at most 4 entries per message type: compared one by
/// one, without a loop).
#[inline(always)]
fn position(mandatory: &[IeType], ty: IeType) -> Option<usize> {
    match mandatory {
        [a, ..] if *a == ty => Some(0),
        [_, b, ..] if *b == ty => Some(1),
        [_, _, c, ..] if *c == ty => Some(2),
        [_, _, _, d, rest @ ..] => {
            if *d == ty {
                Some(3)
            } else {
                rest.iter().position(|&m| m == ty).map(|i| i + 4)
            }
        }
        _ => None,
    }
}

/// Keep the error of the mandatory IE that comes first in `validate`'s order.
#[cold]
fn keep_first(failed: &mut Option<(usize, DecodeError)>, i: usize, e: DecodeError) {
    match failed {
        Some((at, _)) if *at < i => {}
        _ => *failed = Some((i, e)),
    }
}

macro_rules! rule_accessors {
    ($($(#[$doc:meta])* $name:ident: $t:ty;)*) => {
        impl<'a> MessageView<'a> {
            $(
                $(#[$doc])*
                pub fn $name(&self) -> impl Iterator<Item = Result<$t, DecodeError>> + 'a {
                    self.message.all::<$t>()
                }
            )*
        }
    };
}

rule_accessors! {
    /// Every Create PDR, decoded in order.
    create_pdrs: CreatePdr<'a>;
    /// Every Create FAR.
    create_fars: CreateFar<'a>;
    /// Every Create URR.
    create_urrs: CreateUrr;
    /// Every Create QER.
    create_qers: CreateQer;
    /// Every Create BAR (one is allowed).
    create_bars: CreateBar;
    /// Every Update PDR.
    update_pdrs: UpdatePdr<'a>;
    /// Every Update FAR.
    update_fars: UpdateFar<'a>;
    /// Every Update URR.
    update_urrs: UpdateUrr;
    /// Every Update QER.
    update_qers: UpdateQer;
    /// Every Update BAR (Session Modification Request).
    update_bars: UpdateBar;
    /// Every Remove PDR.
    remove_pdrs: RemovePdr;
    /// Every Remove FAR.
    remove_fars: RemoveFar;
    /// Every Remove URR.
    remove_urrs: RemoveUrr;
    /// Every Remove QER.
    remove_qers: RemoveQer;
    /// Every Remove BAR.
    remove_bars: RemoveBar;
    /// Every Created PDR (responses).
    created_pdrs: CreatedPdr<'a>;
    /// Every Usage Report of a Session Report Request.
    usage_reports_srr: UsageReportSrr;
    /// Every Usage Report of a Session Modification Response.
    usage_reports_smr: UsageReportSmr;
    /// Every Usage Report of a Session Deletion Response.
    usage_reports_sdr: UsageReportSdr;
    /// Every Downlink Data Report.
    downlink_data_reports: DownlinkDataReport<'a>;
}
