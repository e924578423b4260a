//! The set's README, with its sections on the counterfactual menus.

use crate::check::{self, Analysis};

/// The README's sections on the four menus of the top cell and on the
/// menus' budget (what `rung compare` and `rung report budget` print).
pub(super) fn counterfactual_section(a: &Analysis, cells: &[(&str, &str, &str, usize)]) -> String {
    let mut rows = String::new();
    for (menu, version, how, right) in cells {
        rows.push_str(&format!("| {menu} | `{version}` | {how} | {right} |\n"));
    }
    let mut budget = String::new();
    for version in ["menu-42", "menu-42b", "menu-42c", "menu-43"] {
        let ds = a.filter(|d| d.catalogue.as_deref() == Some(version));
        let mut tokens: Vec<u64> = ds.iter().filter_map(|d| d.tokens).collect();
        tokens.sort_unstable();
        let mut turns: std::collections::BTreeMap<&str, u64> = Default::default();
        for d in &ds {
            *turns.entry(d.run.run_id.as_str()).or_default() += 1;
        }
        let mut lengths: Vec<u64> = turns.into_values().collect();
        lengths.sort_unstable();
        let rank = |v: &[u64], p: usize| v[(p * v.len()).div_ceil(100).max(1) - 1];
        let tools = &a.catalogues[version].tools;
        let flat: u64 = tools.iter().map(check::definition_tokens).sum();
        let (t50, t95) = (rank(&tokens, 50), rank(&tokens, 95));
        let (l50, l95) = (rank(&lengths, 50), rank(&lengths, 95));
        budget.push_str(&format!(
            "| `{version}` | {} | {} | {t50} | {t95} | {l50} | {l95} | {flat} | {:.2}% |\n",
            tools.len(),
            lengths.len(),
            100.0 * (1.0 - (t50 * l50) as f64 / (flat * l50) as f64),
        ));
    }
    format!(
        r#"
## Four menus on the top cell (`rung compare`)

The chapter's counterfactual replay of the 72 attempts of the
`search_sharepoint → search_confluence` cell, with the outcome labels
unchanged. Menu A is `menu-42`. Menu B, `menu-42b`, keeps both tools but
rewrites their descriptions with an explicit boundary and adds use/avoid
hints (`rung diff menu-42 menu-42b`: two tools changed, description and
hints). Menu C, `menu-42c`, is `menu-42` tool for tool, but the policy
profile's router (`profile-router@1`) leaves `search_confluence` out of the
menu. Menu D is `menu-43`, where the pair is merged (`rung diff menu-42
menu-43`: search_confluence and search_sharepoint merged into search_wiki;
the labels of 50 tasks point there). B and C replay only the cell's 72
attempts, with the same tasks and trials (B on 2026-11-10 to 14 at 13:00,
C at 16:00); `menu-43` replays all 1,200.

`rung compare menu-42 menu-42b menu-42c menu-43 --cell 'search_sharepoint→search_confluence'`:

| menu | catalogue | how it differs | right of 72 |
| --- | --- | --- | ---: |
{rows}
B leaves errors, so the descriptions were not the whole problem; C leaves
two, so hiding one of the pair is not the repair either; only D removes the
error: the verdict is to merge, since the difference between the two tools
carries nothing the model can use reliably. `rung compare menu-42 menu-43
--gate` admits `menu-43` (75 first calls better and none worse; 25
unrecovered wrong first calls fewer and none more); `rung compare menu-43
menu-42 --gate` exits 1.

## The menus' budget (`rung report budget`)

Every turn sees 12 tools (the two controls and ten retrieved) of a catalogue
of about 230; a run's tokens are the tokens per turn at a percentile times
the run length at the same percentile; flat is every catalogue tool on every
turn. No run's menu changes mid-run (each run pins its menu).

| catalogue | tools | runs | tokens/turn p50 | tokens/turn p95 | run turns p50 | run turns p95 | flat tokens/turn | saved at p50 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
{budget}"#
    )
}

fn cells(ds: &[&check::Classified]) -> String {
    check::confusions_table(ds)
}

