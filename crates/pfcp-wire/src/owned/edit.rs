//! Edits of an [`OwnedMessage`]: IEs added, removed and replaced anywhere in the tree of
//! grouped IEs, addressed by a path of indices (see [`OwnedMessage::get`]) or through a
//! [`Group`]. Each edit splices the buffer once and rewrites the Length field of every
//! grouped IE that contains it (TS 29.244 clause 7.2.3.3: a grouped IE's Length covers its
//! embedded IEs), so the buffer stays what [`crate::Message::decode`] accepts.

use super::{IeContent, IeValue, OwnedIe, OwnedMessage, MAX_DEPTH};
use crate::encode::Encode;
use crate::error::EncodeError;
use crate::ie::{check_framing_in, DecodeLimits, RawIe};

const NO_SUCH_IE: EncodeError = EncodeError::InvalidValue("no IE at that path");
const NOT_GROUPED: EncodeError =
    EncodeError::InvalidValue("the path goes through an IE that is not of a grouped type");
const BAD_GROUP: EncodeError = EncodeError::InvalidValue(
    "a grouped IE's value is not a list of complete IEs, or nests deeper than owned::MAX_DEPTH",
);

/// Where an edit lands: the octets `start..end` of the body it replaces (empty for an
/// insertion) and the offsets of the grouped IEs around them, whose Lengths change with it.
struct Site {
    start: usize,
    end: usize,
    parents: Vec<usize>,
}

/// `list` (IEs at nesting depth `depth + 1`) keeps the invariant: the framing check the
/// decoder runs, with the ceiling of [`MAX_DEPTH`] and no count limit.
fn check_list(list: &[u8], depth: usize) -> Result<(), EncodeError> {
    let limits = DecodeLimits::new(MAX_DEPTH, usize::MAX);
    match check_framing_in(list, 0, list, depth, 0, limits) {
        Ok(_) => Ok(()),
        Err(_) => Err(BAD_GROUP),
    }
}

/// `ie`'s octets, checked for a place at nesting depth `depth + 1`. The tree's own encoder
/// refuses a vendor type without an Enterprise ID (or the reverse) and a body over 65 535
/// octets; a grouped type given raw octets is accepted only if they frame as IEs.
fn encode_checked(ie: &OwnedIe, depth: usize) -> Result<Vec<u8>, EncodeError> {
    let mut v = Vec::with_capacity(ie.encoded_len());
    ie.encode(&mut v)?;
    check_list(&v, depth)?;
    Ok(v)
}

impl OwnedMessage {
    /// Append `ie` at the top level.
    pub fn push(&mut self, ie: &OwnedIe) -> Result<(), EncodeError> {
        let start = self.body.len();
        // Straight into the buffer (no splice), undone if the IE is refused.
        let written = ie
            .encode(&mut self.body)
            .and_then(|()| check_list(self.body.get(start..).unwrap_or_default(), 0));
        if written.is_err() {
            self.body.truncate(start);
        }
        written
    }

    /// This message with `ies` appended at the top level.
    pub fn with_ies(mut self, ies: &[OwnedIe]) -> Result<OwnedMessage, EncodeError> {
        for ie in ies {
            self.push(ie)?;
        }
        Ok(self)
    }

    /// Remove every IE.
    pub fn clear(&mut self) {
        self.body.clear();
    }

    /// Insert `ie` at `path`: the last index is its position among its siblings (their count
    /// appends), the ones before it lead to the grouped IE that receives it.
    pub fn insert(&mut self, path: &[usize], ie: &OwnedIe) -> Result<(), EncodeError> {
        let site = self.site(path, true)?;
        let octets = encode_checked(ie, site.parents.len())?;
        self.splice(&site, &octets)
    }

    /// Remove the IE at `path` and return it.
    pub fn remove(&mut self, path: &[usize]) -> Result<OwnedIe, EncodeError> {
        let old = self.tree_at(path)?;
        let site = self.site(path, false)?;
        self.splice(&site, &[])?;
        Ok(old)
    }

    /// Put `ie` in place of the IE at `path` and return the one it replaced.
    pub fn replace(&mut self, path: &[usize], ie: &OwnedIe) -> Result<OwnedIe, EncodeError> {
        let old = self.tree_at(path)?;
        let site = self.site(path, false)?;
        let octets = encode_checked(ie, site.parents.len())?;
        self.splice(&site, &octets)?;
        Ok(old)
    }

    /// Set the value of the IE at `path` (the octets after Type, Length and Enterprise ID),
    /// keeping its type and Enterprise ID. For a grouped type the value must be a list of
    /// complete IEs (it replaces the members).
    pub fn set_value(&mut self, path: &[usize], value: &[u8]) -> Result<(), EncodeError> {
        let ie = self.get(path).ok_or(NO_SUCH_IE)?;
        let new = OwnedIe {
            ie_type: ie.ie_type(),
            enterprise_id: ie.enterprise_id(),
            content: IeContent::Raw(IeValue::new(value)),
        };
        self.replace(path, &new).map(drop)
    }

