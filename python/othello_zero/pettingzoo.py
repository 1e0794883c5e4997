"""Othello as a PettingZoo AEC environment, in the conventions of PettingZoo's classic games.

Two agents, ``player_0`` (black, who moves first) and ``player_1`` (white), take turns. Each observes a dict:
``observation``, int8 (S, S, 2), its own discs then the opponent's, and ``action_mask``, int8 (S*S + 1,), its legal
actions (none while the other moves). An action is a square index (``a1`` = 0, row by row) or the pass (S*S), which
is legal exactly when the rules force it. At the end the winner gets +1, the loser -1, both 0 on a draw; an illegal
action ends the game with -1 for the agent that played it (PettingZoo's ``TerminateIllegalWrapper``).

>>> from othello_zero.pettingzoo import env
>>> game = env(rules="othello,6x6")
>>> game.reset(seed=0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import State, VecEnv

__all__ = ["env", "raw_env"]


def env(rules: str = "othello", render_mode: str | None = None) -> AECEnv:
    """The environment with PettingZoo's usual wrappers for a classic game (illegal moves end the game, actions out
    of range are refused, the order of calls is enforced)."""
    game: AECEnv = raw_env(rules=rules, render_mode=render_mode)
    game = wrappers.TerminateIllegalWrapper(game, illegal_reward=-1)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)


class raw_env(AECEnv):
    """The environment without wrappers: one game of ``rules`` (any rules string of the command line)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "othello_v0", "is_parallelizable": False}

    def __init__(self, rules: str = "othello", render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode '{render_mode}': expected 'human' or 'ansi'")
        self.render_mode = render_mode
        self._game = VecEnv(rules, num_envs=1)
        actions = self._game.num_actions
        self._size = int(round((actions - 1) ** 0.5))
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        board = spaces.Box(low=0, high=1, shape=(self._size, self._size, 2), dtype=np.int8)
        mask = spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": board, "action_mask": mask}) for a in self.agents}
        self.action_spaces = {a: spaces.Discrete(actions) for a in self.agents}
        self._state: State = self._game.reset()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        # The state's planes are the mover's: the other agent sees them swapped, and has no legal action.
        planes = self._state.observation[0].astype(np.int8)
        mover = self.possible_agents[int(self._state.current_player[0])]
        if agent != mover:
            planes = planes[:, :, ::-1].copy()
        mask = np.zeros(self._game.num_actions, dtype=np.int8)
        if agent == self.agent_selection and not self.terminations[agent]:
            mask[:] = self._state.legal_action_mask[0]
        return {"observation": planes, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._state = self._game.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[int(self._state.current_player[0])]

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0
        self._state = self._game.step(np.array([action], dtype=np.int64))
        if self._state.terminated[0]:
            black, white = self._state.rewards[0]
            self.rewards = {"player_0": int(black), "player_1": int(white)}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[int(self._state.current_player[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        """The board as text (``X`` black, ``O`` white), rows from ``1`` at the top, as ``othello-zero show`` draws."""
        if self.render_mode is None:
            return None
        black, white = int(self._state.black[0]), int(self._state.white[0])
        rows = []
        for row in range(self._size):
            cells = []
            for col in range(self._size):
                bit = 1 << (row * 8 + col)
                cells.append("X" if black & bit else "O" if white & bit else ".")
            rows.append(f"{row + 1:>2} " + " ".join(cells))
        header = "   " + " ".join("abcdefghijklmnopqrstuvwxyz"[: self._size])
        return "\n".join([header, *rows])

    def close(self) -> None:
        pass
