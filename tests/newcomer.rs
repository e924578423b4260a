//! The newcomer's first hour on the command line: a misspelt command, a
//! filter value that matches nothing, a window reaching back too far, a
//! folder with nothing to import, what `import --help` and the README say
//! a folder means, the first import's summary, and how the README has one
//! install it.

mod common;

use std::path::{Path, PathBuf};

use common::*;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sample(name: &str) -> PathBuf {
    root().join("sample-traces").join(name)
}

/// A database holding the brightdesk sample.
fn brightdesk() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let r = rung(
        &db,
        &["import", sample("brightdesk-billing").to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    (dir, db)
}

#[test]
fn a_misspelt_command_is_not_taken_for_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let r = rung(&db, &["reprot", "ladder"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "rung: \"reprot\": no such command or file; did you mean `rung report`? \
         (commands: import, report, explain, check, compare, diff, reclassify, export, serve)\n"
    );
    assert!(!db.exists(), "a database was created");
    // A path that reads like no command is still a path.
    let r = rung(&db, &["traces/week-47.jsonl"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("traces/week-47.jsonl: cannot read"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_filter_value_that_matches_nothing_lists_the_known_ones() {
    let (_dir, db) = brightdesk();
    let r = rung(&db, &["report", "ladder", "--catalogue", "nope"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "rung: --catalogue \"nope\" matches nothing in the database; \
         known catalogues: billing-A, billing-B, billing-C, billing-C2\n"
    );
    let err = |args: &[&str]| {
        let r = rung(&db, args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stdout);
        r.stderr
    };
    assert_eq!(
        err(&["report", "runs", "--model", "gpt-5"]),
        "rung: --model \"gpt-5\" matches nothing in the database; known models: qwen3:8b\n"
    );
    assert_eq!(
        err(&["report", "tools", "--tag", "suite=m19"]),
        "rung: --tag \"suite=m19\" matches nothing in the database; known tags: \
         suite=m18, temperature=0.6, tool_set=A, tool_set=B, tool_set=C, tool_set=C2\n"
    );
    assert_eq!(
        err(&["report", "metrics", "--phase", "modify"]),
        "rung: --phase \"modify\" matches nothing in the database; the database has no phases\n"
    );
    // 12 of the 144 runs, most used first, and how many there are.
    let e = err(&["report", "findings", "--run", "bd-A-01"]);
    assert!(
        e.starts_with(
            "rung: --run \"bd-A-01\" matches nothing in the database; \
             known runs (12 of 144, most used first): bd-A-01-1, "
        ),
        "{e}"
    );
    assert!(e.ends_with(", …\n"), "{e}");
    let e = err(&["report", "refusals", "--task", "northwind"]);
    assert!(
        e.starts_with("rung: --task \"northwind\" matches nothing"),
        "{e}"
    );
    let e = err(&[
        "check",
        "--min",
        "selection_accuracy=0.5",
        "--catalogue",
        "C",
    ]);
    assert!(
        e.starts_with("rung: --catalogue \"C\" matches nothing"),
        "{e}"
    );
    // Every value given must exist: one typo among good values is found.
    let e = err(&[
        "report",
        "ladder",
        "--catalogue",
        "billing-A",
        "--catalogue",
        "billing-D",
    ]);
    assert!(e.starts_with("rung: --catalogue \"billing-D\""), "{e}");
    // Values that exist report as before.
    let r = rung(
        &db,
        &[
            "report",
            "ladder",
            "--catalogue",
            "billing-A",
            "--tag",
            "suite=m18",
            "--format",
            "json",
        ],
    );
    assert_eq!(json(&r)["decisions"], 90);
}

#[test]
fn a_window_reaching_back_too_far_is_a_usage_error_not_a_panic() {
    let (_dir, db) = brightdesk();
    for (flag, value) in [
        ("--since", "20000000w"),
        ("--since", "7000000w"),
        ("--until", "9223372036854775807m"),
    ] {
        let r = rung(&db, &["report", "ladder", flag, value]);
        assert_eq!(r.code, 2, "{value}: {}{}", r.stdout, r.stderr);
        assert_eq!(
            r.stderr,
            format!(
                "rung: {flag} \"{value}\": a relative time reaches back at most 100 years \
                 (5217w, 36525d); for an older time give an RFC 3339 time (1926-01-01T00:00:00Z)\n"
            )
        );
    }
    let r = rung(
        &db,
        &["report", "refusals", "--since", "5217w", "--format", "csv"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_folder_with_nothing_to_import_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    write(&empty, "notes.txt", "not a trace");
    let r = rung(&db, &["import", empty.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        format!(
            "{}: no trace files to import: a folder means its *.jsonl and *.jsonl.gz files \
             (at any depth), and it holds none\n",
            empty.display()
        )
    );
    assert!(!db.exists(), "a database was created");
    // .traj files under auto: named, with the format that reads them.
    let trajs = dir.path().join("trajs");
    write(&trajs, "a.traj", "{}");
    write(&trajs, "sub/b.traj", "{}");
    write(&trajs, "c.json", "{}");
    let r = rung(&db, &["import", trajs.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        format!(
            "{}: no trace files to import: a folder means its *.jsonl and *.jsonl.gz files \
             (at any depth); it holds 1 *.json file (to read it: --format FORMAT: otlp, \
             langfuse, openai, anthropic, gemini, tau-bench, messages, ...), \
             2 *.traj files (to read them: --format swe-agent)\n",
            trajs.display()
        )
    );
    // The same through `rung PATH`: no TUI on nothing.
    let r = rung(&db, &[trajs.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    // Beside traces, the files left out are noted, and the rest imported.
    write(
        &trajs,
        "x.jsonl",
        r#"{"type":"decision","run_id":"r","step":1,"selected":null}"#,
    );
    let r = rung(&db, &["import", trajs.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "warning: {}: not read: 1 *.json file",
            trajs.display()
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("imported 0 catalogues, 0 runs, 1 decision, 0 cases from 1 file"),
        "{}",
        r.stderr
    );
}

/// `import --help`, the README and the behaviour agree on what a folder
/// means.
#[test]
fn import_help_and_the_readme_agree_on_what_a_folder_means() {
    let r: Run = bin().args(["import", "--help"]).output().unwrap().into();
    assert_eq!(r.code, 0);
    let help = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(
            "A folder means its *.jsonl and *.jsonl.gz files at any depth (for auto and rung); \
             name the format to read other files from a folder: *.json, *.jsonl and their .gz \
             for the importers, *.traj for swe-agent, *.eval for inspect."
        ),
        "{help}"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        readme.contains(
            "a folder alone means its `*.jsonl` and `*.jsonl.gz` files; name the format to read \
             a folder of `.json`, `.traj` or `.eval` files"
        ),
        "the README's sentence on folders changed: keep it in step with `import --help`"
    );
    let spec = std::fs::read_to_string(root().join("docs/trace-format.md")).unwrap();
    let spec = spec.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(spec.contains("the `*.jsonl` and `*.jsonl.gz` files under it, at any depth"));
}

#[test]
fn a_first_import_replaces_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    // The tour imports tour-2 twice in one batch (the redeploy): the second
    // definition adds nothing and replaces nothing.
    let r = rung(&db, &["import", sample("ladder-tour").to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "imported 2 catalogues, 6 runs, 28 decisions, 14 cases from 4 files\n\
         2 tool definitions changed under an existing catalogue version: kept apart, see `rung report findings`\n\
         classified 6 runs\n"
    );
    // Importing again skips the unchanged files; read again (--force), they
    // change nothing and replace nothing, and it says so.
    let r = rung(&db, &["import", sample("ladder-tour").to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr.matches(": imported before, unchanged").count(), 4);
    assert!(!r.stderr.contains("replaced"), "{}", r.stderr);
    let r = rung(
        &db,
        &["import", "--force", sample("ladder-tour").to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 4 files\n"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("replaced"), "{}", r.stderr);
    // A catalogue version seen again with a new tool gains it.
    let more = write(
        dir.path(),
        "more.jsonl",
        r#"{"type":"catalogue","version":"tour-1","tools":[{"name":"brand_new","family":"x","effect":"none","description":"New."}]}"#,
    );
    let r = rung(&db, &["import", more.to_str().unwrap()]);
    assert_eq!(
        r.stderr,
        "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\n\
         1 tool added to a catalogue version stored before\n\
         classified 6 runs\n"
    );
}

/// The README's first command opens one story (the Brightdesk set alone,
/// not every sample mixed), and each other story it lists exists.
#[test]
fn the_readmes_first_command_opens_one_story() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.lines().next())
        .unwrap();
    assert_eq!(
        first,
        "cargo run --release -- sample-traces/brightdesk-billing"
    );
    // What it does: import that folder, then open the TUI on it.
    let set = first.rsplit(' ').next().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rung.db");
    let r = rung(&db, &["import", root().join(set).to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let tools = json(&rung(&db, &["report", "tools", "--format", "json"]));
    let catalogues: std::collections::BTreeSet<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["catalogue"].as_str().unwrap())
        .collect();
    assert_eq!(
        catalogues.into_iter().collect::<Vec<_>>(),
        ["billing-A", "billing-B", "billing-C", "billing-C2"]
    );
    // The home screen's story: 144 runs of the billing assistant.
    let runs = json(&rung(&db, &["report", "runs", "--format", "json"]));
    assert_eq!(runs["runs"].as_array().unwrap().len(), 144);
    // Every other set has its line, and every path named exists.
    let mut named = std::collections::BTreeSet::new();
    for (i, _) in readme.match_indices("sample-traces/") {
        let name: String = readme[i + "sample-traces/".len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if !name.is_empty() && name != "README" {
            assert!(
                root().join("sample-traces").join(&name).is_dir(),
                "the README names sample-traces/{name}, which does not exist"
            );
            named.insert(name);
        }
    }
    for e in std::fs::read_dir(root().join("sample-traces")).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(
                named.contains(&name),
                "the README does not say how to open {name}"
            );
        }
    }
}

/// The README says how to put `rung` on the PATH and which Rust it needs,
/// and that version is the one every crate of the workspace declares.
#[test]
fn the_readme_says_how_to_install_and_which_rust() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let blocks: Vec<&str> = readme
        .split("```sh\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert!(
        blocks
            .iter()
            .any(|b| b.lines().any(|l| l.trim() == "cargo install --path .")),
        "no `cargo install --path .` in a shell block of the README"
    );
    let said = readme
        .split("rung needs Rust ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .expect("the README names the minimum Rust version");
    for manifest in ["Cargo.toml", "core/Cargo.toml", "samplegen/Cargo.toml"] {
        let text = std::fs::read_to_string(root().join(manifest)).unwrap();
        let declared = text
            .lines()
            .find_map(|l| l.strip_prefix("rust-version = "))
            .unwrap_or_else(|| panic!("{manifest} declares no rust-version"));
        assert_eq!(declared, format!("\"{said}\""), "{manifest}");
    }
}
