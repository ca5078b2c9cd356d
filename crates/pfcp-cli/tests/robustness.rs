//! Corrupted captures and garbage text never panic or hang `pfcp decode`: every input ends in
//! output lines and/or one-line diagnostics.

#[allow(dead_code, unreachable_pub)]
mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};

use pfcp_cli::decode::{decode_input, DecodeOptions, Format};

use pfcp_test_support::rng::XorShift;

/// Indices into the inputs mutated.
struct Rng(XorShift);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
}

/// Decode `input` in both formats; `Err` if it panicked.
fn survives(input: &[u8]) -> Result<(), String> {
    for format in [Format::Json, Format::OracleSummary] {
        let opts = DecodeOptions {
            format,
            ..DecodeOptions::default()
        };
        let run = catch_unwind(AssertUnwindSafe(|| {
            let mut out = Vec::new();
            let mut diag = Vec::new();
            decode_input("x", input, &mut out, &mut diag, &opts).map(|_| ())
        }));
        match run {
            Err(_) => return Err("panic".into()),
            Ok(Err(e)) => return Err(format!("I/O error on an in-memory input: {e:?}")),
            Ok(Ok(())) => {}
        }
    }
    Ok(())
}

fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    match rng.below(4) {
        0 => v.truncate(rng.below(v.len() + 1)),
        1 => {
            for _ in 0..=rng.below(8) {
                let i = rng.below(v.len());
                if let Some(b) = v.get_mut(i) {
                    *b ^= 1 << rng.below(8);
                }
            }
        }
        2 => {
            // Overwrite a 4-octet field (a length, most likely) with a large value.
            let i = rng.below(v.len().saturating_sub(4));
            let big = [0xff, 0xff, 0xff, 0x7f];
            for (k, b) in big.iter().enumerate() {
                if let Some(x) = v.get_mut(i + k) {
                    *x = *b;
                }
            }
        }
        _ => {
            let i = rng.below(v.len());
            let n = rng.below(64);
            let junk: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
            v.splice(i..i, junk);
        }
    }
    v
}

#[test]
fn mutated_captures_never_panic() {
    let mut bases = vec![pfcp_cli::sample::sample_pcap().unwrap()];
    if let Some(dir) = support::oracle_dir("mutated_captures_never_panic") {
        for f in [
            "captures/mit/wmnsk+go-pfcp__pcap__pfcp.pcap",
            "captures/agpl-3.0/open5gs+open5gs__docs__assets__pcapng__5g-roaming-lbo.pfcp-only.pcapng",
        ] {
            bases.push(std::fs::read(dir.join(f)).unwrap());
        }
    }
    let mut rng = Rng(XorShift(0x1234_5678_9abc_def1));
    let mut failures = support::Failures::default();
    for (b, base) in bases.iter().enumerate() {
        survives(base).unwrap();
        for i in 0..800 {
            let input = mutate(&mut rng, base);
            if let Err(e) = survives(&input) {
                let hex = pfcp_cli::hex::encode(&input);
                failures.push(&format!("base {b} mutation {i}"), format!("{e}: {hex}"));
            }
        }
    }
    failures.assert_none("mutated captures");
}

#[test]
fn garbage_text_never_panics() {
    let mut rng = Rng(XorShift(42));
    let alphabet = b"0123456789abcdefABCDEF :#{}\"hex\n\t,x0";
    for _ in 0..2000 {
        let n = rng.below(300);
        let text: Vec<u8> = (0..n)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        survives(&text).unwrap();
        let bytes: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
        survives(&bytes).unwrap();
    }
}
