//! What a tune writes: `tuned.toml` (the base table in its own format, comments and
//! layout kept, tuned values in place), `tuned-engine.toml` (the base engine file pointing
//! at it, with tuned or overridden `[search]` values), `trajectory.csv` (θ after every
//! batch), `tune.json` (the table of parameters and the run's numbers, for scripts and the
//! report) and the checkpoint `state.json`. Every file is written to a temporary name and
//! renamed, so a crash never leaves half a file.

use std::{
    fmt::Write as _,
    fs,
    io::Write as _,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};
use toml_edit::{DocumentMut, Item};

pub use super::verify::{VERIFICATION_DIR, VerificationReport};
use super::{
    TuneError,
    config::Tune,
    spsa::{Spsa, State, TrajectoryRow},
};
pub use crate::jobs::folder::{CONFIG_FILE, STATE_FILE};
use crate::{
    engine::EngineConfig,
    jobs::{
        checkpoint::{damaged, read_json},
        folder::{write_atomic, write_durable, write_report},
    },
    protocol::EngineSpec,
    stats::Penta,
};

/// θ after every batch.
pub const TRAJECTORY_FILE: &str = "trajectory.csv";
/// The run's numbers.
pub const REPORT_FILE: &str = "tune.json";
/// The tuned weight table.
pub const TABLE_FILE: &str = "tuned.toml";
/// The tuned engine config.
pub const ENGINE_FILE: &str = "tuned-engine.toml";

/// Version of the checkpoint format.
const CHECKPOINT_FORMAT: u32 = 1;

/// What `state.json` holds: the SPSA state and what it belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Format version.
    pub format: u32,
    /// The tune's resolved config (a resume must match it).
    pub config: String,
    /// θ, pairs and batches done, results, trajectory.
    pub state: State,
    /// Seconds spent playing, over every session.
    pub elapsed_s: f64,
    /// When the last batch was applied (seconds since 1970), so that the next one counts
    /// the time since; none before the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_at: Option<f64>,
}

impl Checkpoint {
    /// A checkpoint of `state` for `tune`.
    pub fn new(tune: &Tune, state: State, elapsed_s: f64) -> Checkpoint {
        Checkpoint {
            format: CHECKPOINT_FORMAT,
            config: tune.resolved_toml(),
            state,
            elapsed_s,
            applied_at: None,
        }
    }

    /// Reads `state.json` from `dir` (None when there is none).
    pub fn read(dir: &Path) -> Result<Option<Checkpoint>, TuneError> {
        let path = dir.join(STATE_FILE);
        let Some((checkpoint, text)) = read_json::<Checkpoint>(&path, "a tuning checkpoint")?
        else {
            return Ok(None);
        };
        if checkpoint.format != CHECKPOINT_FORMAT {
            return Err(damaged(
                &path,
                &text,
                "format",
                format!(
                    "checkpoint format {} is not {CHECKPOINT_FORMAT}",
                    checkpoint.format
                ),
            ));
        }
        Ok(Some(checkpoint))
    }

