//! RFC 3339 timestamps (always UTC, `Z`) from and to seconds since the epoch.

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Seconds since the epoch of a UTC date and time.
pub fn at(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> i64 {
    days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s
}

/// `2026-09-15T10:00:04Z`
pub fn fmt(t: i64) -> String {
    let (y, m, d) = civil_from_days(t.div_euclid(86_400));
    let r = t.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        r / 3600,
        (r / 60) % 60,
        r % 60
    )
}

/// Parses what [`fmt`] writes; `None` for anything else.
pub fn parse(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let n = |r: std::ops::Range<usize>| s[r].parse::<i64>().ok();
    let (y, mo, d, h, mi, se) = (
        n(0..4)?,
        n(5..7)?,
        n(8..10)?,
        n(11..13)?,
        n(14..16)?,
        n(17..19)?,
    );
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 59 {
        return None;
    }
    let t = at(y, mo, d, h, mi, se);
    (fmt(t) == s).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let t = at(2026, 9, 15, 10, 0, 4);
        assert_eq!(fmt(t), "2026-09-15T10:00:04Z");
        assert_eq!(parse("2026-09-15T10:00:04Z"), Some(t));
        assert_eq!(fmt(at(2026, 9, 1, 0, 0, 0)), "2026-09-01T00:00:00Z");
        // the chapter's unix timestamp for September 1st
        assert_eq!(at(2026, 9, 1, 0, 0, 0), 1_788_220_800);
        assert_eq!(parse("2026-02-30T00:00:00Z"), None);
        assert_eq!(parse("2026-09-15T10:00:04"), None);
    }
}
