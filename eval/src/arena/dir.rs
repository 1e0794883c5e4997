//! The arena directory: `results.csv` (one row per game, appended and synced as each game ends), `games/*.ggf`,
//! the ratings tables, and the optimal-move records beside them.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use othello_core::ggf::GgfGame;
use othello_core::Color;
use othello_run::{fnv1a, write_atomic};

use crate::ratings::{GameResult, Ratings};
use othello_players::spec::{AgentKind, AgentSpec};

use super::*;

/// The longest game file name kept whole (file systems allow 255 bytes).
const MAX_NAME: usize = 160;

/// An arena directory: `results.csv` and `games/`.
pub struct ArenaDir {
    dir: PathBuf,
}

/// One row of `results.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    pub key: String,
    pub pair: u64,
    pub black: AgentSpec,
    pub white: AgentSpec,
    /// The opening's moves (a transcript), played before either agent moved.
    pub opening: String,
    pub black_score: f64,
    pub ending: String,
    /// The game's GGF record (`games/<key>.ggf` under the key as stored).
    pub record: PathBuf,
}

impl ResultRow {
    pub fn as_game_result(&self) -> GameResult<AgentSpec> {
        GameResult {
            black: self.black.clone(),
            white: self.white.clone(),
            black_score: self.black_score,
            pair: Some(pair_cluster(&self.black.to_string(), &self.white.to_string(), self.pair)),
        }
    }
}

/// `ratings.json`: the fit of an arena directory's games (or of several directories' together), as `ratings` and
/// the arena's end write it and `run`'s status line reads it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RatingsTable {
    /// The player held at `anchor_elo`.
    pub anchor: AgentSpec,
    pub anchor_elo: f64,
    /// Games rated.
    pub games: usize,
    /// Best first.
    pub ratings: Vec<RatedPlayer>,
}

/// One player's line of a [`RatingsTable`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RatedPlayer {
    pub player: AgentSpec,
    pub elo: f64,
    /// Half-width of the 95% interval of `elo`.
    pub interval95: f64,
    pub std_error: f64,
    pub games: usize,
    /// Points scored (draws half).
    pub score: f64,
}

impl RatingsTable {
    pub fn new(fit: &Ratings<AgentSpec>, anchor: &AgentSpec, anchor_elo: f64, games: usize) -> RatingsTable {
        let ratings = fit
            .ratings
            .iter()
            .map(|r| RatedPlayer {
                player: r.player.clone(),
                elo: r.elo,
                interval95: r.interval95(),
                std_error: r.std_error,
                games: r.games,
                score: r.score,
            })
            .collect();
        RatingsTable { anchor: anchor.clone(), anchor_elo, games, ratings }
    }

    /// `ratings.csv`: one line per player, best first.
    fn csv(&self) -> String {
        let mut csv = String::from("rank,player,elo,interval95,std_error,games,score\n");
        for (i, r) in self.ratings.iter().enumerate() {
            csv.push_str(&csv_line(&[
                (i + 1).to_string(),
                r.player.to_string(),
                format!("{:.1}", r.elo),
                format!("{:.1}", r.interval95),
                format!("{:.2}", r.std_error),
                r.games.to_string(),
                r.score.to_string(),
            ]));
        }
        csv
    }
}

/// The id shared by the two games of a pair (either colour order), for the ratings' clustered errors.
pub fn pair_cluster(black: &str, white: &str, pair: u64) -> u64 {
    fnv1a(&format!("{} {pair}", pair_name(black, white)))
}

/// The player a table is anchored to unless one is named: `random` if it played, else the first game's black.
pub fn default_anchor(rows: &[ResultRow]) -> Option<&AgentSpec> {
    let random = rows
        .iter()
        .flat_map(|r| [&r.black, &r.white])
        .find(|p| matches!(p.kind, AgentKind::Random) && p.endgame.is_none());
    random.or(rows.first().map(|first| &first.black))
}

