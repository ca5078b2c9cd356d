//! Probes ([`CpConfig::probe_gap_factor`]): a CP function that the Loss throttle holds to a
//! trickle still sends now and then, and sheds what the OCI asks over a run.

use std::net::Ipv4Addr;
use std::time::Duration;

use pfcp_wire::encode::MessageBuilder;
use pfcp_wire::ie::{
    ControlSequenceNumber, Metric, NodeId, OciFlags, OverloadControlInformation, Timer,
};
use pfcp_wire::{Header, SequenceNumber};

use super::*;

#[allow(clippy::disallowed_methods)] // Tests need an arbitrary base instant; the module never reads the clock.
fn base() -> Instant {
    Instant::now()
}

fn upf() -> NodeKey {
    NodeKey::fqdn("upf1.example.net")
}

/// Tell `cp` that the UP function asks for a reduction of `metric` (node scope).
fn overload(cp: &mut CpOverloadControl, metric: u8, now: Instant) {
    let oci = OverloadControlInformation {
        sequence_number: ControlSequenceNumber(1),
        metric: Metric::from_raw(metric),
        period_of_validity: Timer::from_duration(Duration::from_secs(600)).unwrap(),
        flags: Some(OciFlags::AOCI),
    };
    let header = Header::new(MessageType::SESSION_ESTABLISHMENT_RESPONSE)
        .with_seid(0x10)
        .with_sequence(SequenceNumber::new(7).unwrap());
    let b = MessageBuilder::new(header)
        .ie(Some(NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1))))
        .ie(Some(Cause::REQUEST_ACCEPTED))
        .ie(Some(oci));
    let mut buf = vec![0u8; b.encoded_len()];
    b.encode_into(&mut buf).unwrap();
    let msg = Message::decode(&buf).unwrap();
    let out = cp.handle_response(&Destination::node(upf()), &msg, now);
    assert!(
        matches!(out.oci, Some(OciOutcome::Applied { .. })),
        "{out:?}"
    );
}

fn low<'a>() -> RequestContext<'a> {
    RequestContext {
        arp: [9].into(),
        ..RequestContext::default()
    }
}

/// At 90 %: a request every millisecond for 3 s, then one every 100 ms for 60 s (the CP's
/// demand fell a hundredfold). The instants of the requests sent after the fall, and the
/// pipeline's counters.
fn run(config: CpConfig) -> (Vec<Duration>, CpStats) {
    let t0 = base();
    let mut cp = CpOverloadControl::new(config).unwrap();
    overload(&mut cp, 90, t0);
    let dest = Destination::node(upf());
    let ser = MessageType::SESSION_ESTABLISHMENT_REQUEST;
    for i in 0..3000u64 {
        let now = t0 + Duration::from_millis(i);
        let _ = cp.decide(&dest, ser, &low(), now, i);
    }
    let fall = t0 + Duration::from_secs(3);
    let mut sent = Vec::new();
    for k in 0..600u64 {
        let now = fall + Duration::from_millis(100 * k);
        if cp.decide(&dest, ser, &low(), now, k).is_send() {
            sent.push(now - fall);
        }
    }
    (sent, *cp.stats())
}

#[test]
fn a_cp_whose_demand_falls_probes_early_and_keeps_the_reduction() {
    let (with, with_stats) = run(CpConfig::default());
    let (without, without_stats) = run(CpConfig::default().with_probe_gap_factor(None));
    // Before the fall the Loss throttle sends every tenth request, one every 10 ms: never 16
    // times that apart, so no probe. After it, it sends every tenth request, one a second:
    // without probes the CP can go a second without hearing from the UP function.
    assert_eq!(without_stats.probes, 0);
    let gaps: Vec<Duration> = without.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        gaps.iter().all(|g| *g == Duration::from_secs(1)),
        "{gaps:?}"
    );
    // With them, a silence of 16 x 10 ms ends at the next request (100 ms apart).
    let first = with.first().copied().unwrap_or_default();
    assert!(
        first <= Duration::from_millis(260),
        "first send {first:?} after the fall"
    );
    assert!(with_stats.probes >= 1, "{with_stats:?}");
    // The moving average of the gaps then follows the new rhythm: few probes, and the
    // reduction over the run is the one asked for (60 of 600 sent, as without probes).
    assert!(with_stats.probes <= 3, "{with_stats:?}");
    assert!((with.len() as i64 - 60).abs() <= 1, "{} sent", with.len());
    assert!(
        (without.len() as i64 - 60).abs() <= 1,
        "{} sent",
        without.len()
    );
}

#[test]
fn a_probe_gap_factor_of_zero_is_refused() {
    let config = CpConfig::default().with_probe_gap_factor(Some(0));
    assert_eq!(
        CpOverloadControl::new(config).err(),
        Some(CpConfigError::ProbeGapFactor)
    );
}
