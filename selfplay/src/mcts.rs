//! Monte-Carlo tree search (AlphaZero's PUCT, or Gumbel's choices at the root and below it), one tree per game.
//!
//! The search is driven leaf by leaf so that a worker can gather the leaves of many trees into one evaluator
//! call: [`Tree::gather`] walks down with virtual loss towards the visit targets of a [`SearchJob`] (a PUCT
//! search, or one round of a [`GumbelSearch`]) and returns leaves to evaluate (resolving terminal positions by
//! itself), and [`Tree::expand`] adds an evaluated leaf's children and backs its value up. [`Tree::search`] and
//! [`Tree::gumbel_search`] run that loop for one tree.
//!
//! Every node carries bounds on its exact utility, tightened by minimax from the finished games found below it
//! (score-bounded MCTS, Cazenave and Saffidine, 2010): a node's value is read clamped to its bounds, a walk never
//! enters a child that cannot beat what its mover is already sure of, a proven node (bounds met) backs its exact
//! value up without an evaluation, and a proven move is played unless the chosen one promises more. Near the end
//! of a game the search thus plays exactly once it has seen enough lines, where averages would still blur a won
//! line with a lost one.

use othello_core::{Move, Position, Rules, Status, POLICY_SIZE};
use rand::Rng;
use rand_distr::{Distribution, Gamma};
use rand_pcg::Pcg64Mcg;

use crate::evaluator::{Evaluation, Evaluator};

/// Search settings; every default is the value self-play uses unless the run's config says otherwise.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MctsConfig {
    /// Exploration constant of the PUCT term `c * P * sqrt(N) / (1 + n)`. Default 1.5.
    pub c_puct: f32,
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
            c_puct: 1.5,
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

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Not evaluated yet.
    Leaf,
    /// Selected, waiting for its evaluation.
    Pending,
    Expanded,
    /// The game is over here (its exact value is the node's proof).
    Terminal,
}

#[derive(Clone, Debug)]
struct Node {
    pos: Position,
    mv: Move,
    prior: f32,
    visits: u32,
    /// Sum of backed-up values from the point of view of the player who made `mv` (the parent's side to move).
    value_sum: f32,
    /// The evaluator's utility of this position, counted as `value_sum` counts, once it is expanded (0 before, and
    /// for a forced pass, which is not evaluated): where Gumbel's mixed value starts.
    network_value: f32,
    virtual_visits: u32,
    first_child: u32,
    children: u32,
    state: State,
    /// Bounds on the exact utility for the player who moved into this node: -1 and 1 until finished games below
    /// tighten them; equal once the node is proven.
    pessimistic: f32,
    optimistic: f32,
}

impl Node {
    fn new(pos: Position, mv: Move, prior: f32) -> Node {
        Node {
            pos,
            mv,
            prior,
            visits: 0,
            value_sum: 0.0,
            network_value: 0.0,
            virtual_visits: 0,
            first_child: 0,
            children: 0,
            state: State::Leaf,
            pessimistic: -1.0,
            optimistic: 1.0,
        }
    }

    /// The exact utility for the player who moved into this node, once its bounds meet.
    fn proven(&self) -> Option<f32> {
        (self.pessimistic == self.optimistic).then_some(self.pessimistic)
    }

    /// The log of the prior: Gumbel's logit of the move into this node.
    fn logit(&self) -> f32 {
        self.prior.max(1e-12).ln()
    }

    /// The mean of the values backed up through this node (`unvisited` before any), kept within its bounds.
    fn bounded_mean(&self, unvisited: f32) -> f32 {
        let mean = if self.visits == 0 { unvisited } else { self.value_sum / self.visits as f32 };
        mean.clamp(self.pessimistic, self.optimistic)
    }

    /// [`Node::bounded_mean`] with Gumbel's completed value of an unvisited node, `mixed` (its parent's v_mix),
    /// asked for only when needed.
    fn completed_mean(&self, mixed: impl FnOnce() -> f32) -> f32 {
        self.bounded_mean(if self.visits == 0 { mixed() } else { 0.0 })
    }
}

/// What [`Tree::select`] found.
#[derive(Debug)]
pub enum Select {
    /// A leaf to evaluate; hand its position to the evaluator and the result to [`Tree::expand`].
    Evaluate(Leaf),
    /// The walk ended in a finished game or a proven node, already backed up: no evaluation needed.
    Terminal,
    /// The walk ran into a leaf already waiting for its evaluation: evaluate what was gathered first.
    Collision,
}

/// A selected leaf: the path from the root, ending at the leaf.
#[derive(Debug)]
pub struct Leaf {
    path: Vec<u32>,
}

impl Leaf {
    fn node(&self) -> u32 {
        *self.path.last().expect("a path holds the root")
    }
}

/// The search tree of one game.
pub struct Tree {
    rules: Rules,
    pub config: MctsConfig,
    nodes: Vec<Node>,
    rng: Pcg64Mcg,
}

/// Evaluations still to run in one tree: a visit target for each of some nodes (the root for PUCT; the
/// considered root children during a round of Gumbel's sequential halving). A worker gathers the leaves of many
/// trees' jobs into one evaluator call ([`Tree::gather`]).
#[derive(Clone, Debug)]
pub struct SearchJob {
    targets: Vec<(u32, u32)>,
}

/// Gumbel AlphaZero at the root (Danihelka et al., 2022): Gumbel-top-k sampling of `considered` root moves, then
/// sequential halving of the simulation budget between them, keeping the half with the best
/// `g + logit + sigma(q)` after each round. Driven as a sequence of [`SearchJob`]s (one per round, so the
/// rounds of many games batch together); below the root the search is PUCT or Gumbel MuZero's
/// ([`MctsConfig::interior`]). No temperature is needed: the Gumbel noise is the exploration. A player draws
/// none ([`GumbelSearch::noiseless`], as Gumbel MuZero evaluates perfect-information games): its candidates are
/// the moves of highest prior and its choice a function of the position. After the last round,
/// [`GumbelSearch::choice`] is the move and [`Tree::gumbel_policy_target`] the policy target.
#[derive(Clone, Debug)]
pub struct GumbelSearch {
    simulations: u32,
    considered: usize,
    /// Draws Gumbel noise (self-play's exploration); without it every draw is 0.
    noise: bool,
    /// Root children and their Gumbel draws; empty until the search starts.
    children: Vec<u32>,
    gumbel: Vec<f32>,
    /// Indices into `children` still in the running, best first after each round.
    candidates: Vec<usize>,
    rounds: u32,
    round: u32,
    /// Simulations left for the candidates.
    budget: u32,
    /// Simulations spent expanding the root before the candidates were drawn (0 on a reused tree).
    spent_on_root: u32,
}

impl GumbelSearch {
    /// Self-play's search: the Gumbel draws explore.
    pub fn new(simulations: u32, considered: usize) -> GumbelSearch {
        GumbelSearch {
            simulations: simulations.max(1),
            considered: considered.max(1),
            noise: true,
            children: Vec::new(),
            gumbel: Vec::new(),
            candidates: Vec::new(),
            rounds: 0,
            round: 0,
            budget: 0,
            spent_on_root: 0,
        }
    }

    /// A player's search: no Gumbel draws.
    pub fn noiseless(simulations: u32, considered: usize) -> GumbelSearch {
        GumbelSearch { noise: false, ..GumbelSearch::new(simulations, considered) }
    }

