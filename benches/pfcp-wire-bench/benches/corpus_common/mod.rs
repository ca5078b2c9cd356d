//! The corpus and the operations of `benches/corpus.rs`, shared with
//! `examples/corpus_icount.rs` (instruction counts under callgrind).

#![allow(dead_code)] // each of the two binaries uses a subset

use std::hint::black_box;
use std::path::PathBuf;

use pfcp_wire::ie::IeIter;
#[cfg(feature = "after")]
use pfcp_wire::ie::{
    CreateFar, CreatePdr, CreateQer, CreateUrr, CreatedPdr, ReportType, UpdateFar, UsageReportSrr,
};
use pfcp_wire::owned::{parse_hex, OwnedMessage};
#[cfg(feature = "after")]
use pfcp_wire::RawIe;
use pfcp_wire::{IeType, Message};

pub(crate) fn oracle() -> PathBuf {
    std::env::var_os("PFCP_ORACLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle"))
}

/// The corpus: every message both codecs accept.
pub(crate) fn corpus() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let (mut total, mut wire_only) = (0, 0);
    for name in ["valid.jsonl", "captures.jsonl"] {
        let path = oracle().join("corpus").join(name);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (set PFCP_ORACLE_DIR)", path.display()));
        for line in text.lines() {
            let Some(at) = line.find("\"hex\":\"").map(|i| i + 7) else {
                continue;
            };
            let end = at + line[at..].find('"').expect("hex string ends");
            let bytes = parse_hex(&line[at..end]).expect("hex");
            total += 1;
            let wire = Message::decode(&bytes).is_ok();
            let rs = rs_pfcp::message::parse(&bytes).is_ok();
            if wire && rs {
                out.push(bytes);
            } else if wire {
                wire_only += 1;
            }
        }
    }
    let octets: usize = out.iter().map(Vec::len).sum();
    eprintln!(
        "corpus: {} of {total} messages accepted by both codecs ({wire_only} by pfcp-wire only), \
         mean {:.1} octets",
        out.len(),
        octets as f64 / out.len() as f64
    );
    out
}

pub(crate) fn walk(ies: IeIter<'_>) -> u64 {
    let mut acc = 0u64;
    for ie in ies.flatten() {
        let v = ie.value();
        acc = acc.wrapping_add(u64::from(ie.ie_type().0) + v.len() as u64);
        acc = acc.wrapping_add(u64::from(v.first().copied().unwrap_or(0)));
        if ie.ie_type().is_grouped() {
            acc = acc.wrapping_add(walk(ie.children()));
        }
    }
    acc
}

#[inline(never)]
pub(crate) fn wire_walk(msgs: &[Vec<u8>]) -> u64 {
    let mut acc = 0u64;
    for b in msgs {
        let m = Message::decode(black_box(b)).expect("decode");
        acc = acc.wrapping_add(walk(m.ies()));
    }
    acc
}

#[inline(never)]
pub(crate) fn wire_validate(msgs: &[Vec<u8>]) -> u64 {
    let mut acc = 0u64;
    for b in msgs {
        let m = Message::decode(black_box(b)).expect("decode");
        acc = acc.wrapping_add(walk(m.ies()));
        acc = acc.wrapping_add(u64::from(m.validate().is_ok()));
    }
    acc
}

/// The typed reads a node made before `Message::view`: one accessor (one scan) each.
pub(crate) fn typed_reads(m: &Message<'_>) -> u64 {
    let mut acc = 0u64;
    if let Ok(Some(o)) = m.overload_control_information() {
        acc += u64::from(o.metric.percent());
    }
    if let Ok(Some(l)) = m.load_control_information() {
        acc += u64::from(l.metric.percent());
    }
    if let Ok(Some(c)) = m.cause() {
        acc += u64::from(c.0);
    }
    if let Ok(Some(n)) = m.node_id() {
        acc += u64::from(n.type_code());
    }
    if let Ok(Some(f)) = m.f_seid() {
        acc = acc.wrapping_add(f.seid);
    }
    if let Ok(Some(t)) = m.recovery_time_stamp() {
        acc += u64::from(t.0);
    }
    acc
}

#[inline(never)]
pub(crate) fn wire_typed_reads(msgs: &[Vec<u8>]) -> u64 {
    let mut acc = 0u64;
    for b in msgs {
        let m = Message::decode(black_box(b)).expect("decode");
        acc = acc.wrapping_add(walk(m.ies()));
        acc = acc.wrapping_add(u64::from(m.validate().is_ok()));
        acc = acc.wrapping_add(typed_reads(&m));
    }
    acc
}

