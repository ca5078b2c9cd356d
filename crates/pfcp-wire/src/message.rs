//! Messages (TS 29.244 clause 7.2) and datagrams carrying FO-bundled messages (clause 7.2.1A).

use crate::cause::Cause;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::header::{Header, HeaderSummary, NODE_HEADER_LEN};
use crate::ie::{
    check_framing, CpFunctionFeatures, DecodeLimits, FSeid, IeIter, IeType, LoadControlInformation,
    NodeId, OffendingIe, OverloadControlInformation, RawIe, RecoveryTimeStamp, TypedIe,
    UpFunctionFeatures,
};
use crate::message_type::MessageType;
use crate::presence::mandatory_ies;

/// One decoded PFCP message: the header and a zero-copy view of its IEs.
///
/// [`Message::decode`] checks the header and the framing of every IE (grouped IEs included,
/// within [`DecodeLimits`]), so iterating afterwards cannot fail on framing. Typed IEs are
/// decoded on demand by the accessors, which are total too.
///
/// # Examples
///
/// A Heartbeat Request laid out from the spec: the 8-octet node header of clause 7.2.2
/// (Message Length: the octets after the first 4), then the mandatory Recovery Time Stamp
/// (type 96, clause 8.2.65) in the TLV format of clause 8.1.1.
///
/// ```
/// use pfcp_wire::ie::{IeType, RecoveryTimeStamp};
/// use pfcp_wire::{Message, MessageType, SequenceNumber};
///
/// let bytes = [
///     0x20, 0x01, 0x00, 0x0c, // version 1, S=0 | type 1 | Message Length 12
///     0x00, 0x00, 0x2a, 0x00, // sequence number 42 | spare
///     0x00, 0x60, 0x00, 0x04, // IE type 96 | IE Length 4
///     0xe8, 0xf4, 0xa2, 0xb0, // NTP seconds
/// ];
/// let msg = Message::decode(&bytes)?;
/// assert_eq!(msg.message_type(), MessageType::HEARTBEAT_REQUEST);
/// assert_eq!(msg.header().sequence, SequenceNumber::new(42).ok_or("over 24 bits")?);
/// assert_eq!(msg.header().seid, None);
/// assert_eq!(msg.ie_count(), 1);
/// assert!(msg.find(IeType::RECOVERY_TIME_STAMP).is_some());
/// assert_eq!(msg.get::<RecoveryTimeStamp>()?, Some(RecoveryTimeStamp(0xe8f4_a2b0)));
/// msg.validate()?; // the mandatory IEs of clause 7.4.2.1 are there
///
/// // One octet short of the Message Length: an error, never a panic.
/// assert!(Message::decode(&bytes[..15]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    header: Header,
    header_len: usize,
    bytes: &'a [u8],
    base: usize,
    ie_count: usize,
}

impl<'a> Message<'a> {
    /// Decode exactly one message filling `bytes` (use [`Datagram`] for FO bundles).
    #[inline]
    pub fn decode(bytes: &'a [u8]) -> Result<Message<'a>, DecodeError> {
        Self::decode_at(bytes, 0, DecodeLimits::DEFAULT, true)
    }

    /// [`Message::decode`] with explicit resource limits.
    #[inline]
    pub fn decode_with_limits(
        bytes: &'a [u8],
        limits: DecodeLimits,
    ) -> Result<Message<'a>, DecodeError> {
        Self::decode_at(bytes, 0, limits, true)
    }

