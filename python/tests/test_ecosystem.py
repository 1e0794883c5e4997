"""The PettingZoo and Gymnasium environments, checked by those libraries' own checkers and against the command
line's replay of the games they played."""

import subprocess

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from othello_zero import Position
from othello_zero.gymnasium import OthelloEnv
from othello_zero.pettingzoo import env, raw_env
from test_othello_zero import VARIANTS, binary, square_name


@pytest.mark.parametrize("rules", VARIANTS)
def test_the_aec_environment_passes_pettingzoos_api_test(rules):
    api_test(env(rules=rules), num_cycles=300)
    api_test(raw_env(rules=rules), num_cycles=300)


@pytest.mark.parametrize("rules", ["othello", "othello,6x6", "reverse"])
def test_aec_games_end_as_the_command_line_replays_them(rules):
    """Seeded random games through the AEC loop: each game's actions, replayed by `othello-zero replay`, end in the
    result the rewards give (+1/-1/0, summing to zero), and each agent saw its own discs first."""
    game = env(rules=rules)
    size = game.unwrapped._size
    transcripts, rewards = [], []
    rng = np.random.default_rng(5)
    for seed in range(60):
        game.reset(seed=seed)
        moves, totals = [], {"player_0": 0, "player_1": 0}
        for agent in game.agent_iter():
            observation, reward, terminated, truncated, _ = game.last()
            totals[agent] += reward
            if terminated or truncated:
                game.step(None)
                continue
            mine = observation["observation"][:, :, 0]
            position = Position(" ".join(moves), rules=rules) if moves else Position("", rules=rules)
            board = position.board().split()[0]
            own = "X" if agent == "player_0" else "O"
            assert [c == own for c in board] == mine.flatten().astype(bool).tolist()
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            moves.append(square_name(action, size))
            game.step(action)
        assert totals["player_0"] == -totals["player_1"] and totals["player_0"] in (-1, 0, 1)
        transcripts.append(" ".join(moves))
        rewards.append(totals["player_0"])
    replay = subprocess.run([binary(), "replay", "--rules", rules], input="\n".join(transcripts) + "\n",
                            capture_output=True, text=True, check=True)
    assert f"{len(transcripts)} games, 0 errors, 0 unfinished" in replay.stderr, replay.stderr
    fewest_win = rules.startswith("reverse")
    for reward, line in zip(rewards, replay.stdout.splitlines()):
        black, white = map(int, line.split())
        assert reward == np.sign(black - white) * (-1 if fewest_win else 1), line


def test_an_illegal_aec_action_ends_the_game_against_its_agent():
    game = env(rules="othello")
    game.reset(seed=0)
    game.step(0)  # a1 is not legal at the start
    assert all(game.terminations.values())
    assert game.rewards == {"player_0": -1, "player_1": 0}


@pytest.mark.parametrize("rules", ["othello", "othello,6x6", "othello,4x4", "reverse"])
@pytest.mark.parametrize("color", ["black", "white"])
def test_the_single_agent_environment_passes_gymnasiums_checker(rules, color):
    check_env(OthelloEnv(rules=rules, color=color), skip_render_check=True)
    check_env(OthelloEnv(rules=rules, color=color, opponent=lambda p: p.legal_moves()[-1]), skip_render_check=True)


def test_an_agent_spec_opponent_plays_as_the_agent_does():
    """A spec opponent is the Agent of that spec: greedy's answers flip the most, and a seeded reset repeats."""
    game = OthelloEnv(rules="othello", opponent="greedy", color="white")
    firsts = []
    for seed in (3, 3):
        game.reset(seed=seed)
        firsts.append(game._position.transcript)
    assert firsts[0] == firsts[1] and firsts[0] in ("f5", "d3", "c4", "e6"), firsts
    check_env(OthelloEnv(rules="othello,6x6", opponent="positional:depth=1"), skip_render_check=True)
    game = OthelloEnv(rules="othello", opponent="greedy")
    observation, _ = game.reset(seed=1)
    before = game._position
    observation, *_ = game.step(19)  # d3
    after_agent = before.play("d3")
    replies = {m: after_agent.play(m).discs()[1] for m in after_agent.legal_moves()}
    assert game._position.discs()[1] == max(replies.values()), game._position.transcript


def test_the_opponent_answers_within_the_step_and_the_reward_is_the_result():
    """Against an opponent that records what it is shown, every game alternates as the rules do: the opponent
    sees the position after the agent's move, and the final reward is the result by the discs."""
    seen = []

    def opponent(position: Position) -> str:
        seen.append(position)
        return position.legal_moves()[0]

    game = OthelloEnv(rules="othello,6x6", opponent=opponent, color="white")
    for seed in range(20):
        seen.clear()
        observation, _ = game.reset(seed=seed)
        assert len(seen) == 1 and seen[0].transcript == ""  # black's first move, before the agent's
        reward, done = 0.0, False
        while not done:
            action = int(np.random.default_rng(seed).choice(np.flatnonzero(observation["action_mask"])))
            observation, reward, done, truncated, info = game.step(action)
            assert not truncated and "illegal_action" not in info
        black, white = game._position.discs()
        assert reward == np.sign(white - black), (game._position.transcript, reward)
    with pytest.raises(ValueError, match="the game is over"):
        game.step(0)


def test_illegal_actions_and_bad_opponents_are_refused():
    game = OthelloEnv(rules="othello")
    observation, _ = game.reset(seed=0)
    assert game.step(0)[1:] == (-1.0, True, False, {"illegal_action": 0})
    with pytest.raises(ValueError, match="agent 'minimax': unknown agent"):
        OthelloEnv(opponent="minimax")
    with pytest.raises(ValueError, match="opponent 42"):
        OthelloEnv(opponent=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="color 'red'"):
        OthelloEnv(color="red")
    with pytest.raises(ValueError, match="rules 'chess'|chess"):
        OthelloEnv(rules="chess")
    cheat = OthelloEnv(rules="othello", color="white", opponent=lambda p: "a1")
    with pytest.raises(ValueError, match="the opponent's move 'a1' is not legal"):
        cheat.reset(seed=0)
