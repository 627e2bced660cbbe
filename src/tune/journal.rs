//! The pairs a tune has played, one line each, appended and flushed as each pair ends:
//! `pairs/<worker>.jsonl` in the tune's folder, one file per worker (a plain `arena
//! tune` is the worker `main`). A pair's result depends only on the config, the seed,
//! its index k and θ of its batch, so whoever played it, the line is the pair: a tune
//! killed at any moment loses only the pairs in progress, and a resumed one (or another
//! worker) never plays a recorded pair again, which matters when the games are timed
//! and a replay would differ.
//!
//! The claims file (`pairs/claims.json`) says who is playing which pair of the batch in
//! progress, so that workers do not play the same pair twice; a claim counts only while
//! the session that made it still holds its worker's lock, so the pairs of a worker
//! that died are played by the others (or by its replacement).
//!
//! Knows files and the SPSA pair outcome; knows nothing of games or engines.

use std::{
    collections::{BTreeMap, HashMap},
    fs::{self, File},
    io::{Read, Seek, SeekFrom},
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

use super::{TuneError, spsa::PairOutcome};
use crate::jobs::folder::write_atomic;
use crate::{files::jsonl::Appender, stats::GameScore};

/// The folder of the journals and the claims, in a tune's folder.
pub const PAIRS_DIR: &str = "pairs";
/// The claims on the batch in progress.
const CLAIMS_FILE: &str = "claims.json";

/// One line of a journal: a pair played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairLine {
    /// The pair's k (1-based).
    pub k: u64,
    /// Its batch (0-based).
    pub batch: u64,
    /// The plus engine's result in the game it moved first, then in the other: `win`,
    /// `draw` or `loss`.
    pub plus: [String; 2],
    /// With an opponent: the minus engine's results against it, in the same order (and
    /// `plus` is then the plus engine's against it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minus: Option<[String; 2]>,
    /// Milliseconds the pair took (measured).
    #[serde(default)]
    pub ms: u64,
    /// The wall-clock time (seconds since 1970) the worker's session spent on the
    /// batch up to this pair: from when it began playing the batch to when the pair was
    /// recorded (measured). The time a batch was played is the union of its pairs'
    /// spans, whichever sessions and workers played them, so a session killed mid-batch
    /// loses none of its playing time. Older lines have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_s: Option<[f64; 2]>,
}

impl PairLine {
    /// The line of pair `k` of `batch`.
    pub fn new(k: u64, batch: u64, outcome: PairOutcome, ms: u64) -> PairLine {
        PairLine {
            k,
            batch,
            plus: outcome.plus.map(|s| score_text(s).to_string()),
            minus: outcome.minus.map(|m| m.map(|s| score_text(s).to_string())),
            ms,
            span_s: None,
        }
    }

    /// The line with its span: the session began the batch at `from` and recorded the
    /// pair at `to` (seconds since 1970).
    pub fn with_span(mut self, from: f64, to: f64) -> PairLine {
        self.span_s = Some([from, to.max(from)]);
        self
    }

    /// The outcome it records.
    pub fn outcome(&self) -> Option<PairOutcome> {
        let both = |[a, b]: &[String; 2]| Some([score_of(a)?, score_of(b)?]);
        Some(PairOutcome {
            plus: both(&self.plus)?,
            minus: match &self.minus {
                Some(m) => Some(both(m)?),
                None => None,
            },
        })
    }
}

fn score_text(s: GameScore) -> &'static str {
    match s {
        GameScore::Win => "win",
        GameScore::Draw => "draw",
        GameScore::Loss => "loss",
    }
}