    /// Checks that the state can belong to `spsa`'s run: one θ per parameter, each a
    /// number within its range, as many pairs as the batches done hold, pentanomial
    /// counts that add up to them. `dir` is where it was read from, for the message
    /// (`state.json:LINE: ...`), which names the key at fault.
    pub fn check(&self, dir: &Path, spsa: &Spsa) -> Result<(), TuneError> {
        let path = dir.join(STATE_FILE);
        let text = fs::read_to_string(&path).unwrap_or_default();
        let fail = |key: &str, what: String| Err(damaged(&path, &text, key, what));
        let state = &self.state;
        let params = spsa.params();
        if state.theta.len() != params.len() {
            return fail(
                "theta",
                format!(
                    "{} values for {} parameters",
                    state.theta.len(),
                    params.len()
                ),
            );
        }
        for (p, &t) in params.iter().zip(&state.theta) {
            if !(t >= p.min && t <= p.max) {
                return fail(
                    "theta",
                    format!("{} = {t} is outside [{}, {}]", p.name, p.min, p.max),
                );
            }
        }
        let settings = spsa.settings();
        if state.batches_done > spsa.batches() {
            return fail(
                "batches_done",
                format!(
                    "{} of a run of {} batches",
                    state.batches_done,
                    spsa.batches()
                ),
            );
        }
        let pairs = state
            .batches_done
            .saturating_mul(settings.batch)
            .min(settings.pairs);
        if state.pairs_done != pairs {
            return fail(
                "pairs_done",
                format!(
                    "{} pairs after {} batches of {} (it must be {pairs})",
                    state.pairs_done, state.batches_done, settings.batch
                ),
            );
        }
        if let Some(dd) = state.penta.dd
            && dd > state.penta.counts[2]
        {
            return fail(
                "dd",
                format!(
                    "{dd} double draws among {} pairs scored ½",
                    state.penta.counts[2]
                ),
            );
        }
        if state.penta.pairs() != state.pairs_done {
            return fail(
                "penta",
                format!(
                    "the counts add up to {} pairs, not pairs_done = {}",
                    state.penta.pairs(),
                    state.pairs_done
                ),
            );
        }
        // The minus engine's pairs against the opponent: one per pair with an opponent
        // (none yet before the first), none without one.
        let opponent = plays_opponent(&self.config);
        match (&state.minus_penta, opponent) {
            (Some(m), true) if m.pairs() != state.pairs_done => {
                return fail(
                    "minus_penta",
                    format!(
                        "the counts add up to {} pairs, not pairs_done = {}",
                        m.pairs(),
                        state.pairs_done
                    ),
                );
            }
            (None, true) if state.pairs_done > 0 => {
                return fail(
                    "pairs_done",
                    "no minus_penta: this tune plays an opponent, and the checkpoint holds \
                     the minus engine's pairs against it"
                        .into(),
                );
            }
            (Some(_), false) => {
                return fail(
                    "minus_penta",
                    "this tune has no opponent (the plus engine plays the minus engine)".into(),
                );
            }
            _ => {}
        }
        if !(self.elapsed_s.is_finite() && self.elapsed_s >= 0.0) {
            return fail("elapsed_s", format!("{} is not a duration", self.elapsed_s));
        }
        Ok(())
    }
}

/// Whether a checkpoint's resolved config plays an opponent (an `[opponent]` table).
fn plays_opponent(resolved: &str) -> bool {
    toml::from_str::<toml::Table>(resolved).is_ok_and(|t| t.contains_key("opponent"))
}

/// One parameter's line of `tune.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamReport {
    /// The named parameter.
    pub name: String,
    /// Lowest value.
    pub min: f64,
    /// Highest value.
    pub max: f64,
    /// The base engine's value.
    pub start: f64,
    /// The tuned value (θ clipped, rounded for integers): what `tuned.toml` holds.
    pub value: f64,
    /// θ itself (unrounded).
    pub theta: f64,
    /// Whether the parameter is an integer.
    pub integer: bool,
    /// c = c_end · N^γ.
    pub c: f64,
    /// Perturbation at the last pair.
    pub c_end: f64,
    /// Perturbation at the current pair.
    pub c_k: f64,
    /// Learning-rate numerator a.
    pub a: f64,
    /// Learning rate at the current pair.
    pub r_k: f64,
    /// Learning rate at the last pair.
    pub r_end: f64,
}

