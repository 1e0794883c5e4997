"""Othello as a Gymnasium environment: one side's game against a fixed opponent.

The agent plays ``color`` (``"black"`` moves first); the opponent answers inside ``step``. The observation is a dict:
``observation``, int8 (S, S, 2), the agent's discs then the opponent's, and ``action_mask``, int8 (S*S + 1,), the
agent's legal actions. An action is a square index (``a1`` = 0, row by row) or the pass (S*S), legal exactly when
the rules force it. The reward is +1 for a win, -1 for a loss, 0 for a draw, given on the step that ends the game;
an illegal action ends the game at once with -1 (``info["illegal_action"]``). The opponent is an agent spec
(``"random"``, ``"positional:depth=2"``, ``"net:model=RUN,sims=100"``, ...; made again, seeded, by each ``reset``
given a seed), an ``Agent``, or a callable given the ``Position`` and returning a move (a square name such as
``"d3"``, ``"pass"``, or an action index).

>>> from othello_zero.gymnasium import OthelloEnv
>>> env = OthelloEnv(rules="othello,6x6", opponent="random")
>>> observation, info = env.reset(seed=0)
"""

from __future__ import annotations

from typing import Any, Callable, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import Agent, Position, State, VecEnv

__all__ = ["OthelloEnv", "Opponent"]

#: An opponent: an agent spec, an ``Agent``, or a function of the position to a move (square name, ``"pass"`` or
#: action index).
Opponent = Union[str, Agent, Callable[[Position], Union[str, int]]]


class OthelloEnv(gymnasium.Env):
    """One game of ``rules`` for the agent as ``color`` against ``opponent``."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, rules: str = "othello", opponent: Opponent = "random", color: str = "black",
                 render_mode: str | None = None) -> None:
        if color not in ("black", "white"):
            raise ValueError(f"color '{color}': expected 'black' or 'white'")
        if not callable(opponent) and not isinstance(opponent, (str, Agent)):
            raise ValueError(f"opponent {opponent!r}: expected an agent spec, an Agent or a function of a Position "
                             "to a move")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode '{render_mode}': expected one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._game = VecEnv(rules, num_envs=1)
        self._rules = self._game.rules
        self._player = 0 if color == "black" else 1
        self._spec = opponent if isinstance(opponent, str) else None
        # A spec is made at once, so that a bad one is refused here, and again (seeded) by each seeded reset.
        self._opponent = Agent(opponent) if isinstance(opponent, str) else opponent
        actions = self._game.num_actions
        self._size = int(round((actions - 1) ** 0.5))
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(low=0, high=1, shape=(self._size, self._size, 2), dtype=np.int8),
            "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(actions)
        self._state: State = self._game.reset()
        self._position = Position("", rules=self._rules)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self._state = self._game.reset(seed)
        if self._spec is not None and seed is not None:
            self._opponent = Agent(self._spec, seed)
        self._position = Position("", rules=self._rules)
        self._opponent_moves()
        return self._observation(), {}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._state.terminated[0] or self._position.is_over():
            raise ValueError("step: the game is over (reset it)")
        if not 0 <= int(action) < self._game.num_actions or not self._state.legal_action_mask[0][int(action)]:
            return self._observation(), -1.0, True, False, {"illegal_action": int(action)}
        self._play(int(action))
        if not self._state.terminated[0]:
            self._opponent_moves()
        reward = float(self._state.rewards[0][self._player]) if self._state.terminated[0] else 0.0
        return self._observation(), reward, bool(self._state.terminated[0]), False, {}

    def render(self) -> str | None:
        """The board string (``X`` black, ``O`` white, then the side to move), as ``Position`` prints it."""
        return self._position.board() if self.render_mode == "ansi" else None

    def _opponent_moves(self) -> None:
        """The opponent's moves until the agent's turn or the end (a forced pass is a move)."""
        while not self._state.terminated[0] and int(self._state.current_player[0]) != self._player:
            if isinstance(self._opponent, Agent):
                self._play(self._action(self._opponent.move(self._position)))
            else:
                self._play(self._action(self._opponent(self._position)))

    def _action(self, move: str | int) -> int:
        """The opponent's move as an action index; one that is not legal is a ValueError naming it."""
        if isinstance(move, (int, np.integer)):
            action = int(move)
        elif move == "pass":
            action = self._size * self._size
        else:
            column, row = "abcdefghijklmnopqrstuvwxyz".find(move[:1]), move[1:]
            action = (int(row) - 1) * self._size + column if column >= 0 and row.isdigit() else -1
        if not 0 <= action < self._game.num_actions or not self._state.legal_action_mask[0][action]:
            raise ValueError(f"the opponent's move {move!r} is not legal in {self._position.board()} "
                             f"(legal: {' '.join(self._position.legal_moves())})")
        return action

    def _play(self, action: int) -> None:
        self._state = self._game.step(np.array([action], dtype=np.int64))
        if action == self._size * self._size:
            self._position = self._position.play("pass")
        else:
            row, column = divmod(action, self._size)
            self._position = self._position.play(f"{'abcdefghijklmnopqrstuvwxyz'[column]}{row + 1}")

    def _observation(self) -> dict[str, np.ndarray]:
        planes = self._state.observation[0].astype(np.int8)
        if int(self._state.current_player[0]) != self._player:
            planes = planes[:, :, ::-1].copy()
        mask = np.zeros(self._game.num_actions, dtype=np.int8)
        if int(self._state.current_player[0]) == self._player and not self._state.terminated[0]:
            mask[:] = self._state.legal_action_mask[0]
        return {"observation": planes, "action_mask": mask}
