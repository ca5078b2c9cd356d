//! The floor: a minimal hand-written TLV walk (no error types, no offsets, no limits), the
//! least any decoder can do with the same bytes.

use pfcp_wire::IeType;

#[inline(never)]
pub(crate) fn bare_walk(bytes: &[u8]) -> u64 {
    let Some(&b0) = bytes.first() else { return 0 };
    let hlen = if b0 & 1 != 0 { 16 } else { 8 };
    if bytes.len() < hlen {
        return 0;
    }
    let len = usize::from(u16::from_be_bytes([bytes[2], bytes[3]])) + 4;
    if len != bytes.len() {
        return 0;
    }
    bare_list(&bytes[hlen..])
}

fn bare_list(mut b: &[u8]) -> u64 {
    let mut acc = 0u64;
    while b.len() >= 4 {
        let t = u16::from_be_bytes([b[0], b[1]]);
        let l = usize::from(u16::from_be_bytes([b[2], b[3]]));
        let Some(v) = b.get(4..4 + l) else { return acc };
        acc += u64::from(t) + l as u64;
        acc +=
            u64::from(v.first().copied().unwrap_or(0)) + u64::from(v.last().copied().unwrap_or(0));
        if IeType(t).is_grouped() {
            acc = acc.wrapping_add(bare_list(v));
        }
        b = &b[4 + l..];
    }
    acc
}

/// Number of IEs at all levels, as the floor sees them (checked against pfcp-wire's count).
pub(super) fn bare_count(mut b: &[u8]) -> usize {
    let mut n = 0;
    while b.len() >= 4 {
        let t = u16::from_be_bytes([b[0], b[1]]);
        let l = usize::from(u16::from_be_bytes([b[2], b[3]]));
        let v = &b[4..4 + l];
        n += 1;
        if IeType(t).is_grouped() {
            n += bare_count(v);
        }
        b = &b[4 + l..];
    }
    n
}

#[inline(never)]
pub(crate) fn bare_header(bytes: &[u8]) -> u64 {
    let b0 = bytes[0];
    let (seid, at) = if b0 & 1 != 0 {
        (u64::from_be_bytes(bytes[4..12].try_into().expect("8")), 12)
    } else {
        (0, 4)
    };
    let seq = u32::from_be_bytes([0, bytes[at], bytes[at + 1], bytes[at + 2]]);
    u64::from(seq) + (at as u64 + 4) + seid
}