/// Everything `tune.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneReport {
    /// Run name.
    pub name: String,
    /// Game.
    pub game: String,
    /// Base engine name.
    pub engine: String,
    /// Master seed.
    pub seed: u64,
    /// Total game pairs N.
    pub pairs_total: u64,
    /// Pairs played.
    pub pairs_done: u64,
    /// Pairs per batch.
    pub batch: u64,
    /// Batches played.
    pub batches_done: u64,
    /// Whether every pair has been played.
    pub finished: bool,
    /// A = a_ratio · N.
    #[serde(rename = "A")]
    pub big_a: f64,
    /// a_ratio.
    pub a_ratio: f64,
    /// α.
    pub alpha: f64,
    /// γ.
    pub gamma: f64,
    /// The parameters.
    pub params: Vec<ParamReport>,
    /// The plus engine's game pairs against the minus engine, or against the opponent
    /// when the tune has one (pentanomial).
    pub plus_penta: Penta,
    /// The opponent's name, when the plus and minus engines each played it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
    /// With an opponent: the minus engine's game pairs against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minus_penta: Option<Penta>,
    /// Seconds spent playing, over every session.
    pub elapsed_s: f64,
    /// Measured speed.
    pub pairs_per_hour: f64,
    /// Whether the games are reproducible (no time limits).
    pub reproducible: bool,
    /// The files written, relative to this one.
    pub files: Vec<String>,
    /// The verification match, once played.
    pub verification: Option<VerificationReport>,
}

impl TuneReport {
    /// The report of `state`.
    pub fn new(
        tune: &Tune,
        spsa: &Spsa,
        state: &State,
        elapsed_s: f64,
        verification: Option<VerificationReport>,
    ) -> TuneReport {
        let values = spsa.values(state);
        let k = state.pairs_done.max(1);
        let params = spsa
            .params()
            .iter()
            .enumerate()
            .map(|(i, p)| ParamReport {
                name: p.name.clone(),
                min: p.min,
                max: p.max,
                start: p.start,
                value: values[i],
                theta: state.theta[i],
                integer: p.integer,
                c: spsa.c(i),
                c_end: p.c_end,
                c_k: spsa.c_k(i, k),
                a: spsa.a(i),
                r_k: spsa.r_k(i, k),
                r_end: p.r_end,
            })
            .collect();
        let mut files = vec![
            STATE_FILE.to_string(),
            TRAJECTORY_FILE.to_string(),
            CONFIG_FILE.to_string(),
            ENGINE_FILE.to_string(),
        ];
        if tune.base.builtin().is_some_and(|b| b.table.is_some()) {
            files.push(TABLE_FILE.to_string());
        }
        if verification.is_some() {
            files.push(VERIFICATION_DIR.to_string());
        }
        TuneReport {
            name: tune.config.name.clone(),
            game: tune.job.game.to_string(),
            engine: tune.base.name().to_string(),
            seed: spsa.settings().seed,
            pairs_total: spsa.settings().pairs,
            pairs_done: state.pairs_done,
            batch: spsa.settings().batch,
            batches_done: state.batches_done,
            finished: spsa.finished(state),
            big_a: spsa.big_a(),
            a_ratio: spsa.settings().a_ratio,
            alpha: spsa.settings().alpha,
            gamma: spsa.settings().gamma,
            params,
            plus_penta: state.penta,
            opponent: tune.opponent.as_ref().map(|o| o.name().to_string()),
            minus_penta: tune
                .opponent
                .as_ref()
                .map(|_| state.minus_penta.unwrap_or_default()),
            elapsed_s,
            pairs_per_hour: if elapsed_s > 0.0 {
                state.pairs_done as f64 * 3600.0 / elapsed_s
            } else {
                0.0
            },
            reproducible: tune.is_reproducible(),
            files,
            verification,
        }
    }

    /// Reads `tune.json` from `dir`.
    pub fn read(dir: &Path) -> Result<TuneReport, TuneError> {
        let path = dir.join(REPORT_FILE);
        let text = fs::read_to_string(&path).map_err(|source| TuneError::Io {
            path: path.display().to_string(),
            source,
        })?;
        serde_json::from_str(&text)
            .map_err(|e| TuneError::Input(format!("{}: {e}", path.display())))
    }
}

/// `trajectory.csv`'s header: `pairs,<param>,...`.
pub fn trajectory_header(spsa: &Spsa) -> String {
    let mut out = String::from("pairs");
    for p in spsa.params() {
        out.push(',');
        out.push_str(&p.name);
    }
    out.push('\n');
    out
}

/// One line of `trajectory.csv`: pairs played, then every θ (shortest exact text).
pub fn trajectory_line(row: &TrajectoryRow) -> String {
    let mut out = row.pairs.to_string();
    for t in &row.theta {
        let _ = write!(out, ",{t}");
    }
    out.push('\n');
    out
}

