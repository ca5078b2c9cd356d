//! The machinery of typed grouped IEs: [`Repeated`] (a member that may occur several times),
//! [`IntoOwned`], and the `grouped_ie!` macro that writes a grouped IE's struct, its one-pass
//! decoder, its exact encoder, its builder methods and its owned form.
//!
//! A typed grouped IE decodes in **one walk** over its members: each member is decoded once
//! (the first of a single member, clause 7.6.10; every one of a repeated member, so that
//! iterating it later cannot fail) and unknown members are skipped (clause 7.2.3.3: a later
//! release may add some). A missing mandatory member is [`DecodeErrorKind::MissingMember`].
//! Nothing is allocated: a repeated member keeps a view of the group and decodes on iteration.
//!
//! [`DecodeErrorKind::MissingMember`]: crate::DecodeErrorKind::MissingMember

use core::fmt;

use crate::encode::{Encode, Sink};
use crate::error::EncodeError;
use crate::ie::{IeIter, RawIe, TypedIe};

/// A value that can drop its borrow of the decoded message: the owned (and, with the `serde`
/// feature, serializable) form of a typed IE is `T::Owned`, `T` with the `'static` lifetime.
pub trait IntoOwned {
    /// The same value, owning its octets.
    type Owned: 'static;
    /// Copy what is borrowed.
    fn into_owned(self) -> Self::Owned;
}

/// `IntoOwned` for the typed IEs that borrow nothing.
macro_rules! owned_is_self {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::ie::IntoOwned for $t {
            type Owned = $t;
            #[inline]
            fn into_owned(self) -> $t {
                self
            }
        }
    )*};
}
pub(crate) use owned_is_self;

impl<T: IntoOwned> IntoOwned for Option<T> {
    type Owned = Option<T::Owned>;
    fn into_owned(self) -> Option<T::Owned> {
        self.map(IntoOwned::into_owned)
    }
}

/// A member IE that may occur several times in a grouped IE (the URR IDs of a Create PDR, the
/// SDF Filters of a PDI, ...), in order.
///
/// Decoded, it is a view of the group's octets (every occurrence was decoded once by the
/// group's decoder, so iterating cannot fail and allocates nothing); built, it holds a `Vec`.
pub struct Repeated<'a, T> {
    repr: Repr<'a, T>,
}

enum Repr<'a, T> {
    /// The IE list holding the occurrences (a group's value or a message body), framing
    /// checked: iterating it cannot fail. Two words, so that a typed group stays small.
    Wire {
        members: &'a [u8],
        count: usize,
    },
    Owned(Vec<T>),
}

impl<'a, T: TypedIe<'a>> Repeated<'a, T> {
    /// The occurrences of `T` among the members of `group` (`count` of them, already decoded
    /// once by the group's decoder).
    pub(crate) fn wire(group: &RawIe<'a>, count: usize) -> Self {
        Repeated {
            repr: Repr::Wire {
                members: group.value(),
                count,
            },
        }
    }

    /// The members, decoded.
    pub fn iter(&self) -> RepeatedIter<'_, 'a, T>
    where
        T: Clone,
    {
        RepeatedIter {
            inner: match &self.repr {
                // None: nothing to walk (the common case of an optional member).
                Repr::Wire { count: 0, .. } => IterRepr::Wire(IeIter::new(&[], 0)),
                Repr::Wire { members, .. } => IterRepr::Wire(IeIter::new(members, 0)),
                Repr::Owned(v) => IterRepr::Owned(v.iter()),
            },
        }
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Wire { count, .. } => *count,
            Repr::Owned(v) => v.len(),
        }
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first one.
    pub fn first(&self) -> Option<T>
    where
        T: Clone,
    {
        self.iter().next()
    }

    /// Append one (a decoded list is copied into a `Vec` first).
    pub fn push(&mut self, value: T)
    where
        T: Clone,
    {
        if let Repr::Wire { .. } = self.repr {
            let v: Vec<T> = self.iter().collect();
            self.repr = Repr::Owned(v);
        }
        if let Repr::Owned(v) = &mut self.repr {
            v.push(value);
        }
    }
}

impl<T> Default for Repeated<'_, T> {
    fn default() -> Self {
        Repeated {
            repr: Repr::Owned(Vec::new()),
        }
    }
}

impl<T> From<Vec<T>> for Repeated<'_, T> {
    fn from(v: Vec<T>) -> Self {
        Repeated {
            repr: Repr::Owned(v),
        }
    }
}

impl<'a, T: TypedIe<'a> + Clone> Clone for Repeated<'a, T> {
    fn clone(&self) -> Self {
        Repeated {
            repr: match &self.repr {
                Repr::Wire { members, count } => Repr::Wire {
                    members,
                    count: *count,
                },
                Repr::Owned(v) => Repr::Owned(v.clone()),
            },
        }
    }
}

