//! Octets as lowercase hex: the JSON form of IE values (owned IEs and the typed octet-string
//! IEs) and [`parse_hex`] for the CLI and tests.

#[cfg(feature = "serde")]
pub(crate) mod hex_serde {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(v.len() * 2);
        for &b in v {
            out.push(char::from(
                HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0'),
            ));
            out.push(char::from(
                HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0'),
            ));
        }
        s.serialize_str(&out)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        crate::owned::parse_hex(&s).ok_or_else(|| serde::de::Error::custom("invalid hex string"))
    }
}

/// Serde for `Cow<[u8]>` as lowercase hex (the typed octet-string IEs).
#[cfg(feature = "serde")]
pub(crate) mod cow_hex {
    use std::borrow::Cow;

    use serde::{Deserializer, Serializer};

    #[allow(clippy::ptr_arg)] // serde's `with` hands the field by reference
    pub(crate) fn serialize<S: Serializer>(v: &Cow<'_, [u8]>, s: S) -> Result<S::Ok, S::Error> {
        super::hex_serde::serialize(v, s)
    }

    pub(crate) fn deserialize<'de, 'a, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Cow<'a, [u8]>, D::Error> {
        super::hex_serde::deserialize(d).map(Cow::Owned)
    }
}

/// Serde for `Option<Cow<[u8]>>` as lowercase hex or null.
#[cfg(feature = "serde")]
pub(crate) mod opt_cow_hex {
    use std::borrow::Cow;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        v: &Option<Cow<'_, [u8]>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match v {
            Some(b) => super::hex_serde::serialize(b, s),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, 'a, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Cow<'a, [u8]>>, D::Error> {
        let s = Option::<Cow<'de, str>>::deserialize(d)?;
        match s {
            None => Ok(None),
            Some(s) => crate::owned::parse_hex(&s)
                .map(|v| Some(Cow::Owned(v)))
                .ok_or_else(|| serde::de::Error::custom("invalid hex string")),
        }
    }
}

/// Parse a hex string (even length, any case, no separators); `None` if invalid.
///
/// # Examples
///
/// ```
/// use pfcp_wire::owned::parse_hex;
///
/// // A Recovery Time Stamp IE (clauses 8.1.1, 8.2.65), in either case.
/// assert_eq!(parse_hex("00600004E8F4a2b0"),
///            Some(vec![0x00, 0x60, 0x00, 0x04, 0xe8, 0xf4, 0xa2, 0xb0]));
/// assert_eq!(parse_hex("0013000"), None); // odd length
/// assert_eq!(parse_hex("00 13"), None); // separators
/// ```
pub fn parse_hex(s: &str) -> Option<Vec<u8>> {
    fn nib(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let b = s.as_bytes();
    if b.len() % 2 != 0 {
        return None;
    }
    b.chunks_exact(2)
        .map(|p| match p {
            [h, l] => Some(nib(*h)? << 4 | nib(*l)?),
            _ => None,
        })
        .collect()
}
