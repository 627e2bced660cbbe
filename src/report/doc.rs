//! What a report says, independent of its format: a list of blocks (headings, paragraphs,
//! tables, figures, the config) that [`super::html`] and [`super::markdown`] both render,
//! so the two always hold the same tables. Strings here are raw: the renderers escape.

use super::{
    Environment,
    load::{Progress, Tour},
    text::{
        ENGINE_FIGURES, elo, elo_interval, err, first_player, na, nelo, pct, penta, si,
        split_pairs, wdl,
    },
    tuning::Tune,
    viewer::Viewer,
};
use crate::stats::branching::{deepest_shown_of, effective_branching_factor};

/// A table: a heading row and rows of cells; the first `left` columns are text
/// (left-aligned), the rest numbers.
#[derive(Debug)]
pub(crate) struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub left: usize,
}

/// One block of a report.
#[derive(Debug)]
pub(crate) enum Block {
    /// The page title.
    Title(String),
    /// A section heading with its anchor.
    Heading { id: String, text: String },
    /// A paragraph.
    Para(String),
    /// A table.
    Table(Table),
    /// The plot of this name (if it was drawn).
    Figure(String),
    /// A text file shown verbatim in HTML (folded), linked from Markdown.
    File {
        summary: String,
        text: String,
        link: String,
    },
    /// The game viewer (HTML only; Markdown says where it is), with a line about it.
    Viewer { viewer: Box<Viewer>, note: String },
}

/// A report: title and blocks; `contents` lists the section headings for navigation.
#[derive(Debug, Default)]
pub(crate) struct Doc {
    pub title: String,
    pub blocks: Vec<Block>,
    /// The files the footer names for the numbers (default: a run's `summary.json` and
    /// `standings.csv`).
    pub numbers: Option<String>,
}

impl Doc {
    pub(crate) fn heading(&mut self, id: &str, text: &str) {
        self.blocks.push(Block::Heading {
            id: id.into(),
            text: text.into(),
        });
    }

    pub(crate) fn para(&mut self, s: impl Into<String>) {
        self.blocks.push(Block::Para(s.into()));
    }

    fn figure(&mut self, name: &str) {
        self.blocks.push(Block::Figure(name.into()));
    }

    pub(crate) fn table(&mut self, head: &[&str], left: usize, rows: Vec<Vec<String>>) {
        self.blocks.push(Block::Table(Table {
            head: head.iter().map(|s| s.to_string()).collect(),
            rows,
            left,
        }));
    }

    /// The section headings: (anchor, text).
    pub fn contents(&self) -> Vec<(&str, &str)> {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Heading { id, text } => Some((id.as_str(), text.as_str())),
                _ => None,
            })
            .collect()
    }
}

/// The report of a tournament.
pub(crate) fn tournament(t: &Tour, env: &Environment) -> Doc {
    let mut doc = Doc {
        title: format!("arena report: {}", t.summary.name),
        ..Doc::default()
    };
    doc.blocks.push(Block::Title(doc.title.clone()));
    doc.para(headline(t));
    if let Some(progress) = t.progress {
        doc.para(progress_line(t, progress));
    }
    for warning in &t.summary.warnings {
        doc.para(format!("Warning: {warning}"));
    }
    tournament_sections(&mut doc, t, "", "");
    environment(&mut doc, env, Some(t));
    doc
}

