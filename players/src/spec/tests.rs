use super::*;

/// Canonical specs print as written; every spec parses back from its print to the same value.
#[test]
fn specs_round_trip() {
    for spec in [
        "random",
        "greedy+endgame12",
        "positional",
        "positional:depth=2+endgame10",
        "pattern",
        "pattern:depth=4",
        "pattern:time=0.25,exact=20+endgame20",
        "mcts:sims=50",
        "policy:model=\"runs/a\",temperature=0.5,device=flex",
        "net:model=\"runs/a/models/model-000000250.json\",sims=200",
        "net:model=\"a,b\",sims=3,gumbel=16,score=0.5,qscale=0.1,qrescale,interior=gumbel,cpuct=2,fpu=0+endgame4",
        "net:model=\"m\",gumbel=16,time=0.1",
        "net:model=\"m\",sims=800,time=0.5,total=60",
        "net:model=\"m\",total=300",
        "engine:cmd=\"gtp-rhino -l 3\",protocol=gtp,time=30,startup=5",
        "engine:cmd=\"edax -q\",protocol=nboard",
        "engine:cmd=\"edax -q\",protocol=nboard,depth=12,time=5,total=120",
        "grhino:level=3",
        "grhino:level=5,cmd=\"/opt/gtp-rhino\",time=900,startup=1,total=3600+endgame16",
        "python:name=my_player.v2+endgame12",
    ] {
        let parsed: AgentSpec = spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(parsed.to_string(), spec);
    }
    for (spec, canonical) in [
        // A setting left out is the network's; one given prints, a default's value too (it overrides the network's).
        ("net:model=runs/a", "net:model=\"runs/a\""),
        ("net:sims=8,model=x,gumbel", "net:model=\"x\",sims=8,gumbel=16"),
        ("net:model=x,qrescale=false,gumbel=false,score=0", "net:model=\"x\",gumbel=false,score=0,qrescale=false"),
        ("policy:model=m,device=cpu", "policy:model=\"m\",device=flex"),
        ("engine:protocol=gtp,cmd=x", "engine:cmd=\"x\",protocol=gtp"),
        ("grhino", "grhino:level=3"),
        // On the clock, the simulations are a cap, none unless given.
        ("net:time=1,model=m,sims=1000000", "net:model=\"m\",time=1"),
        ("grhino:total=60,cmd=gtp-rhino,level=2", "grhino:level=2,cmd=\"gtp-rhino\",total=60"),
    ] {
        let parsed: AgentSpec = spec.parse().unwrap();
        assert_eq!(parsed.to_string(), canonical);
        assert_eq!(canonical.parse::<AgentSpec>().unwrap(), parsed);
    }
}

/// Every spec of the README's table of players is canonical: it prints as written.
#[test]
fn the_readmes_specs_round_trip() {
    let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"));
    let players = readme.split("## Players").nth(1).expect("a Players section").split("\n## ").next().unwrap();
    let specs: Vec<&str> =
        players.lines().filter_map(|l| l.strip_prefix("| `")?.split('`').next()).filter(|s| *s != "spec").collect();
    assert!(specs.len() >= 8, "{specs:?}");
    for spec in specs {
        let parsed: AgentSpec = spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(parsed.to_string(), spec);
    }
}

