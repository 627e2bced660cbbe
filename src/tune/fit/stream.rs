//! Training positions streamed from disk: the files `arena datagen` writes (text, bin,
//! binpack, bullet), each position labelled with a blend of the game's result and the
//! search score, `lambda · result + (1 − lambda) · sigmoid(K · score)` (a `bin` file
//! holds no score: its positions take the result alone).
//!
//! The positions are read once and their features written to a cache of fixed-size
//! records in the fit's folder (`data-cache/train.bin`, `validation.bin`); every epoch
//! then reads the cache in blocks of [`BLOCK`] positions, the blocks in an order shuffled
//! per epoch and each block's positions shuffled again, so memory holds one block, never
//! the data set. K is fitted (against the results) on the first [`K_SAMPLE`] training
//! positions. Positions go to the validation set by runs of [`SPLIT_RUN`] consecutive
//! positions (mostly one game's), chosen by a hash of the seed and the run alone.
//!
//! Every sum is taken block by block in a fixed order, and within a block as
//! [`super::model`] takes it, so a fit is the same on any number of threads.

use std::{
    fs::File,
    io::{BufWriter, Write},
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
};

use rayon::prelude::*;

use super::{
    features::{AtaxxFeatures, LINES_WIDTH, LinesFeatures, ataxx_features, lines_features},
    model::{Adam, Dataset, Features, FreeParam, Loss, Settings, epoch_order, fit_k, run_epoch},
    positions::{Counts, FeatureSource},
};
use crate::{
    datagen::{
        DataReader, Record,
        format::{DataFilesError, ReadError, data_files},
    },
    eval::{
        Evaluator,
        mnk::MnkEval,
        table::{ATAXX_TERM_COUNT, MnkEvaluation},
    },
    game::{Ataxx, Game, Mnk},
    tournament::seeds::{Stream, derive_seed},
};

/// Positions per block read from the cache.
pub const BLOCK: usize = 65_536;
/// Training positions K is fitted on (the first ones).
pub const K_SAMPLE: usize = 262_144;
/// Consecutive positions that go to the same set.
pub const SPLIT_RUN: u64 = 256;
/// Positions converted to features at a time (in parallel).
const CHUNK: usize = 16_384;
/// The cache's folder in the fit's folder.
pub const CACHE_DIR: &str = "data-cache";

/// The features of one position.
enum Row {
    Lines(LinesFeatures),
    Ataxx(AtaxxFeatures),
}

/// Which feature family the cache holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Lines,
    Ataxx,
}

impl Family {
    /// Bytes of a cache record: the features, the score (`i32`), the result in half
    /// points and whether the score is there.
    fn record(self) -> usize {
        let features = match self {
            Family::Lines => 2 * LINES_WIDTH * 2,
            // The term differences, then the phase (an f32) and both sides' stones.
            Family::Ataxx => ATAXX_TERM_COUNT * 2 + 4 + 16,
        };
        features + 6
    }
}

/// One of the two sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Split {
    Train,
    Validation,
}

/// Datagen positions, as feature caches on disk.
#[derive(Debug)]
pub struct Streamed {
    family: Family,
    files: [File; 2],
    sizes: [u64; 2],
    /// The first training positions, labelled with their results (for K).
    sample: Dataset,
    lambda: f64,
}

/// Converts positions to features (one per worker thread: m,n,k needs an evaluator).
enum Featurer {
    Mnk(Box<MnkEval>, crate::game::MnkConfig),
    Ataxx,
}

impl Featurer {
    fn new(source: &FeatureSource) -> Featurer {
        match source {
            FeatureSource::Mnk {
                config,
                table,
                radius,
                shape,
            } => {
                let mut eval = MnkEval::with_shape(config, table, *radius, *shape);
                eval.set_tracking(true);
                Featurer::Mnk(Box::new(eval), *config)
            }
            FeatureSource::Ataxx => Featurer::Ataxx,
        }
    }

    fn row(&mut self, position: &str) -> Result<Row, RowError> {
        match self {
            Featurer::Mnk(eval, config) => {
                let pos = Mnk::from_text(config, position)
                    .map_err(|e| RowError::Position(e.to_string()))?;
                if pos.outcome().is_some() {
                    return Err(RowError::GameOver);
                }
                eval.reset(&pos);
                Ok(Row::Lines(lines_features(eval, &pos)))
            }
            Featurer::Ataxx => {
                let pos = Ataxx::from_text(&(), position)
                    .map_err(|e| RowError::Position(e.to_string()))?;
                Ok(Row::Ataxx(ataxx_features(&pos)))
            }
        }
    }
}

