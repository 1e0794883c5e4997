"""A run directory from Python, with numpy alone: its replay window, its checkpoints and its ratings.

The stages write these files (docs/ARCHITECTURE.md, "The run directory"); this module only reads them, so it can
watch a run while it trains: ``RUN/replay/*.npz`` (the shard schema, one row per position), ``RUN/models/*.json``
(each checkpoint's sidecar), ``RUN/eval/ratings.json`` (the evaluation's Elo table).

>>> from othello_zero.runs import Run
>>> run = Run("runs/quickstart")
>>> window = run.replay_window(positions=50_000)   # dict of arrays, oldest row first
>>> window["player"].shape, window["policy"].shape
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Run", "load_shard", "SHARD_ARRAYS"]

#: The shard schema: each array's dtype and its shape after the row (``docs/ARCHITECTURE.md``, "Replay shards").
SHARD_ARRAYS: dict[str, tuple[str, tuple[int, ...]]] = {
    "player": ("uint64", ()),
    "opponent": ("uint64", ()),
    "side": ("uint8", ()),
    "ply": ("uint16", ()),
    "rules": ("uint16", ()),
    "policy": ("float32", (65,)),
    "value": ("float32", ()),
    "margin": ("int8", ()),
    "ownership": ("int8", (64,)),
    "search_value": ("float32", ()),
    "full_search": ("uint8", ()),
    "solved": ("uint8", ()),
    "model": ("uint64", ()),
    "game": ("uint64", ()),
    "worker": ("uint64", ()),
    "seed": ("uint64", ()),
}
#: Schema versions read; version 1 has no ``search_value`` (read as ``value``).
SHARD_VERSIONS = (1, 2)


def load_shard(path: str | Path) -> dict[str, np.ndarray]:
    """One shard's arrays, one row per position; a file that is not a shard of a known version, or whose arrays
    are missing, of another dtype or shape, or of unequal rows, is a ``ValueError`` naming the file."""
    path = Path(path)
    try:
        with np.load(path) as npz:
            shard = {name: npz[name] for name in npz.files}
    except Exception as e:  # a zip or npy error of any kind: the file is not a shard
        raise ValueError(f"{path}: not a readable shard ({e})") from None
    version = shard.get("version", np.array([])).tolist()
    if len(version) != 1 or version[0] not in SHARD_VERSIONS:
        raise ValueError(f"{path}: schema version {version}, expected one of {SHARD_VERSIONS}")
    if version[0] == 1 and "value" in shard:
        shard["search_value"] = shard["value"].copy()
    rows = len(shard["player"]) if "player" in shard else 0
    for name, (dtype, tail) in SHARD_ARRAYS.items():
        if name not in shard:
            raise ValueError(f"{path}: no array '{name}'")
        array = shard[name]
        if array.dtype != np.dtype(dtype) or array.shape != (rows, *tail):
            raise ValueError(f"{path}: '{name}' is {array.dtype} {array.shape}, expected {dtype} {(rows, *tail)}")
    if np.any(shard["player"] & shard["opponent"]):
        raise ValueError(f"{path}: a position with a disc of both sides")
    del shard["version"]
    return shard


class Run:
    """A run directory, read as the stages write it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise ValueError(f"{self.path}: no such run directory")

    def shards(self) -> list[Path]:
        """The replay shards in the order they arrived (modification time, then name), as the trainer reads them."""
        replay = self.path / "replay"
        if not replay.is_dir():
            return []
        found = [p for p in replay.iterdir() if p.suffix == ".npz" and not p.name.startswith(".")]
        return sorted(found, key=lambda p: (p.stat().st_mtime_ns, p.name))

    def replay_window(self, positions: int | None = None, skip_invalid: bool = False) -> dict[str, np.ndarray]:
        """The newest ``positions`` positions of the replay (all of them by default) as one dict of arrays, oldest
        row first: what the trainer samples from with ``[train] window = positions``. An invalid shard is a
        ``ValueError`` naming it, or with ``skip_invalid`` a warning, and left out as the trainer leaves it out."""
        if positions is not None and positions < 0:
            raise ValueError(f"positions = {positions}: expected 0 or more")
        kept: list[dict[str, np.ndarray]] = []
        held = 0
        for path in reversed(self.shards()):
            if positions is not None and held >= positions:
                break
            try:
                shard = load_shard(path)
            except ValueError as e:
                if not skip_invalid:
                    raise
                warnings.warn(f"left out: {e}", stacklevel=2)
                continue
            kept.append(shard)
            held += len(shard["player"])
        kept.reverse()
        window = {name: np.concatenate([s[name] for s in kept]) if kept else
                  np.zeros((0, *tail), dtype=dtype) for name, (dtype, tail) in SHARD_ARRAYS.items()}
        if positions is not None and held > positions:
            window = {name: array[held - positions:] for name, array in window.items()}
        return window

    def checkpoints(self) -> list[dict[str, Any]]:
        """Every checkpoint's sidecar (its architecture, step, samples and training record), by step, each with
        ``path``: the weights' file, which a ``net:model=PATH`` agent spec names."""
        models = self.path / "models"
        found = []
        for sidecar in sorted(models.glob("model-*.json")) if models.is_dir() else []:
            try:
                info = json.loads(sidecar.read_text())
            except (OSError, ValueError) as e:
                raise ValueError(f"{sidecar}: not a checkpoint's sidecar ({e})") from None
            if not isinstance(info, dict) or "step" not in info:
                raise ValueError(f"{sidecar}: not a checkpoint's sidecar (no step)")
            found.append({**info, "path": str(sidecar.with_suffix(".bpk"))})
        return sorted(found, key=lambda info: info["step"])

    def ratings(self) -> dict[str, Any] | None:
        """The evaluation's ratings table (``RUN/eval/ratings.json``: the anchor, and each player's Elo, 95%
        interval and games, best first), or None before the first rating."""
        table = self.path / "eval" / "ratings.json"
        if not table.exists():
            return None
        try:
            ratings: dict[str, Any] = json.loads(table.read_text())
        except ValueError as e:
            raise ValueError(f"{table}: not a ratings table ({e})") from None
        return ratings
