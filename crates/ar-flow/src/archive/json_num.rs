//! Numbers for the archive line, spelled exactly as serde_json and `Display` spell them.
//!
//! HAR numbers are written by serde_json's own `CompactFormatter` (so floats
//! come from the same digit generator, `null` for NaN and infinities), and
//! `_ar`'s exact timings are `Display` text; both skip their generic float
//! code for what nearly every flow has: HAR's `-1`/`0` placeholders and
//! millisecond timings that are whole nanoseconds. Tests compare every path
//! with `serde_json::to_string` and `format!("{}")`.

use std::io::Write as _;

use serde_json::ser::{CompactFormatter, Formatter as _};

// Writing into a `Vec` cannot fail, so the `io::Result`s below are always `Ok`.

/// Appends an unsigned integer.
pub(super) fn u64(out: &mut Vec<u8>, value: u64) {
    let _ = CompactFormatter.write_u64(out, value);
}

/// Appends a signed integer.
pub(super) fn i64(out: &mut Vec<u8>, value: i64) {
    let _ = CompactFormatter.write_i64(out, value);
}

/// Appends a float as serde_json does: shortest round-trip text, `null` for
/// NaN and infinities. HAR's placeholders `-1` and `0` skip the formatter.
pub(super) fn f64(out: &mut Vec<u8>, value: f64) {
    if value == -1.0 {
        out.extend_from_slice(b"-1.0");
    } else if value.to_bits() == 0 {
        out.extend_from_slice(b"0.0");
    } else if let Some(n) = millionths(value).filter(|_| value >= PLAIN_IN_JSON) {
        write_millionths(out, n, b".0");
    } else if value.is_finite() {
        let _ = CompactFormatter.write_f64(out, value);
    } else {
        out.extend_from_slice(b"null");
    }
}

/// From here up serde_json writes plain decimals (below 1e-5 it switches to
/// an exponent, `1e-6`); a millisecond timing this small is rare, so the
/// fast path keeps a safe margin.
const PLAIN_IN_JSON: f64 = 0.001;

/// Appends a float's `Display` text as a JSON string (the archive's exact
/// timings: `"0.356"`, `"0.0000001"`, `"NaN"`, `"inf"`), which never needs
/// escaping. `Display` through `core::fmt` costs several times what
/// serde_json's float writer does, so this takes that writer's shortest
/// round-trip digits (the same digits `Display` picks) and lays them out
/// without an exponent, as `Display` does.
pub(super) fn display_f64_string(out: &mut Vec<u8>, value: f64) {
    out.push(b'"');
    if let Some(n) = millionths(value) {
        write_millionths(out, n, b"");
        out.push(b'"');
        return;
    }
    let mut text = [0; 32];
    let mut rest = &mut text[..];
    let shortest = value.is_finite() && CompactFormatter.write_f64(&mut rest, value).is_ok();
    let written = 32 - rest.len();
    let text = &text[..written];
    // Up to 15 significant digits at most one decimal of that length lies in
    // a double's rounding interval, so every shortest-digits algorithm agrees;
    // at 16 and 17 two may, and serde_json's and `Display`'s can pick apart.
    if shortest && significant_digits(text) <= 15 {
        expand_exponent(out, text);
    } else {
        let _ = write!(out, "{value}");
    }
    out.push(b'"');
}

/// `value` as a whole number of millionths, when it is the double nearest
/// to one: timings measured in nanoseconds (or microseconds) and given in
/// milliseconds, as ar-capture and the archive's timestamps produce them.
///
/// Between 1e-6 and 1e9 the millionths' decimal text has at most 15
/// significant digits. Any other decimal with as few digits then differs
/// from it by at least 1e-15 of its value, far more than the double's
/// rounding interval (about 2.2e-16 of it), so this text is the shortest
/// that reads back as `value`: what both serde_json and `Display` write,
/// without their digit generation.
fn millionths(value: f64) -> Option<u64> {
    if !(0.000_001..1e9).contains(&value) {
        return None;
    }
    let n = (value * 1e6 + 0.5) as u64;
    (n as f64 / 1e6 == value).then_some(n)
}

