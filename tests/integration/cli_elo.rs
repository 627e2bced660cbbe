//! `arena elo` through the real binary: fastchess' numbers, the SPRT verdict, bad input.

use crate::common::{arena, run_bad_input, run_ok};

/// The value after `label` on the line that starts with it.
fn line<'a>(out: &'a str, label: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no '{label}' line in:\n{out}"))
        .trim()
}

#[test]
fn wdl_prints_the_fastchess_numbers() {
    // fastchess elo_test.cpp: W136 L96 D111.
    let out = run_ok(&["elo", "--wdl", "136,111,96"]);
    assert_eq!(line(&out, "games"), "343 (wins 136, draws 111, losses 96)");
    assert_eq!(line(&out, "score"), "0.5583");
    assert_eq!(
        line(&out, "Elo"),
        "40.70 in [10.59, 71.44] (95 %; +/- 30.43 is half its width)"
    );
    // fastchess prints +/- 36.77 (sigma taken as known); fishtest estimates it too.
    assert_eq!(line(&out, "nElo"), "49.77 +/- 37.38 (95 %)");
    assert_eq!(line(&out, "LOS"), "99.60 %");
    assert_eq!(line(&out, "draw ratio"), "32.36 %");
    assert!(!out.contains("SPRT"), "{out}");
}

#[test]
fn penta_prints_the_fastchess_numbers_in_both_forms() {
    // fastchess elo_test.cpp: pentanomial 332,433,457,41,333,334.
    let six = run_ok(&["elo", "--penta", "332,433,457,41,333,334"]);
    assert_eq!(
        line(&six, "Elo"),
        "-8.64 in [-18.98, 1.68] (95 %; +/- 10.33 is half its width)"
    );
    assert_eq!(line(&six, "nElo"), "-9.17 +/- 10.98 (95 %)");
    assert_eq!(line(&six, "LOS"), "5.05 %");
    assert!(line(&six, "pairs").ends_with("games 3860"), "{six}");
    // The five-bin form gives the same Elo; only the draw ratio is unknown.
    let five = run_ok(&["elo", "--penta", "332,433,498,333,334"]);
    assert_eq!(line(&five, "Elo"), line(&six, "Elo"));
    assert!(line(&five, "draw ratio").starts_with("unknown"), "{five}");
}

#[test]
fn sprt_prints_llr_bounds_and_decision() {
    // fastchess sprt_test.cpp: normalized, W36433 L36027 D68692, [0, 2]: LLR 0.92.
    let out = run_ok(&[
        "elo",
        "--wdl",
        "36433,68692,36027",
        "--sprt",
        "0,2",
        "--model",
        "normalized",
    ]);
    assert_eq!(line(&out, "LLR"), "0.92 (bounds -2.94, 2.94)");
    assert_eq!(line(&out, "decision"), "continue");
    // fastchess sprt_test.cpp: logistic pentanomial, [0.5, 2.5]: LLR -3.07, H0.
    let out = run_ok(&[
        "elo",
        "--penta",
        "223,9863,20279,1000,10037,246",
        "--sprt",
        "0.5,2.5,0.05,0.05",
    ]);
    assert!(line(&out, "SPRT").starts_with("logistic model"), "{out}");
    assert_eq!(line(&out, "LLR"), "-3.07 (bounds -2.94, 2.94)");
    assert_eq!(line(&out, "decision"), "H0 accepted");
    assert_eq!(
        line(&out, "verdict"),
        "LLR -3.07 reached the lower bound -2.94: H0 accepted"
    );
    assert!(line(&out, "debiased").starts_with("Elo "), "{out}");
    // Negative bounds are numbers, not options.
    let out = run_ok(&["elo", "--wdl", "10,10,10", "--sprt", "-5,0"]);
    assert!(line(&out, "SPRT").contains("H0 elo = -5.00"), "{out}");
}

#[test]
fn a_perfect_score_is_infinite_not_a_crash() {
    let out = run_ok(&["elo", "--wdl", "10,0,0"]);
    assert_eq!(line(&out, "Elo"), "+inf in [140.22, +inf] (95 %)");
    assert!(line(&out, "warning").starts_with("a 100 % score"), "{out}");
}