/// Names each checkpoint of `run` that the rows play (a spec whose `model=` is `.../models/FILE` with RUN/models/FILE
/// present) by its path under `run`, in the players and the keys. The evaluation names a checkpoint by the path it
/// was given, relative to its working directory: renamed so, the games of a run rated from another directory, or
/// from a run directory since moved, are its checkpoints' games, and a resumed evaluation finds them played.
pub fn name_checkpoints_under(rows: &mut [ResultRow], run: &othello_run::RunDir) {
    let mut renamed: HashMap<AgentSpec, Option<AgentSpec>> = HashMap::new();
    let mut rename = |player: &AgentSpec| {
        renamed.entry(player.clone()).or_insert_with(|| checkpoint_named_under(player, run)).clone()
    };
    for row in rows {
        let (black, white) = (rename(&row.black), rename(&row.white));
        if black.is_none() && white.is_none() {
            continue;
        }
        // The key says which colour the pairing's first player had (a key stored by an older build may spell the
        // players otherwise than they print now).
        let first_is_black = match &row.key {
            key if key.ends_with(" ab") => true,
            key if key.ends_with(" ba") => false,
            _ => continue,
        };
        let black = black.unwrap_or_else(|| row.black.clone());
        let white = white.unwrap_or_else(|| row.white.clone());
        row.key = Pairing::key(&black.to_string(), &white.to_string(), row.pair, first_is_black);
        (row.black, row.white) = (black, white);
    }
}

/// `player` with its checkpoint named by its path under `run`, where it names one of the run's checkpoints (a
/// `model=` of `.../models/FILE` with RUN/models/FILE present) by another path; else None.
fn checkpoint_named_under(player: &AgentSpec, run: &othello_run::RunDir) -> Option<AgentSpec> {
    player.with_model(|model| {
        let path = Path::new(model);
        let own = run.models().join(path.file_name()?);
        let named = own.display().to_string();
        let is_checkpoint = othello_run::RunDir::of_checkpoint(path).is_some() && own.is_file();
        (is_checkpoint && named != model).then_some(named)
    })
}

/// The two specs of a pairing in a fixed order, so that both colours of a pair share it.
fn pair_name(a: &str, b: &str) -> String {
    if a < b {
        format!("{a} vs {b}")
    } else {
        format!("{b} vs {a}")
    }
}

/// `arena.json`: what an arena directory's games are played under, recorded with its first games, so that games
/// of other rules, seeds or openings never join them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaSetup {
    pub rules: String,
    pub seed: u64,
    /// [`crate::openings::OpeningSource::describe`].
    pub openings: String,
}

impl std::fmt::Display for ArenaSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rules {}, seed {}, openings {}", self.rules, self.seed, self.openings)
    }
}

impl ArenaDir {
    pub fn new(dir: impl Into<PathBuf>) -> ArenaDir {
        ArenaDir { dir: dir.into() }
    }

    pub fn setup_file(&self) -> PathBuf {
        self.dir.join("arena.json")
    }

    /// Holds the directory for this process (two arenas playing into one would both play every missing game: a
    /// second claimant stops, naming the holder) and records `setup` in a directory that has none (a new one, or
    /// one from before the record), or refuses a setup other than the recorded one, naming both. The directory is
    /// held until the returned lock is dropped.
    pub fn claim(&self, setup: &ArenaSetup) -> Result<othello_run::RoleLock, ArenaError> {
        let held = othello_run::RoleLock::acquire(&othello_run::RunDir::new(&self.dir), "arena")?;
        self.record(setup)?;
        Ok(held)
    }

