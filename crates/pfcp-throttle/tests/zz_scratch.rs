use pfcp_throttle::{LossConfig, LossThrottle, RequestClass};
use pfcp_wire::MessagePriority;
#[test]
fn scratch() {
    let mut t = LossThrottle::new(LossConfig::default());
    let mut rng = 12345u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let p = |x| MessagePriority::new(x).unwrap();
    // rank 3 (p12), 5 (p10), 7 (p8), 13 (p2), 14 (p1), 16 exempt
    let classes = [
        RequestClass::new(p(12)),
        RequestClass::new(p(10)),
        RequestClass::new(p(8)),
        RequestClass::new(p(2)),
        RequestClass::new(p(1)),
        RequestClass::exempt(p(0)),
    ];
    let one_x = [345.0, 215.0, 215.0, 104.0, 164.0, 68.0];
    let five_x = [72.0, 3.0, 2.0, 19.0, 34.0, 4.0];
    let pick = |w: &[f64; 6], r: u64| {
        let tot: f64 = w.iter().sum();
        let mut x = (r % 10000) as f64 / 10000.0 * tot;
        for (i, v) in w.iter().enumerate() {
            if x < *v {
                return i;
            }
            x -= v;
        }
        5
    };
    for _ in 0..1100 {
        let c = pick(&one_x, next());
        let _ = t.decide_at(classes[c], 10);
    }
    for (phase, red) in [(1, 86u8), (2, 88), (3, 91), (4, 91), (5, 91), (6, 91)] {
        let mut sent = [0; 6];
        let mut off = [0; 6];
        for _ in 0..134 {
            let c = pick(&five_x, next());
            off[c] += 1;
            if t.decide_at(classes[c], red).is_send() {
                sent[c] += 1;
            }
        }
        println!(
            "phase {phase} red {red}: boundary {} offered {off:?} sent {sent:?}",
            t.boundary_rank()
        );
    }
}
