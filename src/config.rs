//! The run config: TOML, from `--config`, else `RUN/config.toml`, else the embedded `configs/default.toml`.

use std::path::Path;

use anyhow::{Context, Result};
use othello_core::Rules;
use othello_selfplay::network::NetConfig;
use othello_selfplay::{MctsConfig, SelfPlayConfig};
use othello_train::TrainConfig;
use serde::Deserialize;

/// The embedded default config.
pub const DEFAULT: &str = include_str!("../configs/default.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default = "default_rules")]
    pub rules: String,
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    #[serde(default)]
    pub mcts: MctsConfig,
    #[serde(default)]
    pub network: NetConfig,
    #[serde(default)]
    pub train: TrainConfig,
}

fn default_seed() -> u64 {
    1
}
fn default_rules() -> String {
    "othello".into()
}

impl RunConfig {
    /// Parses config text; `origin` names it in errors (with the line and column of the fault).
    pub fn parse(text: &str, origin: &str) -> Result<RunConfig> {
        let mut config: RunConfig = toml::from_str(text).with_context(|| format!("config {origin}"))?;
        config.selfplay.mcts = config.mcts.clone();
        config.rules().with_context(|| format!("config {origin}: key 'rules'"))?;
        config.train.validate().map_err(|e| anyhow::anyhow!("config {origin}: [train] {e}"))?;
        Ok(config)
    }

    pub fn rules(&self) -> Result<Rules> {
        Ok(self.rules.parse::<Rules>()?)
    }

    /// The config of a run: `explicit` if given, else the run's own `config.toml`, else the default; a run
    /// without a config.toml gets a copy of the one used, so that every stage of the run reads the same.
    pub fn for_run(run: &Path, explicit: Option<&Path>) -> Result<RunConfig> {
        Ok(RunConfig::text_for_run(run, explicit)?.0)
    }

    /// [`RunConfig::for_run`], with the config's text.
    pub fn text_for_run(run: &Path, explicit: Option<&Path>) -> Result<(RunConfig, String)> {
        let own = run.join("config.toml");
        let (text, origin) = match explicit {
            Some(p) => (
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?,
                p.display().to_string(),
            ),
            None if own.exists() => (
                std::fs::read_to_string(&own).with_context(|| format!("reading {}", own.display()))?,
                own.display().to_string(),
            ),
            None => (DEFAULT.to_string(), "(embedded default)".to_string()),
        };
        let config = RunConfig::parse(&text, &origin)?;
        if !own.exists() {
            std::fs::create_dir_all(run).with_context(|| format!("creating {}", run.display()))?;
            othello_selfplay::atomic::write_atomic(&own, text.as_bytes())
                .with_context(|| format!("writing {}", own.display()))?;
        }
        Ok((config, text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_config_parses() {
        RunConfig::parse(DEFAULT, "default").unwrap();
        for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/configs")).unwrap() {
            let path = entry.unwrap().path();
            RunConfig::parse(&std::fs::read_to_string(&path).unwrap(), &path.display().to_string()).unwrap();
        }
    }

    #[test]
    fn a_misspelt_key_names_its_line() {
        let err = RunConfig::parse("seed = 2\n[selfplay]\nsimulatons = 3\n", "x.toml").unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.contains("x.toml") && msg.contains("simulatons") && msg.contains("line 3"), "{msg}");
        let err = RunConfig::parse("rules = \"othello,7x7\"\n", "y.toml").unwrap_err();
        assert!(format!("{err:#}").contains("7x7"));
        let err = RunConfig::parse("[train]\noptimizer = \"adam\"\n", "z.toml").unwrap_err();
        assert!(format!("{err:#}").contains("z.toml") && format!("{err:#}").contains("'adam'"), "{err:#}");
        let err = RunConfig::parse("[train]\nlearning_rate = nan\n", "w.toml").unwrap_err();
        assert!(format!("{err:#}").contains("learning_rate"), "{err:#}");
    }
}
