//! Times as UTC text, computed from the system clock alone (no time-zone database, no
//! date crate): when a game was played (`2026-12-02T00:41:07Z` in its record) and when a
//! report was written (`2026-12-02 00:41 UTC`). The one place that turns seconds since
//! 1970 into a calendar date.

use std::time::{SystemTime, UNIX_EPOCH};

/// (year, month, day, seconds into the day) of `t`, in UTC.
fn civil(t: SystemTime) -> (i64, u32, u32, u64) {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    (y, m, d, secs % 86_400)
}

/// `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, UTC) for a time.
pub fn timestamp(t: SystemTime) -> String {
    let (y, m, d, rem) = civil(t);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// `YYYY-MM-DD HH:MM UTC` for a time.
pub fn date_time(t: SystemTime) -> String {
    let (y, m, d, rem) = civil(t);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// The date and time of a [`timestamp`] (or of any text that starts
/// `YYYY-MM-DD[T ]HH:MM:SS`): `(YYYY-MM-DD, HH:MM:SS)`, or `None` for other text.
pub fn split_timestamp(text: &str) -> Option<(&str, &str)> {
    let (date, time) = (text.get(..10)?, text.get(11..19)?);
    let digits_at = |s: &str, seps: &[usize], sep: u8| {
        s.bytes().enumerate().all(|(i, b)| {
            if seps.contains(&i) {
                b == sep
            } else {
                b.is_ascii_digit()
            }
        })
    };
    let ok = digits_at(date, &[4, 7], b'-')
        && matches!(text.as_bytes()[10], b'T' | b' ')
        && digits_at(time, &[2, 5], b':');
    ok.then_some((date, time))
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn dates_known_answers() {
        assert_eq!(date_time(UNIX_EPOCH), "1970-01-01 00:00 UTC");
        // 2000-02-29 12:34 UTC: a leap day in a century leap year.
        let t = UNIX_EPOCH + Duration::from_secs(951_827_640);
        assert_eq!(date_time(t), "2000-02-29 12:34 UTC");
        assert_eq!(
            timestamp(t + Duration::from_secs(5)),
            "2000-02-29T12:34:05Z"
        );
        // 2024-12-31 23:59 UTC.
        let t = UNIX_EPOCH + Duration::from_secs(1_735_689_540);
        assert_eq!(date_time(t), "2024-12-31 23:59 UTC");
    }

    #[test]
    fn timestamps_split() {
        assert_eq!(
            split_timestamp("2026-12-02T00:41:07Z"),
            Some(("2026-12-02", "00:41:07"))
        );
        assert_eq!(
            split_timestamp("2026-12-02 00:41:07"),
            Some(("2026-12-02", "00:41:07"))
        );
        assert_eq!(split_timestamp("yesterday"), None);
        assert_eq!(split_timestamp("2026-1x-02T00:41:07Z"), None);
    }
}
