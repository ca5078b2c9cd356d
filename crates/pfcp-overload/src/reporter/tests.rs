//! Unit tests of the sending end, one rule each.

use std::time::Duration;

use pfcp_wire::encode::Encode;
use pfcp_wire::ie::IeIter;
use pfcp_wire::{Cause, MessageType};

use super::*;

fn cfg() -> ReporterConfig {
    ReporterConfig {
        capacity: Some(100.0),
        ..ReporterConfig::feed_forward()
    }
}

fn overloaded(arrived: u64) -> Measurement {
    Measurement {
        arrived,
        served: 100,
        backlog: 0,
    }
}

#[test]
fn raises_at_once_in_steps_and_lowers_after_dwell() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(cfg());
    // Demand 2x capacity: 50 %.
    assert_eq!(r.handle_measurement(&overloaded(200), now), Some(50));
    assert_eq!(r.metric(), 50);
    // 2.1x: wants 52, rounds to 50: no change published (no sub-step jitter).
    assert_eq!(r.handle_measurement(&overloaded(210), now), None);
    // Demand drops to 1.6x (wants 37.5 -> 40): three intervals of dwell before lowering.
    // With feedback delay 1 the CPs applied 50 % two intervals after publication, so
    // arrivals now are 1.6x x 0.5.
    assert_eq!(r.handle_measurement(&overloaded(80), now), None);
    assert_eq!(r.handle_measurement(&overloaded(80), now), None);
    assert_eq!(r.handle_measurement(&overloaded(80), now), Some(40));
    // Every published value is a multiple of the step.
    assert_eq!(r.metric() % 5, 0);
}

#[test]
fn capacity_is_learned_while_saturated() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(ReporterConfig::feed_forward());
    // Not saturated: nothing learned, nothing published.
    let idle = Measurement {
        arrived: 50,
        served: 50,
        backlog: 0,
    };
    assert_eq!(r.handle_measurement(&idle, now), None);
    assert_eq!(r.capacity(), None);
    let sat = Measurement {
        arrived: 400,
        served: 100,
        backlog: 10,
    };
    // target = 100 - 10/5 = 98; 100 x (1 - 98/400) = 75.5 -> 75.
    assert_eq!(r.handle_measurement(&sat, now), Some(75));
    assert_eq!(r.capacity(), Some(100.0));
}

/// Clause 6.2.4.3.2.1: the number changes with the content a peer is told, or to extend its
/// validity, and "shall not be incremented otherwise".
#[test]
fn clause_6_2_4_3_2_1_a_peer_gets_a_new_number_only_with_new_content_or_a_refresh() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(cfg());
    r.set_peer_ovrl(1, true);
    let msg = MessageType::SESSION_MODIFICATION_RESPONSE;
    r.handle_measurement(&overloaded(200), now);
    let first = r.oci_for(&1, msg, None, now).unwrap();
    assert_eq!(first.metric.percent(), 50);
    // The law publishes again with the same metric: nothing new for the peer.
    r.handle_measurement(&overloaded(200), now);
    assert!(r.oci_for(&1, msg, None, now).is_none());
    // Refresh 5 s before the validity (30 s) runs out: same metric, new number.
    let t = now + Duration::from_secs(25);
    assert!(r
        .oci_for(&1, msg, None, t - Duration::from_millis(1))
        .is_none());
    let refresh = r.oci_for(&1, msg, None, t).unwrap();
    assert_eq!(refresh.metric, first.metric);
    assert!(crate::sequence::is_after(
        refresh.sequence_number.0,
        first.sequence_number.0
    ));
    assert!(r.oci_for(&1, msg, None, t).is_none());
    // A new metric: a new number at once.
    r.handle_measurement(&overloaded(400), t);
    let raised = r.oci_for(&1, msg, None, t).unwrap();
    assert!(raised.metric.percent() > 50);
    assert_eq!(raised.metric.percent(), r.metric());
    assert!(crate::sequence::is_after(
        raised.sequence_number.0,
        refresh.sequence_number.0
    ));
}

