//! Time windows: the clock (`RUNG_NOW` when set), times as the command
//! line and the TUI's filter bar take them (RFC 3339 with an offset, or
//! relative to now: `30m`, `24h`, `7d`, `2w`), and how a window with one
//! end given is completed. Times are UTC microseconds.

use std::fmt;

use chrono::{DateTime, Duration, Utc};

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

/// Reads a `--since`/`--until` value (`flag` names it in the message).
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
    let n: i64 = s[..s.len() - unit.len_utf8()].parse().map_err(|_| bad())?;
    if n < 0 {
        return Err(bad());
    }
    let d = match unit {
        'm' => Duration::try_minutes(n),
        'h' => Duration::try_hours(n),
        'd' => Duration::try_days(n),
        'w' => Duration::try_weeks(n),
        _ => None,
    }
    .ok_or_else(bad)?;
    Ok((now - d).timestamp_micros())
}

/// Completes a window `[since, until)` from the ends given: a start alone
/// runs to now, an end alone starts a week before it; with neither, the
/// last week when `default_week`, else no window at all.
pub fn complete(
    since: Option<i64>,
    until: Option<i64>,
    now_us: i64,
    default_week: bool,
) -> (Option<i64>, Option<i64>) {
    match (since, until) {
        (None, None) if !default_week => (None, None),
        (None, None) => (Some(now_us - WEEK), Some(now_us)),
        (Some(s), None) => (Some(s), Some(now_us)),
        (None, Some(u)) => (Some(u - WEEK), Some(u)),
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
