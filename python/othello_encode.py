"""The network's input planes for a position, as othello-zero computes them (core/src/planes.rs), in Python.

A position is two bitboards (the side to move's discs and the opponent's) on an NxN board laid out in the top-left
corner of 8x8: square (row r, column c) is bit 8 * r + c, a1 = bit 0, b1 = bit 1, a2 = bit 8. The planes, each 8x8
float32: own discs, opponent discs, legal moves, board squares, own stable discs, opponent stable discs (the stable
planes are zero on boards other than 8x8).

    import othello_encode as oe
    player, opponent, size = oe.parse_position("f5d6c3")   # a transcript, or a board string
    planes = oe.encode(player, opponent, size)                 # numpy [6, 8, 8]
"""
import numpy as np

FULL = (1 << 64) - 1
COL_A = 0x0101010101010101
COL_H = 0x8080808080808080
ROW_1 = 0xFF
ROW_8 = 0xFF00000000000000
EDGE = COL_A | COL_H | ROW_1 | ROW_8
DIRECTIONS = [(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1)]


def board_mask(size):
    """The squares of an NxN board."""
    mask = 0
    for r in range(size):
        for c in range(size):
            mask |= 1 << (8 * r + c)
    return mask


def flips(p, o, sq):
    """The opponent discs flipped when the side with discs `p` plays the empty square `sq` (8x8 geometry)."""
    if (p | o) >> sq & 1:
        return 0
    r0, c0 = divmod(sq, 8)
    flipped = 0
    for dr, dc in DIRECTIONS:
        r, c, line = r0 + dr, c0 + dc, 0
        while 0 <= r < 8 and 0 <= c < 8 and o >> (8 * r + c) & 1:
            line |= 1 << (8 * r + c)
            r, c = r + dr, c + dc
        if line and 0 <= r < 8 and 0 <= c < 8 and p >> (8 * r + c) & 1:
            flipped |= line
    return flipped


def legal_moves(p, o, size=8):
    """The squares where the side with discs `p` may play."""
    empty = board_mask(size) & ~(p | o)
    moves = 0
    for sq in range(64):
        if empty >> sq & 1 and flips(p, o, sq):
            moves |= 1 << sq
    return moves


def _line_flips(m, t, sq):
    """`flips` on the first row only (a line of 8 squares)."""
    return flips(m, t, sq) & 0xFF


def _edge_table():
    """For every line of 8 squares (mine | theirs << 8), the discs of mine no sequence of placements can flip."""
    table = [0] * (1 << 16)
    lines = [(m, t) for m in range(256) for t in range(256) if m & t == 0]
    # Lines with more discs first: a placement only adds discs.
    lines.sort(key=lambda mt: -bin(mt[0] | mt[1]).count("1"))
    for m, t in lines:
        stable = m
        for sq in range(8):
            if (m | t) >> sq & 1:
                continue
            f = _line_flips(m, t, sq)
            stable &= table[(m | f | 1 << sq) | ((t & ~f) & 0xFF) << 8]
            f = _line_flips(t, m, sq)
            stable &= ~f & table[(m & ~f) & 0xFF | ((t | f | 1 << sq) << 8)]
        table[m | t << 8] = stable & 0xFF
    return table


_EDGE = None


def _column_to_byte(x):
    return sum(((x >> (8 * i)) & 1) << i for i in range(8))


def _byte_to_column(b):
    return sum(((b >> i) & 1) << (8 * i) for i in range(8))


def _edge_stable(mine, theirs):
    global _EDGE
    if _EDGE is None:
        _EDGE = _edge_table()
    line = lambda m, t: _EDGE[m | t << 8]
    return (
        line(mine & 0xFF, theirs & 0xFF)
        | line(mine >> 56, theirs >> 56) << 56
        | _byte_to_column(line(_column_to_byte(mine), _column_to_byte(theirs)))
        | _byte_to_column(line(_column_to_byte(mine >> 7), _column_to_byte(theirs >> 7))) << 7
    )


