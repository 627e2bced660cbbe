//! Datagen workers: several processes (on one machine or many, over a shared folder)
//! generate one run's games together, as `arena tune --worker` plays one tune's pairs.
//!
//! The games are cut into chunks of one duplicate window each (`dedup_window` games,
//! windows starting at multiples of it), so a chunk's positions do not depend on any
//! other chunk. A worker holds the folder's lock shared and its own lock
//! (`.arena.worker-ID.lock`, with its session) exclusively; under the short update lock
//! (`.arena.update.lock`) it claims the first chunk that is neither finished nor claimed
//! by a live worker (`datagen.claims`: one line `chunk worker session` per claim) and
//! plays it into `positions.chunk-C.EXT` and `datagen.chunk-C.log`, resuming what a
//! killed worker left there. The worker that finds every chunk finished joins them, in
//! chunk order, into `positions.EXT` and `datagen.log`: byte for byte what one process
//! writes, since chunks are whole windows; then the chunk files are removed.

use std::{
    collections::BTreeMap,
    fs::{self, File, OpenOptions},
    io::Write,
    path::Path,
    sync::atomic::Ordering,
    time::Duration,
};

use super::{
    Counts, Datagen, DatagenEnding, DatagenEvent, DatagenOutcome, DatagenRun, LogLine, Part,
    Target, check_options, data_file_named, log_file_named, play_part, scan_log,
};
use crate::datagen::sample::DatagenGame;
use crate::{files, jobs::lock, tournament::RunError};

/// The claims of the chunks in play.
pub(super) const CLAIMS_FILE: &str = "datagen.claims";

/// Whether workers play (or played and did not finish) in `out`: their claims file is
/// there until the last worker joins the chunks.
pub(super) fn in_play(out: &Path) -> bool {
    fs::symlink_metadata(out.join(CLAIMS_FILE)).is_ok()
}

/// How long a worker with nothing to claim waits before it looks again (a live worker
/// is playing the last chunks; if it dies, this one takes them over).
const IDLE_POLL: Duration = Duration::from_millis(300);

fn chunk_suffix(c: u64) -> String {
    format!(".chunk-{c}")
}

/// `chunk -> (worker, session)`.
fn read_claims(out: &Path) -> BTreeMap<u64, (String, String)> {
    let text = fs::read_to_string(out.join(CLAIMS_FILE)).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut w = l.splitn(3, ' ');
            let c = w.next()?.parse().ok()?;
            Some((c, (w.next()?.to_string(), w.next()?.to_string())))
        })
        .collect()
}

fn write_claims(out: &Path, claims: &BTreeMap<u64, (String, String)>) -> Result<(), RunError> {
    let text: String = claims
        .iter()
        .map(|(c, (w, s))| format!("{c} {w} {s}\n"))
        .collect();
    files::write_atomic(&out.join(CLAIMS_FILE), text.as_bytes(), true).map_err(RunError::from)
}

/// The last line of a log that starts at game `first` (`None`: no game logged).
fn last_logged(path: &Path, first: u64) -> Result<Option<LogLine>, RunError> {
    Ok(scan_log(path, first, |_| {})?.last)
}

