#![no_main]
//! See `othello_core::fuzz_checks::board_string` for the properties checked.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| othello_core::fuzz_checks::board_string(data));