    /// The setup recorded with the directory's first games; None in a directory without one (new, or from before
    /// the record).
    pub fn setup(&self) -> Result<Option<ArenaSetup>, ArenaError> {
        let path = self.setup_file();
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| ArenaError::File { path, problem: format!("not an arena's setup: {e}") }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(ArenaError::io(&path, e)),
        }
    }

    fn record(&self, setup: &ArenaSetup) -> Result<(), ArenaError> {
        let path = self.setup_file();
        match self.setup()? {
            Some(held) if held != *setup => {
                Err(ArenaError::OtherSetup { path, held: held.to_string(), asked: setup.to_string() })
            }
            Some(_) => Ok(()),
            None => {
                std::fs::create_dir_all(&self.dir).map_err(|e| ArenaError::io(&self.dir, e))?;
                let text = serde_json::to_string_pretty(setup).expect("a setup serialises") + "\n";
                write_atomic(&path, text.as_bytes()).map_err(|e| ArenaError::io(&path, e))
            }
        }
    }

    pub fn results(&self) -> PathBuf {
        self.dir.join("results.csv")
    }

    /// External engines' standard error, each line after the engine and its game.
    pub fn engine_log(&self) -> PathBuf {
        self.dir.join("engines.log")
    }

    pub fn games(&self) -> PathBuf {
        self.dir.join("games")
    }

    /// `games/<key>.ggf`: the record of the game with this key.
    pub fn game_file(&self, key: &str) -> PathBuf {
        let mut name = key.replace(|c: char| !c.is_ascii_alphanumeric() && c != '#' && c != '-', "_");
        if name.len() > MAX_NAME {
            // Long specs (a checkpoint's path): a readable start and the key's hash, within file-name limits.
            name = format!("{}-{:016x}", &name[..MAX_NAME - 17], fnv1a(key));
        }
        self.games().join(format!("{name}.ggf"))
    }

    pub fn ratings_csv(&self) -> PathBuf {
        self.dir.join("ratings.csv")
    }

    pub fn ratings_json(&self) -> PathBuf {
        self.dir.join("ratings.json")
    }

    pub fn ratings_svg(&self) -> PathBuf {
        self.dir.join("ratings.svg")
    }

    /// Every player's moves against the solver (`optimal-moves` without a player).
    pub fn optimal_moves_csv(&self) -> PathBuf {
        self.dir.join("optimal-moves.csv")
    }

    /// The fixed positions players were asked in, with their exact values
    /// ([`crate::optimal_moves::fixed_positions_csv`]).
    pub fn fixed_positions_csv(&self) -> PathBuf {
        self.dir.join("fixed-positions.csv")
    }

    /// The records of `optimal-moves.csv` ([`crate::optimal_moves::parse_optimal_moves_csv`]); none without one.
    pub fn read_optimal_moves(&self) -> Result<Vec<crate::optimal_moves::OptimalMovesRow>, ArenaError> {
        let path = self.optimal_moves_csv();
        match std::fs::read(&path) {
            Ok(bytes) => {
                let text = String::from_utf8(bytes)
                    .map_err(|_| ArenaError::File { path: path.clone(), problem: "not UTF-8".into() })?;
                let mut rows = crate::optimal_moves::parse_optimal_moves_csv(&text, &path)?;
                // As the games are read: a run's checkpoints by their path under RUN as this process names it.
                if let Some(run) = self.owning_run() {
                    for row in &mut rows {
                        if let Some(named) = checkpoint_named_under(&row.player, &run) {
                            row.player = named;
                        }
                    }
                }
                Ok(rows)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(vec![]),
            Err(e) => Err(ArenaError::File { path, problem: e.to_string() }),
        }
    }

    /// The checkpoints' optimal-move rates against training step, time and positions.
    pub fn optimal_moves_svg(&self) -> PathBuf {
        self.dir.join("optimal-moves.svg")
    }

    /// Writes `table` as `ratings.csv` and `ratings.json`, each atomically.
    pub fn write_ratings(&self, table: &RatingsTable) -> Result<(), ArenaError> {
        let json = serde_json::to_string_pretty(table).map_err(|e| self.ratings_problem(e.to_string()))? + "\n";
        for (path, text) in [(self.ratings_csv(), table.csv()), (self.ratings_json(), json)] {
            write_atomic(&path, text.as_bytes()).map_err(|e| ArenaError::File { path, problem: e.to_string() })?;
        }
        Ok(())
    }

    /// The last table written to `ratings.json`.
    pub fn read_ratings(&self) -> Result<RatingsTable, ArenaError> {
        let text = std::fs::read_to_string(self.ratings_json()).map_err(|e| self.ratings_problem(e.to_string()))?;
        serde_json::from_str(&text).map_err(|e| self.ratings_problem(e.to_string()))
    }

    fn ratings_problem(&self, problem: String) -> ArenaError {
        ArenaError::File { path: self.ratings_json(), problem }
    }

    /// The stored rows; a last line cut short (an arena killed while appending it, or one appending now) is not
    /// read. Any other malformed line is an error naming the file and line. In a run's evaluation (RUN/eval), the
    /// run's own checkpoints are named by their path under RUN as this process names RUN
    /// ([`name_checkpoints_under`]).
    pub fn read(&self) -> Result<Vec<ResultRow>, ArenaError> {
        let path = self.results();
        let text = match std::fs::read(&path) {
            Ok(b) => String::from_utf8(b)
                .map_err(|_| ArenaError::File { path: path.clone(), problem: "not UTF-8".into() })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(ArenaError::File { path, problem: e.to_string() }),
        };
        let complete = &text[..text.rfind('\n').map_or(0, |end| end + 1)];
        match complete.lines().next() {
            Some(header) if header != COLUMNS.join(",") => {
                let problem = format!("unexpected header '{header}'");
                return Err(ArenaError::Row { path, line: 1, problem });
            }
            _ => {}
        }
        let mut rows = Vec::new();
        for (line, fields) in csv_rows::<{ COLUMNS.len() }>(complete, &path)? {
            let err = |problem: String| ArenaError::Row { path: path.clone(), line, problem };
            let pair = fields[1].parse().map_err(|_| err(format!("pair '{}' is not a number", fields[1])))?;
            let black_score = fields[7]
                .parse::<f64>()
                .ok()
                .filter(|s| [0.0, 0.5, 1.0].contains(s))
                .ok_or_else(|| err(format!("black_score '{}' is not 0, 0.5 or 1", fields[7])))?;
            let player = |field: &String| {
                field.parse::<AgentSpec>().map_err(|e| err(format!("player '{field}' is not a player: {e}")))
            };
            rows.push(ResultRow {
                key: fields[0].clone(),
                pair,
                black: player(&fields[2])?,
                white: player(&fields[3])?,
                opening: fields[4].clone(),
                black_score,
                ending: fields[8].clone(),
                record: self.game_file(&fields[0]),
            });
        }
        if let Some(run) = self.owning_run() {
            name_checkpoints_under(&mut rows, &run);
        }
        Ok(rows)
    }

    /// The run whose evaluation this directory is: RUN for a directory RUN/eval beside a RUN/models.
    fn owning_run(&self) -> Option<othello_run::RunDir> {
        let run = othello_run::RunDir::new(self.dir.parent()?);
        let is_eval = run.eval() == self.dir && run.models().is_dir();
        is_eval.then_some(run)
    }

    /// Cuts off a last row left incomplete by a killed arena, so that its game is played again and the next row
    /// starts on a line of its own. Call it before playing, never while another process appends.
    pub fn repair(&self) -> Result<(), ArenaError> {
        let path = self.results();
        let fail = |e: std::io::Error| ArenaError::File {
            path: path.clone(),
            problem: format!("dropping a partial row: {e}"),
        };
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(fail(e)),
        };
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |end| end + 1);
        if complete < bytes.len() {
            OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(complete as u64)).map_err(fail)?;
        }
        Ok(())
    }

    /// Stores a finished game: its GGF record (atomically), then its row, appended and synced. Returns the row as
    /// [`ArenaDir::read`] would read it back.
    pub fn store(&self, played: &Played) -> Result<ResultRow, ArenaError> {
        let games = self.games();
        let fail =
            |path: &Path, e: std::io::Error| ArenaError::File { path: path.to_path_buf(), problem: e.to_string() };
        std::fs::create_dir_all(&games).map_err(|e| fail(&games, e))?;
        let p = &played.pairing;
        let (black, white) = (p.black.to_string(), p.white.to_string());
        let mut record = GgfGame::from_game(&played.game, &black, &white);
        if let Ending::Forfeit { loser, reason } = &played.ending {
            let margin = if *loser == Color::Black { -64 } else { 64 };
            record.properties.retain(|(k, _)| k != "RE");
            record.properties.push(("RE".into(), format!("{margin:+}.000:f")));
            record.properties.push(("C".into(), format!("{} forfeits: {reason}", loser)));
        }
        let ggf = self.game_file(&p.key);
        write_atomic(&ggf, (record.to_ggf() + "\n").as_bytes()).map_err(|e| fail(&ggf, e))?;

        let path = self.results();
        let mut file = OpenOptions::new().create(true).append(true).open(&path).map_err(|e| fail(&path, e))?;
        let mut text = String::new();
        if file.seek(SeekFrom::End(0)).map_err(|e| fail(&path, e))? == 0 {
            text.push_str(&COLUMNS.join(","));
            text.push('\n');
        }
        let pos = played.game.position();
        let (ending, reason) = match &played.ending {
            Ending::Normal => ("normal", String::new()),
            Ending::Forfeit { loser, reason } => ("forfeit", format!("{loser}: {reason}")),
        };
        let opening: String = played.game.moves()[..played.opening_plies].iter().map(|m| m.to_string()).collect();
        let fields = [
            p.key.clone(),
            p.pair.to_string(),
            black,
            white,
            opening.clone(),
            pos.black().count().to_string(),
            pos.white().count().to_string(),
            played.black_score.to_string(),
            ending.to_string(),
            reason,
            played.game.moves().len().to_string(),
            format!("{:.3}", played.seconds[0]),
            format!("{:.3}", played.seconds[1]),
        ];
        text.push_str(&csv_line(&fields));
        file.write_all(text.as_bytes()).and_then(|_| file.sync_data()).map_err(|e| fail(&path, e))?;
        Ok(ResultRow {
            key: p.key.clone(),
            pair: p.pair,
            black: p.black.clone(),
            white: p.white.clone(),
            opening,
            black_score: played.black_score,
            ending: ending.to_string(),
            record: ggf,
        })
    }
}

