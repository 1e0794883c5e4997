//! Endgame problem files: the FFO suite's lines and Edax's `.obf`, each a position with its expected best moves and
//! score.

use crate::{Move, Position};

/// One line of a problem file (the FFO suite's format): `<board> <side> [<best moves> <score> <id> ...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub position: Position,
    pub size: u8,
    /// The expected best moves and score, when the line gives them.
    pub best_moves: Option<Vec<Move>>,
    pub score: Option<i32>,
    pub id: Option<String>,
}

impl Problem {
    /// Parses a line; `None` for blank lines and `#` or `%` comments. Two layouts: the FFO file's (board, side,
    /// best moves, score, id) and Edax's `.obf` (`<board> <side>; <move>:<score>; ...`, the best moves being
    /// those with the top score).
    pub fn parse(line: &str) -> Option<Result<Problem, crate::ParseError>> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
            return None;
        }
        if let Some((board, scored)) = line.split_once(';') {
            return Some(Problem::parse_obf(board, scored));
        }
        let mut fields = line.split_whitespace();
        let board = fields.next().unwrap_or("");
        // The side is its own field in the FFO files, or glued to the board (Edax's 65-character form).
        let board_text = match fields.clone().next() {
            Some(side) if side.len() == 1 && board.len() != 65 && board.len() != 37 && board.len() != 17 => {
                fields.next();
                format!("{board} {side}")
            }
            _ => board.to_string(),
        };
        Some((|| {
            let (position, size) = Position::parse_board(&board_text)?;
            let best_moves = fields
                .next()
                .map(|m| m.split(',').map(str::parse::<Move>).collect::<Result<Vec<_>, _>>())
                .transpose()?;
            let score = fields.next().map(parse_score).transpose()?;
            let id = fields.next().map(str::to_string);
            Ok(Problem { position, size, best_moves, score, id })
        })())
    }

    fn parse_obf(board: &str, scored: &str) -> Result<Problem, crate::ParseError> {
        let (position, size) = Position::parse_board(board.trim())?;
        let mut moves = Vec::new();
        for entry in scored.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            let bad = || crate::ParseError::BadScore(entry.chars().take(16).collect());
            let (mv, score) = entry.split_once(':').ok_or_else(bad)?;
            moves.push((mv.trim().parse::<Move>()?, parse_score(score.trim())?));
        }
        let score = moves.iter().map(|&(_, s)| s).max();
        let best_moves = score.map(|top| moves.iter().filter(|&&(_, s)| s == top).map(|&(m, _)| m).collect());
        Ok(Problem { position, size, best_moves, score, id: None })
    }
}

/// `+38`, `-4`, `0`: a final disc difference.
fn parse_score(text: &str) -> Result<i32, crate::ParseError> {
    text.trim_start_matches('+')
        .parse()
        .ok()
        .filter(|s: &i32| s.abs() <= 64)
        .ok_or_else(|| crate::ParseError::BadScore(text.chars().take(16).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_lines_parse() {
        let line = FFO_40;
        let p = Problem::parse(line).unwrap().unwrap();
        assert_eq!(p.score, Some(38));
        assert_eq!(p.best_moves, Some(vec![Move::Play("a2".parse().unwrap())]));
        assert_eq!(p.id.as_deref(), Some("ffo40"));
        assert!(Problem::parse("# comment").is_none());
        assert!(Problem::parse("OX X").unwrap().is_err());
        assert!(Problem::parse(&line.replace("+38", "+3x")).unwrap().is_err());
    }

    #[test]
    fn obf_lines_parse_with_every_top_scored_move_best() {
        // FFO #40 in Edax's layout, with a made-up second move scored level with the first.
        let board = &FFO_40[..66];
        let p = Problem::parse(&format!("{board}; A2:+38; B1:-4; C1:+38;")).unwrap().unwrap();
        assert_eq!(p.score, Some(38));
        let square = |s: &str| Move::Play(s.parse().unwrap());
        assert_eq!(p.best_moves, Some(vec![square("a2"), square("c1")]));
        assert_eq!(p.position, Problem::parse(FFO_40).unwrap().unwrap().position);
        let bare = Problem::parse(&format!("{board};")).unwrap().unwrap();
        assert_eq!((bare.score, bare.best_moves), (None, None));
        assert!(Problem::parse("% a comment").is_none());
        for bad in ["A2+38;", "A2:+99;", "Z9:+2;", "A2:;"] {
            assert!(Problem::parse(&format!("{board}; {bad}")).unwrap().is_err(), "{bad}");
        }
    }

    const FFO_40: &str = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X a2 +38 ffo40 20";
}