/// Plays as worker `label` until every chunk is finished (joining them) or a stop.
pub(super) fn run_worker<G: DatagenGame>(
    d: &Datagen,
    part: &Part<'_, G>,
    options: &DatagenRun,
    label: &str,
    resolved: &str,
    sink: &mut dyn FnMut(&DatagenEvent),
) -> Result<DatagenOutcome, RunError> {
    let Target::Games(n) = d.target else {
        return Err(RunError::Input(
            "--worker: workers play a fixed number of games; give --games, not --positions".into(),
        ));
    };
    if options.shard.is_some() {
        return Err(RunError::Input(
            "--worker and --shard: choose one way to split the games".into(),
        ));
    }
    let out = &options.out_dir;
    let session = format!(
        "session-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |t| t.as_nanos())
    );
    let _lock = lock::lock_worker(
        out,
        label,
        &format!("arena datagen worker {label} ({session})"),
    )?;
    {
        let _update = lock::lock_update(out)?;
        check_options(out, resolved)?;
        files::write_atomic(&out.join(super::OPTIONS_FILE), resolved.as_bytes(), true)
            .map_err(RunError::from)?;
    }
    let w = d.dedup_window;
    let chunks = n.div_ceil(w);
    let range = |c: u64| (c * w, ((c + 1) * w).min(n));
    let final_log = log_file_named(out, "");
    let final_data = data_file_named(out, d.format, "");
    let joined = || -> Result<Option<LogLine>, RunError> {
        Ok(last_logged(&final_log, 0)?.filter(|l| l.game + 1 == n))
    };
    let mut session_counts = Counts::default();
    let mut ending = DatagenEnding::Complete;
    let mut started = false;
    loop {
        if options.stop.load(Ordering::Relaxed) {
            ending = DatagenEnding::Interrupted;
            break;
        }
        if joined()?.is_some() {
            break;
        }
        // Claim the first chunk nobody finished or plays.
        let claimed = {
            let _update = lock::lock_update(out)?;
            if joined()?.is_some() {
                break;
            }
            let mut claims = read_claims(out);
            let mut free = None;
            let mut unfinished = 0;
            for c in 0..chunks {
                let (first, end) = range(c);
                let log = log_file_named(out, &chunk_suffix(c));
                if last_logged(&log, first)?.is_some_and(|l| l.game + 1 == end) {
                    continue;
                }
                unfinished += 1;
                let takeable = match claims.get(&c) {
                    None => true,
                    Some((_, s)) if *s == session => true,
                    Some((worker, s)) => !lock::worker_alive(out, worker, s),
                };
                if takeable && free.is_none() {
                    free = Some(c);
                }
            }
            if unfinished == 0 {
                join(out, d, chunks, &range)?;
                break;
            }
            if let Some(c) = free {
                claims.insert(c, (label.to_string(), session.clone()));
                write_claims(out, &claims)?;
            }
            free
        };
        let Some(c) = claimed else {
            sink(&DatagenEvent::Tick);
            std::thread::sleep(IDLE_POLL);
            continue;
        };
        let mut inner = |e: &DatagenEvent| match e {
            DatagenEvent::Game { session, .. } => sink(&DatagenEvent::Game {
                session: add(session_counts, session),
                games: session_counts.games + session.games,
                positions: session_counts.positions + session.positions,
            }),
            DatagenEvent::Started { jobs, .. } => {
                if !started {
                    started = true;
                    sink(&DatagenEvent::Started {
                        games: 0,
                        positions: 0,
                        total_games: Some(n),
                        total_positions: None,
                        jobs: *jobs,
                        repaired: false,
                    });
                }
            }
            DatagenEvent::Tick => sink(e),
        };
        let outcome = play_part(
            d,
            part,
            options,
            Some(range(c)),
            &chunk_suffix(c),
            true,
            None,
            &mut inner,
        )?;
        session_counts = add(session_counts, &outcome.session);
        if outcome.ending == DatagenEnding::Interrupted {
            ending = DatagenEnding::Interrupted;
            break;
        }
    }
    // Until the join, the data is in the folder's chunk files.
    let (games, positions, data) = match joined()? {
        Some(l) => (n, l.positions, final_data),
        None => (
            session_counts.games,
            session_counts.positions,
            out.to_path_buf(),
        ),
    };
    Ok(DatagenOutcome {
        ending,
        session: session_counts,
        games,
        positions,
        data,
        elapsed: part.started.elapsed(),
    })
}

fn add(a: Counts, b: &Counts) -> Counts {
    Counts {
        games: a.games + b.games,
        positions: a.positions + b.positions,
        decided: a.decided + b.decided,
        forcing: a.forcing + b.forcing,
        duplicates: a.duplicates + b.duplicates,
        searched: a.searched + b.searched,
        search_us: a.search_us + b.search_us,
        nodes: a.nodes + b.nodes,
    }
}

/// Joins the finished chunks, in order, into the run's data file and log (each written
/// to a temporary file, flushed, and renamed: the log last, as the sign of a complete
/// join), then removes the chunk files and the claims. Called under the update lock.
fn join(
    out: &Path,
    d: &Datagen,
    chunks: u64,
    range: &dyn Fn(u64) -> (u64, u64),
) -> Result<(), RunError> {
    let data_path = data_file_named(out, d.format, "");
    let tmp = out.join(format!(
        ".{}.{}-0-0.tmp",
        data_path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("positions"),
        std::process::id()
    ));
    let mut data = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(|e| RunError::io(&tmp, e))?;
    let mut log = String::new();
    let (mut positions, mut bytes) = (0u64, 0u64);
    for c in 0..chunks {
        let suffix = chunk_suffix(c);
        let chunk_log = log_file_named(out, &suffix);
        let chunk_data = data_file_named(out, d.format, &suffix);
        let mut last = LogLine {
            game: 0,
            positions: 0,
            bytes: 0,
        };
        scan_log(&chunk_log, range(c).0, |l| {
            log.push_str(
                &LogLine {
                    game: l.game,
                    positions: positions + l.positions,
                    bytes: bytes + l.bytes,
                }
                .text(),
            );
            last = *l;
        })?;
        let mut src = File::open(&chunk_data).map_err(|e| RunError::io(&chunk_data, e))?;
        // Only what the log vouches for (a chunk is finished, so that is all of it).
        let copied = std::io::copy(&mut std::io::Read::take(&mut src, last.bytes), &mut data)
            .map_err(|e| RunError::io(&tmp, e))?;
        if copied != last.bytes {
            return Err(RunError::Input(format!(
                "{}: {copied} bytes, but {} says {} were written",
                chunk_data.display(),
                chunk_log.display(),
                last.bytes
            )));
        }
        positions += last.positions;
        bytes += last.bytes;
    }
    data.flush()
        .and_then(|()| data.sync_all())
        .map_err(|e| RunError::io(&tmp, e))?;
    drop(data);
    fs::rename(&tmp, &data_path).map_err(|e| RunError::io(&data_path, e))?;
    let log_path = log_file_named(out, "");
    files::write_atomic(&log_path, log.as_bytes(), true).map_err(RunError::from)?;
    for c in 0..chunks {
        let suffix = chunk_suffix(c);
        let _ = fs::remove_file(data_file_named(out, d.format, &suffix));
        let _ = fs::remove_file(log_file_named(out, &suffix));
    }
    let _ = fs::remove_file(out.join(CLAIMS_FILE));
    Ok(())
}
