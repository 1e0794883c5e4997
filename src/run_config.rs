//! The run config: TOML, from `--config`, else `RUN/config.toml`, else the embedded `configs/quickstart.toml`.

use std::path::Path;

use anyhow::{Context, Result};
use othello_core::Rules;
use othello_eval::stage::EvalConfig;
use othello_net::NetConfig;
use othello_run::config_check::{check_numbers, MINUTES};
use othello_run::RunDir;
use othello_search::PlayerSearch;
use othello_selfplay::SelfPlayConfig;
use othello_train::TrainConfig;
use serde::{Deserialize, Serialize};

/// The embedded default config: the quickstart, a small 6x6 run that shows learning within minutes.
pub const DEFAULT: &str = include_str!("../configs/quickstart.toml");

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default = "default_rules")]
    pub rules: String,
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    #[serde(default)]
    pub network: NetConfig,
    #[serde(default)]
    pub train: TrainConfig,
    #[serde(default)]
    pub eval: EvalConfig,
    /// `run` stops once the run has had this many minutes in all, the stretches of a resumed run together (0: when
    /// the trainer reaches its steps, or when stopped).
    #[serde(default)]
    pub minutes: f64,
}

/// Empties beyond which an exact solve costs more than a self-play game (8x8: 0.3 s at 20 empties, 9 s at 24).
const SLOW_SOLVE_EMPTIES: u32 = 20;
/// Set in a process whose output goes where the config's warnings have been printed already (`run`'s final
/// evaluation, on `run`'s terminal), so that they are printed once.
pub const WARNINGS_SHOWN: &str = "OTHELLO_ZERO_CONFIG_WARNINGS_SHOWN";

fn default_seed() -> u64 {
    1
}
fn default_rules() -> String {
    "othello".into()
}

impl RunConfig {
    /// The search of the evaluation's checkpoint players ([`EvalConfig::player_search`]).
    pub fn player_search(&self) -> PlayerSearch {
        let selfplay = &self.selfplay;
        self.eval.player_search(selfplay.root_selection, selfplay.gumbel_considered, &selfplay.mcts)
    }

    /// Parses config text; `origin` names it in errors (with the line and column of the fault).
    pub fn parse(text: &str, origin: &str) -> Result<RunConfig> {
        refuse_old_spellings(text, origin)?;
        let config: RunConfig =
            toml::from_str(text).map_err(|e| anyhow::anyhow!("config {origin}: {}", one_line(text, &e)))?;
        let rules = config.rules().with_context(|| format!("config {origin}: key 'rules'"))?;
        // More empties than the start has is a mistyped number: it would solve every game from its first move.
        let start_empties = rules.empties(&rules.start_position());
        for (key, value) in config.solving_keys() {
            anyhow::ensure!(
                value <= start_empties,
                "config {origin}: {key} = {value} (expected 0 to {start_empties}, the empty squares at the start)"
            );
        }
        let in_config = |e: String| anyhow::anyhow!("config {origin}: {e}");
        config.train.validate().map_err(in_config)?;
        config.network.validate().map_err(|e| in_config(format!("[network] {e}")))?;
        config.selfplay.validate().map_err(in_config)?;
        config.eval.validate().map_err(in_config)?;
        // Self-play's weight of the disc margin: at most what a `net:` player's `score=` takes.
        let (w, max) = (config.selfplay.mcts.score_utility, othello_players::MAX_SCORE_UTILITY);
        anyhow::ensure!(
            (0.0..=max).contains(&w),
            "config {origin}: [selfplay.mcts] score_utility = {w} (expected 0 to {max})"
        );
        check_numbers("", &[("minutes", config.minutes, MINUTES)]).map_err(in_config)?;
        Ok(config)
    }

