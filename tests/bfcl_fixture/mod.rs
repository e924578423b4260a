//! The hand-made BFCL fixtures (tests/fixtures/bfcl), staged under the
//! file names BFCL gives its files.
//!
//! rung reads a BFCL file's version and category from its name
//! (`gorilla_openfunctions_v1_test_simple.json`, `BFCL_v4_simple_python.json`),
//! so the importer must see those names. The repository keeps its own
//! question and possible-answer files under short names
//! (`v1/questions/simple.json`, folders named `questions`, `answers`,
//! `func_docs` rather than BFCL's `question`, `possible_answer`,
//! `multi_turn_func_doc`) so that they are not mistaken for BFCL's
//! published data files, whose entries they do not share; a test stages a
//! copy of the fixture tree with BFCL's names once per test binary.
//! Result and score files keep their names (BFCL's folders are named after
//! a model, which these fixtures make up).
//!
//! Shared by the unit tests (`src/ingest/bfcl/testutil.rs`) and the
//! integration tests (`#[path]` includes); not every user calls every item.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where the fixtures are kept in the repository.
pub fn kept_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bfcl")
}

/// The prefix BFCL's question and possible-answer file names carry in a
/// fixture version folder (`v1`, `v4`).
fn prefix(version: &str) -> &'static str {
    match version {
        "v1" => "gorilla_openfunctions_v1_test_",
        "v4" => "BFCL_v4_",
        other => panic!("no BFCL fixture version {other:?}"),
    }
}

/// The kept folders and the names BFCL gives them, with whether their
/// files take the version's prefix when staged.
const FOLDERS: [(&str, &str, bool); 3] = [
    ("questions", "question", true),
    ("answers", "possible_answer", true),
    ("func_docs", "multi_turn_func_doc", false),
];

/// The name BFCL gives a kept file, relative to the fixture root:
/// `v1/questions/simple.json` → `v1/question/gorilla_openfunctions_v1_test_simple.json`.
pub fn bfcl_name(kept: &str) -> String {
    let parts: Vec<&str> = kept.split('/').collect();
    if let [version, folder, file] = parts.as_slice()
        && let Some((_, bfcl, prefixed)) = FOLDERS.iter().find(|f| f.0 == *folder)
    {
        let prefix = if *prefixed { prefix(version) } else { "" };
        return format!("{version}/{bfcl}/{prefix}{file}");
    }
    kept.to_string()
}

/// The kept file behind a BFCL name, relative to the fixture root: the
/// inverse of [`bfcl_name`].
pub fn kept_name(bfcl: &str) -> String {
    let parts: Vec<&str> = bfcl.split('/').collect();
    if let [version, folder, file] = parts.as_slice()
        && let Some((kept, _, prefixed)) = FOLDERS.iter().find(|f| f.1 == *folder)
    {
        let short = if *prefixed {
            file.strip_prefix(prefix(version)).unwrap_or_else(|| {
                panic!(
                    "{bfcl}: a fixture question or answer file starts with {}",
                    prefix(version)
                )
            })
        } else {
            file
        };
        return format!("{version}/{kept}/{short}");
    }
    bfcl.to_string()
}

/// Every kept file under the fixture root's `sub` folder, relative to the
/// fixture root, sorted.
pub fn kept_files(sub: &str) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap();
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    let root = kept_root();
    let mut out = Vec::new();
    walk(&root, &root.join(sub), &mut out);
    out.sort();
    out
}

/// The fixture tree under BFCL's names, staged once per test binary; the
/// returned folder holds `v1/` and `v4/`.
pub fn staged_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        // Integration tests have a folder of their own under target/;
        // elsewhere the process id keeps two runs apart.
        let base = match option_env!("CARGO_TARGET_TMPDIR") {
            Some(tmp) => Path::new(tmp).join(format!("bfcl-fixture-{}", env!("CARGO_CRATE_NAME"))),
            None => std::env::temp_dir().join(format!(
                "rung-bfcl-fixture-{}-{}",
                env!("CARGO_CRATE_NAME"),
                std::process::id()
            )),
        };
        let _ = std::fs::remove_dir_all(&base);
        let kept = kept_root();
        for rel in kept_files("") {
            let to = base.join(bfcl_name(&rel));
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(kept.join(&rel), &to).unwrap();
        }
        base
    })
}

/// A path in the staged tree, by BFCL's names (`v1`, or
/// `v1/question/gorilla_openfunctions_v1_test_simple.json`).
pub fn staged(rel: &str) -> PathBuf {
    staged_root().join(rel)
}