    /// The evaluations to run next on `tree` (call again once they are done), or `None` when the choice is made.
    pub fn next_job(&mut self, tree: &mut Tree) -> Option<SearchJob> {
        let root = &tree.nodes[ROOT as usize];
        match root.state {
            State::Expanded => {}
            State::Terminal => return None,
            State::Leaf | State::Pending => {
                self.spent_on_root = 1;
                return Some(tree.root_job(1));
            }
        }
        if self.children.is_empty() {
            let first = root.first_child;
            self.children = (first..first + root.children).collect();
            let noise = self.noise;
            self.gumbel = self
                .children
                .iter()
                .map(|_| {
                    if !noise {
                        return 0.0;
                    }
                    let u: f32 = tree.rng.random::<f32>().clamp(1e-12, 1.0 - 1e-7);
                    -(-u.ln()).ln()
                })
                .collect();
            self.candidates = (0..self.children.len()).collect();
            self.rank(tree, false);
            self.budget = self.simulations.saturating_sub(self.spent_on_root);
            // At most one candidate per simulation left, so that the first round visits every one of them.
            let affordable = (self.budget as usize).max(1);
            self.candidates.truncate(self.considered.min(self.children.len()).min(affordable));
            self.rounds = (self.candidates.len() as f32).log2().ceil().max(1.0) as u32;
        } else {
            if self.candidates.len() > 1 {
                self.rank(tree, true);
                self.candidates.truncate(self.candidates.len().div_ceil(2));
            }
            self.round += 1;
            if self.round == self.rounds {
                return None;
            }
        }
        // An equal share of the budget per round, split between the candidates; the last round takes the rest.
        // Never more than the budget left: a round it cannot pay for one visit per candidate ends the search.
        let n = self.candidates.len() as u32;
        let per = (self.simulations / (self.rounds * n)).max(1);
        let spend = if self.round + 1 == self.rounds { per.max(self.budget / n) } else { per }.min(self.budget / n);
        if spend == 0 {
            return None;
        }
        self.budget -= spend * n;
        let targets =
            self.candidates.iter().map(|&c| (self.children[c], tree.nodes[self.children[c] as usize].visits + spend));
        Some(SearchJob { targets: targets.collect() })
    }

    /// Sorts the candidates by `g + logit`, plus `sigma(q)` once they have been searched.
    fn rank(&mut self, tree: &Tree, with_q: bool) {
        // `children` are the root's in order: index i is the root's i-th child.
        let completed = with_q.then(|| tree.root_completed());
        let score = |i: usize| {
            let q = completed.as_ref().map_or(0.0, |(q, sigma)| sigma.of(q[i]));
            self.gumbel[i] + tree.nodes[self.children[i] as usize].logit() + q
        };
        let mut scored: Vec<(f32, usize)> = self.candidates.iter().map(|&i| (score(i), i)).collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        self.candidates = scored.into_iter().map(|s| s.1).collect();
    }

    /// The chosen move, once [`GumbelSearch::next_job`] has returned `None` (`None` if the root has no moves): the
    /// best candidate, unless a proven move is worth at least as much ([`Tree::proven_or`]).
    pub fn choice(&self, tree: &Tree) -> Option<Move> {
        self.candidates.first().map(|&c| tree.proven_or(self.children[c]))
    }
}

const ROOT: u32 = 0;

/// What the search maximises for a position's side to move, in [-1, 1]: the result, and with
/// [`MctsConfig::score_utility`] the disc margin as a fraction of the board. Odd and increasing in the margin, so
/// that the minimax of utilities is the utility of the minimax margin.
fn utility(rules: &Rules, config: &MctsConfig, value: f32, margin: f32) -> f32 {
    let w = config.score_utility;
    if w <= 0.0 {
        return value;
    }
    let squares = rules.mask().count_ones() as f32;
    (value + w * (margin / squares).clamp(-1.0, 1.0)) / (1.0 + w)
}

/// The monotone transform of a node's children's completed values in [-1, 1] that Gumbel AlphaZero adds to their
/// logits: (c_visit + max N) * c_scale * q, with q rescaled to [0, 1] (c_visit = 50, c_scale = `gumbel_q_scale`,
/// max N the most visits among the children), by the value range or, with `gumbel_q_rescale`, by the children's
/// least and greatest completed value.
struct Sigma {
    weight: f32,
    low: f32,
    span: f32,
}

impl Sigma {
    fn new(config: &MctsConfig, max_visits: u32, completed: &[f32]) -> Sigma {
        let weight = (50.0 + max_visits as f32) * config.gumbel_q_scale;
        if !config.gumbel_q_rescale {
            return Sigma { weight, low: -1.0, span: 2.0 };
        }
        let low = completed.iter().copied().fold(f32::INFINITY, f32::min);
        let high = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        // mctx's epsilon: equal values all map to 0.
        Sigma { weight, low, span: (high - low).max(1e-8) }
    }

    fn of(&self, q: f32) -> f32 {
        self.weight * (q - self.low) / self.span
    }
}

/// Logits into their softmax, in place.
fn softmax(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for v in values.iter_mut() {
        *v = (*v - max).exp();
        total += *v;
    }
    for v in values.iter_mut() {
        *v /= total;
    }
}

impl Tree {
    pub fn new(rules: Rules, pos: Position, config: MctsConfig, rng: Pcg64Mcg) -> Tree {
        Tree { rules, config, nodes: vec![Node::new(pos, Move::Pass, 1.0)], rng }
    }

    pub fn position(&self) -> &Position {
        &self.nodes[ROOT as usize].pos
    }
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// Evaluations backed up through the root.
    pub fn root_visits(&self) -> u32 {
        self.nodes[ROOT as usize].visits
    }
    /// The root's utility for its side to move, in [-1, 1]: its value, unless the search weighs the margin too;
    /// exact once the root is proven.
    pub fn root_value(&self) -> f32 {
        let root = &self.nodes[ROOT as usize];
        -root.bounded_mean(0.0)
    }
    /// The root's exact utility for its side to move, once the search has proven it.
    pub fn root_proven(&self) -> Option<f32> {
        self.nodes[ROOT as usize].proven().map(|exact| -exact)
    }
    /// Number of nodes (memory use).
    pub fn size(&self) -> usize {
        self.nodes.len()
    }

    /// Walks from the root to a leaf by PUCT, adding a virtual loss on the way.
    pub fn select(&mut self) -> Select {
        self.select_path(vec![ROOT])
    }

    /// Walks on from the end of `path` (a path from the root) by PUCT.
    fn select_path(&mut self, mut path: Vec<u32>) -> Select {
        let mut id = *path.last().expect("a path starts at the root");
        loop {
            if let Some(exact) = self.nodes[id as usize].proven() {
                self.backup(&path, -exact, false);
                return Select::Terminal;
            }
            match self.nodes[id as usize].state {
                State::Expanded => {
                    id = self.best_child(id);
                    path.push(id);
                }
                State::Terminal => unreachable!("a finished game is proven"),
                State::Pending => return Select::Collision,
                State::Leaf => {
                    let node = &mut self.nodes[id as usize];
                    match self.rules.status(&node.pos) {
                        Status::Over => {
                            let margin = self.rules.outcome(&node.pos).margin_for(node.pos.side);
                            let v = utility(&self.rules, &self.config, margin.signum() as f32, margin as f32);
                            let node = &mut self.nodes[id as usize];
                            (node.state, node.pessimistic, node.optimistic) = (State::Terminal, -v, -v);
                            self.backup(&path, v, false);
                            self.tighten_bounds(&path);
                            return Select::Terminal;
                        }
                        Status::MustPass => {
                            // Nothing to ask the evaluator: the pass is the only child; walk on into it.
                            let child = Node::new(node.pos.pass(), Move::Pass, 1.0);
                            let first = self.nodes.len() as u32;
                            let node = &mut self.nodes[id as usize];
                            (node.first_child, node.children, node.state) = (first, 1, State::Expanded);
                            self.nodes.push(child);
                            path.push(first);
                            id = first;
                            continue;
                        }
                        Status::Moves(_) => {}
                    }
                    let node = &mut self.nodes[id as usize];
                    node.state = State::Pending;
                    for &n in &path {
                        self.nodes[n as usize].virtual_visits += 1;
                    }
                    return Select::Evaluate(Leaf { path });
                }
            }
        }
    }

    /// The position of a selected leaf.
    pub fn leaf_position(&self, leaf: &Leaf) -> Position {
        self.nodes[leaf.node() as usize].pos
    }

