//! The commands' standard output. `println!` panics once the reader has gone (`othello-zero perft 9 | head -3`);
//! `outln!` ends the process quietly instead, with the status a shell gives a process that SIGPIPE ended, and so does
//! an error of a writer to standard output that reaches `main`. SIGPIPE's own default cannot serve: where an agent is
//! an external engine, a closed engine pipe would end the whole process instead of forfeiting one game.

use std::io::{ErrorKind, Write};

/// The exit status of a process whose standard output's reader went away: 128 + SIGPIPE, as a shell reports one
/// that SIGPIPE ended.
pub const READER_GONE: u8 = 128 + 13;

/// Whether an error is a write to a pipe whose reader has gone.
pub fn reader_gone(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == ErrorKind::BrokenPipe))
}

/// Writes one line to standard output; a reader that went away ends the process, any other failure too, with one
/// line on standard error.
pub fn line(args: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.write_all(b"\n")) {
        if e.kind() == ErrorKind::BrokenPipe {
            std::process::exit(READER_GONE.into());
        }
        eprintln!("Error: standard output: {e}");
        std::process::exit(1);
    }
}

/// `println!` for the commands' output (see the module).
macro_rules! outln {
    () => {
        $crate::output::line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))
    };
}
