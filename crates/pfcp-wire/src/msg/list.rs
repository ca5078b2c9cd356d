//! What the fields of a typed message hold: [`MessageIe`] (a typed IE, or a [`RawIe`] where
//! the crate has no typed form yet), [`IeList`] (the occurrences of an IE the table lets a
//! message repeat) and [`OtherIes`] (the IEs the table does not list).
//!
//! A decoded list is a view of the message: its position and count, no copy and no
//! allocation; a built one borrows the caller's slice. Either way the encoder writes it in
//! one pass: a decoded list as the octets it was received in, a built one from its values.

use core::fmt;

use crate::encode::{Encode, Sink};
use crate::error::{DecodeError, EncodeError};
use crate::ie::{IeIter, IeType, RawIe, TypedIe};

mod sealed {
    pub trait Sealed {}
}

/// An IE a typed message holds: a typed IE of this crate ([`TypedIe`]), or a [`RawIe`] for
/// the IEs it does not type yet. Sealed: the crate implements it for exactly those.
pub trait MessageIe<'a>: sealed::Sealed + Encode + Clone + fmt::Debug {
    /// Decode the IE (a `RawIe` is itself).
    #[doc(hidden)]
    fn from_raw(ie: &RawIe<'a>) -> Result<Self, DecodeError>;

    /// The verdict of [`MessageIe::from_raw`] without building the value.
    #[doc(hidden)]
    fn check_raw(ie: &RawIe<'a>) -> Result<(), DecodeError>;

    /// Whether `self` and `other` are the same IE: equal values for a typed IE; for a
    /// `RawIe`, the same type, Enterprise ID and value octets (wherever they sit in a
    /// message).
    fn same(&self, other: &Self) -> bool;
}

impl<'a, T: TypedIe<'a> + Encode + Clone + fmt::Debug + PartialEq> sealed::Sealed for T {}

impl<'a, T: TypedIe<'a> + Encode + Clone + fmt::Debug + PartialEq> MessageIe<'a> for T {
    #[inline(always)]
    fn from_raw(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        T::decode(ie)
    }

    #[inline(always)]
    fn check_raw(ie: &RawIe<'a>) -> Result<(), DecodeError> {
        T::check(ie)
    }

    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl sealed::Sealed for RawIe<'_> {}

impl<'a> MessageIe<'a> for RawIe<'a> {
    #[inline(always)]
    fn from_raw(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        Ok(*ie)
    }

    #[inline(always)]
    fn check_raw(_: &RawIe<'a>) -> Result<(), DecodeError> {
        Ok(())
    }

    fn same(&self, other: &Self) -> bool {
        same_raw(self, other)
    }
}

/// The same IE octets: type, Enterprise ID and value.
fn same_raw(a: &RawIe<'_>, b: &RawIe<'_>) -> bool {
    a.ie_type() == b.ie_type() && a.enterprise_id() == b.enterprise_id() && a.value() == b.value()
}

/// [`MessageIe::same`] for an optional field.
pub(crate) fn same_option<'a, T: MessageIe<'a>>(a: &Option<T>, b: &Option<T>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.same(b),
        (None, None) => true,
        _ => false,
    }
}

/// Which IEs of a decoded message's list a [`RawIes`] yields.
#[derive(Clone, Copy)]
enum Select {
    /// The IEs of one type.
    Type(IeType),
    /// The IEs whose type the message's table does not list.
    NotListed(fn(IeType) -> bool),
}

impl Select {
    #[inline(always)]
    fn matches(self, t: IeType) -> bool {
        match self {
            Select::Type(want) => t == want,
            Select::NotListed(listed) => !listed(t),
        }
    }
}

/// Where the IEs of a decoded list are: the message's IE list (`root`, at `root_offset` in
/// the decoded buffer, framing checked), the position of the first one and how many there are
/// (a message body is shorter than 64 KiB: 16 bits hold both), and which they are. Small, as
/// a typed message holds one per repeated IE.
#[derive(Clone, Copy)]
struct Wire<'a, S> {
    root: &'a [u8],
    root_offset: usize,
    start: u16,
    count: u16,
    select: S,
}