    /// Adds the leaf's children with the evaluation's priors and backs its value up the path.
    pub fn expand(&mut self, leaf: Leaf, eval: &Evaluation) {
        let id = leaf.node();
        let pos = self.nodes[id as usize].pos;
        let first = self.nodes.len() as u32;
        match self.rules.status(&pos) {
            Status::Moves(moves) => {
                let total: f32 = moves.map(|sq| eval.policy[sq.index()].max(0.0)).sum();
                let n = moves.count() as f32;
                for sq in moves {
                    let p = eval.policy[sq.index()].max(0.0);
                    let prior = if total > 0.0 && total.is_finite() { p / total } else { 1.0 / n };
                    self.nodes.push(Node::new(self.rules.play_legal(&pos, sq), Move::Play(sq), prior));
                }
            }
            Status::MustPass => self.nodes.push(Node::new(pos.pass(), Move::Pass, 1.0)),
            Status::Over => unreachable!("finished positions are resolved in select"),
        }
        let count = self.nodes.len() as u32 - first;
        let node = &mut self.nodes[id as usize];
        node.first_child = first;
        node.children = count;
        node.state = State::Expanded;
        if id == ROOT && self.config.root_noise {
            self.add_root_noise();
        }
        let value = if eval.value.is_finite() { eval.value.clamp(-1.0, 1.0) } else { 0.0 };
        let margin = if eval.margin.is_finite() { eval.margin } else { 0.0 };
        let utility = utility(&self.rules, &self.config, value, margin);
        self.nodes[id as usize].network_value = -utility;
        self.backup(&leaf.path, utility, true);
    }

    /// `value` is for the leaf's side to move; each node stores it for the player who moved into it.
    fn backup(&mut self, path: &[u32], value: f32, virtual_loss: bool) {
        let mut v = -value;
        for &id in path.iter().rev() {
            let node = &mut self.nodes[id as usize];
            node.visits += 1;
            node.value_sum += v;
            if virtual_loss {
                node.virtual_visits -= 1;
            }
            v = -v;
        }
    }

    /// After the bounds of the last node of `path` changed: the minimax of the children's bounds for each ancestor
    /// in turn, up to one that does not change.
    fn tighten_bounds(&mut self, path: &[u32]) {
        for &id in path.iter().rev().skip(1) {
            // The children's bounds are for this node's mover, who picks the best of them.
            let (mut best_pessimistic, mut best_optimistic) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
            for child in self.children(id) {
                best_pessimistic = best_pessimistic.max(child.pessimistic);
                best_optimistic = best_optimistic.max(child.optimistic);
            }
            let node = &mut self.nodes[id as usize];
            let bounds = (-best_optimistic, -best_pessimistic);
            if bounds == (node.pessimistic, node.optimistic) {
                return;
            }
            (node.pessimistic, node.optimistic) = bounds;
        }
    }

    /// The move of root child `chosen`, unless the best proven root move is worth at least `chosen`'s value: then
    /// that one (ties to the more visited). A proven root thus plays its best move, and a proof is never traded for
    /// an estimate that promises no more.
    fn proven_or(&self, chosen: u32) -> Move {
        let best_proven = self
            .children(ROOT)
            .filter_map(|c| Some((c.proven()?, c.visits, c.mv)))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        match best_proven {
            Some((exact, _, mv)) if exact >= self.child_q(chosen) => mv,
            _ => self.nodes[chosen as usize].mv,
        }
    }

    fn best_child(&self, id: u32) -> u32 {
        if id != ROOT && self.config.interior == InteriorSelection::Gumbel {
            return self.gumbel_child(id);
        }
        let parent = &self.nodes[id as usize];
        let parent_visits = parent.visits + parent.virtual_visits;
        let sqrt_n = (parent_visits.max(1) as f32).sqrt();
        let children = parent.first_child..parent.first_child + parent.children;
        let parent_q = -parent.bounded_mean(0.0);
        let visited_prior: f32 =
            children.clone().map(|c| &self.nodes[c as usize]).filter(|c| c.visits > 0).map(|c| c.prior).sum();
        let reduction = if id == ROOT && self.config.root_noise { 0.0 } else { self.config.fpu_reduction };
        let fpu = parent_q - reduction * visited_prior.sqrt();
        // What the mover is sure of already (the best child's pessimistic bound, kept as the parent's optimistic
        // one): a child that cannot beat it needs no more search. That child included: the walks go where the
        // answer can still change ([`Tree::proven_or`] plays it).
        let assured = -parent.optimistic;
        let mut best = (f32::NEG_INFINITY, children.start);
        for c in children {
            let child = &self.nodes[c as usize];
            if child.optimistic <= assured {
                continue;
            }
            let n = child.visits + child.virtual_visits;
            // A virtual visit counts as a loss for the player choosing this child.
            let mean = if n > 0 { (child.value_sum - child.virtual_visits as f32) / n as f32 } else { fpu };
            let q = mean.clamp(child.pessimistic, child.optimistic);
            let u = self.config.c_puct * child.prior * sqrt_n / (1 + n) as f32;
            if q + u > best.0 {
                best = (q + u, c);
            }
        }
        best.1
    }

    /// [`InteriorSelection::Gumbel`]: `argmax pi'(c) - n(c) / (1 + sum n)`, with `pi'` the softmax of each
    /// child's log prior plus `sigma` of its value (the node's [`Tree::mixed_value`] for an unvisited one), `sigma`
    /// scaled by the node's own most visited child as the root's is by the root's. Virtual visits count as losses,
    /// as in PUCT, and a child that cannot beat what the mover is sure of is passed over.
    fn gumbel_child(&self, id: u32) -> u32 {
        let parent = &self.nodes[id as usize];
        let first = parent.first_child as usize;
        // At most one child per square.
        let children = &self.nodes[first..first + (parent.children as usize).min(64)];
        // Wanted only when a child is unvisited: a walk step need not sum the children twice.
        let mut unvisited = None;
        let assured = -parent.optimistic;
        let visits = |c: &Node| c.visits + c.virtual_visits;
        let total: u32 = children.iter().map(visits).sum();
        let most = children.iter().map(visits).max().unwrap_or(0);
        let mut completed = [0.0f32; 64];
        for (q, c) in completed.iter_mut().zip(children) {
            let n = visits(c);
            let mean = match n {
                0 => *unvisited.get_or_insert_with(|| self.mixed_value(id)),
                _ => (c.value_sum - c.virtual_visits as f32) / n as f32,
            };
            *q = mean.clamp(c.pessimistic, c.optimistic);
        }
        let completed = &completed[..children.len()];
        let sigma = Sigma::new(&self.config, most, completed);
        let mut improved = [0.0f32; 64];
        for ((share, c), q) in improved.iter_mut().zip(children).zip(completed) {
            *share = c.logit() + sigma.of(*q);
        }
        let improved = &mut improved[..children.len()];
        softmax(improved);
        let mut best = (f32::NEG_INFINITY, 0);
        for (i, (c, share)) in children.iter().zip(improved.iter()).enumerate() {
            if c.optimistic <= assured {
                continue;
            }
            let score = share - visits(c) as f32 / (1 + total) as f32;
            if score > best.0 {
                best = (score, i);
            }
        }
        (first + best.1) as u32
    }

    fn add_root_noise(&mut self) {
        let root = &self.nodes[ROOT as usize];
        let n = root.children as usize;
        if n < 2 {
            return;
        }
        let alpha = (self.config.dirichlet_total / n as f32) as f64;
        let Ok(gamma) = Gamma::new(alpha, 1.0) else { return };
        let noise: Vec<f64> = (0..n).map(|_| gamma.sample(&mut self.rng)).collect();
        let sum: f64 = noise.iter().sum();
        if sum <= 0.0 || !sum.is_finite() {
            return;
        }
        let eps = self.config.dirichlet_epsilon;
        let first = root.first_child as usize;
        for (i, x) in noise.into_iter().enumerate() {
            let child = &mut self.nodes[first + i];
            child.prior = (1.0 - eps) * child.prior + eps * (x / sum) as f32;
        }
    }

    /// Runs `simulations` more evaluations, `batch` leaves per evaluator call.
    pub fn search(&mut self, evaluator: &mut dyn Evaluator, simulations: u32, batch: usize) {
        let job = self.root_job(simulations);
        self.run(&job, evaluator, batch);
    }

    /// `simulations` more evaluations through the root.
    pub fn root_job(&self, simulations: u32) -> SearchJob {
        SearchJob { targets: vec![(ROOT, self.nodes[ROOT as usize].visits + simulations)] }
    }

