//! Unit tests of the generic IE layer, with the iterator-based framing check that
//! `check_framing` replaced kept as the oracle for its errors.

use super::framing::MAX_STACK;
use super::*;

/// The iterator-based framing check [`check_framing`] replaced; the oracle for its errors.
fn check_framing_iter(
    body: &[u8],
    offset: usize,
    limits: DecodeLimits,
) -> Result<usize, DecodeError> {
    // One iterator per open grouped level. The depth limit bounds the stack; MAX_STACK bounds
    // it again should a caller configure an absurd depth.
    let max_depth = limits.max_depth.min(MAX_STACK);
    let mut stack: [Option<IeIter<'_>>; MAX_STACK] = [const { None }; MAX_STACK];
    let mut depth = 1usize;
    if let Some(slot) = stack.first_mut() {
        *slot = Some(IeIter::new(body, offset));
    }
    let mut count = 0usize;
    while depth > 0 {
        let next = match stack.get_mut(depth - 1).and_then(Option::as_mut) {
            Some(it) => it.next(),
            None => None,
        };
        match next {
            None => {
                depth -= 1;
            }
            Some(Err(e)) => return Err(e),
            Some(Ok(ie)) => {
                count += 1;
                if count > limits.max_ies {
                    return Err(ie.error(DecodeErrorKind::TooManyIes {
                        limit: limits.max_ies,
                    }));
                }
                if ie.ie_type.is_grouped() && !ie.value.is_empty() {
                    if depth >= max_depth {
                        return Err(ie.error(DecodeErrorKind::DepthExceeded { limit: max_depth }));
                    }
                    if let Some(slot) = stack.get_mut(depth) {
                        *slot = Some(ie.children());
                        depth += 1;
                    }
                }
            }
        }
    }
    Ok(count)
}

#[test]
fn vendor_ie_carries_enterprise_id() {
    // Digest 3.1: type 32769, len 4, EID 18681, data aa bb.
    let b = [0x80, 0x01, 0x00, 0x04, 0x48, 0xf9, 0xaa, 0xbb];
    let ie = IeIter::new(&b, 0).next().unwrap().unwrap();
    assert_eq!(ie.ie_type(), IeType(32769));
    assert_eq!(ie.enterprise_id(), Some(18681));
    assert_eq!(ie.value(), &[0xaa, 0xbb]);
    assert_eq!(ie.length(), 4);
}

#[test]
fn zero_length_ie_is_legal() {
    let b = [0x00, 0x13, 0x00, 0x00, 0x00, 0x60, 0x00, 0x00];
    let ies: Vec<_> = IeIter::new(&b, 0).collect::<Result<_, _>>().unwrap();
    assert_eq!(ies.len(), 2);
    assert!(ies.iter().all(|ie| ie.value().is_empty()));
}

#[test]
fn overrun_keeps_earlier_ies_and_names_the_ie() {
    let b = [0x00, 0x13, 0x00, 0x01, 0x01, 0x00, 0x60, 0x00, 0x09, 0x00];
    let mut it = IeIter::new(&b, 16);
    assert!(it.next().unwrap().is_ok());
    let e = it.next().unwrap().unwrap_err();
    assert_eq!(e.offset, 21);
    assert_eq!(e.path.innermost(), Some(IeType(96)));
    assert!(matches!(
        e.kind,
        DecodeErrorKind::IeOverrun {
            length: 9,
            available: 1
        }
    ));
    assert!(it.next().is_none());
}

#[test]
fn depth_bomb_is_an_error() {
    // 40 nested OCIs (type 54), innermost empty.
    let depth = 40;
    let mut b = Vec::new();
    for i in 0..depth {
        let len = (depth - 1 - i) * 4;
        b.extend_from_slice(&[0x00, 0x36]);
        b.extend_from_slice(&(len as u16).to_be_bytes());
    }
    let e = check_framing(&b, 0, DecodeLimits::DEFAULT).unwrap_err();
    assert!(matches!(
        e.kind,
        DecodeErrorKind::DepthExceeded { limit: 16 }
    ));
    assert_eq!(e.path.depth(), 16);
}

/// Bodies for the framing and iterator tests.
fn check_framing_seeds() -> Vec<Vec<u8>> {
    vec![
        // Digest 4.14 Session Establishment Request body (Create PDR with PDI, Create FAR).
        vec![
            0x00, 0x3c, 0x00, 0x05, 0x00, 0xc0, 0x00, 0x02, 0x0a, 0x00, 0x39, 0x00, 0x0d, 0x02, 0,
            0, 0, 0, 0, 0, 0, 1, 0xc0, 0x00, 0x02, 0x0a, 0x00, 0x01, 0x00, 0x1f, 0x00, 0x38, 0x00,
            0x02, 0x00, 0x01, 0x00, 0x1d, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, 0x00, 0x02, 0x00,
            0x05, 0x00, 0x14, 0x00, 0x01, 0x00, 0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01,
            0x00, 0x03, 0x00, 0x0d, 0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x2c,
            0x00, 0x01, 0x02,
        ],
        // OCI then LCI (digest 1.6).
        vec![
            0x00, 0x36, 0x00, 0x17, 0x00, 0x34, 0x00, 0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x35,
            0x00, 0x01, 0x1e, 0x00, 0x37, 0x00, 0x01, 0x22, 0x00, 0x6e, 0x00, 0x01, 0x01, 0x00,
            0x33, 0x00, 0x0d, 0x00, 0x34, 0x00, 0x04, 0x00, 0x00, 0x00, 0x07, 0x00, 0x35, 0x00,
            0x01, 0x37,
        ],
        // Vendor IE, empty grouped IE, zero-length IE, nested empty group at the end.
        vec![
            0x80, 0x01, 0x00, 0x04, 0x48, 0xf9, 0xaa, 0xbb, 0x00, 0x01, 0x00, 0x00, 0x00, 0x13,
            0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x02, 0x00, 0x04, 0x00, 0x03, 0x00, 0x00,
        ],
        vec![],
    ]
}

/// `check_framing` gives exactly what the iterator-based check gives (count, or error kind,
/// offset and path), on valid bodies and on every truncation and many one-octet mutations.
#[test]
fn check_framing_agrees_with_iterator() {
    let seeds = check_framing_seeds();
    let limits = [
        DecodeLimits::DEFAULT,
        DecodeLimits::new(2, 4096),
        DecodeLimits::new(1, 5),
        DecodeLimits::new(0, 0),
        DecodeLimits::new(3, 3),
        DecodeLimits::new(100, 100),
    ];
    let check = |b: &[u8]| {
        for l in limits {
            let got = check_framing(b, 7, l);
            assert_eq!(got, check_framing_iter(b, 7, l), "{b:02x?} {l:?}");
        }
    };
    for seed in &seeds {
        for n in 0..=seed.len() {
            check(&seed[..n]);
        }
        for i in 0..seed.len() {
            let near = [seed[i] ^ 1, seed[i].wrapping_add(1)];
            for v in [0x00, 0x01, 0x02, 0x04, 0x36, 0x80, 0xff]
                .into_iter()
                .chain(near)
            {
                let mut b = seed.clone();
                b[i] = v;
                check(&b);
            }
        }
    }
}

/// The IE iterator as it was when every `RawIe` carried its offset and IE path: the
/// oracle for the offsets and paths now derived on demand.
struct RefIter<'a> {
    rest: &'a [u8],
    offset: usize,
    parent: IePath,
    failed: bool,
}