#[test]
fn clause_6_2_4_3_2_1_note_1_a_late_timer_never_sends_a_lapsed_number() {
    // The application forgot the timer for a whole validity period: the OCI it builds now
    // must carry a new number, or the CP (which ignores a number whose period ran out)
    // would end the overload while the UP is still overloaded.
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(cfg());
    r.set_peer_ovrl(7, true);
    r.handle_measurement(&overloaded(200), now);
    let first = r
        .oci_for(&7, MessageType::SESSION_ESTABLISHMENT_RESPONSE, None, now)
        .unwrap();
    let late = now + Duration::from_secs(30);
    let next = r
        .oci_for(&7, MessageType::SESSION_MODIFICATION_RESPONSE, None, late)
        .unwrap();
    assert_eq!(next.sequence_number.0, first.sequence_number.0 + 1);
    assert_eq!(next.metric, first.metric);
    let mut cp = crate::OverloadTable::new(crate::OverloadConfig::default());
    let node = crate::NodeKey::Ip(std::net::IpAddr::from([192, 0, 2, 1]));
    let origin = crate::OciOrigin::new(node, None);
    assert!(matches!(
        cp.handle_oci(&origin, &first, now),
        crate::OciOutcome::Applied { .. }
    ));
    assert!(matches!(
        cp.handle_oci(&origin, &next, late),
        crate::OciOutcome::Applied { .. }
    ));
}

#[test]
fn epoch_seconds_sequence_grows_with_time() {
    let t0 = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(ReporterConfig {
        sequence: SequenceMode::EpochSeconds {
            epoch: t0,
            offset: 1_000,
        },
        ..cfg()
    });
    r.handle_measurement(&overloaded(200), t0 + Duration::from_secs(7));
    assert_eq!(r.sequence_number(), 1_007);
    // Two changes in the same second still increase.
    r.handle_measurement(&overloaded(500), t0 + Duration::from_secs(7));
    assert_eq!(r.sequence_number(), 1_008);
    r.handle_measurement(&overloaded(1000), t0 + Duration::from_secs(60));
    assert_eq!(r.sequence_number(), 1_060);
}

#[test]
fn clause_6_2_4_2_inclusion_policy() {
    let now = crate::test_now();
    let mut r: OverloadReporter<&str> = OverloadReporter::new(cfg());
    r.set_peer_ovrl("ovrl", true);
    r.set_peer_ovrl("legacy", false);
    assert!(r.peer_ovrl(&"ovrl"));
    assert!(!r.peer_ovrl(&"legacy"));
    assert!(!r.peer_ovrl(&"unknown"));
    let est = MessageType::SESSION_ESTABLISHMENT_RESPONSE;
    let ok = Some(Cause::REQUEST_ACCEPTED);
    // Nothing to say before any overload.
    assert!(r.oci_for(&"ovrl", est, ok, now).is_none());
    r.handle_measurement(&overloaded(200), now);
    // Only OVRL peers, only messages 51/53/55/56.
    assert!(r.oci_for(&"legacy", est, ok, now).is_none());
    assert!(r.oci_for(&"unknown", est, ok, now).is_none());
    assert!(r
        .oci_for(&"ovrl", MessageType::HEARTBEAT_RESPONSE, None, now)
        .is_none());
    let first = r.oci_for(&"ovrl", est, ok, now).unwrap();
    assert_eq!(first.metric.percent(), 50);
    assert!(!first.aoci());
    // Until the peer has the current number.
    assert!(r
        .oci_for(&"ovrl", MessageType::SESSION_DELETION_RESPONSE, ok, now)
        .is_none());
    // Clause 8.2.76: a rejected Session Establishment Response carries AOCI=1, even though
    // the entity-scoped OCI was already sent.
    let rejected = r
        .oci_for(&"ovrl", est, Some(Cause::PFCP_ENTITY_IN_CONGESTION), now)
        .unwrap();
    assert!(rejected.aoci());
    assert_eq!(rejected.sequence_number, first.sequence_number);
}