fn score_of(text: &str) -> Option<GameScore> {
    match text {
        "win" => Some(GameScore::Win),
        "draw" => Some(GameScore::Draw),
        "loss" => Some(GameScore::Loss),
        _ => None,
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TuneError + '_ {
    move |source| TuneError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// A worker's own journal, open for appending (the durable log of
/// [`crate::files::jsonl`]). Only the worker holding that worker's lock writes it.
#[derive(Debug)]
pub struct JournalWriter {
    log: Appender,
}

impl JournalWriter {
    /// Opens worker `label`'s journal in `dir` (the tune's folder), first cutting off a
    /// torn last line (a kill mid-write): what follows the last line break is no pair.
    pub fn open(dir: &Path, label: &str) -> Result<JournalWriter, TuneError> {
        let folder = dir.join(PAIRS_DIR);
        crate::files::own_folder(&folder).map_err(io_err(&folder))?;
        let path = folder.join(format!("{label}.jsonl"));
        let log = Appender::open_cutting_torn_tail(&path).map_err(io_err(&path))?;
        Ok(JournalWriter { log })
    }

    /// Appends a pair and waits for the disk: the pair counts only after this.
    pub fn append(&mut self, line: &PairLine) -> Result<(), TuneError> {
        let mut text = serde_json::to_string(line).expect("a pair line serialises");
        text.push('\n');
        let path = self.log.path().to_path_buf();
        self.log.append_line(&text).map_err(io_err(&path))
    }
}

/// What a worker has read of every journal: the outcomes of the pairs not yet applied,
/// read incrementally (each file from where the last read stopped).
#[derive(Debug, Default)]
pub struct JournalReader {
    /// Per file: bytes read, lines read.
    read: HashMap<PathBuf, (u64, usize)>,
    /// Outcomes of pairs from the batch in progress on, by k: the first recorded
    /// (by file name, then line) when a pair was played twice.
    pairs: BTreeMap<u64, (String, usize, PairOutcome)>,
    /// The spans of the pairs from the batch in progress on, every line's (a pair played
    /// twice was played twice).
    spans: BTreeMap<u64, Vec<[f64; 2]>>,
    /// Pairs from the batch in progress on read from a line without a span.
    unspanned: std::collections::BTreeSet<u64>,
}

impl JournalReader {
    /// Reads what the journals in `dir` gained since the last call. A line that is not
    /// a pair of this tune (`batch_of` gives a k's batch, `last` is the last k) is an
    /// error naming its file and line (as is a line with the minus engine's results in
    /// a tune without an opponent, or without them in a tune with one); a last line
    /// without its line break is still being written (or was torn by a kill) and is read
    /// later, if ever.
    pub fn refresh(
        &mut self,
        dir: &Path,
        from_batch: u64,
        last: u64,
        batch_of: impl Fn(u64) -> u64,
        opponent: bool,
    ) -> Result<(), TuneError> {
        let folder = dir.join(PAIRS_DIR);
        let entries = match fs::read_dir(&folder) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_err(&folder)(e)),
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        for path in files {
            let (offset, lines) = self.read.get(&path).copied().unwrap_or((0, 0));
            let mut file = File::open(&path).map_err(io_err(&path))?;
            let len = file.metadata().map_err(io_err(&path))?.len();
            if len < offset {
                // The worker cut a torn line off: only what follows the last complete
                // line changed, and that was never read.
                self.read.insert(path.clone(), (len, lines));
                continue;
            }
            file.seek(SeekFrom::Start(offset)).map_err(io_err(&path))?;
            let mut text = String::new();
            file.read_to_string(&mut text)
                .map_err(|e| TuneError::Input(format!("{}: not text ({e})", path.display())))?;
            let complete = text.rfind('\n').map_or(0, |i| i + 1);
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut line_no = lines;
            for line in text[..complete].lines() {
                line_no += 1;
                let bad = |why: String| {
                    TuneError::Input(format!(
                        "{}:{line_no}: {why}; the journal is damaged (move the line away to \
                         play that pair again)",
                        path.display()
                    ))
                };
                let pair: PairLine = serde_json::from_str(line)
                    .map_err(|e| bad(format!("not a pair of this tune ({e})")))?;
                let outcome = pair.outcome().ok_or_else(|| {
                    let (key, value) = match &pair.minus {
                        Some(m) if pair.plus.iter().all(|s| score_of(s).is_some()) => ("minus", m),
                        _ => ("plus", &pair.plus),
                    };
                    bad(format!(
                        "key `{key}`: {value:?} is not two of win, draw, loss"
                    ))
                })?;
                if outcome.minus.is_some() != opponent {
                    return Err(bad(if opponent {
                        "key `minus` is missing: this tune plays an opponent, and each \
                         pair holds the minus engine's results against it"
                            .to_string()
                    } else {
                        "key `minus`: this tune has no opponent (the plus engine plays the \
                         minus engine)"
                            .to_string()
                    }));
                }
                if pair.k == 0 || pair.k > last || batch_of(pair.k) != pair.batch {
                    return Err(bad(format!(
                        "key `k`: pair {} of batch {} is not a pair of this tune ({last} \
                         pairs)",
                        pair.k, pair.batch
                    )));
                }
                if pair.batch < from_batch {
                    continue;
                }
                match pair.span_s {
                    Some(span) if span.iter().all(|t| t.is_finite()) => {
                        self.spans.entry(pair.k).or_default().push(span);
                    }
                    _ => {
                        self.unspanned.insert(pair.k);
                    }
                }
                let entry = (name.clone(), line_no, outcome);
                match self.pairs.get(&pair.k) {
                    Some(old) if (&old.0, old.1) <= (&entry.0, entry.1) => {}
                    _ => {
                        self.pairs.insert(pair.k, entry);
                    }
                }
            }
            self.read.insert(path, (offset + complete as u64, line_no));
        }
        self.drop_before(from_batch, batch_of);
        Ok(())
    }

    /// The outcome of pair `k`, if recorded.
    pub fn outcome(&self, k: u64) -> Option<PairOutcome> {
        self.pairs.get(&k).map(|(_, _, o)| *o)
    }

    /// The seconds spent playing the pairs `ks`: the union of their lines' spans; None
    /// when a line has none (written by an older arena).
    pub fn playing_seconds(&self, ks: impl IntoIterator<Item = u64>) -> Option<f64> {
        let mut spans = Vec::new();
        for k in ks {
            if self.unspanned.contains(&k) {
                return None;
            }
            spans.extend(self.spans.get(&k)?.iter().copied());
        }
        Some(union_length(spans))
    }

    /// Forgets the pairs before `batch` (applied).
    pub fn drop_before(&mut self, batch: u64, batch_of: impl Fn(u64) -> u64) {
        self.pairs.retain(|&k, _| batch_of(k) >= batch);
        self.spans.retain(|&k, _| batch_of(k) >= batch);
        self.unspanned.retain(|&k| batch_of(k) >= batch);
    }
}

/// The length of the union of intervals `[from, to]`: time that several workers (or a
/// session's threads) spent at once counts once.
pub fn union_length(mut spans: Vec<[f64; 2]>) -> f64 {
    spans.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let mut total = 0.0;
    let mut current: Option<[f64; 2]> = None;
    for [from, to] in spans {
        match current.as_mut() {
            Some(c) if from <= c[1] => c[1] = c[1].max(to),
            _ => {
                if let Some([a, b]) = current {
                    total += b - a;
                }
                current = Some([from, to]);
            }
        }
    }
    if let Some([a, b]) = current {
        total += b - a;
    }
    total
}

/// The claims on one batch: pair k → the session playing it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The batch the claims are on.
    pub batch: u64,
    /// k → (worker, session).
    pub pairs: BTreeMap<u64, (String, String)>,
}

