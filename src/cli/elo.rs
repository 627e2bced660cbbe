//! `arena elo`: the statistics layer as a calculator — Elo, nElo, LOS and draw ratio of a
//! match result typed on the command line, optionally its SPRT verdict, and the plan of an
//! SPRT (pass probability and expected length) before it runs.

use std::io::{self, Write};

use anyhow::{Result, bail};
use arena::stats::{
    EloEstimate, Penta, PlanError, ResultSpread, SprtConfig, SprtDecision, SprtModel, Wdl,
    sprt_plan::{self, DEFAULT_DRAW_RATIO, DEFAULT_RMS_BIAS},
};
use clap::{ArgGroup, Args, ValueEnum};

/// α and β when `--sprt` gives only the two Elo bounds (a config's `[sprt]` has the same).
const DEFAULT_ERROR_RATE: f64 = arena::stats::DEFAULT_ERROR_RATE;

/// Elo, nElo, LOS and draw ratio of a match result, optionally an SPRT, or the plan of an
/// SPRT.
#[derive(Args, Debug)]
#[command(
    group(ArgGroup::new("results").args(["wdl", "penta"])),
    after_help = "All results are from the first engine's point of view. Intervals are 95 %.\n\
                  Examples:\n  \
                  arena elo --wdl 136,111,96\n  \
                  arena elo --penta 34,54,31,32,64,75 --sprt 0,5\n  \
                  arena elo --wdl 36433,68692,36027 --sprt 0,2 --model normalized\n  \
                  arena elo --wdl 21629,41111,21484 --sprt 0.5,2.5 --model bayesian\n\
                  Planning an SPRT (fishtest's sprt_calc; Wald's approximations):\n  \
                  arena elo --sprt 0,5 --plan 2.5\n  \
                  arena elo --sprt 0,5 --plan -1,0,2.5,5 --draw-ratio 0.2 --rms-bias 300\n  \
                  arena elo --sprt 0,5 --plan 2.5 --penta 34,54,31,32,64,75   (spread of a past match)"
)]
pub struct EloArgs {
    /// Game results: wins, draws, losses.
    #[arg(long, value_name = "W,D,L", value_parser = parse_wdl)]
    wdl: Option<Wdl>,
    /// Colour-swapped game pairs by pair result: LL,LD,WL,DD,WD,WW (fastchess order), or
    /// LL,LD,WL+DD,WD,WW (then the draw ratio is unknown).
    #[arg(long, value_name = "LL,LD,WL,DD,WD,WW", value_parser = parse_penta)]
    penta: Option<Penta>,
    /// Also run an SPRT of H0: elo = ELO0 against H1: elo = ELO1, with false positive
    /// rate ALPHA and false negative rate BETA (both default 0.05, each in (0, 0.5)).
    #[arg(
        long,
        value_name = "ELO0,ELO1[,ALPHA,BETA]",
        value_parser = parse_sprt,
        allow_hyphen_values = true
    )]
    sprt: Option<SprtConfig>,
    /// How the SPRT's ELO0 and ELO1 are measured: logistic Elo, normalized Elo (nElo,
    /// independent of the draw ratio), or BayesElo (fastchess's bayesian model: its draw
    /// Elo is estimated from the results; runs on games, also inside pairs).
    #[arg(long, value_enum, default_value_t = ModelArg::Logistic, requires = "sprt")]
    model: ModelArg,
    /// Plan the --sprt test instead of (or besides) judging results: its probability of
    /// accepting H1 and the expected number of game pairs and games to a decision if the
    /// true Elo (in the --model's units) is ELO; several values may be given. The spread
    /// of the results comes from --draw-ratio and --rms-bias, else from --wdl/--penta if
    /// given, else fishtest's sprt_calc defaults (draw ratio 0.49, RMS bias 191).
    #[arg(
        long,
        value_name = "ELO[,ELO...]",
        value_parser = parse_plan,
        allow_hyphen_values = true,
        requires = "sprt"
    )]
    plan: Option<PlanElos>,
    /// For --plan: the fraction of drawn games between equal engines (default 0.49).
    #[arg(long, value_name = "RATIO", requires = "plan")]
    draw_ratio: Option<f64>,
    /// For --plan: the root mean square of the openings' bias for one colour, in logistic
    /// Elo (default 191, fishtest's book; 0: the two games of a pair are independent).
    #[arg(long, value_name = "ELO", requires = "plan")]
    rms_bias: Option<f64>,
}

