//! Prints what the arena's matches and the evaluation stage report: tables on standard output, progress on
//! standard error (a bar on a terminal, a plain line now and then elsewhere).

use othello_eval::events::Event;
use othello_eval::optimal_moves::fixed::best_first;
use othello_eval::optimal_moves::OptimalMovesRow;
use othello_eval::ratings::Ratings;
use othello_eval::OptimalMovesReport;
use othello_players::AgentSpec;

use super::plural;
use crate::progress::{rate, ProgressDisplay};

/// How many of the leading players the progress line names.
const LEADERS_SHOWN: usize = 3;

/// The printer of [`Event`]s.
pub struct Report {
    bar: Option<ProgressDisplay>,
    /// Print the likelihood of superiority with each ratings table.
    pub los: bool,
}

impl Report {
    pub fn new() -> Report {
        Report { bar: None, los: false }
    }

    /// Clears the progress bar once the work is done.
    pub fn finish(mut self) {
        self.clear_bar();
    }

    pub fn event(&mut self, event: Event) {
        match event {
            Event::Scheduled { total, to_play, threads, results } => {
                eprintln!(
                    "{total} games scheduled, {} already in {}, {to_play} to play on {threads} thread{}",
                    total - to_play,
                    results.display(),
                    plural(threads)
                );
                self.start_bar(to_play, "games");
            }
            Event::Games { done, total, per_second, standings } => {
                let leaders = standings.map_or(String::new(), leaders);
                self.progress(done, total, &format!("{}  {leaders}", rate(per_second, "games")));
            }
            Event::GamesDone { played, seconds } => {
                self.clear_bar();
                eprintln!("{played} games played in {seconds:.1} s");
            }
            Event::Rated { ratings, picture } => {
                print_table(ratings);
                if self.los {
                    print_los(ratings);
                }
                if let Some(svg) = picture {
                    eprintln!("Elo of the checkpoints drawn in {}", svg.display());
                }
            }
            Event::SprtPairs { pairs, pentanomial, llr, test } => {
                let (lower, upper) = test.bounds();
                eprintln!("pairs {pairs}  pentanomial {pentanomial:?}  LLR {llr:+.3} in ({lower:+.3}, {upper:+.3})");
            }
            Event::SprtDecided { verdict } => outln!("{verdict}"),
            Event::Against { player, opponents } => {
                let opponents: Vec<String> = opponents.iter().map(ToString::to_string).collect();
                eprintln!("{player}: against {}", opponents.join(", "))
            }
            Event::FinalPlayer { player } => eprintln!("the final player: {player}"),
            Event::Promoted { model, first: true } => eprintln!("gating: {} is the first best", model.display()),
            Event::Promoted { model, first: false } => eprintln!("gating: {} is the new best", model.display()),
            // The evaluation stage writes it to TensorBoard.
            Event::CheckpointElo { .. } => {}
            Event::Solving { done: 0, total, threads } => {
                self.start_bar(total, "positions solved");
                if self.bar.as_ref().is_some_and(ProgressDisplay::is_hidden) {
                    eprintln!("solving {total} positions on {threads} thread{}", plural(threads));
                }
            }
            Event::Solving { done, total, .. } => {
                self.progress(done, total, "");
                if done == total {
                    if let Some(bar) = self.bar.as_ref().filter(|bar| bar.is_hidden()) {
                        eprintln!("solved in {:.1} s", bar.elapsed().as_secs_f64());
                    }
                    self.clear_bar();
                }
            }
            Event::Asking { players, positions, done: 0, total } => {
                self.start_bar(total, "positions asked");
                if self.bar.as_ref().is_some_and(ProgressDisplay::is_hidden) {
                    eprintln!("{players} player{}, {positions} positions each", plural(players));
                }
            }
            Event::Asking { done, total, .. } => {
                self.progress(done, total, "");
                if done == total {
                    self.clear_bar();
                }
            }
            Event::LeftOut { player, why } => eprintln!("{player}: left out: {why}"),
            Event::OptimalMoves { player, report, .. } => {
                let (low, high) = report.optimal_interval();
                eprintln!(
                    "{player}: the solver's move in {:.1}% of {} positions (95%: {:.1}-{:.1})",
                    100.0 * report.optimal_rate(),
                    report.positions,
                    100.0 * low,
                    100.0 * high
                );
            }
            Event::EveryPlayer { records, counted, max_empties } => print_every_player(records, counted, max_empties),
            Event::Stored { what } if what.is_empty() => {}
            Event::Stored { what } => eprintln!("{what}"),
            Event::Warning { message } => eprintln!("{message}"),
        }
    }

