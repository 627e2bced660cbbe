//! How the user starts arena, for the commands that messages suggest ("continue with
//! `arena run CONFIG --resume`"). The command line sets it once at start-up
//! ([`set_program`]): `cargo run --release --` when arena runs under `cargo run`, the
//! path typed when it was started by path, else `arena`. Everything else only reads it,
//! so a suggested command can be pasted as it is.

use std::sync::OnceLock;

static PROGRAM: OnceLock<String> = OnceLock::new();

/// Records how arena was started (the first call wins; later ones are ignored).
pub fn set_program(program: String) {
    let _ = PROGRAM.set(program);
}

/// How arena was started: `arena`, `cargo run --release --`, `./target/release/arena`.
pub fn program() -> &'static str {
    PROGRAM.get().map_or("arena", String::as_str)
}

/// A command to suggest: `args` (`run configs/x.toml --resume`) after [`program`].
pub fn command(args: &str) -> String {
    format!("{} {args}", program())
}

/// `word` quoted for a POSIX shell when it needs it, so a suggested command can be
/// pasted back (paths with spaces, `--set` values with quotes).
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        assert_eq!(shell_word("configs/a.toml"), "configs/a.toml");
        assert_eq!(shell_word("search.depth=3"), "search.depth=3");
        assert_eq!(shell_word("my dir"), "'my dir'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
