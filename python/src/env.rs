//! `VecEnv`: many games under one rules, stepped together in one call, numpy in and out, in pgx's shape. The work
//! of a step (the moves, the observations, the masks) runs with the interpreter released, so that two Python
//! threads stepping two environments run on two cores.

use numpy::ndarray::{Array1, Array2, Array4};
use numpy::{IntoPyArray, PyReadonlyArray1};
use othello_core::planes::{encode, PLANES};
use othello_core::{Bitboard, Color, Position, Rules, Square, Status, Symmetry};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::{parse_rules, value_error};

/// The most games one environment holds (its observations alone are 128 bytes a game on 8x8).
const MAX_ENVS: usize = 1 << 22;

/// `num_envs` games of `rules`, each an action a step: a square index (`a1` = 0, row by row; on an S x S board the
/// square in row r and column c is r * S + c) or the pass (S * S), which is legal exactly when the rules force it.
#[pyclass(module = "othello_zero._core")]
pub struct VecEnv {
    rules: Rules,
    size: usize,
    games: Vec<Position>,
    /// Whether each game ended on the last step; with autoreset it has started again already.
    terminated: Vec<bool>,
    /// Each game's reward on the last step, black's then white's: +1 for a win, -1 for a loss, 0 otherwise.
    rewards: Vec<[f32; 2]>,
    /// What each game's side to move can do, found once a step for the checks, the masks and the random draws.
    statuses: Vec<Status>,
    autoreset: bool,
    /// The observation as the network's float input planes (`observation="planes"`), else pgx's bools.
    planes: bool,
    rng: Pcg64Mcg,
}

/// One step's state, made without the interpreter and handed to numpy with it.
/// The observation and the mask are bytes of 0 or 1, which the Python side views as numpy's bool.
struct StateBuffers {
    /// pgx's observation, or nothing where the environment gives planes.
    observation: Vec<u8>,
    /// The network's input planes, N x planes x S x S, where the environment gives them.
    planes: Vec<f32>,
    legal_action_mask: Vec<u8>,
    current_player: Vec<i32>,
    rewards: Vec<f32>,
    terminated: Vec<bool>,
    black: Vec<u64>,
    white: Vec<u64>,
}

#[pymethods]
impl VecEnv {
    #[new]
    #[pyo3(signature = (rules = "othello", num_envs = 1, seed = 0, autoreset = false, observation = "pgx"))]
    fn new(rules: &str, num_envs: usize, seed: u64, autoreset: bool, observation: &str) -> PyResult<VecEnv> {
        let rules = parse_rules(rules)?;
        let planes = match observation {
            "pgx" => false,
            "planes" => true,
            other => return Err(value_error(format!("observation '{other}': expected 'pgx' or 'planes'"))),
        };
        if !(1..=MAX_ENVS).contains(&num_envs) {
            return Err(value_error(format!("num_envs = {num_envs}: expected 1 to {MAX_ENVS}")));
        }
        let start = rules.start_position();
        Ok(VecEnv {
            rules,
            size: rules.size as usize,
            games: vec![start; num_envs],
            terminated: vec![false; num_envs],
            rewards: vec![[0.0; 2]; num_envs],
            statuses: vec![rules.status(&start); num_envs],
            autoreset,
            planes,
            rng: Pcg64Mcg::seed_from_u64(seed),
        })
    }

    /// Every game back at the start (the random draws reseeded with `seed` where given); the state.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> PyResult<Bound<'py, PyDict>> {
        if let Some(seed) = seed {
            self.rng = Pcg64Mcg::seed_from_u64(seed);
        }
        let start = self.rules.start_position();
        self.games.fill(start);
        self.statuses.fill(self.rules.status(&start));
        self.terminated.fill(false);
        self.rewards.fill([0.0; 2]);
        let buffers = py.detach(|| self.buffers());
        self.state(py, buffers)
    }

    /// Plays one action in every game (an int64 array of `num_envs`); the state after it. An illegal action, or a
    /// finished game stepped without autoreset, is a ValueError naming the game and the move, and no game moves.
    fn step<'py>(&mut self, py: Python<'py>, actions: PyReadonlyArray1<'py, i64>) -> PyResult<Bound<'py, PyDict>> {
        let actions = actions.as_slice().map_err(|e| value_error(format!("actions: {e}")))?.to_vec();
        if actions.len() != self.games.len() {
            return Err(value_error(format!("actions: {} of them for {} games", actions.len(), self.games.len())));
        }
        let buffers = py.detach(|| self.apply(&actions).map(|()| self.buffers())).map_err(value_error)?;
        self.state(py, buffers)
    }

    /// A uniformly random legal action for each game (seeded by the environment); -1 for a finished game.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<i64>> {
        let actions = py.detach(|| {
            let (size, rng) = (self.size, &mut self.rng);
            self.statuses.iter().map(|status| random_action(*status, size, rng)).collect::<Vec<i64>>()
        });
        Array1::from_vec(actions).into_pyarray(py)
    }

    /// The games' number.
    #[getter]
    fn num_envs(&self) -> usize {
        self.games.len()
    }

    /// Actions a game has: the squares, then the pass.
    #[getter]
    fn num_actions(&self) -> usize {
        self.size * self.size + 1
    }

    /// The rules, as their string.
    #[getter]
    fn rules(&self) -> String {
        self.rules.to_string()
    }

    /// Whether a finished game starts again on the step that ends it.
    #[getter]
    fn autoreset(&self) -> bool {
        self.autoreset
    }

    /// `"pgx"` or `"planes"`: the form of the state's observation.
    #[getter]
    fn observation(&self) -> &'static str {
        if self.planes {
            "planes"
        } else {
            "pgx"
        }
    }
}

