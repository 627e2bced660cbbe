//! Live game files (`--pgnout`, `--sgfout`, `pgnout`/`sgfout` in a config): each game
//! of a run appended to a PGN or SGF file as it is written to the results, with the text
//! `arena export` writes for it (see [`super::pgn`], [`super::sgf`]).
//!
//! Games go in in game-index order: one that finishes before a game with a lower index
//! waits (in memory, a few records at most) until that one is in, so the file is the
//! same whatever the threads' timing, and at the end of a run it equals `arena export`'s
//! file. Each game is one write, so a run killed mid-write leaves at most a torn last
//! game; `--resume` cuts that off and writes every game the results hold and the file
//! does not, never one twice. The file is never reached through a symbolic link, and
//! one arena at a time writes it (an advisory lock on the file).

use std::{
    collections::BTreeMap,
    fs::{File, OpenOptions},
    io::{Read, Write},
    os::unix::{fs::OpenOptionsExt, io::AsRawFd},
    path::{Path, PathBuf},
};

use super::{
    Tournament,
    error::RunError,
    pgn::{self, ExportInfo, ResultConvention},
    record::GameRecord,
    sgf,
    shard::Shard,
    validate::GameSet,
};
use crate::game::GameSpec;

/// Where a run's live game files go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveFiles {
    /// A PGN file (headers only for m,n,k games, every move for Ataxx, as `arena export
    /// --pgn` writes them).
    pub pgn: Option<PathBuf>,
    /// An SGF file (m,n,k games only).
    pub sgf: Option<PathBuf>,
    /// The run's date for records that do not say when they were played (records
    /// written by an older arena), as `arena export` takes it.
    pub date: Option<String>,
}

impl LiveFiles {
    /// Whether there is no live file.
    pub fn is_empty(&self) -> bool {
        self.pgn.is_none() && self.sgf.is_none()
    }

    /// The files with the flag or key that names them.
    fn named(&self) -> impl Iterator<Item = (Format, &Path)> {
        [(Format::Pgn, &self.pgn), (Format::Sgf, &self.sgf)]
            .into_iter()
            .filter_map(|(f, p)| p.as_deref().map(|p| (f, p)))
    }

    /// Checks what can be checked before a run touches anything: the game suits the
    /// format, no shard, and each path names a file (not a folder, not a link) in a
    /// folder that exists; the two are not the same file.
    pub fn check(&self, game: GameSpec, shard: Option<Shard>) -> Result<(), RunError> {
        if self.is_empty() {
            return Ok(());
        }
        if let Some(s) = shard {
            return Err(RunError::Input(format!(
                "pgnout/sgfout: shard {} writes only its part of the games; export the merged \
                 run (`arena export RESULTS_DIR`) or give the live file to a run without shards",
                s.label()
            )));
        }
        if self.sgf.is_some() && !matches!(game, GameSpec::Mnk(_)) {
            return Err(RunError::Input(format!(
                "sgfout: SGF is for m,n,k games; {game} games go to a PGN file (--pgnout)"
            )));
        }
        if let (Some(p), Some(s)) = (&self.pgn, &self.sgf)
            && p == s
        {
            return Err(RunError::Input(format!(
                "pgnout and sgfout name the same file {}",
                p.display()
            )));
        }
        for (format, path) in self.named() {
            let refuse = |why: String| {
                RunError::Input(format!("{} {}: {why}", format.key(), path.display()))
            };
            if path.as_os_str().is_empty() || path.file_name().is_none() {
                return Err(refuse("not a file name".into()));
            }
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if !parent.is_dir() {
                return Err(refuse(format!(
                    "the folder {} does not exist",
                    parent.display()
                )));
            }
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(refuse(
                        "is a symbolic link; arena writes game files only where they are, \
                         never through a link"
                            .into(),
                    ));
                }
                Ok(m) if !m.is_file() => {
                    return Err(refuse("is not a regular file".into()));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// A live file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Pgn,
    Sgf,
}

impl Format {
    /// The config key (and, with `--`, the flag).
    fn key(self) -> &'static str {
        match self {
            Format::Pgn => "pgnout",
            Format::Sgf => "sgfout",
        }
    }
}

/// One live file.
struct Open {
    format: Format,
    path: PathBuf,
    /// None until [`LiveWriter::settle`] creates a file that was not there.
    file: Option<File>,
    /// The games it holds.
    holds: GameSet,
    /// The games it held when opened, in file order.
    listed: Vec<u64>,
    /// Its length, and where its last complete game ends.
    len: u64,
    valid_len: u64,
}

/// The live files of a run while it plays: the writer thread offers it every record.
pub(crate) struct LiveWriter {
    files: Vec<Open>,
    /// Records waiting for a game with a lower index.
    pending: BTreeMap<u64, GameRecord>,
    /// The next game index to write.
    next: u64,
    /// Game indices of the run.
    games: u64,
    event: String,
    game: GameSpec,
    date: Option<String>,
}

/// Opens a live file without following a link; `create`: a new file (never one that
/// appeared meanwhile). It is locked (advisory) for this arena alone.
fn open_file(format: Format, path: &Path, create: bool) -> Result<Option<File>, RunError> {
    let refuse =
        |why: String| RunError::Input(format!("{} {}: {why}", format.key(), path.display()));
    let opened = OpenOptions::new()
        .read(true)
        .append(true)
        .create_new(create)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path);
    let file = match opened {
        Ok(file) => file,
        Err(e) if !create && e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        // Nothing is written yet: a path that cannot be opened is bad input.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(refuse(
                "is a symbolic link; arena writes game files only where they are, never \
                 through a link"
                    .into(),
            ));
        }
        Err(e) => return Err(refuse(format!("cannot be opened for writing: {e}"))),
    };
    if !file
        .metadata()
        .map_err(|e| RunError::io(path, e))?
        .is_file()
    {
        return Err(refuse("is not a regular file".into()));
    }
    // SAFETY: flock(2) on a descriptor this function owns; no memory involved.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(refuse("another arena is writing it".into()));
    }
    Ok(Some(file))
}

