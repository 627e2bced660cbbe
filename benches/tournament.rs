//! Tournament throughput: games per second of a fixed-depth gomoku match (11x11, depth 3,
//! the integration tests' `long` config cut to 120 games) on 1 and on 2 worker threads.
//! Goal: 2 threads at least 1.9 times 1 thread (games are independent; the writer is the
//! only shared part). The games are the same on both thread counts.

use std::{
    path::Path,
    sync::{Arc, atomic::AtomicBool},
};

use arena::tournament::{RunOptions, Tournament, run};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn tournament(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tournaments/long.toml");
    let mut t = Tournament::load(&path).expect("the bench tournament loads");
    t.config.rounds = 60;
    let games = 2 * u64::from(t.config.rounds);
    let mut group = c.benchmark_group("tournament");
    group.sample_size(10);
    group.throughput(Throughput::Elements(games));
    for jobs in [1, 2] {
        group.bench_function(format!("{jobs} thread(s)"), |b| {
            b.iter(|| {
                let dir = tempfile::tempdir().expect("a temporary folder");
                let options = RunOptions {
                    jobs,
                    resume: false,
                    out_dir: dir.path().join("run"),
                    shard: None,
                    stop: Arc::new(AtomicBool::new(false)),
                    live: Default::default(),
                };
                let outcome = run(&t, &options, &mut |_| {}).expect("the bench tournament runs");
                assert_eq!(outcome.summary.games, games);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, tournament);
criterion_main!(benches);
