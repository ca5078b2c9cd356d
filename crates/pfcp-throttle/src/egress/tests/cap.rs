//! Unit tests of the cap (its bucket, its ladder, its admission window) and of the pending
//! limit.

use super::*;

#[test]
fn answers_are_never_throttled() {
    // Level 3, the cap in debt and the pending limit reached: answers still go.
    let base = t0();
    let mut c = s5_config();
    c.max_pending = Some(1);
    let mut t = EgressThrottle::new(c, base).unwrap();
    assert!(t.decide(MessageKind::Request, p(0), base).is_send());
    drive(&mut t, base, 5000, ms(0), ms(2000), &mut Vec::new());
    assert_eq!(t.level(), 3);
    for i in 0..1000u64 {
        let now = base + ms(2000) + Duration::from_micros(i);
        for v in 0..16 {
            assert!(t.decide(MessageKind::Answer, p(v), now).is_send());
            assert!(t
                .decide_message(MessageType::SESSION_REPORT_RESPONSE, p(v), now)
                .is_send());
        }
    }
    // They took tokens: the bucket is in debt, bounded by one burst.
    let (tokens, capacity) = t.cap.bucket();
    assert_eq!(tokens, -capacity);
    assert_eq!(t.stats().sent_answers, t.stats().offered_answers);
    assert_eq!(
        t.decide(MessageKind::Request, p(0), base + ms(2001)),
        EgressDecision::Throttle(ThrottleReason::PendingLimit)
    );
    assert_eq!(
        t.decide(MessageKind::Request, p(9), base + ms(2001)),
        EgressDecision::Throttle(ThrottleReason::Level(3))
    );
    t.on_transaction_end();
    assert_eq!(
        t.decide(MessageKind::Request, p(0), base + ms(2001)),
        EgressDecision::Throttle(ThrottleReason::RateLimit)
    );
}

#[test]
fn pending_limit() {
    let base = t0();
    let mut c = EgressConfig::new(1000);
    c.max_pending = Some(3);
    let mut t = EgressThrottle::new(c, base).unwrap();
    for _ in 0..3 {
        assert!(t.decide(MessageKind::Request, p(0), base).is_send());
    }
    assert_eq!(t.pending(), 3);
    assert_eq!(
        t.decide(MessageKind::Request, p(0), base),
        EgressDecision::Throttle(ThrottleReason::PendingLimit)
    );
    // Retransmissions and answers take no slot.
    t.on_send(MessageKind::Request, base);
    assert!(t.decide(MessageKind::Answer, p(0), base).is_send());
    assert_eq!(t.pending(), 3);
    t.on_transaction_end();
    assert!(t.decide(MessageKind::Request, p(0), base).is_send());
    for _ in 0..10 {
        t.on_transaction_end();
    }
    assert_eq!(t.pending(), 0);
    assert_eq!(t.stats().throttled_pending, 1);
}

#[test]
fn cap_admits_one_burst_after_idle_then_the_max_rate() {
    let base = t0();
    let mut c = EgressConfig::new(1000);
    c.burst = 16;
    let mut t = EgressThrottle::new(c, base).unwrap();
    let admitted = (0..100)
        .filter(|_| t.decide(MessageKind::Request, p(0), base).is_send())
        .count();
    assert_eq!(admitted, 16);
    assert_eq!(t.stats().throttled_rate, 84);
    // 1 ms later one more token (1000/s).
    assert!(t.decide(MessageKind::Request, p(0), base + ms(1)).is_send());
    assert!(!t.decide(MessageKind::Request, p(0), base + ms(1)).is_send());
}

#[test]
fn cap_ladder_keeps_the_bucket_for_higher_priorities() {
    let base = t0();
    let mut t = EgressThrottle::new(EgressConfig::new(1000), base).unwrap();
    // Priority 15 needs a full bucket (16 tokens): one goes, the next does not.
    assert!(t.decide(MessageKind::Request, p(15), base).is_send());
    assert_eq!(
        t.decide(MessageKind::Request, p(15), base),
        EgressDecision::Throttle(ThrottleReason::RateLimit)
    );
    // Priority 0 can drain the remaining 15.
    let admitted = (0..100)
        .filter(|_| t.decide(MessageKind::Request, p(0), base).is_send())
        .count();
    assert_eq!(admitted, 15);
    // A flat cap (burst 1) ignores priority.
    let mut c = EgressConfig::new(1000);
    c.burst = 1;
    let mut t = EgressThrottle::new(c, base).unwrap();
    assert!(t.decide(MessageKind::Request, p(15), base).is_send());
    assert!(!t.decide(MessageKind::Request, p(0), base).is_send());
    assert!(t
        .decide(MessageKind::Request, p(15), base + ms(1))
        .is_send());
}