def _full_line(occupied, sq, dr, dc):
    """Whether the whole line through `sq` along (dr, dc) is occupied."""
    for sign in (1, -1):
        r, c = divmod(sq, 8)
        while 0 <= r < 8 and 0 <= c < 8:
            if not occupied >> (8 * r + c) & 1:
                return False
            r, c = r + sign * dr, c + sign * dc
    return True


def stable_discs(mine, theirs):
    """The discs of `mine` that othello-zero counts as stable on an 8x8 board (a subset of the truly stable)."""
    occupied = mine | theirs
    axes = []
    for dr, dc in [(0, 1), (1, 0), (1, 1), (1, -1)]:
        full = 0
        for sq in range(64):
            if _full_line(occupied, sq, dr, dc):
                full |= 1 << sq
        axes.append(full)
    rows, cols, diag, anti = axes[0] | COL_A | COL_H, axes[1] | ROW_1 | ROW_8, axes[2] | EDGE, axes[3] | EDGE
    stable = _edge_stable(mine, theirs)
    inner = mine & ~EDGE & FULL
    while True:
        h = rows | (stable << 1 & ~COL_A) | (stable >> 1 & ~COL_H)
        v = cols | stable << 8 | stable >> 8
        d = diag | (stable << 9 & ~COL_A) | (stable >> 9 & ~COL_H)
        a = anti | (stable << 7 & ~COL_H) | (stable >> 7 & ~COL_A)
        nxt = (stable | inner & h & v & d & a) & FULL
        if nxt == stable:
            return stable
        stable = nxt


def encode(player, opponent, size=8):
    """The input planes [6, 8, 8] (float32) of the position, seen as it is (no symmetry)."""
    legal = legal_moves(player, opponent, size)
    if size == 8:
        own_stable, opp_stable = stable_discs(player, opponent), stable_discs(opponent, player)
    else:
        own_stable, opp_stable = 0, 0
    planes = [player, opponent, legal, board_mask(size), own_stable, opp_stable]
    out = np.zeros((len(planes), 64), dtype=np.float32)
    for i, plane in enumerate(planes):
        for sq in range(64):
            out[i, sq] = plane >> sq & 1
    return out.reshape(len(planes), 8, 8)


def start(size=8):
    """Black's and white's discs at the start, black to move."""
    h = size // 2
    d = lambda r, c: 1 << (8 * r + c)
    black = d(h - 1, h) | d(h, h - 1)
    white = d(h - 1, h - 1) | d(h, h)
    return black, white


def square_name(sq):
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def parse_position(text, size=8):
    """A transcript (`f5d6c3`; forced passes as `pa` or `--`, or left out) played from the start, or a board string (`X`/`*` black,
    `O` white, `-` empty, row by row from a1, then the side to move). Returns (player, opponent, size)."""
    cells = [ch for ch in text if not ch.isspace()]
    if len(cells) in (17, 37, 65) and all(ch in "XxOo*-._BbWw" for ch in cells):
        size = {17: 4, 37: 6, 65: 8}[len(cells)]
        black = white = 0
        for i, ch in enumerate(cells[:-1]):
            bit = 1 << (8 * (i // size) + i % size)
            if ch in "Xx*Bb":
                black |= bit
            elif ch in "OoWw":
                white |= bit
        return (black, white, size) if cells[-1] in "Xx*Bb" else (white, black, size)
    player, opponent = start(size)
    text = text.strip().lower()
    for i in range(0, len(text), 2):
        word = text[i : i + 2]
        stuck = not legal_moves(player, opponent, size)
        if word in ("pa", "--"):
            if not stuck:
                raise ValueError(f"move {i // 2 + 1} is a pass, but a move is possible")
            player, opponent = opponent, player
            continue
        if len(word) < 2 or word[0] not in "abcdefgh" or not word[1].isdigit():
            raise ValueError(f"'{word}' at {i + 1} is not a move")
        if stuck:
            # A forced pass left out of the transcript.
            player, opponent = opponent, player
        sq = 8 * (int(word[1]) - 1) + "abcdefgh".index(word[0])
        if not legal_moves(player, opponent, size) >> sq & 1:
            raise ValueError(f"move {i // 2 + 1} ({word}) is illegal")
        f = flips(player, opponent, sq)
        player, opponent = opponent ^ f, player | f | 1 << sq
    return player, opponent, size
