//! Search speed: each game's built-in engine on the bench positions at the bench depth
//! (`arena bench` prints the same fingerprint). The node totals are asserted so a speed-up
//! cannot silently change the search; criterion's time per iteration divided into the
//! node total gives nodes per second.

use arena::engine::{bench, builtin};
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

criterion_group!(benches, search);
criterion_main!(benches);