    /// The keys that solve positions exactly up to a number of empties, with their values.
    fn solving_keys(&self) -> [(&'static str, u32); 2] {
        [
            ("[selfplay] solve_empties", self.selfplay.solve_empties),
            ("[eval] optimal_moves_empties", self.eval.optimal_moves_empties),
        ]
    }

    /// What is valid but likely a mistake, each naming its key: an exact solve from more than
    /// [`SLOW_SOLVE_EMPTIES`] empties takes seconds to hours, and self-play or the evaluation waits for each.
    pub fn warnings(&self) -> Vec<String> {
        self.solving_keys()
            .into_iter()
            .filter(|&(_, value)| value > SLOW_SOLVE_EMPTIES)
            .map(|(key, value)| {
                format!(
                    "{key} = {value}: an exact solve from more than {SLOW_SOLVE_EMPTIES} empties takes seconds to \
                     hours (8x8 at 24 empties: about 9 s on one core), and the stage waits for each"
                )
            })
            .collect()
    }

    pub fn rules(&self) -> Result<Rules> {
        Ok(self.rules.parse::<Rules>()?)
    }

    /// The config of a run, for a stage that writes into it: the run's own `config.toml`, else `explicit`, else the
    /// default, which a run without a config.toml gets a copy of, so that every stage of the run reads the same.
    /// An `explicit` config that differs from the run's own is refused: a run has one config.
    pub fn for_run(run: &RunDir, explicit: Option<&Path>) -> Result<RunConfig> {
        Ok(RunConfig::text_for_run(run, explicit)?.0)
    }

    /// [`RunConfig::for_run`], with the config's text.
    pub fn text_for_run(run: &RunDir, explicit: Option<&Path>) -> Result<(RunConfig, String)> {
        RunConfig::read_for_run(run, explicit, true)
    }

    /// [`RunConfig::for_run`] for a stage that only reads the run's checkpoints (the evaluation): the run directory
    /// must exist, and a config is not written into it.
    pub fn for_existing_run(run: &RunDir, explicit: Option<&Path>) -> Result<RunConfig> {
        anyhow::ensure!(run.root().is_dir(), "{}: no such run directory", run.root().display());
        Ok(RunConfig::read_for_run(run, explicit, false)?.0)
    }

    fn read_for_run(run: &RunDir, explicit: Option<&Path>, create: bool) -> Result<(RunConfig, String)> {
        // The evaluation names the run's checkpoints in agent specs, whose quoted values cannot hold a quote.
        anyhow::ensure!(
            !run.root().to_string_lossy().contains('"'),
            "{}: a run directory's path may not hold '\"' (agent specs name its checkpoints within quotes)",
            run.root().display()
        );
        let own = run.config();
        let read = |p: &Path| std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()));
        let given = explicit.map(|p| read(p).map(|text| (text, p.display().to_string()))).transpose()?;
        let (text, origin) = if own.exists() {
            let own_text = read(&own)?;
            if let Some((text, origin)) = &given {
                anyhow::ensure!(
                    *text == own_text,
                    "--config {origin} differs from {}, the run's own config: a run has one config (edit that file, \
                     or give the run a new directory)",
                    own.display()
                );
            }
            (own_text, own.display().to_string())
        } else if let Some(given) = given {
            given
        } else {
            // The default would be a guess at the rules and network the games and checkpoints were made with.
            anyhow::ensure!(
                !crate::run_holdings::holds_anything(run),
                "{} holds games or checkpoints but no config.toml: put back the config it ran with (or give it \
                 with --config)",
                run.root().display()
            );
            (DEFAULT.to_string(), "(embedded default)".to_string())
        };
        let config = RunConfig::parse(&text, &origin)?;
        crate::run_holdings::check(run, &config, &origin)?;
        if std::env::var_os(WARNINGS_SHOWN).is_none() {
            for warning in config.warnings() {
                eprintln!("warning: config {origin}: {warning}");
            }
        }
        if create && !own.exists() {
            std::fs::create_dir_all(run.root()).with_context(|| format!("creating {}", run.root().display()))?;
            othello_run::write_atomic(&own, text.as_bytes()).with_context(|| format!("writing {}", own.display()))?;
        }
        Ok((config, text))
    }
}

/// Search settings once spelled out in configs, now spelled as agent specs spell them (`net:sims=,cpuct=`).
const RENAMED_KEYS: [(&str, &str); 6] = [
    ("simulations", "sims"),
    ("final_simulations", "final_sims"),
    ("simulations_ramp_steps", "sims_ramp_steps"),
    ("cheap_simulations", "cheap_sims"),
    ("final_player_simulations", "final_player_sims"),
    ("c_puct", "cpuct"),
];

