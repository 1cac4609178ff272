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
            "parse",
            "note",
            "sentence",
            "scan",
            "validate",
            "compose",
            "repo",
            "transcript",
            "wiring",
        ],
    ),
    ("harnesses", &["harnesses"]),
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

/// The first cycle in a graph of `(importer, imported)` edges, as a path.
fn first_cycle<'a>(edges: impl Iterator<Item = (&'a str, &'a str)>) -> Option<String> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges {
        next.entry(from).or_default().push(to);
    }
    // Depth-first search from every module; a path back to it is a cycle.
    for start in next.keys() {
        let mut stack = vec![(*start, vec![*start])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for &to in next.get(at).into_iter().flatten() {
                if to == *start {
                    return Some(format!("{} → {start}", path.join(" → ")));
                }
                if seen.insert(to) {
                    let mut p = path.clone();
                    p.push(to);
                    stack.push((to, p));
                }
            }
        }
    }
    None
}

#[test]
fn no_two_modules_import_each_other_even_through_others() {
    let edges = graph();
    let cycle = first_cycle(edges.keys().map(|(a, b)| (a.as_str(), b.as_str())));
    assert!(
        cycle.is_none(),
        "import cycle: {}",
        cycle.unwrap_or_default()
    );
}

/// A file's module path: `src/cli/render.rs` is `cli::render`, `src/cli/mod.rs` is `cli`.
fn module_path(path: &Path) -> Option<Vec<String>> {
    let rel = path.strip_prefix(src()).ok()?.with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    (parts != ["lib"] && parts != ["main"]).then_some(parts)
}

#[derive(PartialEq)]
enum Token {
    Word(String),
    Path,
    Open,
    Close,
    Comma,
    Other,
}

fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(match c {
            c if c.is_ascii_alphanumeric() || c == '_' => {
                let mut word = c.to_string();
                while let Some(&n) = chars
                    .peek()
                    .filter(|n| n.is_ascii_alphanumeric() || **n == '_')
                {
                    word.push(n);
                    chars.next();
                }
                Token::Word(word)
            }
            ':' if chars.peek() == Some(&':') => {
                chars.next();
                Token::Path
            }
            '{' => Token::Open,
            '}' => Token::Close,
            ',' => Token::Comma,
            c if c.is_whitespace() => continue,
            _ => Token::Other,
        });
    }
    out
}

/// The paths a `use` tree or path expression starting at `at` names, groups
/// expanded, each after `prefix`; and where it ends.
fn path_tree(t: &[Token], mut at: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix;
    while let Some(Token::Word(w)) = t.get(at) {
        path.push(w.clone());
        if t.get(at + 1) != Some(&Token::Path) {
            return (vec![path], at + 1);
        }
        at += 2;
    }
    if t.get(at) != Some(&Token::Open) {
        return (vec![path], at);
    }
    let mut found = Vec::new();
    at += 1;
    while at < t.len() && t[at] != Token::Close {
        let (inner, end) = path_tree(t, at, path.clone());
        found.extend(inner);
        at = end.max(at + 1);
        while at < t.len() && !matches!(t[at], Token::Comma | Token::Close) {
            at += 1; // `as name`
        }
        if t.get(at) == Some(&Token::Comma) {
            at += 1;
        }
    }
    (found, at + 1)
}

/// Every path a file's code names through `crate::`, `super::` or `self::`, made absolute.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let t = tokens(code);
    let mut found = Vec::new();
    for at in 0..t.len() {
        let Token::Word(w) = &t[at] else { continue };
        let starts = matches!(w.as_str(), "crate" | "super" | "self")
            && t.get(at + 1) == Some(&Token::Path)
            && (at == 0 || t[at - 1] != Token::Path);
        if !starts {
            continue;
        }
        for path in path_tree(&t, at, Vec::new()).0 {
            let mut base = module.to_vec();
            let mut rest = path.as_slice();
            while let Some((first, tail)) = rest.split_first() {
                match first.as_str() {
                    "crate" => base.clear(),
                    "super" => drop(base.pop()),
                    "self" => {}
                    _ => break,
                }
                rest = tail;
            }
            base.extend(rest.iter().cloned());
            found.push(base);
        }
    }
    found
}

/// Every (importer, imported) pair between source files' modules. A module
/// using its own ancestors is Rust's nesting, not a dependency between peers.
fn file_graph() -> BTreeSet<(String, String)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .filter_map(|f| Some((module_path(f)?, f.clone())))
        .collect();
    let mut edges = BTreeSet::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).expect("read source");
        for path in named_paths(&code(&text), module) {
            let Some(to) = (1..=path.len())
                .rev()
                .map(|n| &path[..n])
                .find(|p| modules.contains_key(*p))
            else {
                continue;
            };
            if !module.starts_with(to) {
                edges.insert((module.join("::"), to.join("::")));
            }
        }
    }
    edges
}

#[test]
fn no_two_files_import_each_other_even_through_others() {
    let edges = file_graph();
    assert!(
        edges.len() > 300,
        "the scanner lost the imports: {}",
        edges.len()
    );
    let cycle = first_cycle(edges.iter().map(|(a, b)| (a.as_str(), b.as_str())));
    assert!(
        cycle.is_none(),
        "import cycle: {}",
        cycle.unwrap_or_default()
    );
}

/// The harness folder a module belongs to (`harnesses::codex::reader` →
/// `codex`); none for the registry's own files (`harnesses::listing`).
fn harness_folder(module: &str) -> Option<&str> {
    let mut parts = module.split("::");
    (parts.next() == Some("harnesses")).then_some(())?;
    parts
        .next()
        .filter(|f| src().join("harnesses").join(f).is_dir())
}

#[test]
fn a_harness_folder_is_reached_only_through_the_registry_and_never_from_another_folder() {
    let edges = file_graph();
    let folders: BTreeSet<&str> = edges
        .iter()
        .flat_map(|(a, b)| [a, b])
        .filter_map(|m| harness_folder(m))
        .collect();
    assert!(
        folders.len() >= 8,
        "the scanner lost the folders: {folders:?}"
    );
    let offenders: Vec<String> = edges
        .iter()
        .filter(|(from, to)| {
            let Some(folder) = harness_folder(to) else {
                return false;
            };
            match harness_folder(from) {
                Some(own) => own != folder,
                None => !from.starts_with("harnesses"),
            }
        })
        .map(|(from, to)| format!("{from} -> {to}"))
        .collect();
    assert!(
        offenders.is_empty(),
        "a harness folder reached around the registry: {offenders:?}"
    );
}

#[test]
fn the_file_scanner_resolves_super_self_and_groups() {
    let module = ["cli".to_string(), "render".to_string()];
    let found = named_paths(
        "use super::{terminal::shown, units};\nuse crate::a::{b as c, d::{e}};\nself::f();",
        &module,
    );
    let want: Vec<Vec<String>> = [
        vec!["cli", "terminal", "shown"],
        vec!["cli", "units"],
        vec!["a", "b"],
        vec!["a", "d", "e"],
        vec!["cli", "render", "f"],
    ]
    .into_iter()
    .map(|p| p.into_iter().map(String::from).collect())
    .collect();
    assert_eq!(found, want);
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
