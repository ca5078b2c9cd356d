//! The decode path allocates nothing: datagram iteration, framing checks, walking every IE
//! (grouped IEs recursively), every typed accessor, `validate`, `check_typed_ies`,
//! `Message::view` with every session rule it holds iterated down to its members, and even
//! formatting the errors and Node IDs, run without a single heap allocation; and so do the typed
//! messages (`pfcp_wire::msg`): decoded from the message and from the bytes in one walk, every
//! field formatted (which decodes every repeated IE), and encoded into a caller's buffer. So does
//! encoding typed IEs and typed messages into a caller's buffer.
//!
//! The counting global allocator is `allocation-counter`'s (it wraps `System` and counts per
//! thread, so the test harness's own threads never pollute the count); this test binary is
//! the only one that links it. Inputs are built or read first, then only decoding is measured.

use std::fmt::{self, Write as _};
use std::fs;
use std::hint::black_box;
use std::net::Ipv4Addr;
use std::path::Path;
use std::time::Duration;

use pfcp_test_support::skip::skip_oracle;
use pfcp_wire::encode::{MessageWriter, SliceSink};
use pfcp_wire::ie::{
    ControlSequenceNumber, CpFunctionFeatures, CreatePdr, FSeid, FTeid, FarId, Fqdn, IeIter,
    LoadControlInformation, Metric, NetworkInstance, NodeId, OciFlags, OverloadControlInformation,
    Pdi, PdrId, Precedence, RecoveryTimeStamp, SdfFilter, SourceInterface, Timer,
    UpFunctionFeatures, UrrId,
};
use pfcp_wire::msg::AnyMessage;
use pfcp_wire::{
    Cause, Datagram, DecodeError, Header, IeType, Message, MessagePriority, MessageType,
    SequenceNumber,
};

