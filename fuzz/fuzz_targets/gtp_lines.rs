#![no_main]
//! See `othello_eval::fuzz_checks::gtp_lines` for the properties checked.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| othello_eval::fuzz_checks::gtp_lines(data));
