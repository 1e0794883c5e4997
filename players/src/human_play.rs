//! A game between a person at the terminal and an agent: the board after every move, the person's moves typed
//! as squares, the agent's answered with the time it took; `undo` takes a move back, and the game's transcript is
//! printed however it ends, to replay, solve or show.

use std::io::{BufRead, Write};
use std::time::Instant;

use othello_core::{Color, Game, Move, Status};

use crate::agent::{Agent, AgentError};

#[derive(Debug, thiserror::Error)]
pub enum HumanPlayError {
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error("{agent} chose {mv}, which is not legal in this position")]
    IllegalAgentMove { agent: String, mv: Move },
    #[error("the terminal: {0}")]
    Io(#[from] std::io::Error),
}

/// How a game against a person ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HumanPlayEnd {
    /// Played to the end.
    Over,
    /// The person typed `quit`.
    Quit,
    /// The input ended before the game did.
    InputEnded,
}

/// What one line of the person's input asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    Play(Move),
    Undo,
    Quit,
}

fn parse_request(line: &str) -> Result<Request, String> {
    let word = line.trim();
    match word.to_ascii_lowercase().as_str() {
        "undo" | "u" => Ok(Request::Undo),
        "quit" | "q" | "exit" => Ok(Request::Quit),
        _ => word
            .parse::<Move>()
            .map(Request::Play)
            .map_err(|_| format!("'{word}' is not a move: type a square such as d3, undo or quit")),
    }
}

