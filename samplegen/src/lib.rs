//! Deterministic generators for rung's bundled sample traces
//! (`sample-traces/`) and for synthetic benchmark trace sets.
//!
//! Every set is built from fixed seeds and fixed timestamps, written with one
//! key order and compact JSON, so two runs produce byte-identical files. Each
//! set also classifies its own decisions (`check`, an independent reading of
//! ladder.md) and panics when the numbers its README promises do not hold.

use std::fs;
use std::io;
use std::path::Path;

mod audit;
pub mod check;
mod json;
pub mod model;
mod rng;
mod sets;
mod synthetic;
mod time;
mod tools230;

pub use synthetic::{SyntheticStats, synthetic};

/// The sample sets, built and checked, without writing anything.
pub fn sample_sets() -> Vec<model::TraceSet> {
    sets::all()
}

/// Writes the whole `sample-traces/` folder into `out_dir`: one folder per set
/// with its `.jsonl` files and README.md, and a top-level README.md. Files
/// this generator wrote before (`*.jsonl`, README.md) in those folders are
/// replaced; nothing else is touched.
pub fn generate(out_dir: &Path) -> io::Result<()> {
    let sets = sets::all();
    fs::create_dir_all(out_dir)?;
    for set in &sets {
        let dir = out_dir.join(set.name);
        fs::create_dir_all(&dir)?;
        for entry in fs::read_dir(&dir)? {
            let p = entry?.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_file() && (name.ends_with(".jsonl") || name == "README.md") {
                fs::remove_file(&p)?;
            }
        }
        for (file, records) in &set.files {
            let mut s = String::with_capacity(records.len() * 512);
            for r in records {
                json::write_value(&mut s, &r.to_value());
                s.push('\n');
            }
            fs::write(dir.join(file), s)?;
        }
        fs::write(dir.join("README.md"), &set.readme)?;
    }
    fs::write(out_dir.join("README.md"), top_readme())?;
    Ok(())
}

fn top_readme() -> String {
    r#"# Sample traces

Trace sets in rung's native format ([`docs/trace-format.md`](../docs/trace-format.md)),
written by the `rung-samplegen` crate. Each folder
imports on its own (`rung import sample-traces/NAME`) and has a README listing
the numbers rung should report for it and the `RUNG_NOW` value that puts the
default 7-day window on the story's latest week. Do not edit the files by
hand; regenerate them:

```sh
cargo run -p rung-samplegen -- sample-traces
```

The output is byte-identical on every run (fixed seeds, fixed timestamps,
stable ordering, compact JSON), and the generator checks its own numbers: a
change that breaks a set's story panics.

**ladder-tour/**: five small runs of an engineering assistant (25 decisions,
catalogues `tour-1` and `tour-2`) that between them land on every rung of the
ladder, from coverage to passed, and raise every kind of finding:
exposure mismatch, hidden proposal, description drift and catalogue conflict
(the catalogue re-imported with changes), control impostor, invalid control,
unclassified reason and label conflict. It mixes recorded and recomputed
menus, parallel calls, `@no_call` and abstain labels, and a tool result with an
ANSI escape sequence and a fake secret. Its README explains every decision.
`RUNG_NOW=2026-10-16T00:00:00Z`.

**brightdesk-billing/**: the billing assistant's 12 requests, three runs each,
on tool sets A, B, C and C2 (catalogues `billing-A` ... `billing-C2`), with the
failures of the tool-use chapter: the $225 proration, Harbor Yoga's two
locations, Lumen's timeout answered by `outcome_unknown` and then
`already_refunded`, `sub_31` copied from a description, the injected note in a
customer record. Run success reproduces the chapter: A 6/36, B 11/36, C 25/36,
C2 22/36. The same request is labelled per tool set with `case.catalogue`.
`RUNG_NOW=2026-09-18T00:00:00Z`.

**reference-agent/**: a 230-tool catalogue, 240 labelled tasks × 5 attempts
(1,200 runs) with menus pinned per run (two trusted controls plus retrieval,
k = 10). First-call accuracy 1,083/1,200 = 90.25%; 79 wrong first calls
recover within three turns and 38 do not; confusion cells
search_sharepoint→search_confluence 72 and get_incident→get_ticket 31 (88.03%
of wrong first calls). The same attempts replayed on `menu-43`, where the two
wiki searches are merged into `search_wiki`: 1,158/1,200.
`RUNG_NOW=2026-11-15T00:00:00Z`.

**atlas-chains/**: three weeks of an account assistant bounded by an intent
gate, a scope lock and ticket preconditions. The latest week's refusals are
outside_intent 41, existing_ticket 18, scope_drift 6, precondition 4 (reasons
mapped to stages by the default table), with different counts in the two weeks
before, and insufficient_scope only in earlier weeks (count 0 now).
`RUNG_NOW=2026-11-23T00:00:00Z`.

**routing-ladder/**: a coding agent with phases discover / modify / verify /
release and their exposure policies, trusted controls and keyword retrieval,
with decisions failing at every rung and a confusion table dominated by 38 ×
([read_file] → search_code). `RUNG_NOW=2026-11-30T00:00:00Z`.

**operations-cases/**: a case-management interface split into search, get,
preview and apply, evaluated on correct calls and correct avoidance, including
an instruction planted in a case note that the agent must treat as data.
`RUNG_NOW=2026-12-05T00:00:00Z`.
"#
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_tree(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                read_tree(&p, out);
            } else {
                out.push((p.display().to_string(), fs::read(&p).unwrap()));
            }
        }
    }

    #[test]
    fn generate_is_byte_identical_and_parses() {
        let base = std::env::temp_dir().join(format!("rung-samplegen-test-{}", std::process::id()));
        let (a, b) = (base.join("a"), base.join("b"));
        generate(&a).unwrap();
        generate(&b).unwrap();
        // a second run over the same folder changes nothing either
        generate(&b).unwrap();
        let (mut ta, mut tb) = (vec![], vec![]);
        read_tree(&a, &mut ta);
        read_tree(&b, &mut tb);
        assert_eq!(ta.len(), tb.len());
        for ((pa, da), (_, db)) in ta.iter().zip(&tb) {
            assert!(da == db, "{pa} differs between two runs");
            if pa.ends_with(".jsonl") {
                let text = std::str::from_utf8(da).unwrap();
                for (i, l) in text.lines().enumerate() {
                    let v: serde_json::Value =
                        serde_json::from_str(l).unwrap_or_else(|e| panic!("{pa}:{}: {e}", i + 1));
                    assert!(v["type"].is_string(), "{pa}:{}", i + 1);
                    // compact, as serde_json writes it
                    assert_eq!(
                        l.len(),
                        serde_json::to_string(&v).unwrap().len(),
                        "{pa}:{}",
                        i + 1
                    );
                }
            }
        }
        fs::remove_dir_all(&base).unwrap();
    }
}
