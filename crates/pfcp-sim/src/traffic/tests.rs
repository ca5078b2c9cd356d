//! The traffic model's tests: the mix, the draws, the requests, the session driver.

use super::*;
use pfcp_wire::Message;
use std::net::Ipv4Addr;

#[test]
fn mix_parses() {
    let m = parse_mix("emergency=5, arp2=25,ARP12=70").unwrap();
    let names: Vec<&str> = m.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["emergency", "arp2", "arp12"]);
    assert!(m[0].profile.context.emergency);
    assert_eq!(m[2].profile.context.arp.highest(), Some(12));
    for bad in [
        "",
        "arp16=1",
        "arp0=1",
        "gold=1",
        "arp2",
        "arp2=-1",
        "arp2=1,arp2=2",
        "none=0",
    ] {
        assert!(parse_mix(bad).is_err(), "{bad}");
    }
}

#[test]
fn draws_follow_the_weights() {
    let m = parse_mix("emergency=5,arp2=25,arp12=70").unwrap();
    let mut rng = 1;
    let mut n = [0u32; 3];
    for _ in 0..100_000 {
        n[pick(&m, splitmix(&mut rng))] += 1;
    }
    assert!((4_500..5_500).contains(&n[0]), "{n:?}");
    assert!((24_000..26_000).contains(&n[1]), "{n:?}");
    assert!((69_000..71_000).contains(&n[2]), "{n:?}");
}

/// The CP functions of a scenario draw independent classes: 16 drivers' emergency picks
/// (5 %) per 31 draws, the sessions one CP starts in 100 ms at 5x in the default
/// scenario, vary across the window like 16 independent binomials (variance about 16 x
/// 31 x 0.05 x 0.95 = 23.6), not like one of them times 16 (about 370): with seeds a
/// multiple of SplitMix64's increment apart, every driver drew the same sequence shifted.
#[test]
fn drivers_draw_independent_classes() {
    let m = parse_mix("emergency=5,arp2=25,arp12=70").unwrap();
    let mut states: Vec<u64> = (0..16).map(|i| driver_seed(1, i)).collect();
    let windows: Vec<f64> = (0..2_000)
        .map(|_| {
            let mut n = 0u32;
            for s in &mut states {
                for _ in 0..31 {
                    n += u32::from(pick(&m, splitmix(s)) == 0);
                }
            }
            f64::from(n)
        })
        .collect();
    let mean = windows.iter().sum::<f64>() / windows.len() as f64;
    let var = windows.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / windows.len() as f64;
    assert!((22.0..27.0).contains(&mean), "{mean}");
    assert!((17.0..31.0).contains(&var), "{var}");
}

#[test]
fn requests_are_valid_pfcp() {
    // Node ID IE, FQDN "smf1" (clause 8.2.38).
    let node_ie = [0x00, 0x3c, 0x00, 0x06, 0x02, 0x04, b's', b'm', b'f', b'1'];
    for step in Step::ALL {
        let (h, ies) =
            build_request(step, 0x1234, 0x99, &node_ie, Ipv4Addr::LOCALHOST.into()).unwrap();
        let mut out = Vec::new();
        let h = h.with_sequence(pfcp_wire::SequenceNumber::new(5).unwrap());
        let mut w = pfcp_wire::encode::MessageWriter::begin(&mut out, &h).unwrap();
        w.raw_ies(&ies).unwrap();
        w.finish().unwrap();
        let msg = Message::decode(&out).unwrap();
        msg.validate().unwrap();
        if step == Step::Establish {
            assert_eq!(msg.f_seid().unwrap().unwrap().seid, 0x1234);
        } else {
            assert_eq!(msg.header().seid, Some(0x99));
        }
    }
}

