//! The datagen log, the run's durable record: one line per game written (`game positions
//! bytes`, the totals after it), read back on resume, where a torn last line is the only
//! damage allowed.

use std::{
    fs::File,
    io::{BufRead, BufReader},
    path::Path,
};

use crate::tournament::RunError;

/// One line of the log: the totals after game `game`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::datagen) struct LogLine {
    pub(in crate::datagen) game: u64,
    pub(in crate::datagen) positions: u64,
    pub(in crate::datagen) bytes: u64,
}

impl LogLine {
    fn parse(line: &str) -> Option<LogLine> {
        let mut w = line.split(' ');
        let l = LogLine {
            game: w.next()?.parse().ok()?,
            positions: w.next()?.parse().ok()?,
            bytes: w.next()?.parse().ok()?,
        };
        w.next().is_none().then_some(l)
    }

    pub(in crate::datagen) fn text(&self) -> String {
        format!("{} {} {}\n", self.game, self.positions, self.bytes)
    }
}

/// What the log holds: its valid length, the last line, and the data offset where
/// game `window_start` begins (found on a second pass).
pub(in crate::datagen) struct LogScan {
    pub(in crate::datagen) valid_len: u64,
    pub(in crate::datagen) last: Option<LogLine>,
    pub(in crate::datagen) torn: bool,
}

/// Reads the log line by line (games must follow each other from `first`); a last line
/// without its newline, or one that does not parse, is a torn tail.
pub(in crate::datagen) fn scan_log(
    path: &Path,
    first: u64,
    mut at: impl FnMut(&LogLine),
) -> Result<LogScan, RunError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(LogScan {
                valid_len: 0,
                last: None,
                torn: false,
            });
        }
        Err(e) => return Err(RunError::io(path, e)),
    };
    let mut reader = BufReader::new(file);
    let mut buf = String::new();
    let mut scan = LogScan {
        valid_len: 0,
        last: None,
        torn: false,
    };
    let mut n = 0u64;
    loop {
        buf.clear();
        let read = reader
            .read_line(&mut buf)
            .map_err(|e| RunError::io(path, e))?;
        if read == 0 {
            break;
        }
        n += 1;
        let line = buf.strip_suffix('\n').and_then(LogLine::parse);
        let Some(line) = line else {
            // Only the last line may be torn: anything after it is damage.
            let mut rest = String::new();
            let more = std::io::Read::read_to_string(&mut reader, &mut rest)
                .map_err(|e| RunError::io(path, e))?;
            if more > 0 {
                return Err(RunError::Input(format!(
                    "{}:{n}: not a log line (`game positions bytes`): the log is damaged",
                    path.display()
                )));
            }
            scan.torn = true;
            break;
        };
        let expected = scan.last.map_or(first, |l| l.game + 1);
        if line.game != expected
            || scan
                .last
                .is_some_and(|l| line.positions < l.positions || line.bytes < l.bytes)
        {
            return Err(RunError::Input(format!(
                "{}:{n}: game {} where game {expected} was due: the log is damaged",
                path.display(),
                line.game
            )));
        }
        at(&line);
        scan.valid_len += read as u64;
        scan.last = Some(line);
    }
    Ok(scan)
}