thread_local! {
    /// Session rules (and their repeated members) iterated by `view_everything`.
    static RULES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Messages decoded into their typed form by `type_everything`.
    static TYPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A `fmt::Write` that only counts: formatting through it allocates only if `Display` does.
struct CountingWriter(usize);

impl fmt::Write for CountingWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

fn show(out: &mut CountingWriter, v: &dyn fmt::Display) {
    write!(out, "{v}").unwrap();
}

fn error(out: &mut CountingWriter, e: &DecodeError) {
    show(out, e);
    show(out, &e.path);
    black_box((e.cause(), e.offending_ie(), e.header));
}

/// Walk an IE list, grouped IEs recursively.
fn walk(out: &mut CountingWriter, ies: IeIter<'_>) -> usize {
    let mut n = 0;
    for ie in ies {
        match ie {
            Ok(ie) => {
                n += 1;
                show(out, &ie.ie_type());
                black_box((ie.enterprise_id(), ie.value(), ie.offset(), ie.path()));
                if ie.ie_type().is_grouped() {
                    n += walk(out, ie.children());
                }
            }
            Err(e) => error(out, &e),
        }
    }
    n
}

/// Everything a receiver can do with a datagram; returns (messages, IEs, errors).
/// The one-pass view, and every session rule it holds, iterated down to its members.
fn view_everything(out: &mut CountingWriter, m: &Message<'_>) -> usize {
    let v = match m.view() {
        Ok(v) => v,
        Err(e) => {
            error(out, &e);
            return 0;
        }
    };
    black_box((v.cause, v.f_seid, v.recovery_time_stamp, v.ignored));
    black_box((v.overload_control_information, v.load_control_information));
    if let Some(n) = &v.node_id {
        show(out, n);
    }
    let mut rules = 0;
    for pdr in v.create_pdrs().flatten() {
        rules += 1;
        black_box((pdr.pdr_id, pdr.precedence, pdr.far_id, pdr.pdi.local_f_teid));
        black_box(
            pdr.pdi
                .network_instance
                .as_ref()
                .map(|n| n.as_bytes().len()),
        );
        rules += pdr
            .pdi
            .sdf_filters
            .iter()
            .inspect(|s| {
                black_box(s.sdf_filter_id);
            })
            .count();
        rules += pdr.pdi.ue_ip_addresses.iter().count();
        rules += pdr.urr_ids.iter().chain(pdr.urr_ids.iter()).count();
        rules += pdr.qer_ids.iter().count() + pdr.pdi.qfis.iter().count();
    }
    for far in v.create_fars().flatten() {
        rules += 1;
        black_box((far.apply_action, far.bar_id));
        if let Some(fp) = &far.forwarding_parameters {
            black_box((fp.destination_interface, fp.outer_header_creation));
        }
        rules += far.duplicating_parameters.iter().count();
    }
    rules += v
        .create_urrs()
        .flatten()
        .inspect(|u| {
            black_box(u.volume_threshold);
        })
        .count();
    rules += v
        .create_qers()
        .flatten()
        .inspect(|q| {
            black_box(q.mbr);
        })
        .count();
    rules += v
        .update_fars()
        .flatten()
        .inspect(|f| {
            black_box(f.apply_action);
        })
        .count();
    rules += v.update_pdrs().flatten().count() + v.remove_pdrs().flatten().count();
    rules += v
        .created_pdrs()
        .flatten()
        .inspect(|c| {
            black_box(c.local_f_teid);
        })
        .count();
    rules += v
        .usage_reports_srr()
        .flatten()
        .inspect(|u| {
            black_box(u.volume_measurement);
        })
        .count();
    rules
}

/// The typed message of `m`, decoded both ways, every field formatted (a repeated IE decodes
/// each occurrence), encoded into `scratch` and read back; returns whether it typed.
fn type_everything(out: &mut CountingWriter, m: &Message<'_>, scratch: &mut [u8]) -> bool {
    let typed = m.typed();
    // The one walk over the message's octets reads them the same way (error offsets count
    // from the datagram: compared for a datagram's first message).
    let again = AnyMessage::parse(m.as_bytes());
    if m.offset() == 0 {
        assert_eq!(again, typed);
    } else {
        assert_eq!(again.is_ok(), typed.is_ok());
    }
    let t = match typed {
        Ok(t) => t,
        Err(e) => {
            error(out, &e);
            return false;
        }
    };
    write!(out, "{t:?}").unwrap();
    let n = t.encode(&mut SliceSink::new(scratch)).unwrap();
    assert_eq!(AnyMessage::parse(&scratch[..n]).as_ref(), Ok(&t));
    true
}

fn decode_everything(
    out: &mut CountingWriter,
    data: &[u8],
    scratch: &mut [u8],
) -> (usize, usize, usize) {
    let (mut msgs, mut ies, mut errors) = (0, 0, 0);
    for item in Datagram::new(data) {
        let m = match item {
            Ok(m) => m,
            Err(e) => {
                errors += 1;
                error(out, &e);
                continue;
            }
        };
        msgs += 1;
        show(out, &m.message_type());
        black_box((m.header(), m.summary(), m.body(), m.ie_count()));
        let walked = walk(out, m.ies());
        assert_eq!(walked, m.ie_count());
        ies += walked;
        match m.node_id() {
            Ok(Some(n)) => show(out, &n),
            Ok(None) => {}
            Err(e) => error(out, &e),
        }
        let results = [
            m.cause().map(|v| v.map(|c| c.effective().0)).err(),
            m.f_seid().map(|v| v.map(|f| f.seid)).err(),
            m.recovery_time_stamp()
                .map(|v| v.map(|t| t.since_unix_epoch()))
                .err(),
            m.overload_control_information()
                .map(|v| v.map(|o| o.period_of_validity.duration()))
                .err(),
            m.load_control_information()
                .map(|v| v.map(|l| l.metric.percent()))
                .err(),
            m.offending_ie().map(|v| v.map(|o| o.0)).err(),
            m.cp_function_features()
                .map(|v| v.map(|f| f.iter().count()))
                .err(),
            m.up_function_features()
                .map(|v| v.map(|f| f.iter().count()))
                .err(),
            m.validate().err(),
            m.check_typed_ies().err(),
        ];
        for e in results.iter().flatten() {
            error(out, e);
        }
        RULES.with(|r| r.set(r.get() + view_everything(out, &m)));
        if type_everything(out, &m, scratch) {
            TYPED.with(|t| t.set(t.get() + 1));
        }
    }
    (msgs, ies, errors)
}

fn hex(s: &str) -> Vec<u8> {
    pfcp_wire::owned::parse_hex(s).expect("valid hex")
}

/// Hand-built messages covering every typed accessor, nested grouped IEs, vendor IEs, FO
/// bundles, and malformed input (errors must not allocate either).
fn built_inputs() -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    let oci = OverloadControlInformation {
        sequence_number: ControlSequenceNumber(5),
        metric: Metric::new(30).unwrap(),
        period_of_validity: Timer::from_duration(Duration::from_secs(120)).unwrap(),
        flags: Some(OciFlags::AOCI),
    };
    let lci = LoadControlInformation {
        sequence_number: ControlSequenceNumber(7),
        metric: Metric::new(55).unwrap(),
    };
    let fseid = FSeid {
        seid: 0x1122_3344_5566_7788,
        ipv4: Some(Ipv4Addr::new(198, 51, 100, 7)),
        ipv6: None,
    };

    // Session Establishment Response: Node ID (FQDN), Cause, F-SEID, OCI, LCI, priority 3.
    let header = Header::new(MessageType::SESSION_ESTABLISHMENT_RESPONSE)
        .with_seid(1)
        .with_sequence(SequenceNumber::new(0x102).unwrap())
        .with_priority(MessagePriority::new(3).unwrap());
    let mut v = Vec::new();
    let mut w = MessageWriter::begin(&mut v, &header).unwrap();
    w.ie(&NodeId::Fqdn(
        Fqdn::from_dotted("upf1.example.net").unwrap(),
    ))
    .unwrap()
    .ie(&Cause::PFCP_ENTITY_IN_CONGESTION)
    .unwrap()
    .ie(&fseid)
    .unwrap()
    .ie(&oci)
    .unwrap()
    .ie(&lci)
    .unwrap();
    w.finish().unwrap();
    inputs.push(v);

    // Association Setup Request: Node ID (IPv4), Recovery Time Stamp, CP and UP features, a
    // vendor IE, an Offending IE.
    let header = Header::new(MessageType::ASSOCIATION_SETUP_REQUEST)
        .with_sequence(SequenceNumber::new(77).unwrap());
    let mut v = Vec::new();
    let mut w = MessageWriter::begin(&mut v, &header).unwrap();
    w.ie(&NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)))
        .unwrap()
        .ie(&RecoveryTimeStamp(0xE8F4_A2B0))
        .unwrap()
        .ie(&CpFunctionFeatures::empty()
            .with(CpFunctionFeatures::LOAD)
            .with(CpFunctionFeatures::OVRL))
        .unwrap()
        .ie(&UpFunctionFeatures::empty().with(UpFunctionFeatures::BUNDL))
        .unwrap()
        .ie(&pfcp_wire::ie::OffendingIe(IeType::CAUSE))
        .unwrap();
    w.finish().unwrap();
    v.extend_from_slice(&[0x80, 0x01, 0x00, 0x04, 0x48, 0xf9, 0xaa, 0xbb]);
    let len = (v.len() - 4) as u16;
    v[2..4].copy_from_slice(&len.to_be_bytes());
    inputs.push(v);

    // Session Establishment Request with nested Create PDR / PDI / Create FAR (grouped IEs).
    let ser = hex("2332005a000000000000000000000250\
         003c000500c000020a\
         0039000d020000000000000001c000020a\
         0001001f003800020001001d0004000000ff000200050014000100006c000400000001\
         0003000d006c000400000001002c000102");
    // Heartbeat Request.
    let hb = hex("2001000c00abcd000060000 4e8f4a2b0"
        .replace(' ', "")
        .as_str());
    // An FO bundle of three messages (FO=1 on the first two).
    let mut bundle = Vec::new();
    for (i, m) in [&hb, &inputs[0], &ser].into_iter().enumerate() {
        let mut m = m.clone();
        if i < 2 {
            m[0] |= 0x04;
        }
        bundle.extend(m);
    }
    inputs.push(ser.clone());
    inputs.push(hb.clone());
    inputs.push(bundle.clone());

    // Malformed: truncated header, bad version, overrun IE, bad OCI, trailing data, FO=1 at
    // the end, Cause 0, missing mandatory IE, a depth bomb.
    inputs.push(hb[..5].to_vec());
    let mut bad = hb.clone();
    bad[0] = 0x40;
    inputs.push(bad);
    let mut overrun = hb.clone();
    overrun[11] = 0x09;
    inputs.push(overrun);
    inputs.push(hex("2133001f000000000000000100000100\
         0013000140\
         0036000a003400040000000500350000"));
    let mut trailing = hb.clone();
    trailing.push(0);
    inputs.push(trailing);
    inputs.push(bundle[..bundle.len() - ser.len()].to_vec());
    inputs.push(hex("2133000d0000000000000001000001000013000100"));
    inputs.push(hex("2001000400000000"));
    let mut bomb = hex("2001000000000000");
    for i in 0..40u16 {
        bomb.extend_from_slice(&[0x00, 0x36]);
        bomb.extend_from_slice(&((39 - i) * 4).to_be_bytes());
    }
    let len = (bomb.len() - 4) as u16;
    bomb[2..4].copy_from_slice(&len.to_be_bytes());
    inputs.push(bomb);
    inputs
}