#[test]
fn zero_goes_only_to_peers_told_non_zero() {
    let now = crate::test_now();
    let mut r: OverloadReporter<&str> = OverloadReporter::new(cfg());
    r.set_peer_ovrl("told", true);
    r.set_peer_ovrl("late", true);
    let msg = MessageType::SESSION_MODIFICATION_RESPONSE;
    r.handle_measurement(&overloaded(200), now);
    assert!(r.oci_for(&"told", msg, None, now).is_some());
    // Overload ends: demand at half capacity, after the dwell.
    for _ in 0..3 {
        r.handle_measurement(&overloaded(25), now);
    }
    assert_eq!(r.metric(), 0);
    let zero = r.oci_for(&"told", msg, None, now).unwrap();
    assert_eq!(zero.metric.percent(), 0);
    assert!(r.oci_for(&"told", msg, None, now).is_none());
    // A peer that never heard of the overload is not bothered.
    assert!(r.oci_for(&"late", msg, None, now).is_none());
}

#[test]
fn every_oci_emitted_decodes_with_pfcp_wire() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(cfg());
    r.set_peer_ovrl(1, true);
    for arrived in [150, 300, 1000, 2000, 50, 50, 50, 50, 50] {
        r.handle_measurement(&overloaded(arrived), now);
        for aoci in [false, true] {
            if let Some(oci) = r.current_oci(aoci) {
                let mut buf = Vec::new();
                oci.encode(&mut buf).unwrap();
                assert_eq!(buf.len(), oci.encoded_len());
                let ie = IeIter::new(&buf, 0).next().unwrap().unwrap();
                let back: OverloadControlInformation = ie.decode_as().unwrap();
                assert_eq!(back, oci);
                assert!(back.metric.raw() <= 100);
            }
        }
    }
}

#[test]
fn validate_refuses_each_field_out_of_its_documented_range() {
    use super::ReporterConfigError as E;
    let ok = ReporterConfig::default();
    assert_eq!(ok.validate(), Ok(()));
    assert_eq!(ReporterConfig::feed_forward().validate(), Ok(()));
    let cases: Vec<(ReporterConfig, E)> = vec![
        (ok.clone().with_interval(Duration::ZERO), E::ZeroInterval),
        (ok.clone().with_capacity(Some(0.0)), E::Capacity(0.0)),
        (
            ok.clone().with_capacity(Some(f64::INFINITY)),
            E::Capacity(f64::INFINITY),
        ),
        (
            ReporterConfig {
                target_load: 2.5,
                ..ok.clone()
            },
            E::TargetLoad(2.5),
        ),
        (
            ReporterConfig {
                target_load: 0.0,
                ..ok.clone()
            },
            E::TargetLoad(0.0),
        ),
        (
            ReporterConfig {
                backlog_target: -1.0,
                ..ok.clone()
            },
            E::BacklogTarget(-1.0),
        ),
        (
            ReporterConfig {
                drain_intervals: 0.5,
                ..ok.clone()
            },
            E::DrainIntervals(0.5),
        ),
        (
            ReporterConfig {
                step: 0,
                ..ok.clone()
            },
            E::Step(0),
        ),
        (
            ReporterConfig {
                step: 101,
                ..ok.clone()
            },
            E::Step(101),
        ),
        // Above 100 a receiver reads the metric as 0 % (clause 8.2.34).
        (
            ReporterConfig {
                max_metric: 101,
                ..ok.clone()
            },
            E::MaxMetric(101),
        ),
        (
            ReporterConfig {
                validity: Duration::ZERO,
                ..ok.clone()
            },
            E::Validity(Duration::ZERO),
        ),
        (
            ReporterConfig {
                min_change: 1.0,
                ..ok.clone()
            },
            E::MinChange(1.0),
        ),
    ];
    for (config, want) in cases {
        assert_eq!(config.validate(), Err(want), "{config:?}");
        assert!(!want.to_string().is_empty());
    }
    // NaN is refused wherever a number is expected.
    let nan = ReporterConfig {
        target_load: f64::NAN,
        ..ok.clone()
    };
    assert!(matches!(nan.validate(), Err(E::TargetLoad(u)) if u.is_nan()));
    let nan = ReporterConfig {
        min_change: f64::NAN,
        ..ok
    };
    assert!(matches!(nan.validate(), Err(E::MinChange(m)) if m.is_nan()));
}

