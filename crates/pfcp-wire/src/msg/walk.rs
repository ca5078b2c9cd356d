//! The one walk that decodes a typed message: every top-level IE is handed once to the
//! message's generated `Fields::visit`, which decodes a single IE into its slot (the first
//! occurrence, clause 7.6.10), checks each occurrence of a repeated one and counts the others;
//! `Fields::finish` then gives the verdict and builds the message.
//!
//! The verdict, in this order:
//!
//! 1. the message checks of [`Message::validate`] (the type, the S flag);
//! 2. the mandatory IEs in the table's order, the first one missing
//!    ([`DecodeErrorKind::MissingMandatory`]) or whose first occurrence does not decode: the
//!    error `validate` gives (the same list, `presence::mandatory_ies`, comes from the same
//!    table);
//! 3. the first IE in the message, among the conditional ones and the later occurrences of a
//!    repeated mandatory one, that does not decode.
//!
//! An optional IE that does not decode is left out (clause 7.6: a receiver ignores it), as
//! are the later occurrences of a single IE (clause 7.6.10).

use crate::error::{DecodeError, DecodeErrorKind};
use crate::header::Header;
use crate::ie::{walk_checked, DecodeLimits, IeType, RawIe};
use crate::message::{split_message, trailing_data, with_summary, Framed, Message};
use crate::message_type::MessageType;
use crate::msg::list::{IeList, MessageIe, OtherIes};

/// The generated decode state of one message type.
pub(crate) trait Fields<'a>: Default {
    /// The typed message.
    type Message;
    /// Its message type.
    const MESSAGE_TYPE: MessageType;
    /// Read one top-level IE.
    fn visit(&mut self, walk: &mut Walk<'a>, ie: &RawIe<'a>);
    /// The verdict, and the message handed to `wrap` (so that the message is built where the
    /// caller wants it, an [`AnyMessage`](crate::msg::AnyMessage) variant, not moved there).
    fn finish<R>(
        self,
        walk: Walk<'a>,
        message: &Message<'a>,
        wrap: impl FnOnce(Self::Message) -> R,
    ) -> Result<R, DecodeError>;
}

/// How a field's IE is required (TS 29.244 clause 7.6 and the message's table).
#[derive(Clone, Copy)]
pub(crate) enum Presence {
    /// Mandatory, at this position among the table's mandatory IEs.
    Mandatory(u8),
    /// Conditional: when present, it must decode.
    Conditional,
    /// Optional: when it does not decode, it is ignored.
    Optional,
}

/// Where the occurrences of a repeated IE (or the other IEs) are: the position of the first
/// in the message's IE list, and how many there are.
#[derive(Default, Clone, Copy)]
pub(crate) struct Span {
    start: u16,
    count: u16,
}

impl Span {
    #[inline(always)]
    fn push(&mut self, pos: u16) {
        if self.count == 0 {
            self.start = pos;
        }
        self.count = self.count.wrapping_add(1);
    }
}

/// The state of one walk beside the fields: where the IE list is, the errors so far.
pub(crate) struct Walk<'a> {
    root: &'a [u8],
    root_offset: usize,
    /// Single IEs (a bit each) whose first occurrence did not decode: their later occurrences
    /// are ignored too.
    failed: u64,
    /// The first mandatory IE, in the table's order, whose first occurrence did not decode.
    mandatory: Option<(u8, DecodeError)>,
    /// The first other IE, in the message's order, that did not decode and is not optional.
    conditional: Option<DecodeError>,
    other: Span,
}