/// The report of a tuning run (with its verification match, when played).
pub(crate) fn tuning(tune: &Tune, verification: Option<&Tour>, env: &Environment) -> Doc {
    let mut doc = Doc {
        title: "arena report: tuning".to_string(),
        ..Doc::default()
    };
    if let Some((_, name)) = tune.facts.iter().find(|(k, _)| k == "name") {
        doc.title = format!("arena report: tuning {name}");
    }
    doc.blocks.push(Block::Title(doc.title.clone()));
    let last = tune.rows.last().map_or(0.0, |r| r.0);
    let is_fit = tune.x == "epoch";
    let mut line = if is_fit {
        doc.title = doc.title.replace("tuning", "fit");
        if let Some(Block::Title(t)) = doc.blocks.last_mut() {
            *t = doc.title.clone();
        }
        format!(
            "{} table weights fitted to game results (Texel's method) over {last} epochs.",
            tune.params.len()
        )
    } else {
        // trajectory.csv starts with θ before the first batch (at 0 pairs).
        let batches = tune.rows.iter().filter(|r| r.0 > 0.0).count();
        let fact = |key: &str| {
            tune.facts
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
        };
        let mut line = format!(
            "{} parameters tuned over {} game pairs ({batches} batches recorded).",
            tune.params.len(),
            last,
        );
        if fact("finished") == Some("false") {
            let total: f64 = fact("pairs_total")
                .and_then(|t| t.parse().ok())
                .unwrap_or(0.0);
            let rate: f64 = fact("pairs_per_hour")
                .and_then(|t| t.parse().ok())
                .unwrap_or(0.0);
            let mut progress = format!(" In progress: {last} of {total} pairs");
            if total > 0.0 {
                progress.push_str(&format!(" ({:.1} %)", 100.0 * last / total));
            }
            if rate > 0.0 {
                let hours = (total - last).max(0.0) / rate;
                let left = if hours < 1.0 {
                    format!("{:.0} min", (hours * 60.0).ceil())
                } else {
                    format!("{hours:.1} h")
                };
                progress.push_str(&format!(", {rate:.0} pairs an hour, about {left} to go"));
            }
            progress.push_str("; the tuned values below are θ so far.");
            line.push_str(&progress);
        }
        line
    };
    match verification.and_then(|v| v.summary.pairings.first().map(|p| (v, p))) {
        Some((_, p)) => match &p.estimate {
            Some(e) => line.push_str(&format!(
                " Verification: {} against {}: {} ± {} Elo (95 %), LOS {}, over {} games.",
                p.names[0],
                p.names[1],
                elo(Some(e.elo)),
                err(Some(e.elo_error)),
                pct(Some(e.los)),
                p.wdl.games()
            )),
            None => line.push_str(" Verification: no games yet."),
        },
        None => line.push_str(" No verification match yet (verification/ is missing)."),
    }
    doc.para(line);
    doc.heading("parameters", "Parameters");
    doc.figure("tuning");
    if !tune.losses.is_empty() {
        doc.figure("loss");
    }
    let rows = tune
        .params
        .iter()
        .map(|p| {
            vec![
                p.name.clone(),
                num(p.min),
                num(p.max),
                num(p.start),
                num(p.value),
                format!("{:+}", trim(p.value - p.start)),
                pct(Some(p.fraction(p.start))),
                pct(Some(p.fraction(p.value))),
            ]
        })
        .collect();
    doc.table(
        &[
            "parameter",
            "min",
            "max",
            "start",
            if is_fit { "fitted" } else { "tuned" },
            "change",
            "start in range",
            if is_fit {
                "fitted in range"
            } else {
                "tuned in range"
            },
        ],
        1,
        rows,
    );
    if !tune.facts.is_empty() {
        doc.heading("run", if is_fit { "Fit" } else { "Tuning run" });
        doc.table(
            &["field", "value"],
            2,
            tune.facts
                .iter()
                .map(|(k, v)| vec![k.clone(), v.clone()])
                .collect(),
        );
    }
    if let Some(v) = verification {
        doc.heading("verification", "Verification match");
        doc.para(headline(v));
        tournament_sections(&mut doc, v, "verification-", "verification/");
    }
    doc.blocks.push(Block::File {
        summary: tune.json_name.into(),
        text: tune.json_text.clone(),
        link: tune.json_name.into(),
    });
    environment(&mut doc, env, verification);
    doc
}

fn num(v: f64) -> String {
    trim(v).to_string()
}

/// A value without float noise: up to 4 decimals, trailing zeros dropped.
fn trim(v: f64) -> f64 {
    (v * 1e4).round() / 1e4
}