/// `--model` values (kept here so the statistics layer does not depend on clap).
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ModelArg {
    Logistic,
    Normalized,
    Bayesian,
}

impl From<ModelArg> for SprtModel {
    fn from(m: ModelArg) -> SprtModel {
        match m {
            ModelArg::Logistic => SprtModel::Logistic,
            ModelArg::Normalized => SprtModel::Normalized,
            ModelArg::Bayesian => SprtModel::Bayesian,
        }
    }
}

pub fn elo(args: EloArgs) -> Result<()> {
    if args.wdl.is_none() && args.penta.is_none() {
        let Some(plan) = &args.plan else {
            bail!(
                "give the results to rate (--wdl W,D,L or --penta LL,LD,WL,DD,WD,WW), or plan \
                 an SPRT with --sprt ELO0,ELO1 --plan ELO"
            );
        };
        let mut out = io::stdout().lock();
        return print_plan(&mut out, &args, &plan.0);
    }
    let mut out = io::stdout().lock();
    let estimate = match (&args.wdl, &args.penta) {
        (Some(wdl), _) => {
            writeln!(
                out,
                "games       {} (wins {}, draws {}, losses {})",
                wdl.games(),
                wdl.wins,
                wdl.draws,
                wdl.losses
            )?;
            wdl.estimate()
        }
        (None, Some(penta)) => {
            let [ll, ld, mid, wd, ww] = penta.counts;
            let middle = match penta.dd {
                Some(dd) => format!("WL {}, DD {dd}", mid - dd),
                None => format!("WL+DD {mid}"),
            };
            writeln!(
                out,
                "pairs       {} (LL {ll}, LD {ld}, {middle}, WD {wd}, WW {ww}), games {}",
                penta.pairs(),
                penta.games()
            )?;
            penta.estimate()
        }
        (None, None) => unreachable!("clap requires --wdl or --penta"),
    };
    match estimate {
        Some(e) => print_estimate(&mut out, &e)?,
        None => writeln!(out, "no games: nothing to estimate")?,
    }

    if let Some(mut sprt) = args.sprt {
        sprt.model = args.model.into();
        if sprt.model == SprtModel::Bayesian
            && let Some(penta) = &args.penta
        {
            let Some(wdl) = penta.wdl() else {
                bail!(
                    "--model bayesian runs on games: give --penta in the six-number form \
                     LL,LD,WL,DD,WD,WW (WL and DD apart), or --wdl"
                );
            };
            writeln!(
                out,
                "note        the bayesian model runs on the {} games inside the pairs \
                 (wins {}, draws {}, losses {}), as fastchess's does",
                wdl.games(),
                wdl.wins,
                wdl.draws,
                wdl.losses
            )?;
        }
        let llr = match (&args.wdl, &args.penta) {
            (Some(wdl), _) => sprt.llr_wdl(wdl),
            (None, Some(penta)) => sprt.llr_penta(penta),
            (None, None) => unreachable!("clap requires --wdl or --penta"),
        };
        if llr.is_nan() {
            bail!(
                "--sprt: the {} model cannot fit elo0 = {} or elo1 = {} to these results; \
                 use bounds closer to the measured Elo or the logistic model",
                sprt.model,
                sprt.elo0,
                sprt.elo1
            );
        }
        let (lower, upper) = sprt.bounds();
        writeln!(
            out,
            "SPRT        {} model, H0 elo = {:.2}, H1 elo = {:.2}, alpha {}, beta {}",
            sprt.model, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        )?;
        let decision = sprt.decide(llr);
        writeln!(out, "LLR         {llr:.2} (bounds {lower:.2}, {upper:.2})")?;
        writeln!(out, "decision    {decision}")?;
        writeln!(
            out,
            "verdict     {}",
            decision.describe(llr, (lower, upper))
        )?;
        let debiased = match (&args.wdl, &args.penta) {
            (Some(wdl), _) => sprt.debiased_wdl(wdl),
            (None, Some(penta)) => sprt.debiased_penta(penta),
            (None, None) => unreachable!("clap requires --wdl or --penta"),
        };
        if let Some(d) = debiased.filter(|_| decision != SprtDecision::Continue) {
            writeln!(
                out,
                "debiased    Elo {:.2} in [{:.2}, {:.2}], LOS {:.2} % (fishtest's median-unbiased \
                 estimate for a test that stopped here{})",
                d.elo,
                d.low,
                d.high,
                100.0 * d.los,
                if d.clamped {
                    "; the LLR overshot the bound, so it is taken as stopped at the bound"
                } else {
                    ""
                }
            )?;
        }
    }
    if let Some(plan) = &args.plan {
        print_plan(&mut out, &args, &plan.0)?;
    }
    Ok(())
}

