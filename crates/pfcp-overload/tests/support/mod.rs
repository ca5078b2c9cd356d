//! Shared support of the property tests of both ends of overload and load control (TS 29.244
//! clauses 6.2.3, 6.2.4), included by each `tests/properties_*.rs` with `mod support;` (a
//! directory under `tests/` is not a test binary of its own).
//!
//! Each test drives a state machine with a random sequence of events over a small set of peers
//! and scopes, and checks one property after *every* event. The state machines are shared and
//! live here; the tests differ in the property they check, and are named after it.
//!
//! * This module: the harness (`run`, `Coverage`, the base instant), encode/decode helpers and
//!   the peers and scopes of the receiving end (`Universe`).
//! * [`rx`], receiving end: OCI arrivals (random sequence number chosen relative to the stored
//!   one, metric, Timer unit and value, AOCI, sometimes carried in an encoded message of a
//!   random type), time advances, `handle_timeout`, `reset_peer`, driven by `run_rx`.
//! * [`up`], sending end: random measurements, time advances, refreshes, `oci_for` with random
//!   message types, causes and peers (some without OVRL, some never registered), peers joining
//!   and leaving; every emitted OCI is delivered, encoded and decoded, to a per-peer
//!   `OverloadTable`, driven by `run_up`.
//!
//! proptest picks a fresh seed per run and shrinks failures; `PROPTEST_CASES` scales the runs.
//! Every test also counts the situations its property is about (duplicates, wraps, expiries,
//! evictions, refreshes, ...) and fails if the generator never produced them, so that no
//! property can pass vacuously.

// Every `properties_*` binary compiles all of this module but uses only the part its subject
// needs (the load tests never run `run_rx` or `run_up`, the regressions only the base
// instant), so each binary would warn about the rest.
#![allow(dead_code)]

pub(crate) mod rx;
pub(crate) mod up;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use pfcp_overload::{NodeKey, Scope};
use pfcp_wire::encode::{Encode, MessageBuilder};
use pfcp_wire::ie::{IeIter, LoadControlInformation, OverloadControlInformation};
use pfcp_wire::{Cause, Header, MessageType, SequenceNumber};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

// ------------------------------------------------------------------------------------------
// Harness
// ------------------------------------------------------------------------------------------

/// The base of every simulated clock in these tests (the crate is sans-IO).
pub(crate) use pfcp_test_support::clock::origin as base_instant;