/// `trajectory.csv`, appended a line per batch and flushed to disk before the batch's
/// checkpoint is written: every row up to the checkpoint survives a crash.
#[derive(Debug)]
pub struct TrajectoryWriter {
    file: fs::File,
    path: PathBuf,
    /// The file's length after this writer's last write.
    len: u64,
}

impl TrajectoryWriter {
    /// Opens the trajectory of a run at `state`: a new file (header and θ now) when the
    /// run starts, else the existing file cut back to the checkpoint's row (rows of a
    /// batch whose checkpoint never landed are dropped, a torn last line too), so a
    /// resumed run writes the very file an uninterrupted one would. Returns a note when
    /// rows were missing and the file had to be started again from the checkpoint.
    pub fn open(
        dir: &Path,
        spsa: &Spsa,
        state: &State,
    ) -> Result<(TrajectoryWriter, Option<String>), TuneError> {
        let path = dir.join(TRAJECTORY_FILE);
        let header = trajectory_header(spsa);
        let fresh = format!("{header}{}", trajectory_line(&state.row()));
        let mut note = None;
        let keep = if state.batches_done == 0 {
            fresh
        } else {
            let text = match fs::read_to_string(&path) {
                Ok(t) => Some(t),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(source) => {
                    return Err(TuneError::Io {
                        path: path.display().to_string(),
                        source,
                    });
                }
            };
            match text
                .as_deref()
                .and_then(|t| cut_to(t, &header, state.pairs_done))
            {
                Some(kept) => kept,
                None => {
                    note = Some(format!(
                        "{} lacked the rows up to pair {}: it starts again from the \
                         checkpoint (θ is unaffected)",
                        path.display(),
                        state.pairs_done
                    ));
                    fresh
                }
            }
        };
        let current = fs::read_to_string(&path).ok();
        if current.as_deref() != Some(keep.as_str()) {
            write_durable(&path, &keep)?;
        }
        let file = crate::files::open_regular(&path, fs::OpenOptions::new().append(true)).map_err(
            |source| TuneError::Io {
                path: path.display().to_string(),
                source,
            },
        )?;
        let len = keep.len() as u64;
        Ok((TrajectoryWriter { file, path, len }, note))
    }

    /// Whether the file at the path is still the one this writer appends to, as it left
    /// it. Another worker may have written since (a worker killed after its row and
    /// before its checkpoint leaves a row that the next one cuts off, by writing the file
    /// anew): appending through an old handle would then write to a file nobody reads,
    /// or after a row that is not the checkpoint's. Under the update lock, a writer that
    /// is not current is dropped and the file opened again.
    pub fn is_current(&self) -> bool {
        let (Ok(on_disk), Ok(ours)) = (fs::metadata(&self.path), self.file.metadata()) else {
            return false;
        };
        on_disk.len() == self.len && ours.len() == self.len && same_file(&on_disk, &ours)
    }

    /// Appends θ after a batch and waits for the disk.
    pub fn append(&mut self, row: &TrajectoryRow) -> Result<(), TuneError> {
        let io = |source| TuneError::Io {
            path: self.path.display().to_string(),
            source,
        };
        let line = trajectory_line(row);
        self.file.write_all(line.as_bytes()).map_err(io)?;
        self.len += line.len() as u64;
        self.file.sync_data().map_err(|source| TuneError::Io {
            path: self.path.display().to_string(),
            source,
        })
    }
}

/// Whether two metadata are of one file (on systems without file ids: never, so a
/// cached writer is always opened again).
#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    false
}

/// `text` up to and including the row of `pairs` (None if the header differs or that
/// row is missing).
fn cut_to(text: &str, header: &str, pairs: u64) -> Option<String> {
    if !text.starts_with(header) {
        return None;
    }
    let mut end = header.len();
    for line in text[header.len()..].split_inclusive('\n') {
        if !line.ends_with('\n') {
            return None;
        }
        let row_pairs: u64 = line.split(',').next()?.parse().ok()?;
        end += line.len();
        if row_pairs == pairs {
            return Some(text[..end].to_string());
        }
        if row_pairs > pairs {
            return None;
        }
    }
    None
}