/// `--plan`: the pass probability and expected length of the `--sprt` test at each Elo.
fn print_plan(out: &mut impl Write, args: &EloArgs, elos: &[f64]) -> Result<()> {
    let Some(mut sprt) = args.sprt else {
        bail!("--plan needs --sprt ELO0,ELO1");
    };
    sprt.model = args.model.into();
    let (spread, source) = if args.draw_ratio.is_some() || args.rms_bias.is_some() {
        let draw_ratio = args.draw_ratio.unwrap_or(DEFAULT_DRAW_RATIO);
        let rms_bias = args.rms_bias.unwrap_or(DEFAULT_RMS_BIAS);
        let spread = ResultSpread::from_draw_ratio(draw_ratio, rms_bias)
            .map_err(|e| anyhow::anyhow!("--plan: {e}"))?;
        (
            spread,
            format!(
                "draw ratio {:.2} %, RMS bias {rms_bias:.1} Elo{}",
                100.0 * draw_ratio,
                if args.draw_ratio.is_none() || args.rms_bias.is_none() {
                    " (the one not given is fishtest's sprt_calc default)"
                } else {
                    ""
                }
            ),
        )
    } else if let Some(wdl) = &args.wdl {
        let Some(spread) = ResultSpread::from_wdl(wdl) else {
            bail!(
                "--plan: these results have no spread to plan from (every game scored the \
                 same); give --draw-ratio and --rms-bias"
            );
        };
        (
            spread,
            "the spread of the --wdl results (games: no pair correlation)".to_string(),
        )
    } else if let Some(penta) = &args.penta {
        let Some(spread) = ResultSpread::from_penta(penta) else {
            bail!(
                "--plan: these pairs have no spread to plan from (fewer than 2, or every \
                 pair scored the same); give --draw-ratio and --rms-bias"
            );
        };
        (spread, "the spread of the --penta pairs".to_string())
    } else {
        let spread = ResultSpread::from_draw_ratio(DEFAULT_DRAW_RATIO, DEFAULT_RMS_BIAS)
            .expect("fishtest's defaults fit together");
        (
            spread,
            format!(
                "draw ratio {:.2} %, RMS bias {DEFAULT_RMS_BIAS:.1} Elo (fishtest's sprt_calc \
                 defaults; set --draw-ratio and --rms-bias, or give a past match's --wdl or \
                 --penta)",
                100.0 * DEFAULT_DRAW_RATIO
            ),
        )
    };
    writeln!(
        out,
        "plan        {} model, H0 elo = {:.2}, H1 elo = {:.2}, alpha {}, beta {}, on {} \
         (Wald's approximations, as fishtest's sprt_calc: a real test overshoots its bound \
         and runs a little longer)",
        sprt.model,
        sprt.elo0,
        sprt.elo1,
        sprt.alpha,
        sprt.beta,
        if sprt.model == SprtModel::Bayesian {
            "games"
        } else {
            "game pairs"
        }
    )?;
    writeln!(
        out,
        "assuming    {source}: sigma per game {:.4} (in pairs {:.4})",
        spread.game_variance.sqrt(),
        spread.pair_variance.sqrt()
    )?;
    for &elo in elos {
        let p = sprt_plan::plan(&sprt, &spread, elo).map_err(|e| anyhow::anyhow!("--plan: {e}"))?;
        let logistic = if sprt.model == SprtModel::Logistic {
            String::new()
        } else {
            format!(" (logistic Elo {:.2})", p.logistic_elo)
        };
        writeln!(
            out,
            "if elo {elo:.2}{logistic}: pass {:.2} %, expected {:.0} game pairs ({:.0} games) \
             to a decision",
            100.0 * p.pass_probability,
            p.expected_pairs(),
            p.expected_games
        )?;
    }
    Ok(())
}

