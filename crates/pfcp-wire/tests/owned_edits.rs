//! Edits of the wire-backed `OwnedMessage` against a model: the same edits applied to a tree
//! of `OwnedIe`s, encoded by the tree's own writer (`MessageWriter` with `OwnedIe::encode`,
//! which computes every grouped Length itself). After every edit both encodings are equal
//! octet for octet, and `Message::decode` accepts them with the model's IE count.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};

use pfcp_wire::encode::MessageWriter;
use pfcp_wire::owned::{IeContent, OwnedIe, OwnedMessage};
use pfcp_wire::{DecodeLimits, IeType, Message, MessageType, SequenceNumber};

fn grouped_type() -> impl Strategy<Value = IeType> {
    select(
        (1..400)
            .map(IeType)
            .filter(|t| t.is_grouped())
            .collect::<Vec<_>>(),
    )
}

fn leaf() -> impl Strategy<Value = OwnedIe> {
    prop_oneof![
        4 => (0u16..400, vec(any::<u8>(), 0..30))
            .prop_filter("not grouped", |(t, _)| !IeType(*t).is_grouped())
            .prop_map(|(t, v)| OwnedIe::raw(IeType(t), &v)),
        1 => (0x8000u16.., any::<u16>(), vec(any::<u8>(), 0..8))
            .prop_map(|(t, e, v)| OwnedIe::vendor(IeType(t), e, &v)),
        1 => grouped_type().prop_map(|t| OwnedIe::grouped(t, Vec::new())),
    ]
}

fn tree() -> impl Strategy<Value = OwnedIe> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        (grouped_type(), vec(inner, 0..4)).prop_map(|(t, c)| OwnedIe::grouped(t, c))
    })
}

#[derive(Debug, Clone)]
enum Edit {
    Remove,
    Replace(OwnedIe),
    InsertBefore(OwnedIe),
    /// Append to the IE if grouped, else set its value to these octets.
    AppendOrSet(OwnedIe, Vec<u8>),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (tree(), vec(any::<u8>(), 0..40)).prop_map(|(t, v)| Edit::AppendOrSet(t, v)),
        tree().prop_map(Edit::Replace),
        tree().prop_map(Edit::InsertBefore),
        Just(Edit::Remove),
    ]
}

/// Every IE's path, in document order.
fn paths(ies: &[OwnedIe], prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (i, ie) in ies.iter().enumerate() {
        prefix.push(i);
        out.push(prefix.clone());
        if let IeContent::Grouped(c) = &ie.content {
            paths(c, prefix, out);
        }
        prefix.pop();
    }
}

/// The list that holds the IE at `path` (all but its last index lead into grouped IEs).
fn list_of<'a>(ies: &'a mut Vec<OwnedIe>, path: &[usize]) -> &'a mut Vec<OwnedIe> {
    match path {
        [] | [_] => ies,
        [i, rest @ ..] => match &mut ies[*i].content {
            IeContent::Grouped(c) => list_of(c, rest),
            IeContent::Raw(_) => panic!("a path through a raw IE"),
        },
    }
}

fn count(ies: &[OwnedIe]) -> usize {
    ies.iter()
        .map(|ie| match &ie.content {
            IeContent::Raw(_) => 1,
            IeContent::Grouped(c) => 1 + count(c),
        })
        .sum()
}

fn encode_model(m: &OwnedMessage, ies: &[OwnedIe]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = MessageWriter::begin(&mut out, &m.header()).unwrap();
    for ie in ies {
        w.ie(ie).unwrap();
    }
    w.finish().unwrap();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn edits_match_the_tree_model(
        start in vec(tree(), 0..5),
        edits in vec((any::<Index>(), edit()), 1..8),
    ) {
        let mut model = start.clone();
        let mut m = OwnedMessage::new(MessageType::SESSION_MODIFICATION_REQUEST, SequenceNumber::wrapping(1));
        m.seid = Some(9);
        let mut m = m.with_ies(&start).unwrap();
        for (at, e) in edits {
            let mut all = Vec::new();
            paths(&model, &mut Vec::new(), &mut all);
            if all.is_empty() {
                if let Edit::Replace(ie) | Edit::InsertBefore(ie) | Edit::AppendOrSet(ie, _) = e {
                    m.push(&ie).unwrap();
                    model.push(ie);
                }
                continue;
            }
            let path = at.get(&all).clone();
            let i = *path.last().unwrap();
            match e {
                Edit::Remove => {
                    let gone = m.remove(&path).unwrap();
                    prop_assert_eq!(gone, list_of(&mut model, &path).remove(i));
                }
                Edit::Replace(ie) => {
                    let old = m.replace(&path, &ie).unwrap();
                    let slot = &mut list_of(&mut model, &path)[i];
                    prop_assert_eq!(old, std::mem::replace(slot, ie));
                }
                Edit::InsertBefore(ie) => {
                    m.insert(&path, &ie).unwrap();
                    list_of(&mut model, &path).insert(i, ie);
                }
                Edit::AppendOrSet(ie, value) => {
                    let slot = &mut list_of(&mut model, &path)[i];
                    match &mut slot.content {
                        IeContent::Grouped(c) => {
                            m.group(&path).unwrap().push(&ie).unwrap();
                            c.push(ie);
                        }
                        IeContent::Raw(v) => {
                            m.set_value(&path, &value).unwrap();
                            *v = value.as_slice().into();
                        }
                    }
                }
            }
            let bytes = m.to_bytes().unwrap();
            prop_assert_eq!(&bytes, &encode_model(&m, &model));
            // Edits can nest deeper than the default limit of 16; the owned form allows 64.
            let d = Message::decode_with_limits(&bytes, DecodeLimits::new(64, 4096)).unwrap();
            prop_assert_eq!(d.ie_count(), count(&model));
            prop_assert_eq!(m.to_ies(), model.clone());
        }
    }
}