#[test]
fn cap_boundary_is_the_first_priority_that_no_longer_fits() {
    // Answers at 600/s, priority 2 and priority 5 requests at 300/s each: the answers and p2
    // fit in the 1000/s (900), p5 does not. p5 gets the rest, up to 100/s: a little less,
    // because the admission window keeps its last places for the higher priorities (the
    // ladder applied to the window, see `Cap::window_admits`). Nothing is left in the
    // bucket to lend, so the rest is also never more: every window of 1 s admits at most
    // 1000.
    let base = t0();
    let mut t = EgressThrottle::new(EgressConfig::new(1000), base).unwrap();
    assert_eq!(t.rate_limit_boundary(), None);
    let mut sent = [0u32; 2];
    let mut offered = [0u32; 2];
    // Admitted per tick (100 ms).
    let mut ticks = vec![0u32; 100];
    for i in 0..12_000u64 {
        // 1200 events per second, in a fixed pattern of 6 answers, 3 p2, 3 p5 per 10 ms.
        let at = Duration::from_micros(i * 10_000 / 12);
        let now = base + at;
        let admitted = match i % 4 {
            0 | 2 => {
                t.on_send(MessageKind::Answer, now);
                true
            }
            1 => {
                offered[0] += 1;
                let d = t.decide(MessageKind::Request, p(2), now).is_send();
                sent[0] += u32::from(d);
                d
            }
            _ => {
                offered[1] += 1;
                let d = t.decide(MessageKind::Request, p(5), now).is_send();
                sent[1] += u32::from(d);
                d
            }
        };
        ticks[(at.as_millis() / 100) as usize] += u32::from(admitted);
        if i == 6000 {
            assert_eq!(t.rate_limit_boundary(), Some(p(5)));
            sent = [0; 2];
            offered = [0; 2];
        }
    }
    assert_eq!(sent[0], offered[0]);
    let p5 = f64::from(sent[1]) / f64::from(offered[1]);
    assert!((0.30..1.0 / 3.0 + 0.01).contains(&p5), "{p5}");
    let windows: Vec<u32> = ticks[10..].windows(10).map(|w| w.iter().sum()).collect();
    let (least, most) = (windows.iter().min(), windows.iter().max());
    println!("1 s windows after the first second: {least:?}..{most:?} messages");
    assert!(most.is_some_and(|&m| m <= 1000), "{most:?}");
    assert!(least.is_some_and(|&m| m >= 990), "{least:?}");
    // Silence: the estimate empties and the boundary goes.
    t.handle_timeout(base + Duration::from_secs(20));
    assert_eq!(t.rate_limit_boundary(), None);
}

/// The bucket as it was before `full_at`: integer nanoseconds, refilled on every call.
struct ReferenceBucket {
    tokens: i64,
    capacity: i64,
    rate: i64,
    last_refill: u64,
}

impl ReferenceBucket {
    fn refill(&mut self, t: u64) {
        if t > self.last_refill {
            let add = i64::try_from(t - self.last_refill).unwrap() * self.rate;
            self.tokens = (self.tokens + add).min(self.capacity);
            self.last_refill = t;
        }
    }

    fn take(&mut self) {
        self.tokens = (self.tokens - 1_000_000_000).max(-self.capacity);
    }
}

#[test]
fn bucket_fast_path_equals_the_exact_refill() {
    // The refill that skips the time arithmetic once the bucket is surely full gives the
    // tokens the exact one does, whatever the rate (tokens that take a fractional number of
    // nanoseconds to accrue), the debt, and time going backwards.
    let base = t0();
    let mut rng = XorShift(7);
    for (rate, burst) in [
        (1000u32, 16u32),
        (3, 2),
        (7, 1),
        (999_983, 40),
        (10_000, 16),
    ] {
        let mut cap = cap::Cap::new(rate, burst, 1_000_000_000, 100_000_000, base);
        let mut reference = ReferenceBucket {
            tokens: i64::from(burst) * 1_000_000_000,
            capacity: i64::from(burst) * 1_000_000_000,
            rate: i64::from(rate),
            last_refill: 0,
        };
        let token_ns = 1_000_000_000 / u64::from(rate);
        let mut now = 0u64;
        for _ in 0..20_000 {
            match rng.next() % 8 {
                // Backwards, by up to two tokens' time.
                0 => now = now.saturating_sub(rng.next() % (2 * token_ns + 2)),
                // Around one token's time, the edge of the fast path.
                1..=4 => now += token_ns + rng.next() % 3 - 1,
                _ => now += rng.next() % (3 * token_ns + 2),
            }
            let at = base + Duration::from_nanos(now);
            cap.refill(at);
            reference.refill(now);
            assert_eq!(cap.bucket().0, reference.tokens, "rate {rate} at {now} ns");
            for _ in 0..rng.next() % 3 {
                cap.take();
                reference.take();
            }
            assert_eq!(cap.bucket().0, reference.tokens, "rate {rate} at {now} ns");
        }
    }
}

#[test]
fn window_budget_rounds_down_to_whole_messages() {
    // 15/s over one-tick windows of 100 ms: 1.5 messages per window, rounded down to 1. The
    // bucket alone would let 15/s (and a burst) through; the window lets one per tick.
    let base = t0();
    let mut c = EgressConfig::new(15);
    c.convergence_time = c.tick;
    c.level_cutoff = [p(15), p(15), p(15)];
    let mut t = EgressThrottle::new(c, base).unwrap();
    let mut per_tick = [0u32; 100];
    for i in 0..1000u64 {
        let at = ms(i * 10);
        if t.decide(MessageKind::Request, p(0), base + at).is_send() {
            per_tick[(at.as_millis() / 100) as usize] += 1;
            t.on_transaction_end();
        }
    }
    assert!(per_tick.iter().all(|&n| n == 1), "{per_tick:?}");
    // Below one message per window the budget is still one: the cap never starves.
    let mut c = EgressConfig::new(1);
    c.convergence_time = c.tick;
    let mut t = EgressThrottle::new(c, base).unwrap();
    assert!(t.decide(MessageKind::Request, p(0), base).is_send());
    assert!(!t
        .decide(MessageKind::Request, p(0), base + ms(150))
        .is_send());
    assert!(t
        .decide(MessageKind::Request, p(0), base + ms(1000))
        .is_send());
}
