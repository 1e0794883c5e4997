"""A training loop of your own on a run's replay window, with numpy alone: a linear policy and value on the
positions' discs, fitted by gradient descent to the search's policy and the game's result, as the trainer's own
targets are. A starting point for a PyTorch or JAX model: swap the two linear maps for a network.

    python train_on_replay.py RUN [--positions N] [--epochs E]

Each line: the epoch, its policy cross-entropy and its value mean squared error (both fall as it learns).
"""

from __future__ import annotations

import argparse

import numpy as np

from othello_zero.runs import Run


def features(window: dict[str, np.ndarray]) -> np.ndarray:
    """Each position's own and opponent's discs as 128 floats (bit i of the bitboard: square i), and a bias."""
    bits = np.arange(64, dtype=np.uint64)
    own = (window["player"][:, None] >> bits) & np.uint64(1)
    opponent = (window["opponent"][:, None] >> bits) & np.uint64(1)
    bias = np.ones((len(own), 1))
    return np.concatenate([own, opponent, bias], axis=1).astype(np.float64)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def train(run: str, positions: int | None, epochs: int, rate: float = 0.5, seed: int = 0) -> list[tuple[float, float]]:
    """Full-batch gradient descent; each epoch's (policy cross-entropy, value MSE) before its update."""
    window = Run(run).replay_window(positions=positions)
    x, policy, value = features(window), window["policy"].astype(np.float64), window["value"].astype(np.float64)
    if len(x) == 0:
        raise ValueError(f"{run}: no positions in the replay window")
    rng = np.random.default_rng(seed)
    w_policy = rng.normal(0, 0.01, (x.shape[1], policy.shape[1]))
    w_value = np.zeros(x.shape[1])
    losses = []
    for _ in range(epochs):
        predicted = softmax(x @ w_policy)
        v = np.tanh(x @ w_value)
        losses.append((float(-(policy * np.log(predicted + 1e-12)).sum(axis=1).mean()), float(((v - value) ** 2).mean())))
        w_policy -= rate * x.T @ (predicted - policy) / len(x)
        w_value -= rate * x.T @ ((v - value) * (1 - v**2)) / len(x)
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--positions", type=int, default=None, help="the newest positions only (default: all)")
    parser.add_argument("--epochs", type=int, default=50)
    args = parser.parse_args()
    for epoch, (policy_loss, value_loss) in enumerate(train(args.run, args.positions, args.epochs)):
        print(f"epoch {epoch}: policy {policy_loss:.4f}  value {value_loss:.4f}", flush=True)


if __name__ == "__main__":
    main()
