//! The complete example of docs/otel.md round-trips: the OTLP trace with
//! its `rung.*` attributes classifies exactly like the same trace written in
//! rung's own format (tests/fixtures/formats/otel-example.rung.jsonl).

mod import_util;

use std::path::Path;

use import_util::*;

const RUN: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

/// The fenced block after `<!-- example: NAME -->` in docs/otel.md.
fn example(name: &str) -> String {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/otel.md"))
        .unwrap();
    let marker = format!("<!-- example: {name} -->");
    let at = doc
        .find(&marker)
        .unwrap_or_else(|| panic!("no {marker} in docs/otel.md"));
    let rest = &doc[at + marker.len()..];
    let start = rest.find("```json\n").expect("a json block") + "```json\n".len();
    let end = rest[start..].find("```").expect("the block's end");
    rest[start..start + end].to_string()
}

#[test]
fn docs_example_classifies_like_the_native_trace() {
    let (dir, _) = setup();
    let catalogue = dir.path().join("catalogue.jsonl");
    let otlp = dir.path().join("trace.json");
    let native_doc = dir.path().join("trace.rung.jsonl");
    std::fs::write(&catalogue, example("catalogue.jsonl")).unwrap();
    std::fs::write(&otlp, example("trace.json")).unwrap();
    std::fs::write(&native_doc, example("trace.rung.jsonl")).unwrap();
    // The doc shows the fixture the test compares with.
    let native = fixture("otel-example.rung.jsonl");
    assert_eq!(
        std::fs::read_to_string(&native).unwrap(),
        std::fs::read_to_string(&native_doc).unwrap()
    );

    let a = dir.path().join("otlp.db");
    let b = dir.path().join("native.db");
    let s = import(&a, &[catalogue.to_str().unwrap(), otlp.to_str().unwrap()]);
    assert!(s.contains("1 catalogue, 1 run, 6 decisions"), "{s}");
    import(&b, &[catalogue.to_str().unwrap(), &native]);

    for kind in [
        "ladder",
        "metrics",
        "findings",
        "runs",
        "confusions",
        "tools",
    ] {
        assert_eq!(report(&a, kind), report(&b, kind), "report {kind}");
    }
    assert_eq!(explain(&a, RUN), explain(&b, RUN));
    let refusals = |db: &Path| {
        json_of(rung(
            db,
            &[
                "report",
                "refusals",
                "--since",
                "2026-11-01T00:00:00Z",
                "--until",
                "2026-12-01T00:00:00Z",
                "--format",
                "json",
            ],
        ))
    };
    assert_eq!(refusals(&a), refusals(&b));

    // What the doc says the example shows.
    let ladder = report(&a, "ladder");
    let rungs = &ladder["rungs"];
    assert_eq!(ladder["decisions"], 6);
    assert_eq!(ladder["labelled"], 6);
    for (rung, n) in [
        ("discovery", 1),
        ("execution", 1),
        ("selection", 2),
        ("passed", 2),
    ] {
        assert_eq!(rungs[rung], n, "{rung}: {ladder}");
    }
    let findings = report(&a, "findings");
    let f = &findings["findings"];
    assert_eq!(f.as_array().unwrap().len(), 2, "{findings}");
    assert_eq!(f[0]["kind"], "hidden_proposal");
    assert_eq!(f[0]["step"], 5);
    assert_eq!(f[0]["tool"], "send_email");
    // Retrieval picks another menu from turn to turn.
    assert_eq!(f[1]["kind"], "menu_changed");
    assert_eq!(f[1]["step"], 2);
}
