//! The served game between searches: the protocol's commands (`START`, `TURN`, `INFO`,
//! `TAKEBACK`, ...), the rule and the board (`BOARD` lines read in move order).

use std::sync::{Arc, atomic::AtomicBool};

use super::{Reply, SIZES, State};
use crate::{
    config,
    engine::EngineConfig,
    game::{Game, Mnk, MnkConfig, MnkMove, MnkRule},
    search::score::MAX_PLY,
};

fn err(text: impl Into<String>) -> Option<Reply> {
    Some(Reply::Line(format!("ERROR {}", text.into())))
}

impl State {
    pub(super) fn new(config: EngineConfig, game: MnkConfig) -> State {
        State {
            config,
            k: game.k(),
            rule: game.rule(),
            board: None,
            engine: None,
            built_for: None,
            abort: Arc::new(AtomicBool::new(false)),
            timeout_turn: None,
            timeout_match: None,
            time_left: None,
            max_depth: None,
            max_node: None,
            max_memory: None,
        }
    }

    pub(super) fn command(&mut self, cmd: &str, rest: &str) -> Option<Reply> {
        match cmd {
            "START" => {
                let Ok(n) = rest.parse::<usize>() else {
                    return err(format!("START needs a board size, got '{rest}'"));
                };
                self.start(n, n)
            }
            "RECTSTART" => {
                let Some((w, h)) = parse_pair(rest) else {
                    return err(format!("RECTSTART needs width,height, got '{rest}'"));
                };
                match (usize::try_from(w), usize::try_from(h)) {
                    (Ok(w), Ok(h)) => self.start(w, h),
                    _ => err(format!("bad board size '{rest}'")),
                }
            }
            "RESTART" => {
                let Some(board) = &self.board else {
                    return err("RESTART before START");
                };
                self.board = Some(Mnk::new(board.mnk()));
                self.new_game();
                Some(Reply::Line("OK".into()))
            }
            "BEGIN" => match &self.board {
                None => err("BEGIN before START"),
                Some(b) if b.stones() > 0 => err("BEGIN on a board with stones"),
                Some(_) => Some(Reply::Search),
            },
            "TURN" => {
                let Some(board) = &mut self.board else {
                    return err("TURN before START");
                };
                match parse_move(board, rest) {
                    Ok(mv) => {
                        board.play(mv);
                        Some(Reply::Search)
                    }
                    Err(e) => err(e.to_string()),
                }
            }
            "TAKEBACK" => {
                let Some(board) = &mut self.board else {
                    return err("TAKEBACK before START");
                };
                let Some((x, y)) = parse_pair(rest) else {
                    return err(format!("TAKEBACK needs x,y, got '{rest}'"));
                };
                match board.last_move() {
                    Some(last) if board.mnk().at(x, y) == Some(last) => {
                        board.undo(last, ());
                        Some(Reply::Line("OK".into()))
                    }
                    Some(last) => err(format!(
                        "can take back only the last stone ({})",
                        board.format_xy(last)
                    )),
                    None => err("TAKEBACK on an empty board"),
                }
            }
            "INFO" => self.info(rest),
            "ABOUT" => Some(Reply::Line(format!(
                "name=\"{}\", version=\"{}\", author=\"arena\", country=\"-\"",
                self.config.name.replace('"', "'"),
                env!("CARGO_PKG_VERSION")
            ))),
            _ => Some(Reply::Line(format!("UNKNOWN command '{cmd}'"))),
        }
    }

    fn start(&mut self, width: usize, height: usize) -> Option<Reply> {
        if !SIZES.contains(&width) || !SIZES.contains(&height) {
            return err(format!(
                "unsupported size {width}x{height}: sides must be {} to {}",
                SIZES.start(),
                SIZES.end()
            ));
        }
        match MnkConfig::new(width as u32, height as u32, self.k as u32, self.rule) {
            Ok(game) => {
                self.board = Some(Mnk::new(&game));
                // Build the engine now (tables, evaluator) rather than on the first
                // move's clock.
                match self.take_engine() {
                    Ok(engine) => self.engine = Some(engine),
                    Err(e) => return err(e),
                }
                self.new_game();
                Some(Reply::Line("OK".into()))
            }
            Err(e) => err(e),
        }
    }

