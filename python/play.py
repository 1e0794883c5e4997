"""Picks a move with an exported othello-zero network: the legal move with the highest policy output.

    python3 python/play.py EXPORT_DIR POSITION [--size N] [--numpy]

POSITION is a transcript from the start (`f5d6c3`) or a board string (64 squares `X`/`O`/`-` and the side to
move). The network runs in onnxruntime on model.onnx (or, with --numpy, in the numpy reference on
model.safetensors). Prints the move (`d3`, or `pass` when the side to move has none).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import othello_encode  # noqa: E402


def policy_logits(directory, planes, use_numpy):
    batch = planes[np.newaxis].astype(np.float32)
    if use_numpy:
        import othello_net

        net = othello_net.load(os.path.join(directory, "model.safetensors"))
        return np.asarray(othello_net.forward(net, batch)[0])[0]
    import onnxruntime

    session = onnxruntime.InferenceSession(os.path.join(directory, "model.onnx"), providers=["CPUExecutionProvider"])
    return session.run(["policy"], {"planes": batch})[0][0]


def main():
    import argparse

    parser = argparse.ArgumentParser(description="Pick a move with an exported othello-zero network.")
    parser.add_argument("export_dir")
    parser.add_argument("position")
    parser.add_argument("--size", type=int, default=8, help="board size for a transcript (4, 6 or 8)")
    parser.add_argument("--numpy", action="store_true", help="the numpy reference instead of onnxruntime")
    args = parser.parse_args()
    try:
        player, opponent, size = othello_encode.parse_position(args.position, args.size)
    except ValueError as e:
        print(f"{args.position}: {e}", file=sys.stderr)
        return 1
    legal = othello_encode.legal_moves(player, opponent, size)
    if not legal:
        print("pass")
        return 0
    logits = policy_logits(args.export_dir, othello_encode.encode(player, opponent, size), args.numpy)
    moves = [sq for sq in range(64) if legal >> sq & 1]
    # Ties go to the lower square, as in othello-zero's policy player.
    best = max(moves, key=lambda sq: (logits[sq], -sq))
    print(othello_encode.square_name(best))
    return 0


if __name__ == "__main__":
    sys.exit(main())