fn print_estimate(out: &mut impl Write, e: &EloEstimate) -> io::Result<()> {
    writeln!(out, "score       {:.4}", e.score)?;
    if e.elo_error.is_finite() {
        writeln!(
            out,
            "Elo         {} (95 %; +/- {:.2} is half its width)",
            elo_with_interval(e),
            e.elo_error
        )?;
    } else {
        writeln!(out, "Elo         {} (95 %)", elo_with_interval(e))?;
    }
    writeln!(
        out,
        "nElo        {} +/- {} (95 %)",
        fmt_number(e.nelo),
        fmt_number(e.nelo_error)
    )?;
    writeln!(out, "LOS         {:.2} %", 100.0 * e.los)?;
    if e.draw_ratio.is_nan() {
        writeln!(out, "draw ratio  unknown (WL and DD pairs not told apart)")?;
    } else {
        writeln!(out, "draw ratio  {:.2} %", 100.0 * e.draw_ratio)?;
    }
    writeln!(
        out,
        "model       {}",
        if e.pentanomial {
            "pentanomial (game pairs)"
        } else {
            "trinomial (games)"
        }
    )?;
    for caveat in e.caveats() {
        writeln!(out, "warning     {caveat}")?;
    }
    Ok(())
}

/// `381.70 in [289.62, 546.71]`: the Elo and its (asymmetric) interval.
pub(crate) fn elo_with_interval(e: &EloEstimate) -> String {
    format!(
        "{} in [{}, {}]",
        fmt_number(e.elo),
        fmt_number(e.elo_low),
        fmt_number(e.elo_high)
    )
}

/// Two decimals, with a sign for infinities (`+inf`, `-inf`).
fn fmt_number(x: f64) -> String {
    if x == f64::INFINITY {
        "+inf".to_string()
    } else if x == f64::NEG_INFINITY {
        "-inf".to_string()
    } else if x.is_nan() {
        // Unknown: nElo from too few games or pairs.
        "n/a".to_string()
    } else {
        format!("{x:.2}")
    }
}

