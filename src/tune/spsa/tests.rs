//! Unit tests of SPSA: the perturbations, the update, the rounding and their seeds.

use super::*;
use crate::stats::score_from_elo;

fn param(name: &str, min: f64, max: f64, start: f64, integer: bool) -> Param {
    Param {
        name: name.into(),
        min,
        max,
        start,
        c_end: Param::default_c_end(min, max),
        r_end: Param::DEFAULT_R_END,
        integer,
    }
}

/// A simulated match: an engine's strength in Elo is `-Σ w·(x - opt)²` (a smooth
/// bowl with its top at `opt`), and each game is won, drawn or lost with the
/// probabilities of that Elo difference (a fixed share of draws).
struct Bowl {
    optimum: Vec<f64>,
    weight: f64,
}

impl Bowl {
    fn elo(&self, x: &[f64]) -> f64 {
        -x.iter()
            .zip(&self.optimum)
            .map(|(x, o)| self.weight * (x - o) * (x - o))
            .sum::<f64>()
    }

    fn play(&self, job: &PairJob, seed: u64) -> PairOutcome {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ job.k.wrapping_mul(0x9E37_79B9));
        let score = score_from_elo(self.elo(&job.plus) - self.elo(&job.minus));
        PairOutcome {
            plus: [game(score, &mut rng), game(score, &mut rng)],
            minus: None,
        }
    }

    /// The pair as a tune with an opponent of `opponent` Elo plays it: plus and then
    /// minus each play it twice.
    fn play_against(&self, job: &PairJob, seed: u64, opponent: f64) -> PairOutcome {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ job.k.wrapping_mul(0x9E37_79B9));
        let plus = score_from_elo(self.elo(&job.plus) - opponent);
        let minus = score_from_elo(self.elo(&job.minus) - opponent);
        let mut two = |score| [game(score, &mut rng), game(score, &mut rng)];
        PairOutcome {
            plus: two(plus),
            minus: Some(two(minus)),
        }
    }
}

/// A game with expected score `score` and a 20 % draw share (where possible).
fn game(score: f64, rng: &mut ChaCha8Rng) -> GameScore {
    let u: f64 = rng.random();
    let draw = 0.2f64.min(2.0 * score).min(2.0 * (1.0 - score));
    let win = score - draw / 2.0;
    if u < win {
        GameScore::Win
    } else if u < win + draw {
        GameScore::Draw
    } else {
        GameScore::Loss
    }
}

#[test]
fn against_an_opponent_a_pair_scores_plus_less_minus() {
    use GameScore::{Draw, Loss, Win};
    let o = |plus, minus| PairOutcome { plus, minus }.result();
    assert_eq!(o([Win, Draw], None), 1);
    assert_eq!(o([Win, Draw], Some([Loss, Loss])), 3);
    assert_eq!(o([Win, Win], Some([Loss, Loss])), 4);
    assert_eq!(o([Loss, Draw], Some([Win, Loss])), -1);
    assert_eq!(o([Draw, Draw], Some([Win, Loss])), 0);
}

#[test]
fn spsa_against_an_opponent_finds_the_top_of_the_bowl_too() {
    // As spsa_finds_the_top_of_a_smooth_bowl, but each engine plays an opponent
    // (weaker than the start, stronger than the start, even with the top): the
    // same gains find the same top.
    for (seed, opponent) in [(1, -300.0), (2, -20.0), (3, 0.0)] {
        let (bowl, spsa) = two_far_from_the_top(seed);
        let mut state = spsa.start_state();
        spsa.run_serial(&mut state, |job| bowl.play_against(job, seed, opponent));
        for (i, (&t, &o)) in state.theta.iter().zip(&bowl.optimum).enumerate() {
            assert!((t - o).abs() < 6.0, "seed {seed}: θ{i} = {t}, optimum {o}");
        }
        let minus = state.minus_penta.expect("minus engine's pairs");
        assert_eq!((state.penta.pairs(), minus.pairs()), (40_000, 40_000));
    }
}

#[test]
fn tuned_values_are_rounded_to_what_spsa_can_tell_apart() {
    let p = Param {
        c_end: 0.1875,
        ..param("d", 0.25, 4.0, 1.0, false)
    };
    assert_eq!(p.value(1.1737343748044293), 1.174);
    assert_eq!(p.value(9.0), 4.0);
    let p = Param {
        c_end: 950.0,
        ..param("w", 1000.0, 20000.0, 7500.0, false)
    };
    assert_eq!(p.value(7422.26757853487), 7422.0);
    let n = param("n", 0.0, 10.0, 5.0, true);
    assert_eq!(n.value(7.5), 8.0);
    assert_eq!(n.value(-3.0), 0.0);
}

