//! No two files of a crate import each other.
//!
//! Reads every crate's `src/**/*.rs` (the files its roots reach through
//! `mod` declarations), resolves each `use` of `crate::`, `super::`,
//! `self::` or a child module to the file that path lands in, and fails
//! listing every pair of files that import each other. A parent declaring
//! its child (`mod x;`) is not an import; a `use` of the child is.
//!
//! The reading is lexical, not a compiler's: comments, strings and
//! character literals are dropped, then `mod` items and `use` trees are
//! read from the tokens that remain. That is enough for this workspace's
//! code, which `rustfmt` keeps regular.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace's member directories whose `src/` holds crate roots.
fn crate_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for group in ["crates", "examples"] {
        let Ok(entries) = fs::read_dir(root.join(group)) else {
            continue;
        };
        for entry in entries.flatten() {
            dirs.push(entry.path());
        }
    }
    dirs.push(root.join("tests"));
    dirs.push(root.join("tools"));
    dirs.retain(|dir| dir.join("Cargo.toml").is_file() && dir.join("src").is_dir());
    dirs.sort();
    dirs
}

/// The crate roots in a `src/`: the library, the main binary and
/// `src/bin/*`.
fn crate_roots(src: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|name| src.join(name))
        .filter(|path| path.is_file())
        .collect();
    if let Ok(entries) = fs::read_dir(src.join("bin")) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|ext| ext == "rs") {
                roots.push(path);
            } else if path.join("main.rs").is_file() {
                roots.push(path.join("main.rs"));
            }
        }
    }
    roots.sort();
    roots
}

/// A token of Rust source with comments and literals taken out.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
    /// The text of `#[path = "..."]`, the one string literal kept.
    Str(String),
}

