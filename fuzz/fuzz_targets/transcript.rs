#![no_main]
//! See `othello_core::fuzz_checks::transcript` for the properties checked.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| othello_core::fuzz_checks::transcript(data));