/// One sentence: who won and how sure we are.
/// What a report made from `games.jsonl` (no `summary.json`, or a run at work) says.
fn progress_line(t: &Tour, progress: Progress) -> String {
    let s = &t.summary;
    match progress {
        Progress::Writing => format!(
            "In progress: {} of {} games{}. The run is still playing: this report is made \
             from its games.jsonl as it is now (arena report --live keeps it up to date).",
            s.games,
            s.scheduled_games,
            if s.scheduled_games > 0 {
                format!(
                    " ({:.1} %)",
                    100.0 * s.games as f64 / s.scheduled_games as f64
                )
            } else {
                String::new()
            }
        ),
        Progress::NoSummary => format!(
            "No summary.json ({} of {} games played): this report is made from games.jsonl \
             (arena stats writes the summary; arena run --resume plays what is missing).",
            s.games, s.scheduled_games
        ),
    }
}

fn headline(t: &Tour) -> String {
    let s = &t.summary;
    let mut line = format!(
        "{}: {} of {} games played{}.",
        s.game,
        s.games,
        s.scheduled_games,
        if s.reproducible {
            ""
        } else {
            " (time-limited: not reproducible)"
        }
    );
    if s.pairings.len() == 1 {
        let p = &s.pairings[0];
        if let Some(e) = &p.estimate {
            line.push_str(&format!(
                " Head-to-head, {} against {}: {} Elo, 95 % interval [{}, {}], LOS {}, {}.",
                p.names[0],
                p.names[1],
                elo(Some(e.elo)),
                elo(Some(e.elo_low)),
                elo(Some(e.elo_high)),
                pct(Some(e.los)),
                wdl(&p.wdl)
            ));
        }
    } else if let Some(&best) = t.order.first() {
        let e = &s.engines[best];
        if e.elo.is_some() {
            line.push_str(&format!(
                " Highest rated: {} at {} ± {} Elo over {} games (relative to {}).",
                e.name,
                elo(e.elo),
                err(e.elo_error),
                e.games,
                if s.ratings_relative_to.is_empty() {
                    "the pool average"
                } else {
                    &s.ratings_relative_to
                }
            ));
        }
    }
    if let Some(sprt) = &s.sprt {
        line.push_str(&format!(
            " SPRT [{}, {}] after {} pairs: {}.",
            sprt.config.elo0,
            sprt.config.elo1,
            sprt.pairs,
            sprt.config.decide(sprt.llr).describe(sprt.llr, sprt.bounds)
        ));
        if let Some(d) = &sprt.debiased {
            line.push_str(&format!(
                " SPRT-debiased Elo (fishtest's median-unbiased estimate): {} [{}, {}].",
                elo(Some(d.elo)),
                elo(Some(d.low)),
                elo(Some(d.high))
            ));
        }
    }
    if t.torn_tail {
        line.push_str(" The last line of games.jsonl is torn (a crash mid-write) and left out.");
    }
    line
}

