//! What the search maximises: the result, optionally with the disc margin (KataGo's score utility, linear here).

use othello_core::Rules;

use crate::config::MctsConfig;

/// [`MctsConfig::score_utility`] the disc margin as a fraction of the board. Odd and increasing in the margin, so
/// that the minimax of utilities is the utility of the minimax margin.
pub(crate) fn utility(rules: &Rules, config: &MctsConfig, value: f32, margin: f32) -> f32 {
    let w = config.score_utility;
    if w <= 0.0 {
        return value;
    }
    let squares = rules.mask().count_ones() as f32;
    (value + w * (margin / squares).clamp(-1.0, 1.0)) / (1.0 + w)
}

/// The monotone transform of a node's children's completed values in [-1, 1] that Gumbel AlphaZero adds to their
#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::UniformEvaluator;
    use crate::testing::{margin_choices, quiet, rng, ExactEvaluator};
    use crate::tree::Tree;
    use othello_core::solve::Solver;
    use othello_core::Position;

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
}
