//! The engine's side of serving: the engine built for the board, the limits from the
//! manager's `INFO` (time per turn, match clock, depth and nodes), and the search on its
//! own thread, which hands the engine back with the move.

use std::{
    io::Write,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread::Scope,
    time::Duration,
};

use super::{
    super::{Inbox, Output},
    Job, State,
};
use crate::{
    engine::Engine,
    game::{Game, Mnk},
    protocol::info::{ScoreUnits, format_iteration, format_total},
    search::{
        Limits,
        time::{clock_limits, engine_movetime_limits},
    },
};

/// The time per turn when neither the engine's config nor the manager gives a limit.
const DEFAULT_TIMEOUT_TURN_MS: u64 = 30_000;

impl State {
    /// The engine for the current board, built if the board or its settings changed.
    pub(super) fn take_engine(&mut self) -> Result<Engine<Mnk>, String> {
        let game = *self.board.as_ref().expect("a search needs a board").mnk();
        let mut config = self.config.clone();
        if let Some(bytes) = self.max_memory.filter(|&b| b > 0) {
            // Half the memory for the table, in whole megabytes.
            let mb = (bytes / 2 / (1 << 20)).min(u64::from(u32::MAX)) as u32;
            config.search.tt_mb = config.search.tt_mb.min(mb);
        }
        let key = (game, config.search.tt_mb);
        if self.built_for != Some(key) || self.engine.is_none() {
            let mut engine = Engine::<Mnk>::new(&config, &game)?;
            engine.searcher().set_abort_flag(Arc::clone(&self.abort));
            engine.searcher().new_game(0);
            self.engine = Some(engine);
            self.built_for = Some(key);
        }
        Ok(self.engine.take().expect("built above"))
    }

    fn limits(&self) -> Limits {
        let mut l = self.config.search.limits();
        if let Some(d) = self.max_depth {
            l.depth = (d > 0).then_some(d);
        }
        if let Some(n) = self.max_node {
            l.nodes = (n > 0).then_some(n);
        }
        // The built-in engine's time manager: soft and hard limits per turn (less a
        // safety margin) and from the match clock.
        let per_turn = match self.timeout_turn {
            Some(0) => {
                if self.max_depth.is_none() && self.max_node.is_none() {
                    l.depth = Some(1);
                }
                None
            }
            Some(t) => Some(engine_movetime_limits(
                Duration::from_millis(t),
                self.config.search.partial_iterations,
            )),
            None => None,
        };
        let per_match = match (self.timeout_match, self.time_left) {
            (Some(m), Some(left)) if m > 0 => Some(clock_limits(
                Duration::from_millis(left),
                Duration::ZERO,
                None,
            )),
            _ => None,
        };
        for (soft, hard) in [per_turn, per_match].into_iter().flatten() {
            l.movetime = Some(l.movetime.map_or(hard, |t| t.min(hard)));
            l.soft_time = Some(l.soft_time.map_or(soft, |t| t.min(soft)));
        }
        if l.depth.is_none() && l.nodes.is_none() && l.movetime.is_none() {
            // Every limit was lifted: keep the config's rather than search forever.
            l = self.config.search.limits();
        }
        if l.depth.is_none() && l.nodes.is_none() && l.movetime.is_none() {
            // A config without limits (`search.depth = 0`, served to take its limits
            // from the manager) and a manager that sent none: the protocol's customary
            // time per turn (the Gomocup skeleton's default `timeout_turn`).
            let (soft, hard) = engine_movetime_limits(
                Duration::from_millis(DEFAULT_TIMEOUT_TURN_MS),
                self.config.search.partial_iterations,
            );
            l.movetime = Some(hard);
            l.soft_time = Some(soft);
        }
        l
    }

    pub(super) fn start_search<'scope, W: Write + Send>(
        &mut self,
        s: &'scope Scope<'scope, '_>,
        out: &'scope Output<W>,
        inbox: &mut Inbox,
    ) -> Option<Job<'scope>> {
        let board = self.board.clone()?;
        if board.outcome().is_some() {
            out.line("ERROR the game is over");
            return None;
        }
        let mut engine = match self.take_engine() {
            Ok(e) => e,
            Err(e) => {
                out.line(&format!("ERROR {e}"));
                return None;
            }
        };
        let limits = self.limits();
        self.abort.store(false, Ordering::Relaxed);
        let silent = Arc::new(AtomicBool::new(false));
        let quiet = Arc::clone(&silent);
        let (id, end) = inbox.search();
        let handle = s.spawn(move || {
            let result = engine.search(&board, limits, |it| {
                out.line(&format!(
                    "MESSAGE {}",
                    format_iteration(it, ScoreUnits::Eval, |m| board.format_xy(m))
                ));
            });
            if result.iterations.last().map(|i| i.nodes) != Some(result.nodes) {
                out.line(&format!(
                    "MESSAGE {}",
                    format_total(result.nodes, result.time)
                ));
            }
            // Said before the move: whatever the manager sends once it has the move
            // comes after the search's end, and waits for nothing.
            end.done();
            if !quiet.load(Ordering::Relaxed) {
                match result.best {
                    Some(mv) => out.line(&board.format_xy(mv)),
                    None => out.line("ERROR no move"),
                }
            }
            (engine, result.best)
        });
        Some(Job { handle, silent, id })
    }

    /// Waits for a search and plays its move on the board.
    pub(super) fn finish(&mut self, job: Job<'_>) {
        match job.handle.join() {
            Ok((engine, best)) => {
                self.engine = Some(engine);
                if let (Some(mv), Some(board), false) = (
                    best,
                    self.board.as_mut(),
                    job.silent.load(Ordering::Relaxed),
                ) {
                    board.play(mv);
                }
            }
            // The engine is lost with its thread: the next search builds a new one.
            Err(_) => self.built_for = None,
        }
    }
}