impl<'a> Walk<'a> {
    #[inline(always)]
    fn new(root: &'a [u8], root_offset: usize) -> Walk<'a> {
        Walk {
            root,
            root_offset,
            failed: 0,
            mandatory: None,
            conditional: None,
            other: Span::default(),
        }
    }

    /// Position of `ie` in the IE list.
    #[inline(always)]
    fn pos(&self, ie: &RawIe<'a>) -> u16 {
        // An IE of the list: its offset is at least the list's, and a message body is shorter
        // than 64 KiB (its Message Length is 16 bits).
        ie.offset().wrapping_sub(self.root_offset) as u16
    }

    /// A single IE: the first occurrence into `slot` (field bit `bit`), later ones ignored.
    #[inline(always)]
    pub(crate) fn single<T: MessageIe<'a>>(
        &mut self,
        slot: &mut Option<T>,
        ie: &RawIe<'a>,
        bit: u64,
        presence: Presence,
    ) {
        if slot.is_some() || self.failed & bit != 0 {
            return;
        }
        match T::from_raw(ie) {
            Ok(v) => *slot = Some(v),
            Err(e) => {
                self.failed |= bit;
                self.fail(presence, e);
            }
        }
    }

    /// One occurrence of a repeated IE, checked.
    #[inline(always)]
    pub(crate) fn repeated<T: MessageIe<'a>>(
        &mut self,
        span: &mut Span,
        ie: &RawIe<'a>,
        presence: Presence,
    ) {
        if let Err(e) = T::check_raw(ie) {
            // `validate` checks only the first occurrence of a mandatory IE.
            let presence = match presence {
                Presence::Mandatory(_) if span.count > 0 => Presence::Conditional,
                p => p,
            };
            self.fail(presence, e);
        }
        span.push(self.pos(ie));
    }

    /// An IE the table does not list.
    #[inline(always)]
    pub(crate) fn other(&mut self, ie: &RawIe<'a>) {
        let pos = self.pos(ie);
        self.other.push(pos);
    }

    #[cold]
    #[inline(never)]
    fn fail(&mut self, presence: Presence, e: DecodeError) {
        match presence {
            Presence::Mandatory(rank) => match self.mandatory {
                Some((first, _)) if first < rank => {}
                _ => self.mandatory = Some((rank, e)),
            },
            Presence::Conditional => {
                if self.conditional.is_none() {
                    self.conditional = Some(e);
                }
            }
            Presence::Optional => {}
        }
    }

    /// The mandatory single IE at `rank` among the mandatory IEs, of type `ie_type`.
    #[inline(always)]
    pub(crate) fn mandatory<T>(
        &self,
        slot: Option<T>,
        rank: u8,
        ie_type: IeType,
        message: &Message<'a>,
    ) -> Result<T, DecodeError> {
        self.mandatory_failed(rank, message)?;
        match slot {
            Some(v) => Ok(v),
            None => Err(missing(ie_type, message)),
        }
    }

    /// The mandatory repeated IE at `rank`: at least one occurrence.
    #[inline(always)]
    pub(crate) fn mandatory_repeated(
        &self,
        span: &Span,
        rank: u8,
        ie_type: IeType,
        message: &Message<'a>,
    ) -> Result<(), DecodeError> {
        self.mandatory_failed(rank, message)?;
        if span.count == 0 {
            return Err(missing(ie_type, message));
        }
        Ok(())
    }

    #[inline(always)]
    fn mandatory_failed(&self, rank: u8, message: &Message<'a>) -> Result<(), DecodeError> {
        match &self.mandatory {
            Some((r, e)) if *r == rank => Err(e.with_header(message.summary())),
            _ => Ok(()),
        }
    }

    /// The verdict on the other IEs, once the mandatory ones are in.
    #[inline(always)]
    pub(crate) fn conditional(&self, message: &Message<'a>) -> Result<(), DecodeError> {
        match &self.conditional {
            Some(e) => Err(e.with_header(message.summary())),
            None => Ok(()),
        }
    }

    /// The repeated IE of `span`.
    #[inline(always)]
    pub(crate) fn list<T>(&self, span: Span, ie_type: IeType) -> IeList<'a, T> {
        IeList::wire(self.root, self.root_offset, span.start, span.count, ie_type)
    }

    /// The IEs the table does not list (`listed` says which types it does).
    #[inline(always)]
    pub(crate) fn others(&self, listed: fn(IeType) -> bool) -> OtherIes<'a> {
        OtherIes::wire(
            self.root,
            self.root_offset,
            self.other.start,
            self.other.count,
            listed,
        )
    }
}