impl LiveWriter {
    /// Opens the live files of `t` that exist, `games` game indices long, before the run
    /// touches its results folder: a new run refuses a file that holds anything, a
    /// resumed one a file with games of another run. None without live files.
    pub(crate) fn open(
        live: &LiveFiles,
        t: &Tournament,
        resume: bool,
        games: u64,
    ) -> Result<Option<LiveWriter>, RunError> {
        if live.is_empty() {
            return Ok(None);
        }
        let event = &t.config.name;
        let mut files = Vec::new();
        for (format, path) in live.named() {
            let refuse = |why: String| {
                RunError::Input(format!("{} {}: {why}", format.key(), path.display()))
            };
            let mut file = open_file(format, path, false)?;
            let mut holds = GameSet::default();
            let mut listed = Vec::new();
            let (mut len, mut valid_len) = (0, 0);
            if let Some(f) = &mut file {
                let mut bytes = Vec::new();
                f.read_to_end(&mut bytes)
                    .map_err(|e| RunError::io(path, e))?;
                if !bytes.is_empty() && !resume {
                    return Err(refuse(
                        "already holds games: a new run starts a new file (remove it or name \
                         another); --resume continues the run that wrote it"
                            .into(),
                    ));
                }
                // A write cut short may end inside a character: that is part of the torn
                // tail, which goes.
                let text = match std::str::from_utf8(&bytes) {
                    Ok(text) => text,
                    Err(e) if e.error_len().is_none() => {
                        std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid up to here")
                    }
                    Err(e) => {
                        return Err(refuse(format!(
                            "at byte {}: not UTF-8 text; it is not a live file arena wrote",
                            e.valid_up_to()
                        )));
                    }
                };
                let back = match format {
                    Format::Pgn => pgn::read_back(text, event),
                    Format::Sgf => sgf::read_back(text, event),
                }
                .map_err(|e| {
                    refuse(format!(
                        "{e}; it is not this run's live file (name another, or remove it to \
                         have it written afresh)"
                    ))
                })?;
                for &g in &back.games {
                    holds.insert(g);
                }
                listed = back.games;
                (len, valid_len) = (bytes.len() as u64, back.valid_len);
            }
            files.push(Open {
                format,
                path: path.to_path_buf(),
                file,
                holds,
                listed,
                len,
                valid_len,
            });
        }
        Ok(Some(LiveWriter {
            files,
            pending: BTreeMap::new(),
            next: 0,
            games,
            event: event.clone(),
            game: t.config.game,
            date: live.date.clone(),
        }))
    }

    /// Once the results are read (they hold `done`): refuses a file with a game the
    /// results do not hold, cuts a torn last game off, creates the files not there.
    pub(crate) fn settle(&mut self, done: &GameSet) -> Result<(), RunError> {
        for f in &mut self.files {
            let refuse = |why: String| {
                RunError::Input(format!("{} {}: {why}", f.format.key(), f.path.display()))
            };
            let Some(file) = &f.file else {
                f.file = open_file(f.format, &f.path, true)?;
                continue;
            };
            if let Some(g) = f.listed.iter().find(|&&g| !done.contains(g)) {
                return Err(refuse(format!(
                    "holds game {g}, which the results do not: it is not this run's live \
                     file (name another, or remove it to have it written afresh)"
                )));
            }
            if f.valid_len < f.len {
                file.set_len(f.valid_len)
                    .map_err(|e| RunError::io(&f.path, e))?;
            }
        }
        Ok(())
    }

