//! The docs' promises, checked mechanically: README.md and every page of docs/ name only
//! real commands, flags the command accepts and `configs/...` files that exist, and every
//! relative link (with its `#anchor`) leads somewhere. The flags are read from the real
//! binary's `arena COMMAND --help`, so a renamed or removed flag fails here, not in a
//! newcomer's terminal. The README stays a front door of at most 300 lines.

use std::{
    collections::{BTreeSet, HashMap},
    fs,
    path::{Path, PathBuf},
};

use crate::common::{arena_process, root};

/// The front door's length limit (issue 43: the manual lives in docs/).
const README_MAX_LINES: usize = 300;

/// What `arena COMMAND --help` says each command accepts, asked once per command.
#[derive(Default)]
struct Commands {
    /// Command name -> its flags (`--jobs`, `-j`, aliases too), or `None` when `arena`
    /// does not know the command.
    flags: HashMap<String, Option<BTreeSet<String>>>,
}

impl Commands {
    fn flags(&mut self, command: &str) -> Option<&BTreeSet<String>> {
        self.flags
            .entry(command.to_string())
            .or_insert_with(|| help_flags(command))
            .as_ref()
    }
}

/// The flags an `arena COMMAND --help` lists: the option lines (those that start with a
/// dash) and their `[alias: ...]`; `None` when the command does not exist.
fn help_flags(command: &str) -> Option<BTreeSet<String>> {
    if command.starts_with('-') || command == "help" {
        return None;
    }
    // "" asks for arena's own flags (`arena --help`, `arena --version`).
    let args: &[&str] = if command.is_empty() {
        &["--help"]
    } else {
        &[command, "--help"]
    };
    let out = arena_process().args(args).output().expect("arena runs");
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut flags = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with('-') {
            // `-j, --jobs <JOBS>  Worker threads ...`: the names come before the text.
            let names = line.split("  ").next().unwrap_or("");
            for token in names.split([',', ' ']) {
                if let Some(flag) = flag_name(token) {
                    flags.insert(flag);
                }
            }
        }
        for marker in ["[alias: ", "[aliases: "] {
            if let Some((_, rest)) = line.split_once(marker) {
                for token in rest.split([',', ' ', ']']) {
                    if let Some(flag) = flag_name(token) {
                        flags.insert(flag);
                    }
                }
            }
        }
    }
    Some(flags)
}

/// `--jobs`, `--over=KEY` -> `--over`, `-j`; `None` for anything that is not a flag
/// (`-5,0`, `-`, `--`, a value).
fn flag_name(token: &str) -> Option<String> {
    let token = token.trim_end_matches(['.', ',', ';', ')']);
    if let Some(long) = token.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or("");
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        return valid.then(|| format!("--{name}"));
    }
    let short = token.strip_prefix('-')?;
    (short.len() == 1 && short.starts_with(|c: char| c.is_ascii_alphabetic()))
        .then(|| token.to_string())
}

/// Tokens that end one command of a shell line (what follows is another command, a file
/// to redirect to, or GNU parallel's arguments).
fn ends_command(token: &str) -> bool {
    matches!(token, "&&" | "||" | ";" | "|" | "&" | ":::" | ")")
        || token.starts_with('>')
        || token.starts_with("2>")
        || token.starts_with('<')
}

/// Checks one `arena SUBCOMMAND ARGS...` (the tokens after `arena`): the command exists,
/// and every flag is one it accepts.
fn check_command(
    tokens: &[&str],
    commands: &mut Commands,
    place: &str,
    problems: &mut Vec<String>,
) {
    let Some(command) = tokens.first() else {
        problems.push(format!("{place}: `arena` without a command"));
        return;
    };
    if *command == "..." || command.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
        return; // a placeholder: `arena COMMAND --help`, `arena ...`
    }
    // `arena --version`: arena's own flags, no command.
    let (command, args) = match command.starts_with('-') {
        true => ("", tokens),
        false => (*command, &tokens[1..]),
    };
    let Some(flags) = commands.flags(command) else {
        problems.push(format!("{place}: `arena {command}`: no such command"));
        return;
    };
    for token in args {
        if let Some(flag) = flag_name(token)
            && !flags.contains(&flag)
        {
            problems.push(format!(
                "{place}: `arena {command}` has no flag {flag} (see `arena {command} --help`)"
            ));
        }
    }
}

