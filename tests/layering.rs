//! The crate's shape, as a specification: modules import only downward, no
//! SQL outside the store, and no source file over 600 lines (unit tests
//! aside). A change that breaks the layering fails here, naming the import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module and its layer, bottom first. A module may import
/// modules of lower layers, and of its own layer as long as no cycle forms.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "contracts",
        &["error", "contract", "files", "harness", "lock"],
    ),
    ("configuration", &["config"]),
    (
        "stages",
        &[
            "parse", "note", "sentence", "scan", "validate", "compose", "repo",
        ],
    ),
    ("store", &["store"]),
    ("projection", &["project"]),
    ("pipeline", &["pipeline"]),
    (
        "entry points",
        &[
            "capture", "jobs", "harvest", "mcp", "search", "session", "forget", "git", "service",
            "context", "recall", "remember", "watch", "example", "generate", "connect",
        ],
    ),
    ("cli", &["cli"]),
];

const MAX_LINES: usize = 600;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`src/store/jobs.rs` → `store`).
fn module_of(path: &Path) -> Option<String> {
    let rel = path.strip_prefix(src()).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    match first {
        "lib.rs" | "main.rs" => None,
        f => Some(f.trim_end_matches(".rs").to_string()),
    }
}

/// The code of a file without comments and without its unit-test module.
fn code(text: &str) -> String {
    let text = text.split("\n#[cfg(test)]").next().unwrap_or(text);
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a file's code names through `crate::`, including
/// the ones inside `use crate::{a, b::c}` groups.
fn imports(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => return true,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    false
                })
                .map_or(group.len(), |(i, _)| i);
            let mut depth = 0;
            let mut start = 0;
            let inner = &group[..end];
            for (i, c) in inner.char_indices().chain([(inner.len(), ',')]) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        let item = inner[start..i].trim();
                        let name: String = item
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect();
                        if !name.is_empty() {
                            found.insert(name);
                        }
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
    }
    found
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// Every (importer, imported) pair between top-level modules, with a file that shows it.
fn graph() -> BTreeMap<(String, String), PathBuf> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut edges = BTreeMap::new();
    for file in files {
        let Some(from) = module_of(&file) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("read source");
        for to in imports(&code(&text)) {
            // Crate-root items (`crate::Error`, `crate::STATE_DIR`) belong to no stage.
            if to != from && to.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                edges.entry((from.clone(), to)).or_insert(file.clone());
            }
        }
    }
    edges
}

#[test]
fn every_module_has_a_layer() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let unplaced: BTreeSet<String> = files
        .iter()
        .filter_map(|f| module_of(f))
        .filter(|m| layer_of(m).is_none())
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules missing from LAYERS: {unplaced:?}"
    );
}

#[test]
fn modules_import_only_downward() {
    let upward: Vec<String> = graph()
        .into_iter()
        .filter_map(|((from, to), file)| {
            let (a, b) = (layer_of(&from)?, layer_of(&to)?);
            (b > a).then(|| {
                format!(
                    "{from} ({}) imports {to} ({}) in {}",
                    LAYERS[a].0,
                    LAYERS[b].0,
                    file.display()
                )
            })
        })
        .collect();
    assert!(upward.is_empty(), "upward imports:\n{}", upward.join("\n"));
}

#[test]
fn no_two_modules_import_each_other_even_through_others() {
    let edges = graph();
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
    }
    // Depth-first search from every module; a path back to it is a cycle.
    for start in next.keys() {
        let mut stack = vec![(*start, vec![*start])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for &to in next.get(at).into_iter().flatten() {
                assert!(to != *start, "import cycle: {} → {start}", path.join(" → "));
                if seen.insert(to) {
                    let mut p = path.clone();
                    p.push(to);
                    stack.push((to, p));
                }
            }
        }
    }
}

#[test]
fn sql_lives_in_the_store_alone() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let store = src().join("store");
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(&store) && !f.ends_with("error.rs"))
        .filter(|f| {
            let text = code(&std::fs::read_to_string(f).expect("read source"));
            text.contains("rusqlite")
                || [
                    "\"SELECT ",
                    "\"INSERT ",
                    "\"UPDATE ",
                    "\"DELETE ",
                    "PRAGMA ",
                ]
                .iter()
                .any(|k| text.contains(k))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "SQL outside src/store: {offenders:?}");
}

#[test]
fn no_source_file_is_over_600_lines_outside_its_unit_tests() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).expect("read source");
            let lines = text
                .split("\n#[cfg(test)]")
                .next()
                .unwrap_or("")
                .lines()
                .count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:?}");
}

#[test]
fn every_module_says_what_it_owns() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let silent: Vec<String> = files
        .iter()
        .filter(|f| {
            !std::fs::read_to_string(f)
                .expect("read source")
                .starts_with("//!")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(silent.is_empty(), "no //! header: {silent:?}");
}

#[test]
fn the_import_scanner_sees_grouped_and_nested_imports() {
    let found = imports("use crate::{a::b, c::{d, e}, f};\nlet x = crate::g::h();");
    let want: BTreeSet<String> = ["a", "c", "f", "g"].map(String::from).into();
    assert_eq!(found, want);
}
