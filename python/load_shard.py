"""Load an othello-zero replay shard with numpy alone (schema: docs/ARCHITECTURE.md, "Replay shards").

Usage: python3 python/load_shard.py SHARD.npz   -> prints one summary line (used by the tests).
"""
import sys

import numpy as np

# Version 1 has no "search_value" (read it as "value").
SHARD_VERSIONS = (1, 2)


def load_shard(path):
    """Returns a dict of numpy arrays, one row per position."""
    with np.load(path) as npz:
        shard = {name: npz[name] for name in npz.files}
    version = shard["version"].tolist()
    if len(version) != 1 or version[0] not in SHARD_VERSIONS:
        raise ValueError(f"{path}: schema version {shard['version']}, expected one of {SHARD_VERSIONS}")
    if version[0] == 1:
        shard["search_value"] = shard["value"].copy()
    return shard


def planes(player, opponent):
    """The two bitboards as 8x8 0/1 planes (square a1 = bit 0 = row 0, column 0)."""
    bits = np.arange(64, dtype=np.uint64)
    own = ((player[:, None] >> bits) & np.uint64(1)).astype(np.float32).reshape(-1, 8, 8)
    opp = ((opponent[:, None] >> bits) & np.uint64(1)).astype(np.float32).reshape(-1, 8, 8)
    return own, opp


if __name__ == "__main__":
    s = load_shard(sys.argv[1])
    own, opp = planes(s["player"], s["opponent"])
    print(
        len(s["player"]),
        int(own.sum()),
        int(opp.sum()),
        f"{float(s['policy'].sum()):.3f}",
        int(s["value"].sum()),
        int(s["margin"].astype(np.int64).sum()),
        int(s["full_search"].sum()),
        f"{float(s['search_value'].astype(np.float64).sum()):.3f}",
    )
