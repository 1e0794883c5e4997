"""othello-zero from Python: a batched Othello environment, positions, the exact solver, every player and the
arena, at Rust speed.

``VecEnv`` steps many games at once, numpy in and out, in pgx's shape; ``Position`` is one game; ``solve`` and
``perft`` are those of the ``othello-zero`` command line; ``Agent`` is any player an agent spec names, and ``arena``
plays specs and Python functions against each other into an arena directory that ``othello-zero ratings`` reads. A
bad argument is a ``ValueError`` with the command line's one-line message.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._core import Agent, Position, perft, solve
from ._core import VecEnv as _VecEnv

__all__ = ["VecEnv", "State", "Position", "solve", "perft", "Agent", "Player", "ArenaResult", "arena"]


class State(NamedTuple):
    """The games after a step (N games of S x S squares), named as pgx names them.

    observation: bool (N, S, S, 2), the discs of the side to move, then the opponent's; with
        ``observation="planes"`` the network's input, float32 (N, 6, S, S): own discs, opponent's, legal moves, the
        board's squares, own stable discs, opponent's stable discs (stability on 8x8 only), as ``othello-zero``'s
        networks read them.
    legal_action_mask: bool (N, S*S + 1): the legal squares (row by row, ``a1`` first), then the pass.
    current_player: int32 (N,), 0 when black moves, 1 when white does.
    rewards: float32 (N, 2), black's and white's: +1 for a win, -1 for a loss, on the step that ends a game.
    terminated: bool (N,): the game ended on this step (with autoreset it has started again).
    black, white: uint64 (N,), the discs as bitboards (bit ``8 * row + column``).
    """

    observation: np.ndarray
    legal_action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    black: np.ndarray
    white: np.ndarray


class VecEnv:
    """``num_envs`` games of ``rules`` (``"othello"``, ``"othello,6x6"``, ``"reverse"``, ``"traditional"``, ...),
    stepped together.

    An action is a square index (``a1`` = 0, row by row: row r, column c is ``r * S + c``) or the pass (``S * S``),
    legal exactly when the rules force it. With ``autoreset=True`` a finished game starts again on the step that
    ends it, that step still reporting its rewards and ``terminated``. The random draws of ``random_actions`` are
    seeded by ``seed``.

    >>> env = VecEnv("othello", num_envs=2, seed=0)
    >>> state = env.reset()
    >>> state = env.step(env.random_actions())
    """

    def __init__(self, rules: str = "othello", num_envs: int = 1, seed: int = 0, autoreset: bool = False,
                 observation: str = "pgx") -> None:
        self._env = _VecEnv(rules, num_envs, seed, autoreset, observation)

    @property
    def num_envs(self) -> int:
        """The number of games."""
        return self._env.num_envs

    @property
    def num_actions(self) -> int:
        """Actions a game has: S * S squares and the pass."""
        return self._env.num_actions

    @property
    def observation(self) -> str:
        """``"pgx"`` or ``"planes"``: the form of the states' observation."""
        return self._env.observation

    @property
    def rules(self) -> str:
        """The rules, as their string."""
        return self._env.rules

    def reset(self, seed: int | None = None) -> State:
        """Every game back at the start (the random draws reseeded with ``seed`` where given)."""
        return _state(self._env.reset(seed))

    def step(self, actions: np.ndarray) -> State:
        """Plays one action in every game (integers, shape ``(num_envs,)``). An illegal action, or a finished game
        stepped without autoreset, is a ``ValueError`` naming the game and the move, and no game moves."""
        array = np.asarray(actions)
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
            raise ValueError(
                f"actions: expected integers of shape ({self.num_envs},), got {array.dtype} of shape {array.shape}")
        return _state(self._env.step(np.ascontiguousarray(array, dtype=np.int64)))

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action for each game (int64; -1 for a finished game)."""
        return self._env.random_actions()


def _state(fields: dict) -> State:
    """The extension's fields as a State: its bytes of 0 or 1 seen, without a copy, as numpy's bool."""
    if fields["observation"].dtype == np.uint8:
        fields["observation"] = fields["observation"].view(np.bool_)
    fields["legal_action_mask"] = fields["legal_action_mask"].view(np.bool_)
    return State(**fields)


#: A player of the arena: an agent spec (``"positional:depth=2"``), an ``Agent``, a function of a ``Position`` to
#: a move (a square name such as ``"d3"``, ``"pass"``, or an action index), named by its ``__name__``, or such a
#: function given as ``(name, function)``.
Player = Union[str, Agent, Callable[[Position], Union[str, int]], Tuple[str, Callable[[Position], Union[str, int]]]]


class ArenaResult(NamedTuple):
    """What an arena directory holds once its games are played.

    results: one dict a game, as ``results.csv`` has it: ``key``, ``pair``, ``black``, ``white``, ``opening``,
        ``black_discs``, ``white_discs``, ``black_score`` (1, 0.5 or 0), ``ending`` (``normal`` or ``forfeit``),
        ``reason``, ``moves``, ``black_seconds``, ``white_seconds``; its record is ``games/KEY.ggf``.
    ratings: ``ratings.json``: ``anchor``, ``anchor_elo``, ``games`` and ``ratings``, best first, each with
        ``player``, ``elo``, ``interval95``, ``std_error``, ``games`` and ``score``.
    """

    results: list[dict[str, Any]]
    ratings: dict[str, Any]

    def elo(self) -> dict[str, float]:
        """Each player's Elo, by name (a function plays as ``python:name=NAME``)."""
        return {row["player"]: row["elo"] for row in self.ratings["ratings"]}


_NUMBERS: dict[str, Callable[[str], Any]] = {
    "pair": int, "black_discs": int, "white_discs": int, "black_score": float, "black_seconds": float,
    "white_seconds": float}


def arena(players: Sequence[Player], out: str | Path, games: int = 20, rules: str = "othello", seed: int = 1,
          openings: str = "shipped", opening_plies: int = 4, threads: int = 1,
          gauntlet: Player | None = None) -> ArenaResult:
    """Plays a round robin between ``players`` (with ``gauntlet``: that player against each of them), ``games`` a
    pairing, into the arena directory ``out``, and rates them: the same directory as ``othello-zero arena`` writes
    (results.csv, games/, ratings.csv, ratings.json), so that ``othello-zero ratings OUT`` reads it and a rerun
    continues it. ``openings``: ``"shipped"``, ``"random"`` (``opening_plies`` random moves) or an openings file.
    A function that raises or answers an illegal move forfeits that game (the first traceback is printed)."""
    out = Path(out)
    _core.arena(list(players), out, games, rules, seed, openings, opening_plies, threads, gauntlet)
    with open(out / "results.csv", newline="") as f:
        results: list[dict[str, Any]] = list(csv.DictReader(f))
    for row in results:
        for column, kind in _NUMBERS.items():
            row[column] = kind(row[column])
    ratings: dict[str, Any] = json.loads((out / "ratings.json").read_text())
    return ArenaResult(results, ratings)
