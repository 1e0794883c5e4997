"""A player written in Python with numpy alone, rated in the arena against othello-zero's `greedy` and
`positional:depth=2`.

    python numpy_player.py [--out DIR] [--games N] [--threads T]

The player looks one move ahead: the classic square weights of the discs it would own, less the opponent's, less
the opponent's mobility. The arena directory it writes is the command line's, so `othello-zero ratings DIR` reads it.
"""

from __future__ import annotations

import argparse
import tempfile

import numpy as np

import othello_zero
from othello_zero import Position

# The classic 8x8 square weights: corners prized, the squares beside them shunned.
WEIGHTS = np.array([
    [100, -20, 10, 5, 5, 10, -20, 100],
    [-20, -50, -2, -2, -2, -2, -50, -20],
    [10, -2, -1, -1, -1, -1, -2, 10],
    [5, -2, -1, -1, -1, -1, -2, 5],
    [5, -2, -1, -1, -1, -1, -2, 5],
    [10, -2, -1, -1, -1, -1, -2, 10],
    [-20, -50, -2, -2, -2, -2, -50, -20],
    [100, -20, 10, 5, 5, 10, -20, 100],
])


def weighted_lookahead(position: Position) -> int:
    """The action whose resulting position scores best for the side to move now."""
    legal = np.flatnonzero(position.legal_action_mask())
    if len(legal) == 1:
        return int(legal[0])  # one move, or the forced pass
    scores = []
    for action in legal:
        after = position.play(int(action))
        board = after.observation()  # the opponent's discs first: it moves next
        theirs, mine = board[:, :, 0], board[:, :, 1]
        mobility = int(after.legal_action_mask()[:-1].sum())
        scores.append(int((WEIGHTS * mine).sum() - (WEIGHTS * theirs).sum()) - 5 * mobility)
    return int(legal[int(np.argmax(scores))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="the arena directory (default: a temporary one)")
    parser.add_argument("--games", type=int, default=20, help="games a pairing")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        result = othello_zero.arena([weighted_lookahead, "greedy", "positional:depth=2"], out=args.out or scratch,
                                    games=args.games, threads=args.threads)
    for row in result.ratings["ratings"]:
        print(f"{row['player']:32} {row['elo']:7.1f} +- {row['interval95']:5.1f}  "
              f"{row['score']:5.1f}/{row['games']}")


if __name__ == "__main__":
    main()