/// A reporter of `config` at 90 %: 10x the capacity, then arrivals on target under the metric
/// (target 0.97).
fn at_90(config: ReporterConfig, now: Instant) -> OverloadReporter<u8> {
    let mut r: OverloadReporter<u8> = OverloadReporter::new(config);
    r.handle_measurement(&overloaded(1000), now);
    for _ in 0..5 {
        r.handle_measurement(&overloaded(97), now);
    }
    r
}

/// The adaptive law lets the admitted share grow at most fourfold an interval (a CP paying off
/// its throttle's credit sends less than asked for a moment), except when the arrivals fell
/// below half the target with nothing left queued: a fall of demand after a storm, which the
/// cap would only answer an interval later.
#[test]
fn adaptive_law_opens_at_once_when_demand_fell_and_the_queue_is_empty() {
    let now = crate::test_now();
    let run = |after: Measurement| {
        let mut r = at_90(
            ReporterConfig {
                capacity: Some(100.0),
                ..ReporterConfig::default()
            },
            now,
        );
        assert_eq!(r.metric(), 90);
        r.handle_measurement(&after, now);
        r.metric()
    };
    // Demand back to 1x: 10 arrive under 90 %, the queue empty. The whole demand (100 a
    // interval) is about the target: a metric of 3, not the cap's 60.
    let fell = Measurement {
        arrived: 10,
        served: 10,
        backlog: 0,
    };
    assert_eq!(run(fell), 3);
    // The same arrivals with a request still queued: at most fourfold the share the law
    // asked for (just under 10 %, its smoothed demand still above 10x): 39-40 %.
    let capped = run(Measurement { backlog: 1, ..fell });
    assert!((60..=61).contains(&capped), "{capped}");
}

/// With a tolerated queue (`backlog_target`, the bounded queue's level), a fall of demand with
/// a few requests still queued opens at once like one with none; a queue beyond it is capped.
#[test]
fn adaptive_law_opens_at_once_after_a_fall_with_a_queue_within_the_backlog_target() {
    let now = crate::test_now();
    let run = |backlog: u64| {
        let mut r = at_90(
            ReporterConfig {
                capacity: Some(100.0),
                backlog_target: 15.0,
                ..ReporterConfig::default()
            },
            now,
        );
        assert_eq!(r.metric(), 90);
        r.handle_measurement(
            &Measurement {
                arrived: 10,
                served: 10,
                backlog,
            },
            now,
        );
        r.metric()
    };
    assert_eq!(run(5), run(0));
    assert!(run(0) <= 3, "{}", run(0));
    let capped = run(16);
    assert!(capped >= 55, "{capped}");
}

