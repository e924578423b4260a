//! Helpers the BFCL unit tests share.

use std::path::Path;

use super::{File, OJson};
use crate::ingest::read::Limits;

#[path = "../../../tests/bfcl_fixture/mod.rs"]
mod bfcl_fixture;

pub fn o(v: &str) -> OJson {
    serde_json::from_str(v).unwrap()
}

/// A fixture file by the name BFCL gives it (`rel` under the fixture
/// root), read from the repository's copy.
pub fn fixture(rel: &str) -> File {
    let path = bfcl_fixture::kept_root().join(bfcl_fixture::kept_name(rel));
    let named = Path::new("tests/fixtures/bfcl").join(rel);
    let bytes = std::fs::read(&path).unwrap();
    let (f, errors) = File::parse(rel, &named, &bytes, &Limits::default());
    assert!(errors.is_empty(), "{errors:?}");
    f
}

pub fn v1_files() -> Vec<File> {
    let mut names: Vec<String> = bfcl_fixture::kept_files("v1")
        .iter()
        .map(|k| bfcl_fixture::bfcl_name(k))
        .collect();
    names.sort();
    names.iter().map(|rel| fixture(rel)).collect()
}