    fn start_bar(&mut self, len: usize, unit: &str) {
        self.clear_bar();
        self.bar = Some(ProgressDisplay::new(Some(len as u64), unit));
    }

    fn progress(&mut self, done: usize, total: usize, message: &str) {
        if let Some(bar) = &mut self.bar {
            bar.set(done as u64, Some(total as u64), message);
        }
    }

    fn clear_bar(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.clear();
        }
    }
}

/// The leading players and their Elo, as the progress line names them.
fn leaders(standings: &Ratings<AgentSpec>) -> String {
    let players: Vec<&AgentSpec> = standings.ratings.iter().map(|r| &r.player).collect();
    let labels = othello_eval::matches::progress_labels(&players);
    let mut shown: Vec<_> = (standings.ratings.iter().zip(labels).take(LEADERS_SHOWN))
        .map(|(r, label)| format!("{label} {:+.0}±{:.0}", r.elo, r.interval95()))
        .collect();
    if standings.ratings.len() > LEADERS_SHOWN {
        shown.push(format!("and {} more", standings.ratings.len() - LEADERS_SHOWN));
    }
    shown.join("  ")
}

fn print_table(fit: &Ratings<AgentSpec>) {
    // An external engine marked: the public scale a reader can place.
    let names: Vec<String> = fit.ratings.iter().map(|r| r.player.label()).collect();
    let width = names.iter().map(String::len).max().unwrap_or(6).max(6);
    outln!(
        "{:>4}  {:<width$}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}",
        "rank",
        "player",
        "Elo",
        "+-95%",
        "games",
        "score",
        "LOS next"
    );
    for (i, r) in fit.ratings.iter().enumerate() {
        let los = fit.ratings.get(i + 1).and_then(|n| fit.likelihood_of_superiority(&r.player, &n.player));
        outln!(
            "{:>4}  {:<width$}  {:>+7.1}  {:>6.1}  {:>6}  {:>5.1}%  {:>7}",
            i + 1,
            names[i],
            r.elo,
            r.interval95(),
            r.games,
            100.0 * r.score / r.games.max(1) as f64,
            los.map_or(String::new(), |l| format!("{:.1}%", 100.0 * l))
        );
    }
}

fn print_los(fit: &Ratings<AgentSpec>) {
    outln!("likelihood of superiority (row over column):");
    for a in &fit.ratings {
        let cells: Vec<String> = fit
            .ratings
            .iter()
            .map(|b| match fit.likelihood_of_superiority(&a.player, &b.player) {
                Some(_) if a.player == b.player => "    -".to_string(),
                Some(l) => format!("{:>5.1}", 100.0 * l),
                None => String::new(),
            })
            .collect();
        outln!("{:<24} {}", a.player.to_string(), cells.join(" "));
    }
}

/// Prints every player's record of `counted` (moves, or positions) with at most `max_empties` empties, best first.
pub fn print_every_player(records: &[OptimalMovesRow], counted: &str, max_empties: u32) {
    let records = best_first(records);
    let width = records.iter().map(|r| r.player.to_string().len()).max().unwrap_or(6).max(6);
    outln!("{counted} with a choice and at most {max_empties} empties, against the solver:");
    outln!(
        "{:<width$}  {:>9}  {:>8}  {:>11}  {:>11}  {:>9}",
        "player",
        counted,
        "optimal",
        "95%",
        "result kept",
        "mean loss"
    );
    for OptimalMovesRow { player, report: r, .. } in records {
        let (low, high) = r.optimal_interval();
        let player = player.to_string();
        outln!(
            "{player:<width$}  {:>9}  {:>7.1}%  {:>4.1}-{:<5.1}  {:>10.1}%  {:>9.2}",
            r.positions,
            100.0 * r.optimal_rate(),
            100.0 * low,
            100.0 * high,
            100.0 * r.result_kept_rate(),
            r.mean_loss()
        );
    }
}

/// One line of a player's record against the solver.
pub fn print_report(what: &str, report: &OptimalMovesReport) {
    let (low, high) = report.optimal_interval();
    outln!(
        "{what}: optimal {:.1}% (95%: {:.1}-{:.1}), result kept {:.1}%, mean loss {:.2} +- {:.2} discs",
        100.0 * report.optimal_rate(),
        100.0 * low,
        100.0 * high,
        100.0 * report.result_kept_rate(),
        report.mean_loss(),
        report.mean_loss_half_width()
    );
}