impl<'a, S: Into<Select> + Copy> Wire<'a, S> {
    #[inline]
    fn raw(self) -> RawIes<'a> {
        RawIes {
            inner: IeIter::resume(self.root, self.root_offset, usize::from(self.start)),
            select: self.select.into(),
            left: self.count,
        }
    }
}

impl From<IeType> for Select {
    fn from(t: IeType) -> Select {
        Select::Type(t)
    }
}

impl From<fn(IeType) -> bool> for Select {
    fn from(listed: fn(IeType) -> bool) -> Select {
        Select::NotListed(listed)
    }
}

/// The IEs of a decoded list as received ([`IeList::raw`], [`OtherIes::iter`]).
#[derive(Clone)]
pub struct RawIes<'a> {
    inner: IeIter<'a>,
    select: Select,
    left: u16,
}

impl RawIes<'_> {
    fn empty() -> RawIes<'static> {
        RawIes {
            inner: IeIter::new(&[], 0),
            select: Select::Type(IeType(0)),
            left: 0,
        }
    }
}

impl<'a> Iterator for RawIes<'a> {
    type Item = RawIe<'a>;

    #[inline]
    fn next(&mut self) -> Option<RawIe<'a>> {
        if self.left == 0 {
            return None;
        }
        // The list's framing was checked when it was decoded: no error here.
        while let Some(Ok(ie)) = self.inner.next() {
            if self.select.matches(ie.ie_type()) {
                self.left -= 1;
                return Some(ie);
            }
        }
        self.left = 0;
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(usize::from(self.left)))
    }
}

impl fmt::Debug for RawIes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawIes")
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}

/// The occurrences of an IE that a message may repeat (the Create PDRs of a Session
/// Establishment Request, ...), in order.
///
/// Decoded, it is a view of the message: iterating decodes each occurrence again (each was
/// checked when the message was decoded, so iterating cannot fail) and allocates nothing.
/// Built, it borrows the caller's values: `IeList::from(&pdrs[..])`, or any `&[T]`,
/// `&[T; N]` or `&Vec<T>` where a builder takes `impl Into<IeList<_, _>>`.
///
/// Encoded, a decoded list writes the octets it was received in (members this crate does not
/// type included); a built one encodes its values.
///
/// ```
/// use pfcp_wire::ie::{ApplyAction, CreateFar, FarId};
/// use pfcp_wire::msg::IeList;
///
/// let fars = [CreateFar::new(FarId(1), ApplyAction::FORW), CreateFar::new(FarId(2), ApplyAction::DROP)];
/// let list = IeList::from(&fars);
/// assert_eq!(list.len(), 2);
/// assert_eq!(list.iter().map(|f| f.far_id).collect::<Vec<_>>(), [FarId(1), FarId(2)]);
/// assert!(list.raw().next().is_none()); // built from values: no received octets
/// ```
pub struct IeList<'a, T> {
    repr: ListRepr<'a, T>,
}

enum ListRepr<'a, T> {
    Wire(Wire<'a, IeType>),
    Slice(&'a [T]),
}

impl<'a, T> IeList<'a, T> {
    /// The empty list.
    pub const fn new() -> Self {
        IeList {
            repr: ListRepr::Slice(&[]),
        }
    }

    /// The occurrences of `ie_type` in a decoded message's IE list `root` (at `root_offset`),
    /// `count` of them, the first at position `start`; each already checked.
    pub(crate) fn wire(
        root: &'a [u8],
        root_offset: usize,
        start: u16,
        count: u16,
        ie_type: IeType,
    ) -> Self {
        IeList {
            repr: ListRepr::Wire(Wire {
                root,
                root_offset,
                start,
                count,
                select: ie_type,
            }),
        }
    }

    /// How many occurrences there are.
    pub fn len(&self) -> usize {
        match &self.repr {
            ListRepr::Wire(w) => usize::from(w.count),
            ListRepr::Slice(s) => s.len(),
        }
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The occurrences as received, for a list decoded from a message (the octets the encoder
    /// writes for it, members this crate does not type included); nothing for a list built
    /// from values.
    pub fn raw(&self) -> RawIes<'a> {
        match &self.repr {
            ListRepr::Wire(w) => w.raw(),
            ListRepr::Slice(_) => RawIes::empty(),
        }
    }
}

impl<'a, T: MessageIe<'a>> IeList<'a, T> {
    /// The occurrences, decoded, in order.
    pub fn iter(&self) -> IeListIter<'_, 'a, T> {
        IeListIter {
            inner: match &self.repr {
                ListRepr::Wire(w) => IterRepr::Wire(w.raw()),
                ListRepr::Slice(s) => IterRepr::Slice(s.iter()),
            },
        }
    }

    /// The first occurrence.
    pub fn first(&self) -> Option<T> {
        self.iter().next()
    }
}

impl<T> Default for IeList<'_, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for IeList<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for IeList<'_, T> {}

impl<T> Clone for ListRepr<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ListRepr<'_, T> {}

impl<'a, T> From<&'a [T]> for IeList<'a, T> {
    fn from(values: &'a [T]) -> Self {
        IeList {
            repr: ListRepr::Slice(values),
        }
    }
}

