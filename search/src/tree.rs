//! The search tree of one game, driven leaf by leaf so that a worker can gather the leaves of many trees into one
//! evaluator call: [`Tree::gather`] walks down with virtual loss towards the visit targets of a [`SearchJob`] (a
//! PUCT search, or one round of a [`GumbelSearch`](crate::GumbelSearch)) and returns leaves to evaluate (resolving
//! finished games by itself), and [`Tree::expand`] adds an evaluated leaf's children and backs its value up.
//! [`Tree::search`] runs that loop for one tree. How a walk picks a child is in `puct.rs` and `gumbel.rs`, the
//! proven bounds in `bounds.rs`, what the search leaves behind (the move, the policy target) in `policy.rs`.

use othello_core::{Move, Position, Rules, Status};
use rand_pcg::Pcg64Mcg;

use crate::config::MctsConfig;
use crate::evaluator::{Evaluation, Evaluator};
use crate::value::utility;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum State {
    /// Not evaluated yet.
    Leaf,
    /// Selected, waiting for its evaluation.
    Pending,
    Expanded,
    /// The game is over here (its exact value is the node's proof).
    Terminal,
}

#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub(crate) pos: Position,
    pub(crate) mv: Move,
    pub(crate) prior: f32,
    pub(crate) visits: u32,
    /// Sum of backed-up values from the point of view of the player who made `mv` (the parent's side to move).
    pub(crate) value_sum: f32,
    /// The evaluator's utility of this position, counted as `value_sum` counts, once it is expanded (0 before, and
    /// for a forced pass, which is not evaluated): where Gumbel's mixed value starts.
    pub(crate) network_value: f32,
    pub(crate) virtual_visits: u32,
    pub(crate) first_child: u32,
    pub(crate) children: u32,
    pub(crate) state: State,
    /// Bounds on the exact utility for the player who moved into this node: -1 and 1 until finished games below
    /// tighten them; equal once the node is proven.
    pub(crate) pessimistic: f32,
    pub(crate) optimistic: f32,
}

impl Node {
    pub(crate) fn new(pos: Position, mv: Move, prior: f32) -> Node {
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
    pub(crate) fn proven(&self) -> Option<f32> {
        (self.pessimistic == self.optimistic).then_some(self.pessimistic)
    }

    /// The log of the prior: Gumbel's logit of the move into this node.
    pub(crate) fn logit(&self) -> f32 {
        self.prior.max(1e-12).ln()
    }

    /// The mean of the values backed up through this node (`unvisited` before any), kept within its bounds.
    pub(crate) fn bounded_mean(&self, unvisited: f32) -> f32 {
        let mean = if self.visits == 0 { unvisited } else { self.value_sum / self.visits as f32 };
        mean.clamp(self.pessimistic, self.optimistic)
    }

    /// [`Node::bounded_mean`] with Gumbel's completed value of an unvisited node, `mixed` (its parent's v_mix),
    /// asked for only when needed.
    pub(crate) fn completed_mean(&self, mixed: impl FnOnce() -> f32) -> f32 {
        self.bounded_mean(if self.visits == 0 { mixed() } else { 0.0 })
    }
}

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
    pub(crate) path: Vec<u32>,
}

impl Leaf {
    pub(crate) fn node(&self) -> u32 {
        *self.path.last().expect("a path holds the root")
    }
}

/// The search tree of one game.
pub struct Tree {
    pub(crate) rules: Rules,
    pub config: MctsConfig,
    pub(crate) nodes: Vec<Node>,
    pub(crate) rng: Pcg64Mcg,
}

/// Evaluations still to run in one tree: a visit target for each of some nodes (the root for PUCT; the
/// considered root children during a round of Gumbel's sequential halving). A worker gathers the leaves of many
/// trees' jobs into one evaluator call ([`Tree::gather`]).
#[derive(Clone, Debug)]
pub struct SearchJob {
    pub(crate) targets: Vec<(u32, u32)>,
}

