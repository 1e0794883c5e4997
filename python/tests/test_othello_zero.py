"""The package against independent truths: the othello-zero command line's own replay of the same games, the
published perft counts and the FFO endgame suite (both in the repository's data/), and every bad input refused
with a ValueError."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import othello_zero
from othello_zero import Position, VecEnv, perft, solve

REPO = Path(__file__).resolve().parents[2]


def binary() -> str:
    """The othello-zero binary: OTHELLO_ZERO_BIN where set, else the newer of the release and debug builds."""
    if os.environ.get("OTHELLO_ZERO_BIN"):
        return os.environ["OTHELLO_ZERO_BIN"]
    builds = [p for p in (REPO / "target" / "release" / "othello-zero", REPO / "target" / "debug" / "othello-zero")
              if p.exists()]
    if not builds:
        pytest.fail("no othello-zero binary: build it first (cargo build --release), or set OTHELLO_ZERO_BIN")
    return str(max(builds, key=lambda p: p.stat().st_mtime))


def square_name(action: int, size: int) -> str:
    return "pass" if action == size * size else f"{chr(ord('a') + action % size)}{action // size + 1}"


VARIANTS = ["othello", "othello,6x6", "othello,4x4", "reverse", "traditional", "othello,empties", "othello,mirror"]


@pytest.mark.parametrize("rules", VARIANTS)
def test_random_games_end_as_the_command_line_replays_them(rules):
    """Seeded random games, 64 at a time with autoreset, until 400 have ended: each ended game's moves, replayed by
    `othello-zero replay`, make a finished game of the same length whose winner the rewards name."""
    env = VecEnv(rules, num_envs=64, seed=7, autoreset=True)
    size = int(np.sqrt(env.num_actions - 1))
    state = env.reset()
    moves = [[] for _ in range(env.num_envs)]
    ended = []  # (transcript, black's reward)
    while len(ended) < 400:
        actions = env.random_actions()
        assert state.legal_action_mask[np.arange(env.num_envs), actions].all()
        state = env.step(actions)
        for i, action in enumerate(actions):
            moves[i].append(square_name(int(action), size))
            if state.terminated[i]:
                ended.append((" ".join(moves[i]), float(state.rewards[i, 0])))
                assert state.rewards[i, 0] == -state.rewards[i, 1]
                moves[i] = []
            else:
                assert (state.rewards[i] == 0).all()
    replay = subprocess.run([binary(), "replay", "--rules", rules], input="\n".join(t for t, _ in ended) + "\n",
                            capture_output=True, text=True, check=True)
    assert f"{len(ended)} games, 0 errors, 0 unfinished" in replay.stderr, replay.stderr
    fewest_win = rules.startswith("reverse")
    for (transcript, reward), line in zip(ended, replay.stdout.splitlines()):
        black, white = map(int, line.split())
        winner = np.sign(black - white) * (-1 if fewest_win else 1)
        assert reward == winner, (transcript, line, reward)


@pytest.mark.parametrize("rules", ["othello", "othello,6x6", "othello,4x4", "reverse"])
def test_the_planes_are_those_of_the_independent_encoder(rules):
    """`observation="planes"`: each game's planes equal python/othello_encode.py's (its own rules and stability code,
    written apart from the Rust), cut to the board, along seeded random games, with the same masks as pgx's form."""
    sys.path.insert(0, str(REPO / "python"))
    import othello_encode

    env = VecEnv(rules, num_envs=32, seed=11, autoreset=True, observation="planes")
    twin = VecEnv(rules, num_envs=32, seed=11, autoreset=True)
    assert env.observation == "planes" and twin.observation == "pgx"
    size = int(np.sqrt(env.num_actions - 1))
    state, pgx = env.reset(), twin.reset()
    for _ in range(70):
        assert state.observation.shape == (32, 6, size, size) and state.observation.dtype == np.float32
        assert (state.legal_action_mask == pgx.legal_action_mask).all()
        assert (state.observation[:, :2] == pgx.observation.transpose(0, 3, 1, 2)).all()
        for i in range(env.num_envs):
            black, white = int(state.black[i]), int(state.white[i])
            player, opponent = (black, white) if state.current_player[i] == 0 else (white, black)
            expected = othello_encode.encode(player, opponent, size)[:, :size, :size]
            assert (state.observation[i] == expected).all(), (rules, i)
        actions = env.random_actions()
        state, pgx = env.step(actions), twin.step(actions)


