//! `[eval]`: the evaluation stage's settings in a run config.

use othello_run::config_check::{check_counts, check_numbers, MAX_THREADS, POSITIVE};
use othello_search::{MctsConfig, PlayerSearch, RootSelection, MAX_SIMULATIONS};
use serde::{Deserialize, Serialize};

use othello_players::spec::{AgentKind, AgentSpec, MAX_SCORE_UTILITY};

/// `positional:depth=N`, a rung of the default ladder.
fn positional(depth: u32) -> AgentKind {
    AgentKind::Positional { depth: Some(depth) }
}

/// `[eval]`: the evaluation stage, which rates each new checkpoint (network + MCTS) in a gauntlet against the fixed
/// ladder and the checkpoint rated before it.
#[derive(Clone, Debug, Deserialize, PartialEq, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvalConfig {
    /// The fixed players.
    pub ladder: Vec<AgentSpec>,
    /// Games per pairing.
    pub games: u32,
    /// The checkpoints' simulations per move.
    pub sims: u32,
    /// The checkpoints' search weight of the disc margin beside the result (`score=` of a `net:` player);
    /// unset: self-play's `[selfplay.mcts] score_utility`.
    pub score_utility: Option<f32>,
    /// Threads playing the evaluation's games.
    pub threads: usize,
    /// The evaluation's scheduling priority under `run` (Unix nice, 0-19). Above 0 it takes less of a busy
    /// machine than self-play and the trainer, which every core is given to, so that rating slows learning less;
    /// 0: an equal share.
    pub nice: u8,
    /// Rate every N-th checkpoint (and the newest).
    pub every: usize,
    /// Every player's moves with at most this many empties against the solver, each checkpoint's as it is rated
    /// (RUN/eval/optimal-moves.csv and .svg); 0: none.
    pub optimal_moves_empties: u32,
    /// Those moves: each player's choices in this many positions from the ladder's own games, the same for every
    /// player; 0: each player's own moves in its games (which later games add to: measured at the end).
    pub optimal_moves_positions: usize,
    /// Gating: self-play plays the best checkpoint, not the newest; each rated checkpoint becomes the best when
    /// a sequential test (SPRT) against the best says it is `gating_elo` stronger.
    pub gating: bool,
    /// The test's H1 (H0: not stronger), at 5% errors each way.
    pub gating_elo: f64,
    /// Game pairs after which an undecided test leaves the best as it is.
    pub gating_pairs: u64,
    /// The run's final player: at the run's end its newest checkpoint is rated again, and put to the solver's
    /// positions, with a search of this many simulations, as a player of its own beside the curve's; unset: none.
    pub final_player_sims: Option<u32>,
}

impl Default for EvalConfig {
    fn default() -> EvalConfig {
        EvalConfig {
            ladder: [AgentKind::Random, AgentKind::Greedy, positional(1), positional(2)]
                .map(|kind| AgentSpec { kind, endgame: None })
                .to_vec(),
            games: 20,
            sims: 64,
            score_utility: None,
            threads: 1,
            nice: 5,
            every: 1,
            optimal_moves_empties: 0,
            optimal_moves_positions: 500,
            gating: false,
            gating_elo: 30.0,
            gating_pairs: 100,
            final_player_sims: None,
        }
    }
}

impl EvalConfig {
    /// Checks what serde cannot: counts of at least 1, the weights and the test's Elo.
    pub fn validate(&self) -> Result<(), String> {
        check_numbers("[eval]", &[("gating_elo", self.gating_elo, POSITIVE)])?;
        if let Some(w) = self.score_utility.filter(|w| !(0.0..=MAX_SCORE_UTILITY).contains(w)) {
            return Err(format!("[eval] score_utility = {w} (expected 0 to {MAX_SCORE_UTILITY})"));
        }
        // Each count at least 1, and a search no larger than any `net:` player's (as self-play's config checks).
        let sims = u64::from(MAX_SIMULATIONS);
        let counts = [
            ("games", self.games as u64, u64::MAX),
            ("sims", u64::from(self.sims), sims),
            ("threads", self.threads as u64, MAX_THREADS as u64),
            ("every", self.every as u64, u64::MAX),
            ("gating_pairs", self.gating_pairs, u64::MAX),
            ("final_player_sims", self.final_player_sims.map_or(1, u64::from), sims),
        ];
        check_counts("[eval]", &counts)?;
        if self.nice > 19 {
            return Err(format!("[eval] nice = {} (expected 0 to 19)", self.nice));
        }
        Ok(())
    }

    /// The search of the checkpoints' players: self-play's, whole (Gumbel's root over its considered moves where
    /// self-play's root is Gumbel's, every setting of the tree), with the evaluation's simulations and, where set,
    /// its weight of the disc margin. Only the root noise is left out: a player draws none.
    pub fn player_search(&self, root: RootSelection, considered: usize, mcts: &MctsConfig) -> PlayerSearch {
        let gumbel = (root == RootSelection::Gumbel).then_some(considered);
        let score_utility = self.score_utility.unwrap_or(mcts.score_utility);
        PlayerSearch::new(self.sims, gumbel, MctsConfig { score_utility, ..mcts.clone() })
    }
}