/// The real captures of the oracle (read at run time: their AGPL bytes are not copied into
/// this repository), `None` where the oracle folder is absent.
fn capture_inputs() -> Option<Vec<Vec<u8>>> {
    let dir = std::env::var_os("PFCP_ORACLE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle"));
    let path = dir.join("corpus/captures.jsonl");
    let Ok(text) = fs::read_to_string(&path) else {
        skip_oracle(
            "no_alloc",
            &format!(
                "{} not found: the captures' session rules are not measured",
                path.display()
            ),
        );
        return None;
    };
    Some(
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v.get("hex").and_then(|h| h.as_str()).map(str::to_owned))
            .filter_map(|h| pfcp_wire::owned::parse_hex(&h))
            .collect(),
    )
}

/// The committed fuzz seeds (oracle-valid messages, malformed and hostile input).
fn seed_inputs() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/decode_message");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().map(|p| fs::read(p).unwrap()).collect()
}

/// Everything is measured in this one test function, on this thread.
#[test]
fn decode_path_allocates_nothing() {
    // The counter must be live, or a zero below would prove nothing.
    let probe = allocation_counter::measure(|| {
        black_box(Box::new(1u64));
    });
    assert_eq!(probe.count_total, 1, "counting allocator not active");

    let mut inputs = built_inputs();
    let built = inputs.len();
    inputs.extend(seed_inputs());
    assert!(inputs.len() > built + 100, "fuzz seed corpus missing");
    let captures = capture_inputs();
    let with_captures = captures.is_some();
    inputs.extend(captures.unwrap_or_default());

    let mut out = CountingWriter(0);
    let mut totals = (0, 0, 0);
    // Room for the largest message (a 16-bit Length and the 16-octet header).
    let mut scratch = vec![0u8; 65_536 + 16];
    let info = allocation_counter::measure(|| {
        for data in &inputs {
            let (m, i, e) = decode_everything(&mut out, black_box(data), &mut scratch);
            totals.0 += m;
            totals.1 += i;
            totals.2 += e;
        }
    });
    assert_eq!(
        info.count_total, 0,
        "decoding allocated {} times ({} octets)",
        info.count_total, info.bytes_total
    );
    // The run did real work: messages, IEs, and errors of every kind were produced.
    let (msgs, ies, errors) = totals;
    eprintln!(
        "{msgs} messages, {ies} IEs, {errors} errors, {} octets formatted",
        out.0
    );
    assert!(msgs >= 100, "{msgs} messages");
    assert!(ies >= 500, "{ies} IEs");
    assert!(errors >= 50, "{errors} errors");
    assert!(out.0 > 10_000, "formatted only {} octets", out.0);
    let rules = RULES.with(std::cell::Cell::get);
    eprintln!("{rules} session rules and members iterated through Message::view");
    let typed = TYPED.with(std::cell::Cell::get);
    eprintln!("{typed} messages typed, formatted, encoded and read back");
    assert!(typed >= 50, "{typed} typed messages");
    if with_captures {
        assert!(rules >= 40, "{rules} rules");
        assert!(typed >= 400, "{typed} typed messages");
    }

    // The hand-built messages decode as intended (checked outside the measurement).
    let m = Message::decode(&inputs[0]).unwrap();
    assert_eq!(
        m.overload_control_information()
            .unwrap()
            .unwrap()
            .metric
            .percent(),
        30
    );
    assert_eq!(Datagram::new(&inputs[4]).filter(Result::is_ok).count(), 3);
}

