//! The typed fast path against the general path: the same records, and
//! every line it does not read exactly so left to the general path.

use super::*;
use serde_json::json;

/// A line as the importer reads it: the fast path, else the general path.
fn by_line(text: &str) -> Result<Parsed, InvalidRecord> {
    match parse_fast(text) {
        Some(parsed) => Ok(parsed),
        None => parse(serde_json::from_str(text).expect("valid JSON")),
    }
}

fn message(text: &str) -> String {
    match by_line(text) {
        Err(e) => format!("{}: {}", e.record.unwrap_or_default(), e.message),
        Ok(p) => panic!("expected an error, got {p:?}"),
    }
}

/// Every native line of the sample traces.
fn sample_lines() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("sample-traces") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut lines = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        lines.extend(
            text.lines()
                .filter(|l| l.starts_with("{\"type\":"))
                .map(str::to_string),
        );
    }
    lines
}

#[test]
fn fast_path_gives_the_general_paths_records_on_the_samples() {
    let lines = sample_lines();
    let (mut decisions, mut runs, mut fast) = (0, 0, 0);
    for line in &lines {
        decisions += usize::from(line.starts_with(r#"{"type":"decision","#));
        runs += usize::from(line.starts_with(r#"{"type":"run","#));
        let general = parse(serde_json::from_str(line).expect("valid JSON"));
        if let Some(p) = parse_fast(line) {
            fast += 1;
            assert_eq!(Ok(p), general, "{line}");
        }
    }
    // Counted in the files by `grep -c`: 5,355 decisions and 3,244 runs,
    // and the fast path takes every one of them (none has a field beyond
    // the format's).
    assert_eq!((decisions, runs), (5355, 3244));
    assert_eq!(fast, decisions + runs);
}

/// Each top-level field of each sample decision and run in turn set to
/// values of every JSON type: the fast path gives the general path's record
/// or leaves the line to it.
#[test]
fn fast_path_agrees_with_the_general_path_on_altered_samples() {
    let values = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(3.0),
        json!(2.5),
        json!(1e300),
        json!(18446744073709551615u64),
        json!(""),
        json!("@no_call"),
        json!("read_only"),
        json!("2026-09-15T10:00:00Z"),
        json!("x".repeat(MAX_ID_BYTES + 1)),
        json!([]),
        json!(["a", "a"]),
        json!([null]),
        json!({}),
        json!({"k": 2}),
        json!({"acceptable": ["a"]}),
        json!({"status": "ok", "x": 1}),
    ];
    let lines = sample_lines();
    let mut seen = std::collections::BTreeSet::new();
    let (mut taken, mut left) = (0, 0);
    for line in &lines {
        if !(line.starts_with(r#"{"type":"decision","#) || line.starts_with(r#"{"type":"run","#)) {
            continue;
        }
        let Value::Object(map) = serde_json::from_str::<Value>(line).unwrap() else {
            unreachable!()
        };
        let mut keys: Vec<String> = map.keys().filter(|k| *k != "type").cloned().collect();
        keys.extend(["text", "expected", "unknown"].map(String::from));
        for key in keys {
            // One line per field and type of record is plenty.
            if !seen.insert((line[..12].to_string(), key.clone())) {
                continue;
            }
            for v in &values {
                let mut m = map.clone();
                m.insert(key.clone(), v.clone());
                // "type" first, as written, for the fast path to look at.
                let ty = m.remove("type").unwrap();
                let mut text = format!("{{\"type\":{ty},");
                text.push_str(&serde_json::to_string(&Value::Object(m)).unwrap()[1..]);
                let general = parse(serde_json::from_str(&text).unwrap());
                match parse_fast(&text) {
                    Some(p) => {
                        taken += 1;
                        assert_eq!(Ok(p), general, "{text}");
                    }
                    None => left += 1,
                }
            }
        }
    }
    assert!(taken > 100 && left > 100, "{taken} taken, {left} left");
}

#[test]
fn fast_path_leaves_each_kind_of_error_to_the_general_path() {
    let cases = [
        (
            r#"{"type":"decision","run_id":"r1","step":1}"#,
            "decision r1 step 1: missing required field \"selected\" (use null when no tool was called)",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":"2","selected":null}"#,
            "decision r1: field \"step\" must be an integer, not a string (\"2\")",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":0,"selected":null}"#,
            "decision r1 step 0: field \"step\" must be an integer ≥ 1, not 0",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":2.5,"selected":null}"#,
            "decision r1: field \"step\" must be an integer ≥ 1, not 2.5",
        ),
        (
            r#"{"type":"decision","step":1,"selected":null}"#,
            "decision: missing required field \"run_id\"",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":"@no_call"}"#,
            "decision r1 step 1: field \"selected\": \"@no_call\" is not a tool name; use null when no tool was called",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"at":"yesterday"}"#,
            "decision r1 step 1: field \"at\": \"yesterday\" is not an RFC 3339 timestamp with an offset (e.g. 2026-09-15T10:00:04Z)",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"policy":{"max_effect":"write"}}"#,
            "decision r1 step 1: field \"policy.max_effect\": \"write\" is not one of none, read_only, mutating, destructive",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"retrieval":{"candidates":[]}}"#,
            "decision r1 step 1: missing required field \"retrieval.k\" (how many candidates the retriever kept)",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"retrieval":{"k":1,"candidates":[{"score":1}]}}"#,
            "decision r1 step 1: missing required field \"retrieval.candidates[0].name\"",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"visible":["a",null]}"#,
            "decision r1 step 1: field \"visible[1]\" must be a string, not null (null)",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"outcome":{"stage":"tool"}}"#,
            "decision r1 step 1: missing required field \"outcome.status\"",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"expected":null}"#,
            "decision r1 step 1: field \"expected\" is null; leave it out for an unlabelled decision",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"expected":{}}"#,
            "decision r1 step 1: field \"expected\" is empty; give it an \"acceptable\" list or leave it out",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"expected":{"acceptable":["a"],"forbidden":["a"]}}"#,
            "decision r1 step 1: \"acceptable\" and \"forbidden\" both contain \"a\"; a name cannot be both",
        ),
        (
            r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"text":7}"#,
            "decision r1 step 1: field \"text\" must be a string, not a number (7)",
        ),
        (
            r#"{"type":"run","run_id":"r1","started_at":"2026-09-15 10:00"}"#,
            "run r1: field \"started_at\": \"2026-09-15 10:00\" is not an RFC 3339 timestamp with an offset (e.g. 2026-09-15T10:00:04Z)",
        ),
        (
            r#"{"type":"run","run_id":"r1","tags":{"a":1}}"#,
            "run r1: field \"tags.a\" must be a string (tags are a string map), not a number (1)",
        ),
        (
            r#"{"type":"run","run_id":"r1","trial":-1}"#,
            "run r1: field \"trial\" must be an integer ≥ 0, not -1",
        ),
    ];
    let mut got = Vec::new();
    for (line, _) in &cases {
        assert!(parse_fast(line).is_none(), "{line}");
        got.push(message(line));
    }
    let want: Vec<String> = cases.iter().map(|(_, m)| m.to_string()).collect();
    assert_eq!(got, want);
    let long_id = format!(
        r#"{{"type":"run","run_id":"{}"}}"#,
        "r".repeat(MAX_ID_BYTES + 1)
    );
    assert!(parse_fast(&long_id).is_none());
    assert!(
        message(&long_id)
            .ends_with("field \"run_id\" is 257 bytes long; ids are at most 256 bytes")
    );
}

