//! How closely a network fits the positions of a replay directory, four empties at a time: how often its raw
//! policy's top move is one of the target's best (where the solver made the target: one of the solver's best
//! moves), its mean error on the final disc margin, and how often its value has the result's sign. Tells a
//! network that has not learnt its own training positions from one that does not generalise beyond them.
//!
//! `cargo run --release -p othello-net --example replay_fit MODEL REPLAY_DIR [FROM TO]`: FROM and TO (0 to 1)
//! select the shards by their age, oldest first (default all). Positions with a single legal move are left out.

use std::error::Error;
use std::path::PathBuf;

use othello_core::{Position, Symmetry, POLICY_SIZE};
use othello_net::{load_checkpoint, predict, Predictor};
use othello_run::shard::{unpack_rules, Shard};

/// Per band of empties, for solved and for searched targets.
#[derive(Default, Clone, Copy)]
struct Tally {
    positions: u32,
    top_move_best: u32,
    margin_error: f64,
    value_sign: u32,
}

impl Tally {
    fn line(&self) -> String {
        if self.positions == 0 {
            return format!("{:>8}", 0);
        }
        let n = self.positions as f64;
        format!(
            "{:>8} {:>6.1}% {:>6.2} {:>6.1}%",
            self.positions,
            100.0 * self.top_move_best as f64 / n,
            self.margin_error / n,
            100.0 * self.value_sign as f64 / n
        )
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, model, replay, rest @ ..] = args.as_slice() else {
        return Err("usage: replay_fit MODEL REPLAY_DIR [FROM TO]".into());
    };
    let (from, to) = match rest {
        [] => (0.0, 1.0),
        [from, to] => (from.parse::<f64>()?, to.parse::<f64>()?),
        _ => return Err("FROM and TO come together".into()),
    };
    let device = burn::tensor::Device::flex();
    let (net, _) = load_checkpoint(&PathBuf::from(model), None, &device)?;
    let predictor = Predictor::new(net, device);
    let mut shards = Vec::new();
    for entry in std::fs::read_dir(replay)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "npz") {
            shards.push((std::fs::metadata(&path)?.modified()?, path));
        }
    }
    shards.sort();
    let n = shards.len() as f64;
    let chosen = &shards[(from.clamp(0.0, 1.0) * n) as usize..(to.clamp(0.0, 1.0) * n) as usize];
    // [band of four empties][solved, searched]
    let mut tallies = [[Tally::default(); 2]; 16];
    for (_, path) in chosen {
        let shard = Shard::read(path)?;
        let mut by_rules: Vec<(u16, Vec<usize>)> = vec![];
        for row in 0..shard.len() {
            match by_rules.iter_mut().find(|(r, _)| *r == shard.rules[row]) {
                Some((_, rows)) => rows.push(row),
                None => by_rules.push((shard.rules[row], vec![row])),
            }
        }
        for (packed, rows) in by_rules {
            let rules = unpack_rules(packed);
            let rows: Vec<usize> =
                rows.into_iter().filter(|&r| rules.legal_moves(&shard.position(r)).count() > 1).collect();
            let positions: Vec<Position> = rows.iter().map(|&r| shard.position(r)).collect();
            let predictions = predict(&predictor, &rules, &positions, &vec![Symmetry::IDENTITY; rows.len()]);
            for ((&row, pos), prediction) in rows.iter().zip(&positions).zip(&predictions) {
                let target = &shard.policy[row * POLICY_SIZE..(row + 1) * POLICY_SIZE];
                let top = (0..POLICY_SIZE).max_by(|&a, &b| prediction.policy[a].total_cmp(&prediction.policy[b]));
                let best = target.iter().copied().fold(0.0f32, f32::max);
                let band = ((rules.empties(pos).max(1) as usize - 1) / 4).min(tallies.len() - 1);
                let tally = &mut tallies[band][(shard.solved[row] == 0) as usize];
                tally.positions += 1;
                tally.top_move_best += top.is_some_and(|t| target[t] >= best - 1e-6) as u32;
                tally.margin_error += (prediction.margin - shard.margin[row] as f32).abs() as f64;
                tally.value_sign += ((prediction.value > 0.0) == (shard.value[row] > 0.0)) as u32;
            }
        }
    }
    println!("{} shards of {}", chosen.len(), shards.len());
    println!(
        "{:>7}  {:>8} {:>7} {:>6} {:>7}   {:>8} {:>7} {:>6} {:>7}",
        "empties", "solved", "top", "margin", "value", "searched", "top", "margin", "value"
    );
    for (band, [solved, searched]) in tallies.iter().enumerate() {
        if solved.positions + searched.positions > 0 {
            println!("{:>7}  {}   {}", format!("{}-{}", 4 * band + 1, 4 * band + 4), solved.line(), searched.line());
        }
    }
    Ok(())
}
