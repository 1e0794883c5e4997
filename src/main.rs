//! The `othello-zero` command line: parses arguments and calls the library crates.

#[macro_use]
mod output;
mod commands;
mod flags;
mod input;
mod progress;
mod run_config;
mod run_holdings;
mod shipped;

use std::ffi::OsString;

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand};
use commands::{
    agreement, arena, average_models, bench, engine_modes, evaluate, export_model, fit_eval, import_wthor,
    label_endgames, openings, optimal_moves, perft_replay_show, run, selfplay, solve, train,
};

/// The trainer's and the network's tensors are freed and allocated again every step; glibc's malloc returns such
/// large blocks to the kernel each time, and the page faults that zero them again took a quarter of a training step.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "othello-zero", version, about = "Othello self-play research harness")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Every command, its arguments and work in `commands/`.
#[derive(Subcommand)]
enum Command {
    Perft(perft_replay_show::PerftArgs),
    Replay(perft_replay_show::ReplayArgs),
    Show(perft_replay_show::ShowArgs),
    Solve(solve::SolveArgs),
    OptimalMoves(optimal_moves::OptimalMovesArgs),
    Agreement(agreement::AgreementArgs),
    /// Serve an agent as an NBoard engine (protocol 2) on standard input and output.
    Nboard(engine_modes::ServeArgs),
    /// Serve an agent as a GTP engine (Edax's Othello commands) on standard input and output.
    Gtp(engine_modes::ServeArgs),
    Play(engine_modes::PlayArgs),
    Openings(openings::OpeningsArgs),
    FitEval(fit_eval::FitEvalArgs),
    LabelEndgames(label_endgames::LabelEndgamesArgs),
    Selfplay(selfplay::SelfplayArgs),
    Run(run::RunArgs),
    Train(train::TrainArgs),
    ImportWthor(import_wthor::ImportWthorArgs),
    Average(average_models::AverageArgs),
    Export(export_model::ExportArgs),
    Arena(arena::ArenaArgs),
    Evaluate(evaluate::EvaluateArgs),
    Ratings(arena::RatingsArgs),
    Sprt(arena::SprtArgs),
    Bench(bench::BenchArgs),
}

/// Parses the command line. A board string may start with `-` (an empty square), so `show` and `solve` take values that
/// start with a hyphen as their position, and clap then reads the flags written after a position as part of it; such
/// flags, with their values, are moved in front of the position and the line is parsed again.
fn parse_cli(args: Vec<OsString>) -> Cli {
    let cli = parse_or_exit(&args);
    let (name, position) = match &cli.command {
        Command::Show(args) => ("show", &args.position),
        Command::Solve(args) => ("solve", &args.position),
        _ => return cli,
    };
    let command = Cli::command();
    let Some(subcommand) = command.find_subcommand(name) else { return cli };
    let flag = |token: &str| {
        let rest = token.strip_prefix("--")?;
        let (long, value_given) = rest.split_once('=').map_or((rest, false), |(long, _)| (long, true));
        let arg = subcommand.get_arguments().find(|arg| arg.get_long() == Some(long))?;
        Some(arg.get_action().takes_values() && !value_given)
    };
    let mut flags = Vec::new();
    let mut position_tokens = Vec::new();
    let mut tokens = position.iter();
    while let Some(token) = tokens.next() {
        match flag(token) {
            Some(takes_next) => {
                flags.push(token);
                if takes_next {
                    flags.extend(tokens.next());
                }
            }
            None => position_tokens.push(token),
        }
    }
    // The position's tokens are the line's last ones: a value that may start with a hyphen takes every token after it.
    let start = args.len() - position.len();
    let at_end = args[start..].iter().zip(position).all(|(arg, token)| arg == token.as_str());
    // After `--` every token is the position's, as the user asked.
    let separated = args[..start].iter().any(|arg| arg == "--");
    if flags.is_empty() || !at_end || separated {
        return cli;
    }
    let mut reordered = args[..start].to_vec();
    reordered.extend(flags.into_iter().chain(position_tokens).map(OsString::from));
    parse_or_exit(&reordered)
}

/// The command line parsed, or the process ended with clap's message. A value refused (an agent spec, rules, a
/// number out of range) is one line, as every other mistake is; a missing or unknown flag keeps clap's usage.
fn parse_or_exit(args: &[OsString]) -> Cli {
    Cli::try_parse_from(args).unwrap_or_else(|error| {
        if error.kind() == clap::error::ErrorKind::ValueValidation {
            let message = error.render().to_string();
            eprintln!("{}", message.lines().next().unwrap_or_default());
            std::process::exit(error.exit_code());
        }
        error.exit()
    })
}

/// A failure is one line, `Error: ` and the error with its causes, whether or not RUST_BACKTRACE asks for a
/// backtrace: a user's mistake is not a crash (a panic, a real bug, still shows its backtrace). Standard output
/// closed by its reader (`| head`) ends the process quietly, as `outln!` does.
fn main() -> std::process::ExitCode {
    match run_command() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) if output::reader_gone(&error) => std::process::ExitCode::from(output::READER_GONE),
        Err(error) => {
            eprintln!("Error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run_command() -> Result<()> {
    run::exit_with_parent();
    let cli = parse_cli(std::env::args_os().collect());
    match cli.command {
        Command::Perft(args) => perft_replay_show::perft_command(args),
        Command::Replay(args) => perft_replay_show::replay_command(args),
        Command::Show(args) => perft_replay_show::show_command(args),
        Command::Solve(args) => solve::solve(args),
        Command::OptimalMoves(args) => optimal_moves::optimal_moves_command(args),
        Command::Agreement(args) => agreement::agreement(args),
        Command::Nboard(args) => engine_modes::nboard_command(args),
        Command::Gtp(args) => engine_modes::gtp_command(args),
        Command::Play(args) => engine_modes::play_command(args),
        Command::Openings(args) => openings::openings(args),
        Command::FitEval(args) => fit_eval::fit_eval(args),
        Command::LabelEndgames(args) => label_endgames::label_endgames(args),
        Command::Selfplay(args) => selfplay::selfplay(args),
        Command::Run(args) => run::run(args),
        Command::Train(args) => train::train(args),
        Command::ImportWthor(args) => import_wthor::import_wthor(args),
        Command::Average(args) => average_models::average(args),
        Command::Export(args) => export_model::export(args),
        Command::Arena(args) => arena::arena(args),
        Command::Evaluate(args) => evaluate::evaluate(args),
        Command::Ratings(args) => arena::ratings(args),
        Command::Sprt(args) => arena::sprt(args),
        Command::Bench(args) => bench::bench(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every flag and argument of every command says what it is, and every `--rules` lists every rule variant.
    #[test]
    fn every_argument_has_a_description() {
        fn check(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if ["help", "version"].contains(&id) {
                    continue;
                }
                match arg.get_help() {
                    None => missing.push(format!("{path} {id}")),
                    Some(help)
                        if id == "rules"
                            && !help
                                .to_string()
                                .contains("start=BOARD), white-first or black-first, pass or no-pass") =>
                    {
                        missing.push(format!("{path} --rules lists not every variant"))
                    }
                    Some(_) => {}
                }
            }
            for sub in command.get_subcommands() {
                check(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = vec![];
        check(&Cli::command(), "othello-zero", &mut missing);
        assert!(missing.is_empty(), "without a description: {missing:?}");
    }
}