def test_the_state_describes_the_boards():
    """The observation, the bitboards and the legal moves agree with one another and with Position."""
    env = VecEnv("othello", num_envs=8, seed=3)
    state = env.reset()
    assert state.observation.shape == (8, 8, 8, 2) and state.observation.dtype == np.bool_
    assert state.legal_action_mask.shape == (8, 65) and state.current_player.tolist() == [0] * 8
    start = Position("")
    assert sorted(np.flatnonzero(state.legal_action_mask[0])) == sorted(
        8 * (int(m[1]) - 1) + ord(m[0]) - ord("a") for m in start.legal_moves())
    for _ in range(20):
        state = env.step(env.random_actions())
    for i in range(8):
        black = [bool(state.black[i] >> (8 * r + c) & 1) for r in range(8) for c in range(8)]
        white = [bool(state.white[i] >> (8 * r + c) & 1) for r in range(8) for c in range(8)]
        mover, other = (black, white) if state.current_player[i] == 0 else (white, black)
        assert state.observation[i, :, :, 0].ravel().tolist() == mover
        assert state.observation[i, :, :, 1].ravel().tolist() == other


def test_draws_are_seeded():
    a, b = VecEnv(num_envs=16, seed=5), VecEnv(num_envs=16, seed=5)
    for _ in range(30):
        actions = a.random_actions()
        assert (actions == b.random_actions()).all()
        a.step(actions), b.step(actions)
    assert not (VecEnv(num_envs=16, seed=6).random_actions() == VecEnv(num_envs=16, seed=5).random_actions()).all()


def test_perft_matches_the_published_counts():
    table = [line.split() for line in (REPO / "data" / "perft.txt").read_text().splitlines() if line[:1].isdigit()]
    for n, edges, leaves, no_pass, *_ in table[:10]:
        assert perft(int(n)) == int(edges)
        assert perft(int(n), convention="leaves") == int(leaves)
        assert perft(int(n), convention="no-pass") == int(no_pass)