/// Issue 12's figures, each against fishtest's formulas.
#[test]
fn figures_that_claimed_too_much() {
    let out = run_ok(&["elo", "--wdl", "25,38,92"]);
    assert_eq!(line(&out, "nElo"), "-199.27 +/- 69.72 (95 %)");
    assert!(!out.contains("warning"), "{out}");
    let out = run_ok(&["elo", "--penta", "0,0,100,0,0"]);
    assert_eq!(
        line(&out, "Elo"),
        "0.00 in [-0.34, 0.34] (95 %; +/- 0.34 is half its width)"
    );
    assert!(line(&out, "warning").starts_with("every pair of 100 scored the same"));
    let out = run_ok(&["elo", "--wdl", "0,10,0"]);
    assert_eq!(
        line(&out, "Elo"),
        "0.00 in [-3.04, 3.04] (95 %; +/- 3.04 is half its width)"
    );
    let out = run_ok(&["elo", "--wdl", "90,0,10"]);
    assert_eq!(
        line(&out, "Elo"),
        "381.70 in [289.62, 546.71] (95 %; +/- 128.55 is half its width)"
    );
    let out = run_ok(&["elo", "--wdl", "1,0,0"]);
    assert_eq!(line(&out, "LOS"), "75.00 %");
    let out = run_ok(&["elo", "--wdl", "1200,0,0"]);
    assert!(line(&out, "Elo").starts_with("+inf in ["), "{out}");
    assert!(out.contains("warning"), "{out}");
}

#[test]
fn bad_input_names_the_argument() {
    let err = run_bad_input(&["elo", "--wdl", "1,2"]);
    assert!(
        err.contains("--wdl") && err.contains("expected 3 counts"),
        "{err}"
    );
    let err = run_bad_input(&["elo", "--wdl", "1,x,3"]);
    assert!(err.contains("--wdl") && err.contains("'x'"), "{err}");
    // Regression: a total beyond u64 used to panic with an overflow.
    let err = run_bad_input(&["elo", "--wdl", "18446744073709551615,1,1"]);
    assert!(err.contains("--wdl") && err.contains("add up"), "{err}");
    let err = run_bad_input(&["elo", "--penta", "1,2,3,4"]);
    assert!(err.contains("--penta"), "{err}");
    let err = run_bad_input(&["elo", "--wdl", "1,2,3", "--sprt", "0,5,0.7,0.05"]);
    assert!(err.contains("--sprt") && err.contains("alpha"), "{err}");
    let err = run_bad_input(&["elo", "--wdl", "1,2,3", "--sprt", "5,0"]);
    assert!(err.contains("--sprt") && err.contains("elo0"), "{err}");
    // clap lists the possible values on a second line, so check this one by hand.
    let out = arena()
        .args(["elo", "--wdl", "1,2,3", "--sprt", "0,5", "--model", "bayes"])
        .output()
        .expect("arena runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--model"));
    let err = run_bad_input(&[
        "elo",
        "--wdl",
        "5,1,0",
        "--sprt",
        "0,900",
        "--model",
        "normalized",
    ]);
    assert!(
        err.contains("--sprt") && err.contains("cannot fit"),
        "{err}"
    );
}

/// The first number in `text` after `after`.
fn number_after(text: &str, after: &str) -> f64 {
    let rest = &text[text
        .find(after)
        .unwrap_or_else(|| panic!("no '{after}' in {text}"))
        + after.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '-')
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after '{after}' in {text}"))
}

