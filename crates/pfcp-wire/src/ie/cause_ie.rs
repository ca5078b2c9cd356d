//! Cause IE (type 19, TS 29.244 clause 8.2.1): one octet.

use crate::cause::Cause;
use crate::encode::Sink;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::ie::{IeType, RawIe, TypedIe};

impl<'a> TypedIe<'a> for Cause {
    const IE_TYPE: IeType = IeType::CAUSE;

    /// Value 0 is reserved: the IE is invalid (clause 8.2.1). Unknown values are kept; see
    /// [`Cause::effective`].
    fn decode(ie: &RawIe<'a>) -> Result<Self, DecodeError> {
        match ie.value().first() {
            Some(0) => Err(ie.error(DecodeErrorKind::InvalidValue("Cause value 0 is reserved"))),
            Some(&b) => Ok(Cause(b)),
            None => Err(ie.error(DecodeErrorKind::IeTooShort {
                needed: 1,
                length: 0,
            })),
        }
    }
    fn value_len(&self) -> usize {
        1
    }
    fn write_value<S: Sink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.put(&[self.0])
    }
}

crate::encode::impl_encode!(Cause);
