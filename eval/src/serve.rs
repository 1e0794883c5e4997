//! One loop for the engine modes: lines in from a front end, each session's replies out, flushed per line.

use std::io::{BufRead, Write};

/// A protocol session that answers one line at a time.
pub trait LineSession {
    /// The reply text to one line (each reply line ending in a newline; empty for none).
    fn replies(&mut self, line: &str) -> String;
    /// Whether the front end has ended the session.
    fn finished(&self) -> bool;
}

/// Serves `session` on `input` and `output` until it finishes or the input ends.
pub fn serve(mut session: impl LineSession, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        output.write_all(session.replies(&line?).as_bytes())?;
        output.flush()?;
        if session.finished() {
            break;
        }
    }
    Ok(())
}