fn tournament_sections(doc: &mut Doc, t: &Tour, plot_prefix: &str, link_prefix: &str) {
    let s = &t.summary;
    let id = |x: &str| format!("{plot_prefix}{x}");
    doc.heading(&id("standings"), "Standings");
    if s.engines.len() > 1 {
        if s.differences.is_empty() {
            doc.para("The engines differ in nothing but their names.".to_string());
        } else {
            let names: Vec<&str> = s.engines.iter().map(|e| e.name.as_str()).collect();
            doc.para(format!(
                "What differs between the engines ({}): {}.",
                names.join(" | "),
                s.differences
                    .iter()
                    .map(|d| d.describe())
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
    }
    if !s.ratings_relative_to.is_empty() {
        doc.para(format!(
            "Ratings are relative to {}; the pairings below give each head-to-head.",
            s.ratings_relative_to
        ));
    }
    doc.figure(&id("elo"));
    let rows = t
        .order
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let e = &s.engines[i];
            vec![
                (rank + 1).to_string(),
                e.name.clone(),
                e.description.clone(),
                elo(e.elo),
                err(e.elo_error),
                e.games.to_string(),
                format!("{:.1} %", 100.0 * e.score),
                format!("{}-{}-{}", e.wdl.wins, e.wdl.draws, e.wdl.losses),
                // An engine that reported no figures: "n/a", not 0.
                na(e.reports_nodes(), si(e.nodes_mean)),
                na(e.reports_nodes(), si(e.nodes_median)),
                na(e.reports_depth(), format!("{:.2}", e.depth_mean)),
                na(e.reports_nodes(), si(e.nps)),
                format!("{:.1}", e.game_length),
            ]
        })
        .collect();
    let mut head = vec!["rank", "engine", "setup", "Elo", "±95 %"];
    head.extend(ENGINE_FIGURES);
    doc.table(&head, 3, rows);
    if let Some(note) = &s.ratings_note {
        doc.para(format!("Ratings: {note}."));
    }
    doc.heading(&id("pairings"), "Pairings");
    doc.figure(&id("head-to-head"));
    let rows = s
        .pairings
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let e = p.estimate.as_ref();
            vec![
                t.pairing_label(i),
                p.wdl.games().to_string(),
                wdl(&p.wdl),
                penta(&p.penta, " "),
                elo_interval(e),
                nelo(e),
                pct(e.map(|e| e.los)),
                pct(e.map(|e| e.draw_ratio)),
                first_player(p.first_player.as_ref(), p.first_player_score, " %"),
                split_pairs(&p.pair_shares, " of "),
                format!("{:.1}", p.game_length),
            ]
        })
        .collect();
    doc.table(
        &[
            "pairing (first engine's view)",
            "games",
            "W D L",
            "pairs LL..WW",
            "Elo [95 %]",
            "nElo ±95 %",
            "LOS",
            "draws",
            "first player [95 %]",
            "split pairs",
            "plies",
        ],
        1,
        rows,
    );
    doc.para(
        "Pairs LL..WW: complete colour-swapped game pairs by the first engine's points in \
         the pair (0, ½, 1, 1½, 2). Elo and its interval come from the pairs when there are \
         any (pentanomial), else from single games. First player: the score of black, who \
         moves first from the empty board or the start position. Split pairs: pairs of a \
         win and a loss (each engine won one game), which say nothing about which engine is \
         better.",
    );
    if let Some(fp) = &s.first_player {
        doc.para(format!(
            "Over all games the first player scored {} ({} games); {}.",
            first_player(Some(fp), None, " %"),
            fp.games,
            s.pair_shares.describe()
        ));
    }
    doc.figure(&id("convergence"));
    doc.figure(&id("sprt"));
    doc.heading(&id("search"), "Search effort");
    doc.figure(&id("nodes-per-move"));
    doc.figure(&id("nodes-by-depth"));
    let dmax = deepest_shown_of(s.engines.iter().map(|e| e.nodes_by_depth.as_slice())).unwrap_or(0);
    let deepest = s
        .engines
        .iter()
        .flat_map(|e| e.nodes_by_depth.iter().map(|d| d.0))
        .max()
        .unwrap_or(0);
    if dmax > 0 {
        let mut head: Vec<String> = vec!["engine".into(), "EBF".into()];
        head.extend((1..=dmax).map(|d| format!("depth {d}")));
        let rows = t
            .order
            .iter()
            .map(|&i| {
                let e = &s.engines[i];
                let mut row = vec![
                    e.name.clone(),
                    effective_branching_factor(&e.nodes_by_depth)
                        .map_or("-".into(), |v| format!("{v:.2}")),
                ];
                row.extend((1..=dmax).map(|d| {
                    e.nodes_by_depth
                        .iter()
                        .find(|x| x.0 == d)
                        .map_or("-".into(), |x| si(x.2))
                }));
                row
            })
            .collect();
        doc.blocks.push(Block::Table(Table {
            head,
            rows,
            left: 1,
        }));
        let mut note = "Mean nodes searched (cumulative) when each depth was completed, over \
                        the moves that completed it."
            .to_string();
        if deepest > dmax {
            note.push_str(&format!(
                " Depths that fewer than a tenth of an engine's moves completed are left out \
                 (up to depth {deepest}, in positions already decided, where an iteration \
                 costs next to nothing); summary.json's nodes_by_depth has every depth."
            ));
        }
        doc.para(note);
    }
    doc.figure(&id("nps"));
    let tiny: Vec<&str> = t
        .order
        .iter()
        .map(|&i| &s.engines[i])
        // An engine that reports no nodes has no rate to doubt (n/a).
        .filter(|e| e.moves > 0 && e.reports_nodes() && e.nodes_mean < TINY_SEARCH_NODES)
        .map(|e| e.name.as_str())
        .collect();
    if !tiny.is_empty() {
        doc.para(format!(
            "Nodes per second of {}: these searches average under {} nodes a move, so the \
             time measured is mostly the clock's and the search's set-up: the rate says \
             little about speed (time a deeper search, or arena bench).",
            tiny.join(", "),
            TINY_SEARCH_NODES
        ));
    }
    doc.heading(&id("games"), "Games");
    doc.figure(&id("game-length"));
    doc.figure(&id("first-player"));
    if !s.reasons.is_empty() {
        doc.table(
            &["how games ended", "games"],
            1,
            s.reasons
                .iter()
                .map(|(k, v)| vec![k.clone(), v.to_string()])
                .collect(),
        );
    }
    doc.para(
        "Results are from black's side, as games.jsonl has them: 1-0 is a win for black \
         (x, the first player), 0-1 a win for white (o). The PGN of arena export follows \
         chess instead, where 1-0 is a win for White; arena export --result-convention \
         ataxx writes black's win as 1-0, as cuteataxx does.",
    );
    if let Some(v) = &t.viewer {
        doc.heading(&id("viewer"), "Game viewer");
        let held = if v.shown < v.total {
            format!(
                "{} of the {} games (the first ones; every game: arena export)",
                v.shown, v.total
            )
        } else {
            format!("all {} games", v.total)
        };
        doc.blocks.push(Block::Viewer {
            viewer: Box::new(v.clone()),
            note: format!(
                "Pick a game, then step through it (buttons, the slider, the arrow keys, or \
                 a click on a move); each move shows the mover's depth, nodes, score (in its \
                 evaluation's units, or a forced win or loss) and time. The viewer holds \
                 {held}; the last move is ringed, an Ataxx jump's origin and the stones it \
                 turned are shaded. Link to a position with report.html#game=N&ply=P."
            ),
        });
    }
    doc.heading(&id("config"), "Config");
    doc.para(format!(
        "Master seed {}. Every game's seed is derived from it and the game's index, so the \
         same config and seed replay the same games{}.",
        s.seed,
        if s.reproducible {
            ""
        } else {
            " (except that time limits make these games differ)"
        }
    ));
    if t.config_text.is_empty() {
        doc.para("run.toml is missing from the results folder.");
    } else {
        doc.blocks.push(Block::File {
            summary: format!("{link_prefix}run.toml: the exact config of this run"),
            text: t.config_text.clone(),
            link: format!("{link_prefix}run.toml"),
        });
    }
}