/// Plays `game` on from where it stands, the person taking `person`'s moves from `input` (one per line), `agent`
/// the other side's; writes the board, the agent's moves and the result to `output`. Bad input (not a move, an
/// illegal square, nothing to undo) is answered with what was wrong, naming the input line, and asked again.
/// `echo` writes each line read after its prompt, for input that is not typed at a terminal. Returns how the game
/// ended and the game as it stands.
pub fn play_against_person(
    mut game: Game,
    person: Color,
    agent: &mut dyn Agent,
    mut input: impl BufRead,
    mut output: impl Write,
    echo: bool,
) -> Result<(HumanPlayEnd, Game), HumanPlayError> {
    let name = agent.name();
    writeln!(output, "you play {person} ({}) against {name}: type a square (such as d3), undo or quit", person.char())?;
    // The length of the game at each of the person's turns, for `undo`.
    let mut turns: Vec<usize> = Vec::new();
    let mut index = 0;
    let mut show_board = true;
    let end = loop {
        if show_board {
            let legal = game.rules.legal_moves(game.position());
            writeln!(output, "{}", game.position().pretty(game.rules.size, legal))?;
        }
        show_board = true;
        match game.status() {
            Status::Over => break HumanPlayEnd::Over,
            Status::MustPass => {
                let who = if game.position().side == person { "you have".to_string() } else { format!("{name} has") };
                writeln!(output, "{who} no move and must pass")?;
                game.push(Move::Pass).expect("a forced pass is legal");
                continue;
            }
            Status::Moves(_) if game.position().side != person => {
                let started = Instant::now();
                let played =
                    agent.select_move(&game).map_err(HumanPlayError::from).and_then(|mv| match game.push(mv) {
                        Ok(()) => Ok(mv),
                        Err(_) => Err(HumanPlayError::IllegalAgentMove { agent: name.clone(), mv }),
                    });
                match played {
                    Ok(mv) => writeln!(output, "{name} plays {mv} ({:.2} s)", started.elapsed().as_secs_f64())?,
                    // The game so far is the person's, whatever stopped the agent.
                    Err(error) => {
                        writeln!(output, "transcript: {}", game.transcript())?;
                        return Err(error);
                    }
                }
                continue;
            }
            Status::Moves(legal) => writeln!(output, "legal moves: {}", legal.square_list())?,
        }
        write!(output, "your move> ")?;
        output.flush()?;
        let Some(line) = crate::serve::read_line(&mut input)? else {
            writeln!(output)?;
            break HumanPlayEnd::InputEnded;
        };
        index += 1;
        let line = match line {
            Ok(line) => line,
            Err(problem) => {
                writeln!(output, "input line {index}: {problem}")?;
                show_board = false;
                continue;
            }
        };
        if echo {
            writeln!(output, "{line}")?;
        }
        if line.trim().is_empty() {
            show_board = false;
            continue;
        }
        let complaint = match parse_request(&line) {
            Ok(Request::Quit) => break HumanPlayEnd::Quit,
            Ok(Request::Play(mv)) => match game.push(mv) {
                Ok(()) => {
                    turns.push(game.moves().len() - 1);
                    continue;
                }
                Err(_) => format!("{mv} is not legal here"),
            },
            Ok(Request::Undo) => match turns.pop() {
                Some(length) => {
                    let mut earlier = Game::from_position(game.rules, *game.start());
                    earlier.play_all(&game.moves()[..length]).expect("a prefix of a legal game is legal");
                    game = earlier;
                    writeln!(output, "taken back")?;
                    continue;
                }
                None => "nothing to undo".to_string(),
            },
            Err(complaint) => complaint,
        };
        writeln!(output, "input line {index}: {complaint}")?;
        show_board = false;
    };
    match end {
        HumanPlayEnd::Over => {
            let o = game.outcome();
            let verdict = match o.winner {
                Some(c) if c == person => "you win",
                Some(_) => "you lose",
                None => "a draw",
            };
            writeln!(output, "game over: black {} white {} ({verdict})", o.black, o.white)?;
        }
        HumanPlayEnd::Quit => writeln!(output, "stopped")?,
        HumanPlayEnd::InputEnded => writeln!(output, "the input ended")?,
    }
    writeln!(output, "transcript: {}", game.transcript())?;
    output.flush()?;
    Ok((end, game))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baselines::{GreedyAgent, RandomAgent};
    use othello_core::Rules;

    /// A whole game against greedy in which the person's moves, random ones, are typed each after a line that is
    /// not a move and a blank line. The same game is first played by the two agents alone, which gives the moves
    /// to type and the game to expect (greedy's seeded tie-breaks answer alike in both).
    #[test]
    fn a_typed_game_is_the_game_the_agents_play() {
        for (rules, person) in
            [(Rules::othello(), Color::Black), (Rules::othello().with_size(6).unwrap(), Color::White)]
        {
            let (mut chooser, mut greedy) = (RandomAgent::new(7), GreedyAgent::new(3));
            let mut reference = Game::new(rules);
            let mut typed = Vec::new();
            while !reference.is_over() {
                let mv = if reference.position().side == person {
                    chooser.select_move(&reference).unwrap()
                } else {
                    greedy.select_move(&reference).unwrap()
                };
                if reference.position().side == person && mv != Move::Pass {
                    typed.push(mv);
                }
                reference.push(mv).unwrap();
            }
            let input: String = typed.iter().map(|mv| format!("z9\n\n{mv}\n")).collect();
            let mut output = Vec::new();
            let (end, game) = play_against_person(
                Game::new(rules),
                person,
                &mut GreedyAgent::new(3),
                input.as_bytes(),
                &mut output,
                false,
            )
            .unwrap();
            let output = String::from_utf8(output).unwrap();
            assert_eq!(end, HumanPlayEnd::Over);
            assert_eq!(game.moves(), reference.moves(), "the same moves, forced passes included");
            let o = reference.outcome();
            assert!(output.contains(&format!("game over: black {} white {}", o.black, o.white)), "{output}");
            assert!(output.ends_with(&format!("transcript: {}\n", reference.transcript())));
            // Every bad line answered once, naming its line (the first is line 1, then every third).
            assert_eq!(output.matches("is not a move").count(), typed.len());
            assert!(output.contains("input line 1: 'z9' is not a move"), "{output}");
            assert!(output.contains("input line 4: 'z9' is not a move"), "{output}");
        }
    }

    #[test]
    fn illegal_squares_undo_and_quit_are_answered() {
        let input = "a1\nundo\nf5\nundo\nF5\nquit\n";
        let mut output = Vec::new();
        let start = Game::new(Rules::othello());
        let (end, game) =
            play_against_person(start, Color::Black, &mut GreedyAgent::new(1), input.as_bytes(), &mut output, false)
                .unwrap();
        let output = String::from_utf8(output).unwrap();
        assert_eq!(end, HumanPlayEnd::Quit);
        assert!(output.contains("input line 1: a1 is not legal here"), "{output}");
        assert!(output.contains("input line 2: nothing to undo"), "{output}");
        assert_eq!(output.matches("taken back").count(), 1);
        // f5 and greedy's answer taken back to the start, then f5 again and greedy's second answer to it.
        let mut expected = Game::from_transcript(Rules::othello(), "f5").unwrap();
        let mut greedy = GreedyAgent::new(1);
        greedy.select_move(&expected).unwrap();
        let reply = greedy.select_move(&expected).unwrap();
        expected.push(reply).unwrap();
        assert_eq!(game.moves(), expected.moves());
        assert!(output.ends_with(&format!("stopped\ntranscript: {}\n", expected.transcript())), "{output}");
    }

    #[test]
    fn the_input_ending_keeps_the_game_so_far() {
        let mut output = Vec::new();
        let start = Game::from_transcript(Rules::othello(), "f5d6").unwrap();
        let (end, game) =
            play_against_person(start, Color::Black, &mut GreedyAgent::new(1), &b"c3\n"[..], &mut output, true)
                .unwrap();
        assert_eq!(end, HumanPlayEnd::InputEnded);
        assert_eq!(game.moves().len(), 4, "f5 d6, the person's c3, greedy's reply");
        let output = String::from_utf8(output).unwrap();
        assert!(output.ends_with(&format!("the input ended\ntranscript: {}\n", game.transcript())), "{output}");
        assert!(game.transcript().starts_with("f5d6c3"));
        assert!(output.contains("your move> c3\n"), "the line read, echoed: {output}");
    }

    #[test]
    fn a_line_that_is_not_utf8_is_answered_and_the_game_goes_on() {
        let mut output = Vec::new();
        let input = b"\xff\xfe\nf5\n".to_vec();
        let (end, game) = play_against_person(
            Game::new(Rules::othello()),
            Color::Black,
            &mut GreedyAgent::new(1),
            &input[..],
            &mut output,
            false,
        )
        .unwrap();
        let output = String::from_utf8(output).unwrap();
        assert_eq!(end, HumanPlayEnd::InputEnded);
        assert!(output.contains("input line 1: line is not UTF-8 text"), "{output}");
        assert_eq!(game.moves()[0], "f5".parse().unwrap(), "the next line is still played");
        assert!(output.contains("transcript: f5"), "{output}");
    }

    /// An agent that answers with an illegal square is stopped with an error, not played.
    #[test]
    fn an_illegal_agent_move_is_an_error() {
        struct Cheat;
        impl Agent for Cheat {
            fn name(&self) -> String {
                "cheat".into()
            }
            fn select_move(&mut self, _: &Game) -> Result<Move, AgentError> {
                Ok("a1".parse().unwrap())
            }
        }
        let mut output = Vec::new();
        let result =
            play_against_person(Game::new(Rules::othello()), Color::White, &mut Cheat, &b""[..], &mut output, false);
        assert!(matches!(result, Err(HumanPlayError::IllegalAgentMove { .. })), "{result:?}");
        // The game so far is printed however it stops (here, before any move).
        assert!(String::from_utf8(output).unwrap().ends_with("transcript: \n"));
    }
}