    /// Decode the message at the start of `bytes`, which may continue with more octets.
    /// `base` is the offset of `bytes` in the caller's buffer (for error offsets).
    #[inline]
    pub fn decode_prefix(
        bytes: &'a [u8],
        base: usize,
        limits: DecodeLimits,
    ) -> Result<Message<'a>, DecodeError> {
        Self::decode_at(bytes, base, limits, false)
    }

    /// The three decoders in one body (inlined into each, so the `Message` and the `Result`
    /// are built once, in place, and the error paths stay out of line). `whole`: octets after
    /// the message are an error.
    #[inline(always)]
    fn decode_at(
        bytes: &'a [u8],
        base: usize,
        limits: DecodeLimits,
        whole: bool,
    ) -> Result<Message<'a>, DecodeError> {
        let Framed {
            header,
            header_len,
            bytes,
            trailing,
        } = split_message(bytes, base)?;
        let body = bytes.get(header_len..).unwrap_or_default();
        let ie_count = match check_framing(body, base + header_len, limits) {
            Ok(n) => n,
            Err(e) => return Err(with_summary(e, &header)),
        };
        if whole && !trailing.is_empty() {
            return Err(trailing_data(trailing.len(), bytes.len(), &header));
        }
        Ok(Message::from_parts(
            header, header_len, bytes, base, ie_count,
        ))
    }

    /// A message from its checked parts (the decoders of this module and
    /// [`Message::decode_view`]).
    #[inline(always)]
    pub(crate) fn from_parts(
        header: Header,
        header_len: usize,
        bytes: &'a [u8],
        base: usize,
        ie_count: usize,
    ) -> Message<'a> {
        Message {
            header,
            header_len,
            bytes,
            base,
            ie_count,
        }
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The message type.
    pub fn message_type(&self) -> MessageType {
        self.header.message_type
    }

    /// The message's octets (header included).
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The octets after the header (the IEs).
    pub fn body(&self) -> &'a [u8] {
        self.bytes.get(self.header_len..).unwrap_or_default()
    }

    /// Offset of this message in the buffer it was decoded from.
    pub fn offset(&self) -> usize {
        self.base
    }

    /// Offset of the first IE in the buffer it was decoded from.
    pub(crate) fn body_offset(&self) -> usize {
        self.base + self.header_len
    }

    /// Number of IEs, all nesting levels counted (grouped IEs TS 29.244 defines).
    pub fn ie_count(&self) -> usize {
        self.ie_count
    }

    /// The top-level IEs.
    pub fn ies(&self) -> IeIter<'a> {
        IeIter::new(self.body(), self.base + self.header_len)
    }

    /// The first top-level IE of `ie_type` (clause 7.6.10: repetitions of a single IE are
    /// ignored).
    pub fn find(&self, ie_type: IeType) -> Option<RawIe<'a>> {
        // Framing was checked by decode, so the iterator yields no error here.
        self.ies().flatten().find(|ie| ie.ie_type() == ie_type)
    }

    /// Decode the first top-level IE of `T`'s type: `Ok(None)` if absent, `Err` if present
    /// but malformed.
    pub fn get<T: TypedIe<'a>>(&self) -> Result<Option<T>, DecodeError> {
        match self.find(T::IE_TYPE) {
            Some(ie) => T::decode(&ie).map(Some),
            None => Ok(None),
        }
    }

    /// Every top-level IE of `T`'s type, decoded, in order (the Create PDRs of a Session
    /// Establishment Request, ...). Lazy and allocation-free.
    pub fn all<T: TypedIe<'a>>(&self) -> impl Iterator<Item = Result<T, DecodeError>> + 'a {
        self.ies()
            .flatten()
            .filter(|ie| ie.ie_type() == T::IE_TYPE)
            .map(|ie| T::decode(&ie))
    }

    /// Cause (type 19).
    pub fn cause(&self) -> Result<Option<Cause>, DecodeError> {
        self.get()
    }

    /// Node ID (type 60).
    pub fn node_id(&self) -> Result<Option<NodeId<'a>>, DecodeError> {
        self.get()
    }

    /// F-SEID (type 57): the sender's (CP F-SEID in requests, UP F-SEID in responses).
    pub fn f_seid(&self) -> Result<Option<FSeid>, DecodeError> {
        self.get()
    }

    /// Recovery Time Stamp (type 96).
    pub fn recovery_time_stamp(&self) -> Result<Option<RecoveryTimeStamp>, DecodeError> {
        self.get()
    }

    /// Overload Control Information (type 54). A malformed OCI must be ignored rather than
    /// reject the message (clause 7.2.3.2: its members are optional in an optional group).
    pub fn overload_control_information(
        &self,
    ) -> Result<Option<OverloadControlInformation>, DecodeError> {
        self.get()
    }

    /// Load Control Information (type 51).
    pub fn load_control_information(&self) -> Result<Option<LoadControlInformation>, DecodeError> {
        self.get()
    }

    /// Offending IE (type 40).
    pub fn offending_ie(&self) -> Result<Option<OffendingIe>, DecodeError> {
        self.get()
    }

    /// CP Function Features (type 89).
    pub fn cp_function_features(&self) -> Result<Option<CpFunctionFeatures>, DecodeError> {
        self.get()
    }

    /// UP Function Features (type 43).
    pub fn up_function_features(&self) -> Result<Option<UpFunctionFeatures>, DecodeError> {
        self.get()
    }

    /// The header fields, for answering the peer.
    pub fn summary(&self) -> HeaderSummary {
        summary_of(&self.header)
    }

    /// Message-level checks a receiving node applies before processing (clause 7.6):
    ///
    /// * the type is defined (else [`DecodeErrorKind::UnknownMessageType`]: discard silently);
    /// * the S flag matches the type ([`DecodeErrorKind::SFlagMismatch`]);
    /// * every mandatory IE of the type is present ([`DecodeErrorKind::MissingMandatory`],
    ///   Cause 66 with Offending IE) and, where this crate has a typed decoder for it, well
    ///   formed (Cause 68 or 69 with Offending IE, see [`DecodeError::cause`]).
    ///
    /// Optional IEs are not checked here: a bad OCI or LCI does not make the message invalid.
    pub fn validate(&self) -> Result<(), DecodeError> {
        let summary = self.summary();
        let at = |kind| DecodeError::new(kind, self.base).with_header(summary);
        let t = self.message_type();
        let Some(session) = t.is_session() else {
            return Err(at(DecodeErrorKind::UnknownMessageType(t.0)));
        };
        if session != self.header.seid.is_some() {
            return Err(at(DecodeErrorKind::SFlagMismatch));
        }
        for &m in mandatory_ies(t) {
            let Some(ie) = self.find(m) else {
                return Err(at(DecodeErrorKind::MissingMandatory(m)));
            };
            check_typed(&ie).map_err(|e| e.with_header(summary))?;
        }
        Ok(())
    }

    /// Decode every top-level IE this crate has a typed decoder for (and the members of OCI and
    /// LCI), returning the first error. Stricter than [`Message::validate`]: use it to audit
    /// a message, not to decide whether to process it.
    pub fn check_typed_ies(&self) -> Result<(), DecodeError> {
        let summary = self.summary();
        for ie in self.ies() {
            let ie = ie?;
            check_typed(&ie).map_err(|e| e.with_header(summary))?;
        }
        Ok(())
    }
}

