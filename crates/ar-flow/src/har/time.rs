//! ISO 8601 date-times as HAR writes them, to and from [`Timestamp`].
//!
//! Accepts what the tools emit: `2024-05-01T10:00:00.123Z`, offsets
//! (`+02:00`, `+0200`), any number of fraction digits, a space instead of
//! `T`, and no zone at all (taken as UTC).

use crate::Timestamp;

/// Parses an ISO 8601 date-time; `None` when it is not one.
pub(crate) fn parse_iso8601(text: &str) -> Option<Timestamp> {
    let b = text.trim().as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let s = b.get(range)?;
        if s.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(s).ok()?.parse().ok()
        } else {
            None
        }
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
    {
        return None;
    }
    let mut micros = days_from_civil(year, month, day) * 86_400_000_000;
    if b.len() == 10 {
        return Some(Timestamp::from_unix_micros(micros));
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let (hour, minute) = (num(11..13)?, num(14..16)?);
    let second = if b.get(16) == Some(&b':') {
        num(17..19)?
    } else {
        0
    };
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    micros += ((hour * 60 + minute) * 60 + second) * 1_000_000;
    let mut i = if b.get(16) == Some(&b':') { 19 } else { 16 };
    if matches!(b.get(i), Some(b'.' | b',')) {
        i += 1;
        let start = i;
        let mut frac: i64 = 0;
        while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            if i - start < 6 {
                frac = frac * 10 + i64::from(d - b'0');
            }
            i += 1;
        }
        let digits = (i - start).min(6);
        if i == start {
            return None;
        }
        micros += frac * 10i64.pow(6 - digits as u32);
    }
    match b.get(i) {
        None | Some(b'Z' | b'z') if b.len() <= i + 1 => {}
        Some(sign @ (b'+' | b'-')) => {
            let rest = &text.trim()[i + 1..];
            let digits: String = rest.chars().filter(char::is_ascii_digit).collect();
            if digits.len() != 4 || rest.len() > 5 {
                return None;
            }
            let offset = digits[..2].parse::<i64>().ok()? * 60 + digits[2..].parse::<i64>().ok()?;
            let offset = offset * 60_000_000;
            micros += if *sign == b'+' { -offset } else { offset };
        }
        _ => return None,
    }
    Some(Timestamp::from_unix_micros(micros))
}

/// Formats as `YYYY-MM-DDTHH:MM:SS.mmmZ` (milliseconds, as HAR tools write).
pub(crate) fn format_iso8601(at: Timestamp) -> String {
    let mut out = Vec::with_capacity(24);
    write_iso8601(at, &mut out);
    out.into_iter().map(char::from).collect()
}

/// [`format_iso8601`] with the microseconds past the millisecond, when there
/// are any (`…01.201300Z`): what a HAR export writes, so that an import of
/// it gives the flow's exact start. ISO 8601 allows any number of fraction
/// digits, and HAR readers (ar's, mitmproxy's, browsers') take six.
pub(crate) fn format_iso8601_exact(at: Timestamp) -> String {
    let mut text = format_iso8601(at);
    let micros = at.unix_micros().rem_euclid(1000);
    if micros != 0 {
        text.insert_str(text.len() - 1, &format!("{micros:03}"));
    }
    text
}

/// Appends [`format_iso8601`]'s text to `out` without a `format!` (the
/// archive writes one per flow). Years outside 0..=9999 are written as
/// `{:04}` writes them: `-001`, `12345`.
pub(crate) fn write_iso8601(at: Timestamp, out: &mut Vec<u8>) {
    let micros = at.unix_micros();
    let days = micros.div_euclid(86_400_000_000);
    let rem = micros.rem_euclid(86_400_000_000);
    let (y, m, d) = civil_from_days(days);
    let secs = rem / 1_000_000;
    let millis = (rem % 1_000_000) / 1000;
    if (0..10_000).contains(&y) {
        let y = y as u64;
        out.extend_from_slice(&[
            digit(y / 1000),
            digit(y / 100),
            digit(y / 10),
            digit(y),
            b'-',
        ]);
    } else {
        write_long_year(y, out);
    }
    let two = |out: &mut Vec<u8>, n: i64, sep: u8| {
        out.extend_from_slice(&[digit(n as u64 / 10), digit(n as u64), sep]);
    };
    two(out, m, b'-');
    two(out, d, b'T');
    two(out, secs / 3600, b':');
    two(out, secs / 60 % 60, b':');
    two(out, secs % 60, b'.');
    out.extend_from_slice(&[
        digit(millis as u64 / 100),
        digit(millis as u64 / 10),
        digit(millis as u64),
        b'Z',
    ]);
}

