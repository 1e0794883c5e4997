//! A game: rules, a start position and the moves played, with transcript parsing and replay.

use std::fmt::Write;

use rand::Rng;

use crate::error::{GameError, ParseError, PositionTextError};
use crate::position::Position;
use crate::rules::{Outcome, Rules, Status};
use crate::square::Move;

/// Splits a transcript into moves: `f5d6c3`, `f5 d6 c3`, `F5-D6-C3`, `1. f5 2. d6`, in either case, with passes
/// (`pass`, `pa`, `ps`, `--`) written or omitted.
pub fn parse_transcript(s: &str) -> Result<Vec<Move>, ParseError> {
    let mut moves = Vec::with_capacity(s.len() / 2);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let at = s.len() - rest.len() + 1;
        // Separators: spaces, commas, dashes between moves, move numbers with their dots.
        if c.is_whitespace() || matches!(c, ',' | ';' | '.' | '0'..='9') || (c == '-' && !rest.starts_with("--")) {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let token = match rest.get(..4) {
            Some(t) if t.eq_ignore_ascii_case("pass") => t,
            _ => rest.get(..2).unwrap_or(rest),
        };
        let mv = token
            .parse::<Move>()
            .map_err(|_| ParseError::BadMoveToken { token: rest.chars().take(2).collect(), at })?;
        moves.push(mv);
        rest = &rest[token.len()..];
    }
    Ok(moves)
}

/// A game in progress or finished: every position from the start, and the moves between them (passes included).
#[derive(Clone, Debug)]
pub struct Game {
    pub rules: Rules,
    positions: Vec<Position>,
    moves: Vec<Move>,
}

impl Game {
    pub fn new(rules: Rules) -> Game {
        Game::from_position(rules, rules.start_position())
    }

    pub fn from_position(rules: Rules, start: Position) -> Game {
        Game { rules, positions: vec![start], moves: Vec::new() }
    }

