"""Random play side by side: othello_zero's VecEnv against the peers installed beside it (pgx under jax.jit and
vmap, OpenSpiel, rust-reversi), in environment steps a second on this process's cores.

    python random_play.py [--seconds S] [--batch N] [--threads T]

Each line: the library, its setup, steps/s. A peer that is not installed is said so and left out. othello_zero is
measured with pgx's observation and with the network's input planes (float32, six a game); with --threads it also
steps T environments from T Python threads at once.
"""

from __future__ import annotations

import argparse
import functools
import threading
import time
from typing import Callable

import numpy as np

import othello_zero


def othello_zero_steps(batch: int, seconds: float, observation: str = "pgx") -> float:
    env = othello_zero.VecEnv("othello", num_envs=batch, seed=0, autoreset=True, observation=observation)
    env.reset()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.step(env.random_actions())
        steps += batch
    return steps / (time.perf_counter() - start)


def othello_zero_threads(threads: int, batch: int, seconds: float) -> float:
    rates = [0.0] * threads

    def run(i: int) -> None:
        rates[i] = othello_zero_steps(batch, seconds)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(rates)


def pgx_steps(batch: int, seconds: float) -> float:
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make("othello")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))

    @jax.jit
    def random_step(state, key):
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(key, logits, axis=-1)
        state = step(state, action)
        # Finished games start again, as VecEnv's autoreset does.
        fresh = init(jax.random.split(key, batch))
        return jax.tree_util.tree_map(lambda a, b: jnp.where(
            state.terminated.reshape((-1,) + (1,) * (a.ndim - 1)), b, a), state, fresh)

    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, batch))
    state = random_step(state, key)
    jax.block_until_ready(state)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        key, sub = jax.random.split(key)
        state = random_step(state, sub)
        steps += batch
    jax.block_until_ready(state)
    return steps / (time.perf_counter() - start)


def open_spiel_steps(seconds: float) -> float:
    import pyspiel

    game, rng = pyspiel.load_game("othello"), np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps / (time.perf_counter() - start)


def rust_reversi_steps(seconds: float) -> float:
    import random

    from rust_reversi import Board

    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        board = Board()
        while not board.is_game_over():
            if board.is_pass():
                board.do_pass()
            else:
                board.do_move(random.choice(board.get_legal_moves_vec()))
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    rows: list[tuple[str, Callable[[], float]]] = [
        (f"othello_zero VecEnv, batch {args.batch}", lambda: othello_zero_steps(args.batch, args.seconds)),
        (f"othello_zero VecEnv, batch {args.batch}, the network's planes",
         lambda: othello_zero_steps(args.batch, args.seconds, "planes"))]
    if args.threads > 1:
        rows.append((f"othello_zero VecEnv, batch {args.batch}, {args.threads} threads",
                     functools.partial(othello_zero_threads, args.threads, args.batch, args.seconds)))
    for batch in (1024, 4096):
        rows.append((f"pgx othello, jit + vmap, batch {batch}", functools.partial(pgx_steps, batch, args.seconds)))
    rows.append(("OpenSpiel othello, a call a move", lambda: open_spiel_steps(args.seconds)))
    rows.append(("rust-reversi, a call a move", lambda: rust_reversi_steps(args.seconds)))
    for name, measure in rows:
        try:
            print(f"{name}: {measure():,.0f} steps/s", flush=True)
        except ImportError as missing:
            print(f"{name}: not installed ({missing.name})", flush=True)


if __name__ == "__main__":
    main()