/// Issue 45: `arena elo --sprt 0,5 --plan 2.5` agrees with fishtest's sprt_calc.
///
/// Reference: fishtest's sprt_calc page at its defaults (draw ratio 0.49, RMS bias 191)
/// with the logistic model, Elo0 0, Elo1 5: `new Sprt(0.05, 0.05, 0, 5, 0.49, 191,
/// "Logistic").characteristics(2.5)` of official-stockfish/fishtest
/// `server/fishtest/static/js/sprt.js` (commit b8eecff2), run with node, gives a pass
/// probability of 0.500038 and 10871.8 expected games; at Elo 0, 0.05 and 6646.2; with
/// draw ratio 0.2 and RMS bias 0 at Elo 2.5, 33493.7 games.
#[test]
fn sprt_plan_agrees_with_fishtest_sprt_calc() {
    let out = run_ok(&["elo", "--sprt", "0,5", "--plan", "2.5"]);
    assert!(
        line(&out, "assuming").contains("sprt_calc defaults"),
        "{out}"
    );
    let row = line(&out, "if elo 2.50:");
    assert!(row.starts_with("pass 50.00 %"), "{row}");
    let games = number_after(row, "game pairs (");
    let pairs = number_after(row, "expected");
    assert!((games - 10871.8).abs() <= 0.02 * 10871.8, "{row}");
    assert!((pairs * 2.0 - games).abs() <= 1.0, "{row}");
    // Several Elo values at once, and the draw ratio and bias as options.
    let out = run_ok(&[
        "elo",
        "--sprt",
        "0,5",
        "--plan",
        "0,2.5",
        "--draw-ratio",
        "0.2",
        "--rms-bias",
        "0",
    ]);
    let row = line(&out, "if elo 0.00:");
    assert!(row.starts_with("pass 5.00 %"), "{row}");
    let games = number_after(line(&out, "if elo 2.50:"), "game pairs (");
    assert!((games - 33493.7).abs() <= 0.02 * 33493.7, "{out}");
    // Plans take the spread of results when given, and judge them too.
    let out = run_ok(&[
        "elo",
        "--wdl",
        "300,400,300",
        "--sprt",
        "0,5",
        "--plan",
        "5",
    ]);
    assert!(
        line(&out, "assuming").starts_with("the spread of the --wdl"),
        "{out}"
    );
    assert!(
        line(&out, "if elo 5.00:").starts_with("pass 95.00 %"),
        "{out}"
    );
    assert_eq!(line(&out, "decision"), "continue");
}

#[test]
fn sprt_plan_refuses_what_it_cannot_plan() {
    let err = run_bad_input(&["elo"]);
    assert!(err.contains("--wdl") && err.contains("--plan"), "{err}");
    let err = run_bad_input(&[
        "elo",
        "--sprt",
        "0,5",
        "--plan",
        "2.5",
        "--draw-ratio",
        "0.95",
    ]);
    assert!(
        err.contains("--plan") && err.contains("do not fit"),
        "{err}"
    );
    let err = run_bad_input(&["elo", "--sprt", "0,5", "--plan", "x"]);
    assert!(err.contains("--plan") && err.contains("'x'"), "{err}");
    let out = arena()
        .args(["elo", "--plan", "2.5"])
        .output()
        .expect("arena runs");
    assert_eq!(out.status.code(), Some(2), "--plan needs --sprt");
}

/// fastchess's bayesian model: its `sprt_test.cpp` case "bayesian trinomial 2"
/// (W21629 L21484 D41111, [0.5, 2.5], LLR -1.13; -1.130677 from its code).
#[test]
fn bayesian_sprt_gives_fastchess_llr() {
    let out = run_ok(&[
        "elo",
        "--wdl",
        "21629,41111,21484",
        "--sprt",
        "0.5,2.5",
        "--model",
        "bayesian",
    ]);
    assert!(line(&out, "SPRT").starts_with("bayesian model"), "{out}");
    assert_eq!(line(&out, "LLR"), "-1.13 (bounds -2.94, 2.94)");
    // Pairs: the games inside them; five bins do not tell the games apart.
    let out = run_ok(&[
        "elo",
        "--penta",
        "34,54,31,32,64,75",
        "--sprt",
        "0,5",
        "--model",
        "bayesian",
    ]);
    assert!(
        line(&out, "note").contains("580 games inside the pairs"),
        "{out}"
    );
    let err = run_bad_input(&[
        "elo",
        "--penta",
        "34,54,63,64,75",
        "--sprt",
        "0,5",
        "--model",
        "bayesian",
    ]);
    assert!(err.contains("six-number form"), "{err}");
}
