//! `cargo bench -p othello-core`: the kernels' primitives and the two headline loops, per kernel.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use othello_core::kernel::{flips_with, moves_with};
use othello_core::perft::perft_with;
use othello_core::playout::random_games_with;
use othello_core::{Convention, KernelKind, Rules, Status};
use rand::{Rng, SeedableRng};

fn positions() -> Vec<(u64, u64, u32)> {
    // Positions from random games, each with one of its legal moves.
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
    let rules = Rules::othello();
    let mut out = Vec::new();
    while out.len() < 4096 {
        let mut pos = rules.start_position();
        loop {
            match rules.status(&pos) {
                Status::Over => break,
                Status::MustPass => pos = pos.pass(),
                Status::Moves(m) => {
                    let sq = m.nth(rng.random_range(0..m.count())).unwrap();
                    out.push((pos.player.0, pos.opponent.0, sq.index() as u32));
                    pos = rules.play_legal(&pos, sq);
                }
            }
        }
    }
    out
}

fn kernels(c: &mut Criterion) {
    let pos = positions();
    let rules = Rules::othello();
    let start = rules.start_position();
    for kind in KernelKind::available() {
        let mut g = c.benchmark_group(format!("kernel/{kind}"));
        g.throughput(Throughput::Elements(pos.len() as u64));
        g.bench_function("moves", |b| b.iter(|| pos.iter().fold(0u64, |a, &(p, o, _)| a ^ moves_with(kind, p, o))));
        g.bench_function("flips", |b| b.iter(|| pos.iter().fold(0u64, |a, &(p, o, s)| a ^ flips_with(kind, p, o, s))));
        g.finish();

        let mut g = c.benchmark_group(format!("loops/{kind}"));
        g.sample_size(10);
        g.throughput(Throughput::Elements(10_000));
        g.bench_function("random_games_10k", |b| {
            b.iter_batched(
                || (),
                |_| random_games_with(kind, start.player.0, start.opponent.0, !0, 10_000, 1),
                BatchSize::SmallInput,
            )
        });
        g.throughput(Throughput::Elements(3_005_288));
        g.bench_function("perft_9", |b| b.iter(|| perft_with(kind, &rules, &start, 9, Convention::Leaves)));
        g.finish();
    }
}

/// The pattern evaluation (the solver's move ordering from 14 empties up).
fn evaluation(c: &mut Criterion) {
    let pos = positions();
    let weights = othello_core::pattern::PatternWeights::builtin();
    let mut g = c.benchmark_group("eval");
    g.throughput(Throughput::Elements(pos.len() as u64));
    g.bench_function("patterns", |b| b.iter(|| pos.iter().fold(0i32, |a, &(p, o, _)| a ^ weights.evaluate(p, o))));
    g.finish();
}

criterion_group!(benches, kernels, evaluation);
criterion_main!(benches);