impl VecEnv {
    /// Checks every action, then plays them all: one bad action moves no game.
    fn apply(&mut self, actions: &[i64]) -> Result<(), String> {
        let moves: Vec<Option<Square>> = actions
            .iter()
            .zip(&self.statuses)
            .enumerate()
            .map(|(i, (&action, &status))| self.legal_move(i, action, status))
            .collect::<Result<_, _>>()?;
        let start = self.rules.start_position();
        let start_status = self.rules.status(&start);
        for (i, mv) in moves.into_iter().enumerate() {
            let pos = &mut self.games[i];
            *pos = match mv {
                Some(sq) => self.rules.play_legal(pos, sq),
                None => pos.pass(),
            };
            let mut status = self.rules.status(pos);
            let over = status == Status::Over;
            self.terminated[i] = over;
            self.rewards[i] = if over { rewards(&self.rules, pos) } else { [0.0; 2] };
            if over && self.autoreset {
                (*pos, status) = (start, start_status);
            }
            self.statuses[i] = status;
        }
        Ok(())
    }

    /// The square `action` plays in game `i`, whose side to move has `status` (None: the pass), or why it may not.
    fn legal_move(&self, i: usize, action: i64, status: Status) -> Result<Option<Square>, String> {
        let squares = (self.size * self.size) as i64;
        let legal = || match status {
            Status::Moves(m) => m.square_list(),
            _ => "the pass".to_string(),
        };
        match (action, status) {
            (_, Status::Over) => {
                Err(format!("game {i} is over: reset the environment, or make it with autoreset=True"))
            }
            (a, _) if !(0..=squares).contains(&a) => {
                Err(format!("game {i}: action {a} is neither a square (0 to {}) nor the pass ({squares})", squares - 1))
            }
            (a, Status::MustPass) if a == squares => Ok(None),
            (a, Status::Moves(m)) if a < squares => {
                let sq = square_of(a as usize, self.size);
                match m.contains(sq) {
                    true => Ok(Some(sq)),
                    false => Err(format!("game {i}: {sq} (action {a}) is not legal; legal: {}", legal())),
                }
            }
            (a, _) => {
                let name =
                    if a == squares { "the pass".to_string() } else { square_of(a as usize, self.size).to_string() };
                Err(format!("game {i}: {name} (action {a}) is not legal; legal: {}", legal()))
            }
        }
    }

    fn buffers(&self) -> StateBuffers {
        match self.size {
            4 => self.buffers_of::<4>(),
            6 => self.buffers_of::<6>(),
            _ => self.buffers_of::<8>(),
        }
    }

    /// [`VecEnv::buffers`] on boards of `S` squares a side: each row's bytes a copy of known length, inlined,
    /// appended rather than written over zeros (zeroing the arrays first cost a tenth of a step).
    fn buffers_of<const S: usize>(&self) -> StateBuffers {
        let n = self.games.len();
        let (cells, actions) = (S * S, S * S + 1);
        let row_mask = (1u64 << S) - 1;
        let mut b = StateBuffers {
            observation: Vec::with_capacity(if self.planes { 0 } else { n * cells * 2 }),
            planes: if self.planes { self.planes_of(S) } else { Vec::new() },
            legal_action_mask: Vec::with_capacity(n * actions),
            current_player: Vec::with_capacity(n),
            rewards: self.rewards.iter().flatten().copied().collect(),
            terminated: self.terminated.clone(),
            black: Vec::with_capacity(n),
            white: Vec::with_capacity(n),
        };
        let byte = |board: u64, row: usize| ((board >> (8 * row)) & row_mask) as usize;
        // A game's rows gathered on the stack and appended at once: one capacity check a game, not one a row.
        let (mut cells_of, mut mask_of) = ([0u8; 128], [0u8; 65]);
        for (pos, status) in self.games.iter().zip(&self.statuses) {
            let (moves, pass) = match status {
                Status::Moves(m) => (m.0, 0),
                Status::MustPass => (0, 1),
                Status::Over => (0, 0),
            };
            if !self.planes {
                for row in 0..S {
                    let pair = PAIRS[byte(pos.player.0, row)] | PAIRS[byte(pos.opponent.0, row)] << 8;
                    cells_of[2 * S * row..2 * S * (row + 1)].copy_from_slice(&pair.to_le_bytes()[..2 * S]);
                }
                b.observation.extend_from_slice(&cells_of[..2 * cells]);
            }
            for row in 0..S {
                mask_of[S * row..S * (row + 1)].copy_from_slice(&BYTES[byte(moves, row)].to_le_bytes()[..S]);
            }
            mask_of[cells] = pass;
            b.legal_action_mask.extend_from_slice(&mask_of[..actions]);
            b.current_player.push((pos.side == Color::White) as i32);
            b.black.push(pos.black().0);
            b.white.push(pos.white().0);
        }
        b
    }