impl<'a, T, const N: usize> From<&'a [T; N]> for IeList<'a, T> {
    fn from(values: &'a [T; N]) -> Self {
        IeList {
            repr: ListRepr::Slice(values),
        }
    }
}

impl<'a, T> From<&'a Vec<T>> for IeList<'a, T> {
    fn from(values: &'a Vec<T>) -> Self {
        IeList {
            repr: ListRepr::Slice(values),
        }
    }
}

/// Equal when they hold as many occurrences and each is the same IE ([`MessageIe::same`]),
/// whether decoded or built.
impl<'a, T: MessageIe<'a>> PartialEq for IeList<'a, T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a.same(&b))
    }
}

impl<'a, T: MessageIe<'a>> Eq for IeList<'a, T> {}

impl<'a, T: MessageIe<'a>> fmt::Debug for IeList<'a, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'l, 'a, T: MessageIe<'a>> IntoIterator for &'l IeList<'a, T> {
    type Item = T;
    type IntoIter = IeListIter<'l, 'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Every occurrence, one after the other: a decoded list as received, a built one from its
/// values.
impl<'a, T: MessageIe<'a>> Encode for IeList<'a, T> {
    fn encoded_len(&self) -> usize {
        match &self.repr {
            ListRepr::Wire(w) => w.raw().map(|ie| ie.encoded_len()).sum(),
            ListRepr::Slice(s) => s.iter().map(Encode::encoded_len).sum(),
        }
    }

    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        match &self.repr {
            ListRepr::Wire(w) => w.raw().try_for_each(|ie| ie.encode(out)),
            ListRepr::Slice(s) => s.iter().try_for_each(|v| v.encode(out)),
        }
    }
}

/// The iterator of [`IeList::iter`].
pub struct IeListIter<'l, 'a, T> {
    inner: IterRepr<'l, 'a, T>,
}

enum IterRepr<'l, 'a, T> {
    Wire(RawIes<'a>),
    Slice(core::slice::Iter<'l, T>),
}

impl<'a, T: MessageIe<'a>> Iterator for IeListIter<'_, 'a, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match &mut self.inner {
            // Each occurrence was checked when the message was decoded.
            IterRepr::Wire(raw) => raw.find_map(|ie| T::from_raw(&ie).ok()),
            IterRepr::Slice(it) => it.next().cloned(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.inner {
            IterRepr::Wire(raw) => raw.size_hint(),
            IterRepr::Slice(it) => it.size_hint(),
        }
    }
}

/// The IEs of a message that its table does not list (types of a later release, vendor IEs,
/// IEs of other messages), in the order received; a built message's are the caller's.
///
/// The encoder writes them after the table's IEs, octet for octet.
///
/// ```
/// use pfcp_wire::msg::{HeartbeatRequest, OtherIes};
/// use pfcp_wire::ie::RecoveryTimeStamp;
/// use pfcp_wire::RawIe;
///
/// // A vendor-specific IE (type 32769, Enterprise ID 18681, two value octets; clause 8.1.1).
/// let vendor = [RawIe::from_tlv(&[0x80, 0x01, 0x00, 0x04, 0x48, 0xf9, 0xaa, 0xbb])?];
/// let hb = HeartbeatRequest::new(RecoveryTimeStamp(0xE8F4_A2B0)).with_other(&vendor);
/// let bytes = hb.to_vec()?;
/// let back = HeartbeatRequest::parse(&bytes)?;
/// let ie = back.other.iter().next().unwrap();
/// assert_eq!((ie.enterprise_id(), ie.value()), (Some(18681), &[0xaa, 0xbb][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy)]
pub struct OtherIes<'a> {
    repr: OtherRepr<'a>,
}

#[derive(Clone, Copy)]
enum OtherRepr<'a> {
    Wire(Wire<'a, fn(IeType) -> bool>),
    Slice(&'a [RawIe<'a>]),
}