    /// Selects up to `max` leaves for `job` (appended to `leaves`), target by target, each walk starting at its
    /// target node. A target counts its pending leaves as done, so a batch never overshoots it.
    pub fn gather(&mut self, job: &SearchJob, max: usize, leaves: &mut Vec<Leaf>) -> usize {
        let mut taken = 0;
        for &(node, target) in &job.targets {
            let start = if node == ROOT { vec![ROOT] } else { vec![ROOT, node] };
            while taken < max {
                let n = &self.nodes[node as usize];
                if n.visits + n.virtual_visits >= target {
                    break;
                }
                match self.select_path(start.clone()) {
                    Select::Evaluate(leaf) => {
                        leaves.push(leaf);
                        taken += 1;
                    }
                    Select::Terminal => {}
                    // A leaf of this batch is pending below: evaluate what was gathered first.
                    Select::Collision => break,
                }
            }
        }
        taken
    }

    /// Every target of `job` reached.
    pub fn is_done(&self, job: &SearchJob) -> bool {
        job.targets.iter().all(|&(node, target)| self.nodes[node as usize].visits >= target)
    }

    /// Runs `job` on this tree alone, `batch` leaves per evaluator call.
    fn run(&mut self, job: &SearchJob, evaluator: &mut dyn Evaluator, batch: usize) {
        let (mut leaves, mut positions, mut evals) = (Vec::new(), Vec::new(), Vec::new());
        while !self.is_done(job) {
            // Terminal walks back up at once, so every round makes progress.
            self.gather(job, batch.max(1), &mut leaves);
            if leaves.is_empty() {
                continue;
            }
            positions.extend(leaves.iter().map(|l| self.leaf_position(l)));
            evaluator.evaluate(&self.rules, &positions, &mut evals);
            for (leaf, eval) in leaves.drain(..).zip(&evals) {
                self.expand(leaf, eval);
            }
            positions.clear();
        }
    }

    /// A player's Gumbel AlphaZero root choice on this tree alone, without Gumbel noise (see [`GumbelSearch`]).
    pub fn gumbel_search(
        &mut self,
        evaluator: &mut dyn Evaluator,
        simulations: u32,
        batch: usize,
        considered: usize,
    ) -> Option<Move> {
        let mut gumbel = GumbelSearch::noiseless(simulations, considered);
        while let Some(job) = gumbel.next_job(self) {
            self.run(&job, evaluator, batch);
        }
        gumbel.choice(self)
    }

    /// A root child's value for the root's side to move, within its bounds (the root's [`Tree::mixed_value`] if
    /// unvisited).
    fn child_q(&self, child: u32) -> f32 {
        self.nodes[child as usize].completed_mean(|| self.mixed_value(ROOT))
    }

    /// Gumbel MuZero's `v_mix` of node `id`, for its side to move: its own network value and its visited
    /// children's mean values weighted by their priors, `(v + N sum pi(c) q(c) / sum pi(c)) / (1 + N)` over the
    /// visited children, N their visits: an unvisited child's value in the completed policy, as the paper and
    /// DeepMind's mctx have it in place of the node's mean, which follows the visits, not the priors.
    fn mixed_value(&self, id: u32) -> f32 {
        let node = &self.nodes[id as usize];
        let (mut visits, mut prior, mut weighted) = (0u32, 0.0f32, 0.0f32);
        for c in self.children_of(node).filter(|c| c.visits > 0) {
            visits += c.visits;
            prior += c.prior;
            weighted += c.prior * c.value_sum / c.visits as f32;
        }
        let own = -node.network_value;
        if prior <= 0.0 {
            return own;
        }
        (own + visits as f32 * weighted / prior) / (1 + visits) as f32
    }

    /// The root children's completed values (as [`Tree::child_q`], the root's v_mix computed once) and the
    /// [`Sigma`] they are compared by.
    fn root_completed(&self) -> (Vec<f32>, Sigma) {
        let mut mixed = None;
        let completed: Vec<f32> = self
            .children(ROOT)
            .map(|c| c.completed_mean(|| *mixed.get_or_insert_with(|| self.mixed_value(ROOT))))
            .collect();
        let most = self.children(ROOT).map(|c| c.visits).max().unwrap_or(0);
        let sigma = Sigma::new(&self.config, most, &completed);
        (completed, sigma)
    }

    /// The Gumbel policy target: softmax(logit + sigma(completed q)) over the root moves, unvisited moves valued
    /// at the root's [`Tree::mixed_value`].
    pub fn gumbel_policy_target(&self) -> [f32; POLICY_SIZE] {
        let (completed, sigma) = self.root_completed();
        let mut shares: Vec<f32> = self.children(ROOT).zip(&completed).map(|(c, q)| c.logit() + sigma.of(*q)).collect();
        softmax(&mut shares);
        let mut target = [0.0; POLICY_SIZE];
        for (c, share) in self.children(ROOT).zip(shares) {
            target[c.mv.policy_index()] = share;
        }
        target
    }

    /// The searched value of root move `mv` for the root's side to move (as [`Tree::child_q`]; the root's value
    /// before the root is expanded): what the search expects of the move it plays.
    pub fn move_value(&self, mv: Move) -> f32 {
        self.root_child(mv).map_or_else(|| self.root_value(), |c| self.child_q(c))
    }

    /// The id of the root's child reached by `mv`, if the root was expanded.
    fn root_child(&self, mv: Move) -> Option<u32> {
        self.children(ROOT).position(|c| c.mv == mv).map(|i| self.nodes[ROOT as usize].first_child + i as u32)
    }

    /// Visits of each root move.
    pub fn visits(&self) -> Vec<(Move, u32)> {
        self.children(ROOT).map(|c| (c.mv, c.visits)).collect()
    }

    fn children(&self, id: u32) -> impl Iterator<Item = &Node> {
        self.children_of(&self.nodes[id as usize])
    }

    fn children_of(&self, n: &Node) -> impl Iterator<Item = &Node> {
        self.nodes[n.first_child as usize..(n.first_child + n.children) as usize].iter()
    }

    /// The visit distribution over the root moves: the policy target; a proven root's is spread evenly over its
    /// best moves (the walks leave a child once it cannot beat what is already sure, so visits no longer follow
    /// it), and a proven move the search plays ([`Tree::proven_or`]) counts as many visits as the most visited.
    pub fn policy_target(&self) -> [f32; POLICY_SIZE] {
        let mut target = [0.0; POLICY_SIZE];
        if let Some(exact) = self.nodes[ROOT as usize].proven() {
            let best: Vec<Move> = self.children(ROOT).filter(|c| c.proven() == Some(-exact)).map(|c| c.mv).collect();
            for mv in &best {
                target[mv.policy_index()] = 1.0 / best.len() as f32;
            }
            return target;
        }
        let most_visited = self.most_visited_root_child();
        let max_visits = most_visited.map_or(0, |c| self.nodes[c as usize].visits);
        let played = most_visited.map(|c| self.proven_or(c));
        let count = |c: &Node| if Some(c.mv) == played { c.visits.max(max_visits) } else { c.visits };
        let total: u32 = self.children(ROOT).map(count).sum();
        for c in self.children(ROOT) {
            target[c.mv.policy_index()] = count(c) as f32 / total.max(1) as f32;
        }
        target
    }

