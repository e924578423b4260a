//! Time windows: the clock (`RUNG_NOW` when set), times as the command
//! line and the TUI's filter bar take them (RFC 3339 with an offset, or
//! relative to now: `30m`, `24h`, `7d`, `2w`), and how a window with one
//! end given is completed. Times are UTC microseconds.

use std::fmt;

use chrono::{DateTime, Utc};

use crate::model::Timestamp;

/// One day in microseconds.
pub const DAY: i64 = 86_400_000_000;
/// One week in microseconds: the default report window.
pub const WEEK: i64 = 7 * DAY;

/// A time that cannot be read; the message says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeError(pub String);

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TimeError {}

/// The clock: `RUNG_NOW` (RFC 3339) when set, else the system's.
pub fn now() -> Result<DateTime<Utc>, TimeError> {
    match std::env::var("RUNG_NOW") {
        Ok(s) if !s.is_empty() => Timestamp::parse(&s)
            .map(|t| t.to_datetime())
            .ok_or_else(|| {
                TimeError(format!(
                    "RUNG_NOW={s:?} is not an RFC 3339 time with an offset (e.g. 2026-11-23T00:00:00Z)"
                ))
            }),
        _ => Ok(Utc::now()),
    }
}

/// How far back a relative time may reach: 100 years (36,525 days). An
/// older start is written as an RFC 3339 time.
pub const MAX_BACK: i64 = 36_525 * DAY;

