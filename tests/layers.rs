//! The top-level modules of `src/` depend one way only: each may use the
//! modules of lower layers, never one of its own layer or above, so there
//! is no import cycle between them. The layers, lowest first (README,
//! "Where things are"):
//!
//! 0. the core (`model`, `ladder`, `metrics`, `filter`, `window`: the crate
//!    `rung-core`, which cannot see this crate at all);
//! 1. `memory`, `redact` (secret masking);
//! 2. `text` (escaping, and `echo`, which masks);
//! 3. `error` (the errors a user sees, worded);
//! 4. `config`;
//! 5. `ingest` (readers; they hand records to a sink);
//! 6. `store` (the sink, the classification pass, the queries);
//! 7. `report` (row models over the store's answers), `export` (Parquet
//!    files from the store);
//! 8. `serve`, `tui` (front ends);
//! 9. `cli` (starts everything).
//!
//! The check reads every `crate::NAME` path (and `crate::{A, B}` group) in
//! code, not comments, and fails with the file and line of each use that
//! points sideways or up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: &[(&str, u8)] = &[
    ("model", 0),
    ("ladder", 0),
    ("metrics", 0),
    ("filter", 0),
    ("window", 0),
    ("memory", 1),
    ("redact", 1),
    ("find", 1),
    ("text", 2),
    ("error", 3),
    ("config", 4),
    ("ingest", 5),
    ("store", 6),
    ("report", 7),
    ("export", 7),
    ("serve", 8),
    ("tui", 8),
    ("cli", 9),
];

fn layer(name: &str) -> Option<u8> {
    LAYERS.iter().find(|(n, _)| *n == name).map(|(_, l)| *l)
}

/// The `.rs` files of a top-level module: `src/NAME.rs` and everything
/// under `src/NAME/`.
fn files(src: &Path, name: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let file = src.join(format!("{name}.rs"));
    if file.is_file() {
        out.push(file);
    }
    let mut dirs = vec![src.join(name)];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The top-level modules a line of code names through `crate::`.
fn used(line: &str) -> Vec<String> {
    let code = match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    };
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        // Not `rung_core::` or `my_crate::`: `crate` must start a path.
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::c, d}`: each item's first segment (a group
            // that spans lines is read to this line's end).
            let inner = group.split('}').next().unwrap_or("");
            for item in inner.split(',') {
                let first: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !first.is_empty() && first != "self" {
                    out.push(first);
                }
            }
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// Every dependency edge between top-level modules, with where it is used.
fn graph(src: &Path) -> BTreeMap<(String, String), Vec<String>> {
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (from, _) in LAYERS {
        for f in files(src, from) {
            let text = std::fs::read_to_string(&f).unwrap();
            for (i, line) in text.lines().enumerate() {
                for to in used(line) {
                    if to != *from {
                        let at = format!("{}:{}", f.display(), i + 1);
                        edges.entry((from.to_string(), to)).or_default().push(at);
                    }
                }
            }
        }
    }
    edges
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn every_top_level_module_has_a_layer() {
    let mut unknown = Vec::new();
    for e in std::fs::read_dir(src()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if name == "lib" || name == "main" || p.extension().is_some_and(|x| x != "rs") {
            continue;
        }
        if layer(&name).is_none() {
            unknown.push(name);
        }
    }
    assert!(
        unknown.is_empty(),
        "modules with no layer in tests/layers.rs: {unknown:?}"
    );
}

#[test]
fn modules_use_only_lower_layers() {
    let edges = graph(&src());
    let mut wrong = Vec::new();
    for ((from, to), at) in &edges {
        let Some(to_layer) = layer(to) else {
            wrong.push(format!(
                "{}: {from} uses crate::{to}, which has no layer",
                at[0]
            ));
            continue;
        };
        let from_layer = layer(from).unwrap();
        if to_layer >= from_layer {
            for a in at {
                wrong.push(format!(
                    "{a}: {from} (layer {from_layer}) uses {to} (layer {to_layer})"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses that point sideways or up:\n{}",
        wrong.join("\n")
    );
}

/// The graph itself, found by the same scan: acyclic (a depth-first walk
/// finds no back edge), and the edges the layers above rest on are there,
/// so the scan sees what it should.
#[test]
fn the_module_graph_is_acyclic() {
    let edges = graph(&src());
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().insert(to);
    }
    for (from, to) in [
        ("cli", "tui"),
        ("cli", "store"),
        ("tui", "store"),
        ("report", "store"),
        ("store", "ingest"),
        ("ingest", "text"),
        ("text", "redact"),
        ("error", "text"),
    ] {
        assert!(
            next.get(from).is_some_and(|s| s.contains(to)),
            "the scan no longer sees {from} → {to}"
        );
    }
    // 0: not visited, 1: on the path, 2: done.
    fn visit<'a>(
        n: &'a str,
        next: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<&'a str>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let start = path.iter().position(|p| *p == n).unwrap();
                let mut cycle = path[start..].to_vec();
                cycle.push(n);
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(n, 1);
        path.push(n);
        for m in next.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, next, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n, 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in next.keys() {
        let cycle = visit(n, &next, &mut state, &mut Vec::new());
        assert!(
            cycle.is_none(),
            "import cycle: {}",
            cycle.unwrap().join(" → ")
        );
    }
}

#[test]
fn the_scan_reads_paths_groups_and_skips_comments() {
    assert_eq!(used("use crate::store::Store;"), ["store"]);
    assert_eq!(
        used("use crate::{model::Rung, text, self};"),
        ["model", "text"]
    );
    assert_eq!(
        used("let x = crate::text::echo(s); // crate::tui"),
        ["text"]
    );
    assert_eq!(
        used("use rung_core::model; // see crate::cli"),
        Vec::<String>::new()
    );
    assert_eq!(used("/// [`crate::store`]"), Vec::<String>::new());
}
