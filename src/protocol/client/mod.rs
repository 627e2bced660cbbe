//! Driving outside engines: [`GomocupPlayer`] and [`UaiPlayer`] are [`Player`]s that
//! talk to an engine process. One process per player, reused across games (`RESTART` /
//! `uainewgame` between them), killed after every fault, an illegal move included, and
//! started again for the next game (its state is unknown: a late reply must not answer
//! the next request). Every fault ends the game as a loss for the engine with the
//! reason (`fault: crash (exit code 1)`, `fault: timeout`, `fault: garbage 'xyz'`,
//! `illegal-move`), never the run.
//! Before each request, lines the engine wrote unasked are dropped (they are logged).
//!
//! Waiting: a move may take its limit (`movetime_ms`, or what is left on the clock) plus
//! the tolerance; replies without a time limit (handshakes, depth- or node-limited
//! moves) may take `reply_timeout_ms`. A wait also ends when the run stops.

pub mod engine_log;
pub mod gomocup;
pub mod launch;
pub mod process;
#[cfg(target_os = "linux")]
pub mod reaper;
pub mod uai;

use std::{
    sync::{Arc, Mutex, atomic::AtomicBool},
    time::{Duration, Instant},
};

use self::process::{Fault, Launch, Log, Process, SharedLog};
pub use self::{gomocup::GomocupPlayer, uai::UaiPlayer};
use super::{Protocol, external::ExternalEngine};
use crate::{
    engine::{Clock, EngineGame, Player, PlayerError},
    game::{Ataxx, Mnk, Side},
};

/// How long an engine may take to exit after the quit command before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// Games outside engines can play: which protocol's player drives them.
pub trait ExternalGame: EngineGame {
    /// A player for `engine` on the variant `game`, logging to `log`.
    fn external_player(
        engine: &ExternalEngine,
        game: &Self::Config,
        log: Option<Log>,
    ) -> Result<Box<dyn Player<Self>>, String>;
}

impl ExternalGame for Mnk {
    fn external_player(
        engine: &ExternalEngine,
        game: &Self::Config,
        log: Option<Log>,
    ) -> Result<Box<dyn Player<Mnk>>, String> {
        match engine.protocol {
            Protocol::Gomocup => Ok(Box::new(GomocupPlayer::new(engine, *game, log))),
            Protocol::Uai => Err(format!(
                "engine '{}': uai engines play ataxx; m,n,k engines speak gomocup",
                engine.name
            )),
        }
    }
}

impl ExternalGame for Ataxx {
    fn external_player(
        engine: &ExternalEngine,
        _game: &(),
        log: Option<Log>,
    ) -> Result<Box<dyn Player<Ataxx>>, String> {
        match engine.protocol {
            Protocol::Uai => Ok(Box::new(UaiPlayer::<Ataxx>::new(engine, (), log))),
            Protocol::Gomocup => Err(format!(
                "engine '{}': gomocup engines play m,n,k-games; ataxx engines speak uai",
                engine.name
            )),
        }
    }
}

/// The process behind a player: started on demand, restarted after faults, stopped
/// politely when the player goes.
struct Connection {
    spec: ExternalEngine,
    launch: Launch,
    log: Option<SharedLog>,
    process: Option<Process>,
    abort: Option<Arc<AtomicBool>>,
    quit: &'static str,
    /// The hash of the position the next game begins from, when the harness told.
    next_start: Option<u64>,
    /// The hash of the position the process's last game began from.
    last_start: Option<u64>,
}

impl Connection {
    fn new(spec: &ExternalEngine, log: Option<Log>, quit: &'static str) -> Connection {
        Connection {
            spec: spec.clone(),
            launch: spec.launch(),
            log: log.map(|l| Arc::new(Mutex::new(l))),
            process: None,
            abort: None,
            quit,
            next_start: None,
            last_start: None,
        }
    }

    /// The next game begins from the position with this hash (see [`Connection::begin_game`]).
    fn starts_at(&mut self, hash: u64) {
        self.next_start = Some(hash);
    }