/// Reads a `--since`/`--until` value (`flag` names it in the message). A
/// relative time is `now` minus it, computed so that it cannot overflow:
/// one reaching back more than [`MAX_BACK`] is an error saying so.
pub fn parse_time(flag: &str, s: &str, now: DateTime<Utc>) -> Result<i64, TimeError> {
    if let Some(t) = Timestamp::parse(s) {
        return Ok(t.micros());
    }
    let bad = || {
        TimeError(format!(
            "--{flag} {s:?}: use an RFC 3339 time with an offset (2026-11-16T00:00:00Z) or a relative one (30m, 24h, 7d, 2w)"
        ))
    };
    let unit = s.chars().last().ok_or_else(bad)?;
    let digits = &s[..s.len() - unit.len_utf8()];
    let unit_us: i64 = match unit {
        'm' => 60_000_000,
        'h' => 3_600_000_000,
        'd' => DAY,
        'w' => WEEK,
        _ => return Err(bad()),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let back = digits
        .parse::<i64>()
        .ok()
        .and_then(|n| n.checked_mul(unit_us))
        .filter(|b| *b <= MAX_BACK)
        .ok_or_else(|| {
            TimeError(format!(
                "--{flag} {s:?}: a relative time reaches back at most 100 years (5217w, 36525d); for an older time give an RFC 3339 time (1926-01-01T00:00:00Z)"
            ))
        })?;
    Ok(now.timestamp_micros() - back)
}

/// The last 7 days before `now_us`, `[now − 7 days, now)`, to the
/// microsecond: the one definition of the default window, for the command
/// line's reports and every screen of the TUI.
pub fn last_week(now_us: i64) -> (i64, i64) {
    (now_us.saturating_sub(WEEK), now_us)
}

/// The week of the grid of weeks ending at `anchor_until` (`[anchor − 7
/// days · (k + 1), anchor − 7 days · k)` for a whole `k`, the weeks `[` and
/// `]` step through) that holds `t`.
pub fn week_holding(anchor_until: i64, t: i64) -> (i64, i64) {
    let k = (anchor_until as i128 - t as i128 - 1).div_euclid(WEEK as i128);
    let until = (anchor_until as i128 - k * WEEK as i128)
        .clamp(i64::MIN as i128 + WEEK as i128, i64::MAX as i128) as i64;
    (until - WEEK, until)
}

/// Completes a window `[since, until)` from the ends given: a start alone
/// runs to now, an end alone starts a week before it; with neither, the
/// [`last_week`] when `default_week`, else no window at all.
pub fn complete(
    since: Option<i64>,
    until: Option<i64>,
    now_us: i64,
    default_week: bool,
) -> (Option<i64>, Option<i64>) {
    match (since, until) {
        (None, None) if !default_week => (None, None),
        (None, None) => {
            let (s, u) = last_week(now_us);
            (Some(s), Some(u))
        }
        (Some(s), None) => (Some(s), Some(now_us)),
        (None, Some(u)) => (Some(u.saturating_sub(WEEK)), Some(u)),
        (Some(s), Some(u)) => (Some(s), Some(u)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_absolute_times() {
        let now = Timestamp::parse("2026-11-23T00:00:00Z")
            .unwrap()
            .to_datetime();
        let t = |s| Timestamp(parse_time("since", s, now).unwrap()).to_rfc3339();
        assert_eq!(t("7d"), "2026-11-16T00:00:00Z");
        assert_eq!(t("24h"), "2026-11-22T00:00:00Z");
        assert_eq!(t("30m"), "2026-11-22T23:30:00Z");
        assert_eq!(t("2w"), "2026-11-09T00:00:00Z");
        assert_eq!(t("2026-11-10T12:00:00+02:00"), "2026-11-10T10:00:00Z");
        assert!(parse_time("since", "7x", now).is_err());
        assert!(parse_time("since", "2026-11-10", now).is_err());
        assert_eq!(
            parse_time("until", "-3d", now).unwrap_err().to_string(),
            "--until \"-3d\": use an RFC 3339 time with an offset (2026-11-16T00:00:00Z) or a relative one (30m, 24h, 7d, 2w)"
        );
        assert!(parse_time("since", "+3d", now).is_err());
        assert!(parse_time("since", "d", now).is_err());
    }

    #[test]
    fn relative_times_cannot_overflow_or_leave_a_sane_range() {
        let now = Timestamp::parse("2026-11-23T00:00:00Z")
            .unwrap()
            .to_datetime();
        let too_far = |s: &str| {
            format!(
                "--since \"{s}\": a relative time reaches back at most 100 years (5217w, 36525d); for an older time give an RFC 3339 time (1926-01-01T00:00:00Z)"
            )
        };
        for s in [
            "20000000w",
            "7000000w",
            "5218w",
            "36526d",
            "9223372036854775807m",
            "99999999999999999999999d",
        ] {
            assert_eq!(
                parse_time("since", s, now).unwrap_err().to_string(),
                too_far(s)
            );
        }
        let t = |s| Timestamp(parse_time("since", s, now).unwrap()).to_rfc3339();
        assert_eq!(t("36525d"), "1926-11-23T00:00:00Z");
        assert_eq!(t("5217w"), "1926-11-29T00:00:00Z");
    }

    #[test]
    fn the_week_grid_holds_every_time() {
        let a = 100 * DAY + 5;
        assert_eq!(week_holding(a, a - 1), (a - WEEK, a));
        assert_eq!(week_holding(a, a - WEEK), (a - WEEK, a));
        assert_eq!(week_holding(a, a - WEEK - 1), (a - 2 * WEEK, a - WEEK));
        assert_eq!(week_holding(a, a), (a, a + WEEK));
        assert_eq!(
            week_holding(a, a - 3 * WEEK + 7),
            (a - 3 * WEEK, a - 2 * WEEK)
        );
        assert_eq!(last_week(a), (a - WEEK, a));
    }

    #[test]
    fn a_window_with_one_end_is_completed() {
        let now = 100 * DAY;
        assert_eq!(complete(None, None, now, false), (None, None));
        assert_eq!(
            complete(None, None, now, true),
            (Some(93 * DAY), Some(100 * DAY))
        );
        assert_eq!(complete(Some(5), None, now, false), (Some(5), Some(now)));
        assert_eq!(
            complete(None, Some(50 * DAY), now, true),
            (Some(43 * DAY), Some(50 * DAY))
        );
        assert_eq!(complete(Some(1), Some(2), now, true), (Some(1), Some(2)));
        assert_eq!(WEEK, 604_800_000_000);
    }
}
