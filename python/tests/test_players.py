"""Every player from Python and the arena: agents against independent truths (the flips counted here, the exact
solver, the shipped networks' rules), Python functions playing specs in the arena, and the directory it writes read
back by the command line's `ratings`."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import othello_zero
from othello_zero import Agent, Position, arena, solve
from test_othello_zero import REPO, binary

NETWORK_8X8 = REPO / "networks" / "othello-8x8" / "model.json"
NETWORK_6X6 = REPO / "networks" / "othello-6x6" / "model.json"


def random_position(rules: str, empties: int, seed: int) -> Position:
    """A position `empties` squares from full, reached by seeded random moves (passes included)."""
    rng = np.random.default_rng(seed)
    while True:
        position = Position("", rules=rules)
        while not position.is_over() and position.board().count("-") > empties:
            position = position.play(str(rng.choice(position.legal_moves())))
        if not position.is_over() or empties == 0:
            return position


def flips(position: Position, move: str) -> int:
    mover = 0 if position.side_to_move == "black" else 1
    return position.play(move).discs()[mover] - position.discs()[mover] - 1


def test_every_agent_kind_plays_legal_moves_through_a_game():
    own_engine = f'engine:cmd="{binary()} nboard --agent positional:depth=1",protocol=nboard'
    # GRhino where the Rust test that runs this suite found or installed it (GRHINO: its program).
    grhino = [f'grhino:level=1,cmd="{os.environ["GRHINO"]}"'] if os.environ.get("GRHINO") else []
    specs = {
        "othello": ["random", "greedy", "positional:depth=2", "pattern:depth=2", "mcts:sims=20",
                    f'policy:model="{NETWORK_8X8}"', f'net:model="{NETWORK_8X8}",sims=8', own_engine,
                    "positional:depth=1+endgame8"] + grhino,
        "othello,6x6": [f'net:model="{NETWORK_6X6}",sims=8,gumbel=4', "mcts:sims=10"],
    }
    for rules, kinds in specs.items():
        for spec in kinds:
            agent = Agent(spec, seed=3)
            position = Position("", rules=rules)
            while not position.is_over():
                move = agent.move(position)
                assert move in position.legal_moves(), (spec, position.transcript, move)
                position = position.play(move)
            assert sum(position.discs()) > 0


def test_greedy_flips_the_most_and_an_endgame_suffix_plays_perfectly():
    greedy, perfect = Agent("greedy", seed=1), Agent("random+endgame12", seed=1)
    for seed in range(8):
        middle = random_position("othello", 40, seed)
        most = max(flips(middle, m) for m in middle.legal_moves())
        assert flips(middle, greedy.move(middle)) == most, middle.board()
        end = random_position("othello", 12, seed)
        if end.legal_moves() != ["pass"]:
            assert perfect.move(end) in solve(end)["best_moves"], end.board()


def test_seeded_agents_repeat_and_the_spec_prints_canonically():
    position = random_position("othello", 50, 0)
    moves = [[Agent("mcts:sims=30", seed=s).move(position) for s in (4, 4, 5)] for _ in range(2)]
    assert moves[0] == moves[1] and moves[0][0] == moves[0][1]
    assert Agent("net:sims=8,model=" + str(NETWORK_8X8)).spec == f'net:model="{NETWORK_8X8}",sims=8'


def weighted(position: Position) -> int:
    """A numpy player: the legal action with the most discs of its own after it (action indices, as VecEnv)."""
    legal = np.flatnonzero(position.legal_action_mask())
    mover = 0 if position.side_to_move == "black" else 1
    return int(max(legal, key=lambda a: position.play(int(a)).discs()[mover]))


def test_the_arena_plays_functions_and_specs_into_a_directory_the_command_line_rates(tmp_path):
    seen = []

    def first_legal(position: Position) -> str:
        seen.append(position.side_to_move)
        return position.legal_moves()[0]

    out = tmp_path / "arena"
    result = arena([weighted, first_legal, "random", Agent("greedy")], out=out, games=4, rules="othello,6x6",
                   threads=2, seed=7)
    names = {"python:name=weighted", "python:name=first_legal", "random", "greedy"}
    assert len(result.results) == 6 * 4 and {r["ending"] for r in result.results} == {"normal"}
    assert {r["black"] for r in result.results} == names and set(result.elo()) == names
    assert seen and set(seen) == {"black", "white"}
    # The command line rates the same directory to the same table.
    rated = subprocess.run([binary(), "ratings", str(out)], capture_output=True, text=True)
    assert rated.returncode == 0, rated.stderr
    assert json.loads((out / "ratings.json").read_text()) == result.ratings
    for row in result.ratings["ratings"]:
        assert row["player"] in rated.stdout
    # A rerun continues: nothing more to play, the same games.
    again = arena([weighted, first_legal, "random", "greedy"], out=out, games=4, rules="othello,6x6", seed=7)
    assert again.results == result.results
    # Every game's record replays under the command line to the discs stored.
    records = tmp_path / "all.ggf"
    records.write_text("".join(f.read_text() for f in sorted((out / "games").glob("*.ggf"))))
    replayed = subprocess.run([binary(), "replay", "--ggf", "--file", str(records), "--rules", "othello,6x6"],
                              capture_output=True, text=True)
    assert replayed.returncode == 0, replayed.stderr
    finals = sorted(tuple(map(int, line.split())) for line in replayed.stdout.splitlines())
    assert finals == sorted((r["black_discs"], r["white_discs"]) for r in result.results)


def test_a_function_that_fails_forfeits_its_games(tmp_path, capfd):
    def broken(position: Position) -> str:
        raise RuntimeError("no idea")

    def cheat(position: Position) -> str:
        return "a1"

    result = arena([broken, cheat, "greedy"], out=tmp_path / "a", games=2, rules="othello,6x6")
    forfeits = [r for r in result.results if r["ending"] == "forfeit"]
    reasons = " ".join(r["reason"] for r in forfeits)
    assert "RuntimeError: no idea" in reasons and "illegal move a1" in reasons, reasons
    assert all(r["black_score"] in (0.0, 1.0) for r in forfeits)
    assert "no idea" in capfd.readouterr().err  # the first traceback is shown


def test_a_python_player_outside_python_is_refused_clearly():
    out = subprocess.run([binary(), "arena", "--out", "unused", "--agents", "python:name=mine", "random"],
                         capture_output=True, text=True)
    assert out.returncode != 0
    assert "no Python player named 'mine'" in out.stderr and "panicked" not in out.stderr, out.stderr


@pytest.mark.parametrize("call, message", [
    (lambda: Agent("minimax"), "agent 'minimax': unknown agent"),
    (lambda: Agent("net:model=/nowhere,sims=8"), "/nowhere"),
    (lambda: Agent("pattern:depth=2").move(Position("", rules="othello,6x6")), "othello,6x6"),
    (lambda: Agent("random").move(random_position("othello,4x4", 0, 1)), "the game is over"),
    (lambda: arena([lambda p: "pass", "random"], out="unused"), "'<lambda>'"),
    (lambda: arena([("a b", weighted), "random"], out="unused"), "'a b'"),
    (lambda: arena([("same", weighted), ("same", weighted)], out="unused"), "already playing"),
    (lambda: arena([42, "random"], out="unused"), "expected an agent spec"),
    (lambda: arena(["random", "greedy"], out="unused", games=0), "games 0"),
    (lambda: arena(["random", "greedy"], out="unused", rules="othello,6x6", openings="random", opening_plies=40),
     "at most 32 moves"),
    (lambda: Position("").play(99), "99: expected an action from 0 to 64"),
])
def test_bad_players_are_a_value_error_with_one_line(call, message):
    with pytest.raises(ValueError) as raised:
        call()
    text = str(raised.value)
    assert message in text and "\n" not in text and "panicked" not in text, text


def test_the_numpy_player_example_is_rated_against_greedy_and_positional(tmp_path):
    out = subprocess.run([sys.executable, str(REPO / "python" / "examples" / "numpy_player.py"), "--out",
                          str(tmp_path / "rated"), "--games", "2", "--threads", "2"],
                         capture_output=True, text=True, check=True).stdout
    for player in ("python:name=weighted_lookahead", "greedy", "positional:depth=2"):
        assert player in out, out
    assert (tmp_path / "rated" / "ratings.json").exists()


def test_the_module_documents_its_players():
    for item in (Agent, Agent.move, arena, othello_zero.ArenaResult, Position.observation,
                 Position.legal_action_mask):
        assert item.__doc__, item
