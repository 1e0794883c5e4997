//! One game: `Position` from a board string or a transcript, its moves, and the exact solver and perft on it.

use numpy::ndarray::{Array1, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray3};
use othello_core::perft::Convention;
use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Color, Game, Move, Rules, Square, Status};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{parse_rules, value_error};

/// A position and the rules it is played under; `moves` are those played since the start where it came from a
/// transcript (a board string has none before it).
#[pyclass(module = "othello_zero._core")]
pub struct Position {
    rules: Rules,
    position: othello_core::Position,
    moves: Vec<Move>,
}

impl Position {
    /// The game a player is asked to move in: the moves from the start where they are known.
    pub(crate) fn game(&self) -> PyResult<Game> {
        if self.moves.is_empty() {
            return Ok(Game::from_position(self.rules, self.position));
        }
        Game::replay(self.rules, &self.moves).map_err(value_error)
    }

    /// A player's view of `game`.
    pub(crate) fn from_game(game: &Game) -> Position {
        Position { rules: game.rules, position: *game.position(), moves: game.moves().to_vec() }
    }

    /// Whether each square, row by row, is in `discs`.
    fn squares(&self, discs: othello_core::Bitboard) -> impl Iterator<Item = bool> + '_ {
        let size = self.rules.size;
        (0..size)
            .flat_map(move |row| (0..size).map(move |col| Square::at(col, row).is_some_and(|sq| discs.contains(sq))))
    }
}

#[pymethods]
impl Position {
    /// A board string (the squares row by row, `X`/`*` black, `O` white, `-`/`.` empty, then the side to move) or
    /// a transcript from the rules' start (`f5d6c3`; empty: the start). `rules`: their string; by default Othello
    /// at the board's size.
    #[new]
    #[pyo3(signature = (text = "", rules = None))]
    fn new(text: &str, rules: Option<&str>) -> PyResult<Position> {
        let rules = rules.map(parse_rules).transpose()?;
        let game = Game::from_text(text, rules).map_err(value_error)?;
        Ok(Position { rules: game.rules, position: *game.position(), moves: game.moves().to_vec() })
    }

    /// The legal moves as square names (`d3`), or `["pass"]` where the rules force a pass; none once over.
    fn legal_moves(&self) -> Vec<String> {
        match self.rules.status(&self.position) {
            Status::Moves(m) => m.map(|sq| sq.to_string()).collect(),
            Status::MustPass => vec!["pass".to_string()],
            Status::Over => vec![],
        }
    }

    /// The position after `mv` (a square name, `pass`, or an action index as `VecEnv` numbers them); an illegal
    /// move is a ValueError saying which are legal.
    fn play(&self, mv: &Bound<'_, PyAny>) -> PyResult<Position> {
        let parsed = move_of(mv, self.rules.size).map_err(|e| value_error(format!("move {e}")))?;
        let position = self.rules.play(&self.position, parsed).map_err(value_error)?;
        let mut moves = self.moves.clone();
        moves.push(parsed);
        Ok(Position { rules: self.rules, position, moves })
    }

    fn is_over(&self) -> bool {
        self.rules.is_over(&self.position)
    }

    /// Black's and white's discs.
    fn discs(&self) -> (u32, u32) {
        (self.position.black().count(), self.position.white().count())
    }

    /// As `VecEnv`'s default observation of one game: bool (S, S, 2), the side to move's discs, then the opponent's.
    fn observation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<bool>> {
        let size = self.rules.size as usize;
        let own = self.position.discs(self.position.side);
        let cells: Vec<bool> = self
            .squares(own)
            .zip(self.squares(self.position.occupied()))
            .flat_map(|(mine, any)| [mine, any && !mine])
            .collect();
        Array3::from_shape_vec((size, size, 2), cells).expect("S * S * 2 cells").into_pyarray(py)
    }

