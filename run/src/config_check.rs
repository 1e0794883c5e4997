//! Range checks of `config.toml` values that serde cannot make, shared by each stage's section: a value out of
//! range is an error naming its key and the range expected, so that a mistyped number fails as the config loads,
//! not as weights turned NaN or an exhausted memory hours later.

/// `key` written as an error names it: after its section (`[selfplay]`), where there is one.
fn named(section: &str, key: &str) -> String {
    match section {
        "" => key.to_string(),
        _ => format!("{section} {key}"),
    }
}

/// Each count (key, value, bound) at least 1 and at most its bound; the bounds lie beyond any useful value.
pub fn check_counts(section: &str, counts: &[(&str, u64, u64)]) -> Result<(), String> {
    for &(key, value, max) in counts {
        if value == 0 {
            return Err(format!("{} = 0 (expected 1 or more)", named(section, key)));
        }
        if value > max {
            return Err(format!("{} = {value} (expected at most {max})", named(section, key)));
        }
    }
    Ok(())
}

/// The real values a key takes, with the words its error gives; NaN and the infinities fall outside every one.
#[derive(Clone, Copy)]
pub struct Range {
    pub within: fn(f64) -> bool,
    pub expected: &'static str,
}

pub const POSITIVE: Range = Range { within: |x| x > 0.0 && x.is_finite(), expected: "more than 0" };
pub const NOT_NEGATIVE: Range = Range { within: |x| x >= 0.0 && x.is_finite(), expected: "0 or more" };
pub const SHARE: Range = Range { within: |x| (0.0..=1.0).contains(&x), expected: "0 to 1" };
pub const FINITE: Range = Range { within: f64::is_finite, expected: "a number" };
/// A run's or a stage's time in minutes: 0 (no limit) to a year.
pub const MINUTES: Range =
    Range { within: |x| (0.0..=MAX_MINUTES).contains(&x), expected: "0 (no limit) to 525600 (a year)" };

/// The longest time limit in minutes (a year): a larger one is a typo, not a plan.
pub const MAX_MINUTES: f64 = 525_600.0;
/// The most threads a stage or command takes: beyond any machine's use, short of what fails to start.
pub const MAX_THREADS: usize = 1024;

/// An `f32` key's value as the `f64` its config text spelled, so that an error shows `1.1`, not
/// `1.100000023841858`.
pub fn spelled(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::NAN)
}

/// A number as a config would spell it: `1e300`, not its 301 digits.
fn shown(value: f64) -> String {
    let tiny = value != 0.0 && value.abs() < 1e-6;
    if value.is_finite() && (value.abs() >= 1e15 || tiny) {
        format!("{value:e}")
    } else {
        value.to_string()
    }
}

/// Each number (key, value, range) within its range.
pub fn check_numbers(section: &str, numbers: &[(&str, f64, Range)]) -> Result<(), String> {
    match numbers.iter().find(|(_, value, range)| !(range.within)(*value)) {
        Some((key, value, range)) => {
            Err(format!("{} = {} (expected {})", named(section, key), shown(*value), range.expected))
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_value_out_of_its_range_is_named_with_the_range() {
        assert_eq!(check_counts("[eval]", &[("games", 4, 10), ("every", 1, 1)]), Ok(()));
        assert_eq!(check_counts("[eval]", &[("games", 0, 10)]), Err("[eval] games = 0 (expected 1 or more)".into()));
        assert_eq!(check_counts("", &[("batch", 11, 10)]), Err("batch = 11 (expected at most 10)".into()));
        assert_eq!(check_numbers("", &[("rate", 0.5, SHARE), ("decay", 0.0, NOT_NEGATIVE)]), Ok(()));
        for (value, written, range, words) in [
            (f64::NAN, "NaN", POSITIVE, "more than 0"),
            (0.0, "0", POSITIVE, "more than 0"),
            (f64::INFINITY, "inf", NOT_NEGATIVE, "0 or more"),
            (-1e-9, "-1e-9", NOT_NEGATIVE, "0 or more"),
            (-1e300, "-1e300", NOT_NEGATIVE, "0 or more"),
            (1.5, "1.5", SHARE, "0 to 1"),
            (f64::NAN, "NaN", SHARE, "0 to 1"),
            (f64::NEG_INFINITY, "-inf", FINITE, "a number"),
        ] {
            let err = check_numbers("[s]", &[("ok", 1.0, FINITE), ("k", value, range)]).unwrap_err();
            assert_eq!(err, format!("[s] k = {written} (expected {words})"));
        }
        assert_eq!(check_numbers("", &[("k", spelled(1.1), SHARE)]), Err("k = 1.1 (expected 0 to 1)".into()));
        assert!(spelled(f32::NAN).is_nan() && spelled(f32::NEG_INFINITY) == f64::NEG_INFINITY);
    }
}
