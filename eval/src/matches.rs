//! Arena matches: a schedule's games played on several threads and stored as they end (so a rerun continues), the
//! ratings of stored games, and the sequential test between two players. Progress goes to a callback as
//! [`Event`]s; the command line prints them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use othello_core::Rules;

use crate::arena::{default_anchor, play, ArenaDir, ArenaError, ArenaSetup, Pairing, RatingsTable, ResultRow};
use crate::events::Event;
use crate::openings::OpeningSource;
use crate::ratings::{fit, Ratings};
use crate::ratings_plot::{curves_from, plot_curves};
use crate::sprt::{pair_category, Decision, Sprt};
use othello_players::spec::AgentSpec;

/// How the games of a match are set up and run.
#[derive(Clone)]
pub struct MatchSetup {
    pub rules: Rules,
    pub seed: u64,
    pub openings: OpeningSource,
    /// 1 or more: the command line and the run config refuse 0.
    pub threads: usize,
}

impl MatchSetup {
    /// What an arena directory records of these games.
    pub fn record(&self) -> ArenaSetup {
        ArenaSetup { rules: self.rules.to_string(), seed: self.seed, openings: self.openings.describe() }
    }
}

/// How often the standings are fitted and reported while games are played: often enough for a live line, rarely
/// enough that the fit over every stored game takes no time from the games.
const STANDINGS_EVERY: Duration = Duration::from_secs(2);