#[test]
fn the_gains_end_at_c_end_and_r_end() {
    let p = param("x", 0.0, 100.0, 50.0, false);
    let s = Spsa::new(vec![p.clone()], Settings::new(5000, 10, 1)).unwrap();
    assert!((s.c_k(0, 5000) - p.c_end).abs() < 1e-9);
    assert!((s.r_k(0, 5000) - p.r_end).abs() < 1e-12);
    assert!((s.c(0) - 5.0 * 5000f64.powf(0.101)).abs() < 1e-9);
    assert!((s.big_a() - 500.0).abs() < 1e-12);
    // The perturbation shrinks with k; the step per unit result ends at r_end·c_end.
    assert!(s.c_k(0, 1) > s.c_k(0, 100));
    assert!((s.r_k(0, 5000) * s.c_k(0, 5000) - p.r_end * p.c_end).abs() < 1e-12);
    // Integers never perturb by less than half a unit.
    let tiny = Param {
        c_end: 0.1,
        ..param("n", 0.0, 10.0, 5.0, true)
    };
    let s = Spsa::new(vec![tiny], Settings::new(100, 10, 1)).unwrap();
    assert_eq!(s.c_k(0, 100), MIN_INTEGER_C);
}

/// A bowl with its top at (30, -40) and a 40,000-pair tune of two float parameters
/// on [-100, 100] that starts 70-90 away from it.
fn two_far_from_the_top(seed: u64) -> (Bowl, Spsa) {
    let bowl = Bowl {
        optimum: vec![30.0, -40.0],
        weight: 0.05,
    };
    let spsa = Spsa::new(
        vec![
            param("x", -100.0, 100.0, -60.0, false),
            param("y", -100.0, 100.0, 50.0, false),
        ],
        Settings::new(40_000, 8, seed),
    )
    .unwrap();
    (bowl, spsa)
}

#[test]
fn spsa_finds_the_top_of_a_smooth_bowl() {
    // Two float parameters, optimum well inside the ranges, far from the starts.
    for seed in [1, 2, 3] {
        let (bowl, spsa) = two_far_from_the_top(seed);
        let mut state = spsa.start_state();
        let rows = spsa.run_serial(&mut state, |job| bowl.play(job, seed));
        assert_eq!(state.pairs_done, 40_000);
        for (i, (&t, &o)) in state.theta.iter().zip(&bowl.optimum).enumerate() {
            // Within 4 of the optimum on a range of 200 (2 %), from 70-90 away
            // (the three seeds end 0.1 to 1.5 away).
            assert!((t - o).abs() < 4.0, "seed {seed}: θ{i} = {t}, optimum {o}");
        }
        assert_eq!(rows.len() as u64, spsa.batches());
        assert_eq!(rows.last(), Some(&state.row()));
    }
}

#[test]
fn a_parameter_whose_optimum_is_past_a_bound_stays_within_it() {
    let bowl = Bowl {
        optimum: vec![150.0, 0.0],
        weight: 0.05,
    };
    let params = vec![
        param("x", -100.0, 100.0, 90.0, false),
        param("n", -100.0, 100.0, 95.0, true),
    ];
    let spsa = Spsa::new(params.clone(), Settings::new(20_000, 16, 7)).unwrap();
    let mut state = spsa.start_state();
    let rows = spsa.run_serial(&mut state, |job| {
        for (i, p) in params.iter().enumerate() {
            for v in [job.plus[i], job.minus[i]] {
                assert!(v >= p.min && v <= p.max, "{} plays {v}", p.name);
            }
        }
        bowl.play(job, 7)
    });
    for row in &rows {
        for (i, p) in params.iter().enumerate() {
            assert!(row.theta[i] >= p.min && row.theta[i] <= p.max);
        }
    }
    // Pushed to the bound and kept there.
    assert!(state.theta[0] > 95.0, "{}", state.theta[0]);
    // The integer one came back towards 0 from 95.
    assert!(state.theta[1].abs() < 15.0, "{}", state.theta[1]);
}