struct RefIe<'a> {
    ie_type: IeType,
    enterprise_id: Option<EnterpriseId>,
    length: u16,
    value: &'a [u8],
    offset: usize,
    path: IePath,
}

impl<'a> Iterator for RefIter<'a> {
    type Item = Result<RefIe<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let fail = |it: &mut Self, kind, path| {
            it.failed = true;
            Some(Err(DecodeError::new(kind, it.offset).with_path(path)))
        };
        let [t0, t1, l0, l1, after_header @ ..] = self.rest else {
            let available = self.rest.len();
            let parent = self.parent;
            return fail(
                self,
                DecodeErrorKind::IeHeaderTruncated { available },
                parent,
            );
        };
        let ie_type = IeType(u16::from_be_bytes([*t0, *t1]));
        let length = u16::from_be_bytes([*l0, *l1]);
        let path = self.parent.push(ie_type);
        let Some((body, after)) = after_header.split_at_checked(usize::from(length)) else {
            let available = after_header.len();
            return fail(self, DecodeErrorKind::IeOverrun { length, available }, path);
        };
        let (enterprise_id, value) = if ie_type.is_vendor() {
            match body {
                [a, b, value @ ..] => (Some(u16::from_be_bytes([*a, *b])), value),
                _ => return fail(self, DecodeErrorKind::VendorIeTooShort { length }, path),
            }
        } else {
            (None, body)
        };
        let ie = RefIe {
            ie_type,
            enterprise_id,
            length,
            value,
            offset: self.offset,
            path,
        };
        self.offset += IE_HEADER_LEN + usize::from(length);
        self.rest = after;
        Some(Ok(ie))
    }
}

