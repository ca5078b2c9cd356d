//! Seeded generators for test traffic: small, deterministic, no global state. They are the
//! generators the tests used before this crate existed, bit for bit, so that seeded
//! scenarios draw the same values.

/// Marsaglia's xorshift64 (shifts 13, 7, 17). A zero seed stays zero: seed with a non-zero
/// value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XorShift(pub u64);

impl XorShift {
    /// The next state, which is also the value drawn.
    #[allow(clippy::should_implement_trait)] // Not an iterator: it never ends.
    pub fn next(&mut self) -> u64 {
        self.next_u64()
    }

    /// The next state, which is also the value drawn.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform-ish in `0..n` (modulo; `n = 0` reads as 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `[0, 1)` (the top 53 bits).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// SplitMix64 (Steele, Lea and Flood): any seed, zero included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform-ish in `0..n` (modulo; `n = 0` reads as 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `[0, 1)` (the top 53 bits).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift_matches_marsaglias_first_values() {
        // Marsaglia (2003), "Xorshift RNGs": the 13/7/17 triple from seed 1.
        let mut r = XorShift(1);
        assert_eq!(r.next_u64(), 1_082_269_761);
        assert_eq!(r.next_u64(), 1_152_992_998_833_853_505);
    }

    #[test]
    fn splitmix_matches_the_reference_values() {
        // The reference implementation (prng.di.unimi.it/splitmix64.c) from seed 1234567.
        let mut r = SplitMix64(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn unit_is_in_range() {
        let mut r = SplitMix64(0);
        let mut x = XorShift(9);
        for _ in 0..10_000 {
            let (a, b) = (r.unit(), x.unit());
            assert!((0.0..1.0).contains(&a) && (0.0..1.0).contains(&b));
        }
    }
}