#[test]
fn integer_parameters_play_whole_numbers_on_both_sides_of_theta() {
    let bowl = Bowl {
        optimum: vec![3.0],
        weight: 20.0,
    };
    let p = param("n", 0.0, 10.0, 8.0, true);
    let spsa = Spsa::new(vec![p.clone()], Settings::new(4000, 4, 11)).unwrap();
    let mut state = spsa.start_state();
    let mut plus_higher = 0;
    spsa.run_serial(&mut state, |job| {
        let (plus, minus) = (job.plus[0], job.minus[0]);
        assert_eq!(plus.fract(), 0.0);
        assert_eq!(minus.fract(), 0.0);
        // Each side is θ ± c_k rounded down or up; they differ unless a bound
        // squeezed them together.
        let (theta, c) = (job.theta[0], job.c_k[0]);
        for (side, sign) in [(plus, job.flip[0]), (minus, -job.flip[0])] {
            let x = p.clip(theta + sign * c);
            assert!(side == x.floor() || side == x.ceil(), "{side} from {x}");
        }
        if theta - c >= p.min && theta + c <= p.max {
            assert_ne!(plus, minus, "k {}", job.k);
        }
        if plus > minus {
            plus_higher += 1;
        }
        bowl.play(job, 11)
    });
    assert!(plus_higher > 0);
    assert_eq!(spsa.values(&state)[0].fract(), 0.0);
    assert!((state.theta[0] - 3.0).abs() < 1.5, "{}", state.theta[0]);
}

#[test]
fn a_checkpointed_run_continues_exactly() {
    let bowl = Bowl {
        optimum: vec![10.0, 0.5],
        weight: 0.1,
    };
    let spsa = Spsa::new(
        vec![
            param("x", -50.0, 50.0, 0.0, true),
            param("y", -3.0, 3.0, 2.0, false),
        ],
        Settings::new(3000, 7, 5),
    )
    .unwrap();
    let mut whole = spsa.start_state();
    spsa.run_serial(&mut whole, |job| bowl.play(job, 5));

    let mut first = spsa.start_state();
    for _ in 0..100 {
        let jobs = spsa.next_batch(&first);
        let outcomes: Vec<PairOutcome> = jobs.iter().map(|j| bowl.play(j, 5)).collect();
        spsa.apply(&mut first, &jobs, &outcomes).unwrap();
    }
    let text = serde_json::to_string(&first).unwrap();
    let mut resumed: State = serde_json::from_str(&text).unwrap();
    assert_eq!(resumed, first);
    spsa.run_serial(&mut resumed, |job| bowl.play(job, 5));
    assert_eq!(resumed, whole);
    let bits = |s: &State| s.theta.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&resumed), bits(&whole));
}

#[test]
fn batches_share_flips_and_draws_are_fixed_by_the_seed() {
    let spsa = Spsa::new(
        vec![
            param("x", 0.0, 1.0, 0.5, false),
            param("y", 0.0, 1.0, 0.5, false),
            param("z", 0.0, 1.0, 0.5, false),
        ],
        Settings::new(100, 10, 3),
    )
    .unwrap();
    let state = spsa.start_state();
    let jobs = spsa.next_batch(&state);
    assert_eq!(jobs.len(), 10);
    assert_eq!(jobs[0].k, 1);
    assert!(jobs.iter().all(|j| j.flip == jobs[0].flip));
    assert_eq!(jobs, spsa.next_batch(&state));
    // Over many batches both signs occur for each parameter.
    for i in 0..3 {
        let signs: Vec<f64> = (0..20).map(|b| spsa.flips(b)[i]).collect();
        assert!(signs.contains(&1.0) && signs.contains(&-1.0));
    }
    // A last, short batch.
    let spsa = Spsa::new(
        vec![param("x", 0.0, 1.0, 0.5, false)],
        Settings::new(25, 10, 3),
    )
    .unwrap();
    let mut state = spsa.start_state();
    let mut sizes = Vec::new();
    let rows = spsa.run_serial(&mut state, |_| {
        sizes.push(());
        PairOutcome {
            plus: [GameScore::Draw, GameScore::Draw],
            minus: None,
        }
    });
    assert_eq!(sizes.len(), 25);
    assert_eq!(spsa.batches(), 3);
    assert_eq!(state.batches_done, 3);
    assert_eq!(
        rows.iter().map(|r| r.pairs).collect::<Vec<_>>(),
        [10, 20, 25]
    );
    // Draws only: θ never moves.
    assert_eq!(state.theta, [0.5]);
}

