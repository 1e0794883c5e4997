//! The properties the fuzz targets (`fuzz/`) check, shared with the regression test that replays every input a
//! fuzzer ever crashed on (`core/tests/fuzz_regressions.rs`). Each function panics where a property fails.

use crate::ggf::{parse_ggf, GgfGame};
use crate::wthor::{parse_names, WthorFile, PLAYER_RECORD};
use crate::{Game, Position, Rules};

/// Board strings and rule strings: what parses prints back to itself.
pub fn board_string(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok((pos, size)) = Position::parse_board(&text) {
        assert_eq!(Position::parse_board(&pos.to_board_string(size)), Ok((pos, size)));
    }
    if let Ok(rules) = text.parse::<Rules>() {
        assert_eq!(rules.to_string().parse::<Rules>(), Ok(rules));
        let _ = rules.status(&rules.start_position());
    }
}

/// Transcripts under several rule sets: a replayed game's own transcript replays to the same game.
pub fn transcript(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let variants = [
        Rules::othello(),
        Rules::traditional(),
        Rules { size: 6, ..Rules::reverse() },
        Rules { size: 4, ..Rules::othello() },
    ];
    for rules in variants {
        if let Ok(game) = Game::from_transcript(rules, &text) {
            let again = Game::from_transcript(rules, &game.transcript()).expect("a game's own transcript replays");
            assert_eq!(again.positions(), game.positions());
            let _ = game.outcome();
        }
    }
}

/// GGF records: a record that replays writes back to one that replays the same.
pub fn ggf(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for record in parse_ggf(&text).into_iter().flatten() {
        if let Ok(game) = record.replay() {
            let written = GgfGame::from_game(&game, "b", "w").to_ggf();
            let back = parse_ggf(&written);
            let again = back[0].as_ref().expect("our own GGF parses").replay().expect("and replays");
            assert_eq!(again.positions(), game.positions());
        }
    }
}

/// WTHOR game and name files: any bytes are read or refused without a panic.
pub fn wthor(data: &[u8]) {
    if let Ok(file) = WthorFile::parse(data) {
        for g in &file.games {
            let _ = g.replay();
        }
    }
    let _ = parse_names(data, PLAYER_RECORD);
}
