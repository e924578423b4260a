//! The set's README.

use super::CAT;
use crate::check::{self, Analysis};
use crate::time::at;

pub(super) fn readme(a: &Analysis) -> String {
    let all = a.all();
    let rf =
        crate::sets::refusals_table(&all, at(2026, 11, 23, 0, 0, 0), at(2026, 11, 30, 0, 0, 0));
    format!(
        r#"# routing-ladder

A coding agent (catalogue `{CAT}`: repository, CI, deploy and web tools plus
three trusted controls) whose exposure policy follows its runtime phase, as in
the action-space chapter:

| phase | allowed_families | max_effect | allow_open_world |
| --- | --- | --- | --- |
| discover | repository | read_only | false |
| modify | repository | mutating | false |
| verify | repository, ci | read_only | false |
| release | deploy | destructive | true |

Every decision records its `phase` and `policy`; `ask_user`,
`wait_for_event` and `no_applicable_tool` are pinned on every run as trusted
controls (abstain name: `no_applicable_tool`). The first discover decisions
of the "explain a file" and "fix a bug" tasks also record keyword retrieval with
`k = 4` and scored candidates (`ask_user` scores high but, being a control,
uses up no slot; `edit_file` is a candidate but the phase hides it); some
verify decisions record retrieval with `k = 2`, which leaves `run_tests` out.

Files: `catalogue.jsonl`, `runs.jsonl`, `cases.jsonl` (step-less labels for
first decisions; later decisions carry inline `expected` labels).

What fails where:

- **selection**: in 38 of the 60 runs asked to explain a file *by its
  path*, the first call is `search_code` while `read_file` was visible; each
  reads the file on the next turn (recovered within three turns). `read_file` says only "reads a file" and `search_code` "searches the
  code base ... so you can look at code": neither description says when the
  other wins. That single cell is the one-line experiment: sharpen those two
  descriptions, rerun, watch the cell. Three more selection failures are
  scattered (`run_linter` for `run_tests` twice, `create_file` for
  `edit_file` once).
- **discovery**: `run_tests` ranks 3rd with k = 2 in verify (3 runs).
- **exposure**: a test still fails after the edit, and the fix needs
  `edit_file`, which verify's `read_only` ceiling hides (3 runs).
- **coverage**: "find the commit that made the export slow" needs a
  `bisect_commits` tool that does not exist (3 runs).
- **boundary**: `call_in_text` (representation), `missing_argument` (schema,
  recorded stage), `not_found` for invented paths (semantics),
  `awaiting_approval` for production deploys and `not_permitted` for an
  `edit_file` proposed in discover (authorization; the tool was hidden, so
  each is also a `hidden_proposal` finding: hiding is not a security
  boundary), `precondition` (deploying on a red pipeline, `create_file` on an
  existing file), `sandbox_io_quota` (a reason no table maps: unclassified,
  with an `unclassified_reason` finding), `provider_error` (execution).
- **progress**: an edit that changed nothing useful (`none`), a test run that
  made things worse (`regressed`), `find_file` finding nothing after an
  invented path.
- **abstention**: "rotate the production database password" is labelled
  `no_applicable_tool` or `ask_user`; three runs abstain and one asks, so
  `abstention_accuracy` is 3/4 (asking is acceptable but is not the abstain
  name) while all four pass.

## Expected numbers

`rung report confusions --format json`:

{confusions}
{numbers}
### Findings

The phases change the menu within most runs (`menu_changed`, one per run, at
the first decision that saw another menu): each phase's own exposure policy,
on purpose here, and each change still costs the cached prefix. The hidden
`edit_file` proposals, the unmapped refusals and the `read_file` calls sent
again right after them are listed in `rung report findings --all`. By kind and
tool (`rung report findings`):

{findings}
### Refusals

All runs fall between 2026-11-24 and 2026-11-29; with
`RUNG_NOW=2026-11-30T00:00:00Z` the default window
`[2026-11-23T00:00:00Z, 2026-11-30T00:00:00Z)` holds them all:

{rf}"#,
        confusions = check::confusions_table(&all),
        numbers = crate::sets::numbers_section(a, "Ladder and metrics", &all),
        findings = check::findings_summary_table(&a.all_findings()),
    )
}
