//! One game under the arena's rules: its opening, its agents seeded from its key, a failing agent forfeiting.

use std::path::Path;
use std::time::Instant;

use othello_core::position::hash_discs;
use othello_core::{Color, Game, Move, Rules};
use othello_run::fnv1a;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use othello_players::engine::StderrLog;

use super::*;

/// The opening of pair `pair`: `plies` seeded random legal moves from the start (every pairing plays the same
/// openings, so that their games compare).
pub fn opening(rules: &Rules, seed: u64, pair: u64, plies: u32) -> Vec<Move> {
    let mut rng = Pcg64Mcg::seed_from_u64(hash_discs(seed, pair));
    Game::random_plies(*rules, plies, &mut rng).moves().to_vec()
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    Normal,
    /// The side that failed (an error, an illegal move) loses by the whole board.
    Forfeit {
        loser: Color,
        reason: String,
    },
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct Played {
    pub pairing: Pairing,
    pub game: Game,
    pub opening_plies: usize,
    pub ending: Ending,
    /// Black's score: 1, 0.5 or 0.
    pub black_score: f64,
    pub seconds: [f64; 2],
}

/// Plays a scheduled game from its opening; each agent is made from its spec with a seed of its own for this game.
/// External engines' standard error goes to `engine_log`, where given, each line after the engine and the game.
pub fn play(
    rules: &Rules,
    pairing: &Pairing,
    opening: &[Move],
    seed: u64,
    engine_log: Option<&Path>,
) -> Result<Played, ArenaError> {
    let game_seed = hash_discs(seed, fnv1a(&pairing.seed_key()));
    let mut agents = [pairing.black.agent(game_seed)?, pairing.white.agent(game_seed ^ 1)?];
    if let Some(path) = engine_log {
        for (agent, spec) in agents.iter_mut().zip([&pairing.black, &pairing.white]) {
            agent.keep_stderr(StderrLog { path: path.to_path_buf(), label: format!("{spec} in {}", pairing.key) });
        }
    }
    let mut game = Game::new(*rules);
    game.play_all(opening).map_err(|e| ArenaError::Opening(e.to_string()))?;
    // A game the opening ends would be stored as if its agents had played it.
    if game.is_over() {
        return Err(ArenaError::OpeningEndsGame(game.transcript()));
    }
    let mut seconds = [0.0f64; 2];
    let mut ending = Ending::Normal;
    while !game.is_over() {
        let side = game.position().side;
        let who = (side == Color::White) as usize;
        let started = Instant::now();
        let chosen = agents[who].select_move(&game);
        seconds[who] += started.elapsed().as_secs_f64();
        let failure = match chosen {
            Ok(mv) => match game.push(mv) {
                Ok(()) => continue,
                Err(e) => format!("illegal move {mv}: {e}"),
            },
            Err(e) => e.to_string(),
        };
        ending = Ending::Forfeit { loser: side, reason: failure };
        break;
    }
    let black_score = match &ending {
        Ending::Forfeit { loser, .. } => (*loser == Color::White) as u8 as f64,
        Ending::Normal => match game.outcome().margin_for(Color::Black).signum() {
            1 => 1.0,
            0 => 0.5,
            _ => 0.0,
        },
    };
    Ok(Played { pairing: pairing.clone(), game, opening_plies: opening.len(), ending, black_score, seconds })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ratings::GameResult;

    #[test]
    fn games_are_reproducible_and_start_from_their_opening() {
        let rules = Rules::othello().with_size(6).unwrap();
        let pairing = |black: &str, white: &str| Pairing {
            key: format!("{black} vs {white} #0 ab"),
            pair: 0,
            black: black.parse().unwrap(),
            white: white.parse().unwrap(),
        };
        let opening = opening(&rules, 1, 0, 4);
        assert_eq!(opening.len(), 4);
        let (a, b) = (
            play(&rules, &pairing("random", "greedy"), &opening, 7, None).unwrap(),
            play(&rules, &pairing("random", "greedy"), &opening, 7, None).unwrap(),
        );
        assert_eq!(a.game.moves(), b.game.moves());
        assert_eq!(a.ending, Ending::Normal);
        assert_eq!(&a.game.moves()[..4], &opening[..]);
        // An agent that cannot be made is an error, not a game.
        assert!(play(&rules, &pairing("random", "policy:model=/no/such/run"), &opening, 7, None).is_err());
    }

    /// The small ladder, with a fixed seed from the shipped balanced openings: the ratings put random, greedy,
    /// positional:depth=2 and pattern:depth=4 in that order, and where neighbours are far apart (over 150 Elo)
    /// their 95% intervals do not overlap.
    #[test]
    fn a_small_ladder_comes_out_in_order() {
        let rules = Rules::othello();
        let ladder = specs(&["random", "greedy", "positional:depth=2", "pattern:depth=4"]);
        let openings = crate::openings::OpeningSource::default_for(&rules, 4);
        let mut games = vec![];
        for p in schedule(&ladder, None, 100).unwrap() {
            let played = play(&rules, &p, &openings.for_pair(&rules, 11, p.pair), 11, None).unwrap();
            assert_eq!(played.ending, Ending::Normal);
            let (black, white) = (p.black.to_string(), p.white.to_string());
            let pair = Some(pair_cluster(&black, &white, p.pair));
            games.push(GameResult { black, white, black_score: played.black_score, pair });
        }
        let fit = crate::ratings::fit(&games, "random", 0.0).unwrap();
        let elo: Vec<(f64, f64)> =
            ladder.iter().map(|a| fit.get(&a.to_string()).map(|r| (r.elo, r.interval95())).unwrap()).collect();
        for (i, w) in elo.windows(2).enumerate() {
            let ((low, low_ci), (high, high_ci)) = (w[0], w[1]);
            assert!(high > low, "{} ({high:.0}) above {} ({low:.0})", ladder[i + 1], ladder[i]);
            if high - low > 150.0 {
                assert!(high - high_ci > low + low_ci, "{} and {}: {elo:?}", ladder[i + 1], ladder[i]);
            }
        }
    }

    /// A checkpoint plays the same arena games wherever it lies (a run copied or moved), and other games under
    /// another file name.
    #[test]
    fn a_checkpoint_plays_the_same_arena_games_from_any_directory() {
        use othello_net::{resolve_checkpoint, save_checkpoint, CheckpointInfo, DeviceChoice, NetConfig};
        use othello_players::AgentSpec;
        let scratch = tempfile::tempdir().unwrap();
        let config = NetConfig::new(1, 8);
        let net = config.init_seeded(&DeviceChoice::Flex.device().unwrap(), 7);
        save_checkpoint(
            &othello_run::RunDir::new(scratch.path()).models(),
            &net,
            &CheckpointInfo::untrained(config, 3),
        )
        .unwrap();
        let model = resolve_checkpoint(scratch.path()).unwrap();
        let copy = tempfile::tempdir().unwrap();
        let elsewhere = copy.path().join("runs/copy/models");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let moved = elsewhere.join(model.file_name().unwrap());
        let renamed = elsewhere.join("other.json");
        for to in [&moved, &renamed] {
            for extension in ["json", "bpk"] {
                std::fs::copy(model.with_extension(extension), to.with_extension(extension)).unwrap();
            }
        }
        let rules = Rules::othello().with_size(6).unwrap();
        let games = |model: &std::path::Path| {
            let spec: AgentSpec = format!("policy:model={},temperature=1", model.display()).parse().unwrap();
            let random: AgentSpec = "random".parse().unwrap();
            (0..4)
                .flat_map(|pair| {
                    let start = opening(&rules, 1, pair, 2);
                    Pairing::both_colours(&spec, &random, pair)
                        .map(|p| play(&rules, &p, &start, 9, None).unwrap().game.moves().to_vec())
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(games(&model), games(&moved));
        assert_ne!(games(&model), games(&renamed));
    }
}