/// The message at the front of a buffer, its header decoded ([`split_message`]).
pub(crate) struct Framed<'a> {
    pub(crate) header: Header,
    pub(crate) header_len: usize,
    /// The message's octets (cut to its Length when the buffer holds that many).
    pub(crate) bytes: &'a [u8],
    /// The octets after it.
    pub(crate) trailing: &'a [u8],
}

/// The header of the message at the front of `bytes` (at `base` in the caller's buffer), its
/// length, the message's octets and the octets after it.
#[inline(always)]
pub(crate) fn split_message(bytes: &[u8], base: usize) -> Result<Framed<'_>, DecodeError> {
    let (header, header_len) = match Header::decode_inline(bytes) {
        Ok(v) => v,
        Err(e) => return Err(shifted(e, base)),
    };
    let total = usize::from(header.length) + 4;
    let (bytes, trailing) = bytes.split_at_checked(total).unwrap_or((bytes, &[]));
    Ok(Framed {
        header,
        header_len,
        bytes,
        trailing,
    })
}

/// `e` with its offset moved by `base`.
#[cold]
#[inline(never)]
fn shifted(mut e: DecodeError, base: usize) -> DecodeError {
    e.offset += base;
    e
}

/// `e` with the header summary of `h`.
#[cold]
#[inline(never)]
pub(crate) fn with_summary(e: DecodeError, h: &Header) -> DecodeError {
    e.with_header(summary_of(h))
}

/// `count` octets after the message that ends at `offset`.
#[cold]
#[inline(never)]
pub(crate) fn trailing_data(count: usize, offset: usize, h: &Header) -> DecodeError {
    DecodeError::new(DecodeErrorKind::TrailingData { count }, offset).with_header(summary_of(h))
}

