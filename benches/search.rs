//! Search speed and size.
//!
//! `search`: each game's built-in engine on the bench positions at the bench depth
//! (`arena bench` prints the same fingerprint). The node totals are asserted so a speed-up
//! cannot silently change the search; criterion's time per iteration divided into the
//! node total gives nodes per second.
//!
//! `to_depth`: the seed engines and the modern ones side by side on the positions of
//! `configs/positions/` (five 15x15 gomoku positions to depth 8, four Ataxx middle games
//! to depth 6), and gomoku-strong on thirty positions from its games against PentaZen
//! (`gomoku-games.txt`, to depth 5: where the open-three defences and the leaf VCF take
//! the time): the time to reach the depth, with the nodes and the effective branching
//! factor printed once per engine, so one run shows what the selective search saves.

use arena::engine::{EngineConfig, bench, builtin};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for name in [
        "gomoku-seed003-threat",
        "gomoku-seed000-threat",
        "ataxx-rich",
        "ataxx-seed004",
        "tictactoe-perfect",
    ] {
        let config = builtin::engine(name).expect("built-in engines load");
        let nodes = bench::run(&config, None).expect("bench runs").nodes;
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| {
            b.iter(|| {
                let report = bench::run(&config, None).expect("bench runs");
                assert_eq!(report.nodes, nodes, "the search is deterministic");
            })
        });
    }
    group.finish();
}

/// The positions of a `configs/positions/` file.
fn positions(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

fn to_depth(c: &mut Criterion) {
    let gomoku = positions(include_str!("../configs/positions/gomoku-15x15.txt"));
    let ataxx = positions(include_str!("../configs/positions/ataxx-middlegame.txt"));
    let games = positions(include_str!("../configs/positions/gomoku-games.txt"));
    let mut group = c.benchmark_group("to_depth");
    group.sample_size(10);
    for (name, list, depth) in [
        ("gomoku-seed003-threat", &gomoku, 8),
        ("gomoku-modern", &gomoku, 8),
        ("ataxx-rich", &ataxx, 6),
        ("ataxx-modern", &ataxx, 6),
        ("gomoku-strong", &games, 5),
    ] {
        let config = builtin::engine(name).unwrap_or_else(|_| {
            // Not embedded: the shipped file.
            let path = format!("{}/configs/engines/{name}.toml", env!("CARGO_MANIFEST_DIR"));
            EngineConfig::load(std::path::Path::new(&path)).expect("shipped engines load")
        });
        let first = bench::run_on(&config, Some(depth), Some(list)).expect("bench runs");
        let ebf = first.ebf.map_or("-".to_string(), |e| format!("{e:.2}"));
        println!(
            "{name}: depth {depth} on {} positions: {} nodes, effective branching factor {ebf}",
            list.len(),
            first.nodes
        );
        group.throughput(Throughput::Elements(first.nodes));
        group.bench_function(format!("{name}/depth-{depth}"), |b| {
            b.iter(|| {
                let report = bench::run_on(&config, Some(depth), Some(list)).expect("bench runs");
                assert_eq!(report.nodes, first.nodes, "the search is deterministic");
            })
        });
    }
    group.finish();
}

criterion_group!(benches, search, to_depth);
criterion_main!(benches);
