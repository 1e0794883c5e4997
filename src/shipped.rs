//! The trained networks that ship with the program (`networks/` in the repository, built into the binary): the
//! player `play`, `gtp` and `nboard` use when no `--agent` is given, so that a newcomer, or a GUI speaking GTP or
//! NBoard, meets a real opponent at once.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use othello_core::Rules;
use othello_players::{AgentKind, AgentSpec, NetSearch, TimeControl};

/// A shipped network: its directory under `networks/`, the rules it plays, and its checkpoint's two files. Its
/// sidecar's `player` is the search it plays with where a `net:` spec says no other (within a second a move on one
/// core; its model card measures that player).
struct Shipped {
    name: &'static str,
    rules: &'static str,
    sidecar: &'static [u8],
    weights: &'static [u8],
}

/// A shipped network from its directory's name: its checkpoint's files are read from there.
macro_rules! shipped {
    ($name:literal, rules: $rules:literal) => {
        Shipped {
            name: $name,
            rules: $rules,
            sidecar: include_bytes!(concat!("../networks/", $name, "/model.json")),
            weights: include_bytes!(concat!("../networks/", $name, "/model.bpk")),
        }
    };
}

/// Strongest first for each rules.
const SHIPPED: [Shipped; 2] =
    [shipped!("othello-8x8", rules: "othello"), shipped!("othello-6x6", rules: "othello,6x6")];

/// The strongest shipped network for `rules`, with its shipped search.
pub fn default_player(rules: &Rules) -> Result<AgentSpec> {
    let parse = |text: &str| text.parse::<Rules>().expect("a shipped network's rules parse");
    let Some(network) = SHIPPED.iter().find(|n| parse(n.rules) == *rules) else {
        let shipped: Vec<&str> = SHIPPED.iter().map(|n| n.rules).collect();
        bail!("no network ships for {rules} (networks ship for {}): give --agent", shipped.join("; "));
    };
    let model = model_file(network)?.display().to_string();
    let (search, time) = (NetSearch::default(), TimeControl::default());
    Ok(AgentSpec { kind: AgentKind::Net { model, search, device: None, time }, endgame: None })
}

/// The network's checkpoint: the repository's own file where the program runs from its checkout, else the built-in
/// copy written once to the cache directory (under a name that changes with its contents).
fn model_file(network: &Shipped) -> Result<PathBuf> {
    let in_repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("networks").join(network.name).join("model.json");
    if std::fs::read(&in_repository).is_ok_and(|text| text == network.sidecar) {
        return Ok(in_repository);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let hash = othello_run::fnv1a_bytes(&[network.sidecar, network.weights].concat());
    let dir = cache.join("othello-zero").join(format!("{}-{hash:016x}", network.name));
    let model = dir.join("model.json");
    if !model.exists() {
        std::fs::create_dir_all(&dir).with_context(|| format!("making {}", dir.display()))?;
        // The weights first: a sidecar is only there once its weights are whole.
        for (file, bytes) in [("model.bpk", network.weights), ("model.json", network.sidecar)] {
            let path = dir.join(file);
            othello_run::write_atomic(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each shipped player is its network with the search its card writes out, and plays the network's rules.
    #[test]
    fn the_shipped_players_are_the_documented_ones() {
        for network in &SHIPPED {
            let rules = network.rules.parse().unwrap();
            let player = default_player(&rules).unwrap();
            assert_eq!(player.to_string(), format!("net:model=\"{}\"", player.model().unwrap()));
            assert_eq!(player.agent(1).unwrap().rules(), Some(rules), "{}", network.name);
            let sidecar: serde_json::Value = serde_json::from_slice(network.sidecar).unwrap();
            let search = sidecar["player"].as_str().expect("a shipped network ships its search");
            let card = Path::new(env!("CARGO_MANIFEST_DIR")).join("networks").join(network.name).join("README.md");
            let card = std::fs::read_to_string(card).unwrap();
            assert!(card.contains(&format!("`{search}`")), "{}'s card does not name `{search}`", network.name);
        }
        assert!(default_player(&"othello,4x4".parse().unwrap()).is_err());
    }
}