impl<'a, T: TypedIe<'a> + Clone + PartialEq> PartialEq for Repeated<'a, T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<'a, T: TypedIe<'a> + Clone + Eq> Eq for Repeated<'a, T> {}

impl<'a, T: TypedIe<'a> + Clone + fmt::Debug> fmt::Debug for Repeated<'a, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, T> IntoOwned for Repeated<'a, T>
where
    T: TypedIe<'a> + Clone + IntoOwned,
{
    type Owned = Repeated<'static, T::Owned>;
    fn into_owned(self) -> Self::Owned {
        Repeated {
            repr: Repr::Owned(self.iter().map(IntoOwned::into_owned).collect()),
        }
    }
}

/// Every occurrence, encoded by its typed encoder (a decoded list as its values: extension
/// octets of a member are not kept, exactly as for a single member and the owned form).
impl<'a, T: TypedIe<'a> + Encode + Clone> Encode for Repeated<'a, T> {
    fn encoded_len(&self) -> usize {
        match &self.repr {
            Repr::Wire { .. } => self.iter().map(|m| m.encoded_len()).sum(),
            Repr::Owned(v) => v.iter().map(Encode::encoded_len).sum(),
        }
    }

    fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        match &self.repr {
            Repr::Wire { .. } => self.iter().try_for_each(|m| m.encode(out)),
            Repr::Owned(v) => v.iter().try_for_each(|m| m.encode(out)),
        }
    }
}

/// The iterator of [`Repeated::iter`].
pub struct RepeatedIter<'r, 'a, T> {
    inner: IterRepr<'r, 'a, T>,
}

enum IterRepr<'r, 'a, T> {
    Wire(IeIter<'a>),
    Owned(core::slice::Iter<'r, T>),
}

impl<'a, T: TypedIe<'a> + Clone> Iterator for RepeatedIter<'_, 'a, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match &mut self.inner {
            IterRepr::Wire(members) => members
                .by_ref()
                .flatten()
                .filter(|m| m.ie_type() == T::IE_TYPE)
                .find_map(|m| T::decode(&m).ok()),
            IterRepr::Owned(it) => it.next().cloned(),
        }
    }
}

#[cfg(feature = "serde")]
impl<'a, T: TypedIe<'a> + Clone + serde::Serialize> serde::Serialize for Repeated<'a, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Repeated<'_, T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(Repeated::from)
    }
}