/// Building a typed message from values and encoding it into a caller's buffer allocates
/// nothing.
#[test]
fn building_a_typed_message_allocates_nothing() {
    use pfcp_wire::ie::{ApplyAction, CreateFar};
    use pfcp_wire::msg::SessionEstablishmentRequest;
    let pdrs = [CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS)).with_far_id(FarId(1))];
    let fars = [CreateFar::new(FarId(1), ApplyAction::FORW)];
    let fseid = FSeid {
        seid: 1,
        ipv4: Some(Ipv4Addr::new(192, 0, 2, 10)),
        ipv6: None,
    };
    let mut buf = [0u8; 256];
    let mut n = 0;
    let info = allocation_counter::measure(|| {
        let node = NodeId::Fqdn(Fqdn::from_dotted("smf1.example.net").unwrap());
        let req = SessionEstablishmentRequest::new(node, fseid, &pdrs, &fars)
            .with_seid(0)
            .with_priority(MessagePriority::HIGHEST);
        n = req.encode_into(black_box(&mut buf)).unwrap();
    });
    assert_eq!(
        info.count_total, 0,
        "building allocated {} times",
        info.count_total
    );
    let req = SessionEstablishmentRequest::parse(&buf[..n]).unwrap();
    assert_eq!(req.create_pdrs.iter().collect::<Vec<_>>(), pdrs);
    assert_eq!(req.cp_f_seid, fseid);
}

