//! The per-move cost of driving an outside engine: the same engine at depth 1 asked for
//! a move in-process, and served by `arena serve` through the Gomocup and UAI players
//! (pipes, text, the engine's search thread, our reader thread). The difference between
//! a served and an in-process figure is the protocol's overhead per move.
//!
//! `cargo bench --bench protocol`

use std::{path::PathBuf, time::Duration};

use arena::{
    engine::{Engine, EngineConfig, Player, Turn},
    game::{Ataxx, Game, Mnk, MnkConfig},
    protocol::{
        ExternalEngine, Protocol,
        client::{GomocupPlayer, UaiPlayer},
        external::{DEFAULT_REPLY_TIMEOUT_MS, DEFAULT_TOLERANCE_MS},
    },
};
use criterion::{Criterion, criterion_group, criterion_main};

fn config_path(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("configs/engines")
        .join(name)
        .display()
        .to_string()
}

fn served(name: &str, protocol: Protocol) -> ExternalEngine {
    ExternalEngine {
        name: "served".into(),
        protocol,
        command: env!("CARGO_BIN_EXE_arena").into(),
        args: vec![
            "serve".into(),
            config_path(name),
            "--protocol".into(),
            protocol.to_string(),
        ],
        working_dir: None,
        options: Default::default(),
        depth: Some(1),
        nodes: None,
        movetime_ms: None,
        tc: None,
        tolerance_ms: DEFAULT_TOLERANCE_MS,
        reply_timeout_ms: DEFAULT_REPLY_TIMEOUT_MS,
        restart: None,
    }
}

fn depth1(name: &str) -> EngineConfig {
    let mut c = EngineConfig::load(std::path::Path::new(&config_path(name))).unwrap();
    c.set("search.depth", toml::Value::Integer(1)).unwrap();
    c
}

/// Asks `player` for a move in `pos` (reached from `start` by `moves`), again and again.
fn bench_player<G: Game>(
    c: &mut Criterion,
    id: &str,
    player: &mut dyn Player<G>,
    start: &G,
    moves: &[G::Move],
    pos: &G,
) {
    player.new_game(0).expect("the player starts");
    let turn = Turn {
        start,
        moves,
        position: pos,
        clock: None,
    };
    c.bench_function(id, |b| {
        b.iter(|| player.play(&turn).expect("a move"));
    });
}

fn protocol(c: &mut Criterion) {
    let game = MnkConfig::gomoku();
    let start = Mnk::new(&game);
    let mut pos = start.clone();
    let moves = pos.play_move_list("h8 i9 h9 h10 g8").unwrap();
    let name = "gomoku-seed003-threat.toml";
    let mut engine = Engine::<Mnk>::new(&depth1(name), &game).unwrap();
    bench_player(
        c,
        "gomoku depth 1 in-process",
        &mut engine,
        &start,
        &moves,
        &pos,
    );
    let mut player = GomocupPlayer::new(&served(name, Protocol::Gomocup), game, None);
    bench_player(
        c,
        "gomoku depth 1 gomocup",
        &mut player,
        &start,
        &moves,
        &pos,
    );

    let start = Ataxx::default();
    let mut pos = start;
    let moves = pos.play_move_list("g2 a2 g1e1").unwrap();
    let name = "ataxx-seed004.toml";
    let mut engine = Engine::<Ataxx>::new(&depth1(name), &()).unwrap();
    bench_player(
        c,
        "ataxx depth 1 in-process",
        &mut engine,
        &start,
        &moves,
        &pos,
    );
    let mut player = UaiPlayer::<Ataxx>::new(&served(name, Protocol::Uai), (), None);
    bench_player(c, "ataxx depth 1 uai", &mut player, &start, &moves, &pos);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .without_plots()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = protocol
}
criterion_main!(benches);