/// `Name` or `Name<'static>`: the owned form of a grouped IE with or without a lifetime.
macro_rules! static_of {
    ($n:ident) => { $n };
    ($n:ident, $lt:lifetime) => { $n<'static> };
}
pub(crate) use static_of;

/// `Name` or `Name<'_>`.
macro_rules! anon_of {
    ($n:ident) => { $n };
    ($n:ident, $lt:lifetime) => { $n<'_> };
}
pub(crate) use anon_of;

/// A typed grouped IE: struct, one-pass decoder, exact encoder, builder, owned form.
///
/// Members are encoded in the `order` given, the order of the spec's table (receivers accept
/// any order, clause 8.1.2). `order` must name every member once: a test checks the typed
/// IEs of the crate against it.
macro_rules! grouped_ie {
    (
        $(#[$doc:meta])*
        $name:ident $(<$lt:lifetime>)?, $code:ident,
        mandatory { $($(#[$mdoc:meta])* $m:ident: $mt:ty,)* }
        optional { $($(#[$odoc:meta])* $o:ident / $ow:ident: $ot:ty,)* }
        repeated { $($(#[$rdoc:meta])* $r:ident / $rw:ident: $rt:ty => $rty:ty,)* }
        order { $($f:ident),* $(,)? }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[non_exhaustive]
        pub struct $name $(<$lt>)? {
            $($(#[$mdoc])* pub $m: $mt,)*
            $($(#[$odoc])* #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))] pub $o: Option<$ot>,)*
            $($(#[$rdoc])* #[cfg_attr(feature = "serde", serde(default))] pub $r: $rty,)*
        }

        impl $(<$lt>)? $name $(<$lt>)? {
            /// The IE with its mandatory members; the others absent.
            #[allow(clippy::too_many_arguments, clippy::new_without_default)]
            #[inline]
            pub fn new($($m: $mt),*) -> Self {
                $name {
                    $($m,)*
                    $($o: None,)*
                    $($r: $crate::ie::Repeated::default(),)*
                }
            }

            $(
                #[doc = concat!("With `", stringify!($o), "` set.")]
                #[must_use]
                #[inline]
                pub fn $ow(mut self, value: $ot) -> Self {
                    self.$o = Some(value);
                    self
                }
            )*

            $(
                #[doc = concat!("With one more of `", stringify!($r), "`.")]
                #[must_use]
                pub fn $rw(mut self, value: $rt) -> Self {
                    self.$r.push(value);
                    self
                }
            )*
        }

        // `order` names as many members as there are.
        const _: () = assert!(
            0 $(+ { let _ = stringify!($f); 1 })*
                == 0 $(+ { let _ = stringify!($m); 1 })* $(+ { let _ = stringify!($o); 1 })*
                    $(+ { let _ = stringify!($r); 1 })*
        );

        impl<'a> $crate::ie::TypedIe<'a> for $name $(<$lt>)? {
            const IE_TYPE: $crate::ie::IeType = $crate::ie::IeType::$code;

            fn decode(ie: &$crate::ie::RawIe<'a>) -> Result<Self, $crate::error::DecodeError> {
                $(let mut $m: Option<$mt> = None;)*
                $(let mut $o: Option<$ot> = None;)*
                $(let mut $r = 0usize;)*
                let mut rest = ie.value();
                while let Some((t, member)) = ie.next_member(&mut rest) {
                    $(if t == <$mt as $crate::ie::TypedIe<'a>>::IE_TYPE {
                        if $m.is_none() {
                            $m = Some(<$mt as $crate::ie::TypedIe<'a>>::decode(&member)?);
                        }
                        continue;
                    })*
                    $(if t == <$ot as $crate::ie::TypedIe<'a>>::IE_TYPE {
                        if $o.is_none() {
                            $o = Some(<$ot as $crate::ie::TypedIe<'a>>::decode(&member)?);
                        }
                        continue;
                    })*
                    $(if t == <$rt as $crate::ie::TypedIe<'a>>::IE_TYPE {
                        <$rt as $crate::ie::TypedIe<'a>>::decode(&member)?;
                        $r += 1;
                        continue;
                    })*
                    let _ = t;
                }
                if !rest.is_empty() {
                    return Err(ie.children_error(rest));
                }
                Ok($name {
                    $($m: match $m {
                        Some(v) => v,
                        None => return Err(ie.error(
                            $crate::error::DecodeErrorKind::MissingMember(<$mt as $crate::ie::TypedIe<'a>>::IE_TYPE),
                        )),
                    },)*
                    $($o,)*
                    $($r: $crate::ie::Repeated::wire(ie, $r),)*
                })
            }

            /// The members checked in place, the same walk as `decode` without the value.
            fn check(ie: &$crate::ie::RawIe<'a>) -> Result<(), $crate::error::DecodeError> {
                $(let mut $m = false;)*
                $(let mut $o = false;)*
                let mut rest = ie.value();
                while let Some((t, member)) = ie.next_member(&mut rest) {
                    $(if t == <$mt as $crate::ie::TypedIe<'a>>::IE_TYPE {
                        if !$m {
                            <$mt as $crate::ie::TypedIe<'a>>::check(&member)?;
                            $m = true;
                        }
                        continue;
                    })*
                    $(if t == <$ot as $crate::ie::TypedIe<'a>>::IE_TYPE {
                        if !$o {
                            <$ot as $crate::ie::TypedIe<'a>>::check(&member)?;
                            $o = true;
                        }
                        continue;
                    })*
                    $(if t == <$rt as $crate::ie::TypedIe<'a>>::IE_TYPE {
                        <$rt as $crate::ie::TypedIe<'a>>::check(&member)?;
                        continue;
                    })*
                    let _ = t;
                }
                if !rest.is_empty() {
                    return Err(ie.children_error(rest));
                }
                $(let _ = $o;)*
                $(if !$m {
                    return Err(ie.error($crate::error::DecodeErrorKind::MissingMember(
                        <$mt as $crate::ie::TypedIe<'a>>::IE_TYPE,
                    )));
                })*
                Ok(())
            }

            fn value_len(&self) -> usize {
                0 $(+ $crate::encode::Encode::encoded_len(&self.$f))*
            }

            fn write_value<S: $crate::encode::Sink + ?Sized>(
                &self,
                out: &mut S,
            ) -> Result<(), $crate::error::EncodeError> {
                $($crate::encode::Encode::encode(&self.$f, out)?;)*
                Ok(())
            }
        }

        impl $(<$lt>)? $crate::ie::IntoOwned for $name $(<$lt>)? {
            type Owned = $crate::ie::grouped::static_of!($name $(, $lt)?);
            fn into_owned(self) -> Self::Owned {
                $name {
                    $($m: $crate::ie::IntoOwned::into_owned(self.$m),)*
                    $($o: $crate::ie::IntoOwned::into_owned(self.$o),)*
                    $($r: $crate::ie::IntoOwned::into_owned(self.$r),)*
                }
            }
        }

        $crate::encode::impl_encode!($crate::ie::grouped::anon_of!($name $(, $lt)?));
    };
}
pub(crate) use grouped_ie;
