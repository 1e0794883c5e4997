//! GGF game records (Generic Game Format, as written by GGS and NBoard):
//! `(;GM[Othello]PB[a]PW[b]RE[+2.000]TY[8]BO[8 -------- ... *]B[f5//1.2]W[d6];)`, several games per file.

use std::fmt::Write;

use thiserror::Error;

use crate::color::Color;
use crate::game::Game;
use crate::position::Position;
use crate::rules::{Objective, Rules, Start};
use crate::square::Move;

/// A game record that could not be read: the line it starts on (or the line of the fault) and what is wrong.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("line {line}: {message}")]
pub struct GgfError {
    pub line: usize,
    pub message: String,
}

/// One game record.
#[derive(Clone, Debug, PartialEq)]
pub struct GgfGame {
    /// Every property but the moves, in file order (`PB`, `PW`, `RE`, `TY`, `BO`, ...).
    pub properties: Vec<(String, String)>,
    pub rules: Rules,
    /// The moves with their colour, as written (passes included when written).
    pub moves: Vec<(Color, Move)>,
    /// The line the record starts on (1-based).
    pub line: usize,
}

impl GgfGame {
    pub fn property(&self, key: &str) -> Option<&str> {
        self.properties.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Black's result as recorded (`RE[+12.000]`), if any.
    pub fn result(&self) -> Option<f64> {
        self.property("RE")?.split(':').next()?.trim().parse().ok()
    }

    /// Replays the moves; a move by the wrong colour is accepted only where the other side had to pass.
    pub fn replay(&self) -> Result<Game, GgfError> {
        let mut game = Game::from_position(self.rules, self.rules.start_position());
        for (i, &(color, mv)) in self.moves.iter().enumerate() {
            if game.position().side != color && game.status() == crate::Status::MustPass && mv != Move::Pass {
                game.push(Move::Pass).expect("a forced pass is legal");
            }
            let err = |e: String| GgfError { line: self.line, message: format!("move {} ({mv}): {e}", i + 1) };
            if game.position().side != color {
                return Err(err(format!("it is {}'s turn, not {color}'s", game.position().side)));
            }
            game.push(mv).map_err(|e| err(e.to_string()))?;
        }
        Ok(game)
    }

    /// A record of `game` between `black` and `white`.
    pub fn from_game(game: &Game, black: &str, white: &str) -> GgfGame {
        let rules = game.rules;
        let size = rules.size;
        let mut ty = size.to_string();
        if rules.objective == Objective::FewestDiscs {
            ty.push('a');
        }
        let outcome = game.outcome();
        let mut properties = vec![
            ("GM".to_string(), "Othello".to_string()),
            ("PC".into(), "othello-zero".into()),
            ("PB".into(), black.into()),
            ("PW".into(), white.into()),
        ];
        if game.is_over() {
            properties.push(("RE".into(), format!("{:+.3}", outcome.margin_for(Color::Black))));
        }
        properties.push(("TY".into(), ty));
        properties.push(("BO".into(), board_value(game.start(), size)));
        let mut colors = game.positions().iter().map(|p| p.side);
        let moves = game.moves().iter().map(|&m| (colors.next().expect("a position per move"), m)).collect();
        GgfGame { properties, rules, moves, line: 1 }
    }

    /// The record as GGF text (one line).
    pub fn to_ggf(&self) -> String {
        let mut s = String::from("(;");
        for (k, v) in &self.properties {
            let _ = write!(s, "{k}[{}]", v.replace('\\', "\\\\").replace(']', "\\]"));
        }
        for (color, mv) in &self.moves {
            let name = match mv {
                Move::Play(sq) => sq.to_string(),
                Move::Pass => "PA".to_string(),
            };
            let _ = write!(s, "{}[{name}]", if *color == Color::Black { "B" } else { "W" });
        }
        s.push_str(";)");
        s
    }
}

/// `8 -------- ... *`: the size, the rows, and the side to move, with `*` for black and `O` for white.
fn board_value(pos: &Position, size: u8) -> String {
    let board = pos.to_board_string(size).replace('X', "*");
    let (cells, side) = board.split_at(board.len() - 1);
    let rows: Vec<&str> =
        cells.trim_end().as_bytes().chunks(size as usize).map(|r| std::str::from_utf8(r).unwrap_or("")).collect();
    format!("{size} {} {side}", rows.join(" "))
}

/// Parses every game record of a GGF text. Each record stands alone: a malformed one gives its error and the
/// next record is still read.
pub fn parse_ggf(text: &str) -> Vec<Result<GgfGame, GgfError>> {
    let mut games = Vec::new();
    let mut rest = text;
    // Lines counted as the records are read, each newline once (counting from the start each time was quadratic).
    let (mut line, mut counted_to) = (1, 0);
    while let Some(start) = rest.find("(;") {
        let offset = text.len() - rest.len() + start;
        line += text[counted_to..offset].matches('\n').count();
        counted_to = offset;
        let body_start = start + 2;
        match find_record_end(&rest[body_start..]) {
            RecordEnd::Closed(end) => {
                games.push(parse_record(&rest[body_start..body_start + end], line));
                rest = &rest[body_start + end + 2..];
            }
            RecordEnd::NextRecord(next) => {
                games.push(Err(GgfError { line, message: "record not closed with ';)' before the next '(;'".into() }));
                rest = &rest[body_start + next..];
            }
            RecordEnd::Missing => {
                games.push(Err(GgfError { line, message: "record not closed with ';)'".into() }));
                break;
            }
        }
    }
    games
}

/// Where a record's body ends.
enum RecordEnd {
    /// At the offset of its closing `;)`.
    Closed(usize),
    /// Unclosed: the next record's `(;` starts at this offset.
    NextRecord(usize),
    /// Unclosed up to the end of the text.
    Missing,
}

/// Finds the `;)` that closes a record, skipping bracketed values (which may contain `;)` or `(;`); a `(;` outside
/// a value first means the record was never closed, so that the next one is still read.
fn find_record_end(s: &str) -> RecordEnd {
    let b = s.as_bytes();
    let mut i = 0;
    let mut in_value = false;
    while i < b.len() {
        match (b[i], in_value) {
            (b'\\', true) => i += 1,
            (b'[', false) => in_value = true,
            (b']', true) => in_value = false,
            (b';', false) if b.get(i + 1) == Some(&b')') => return RecordEnd::Closed(i),
            (b'(', false) if b.get(i + 1) == Some(&b';') => return RecordEnd::NextRecord(i),
            _ => {}
        }
        i += 1;
    }
    RecordEnd::Missing
}

fn parse_record(body: &str, line: usize) -> Result<GgfGame, GgfError> {
    let err = |message: String| GgfError { line, message };
    let mut properties = Vec::new();
    let mut moves = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let open = rest.find('[').ok_or_else(|| err(format!("text outside a property: '{}'", clip(rest))))?;
        let key = rest[..open].trim();
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) {
            return Err(err(format!("bad property name '{}'", clip(key))));
        }
        let (value, len) =
            read_value(&rest[open + 1..]).ok_or_else(|| err(format!("property {key} not closed with ']'")))?;
        rest = rest[open + 1 + len..].trim_start();
        match key {
            "B" | "W" => {
                let color = if key == "B" { Color::Black } else { Color::White };
                let name = value.split('/').next().unwrap_or("").trim();
                let mv = name.parse::<Move>().map_err(|e| err(format!("move {}: {e}", moves.len() + 1)))?;
                moves.push((color, mv));
            }
            _ => properties.push((key.to_string(), value)),
        }
    }
    let find = |k: &str| properties.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    // A property given twice with two values would leave the game's rules to whichever is read.
    for key in ["GM", "TY", "BO"] {
        let values: Vec<&str> = properties.iter().filter(|(k, _)| k == key).map(|(_, v)| v.trim()).collect();
        if let Some(other) = values.iter().find(|v| **v != values[0]) {
            return Err(err(format!("{key} given twice: '{}' and '{}'", clip(values[0]), clip(other))));
        }
    }
    if let Some(gm) = find("GM") {
        if !gm.eq_ignore_ascii_case("othello") {
            return Err(err(format!("game '{gm}' is not Othello")));
        }
    }
    let mut rules = Rules::othello();
    // TY is the board size with letters for variants (`8`, `6a` for the anti-game, `8r` for a random start).
    let ty_size = match find("TY") {
        Some(ty) => {
            if ty.contains('a') {
                rules.objective = Objective::FewestDiscs;
            }
            let digits: String = ty.trim().chars().take_while(char::is_ascii_digit).collect();
            // The variant letters GGS writes after the size: `a` the anti-game, `r` a random start (its board in BO).
            let letters = &ty.trim()[digits.len()..];
            if let Some(unknown) = letters.chars().find(|c| !matches!(c, 'a' | 'r')) {
                return Err(err(format!(
                    "TY[{}]: unknown variant '{unknown}' (known: a, the anti-game; r, a random start)",
                    clip(ty)
                )));
            }
            match digits.parse::<u8>() {
                Ok(size) => Some(size),
                Err(_) if digits.is_empty() => None,
                Err(_) => return Err(err(format!("TY: bad board size '{}'", clip(ty)))),
            }
        }
        None => None,
    };
    if let Some(size) = ty_size {
        rules = rules.with_size(size).map_err(|e| err(format!("TY: {e}")))?;
    }
    if let Some(bo) = find("BO") {
        let (size_text, board) = bo.trim().split_once(char::is_whitespace).unwrap_or((bo, ""));
        let size: u8 = size_text.parse().map_err(|_| err(format!("BO: bad board size '{}'", clip(size_text))))?;
        rules = rules.with_size(size).map_err(|e| err(format!("BO: {e}")))?;
        let (pos, parsed_size) = Position::parse_board(board).map_err(|e| err(format!("BO: {e}")))?;
        if parsed_size != size {
            return Err(err(format!("BO: board of size {parsed_size} announced as {size}")));
        }
        if let Some(ty_size) = ty_size.filter(|&t| t != size) {
            return Err(err(format!("TY[{ty_size}] names a board of size {ty_size}, BO one of size {size}")));
        }
        rules.start = if pos == rules.start_position() { Start::Standard } else { Start::Custom(pos) };
    }
    Ok(GgfGame { properties, rules, moves, line })
}