impl Claims {
    /// Reads `pairs/claims.json` in `dir` (no claims when there is none, or when it is
    /// damaged: claims only spare work, they decide nothing).
    pub fn read(dir: &Path) -> Claims {
        fs::read_to_string(dir.join(PAIRS_DIR).join(CLAIMS_FILE))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// Writes them (the caller holds the tune's update lock).
    pub fn write(&self, dir: &Path) -> Result<(), TuneError> {
        let folder = dir.join(PAIRS_DIR);
        crate::files::own_folder(&folder).map_err(io_err(&folder))?;
        let json = serde_json::to_string(self).expect("claims serialise");
        write_atomic(&folder.join(CLAIMS_FILE), &json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_spent_at_once_counts_once() {
        assert_eq!(union_length(Vec::new()), 0.0);
        // Two threads of a session (the same start), then a session after a kill.
        let spans = vec![[10.0, 14.0], [10.0, 12.0], [100.0, 103.0], [101.0, 102.0]];
        assert_eq!(union_length(spans), 7.0);
        // Two workers overlapping.
        assert_eq!(union_length(vec![[0.0, 5.0], [3.0, 8.0], [8.0, 9.0]]), 9.0);
    }

    #[test]
    fn lines_without_a_span_still_read() {
        let old: PairLine =
            serde_json::from_str(r#"{"k":1,"batch":0,"plus":["win","draw"],"ms":5}"#).unwrap();
        assert_eq!(old.span_s, None);
        let line = PairLine::new(
            2,
            0,
            PairOutcome {
                plus: [GameScore::Win, GameScore::Loss],
                minus: None,
            },
            7,
        )
        .with_span(1.5, 2.5);
        let text = serde_json::to_string(&line).unwrap();
        assert!(text.ends_with(r#""ms":7,"span_s":[1.5,2.5]}"#), "{text}");
        assert_eq!(serde_json::from_str::<PairLine>(&text).unwrap(), line);
    }
}
