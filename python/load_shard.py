"""Load an othello-zero replay shard with numpy alone (schema: docs/ARCHITECTURE.md, "Replay shards"), through the
package's own reader, `othello_zero/runs.py`, read from its file so that the extension need not be built.

Usage: python3 python/load_shard.py SHARD.npz   -> prints one summary line (used by the tests).
"""
import importlib.util
import sys
from pathlib import Path

import numpy as np

_spec = importlib.util.spec_from_file_location("runs", Path(__file__).parent / "othello_zero" / "runs.py")
runs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runs)
load_shard = runs.load_shard


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