impl<'a> OtherIes<'a> {
    /// None.
    pub const fn new() -> Self {
        OtherIes {
            repr: OtherRepr::Slice(&[]),
        }
    }

    /// The IEs of a decoded message's IE list `root` (at `root_offset`) whose type `listed`
    /// says the table does not list, `count` of them, the first at position `start`.
    pub(crate) fn wire(
        root: &'a [u8],
        root_offset: usize,
        start: u16,
        count: u16,
        listed: fn(IeType) -> bool,
    ) -> Self {
        OtherIes {
            repr: OtherRepr::Wire(Wire {
                root,
                root_offset,
                start,
                count,
                select: listed,
            }),
        }
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        match &self.repr {
            OtherRepr::Wire(w) => usize::from(w.count),
            OtherRepr::Slice(s) => s.len(),
        }
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The IEs, in order.
    pub fn iter(&self) -> OtherIesIter<'a> {
        OtherIesIter {
            inner: match self.repr {
                OtherRepr::Wire(w) => OtherIter::Wire(w.raw()),
                OtherRepr::Slice(s) => OtherIter::Slice(s.iter()),
            },
        }
    }
}

impl Default for OtherIes<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> From<&'a [RawIe<'a>]> for OtherIes<'a> {
    fn from(ies: &'a [RawIe<'a>]) -> Self {
        OtherIes {
            repr: OtherRepr::Slice(ies),
        }
    }
}

impl<'a, const N: usize> From<&'a [RawIe<'a>; N]> for OtherIes<'a> {
    fn from(ies: &'a [RawIe<'a>; N]) -> Self {
        OtherIes {
            repr: OtherRepr::Slice(ies),
        }
    }
}

impl<'a> From<&'a Vec<RawIe<'a>>> for OtherIes<'a> {
    fn from(ies: &'a Vec<RawIe<'a>>) -> Self {
        OtherIes {
            repr: OtherRepr::Slice(ies),
        }
    }
}

/// Equal when they hold the same IEs ([`MessageIe::same`]) in the same order.
impl PartialEq for OtherIes<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| same_raw(&a, &b))
    }
}

impl Eq for OtherIes<'_> {}

impl fmt::Debug for OtherIes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &OtherIes<'a> {
    type Item = RawIe<'a>;
    type IntoIter = OtherIesIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Every IE, octet for octet.
impl Encode for OtherIes<'_> {
    fn encoded_len(&self) -> usize {
        self.iter().map(|ie| ie.encoded_len()).sum()
    }

    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        self.iter().try_for_each(|ie| ie.encode(out))
    }
}

/// The iterator of [`OtherIes::iter`].
#[derive(Clone, Debug)]
pub struct OtherIesIter<'a> {
    inner: OtherIter<'a>,
}

#[derive(Clone, Debug)]
enum OtherIter<'a> {
    Wire(RawIes<'a>),
    Slice(core::slice::Iter<'a, RawIe<'a>>),
}

impl<'a> Iterator for OtherIesIter<'a> {
    type Item = RawIe<'a>;

    #[inline]
    fn next(&mut self) -> Option<RawIe<'a>> {
        match &mut self.inner {
            OtherIter::Wire(raw) => raw.next(),
            OtherIter::Slice(it) => it.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.inner {
            OtherIter::Wire(raw) => raw.size_hint(),
            OtherIter::Slice(it) => it.size_hint(),
        }
    }
}
