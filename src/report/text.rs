//! Escaping and number formatting shared by the HTML and Markdown writers and the console
//! summary. Every string a user controls (engine names, parameter names, config text)
//! goes through [`html`] or [`md`] before it reaches a page. Where the console and
//! report.md show the same figure (a pairing's Elo and interval, nElo, W/D/L, the
//! pentanomial counts, the first player's score, the split pairs), one function here
//! writes it for both; the two differ only in the separators they pass.

use crate::{
    stats::{EloEstimate, Penta, ScoreInterval, Wdl},
    tournament::summary::PairShares,
};

/// Escapes text for HTML (element content and quoted attribute values).
pub(crate) fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes inline text for Markdown (CommonMark / GitHub), safe inside a table cell:
/// HTML's three special characters become entities (shown as text, never as markup), the
/// characters that start inline markup (emphasis, code, links, strikethrough, table bars)
/// are backslash-escaped, and line breaks become spaces. Line-start markers (`#`, `-`,
/// `1.`) need nothing: the writers never start a line with user text.
pub(crate) fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A rating: `+12.3`, `-4.0`, `+inf`, or `-` when there is none.
pub(crate) fn elo(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:+.1}"),
        Some(x) if x > 0.0 => "+inf".into(),
        Some(x) if x < 0.0 => "-inf".into(),
        _ => "-".into(),
    }
}

/// A 95 % half-width: `12.3`, `inf`, or `-`.
pub(crate) fn err(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.1}"),
        Some(x) if x.is_infinite() => "inf".into(),
        _ => "-".into(),
    }
}

/// A fraction as a percentage with one decimal: `56.2 %`, or `-`.
pub(crate) fn pct(v: Option<f64>) -> String {
    percent(v, " %")
}

/// A fraction as a percentage with one decimal and `unit` after it (`" %"` in reports,
/// `"%"` on the console): `56.2 %`, or `-` when there is none or it is not finite.
pub(crate) fn percent(v: Option<f64>, unit: &str) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{:.1}{unit}", 100.0 * x),
        _ => "-".into(),
    }
}

/// An Elo with its 95 % interval: `+12.3 [-1.0, +25.6]`, dashes without an estimate.
pub(crate) fn elo_interval(e: Option<&EloEstimate>) -> String {
    format!(
        "{} [{}, {}]",
        elo(e.map(|e| e.elo)),
        elo(e.map(|e| e.elo_low)),
        elo(e.map(|e| e.elo_high))
    )
}

/// nElo with its 95 % half-width: `+20.1 ± 9.8`, dashes without an estimate.
pub(crate) fn nelo(e: Option<&EloEstimate>) -> String {
    format!(
        "{} ± {}",
        elo(e.map(|e| e.nelo)),
        err(e.map(|e| e.nelo_error))
    )
}

/// Games won, drawn and lost: `+3 =4 -1`.
pub(crate) fn wdl(w: &Wdl) -> String {
    format!("+{} ={} -{}", w.wins, w.draws, w.losses)
}

/// The pentanomial counts, LL to WW, joined by `sep`: `0, 2, 5, 3, 1`.
pub(crate) fn penta(p: &Penta, sep: &str) -> String {
    p.counts
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

/// The first player's score with its 95 % interval (`unit` as in [`percent`]); see
/// [`ScoreInterval::text`].
pub(crate) fn first_player(fp: Option<&ScoreInterval>, bare: Option<f64>, unit: &str) -> String {
    ScoreInterval::text(fp, bare, unit)
}

/// Split pairs of the complete pairs, `sep` between the counts (`3/10`, `3 of 10`); `-`
/// without complete pairs.
pub(crate) fn split_pairs(shares: &PairShares, sep: &str) -> String {
    shares.split_share().map_or("-".into(), |_| {
        format!("{}{sep}{}", shares.split, shares.pairs)
    })
}

/// The headings of an engine's figures in the standings, after its rank, name and
/// rating: the console's and the report's tables have them alike.
pub(crate) const ENGINE_FIGURES: [&str; 8] = [
    "games",
    "score",
    "W-D-L",
    "nodes/move",
    "median",
    "depth",
    "nodes/s",
    "plies",
];

/// `text`, or "n/a" when the figure was never reported (an outside engine that prints no
/// node counts or depths).
pub(crate) fn na(reported: bool, text: String) -> String {
    if reported { text } else { "n/a".into() }
}

/// A rate with an SI prefix, two decimals and `unit`: `1.23 Mnodes/s`, `950.00 games/s`.
pub fn rate(per_second: f64, unit: &str) -> String {
    let (v, prefix) = scaled(per_second, per_second, &PREFIXES[1..]);
    format!("{v:.2} {prefix}{unit}")
}

/// The SI prefixes [`rate`] and [`si`] use, largest first.
const PREFIXES: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];