    /// Takes a record written to the results: it goes to each file that lacks it once
    /// every game with a lower index has (or never will be played).
    pub(crate) fn offer(&mut self, r: &GameRecord) -> Result<(), RunError> {
        if self.files.iter().any(|f| !f.holds.contains(r.game)) {
            self.pending.insert(r.game, r.clone());
        }
        while self.next < self.games {
            if let Some(r) = self.pending.remove(&self.next) {
                self.write(&r)?;
            } else if !self.files.iter().all(|f| f.holds.contains(self.next)) {
                break;
            }
            self.next += 1;
        }
        Ok(())
    }

    /// Writes every record still waiting, in game order: the run ended without the
    /// games they waited for (an SPRT decided), so the file holds what the results do.
    pub(crate) fn finish(&mut self) -> Result<(), RunError> {
        while let Some((_, r)) = self.pending.pop_first() {
            self.write(&r)?;
        }
        Ok(())
    }

    /// Appends `r` to each file that lacks it: one write and a flush per game.
    fn write(&mut self, r: &GameRecord) -> Result<(), RunError> {
        let info = ExportInfo {
            event: &self.event,
            game: self.game,
            date: self.date.as_deref(),
            convention: ResultConvention::Chess,
        };
        for f in &mut self.files {
            if f.holds.contains(r.game) {
                continue;
            }
            let text = match (f.format, self.game) {
                (Format::Sgf, GameSpec::Mnk(config)) => sgf::game_text(&info, &config, r),
                _ => pgn::game_text(&info, r),
            }
            .map_err(|e| RunError::Input(format!("{}: {e}", f.path.display())))?;
            let file = f.file.as_mut().expect("settled: every live file is open");
            file.write_all(text.as_bytes())
                .and_then(|()| file.flush())
                .map_err(|e| RunError::io(&f.path, e))?;
            f.holds.insert(r.game);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::record::GameResult;

    /// Three games as a live file holds them, and where each ends.
    fn file(format: Format, game: GameSpec, event: &str) -> (String, Vec<usize>) {
        let (opening, moves): (&str, &[&str]) = match game {
            GameSpec::Ataxx => (
                "x5o/7/7/7/7/7/o5x x 0 1",
                &["a7a5", "g7f6", "a5b4", "0000"][..],
            ),
            GameSpec::Mnk(_) => ("h8i9", &["h9", "j7", "g10"][..]),
        };
        let info = ExportInfo {
            event,
            game,
            date: None,
            convention: ResultConvention::Chess,
        };
        let (mut text, mut ends) = (String::new(), Vec::new());
        for g in 0..3u64 {
            let mut r = GameRecord::for_tests(
                Some(game),
                opening,
                moves,
                Some(12),
                GameResult::Draw,
                "max-plies",
            );
            r.game = g;
            // A name with the characters each format escapes.
            r.black_name = "a]b\\c\"d".into();
            text.push_str(&match (format, game) {
                (Format::Sgf, GameSpec::Mnk(c)) => sgf::game_text(&info, &c, &r).unwrap(),
                _ => pgn::game_text(&info, &r).unwrap(),
            });
            ends.push(text.len());
        }
        (text, ends)
    }

    /// A write cut short at any byte leaves the games before it, and nothing else.
    #[test]
    fn a_file_cut_anywhere_reads_back_its_complete_games() {
        let gomoku: GameSpec = "gomoku".parse().unwrap();
        for (format, game) in [
            (Format::Pgn, gomoku),
            (Format::Pgn, GameSpec::Ataxx),
            (Format::Sgf, gomoku),
        ] {
            let event = "run (x) ]\"";
            let (text, ends) = file(format, game, event);
            let read = |t: &str| match format {
                Format::Pgn => pgn::read_back(t, event),
                Format::Sgf => sgf::read_back(t, event),
            };
            for cut in 0..=text.len() {
                let Some(part) = text.get(..cut) else {
                    continue;
                };
                let back = read(part).unwrap_or_else(|e| panic!("{format:?} cut at {cut}: {e}"));
                let whole = ends.iter().filter(|&&e| e <= cut).count();
                assert_eq!(
                    back.games,
                    (0..whole as u64).collect::<Vec<_>>(),
                    "cut {cut}"
                );
                let valid = if whole == 0 { 0 } else { ends[whole - 1] };
                assert_eq!(back.valid_len, valid as u64, "{format:?} cut {cut}");
            }
            // Another run's file, or text that is no game, is refused.
            let other = match format {
                Format::Pgn => pgn::read_back(&text, "other"),
                Format::Sgf => sgf::read_back(&text, "other"),
            };
            assert!(other.is_err(), "{format:?}");
            assert!(read("notes\n").is_err(), "{format:?}");
            assert!(read(&format!("{text}notes\n{text}")).is_err(), "{format:?}");
        }
    }
}
