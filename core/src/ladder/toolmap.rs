//! The tools of a [`super::CatalogueView`] by name: a hashed index for the
//! lookups the ladder, the schema checks and the audit make for every
//! decision, and iteration in code-point order of the names (the order of the
//! `BTreeMap` it replaces, which reaches output).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::ToolInfo;

/// Catalogue tools by name. Lookups hash the name; iteration is sorted by name.
#[derive(Debug, Clone, Default)]
pub struct ToolMap {
    /// In insertion order.
    entries: Vec<(String, ToolInfo)>,
    /// Name to index in `entries`.
    index: FxHashMap<String, usize>,
    /// Indexes of `entries`, sorted by name.
    order: Vec<usize>,
}

impl ToolMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&ToolInfo> {
        self.index.get(name).map(|&i| &self.entries[i].1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Adds or replaces the tool `name`; returns the one it replaced.
    pub fn insert(&mut self, name: String, info: ToolInfo) -> Option<ToolInfo> {
        if let Some(&i) = self.index.get(name.as_str()) {
            return Some(std::mem::replace(&mut self.entries[i].1, info));
        }
        let i = self.entries.len();
        let at = self
            .order
            .partition_point(|&j| self.entries[j].0.as_str() < name.as_str());
        self.order.insert(at, i);
        self.index.insert(name.clone(), i);
        self.entries.push((name, info));
        None
    }

    /// The tools, sorted by name.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            entries: &self.entries,
            order: self.order.iter(),
        }
    }

    /// The names, sorted.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + '_ {
        self.iter().map(|(n, _)| n)
    }

    /// The tools, sorted by name.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &ToolInfo> + '_ {
        self.iter().map(|(_, t)| t)
    }
}

impl PartialEq for ToolMap {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<'a> IntoIterator for &'a ToolMap {
    type Item = (&'a String, &'a ToolInfo);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The tools of a [`ToolMap`], sorted by name.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    entries: &'a [(String, ToolInfo)],
    order: std::slice::Iter<'a, usize>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a String, &'a ToolInfo);

    fn next(&mut self) -> Option<Self::Item> {
        let (n, t) = &self.entries[*self.order.next()?];
        Some((n, t))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.order.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let (n, t) = &self.entries[*self.order.next_back()?];
        Some((n, t))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl FromIterator<(String, ToolInfo)> for ToolMap {
    fn from_iter<I: IntoIterator<Item = (String, ToolInfo)>>(iter: I) -> Self {
        let mut map = Self::new();
        for (name, info) in iter {
            map.insert(name, info);
        }
        map
    }
}

impl From<BTreeMap<String, ToolInfo>> for ToolMap {
    fn from(tools: BTreeMap<String, ToolInfo>) -> Self {
        tools.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Effect;

    fn info(family: &str) -> ToolInfo {
        ToolInfo {
            family: family.to_string(),
            effect: Effect::None,
            open_world: false,
            idempotent: true,
            tokens: 3,
        }
    }

    #[test]
    fn iterates_in_code_point_order_and_replaces_in_place() {
        let mut m = ToolMap::new();
        for n in ["b", "B", "a", "é", "ab"] {
            assert!(m.insert(n.to_string(), info(n)).is_none());
        }
        assert_eq!(
            m.insert("a".to_string(), info("second")).map(|t| t.family),
            Some("a".to_string())
        );
        let names: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(names, ["B", "a", "ab", "b", "é"]);
        assert_eq!(m.len(), 5);
        assert_eq!(m.get("a").map(|t| t.family.as_str()), Some("second"));
        assert_eq!(m.get("é").map(|t| t.family.as_str()), Some("é"));
        assert!(m.get("c").is_none());
        assert!(m.contains_key("ab") && !m.contains_key("A"));
        let families: Vec<&str> = m.values().map(|t| t.family.as_str()).collect();
        assert_eq!(families, ["B", "second", "ab", "b", "é"]);
    }

    #[test]
    fn equal_whatever_the_insertion_order() {
        let a: ToolMap = [("x", "1"), ("y", "2")]
            .map(|(n, f)| (n.to_string(), info(f)))
            .into_iter()
            .collect();
        let b: ToolMap = [("y", "2"), ("x", "1")]
            .map(|(n, f)| (n.to_string(), info(f)))
            .into_iter()
            .collect();
        assert_eq!(a, b);
        let c: ToolMap = [("y", "2"), ("x", "3")]
            .map(|(n, f)| (n.to_string(), info(f)))
            .into_iter()
            .collect();
        assert_ne!(a, c);
    }
}
