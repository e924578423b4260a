//! Reports written to files are safe to open: CSV cells a spreadsheet would
//! run as formulas are quoted, markdown carries no HTML, link or image from
//! a trace.

mod common;

use common::*;

const NOW: &str = "2026-11-23T00:00:00Z";

fn refusals(format: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let f = write(
        dir.path(),
        "a.jsonl",
        concat!(
            r#"{"type":"decision","run_id":"r","step":1,"at":"2026-11-20T10:00:00Z","selected":"send","outcome":{"status":"refused","reason":"=cmd|' /C calc'!A0"}}"#,
            "\n",
            r#"{"type":"decision","run_id":"r","step":2,"at":"2026-11-20T10:00:01Z","selected":"send","outcome":{"status":"refused","reason":"<img src=x onerror=alert(1)> ![p](https://evil.example/p.png)"}}"#,
            "\n"
        ),
    );
    assert_eq!(rung(&db, &["import", f.to_str().unwrap()]).code, 0);
    let o = bin()
        .env("RUNG_NOW", NOW)
        .arg("--db")
        .arg(&db)
        .args(["report", "refusals", "--format", format])
        .output()
        .unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn csv_quotes_formulas() {
    assert_eq!(
        refusals("csv"),
        "reason,stage,count,runs,previous,since,until\r\n\
         <img src=x onerror=alert(1)> ![p](https://evil.example/p.png),unclassified,1,1,0,2026-11-16T00:00:00Z,2026-11-23T00:00:00Z\r\n\
         '=cmd|' /C calc'!A0,unclassified,1,1,0,2026-11-16T00:00:00Z,2026-11-23T00:00:00Z\r\n"
    );
}

#[test]
fn markdown_escapes_html_and_images() {
    assert_eq!(
        refusals("markdown"),
        "## Refusals by reason, 2026-11-16T00:00:00Z to 2026-11-23T00:00:00Z\n\
         \n\
         2 refusals in 1 run (previous window: 0); biggest mover: &lt;img src=x onerror=alert(1)&gt; !\\[p\\](https://evil.example/p.png) new (0 → 1).\n\
         \n\
         | reason | stage | count | runs | previous | change |\n\
         | --- | --- | ---: | ---: | ---: | ---: |\n\
         | &lt;img src=x onerror=alert(1)&gt; !\\[p\\](https://evil.example/p.png) | unclassified | 1 | 1 | 0 | new |\n\
         | =cmd\\|' /C calc'!A0 | unclassified | 1 | 1 | 0 | new |\n\
         \n\
         previous counts the window just before: 2026-11-09T00:00:00Z to 2026-11-16T00:00:00Z.\n"
    );
}
