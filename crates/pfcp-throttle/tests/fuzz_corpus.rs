//! Replays the `throttle` fuzz corpus (`fuzz/corpus/throttle/`) and its minimized crashers
//! (`fuzz/regressions/throttle/`) through the fuzz harness, on stable, without libFuzzer.
//!
//! The harness is the fuzz crate's own `fuzz/src/throttle.rs`, compiled here as a module: one
//! copy of the checks (and of the `arbitrary` input types), two drivers. A crash found by
//! libFuzzer becomes a test by copying its minimized input into `fuzz/regressions/throttle/`.

// The harness's `pub` items are the fuzz crate's API; here they are a private module.
#[allow(unreachable_pub, dead_code)]
#[path = "../../../fuzz/src/throttle.rs"]
mod throttle;

#[allow(unreachable_pub, dead_code)]
#[path = "../../../fuzz/src/throttle_c2.rs"]
mod throttle_c2;

#[allow(unreachable_pub, dead_code)]
#[path = "../../../fuzz/src/throttle_egress.rs"]
mod throttle_egress;

#[allow(unreachable_pub, dead_code)]
#[path = "../../../fuzz/src/throttle_loss.rs"]
mod throttle_loss;

#[path = "../../../fuzz/src/replay.rs"]
mod replay;

const TARGET: &str = "throttle";

#[test]
fn corpus() {
    replay::corpus(env!("CARGO_MANIFEST_DIR"), TARGET, 20, throttle::throttle);
}

#[test]
fn regressions() {
    replay::regressions(env!("CARGO_MANIFEST_DIR"), TARGET, throttle::throttle);
}

/// The harness on pseudo-random inputs: exercised even where the corpus is thin, and a check
/// that it rejects nothing it should accept.
#[test]
fn pseudo_random_inputs() {
    replay::pseudo_random(300, 600, throttle::throttle);
}

/// The second input format ([`throttle::FORMAT_V2`]: the C.2 state, the tracker and the
/// later modes) on pseudo-random inputs.
#[test]
fn pseudo_random_v2_inputs() {
    replay::pseudo_random(4000, 3000, |data| {
        let mut input = vec![throttle::FORMAT_V2];
        input.extend_from_slice(data);
        throttle::throttle(&input);
    });
}

/// The third format ([`throttle_c2::FORMAT_V3`]: the classifiers alone, with the QCI / 5QI
/// inputs) on pseudo-random inputs.
#[test]
fn pseudo_random_v3_inputs() {
    replay::pseudo_random(3000, 2000, |data| {
        let mut input = vec![throttle_c2::FORMAT_V3];
        input.extend_from_slice(data);
        throttle::throttle(&input);
    });
}