fn encode(row: &Row, record: &Record, out: &mut Vec<u8>) {
    match row {
        Row::Lines(f) => {
            for v in f.iter().flatten() {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        Row::Ataxx(f) => {
            for v in f.terms {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&f.phase.to_le_bytes());
            for bb in f.stones {
                out.extend_from_slice(&bb.to_le_bytes());
            }
        }
    }
    out.extend_from_slice(&record.score.unwrap_or(0).to_le_bytes());
    out.push(record.result);
    out.push(u8::from(record.score.is_some()));
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// Whether run `run` of consecutive positions goes to the validation set.
fn is_validation(fraction: f64, seed: u64, run: u64) -> bool {
    fraction > 0.0
        && ((derive_seed(seed ^ 0xDA7A_6E4E, Stream::Shuffle, run) >> 11) as f64
            / (1u64 << 53) as f64)
            < fraction
}

/// What reading the data needs.
pub struct StreamSpec<'a> {
    /// Datagen folders or files, read in order.
    pub paths: &'a [PathBuf],
    /// How positions become features.
    pub source: &'a FeatureSource,
    /// Fraction of positions held out.
    pub validation: f64,
    /// Seed of the split.
    pub seed: u64,
    /// The weight of the result in the label.
    pub lambda: f64,
    /// The fit's folder (the cache goes in `data-cache/`).
    pub out: &'a Path,
}

/// Why a data file's position cannot be a row of features.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RowError {
    /// The game refuses the position (its own message).
    #[error("{0}")]
    Position(String),
    /// A position where the game is over.
    #[error("the game is over in this position")]
    GameOver,
}

/// Why datagen data cannot be streamed into the fit's caches, or read back from them:
/// every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// Datagen data with a `points` table.
    #[error(
        "datagen data needs a `lines` table (a `points` table is fitted from game records: \
         `games`)"
    )]
    PointsTable,
    /// The data files of a path cannot be listed.
    #[error(transparent)]
    Files(#[from] DataFilesError),
    /// A data file that cannot be read (the file and the line or byte).
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A position that is no row of features.
    #[error("{}: '{position}': {error}", path.display())]
    Position {
        /// The data file.
        path: PathBuf,
        /// The position.
        position: String,
        /// What is wrong.
        error: RowError,
    },
    /// A cache file that cannot be written or opened.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The cache cannot be read back.
    #[error("the fit's position cache ({cache}/): {0}", cache = CACHE_DIR)]
    Cache(std::io::Error),
}

impl StreamError {
    /// `map_err` helper: an I/O error on `path`.
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StreamError + '_ {
        move |error| StreamError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

impl Streamed {
    /// Reads every position of `spec.paths` into the feature caches; errors name the
    /// file and the line or byte.
    pub fn build(spec: &StreamSpec<'_>) -> Result<Streamed, StreamError> {
        let family = match spec.source {
            FeatureSource::Mnk { table, .. } if table.evaluation == MnkEvaluation::Points => {
                return Err(StreamError::PointsTable);
            }
            FeatureSource::Mnk { .. } => Family::Lines,
            FeatureSource::Ataxx => Family::Ataxx,
        };
        let dir = spec.out.join(CACHE_DIR);
        std::fs::create_dir_all(&dir).map_err(StreamError::io(&dir))?;
        let paths = [dir.join("train.bin"), dir.join("validation.bin")];
        let create = |p: &Path| {
            File::create(p)
                .map(|f| BufWriter::with_capacity(1 << 20, f))
                .map_err(StreamError::io(p))
        };
        let mut writers = [create(&paths[0])?, create(&paths[1])?];
        let mut sizes = [0u64; 2];
        let mut sample = Dataset::default();
        let mut index = 0u64;
        let mut bytes = Vec::new();
        for path in spec.paths {
            for (file, format) in data_files(path)? {
                let mut reader = DataReader::open(&file, format)?;
                loop {
                    let mut chunk = Vec::with_capacity(CHUNK);
                    while chunk.len() < CHUNK {
                        match reader.next_record()? {
                            Some(r) => chunk.push(r),
                            None => break,
                        }
                    }
                    if chunk.is_empty() {
                        break;
                    }
                    let rows: Vec<Result<Row, StreamError>> = chunk
                        .par_iter()
                        .map_init(
                            || Featurer::new(spec.source),
                            |f, r| {
                                f.row(&r.position).map_err(|error| StreamError::Position {
                                    path: file.clone(),
                                    position: r.position.clone(),
                                    error,
                                })
                            },
                        )
                        .collect();
                    for (record, row) in chunk.iter().zip(rows) {
                        let row = row?;
                        let split = if is_validation(spec.validation, spec.seed, index / SPLIT_RUN)
                        {
                            Split::Validation
                        } else {
                            Split::Train
                        };
                        index += 1;
                        bytes.clear();
                        encode(&row, record, &mut bytes);
                        let k = split as usize;
                        writers[k]
                            .write_all(&bytes)
                            .map_err(StreamError::io(&paths[k]))?;
                        sizes[k] += 1;
                        if split == Split::Train && sample.len() < K_SAMPLE {
                            sample.extend(Dataset {
                                features: match row {
                                    Row::Lines(f) => Features::Lines(vec![f]),
                                    Row::Ataxx(f) => Features::Ataxx(vec![f]),
                                },
                                labels: vec![f32::from(record.result) / 2.0],
                            });
                        }
                    }
                    if chunk.len() < CHUNK {
                        break;
                    }
                }
            }
        }
        for (w, p) in writers.iter_mut().zip(&paths) {
            w.flush().map_err(StreamError::io(p))?;
        }
        let open = |p: &Path| File::open(p).map_err(StreamError::io(p));
        Ok(Streamed {
            family,
            files: [open(&paths[0])?, open(&paths[1])?],
            sizes,
            sample,
            lambda: spec.lambda,
        })
    }