/// Every `configs/...` path a piece of text names must exist (globs and `...` are
/// patterns, not paths).
fn check_config_paths(text: &str, place: &str, problems: &mut Vec<String>) {
    for (at, _) in text.match_indices("configs/") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '/' || c == '_' || c == '-') {
            continue; // a folder inside another path (`/shared/configs/`)
        }
        let path: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
            .collect();
        let path = path.trim_end_matches(['.', '/']);
        if path.contains("...") || text[at + path.len()..].starts_with(['*', '{', '<']) {
            continue;
        }
        if !root().join(path).exists() {
            problems.push(format!("{place}: {path} does not exist"));
        }
    }
}

/// A shell line's commands: every `arena ...` or `cargo run --release -- ...` in it. A
/// synopsis (a command table's row, a command in the text) has `[optional]` parts and
/// `a \| b` alternatives where a shell line has pipes.
fn check_shell_line(
    line: &str,
    synopsis: bool,
    commands: &mut Commands,
    place: &str,
    problems: &mut Vec<String>,
) {
    let line = line.trim_start().trim_start_matches("$ ");
    // A comment starts at a `#` that begins a word.
    let code = match line.find(" #") {
        Some(at) if !synopsis => &line[..at],
        _ if line.starts_with('#') && !synopsis => "",
        _ => line,
    };
    let mut code = code.replace(['\'', '"', '`'], " ");
    if synopsis {
        code = code.replace("\\|", " ").replace(['[', ']', '|'], " ");
    }
    let tokens: Vec<&str> = code.split_whitespace().collect();
    let mut i = 0;
    while i < tokens.len() {
        let start = if tokens[i] == "arena" {
            Some(i + 1)
        } else if tokens[i..].starts_with(&["cargo", "run", "--release", "--"]) {
            Some(i + 4)
        } else {
            None
        };
        match start {
            Some(start) => {
                let end = (start..tokens.len())
                    .find(|&j| ends_command(tokens[j]))
                    .unwrap_or(tokens.len());
                check_command(&tokens[start..end], commands, place, problems);
                i = end;
            }
            None => i += 1,
        }
    }
}

/// The text's commands written as inline code (`` `arena match --transform` ``, a command
/// table's synopsis), which may run over a line break: (line number, code).
fn inline_commands(text: &str) -> Vec<(usize, String)> {
    let mut prose = String::new(); // the text with code blocks blanked, lines kept
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            prose.push_str(line);
        }
        prose.push('\n');
    }
    let mut out = Vec::new();
    let mut spans = prose.split('`');
    let mut offset = 0;
    // Odd pieces are inside backticks.
    while let (Some(outside), Some(inside)) = (spans.next(), spans.next()) {
        offset += outside.len() + 1;
        let code = inside.replace('\n', " ");
        if code.starts_with("arena ") || code.starts_with("cargo run --release -- ") {
            let line = prose[..offset].matches('\n').count() + 1;
            out.push((line, code));
        }
        offset += inside.len() + 1;
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks), repeats numbered as
/// GitHub numbers them.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if in_code || hashes == 0 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// Every relative link of one line leads to a file or folder that exists, and its
/// `#anchor` to a heading of that page.
fn check_links(line: &str, file: &Path, text: &str, place: &str, problems: &mut Vec<String>) {
    for (at, _) in line.match_indices("](") {
        let target = &line[at + 2..];
        let Some(end) = target.find(')') else {
            continue;
        };
        let target = &target[..end];
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
        let dir = file.parent().expect("a doc lives in a folder");
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        if !resolved.exists() {
            problems.push(format!("{place}: link to {target}: no such file"));
            continue;
        }
        if anchor.is_empty() {
            continue;
        }
        let page = if path.is_empty() {
            text.to_string()
        } else if resolved.extension().is_some_and(|e| e == "md") {
            fs::read_to_string(&resolved).unwrap_or_default()
        } else {
            continue; // an anchor into source or an image: not checked
        };
        if !anchors(&page).contains(anchor) {
            problems.push(format!("{place}: link to {target}: no heading #{anchor}"));
        }
    }
}

