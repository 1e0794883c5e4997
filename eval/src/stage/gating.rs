//! Gating: self-play plays the best checkpoint rather than the newest, and a checkpoint becomes the best once a
//! sequential test says it is stronger than the best before it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use othello_search::PlayerSearch;

use crate::events::Event;
use crate::matches::{sprt, MatchSetup, SprtOptions};
use crate::sprt::{Decision, Sprt};
use crate::stage::StageError;
use othello_players::spec::AgentSpec;

pub struct Gating {
    /// H1 of the test: the checkpoint is this many Elo stronger (H0: it is not stronger), at 5% errors each way.
    pub elo1: f64,
    /// A test still undecided after this many game pairs leaves the best as it is.
    pub max_pairs: u64,
    /// Checkpoints already tested by this process: a retest against the same best would only replay its stored
    /// games to the same decision, and a newer best makes them older than it.
    pub tested: HashSet<PathBuf>,
}

impl Gating {
    pub fn new(elo1: f64, max_pairs: u64) -> Gating {
        Gating { elo1, max_pairs, tested: HashSet::new() }
    }

    /// Tests `models` (oldest first) newer than the best, each against the best of its moment (network + `search`
    /// on both sides), promoting those accepted; the first checkpoint is the first best. Each test's games and
    /// decision are in RUN/eval/gate/<model>/, so a restarted stage replays no game.
    pub(crate) fn promote(
        &mut self,
        run: &othello_run::RunDir,
        models: &[&PathBuf],
        search: &PlayerSearch,
        setup: &MatchSetup,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<(), StageError> {
        let step = |model: &Path| othello_net::read_info(model).map(|i| i.step);
        let player = |model: &Path| AgentSpec::checkpoint_player(model, search);
        for model in models {
            let Some(best) = othello_net::best_checkpoint(run) else {
                othello_net::set_best_checkpoint(run, model)?;
                on_event(Event::Promoted { model, first: true });
                continue;
            };
            if self.tested.contains(*model) || step(model)? <= step(&best)? {
                continue;
            }
            let stem = model.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            let options = SprtOptions {
                out: &run.gate(&stem),
                candidate: &player(model),
                baseline: &player(&best),
                test: Sprt::new(0.0, self.elo1, 0.05, 0.05)?,
                rules: setup.rules,
                seed: setup.seed,
                openings: setup.openings.clone(),
                max_pairs: self.max_pairs,
            };
            let decision = sprt(options, on_event)?;
            self.tested.insert(model.to_path_buf());
            if decision == Decision::H1 {
                othello_net::set_best_checkpoint(run, model)?;
                on_event(Event::Promoted { model, first: false });
            }
        }
        Ok(())
    }
}
