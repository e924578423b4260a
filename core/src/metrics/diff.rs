//! Two catalogue versions compared (`rung diff`, and what `rung compare`
//! recognises of a candidate menu): tools added and removed, the removed
//! tools whose labels now point at a new tool (renamed or merged), and per
//! tool in both which parts of its definition changed, with a word diff of
//! the description. Pure: definitions in, differences out.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

/// What a diff compares of one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub family: String,
    pub effect: String,
    pub open_world: bool,
    pub description: String,
    pub use_when: Vec<String>,
    pub avoid_when: Vec<String>,
    pub input_schema: Option<Value>,
}

/// A part of a tool's definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Description,
    /// `use_when` or `avoid_when`.
    Hints,
    Schema,
    Family,
    Effect,
    OpenWorld,
}

impl Field {
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Description => "description",
            Field::Hints => "hints",
            Field::Schema => "schema",
            Field::Family => "family",
            Field::Effect => "effect",
            Field::OpenWorld => "open_world",
        }
    }
}

/// A run of words a word diff keeps, removes or adds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", content = "text", rename_all = "snake_case")]
pub enum Piece {
    Same(String),
    Removed(String),
    Added(String),
}

/// Word pairs the longest-common-subsequence table may hold; beyond it the
/// differing middle is shown as removed and added whole (descriptions are
/// untrusted and may be huge).
const LCS_CELLS: usize = 400_000;

