//! The `othello_zero._core` extension module: the batched environment ([`env::VecEnv`]), one game
//! ([`game::Position`]), the exact solver and perft, every player ([`agents::PyAgent`]) and the arena. `othello_zero/__init__.py` is its public face.

use pyo3::prelude::*;

mod agents;
mod env;
mod game;

/// Every step hands numpy new arrays (about 0.8 MB for 4,096 games), freed when Python drops them; glibc's malloc
/// returns blocks that large to the kernel each time, and the page faults that zero them again cost a step its time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A user's mistake as Python's `ValueError`, with the same one-line message the command line gives.
fn value_error(message: impl std::fmt::Display) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(message.to_string())
}

/// Rules from their string (`othello`, `othello,6x6`, `reverse`, `traditional`, ...).
fn parse_rules(rules: &str) -> PyResult<othello_core::Rules> {
    rules.parse().map_err(|e| value_error(format!("rules '{rules}': {e}")))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<env::VecEnv>()?;
    m.add_class::<game::Position>()?;
    m.add_function(wrap_pyfunction!(game::solve, m)?)?;
    m.add_function(wrap_pyfunction!(game::perft, m)?)?;
    m.add_class::<agents::PyAgent>()?;
    m.add_function(wrap_pyfunction!(agents::arena, m)?)?;
    Ok(())
}