def test_the_solver_solves_ffo_40_to_42():
    lines = [line.split() for line in (REPO / "data" / "ffo-40-59.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    for board, side, best, score, name, _ in lines[:3]:
        result = solve(Position(f"{board} {side}"))
        assert result["score"] == int(score), name
        assert sorted(result["best_moves"]) == sorted(best.split(",")), name


def test_a_position_plays_and_prints_back():
    pos = Position("f5d6c3")
    assert pos.transcript == "f5d6c3" and pos.side_to_move == "white"
    assert Position(pos.board()) == pos and str(pos) == pos.board()
    replay = subprocess.run([binary(), "replay"], input="f5d6c3d3\n", capture_output=True, text=True, check=True)
    assert pos.play("d3").discs() == tuple(map(int, replay.stdout.split()))
    small = Position("", rules="othello,4x4")
    assert small.rules == "othello,4x4" and len(small.board().split()[0]) == 16
    assert not small.is_over()


def test_two_threads_step_two_environments():
    envs = [VecEnv(num_envs=256, seed=s, autoreset=True) for s in (1, 2)]
    errors = []

    def play(env):
        try:
            for _ in range(200):
                env.step(env.random_actions())
        except Exception as e:  # noqa: BLE001 - any failure is the test's
            errors.append(e)

    threads = [threading.Thread(target=play, args=(env,)) for env in envs]
    [t.start() for t in threads], [t.join() for t in threads]
    assert not errors, errors


@pytest.mark.parametrize("call, message", [
    (lambda: VecEnv("othello,7x7"), "7x7"),
    (lambda: VecEnv(num_envs=0), "num_envs = 0"),
    (lambda: VecEnv(observation="pixels"), "observation 'pixels': expected 'pgx' or 'planes'"),
    (lambda: VecEnv(num_envs=2).step(np.array([19.5, 26.0])), "float64"),
    (lambda: VecEnv(num_envs=2).step(np.array([19, 26, 37])), "shape (3,)"),
    (lambda: VecEnv(num_envs=2).step([19, 0]), "game 1: a1 (action 0) is not legal; legal: d3 c4 f5 e6"),
    (lambda: VecEnv(num_envs=1).step([64]), "game 0: the pass (action 64) is not legal"),
    (lambda: VecEnv(num_envs=1).step([65]), "action 65 is neither a square"),
    (lambda: VecEnv(num_envs=1).step([-1]), "action -1"),
    (lambda: Position("zz"), "neither a board string"),
    (lambda: Position("f5").play("f5"), "not a legal move"),
    (lambda: Position("f5").play("j9"), "move 'j9'"),
    (lambda: Position("-" * 16 + " X", rules="othello"), "the board has 16 squares (4x4) but the rules want 64 (8x8)"),
    (lambda: perft(3, convention="nodes"), "convention 'nodes'"),
    (lambda: perft(30), "at most 21"),
    (lambda: perft(3, rules="othello,start=x"), "rules 'othello,start=x'"),
])
def test_bad_input_is_a_value_error_with_one_line(call, message):
    with pytest.raises(ValueError) as raised:
        call()
    text = str(raised.value)
    assert message in text and "\n" not in text and "panicked" not in text, text


def test_a_finished_game_is_not_stepped_without_autoreset():
    env = VecEnv("othello,4x4", num_envs=4, seed=1)
    state = env.reset()
    while not state.terminated.any():
        state = env.step(env.random_actions())
    with pytest.raises(ValueError, match=r"game \d+ is over: reset the environment, or make it with autoreset=True"):
        env.step(env.random_actions())
    before = env.random_actions()
    assert (before[state.terminated] == -1).all()


def test_one_bad_action_moves_no_game():
    env = VecEnv(num_envs=3, seed=2)
    env.reset()
    with pytest.raises(ValueError):
        env.step([19, 19, 0])
    state = env.step([19, 26, 37])
    assert (state.black != 0).all() and state.current_player.tolist() == [1, 1, 1]


def test_the_package_documents_itself():
    for item in (othello_zero, VecEnv, VecEnv.step, VecEnv.reset, VecEnv.random_actions, Position, solve, perft,
                 othello_zero.State):
        assert item.__doc__, item


def test_the_random_play_example_runs():
    """The side-by-side benchmark runs, naming each peer it measures or that is not installed."""
    out = subprocess.run([sys.executable, str(REPO / "python" / "examples" / "random_play.py"), "--seconds", "0.2",
                          "--batch", "64"], capture_output=True, text=True, check=True).stdout
    assert "othello_zero VecEnv, batch 64: " in out and "steps/s" in out, out
    assert "the network's planes: " in out and len(out.splitlines()) == 6, out


def test_the_package_and_the_examples_type_check():
    """The package's types (its stubs and py.typed) check the examples as an editor would, and the package's
    Python modules against the stubs and the libraries they build on."""
    mypy = [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental"]
    for target in ([str(REPO / "python" / "examples")], ["-p", "othello_zero"]):
        checked = subprocess.run(mypy + target, capture_output=True, text=True, cwd=REPO / "python" / "tests")
        assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_readmes_example_runs(capsys, monkeypatch, tmp_path):
    """The README's Python example, as printed there: the environment's shapes, FFO #42's exact result and a
    pattern player's move, then the arena's ratings of a function against two specs."""
    readme = (REPO / "README.md").read_text()
    example = readme.split("```python\n")[1].split("```")[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "README.md", "exec"), {})
    shapes, solved, rated = capsys.readouterr().out.splitlines()
    assert shapes.startswith("(4096, 8, 8, 2) (4096, 65) ")
    assert solved.startswith("{'score': 6, 'best_moves': ['g2']") and " 3005288 " in solved
    assert solved.split()[-1] in Position(readme.split('oz.Position("')[1].split('"')[0]).legal_moves()
    assert set(eval(rated)) == {"python:name=first", "greedy", "positional:depth=2"}
    assert (tmp_path / "arena" / "ratings.json").exists()
