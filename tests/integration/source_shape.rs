//! The source tree's shape, checked mechanically (issue 43): no two files of `src/` import
//! each other (folders included), and no file of `src/` is longer than 1,000 lines.
//!
//! The scan is textual, not a compiler: it strips comments, strings and character literals,
//! reads every `use` tree and every path that starts with `crate::`, `$crate::`,
//! `super::`, `self::` or a child module of the file, resolves it to the file that holds the
//! module it names (`foo` = `foo.rs` or `foo/mod.rs`; inline modules such as
//! `mod tests { ... }` count as their file) and records "file A names file B". `mod foo;`
//! declarations are not imports. `src/main.rs` and `src/cli/` form the binary crate, the
//! rest the library; a path into the library from the binary (`arena::...`) cannot make a
//! circle and is not followed.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

use crate::common::root;

/// The longest a file of `src/` may be.
const MAX_LINES: usize = 1_000;

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("src/ and its folders are readable") {
            let path = entry.expect("a readable folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Which crate a file belongs to, and its module path inside that crate.
fn module_of(relative: &Path) -> (&'static str, Vec<String>) {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().expect("a file path has a name");
    let crate_name = if parts.first().is_some_and(|first| first == "cli") || file == "main.rs" {
        "bin"
    } else {
        "lib"
    };
    match file.as_str() {
        "lib.rs" | "main.rs" | "mod.rs" => {}
        name => parts.push(name.trim_end_matches(".rs").to_string()),
    }
    (crate_name, parts)
}

/// A token of Rust source that matters for paths and module nesting.
#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The source as tokens, without comments, strings, character literals and lifetimes.
fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
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
            i = skip_string(&chars, i + 1);
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // Raw and byte strings: r"..", r#".."#, b"..", br#".."#; raw identifiers r#name.
            let raw = word == "r" || word == "br";
            if raw && matches!(chars.get(i), Some('"') | Some('#')) {
                let mut hashes = 0;
                while chars.get(i + hashes) == Some(&'#') {
                    hashes += 1;
                }
                if chars.get(i + hashes) == Some(&'"') {
                    i += hashes + 1;
                    loop {
                        if i >= chars.len() {
                            break;
                        }
                        if chars[i] == '"'
                            && (0..hashes).all(|h| chars.get(i + 1 + h) == Some(&'#'))
                        {
                            i += 1 + hashes;
                            break;
                        }
                        i += 1;
                    }
                    continue;
                }
            }
            if word == "b" && chars.get(i) == Some(&'"') {
                i = skip_string(&chars, i + 1);
                continue;
            }
            if word == "b" && chars.get(i) == Some(&'\'') {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                continue;
            }
            out.push(Token::Ident(word));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            out.push(Token::PathSep);
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(Token::Punct(c));
            }
            i += 1;
        }
    }
    out
}

/// The index just past the closing quote of a string whose body starts at `i`.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Every full path a `use` tree names (the tokens between `use` and `;`).
fn use_paths(tree: &[Token]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut at = 0;
    expand_tree(tree, &mut at, &[], &mut out);
    out
}