/// A window of half an interval in which the demand fell lowers the metric at once to what the
/// demand rebuilt from it needs (0 when it fits the target); one in which the arrivals did not
/// fall, or a request waits, does not.
#[test]
fn a_window_in_which_demand_fell_lowers_the_metric_within_the_interval() {
    let now = crate::test_now();
    let overloaded_reporter = |law: ControlLaw| {
        at_90(
            ReporterConfig {
                capacity: Some(100.0),
                law,
                // Whole metrics, so that the share in force is exactly 10 %.
                dither: false,
                ..ReporterConfig::default()
            },
            now,
        )
    };
    let window = |arrived, exempt, backlog| WindowMeasurement {
        arrived,
        exempt,
        backlog,
        intervals: 0.5,
    };
    // The target of half an interval is 48.5 requests (0.97 x 100 x 0.5).
    let lowers_to = |w: WindowMeasurement| {
        let mut r = overloaded_reporter(ControlLaw::Adaptive);
        assert_eq!(r.metric(), 90);
        let out = r.handle_window(&w, now);
        assert_eq!(out.unwrap_or(90), r.metric());
        out
    };
    // 0.8x of demand under 90 %: 4 arrive, a demand of 40 fits: the overload ends.
    assert_eq!(lowers_to(window(4, 0, 0)), Some(0));
    // The same with a request still queued: the UP function is not idle.
    assert_eq!(lowers_to(window(4, 0, 1)), None);
    // 1x of demand (5 arrive, 50) against the 0.97 target: 48.5 / 50 admitted, 3 %.
    assert_eq!(lowers_to(window(5, 0, 0)), Some(3));
    // Exempt requests count at face value: 18 of them and 2 others are a demand of 38.
    assert_eq!(lowers_to(window(20, 18, 0)), Some(0));
    // 15 of them and 5 others (65): the other 50 get what the 15 leave, 33.5 of them.
    assert_eq!(lowers_to(window(20, 15, 0)), Some(33));
    // A partial fall, 10x to 4x: 20 arrive, none exempt, a demand of 200; 24 % admitted.
    assert_eq!(lowers_to(window(20, 0, 0)), Some(76));
    // Arrivals at half the target or above are no fall, whatever their class.
    assert_eq!(lowers_to(window(25, 25, 0)), None);
    assert_eq!(lowers_to(window(25, 0, 0)), None);
    // Only the adaptive law acts on windows, and only while overloaded.
    let mut ff = overloaded_reporter(ControlLaw::FeedForward);
    let before = ff.metric();
    assert!(before > 0);
    assert_eq!(ff.handle_window(&window(0, 0, 0), now), None);
    assert_eq!(ff.metric(), before);
    let mut calm: OverloadReporter<u8> = OverloadReporter::new(ReporterConfig {
        capacity: Some(100.0),
        ..ReporterConfig::default()
    });
    assert_eq!(calm.handle_window(&window(0, 0, 0), now), None);
    // A queue within `backlog_target` (the bounded queue's level) is no sign of work left:
    // with 15 tolerated, a window ending with 4 queued lowers the metric, one with 16 not.
    let tolerant = |backlog| {
        let mut r = at_90(
            ReporterConfig {
                capacity: Some(100.0),
                dither: false,
                backlog_target: 15.0,
                ..ReporterConfig::default()
            },
            now,
        );
        assert_eq!(r.metric(), 90);
        r.handle_window(&window(4, 0, backlog), now)
    };
    assert_eq!(tolerant(4), Some(0));
    assert_eq!(tolerant(15), Some(0));
    assert_eq!(tolerant(16), None);
    // After an opening, the interval's law keeps it open when the demand fits.
    let mut r = overloaded_reporter(ControlLaw::Adaptive);
    let seq = r.sequence_number();
    assert_eq!(r.handle_window(&window(4, 0, 0), now), Some(0));
    assert_ne!(
        r.sequence_number(),
        seq,
        "a new number with the new content"
    );
    assert_eq!(r.handle_measurement(&overloaded(80), now), None);
    assert_eq!(r.metric(), 0);
}