    /// Open the grouped IE at `path` for edits of its members.
    pub fn group(&mut self, path: &[usize]) -> Result<Group<'_>, EncodeError> {
        let ie = self.get(path).ok_or(NO_SUCH_IE)?;
        if !ie.ie_type().is_grouped() {
            return Err(NOT_GROUPED);
        }
        Ok(Group {
            msg: self,
            path: path.to_vec(),
        })
    }

    fn tree_at(&self, path: &[usize]) -> Result<OwnedIe, EncodeError> {
        let ie = self.get(path).ok_or(NO_SUCH_IE)?;
        OwnedIe::from_raw(&ie).map_err(|_| NO_SUCH_IE)
    }

    /// The site of the IE at `path` (or, `inserting`, of the gap before it: one past the
    /// last sibling appends).
    fn site(&self, path: &[usize], inserting: bool) -> Result<Site, EncodeError> {
        let (&last, through) = path
            .split_last()
            .ok_or(EncodeError::InvalidValue("empty IE path"))?;
        let mut list = self.ies();
        let mut list_end = self.body.len();
        let mut parents = Vec::with_capacity(through.len());
        for &i in through {
            let ie = list.nth(i).and_then(Result::ok).ok_or(NO_SUCH_IE)?;
            if !ie.ie_type().is_grouped() {
                return Err(NOT_GROUPED);
            }
            parents.push(ie.offset());
            list_end = ie.offset() + ie.encoded_len();
            list = ie.children();
        }
        let mut seen = 0usize;
        for ie in list {
            let ie = ie.map_err(|_| NO_SUCH_IE)?;
            if seen == last {
                let start = ie.offset();
                let end = if inserting {
                    start
                } else {
                    start + ie.encoded_len()
                };
                return Ok(Site {
                    start,
                    end,
                    parents,
                });
            }
            seen += 1;
        }
        if inserting && seen == last {
            Ok(Site {
                start: list_end,
                end: list_end,
                parents,
            })
        } else {
            Err(NO_SUCH_IE)
        }
    }

    /// Replace the site's octets by `octets` and rewrite the Lengths around them; nothing
    /// changes if one of those Lengths would overflow.
    fn splice(&mut self, site: &Site, octets: &[u8]) -> Result<(), EncodeError> {
        if site.start > site.end || site.end > self.body.len() {
            return Err(NO_SUCH_IE);
        }
        let old = site.end - site.start;
        let mut lengths = Vec::with_capacity(site.parents.len());
        for &p in &site.parents {
            let now = match self.body.get(p + 2..p + 4) {
                Some(&[a, b]) => usize::from(u16::from_be_bytes([a, b])),
                _ => return Err(NO_SUCH_IE),
            };
            // The site is inside this IE's value, so `now >= old`.
            let next = (now + octets.len()).saturating_sub(old);
            lengths.push(u16::try_from(next).map_err(|_| EncodeError::LengthOverflow(next))?);
        }
        self.body
            .splice(site.start..site.end, octets.iter().copied());
        // The parents start before the site, so the splice did not move them.
        for (&p, len) in site.parents.iter().zip(lengths) {
            if let Some(field) = self.body.get_mut(p + 2..p + 4) {
                field.copy_from_slice(&len.to_be_bytes());
            }
        }
        Ok(())
    }
}

/// A grouped IE of an [`OwnedMessage`] opened for edits of its members
/// ([`OwnedMessage::group`]); indices are among the group's direct members.
#[derive(Debug)]
pub struct Group<'m> {
    msg: &'m mut OwnedMessage,
    path: Vec<usize>,
}

impl Group<'_> {
    fn member(&self, i: usize) -> Vec<usize> {
        let mut p = Vec::with_capacity(self.path.len() + 1);
        p.extend_from_slice(&self.path);
        p.push(i);
        p
    }

    /// The grouped IE itself.
    pub fn ie(&self) -> Option<RawIe<'_>> {
        self.msg.get(&self.path)
    }

    /// The number of direct members.
    pub fn len(&self) -> usize {
        self.ie().map_or(0, |ie| ie.children().count())
    }

    /// No members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Member `i`.
    pub fn get(&self, i: usize) -> Option<RawIe<'_>> {
        self.msg.get(&self.member(i))
    }

    /// Append `ie` to the members.
    pub fn push(&mut self, ie: &OwnedIe) -> Result<(), EncodeError> {
        let n = self.len();
        self.msg.insert(&self.member(n), ie)
    }

    /// Insert `ie` as member `i` (`i == len()` appends).
    pub fn insert(&mut self, i: usize, ie: &OwnedIe) -> Result<(), EncodeError> {
        self.msg.insert(&self.member(i), ie)
    }

    /// Remove member `i` and return it.
    pub fn remove(&mut self, i: usize) -> Result<OwnedIe, EncodeError> {
        self.msg.remove(&self.member(i))
    }

    /// Put `ie` in place of member `i` and return the one it replaced.
    pub fn replace(&mut self, i: usize, ie: &OwnedIe) -> Result<OwnedIe, EncodeError> {
        self.msg.replace(&self.member(i), ie)
    }

    /// Set member `i`'s value ([`OwnedMessage::set_value`]).
    pub fn set_value(&mut self, i: usize, value: &[u8]) -> Result<(), EncodeError> {
        self.msg.set_value(&self.member(i), value)
    }

    /// Open member `i`, a grouped IE.
    pub fn group(&mut self, i: usize) -> Result<Group<'_>, EncodeError> {
        let path = self.member(i);
        self.msg.group(&path)
    }
}
