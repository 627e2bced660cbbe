//! Perft speed: Ataxx from the start position (bulk counting at the leaves) and gomoku
//! from a 10-stone position. The counts are asserted so a speed-up cannot change results.

use arena::game::{Ataxx, Game, Mnk, MnkConfig};
use criterion::{Criterion, criterion_group, criterion_main};

fn ataxx(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft/ataxx-startpos");
    group.sample_size(10);
    for (depth, leaves) in [(5, 4_752_668u64), (6, 141_865_520)] {
        group.bench_function(format!("depth {depth}"), |b| {
            let mut pos = Ataxx::default();
            b.iter(|| assert_eq!(pos.perft(depth), leaves));
        });
    }
    group.finish();
}

fn gomoku(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft/gomoku");
    group.sample_size(10);
    let mut pos =
        Mnk::from_text(&MnkConfig::gomoku(), "h8i9h9h10g8i8i7g9j9j10").expect("valid moves");
    let leaves = 215 * 214 * 213;
    group.bench_function("depth 3 from 10 stones", |b| {
        b.iter(|| assert_eq!(pos.perft(3), leaves));
    });
    group.finish();
}

criterion_group!(benches, ataxx, gomoku);
criterion_main!(benches);
