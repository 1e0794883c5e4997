//! The search's settings: the `[selfplay.mcts]` section of a run config and the choice of root and interior
//! selection, shared by self-play and the `net:` player.

/// Search settings; every default is the value self-play uses unless the run's config says otherwise.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MctsConfig {
    /// Exploration constant of the PUCT term `c * P * sqrt(N) / (1 + n)`. Default 1.5.
    pub cpuct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this times the square root
    /// of the prior mass already visited (KataGo's reduction). Default 0.2; 0 at a noised root.
    pub fpu_reduction: f32,
    /// Dirichlet noise at the root (self-play only). Default true.
    pub root_noise: bool,
    /// Total concentration of the root noise: alpha = this / number of legal moves. Default 10.
    pub dirichlet_total: f32,
    /// Share of the noise in the root priors. Default 0.25.
    pub dirichlet_epsilon: f32,
    /// Weight of the disc margin in what the search maximises: a leaf is worth
    /// `(value + w * margin / squares) / (1 + w)`, so that among moves of one result the larger margin is preferred
    /// (KataGo's score utility, linear here). Default 0: the result alone.
    pub score_utility: f32,
    /// Gumbel's c_scale: a root move's searched value enters its score as `(50 + max visits) * this * q`, q in
    /// [0, 1], in the choice and the policy target alike. Lower trusts the prior more, higher the few simulations'
    /// values. Default 1 (the Gumbel AlphaZero paper's).
    pub gumbel_q_scale: f32,
    /// Gumbel's q rescaled to [0, 1] by the least and greatest completed value among the children compared, as
    /// DeepMind's mctx does by default (with a c_scale of 0.1), instead of by the value range's fixed `(q + 1) / 2`:
    /// close values are told apart as sharply as distant ones. Default false.
    pub gumbel_q_rescale: bool,
    /// How a walk chooses among a node's children below the root. Default "puct".
    pub interior: InteriorSelection,
}

/// The choice among a node's children below the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InteriorSelection {
    /// AlphaZero's `q + c * P * sqrt(N) / (1 + n)`, with first-play urgency for unvisited children.
    Puct,
    /// Gumbel MuZero's (Danihelka et al., 2022): the child whose share of the visits lags furthest behind its
    /// share of the improved policy `softmax(logit + sigma(q))`, an unvisited child valued at its parent's v_mix;
    /// deterministic, and with few simulations it spends them where the values, not the priors alone, point.
    Gumbel,
}

impl InteriorSelection {
    /// The name configs and `net:` specs write.
    pub fn name(self) -> &'static str {
        match self {
            InteriorSelection::Puct => "puct",
            InteriorSelection::Gumbel => "gumbel",
        }
    }
}

/// A name that is no [`InteriorSelection`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown interior choice '{0}' (expected puct or gumbel)")]
pub struct UnknownInteriorSelection(pub String);

impl std::str::FromStr for InteriorSelection {
    type Err = UnknownInteriorSelection;
    /// The names configs use (serde's), so that the two cannot drift apart.
    fn from_str(s: &str) -> Result<InteriorSelection, UnknownInteriorSelection> {
        use serde::de::IntoDeserializer;
        let name: serde::de::value::StrDeserializer<serde::de::value::Error> = s.into_deserializer();
        serde::Deserialize::deserialize(name).map_err(|_| UnknownInteriorSelection(s.to_string()))
    }
}

impl std::fmt::Display for InteriorSelection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Default for MctsConfig {
    fn default() -> MctsConfig {
        MctsConfig {
            cpuct: 1.5,
            fpu_reduction: 0.2,
            root_noise: true,
            dirichlet_total: 10.0,
            dirichlet_epsilon: 0.25,
            score_utility: 0.0,
            gumbel_q_scale: 1.0,
            gumbel_q_rescale: false,
            interior: InteriorSelection::Puct,
        }
    }
}

/// How the root's move is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RootSelection {
    /// Visit counts, Dirichlet noise and a temperature over the opening.
    Puct,
    /// Gumbel AlphaZero's sequential halving: learns with few simulations.
    Gumbel,
}

/// The most simulations a search makes for one move (self-play's and a `net:` player's).
pub const MAX_SIMULATIONS: u32 = 1_000_000;

/// A player's search, whole: its simulations a move, Gumbel's root over this many considered moves (else PUCT's),
/// and the tree's settings. A player draws no noise: [`PlayerSearch::new`] turns the root noise off and leaves the
/// Dirichlet settings, which only noise reads, at their defaults, so that two searches that play alike are equal.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSearch {
    pub sims: u32,
    pub gumbel: Option<usize>,
    pub mcts: MctsConfig,
}

impl PlayerSearch {
    pub fn new(sims: u32, gumbel: Option<usize>, mcts: MctsConfig) -> PlayerSearch {
        let noise = MctsConfig::default();
        let mcts = MctsConfig {
            root_noise: false,
            dirichlet_total: noise.dirichlet_total,
            dirichlet_epsilon: noise.dirichlet_epsilon,
            ..mcts
        };
        PlayerSearch { sims, gumbel, mcts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interior_names_are_the_configs_names() {
        for interior in [InteriorSelection::Puct, InteriorSelection::Gumbel] {
            assert_eq!(interior.name().parse(), Ok(interior));
        }
        let err = "Gumbel".parse::<InteriorSelection>().unwrap_err().to_string();
        assert!(err.contains("'Gumbel'") && err.contains("puct or gumbel"), "{err}");
    }
}
