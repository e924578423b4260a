//! The confusion matrix the TUI draws: the most confused acceptable sets
//! against the tools most often selected instead.

use super::Confusions;

/// The confusion matrix: the most confused acceptable sets (rows) against
/// the tools most often selected instead (columns), with the counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Matrix {
    pub rows: Vec<Vec<String>>,
    pub cols: Vec<Option<String>>,
    /// `counts[row][col]`.
    pub counts: Vec<Vec<u64>>,
}

impl Matrix {
    pub fn of(c: &Confusions, n: usize) -> Matrix {
        let (rows, cols) = matrix(c, n);
        let mut counts = vec![vec![0u64; cols.len()]; rows.len()];
        for cell in &c.cells {
            let r = rows.iter().position(|a| *a == cell.acceptable);
            let k = cols.iter().position(|s| *s == cell.selected);
            if let (Some(r), Some(k)) = (r, k) {
                counts[r][k] = cell.count;
            }
        }
        Matrix { rows, cols, counts }
    }
}

/// Rows of the confusion matrix: the most confused acceptable sets (by
/// failures) and the tools most often selected instead, at most `n` each.
pub fn matrix(c: &Confusions, n: usize) -> (Vec<Vec<String>>, Vec<Option<String>>) {
    let mut rows: Vec<(Vec<String>, u64)> = Vec::new();
    let mut cols: Vec<(Option<String>, u64)> = Vec::new();
    for cell in &c.cells {
        match rows.iter_mut().find(|(a, _)| *a == cell.acceptable) {
            Some(r) => r.1 += cell.count,
            None => rows.push((cell.acceptable.clone(), cell.count)),
        }
        match cols.iter_mut().find(|(s, _)| *s == cell.selected) {
            Some(r) => r.1 += cell.count,
            None => cols.push((cell.selected.clone(), cell.count)),
        }
    }
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    cols.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    (
        rows.into_iter().take(n).map(|r| r.0).collect(),
        cols.into_iter().take(n).map(|c| c.0).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::confusions;
    use super::*;

    #[test]
    fn the_matrix_keeps_the_most_confused_sets_and_tools() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let some = |x: &str| Some(x.to_string());
        let c = confusions(vec![
            (s(&["refund"]), some("cancel")),
            (s(&["refund"]), some("cancel")),
            (s(&["refund"]), some("lookup")),
            (s(&["ship"]), some("lookup")),
            (s(&["ship"]), None),
            (s(&["track"]), some("cancel")),
        ]);
        // Sets: refund 3, ship 2, track 1; tools: cancel 3, lookup 2, none 1.
        let m = Matrix::of(&c, 2);
        assert_eq!(m.rows, vec![s(&["refund"]), s(&["ship"])]);
        assert_eq!(m.cols, vec![some("cancel"), some("lookup")]);
        assert_eq!(m.counts, vec![vec![2, 1], vec![0, 1]]);
        let all = Matrix::of(&c, 8);
        assert_eq!(all.cols, vec![some("cancel"), some("lookup"), None]);
        assert_eq!(all.counts[1], vec![0, 1, 1]);
        assert_eq!(all.counts[2], vec![1, 0, 0]);
    }
}