/// Shapes the general path accepts in its own way are left to it: unknown
/// fields (kept in `extra`), a key given twice (the last one counts).
#[test]
fn fast_path_leaves_unknown_fields_and_repeated_keys() {
    let unknown = r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"mood":"calm"}"#;
    assert!(parse_fast(unknown).is_none());
    let Ok(Parsed::Record(Record::Decision(d))) = by_line(unknown) else {
        panic!()
    };
    assert_eq!(d.extra, json!({"mood": "calm"}));

    let twice = r#"{"type":"decision","run_id":"r1","step":1,"step":2,"selected":null}"#;
    assert!(parse_fast(twice).is_none());
    let Ok(Parsed::Record(Record::Decision(d))) = by_line(twice) else {
        panic!()
    };
    assert_eq!(d.step, 2);

    let candidate = r#"{"type":"decision","run_id":"r1","step":1,"selected":null,"retrieval":{"k":1,"candidates":[{"name":"a","score":0.5,"why":"kw"}]}}"#;
    assert!(parse_fast(candidate).is_none());
    let Ok(Parsed::Record(Record::Decision(d))) = by_line(candidate) else {
        panic!()
    };
    assert_eq!(
        d.menu.retrieval.unwrap().candidates[0].extra,
        json!({"why": "kw"})
    );
}

/// What the fast path reads itself: `3.0` as the integer 3, null fields as
/// absent, `text` kept in `extra` as written, tags in key order.
#[test]
fn fast_path_reads_the_general_paths_values() {
    let line = r#"{"type":"decision","run_id":"r\u0031","step":3.0,"turn":null,"selected":"a","text":null,"latency_ms":12,"expected":{"acceptable":["b","a","b"]},"retrieval":{"k":5000000000,"candidates":null}}"#;
    assert_eq!(parse_fast(line).map(Ok), Some(by_line_general(line)));
    let Some(Parsed::Record(Record::Decision(d))) = parse_fast(line) else {
        panic!("not taken")
    };
    assert_eq!((d.run_id.as_str(), d.step, d.turn), ("r1", 3, None));
    assert_eq!((d.text, d.extra), (None, json!({"text": null})));
    assert_eq!(d.latency_ms, Some(12.0));
    assert_eq!(d.expected.unwrap().acceptable, ["a", "b"]);
    let r = d.menu.retrieval.unwrap();
    assert_eq!((r.k, r.candidates.len()), (u32::MAX, 0));

    let run = r#"{"type":"run","run_id":"r1","tags":{"z":"1","a":"2"}}"#;
    let Some(Parsed::Record(Record::Run(r))) = parse_fast(run) else {
        panic!("not taken")
    };
    assert_eq!(r.tags, [("a".into(), "2".into()), ("z".into(), "1".into())]);
    assert_eq!(Ok(Parsed::Record(Record::Run(r))), by_line_general(run));
}

fn by_line_general(text: &str) -> Result<Parsed, InvalidRecord> {
    parse(serde_json::from_str(text).unwrap())
}