    /// As `VecEnv`'s mask of one game: bool (S * S + 1,), the legal squares row by row, then the pass.
    fn legal_action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let status = self.rules.status(&self.position);
        let legal = match status {
            Status::Moves(m) => m,
            _ => othello_core::Bitboard::default(),
        };
        let mut mask: Vec<bool> = self.squares(legal).collect();
        mask.push(status == Status::MustPass);
        Array1::from_vec(mask).into_pyarray(py)
    }

    /// `"black"` or `"white"`: the side to move.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        match self.position.side {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// The rules, as their string.
    #[getter]
    fn rules(&self) -> String {
        self.rules.to_string()
    }

    /// The moves played since the start (empty for a position given as a board string).
    #[getter]
    fn transcript(&self) -> String {
        self.moves.iter().map(Move::to_string).collect()
    }

    /// The board string, which `Position` reads back.
    fn board(&self) -> String {
        self.position.to_board_string(self.rules.size)
    }

    fn __str__(&self) -> String {
        self.board()
    }

    fn __repr__(&self) -> String {
        format!("Position('{}', rules='{}')", self.board(), self.rules)
    }

    fn __eq__(&self, other: &Position) -> bool {
        self.rules == other.rules && self.position == other.position
    }
}

/// A move given from Python: its name (`d3`, `pass`), or an action index as `VecEnv` numbers them (the last,
/// S * S, the pass). The error names what was given.
pub(crate) fn move_of(answer: &Bound<'_, PyAny>, size: u8) -> Result<Move, String> {
    if let Ok(name) = answer.extract::<String>() {
        return name.parse().map_err(|e| format!("'{name}': {e}"));
    }
    let squares = size as i64 * size as i64;
    match answer.extract::<i64>() {
        Ok(action) if action == squares => Ok(Move::Pass),
        Ok(action) if (0..squares).contains(&action) => {
            let sq = Square::at((action % size as i64) as u8, (action / size as i64) as u8);
            sq.map(Move::Play).ok_or_else(|| format!("{action}: off the board"))
        }
        Ok(action) => Err(format!("{action}: expected an action from 0 to {squares}")),
        Err(_) => Err(format!("{answer}: expected a move name ('d3', 'pass') or an action index")),
    }
}

/// The exact result of `position` under perfect play, as `othello-zero solve` finds it: a dict with `score` (the
/// final disc margin from the side to move's view), `best_moves` (every move reaching it), `nodes` and `seconds`.
/// The interpreter is released while it searches.
#[pyfunction]
pub fn solve<'py>(py: Python<'py>, position: &Position) -> PyResult<Bound<'py, PyDict>> {
    let (rules, pos) = (position.rules, position.position);
    let solution =
        py.detach(|| Solver::new().solve(&rules, &pos, Mode::Exact, Limits::default())).map_err(value_error)?;
    let result = PyDict::new(py);
    result.set_item("score", solution.score)?;
    let best: Vec<String> = solution.best_moves.iter().map(Move::to_string).collect();
    result.set_item("best_moves", best)?;
    result.set_item("nodes", solution.nodes)?;
    result.set_item("seconds", solution.elapsed.as_secs_f64())?;
    Ok(result)
}

/// The move sequences of `depth` plies from the rules' start: `convention` `edges` (OEIS A124004), `leaves` or
/// `no-pass`, as `othello-zero perft` counts them.
#[pyfunction]
#[pyo3(signature = (depth, rules = "othello", convention = "edges"))]
pub fn perft(py: Python<'_>, depth: u32, rules: &str, convention: &str) -> PyResult<u64> {
    let rules = parse_rules(rules)?;
    let convention: Convention =
        convention.parse().map_err(|e| value_error(format!("convention '{convention}': {e}")))?;
    if depth > 21 {
        return Err(value_error(format!("depth {depth}: at most 21 (past that the count no longer fits 64 bits)")));
    }
    let start = rules.start_position();
    Ok(py.detach(|| othello_core::perft(&rules, &start, depth, convention)))
}