    /// The network's input planes of every game, each plane cut from its 8x8 to the board's `size` squares a side.
    fn planes_of(&self, size: usize) -> Vec<f32> {
        let mut planes = Vec::with_capacity(self.games.len() * PLANES.len() * size * size);
        let mut whole = Vec::with_capacity(PLANES.len() * 64);
        for pos in &self.games {
            whole.clear();
            encode(&self.rules, pos, Symmetry::IDENTITY, &mut whole);
            for plane in whole.chunks_exact(64) {
                planes.extend(plane.chunks_exact(8).take(size).flat_map(|row| &row[..size]));
            }
        }
        planes
    }

    fn state<'py>(&self, py: Python<'py>, b: StateBuffers) -> PyResult<Bound<'py, PyDict>> {
        let (n, s) = (self.games.len(), self.size);
        let shape_error = |e: numpy::ndarray::ShapeError| value_error(e);
        let state = PyDict::new(py);
        let observation = match self.planes {
            true => Array4::from_shape_vec((n, PLANES.len(), s, s), b.planes)
                .map_err(shape_error)?
                .into_pyarray(py)
                .into_any(),
            false => {
                Array4::from_shape_vec((n, s, s, 2), b.observation).map_err(shape_error)?.into_pyarray(py).into_any()
            }
        };
        state.set_item("observation", observation)?;
        let mask = Array2::from_shape_vec((n, s * s + 1), b.legal_action_mask).map_err(shape_error)?;
        state.set_item("legal_action_mask", mask.into_pyarray(py))?;
        state.set_item("current_player", Array1::from_vec(b.current_player).into_pyarray(py))?;
        state.set_item("rewards", Array2::from_shape_vec((n, 2), b.rewards).map_err(shape_error)?.into_pyarray(py))?;
        state.set_item("terminated", Array1::from_vec(b.terminated).into_pyarray(py))?;
        state.set_item("black", Array1::from_vec(b.black).into_pyarray(py))?;
        state.set_item("white", Array1::from_vec(b.white).into_pyarray(py))?;
        Ok(state)
    }
}

/// A row's 8 bits as bytes of 0 or 1, bit c at byte c.
static BYTES: [u128; 256] = spread(8);
/// A row's 8 bits at every other byte (bit c at byte 2c), so that two rows interleave: a cell's two planes.
static PAIRS: [u128; 256] = spread(16);

/// Each byte's bits spread `stride` bits apart.
const fn spread(stride: u32) -> [u128; 256] {
    let mut table = [0u128; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[byte] |= ((byte as u128 >> bit) & 1) << (stride * bit);
            bit += 1;
        }
        byte += 1;
    }
    table
}

/// The square of action `action` on a board of `size` squares a side.
fn square_of(action: usize, size: usize) -> Square {
    Square::at((action % size) as u8, (action / size) as u8).expect("an action below size * size is on the board")
}

/// The action of square `sq` on a board of `size` squares a side.
fn action_of(sq: Square, size: usize) -> usize {
    sq.row() as usize * size + sq.col() as usize
}

/// Black's and white's rewards for a finished game.
fn rewards(rules: &Rules, pos: &Position) -> [f32; 2] {
    match rules.outcome(pos).winner {
        Some(Color::Black) => [1.0, -1.0],
        Some(Color::White) => [-1.0, 1.0],
        None => [0.0, 0.0],
    }
}

/// A uniformly random legal action for a side to move with `status`: the pass where forced, -1 for a finished game.
fn random_action(status: Status, size: usize, rng: &mut Pcg64Mcg) -> i64 {
    match status {
        Status::Moves(m) => {
            let sq = Bitboard::nth(m, rng.random_range(0..m.count())).expect("a legal move among those counted");
            action_of(sq, size) as i64
        }
        Status::MustPass => (size * size) as i64,
        Status::Over => -1,
    }
}