/// The words of `old` and `new` (split on white space) as kept, removed and
/// added runs, in order; removals before additions where both fall at one
/// place.
pub fn word_diff(old: &str, new: &str) -> Vec<Piece> {
    let a: Vec<&str> = old.split_whitespace().collect();
    let b: Vec<&str> = new.split_whitespace().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    // 0 same, 1 removed, 2 added, per word, in order.
    let mut ops: Vec<(u8, &str)> = a[..prefix].iter().map(|w| (0, *w)).collect();
    if ma.len().saturating_mul(mb.len()) <= LCS_CELLS {
        // lcs[i][j]: the longest common subsequence of ma[i..] and mb[j..].
        let w = mb.len() + 1;
        let mut lcs = vec![0u32; (ma.len() + 1) * w];
        for i in (0..ma.len()).rev() {
            for j in (0..mb.len()).rev() {
                lcs[i * w + j] = if ma[i] == mb[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < ma.len() || j < mb.len() {
            if i < ma.len() && j < mb.len() && ma[i] == mb[j] {
                ops.push((0, ma[i]));
                i += 1;
                j += 1;
            } else if j == mb.len() || (i < ma.len() && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])
            {
                ops.push((1, ma[i]));
                i += 1;
            } else {
                ops.push((2, mb[j]));
                j += 1;
            }
        }
    } else {
        ops.extend(ma.iter().map(|w| (1, *w)));
        ops.extend(mb.iter().map(|w| (2, *w)));
    }
    ops.extend(a[a.len() - suffix..].iter().map(|w| (0, *w)));
    // Runs of one kind; within a changed stretch, removals first.
    let mut out: Vec<Piece> = Vec::new();
    let mut k = 0;
    while k < ops.len() {
        if ops[k].0 == 0 {
            let start = k;
            while k < ops.len() && ops[k].0 == 0 {
                k += 1;
            }
            out.push(Piece::Same(join(&ops[start..k])));
        } else {
            let start = k;
            while k < ops.len() && ops[k].0 != 0 {
                k += 1;
            }
            let stretch = &ops[start..k];
            let removed: Vec<(u8, &str)> = stretch.iter().filter(|o| o.0 == 1).copied().collect();
            let added: Vec<(u8, &str)> = stretch.iter().filter(|o| o.0 == 2).copied().collect();
            if !removed.is_empty() {
                out.push(Piece::Removed(join(&removed)));
            }
            if !added.is_empty() {
                out.push(Piece::Added(join(&added)));
            }
        }
    }
    out
}

fn join(ops: &[(u8, &str)]) -> String {
    ops.iter().map(|o| o.1).collect::<Vec<_>>().join(" ")
}

/// A word diff as one line: kept words plain, `[-removed-]`, `{+added+}`.
pub fn show_word_diff(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Same(s) => s.clone(),
            Piece::Removed(s) => format!("[-{s}-]"),
            Piece::Added(s) => format!("{{+{s}+}}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A tool in both versions whose definition changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolChange {
    pub name: String,
    /// The parts that changed, in [`Field`] order.
    pub fields: Vec<Field>,
    /// The description's word diff, when it changed.
    pub description: Option<Vec<Piece>>,
    /// `use_when` (old, new), when it changed.
    pub use_when: Option<(Vec<String>, Vec<String>)>,
    /// `avoid_when` (old, new), when it changed.
    pub avoid_when: Option<(Vec<String>, Vec<String>)>,
}

impl ToolChange {
    /// The hints that changed, in words: `use_when: [-old-] {+new+}`.
    pub fn hints_text(&self) -> Option<String> {
        let one = |name: &str, h: &Option<(Vec<String>, Vec<String>)>| {
            h.as_ref().map(|(a, b)| {
                format!(
                    "{name}: {}",
                    show_word_diff(&word_diff(&a.join(" · "), &b.join(" · ")))
                )
            })
        };
        let parts: Vec<String> = [
            one("use_when", &self.use_when),
            one("avoid_when", &self.avoid_when),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// Removed tools whose labels point at one new tool: renamed (one) or
/// merged (several).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Renamed {
    /// The new tool.
    pub into: String,
    /// The removed tools, by name.
    pub from: Vec<String>,
    /// Distinct tasks whose label moved from one of `from` to `into`.
    pub tasks: u64,
}

impl Renamed {
    pub fn kind(&self) -> &'static str {
        if self.from.len() > 1 {
            "merged"
        } else {
            "renamed"
        }
    }
}

/// Two catalogue versions compared. Every list by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CatalogueDiff {
    pub old: String,
    pub new: String,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Renamed-or-merged candidates, by `into`.
    pub renamed: Vec<Renamed>,
    pub changed: Vec<ToolChange>,
    pub unchanged: u64,
}

impl CatalogueDiff {
    /// The new tool a removed one became, if any (the first by name).
    pub fn successor(&self, removed: &str) -> Option<&Renamed> {
        self.renamed
            .iter()
            .find(|r| r.from.iter().any(|f| f == removed))
    }

    /// Every new tool a removed one's labels point at (more than one: it
    /// was split).
    pub fn successors(&self, removed: &str) -> Vec<&Renamed> {
        self.renamed
            .iter()
            .filter(|r| r.from.iter().any(|f| f == removed))
            .collect()
    }

    pub fn change_of(&self, name: &str) -> Option<&ToolChange> {
        self.changed.iter().find(|c| c.name == name)
    }

    /// Nothing differs.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// A label that moved: task `task` accepted `removed` under the old
/// version and accepts `added` under the new one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pointer {
    pub removed: String,
    pub added: String,
    pub task: String,
}

/// The fields in which two definitions of a tool differ.
pub fn changed_fields(a: &ToolDef, b: &ToolDef) -> Vec<Field> {
    let mut f = Vec::new();
    if a.description != b.description {
        f.push(Field::Description);
    }
    if a.use_when != b.use_when || a.avoid_when != b.avoid_when {
        f.push(Field::Hints);
    }
    if a.input_schema != b.input_schema {
        f.push(Field::Schema);
    }
    if a.family != b.family {
        f.push(Field::Family);
    }
    if a.effect != b.effect {
        f.push(Field::Effect);
    }
    if a.open_world != b.open_world {
        f.push(Field::OpenWorld);
    }
    f
}

/// Compares the tools of two versions; `pointers` are the labels that
/// moved (only those from a removed tool to an added one count).
pub fn diff_catalogues(
    old: &str,
    new: &str,
    a: &[ToolDef],
    b: &[ToolDef],
    pointers: &[Pointer],
) -> CatalogueDiff {
    let ia: BTreeMap<&str, &ToolDef> = a.iter().map(|t| (t.name.as_str(), t)).collect();
    let ib: BTreeMap<&str, &ToolDef> = b.iter().map(|t| (t.name.as_str(), t)).collect();
    let added: Vec<String> = ib
        .keys()
        .filter(|n| !ia.contains_key(*n))
        .map(|n| n.to_string())
        .collect();
    let removed: Vec<String> = ia
        .keys()
        .filter(|n| !ib.contains_key(*n))
        .map(|n| n.to_string())
        .collect();
    let mut changed = Vec::new();
    let mut unchanged = 0;
    for (name, ta) in &ia {
        let Some(tb) = ib.get(name) else { continue };
        let fields = changed_fields(ta, tb);
        if fields.is_empty() {
            unchanged += 1;
            continue;
        }
        let moved = |a: &Vec<String>, b: &Vec<String>| (a != b).then(|| (a.clone(), b.clone()));
        changed.push(ToolChange {
            name: name.to_string(),
            description: fields
                .contains(&Field::Description)
                .then(|| word_diff(&ta.description, &tb.description)),
            use_when: moved(&ta.use_when, &tb.use_when),
            avoid_when: moved(&ta.avoid_when, &tb.avoid_when),
            fields,
        });
    }
    // into → (from, tasks)
    let mut groups: BTreeMap<&str, (BTreeSet<&str>, BTreeSet<&str>)> = BTreeMap::new();
    for p in pointers {
        if removed.contains(&p.removed) && added.contains(&p.added) {
            let g = groups.entry(&p.added).or_default();
            g.0.insert(&p.removed);
            g.1.insert(&p.task);
        }
    }
    let renamed = groups
        .into_iter()
        .map(|(into, (from, tasks))| Renamed {
            into: into.to_string(),
            from: from.into_iter().map(str::to_string).collect(),
            tasks: tasks.len() as u64,
        })
        .collect();
    CatalogueDiff {
        old: old.to_string(),
        new: new.to_string(),
        added,
        removed,
        renamed,
        changed,
        unchanged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> ToolDef {
        ToolDef {
            name: name.into(),
            family: "wiki".into(),
            effect: "read_only".into(),
            open_world: false,
            description: description.into(),
            use_when: vec![],
            avoid_when: vec![],
            input_schema: None,
        }
    }

    #[test]
    fn a_word_diff_keeps_what_both_share() {
        let d = word_diff(
            "Searches pages in Confluence by free text.",
            "Searches engineering pages in Confluence only; not policy.",
        );
        assert_eq!(
            d,
            vec![
                Piece::Same("Searches".into()),
                Piece::Added("engineering".into()),
                Piece::Same("pages in Confluence".into()),
                Piece::Removed("by free text.".into()),
                Piece::Added("only; not policy.".into()),
            ]
        );
        assert_eq!(
            show_word_diff(&d),
            "Searches {+engineering+} pages in Confluence [-by free text.-] {+only; not policy.+}"
        );
        assert_eq!(word_diff("a b", "a b"), vec![Piece::Same("a b".into())]);
        assert_eq!(
            word_diff("", "new words"),
            vec![Piece::Added("new words".into())]
        );
    }

    #[test]
    fn a_huge_description_is_replaced_whole() {
        let old: String = (0..1000).map(|i| format!("o{i} ")).collect();
        let new: String = (0..1000).map(|i| format!("n{i} ")).collect();
        let d = word_diff(&format!("start {old}end"), &format!("start {new}end"));
        assert_eq!(d.len(), 4);
        assert_eq!(d[0], Piece::Same("start".into()));
        assert!(matches!(&d[1], Piece::Removed(s) if s.starts_with("o0 o1")));
        assert!(matches!(&d[2], Piece::Added(s) if s.ends_with("n999")));
        assert_eq!(d[3], Piece::Same("end".into()));
    }

    #[test]
    fn added_removed_merged_and_changed() {
        let old = vec![
            tool("search_confluence", "Searches Confluence."),
            tool("search_sharepoint", "Searches SharePoint."),
            tool("get_ticket", "Reads a ticket."),
            tool("old_tool", "Gone."),
        ];
        let mut ticket = tool("get_ticket", "Reads a ticket.");
        ticket.effect = "none".into();
        ticket.avoid_when = vec!["the id starts with INC-".into()];
        let new = vec![
            tool("search_wiki", "Searches both."),
            ticket,
            tool("brand_new", "New."),
        ];
        let p = |r: &str, a: &str, t: &str| Pointer {
            removed: r.into(),
            added: a.into(),
            task: t.into(),
        };
        let d = diff_catalogues(
            "m42",
            "m43",
            &old,
            &new,
            &[
                p("search_sharepoint", "search_wiki", "t1"),
                p("search_sharepoint", "search_wiki", "t2"),
                p("search_confluence", "search_wiki", "t3"),
                // not a removed → added move: ignored
                p("get_ticket", "search_wiki", "t4"),
            ],
        );
        assert_eq!(d.added, vec!["brand_new", "search_wiki"]);
        assert_eq!(
            d.removed,
            vec!["old_tool", "search_confluence", "search_sharepoint"]
        );
        assert_eq!(
            d.renamed,
            vec![Renamed {
                into: "search_wiki".into(),
                from: vec!["search_confluence".into(), "search_sharepoint".into()],
                tasks: 3
            }]
        );
        assert_eq!(d.renamed[0].kind(), "merged");
        assert_eq!(
            d.successor("search_sharepoint").unwrap().into,
            "search_wiki"
        );
        assert_eq!(d.successor("old_tool"), None);
        assert_eq!(
            d.changed,
            vec![ToolChange {
                name: "get_ticket".into(),
                fields: vec![Field::Hints, Field::Effect],
                description: None,
                use_when: None,
                avoid_when: Some((vec![], vec!["the id starts with INC-".into()])),
            }]
        );
        assert_eq!(
            d.changed[0].hints_text().as_deref(),
            Some("avoid_when: {+the id starts with INC-+}")
        );
        assert_eq!(d.unchanged, 0);
    }
}