/// With `dither` (the default for the adaptive law) the law's share lies between two levels
/// of the 3-point grid and each peer is told one of them by its place in a low-discrepancy
/// order, so that the peers together admit that share; alone, or undithered, a peer is told
/// the nearest level.
#[test]
fn dithered_peers_together_admit_the_laws_share() {
    let now = crate::test_now();
    let tell = |dither: bool, peers: u8, arrived: u64| {
        let mut r: OverloadReporter<u8> = OverloadReporter::new(ReporterConfig {
            capacity: Some(100.0),
            dither,
            ..ReporterConfig::default()
        });
        for p in 0..peers {
            r.set_peer_ovrl(p, true);
        }
        r.handle_measurement(&overloaded(arrived), now);
        let told: Vec<u8> = (0..peers)
            .map(|p| {
                let oci = r
                    .oci_for(
                        &p,
                        MessageType::SESSION_MODIFICATION_RESPONSE,
                        Some(Cause::REQUEST_ACCEPTED),
                        now,
                    )
                    .unwrap();
                assert_eq!(Some(oci.metric.percent()), r.metric_for(&p));
                assert_eq!(oci.sequence_number.0, r.sequence_number());
                oci.metric.percent()
            })
            .collect();
        (r.metric(), told)
    };
    // 10x: the law asks for 100 x (1 - 97/1000) = 90.3, rounded 90; the grid's levels around
    // it are 90 and 93, 0.1 of the way: one peer in ten is told 93.
    let (metric, told) = tell(true, 10, 1000);
    assert_eq!(metric, 90);
    assert!(told.iter().all(|&m| m == 90 || m == 93), "{told:?}");
    assert_eq!(told.iter().filter(|&&m| m == 93).count(), 1, "{told:?}");
    // 5x: 100 x (1 - 97/500) = 80.6, between 78 and 81, 0.87 of the way: 87 of 100 peers
    // (within one) are told 81. Together they admit about the law's share.
    let (_, told) = tell(true, 100, 500);
    let upper = told.iter().filter(|&&m| m == 81).count();
    assert!((86..=88).contains(&upper), "{upper}");
    assert!(told.iter().all(|&m| m == 78 || m == 81), "{told:?}");
    let admitted: f64 = told
        .iter()
        .map(|&m| 1.0 - f64::from(m) / 100.0)
        .sum::<f64>()
        / 100.0;
    assert!((admitted - 0.194).abs() < 0.001, "{admitted}");
    // Undithered, or alone: the nearest level.
    assert_eq!(tell(false, 10, 500).1, vec![81; 10]);
    assert_eq!(tell(true, 1, 500).1, vec![81]);
    assert_eq!(tell(true, 1, 1000).1, vec![90]);
}

/// While open (metric 0), the adaptive law raises on what arrives, not on the demand rebuilt
/// from it alone: a peer still applying an older reduction makes each of its requests count
/// for several, and the arrivals fit. A backlog, or arrivals above the target, do raise.
#[test]
fn an_open_reporter_raises_on_arrivals_not_on_a_demand_inflated_by_an_older_metric() {
    let now = crate::test_now();
    let run = |late: u64, current: u64, backlog: u64| {
        let mut r: OverloadReporter<u8> = OverloadReporter::new(ReporterConfig {
            capacity: Some(100.0),
            dither: false,
            ..ReporterConfig::default()
        });
        r.set_peer_ovrl(1, true);
        r.set_peer_ovrl(2, true);
        // Peer 1 is told 90 % in a storm; the storm ends within the interval (a window in
        // which the demand fell opens at once), and peer 1 has not heard the opening yet:
        // each of its requests counts for 10.
        r.handle_measurement(&overloaded(1000), now);
        let told = r
            .oci_for(&1, MessageType::SESSION_MODIFICATION_RESPONSE, None, now)
            .unwrap();
        assert_eq!(told.metric.percent(), 90);
        let calm = WindowMeasurement {
            arrived: 4,
            exempt: 0,
            backlog: 0,
            intervals: 0.5,
        };
        assert_eq!(r.handle_window(&calm, now), Some(0));
        for _ in 0..late {
            r.record_arrival(&1);
        }
        for _ in 0..current {
            r.record_arrival(&2);
        }
        r.handle_measurement(
            &Measurement {
                arrived: late + current,
                served: late + current,
                backlog,
            },
            now,
        );
        r.metric()
    };
    // 10 + 60 arrive (70, under the 97 target), a demand of 100 + 60 = 160: stays open.
    assert_eq!(run(10, 60, 0), 0);
    // The same with a request queued: the demand counts, 1 - 96.8 / 160 (40 %) less what the
    // trim takes off for arrivals below the target.
    let queued = run(10, 60, 1);
    assert!((35..=40).contains(&queued), "{queued}");
    // 10 + 90 arrive (100, above the target), a demand of 190: about 49 %.
    let above = run(10, 90, 0);
    assert!((47..=50).contains(&above), "{above}");
}

