//! The filter editor's state: six fields as typed, and the conversions
//! between them and a `Filter` (parsed like the command line's flags).

use crate::filter::Filter;

/// The filter bar's fields as typed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilterForm {
    pub fields: [String; 6],
    pub field: usize,
    pub error: Option<String>,
    /// The completion under the cursor (an index into the candidates).
    pub pick: usize,
    /// The completions were put away (Esc, or a value picked) until the
    /// next edit.
    pub closed: bool,
    /// A filter sent to be checked (does it keep any decision?) before it
    /// is applied.
    pub checking: Option<Filter>,
    /// A filter that keeps nothing, said so: Enter again applies it.
    pub warned: Option<Filter>,
}

impl FilterForm {
    pub const LABELS: [&'static str; 6] = ["model", "catalogue", "phase", "since", "until", "tag"];
    pub const HELP: [&'static str; 6] = [
        "comma-separated: any of them",
        "catalogue versions, comma-separated",
        "runtime phases, comma-separated",
        "RFC 3339 with offset, or relative: 30m 24h 7d 2w",
        "exclusive end; empty: now when since is set",
        "KEY=VALUE, comma-separated: all must hold",
    ];
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(str::to_string)
        .collect()
}

/// The filter the form describes, or what is wrong with it.
pub fn parse_form(form: &FilterForm, now_us: i64) -> Result<Filter, String> {
    let now = chrono::DateTime::from_timestamp_micros(now_us).unwrap_or_default();
    let time = |flag: &str, s: &str| -> Result<Option<i64>, String> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(None);
        }
        crate::window::parse_time(flag, s, now)
            .map(Some)
            .map_err(|e| e.to_string())
    };
    let since = time("since", &form.fields[3])?;
    let until = time("until", &form.fields[4])?;
    let (since, until) = crate::window::complete(since, until, now_us, false);
    if let (Some(s), Some(u)) = (since, until)
        && s >= u
    {
        return Err("the window is empty: since is not before until".into());
    }
    let mut tags = Vec::new();
    for t in split_list(&form.fields[5]) {
        let (k, v) = t
            .split_once('=')
            .ok_or_else(|| format!("tag {t:?}: use KEY=VALUE"))?;
        tags.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(Filter {
        since,
        until,
        models: split_list(&form.fields[0]),
        catalogues: split_list(&form.fields[1]),
        phases: split_list(&form.fields[2]),
        tags,
        ..Filter::default()
    })
}

/// The form that shows a filter (used to undo edits on Esc).
pub fn form_of(f: &Filter, _now_us: i64) -> FilterForm {
    let time = |t: Option<i64>| {
        t.map(|t| crate::model::Timestamp(t).to_rfc3339())
            .unwrap_or_default()
    };
    FilterForm {
        fields: [
            f.models.join(","),
            f.catalogues.join(","),
            f.phases.join(","),
            time(f.since),
            time(f.until),
            f.tags
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(","),
        ],
        field: 0,
        ..FilterForm::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::WEEK;

    #[test]
    fn the_form_parses_like_the_command_line() {
        let now = crate::model::Timestamp::parse("2026-11-23T00:00:00Z")
            .unwrap()
            .micros();
        let mut form = FilterForm::default();
        form.fields[0] = "qwen3:8b, gpt-4o".into();
        form.fields[3] = "7d".into();
        form.fields[5] = "suite=m18".into();
        let f = parse_form(&form, now).unwrap();
        assert_eq!(f.models, vec!["qwen3:8b", "gpt-4o"]);
        assert_eq!(f.since, Some(now - WEEK));
        assert_eq!(f.until, Some(now));
        assert_eq!(f.tags, vec![("suite".to_string(), "m18".to_string())]);
        form.fields[5] = "oops".into();
        assert!(parse_form(&form, now).unwrap_err().contains("KEY=VALUE"));
    }
}