#[test]
fn a_session_lives_its_steps_and_a_lost_one_is_restored() {
    let mut d = SessionDriver::new(parse_mix("arp9=1").unwrap(), 1, 1, false, 7);
    let e = d.next(|| 0).unwrap();
    assert_eq!(e.step, Step::Establish);
    assert!(d.next(|| 0).is_none(), "one slot, busy");
    d.settle(
        &e,
        Settled {
            accepted: true,
            up_seid: Some(42),
            holder: None,
        },
    );
    let m = d.next(|| 0).unwrap();
    assert_eq!((m.step, m.up_seid), (Step::Modify, 42));
    assert_eq!(
        m.profile.context.state.registration,
        Some(Registration::Registered)
    );
    // The UP restarts while the modification is in flight.
    d.lost([m.cp_seid]);
    d.settle(
        &m,
        Settled {
            accepted: false,
            up_seid: None,
            holder: None,
        },
    );
    let r = d.next(|| 0).unwrap();
    assert_eq!(r.step, Step::Establish);
    assert_eq!(r.profile.context.state.restoration, Some(true));
    d.settle(
        &r,
        Settled {
            accepted: true,
            up_seid: Some(43),
            holder: None,
        },
    );
    assert_eq!(
        d.counts,
        SessionCounts {
            established: 2,
            deleted: 0,
            lost: 1,
            restored: 1
        }
    );
    let m = d.next(|| 0).unwrap();
    d.settle(
        &m,
        Settled {
            accepted: true,
            up_seid: None,
            holder: None,
        },
    );
    let del = d.next(|| 0).unwrap();
    assert_eq!(del.step, Step::Delete);
    d.settle(
        &del,
        Settled {
            accepted: true,
            up_seid: None,
            holder: None,
        },
    );
    assert_eq!(d.counts.deleted, 1);
    assert_eq!(d.next(|| 0).map(|w| w.step), Some(Step::Establish));
}

fn accepted(up_seid: Option<u64>) -> Settled {
    Settled {
        accepted: true,
        up_seid,
        holder: None,
    }
}

/// A cap far above what is alive costs nothing: with at most `k` requests in flight (one
/// step of one session each) at most `k` sessions are alive, and the driver holds no more
/// slots than the most that were.
#[test]
fn slots_follow_the_sessions_alive_not_the_cap() {
    let mut d = SessionDriver::new(parse_mix("arp9=1").unwrap(), 1 << 31, 1, false, 7);
    let mut in_flight: VecDeque<Work> = VecDeque::new();
    let mut most_alive = 0;
    for round in 0..10_000u64 {
        // Between 1 and 5 requests in flight, varying.
        let k = 1 + (round % 5) as usize;
        while in_flight.len() < k {
            in_flight.push_back(d.next(|| 0).unwrap());
        }
        most_alive = most_alive.max(d.live_sessions());
        let w = in_flight.pop_front().unwrap();
        d.settle(&w, accepted(Some(round)));
    }
    assert!(most_alive <= 5, "{most_alive}");
    assert_eq!(d.allocated_slots(), most_alive);
    // Sessions went through every step: 10 000 answers, three steps a session.
    assert!(d.counts.deleted >= 3_000, "{:?}", d.counts);
}

/// A slot a session ended is the next session's; an answer or a loss for the earlier
/// session's SEID changes nothing of the new one.
#[test]
fn a_reused_slot_ignores_the_earlier_session() {
    let mut d = SessionDriver::new(parse_mix("arp9=1").unwrap(), 4, 0, false, 7);
    let e = d.next(|| 0).unwrap();
    d.settle(&e, accepted(Some(5)));
    let del = d.next(|| 0).unwrap();
    assert_eq!(del.step, Step::Delete);
    d.settle(&del, accepted(None));
    assert_eq!(d.live_sessions(), 0);
    let again = d.next(|| 1).unwrap();
    assert_eq!((again.slot, again.step), (e.slot, Step::Establish));
    assert_ne!(again.cp_seid, e.cp_seid);
    // The earlier session's loss and a late answer for it.
    d.lost([e.cp_seid]);
    d.settle(&del, accepted(None));
    assert_eq!(d.counts.lost, 0);
    assert_eq!(d.live_sessions(), 1);
    d.settle(&again, accepted(Some(6)));
    let next = d.next(|| 0).unwrap();
    assert_eq!((next.step, next.up_seid, next.up), (Step::Delete, 6, 1));
    assert_eq!(d.allocated_slots(), 1);
}

#[test]
fn the_cap_bounds_the_sessions_at_once() {
    let mut d = SessionDriver::new(parse_mix("arp9=1").unwrap(), 2, 1, false, 7);
    let a = d.next(|| 0).unwrap();
    let b = d.next(|| 0).unwrap();
    assert!(d.next(|| 0).is_none());
    assert_ne!(a.cp_seid, b.cp_seid);
    assert!(a.cp_seid != 0 && b.cp_seid != 0);
    // A failed establishment frees its slot.
    d.settle(
        &a,
        Settled {
            accepted: false,
            up_seid: None,
            holder: None,
        },
    );
    assert_eq!(d.next(|| 0).map(|w| w.step), Some(Step::Establish));
    assert_eq!(d.allocated_slots(), 2);
}
