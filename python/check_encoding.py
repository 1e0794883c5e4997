"""Checks othello_encode.py against othello-zero's own input planes.

    python3 python/check_encoding.py FILE

FILE has one position per line: `SIZE PLAYER_HEX OPPONENT_HEX PLANES`, PLANES being the 6 x 64 values of the
planes as 0/1 characters, as the Rust encoder computed them. Prints the first mismatch and exits 1 on any.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import othello_encode  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    checked = 0
    with open(sys.argv[1]) as f:
        for number, line in enumerate(f, 1):
            size, player, opponent, planes = line.split()
            got = othello_encode.encode(int(player, 16), int(opponent, 16), int(size)).reshape(-1)
            want = [int(ch) for ch in planes]
            if list(got.astype(int)) != want:
                plane = next(i // 64 for i, (a, b) in enumerate(zip(got, want)) if a != b)
                print(f"line {number}: plane {plane} differs for size {size} player {player} opponent {opponent}")
                return 1
            checked += 1
    print(f"{checked} positions encoded alike")
    return 0


if __name__ == "__main__":
    sys.exit(main())