/// One CSV row of `fields` and its line end, quoted where a field needs it. A line break inside a field becomes a
/// space, so that a row is one line: a row cut short by a killed process is then the file's last line.
pub(crate) fn csv_line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(vec![]);
    let one_line = fields.iter().map(|f| f.as_ref().replace(['\n', '\r'], " "));
    // Writing to memory fails only without memory.
    writer.write_record(one_line).expect("a CSV row in memory");
    let bytes = writer.into_inner().expect("a CSV row in memory");
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The rows of a CSV text after its header line, each with its line number (from 1) and its `N` fields; a row of
/// another width is an error naming `path` and the line. Blank lines are skipped.
pub(crate) fn csv_rows<const N: usize>(text: &str, path: &Path) -> Result<Vec<(usize, [String; N])>, ArenaError> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    // Counted from the byte offset, past the blank lines before the row (the reader's own count leaves them out),
    // on from the row before: rows come in order, so the text is scanned once.
    let mut counted = (0, 1);
    let mut line_of = |position: Option<&csv::Position>| {
        let start = position.map_or(0, |p| p.byte() as usize).clamp(counted.0, text.len());
        let row = start + text[start..].len() - text[start..].trim_start_matches(['\n', '\r']).len();
        counted = (row, counted.1 + text[counted.0..row].matches('\n').count());
        counted.1
    };
    let row_problem = |line: usize, problem: String| ArenaError::Row { path: path.to_path_buf(), line, problem };
    reader
        .records()
        .map(|record| {
            let record = record.map_err(|e| row_problem(line_of(e.position()), e.to_string()))?;
            let line = line_of(record.position());
            let fields: Vec<String> = record.iter().map(str::to_string).collect();
            let width = fields.len();
            let fields = fields
                .try_into()
                .map_err(|_| row_problem(line, format!("{width} fields where the header names {N}")))?;
            Ok((line, fields))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::Rules;

    /// Directories of games played under other rules are not rated together: refused, naming both directories and
    /// both rules; directories of one set of rules are read.
    #[test]
    fn games_of_other_rules_are_not_rated_together() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = |name: &str, rules: &str| {
            let path = scratch.path().join(name);
            let setup = ArenaSetup { rules: rules.into(), seed: 1, openings: "shipped".into() };
            drop(ArenaDir::new(&path).claim(&setup).unwrap());
            path
        };
        let (a, b, c) = (dir("a", "othello,8x8"), dir("b", "othello,8x8"), dir("c", "othello,4x4"));
        assert!(crate::matches::rows_of(&[a.clone(), b.clone()]).is_ok());
        let err = crate::matches::rows_of(&[a.clone(), b, c.clone()]).unwrap_err().to_string();
        let named = |p: &PathBuf| err.contains(&p.display().to_string());
        assert!(named(&a) && named(&c) && err.contains("othello,8x8") && err.contains("othello,4x4"), "{err}");
    }

    /// `ratings.json` reads back as written; `ratings.csv` holds the same players best first; a damaged
    /// `ratings.json` is an error naming it.
    #[test]
    fn ratings_tables_read_back_as_written() {
        let [a, b, c] = ["greedy", "random", "engine:cmd=\"say c, now\",protocol=gtp"].map(|s| s.parse().unwrap());
        let game = |black: &AgentSpec, white: &AgentSpec, black_score: f64| GameResult {
            black: black.clone(),
            white: white.clone(),
            black_score,
            pair: None,
        };
        let games = [game(&a, &b, 1.0), game(&b, &a, 0.5), game(&a, &c, 1.0), game(&c, &b, 0.0)];
        let fit = crate::ratings::fit(&games, &b, 100.0).unwrap();
        let table = RatingsTable::new(&fit, &b, 100.0, games.len());
        let scratch = tempfile::tempdir().unwrap();
        let dir = ArenaDir::new(scratch.path());
        dir.write_ratings(&table).unwrap();
        assert_eq!(dir.read_ratings().unwrap(), table);
        assert_eq!(table.ratings.iter().find(|r| r.player == b).map(|r| r.elo), Some(100.0));
        let csv = std::fs::read_to_string(dir.ratings_csv()).unwrap();
        let players: Vec<String> =
            csv_rows::<7>(&csv, &dir.ratings_csv()).unwrap().into_iter().map(|(_, [_, p, ..])| p).collect();
        let expected: Vec<String> = table.ratings.iter().map(|r| r.player.to_string()).collect();
        assert_eq!(players, expected);
        assert_eq!(table.ratings[0].player, a, "{csv}");
        std::fs::write(dir.ratings_json(), "{\"anchor\": \"b\"").unwrap();
        let err = dir.read_ratings().unwrap_err().to_string();
        assert!(err.contains("ratings.json"), "{err}");
    }

    #[test]
    fn stored_rows_read_back_and_a_cut_row_is_dropped() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let arena = ArenaDir::new(&dir);
        let rules = Rules::othello().with_size(6).unwrap();
        let schedule = schedule(&specs(&["random", "greedy"]), None, 2).unwrap();
        let mut returned = vec![];
        for p in &schedule {
            returned.push(arena.store(&play(&rules, p, &opening(&rules, 3, p.pair, 2), 3, None).unwrap()).unwrap());
        }
        let rows = arena.read().unwrap();
        assert_eq!(rows, returned, "what store returns is what read reads back");
        assert_eq!(default_anchor(&rows).map(AgentSpec::to_string).as_deref(), Some("random"));
        assert_eq!(
            rows.iter().map(|r| r.key.clone()).collect::<Vec<_>>(),
            schedule.iter().map(|p| p.key.clone()).collect::<Vec<_>>()
        );
        assert_eq!(std::fs::read_dir(arena.games()).unwrap().count(), 2);
        let ggf = std::fs::read_to_string(arena.games().join("random_vs_greedy_#0_ab.ggf")).unwrap();
        let record = othello_core::ggf::parse_ggf(&ggf).pop().unwrap().unwrap();
        assert_eq!((record.property("PB"), record.property("PW")), (Some("random"), Some("greedy")));
        assert!(record.replay().unwrap().is_over());
        // A kill while appending leaves part of a row: it is not read, and repair drops it, keeping the rest.
        let mut text = std::fs::read_to_string(arena.results()).unwrap();
        text.push_str("random vs greedy #1 ab,1,ran");
        std::fs::write(arena.results(), &text).unwrap();
        assert_eq!(arena.read().unwrap().len(), 2);
        arena.repair().unwrap();
        assert!(std::fs::read_to_string(arena.results()).unwrap().ends_with('\n'));
        assert_eq!(arena.read().unwrap().len(), 2);
        // Any other damage names the line.
        std::fs::write(
            arena.results(),
            text.replace(",normal,", ",normal").lines().take(2).collect::<Vec<_>>().join("\n") + "\n",
        )
        .unwrap();
        let err = arena.read().unwrap_err().to_string();
        assert!(err.contains("results.csv") && err.contains("line 2"), "{err}");
    }

    #[test]
    fn a_runs_checkpoints_are_named_under_the_run_wherever_they_were_rated_from() {
        let scratch = tempfile::tempdir().unwrap();
        let run = othello_run::RunDir::new(scratch.path().join("moved"));
        std::fs::create_dir_all(run.models()).unwrap();
        std::fs::create_dir_all(run.eval()).unwrap();
        std::fs::write(run.models().join("model-000000010.json"), "{}").unwrap();
        // Rated from another directory as `old/models/...`; a second spec (more search) whose text starts with the
        // first's; a checkpoint the run does not hold; and one named unquoted.
        let short = "net:model=\"old/models/model-000000010.json\",sims=8";
        let long = "net:model=\"old/models/model-000000010.json\",sims=8,gumbel=4";
        let foreign = "net:model=\"old/models/model-000000020.json\",sims=8";
        let bare = "policy:model=old/models/model-000000010.json";
        let mut text = COLUMNS.join(",") + "\n";
        let mut line = |black: &str, white: &str, key: &str| {
            let fields = [key, "0", black, white, "", "20", "16", "1", "normal", "", "32", "0.1", "0.1"];
            text += &csv_line(&fields);
        };
        line(short, long, &format!("{short} vs {long} #0 ab"));
        line(short, long, &format!("{long} vs {short} #0 ba"));
        line(foreign, "random", &format!("{foreign} vs random #0 ab"));
        line("random", bare, &format!("{bare} vs random #0 ba"));
        std::fs::write(ArenaDir::new(run.eval()).results(), &text).unwrap();
        let named = |file: &str| format!("model=\"{}\"", run.models().join(file).display());
        let rows = ArenaDir::new(run.eval()).read().unwrap();
        let own = short.replace("model=\"old/models/model-000000010.json\"", &named("model-000000010.json"));
        let own_long = long.replace("model=\"old/models/model-000000010.json\"", &named("model-000000010.json"));
        assert_eq!((rows[0].black.to_string(), rows[0].white.to_string()), (own.clone(), own_long.clone()));
        assert_eq!(rows[0].key, Pairing::key(&own, &own_long, 0, true));
        let stored = ArenaDir::new(run.eval()).game_file(&format!("{short} vs {long} #0 ab"));
        assert_eq!(rows[0].record, stored, "the game's record stays where it was stored");
        assert_eq!(rows[1].key, Pairing::key(&own, &own_long, 0, false));
        assert_eq!((rows[1].black.to_string(), rows[1].white.to_string()), (own.clone(), own_long.clone()));
        assert_eq!(rows[2].black.to_string(), foreign, "a checkpoint the run does not hold keeps its name");
        let own_bare = format!("policy:{}", named("model-000000010.json"));
        assert_eq!(rows[3].white.to_string(), own_bare);
        assert_eq!(rows[3].key, Pairing::key("random", &own_bare, 0, false));
        // The same file outside a run's evaluation is read as stored.
        std::fs::write(scratch.path().join("results.csv"), &text).unwrap();
        assert_eq!(ArenaDir::new(scratch.path()).read().unwrap()[0].black.to_string(), short);
    }

    /// Fields with commas, quotes and line breaks read back as written (a line break as a space), each row on one
    /// line; a row of another width is an error naming the file and its line.
    #[test]
    fn csv_rows_read_back_their_fields() {
        let fields = ["plain", "net:model=a,sims=8", "say \"hi\"", "", "two\nlines"];
        let text = csv_line(&["a", "b", "c", "d", "e"]) + &csv_line(&fields) + "\n" + &csv_line(&fields);
        assert_eq!(text.lines().count(), 4, "{text}");
        let path = Path::new("t.csv");
        let read = csv_rows::<5>(&text, path).unwrap();
        let expected = fields.map(|f| f.replace('\n', " "));
        assert_eq!(read, vec![(2, expected.clone()), (4, expected)]);
        let error = csv_rows::<5>(&(text + "x,y\n"), path).unwrap_err().to_string();
        assert!(error.starts_with("t.csv, line 5:") && error.contains("2 fields"), "{error}");
    }
}