/// Writes `n / 10⁶` in plain decimal without trailing zeros, and
/// `whole_suffix` when it is a whole number (serde_json's `.0`).
fn write_millionths(out: &mut Vec<u8>, n: u64, whole_suffix: &[u8]) {
    // Laid out right to left in one buffer, then appended once: this runs
    // for about ten numbers of every archived flow.
    let mut text = [b'.'; 32];
    let mut at = text.len();
    let (mut whole, mut fraction) = (n / 1_000_000, n % 1_000_000);
    if fraction != 0 {
        let mut places = 6;
        while fraction.is_multiple_of(10) {
            fraction /= 10;
            places -= 1;
        }
        for _ in 0..places {
            at -= 1;
            text[at] = b'0' + (fraction % 10) as u8;
            fraction /= 10;
        }
        at -= 1; // the point, already there
    }
    loop {
        at -= 1;
        text[at] = b'0' + (whole % 10) as u8;
        whole /= 10;
        if whole == 0 {
            break;
        }
    }
    out.extend_from_slice(&text[at..]);
    if n.is_multiple_of(1_000_000) {
        out.extend_from_slice(whole_suffix);
    }
}

/// Digits of `[-]d[.ddd][e[+-]x]` before the exponent, leading zeros not counted.
fn significant_digits(text: &[u8]) -> usize {
    text.iter()
        .take_while(|&&b| b != b'e' && b != b'E')
        .filter(|b| b.is_ascii_digit())
        .skip_while(|&&b| b == b'0')
        .count()
}

/// Writes `[-]d[.ddd][e[+-]x]` as plain decimal: `1e-7` as `0.0000001`,
/// `1.5e3` as `1500`, `2.0` as `2` (the shortest digits, no trailing zeros).
fn expand_exponent(out: &mut Vec<u8>, text: &[u8]) {
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (mantissa, exponent) = match text.iter().position(|&b| b == b'e' || b == b'E') {
        Some(e) => (&text[..e], parse_exponent(&text[e + 1..])),
        None => (text, 0),
    };
    let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
        Some(dot) => (&mantissa[..dot], &mantissa[dot + 1..]),
        None => (mantissa, &[][..]),
    };
    // All digits, and where the decimal point goes among them.
    let mut digits = [0; 32];
    let count = int.len() + frac.len();
    digits[..int.len()].copy_from_slice(int);
    digits[int.len()..count].copy_from_slice(frac);
    let mut point = int.len() as i64 + exponent;
    let mut digits = &digits[..count];
    while let Some((b'0', rest)) = digits.split_first() {
        digits = rest;
        point -= 1;
    }
    while let Some((b'0', rest)) = digits.split_last() {
        digits = rest;
    }
    if negative {
        out.push(b'-');
    }
    let len = digits.len() as i64;
    if digits.is_empty() {
        out.push(b'0');
    } else if point <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-point) as usize));
        out.extend_from_slice(digits);
    } else if point >= len {
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat_n(b'0', (point - len) as usize));
    } else {
        let (whole, fraction) = digits.split_at(point as usize);
        out.extend_from_slice(whole);
        out.push(b'.');
        out.extend_from_slice(fraction);
    }
}