#[test]
fn bad_parameters_are_refused() {
    let ok = param("x", 0.0, 10.0, 5.0, false);
    let s = Settings::new(100, 10, 1);
    let e = Spsa::new(
        vec![Param {
            min: 10.0,
            ..ok.clone()
        }],
        s,
    )
    .unwrap_err();
    assert!(
        matches!(&e, SpsaError::Param { name, error } if name == "x" && error.key == "min"),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("min (10) must be less than max (10)"),
        "{e}"
    );
    let e = Spsa::new(
        vec![Param {
            start: 11.0,
            ..ok.clone()
        }],
        s,
    )
    .unwrap_err();
    assert!(e.to_string().contains("outside [min, max]"), "{e}");
    let e = Spsa::new(
        vec![Param {
            integer: true,
            max: 10.5,
            ..ok.clone()
        }],
        s,
    )
    .unwrap_err();
    assert!(e.to_string().contains("whole"), "{e}");
    let e = Spsa::new(vec![ok.clone()], Settings { batch: 0, ..s }).unwrap_err();
    assert!(
        matches!(&e, SpsaError::Setting(SettingError { key: "batch", .. })),
        "{e}"
    );
    assert!(Spsa::new(Vec::new(), s).is_err());
}

/// Issue 44, item 6: `alpha = 1000` made every gain infinite and θ NaN, which was
/// written to every file. Settings outside the ranges where SPSA can work are
/// refused, naming the key.
#[test]
fn settings_that_cannot_work_are_refused() {
    let ok = param("x", 0.0, 10.0, 5.0, false);
    let s = Settings::new(100, 10, 1);
    Spsa::new(vec![ok.clone()], s).unwrap();
    let cases: [(Settings, &str); 8] = [
        (
            Settings { alpha: 1000.0, ..s },
            "key `alpha`: must be more than 0 and at most 1",
        ),
        (Settings { alpha: 0.0, ..s }, "key `alpha`"),
        (
            Settings {
                alpha: f64::NAN,
                ..s
            },
            "key `alpha`",
        ),
        (Settings { gamma: 0.0, ..s }, "key `gamma`"),
        (Settings { gamma: 0.7, ..s }, "less than alpha = 0.602"),
        (Settings { a_ratio: -0.1, ..s }, "key `a_ratio`"),
        (
            Settings {
                a_ratio: 1e300,
                ..s
            },
            "key `a_ratio`: must be from 0 to 1",
        ),
        (
            Settings {
                a_ratio: f64::INFINITY,
                ..s
            },
            "key `a_ratio`",
        ),
    ];
    for (settings, want) in cases {
        let e = Spsa::new(vec![ok.clone()], settings).unwrap_err();
        assert!(e.to_string().contains(want), "{settings:?}: {e}");
    }
    // At the edges of the ranges the gains are finite.
    let edge = Settings {
        alpha: 1.0,
        gamma: 0.999,
        a_ratio: 1.0,
        ..Settings::new(u64::MAX, 10, 1)
    };
    Spsa::new(vec![ok.clone()], edge).unwrap();
    for (param, want) in [
        (
            Param {
                c_end: 6.0,
                ..ok.clone()
            },
            "c_end = 6 is more than half the range",
        ),
        (
            Param {
                r_end: 1000.0,
                ..ok.clone()
            },
            "r_end = 1000 is too large",
        ),
        (
            Param {
                min: -1e300,
                max: 1e300,
                start: 0.0,
                c_end: 1e299,
                ..ok.clone()
            },
            "not finite numbers",
        ),
    ] {
        let e = Spsa::new(vec![param], s).unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
    }
}

/// Issue 44, item 6: a step that would make θ something other than a number is an
/// error, and the state is left as it was.
#[test]
fn a_batch_that_would_make_theta_nan_applies_nothing() {
    let spsa = Spsa::new(
        vec![param("x", 0.0, 10.0, 5.0, false)],
        Settings::new(100, 4, 1),
    )
    .unwrap();
    let mut state = spsa.start_state();
    let jobs = spsa.next_batch(&state);
    let won = PairOutcome {
        plus: [GameScore::Win, GameScore::Win],
        minus: None,
    };
    let mut bad = jobs.clone();
    bad[2].r_k[0] = f64::NAN;
    let before = state.clone();
    let e = spsa.apply(&mut state, &bad, &[won; 4]).unwrap_err();
    assert!(
        e.to_string().contains("pair 3: θ of `x` would become NaN"),
        "{e}"
    );
    assert_eq!(state, before);
    spsa.apply(&mut state, &jobs, &[won; 4]).unwrap();
    assert_eq!(state.pairs_done, 4);
}
