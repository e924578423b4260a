//! The documentation is self-contained: every relative link in the README,
//! the samples' README and docs/ names a file of this repository, and none
//! points outside it (to the project's shared folder).

use std::path::Path;

fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let end = after.find(')').unwrap_or(after.len());
        out.push(after[..end].to_string());
        rest = &after[end..];
    }
    out
}

#[test]
fn relative_links_resolve_inside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("sample-traces/README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    assert!(files.iter().any(|f| f.ends_with("docs/trace-format.md")));
    let root = root.canonicalize().unwrap();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(
            !text.contains("shared/spec"),
            "{} points to the shared folder, outside the repository",
            f.display()
        );
        for link in links(&text) {
            if link.starts_with("http") || link.starts_with('#') {
                continue;
            }
            let path = link.split('#').next().unwrap();
            let target = f.parent().unwrap().join(path);
            let target = target
                .canonicalize()
                .unwrap_or_else(|_| panic!("{}: link {link} names no file", f.display()));
            assert!(
                target.starts_with(&root),
                "{}: link {link} leaves the repository",
                f.display()
            );
        }
    }
}