pub(super) fn readme(
    a: &Analysis,
    d42: &[&check::Classified],
    d43: &[&check::Classified],
) -> String {
    let m42 = a.metrics(d42);
    let m43 = a.metrics(d43);
    format!(
        r#"# reference-agent

Reference Agent's selection replay from the tool-ecosystems chapter (14.5): a
governed catalogue of **230 tools** (`menu-42`: eleven internal integrations,
vendor MCP servers and a tail, plus the `ask_user` and `no_applicable_tool`
controls), **240 labelled tasks**, each attempted **5 times**: 1,200 runs.
Every run pins its menu on the run record: the two trusted controls plus a
keyword retrieval with `k = 10` over 12 scored candidates, so the model saw 12
tools. No decision records its own menu.

Then the same 1,200 attempts are replayed against the candidate menu
`menu-43`, where `search_confluence` and `search_sharepoint` are merged into
`search_wiki(query, source)`. The tasks, model settings and attempt count stay
fixed; the 50 wiki tasks carry a second, catalogue-specific label
(`case.catalogue: menu-43`, acceptable `search_wiki`), since the capability
survived the rename. The other 190 tasks have one label for both menus.

Files: `catalogues.jsonl` (`menu-42`, `menu-43` and the counterfactual
menus `menu-42b` and `menu-42c` described below), `cases.jsonl` (290 labels,
all step-less: they label each run's first decision), `runs-menu-42.jsonl`,
`runs-menu-43.jsonl`, and `runs-menu-42b.jsonl`, `runs-menu-42c.jsonl` (the
top cell's 72 attempts on menus B and C).

Tasks: 30 ask for a company policy (acceptable `search_sharepoint`), 20 for an
engineering runbook (`search_confluence`), 20 for an incident by its INC- id
(`get_incident`), 10 escalations where either the incident or the account is
a fine start (`get_account`, `get_incident`), 6 answerable with no tool
(`@no_call`), 4 that no tool can do (`no_applicable_tool` or `ask_user`), and
150 single-tool tasks across the catalogue.

Only first calls are labelled. A wrong first call is always a SELECTION
failure (the acceptable tool was among the 12 visible). After it, a recovering
run calls the right tool on turn 2 or 3; a run that does not recover repeats
the wrong tool once (`progress: none`, unlabelled, so it lands on the PROGRESS
rung) and answers without the data. Later decisions are unlabelled, so the
only SELECTION decisions are the wrong first calls.

## The numbers (`rung report metrics --catalogue menu-42 --format json`)

| | `menu-42` | `menu-43` (merged) |
| --- | --- | --- |
| first_call_accuracy | {fc42} | {fc43} |
| wrong first calls | 117 | 42 |
| recovery_within_3 | {rc42} | {rc43} |
| unrecovered wrong first calls | 38 | 13 |
| selection_accuracy | {sa42} | {sa43} |
| pass_hat_k.1 | {p42:.4} | {p43:.4} |

1,083 / 1,200 = 90.25% and 1,158 / 1,200 = 96.50%; 79 wrong first calls on
`menu-42` recover within three turns and 38 do not. Here `selection_accuracy`
equals first-call accuracy because only first decisions are labelled and every
acceptable tool was retrieved; `tool_recall_at_k.10` is 1.0 on both menus.

## Confusions

`rung report confusions --catalogue menu-42` (the top two cells explain
(72 + 31) / 117 = 88.03% of wrong first calls; the third cell, three runbook
requests sent to SharePoint, is fixed by the merge too, which is why
`menu-43` gains 75 first calls, not 72):

{c42}
`rung report confusions --catalogue menu-43`:

{c43}
## Ladder

{n42}
{n43}
The ladder's only findings are 28 `schema_violation`s: a wrongly chosen
tool given arguments its schema does not take (a `query` it does not
declare, its id missing), which ran anyway. The audit finds each wrong call
sent a second time with the same arguments (`repeated_call`): the
unrecovered runs and those that recover on turn 3, on `menu-42`, `menu-42b`
and `menu-43`; and two questions on `menu-42c` answered with a Confluence
write, a wrongly chosen tool that changed a page in a run whose intent is
inform (`write_under_inform`). By kind and tool (`rung report findings`):

{findings}
`rung report refusals` is empty (nothing is refused). Dates: `menu-42` attempts run 2026-11-02 to 2026-11-06 (one trial a
day), the replay 2026-11-10 to 2026-11-14; `RUNG_NOW=2026-11-15T00:00:00Z`
puts the default 7-day window on the replay week.
"#,
        fc42 = m42.first_call_accuracy.show(),
        fc43 = m43.first_call_accuracy.show(),
        rc42 = m42.recovery_within_3.show(),
        rc43 = m43.recovery_within_3.show(),
        sa42 = m42.selection_accuracy.show(),
        sa43 = m43.selection_accuracy.show(),
        p42 = m42.pass_hat_k[&1].0,
        p43 = m43.pass_hat_k[&1].0,
        c42 = cells(d42),
        c43 = cells(d43),
        n42 = crate::sets::numbers_section(a, "`--catalogue menu-42`", d42),
        n43 = crate::sets::numbers_section(a, "`--catalogue menu-43`", d43),
        findings = crate::check::findings_summary_table(&a.all_findings()),
    )
}
