//! Escaping and number formatting shared by the HTML and Markdown writers. Every string a
//! user controls (engine names, parameter names, config text) goes through [`html`] or
//! [`md`] before it reaches a page.

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
    match v {
        Some(x) if x.is_finite() => format!("{:.1} %", 100.0 * x),
        _ => "-".into(),
    }
}

/// A count with an SI suffix and three significant digits: `950`, `1.23k`, `45.6M`.
pub(crate) fn si(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e12 {
        (v / 1e12, "T")
    } else if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
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

    #[test]
    fn ratings() {
        assert_eq!(elo(Some(12.34)), "+12.3");
        assert_eq!(elo(Some(f64::NEG_INFINITY)), "-inf");
        assert_eq!(elo(None), "-");
        assert_eq!(err(Some(f64::INFINITY)), "inf");
        assert_eq!(pct(Some(0.5614)), "56.1 %");
    }
}