/// Encoding typed IEs and a message into a caller's buffer allocates nothing either.
#[test]
fn encoding_into_a_slice_allocates_nothing() {
    let node = NodeId::Fqdn(Fqdn::from_dotted("smf1.example.net").unwrap());
    let oci = OverloadControlInformation {
        sequence_number: ControlSequenceNumber(9),
        metric: Metric::new(80).unwrap(),
        period_of_validity: Timer::INFINITE,
        flags: None,
    };
    // Built before the measurement (a built repeated member holds a `Vec`).
    let pdr = CreatePdr::new(
        PdrId(1),
        Pdi::new(SourceInterface::ACCESS)
            .with_local_f_teid(FTeid::choose_ipv4(Some(1)))
            .with_network_instance(NetworkInstance::new(b"internet"))
            .with_sdf_filter(SdfFilter::flow(b"permit out ip from any to assigned")),
    )
    .with_precedence(Precedence(100))
    .with_far_id(FarId(1))
    .with_urr_id(UrrId(1));
    let mut buf = [0u8; 256];
    let mut n = 0;
    let info = allocation_counter::measure(|| {
        let header = Header::new(MessageType::SESSION_REPORT_REQUEST)
            .with_seid(7)
            .with_priority(MessagePriority::HIGHEST);
        let mut sink = SliceSink::new(&mut buf);
        let mut w = MessageWriter::begin(&mut sink, &header).unwrap();
        w.ie(&node).unwrap().ie(&oci).unwrap().ie(&pdr).unwrap();
        let mut g = w.group(IeType::LOAD_CONTROL_INFORMATION).unwrap();
        g.ie(&ControlSequenceNumber(1))
            .unwrap()
            .ie(&Metric::new(10).unwrap())
            .unwrap();
        g.finish().unwrap();
        n = w.finish().unwrap();
    });
    assert_eq!(
        info.count_total, 0,
        "encoding allocated {} times",
        info.count_total
    );
    let m = Message::decode(&buf[..n]).unwrap();
    assert_eq!(m.node_id().unwrap(), Some(node));
    assert_eq!(m.get::<CreatePdr<'_>>().unwrap(), Some(pdr));
    assert_eq!(m.overload_control_information().unwrap(), Some(oci));
    assert_eq!(
        m.load_control_information()
            .unwrap()
            .unwrap()
            .metric
            .percent(),
        10
    );
}