/// The tuned values by parameter, as the engine takes them.
fn tuned_values(tune: &Tune, values: &[f64]) -> Vec<(String, toml::Value)> {
    tune.params
        .iter()
        .zip(values)
        .map(|(p, &v)| (p.name.clone(), super::config::number(v, p.integer)))
        .collect()
}

/// The base table's file with `values` (table parameters, `table.` prefix and all) put
/// in place: comments and layout kept, a header comment added, `name` suffixed
/// `-tuned`.
pub fn tuned_table(
    table_file: &Path,
    header: &str,
    values: &[(String, toml::Value)],
) -> Result<String, TuneError> {
    tuned_table_named(table_file, header, values, "-tuned")
}

/// [`tuned_table`] with `name` suffixed `suffix` (`-fitted` for `arena fit`).
pub fn tuned_table_named(
    table_file: &Path,
    header: &str,
    values: &[(String, toml::Value)],
    suffix: &str,
) -> Result<String, TuneError> {
    let text = fs::read_to_string(table_file).map_err(|source| TuneError::Io {
        path: table_file.display().to_string(),
        source,
    })?;
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        TuneError::Input(format!(
            "{}: {}",
            table_file.display(),
            e.message().replace('\n', " ")
        ))
    })?;
    if let Some(name) = doc.get("name").and_then(Item::as_str) {
        let tuned = format!("{name}{suffix}");
        set_keep_decor(doc.as_item_mut(), &["name"], toml::Value::String(tuned));
    }
    for (name, value) in values {
        if let Some(path) = name.strip_prefix("table.") {
            let keys: Vec<&str> = path.split('.').collect();
            set_keep_decor(doc.as_item_mut(), &keys, value.clone());
        }
    }
    Ok(with_header(header, &doc.to_string()))
}

/// The base engine's file made into the tuned engine: `name` suffixed `-tuned`, `game`
/// the tune's, `table` pointing at `table_ref` (when the engine has a table), and the
/// tuned `search.*` parameters in `values` written in. Everything else stays the base
/// file's own: the job's `set` overrides (a shallow depth, a small hash to play many
/// games fast) are listed in a comment, not written, so the tuned engine dropped next to
/// the base engine plays with the base engine's settings. `job` says in that comment
/// which command ran with them.
pub fn tuned_engine(
    engine_file: &Path,
    header: &str,
    engine: &EngineSpec,
    values: &[(String, toml::Value)],
    overrides: &toml::Table,
    table_ref: Option<&str>,
    job: MadeBy,
) -> Result<String, TuneError> {
    let text = fs::read_to_string(engine_file).map_err(|source| TuneError::Io {
        path: engine_file.display().to_string(),
        source,
    })?;
    // The file must still be a valid engine (it was when the tune started).
    match engine {
        EngineSpec::Builtin(_) => {
            EngineConfig::parse(&engine_file.display().to_string(), engine_file, &text)?;
        }
        EngineSpec::External(_) => {
            crate::protocol::external::load_file(engine_file, &text)?;
        }
    }
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        TuneError::Input(format!(
            "{}: {}",
            engine_file.display(),
            e.message().replace('\n', " ")
        ))
    })?;
    let root = doc.as_item_mut();
    set_keep_decor(
        root,
        &["name"],
        toml::Value::String(engine.name().to_string()),
    );
    match engine {
        EngineSpec::Builtin(e) => {
            set_keep_decor(root, &["game"], toml::Value::String(e.game.to_string()));
        }
        // The file lands in the results folder: a command or folder given relative to
        // the base file is written resolved.
        EngineSpec::External(e) => {
            if e.command.contains('/') {
                set_keep_decor(root, &["command"], toml::Value::String(e.command.clone()));
            }
            if let Some(dir) = &e.working_dir {
                set_keep_decor(root, &["working_dir"], toml::Value::String(dir.clone()));
            }
        }
    }
    if let Some(table) = table_ref {
        set_keep_decor(root, &["table"], toml::Value::String(table.to_string()));
    }
    for (name, value) in values {
        if let Some(key) = name.strip_prefix("search.") {
            // `search.params.lmr_base` lives at [search.params] lmr_base, not as a
            // quoted "params.lmr_base" under [search] (which no engine file accepts).
            let path: Vec<&str> = std::iter::once("search").chain(key.split('.')).collect();
            set_keep_decor(root, &path, value.clone());
        } else if let Some(option) = name.strip_prefix("option.") {
            set_keep_decor(root, &["options", option], value.clone());
        }
    }
    let mut header = header.to_string();
    let overridden: Vec<String> = overrides
        .iter()
        .filter(|(k, _)| !values.iter().any(|(name, _)| name == *k))
        .map(|(k, v)| format!("\"{k}\" = {v}"))
        .collect();
    if !overridden.is_empty() {
        let _ = write!(
            header,
            "\nThe {} with set = {{ {} }}; those are not written here: this engine keeps \
             {}'s own settings (add them to a tournament's `set` to play as the {} did).",
            job.ran(),
            overridden.join(", "),
            engine_file.display(),
            job.noun()
        );
    }
    Ok(with_header(&header, &doc.to_string()))
}