    /// The root child with the most visits, ties to the higher prior; `None` before the root is expanded.
    fn most_visited_root_child(&self) -> Option<u32> {
        let root = &self.nodes[ROOT as usize];
        (root.first_child..root.first_child + root.children).max_by(|&a, &b| {
            let (a, b) = (&self.nodes[a as usize], &self.nodes[b as usize]);
            a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior))
        })
    }

    /// The move to play: sampled in proportion to visits^(1/temperature), or when the temperature is 0 the most
    /// visited (ties to the higher prior) unless a proven move is worth at least as much ([`Tree::proven_or`]).
    /// `None` at a finished game or an unsearched root.
    pub fn choose_move(&mut self, temperature: f32) -> Option<Move> {
        let children: Vec<(Move, u32, f32)> = self.children(ROOT).map(|c| (c.mv, c.visits, c.prior)).collect();
        if children.is_empty() {
            return None;
        }
        if temperature <= 1e-3 {
            return self.most_visited_root_child().map(|c| self.proven_or(c));
        }
        let weights: Vec<f64> = children.iter().map(|c| (c.1 as f64).powf(1.0 / temperature as f64)).collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return Some(children[self.rng.random_range(0..children.len())].0);
        }
        let mut x = self.rng.random::<f64>() * total;
        for (c, w) in children.iter().zip(&weights) {
            if x < *w {
                return Some(c.0);
            }
            x -= w;
        }
        children.last().map(|c| c.0)
    }

    /// Plays `mv` at the root and keeps its subtree (tree reuse); a move never searched starts a fresh tree. The new
    /// root's priors are the evaluator's: [`Tree::set_root_noise`] decides the next search's noise.
    pub fn advance(&mut self, mv: Move) {
        let Some(child) = self.root_child(mv) else {
            let next = self.rules.play(self.position(), mv).expect("advance takes a legal move");
            self.nodes = vec![Node::new(next, Move::Pass, 1.0)];
            return;
        };
        // Copy the subtree breadth-first so that every node's children stay contiguous.
        let mut kept = vec![self.nodes[child as usize].clone()];
        let mut i = 0;
        while i < kept.len() {
            let (first, n) = (kept[i].first_child, kept[i].children);
            if n > 0 {
                kept[i].first_child = kept.len() as u32;
                for c in first..first + n {
                    kept.push(self.nodes[c as usize].clone());
                }
            }
            i += 1;
        }
        self.nodes = kept;
    }

    /// Turns root noise on or off for the next search; on, an already expanded root (a reused tree) is noised at
    /// once, an unexpanded one when it is expanded. Called per move, once it is known whether the move gets a
    /// full search (noised) or a cheap one (not), so that the noise follows this move's kind and not the last.
    pub fn set_root_noise(&mut self, on: bool) {
        self.config.root_noise = on;
        if on && self.nodes[ROOT as usize].state == State::Expanded {
            self.add_root_noise();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::{RolloutEvaluator, UniformEvaluator};
    use othello_core::solve::{Limits, Mode, Solution, Solver};
    use othello_core::{Color, Game};
    use rand::SeedableRng;

    fn quiet() -> MctsConfig {
        MctsConfig { root_noise: false, ..MctsConfig::default() }
    }

    fn rng(seed: u64) -> Pcg64Mcg {
        Pcg64Mcg::seed_from_u64(seed)
    }

    /// Positions with `empties` empties and at least two moves from seeded random games, each with every move's
    /// exact score, until `keep` has taken `count` of them.
    fn random_endgames<T>(
        seed: u64,
        count: usize,
        empties: u32,
        mut keep: impl FnMut(&Position, &Solution) -> Option<T>,
    ) -> Vec<T> {
        let rules = Rules::othello();
        let mut solver = Solver::new();
        let mut r = rng(seed);
        let mut found = Vec::new();
        while found.len() < count {
            let mut game = Game::new(rules);
            while !game.is_over() && 64 - game.position().occupied().count() > empties {
                let mv = match game.status() {
                    Status::Moves(m) => Move::Play(m.nth(r.random_range(0..m.count())).unwrap()),
                    _ => Move::Pass,
                };
                game.push(mv).unwrap();
            }
            if !matches!(game.status(), Status::Moves(m) if m.count() >= 2) {
                continue;
            }
            let s = solver.solve(&rules, game.position(), Mode::AllMoves, Limits::default()).unwrap();
            found.extend(keep(game.position(), &s));
        }
        found
    }

    /// Positions from random games with `empties` empties where exactly one move wins and no other does.
    fn single_winning_moves(count: usize, empties: u32) -> Vec<(Position, Move)> {
        random_endgames(21, count, empties, |pos, s| {
            let winners: Vec<Move> = s.move_scores.iter().filter(|m| m.1 > 0).map(|m| m.0).collect();
            (winners.len() == 1).then(|| (*pos, winners[0]))
        })
    }

    /// The solver as an evaluator: the exact result and margin of every leaf, uniform priors.
    struct ExactEvaluator(Solver);

    impl Evaluator for ExactEvaluator {
        fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
            out.clear();
            for pos in positions {
                let s = self.0.solve(rules, pos, Mode::Exact, Limits::default()).unwrap();
                out.push(Evaluation {
                    value: s.score.signum() as f32,
                    margin: s.score as f32,
                    ..Evaluation::default()
                });
            }
        }
    }

    /// Positions from random games with `empties` empties where several moves keep the best result but not all of
    /// them reach the best margin: each with its best moves.
    fn margin_choices(count: usize, empties: u32) -> Vec<(Position, Vec<Move>)> {
        random_endgames(22, count, empties, |pos, s| {
            let keeping = s.move_scores.iter().filter(|m| m.1.signum() == s.score.signum()).count();
            (keeping >= 2 && keeping > s.best_moves.len()).then(|| (*pos, s.best_moves.clone()))
        })
    }

    /// v_mix by hand: a root the network values at 0.5 for its mover, children of priors 0.5, 0.3 and 0.2, the
    /// first two visited twice (mean 0.2) and once (-0.4): (0.5 + 3 (0.5 * 0.2 + 0.3 * -0.4) / 0.8) / 4 = 0.10625,
    /// the unvisited third's value in the completed policy; with no child visited, the network's value.
    #[test]
    fn an_unvisited_root_move_is_valued_at_the_mixed_value() {
        let mut tree = three_root_moves(MctsConfig::default());
        tree.nodes[ROOT as usize].children = 0;
        assert_eq!(tree.mixed_value(ROOT), 0.5);
        tree.nodes[ROOT as usize].children = 3;
        assert!((tree.mixed_value(ROOT) - 0.10625).abs() < 1e-6, "{}", tree.mixed_value(ROOT));
        assert!((tree.child_q(3) - 0.10625).abs() < 1e-6);
        assert!((tree.child_q(1) - 0.2).abs() < 1e-6);
    }

    /// The start position's root, its network value -0.5 for the side to move (0.5 for the root's mover), with
    /// three moves: priors 0.5, 0.3, 0.2; visits 2, 1, 0; mean values 0.2, -0.4, unvisited (v_mix 0.10625).
    fn three_root_moves(config: MctsConfig) -> Tree {
        let rules = Rules::othello();
        let pos = rules.start_position();
        let mut tree = Tree::new(rules, pos, config, rng(1));
        tree.nodes[ROOT as usize].network_value = -0.5;
        tree.nodes[ROOT as usize].state = State::Expanded;
        let moves = rules.legal_moves(&pos);
        for (square, (prior, visits, value_sum)) in moves.zip([(0.5, 2, 0.4), (0.3, 1, -0.4), (0.2, 0, 0.0)]) {
            let mut child = Node::new(pos, Move::Play(square), prior);
            (child.visits, child.value_sum) = (visits, value_sum);
            tree.nodes.push(child);
        }
        (tree.nodes[ROOT as usize].first_child, tree.nodes[ROOT as usize].children) = (1, 3);
        tree
    }

    /// The policy target's log odds against the prior, worked by hand on [`three_root_moves`] (c_scale 0.1, so
    /// sigma's weight is (50 + 2) * 0.1 = 5.2): by the value range, q = 0.2, -0.4 and 0.10625 add 5.2 (q + 1) / 2;
    /// rescaled by their least (-0.4) and greatest (0.2), 5.2 (q + 0.4) / 0.6, the best move 5.2 above the worst.
    #[test]
    fn gumbel_q_rescale_spans_the_compared_values() {
        for (rescale, sigma) in [(false, [3.12, 1.56, 2.876_25]), (true, [5.2, 0.0, 4.3875])] {
            let config = MctsConfig { gumbel_q_scale: 0.1, gumbel_q_rescale: rescale, ..MctsConfig::default() };
            let tree = three_root_moves(config);
            let target = tree.gumbel_policy_target();
            let children: Vec<&Node> = tree.children(ROOT).collect();
            let share = |i: usize| target[children[i].mv.policy_index()];
            for (i, prior) in [(0, 0.5f32), (2, 0.2)] {
                let log_odds = (share(i) / share(1)).ln();
                let expected = (prior / 0.3).ln() + sigma[i] - sigma[1];
                assert!((log_odds - expected).abs() < 1e-4, "{rescale}, {i}: {log_odds} against {expected}");
            }
            assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn interior_names_are_the_configs_names() {
        for interior in [InteriorSelection::Puct, InteriorSelection::Gumbel] {
            assert_eq!(interior.name().parse(), Ok(interior));
        }
        let err = "Gumbel".parse::<InteriorSelection>().unwrap_err().to_string();
        assert!(err.contains("'Gumbel'") && err.contains("puct or gumbel"), "{err}");
    }

    /// Weighing the margin makes the search play for discs as well as for the result: where several moves keep
    /// the result by different margins, 32 simulations find the solver's best move far more often, with PUCT and
    /// with Gumbel's root (measured: PUCT 11 of 30 for the result alone, 23 weighing the margin; Gumbel 12 and 25).
    /// The evaluator is the solver itself, so only the utility differs between the searches.
    #[test]
    fn score_utility_prefers_the_larger_margin() {
        let cases = margin_choices(30, 8);
        let best_found = |w: f32, gumbel: bool| {
            let mut right = 0;
            for (i, (pos, best)) in cases.iter().enumerate() {
                let config = MctsConfig { score_utility: w, ..quiet() };
                let mut tree = Tree::new(Rules::othello(), *pos, config, rng(i as u64));
                let mut exact = ExactEvaluator(Solver::new());
                let chosen = if gumbel {
                    tree.gumbel_search(&mut exact, 32, 8, 8)
                } else {
                    tree.search(&mut exact, 32, 8);
                    tree.choose_move(0.0)
                };
                right += best.contains(&chosen.unwrap()) as usize;
            }
            right
        };
        let (plain, weighed) = (best_found(0.0, false), best_found(1.0, false));
        assert!(
            weighed >= 20 && weighed >= plain + 8,
            "PUCT: {plain} for the result alone, {weighed} weighing the margin"
        );
        let (plain, weighed) = (best_found(0.0, true), best_found(1.0, true));
        eprintln!("Gumbel: {plain} of 30 for the result alone, {weighed} weighing the margin");
        assert!(weighed >= plain + 4, "Gumbel: {plain} for the result alone, {weighed} weighing the margin");
    }

    /// A finished position's utility: its result, and with the margin weighed, the margin as a share of the board.
    #[test]
    fn terminal_utility_weighs_the_margin() {
        let rules = Rules::othello();
        // Black to move has no move and neither has white: 40 black discs, 24 white.
        let (black, white) = (othello_core::Bitboard(0xFFFF_FFFF_FF00_0000), othello_core::Bitboard(0xFF_FFFF));
        let pos = Position::from_colors(black, white, othello_core::Color::Black);
        assert_eq!(rules.outcome(&pos).margin_for(othello_core::Color::Black), 16);
        for (w, expected) in [(0.0, 1.0), (1.0, (1.0 + 16.0 / 64.0) / 2.0)] {
            let mut tree = Tree::new(rules, pos, MctsConfig { score_utility: w, ..quiet() }, rng(1));
            tree.search(&mut UniformEvaluator, 4, 1);
            assert!((tree.root_value() - expected).abs() < 1e-6, "w {w}: {} not {expected}", tree.root_value());
        }
    }

    #[test]
    fn rollout_mcts_picks_the_only_winning_move() {
        let cases = single_winning_moves(20, 7);
        let mut right = 0;
        for (i, (pos, winner)) in cases.iter().enumerate() {
            let mut tree = Tree::new(Rules::othello(), *pos, quiet(), rng(i as u64));
            tree.search(&mut RolloutEvaluator::new(i as u64, 4), 1000, 8);
            right += (tree.choose_move(0.0) == Some(*winner)) as usize;
        }
        assert!(right >= 19, "{right} of 20 winning moves found");
    }

    /// Priors that favour higher squares, every value 0: the improved policy is then the prior.
    struct SlopedPriors;

    impl Evaluator for SlopedPriors {
        fn evaluate(&mut self, _rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
            out.clear();
            let policy = std::array::from_fn(|i| (i + 1) as f32);
            out.resize(positions.len(), Evaluation { policy, ..Evaluation::default() });
        }
    }

    /// Uniform priors; a position's value the disc count's lead of its side to move, squashed.
    struct DiscLead;

    impl Evaluator for DiscLead {
        fn evaluate(&mut self, _rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
            out.clear();
            out.extend(positions.iter().map(|p| {
                let lead = p.player.count() as f32 - p.opponent.count() as f32;
                Evaluation { value: (lead / 8.0).tanh(), ..Evaluation::default() }
            }));
        }
    }

    /// Below the root, Gumbel's choice makes each child's visits follow the improved policy: with every value 0
    /// that is the prior, to within one visit (the rule's guarantee, Danihelka et al. 2022); with values, the
    /// improved policy of the values the search found.
    #[test]
    fn gumbel_interior_visits_follow_the_improved_policy() {
        let config = MctsConfig { interior: InteriorSelection::Gumbel, ..quiet() };
        let start = Rules::othello().start_position();
        let mut tree = Tree::new(Rules::othello(), start, config.clone(), rng(3));
        tree.search(&mut SlopedPriors, 2000, 1);
        let mut interior = 0;
        for node in tree.children(ROOT).filter(|c| c.children >= 2) {
            let children: Vec<&Node> = tree.children_of(node).collect();
            let total: u32 = children.iter().map(|c| c.visits).sum();
            assert_eq!(total + 1, node.visits);
            let prior: f32 = children.iter().map(|c| c.prior).sum();
            for c in children {
                let share = c.prior / prior * total as f32;
                assert!((c.visits as f32 - share).abs() <= 1.0, "{} visits where the prior gives {share}", c.visits);
            }
            interior += 1;
        }
        assert!(interior >= 4, "{interior} interior nodes");

        // With values, against the improved policy of the final values (the paper's formula, unvisited children at
        // the parent's v_mix): early visits followed earlier values, so within a distance (0.05-0.13 here; with the
        // values' sign reversed in the rule about 1).
        let mut tree = Tree::new(Rules::othello(), start, config, rng(3));
        tree.search(&mut DiscLead, 2000, 8);
        let root = &tree.nodes[ROOT as usize];
        let visited = |&c: &u32| tree.nodes[c as usize].visits >= 100;
        for id in (root.first_child..root.first_child + root.children).filter(visited) {
            let children: Vec<&Node> = tree.children(id).collect();
            let total: u32 = children.iter().map(|c| c.visits).sum();
            let most = children.iter().map(|c| c.visits).max().unwrap();
            let parent_q = tree.mixed_value(id);
            let logits: Vec<f32> = children
                .iter()
                .map(|c| {
                    let q = if c.visits > 0 { c.value_sum / c.visits as f32 } else { parent_q };
                    c.prior.ln() + (50.0 + most as f32) * (q + 1.0) / 2.0
                })
                .collect();
            let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let sum: f32 = logits.iter().map(|l| (l - max).exp()).sum();
            let distance: f32 = children
                .iter()
                .zip(&logits)
                .map(|(c, l)| ((l - max).exp() / sum - c.visits as f32 / total as f32).abs())
                .sum::<f32>()
                / 2.0;
            assert!(distance < 0.3, "visits {distance} from the improved policy (total variation)");
        }
    }

    /// With 8 simulations, Gumbel's sequential halving finds the only winning move far more often than PUCT
    /// (measured: 14 vs 9 of 20).
    #[test]
    fn gumbel_root_selection_finds_winning_moves_with_few_simulations() {
        let cases = single_winning_moves(20, 7);
        let (mut gumbel, mut puct) = (0, 0);
        for (i, (pos, winner)) in cases.iter().enumerate() {
            let mut tree = Tree::new(Rules::othello(), *pos, quiet(), rng(i as u64));
            let chosen = tree.gumbel_search(&mut RolloutEvaluator::new(i as u64, 4), 8, 4, 8);
            gumbel += (chosen == Some(*winner)) as usize;
            let target = tree.gumbel_policy_target();
            assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            let mut tree = Tree::new(Rules::othello(), *pos, quiet(), rng(i as u64));
            tree.search(&mut RolloutEvaluator::new(i as u64, 4), 8, 4);
            puct += (tree.choose_move(0.0) == Some(*winner)) as usize;
        }
        eprintln!("8 simulations: gumbel {gumbel}/20, puct {puct}/20");
        assert!(gumbel >= puct + 3, "gumbel {gumbel}, puct {puct}");
    }

    /// `gumbel_q_scale` multiplies the searched values' share of the policy target: over the same tree, each
    /// move's log-odds against the prior's grow threefold from scale 0.1 to 0.3, and at a tiny scale the target is
    /// the prior. (Small scales keep every move's share above f32's underflow in this decided endgame.)
    #[test]
    fn the_gumbel_q_scale_weighs_the_searched_values_in_the_policy_target() {
        let (pos, _) = single_winning_moves(1, 3)[0];
        let mut tree = Tree::new(Rules::othello(), pos, quiet(), rng(3));
        tree.gumbel_search(&mut RolloutEvaluator::new(3, 4), 32, 8, 8);
        let moves: Vec<(usize, f32)> = tree.children(ROOT).map(|c| (c.mv.policy_index(), c.prior)).collect();
        let log_odds_against_prior = |target: &[f32; POLICY_SIZE]| -> Vec<f32> {
            let (first, prior) = moves[0];
            moves.iter().map(|&(i, p)| (target[i] / target[first]).ln() - (p / prior).ln()).collect()
        };
        let mut targets = vec![];
        for scale in [0.1, 0.3, 1e-6] {
            tree.config.gumbel_q_scale = scale;
            targets.push(log_odds_against_prior(&tree.gumbel_policy_target()));
        }
        assert!(targets[0].iter().any(|x| x.abs() > 0.5), "the values move the target: {:?}", targets[0]);
        for ((base, tripled), tiny) in targets[0].iter().zip(&targets[1]).zip(&targets[2]) {
            assert!((tripled - 3.0 * base).abs() < 1e-2 * (1.0 + base.abs()), "{tripled} against 3 x {base}");
            assert!(tiny.abs() < 1e-3, "{tiny}");
        }
    }

    /// Plays one game on 6x6 between a search of `a_sims` (black when `a_black`) and one of `b_sims`.
    fn match_game(a_sims: u32, b_sims: u32, a_black: bool, seed: u64) -> i32 {
        let rules = Rules::othello().with_size(6).unwrap();
        let mut game = Game::new(rules);
        let mut trees = [
            Tree::new(rules, *game.position(), quiet(), rng(seed)),
            Tree::new(rules, *game.position(), quiet(), rng(seed + 1)),
        ];
        let mut evals = [RolloutEvaluator::new(seed, 2), RolloutEvaluator::new(seed + 1, 2)];
        while !game.is_over() {
            let black_to_move = game.position().side == Color::Black;
            let i = if black_to_move == a_black { 0 } else { 1 };
            let sims = if i == 0 { a_sims } else { b_sims };
            trees[i].search(&mut evals[i], sims, 4);
            // Sampled opening moves make the games differ.
            let temperature = if game.moves().len() < 4 { 1.0 } else { 0.0 };
            let mv = trees[i].choose_move(temperature).unwrap();
            game.push(mv).unwrap();
            for t in &mut trees {
                t.advance(mv);
            }
        }
        let margin = game.outcome().margin_for(Color::Black);
        if a_black {
            margin
        } else {
            -margin
        }
    }

    #[test]
    fn more_simulations_beat_fewer() {
        let (mut wins, mut losses) = (0, 0);
        for g in 0..20 {
            let m = match_game(300, 10, g % 2 == 0, 100 + g);
            wins += (m > 0) as u32;
            losses += (m < 0) as u32;
        }
        assert!(wins >= 14 && wins > 3 * losses, "{wins} wins, {losses} losses");
    }

    #[test]
    fn targets_reuse_and_determinism() {
        let rules = Rules::othello();
        let run = || {
            let mut tree = Tree::new(rules, rules.start_position(), MctsConfig::default(), rng(5));
            tree.search(&mut RolloutEvaluator::new(5, 1), 200, 8);
            tree
        };
        let (mut a, b) = (run(), run());
        assert_eq!(a.visits(), b.visits(), "same seeds, same search");
        let target = a.policy_target();
        let sum: f32 = target.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5);
        let legal = rules.legal_moves(&rules.start_position());
        for (i, &t) in target.iter().enumerate() {
            assert!(t == 0.0 || (i < 64 && legal.0 >> i & 1 == 1), "mass on an illegal move {i}");
        }
        assert_eq!(a.root_visits(), 200);
        // Tree reuse: the chosen child's statistics become the root's.
        let mv = a.choose_move(0.0).unwrap();
        let child_visits = a.visits().iter().find(|v| v.0 == mv).unwrap().1;
        a.advance(mv);
        assert_eq!(a.root_visits(), child_visits);
        assert_eq!(*a.position(), rules.play(&rules.start_position(), mv).unwrap());
        a.search(&mut UniformEvaluator, 50, 8);
        assert_eq!(a.root_visits(), child_visits + 50);
    }

    #[test]
    fn a_batch_spreads_over_different_leaves() {
        let rules = Rules::othello();
        let mut tree = Tree::new(rules, rules.start_position(), quiet(), rng(6));
        tree.search(&mut UniformEvaluator, 1, 1);
        let mut leaves = Vec::new();
        for _ in 0..4 {
            match tree.select() {
                Select::Evaluate(l) => leaves.push(l),
                other => panic!("{other:?}"),
            }
        }
        let mut nodes: Vec<u32> = leaves.iter().map(|l| l.node()).collect();
        nodes.sort();
        nodes.dedup();
        assert_eq!(nodes.len(), 4, "virtual loss sends the four walks to the four moves");
        assert!(matches!(tree.select(), Select::Collision));
        for l in leaves {
            tree.expand(l, &Evaluation::default());
        }
        assert_eq!(tree.root_visits(), 5);
    }

    /// Terminal positions carry their exact value: a finished game is a certain win for the side with more discs.
    #[test]
    fn terminal_values_are_exact() {
        let rules = Rules::othello();
        let g = Game::from_transcript(rules, "e6 f4 e3 d6 c5 f6 e7 f5").unwrap(); // g5 wins 13-0 at once
        let mut tree = Tree::new(rules, *g.position(), quiet(), rng(7));
        tree.search(&mut UniformEvaluator, 400, 4);
        assert_eq!(tree.choose_move(0.0), Some(Move::Play("g5".parse().unwrap())));
        assert!(tree.root_value() > 0.5, "{}", tree.root_value());
    }

    /// A search that has seen the lines of an endgame that matter proves its root: the proof is the solver's exact
    /// score (as a utility, with the margin weighed and without), and a proven root plays one of the solver's best
    /// moves and makes them its policy target, though its evaluator knows nothing (uniform priors, value 0).
    #[test]
    fn proven_roots_hold_the_solvers_score_and_play_its_move() {
        let rules = Rules::othello();
        let cases = random_endgames(24, 20, 5, |pos, s| Some((*pos, s.score, s.move_scores.clone())));
        for w in [0.0, 1.0] {
            let mut proven = 0;
            for (i, (pos, score, move_scores)) in cases.iter().enumerate() {
                let config = MctsConfig { score_utility: w, ..quiet() };
                let mut tree = Tree::new(rules, *pos, config.clone(), rng(i as u64));
                tree.search(&mut UniformEvaluator, 3000, 4);
                let Some(value) = tree.root_proven() else { continue };
                proven += 1;
                let exact = utility(&rules, &config, score.signum() as f32, *score as f32);
                assert_eq!(value, exact, "w {w}, position {i} (solver: {score})");
                assert_eq!(tree.root_value(), exact);
                // With the result alone, any move keeping the solver's result is best.
                let best = |mv: Move| {
                    let reached = move_scores.iter().find(|m| m.0 == mv).unwrap().1;
                    if w > 0.0 {
                        reached == *score
                    } else {
                        reached.signum() == score.signum()
                    }
                };
                let played = tree.choose_move(0.0).unwrap();
                assert!(best(played), "w {w}, position {i}: {played:?}, the solver {score}: {move_scores:?}");
                let target = tree.policy_target();
                let on_best: f32 = move_scores.iter().filter(|m| best(m.0)).map(|m| target[m.0.policy_index()]).sum();
                assert!((on_best - 1.0).abs() < 1e-5, "w {w}, position {i}: {on_best} of the target on best moves");
            }
            eprintln!("w {w}: {proven} of 20 roots proven with 3000 simulations");
            assert!(proven >= 18, "w {w}: {proven} of 20 roots proven");
        }
    }

    /// Walks leave a root move once it is proven best so far, so its visits stop counting its worth; where the
    /// search plays such a move over the most visited one, the policy target weighs it as much as the most visited.
    #[test]
    fn a_proven_move_played_is_weighed_in_the_policy_target() {
        let rules = Rules::othello();
        let cases = random_endgames(26, 60, 6, |pos, _| Some(*pos));
        let mut played_over_most_visited = 0;
        for (i, pos) in cases.iter().enumerate() {
            let mut tree = Tree::new(rules, *pos, MctsConfig { score_utility: 1.0, ..quiet() }, rng(i as u64));
            tree.search(&mut UniformEvaluator, 200, 4);
            if tree.root_proven().is_some() {
                continue;
            }
            let played = tree.choose_move(0.0).unwrap();
            let most_visited = tree.nodes[tree.most_visited_root_child().unwrap() as usize].mv;
            if played == most_visited {
                continue;
            }
            played_over_most_visited += 1;
            let target = tree.policy_target();
            let top = target.iter().copied().fold(0.0, f32::max);
            assert_eq!(target[played.policy_index()], top, "position {i}: {played:?} over {most_visited:?}");
        }
        eprintln!("{played_over_most_visited} of 60 searches play a proven move over the most visited");
        assert!(played_over_most_visited >= 5, "{played_over_most_visited} of 60");
    }

    /// A player's Gumbel search of 400 simulations proves nearly every root with four empties, whatever the priors
    /// say, and where it has, plays the solver's move.
    #[test]
    fn gumbel_plays_the_solvers_move_once_the_root_is_proven() {
        let rules = Rules::othello();
        let cases = random_endgames(25, 30, 4, |pos, s| Some((*pos, s.best_moves.clone())));
        let mut proven = 0;
        for (i, (pos, best)) in cases.iter().enumerate() {
            let config = MctsConfig { score_utility: 1.0, ..quiet() };
            let mut tree = Tree::new(rules, *pos, config, rng(i as u64));
            let played = tree.gumbel_search(&mut UniformEvaluator, 400, 4, 8).unwrap();
            if tree.root_proven().is_some() {
                proven += 1;
                assert!(best.contains(&played), "position {i}: {played:?}, the solver's best {best:?}");
            }
        }
        eprintln!("{proven} of 30 roots proven with 400 simulations");
        assert!(proven >= 27, "{proven} of 30 roots proven");
    }

    /// Gumbel's sequential halving never spends more than its simulations, whatever the number of considered
    /// moves (the root's own expansion included), and spends most of them.
    #[test]
    fn gumbel_keeps_to_its_simulation_budget() {
        let rules = Rules::othello();
        let game = Game::from_transcript(rules, "f5d6c3d3c4f4").unwrap();
        for (sims, considered) in [(1, 8), (2, 8), (4, 16), (8, 16), (16, 8), (32, 32), (50, 7), (200, 16)] {
            let mut tree = Tree::new(rules, *game.position(), quiet(), rng(3));
            assert!(tree.gumbel_search(&mut UniformEvaluator, sims, 4, considered).is_some());
            let spent = tree.root_visits();
            assert!(spent <= sims, "{sims} simulations, {considered} considered: {spent} spent");
            assert!(2 * spent >= sims, "{sims} simulations, {considered} considered: only {spent} spent");
        }
    }

    /// A player's Gumbel search draws no noise: where several moves keep the result, valued exactly, its move is a
    /// function of the position (the same whatever the tree's seed) and keeps the result, where self-play's search,
    /// whose draws explore, varies with the seed.
    #[test]
    fn the_players_gumbel_search_draws_no_noise() {
        let cases = random_endgames(23, 20, 8, |pos, s| {
            let keeping: Vec<Move> =
                s.move_scores.iter().filter(|m| m.1.signum() == s.score.signum()).map(|m| m.0).collect();
            (keeping.len() >= 2).then_some((*pos, keeping))
        });
        let mut varied = 0;
        for (i, (pos, keeping)) in cases.iter().enumerate() {
            let choose = |seed: u64, mut gumbel: GumbelSearch| {
                let mut tree = Tree::new(Rules::othello(), *pos, quiet(), rng(seed));
                let mut exact = ExactEvaluator(Solver::new());
                while let Some(job) = gumbel.next_job(&mut tree) {
                    tree.run(&job, &mut exact, 4);
                }
                gumbel.choice(&tree).unwrap()
            };
            let seeds = [i as u64, 100 + i as u64, 200 + i as u64, 300 + i as u64];
            let played: Vec<Move> = seeds.iter().map(|&s| choose(s, GumbelSearch::noiseless(32, 8))).collect();
            assert!(played.iter().all(|m| *m == played[0]), "position {i}: {played:?}");
            assert!(keeping.contains(&played[0]), "position {i}: {:?} loses the result", played[0]);
            let explored: Vec<Move> = seeds.iter().map(|&s| choose(s, GumbelSearch::new(32, 8))).collect();
            varied += explored.iter().any(|m| *m != explored[0]) as u32;
        }
        assert!(varied >= 5, "self-play's draws changed the move in only {varied} of 20 positions");
    }

    /// A position whose mover must pass is never sent to the evaluator: the tree passes through it.
    #[test]
    fn must_pass_positions_are_not_evaluated() {
        struct NoPasses(u64);
        impl Evaluator for NoPasses {
            fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
                for p in positions {
                    assert_ne!(rules.status(p), Status::MustPass, "a must-pass position was evaluated");
                }
                self.0 += positions.len() as u64;
                UniformEvaluator.evaluate(rules, positions, out);
            }
        }
        let rules = Rules::othello().with_size(4).unwrap();
        let (mut passes, mut evaluator) = (0, NoPasses(0));
        let mut r = rng(8);
        for _ in 0..30 {
            let mut game = Game::new(rules);
            while !game.is_over() {
                let mv = match game.status() {
                    Status::Moves(m) => {
                        let mut tree = Tree::new(rules, *game.position(), quiet(), rng(1));
                        tree.search(&mut evaluator, 40, 4);
                        tree.gumbel_search(&mut evaluator, 8, 2, 4);
                        Move::Play(m.nth(r.random_range(0..m.count())).unwrap())
                    }
                    _ => {
                        passes += 1;
                        Move::Pass
                    }
                };
                game.push(mv).unwrap();
            }
        }
        assert!(passes > 5 && evaluator.0 > 1000, "{passes} passes, {} evaluations", evaluator.0);
    }

    /// Root noise follows the kind of the search about to run, on a reused tree too: the priors of an expanded root
    /// are the evaluator's until noise is turned on, and change at once when it is.
    #[test]
    fn root_noise_is_decided_per_search() {
        let rules = Rules::othello();
        let mut tree = Tree::new(rules, rules.start_position(), MctsConfig::default(), rng(4));
        tree.search(&mut UniformEvaluator, 200, 8);
        let mv = tree.choose_move(0.0).unwrap();
        tree.advance(mv);
        let priors = |t: &Tree| t.children(ROOT).map(|c| c.prior).collect::<Vec<f32>>();
        let uniform = priors(&tree);
        assert!(uniform.len() > 1 && uniform.iter().all(|&p| (p - uniform[0]).abs() < 1e-6), "{uniform:?}");
        tree.set_root_noise(false);
        assert_eq!(priors(&tree), uniform, "a cheap search keeps the evaluator's priors");
        tree.set_root_noise(true);
        let noised = priors(&tree);
        assert!(noised != uniform && (noised.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{noised:?}");
    }
}