#[cold]
#[inline(never)]
fn missing(ie_type: IeType, message: &Message<'_>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::MissingMandatory(ie_type), message.offset())
        .with_header(message.summary())
}

#[cold]
#[inline(never)]
fn message_error(kind: DecodeErrorKind, message: &Message<'_>) -> DecodeError {
    DecodeError::new(kind, message.offset()).with_header(message.summary())
}

/// The message checks of `validate` for a message read as `expected`: that type, and the S
/// flag it needs.
#[inline(always)]
fn message_checks(message: &Message<'_>, expected: MessageType) -> Result<(), DecodeError> {
    let found = message.message_type();
    if found != expected {
        return Err(message_error(
            DecodeErrorKind::UnexpectedMessageType { expected, found },
            message,
        ));
    }
    if expected.is_session() != Some(message.header().seid.is_some()) {
        return Err(message_error(DecodeErrorKind::SFlagMismatch, message));
    }
    Ok(())
}

/// The typed message of a decoded `message`: one walk over its top-level IEs; `wrap` receives
/// it.
#[inline(always)]
pub(crate) fn decode<'a, F: Fields<'a>, R>(
    message: &Message<'a>,
    wrap: impl FnOnce(F::Message) -> R,
) -> Result<R, DecodeError> {
    message_checks(message, F::MESSAGE_TYPE)?;
    let mut walk = Walk::new(message.body(), message.body_offset());
    let mut fields = F::default();
    for ie in message.ies() {
        // Framing was checked by `Message::decode`: no error here.
        let Ok(ie) = ie else { break };
        fields.visit(&mut walk, &ie);
    }
    fields.finish(walk, message, wrap)
}

/// `Message::decode_with_limits(bytes, limits)` and [`decode`] in one walk: each grouped IE's
/// framing is checked when the walk reaches it (as [`Message::decode_view`] does), so the
/// result is exactly that of the two steps, error for error.
#[inline(always)]
pub(crate) fn parse<'a, F: Fields<'a>, R>(
    bytes: &'a [u8],
    limits: DecodeLimits,
    wrap: impl FnOnce(F::Message) -> R,
) -> Result<R, DecodeError> {
    let Framed {
        header,
        header_len,
        bytes,
        trailing,
    } = split_message(bytes, 0)?;
    let body = bytes.get(header_len..).unwrap_or_default();
    let mut walk = Walk::new(body, header_len);
    let mut fields = F::default();
    let ie_count = match walk_checked(body, header_len, limits, |ie| fields.visit(&mut walk, &ie)) {
        Ok(n) => n,
        Err(e) => return Err(with_summary(e, &header)),
    };
    if !trailing.is_empty() {
        return Err(trailing_data(trailing.len(), bytes.len(), &header));
    }
    let message = Message::from_parts(header, header_len, bytes, 0, ie_count);
    message_checks(&message, F::MESSAGE_TYPE)?;
    fields.finish(walk, &message, wrap)
}

/// A new header for a message of type `t`: sequence 0, SEID 0 for a session message (S=1).
pub(crate) const fn new_header(t: MessageType) -> Header {
    match t.is_session() {
        Some(true) => Header::new(t).with_seid(0),
        _ => Header::new(t),
    }
}

/// Whether two headers are the same but for the Message Length (which follows from the IEs).
pub(crate) fn same_header(a: &Header, b: &Header) -> bool {
    a.message_type == b.message_type
        && a.seid == b.seid
        && a.sequence == b.sequence
        && a.priority == b.priority
        && a.follow_on == b.follow_on
}
