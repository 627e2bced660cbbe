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
