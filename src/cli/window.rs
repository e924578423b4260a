//! The report window and filter as the command line gives them; reading
//! times and completing the window are `crate::window`'s.

use super::FilterArgs;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::model::Timestamp;
use crate::window::{complete, now, parse_time};

/// The report window `[since, until)` given on the command line; with
/// `default_week`, no window means the last 7 days.
pub fn window(args: &FilterArgs, default_week: bool) -> Result<(Option<i64>, Option<i64>)> {
    let now = now()?;
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
    let (since, until) = complete(since, until, now.timestamp_micros(), default_week);
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

/// The filter of a report that always has a window (refusals: the last 7
/// days when none is given), with the window's ends.
pub fn closed(args: &FilterArgs) -> Result<(Filter, i64, i64)> {
    let f = filter(args, true)?;
    match (f.since, f.until) {
        (Some(since), Some(until)) => Ok((f, since, until)),
        // `complete` closes every window asked for a default week; say so
        // loudly rather than report on 1970 should that ever change.
        (since, until) => Err(Error::usage(format!(
            "the report window was left open (since {since:?}, until {until:?})"
        ))),
    }
}

/// A value filter that matches nothing stored is a usage error naming the
/// flag and listing the values that exist (masked by `m`), rather than a
/// report of zeros.
pub fn values_exist(
    conn: &rusqlite::Connection,
    f: &Filter,
    m: &crate::redact::Redactor,
) -> Result<()> {
    let Some(u) = crate::store::browse::unmatched(conn, f)? else {
        return Ok(());
    };
    let noun = match u.flag {
        "--model" => "models",
        "--catalogue" => "catalogues",
        "--task" => "tasks",
        "--phase" => "phases",
        "--run" => "runs",
        _ => "tags",
    };
    let known = if u.known.is_empty() {
        format!("the database has no {noun}")
    } else {
        let list = u
            .known
            .iter()
            .map(|k| m.show(k).into_owned())
            .collect::<Vec<_>>()
            .join(", ");
        if u.total as usize > u.known.len() {
            format!(
                "known {noun} ({} of {}, most used first): {list}, …",
                u.known.len(),
                u.total
            )
        } else {
            format!("known {noun}: {list}")
        }
    };
    Err(Error::usage(format!(
        "{} {} matches nothing in the database; {known}",
        u.flag,
        crate::text::echo(&u.value),
    )))
}