/// Refuses a renamed key with its new name and line, rather than serde's list of every key the section takes.
fn refuse_old_spellings(text: &str, origin: &str) -> Result<()> {
    let Ok(table) = text.parse::<toml::Table>() else { return Ok(()) }; // the typed parse names the fault
    let mut sections = vec![(String::new(), &table)];
    while let Some((name, section)) = sections.pop() {
        for (key, value) in section {
            let path = if name.is_empty() { key.clone() } else { format!("{name}.{key}") };
            if let Some(table) = value.as_table() {
                sections.push((path, table));
            } else if let Some((_, new)) = RENAMED_KEYS.iter().find(|(old, _)| old == key) {
                let line = text.lines().position(|l| {
                    l.trim_start().strip_prefix(key.as_str()).is_some_and(|rest| rest.trim_start().starts_with('='))
                });
                let at = line.map_or(String::new(), |n| format!(" (line {})", n + 1));
                let section = if name.is_empty() { String::new() } else { format!("[{name}] ") };
                anyhow::bail!(
                    "config {origin}{at}: {section}{key} is spelled {new} now, as agent specs spell it: rename the key"
                );
            }
        }
    }
    Ok(())
}

/// A TOML error on one line: where (line, column and the line's text, clipped) and what, without the excerpt toml
/// draws under it.
fn one_line(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim().replace('\n', "; ");
    let Some(span) = error.span() else { return message };
    let before = text.get(..span.start).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let source = othello_core::clip(text.lines().nth(line - 1).unwrap_or_default().trim(), 80);
    format!("line {line}, column {column} ({source}): {message}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_keeps_its_own_config_and_a_reader_writes_none() {
        let scratch = tempfile::tempdir().unwrap();
        let run = RunDir::new(scratch.path().join("run"));
        let (a, b) = (scratch.path().join("a.toml"), scratch.path().join("b.toml"));
        std::fs::write(&a, "minutes = 3\n").unwrap();
        std::fs::write(&b, "minutes = 5\n").unwrap();
        // A reader of a run that does not exist is an error and leaves no directory behind.
        let err = RunConfig::for_existing_run(&run, Some(&a)).unwrap_err().to_string();
        assert!(err.contains("no such run directory"), "{err}");
        assert!(!run.root().exists());
        // The first stage fixes the config; the same one again is fine, another is refused, none reads it back.
        assert_eq!(RunConfig::for_run(&run, Some(&a)).unwrap().minutes, 3.0);
        assert_eq!(std::fs::read_to_string(run.config()).unwrap(), "minutes = 3\n");
        assert_eq!(RunConfig::for_run(&run, Some(&a)).unwrap().minutes, 3.0);
        let err = RunConfig::for_run(&run, Some(&b)).unwrap_err().to_string();
        assert!(err.contains("b.toml differs from") && err.contains("the run's own config"), "{err}");
        assert_eq!(RunConfig::for_existing_run(&run, None).unwrap().minutes, 3.0);
        // A reader of a run without a config reads the default and writes nothing.
        std::fs::remove_file(run.config()).unwrap();
        assert!(RunConfig::for_existing_run(&run, None).is_ok());
        assert!(!run.config().exists());
    }

    /// A key of the old spelling is refused with its new name and its line, in every section.
    #[test]
    fn old_spellings_of_the_search_settings_are_refused_with_the_new_name() {
        for (text, expected) in [
            ("[selfplay]\nsimulations = 32\n", "s.toml (line 2): [selfplay] simulations is spelled sims now"),
            (
                "seed = 1\n[eval]\n\nfinal_player_simulations = 8\n",
                "(line 4): [eval] final_player_simulations is spelled final_player_sims",
            ),
            ("[selfplay.mcts]\n  c_puct = 2\n", "(line 2): [selfplay.mcts] c_puct is spelled cpuct now"),
            ("[selfplay]\ncheap_simulations = 4\n", "[selfplay] cheap_simulations is spelled cheap_sims"),
        ] {
            let err = format!("{:#}", RunConfig::parse(text, "s.toml").unwrap_err());
            assert!(err.contains(expected), "{err}");
        }
    }

    /// A config that is not valid TOML, or holds a value of the wrong kind, is one line: the file, where, what.
    #[test]
    fn a_bad_config_is_one_line_naming_its_place() {
        for (text, expected) in [
            ("rules = \"othello\"\n[selfplay]\nsims = -5\n", "s.toml: line 3, column 8 (sims = -5): invalid value"),
            ("[[[[\n", "s.toml: line 1, column 3 ([[[[): "),
            ("[selfplay]\nsims = 4\nbogus = 1\n", "s.toml: line 3, column 1 (bogus = 1): unknown field `bogus`"),
        ] {
            let err = format!("{:#}", RunConfig::parse(text, "s.toml").unwrap_err());
            assert!(err.starts_with("config ") && err.contains(expected) && !err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn every_shipped_config_parses() {
        RunConfig::parse(DEFAULT, "default").unwrap();
        for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/configs")).unwrap() {
            let path = entry.unwrap().path();
            RunConfig::parse(&std::fs::read_to_string(&path).unwrap(), &path.display().to_string()).unwrap();
        }
    }

    /// `configs/8x8-cpu.toml` is the one place every key is documented: each key of every section appears there,
    /// set or commented out (`# key = ...`), under its section's header.
    #[test]
    fn every_key_is_documented_in_the_8x8_cpu_config() {
        let mut config: RunConfig = toml::from_str("").unwrap();
        // Keys without a default value are left out of the serialized config; give them one.
        config.selfplay.final_sims = Some(1);
        config.selfplay.gumbel_noise_moves = Some(1);
        config.eval.score_utility = Some(0.0);
        let mut keys = Vec::new();
        fn collect(table: &toml::Table, section: &str, keys: &mut Vec<(String, String)>) {
            for (key, value) in table {
                match value.as_table() {
                    Some(inner) if section.is_empty() => collect(inner, key, keys),
                    Some(inner) => collect(inner, &format!("{section}.{key}"), keys),
                    None => keys.push((section.to_string(), key.clone())),
                }
            }
        }
        collect(&toml::Table::try_from(&config).unwrap(), "", &mut keys);
        assert!(keys.len() > 60, "{} keys", keys.len());

        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/8x8-cpu.toml")).unwrap();
        let mut documented = Vec::new();
        let mut section = String::new();
        for line in text.lines() {
            if let Some(header) = line.strip_prefix('[').and_then(|l| l.split_once(']')) {
                section = header.0.to_string();
            } else if let Some((key, _)) = line.strip_prefix("# ").unwrap_or(line).split_once('=') {
                documented.push((section.clone(), key.trim().to_string()));
            }
        }
        let missing: Vec<_> = keys.iter().filter(|k| !documented.contains(k)).collect();
        assert!(missing.is_empty(), "keys not in configs/8x8-cpu.toml (section, key): {missing:?}");
    }

    #[test]
    fn a_misspelt_key_names_its_line() {
        let err = RunConfig::parse("seed = 2\n[selfplay]\nsimulatons = 3\n", "x.toml").unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.contains("x.toml") && msg.contains("simulatons") && msg.contains("line 3"), "{msg}");
        let err = RunConfig::parse("rules = \"othello,7x7\"\n", "y.toml").unwrap_err();
        assert!(format!("{err:#}").contains("7x7"));
        let err = RunConfig::parse("[train]\nlearning_rate = nan\n", "w.toml").unwrap_err();
        assert!(format!("{err:#}").contains("learning_rate"), "{err:#}");
        let err = RunConfig::parse("[eval]\nladder = [\"random\", \"positional:depht=2\"]\n", "e.toml").unwrap_err();
        assert!(format!("{err:#}").contains("e.toml") && format!("{err:#}").contains("depht"), "{err:#}");
        let err = RunConfig::parse("minutes = -3\n", "m.toml").unwrap_err();
        assert!(format!("{err:#}").contains("minutes"), "{err:#}");
        for (text, key) in [
            ("[selfplay]\nsolved_exploration = 1.5\n", "solved_exploration"),
            ("[selfplay]\nfull_search_share = nan\n", "full_search_share"),
            ("[eval]\nnice = 20\n", "nice"),
            ("[eval]\nscore_utility = -1\n", "score_utility"),
            ("[selfplay.mcts]\nscore_utility = nan\n", "score_utility"),
            ("[selfplay.mcts]\ngumbel_q_scale = 0\n", "gumbel_q_scale"),
            ("[selfplay.mcts]\ngumbel_q_scale = nan\n", "gumbel_q_scale"),
            ("[selfplay]\ngames_in_flight = 0\n", "[selfplay] games_in_flight = 0"),
            ("[selfplay]\nsims = 0\n", "[selfplay] sims = 0"),
            ("[selfplay]\ngumbel_considered = 1\n", "[selfplay] gumbel_considered = 1"),
            ("[selfplay]\nrandom_opening_plies = 65\n", "[selfplay] random_opening_plies = 65"),
            ("[selfplay.mcts]\ncpuct = -1\n", "[selfplay.mcts] cpuct"),
            ("[selfplay.mcts]\ndirichlet_epsilon = 2\n", "[selfplay.mcts] dirichlet_epsilon"),
            ("[eval]\nevery = 0\n", "[eval] every = 0"),
            ("[eval]\nthreads = 0\n", "[eval] threads = 0"),
            ("[eval]\nthreads = 2000\n", "[eval] threads = 2000 (expected at most 1024)"),
            ("minutes = 1e300\n", "minutes = 1e300 (expected 0 (no limit) to 525600 (a year))"),
            ("[eval]\nsims = 1000001\n", "[eval] sims = 1000001"),
            ("[eval]\nsims = 0\n", "[eval] sims = 0"),
            ("[eval]\nfinal_player_sims = 0\n", "[eval] final_player_sims = 0"),
            ("[eval]\nfinal_player_sims = 1000001\n", "[eval] final_player_sims = 1000001"),
            ("[network]\nvalue_channels = 0\n", "value_channels"),
            ("[network]\nblocks = 100000\n", "parameters"),
            ("[selfplay]\ngames_in_flight = 100000000\n", "[selfplay] games_in_flight = 100000000"),
            ("[selfplay]\ncheap_sims = 4000000\n", "[selfplay] cheap_sims = 4000000"),
            ("[train]\nbatch_size = 1000000000\n", "batch_size = 1000000000"),
            ("[network]\ninput_planes = 5\n", "input_planes"),
            ("[train]\nweight_decay = nan\n", "[train] weight_decay = NaN"),
            ("[train]\npoll_seconds = inf\n", "[train] poll_seconds = inf"),
        ] {
            let err = format!("{:#}", RunConfig::parse(text, "s.toml").unwrap_err());
            assert!(err.contains("s.toml") && err.contains(key), "{err}");
        }
    }

    /// The keys that solve up to a number of empties refuse more than the board's start has, naming the key and
    /// the bound; from more than [`SLOW_SOLVE_EMPTIES`] they take the value with a warning naming the key.
    #[test]
    fn solving_from_more_empties_than_the_start_is_refused_and_from_many_warned() {
        for (rules, start_empties) in [("othello", 60), ("othello,6x6", 32), ("othello,4x4", 12)] {
            for (section, key) in [("selfplay", "solve_empties"), ("eval", "optimal_moves_empties")] {
                let text = |n: u32| format!("rules = \"{rules}\"\n[{section}]\n{key} = {n}\n");
                let err = format!("{:#}", RunConfig::parse(&text(start_empties + 1), "e.toml").unwrap_err());
                let expected =
                    format!("e.toml: [{section}] {key} = {} (expected 0 to {start_empties}", start_empties + 1);
                assert!(err.contains(&expected), "{err}");
                let warnings = RunConfig::parse(&text(start_empties), "e.toml").unwrap().warnings();
                assert_eq!(warnings.len(), usize::from(start_empties > SLOW_SOLVE_EMPTIES), "{warnings:?}");
                assert!(warnings.iter().all(|w| w.starts_with(&format!("[{section}] {key} = {start_empties}:"))));
                assert!(RunConfig::parse(&text(SLOW_SOLVE_EMPTIES.min(start_empties)), "e.toml")
                    .unwrap()
                    .warnings()
                    .is_empty());
            }
        }
        for config in [DEFAULT, include_str!("../configs/8x8-cpu.toml"), include_str!("../configs/ci.toml")] {
            assert!(RunConfig::parse(config, "shipped").unwrap().warnings().is_empty());
        }
    }

    /// Every enum-like key refuses a value it does not know, naming the file, the line (which shows the key) and
    /// the values it allows; each allowed value parses.
    #[test]
    fn a_wrong_value_of_an_enum_key_names_the_file_the_line_the_key_and_the_values_allowed() {
        let keys: [(&str, &str, &[&str]); 7] = [
            ("selfplay", "evaluator", &["network", "uniform", "rollouts"]),
            ("selfplay.mcts", "interior", &["puct", "gumbel"]),
            ("selfplay", "root_selection", &["puct", "gumbel"]),
            ("selfplay", "device", &["flex", "wgpu", "cuda", "tch"]),
            ("train", "optimizer", &["adamw", "sgd"]),
            ("train", "decay", &["constant", "cosine"]),
            ("train", "device", &["flex", "wgpu", "cuda", "tch"]),
        ];
        for (section, key, allowed) in keys {
            let text = format!("seed = 2\n\n[{section}]\n{key} = \"gumbl\"\n");
            let msg = format!("{:#}", RunConfig::parse(&text, "bad.toml").unwrap_err());
            assert!(msg.contains("bad.toml") && msg.contains("line 4") && msg.contains(key), "{msg}");
            assert!(msg.contains("gumbl"), "{msg}");
            for value in allowed {
                assert!(msg.contains(&format!("`{value}`")), "{key}: {value} missing from {msg}");
                let good = format!("[{section}]\n{key} = \"{value}\"\n");
                RunConfig::parse(&good, "good.toml").unwrap_or_else(|e| panic!("{key} = {value}: {e:#}"));
            }
        }
        // The evaluation's margin weight is its own when set, else self-play's.
        let config = RunConfig::parse("[eval]\nscore_utility = 4\n", "s.toml").unwrap();
        assert_eq!((config.player_search().mcts.score_utility, config.selfplay.mcts.score_utility), (4.0, 0.0));
        let config = RunConfig::parse("[selfplay.mcts]\nscore_utility = 0.5\n", "s.toml").unwrap();
        assert_eq!((config.eval.score_utility, config.player_search().mcts.score_utility), (None, 0.5));
        // The checkpoints' players search as self-play does, below the root too.
        let config = RunConfig::parse(
            "[selfplay]\nroot_selection = \"gumbel\"\ngumbel_considered = 4\n[selfplay.mcts]\ninterior = \"gumbel\"\n",
            "i.toml",
        )
        .unwrap();
        let player = othello_players::AgentSpec::net("x", config.player_search()).to_string();
        assert_eq!(player, "net:model=\"x\",sims=64,gumbel=4,interior=gumbel");
        // A `net:` player takes that spec: the one thing wrong here is the model.
        let err = player.parse::<othello_players::AgentSpec>().unwrap().agent(1).err().unwrap();
        assert!(err.to_string().contains("checkpoint x: neither a checkpoint"), "{err}");
        // The search settings are a section of self-play's, and every one a player reads reaches it.
        let mcts = "[selfplay.mcts]\ncpuct = 2.5\nfpu_reduction = 0.1\ngumbel_q_scale = 0.3\ngumbel_q_rescale = true\n";
        let config = RunConfig::parse(mcts, "m.toml").unwrap();
        assert_eq!(config.selfplay.mcts.cpuct, 2.5);
        let player = othello_players::AgentSpec::net("x", config.player_search()).to_string();
        assert_eq!(player, "net:model=\"x\",sims=64,qscale=0.3,qrescale,cpuct=2.5,fpu=0.1");
        let err = RunConfig::parse("[selfplay.mcts]\nc_pcut = 2.5\n", "m.toml").unwrap_err();
        assert!(format!("{err:#}").contains("c_pcut"), "{err:#}");
    }

    /// Every shipped config's ladder is written in canonical specs: the names its games are stored under are the
    /// ones written, so that a run made before specs were read into values resumes with the same players.
    #[test]
    fn the_shipped_configs_ladders_are_canonical() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        let mut ladders = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let written: toml::Value = toml::from_str(&text).unwrap();
            let Some(ladder) = written.get("eval").and_then(|eval| eval.get("ladder")) else { continue };
            let written: Vec<&str> = ladder.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
            let config = RunConfig::parse(&text, &path.display().to_string()).unwrap();
            let read: Vec<String> = config.eval.ladder.iter().map(ToString::to_string).collect();
            assert_eq!(read, written, "{}", path.display());
            ladders += 1;
        }
        assert!(ladders >= 3, "{ladders} configs with a ladder in {}", dir.display());
    }
}