    /// A new game: the engine forgets what it learned.
    fn new_game(&mut self) {
        if let Some(engine) = &mut self.engine {
            engine.searcher().new_game(0);
        }
    }

    fn info(&mut self, rest: &str) -> Option<Reply> {
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let key = key.to_ascii_lowercase();
        let value = value.trim();
        let number = || value.parse::<i64>().ok().filter(|v| *v >= 0);
        match key.as_str() {
            "timeout_turn" | "timeout_match" | "time_left" | "max_node" | "max_depth"
            | "max_memory" | "rule" => {
                let Some(v) = number() else {
                    return err(format!("INFO {key}: '{value}' is not a number"));
                };
                let v = v as u64;
                match key.as_str() {
                    "timeout_turn" => self.timeout_turn = Some(v),
                    "timeout_match" => self.timeout_match = Some(v),
                    "time_left" => self.time_left = Some(v),
                    "max_node" => self.max_node = Some(v),
                    "max_depth" => self.max_depth = Some(v.min(MAX_PLY as u64 - 1) as u32),
                    "max_memory" => {
                        self.max_memory = Some(v);
                        self.built_for = None;
                    }
                    _ => return self.set_rule(v),
                }
                None
            }
            // Our own engine's parameters: `INFO search.params.lmr_divisor 150`, `INFO
            // table.open_three 9000`. A value out of range, or not a number, is refused
            // and leaves the engine as it was.
            _ if key.contains('.') => {
                let before = self.config.clone();
                let result = match config::parse_assignment(&format!("{key}={value}")) {
                    Ok((name, v)) => self.config.set_served(&name, v).map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                if let Err(e) = result {
                    return err(format!("INFO {key}: {e}"));
                }
                self.built_for = None;
                // A new table is allocated now: one that cannot be had is refused here.
                if self.config.search.tt_mb != before.search.tt_mb && self.board.is_some() {
                    match self.take_engine() {
                        Ok(engine) => self.engine = Some(engine),
                        Err(e) => {
                            self.config = before;
                            return err(format!("INFO {key}: {e}"));
                        }
                    }
                }
                None
            }
            // game_type, folder, thread_num, evaluate and others: nothing to do.
            _ => None,
        }
    }

    fn set_rule(&mut self, bits: u64) -> Option<Reply> {
        // Bit 1 is exactly five, bit 4 renju (which includes exactly five for black);
        // the others are rules this engine does not play, and playing freestyle instead
        // would lose games the manager scores by its rule.
        let unsupported = [(2, "continuous game"), (8, "caro")]
            .into_iter()
            .find(|(bit, _)| bits & bit != 0)
            .map(|(_, name)| name.to_string())
            .or_else(|| (bits > 15).then(|| format!("rule bits {bits}")));
        if let Some(name) = unsupported {
            return err(format!(
                "rule {bits}: {name} is not supported (freestyle 0, exactly five 1 and \
                 renju 4 are)"
            ));
        }
        let rule = if bits & 4 != 0 {
            MnkRule::Renju
        } else if bits & 1 != 0 {
            MnkRule::Exact
        } else {
            MnkRule::Freestyle
        };
        if rule == self.rule {
            return None;
        }
        self.rule = rule;
        if let Some(board) = &self.board {
            let c = board.mnk();
            let game = MnkConfig::new(c.width() as u32, c.height() as u32, c.k() as u32, rule)
                .expect("only the rule changed in a valid variant");
            let mut new = Mnk::new(&game);
            for &mv in board.history() {
                if new.outcome().is_some() {
                    self.board = Some(Mnk::new(&game));
                    return err("under the new rule the game was already over: board cleared");
                }
                new.play(mv);
            }
            self.board = Some(new);
        }
        None
    }

    pub(super) fn set_board(&mut self, lines: &[String]) -> Result<(), BoardError> {
        let Some(board) = &self.board else {
            return Err(BoardError::BeforeStart);
        };
        let game = *board.mnk();
        let mut own = Vec::new();
        let mut theirs = Vec::new();
        for line in lines {
            let parts: Vec<&str> = line.split(',').map(str::trim).collect();
            let nums: Vec<i32> = parts.iter().filter_map(|p| p.parse().ok()).collect();
            if parts.len() != 3 || nums.len() != 3 {
                return Err(BoardError::Line(line.clone()));
            }
            let mv = game
                .at(nums[0], nums[1])
                .ok_or_else(|| BoardError::Outside(line.clone()))?;
            match nums[2] {
                1 => own.push(mv),
                2 => theirs.push(mv),
                3 => return Err(BoardError::Continuous),
                f => {
                    return Err(BoardError::Field {
                        line: line.clone(),
                        field: f,
                    });
                }
            }
        }
        // The engine moves next: it is the first player when the counts are equal.
        let (first, second) = if own.len() == theirs.len() {
            (own, theirs)
        } else if theirs.len() == own.len() + 1 {
            (theirs, own)
        } else {
            return Err(BoardError::Counts {
                own: own.len(),
                theirs: theirs.len(),
            });
        };
        // Renju managers send the lines in move order, and whether a black stone was
        // forbidden depends on the stones before it: keep that order when the colours
        // alternate from the first player's.
        let in_order: Vec<MnkMove> = lines
            .iter()
            .filter_map(|l| {
                let nums: Vec<i32> = l.split(',').filter_map(|p| p.trim().parse().ok()).collect();
                game.at(nums[0], nums[1])
            })
            .collect();
        let alternates = in_order.iter().enumerate().all(|(i, mv)| {
            let side = if i % 2 == 0 { &first } else { &second };
            side.contains(mv)
        });
        let order: Vec<MnkMove> = if game.rule() == MnkRule::Renju && alternates {
            in_order
        } else {
            (0..first.len())
                .flat_map(|i| [first.get(i), second.get(i)])
                .flatten()
                .copied()
                .collect()
        };
        let mut pos = Mnk::new(&game);
        {
            for mv in &order {
                if pos.outcome().is_some() {
                    return Err(BoardError::Over);
                }
                if !pos.is_legal(*mv) {
                    return Err(BoardError::Twice(pos.format_xy(*mv)));
                }
                pos.play(*mv);
            }
        }
        self.board = Some(pos);
        Ok(())
    }
}

fn parse_pair(text: &str) -> Option<(i32, i32)> {
    let (a, b) = text.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

fn parse_move(board: &Mnk, text: &str) -> Result<MnkMove, MoveError> {
    let (x, y) = parse_pair(text).ok_or_else(|| MoveError::NotAPair(text.to_string()))?;
    let mv = board.mnk().at(x, y).ok_or(MoveError::Outside { x, y })?;
    if !board.is_legal(mv) {
        return Err(if board.outcome().is_some() {
            MoveError::Over
        } else {
            MoveError::Taken { x, y }
        });
    }
    Ok(mv)
}

/// Why a `BOARD` command's stones cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum BoardError {
    /// No board yet.
    #[error("BOARD before START")]
    BeforeStart,
    /// A line that is not `x,y,field`.
    #[error("BOARD line '{0}' is not x,y,field")]
    Line(String),
    /// A stone off the board.
    #[error("BOARD line '{0}': outside the board")]
    Outside(String),
    /// Field 3 (continuous games).
    #[error("continuous games (field 3) are not supported")]
    Continuous,
    /// Another field.
    #[error("BOARD line '{line}': field {field} is not 1 or 2")]
    Field {
        /// The line.
        line: String,
        /// Its field.
        field: i32,
    },
    /// Stone counts no game can reach.
    #[error("{own} own and {theirs} opponent stones: the side to move cannot have more stones")]
    Counts {
        /// The engine's stones.
        own: usize,
        /// The opponent's.
        theirs: usize,
    },
    /// A stone after the game ended.
    #[error(
        "the game is over before the last stone (a line is complete, or under renju black's \
         stone was forbidden)"
    )]
    Over,
    /// One cell given twice.
    #[error("{0} is taken twice")]
    Twice(String),
}

/// Why a `TURN` move cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum MoveError {
    /// Not `x,y`.
    #[error("'{0}' is not x,y")]
    NotAPair(String),
    /// Off the board.
    #[error("{x},{y} is outside the board")]
    Outside {
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
    /// The game has ended.
    #[error("the game is already over")]
    Over,
    /// An occupied cell.
    #[error("{x},{y} is taken")]
    Taken {
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
}