/// `v` divided by the largest of `prefixes` that `magnitude` reaches, with its prefix;
/// `v` itself and no prefix below them all.
fn scaled(v: f64, magnitude: f64, prefixes: &[(f64, &'static str)]) -> (f64, &'static str) {
    prefixes
        .iter()
        .find(|(at, _)| magnitude >= *at)
        .map_or((v, ""), |&(at, prefix)| (v / at, prefix))
}

/// A count with an SI suffix and three significant digits: `950`, `1.23k`, `45.6M`.
pub(crate) fn si(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let (scaled, suffix) = scaled(v, v.abs(), &PREFIXES);
    let s = scaled.abs();
    let digits = if suffix.is_empty() || s >= 100.0 {
        0
    } else if s >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{scaled:.digits$}");
    // `1.50k` reads better as `1.5k`; plain integers keep their digits.
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_markup() {
        assert_eq!(
            html("<script>alert('x & \"y\"')</script>"),
            "&lt;script&gt;alert(&#39;x &amp; &quot;y&quot;&#39;)&lt;/script&gt;"
        );
    }

    #[test]
    fn markdown_escapes_markup_and_table_bars() {
        let s = md("<b>a|b</b> *c* [d](e)");
        assert!(!s.contains('<') && !s.contains('>'), "{s}");
        assert!(s.contains("a\\|b"), "{s}");
        assert!(s.contains("\\*c\\*"), "{s}");
        assert!(s.contains("\\[d\\](e)"), "{s}");
        assert_eq!(md("seed001-topk 1.5"), "seed001-topk 1.5");
    }

    #[test]
    fn si_suffixes() {
        assert_eq!(si(950.0), "950");
        assert_eq!(si(1234.0), "1.23k");
        assert_eq!(si(1500.0), "1.5k");
        assert_eq!(si(45_600_000.0), "45.6M");
        assert_eq!(si(123_456.0), "123k");
        assert_eq!(si(0.0), "0");
    }

    /// The figures the console and report.md share: one layout, their own separators.
    #[test]
    fn shared_figures() {
        assert_eq!(wdl(&Wdl::new(3, 4, 1)), "+3 =4 -1");
        let p = Penta {
            counts: [1, 0, 5, 2, 12],
            ..Penta::default()
        };
        assert_eq!(penta(&p, ", "), "1, 0, 5, 2, 12");
        assert_eq!(penta(&p, " "), "1 0 5 2 12");
        assert_eq!(elo_interval(None), "- [-, -]");
        assert_eq!(nelo(None), "- ± -");
        let e = Wdl::new(6, 2, 2).estimate().unwrap();
        assert!(elo_interval(Some(&e)).starts_with(&format!("{} [", elo(Some(e.elo)))));
        assert_eq!(percent(Some(0.5614), "%"), "56.1%");
        assert_eq!(percent(Some(f64::NAN), "%"), "-");
        let none = PairShares::default();
        assert_eq!(split_pairs(&none, "/"), "-");
        let some = PairShares {
            pairs: 10,
            split: 3,
            drawn: 1,
        };
        assert_eq!(split_pairs(&some, "/"), "3/10");
        assert_eq!(split_pairs(&some, " of "), "3 of 10");
        assert_eq!(rate(1234.0, "games/s"), "1.23 kgames/s");
        assert_eq!(na(false, "12".into()), "n/a");
    }

    #[test]
    fn ratings() {
        assert_eq!(elo(Some(12.34)), "+12.3");
        assert_eq!(elo(Some(f64::NEG_INFINITY)), "-inf");
        assert_eq!(elo(None), "-");
        assert_eq!(err(Some(f64::INFINITY)), "inf");
        assert_eq!(pct(Some(0.5614)), "56.1 %");
    }
}
