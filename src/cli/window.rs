//! Times on the command line: RFC 3339 with an offset, or relative to now
//! (`30m`, `24h`, `7d`, `2w`); now is `RUNG_NOW` when set.

use chrono::{DateTime, Duration, Utc};

use super::FilterArgs;
use crate::error::{Error, Result};
use crate::model::Timestamp;
use crate::store::query::Filter;

/// The clock: `RUNG_NOW` (RFC 3339) when set, else the system's.
pub fn now() -> Result<DateTime<Utc>> {
    match std::env::var("RUNG_NOW") {
        Ok(s) if !s.is_empty() => Timestamp::parse(&s)
            .map(|t| t.to_datetime())
            .ok_or_else(|| {
                Error::usage(format!(
                    "RUNG_NOW={s:?} is not an RFC 3339 time with an offset (e.g. 2026-11-23T00:00:00Z)"
                ))
            }),
        _ => Ok(Utc::now()),
    }
}

/// Parses `--since`/`--until` values.
pub fn parse_time(flag: &str, s: &str, now: DateTime<Utc>) -> Result<i64> {
    if let Some(t) = Timestamp::parse(s) {
        return Ok(t.micros());
    }
    let bad = || {
        Error::usage(format!(
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

/// The report window `[since, until)` given on the command line; with
/// `default_week`, no window means the last 7 days.
pub fn window(args: &FilterArgs, default_week: bool) -> Result<(Option<i64>, Option<i64>)> {
    let now = now()?;
    let week = Duration::days(7).num_microseconds().unwrap_or(0);
    let since = args
        .since
        .as_deref()
        .map(|s| parse_time("since", s, now))
        .transpose()?;
    let until = args
        .until
        .as_deref()
        .map(|s| parse_time("until", s, now))
        .transpose()?;
    let (since, until) = match (since, until) {
        (None, None) if !default_week => (None, None),
        (None, None) => (
            Some(now.timestamp_micros() - week),
            Some(now.timestamp_micros()),
        ),
        (Some(s), None) => (Some(s), Some(now.timestamp_micros())),
        (None, Some(u)) => (Some(u - week), Some(u)),
        (Some(s), Some(u)) => (Some(s), Some(u)),
    };
    if let (Some(s), Some(u)) = (since, until)
        && s >= u
    {
        return Err(Error::usage(format!(
            "the window is empty: --since {} is not before --until {}",
            Timestamp(s),
            Timestamp(u)
        )));
    }
    Ok((since, until))
}

/// Builds the query filter from the flags.
pub fn filter(args: &FilterArgs, default_week: bool) -> Result<Filter> {
    let (since, until) = window(args, default_week)?;
    let mut tags = Vec::new();
    for t in &args.tag {
        let (k, v) = t
            .split_once('=')
            .ok_or_else(|| Error::usage(format!("--tag {t:?}: use KEY=VALUE")))?;
        tags.push((k.to_string(), v.to_string()));
    }
    Ok(Filter {
        since,
        until,
        models: args.model.clone(),
        catalogues: args.catalogue.clone(),
        tasks: args.task.clone(),
        phases: args.phase.clone(),
        runs: args.run.clone(),
        tags,
    })
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
    }
}