/// Below this mean of nodes per move a search is too short to time (tic-tac-toe).
pub(crate) const TINY_SEARCH_NODES: f64 = 1000.0;

fn environment(doc: &mut Doc, env: &Environment, t: Option<&Tour>) {
    doc.heading("environment", "Environment");
    let mut rows = vec![
        vec!["arena".into(), env.arena_version.clone()],
        vec![
            "arena commit".into(),
            env.arena_commit
                .clone()
                .unwrap_or_else(|| "not known (not built from a git checkout)".into()),
        ],
        vec!["OS".into(), env.os.clone()],
        vec![
            "CPU".into(),
            env.cpu.clone().unwrap_or_else(|| "unknown".into()),
        ],
        vec!["cores".into(), env.cores.to_string()],
    ];
    let threads = match (env.threads, t.and_then(|t| t.concurrency)) {
        (Some(n), _) => n.to_string(),
        (None, Some(0)) => "not recorded (config: jobs = 0, all cores)".into(),
        (None, Some(c)) => format!("not recorded (config: jobs = {c})"),
        (None, None) => "not recorded".into(),
    };
    rows.push(vec!["worker threads".into(), threads]);
    if let Some(t) = t {
        rows.push(vec!["master seed".into(), t.summary.seed.to_string()]);
    }
    rows.push(vec!["date".into(), env.date.clone()]);
    doc.table(&["", ""], 2, rows);
    doc.para(if env.recorded_by_run {
        "The machine that played the games, as the run recorded it (environment.json)."
    } else {
        "The run recorded no environment (environment.json): this is the machine that \
         wrote the report, on the date it did."
    });
}