fn tokenize(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let ident_char = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest.
            let mut depth = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            tokens.push(Token::Str(
                chars[start..i.min(chars.len())].iter().collect(),
            ));
            i += 1;
        } else if c == '\'' {
            if next == Some('\\') {
                // An escaped character literal: up to its closing quote.
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                // A lifetime or a label.
                i += 1;
            }
        } else if ident_char(c) {
            let start = i;
            while i < chars.len() && ident_char(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // Raw strings (`r"`, `r#"`, `br#"`) end at `"` and as many `#`.
            let raw =
                (word == "r" || word == "br") && matches!(chars.get(i), Some('"') | Some('#'));
            if raw {
                let mut hashes = 0;
                while chars.get(i) == Some(&'#') {
                    hashes += 1;
                    i += 1;
                }
                if chars.get(i) == Some(&'"') {
                    i += 1;
                    loop {
                        if i >= chars.len() {
                            break;
                        }
                        if chars[i] == '"'
                            && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#'))
                        {
                            i += 1 + hashes;
                            break;
                        }
                        i += 1;
                    }
                }
                continue;
            }
            // `b"..."` and `b'x'`: the literal follows and is skipped next.
            if word == "b" && matches!(chars.get(i), Some('"') | Some('\'')) {
                continue;
            }
            tokens.push(Token::Ident(word));
        } else if c == ':' && next == Some(':') {
            tokens.push(Token::PathSep);
            i += 2;
        } else {
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    tokens
}

/// What one file says: the modules it declares (with their `#[path]`, if
/// any, and the inline modules around them) and the paths it imports (with
/// the inline modules around each `use`).
#[derive(Debug, Default)]
struct FileItems {
    /// (inline modules around, name, `#[path]`)
    mods: Vec<(Vec<String>, String, Option<String>)>,
    /// (inline modules around, path)
    uses: Vec<(Vec<String>, Vec<String>)>,
}

fn read_items(tokens: &[Token]) -> FileItems {
    let mut items = FileItems::default();
    // The inline modules open at each brace depth.
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut depth = 0usize;
    let mut path_attr: Option<String> = None;
    let mut i = 0;
    let ident = |i: usize| match tokens.get(i) {
        Some(Token::Ident(word)) => Some(word.as_str()),
        _ => None,
    };
    while i < tokens.len() {
        let around = || {
            inline
                .iter()
                .map(|(_, name)| name.clone())
                .collect::<Vec<_>>()
        };
        match &tokens[i] {
            Token::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Token::Punct('}') => {
                if inline.last().is_some_and(|(at, _)| *at == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Token::Punct('#')
                if tokens.get(i + 1) == Some(&Token::Punct('['))
                    && ident(i + 2) == Some("path")
                    && tokens.get(i + 3) == Some(&Token::Punct('=')) =>
            {
                if let Some(Token::Str(path)) = tokens.get(i + 4) {
                    path_attr = Some(path.clone());
                }
                i += 5;
            }
            Token::Ident(word) if word == "mod" => match (ident(i + 1), tokens.get(i + 2)) {
                (Some(name), Some(Token::Punct(';'))) => {
                    items
                        .mods
                        .push((around(), name.to_owned(), path_attr.take()));
                    i += 3;
                }
                (Some(name), Some(Token::Punct('{'))) => {
                    depth += 1;
                    inline.push((depth, name.to_owned()));
                    path_attr = None;
                    i += 3;
                }
                _ => i += 1,
            },
            // A re-export (`pub use`, `pub(crate) use`) names a child's item
            // for other modules: it is the module's face, not a dependency
            // of its code, so a parent re-exporting a child that imports
            // the parent is no cycle.
            Token::Ident(word) if word == "use" && reexport(tokens, i) => i += 1,
            Token::Ident(word)
                if word == "use" && tokens.get(i + 1) != Some(&Token::Punct('<')) =>
            {
                let mut paths = Vec::new();
                let mut at = i + 1;
                if tokens.get(at) == Some(&Token::PathSep) {
                    at += 1;
                }
                at = read_tree(tokens, at, &mut Vec::new(), &mut paths);
                for path in paths {
                    items.uses.push((around(), path));
                }
                i = at;
            }
            _ => i += 1,
        }
    }
    items
}

/// Whether the `use` at `at` is a re-export: `pub` or `pub(...)` before it.
fn reexport(tokens: &[Token], at: usize) -> bool {
    let pub_at = |i: usize| matches!(tokens.get(i), Some(Token::Ident(word)) if word == "pub");
    if at >= 1 && pub_at(at - 1) {
        return true;
    }
    // `pub(crate)`, `pub(super)`, `pub(self)`, `pub(in path)`: find the
    // `(` that the `)` before `use` closes.
    if at >= 1 && tokens[at - 1] == Token::Punct(')') {
        let mut i = at - 1;
        while i > 0 {
            i -= 1;
            if tokens[i] == Token::Punct('(') {
                return i >= 1 && pub_at(i - 1);
            }
        }
    }
    false
}

/// Reads one use tree at `at` under `prefix`, adding each full path it
/// names to `out`; returns where the tree ends.
fn read_tree(
    tokens: &[Token],
    mut at: usize,
    prefix: &mut Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let base = prefix.len();
    loop {
        match tokens.get(at) {
            Some(Token::Ident(word)) if word != "as" => {
                prefix.push(word.clone());
                at += 1;
                if tokens.get(at) == Some(&Token::PathSep) {
                    at += 1;
                    continue;
                }
                if ident_at(tokens, at) == Some("as") {
                    at += 2;
                }
                out.push(prefix.clone());
                break;
            }
            Some(Token::Punct('*')) => {
                out.push(prefix.clone());
                at += 1;
                break;
            }
            Some(Token::Punct('{')) => {
                at += 1;
                loop {
                    match tokens.get(at) {
                        Some(Token::Punct('}')) => {
                            at += 1;
                            break;
                        }
                        Some(Token::Punct(',')) => at += 1,
                        None => break,
                        _ => {
                            let next = read_tree(tokens, at, prefix, out);
                            // Never stand still on a token the tree does not read.
                            at = next.max(at + 1);
                        }
                    }
                }
                break;
            }
            _ => break,
        }
    }
    prefix.truncate(base);
    at
}

fn ident_at(tokens: &[Token], at: usize) -> Option<&str> {
    match tokens.get(at) {
        Some(Token::Ident(word)) => Some(word),
        _ => None,
    }
}

/// One crate's module tree: each module path to the file it lives in, and
/// each file's imports as module paths.
#[derive(Default)]
struct CrateModules {
    files: BTreeMap<Vec<String>, PathBuf>,
    /// (importing file, module path at the `use`, path imported)
    uses: Vec<(PathBuf, Vec<String>, Vec<String>)>,
    /// The child modules each module declares.
    children: BTreeMap<Vec<String>, BTreeSet<String>>,
}

fn read_crate(root_file: &Path) -> CrateModules {
    let mut modules = CrateModules::default();
    // (module path, file, directory its children live in)
    let mut stack = vec![(
        Vec::<String>::new(),
        root_file.to_path_buf(),
        root_file.parent().unwrap_or(Path::new(".")).to_path_buf(),
    )];
    while let Some((module, file, child_dir)) = stack.pop() {
        let Ok(source) = fs::read_to_string(&file) else {
            continue;
        };
        modules.files.insert(module.clone(), file.clone());
        let items = read_items(&tokenize(&source));
        for (around, name, path_attr) in items.mods {
            let mut child = module.clone();
            child.extend(around.iter().cloned());
            let parent = child.clone();
            child.push(name.clone());
            modules
                .children
                .entry(parent)
                .or_default()
                .insert(name.clone());
            let dir = around.iter().fold(child_dir.clone(), |dir, m| dir.join(m));
            let (path, grandchildren) = match path_attr {
                Some(path) => {
                    let base = file.parent().unwrap_or(Path::new("."));
                    let path = base.join(path);
                    let dir = path.with_extension("");
                    (path, dir)
                }
                None if dir.join(format!("{name}.rs")).is_file() => {
                    (dir.join(format!("{name}.rs")), dir.join(&name))
                }
                None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
            };
            stack.push((child, path, grandchildren));
        }
        for (around, path) in items.uses {
            let mut at = module.clone();
            at.extend(around);
            modules.uses.push((file.clone(), at, path));
        }
    }
    modules
}

impl CrateModules {
    /// The file a `use` path from module `at` lands in, if it is one of
    /// this crate's.
    fn resolve(&self, at: &[String], path: &[String]) -> Option<&PathBuf> {
        let mut target: Vec<String>;
        let mut rest = path;
        match path.first().map(String::as_str) {
            Some("crate") => {
                target = Vec::new();
                rest = &path[1..];
            }
            Some("self") => {
                target = at.to_vec();
                rest = &path[1..];
            }
            Some("super") => {
                target = at.to_vec();
                while rest.first().is_some_and(|seg| seg == "super") {
                    target.pop();
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                // A child module of this one, or else another crate or an
                // item in scope.
                let is_child = self
                    .children
                    .get(at)
                    .is_some_and(|children| children.contains(first));
                if !is_child {
                    return None;
                }
                target = at.to_vec();
            }
            None => return None,
        }
        let mut file = self.files.get(&target);
        for segment in rest {
            target.push(segment.clone());
            match self.files.get(&target) {
                Some(found) => file = Some(found),
                None => break,
            }
        }
        file
    }

    /// Each importing file with the files it imports.
    fn edges(&self) -> BTreeSet<(PathBuf, PathBuf)> {
        let mut edges = BTreeSet::new();
        for (file, at, path) in &self.uses {
            if let Some(target) = self.resolve(at, path) {
                if target != file {
                    edges.insert((file.clone(), target.clone()));
                }
            }
        }
        edges
    }
}

/// Every pair of files in one crate that import each other, as paths
/// relative to `root`.
fn two_cycles(root: &Path) -> Vec<String> {
    let mut found = BTreeSet::new();
    for dir in crate_dirs(root) {
        for crate_root in crate_roots(&dir.join("src")) {
            let edges = read_crate(&crate_root).edges();
            for (from, to) in &edges {
                if from < to && edges.contains(&(to.clone(), from.clone())) {
                    let name = |path: &Path| {
                        path.strip_prefix(root)
                            .unwrap_or(path)
                            .display()
                            .to_string()
                    };
                    found.insert(format!("{} <-> {}", name(from), name(to)));
                }
            }
        }
    }
    found.into_iter().collect()
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tools/ sits in the workspace root")
        .to_path_buf()
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let cycles = two_cycles(&workspace_root());
    assert!(
        cycles.is_empty(),
        "files that import each other (move the shared item to where it is defined, or to a leaf file of its own):\n{}",
        cycles.join("\n")
    );
}

/// The reader finds what it is meant to: a `use` of a sibling, of the
/// parent and of a child, grouped and nested, in files and inline modules,
/// and nothing in comments, strings or re-exports.
#[test]
fn the_reader_resolves_imports_to_files() {
    let dir = std::env::temp_dir().join(format!("terse-import-cycles-{}", std::process::id()));
    let src = dir.join("src");
    fs::create_dir_all(src.join("a")).expect("temp dir");
    let write = |path: &str, text: &str| fs::write(src.join(path), text).expect("write");
    write("lib.rs", "mod a;\nmod b;\n// use crate::c;\n");
    write(
        "a/mod.rs",
        "mod x;\nuse x::Thing;\npub(crate) use self::y::{Other as O};\nmod y;\n",
    );
    write(
        "a/x.rs",
        "use super::{Parent, y::Sibling};\nconst S: &str = \"use crate::b;\";\nlet c = 'a';\n",
    );
    write("a/y.rs", "fn f<'a>() {}\n");
    write(
        "b.rs",
        "#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::a::{x::{self, Thing}};\n}\n",
    );
    let modules = read_crate(&src.join("lib.rs"));
    let edges: BTreeSet<(String, String)> = modules
        .edges()
        .into_iter()
        .map(|(from, to)| {
            let name = |path: PathBuf| {
                path.strip_prefix(&src)
                    .expect("in src")
                    .display()
                    .to_string()
            };
            (name(from), name(to))
        })
        .collect();
    let _ = fs::remove_dir_all(&dir);
    let expected: BTreeSet<(String, String)> = [
        ("a/mod.rs", "a/x.rs"),
        ("a/x.rs", "a/mod.rs"),
        ("a/x.rs", "a/y.rs"),
        ("b.rs", "a/x.rs"),
    ]
    .iter()
    .map(|(from, to)| ((*from).to_owned(), (*to).to_owned()))
    .collect();
    assert_eq!(edges, expected);
}
