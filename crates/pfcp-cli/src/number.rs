//! The value parsers of the numeric flags: a negative number, a fraction where a whole number
//! is wanted or text get an error that says which, instead of clap's "unexpected argument
//! '-5'" (a negative number read as a flag) or Rust's "invalid digit found in string".
//!
//! The flags that use them also set `allow_negative_numbers`, so that `--rate -5` reaches
//! the parser.

use std::str::FromStr;

/// A whole number of at least 0 (`u32`, `u64`, `usize`): `--duration-secs 10`.
pub(crate) fn whole<T: FromStr>(text: &str) -> Result<T, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(format!(
            "{t} is negative: give 0 or a positive whole number"
        ));
    }
    if t.parse::<f64>().is_ok_and(|x| x.fract() != 0.0) {
        return Err(format!("{t} is not a whole number"));
    }
    t.parse::<T>()
        .map_err(|_| format!("{t:?} is not a whole number (or too large)"))
}

/// A finite number of at least 0: `--rate 2500`, `--warmup-secs 1.5`.
pub(crate) fn number<T: FromStr + Into<f64> + Copy>(text: &str) -> Result<T, String> {
    let t = text.trim();
    let x: T = t
        .parse::<T>()
        .map_err(|_| format!("{t:?} is not a number"))?;
    let f: f64 = x.into();
    if !f.is_finite() {
        return Err(format!("{t} is not a finite number"));
    }
    if f < 0.0 {
        return Err(format!("{t} is negative: give 0 or a positive number"));
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_numbers_are_named_as_such() {
        assert_eq!(whole::<u64>("10"), Ok(10));
        assert!(whole::<u64>("-5").unwrap_err().contains("negative"));
        assert!(whole::<u32>("1.5")
            .unwrap_err()
            .contains("not a whole number"));
        assert!(whole::<u32>("ten")
            .unwrap_err()
            .contains("not a whole number"));
        assert!(whole::<u8>("300").unwrap_err().contains("too large"));
        assert_eq!(number::<f64>("2.5"), Ok(2.5));
        assert!(number::<f64>("-0.5").unwrap_err().contains("negative"));
        assert!(number::<f64>("inf").unwrap_err().contains("finite"));
        assert!(number::<f64>("x").unwrap_err().contains("not a number"));
    }
}