/// Every promise of one Markdown file, as a list of problems (empty when it keeps them).
fn check_doc(file: &Path, text: &str, commands: &mut Commands) -> Vec<String> {
    let name = file
        .strip_prefix(root())
        .unwrap_or(file)
        .display()
        .to_string();
    let mut problems = Vec::new();
    let mut fence: Option<bool> = None; // inside a code block: is it shell?
    let mut pending = String::new(); // a shell line continued with `\`
    for (n, line) in text.lines().enumerate() {
        let place = format!("{name}:{}", n + 1);
        check_config_paths(line, &place, &mut problems);
        let trimmed = line.trim_start();
        if let Some(lang) = trimmed.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(matches!(
                    lang.trim(),
                    "" | "sh" | "bash" | "shell" | "console"
                )),
            };
            continue;
        }
        match fence {
            Some(true) => {
                if let Some(head) = line.strip_suffix('\\') {
                    pending.push_str(head);
                    pending.push(' ');
                    continue;
                }
                pending.push_str(line);
                check_shell_line(&pending, false, commands, &place, &mut problems);
                pending.clear();
            }
            Some(false) => {}
            None => check_links(line, file, text, &place, &mut problems),
        }
    }
    for (line, code) in inline_commands(text) {
        let place = format!("{name}:{line}");
        check_shell_line(&code, true, commands, &place, &mut problems);
    }
    problems
}

/// README.md and every Markdown page of docs/.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut pages: Vec<PathBuf> = fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("docs/ is readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    files.extend(pages);
    files
}

#[test]
fn the_docs_name_real_commands_flags_configs_and_links() {
    let mut commands = Commands::default();

    // The checker catches what it is for: a made-up command, made-up flags (in a shell
    // block, a command table, the text), a config that does not exist, a broken link and
    // a broken anchor (in a page that is not written anywhere, beside the real ones so
    // that its links resolve the same way).
    let bad = "# Bad\n\n```sh\narena frobnicate configs/gomoku-tables.toml\n\
               arena run configs/gomoku-tables.toml --made-up-flag\n\
               cargo run --release -- run configs/no-such-config.toml\n```\n\n\
               | `arena match A B [--rounds N] [--no-such-option]` | a row |\n\n\
               [gone](no-such-page.md) and [astray](commands.md#no-such-heading), and in\n\
               the text `arena\nexport DIR --sgff` over a line break\n";
    let problems = check_doc(&root().join("docs/self-check.md"), bad, &mut commands);
    for needle in [
        "`arena frobnicate`: no such command",
        "has no flag --made-up-flag",
        "configs/no-such-config.toml does not exist",
        "has no flag --no-such-option",
        "link to no-such-page.md: no such file",
        "link to commands.md#no-such-heading: no heading #no-such-heading",
        "self-check.md:12: `arena export` has no flag --sgff",
    ] {
        assert!(
            problems.iter().any(|p| p.contains(needle)),
            "the checker misses '{needle}': {problems:#?}"
        );
    }
    assert_eq!(problems.len(), 7, "only the planted faults: {problems:#?}");

    let mut problems = Vec::new();
    let files = doc_files();
    assert!(
        files.len() > 5,
        "the manual's pages are in docs/: {files:?}"
    );
    for file in &files {
        let text = fs::read_to_string(file).expect("the doc is readable");
        problems.extend(check_doc(file, &text, &mut commands));
    }
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md is readable");
    let lines = readme.lines().count();
    if lines > README_MAX_LINES {
        problems.push(format!(
            "README.md has {lines} lines: a front door has at most {README_MAX_LINES} (move the rest to docs/)"
        ));
    }
    assert!(
        problems.is_empty(),
        "the docs promise what arena does not do:\n{}",
        problems.join("\n")
    );
}
