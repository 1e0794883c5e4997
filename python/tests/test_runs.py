"""A run directory read from Python, against what the othello-zero command line wrote into it: the replay window
holds the self-play games in the order they arrived, each a legal game from the start; the checkpoints and the
ratings are those the trainer and the arena wrote; a damaged shard is named."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from othello_zero import Position
from othello_zero.runs import Run, load_shard
from test_othello_zero import binary

CONFIG = """rules = "othello,4x4"
[selfplay]
evaluator = "rollouts"
rollouts = 1
games_per_shard = 4
[network]
blocks = 1
filters = 8
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """12 self-play games in three shards, the random initialisation's checkpoint, and 4 rated games in RUN/eval."""
    path = tmp_path_factory.mktemp("runs") / "run"
    config = path.parent / "small.toml"
    config.write_text(CONFIG)
    for args in (["selfplay", "--run", str(path), "--games", "12", "--config", str(config)],
                 ["train", "--run", str(path), "--steps", "1", "--exit-when-starved"],
                 ["arena", "--out", str(path / "eval"), "--agents", "random", "greedy", "--games", "4", "--rules",
                  "othello,4x4", "--openings", "random"]):
        subprocess.run([binary(), *args], capture_output=True, text=True, check=True)
    # Arrival order is modification time: make it the reverse of the names' order.
    for age, shard in enumerate(sorted((path / "replay").glob("*.npz"))):
        os.utime(shard, ns=(10**18 - age * 10**9, 10**18 - age * 10**9))
    return path


def board(row: dict, i: int) -> str:
    """Row i's position as a board string of 4x4."""
    black, white = (row["player"][i], row["opponent"][i])
    if row["side"][i] == 1:
        black, white = white, black
    cells = "".join("X" if int(black) >> (8 * r + c) & 1 else "O" if int(white) >> (8 * r + c) & 1 else "-"
                    for r in range(4) for c in range(4))
    return f"{cells} {'O' if row['side'][i] else 'X'}"


def test_the_window_holds_the_games_in_arrival_order(run):
    shards = Run(run).shards()
    assert [p.name for p in shards] == sorted((p.name for p in shards), reverse=True)
    window = Run(run).replay_window()
    assert sum(len(load_shard(p)["player"]) for p in shards) == len(window["player"])
    # The rows come shard by shard in arrival order: the games of the newest-named shard first.
    first = load_shard(shards[0])
    assert (window["game"][: len(first["game"])] == first["game"]).all()
    assert np.allclose(window["policy"].sum(axis=1), 1.0, atol=1e-4)
    games = np.unique(window["game"])
    assert len(games) == 12
    for game in games:
        rows = {name: array[window["game"] == game] for name, array in window.items()}
        order = np.argsort(rows["ply"], kind="stable")
        rows = {name: array[order] for name, array in rows.items()}
        position = Position("", rules="othello,4x4")
        assert board(rows, 0) == position.board()
        for i in range(1, len(rows["ply"])):
            assert board(rows, i) in successors(position), (game, i)
            position = Position(board(rows, i), rules="othello,4x4")


def successors(position: Position) -> set:
    """The boards one move on, and past a pass the rules force then (a forced pass may leave no row)."""
    after = [position.play(m) for m in position.legal_moves()]
    return {p.board() for p in after} | {p.play("pass").board() for p in after if p.legal_moves() == ["pass"]}


@pytest.mark.parametrize("positions", [0, 1, 30, None])
def test_the_window_is_the_newest_positions(run, positions):
    whole = Run(run).replay_window()
    total = len(whole["player"])
    wanted = total if positions is None else positions
    window = Run(run).replay_window(positions=positions)
    for name, array in window.items():
        assert len(array) == wanted and (array == whole[name][total - wanted:]).all(), name
    assert len(Run(run).replay_window(positions=total + 5)["player"]) == total


def test_the_checkpoints_and_the_ratings_are_those_written(run):
    (checkpoint,) = Run(run).checkpoints()
    assert checkpoint["step"] == 0 and checkpoint["architecture"]["filters"] == 8
    assert Path(checkpoint["path"]).exists() and checkpoint["path"].endswith("model-000000000.bpk")
    ratings = Run(run).ratings()
    games = len((run / "eval" / "results.csv").read_text().splitlines()) - 1  # the header
    assert ratings is not None and ratings["games"] == games == 4 and ratings["anchor"] == "random"
    assert sorted(r["player"] for r in ratings["ratings"]) == ["greedy", "random"]
    assert Run(run.parent).ratings() is None and Run(run.parent).checkpoints() == []


def test_a_damaged_shard_is_named_or_left_out(run, tmp_path):
    copy = tmp_path / "run"
    (copy / "replay").mkdir(parents=True)
    good = Run(run).shards()[0]
    (copy / "replay" / good.name).write_bytes(good.read_bytes())
    bad = copy / "replay" / "zz-damaged.npz"
    bad.write_bytes(good.read_bytes()[:200])
    os.utime(bad, ns=(2 * 10**18, 2 * 10**18))
    with pytest.raises(ValueError, match="zz-damaged.npz: not a readable shard"):
        Run(copy).replay_window()
    with pytest.warns(UserWarning, match="left out: .*zz-damaged.npz"):
        window = Run(copy).replay_window(skip_invalid=True)
    assert len(window["player"]) == len(load_shard(good)["player"])
    with pytest.raises(ValueError, match="no such run directory"):
        Run(tmp_path / "nothing")
    with pytest.raises(ValueError, match="positions = -1"):
        Run(copy).replay_window(positions=-1)


def test_the_training_loop_example_learns_from_the_window(run):
    """python/examples/train_on_replay.py on the run: both losses fall over its epochs."""
    example = Path(__file__).resolve().parents[1] / "examples" / "train_on_replay.py"
    out = subprocess.run([sys.executable, str(example), str(run), "--epochs", "30"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    first, last = ([float(x) for x in line.split()[3::2]] for line in (out[0], out[-1]))
    assert len(out) == 30 and last[0] < first[0] and last[1] < first[1], (out[0], out[-1])