#[test]
fn each_failure_has_its_error() {
    let value =
        |key: &str, value: &str| SpecError::Value { key: key.into(), value: value.into(), expected: String::new() };
    let same = |a: &SpecError, b: &SpecError| match (a, b) {
        (SpecError::Value { key: k1, value: v1, .. }, SpecError::Value { key: k2, value: v2, .. }) => {
            k1 == k2 && v1 == v2
        }
        _ => a == b,
    };
    for (spec, expected) in [
        ("minimax", SpecError::UnknownAgent("minimax".into())),
        ("positional:depth=0", value("depth", "0")),
        (
            "positional:depht=3",
            SpecError::UnknownParameter { agent: "positional", key: "depht".into(), known: "depth".into() },
        ),
        ("positional:depth=2,depth=3", SpecError::GivenTwice("depth".into())),
        ("random:depth=2", SpecError::NoParameters { agent: "random", key: "depth".into() }),
        ("greedy+endgam14", SpecError::Suffix("endgam14".into())),
        ("positional:depth=3+endgame99", SpecError::Suffix("endgame99".into())),
        ("greedy+endgame1+endgame2", SpecError::TwoSuffixes),
        ("positional:=3", SpecError::NotKeyValue("=3".into())),
        ("pattern:depth=3,time=1", SpecError::DepthAndTime),
        ("pattern:time=-1", value("time", "-1")),
        ("policy", SpecError::Missing { agent: "policy", key: "model" }),
        ("net:model=x,gumbel=1", value("gumbel", "1")),
        ("net:model=x,score=-1", value("score", "-1")),
        ("net:model=x,qscale=0", value("qscale", "0")),
        ("net:model=x,qrescale=yes", value("qrescale", "yes")),
        ("net:model=x,interior=pucct", value("interior", "pucct")),
        ("net:model=x,cpuct=0", value("cpuct", "0")),
        ("net:model=x,device=tpu", value("device", "tpu")),
        ("engine:cmd=\"a b\",protocol=uci", value("protocol", "uci")),
        ("engine:cmd=\"a b\"", SpecError::Missing { agent: "engine", key: "protocol" }),
        ("engine:cmd=x,protocol=gtp,depth=8", value("depth", "8")),
        ("engine:cmd=x,protocol=nboard,depth=61", value("depth", "61")),
        ("engine:cmd=x,protocol=nboard,total=0", value("total", "0")),
        ("grhino:level=6", value("level", "6")),
        ("python:name=\"a b\"", value("name", "a b")),
        ("python", SpecError::Missing { agent: "python", key: "name" }),
        ("grhino:level=0", value("level", "0")),
        (
            "grhino:depth=3",
            SpecError::UnknownParameter {
                agent: "grhino",
                key: "depth".into(),
                known: "level, cmd, time, startup, total".into(),
            },
        ),
        ("engine:cmd=\"a b,protocol=gtp", SpecError::UnclosedQuote("cmd=\"a b,protocol=gtp".into())),
    ] {
        let err = spec.parse::<AgentSpec>().expect_err(spec);
        assert!(same(&err, &expected), "{spec}: {err:?}, not {expected:?}");
    }
    // A range is stated as it is checked.
    let err = "engine:cmd=x,protocol=gtp,time=1e9".parse::<AgentSpec>().unwrap_err().to_string();
    assert_eq!(err, "time=1e9: expected seconds, more than 0, at most 86400 (a day)");
}

#[test]
fn models_are_read_and_replaced() {
    let spec: AgentSpec = "net:model=\"a,b\",sims=3+endgame4".parse().unwrap();
    assert_eq!(spec.model(), Some("a,b"));
    assert_eq!(spec.search().map(|s| s.sims), Some(3));
    // Without its network's search: the harness's defaults.
    let plain: AgentSpec = "net:model=m".parse().unwrap();
    assert_eq!(plain.search(), Some(PlayerSearch::new(200, None, othello_search::MctsConfig::default())));
    let moved = spec.with_model(|_| Some("b/m.json".into())).unwrap();
    assert_eq!(moved.to_string(), "net:model=\"b/m.json\",sims=3+endgame4");
    assert_eq!("greedy".parse::<AgentSpec>().unwrap().with_model(|_| Some("x".into())), None);
    assert_eq!(spec.with_model(|_| None), None);
}

/// The evaluation names a checkpoint's player by its search: the name, printed and read back, is that search.
#[test]
fn a_named_search_reads_back_whole() {
    use othello_search::{InteriorSelection, MctsConfig};
    let interior = InteriorSelection::Gumbel;
    let tuned = MctsConfig { score_utility: 0.25, cpuct: 2.0, gumbel_q_rescale: true, interior, ..Default::default() };
    for search in [PlayerSearch::new(200, None, MctsConfig::default()), PlayerSearch::new(256, Some(16), tuned)] {
        let spec = AgentSpec::net("m", search.clone());
        assert_eq!(spec.search().as_ref(), Some(&search));
        assert_eq!(spec.to_string().parse::<AgentSpec>().unwrap().search(), Some(search));
    }
}
