//! The optimal-move files of an arena directory: `optimal-moves.csv` (each player's record, with the exact counts
//! behind it) and `fixed-positions.csv` (the fixed positions with their exact values), written and read back.

use othello_core::solve::Solution;
use othello_core::{Color, Game, Move};

use super::OptimalMovesReport;
use crate::arena::{csv_line, csv_rows, ArenaError};
use othello_players::AgentSpec;

/// The positions a record in `optimal-moves.csv` counts: each player's own moves, or one fixed set of positions.
pub const OWN_MOVES: &str = "own";

/// The name of a fixed set of positions in `optimal-moves.csv`: a fingerprint of its positions, so that a record
/// is reused only on the same positions.
pub fn position_set_name(games: &[Game]) -> String {
    let text: String = games
        .iter()
        .map(|g| {
            let p = g.position();
            format!("{} {:x} {:x} {}\n", g.rules, p.player.0, p.opponent.0, p.side == Color::Black)
        })
        .collect();
    format!("fixed-{:016x}", othello_run::fnv1a(&text))
}

/// One line of `optimal-moves.csv`: a player's record and the positions it counts ([`OWN_MOVES`] or a
/// [`position_set_name`]).
#[derive(Clone, Debug, PartialEq)]
pub struct OptimalMovesRow {
    pub player: AgentSpec,
    pub report: OptimalMovesReport,
    pub position_set: String,
}

const OPTIMAL_MOVES_HEADER: &str = "player,moves,optimal,optimal_low95,optimal_high95,result_kept,mean_loss,\
mean_loss_interval95,optimal_count,result_kept_count,loss_sum,loss_square_sum,position_set";

/// `optimal-moves.csv`: one line per player (spec, moves, the optimal-move rate with its 95% interval, the rate of
/// moves that keep the result, the mean disc loss with its 95% half-width; then the exact counts behind them and
/// the positions counted), in the order given.
pub fn optimal_moves_csv(rows: &[OptimalMovesRow]) -> String {
    let mut csv = format!("{OPTIMAL_MOVES_HEADER}\n");
    for OptimalMovesRow { player, report: r, position_set } in rows {
        let (low, high) = r.optimal_interval();
        csv.push_str(&csv_line(&[
            player.to_string(),
            r.positions.to_string(),
            format!("{:.4}", r.optimal_rate()),
            format!("{low:.4}"),
            format!("{high:.4}"),
            format!("{:.4}", r.result_kept_rate()),
            format!("{:.3}", r.mean_loss()),
            format!("{:.3}", r.mean_loss_half_width()),
            r.optimal.to_string(),
            r.result_kept.to_string(),
            r.total_loss.to_string(),
            r.total_squared_loss.to_string(),
            position_set.clone(),
        ]));
    }
    csv
}

/// The records of an `optimal-moves.csv` (`path` names it in errors); none from a table without the exact counts
/// (an older build's), which holds nothing to reuse. A malformed line is an error naming the file and line.
pub fn parse_optimal_moves_csv(text: &str, path: &std::path::Path) -> Result<Vec<OptimalMovesRow>, ArenaError> {
    if text.lines().next() != Some(OPTIMAL_MOVES_HEADER) {
        return Ok(vec![]);
    }
    let row_problem = |line: usize, problem: String| ArenaError::Row { path: path.to_path_buf(), line, problem };
    let mut rows = vec![];
    for (i, fields) in csv_rows::<13>(text, path)? {
        let [player, moves, _, _, _, _, _, _, optimal, kept, loss, squares, position_set] = &fields;
        let count = |name: &str, field: &str| -> Result<i64, ArenaError> {
            field.parse().map_err(|_| row_problem(i, format!("{name} '{field}' is not a whole number")))
        };
        let count_of = |name: &str, field: &str| -> Result<usize, ArenaError> {
            usize::try_from(count(name, field)?).map_err(|_| row_problem(i, format!("{name} '{field}' is negative")))
        };
        let report = OptimalMovesReport {
            positions: count_of("moves", moves)?,
            optimal: count_of("optimal_count", optimal)?,
            result_kept: count_of("result_kept_count", kept)?,
            total_loss: count("loss_sum", loss)?,
            total_squared_loss: count("loss_square_sum", squares)?,
        };
        if report.optimal > report.positions || report.result_kept > report.positions {
            return Err(row_problem(i, "more optimal or kept moves than moves".into()));
        }
        let player = player.parse().map_err(|e| row_problem(i, format!("player '{player}' is not a player: {e}")))?;
        rows.push(OptimalMovesRow { player, report, position_set: position_set.clone() });
    }
    Ok(rows)
}

const FIXED_POSITIONS_HEADER: &str = "rules,board,score,move_scores";