fn expand_tree(tree: &[Token], at: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    while *at < tree.len() {
        match &tree[*at] {
            // `x as y`: the path is x.
            Token::Ident(word) if word == "as" => *at += 2,
            // `{self, ..}` names the prefix itself.
            Token::Ident(word) if word == "self" && !path.is_empty() => *at += 1,
            Token::Ident(word) => {
                path.push(word.clone());
                *at += 1;
            }
            Token::Punct('{') => {
                *at += 1;
                loop {
                    expand_tree(tree, at, &path, out);
                    match tree.get(*at) {
                        Some(Token::Punct(',')) => *at += 1,
                        Some(Token::Punct('}')) => {
                            *at += 1;
                            break;
                        }
                        _ => break,
                    }
                }
                return;
            }
            Token::Punct(',') | Token::Punct('}') => break,
            Token::PathSep | Token::Punct(_) => *at += 1,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The modules of both crates: (crate, module path) -> the file holding it.
type Modules = BTreeMap<(&'static str, Vec<String>), PathBuf>;

/// The file a path names, seen from module `here` of crate `krate`; `None` for paths
/// outside the crate (std, dependencies, the library seen from the binary).
fn resolve(
    modules: &Modules,
    krate: &'static str,
    here: &[String],
    path: &[String],
) -> Option<PathBuf> {
    let first = path.first()?;
    let (krate, mut full, rest) = match first.as_str() {
        "crate" => (krate, Vec::new(), &path[1..]),
        "$crate" => ("lib", Vec::new(), &path[1..]),
        "self" => (krate, here.to_vec(), &path[1..]),
        "super" => {
            let mut base = here.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|seg| seg == "super") {
                base.pop();
                rest = &rest[1..];
            }
            (krate, base, rest)
        }
        _ => {
            let child: Vec<String> = here.iter().chain([first]).cloned().collect();
            if !modules.contains_key(&(krate, child)) {
                return None;
            }
            (krate, here.to_vec(), path)
        }
    };
    full.extend(rest.iter().cloned());
    // The deepest module on the path that is a file of its own.
    (0..=full.len())
        .rev()
        .find_map(|len| modules.get(&(krate, full[..len].to_vec())))
        .cloned()
}

/// Which files each file of `src/` names (itself excluded).
fn imports(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let files = rust_files(src);
    let mut modules = Modules::new();
    for file in &files {
        let relative = file.strip_prefix(src).expect("under src/").to_path_buf();
        let (krate, module) = module_of(&relative);
        modules.insert((krate, module), relative);
    }
    let mut graph = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(src).expect("under src/").to_path_buf();
        let (krate, module) = module_of(&relative);
        let source = fs::read_to_string(file).expect("a source file is readable");
        let toks = tokens(&source);
        let mut named = BTreeSet::new();
        // The inline modules open at each brace depth (`None` for other braces).
        let mut braces: Vec<Option<String>> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let here: Vec<String> = module
                .iter()
                .cloned()
                .chain(braces.iter().flatten().cloned())
                .collect();
            match &toks[i] {
                Token::Ident(word) if word == "use" => {
                    let end = toks[i..]
                        .iter()
                        .position(|tok| *tok == Token::Punct(';'))
                        .map_or(toks.len(), |end| i + end);
                    for path in use_paths(&toks[i + 1..end]) {
                        named.extend(resolve(&modules, krate, &here, &path));
                    }
                    i = end + 1;
                }
                Token::Ident(word)
                    if word == "mod" && matches!(toks.get(i + 2), Some(Token::Punct('{'))) =>
                {
                    if let Some(Token::Ident(name)) = toks.get(i + 1) {
                        braces.push(Some(name.clone()));
                    }
                    i += 3;
                }
                Token::Ident(first) if toks.get(i + 1) == Some(&Token::PathSep) => {
                    let after_sep = i > 0 && toks[i - 1] == Token::PathSep;
                    let mut path = vec![first.clone()];
                    let mut j = i + 1;
                    while toks.get(j) == Some(&Token::PathSep) {
                        match toks.get(j + 1) {
                            Some(Token::Ident(next)) => {
                                path.push(next.clone());
                                j += 2;
                            }
                            _ => break,
                        }
                    }
                    if !after_sep {
                        named.extend(resolve(&modules, krate, &here, &path));
                    }
                    i = j;
                }
                Token::Punct('{') => {
                    braces.push(None);
                    i += 1;
                }
                Token::Punct('}') => {
                    braces.pop();
                    i += 1;
                }
                _ => i += 1,
            }
        }
        named.remove(&relative);
        graph.insert(relative, named);
    }
    graph
}

/// Whether `child`'s module is declared in `parent` (`parent/mod.rs` or `parent.rs` and
/// a file of the folder below it). A folder's module file and its own files may name each
/// other: it declares and re-exports them, they use what it defines for all of them.
fn is_parent(parent: &Path, child: &Path) -> bool {
    let (parent_crate, parent) = module_of(parent);
    let (child_crate, child) = module_of(child);
    parent_crate == child_crate && child.len() == parent.len() + 1 && child.starts_with(&parent)
}

/// Pairs of files that name each other (a module file and its own files aside).
fn circles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<String> {
    let mut found = Vec::new();
    for (file, named) in graph {
        for other in named {
            if file < other
                && graph.get(other).is_some_and(|back| back.contains(file))
                && !is_parent(file, other)
                && !is_parent(other, file)
            {
                found.push(format!("{} <-> {}", file.display(), other.display()));
            }
        }
    }
    found
}

#[test]
fn no_two_files_of_src_import_each_other() {
    let graph = imports(&root().join("src"));
    if std::env::var_os("ARENA_PRINT_IMPORTS").is_some() {
        for (file, named) in &graph {
            eprintln!("{} -> {:?}", file.display(), named);
        }
    }
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "files of src/ that import each other (move the shared item to where it belongs):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_file_of_src_is_longer_than_a_thousand_lines() {
    let long: Vec<String> = rust_files(&root().join("src"))
        .into_iter()
        .filter_map(|file| {
            let lines = fs::read_to_string(&file).expect("readable").lines().count();
            (lines > MAX_LINES).then(|| format!("{}: {lines} lines", file.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files of src/ over {MAX_LINES} lines (split them by concern):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_scan_finds_a_circle_through_use_trees_super_and_inline_paths() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = dir.path();
    fs::create_dir_all(src.join("a")).expect("mkdir");
    fs::write(src.join("lib.rs"), "pub mod a;\npub mod b;\n").expect("write");
    fs::write(
        src.join("a/mod.rs"),
        "mod x;\nmod y;\npub use x::f;\n// use crate::b;\nconst S: &str = \"crate::b::Z\";\n",
    )
    .expect("write");
    fs::write(
        src.join("a/x.rs"),
        "use crate::{b::Z, a::{self as here}};\nuse super::y::{Y as _};\npub fn f() {}\n",
    )
    .expect("write");
    fs::write(
        src.join("a/y.rs"),
        "pub struct Y;\n#[cfg(test)]\nmod tests { use super::*; }\nfn g() { let _ = super::x::f; }\n",
    )
    .expect("write");
    fs::write(src.join("b.rs"), "pub struct Z;\n").expect("write");
    let graph = imports(src);
    let names = |file: &str| -> Vec<String> {
        graph[Path::new(file)]
            .iter()
            .map(|named| named.display().to_string())
            .collect()
    };
    assert_eq!(names("a/x.rs"), ["a/mod.rs", "a/y.rs", "b.rs"]);
    assert_eq!(names("a/y.rs"), ["a/x.rs"]);
    // Comments and strings are not imports; a module file and its own files may name
    // each other.
    assert_eq!(names("a/mod.rs"), ["a/x.rs"]);
    assert_eq!(circles(&graph), ["a/x.rs <-> a/y.rs"]);
}
