//! One loop for the engine modes: lines in from a front end, each session's replies out, flushed per line.

use std::io::{BufRead, Read, Write};

/// The longest line a front end may send (a GGF game record is a few kilobytes).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// A protocol session that answers one line at a time.
pub trait LineSession {
    /// The reply text to one line (each reply line ending in a newline; empty for none).
    fn replies(&mut self, line: &str) -> String;
    /// The reply to a line that could not be read as text (not UTF-8, or too long), saying what was wrong.
    fn unreadable(&mut self, problem: &str) -> String;
    /// Whether the front end has ended the session.
    fn finished(&self) -> bool;
}

/// The next line of `input` without its line ending: None at the end of the input, or `Err` with the problem for
/// a line that is not UTF-8 or is longer than `MAX_LINE_BYTES` (the rest of such a line is skipped), so that one
/// bad line does not end a session.
pub fn read_line(input: &mut impl BufRead) -> std::io::Result<Option<Result<String, String>>> {
    let mut line = Vec::new();
    if input.by_ref().take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut line)? == 0 {
        return Ok(None);
    }
    if line.len() > MAX_LINE_BYTES && line.last() != Some(&b'\n') {
        // Skip to the end of the long line.
        let mut rest = Vec::new();
        while input.by_ref().take(MAX_LINE_BYTES as u64).read_until(b'\n', &mut rest)? > 0
            && rest.last() != Some(&b'\n')
        {
            rest.clear();
        }
        return Ok(Some(Err(format!("line longer than {MAX_LINE_BYTES} bytes"))));
    }
    let end = line.len() - line.iter().rev().take_while(|&&b| b == b'\n' || b == b'\r').count();
    line.truncate(end);
    Ok(Some(
        String::from_utf8(line)
            .map_err(|e| format!("line is not UTF-8 text (byte {})", e.utf8_error().valid_up_to() + 1)),
    ))
}

/// Serves `session` on `input` and `output` until it finishes or the input ends.
pub fn serve(mut session: impl LineSession, mut input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    while let Some(line) = read_line(&mut input)? {
        let reply = match line {
            Ok(line) => session.replies(&line),
            Err(problem) => session.unreadable(&problem),
        };
        output.write_all(reply.as_bytes())?;
        output.flush()?;
        if session.finished() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_bytes_and_long_lines_are_reported_and_the_next_line_is_read() {
        let mut text = b"one\r\n\xff\xfe bad\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES * 2 + 10));
        text.extend(b"\nlast");
        let mut input = std::io::Cursor::new(text);
        assert_eq!(read_line(&mut input).unwrap(), Some(Ok("one".into())));
        assert_eq!(read_line(&mut input).unwrap(), Some(Err("line is not UTF-8 text (byte 1)".into())));
        assert!(read_line(&mut input).unwrap().unwrap().unwrap_err().contains("longer than"));
        assert_eq!(read_line(&mut input).unwrap(), Some(Ok("last".into())));
        assert_eq!(read_line(&mut input).unwrap(), None);
    }
}