/// Plays the games of `all` not yet stored in the arena directory `out`, on the setup's threads; reports
/// [`Event::Scheduled`], then [`Event::Games`] with the standings as games end, then [`Event::GamesDone`].
pub fn play_scheduled(
    out: &Path,
    all: &[Pairing],
    setup: &MatchSetup,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), ArenaError> {
    let dir = ArenaDir::new(out);
    let _held = dir.claim(&setup.record())?;
    dir.repair()?;
    // Every stored row, kept in memory as games end (the live standings fit them without rereading the file).
    let rows = Mutex::new(dir.read()?);
    let done: HashSet<String> = lock(&rows).iter().map(|r| r.key.clone()).collect();
    let todo: Vec<_> = all.iter().filter(|p| !done.contains(&p.key)).cloned().collect();
    let results = dir.results();
    let engine_log = dir.engine_log();
    on_event(Event::Scheduled { total: all.len(), to_play: todo.len(), threads: setup.threads, results: &results });
    let (next, finished, failure) = (AtomicUsize::new(0), AtomicUsize::new(0), Mutex::new(None));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..setup.threads {
            scope.spawn(|| {
                while let Some(p) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let opening = setup.openings.for_pair(&setup.rules, setup.seed, p.pair);
                    let result = play(&setup.rules, p, &opening, setup.seed, Some(&engine_log)).and_then(|played| {
                        // One writer at a time: rows are appended whole, and in the order kept in memory.
                        lock(&rows).push(dir.store(&played)?);
                        Ok(())
                    });
                    if let Err(e) = result {
                        *lock(&failure) = Some(e);
                        next.store(todo.len(), Ordering::Relaxed);
                        return;
                    }
                    finished.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        let mut last = Instant::now();
        while finished.load(Ordering::Relaxed) < todo.len() && lock(&failure).is_none() {
            std::thread::sleep(Duration::from_millis(100));
            if last.elapsed() < STANDINGS_EVERY {
                continue;
            }
            last = Instant::now();
            let done = finished.load(Ordering::Relaxed);
            let per_second = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
            let standings = {
                let rows = lock(&rows);
                let games: Vec<_> = rows.iter().map(|r| r.as_game_result()).collect();
                default_anchor(&rows).and_then(|anchor| fit(&games, anchor, 0.0).ok())
            };
            on_event(Event::Games { done, total: todo.len(), per_second, standings: standings.as_ref() });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    on_event(Event::GamesDone { played: todo.len(), seconds: started.elapsed().as_secs_f64() });
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How the progress lines name the players: a checkpoint by its run's directory and its file's stem
/// (`runs/a/models/model-000000250.json` as `a/model-000000250`), alone where every checkpoint among them plays the
/// same search, else within its spec; other players by their specs. The tables keep the whole spec.
pub fn progress_labels(players: &[&AgentSpec]) -> Vec<String> {
    let searches: HashSet<String> =
        players.iter().filter_map(|spec| Some(spec.with_model(|_| Some(String::new()))?.to_string())).collect();
    let checkpoint = |model: &str| {
        let path = Path::new(model);
        let stem = path.file_stem()?.to_str()?;
        let run = othello_run::RunDir::of_checkpoint(path);
        Some(match run.as_ref().and_then(|run| run.root().file_name()?.to_str()) {
            Some(run) => format!("{run}/{stem}"),
            None => stem.to_string(),
        })
    };
    let label = |spec: &AgentSpec| match searches.len() {
        1 => checkpoint(spec.model()?),
        _ => Some(spec.with_model(checkpoint)?.to_string()),
    };
    players.iter().map(|player| label(player).unwrap_or_else(|| player.to_string())).collect()
}

/// Where a directory's games are: an arena directory, or a run directory's RUN/eval.
pub fn games_dir(dir: &Path) -> PathBuf {
    let run_eval = othello_run::RunDir::new(dir).eval();
    if !ArenaDir::new(dir).results().exists() && ArenaDir::new(&run_eval).results().exists() {
        run_eval
    } else {
        dir.to_path_buf()
    }
}

/// Where a measure of the games of `dirs` goes: `out` if given, else the games' directory for one, else
/// `comparison` (a directory of its own for several).
pub fn output_dir(out: Option<PathBuf>, dirs: &[PathBuf], comparison: &str) -> PathBuf {
    match (out, dirs) {
        (Some(out), _) => out,
        (None, [dir]) => games_dir(dir),
        (None, _) => PathBuf::from(comparison),
    }
}

/// The stored games of `dirs` (arena directories or runs), a game stored by two of them (the same key: players,
/// opening and colours, as the fixed ladder's round robin is) once; directories whose games were played under
/// other rules are refused (one player's strength at 4x4 and another's at 8x8 are not on one scale).
pub fn rows_of(dirs: &[PathBuf]) -> Result<Vec<ResultRow>, ArenaError> {
    let mut rows = Vec::new();
    let mut keys = HashSet::new();
    let mut first_rules: Option<(&PathBuf, String)> = None;
    for dir in dirs {
        if !dir.is_dir() {
            return Err(ArenaError::File { path: dir.clone(), problem: "no such directory".into() });
        }
        let games = ArenaDir::new(games_dir(dir));
        if let Some(setup) = games.setup()? {
            match &first_rules {
                Some((first, rules)) if *rules != setup.rules => {
                    let (first, held) = (first.to_path_buf(), rules.clone());
                    return Err(ArenaError::MixedRules { first, held, second: dir.clone(), other: setup.rules });
                }
                Some(_) => {}
                None => first_rules = Some((dir, setup.rules)),
            }
        }
        rows.extend(games.read()?.into_iter().filter(|r| keys.insert(r.key.clone())));
    }
    Ok(rows)
}

/// Fits and stores (in `out`: the table, and the checkpoints' picture where there are some) the ratings of the
/// games in `dirs` (arena directories or runs), together: runs evaluated on the same fixed ladder are rated on one
/// scale. The anchor (a player and its Elo) as given, else [`default_anchor`] at 0. A game stored by two runs
/// counts once ([`rows_of`]). Reports [`Event::Rated`].
pub fn rate(
    dirs: &[PathBuf],
    out: &Path,
    anchor: Option<(&AgentSpec, f64)>,
    on_event: &mut dyn FnMut(Event),
) -> Result<Ratings<AgentSpec>, ArenaError> {
    let rows = rows_of(dirs)?;
    let arena = ArenaDir::new(out);
    let games: Vec<_> = rows.iter().map(|r| r.as_game_result()).collect();
    let names = || dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ");
    let (anchor, anchor_elo) = match anchor {
        Some(given) => given,
        None => (default_anchor(&rows).ok_or_else(|| ArenaError::NoGames(names()))?, 0.0),
    };
    let fit = fit(&games, anchor, anchor_elo).map_err(|e| ArenaError::Ratings(names(), e))?;
    std::fs::create_dir_all(out).map_err(|e| ArenaError::io(out, e))?;
    arena.write_ratings(&RatingsTable::new(&fit, anchor, anchor_elo, rows.len()))?;
    let (curves, fixed) = curves_from(&fit);
    let svg = arena.ratings_svg();
    let drawn = !curves.is_empty();
    if drawn {
        plot_curves(&curves, &fixed, "Elo", &svg).map_err(|e| ArenaError::File { path: svg.clone(), problem: e })?;
    }
    on_event(Event::Rated { ratings: &fit, picture: drawn.then_some(svg.as_path()) });
    Ok(fit)
}

/// What `sprt` tests.
pub struct SprtOptions<'a> {
    pub out: &'a Path,
    pub candidate: &'a AgentSpec,
    pub baseline: &'a AgentSpec,
    pub test: Sprt,
    pub rules: Rules,
    pub seed: u64,
    pub openings: OpeningSource,
    /// Stop undecided after this many pairs.
    pub max_pairs: u64,
}

/// Game pairs between a candidate and a baseline until the log-likelihood ratio crosses a bound. Games are stored
/// as the arena stores them, so a rerun continues the test; the decision goes to `OUT/sprt.json`. Reports
/// [`Event::SprtPairs`] every ten pairs and at the decision.
pub fn sprt(o: SprtOptions, on_event: &mut dyn FnMut(Event)) -> Result<Decision, ArenaError> {
    if o.candidate == o.baseline {
        return Err(ArenaError::SameAgent);
    }
    for spec in [o.candidate, o.baseline] {
        spec.check(&o.rules)?;
    }
    let dir = ArenaDir::new(o.out);
    let _held = dir.claim(&ArenaSetup { rules: o.rules.to_string(), seed: o.seed, openings: o.openings.describe() })?;
    dir.repair()?;
    let stored: std::collections::HashMap<String, f64> = dir
        .read()?
        .into_iter()
        .map(|r| (r.key.clone(), if r.black == *o.candidate { r.black_score } else { 1.0 - r.black_score }))
        .collect();
    let mut pentanomial = [0u64; 5];
    let mut decision = Decision::Continue;
    let mut pair = 0;
    while pair < o.max_pairs && decision == Decision::Continue {
        let mut scores = [0.0; 2];
        for (i, p) in Pairing::both_colours(o.candidate, o.baseline, pair).into_iter().enumerate() {
            let candidate_black = i == 0;
            scores[i] = match stored.get(&p.key) {
                Some(&s) => s,
                None => {
                    let opening = o.openings.for_pair(&o.rules, o.seed, pair);
                    let played = play(&o.rules, &p, &opening, o.seed, Some(&dir.engine_log()))?;
                    dir.store(&played)?;
                    if candidate_black {
                        played.black_score
                    } else {
                        1.0 - played.black_score
                    }
                }
            };
        }
        pentanomial[pair_category(scores[0], scores[1])] += 1;
        pair += 1;
        decision = o.test.decide(&pentanomial);
        if pair % 10 == 0 || decision != Decision::Continue {
            on_event(Event::SprtPairs { pairs: pair, pentanomial, llr: o.test.llr(&pentanomial), test: &o.test });
        }
    }
    let (lower, upper) = o.test.bounds();
    let json = serde_json::json!({
        "candidate": o.candidate,
        "baseline": o.baseline,
        "elo0": o.test.elo0,
        "elo1": o.test.elo1,
        "alpha": o.test.alpha,
        "beta": o.test.beta,
        "pairs": pair,
        "pentanomial": pentanomial,
        "llr": o.test.llr(&pentanomial),
        "bounds": [lower, upper],
        "decision": match decision { Decision::H0 => "H0", Decision::H1 => "H1", Decision::Continue => "undecided" },
    });
    let path = o.out.join("sprt.json");
    othello_run::write_atomic(&path, format!("{json:#}\n").as_bytes()).map_err(|e| ArenaError::io(&path, e))?;
    let verdict = match decision {
        Decision::H1 => {
            format!("H1 accepted: {} is {} Elo stronger rather than {}", o.candidate, o.test.elo1, o.test.elo0)
        }
        Decision::H0 => format!("H0 accepted: {} is not {} Elo stronger", o.candidate, o.test.elo1),
        Decision::Continue => format!("undecided after {pair} pairs"),
    };
    on_event(Event::SprtDecided { verdict: &verdict });
    Ok(decision)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_name_a_checkpoint_by_its_run_and_file() {
        let (a, b) = ("net:model=runs/a/models/model-000000250.json,sims=8", "net:model=\"b/m.json\",sims=8");
        let labels_of = |specs: &[&str]| {
            let specs: Vec<AgentSpec> = specs.iter().map(|s| s.parse().unwrap()).collect();
            progress_labels(&specs.iter().collect::<Vec<_>>())
        };
        let labels = labels_of(&[a, "pattern:depth=4", b]);
        assert_eq!(labels, ["a/model-000000250", "pattern:depth=4", "m"]);
        // Searches that differ stay in the labels.
        let labels = labels_of(&[a, "net:model=\"b/m.json\",sims=9", "policy:model=\"m,1.json\""]);
        assert_eq!(
            labels,
            ["net:model=\"a/model-000000250\",sims=8", "net:model=\"m\",sims=9", "policy:model=\"m,1\""]
        );
    }
}