    /// Before a game: with `restart = true`, the process of the last game is stopped
    /// (the handshake starts a fresh one); with `restart` unset, only when this game
    /// begins from the position its last game began from (a gauntlet's next challenger
    /// on the same opening, a pair's second game), so that what the engine kept from
    /// searching that opening cannot help it.
    fn begin_game(&mut self) {
        let start = self.next_start.take();
        let fresh = match self.spec.restart {
            Some(always) => always,
            None => start.is_some() && start == self.last_start,
        };
        if fresh && let Some(p) = self.process.take() {
            if self.spec.restart.is_none() {
                p.note(
                    "restarting: the next game begins from the position the last one began from",
                );
            }
            p.stop(self.quit, QUIT_GRACE);
        }
        self.last_start = start;
    }

    /// Makes sure a process runs; true when it was just started (it needs the
    /// protocol's start-up handshake).
    fn ensure_started(&mut self) -> Result<bool, Fault> {
        if let Some(p) = &mut self.process
            && let Some(status) = p.exited()
        {
            p.note(&format!(
                "exited between games ({status}): starting it again"
            ));
            self.process = None;
        }
        if self.process.is_some() {
            return Ok(false);
        }
        self.process = Some(Process::start(&self.launch, self.log.clone())?);
        Ok(true)
    }

    fn process(&mut self) -> Result<&mut Process, Fault> {
        self.process.as_mut().ok_or(Fault::Crash(String::new()))
    }

    fn send(&mut self, line: &str) -> Result<(), Fault> {
        self.process()?.send(line)
    }

    fn send_all<S: AsRef<str>>(&mut self, lines: &[S]) -> Result<(), Fault> {
        self.process()?.send_all(lines)
    }

    /// Sends a request whose reply is awaited next: lines left unread before it (a
    /// second move to the last request, a late reply) are dropped first, so they cannot
    /// pass for its reply.
    fn request<S: AsRef<str>>(&mut self, lines: &[S]) -> Result<(), Fault> {
        let p = self.process()?;
        p.discard_pending();
        p.send_all(lines)
    }

    fn recv(&mut self, deadline: Instant) -> Result<String, Fault> {
        let abort = self.abort.clone();
        self.process()?.recv(deadline, abort.as_deref())
    }

    /// Turns a fault into the player's error, killing the process: after a fault its
    /// state is unknown (it starts again at the next game).
    fn fail(&mut self, fault: Fault) -> PlayerError {
        if let Some(p) = self.process.take() {
            p.kill(&fault.reason());
        }
        PlayerError::Failed(fault.reason())
    }

    /// Kills the process after a fault that is not the protocol's (an illegal move):
    /// it starts afresh at the next game.
    fn restart(&mut self, why: &str) {
        if let Some(p) = self.process.take() {
            p.kill(why);
        }
    }

    fn note(&self, text: &str) {
        if let Some(p) = &self.process {
            p.note(text);
        }
    }

    fn flush_log(&self) {
        if let Some(p) = &self.process {
            p.flush_log();
        }
    }

    /// When a reply to a handshake must have come.
    fn handshake_deadline(&self) -> Instant {
        Instant::now() + self.spec.reply_timeout()
    }

    /// When the move asked for now must have come: its time limit (the move time, or
    /// what is left on the mover's clock) plus the tolerance; without a time limit, the
    /// reply timeout.
    fn move_deadline(&self, clock: Option<Clock>, side: Side) -> Instant {
        let mut budget = self.spec.movetime_ms.map(Duration::from_millis);
        if self.spec.tc.is_some() {
            let left = clock.map_or_else(
                || self.spec.tc.map_or(Duration::ZERO, |t| t.base),
                |c| c.remaining[side.index()],
            );
            budget = Some(budget.map_or(left, |b| b.min(left)));
        }
        Instant::now()
            + match budget {
                Some(b) => b + self.spec.tolerance(),
                None => self.spec.reply_timeout(),
            }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(p) = self.process.take() {
            p.stop(self.quit, QUIT_GRACE);
        }
    }
}

/// A handshake wait that timed out is a wrong (missing) answer to the handshake.
fn handshake_fault(fault: Fault, expected: &str, spec: &ExternalEngine) -> Fault {
    match fault {
        Fault::Timeout => Fault::Handshake(format!(
            "no '{expected}' within {} ms",
            spec.reply_timeout_ms
        )),
        other => other,
    }
}