/// Reads a bracketed value up to its closing `]`, undoing `\` escapes. Returns the value and the bytes used.
fn read_value(s: &str) -> Option<(String, usize)> {
    let mut value = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?.1),
            ']' => return Some((value, i + 1)),
            c => value.push(c),
        }
    }
    None
}

/// How much of a record's text a message quotes.
fn clip(s: &str) -> String {
    crate::clip(s, 20)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A record as GGS writes it, with evaluations and times after the moves, and a pass.
    const SAMPLE: &str = "1 (;GM[Othello]PC[GGS/os]DT[2003.12.15_13:24:03.MST]PB[alpha]PW[beta]RB[2197.01]\
RW[2637.09]TI[15:00//02:00]TY[8]RE[+64.000]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- \
-------- *]B[e6//0.01]W[f4/-1.27/0.01]B[e3]W[d6]B[c5]W[f6]B[e7]W[f5]B[g5];)\n";

    #[test]
    fn reads_a_ggs_record() {
        let games = parse_ggf(SAMPLE);
        assert_eq!(games.len(), 1);
        let g = games[0].as_ref().unwrap();
        assert_eq!(g.property("PB"), Some("alpha"));
        assert_eq!(g.result(), Some(64.0));
        assert_eq!(g.rules, Rules::othello());
        let game = g.replay().unwrap();
        assert!(game.is_over());
        assert_eq!(game.outcome().black, 13);
    }

    #[test]
    fn random_games_round_trip_through_ggf() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut text = String::new();
        let mut originals = Vec::new();
        for i in 0..300 {
            let rules = match i % 3 {
                0 => Rules::othello(),
                1 => Rules::reverse().with_size(6).unwrap(),
                _ => Rules::othello().with_size(4).unwrap(),
            };
            let mut game = Game::new(rules);
            let stop = rng.random_range(0..70);
            while !game.is_over() && game.moves().len() < stop {
                let mv = match game.status() {
                    crate::Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).unwrap()),
                    _ => Move::Pass,
                };
                game.push(mv).unwrap();
            }
            text.push_str(&GgfGame::from_game(&game, "p]1", "p\\2").to_ggf());
            text.push('\n');
            originals.push(game);
        }
        let parsed = parse_ggf(&text);
        assert_eq!(parsed.len(), originals.len());
        for (i, (p, g)) in parsed.iter().zip(&originals).enumerate() {
            let p = p.as_ref().unwrap();
            assert_eq!(p.line, i + 1);
            assert_eq!(p.property("PB"), Some("p]1"));
            let replayed = p.replay().unwrap();
            assert_eq!(replayed.positions(), g.positions());
            if g.is_over() {
                assert_eq!(p.result(), Some(g.outcome().margin_for(Color::Black) as f64));
            }
        }
    }

    #[test]
    fn bad_records_report_their_line_and_do_not_stop_the_rest() {
        let text = format!(
            "(;GM[Othello]BO[8 {} *]B[z9];)\n(;GM[Chess];)\n{SAMPLE}(;GM[Othello]B[f5]W[f5];)\n(;BO[9 x];)\n(;B[f5]",
            "-".repeat(64)
        );
        let games = parse_ggf(&text);
        assert_eq!(games.len(), 6);
        assert!(games[0].as_ref().unwrap_err().to_string().starts_with("line 1: move 1"), "{:?}", games[0]);
        assert!(games[1].as_ref().unwrap_err().message.contains("not Othello"));
        assert!(games[2].is_ok());
        let illegal = games[3].as_ref().unwrap().replay().unwrap_err();
        assert!(illegal.to_string().starts_with("line 4: move 2 (f5)"), "{illegal}");
        assert!(games[4].as_ref().unwrap_err().message.contains("BO"));
        assert!(games[5].as_ref().unwrap_err().message.contains("not closed"));
    }

    #[test]
    fn an_unclosed_record_does_not_swallow_the_next() {
        let record = SAMPLE.trim_start_matches("1 ").trim_end();
        let unclosed = record.trim_end_matches(";)");
        let text = format!("{unclosed}\n{record}\n(;GM[Othello]B[f5]\n{record}\n");
        let games = parse_ggf(&text);
        assert_eq!(games.len(), 4, "{games:?}");
        assert_eq!(games[0].as_ref().unwrap_err().line, 1);
        assert!(games[0].as_ref().unwrap_err().message.contains("not closed"));
        assert_eq!(games[1].as_ref().unwrap().line, 2);
        assert_eq!(games[2].as_ref().unwrap_err().line, 3);
        assert_eq!(games[3].as_ref().unwrap().line, 4);
        // A `(;` inside a value is text, not a new record.
        let quoted = parse_ggf("(;GM[Othello]PB[a (; b]B[f5];)");
        assert_eq!(quoted[0].as_ref().unwrap().property("PB"), Some("a (; b"));
    }

    /// A type with letters GGS does not write, or two types (or boards) that disagree, are refused by name.
    #[test]
    fn unknown_variants_and_contradictions_are_refused() {
        for (record, message) in [
            ("(;GM[Othello]TY[8zz]B[f5];)", "TY[8zz]: unknown variant 'z'"),
            ("(;GM[Othello]TY[8]TY[6]B[f5];)", "TY given twice: '8' and '6'"),
            ("(;GM[Othello]GM[Chess]B[f5];)", "GM given twice"),
        ] {
            let games = parse_ggf(record);
            let e = games[0].as_ref().unwrap_err();
            assert!(e.message.contains(message), "{record}: {e}");
        }
        // The same value twice says nothing new; GGS's own letters are read.
        assert!(parse_ggf("(;GM[Othello]TY[8]TY[8]B[f5];)")[0].is_ok());
        assert!(parse_ggf("(;GM[Othello]TY[8r]B[f5];)")[0].is_ok());
    }

    #[test]
    fn the_type_and_the_board_must_agree_on_the_size() {
        let eight = format!("BO[8 {} *]", "-".repeat(27) + "O*------*O" + &"-".repeat(27));
        let mismatch = parse_ggf(&format!("(;GM[Othello]TY[6]{eight};)"));
        let e = mismatch[0].as_ref().unwrap_err();
        assert!(e.message.contains("TY[6]") && e.message.contains("size 8"), "{e}");
        assert_eq!(parse_ggf(&format!("(;GM[Othello]TY[8]{eight};)"))[0].as_ref().unwrap().rules.size, 8);
        // TY alone names the board: a 6x6 game without BO starts from the 6x6 start.
        let six = parse_ggf("(;GM[Othello]TY[6a]B[d5];)");
        let six = six[0].as_ref().unwrap();
        assert_eq!((six.rules.size, six.rules.objective), (6, Objective::FewestDiscs));
        assert!(six.replay().is_ok());
        assert!(parse_ggf("(;GM[Othello]TY[7];)")[0].as_ref().unwrap_err().message.starts_with("TY"));
    }
}
