//! The set's README.

use super::expected::EXPECTED;
use crate::check::{self, Analysis};
use crate::time::at;

/// A count in words, capitalised, for the start of a sentence.
fn words(n: usize) -> String {
    const W: [&str; 21] = [
        "No",
        "One",
        "Two",
        "Three",
        "Four",
        "Five",
        "Six",
        "Seven",
        "Eight",
        "Nine",
        "Ten",
        "Eleven",
        "Twelve",
        "Thirteen",
        "Fourteen",
        "Fifteen",
        "Sixteen",
        "Seventeen",
        "Eighteen",
        "Nineteen",
        "Twenty",
    ];
    W.get(n).map_or_else(|| n.to_string(), |w| w.to_string())
}

pub(super) fn readme(a: &Analysis) -> String {
    let all = a.all();
    let mut rows = String::from("| run/step | turn | rung | why |\n| --- | ---: | --- | --- |\n");
    for (run_id, step, rung, why) in EXPECTED {
        let d = a.find(run_id, *step);
        rows.push_str(&format!(
            "| {run_id}/{step} | {} | {rung} | {why} |\n",
            d.turn()
        ));
    }
    let rf = crate::sets::refusals_table(&all, at(2026, 10, 9, 0, 0, 0), at(2026, 10, 16, 0, 0, 0));
    let mut runs =
        String::from("| run | task | first_failed_rung | success |\n| --- | --- | --- | --- |\n");
    for (id, r) in &a.runs {
        runs.push_str(&format!(
            "| {id} | {} | {} | {} |\n",
            r.task_id.as_deref().unwrap_or("—"),
            a.first_failed_rung(id).unwrap_or("null"),
            r.success.map(|s| s.to_string()).unwrap_or("null".into())
        ));
    }
    format!(
        r#"# ladder-tour

A small, hand-written trace set in which six runs of an engineering
assistant reach **every rung** of the debugging ladder and raise **every kind
of finding** of the ladder and of the audit. Read it next to `ladder.md`: each decision below says which rung
it lands on and why.

- `01-catalogues.jsonl`: catalogue `tour-1` (ten tools and three controls, including
  a vendor tool that labels itself `control`) and `tour-2` (the vendor tool gone,
  `open_pull_request` added).
- `02-runs.jsonl`: six runs, {decisions} decisions. Menus are recorded three ways:
  recomputed from a phase `policy` (discover / modify / verify / release / review),
  from a policy plus `retrieval` with `k` and scored candidates (tour-02 steps 1
  and 6), and one recorded `visible` menu (tour-04 step 1). Trusted controls are
  pinned on each run. tour-02 turn 2 and tour-04 turn 2 each hold two parallel
  calls.
- `03-cases.jsonl`: labels, with and without `step`, with `catalogue`, one
  `@no_call`, one naming the abstain control. {unlabelled} decisions stay unlabelled.
- `04-redeploy.jsonl`: `tour-1` imported again a few days later with a reworded
  `search_code` (description drift) and `run_tests` now `mutating`
  (catalogue conflict). The first definitions stay in use.

tour-04's ticket result contains an ANSI clear-screen sequence (`\u001b[2J`),
colour codes, a fake key `sk-test-4f9cFAKEc0ffee00dEADbeef0000` and an
instruction from a customer note: the TUI must show the escapes as text,
redact the key unless `--no-redact`, and the agent must treat the note as data.

Import and look:

```sh
rung import sample-traces/ladder-tour
RUNG_NOW=2026-10-16T00:00:00Z rung report refusals
rung explain tour-02 6
```

`RUNG_NOW=2026-10-16T00:00:00Z` puts the default 7-day window,
`[2026-10-09T00:00:00Z, 2026-10-16T00:00:00Z)`, over all six runs.

## Every decision

{rows}
## Expected numbers

{numbers}
### Findings (`rung report findings --all`)

In report order. The `tool` of a `label_conflict` is left null here (the finding
is about the label, not a tool); `unclassified_reason` names the selected tool,
`menu_changed` none (it is about the run, at its first change).

{findings}
By kind and tool (`rung report findings`):

{summary}
### Confusions

{confusions}
### Refusals (`RUNG_NOW=2026-10-16T00:00:00Z rung report refusals`)

{rf}
### Runs

{runs}"#,
        decisions = all.len(),
        unlabelled = words(all.iter().filter(|d| d.label.is_none()).count()),
        numbers = crate::sets::numbers_section(a, "Ladder and metrics", &all),
        findings = check::findings_table(&a.all_findings()),
        summary = check::findings_summary_table(&a.all_findings()),
        confusions = check::confusions_table(&all),
    )
}
