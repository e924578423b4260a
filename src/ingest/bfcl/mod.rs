//! BFCL (the Berkeley Function Calling Leaderboard): question files,
//! possible-answer files, a model's result files and BFCL's score files,
//! read together (`--format bfcl`), since no one of them is a trace alone.
//!
//! Files are JSON Lines whatever their name says. Which kind a file is comes
//! from its first line (`question`, `ground_truth`, `result`, `accuracy`, or
//! a function doc); its category from its name (`gorilla_openfunctions_v1_test_<c>`,
//! `BFCL_v<N>_<c>`, with `_result` / `_score` after it); a result's or
//! score's model from the folder holding it (`result/<model>/`).
//!
//! Each entry and model is a run: `run_id` `<model>/<entry id>`, `task_id`
//! the entry id, the entry's functions its menu (`visible`) and its tool
//! definitions (BFCL's types as JSON Schema). Each call of the result is one
//! decision (the calls of one answer share turn 1); an answer BFCL's decoder
//! cannot read as calls (text, arguments that are not JSON) is one decision
//! with `selected` null and the answer as `raw`. Nothing was executed, so no
//! decision has an outcome. A score file gives each run BFCL's verdict as
//! `success` (its entry is listed there exactly when BFCL failed it).
//!
//! Labels: an irrelevance entry gets a case with `acceptable: ["@no_call"]`,
//! a (live) relevance entry one with its menu (any call is right), and an
//! entry with a possible answer one with `expected_calls`
//! (`expectations.md` §2), `strings: "loose"` and
//! `extra_arguments: "reject"`. `docs/bfcl.md` says how each of BFCL's rules
//! maps onto rung's.

mod answers;
mod decode;
mod files;
mod map;
mod menu;
mod ojson;
mod python;
mod scores;
#[cfg(test)]
mod testutil;

use super::convo;
use super::{Progress, ReadOptions, Source};
use crate::error::{Error, InputError, Result};

pub use answers::{answer_case, expected_calls, expected_value};
pub use decode::{Call, Decoded, decode};
pub use files::{File, Key, check, key_of};
pub use map::{Mapped, map_files};
pub use menu::{input_schema, json_schema_type, menu_name};
pub use ojson::OJson;

/// Reads every BFCL source of an import together, then feeds each file's
/// records through validation into the batch.
pub fn read_all<S: super::RecordSink>(
    batch: &mut S,
    sources: &[Source],
    opts: &ReadOptions,
    progress: &Progress,
    skip: &mut dyn FnMut(&InputError),
    dropped: &mut dyn FnMut(&InputError),
) -> Result<()> {
    let mut files = Vec::with_capacity(sources.len());
    let mut load_errors = Vec::with_capacity(sources.len());
    for source in sources {
        let Some(path) = &source.path else {
            return Err(Error::Input(InputError::at(
                &source.display,
                None,
                None,
                "BFCL results are read from files: their names give the category and their folder the model",
            )));
        };
        let mut opened = super::open(source, progress.bytes.clone())?;
        let mut bytes = Vec::new();
        let limits = &opts.limits;
        if !super::read_whole(opened.reader.as_mut(), &mut bytes, &source.display, limits)? {
            // Too large to read whole: the file is one bad record, and
            // takes no part in the joins.
            let (file, _) = File::parse(&source.display, path, &[], limits);
            files.push(file);
            load_errors.push(vec![super::too_large(&source.display, limits)]);
            continue;
        }
        let (file, errors) = File::parse(&source.display, path, &bytes, limits);
        files.push(file);
        load_errors.push(errors);
    }
    let mapped = map_files(&files);
    for ((source, m), mut errors) in sources.iter().zip(mapped).zip(load_errors) {
        errors.extend(m.errors);
        super::feed(batch, source, opts, progress, skip, dropped, errors, m.out)?;
    }
    Ok(())
}
