//! Helpers the BFCL unit tests share.

use std::path::Path;

use super::{File, OJson};
use crate::ingest::read::Limits;

pub fn o(v: &str) -> OJson {
    serde_json::from_str(v).unwrap()
}

pub fn fixture(rel: &str) -> File {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/bfcl")
        .join(rel);
    let bytes = std::fs::read(&path).unwrap();
    let (f, errors) = File::parse(rel, &path, &bytes, &Limits::default());
    assert!(errors.is_empty(), "{errors:?}");
    f
}

pub fn v1_files() -> Vec<File> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bfcl/v1");
    let mut paths = Vec::new();
    for dir in [
        "question",
        "possible_answer",
        "result/example-model-FC",
        "score/example-model-FC",
    ] {
        for e in std::fs::read_dir(base.join(dir)).unwrap() {
            paths.push(e.unwrap().path());
        }
    }
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(base.parent().unwrap())
                .unwrap()
                .display()
                .to_string();
            fixture(&rel)
        })
        .collect()
}
