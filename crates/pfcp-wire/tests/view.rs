//! `Message::view` against `Message::validate` and the accessors on every message of the
//! oracle corpora (valid, malformed, real captures; read from `../shared/oracle`, skipped when
//! absent): Ok only where `validate` is, the same error where `validate` fails, and the same
//! values as the accessors.

use pfcp_test_support::skip::skip_oracle;
use pfcp_wire::ie::{CreateFar, CreatePdr, CreatedPdr};
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{Datagram, Message};

fn corpus(name: &str) -> Vec<Vec<u8>> {
    let dir = std::env::var_os("PFCP_ORACLE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle")
        });
    let Ok(text) = std::fs::read_to_string(dir.join("corpus").join(name)) else {
        skip_oracle(
            "view",
            &format!("oracle corpus {name} not found under {}", dir.display()),
        );
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| {
            let at = l.find("\"hex\":\"")? + 7;
            let end = at + l.get(at..)?.find('"')?;
            parse_hex(l.get(at..end)?)
        })
        .collect()
}

fn check(m: &Message<'_>) -> bool {
    let view = m.view();
    match (&view, m.validate()) {
        (Ok(_), Err(e)) => panic!("view accepted what validate refuses: {e}"),
        (Err(v), Ok(())) => panic!("view refused what validate accepts: {v}"),
        (Err(v), Err(e)) => {
            assert_eq!(*v, e);
            assert_eq!((v.cause(), v.offending_ie()), (e.cause(), e.offending_ie()));
            return false;
        }
        (Ok(_), Ok(())) => {}
    }
    let v = view.unwrap();
    assert_eq!(v.cause, m.cause().unwrap_or_default());
    assert_eq!(v.node_id, m.node_id().unwrap_or_default());
    assert_eq!(v.f_seid, m.f_seid().unwrap_or_default());
    assert_eq!(
        v.recovery_time_stamp,
        m.recovery_time_stamp().unwrap_or_default()
    );
    assert_eq!(
        v.overload_control_information,
        m.overload_control_information().unwrap_or_default()
    );
    assert_eq!(
        v.load_control_information,
        m.load_control_information().unwrap_or_default()
    );
    let pdrs: Vec<CreatePdr<'_>> = m.all().collect::<Result<_, _>>().unwrap();
    assert_eq!(
        v.create_pdrs().collect::<Result<Vec<_>, _>>().unwrap(),
        pdrs
    );
    let fars: Vec<CreateFar<'_>> = m.all().collect::<Result<_, _>>().unwrap();
    assert_eq!(
        v.create_fars().collect::<Result<Vec<_>, _>>().unwrap(),
        fars
    );
    let created: Vec<CreatedPdr<'_>> = m.all().collect::<Result<_, _>>().unwrap();
    assert_eq!(
        v.created_pdrs().collect::<Result<Vec<_>, _>>().unwrap(),
        created
    );
    true
}

#[test]
fn view_agrees_with_validate_and_the_accessors() {
    let mut counts = [0usize; 2];
    for name in ["valid.jsonl", "malformed.jsonl", "captures.jsonl"] {
        for p in corpus(name) {
            for m in Datagram::new(&p).flatten() {
                counts[usize::from(check(&m))] += 1;
            }
        }
    }
    eprintln!("{} messages viewed, {} refused", counts[1], counts[0]);
    if counts[1] > 0 {
        assert!(counts[1] > 700 && counts[0] > 40, "{counts:?}");
    }
}

/// `Message::decode_view` gives what `decode` then `view` give, on every message of the
/// corpora, on every truncation of them and on every one-octet change (0xff, or the low bit
/// flipped: lengths that overrun, groups that end early, types that become grouped).
#[test]
fn decode_view_is_decode_then_view() {
    let mut n = 0usize;
    for name in ["valid.jsonl", "malformed.jsonl", "captures.jsonl"] {
        // Long messages (the malformed corpus has some of 64 KiB) only at their first octets:
        // every cut and change re-decodes the whole message.
        for p in corpus(name) {
            let bound = p.len().min(600);
            for cut in (0..=bound).chain(p.len().checked_sub(4)) {
                let b = p.get(..cut).unwrap_or_default();
                let two = Message::decode(b).and_then(|m| m.view());
                assert_eq!(
                    Message::decode_view(b),
                    two,
                    "{name}: {p:02x?} cut at {cut}"
                );
                n += 1;
            }
            for i in 0..bound {
                for f in [|o: u8| o ^ 1, |_| 0xff, |o: u8| o.wrapping_add(4)] {
                    let mut b = p.clone();
                    if let Some(o) = b.get_mut(i) {
                        *o = f(*o);
                    }
                    let two = Message::decode(&b).and_then(|m| m.view());
                    assert_eq!(Message::decode_view(&b), two, "{name}: {b:02x?}");
                    n += 1;
                }
            }
        }
    }
    eprintln!("{n} inputs");
}

#[test]
fn sizes() {
    eprintln!(
        "MessageView {} Message {} CreatePdr {} Pdi {} CreateFar {} Repeated {} DecodeError {}",
        std::mem::size_of::<pfcp_wire::MessageView<'_>>(),
        std::mem::size_of::<Message<'_>>(),
        std::mem::size_of::<CreatePdr<'_>>(),
        std::mem::size_of::<pfcp_wire::ie::Pdi<'_>>(),
        std::mem::size_of::<CreateFar<'_>>(),
        std::mem::size_of::<pfcp_wire::ie::Repeated<'_, pfcp_wire::ie::UrrId>>(),
        std::mem::size_of::<pfcp_wire::DecodeError>(),
    );
}