/// `IeIter` and the reference iterator agree on every item (type, Enterprise ID, length,
/// value, offset, path, errors) of `got`, and recursively on the children of every IE,
/// grouped or not (`RawIe::children` works on any IE).
fn agree(got: IeIter<'_>, want: RefIter<'_>, depth: usize) {
    let got: Vec<_> = got.collect();
    let want: Vec<_> = want.collect();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.into_iter().zip(want) {
        match (g, w) {
            (Ok(g), Ok(w)) => {
                assert_eq!(g.ie_type(), w.ie_type);
                assert_eq!(g.enterprise_id(), w.enterprise_id);
                assert_eq!(g.length(), w.length);
                assert_eq!(g.value(), w.value);
                assert_eq!(g.offset(), w.offset);
                assert_eq!(g.path(), w.path);
                assert_eq!(g.encoded_len(), IE_HEADER_LEN + usize::from(w.length));
                let eid = if w.enterprise_id.is_some() { 2 } else { 0 };
                assert_eq!(g.value_offset(), w.offset + IE_HEADER_LEN + eid);
                let e = g.error(DecodeErrorKind::SFlagMismatch);
                assert_eq!((e.offset, e.path), (w.offset, w.path));
                let same = g;
                assert_eq!(g, same);
                if depth < 4 {
                    let children = RefIter {
                        rest: w.value,
                        offset: g.value_offset(),
                        parent: w.path,
                        failed: false,
                    };
                    agree(g.children(), children, depth + 1);
                }
            }
            (Err(g), Err(w)) => assert_eq!(g, w),
            (g, w) => panic!("{g:?} vs {:?}", w.map(|w| w.offset)),
        }
    }
}

#[test]
fn offsets_and_paths_agree_with_stored_ones() {
    let mut seeds = check_framing_seeds();
    // Deeper than IE_PATH_CAPACITY: 10 nested OCIs around a Metric.
    let mut deep = vec![0x00, 0x35, 0x00, 0x01, 0x1e];
    for _ in 0..10 {
        let mut outer = vec![0x00, 0x36];
        outer.extend_from_slice(&(deep.len() as u16).to_be_bytes());
        outer.extend_from_slice(&deep);
        deep = outer;
    }
    seeds.push(deep);
    let check = |b: &[u8]| {
        let want = RefIter {
            rest: b,
            offset: 7,
            parent: IePath::EMPTY,
            failed: false,
        };
        agree(IeIter::new(b, 7), want, 0);
    };
    for seed in &seeds {
        for n in 0..=seed.len() {
            check(&seed[..n]);
        }
        for i in 0..seed.len() {
            for v in [0x00, 0x01, 0x02, 0x04, 0x36, 0x80, 0xff, seed[i] ^ 1] {
                let mut b = seed.clone();
                b[i] = v;
                check(&b);
            }
        }
    }
}

#[test]
fn ie_count_limit() {
    let b = [0u8, 200, 0, 0].repeat(10);
    assert_eq!(check_framing(&b, 0, DecodeLimits::new(4, 10)).unwrap(), 10);
    assert!(matches!(
        check_framing(&b, 0, DecodeLimits::new(4, 9))
            .unwrap_err()
            .kind,
        DecodeErrorKind::TooManyIes { limit: 9 }
    ));
}