fn summary_of(h: &Header) -> HeaderSummary {
    HeaderSummary {
        version: crate::header::PFCP_VERSION,
        message_type: h.message_type,
        seid: h.seid,
        sequence: h.sequence,
        priority: h.priority,
    }
}

/// Decode `ie` with its typed decoder, if this crate has one (the typed IEs of
/// `data/ie_types.tsv`); `Ok` for other types. A grouped typed IE decodes its members, so their
/// errors carry the member's path.
pub(crate) fn check_typed(ie: &RawIe<'_>) -> Result<(), DecodeError> {
    macro_rules! dispatch {
        ($($c:ident => $t:ty),* $(,)?) => {
            match ie.ie_type() {
                $(IeType::$c => <$t as TypedIe<'_>>::check(ie),)*
                _ => Ok(()),
            }
        };
    }
    crate::ie::with_typed_ies!(dispatch)
}

/// The messages of one UDP datagram, following the FO flag (clause 7.2.1A).
///
/// Each message is decoded on its own: an error in a later message does not lose the earlier
/// ones. After an error, iteration stops. Octets after a message with FO=0 are an error
/// ([`DecodeErrorKind::TrailingData`]); FO=1 on the last message is an error too (the sender
/// announced a message that is not there). An empty payload is a truncated header.
///
/// # Examples
///
/// Two Heartbeat Requests in one datagram, the first with FO=1 (octet 1, bit 3: 0x24); each
/// is a clause 7.2.2 node header and a Recovery Time Stamp IE (clause 8.1.1, 8.2.65).
///
/// ```
/// use pfcp_wire::{Datagram, MessageType};
///
/// let payload = [
///     0x24, 0x01, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x00, // FO=1, type 1, length 12, seq 1
///     0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0,
///     0x20, 0x01, 0x00, 0x0c, 0x00, 0x00, 0x02, 0x00, // FO=0, type 1, length 12, seq 2
///     0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb1,
/// ];
/// let mut sequences = Vec::new();
/// for msg in Datagram::new(&payload) {
///     let msg = msg?;
///     assert_eq!(msg.message_type(), MessageType::HEARTBEAT_REQUEST);
///     sequences.push(msg.header().sequence.value());
/// }
/// assert_eq!(sequences, [1, 2]);
///
/// // FO=1 on the last message announces a message that is not there.
/// assert!(Datagram::new(&payload[..16]).any(|m| m.is_err()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Datagram<'a> {
    bytes: &'a [u8],
    offset: usize,
    limits: DecodeLimits,
    pending: Option<DecodeError>,
    done: bool,
}

impl<'a> Datagram<'a> {
    /// Iterate the messages of `payload` (the UDP payload).
    pub fn new(payload: &'a [u8]) -> Self {
        Self::with_limits(payload, DecodeLimits::DEFAULT)
    }

    /// With explicit resource limits (applied per message).
    pub fn with_limits(payload: &'a [u8], limits: DecodeLimits) -> Self {
        Datagram {
            bytes: payload,
            offset: 0,
            limits,
            pending: None,
            done: false,
        }
    }
}

impl<'a> Iterator for Datagram<'a> {
    type Item = Result<Message<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.pending.take() {
            self.done = true;
            return Some(Err(e));
        }
        if self.done {
            return None;
        }
        let rest = self.bytes.get(self.offset..).unwrap_or_default();
        match Message::decode_prefix(rest, self.offset, self.limits) {
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
            Ok(msg) => {
                self.offset += msg.as_bytes().len();
                let left = self.bytes.len() - self.offset;
                if msg.header().follow_on {
                    if left == 0 {
                        self.pending = Some(DecodeError::new(
                            DecodeErrorKind::Truncated {
                                needed: NODE_HEADER_LEN,
                                available: 0,
                            },
                            self.offset,
                        ));
                    }
                } else {
                    if left > 0 {
                        self.pending = Some(
                            DecodeError::new(
                                DecodeErrorKind::TrailingData { count: left },
                                self.offset,
                            )
                            .with_header(msg.summary()),
                        );
                    }
                    self.done = true;
                }
                Some(Ok(msg))
            }
        }
    }
}
