//! Tests of the parent module.

use super::*;

#[test]
fn log_axis_covers_the_values() {
    let a = Axis::log(37.0, 52_000.0);
    assert_eq!((a.lo, a.hi), (1.0, 5.0));
    assert_eq!(a.label(3.0), "1k");
    assert!(a.at(37.0) > 1.5 && a.at(37.0) < 1.6);
}

#[test]
fn linear_ticks_are_nice() {
    let a = Axis::linear(-13.0, 47.0);
    assert_eq!(a.ticks, vec![-10.0, 0.0, 10.0, 20.0, 30.0, 40.0]);
    assert_eq!(nice_step(0.7), 0.5);
}

#[test]
fn rows_run_top_down() {
    let a = Axis::rows(vec!["first".into(), "second".into(), "third".into()]);
    assert_eq!(a.row(0), 2.0);
    assert_eq!(a.label(2.0), "first");
    assert_eq!(a.label(0.0), "third");
}

#[test]
fn long_names_are_shortened() {
    register_fonts().unwrap();
    let long = "x".repeat(400);
    let f = fit(&long, LABEL_SIZE, 100);
    assert!(f.ends_with('…') && text_width(&f, LABEL_SIZE) <= 100, "{f}");
    assert_eq!(fit("short", LABEL_SIZE, 100), "short");
}

/// Regression (issue 44, item 9): `fit` measured every prefix of a long name anew, so
/// `arena report` took time quadratic in an engine's name (8 KB: 44 s). It measures
/// each character a bounded number of times now, with the same result as measuring
/// every prefix (kerning included).
#[test]
fn shortening_a_long_name_is_linear_and_exact() {
    use crate::report::raster::GLYPHS_MEASURED;
    register_fonts().unwrap();
    // The old way, as the reference: the longest prefix that fits with the ellipsis.
    let reference = |s: &str, max: u32| {
        if text_width(s, LABEL_SIZE) <= max {
            return s.to_string();
        }
        let chars: Vec<char> = s.chars().collect();
        (1..chars.len())
            .rev()
            .map(|n| chars[..n].iter().collect::<String>() + "…")
            .find(|t| text_width(t, LABEL_SIZE) <= max)
            .unwrap_or_else(|| "…".into())
    };
    for (s, max) in [
        ("AVAVAVAVTyTyTyWAWAffiLTo", 60),
        ("gomoku-seed003-threat-with-a-long-tail", 120),
        ("ÄÖÜ ĳ 漢字 AV.", 30),
        ("W", 1),
        ("WWWWWWWW", 9),
    ] {
        assert_eq!(fit(s, LABEL_SIZE, max), reference(s, max), "{s} in {max}");
    }
    let long = "AVxy".repeat(2_000);
    GLYPHS_MEASURED.with(|n| n.set(0));
    let f = fit(&long, LABEL_SIZE, 200);
    let work = GLYPHS_MEASURED.with(|n| n.get());
    assert!(f.ends_with('…') && text_width(&f, LABEL_SIZE) <= 200, "{f}");
    assert!(
        work <= 3 * long.len() as u64,
        "{work} glyphs measured to shorten {} characters",
        long.len()
    );
}