    /// Training and validation positions.
    pub fn sizes(&self) -> [u64; 2] {
        self.sizes
    }

    /// What was read, as the fit reports it.
    pub fn counts(&self) -> Counts {
        Counts {
            train: self.sizes[0],
            validation: self.sizes[1],
            ..Counts::default()
        }
    }

    /// K for the weights `w`, fitted against the results of the first training
    /// positions.
    pub fn fit_k(&self, w: &[f64], loss: Loss) -> Option<f64> {
        fit_k(&self.sample, w, loss)
    }

    /// Block `b` of a set, labelled under K.
    fn block(&self, split: Split, b: u64, k: f64) -> Result<Dataset, StreamError> {
        let size = self.family.record();
        let first = b * BLOCK as u64;
        let n = (self.sizes[split as usize] - first).min(BLOCK as u64) as usize;
        let mut buf = vec![0u8; n * size];
        self.files[split as usize]
            .read_exact_at(&mut buf, first * size as u64)
            .map_err(StreamError::Cache)?;
        let lambda = self.lambda;
        let i16_at = |r: &[u8], i: usize| i16::from_le_bytes([r[2 * i], r[2 * i + 1]]);
        let mut labels = Vec::with_capacity(n);
        let mut lines = Vec::new();
        let mut ataxx = Vec::new();
        for r in buf.chunks_exact(size) {
            let tail = &r[size - 6..];
            let score = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
            let result = f64::from(tail[4]) / 2.0;
            let label = if tail[5] == 1 {
                lambda * result + (1.0 - lambda) * sigmoid(k * f64::from(score))
            } else {
                result
            };
            labels.push(label as f32);
            match self.family {
                Family::Lines => {
                    let mut f = [[0u16; LINES_WIDTH]; 2];
                    for (i, v) in f.iter_mut().flatten().enumerate() {
                        *v = i16_at(r, i) as u16;
                    }
                    lines.push(f);
                }
                Family::Ataxx => {
                    let at = 2 * ATAXX_TERM_COUNT;
                    let u64_at =
                        |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().expect("eight bytes"));
                    ataxx.push(AtaxxFeatures {
                        terms: std::array::from_fn(|i| i16_at(r, i)),
                        phase: f32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]]),
                        stones: [u64_at(at + 4), u64_at(at + 12)],
                    });
                }
            }
        }
        Ok(Dataset {
            features: match self.family {
                Family::Lines => Features::Lines(lines),
                Family::Ataxx => Features::Ataxx(ataxx),
            },
            labels,
        })
    }

    fn blocks(&self, split: Split) -> u64 {
        self.sizes[split as usize].div_ceil(BLOCK as u64)
    }

    /// Mean training and validation loss under `w`.
    pub fn losses(&self, w: &[f64], k: f64, loss: Loss) -> Result<(f64, f64), StreamError> {
        let mut out = [0.0; 2];
        for split in [Split::Train, Split::Validation] {
            let mut sum = 0.0;
            for b in 0..self.blocks(split) {
                let data = self.block(split, b, k)?;
                sum += data.loss(None, w, k, loss, false).0 * data.len() as f64;
            }
            out[split as usize] = sum / self.sizes[split as usize].max(1) as f64;
        }
        Ok((out[0], out[1]))
    }

    /// One epoch of Adam: the blocks in the epoch's order, each block's positions in
    /// its own order.
    pub fn run_epoch(
        &self,
        base: &[f64],
        params: &[FreeParam],
        k: f64,
        settings: &Settings,
        adam: &mut Adam,
        epoch: u64,
    ) -> Result<(), StreamError> {
        let blocks = self.blocks(Split::Train);
        for b in epoch_order(blocks as usize, settings.seed ^ 0xB10C, epoch) {
            let data = self.block(Split::Train, u64::from(b), k)?;
            let within = Settings {
                seed: derive_seed(settings.seed, Stream::Shuffle, u64::from(b)),
                ..*settings
            };
            run_epoch(&data, base, params, k, &within, adam, epoch);
        }
        Ok(())
    }
}