/// The exponent after `e`: optional sign, then digits (a float's is at most 3 long).
fn parse_exponent(text: &[u8]) -> i64 {
    let (sign, digits) = match text.split_first() {
        Some((b'-', rest)) => (-1, rest),
        Some((b'+', rest)) => (1, rest),
        _ => (1, text),
    };
    sign * digits
        .iter()
        .fold(0i64, |n, &d| n * 10 + i64::from(d.wrapping_sub(b'0')))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::archive::written;

    #[test]
    fn numbers_are_spelled_as_serde_json_spells_them() {
        for value in [
            0.0,
            -0.0,
            -1.0,
            1.0,
            0.1 + 0.2,
            1e-7,
            1e21,
            -1e300,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let expected = serde_json::to_string(&value).unwrap();
            assert_eq!(written(|o| f64(o, value)), format!("prefix{expected}"));
        }
        for value in [0, 1, u64::MAX] {
            assert_eq!(written(|o| u64(o, value)), format!("prefix{value}"));
        }
        for value in [i64::MIN, -1, 0, i64::MAX] {
            assert_eq!(written(|o| i64(o, value)), format!("prefix{value}"));
        }
        for value in [
            0.0,
            -0.0,
            1.0,
            -2.5,
            0.356,
            1e-7,
            1e21,
            123_456.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(
                written(|o| display_f64_string(o, value)),
                format!("prefix\"{value}\"")
            );
        }
    }

    #[test]
    fn float_strings_match_display_at_every_power_of_two_and_its_neighbours() {
        // Powers of two have a lopsided rounding interval: where shortest-digit
        // algorithms are most likely to differ.
        for exponent in -1074i32..=1023 {
            let power = if exponent < -1022 {
                f64::from_bits(1 << (exponent + 1074)) // subnormal
            } else {
                f64::from_bits(((exponent + 1023) as u64) << 52)
            };
            assert_eq!(power, 2f64.powf(f64::from(exponent)));
            for value in [power, power.next_up(), power.next_down(), -power] {
                assert_eq!(
                    written(|o| display_f64_string(o, value)),
                    format!("prefix\"{value}\""),
                    "2^{exponent}"
                );
            }
        }
    }

    #[test]
    fn whole_millionths_are_written_as_serde_json_and_display_write_them() {
        let check = |n: u64| {
            let value = n as f64 / 1e6;
            let json = serde_json::to_string(&value).unwrap();
            assert_eq!(written(|o| f64(o, value)), format!("prefix{json}"), "{n}");
            assert_eq!(
                written(|o| display_f64_string(o, value)),
                format!("prefix\"{value}\""),
                "{n}"
            );
        };
        (0..300_000).for_each(check);
        (0..300_000).map(|k| k * 3331 + 7).for_each(check);
        (0..300_000).map(|k| k * 1000).for_each(check);
        (0..100_000)
            .map(|k| 1_000_000_000_000_000 - k * 17)
            .for_each(check);
        (0..100_000)
            .map(|k| 1_000_000_000_000_000 + k * 13)
            .for_each(check);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn any_float_is_written_as_serde_json_writes_it(
            value in prop_oneof![
                any::<f64>(),
                (0u64..2_000_000_000_000).prop_map(|n| n as f64 / 1000.0),
                (0u64..2_000_000_000_000).prop_map(|n| n as f64 / 1000.0 + 1e-9),
                (0u64..2_000_000_000_000_000).prop_map(|n| n as f64 / 1e6),
                (0u64..2_000_000_000_000_000).prop_map(|n| n as f64 / 1e6 + 1e-12),
            ],
        ) {
            let expected = serde_json::to_string(&value).unwrap();
            prop_assert_eq!(written(|o| f64(o, value)), format!("prefix{expected}"));
        }

        #[test]
        fn any_float_string_is_its_display_text(
            value in prop_oneof![
                any::<f64>(),
                (any::<i32>(), -30i32..30).prop_map(|(m, e)| f64::from(m) * 10f64.powi(e)),
                (0u32..100_000).prop_map(|n| f64::from(n) / 1000.0),
                (0u64..2_000_000_000_000).prop_map(|n| n as f64 / 1000.0),
                (0u64..2_000_000_000_000_000).prop_map(|n| n as f64 / 1e6),
                (0u64..2_000_000_000_000_000).prop_map(|n| n as f64 / 1e6 + 1e-12),
            ],
        ) {
            prop_assert_eq!(
                written(|o| display_f64_string(o, value)),
                format!("prefix\"{value}\"")
            );
        }
    }
}
