#![no_main]
//! See `othello_players::fuzz_checks::nboard_lines` for the properties checked.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| othello_players::fuzz_checks::nboard_lines(data));