/// The command whose engine [`tuned_engine`] writes, for its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MadeBy {
    /// `arena tune`: SPSA plays games with the tune's `set`.
    Tune,
    /// `arena fit`: the positions are evaluated (and the self-play games played) with
    /// the fit's `set`.
    Fit,
}

impl MadeBy {
    /// `tune`, `fit`.
    fn noun(self) -> &'static str {
        match self {
            MadeBy::Tune => "tune",
            MadeBy::Fit => "fit",
        }
    }

    /// `tune played`, `fit ran`: what the command did with its `set`.
    fn ran(self) -> &'static str {
        match self {
            MadeBy::Tune => "tune played",
            MadeBy::Fit => "fit ran",
        }
    }
}

fn with_header(header: &str, body: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "# {line}");
    }
    out.push_str(body);
    out
}

/// Sets the value at `keys` under `item`, keeping the old value's comments and spacing;
/// missing tables are created.
fn set_keep_decor(item: &mut Item, keys: &[&str], value: toml::Value) {
    let Some((last, parents)) = keys.split_last() else {
        return;
    };
    let mut current = item;
    for key in parents {
        let Some(table) = current.as_table_like_mut() else {
            return;
        };
        if table.get(key).is_none() {
            table.insert(key, Item::Table(toml_edit::Table::new()));
        }
        current = table.get_mut(key).expect("inserted above");
    }
    let Some(table) = current.as_table_like_mut() else {
        return;
    };
    let mut new = edit_value(&value);
    match table.get_mut(last).and_then(Item::as_value_mut) {
        Some(old) => {
            *new.decor_mut() = old.decor().clone();
            *old = new;
        }
        None => {
            table.insert(last, Item::Value(new));
        }
    }
}

/// A `toml` value as a `toml_edit` one (through its text).
fn edit_value(value: &toml::Value) -> toml_edit::Value {
    let mut t = toml::Table::new();
    t.insert("v".into(), value.clone());
    let text = toml::to_string(&t).expect("a single value serialises");
    let doc: DocumentMut = text.parse().expect("toml writes what toml_edit reads");
    let mut v = doc["v"]
        .as_value()
        .expect("`v` is a value: it was written as one")
        .clone();
    v.decor_mut().clear();
    v
}