#[cfg(feature = "after")]
#[inline(never)]
pub(crate) fn wire_view(msgs: &[Vec<u8>], rules: bool) -> u64 {
    let mut acc = 0u64;
    for b in msgs {
        let m = Message::decode(black_box(b)).expect("decode");
        acc = acc.wrapping_add(view_reads(m.view(), rules));
    }
    acc
}

/// `Message::decode_view`: the same work as [`wire_view`] in one walk.
#[cfg(feature = "decode-view")]
#[inline(never)]
pub(crate) fn wire_decode_view(msgs: &[Vec<u8>], rules: bool) -> u64 {
    let mut acc = 0u64;
    for b in msgs {
        acc = acc.wrapping_add(view_reads(Message::decode_view(black_box(b)), rules));
    }
    acc
}

/// What the node reads from a view (and, with `rules`, every session rule).
#[cfg(feature = "after")]
#[inline(always)]
fn view_reads(v: Result<pfcp_wire::MessageView<'_>, pfcp_wire::DecodeError>, rules: bool) -> u64 {
    let mut acc = 0u64;
    {
        let Ok(v) = v else {
            return 1;
        };
        acc += v
            .overload_control_information
            .map_or(0, |o| u64::from(o.metric.percent()));
        acc += v
            .load_control_information
            .map_or(0, |l| u64::from(l.metric.percent()));
        acc += v.cause.map_or(0, |c| u64::from(c.0));
        acc += v.node_id.map_or(0, |n| u64::from(n.type_code()));
        acc = acc.wrapping_add(v.f_seid.map_or(0, |f| f.seid));
        acc += v.recovery_time_stamp.map_or(0, |t| u64::from(t.0));
        if rules {
            for pdr in v.create_pdrs().flatten() {
                acc += u64::from(pdr.pdr_id.0) + pdr.far_id.map_or(0, |f| u64::from(f.0));
                acc += pdr
                    .pdi
                    .local_f_teid
                    .and_then(|f| f.teid())
                    .map_or(0, u64::from);
                acc += (pdr.pdi.sdf_filters.iter().count() + pdr.urr_ids.iter().count()) as u64;
                acc += pdr.qer_ids.iter().count() as u64;
            }
            for far in v.create_fars().flatten() {
                acc += u64::from(far.apply_action.bits);
                if let Some(fp) = &far.forwarding_parameters {
                    acc += fp
                        .outer_header_creation
                        .and_then(|o| o.teid)
                        .map_or(0, u64::from);
                }
            }
            for c in v.created_pdrs().flatten() {
                acc += c.local_f_teid.and_then(|f| f.teid()).map_or(0, u64::from);
            }
            for u in v.update_fars().flatten() {
                acc += u.apply_action.map_or(0, |a| u64::from(a.bits));
            }
            for q in v.create_qers().flatten() {
                acc += q.mbr.map_or(0, |m| m.uplink);
            }
        }
    }
    acc
}

#[inline(never)]
pub(crate) fn rs_parse(msgs: &[Vec<u8>]) -> u64 {
    let mut acc = 0u64;
    for b in msgs {
        let m = rs_pfcp::message::parse(black_box(b)).expect("rs-pfcp parse");
        acc = acc.wrapping_add(u64::from(m.sequence().0) + m.all_ies().len() as u64);
    }
    acc
}

/// rs-pfcp's `message::parse`, then every IE rs-pfcp has a typed decoder for decoded with it
/// (`rs_typed_ie`: the IE types of the corpus it types, but OCI, whose 1-octet Timer it
/// refuses): the same work as `typed_common::wire_typed_all`.
#[inline(never)]
pub(crate) fn rs_typed(msgs: &[Vec<u8>]) -> u64 {
    let mut acc = 0u64;
    for b in msgs {
        let m = rs_pfcp::message::parse(black_box(b)).expect("rs-pfcp parse");
        acc = acc.wrapping_add(u64::from(m.sequence().0));
        for ie in m.all_ies() {
            acc = acc.wrapping_add(rs_typed_ie(ie));
        }
    }
    acc
}