    /// `plies` uniformly random legal moves from the rules' start, a forced pass counted as one (fewer if the
    /// game ends first): seeded openings for self-play and the arena.
    pub fn random_plies(rules: Rules, plies: u32, rng: &mut impl Rng) -> Game {
        let mut game = Game::new(rules);
        while game.moves().len() < plies as usize {
            let mv = match game.status() {
                Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).expect("a legal move")),
                Status::MustPass => Move::Pass,
                Status::Over => break,
            };
            game.push(mv).expect("a legal move");
        }
        game
    }

    /// Replays `moves` from the rules' start, inserting the passes a transcript left out.
    pub fn replay(rules: Rules, moves: &[Move]) -> Result<Game, GameError> {
        let mut game = Game::new(rules);
        game.play_all(moves)?;
        Ok(game)
    }

    /// Parses and replays a transcript.
    pub fn from_transcript(rules: Rules, transcript: &str) -> Result<Game, GameError> {
        Game::replay(rules, &parse_transcript(transcript)?)
    }

    /// A position given as text: a board string if it reads as one (under `rules`, whose size must be the
    /// board's; by default Othello at the board's size), else a transcript from the start of `rules` (default
    /// Othello).
    pub fn from_text(text: &str, rules: Option<Rules>) -> Result<Game, PositionTextError> {
        let board = match Position::parse_board(text) {
            Ok((position, size)) => {
                let rules = Rules::for_board(rules, size).map_err(PositionTextError::Board)?;
                rules.check_position(&position).map_err(PositionTextError::Board)?;
                return Ok(Game::from_position(rules, position));
            }
            Err(e) => e,
        };
        Game::from_transcript(rules.unwrap_or_default(), text).map_err(|transcript| PositionTextError::Neither {
            text: crate::clip(text, 80),
            board: Box::new(board),
            transcript: Box::new(transcript),
        })
    }

    /// Plays `moves` in order, inserting forced passes that were left out. Errors number the moves as given.
    pub fn play_all(&mut self, moves: &[Move]) -> Result<(), GameError> {
        for (i, &mv) in moves.iter().enumerate() {
            if let Move::Play(_) = mv {
                if self.status() == Status::MustPass {
                    self.push(Move::Pass).expect("a forced pass is legal");
                }
            }
            self.push(mv).map_err(|error| GameError::Illegal { number: i + 1, mv: mv.to_string(), error })?;
        }
        Ok(())
    }

    /// Plays one move (a pass only where the rules force it).
    pub fn push(&mut self, mv: Move) -> Result<(), crate::IllegalMove> {
        let next = self.rules.play(self.position(), mv)?;
        self.positions.push(next);
        self.moves.push(mv);
        Ok(())
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game has a start position")
    }
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }
    /// The index in [`Game::positions`] (the number of moves played before it) of the first position with
    /// `empties` empty squares on the rules' board.
    pub fn index_with_empties(&self, empties: u32) -> Option<usize> {
        self.positions.iter().position(|p| self.rules.empties(p) == empties)
    }
    /// The first position with `empties` empty squares, if the game reached one.
    pub fn position_with_empties(&self, empties: u32) -> Option<&Position> {
        self.index_with_empties(empties).map(|i| &self.positions[i])
    }
    /// The moves played, forced passes included.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }
    pub fn status(&self) -> Status {
        self.rules.status(self.position())
    }
    pub fn is_over(&self) -> bool {
        self.status() == Status::Over
    }
    /// The score of the current position as if the game ended there.
    pub fn outcome(&self) -> Outcome {
        self.rules.outcome(self.position())
    }

    /// The moves as a compact transcript (`f5d6c3`), passes left out.
    pub fn transcript(&self) -> String {
        let mut s = String::with_capacity(self.moves.len() * 2);
        for m in &self.moves {
            if let Move::Play(sq) = m {
                let _ = write!(s, "{sq}");
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Scoring;
    use crate::Color;

    /// Random plies replay under the rules, repeat from the same seed, differ between seeds and stop at the end.
    #[test]
    fn random_plies_are_legal_seeded_and_stop_at_the_end() {
        use rand::SeedableRng;
        let rules = Rules::othello().with_size(6).unwrap();
        let seeded = |seed, plies| Game::random_plies(rules, plies, &mut rand_pcg::Pcg64Mcg::seed_from_u64(seed));
        let games: Vec<Game> = (0..8).map(|seed| seeded(seed, 6)).collect();
        for (seed, game) in games.iter().enumerate() {
            assert_eq!(game.moves().len(), 6);
            assert_eq!(Game::replay(rules, game.moves()).unwrap().positions(), game.positions());
            assert_eq!(seeded(seed as u64, 6).moves(), game.moves());
        }
        assert!(games.iter().any(|g| g.moves() != games[0].moves()), "the seeds' openings differ");
        let whole = seeded(3, 200);
        assert!(whole.is_over() && whole.moves().len() < 200, "a game ends before 200 plies on 6x6");
    }

    #[test]
    fn positions_are_found_by_their_empties_on_any_board() {
        let game = Game::from_transcript(Rules::othello(), "f5d6c3").unwrap();
        assert_eq!(game.index_with_empties(60), Some(0));
        assert_eq!(game.position_with_empties(58), Some(&game.positions()[2]));
        assert_eq!(game.index_with_empties(56), None);
        let six = Game::new(Rules::othello().with_size(6).unwrap());
        assert_eq!(six.index_with_empties(32), Some(0));
    }

    #[test]
    fn transcripts_in_every_spelling_agree() {
        let want = parse_transcript("f5d6c3").unwrap();
        assert_eq!(want.len(), 3);
        for s in ["f5 d6 c3", "F5D6C3", "F5-D6-C3", "1. f5 2. d6 3. c3", " f5,d6,c3 \n"] {
            assert_eq!(parse_transcript(s).unwrap(), want, "{s}");
        }
        assert_eq!(parse_transcript("f5 pass d6 PA --").unwrap().len(), 5);
        assert_eq!(parse_transcript("").unwrap(), vec![]);
    }

    #[test]
    fn bad_tokens_say_where() {
        assert_eq!(parse_transcript("f5 d6 z3"), Err(ParseError::BadMoveToken { token: "z3".into(), at: 7 }));
        assert!(parse_transcript("f5 d").is_err());
        assert!(parse_transcript("f5 é").is_err());
    }

    /// The seeds: the shortest game is 9 plies and ends 13-0 (64-0 with empties to the winner).
    #[test]
    fn the_shortest_game_ends_13_0() {
        let g = Game::from_transcript(Rules::othello(), "e6 f4 e3 d6 c5 f6 e7 f5 g5").unwrap();
        assert!(g.is_over());
        let o = g.outcome();
        assert_eq!((o.black, o.white, o.winner), (13, 0, Some(Color::Black)));
        let rules = Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() };
        let o = Game::from_transcript(rules, "e6f4e3d6c5f6e7f5g5").unwrap().outcome();
        assert_eq!((o.black, o.white), (64, 0));
        // No further move is possible.
        let err = Game::from_transcript(Rules::othello(), "e6 f4 e3 d6 c5 f6 e7 f5 g5 a1").unwrap_err();
        assert!(err.to_string().starts_with("move 10 (a1): the game is already over"), "{err}");
    }

    #[test]
    fn illegal_moves_and_passes_are_reported_with_their_number() {
        let err = Game::from_transcript(Rules::othello(), "f5 d6 a1").unwrap_err();
        assert!(err.to_string().starts_with("move 3 (a1): a1 is not a legal move for black"), "{err}");
        let err = Game::from_transcript(Rules::othello(), "f5 pass").unwrap_err();
        assert!(err.to_string().contains("may not pass"), "{err}");
    }

    #[test]
    fn passes_may_be_written_or_omitted() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(4);
        let mut games_with_passes = 0;
        for _ in 0..2000 {
            let mut g = Game::new(Rules::othello());
            while !g.is_over() {
                let mv = match g.status() {
                    Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).unwrap()),
                    _ => Move::Pass,
                };
                g.push(mv).unwrap();
            }
            let written: Vec<String> = g.moves().iter().map(|m| m.to_string()).collect();
            let with_passes = Game::from_transcript(Rules::othello(), &written.join(" ")).unwrap();
            let without = Game::from_transcript(Rules::othello(), &g.transcript()).unwrap();
            assert_eq!(with_passes.position(), g.position());
            assert_eq!(without.position(), g.position());
            assert_eq!(without.moves(), g.moves());
            games_with_passes += g.moves().contains(&Move::Pass) as u32;
        }
        assert!(games_with_passes > 10, "the sample must exercise passes");
    }
}
