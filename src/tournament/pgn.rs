//! Header-only PGN, so Ordo and BayesElo (which read only `White`, `Black` and `Result`)
//! can rate our games. The first player is written as White, as PGN readers expect the
//! first-named side to move first.

use std::fmt::Write as _;

use super::record::GameRecord;

/// PGN text of `records` (in game order): headers only, the moves left out.
pub fn export(event: &str, records: &[GameRecord]) -> String {
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.game);
    let mut out = String::new();
    for r in sorted {
        let _ = writeln!(out, "[Event \"{}\"]", escape(event));
        let _ = writeln!(out, "[Round \"{}\"]", r.game + 1);
        // Ordo/BayesElo convention: the side that moves first is "White".
        let _ = writeln!(out, "[White \"{}\"]", escape(&r.black_name));
        let _ = writeln!(out, "[Black \"{}\"]", escape(&r.white_name));
        let _ = writeln!(out, "[Result \"{}\"]", r.result.as_str());
        let _ = writeln!(out, "[Termination \"{}\"]", escape(&r.reason));
        let _ = writeln!(out, "[PlyCount \"{}\"]", r.plies);
        let _ = writeln!(out, "\n{}\n", r.result.as_str());
    }
    out
}

/// A tag value: backslash and quote escaped as PGN says, and line breaks (and other
/// control characters) made spaces, since a tag must stay on its line.
fn escape(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::escape;

    /// Regression: a line break in an engine's name broke the tag in two.
    #[test]
    fn tags_stay_on_their_line() {
        assert_eq!(escape("a\"b\\c"), "a\\\"b\\\\c");
        assert_eq!(escape("two\nlines\r\tx"), "two lines  x");
    }
}