/// rs-pfcp's typed decoder of one IE, the value read (`black_box`); the others read raw.
fn rs_typed_ie(ie: &rs_pfcp::ie::Ie) -> u64 {
    use rs_pfcp::ie as rs_ie;
    fn read<T, E>(v: Result<T, E>) -> u64 {
        // Some corpus IEs are beyond rs-pfcp's typed decoders (it parses the message): the
        // attempt is what is counted.
        black_box(&v.ok());
        1
    }
    let p = &ie.payload;
    match ie.raw_type() {
        1 => read(rs_ie::create_pdr::CreatePdr::unmarshal(p)),
        3 => read(rs_ie::create_far::CreateFar::unmarshal(p)),
        6 => read(rs_ie::create_urr::CreateUrr::unmarshal(p)),
        7 => read(rs_ie::create_qer::CreateQer::unmarshal(p)),
        8 => read(rs_ie::created_pdr::CreatedPdr::unmarshal(p)),
        9 => read(rs_ie::update_pdr::UpdatePdr::unmarshal(p)),
        10 => read(rs_ie::update_far::UpdateFar::unmarshal(p)),
        15 => read(rs_ie::remove_pdr::RemovePdr::unmarshal(p)),
        19 => read(rs_ie::cause::Cause::unmarshal(p)),
        39 => read(rs_ie::report_type::ReportType::unmarshal(p)),
        40 => read(rs_ie::offending_ie::OffendingIe::unmarshal(p)),
        43 => read(rs_ie::up_function_features::UPFunctionFeatures::unmarshal(
            p,
        )),
        51 => read(rs_ie::load_control_information::LoadControlInformation::unmarshal(p)),
        57 => read(rs_ie::fseid::Fseid::unmarshal(p)),
        60 => read(rs_ie::node_id::NodeId::unmarshal(p)),
        79 => read(rs_ie::usage_report_sdr::UsageReportSdr::unmarshal(p)),
        80 => read(rs_ie::usage_report_srr::UsageReportSrr::unmarshal(p)),
        83 => read(rs_ie::downlink_data_report::DownlinkDataReport::unmarshal(
            p,
        )),
        85 => read(rs_ie::create_bar::CreateBar::unmarshal(p)),
        89 => read(rs_ie::cp_function_features::CPFunctionFeatures::unmarshal(
            p,
        )),
        96 => read(rs_ie::recovery_time_stamp::RecoveryTimeStamp::unmarshal(p)),
        _ => {
            let v = &ie.payload;
            u64::from(ie.raw_type()) + v.len() as u64 + u64::from(v.first().copied().unwrap_or(0))
        }
    }
}

#[inline(never)]
pub(crate) fn wire_owned(msgs: &[Vec<u8>]) -> u64 {
    let mut acc = 0u64;
    for b in msgs {
        let m = Message::decode(black_box(b)).expect("decode");
        let o = OwnedMessage::from_message(&m).expect("owned");
        acc = acc.wrapping_add(o.body().len() as u64);
    }
    acc
}

#[inline(never)]
pub(crate) fn wire_encode(owned: &[OwnedMessage], buf: &mut Vec<u8>) -> usize {
    let mut n = 0;
    for o in owned {
        buf.clear();
        n += black_box(o).encode(buf).expect("encode");
    }
    n
}

#[inline(never)]
pub(crate) fn rs_encode(parsed: &[Box<dyn rs_pfcp::message::Message>], buf: &mut Vec<u8>) -> usize {
    let mut n = 0;
    for m in parsed {
        buf.clear();
        black_box(m).marshal_into(buf);
        n += buf.len();
    }
    n
}

#[cfg(feature = "after")]
/// The session rule IEs of the corpus, as (type, complete IE octets).
pub(crate) fn session_ies(msgs: &[Vec<u8>]) -> Vec<(IeType, Vec<u8>)> {
    const TYPES: [IeType; 8] = [
        IeType::CREATE_PDR,
        IeType::CREATE_FAR,
        IeType::CREATE_QER,
        IeType::CREATE_URR,
        IeType::CREATED_PDR,
        IeType::UPDATE_FAR,
        IeType::USAGE_REPORT_SRR,
        IeType::REPORT_TYPE,
    ];
    let mut out = Vec::new();
    for b in msgs {
        let m = Message::decode(b).expect("decode");
        for ie in m.ies().flatten() {
            if TYPES.contains(&ie.ie_type()) {
                let start = ie.offset() - m.offset();
                out.push((ie.ie_type(), b[start..start + ie.encoded_len()].to_vec()));
            }
        }
    }
    out
}

#[cfg(feature = "after")]
pub(crate) fn only_ie(b: &[u8]) -> RawIe<'_> {
    IeIter::new(b, 0).next().expect("one IE").expect("frames")
}