/// A year outside 0..=9999 and its `-`, as `{:04}` writes it (`-001`, `12345`).
fn write_long_year(y: i64, out: &mut Vec<u8>) {
    if y < 0 {
        out.push(b'-');
    }
    // Years span at most 6 digits (an i64 of microseconds is ±292,277 years).
    let year = y.unsigned_abs();
    let width: usize = if y < 0 { 3 } else { 4 };
    let digits = year.checked_ilog10().map_or(1, |d| d as usize + 1);
    out.extend(std::iter::repeat_n(b'0', width.saturating_sub(digits)));
    for shift in (0..digits as u32).rev() {
        out.push(digit(year / 10u64.pow(shift)));
    }
    out.push(b'-');
}

/// The ASCII digit of `n`'s last decimal place.
fn digit(n: u64) -> u8 {
    b'0' + (n % 10) as u8
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn micros(text: &str) -> Option<i64> {
        parse_iso8601(text).map(Timestamp::unix_micros)
    }

    #[test]
    fn parses_har_spellings() {
        assert_eq!(micros("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            micros("2023-11-14T22:13:20.123Z"),
            Some(1_700_000_000_123_000)
        );
        assert_eq!(
            micros("2023-11-14T23:13:20.123456+01:00"),
            Some(1_700_000_000_123_456)
        );
        assert_eq!(
            micros("2023-11-14T23:13:20.1234567+0100"),
            Some(1_700_000_000_123_456)
        );
        assert_eq!(micros("2023-11-14 22:13:20"), Some(1_700_000_000_000_000));
        assert_eq!(
            micros("2023-11-14T21:13:20-01:00"),
            Some(1_700_000_000_000_000)
        );
        assert_eq!(micros("1969-12-31T23:59:59.999Z"), Some(-1000));
        for bad in [
            "",
            "yesterday",
            "2023-13-01T00:00:00Z",
            "2023-11-14T22:13:20.Z",
            "2023-11-14T22:13:20+1",
        ] {
            assert_eq!(micros(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_and_round_trips_milliseconds() {
        let at = Timestamp::from_unix_micros(1_700_000_000_123_000);
        assert_eq!(format_iso8601(at), "2023-11-14T22:13:20.123Z");
        assert_eq!(parse_iso8601(&format_iso8601(at)), Some(at));
        assert_eq!(
            format_iso8601(Timestamp::from_unix_micros(-1000)),
            "1969-12-31T23:59:59.999Z"
        );
    }

    proptest::proptest! {
        #[test]
        fn writes_what_format_wrote_for_any_time(micros in proptest::prelude::any::<i64>()) {
            let at = Timestamp::from_unix_micros(micros);
            let days = micros.div_euclid(86_400_000_000);
            let rem = micros.rem_euclid(86_400_000_000);
            let (y, m, d) = civil_from_days(days);
            let secs = rem / 1_000_000;
            let millis = (rem % 1_000_000) / 1000;
            let expected = format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            );
            proptest::prop_assert_eq!(format_iso8601(at), expected);
        }
    }

    #[test]
    fn years_outside_four_digits_keep_the_padded_spelling() {
        for (micros, text) in [
            (i64::MIN, "-290308-12-21T19:59:05.224Z"),
            (i64::MAX, "294247-01-10T04:00:54.775Z"),
            (-62_167_219_200_000_000, "0000-01-01T00:00:00.000Z"),
            (-62_167_219_200_000_001, "-001-12-31T23:59:59.999Z"),
            (253_402_300_800_000_000, "10000-01-01T00:00:00.000Z"),
        ] {
            assert_eq!(format_iso8601(Timestamp::from_unix_micros(micros)), text);
        }
    }
}