#[test]
fn a_target_load_set_while_running_steers_the_next_measurement() {
    let now = crate::test_now();
    let mut r: OverloadReporter<u8> = OverloadReporter::new(cfg());
    assert_eq!(r.target_load(), 1.0);
    // Out of range: ignored.
    r.set_target_load(0.0);
    r.set_target_load(2.5);
    r.set_target_load(f64::NAN);
    assert_eq!(r.target_load(), 1.0);
    r.set_target_load(1.2);
    assert_eq!(r.target_load(), 1.2);
    // Demand 4x a capacity of 100, steered to 120: 100 x (1 - 120/400) = 70.
    assert_eq!(r.handle_measurement(&overloaded(400), now), Some(70));
    // The adaptive law on the same demand: 1.0 gives 75, 1.2 gives 70.
    let adaptive = |target: f64| {
        let mut r: OverloadReporter<u8> = OverloadReporter::new(ReporterConfig {
            capacity: Some(100.0),
            ..ReporterConfig::default()
        });
        r.set_target_load(target);
        r.handle_measurement(&overloaded(400), now)
    };
    assert_eq!(adaptive(1.0), Some(75));
    assert_eq!(adaptive(1.2), Some(70));
}

/// A window in which the priority requests are most of what arrived under a deep cut says
/// nothing of the others' demand: their count, scaled by their share of the demand (less two
/// standard deviations), keeps the metric from opening on a dip of the others alone. A fall of
/// both still opens.
#[test]
fn a_window_of_mostly_priority_requests_is_no_fall_of_the_rest() {
    let now = crate::test_now();
    let reporter = || {
        let mut r: OverloadReporter<u8> = OverloadReporter::new(ReporterConfig {
            capacity: Some(100.0),
            dither: false,
            ..ReporterConfig::default()
        });
        // 1000 a interval, 10 of them priority requests; then at the cut, 97 arriving.
        for (arrived, exempt) in [(1000, 10), (97, 10), (97, 10), (97, 10), (97, 10), (97, 10)] {
            for _ in 0..exempt {
                r.record_exempt();
            }
            r.handle_measurement(&overloaded(arrived), now);
        }
        assert_eq!(r.metric(), 90);
        r
    };
    let window = |arrived, exempt| WindowMeasurement {
        arrived,
        exempt,
        backlog: 0,
        intervals: 0.5,
    };
    // 20 arrive, 18 of them priority requests: 18 less 2 x 4.2 is 9.5 of the demand's 1 %,
    // about 900 of it; the others' 2 are the throttles' boundary, not a fall.
    let mut r = reporter();
    assert_eq!(r.handle_window(&window(20, 18), now), None);
    assert_eq!(r.metric(), 90);
    // Without the priority requests' share known (none recorded), the same window opens.
    let mut blind = at_90(
        ReporterConfig {
            capacity: Some(100.0),
            dither: false,
            ..ReporterConfig::default()
        },
        now,
    );
    assert_eq!(blind.handle_window(&window(20, 18), now), Some(0));
    // Both fell: 4 arrive, 2 of them priority requests (less than two deviations): it opens.
    let mut r = reporter();
    assert_eq!(r.handle_window(&window(4, 2), now), Some(0));
}

mod peers;
