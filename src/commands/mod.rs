//! One module per command (or per group of small ones): each reads its inputs, calls the library crates, and
//! reports.

pub mod agreement;
pub mod arena;
pub mod average_models;
pub mod bench;
pub mod engine_modes;
pub mod evaluate;
pub mod export_model;
pub mod fit_eval;
pub mod import_wthor;
pub mod label_endgames;
pub mod openings;
pub mod optimal_moves;
pub mod perft_replay_show;
pub mod report;
pub mod run;
pub mod run_status;
pub mod selfplay;
pub mod solve;
pub mod train;

/// The plural ending of a count's noun.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