/// `fixed-positions.csv`: the fixed positions players are asked in, in order, with their exact values: each one's
/// rules, its board string (the side to move last), the score of perfect play (the mover's discs minus the
/// opponent's at the end) and every legal move's (`c4:+2 d3:-4`). A later process reads the values back instead
/// of solving again, and a reader can check them with any solver.
pub fn fixed_positions_csv(games: &[Game], solutions: &[Solution]) -> String {
    let mut csv = format!("{FIXED_POSITIONS_HEADER}\n");
    for (game, solution) in games.iter().zip(solutions) {
        let moves: Vec<String> = solution.move_scores.iter().map(|(mv, score)| format!("{mv}:{score:+}")).collect();
        csv.push_str(&csv_line(&[
            game.rules.to_string(),
            game.position().to_board_string(game.rules.size),
            format!("{:+}", solution.score),
            moves.join(" "),
        ]));
    }
    csv
}

/// The exact values a `fixed-positions.csv` (`path` names it in errors) holds for `games`' positions: None when it
/// holds other positions (drawn with other settings: solve them again). A line that does not read, or whose moves
/// are not its position's legal moves with the best as its score, is an error naming the file and line.
pub fn parse_fixed_positions_csv(
    text: &str,
    path: &std::path::Path,
    games: &[Game],
) -> Result<Option<Vec<Solution>>, ArenaError> {
    let row_problem = |line: usize, problem: String| ArenaError::Row { path: path.to_path_buf(), line, problem };
    if text.lines().next() != Some(FIXED_POSITIONS_HEADER) {
        return Err(row_problem(1, format!("the header is not '{FIXED_POSITIONS_HEADER}'")));
    }
    let rows = csv_rows::<4>(text, path)?;
    if rows.len() != games.len() {
        return Ok(None);
    }
    let mut solutions = vec![];
    for ((i, fields), game) in rows.into_iter().zip(games) {
        let [rules, board, score, moves] = &fields;
        let pos = game.position();
        if *rules != game.rules.to_string() || *board != pos.to_board_string(game.rules.size) {
            return Ok(None);
        }
        let score: i32 = score.parse().map_err(|_| row_problem(i, format!("score '{score}' is not a whole number")))?;
        let mut move_scores = vec![];
        for entry in moves.split_whitespace() {
            let parsed = entry.split_once(':').and_then(|(mv, v)| Some((mv.parse::<Move>().ok()?, v.parse().ok()?)));
            let Some(move_score) = parsed else {
                return Err(row_problem(i, format!("'{entry}' is not a move and its score (c4:+2)")));
            };
            move_scores.push(move_score);
        }
        let legal = game.rules.legal_moves(pos);
        let mut played: Vec<Move> = move_scores.iter().map(|(mv, _)| *mv).collect();
        played.sort_by_key(|mv| mv.policy_index());
        let every_legal: Vec<Move> = legal.map(Move::Play).collect();
        if played != every_legal {
            return Err(row_problem(i, "the moves are not the position's legal moves".into()));
        }
        if move_scores.iter().map(|(_, v)| *v).max() != Some(score) {
            return Err(row_problem(i, format!("score {score:+} is not the best move's")));
        }
        let best_moves = move_scores.iter().filter(|(_, v)| *v == score).map(|(mv, _)| *mv).collect();
        solutions.push(Solution {
            score,
            best_moves,
            move_scores,
            principal_variation: vec![],
            nodes: 0,
            helper_nodes: 0,
            elapsed: std::time::Duration::ZERO,
        });
    }
    Ok(Some(solutions))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimal_moves::solve_all;
    use othello_core::{Rules, Status};
    use rand::SeedableRng;

    /// One line per player in the order given, a spec with commas and quotes kept whole, the figures as the
    /// report computes them; read back as written. A table of an older build (no counts) holds nothing to reuse,
    /// and a damaged line is an error naming the file and line.
    #[test]
    fn the_optimal_moves_table_holds_each_player_and_reads_back() {
        let report =
            OptimalMovesReport { positions: 40, optimal: 30, result_kept: 36, total_loss: 50, total_squared_loss: 300 };
        let spec = "net:model=\"r/models/model-000000250.json\",sims=8";
        let rows = [
            OptimalMovesRow { player: spec.parse().unwrap(), report, position_set: "fixed-00ff00ff00ff00ff".into() },
            OptimalMovesRow {
                player: "random".parse().unwrap(),
                report: OptimalMovesReport::new(),
                position_set: OWN_MOVES.into(),
            },
        ];
        let csv = optimal_moves_csv(&rows);
        let mut reader = ::csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(csv.as_bytes());
        let lines: Vec<Vec<String>> =
            reader.records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect();
        assert_eq!(lines.len(), 3);
        assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{csv}");
        assert_eq!(lines[0][0..3], ["player", "moves", "optimal"]);
        let (low, high) = report.optimal_interval();
        let figures: Vec<f64> = lines[1][1..12].iter().map(|f| f.parse().unwrap()).collect();
        assert_eq!(lines[1][0], spec);
        assert_eq!(figures[..6], [40.0, 0.75, (low * 1e4).round() / 1e4, (high * 1e4).round() / 1e4, 0.9, 1.25]);
        assert_eq!(figures[7..], [30.0, 36.0, 50.0, 300.0]);
        assert_eq!((lines[2][0].as_str(), lines[2][1].as_str(), lines[2][12].as_str()), ("random", "0", "own"));

        let path = std::path::Path::new("eval/optimal-moves.csv");
        assert_eq!(parse_optimal_moves_csv(&csv, path).unwrap(), rows);
        let older = "player,moves,optimal,optimal_low95,optimal_high95,result_kept,mean_loss,mean_loss_interval95\n\
                     random,17,0.3529,0.17,0.58,0.7059,2.412,1.4\n";
        assert_eq!(parse_optimal_moves_csv(older, path).unwrap(), vec![]);
        for (field, damaged) in [(",40,", ",4x0,"), (",30,", ",-30,"), (",30,", ",41,")] {
            let error = parse_optimal_moves_csv(&csv.replacen(field, damaged, 1), path).unwrap_err().to_string();
            assert!(error.starts_with("eval/optimal-moves.csv, line 2:"), "{error}");
        }
        let cut = csv.rsplit_once(",own").unwrap().0;
        let error = parse_optimal_moves_csv(cut, path).unwrap_err().to_string();
        assert!(error.contains("line 3: 12 fields"), "{error}");
    }

    /// The stored values of fixed positions read back as the solver found them, only for those positions; a line
    /// that does not agree with its position is an error naming the file and line.
    #[test]
    fn fixed_positions_keep_their_values_and_refuse_damaged_lines() {
        use rand::Rng;
        let rules = Rules::othello().with_size(6).unwrap();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let games: Vec<Game> = (0..6)
            .map(|_| loop {
                let mut game = Game::new(rules);
                while let Status::Moves(m) = game.status() {
                    if rules.empties(game.position()) <= 10 && m.count() > 1 {
                        break;
                    }
                    game.push(Move::Play(m.nth(rng.random_range(0..m.count())).unwrap())).unwrap();
                }
                if matches!(game.status(), Status::Moves(m) if m.count() > 1) {
                    break game;
                }
            })
            .collect();
        let solutions = solve_all(&games, 2, |_| {}).unwrap();
        let csv = fixed_positions_csv(&games, &solutions);
        let path = std::path::Path::new("RUN/eval/fixed-positions.csv");
        let read = parse_fixed_positions_csv(&csv, path, &games).unwrap().unwrap();
        for (stored, solved) in read.iter().zip(&solutions) {
            assert_eq!(stored.score, solved.score);
            assert_eq!(stored.best_moves, solved.best_moves);
            assert_eq!(stored.move_scores, solved.move_scores);
        }
        assert_eq!(parse_fixed_positions_csv(&csv, path, &games[1..]).unwrap(), None, "fewer positions");
        let mut reordered = games.clone();
        reordered.swap(0, 1);
        assert_eq!(parse_fixed_positions_csv(&csv, path, &reordered).unwrap(), None, "other positions");
        let line = csv.lines().nth(2).unwrap().to_string();
        let (front, moves) = line.rsplit_once(',').unwrap();
        let (head, score) = front.rsplit_once(',').unwrap();
        let best: i32 = score.parse().unwrap();
        let damaged = [
            (format!("{head},{:+},{moves}", best + 2), "not the best move's"),
            (format!("{head},{score},{moves} a1:+0"), "legal moves"),
            (format!("{front},{}", moves.split_once(' ').unwrap().1), "legal moves"),
            (format!("{head},{score},{}", moves.replace(':', "=")), "is not a move and its score"),
            (format!("{head},even,{moves}"), "not a whole number"),
        ];
        for (bad, why) in damaged {
            let text = csv.replace(&line, &bad);
            let err = parse_fixed_positions_csv(&text, path, &games).unwrap_err().to_string();
            assert!(err.contains("fixed-positions.csv, line 3") && err.contains(why), "{bad}: {err}");
        }
        assert!(parse_fixed_positions_csv("board\n", path, &games).is_err(), "another file's header");
    }

    /// A set of positions is named by its positions alone: the same positions the same name, whatever else.
    #[test]
    fn position_sets_are_named_by_their_positions() {
        let rules = Rules::othello().with_size(6).unwrap();
        let games: Vec<Game> = ["c2", "b3", "e4"].iter().map(|t| Game::from_transcript(rules, t).unwrap()).collect();
        assert_eq!(position_set_name(&games), position_set_name(&games.clone()));
        assert_ne!(position_set_name(&games), position_set_name(&games[..2]));
        assert_ne!(position_set_name(&games[..1]), position_set_name(&games[1..2]));
        assert!(position_set_name(&games).starts_with("fixed-"));
    }
}