/// Writes every output of `state` to `dir`: the checkpoint first, then the files made
/// from it (so a crash between them is mended by a resume).
pub fn write_all(
    dir: &Path,
    tune: &Tune,
    spsa: &Spsa,
    checkpoint: &Checkpoint,
    verification: Option<VerificationReport>,
) -> Result<TuneReport, TuneError> {
    let state = &checkpoint.state;
    let json = serde_json::to_string(checkpoint).expect("a checkpoint serialises");
    // Only the checkpoint waits for the disk: every other file is made again from it
    // by a resume.
    write_durable(&dir.join(STATE_FILE), &json)?;
    let values = spsa.values(state);
    let header = format!(
        "Tuned by `arena tune` run '{}': {} of {} game pairs, seed {}.\n\
         Start values and the run's numbers: tune.json; θ over time: trajectory.csv.",
        tune.config.name,
        state.pairs_done,
        spsa.settings().pairs,
        spsa.settings().seed
    );
    let tuned = tuned_values(tune, &values);
    let table_ref = match tune.base.builtin().and_then(|b| b.table_path.as_ref()) {
        Some(path) if tune.base.builtin().is_some_and(|b| b.table.is_some()) => {
            let text = tuned_table(path, &header, &tuned)?;
            write_atomic(&dir.join(TABLE_FILE), &text)?;
            Some(TABLE_FILE)
        }
        _ => None,
    };
    let engine = tune
        .engine_with(&format!("{}-tuned", tune.base.name()), &values)
        .map_err(|e| TuneError::Input(e.to_string()))?;
    let text = tuned_engine(
        &tune.job.engine_path,
        &header,
        &engine,
        &tuned,
        &tune.config.set,
        table_ref,
        MadeBy::Tune,
    )?;
    write_atomic(&dir.join(ENGINE_FILE), &text)?;
    let report = TuneReport::new(tune, spsa, state, checkpoint.elapsed_s, verification);
    write_report(&dir.join(REPORT_FILE), &report)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trajectory_is_cut_back_to_its_checkpoint() {
        let header = "pairs,x\n";
        let text = "pairs,x\n0,1\n8,1.5\n16,2\n24,2.5\n32,";
        assert_eq!(
            cut_to(text, header, 16).unwrap(),
            "pairs,x\n0,1\n8,1.5\n16,2\n"
        );
        assert_eq!(
            cut_to(text, header, 24).unwrap(),
            "pairs,x\n0,1\n8,1.5\n16,2\n24,2.5\n"
        );
        assert_eq!(cut_to(text, header, 32), None, "a torn row is not a row");
        assert_eq!(cut_to(text, header, 12), None);
        assert_eq!(cut_to(text, "pairs,y\n", 8), None);
    }

    #[test]
    fn a_writer_is_current_only_while_nobody_else_wrote_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let param = crate::tune::spsa::Param {
            name: "table.x".into(),
            min: 0.0,
            max: 2.0,
            start: 1.0,
            c_end: 0.1,
            r_end: crate::tune::spsa::Param::DEFAULT_R_END,
            integer: false,
        };
        let spsa = Spsa::new(vec![param], crate::tune::spsa::Settings::new(16, 2, 1)).unwrap();
        let start = spsa.start_state();
        let (mut a, note) = TrajectoryWriter::open(tmp.path(), &spsa, &start).unwrap();
        assert!(note.is_none() && a.is_current());
        let mut state = start.clone();
        let jobs = spsa.next_batch(&state);
        let won = crate::tune::spsa::PairOutcome {
            plus: [crate::stats::GameScore::Win, crate::stats::GameScore::Draw],
            minus: None,
        };
        let row = spsa
            .apply(&mut state, &jobs, &vec![won; jobs.len()])
            .unwrap();
        a.append(&row).unwrap();
        assert!(a.is_current(), "its own row keeps it current");
        // Another worker appends a row and dies before its checkpoint: the next one to
        // open cuts the row off and writes the file anew.
        let (mut b, _) = TrajectoryWriter::open(tmp.path(), &spsa, &state).unwrap();
        b.append(&row).unwrap();
        assert!(!a.is_current(), "a row by someone else");
        let (c, _) = TrajectoryWriter::open(tmp.path(), &spsa, &state).unwrap();
        assert!(!a.is_current() && !b.is_current(), "the file written anew");
        assert!(c.is_current());
        let text = fs::read_to_string(tmp.path().join(TRAJECTORY_FILE)).unwrap();
        assert_eq!(text.lines().count(), 3, "header, start and one row: {text}");
    }

    /// Regression: a tuned `search.params.*` number was written as a quoted
    /// "params.lmr_base" key under [search], which no engine file accepts.
    #[test]
    fn tuned_search_params_land_in_their_table_and_the_file_loads() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/engines/gomoku-strong.toml");
        let engine = EngineSpec::Builtin(EngineConfig::load(&file).unwrap());
        let values = [
            (
                "search.params.lmr_base".to_string(),
                toml::Value::Integer(51),
            ),
            (
                "search.params.lmr_divisor".to_string(),
                toml::Value::Integer(113),
            ),
            ("search.radius".to_string(), toml::Value::Integer(3)),
        ];
        let text = tuned_engine(
            &file,
            "Made here.",
            &engine,
            &values,
            &toml::Table::new(),
            None,
            MadeBy::Tune,
        )
        .unwrap();
        assert!(!text.contains("\"params."), "{text}");
        let tuned = EngineConfig::parse("tuned", &file, &text).unwrap_or_else(|e| panic!("{e}"));
        let base = EngineConfig::load(&file).unwrap();
        assert_eq!(
            (
                tuned.search.params.lmr_base,
                tuned.search.params.lmr_divisor,
                tuned.search.radius
            ),
            (51, 113, 3)
        );
        // The rest is the base engine's.
        assert_eq!(tuned.search.params.lmp_scale, base.search.params.lmp_scale);
        assert_eq!(
            tuned.search.params.ext_defend_plies,
            base.search.params.ext_defend_plies
        );
    }

    /// Regression: a fit's engine said "The tune played with set = ...".
    #[test]
    fn the_header_names_the_command_that_ran_with_set() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("configs/engines/gomoku-seed003-threat.toml");
        let engine = EngineSpec::Builtin(EngineConfig::load(&file).unwrap());
        let mut set = toml::Table::new();
        set.insert("search.tt_mb".into(), toml::Value::Integer(1));
        let header = |job| {
            let text = tuned_engine(&file, "Made here.", &engine, &[], &set, None, job).unwrap();
            text.lines()
                .take_while(|l| l.starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let tune = header(MadeBy::Tune);
        assert!(
            tune.contains("# The tune played with set = { \"search.tt_mb\" = 1 }"),
            "{tune}"
        );
        assert!(tune.contains("to play as the tune did"), "{tune}");
        let fit = header(MadeBy::Fit);
        assert!(
            fit.contains("# The fit ran with set = { \"search.tt_mb\" = 1 }"),
            "{fit}"
        );
        assert!(fit.contains("to play as the fit did"), "{fit}");
        assert!(!fit.contains("tune"), "{fit}");
    }

    #[test]
    fn values_are_set_in_place_keeping_comments() {
        let text = "# top comment\nfamily = \"mnk\"\nname = \"x\"\n\
                    open_three = 7500   # a live three\n\
                    defence = 1.0\n\n[points]\nfive = 5 # points\n";
        let mut doc: DocumentMut = text.parse().unwrap();
        set_keep_decor(
            doc.as_item_mut(),
            &["open_three"],
            toml::Value::Integer(8123),
        );
        set_keep_decor(doc.as_item_mut(), &["defence"], toml::Value::Float(1.25));
        set_keep_decor(
            doc.as_item_mut(),
            &["points", "five"],
            toml::Value::Integer(7),
        );
        set_keep_decor(doc.as_item_mut(), &["centre"], toml::Value::Integer(3));
        let out = doc.to_string();
        assert!(out.contains("# top comment\n"), "{out}");
        assert!(
            out.contains("open_three = 8123   # a live three\n"),
            "{out}"
        );
        assert!(out.contains("defence = 1.25\n"), "{out}");
        assert!(out.contains("five = 7 # points\n"), "{out}");
        assert!(out.contains("centre = 3"), "{out}");
        let back: toml::Table = toml::from_str(&out).unwrap();
        assert_eq!(back["centre"].as_integer(), Some(3));
    }
}