/// Why a value of `arena elo`'s flags (`--wdl`, `--penta`, `--sprt`, `--plan`) cannot be
/// read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EloArgError {
    /// A part between commas is not a number of the kind wanted.
    #[error("'{part}' is not a valid {what}")]
    NotANumber {
        /// The part, trimmed.
        part: String,
        /// `game count`, `pair count` or `number`.
        what: &'static str,
    },
    /// The counts add up to more than f64 counts exactly.
    #[error("the counts add up to more than {}", MAX_TOTAL)]
    TooLarge,
    /// `--wdl` without 3 counts.
    #[error("expected 3 counts W,D,L, got {0}")]
    WdlCount(usize),
    /// `--penta` without 5 or 6 counts.
    #[error("expected 6 counts LL,LD,WL,DD,WD,WW or 5 counts LL,LD,WL+DD,WD,WW, got {0}")]
    PentaCount(usize),
    /// `--sprt` without 2 or 4 numbers.
    #[error("expected ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA, got {0} numbers")]
    SprtCount(usize),
    /// The bounds or error rates fail [`SprtConfig::validate`].
    #[error("{0}")]
    Sprt(String),
    /// A planned Elo that cannot be planned.
    #[error(transparent)]
    Plan(#[from] PlanError),
}

/// Splits `text` at commas into numbers, naming `what` on error.
fn numbers<T: std::str::FromStr>(text: &str, what: &'static str) -> Result<Vec<T>, EloArgError> {
    text.split(',')
        .map(|part| {
            let part = part.trim();
            part.parse().map_err(|_| EloArgError::NotANumber {
                part: part.to_string(),
                what,
            })
        })
        .collect()
}

/// Counts beyond this are typos: 2⁵³ is where f64 stops counting exactly.
const MAX_TOTAL: u64 = 1 << 53;

/// Splits `text` into counts whose total stays below [`MAX_TOTAL`].
fn counts(text: &str, what: &'static str) -> Result<Vec<u64>, EloArgError> {
    let counts = numbers::<u64>(text, what)?;
    if counts
        .iter()
        .try_fold(0u64, |t, &c| t.checked_add(c))
        .is_none_or(|t| t > MAX_TOTAL)
    {
        return Err(EloArgError::TooLarge);
    }
    Ok(counts)
}

fn parse_wdl(text: &str) -> Result<Wdl, EloArgError> {
    match counts(text, "game count")?[..] {
        [wins, draws, losses] => Ok(Wdl::new(wins, draws, losses)),
        ref other => Err(EloArgError::WdlCount(other.len())),
    }
}

fn parse_penta(text: &str) -> Result<Penta, EloArgError> {
    match counts(text, "pair count")?[..] {
        [ll, ld, wl, dd, wd, ww] => Ok(Penta::from_six(ll, ld, wl, dd, wd, ww)),
        [ll, ld, mid, wd, ww] => Ok(Penta::from_counts([ll, ld, mid, wd, ww])),
        ref other => Err(EloArgError::PentaCount(other.len())),
    }
}

/// `--plan`'s Elo values (a newtype: clap reads a bare `Vec` as repeated options).
#[derive(Clone, Debug)]
struct PlanElos(Vec<f64>);

/// Parses `--plan`'s Elo values.
fn parse_plan(text: &str) -> Result<PlanElos, EloArgError> {
    let values = numbers::<f64>(text, "number")?;
    if let Some(&bad) = values.iter().find(|v| !v.is_finite()) {
        return Err(PlanError::Elo(bad).into());
    }
    Ok(PlanElos(values))
}

/// Parses and validates the bounds and error rates; the model is set from `--model`.
pub(crate) fn parse_sprt(text: &str) -> Result<SprtConfig, EloArgError> {
    let values = numbers::<f64>(text, "number")?;
    let (elo0, elo1, alpha, beta) = match values[..] {
        [elo0, elo1] => (elo0, elo1, DEFAULT_ERROR_RATE, DEFAULT_ERROR_RATE),
        [elo0, elo1, alpha, beta] => (elo0, elo1, alpha, beta),
        _ => {
            return Err(EloArgError::SprtCount(values.len()));
        }
    };
    let config = SprtConfig {
        elo0,
        elo1,
        alpha,
        beta,
        model: SprtModel::Logistic,
    };
    config.validate().map_err(EloArgError::Sprt)?;
    Ok(config)
}