/// Run `test` on random values of `strategy` (proptest's default case count, which honours
/// `PROPTEST_CASES`), shrinking on failure. Returns the number of cases.
pub(crate) fn run<S>(strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) -> u32
where
    S: Strategy,
    S::Value: Debug,
{
    let config = ProptestConfig {
        // Failures are turned into named regression tests in `properties_regressions.rs` instead.
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let cases = config.cases;
    let mut runner = TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
    cases
}

/// How often each interesting situation occurred, over all cases of one test.
#[derive(Default)]
pub(crate) struct Coverage(RefCell<BTreeMap<&'static str, u64>>);

impl Coverage {
    pub(crate) fn hit(&self, what: &'static str) {
        *self.0.borrow_mut().entry(what).or_default() += 1;
    }

    /// Fail if a situation the property is about never happened (with enough cases that each
    /// of them is all but certain).
    pub(crate) fn require(&self, cases: u32, required: &[&'static str]) {
        if cases < 64 {
            return;
        }
        let seen = self.0.borrow();
        for r in required {
            assert!(
                seen.get(r).copied().unwrap_or(0) > 0,
                "the generator never produced `{r}`; seen: {seen:?}"
            );
        }
    }
}

/// A message of type `t` carrying a Cause and `ie`, encoded.
pub(crate) fn message_with<E: Encode>(t: MessageType, ie: E) -> Vec<u8> {
    let header = Header::new(t)
        .with_seid(0x1234)
        .with_sequence(SequenceNumber::wrapping(7));
    let b = MessageBuilder::new(header)
        .ie(Cause::REQUEST_ACCEPTED)
        .ie(ie);
    let mut buf = vec![0u8; b.encoded_len()];
    let n = b.encode_into(&mut buf).expect("message encodes");
    assert_eq!(n, buf.len());
    buf
}

/// Encode `oci` alone, check the announced length, decode it back with `IeIter` + `decode_as`.
pub(crate) fn oci_round_trip(oci: &OverloadControlInformation) -> OverloadControlInformation {
    let mut buf = Vec::new();
    oci.encode(&mut buf).expect("OCI encodes");
    assert_eq!(buf.len(), oci.encoded_len());
    let mut iter = IeIter::new(&buf, 0);
    let ie = iter.next().expect("one IE").expect("IE header decodes");
    assert!(iter.next().is_none(), "exactly one IE");
    ie.decode_as().expect("OCI decodes")
}

pub(crate) fn lci_round_trip(lci: &LoadControlInformation) -> LoadControlInformation {
    let mut buf = Vec::new();
    lci.encode(&mut buf).expect("LCI encodes");
    assert_eq!(buf.len(), lci.encoded_len());
    let ie = IeIter::new(&buf, 0)
        .next()
        .expect("one IE")
        .expect("IE header decodes");
    ie.decode_as().expect("LCI decodes")
}

/// The peers and scopes of the receiving-end tests.
pub(crate) struct Universe {
    pub(crate) nodes: Vec<NodeKey>,
    /// The same keys as `nodes`, spelled differently (FQDNs compare case-insensitively).
    pub(crate) aliases: Vec<NodeKey>,
    /// A node that never sends anything.
    pub(crate) ghost: NodeKey,
    pub(crate) entities: Vec<IpAddr>,
    pub(crate) scopes: Vec<Scope>,
}

impl Universe {
    pub(crate) fn new() -> Self {
        let nodes = vec![
            NodeKey::fqdn("upf-a.example.net"),
            NodeKey::fqdn("UPF-B.Example.NET."),
            NodeKey::Ip(Ipv4Addr::new(198, 51, 100, 7).into()),
        ];
        let aliases = vec![
            NodeKey::fqdn("UPF-A.EXAMPLE.NET."),
            NodeKey::fqdn("upf-b.example.net"),
            NodeKey::from(IpAddr::from(Ipv4Addr::new(198, 51, 100, 7))),
        ];
        let entities: Vec<IpAddr> = vec![
            Ipv4Addr::new(192, 0, 2, 1).into(),
            Ipv4Addr::new(192, 0, 2, 2).into(),
            Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1).into(),
            Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2).into(),
        ];
        let scopes = entities
            .iter()
            .map(|ip| Scope::Entity(*ip))
            .chain(nodes.iter().map(|n| Scope::Node(n.clone())))
            .collect();
        Universe {
            nodes,
            aliases,
            ghost: NodeKey::fqdn("ghost.example.net"),
            entities,
            scopes,
        }
    }

    pub(crate) fn index(&self, scope: &Scope) -> usize {
        self.scopes
            .iter()
            .position(|s| s == scope)
            .expect("scope of the universe")
    }
}

/// How a received sequence number relates to the stored one, as the tests' own model states
/// it (clause 6.2.4.3.2, RFC 1982): the distance from the stored number to the received one
/// on the circle of 2^32, computed in `i64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModelOrder {
    /// Ahead by less than half the circle; `wrapped` when numerically smaller (it crossed the
    /// wrap).
    Newer {
        wrapped: bool,
    },
    Same,
    /// Behind by at most the reset window.
    Older,
    /// Behind by more: the sender's count started again.
    Reset,
}

impl ModelOrder {
    pub(crate) fn of(stored: u32, received: u32, reset_window: u32) -> ModelOrder {
        let circle: i64 = 1 << 32;
        let ahead = (i64::from(received) - i64::from(stored)).rem_euclid(circle);
        if ahead == 0 {
            ModelOrder::Same
        } else if ahead < circle / 2 {
            ModelOrder::Newer {
                wrapped: received < stored,
            }
        } else if circle - ahead <= i64::from(reset_window) {
            ModelOrder::Older
        } else {
            ModelOrder::Reset
        }
    }

    pub(crate) fn replaces(self) -> bool {
        matches!(self, ModelOrder::Newer { .. } | ModelOrder::Reset)
    }
}
