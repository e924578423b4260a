//! Helpers for the report, check and sample tests: import trace files into a
//! temporary database and run the built `rung` on it with a fixed clock.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use crate::common::{Run, bin};

/// A temporary database with traces imported into it.
pub struct Db {
    _dir: Option<tempfile::TempDir>,
    pub path: PathBuf,
}

impl Db {
    /// Imports `paths` (files or folders) into a new database.
    pub fn import(paths: &[&Path]) -> Db {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rung.db");
        let mut c = bin();
        c.arg("--db").arg(&path).arg("import").arg("-q").args(paths);
        let r: Run = c.output().expect("rung runs").into();
        assert_eq!(r.code, 0, "import failed: {}", r.stderr);
        Db {
            _dir: Some(dir),
            path,
        }
    }

    /// A database the caller made (and keeps).
    pub fn at(path: PathBuf) -> Db {
        Db { _dir: None, path }
    }

    /// Runs `RUNG_NOW=now rung --db DB ARGS...`.
    pub fn run(&self, now: &str, args: &[&str]) -> Run {
        let mut c = bin();
        c.env("RUNG_NOW", now)
            .arg("--db")
            .arg(&self.path)
            .args(args);
        c.output().expect("rung runs").into()
    }

    /// `run`, expecting exit 0, stdout as text.
    pub fn out(&self, now: &str, args: &[&str]) -> String {
        let r = self.run(now, args);
        assert_eq!(r.code, 0, "rung {args:?} failed: {}", r.stderr);
        r.stdout
    }

    /// `rung ARGS... --format json`, parsed.
    pub fn json(&self, now: &str, args: &[&str]) -> serde_json::Value {
        let mut a = args.to_vec();
        a.extend(["--format", "json"]);
        let out = self.out(now, &a);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
    }
}

/// The project's folder.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Asserts two JSON values are equal, field by field, naming the first
/// path where they differ (floats compared exactly).
#[track_caller]
pub fn assert_json_eq(got: &serde_json::Value, want: &serde_json::Value) {
    if let Some(diff) = json_diff("$", got, want) {
        panic!(
            "JSON differs at {diff}\n--- got:\n{}\n--- want:\n{}",
            serde_json::to_string_pretty(got).unwrap(),
            serde_json::to_string_pretty(want).unwrap()
        );
    }
}

/// The first path where `got` and `want` differ, with both values there.
/// Numbers compare exactly, integer or float as written (1 is not 1.0).
pub fn json_diff(path: &str, got: &serde_json::Value, want: &serde_json::Value) -> Option<String> {
    json_diff_by(path, got, want, &|a, b| a == b)
}

/// [`json_diff`] with numbers compared by `same_number` (e.g. floats to a
/// tolerance); every other value compares exactly.
#[allow(dead_code)] // not every test crate that includes this module compares floats
pub fn json_diff_by(
    path: &str,
    got: &serde_json::Value,
    want: &serde_json::Value,
    same_number: &dyn Fn(&serde_json::Number, &serde_json::Number) -> bool,
) -> Option<String> {
    use serde_json::Value::*;
    match (got, want) {
        (Object(g), Object(w)) => {
            for k in w.keys().chain(g.keys()) {
                match (g.get(k), w.get(k)) {
                    (Some(a), Some(b)) => {
                        if let Some(d) = json_diff_by(&format!("{path}.{k}"), a, b, same_number) {
                            return Some(d);
                        }
                    }
                    (None, Some(b)) => return Some(format!("{path}.{k}: missing (want {b})")),
                    (Some(a), None) => return Some(format!("{path}.{k}: unexpected {a}")),
                    (None, None) => unreachable!(),
                }
            }
            None
        }
        (Array(g), Array(w)) => {
            for (i, (a, b)) in g.iter().zip(w).enumerate() {
                if let Some(d) = json_diff_by(&format!("{path}[{i}]"), a, b, same_number) {
                    return Some(d);
                }
            }
            (g.len() != w.len()).then(|| format!("{path}: {} items, want {}", g.len(), w.len()))
        }
        (Number(a), Number(b)) => (!same_number(a, b)).then(|| format!("{path}: {a}, want {b}")),
        (a, b) => (a != b).then(|| format!("{path}: {a}, want {b}")),
    }
}