pub(crate) const ROOT: u32 = 0;

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
    pub(crate) fn select_path(&mut self, mut path: Vec<u32>) -> Select {
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
                            let v = self.settle_finished(id);
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
        // A move that ends the game (a wipe-out, the last empty filled) is exact at once, before any walk enters
        // it: a low prior then no longer hides a game won or lost on the spot. Only a child with a side without
        // discs or a full board is asked its status (an opening that places discs on an empty centre has sides
        // without discs in play): each child's moves are not generated, and a game blocked with empties left is
        // settled when a walk reaches it, as every finished game was.
        let mut finished = false;
        let full = self.rules.mask();
        for child in first..first + count {
            let pos = &self.nodes[child as usize].pos;
            let may_be_over = pos.player.0 == 0 || pos.opponent.0 == 0 || pos.occupied().0 == full;
            if may_be_over && matches!(self.rules.status(pos), Status::Over) {
                self.settle_finished(child);
                finished = true;
            }
        }
        if finished {
            let mut path = leaf.path.clone();
            path.push(first);
            self.tighten_bounds(&path);
        }
        if id == ROOT && self.config.root_noise {
            self.add_root_noise();
        }
        let value = if eval.value.is_finite() { eval.value.clamp(-1.0, 1.0) } else { 0.0 };
        let margin = if eval.margin.is_finite() { eval.margin } else { 0.0 };
        let utility = utility(&self.rules, &self.config, value, margin);
        self.nodes[id as usize].network_value = -utility;
        self.backup(&leaf.path, utility, true);
    }

    /// Marks node `id`, a finished game, terminal with its exact utility as both bounds; returns that utility for
    /// its side to move.
    fn settle_finished(&mut self, id: u32) -> f32 {
        let node = &mut self.nodes[id as usize];
        let margin = self.rules.outcome(&node.pos).margin_for(node.pos.side);
        let v = utility(&self.rules, &self.config, margin.signum() as f32, margin as f32);
        (node.state, node.pessimistic, node.optimistic) = (State::Terminal, -v, -v);
        v
    }

    /// `value` is for the leaf's side to move; each node stores it for the player who moved into it.
    pub(crate) fn backup(&mut self, path: &[u32], value: f32, virtual_loss: bool) {
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

    /// Runs `simulations` more evaluations, `batch` leaves per evaluator call.
    pub fn search(&mut self, evaluator: &mut dyn Evaluator, sims: u32, batch: usize) {
        self.search_until(evaluator, sims, batch, &mut |_| false);
    }

    /// [`Tree::search`] cut short once `stop`, asked after each evaluator call, says so (a player's clock); whether
    /// every simulation was run.
    pub fn search_until(
        &mut self,
        evaluator: &mut dyn Evaluator,
        sims: u32,
        batch: usize,
        stop: &mut dyn FnMut(&Tree) -> bool,
    ) -> bool {
        let job = self.root_job(sims);
        self.run_job_until(&job, evaluator, batch, stop)
    }

    /// `simulations` more evaluations through the root.
    pub fn root_job(&self, sims: u32) -> SearchJob {
        SearchJob { targets: vec![(ROOT, self.nodes[ROOT as usize].visits + sims)] }
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

    /// Runs `job` on this tree alone, `batch` leaves per evaluator call, until it is done or `stop`, asked after each
    /// evaluator call, says to stop; whether the job was done.
    pub(crate) fn run_job_until(
        &mut self,
        job: &SearchJob,
        evaluator: &mut dyn Evaluator,
        batch: usize,
        stop: &mut dyn FnMut(&Tree) -> bool,
    ) -> bool {
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
            if !self.is_done(job) && stop(self) {
                return false;
            }
        }
        true
    }

    /// The id of the root's child reached by `mv`, if the root was expanded.
    pub(crate) fn root_child(&self, mv: Move) -> Option<u32> {
        self.children(ROOT).position(|c| c.mv == mv).map(|i| self.nodes[ROOT as usize].first_child + i as u32)
    }

    /// Visits of each root move.
    pub fn visits(&self) -> Vec<(Move, u32)> {
        self.children(ROOT).map(|c| (c.mv, c.visits)).collect()
    }

    pub(crate) fn children(&self, id: u32) -> impl Iterator<Item = &Node> {
        self.children_of(&self.nodes[id as usize])
    }

    pub(crate) fn children_of(&self, n: &Node) -> impl Iterator<Item = &Node> {
        self.nodes[n.first_child as usize..(n.first_child + n.children) as usize].iter()
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
    use crate::testing::{quiet, rng};
    use othello_core::Game;
    use rand::Rng;

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
}