#[cfg(feature = "after")]
#[inline(never)]
pub(crate) fn wire_session_ies(ies: &[(IeType, Vec<u8>)]) -> u64 {
    let mut acc = 0u64;
    for (t, b) in ies {
        let ie = only_ie(black_box(b));
        acc += match *t {
            IeType::CREATE_PDR => ie.decode_as::<CreatePdr<'_>>().map(|p| {
                u64::from(p.pdr_id.0) + p.urr_ids.len() as u64 + p.pdi.sdf_filters.len() as u64
            }),
            IeType::CREATE_FAR => ie
                .decode_as::<CreateFar<'_>>()
                .map(|f| u64::from(f.far_id.0) + f.duplicating_parameters.len() as u64),
            IeType::CREATE_QER => ie.decode_as::<CreateQer>().map(|q| u64::from(q.qer_id.0)),
            IeType::CREATE_URR => ie.decode_as::<CreateUrr>().map(|u| u64::from(u.urr_id.0)),
            IeType::CREATED_PDR => ie
                .decode_as::<CreatedPdr<'_>>()
                .map(|c| u64::from(c.pdr_id.0)),
            IeType::UPDATE_FAR => ie
                .decode_as::<UpdateFar<'_>>()
                .map(|u| u64::from(u.far_id.0)),
            IeType::USAGE_REPORT_SRR => ie
                .decode_as::<UsageReportSrr>()
                .map(|u| u64::from(u.urr_id.0)),
            _ => ie.decode_as::<ReportType>().map(|r| u64::from(r.bits)),
        }
        .expect("typed decode");
    }
    acc
}

#[cfg(feature = "after")]
#[inline(never)]
pub(crate) fn rs_session_ies(ies: &[(IeType, Vec<u8>)]) -> u64 {
    use rs_pfcp::ie as r;
    let mut acc = 0u64;
    for (t, b) in ies {
        let payload = &black_box(b)[4..];
        acc += match *t {
            IeType::CREATE_PDR => {
                r::create_pdr::CreatePdr::unmarshal(payload).map(|p| u64::from(p.pdr_id.value))
            }
            IeType::CREATE_FAR => {
                r::create_far::CreateFar::unmarshal(payload).map(|f| u64::from(f.far_id.value))
            }
            IeType::CREATE_QER => {
                r::create_qer::CreateQer::unmarshal(payload).map(|q| u64::from(q.qer_id.value))
            }
            IeType::CREATE_URR => {
                r::create_urr::CreateUrr::unmarshal(payload).map(|u| u64::from(u.urr_id.id))
            }
            IeType::CREATED_PDR => {
                r::created_pdr::CreatedPdr::unmarshal(payload).map(|c| u64::from(c.pdr_id.value))
            }
            IeType::UPDATE_FAR => {
                r::update_far::UpdateFar::unmarshal(payload).map(|u| u64::from(u.far_id.value))
            }
            IeType::USAGE_REPORT_SRR => {
                r::usage_report::UsageReport::unmarshal(payload).map(|u| u64::from(u.urr_id.id))
            }
            _ => r::report_type::ReportType::unmarshal(payload).map(|_| 1),
        }
        .unwrap_or(0);
    }
    acc
}

/// The TLV walk of every level with nom's `be_u16` / `take`, checks as `IeIter` makes them.
pub(crate) fn nom_walk(mut rest: &[u8]) -> Option<u64> {
    use nom::bytes::complete::take;
    use nom::number::complete::be_u16;
    type E<'a> = nom::error::Error<&'a [u8]>;
    let mut acc = 0u64;
    while !rest.is_empty() {
        let (r, t) = be_u16::<_, E<'_>>(rest).ok()?;
        let (r, l) = be_u16::<_, E<'_>>(r).ok()?;
        let (r, body) = take::<_, _, E<'_>>(l)(r).ok()?;
        let value = if t & 0x8000 != 0 {
            take::<_, _, E<'_>>(2usize)(body).ok()?.0
        } else {
            body
        };
        acc = acc.wrapping_add(u64::from(t) + value.len() as u64);
        acc = acc.wrapping_add(u64::from(value.first().copied().unwrap_or(0)));
        if IeType(t).is_grouped() {
            acc = acc.wrapping_add(nom_walk(value)?);
        }
        rest = r;
    }
    Some(acc)
}

#[inline(never)]
pub(crate) fn tlv_slices(bodies: &[&[u8]]) -> u64 {
    bodies
        .iter()
        .map(|b| walk(IeIter::new(black_box(b), 0)))
        .fold(0, u64::wrapping_add)
}

#[inline(never)]
pub(crate) fn tlv_nom(bodies: &[&[u8]]) -> u64 {
    bodies
        .iter()
        .map(|b| nom_walk(black_box(b)).expect("frames"))
        .fold(0, u64::wrapping_add)
}
