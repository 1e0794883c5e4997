"""Checks an `othello-zero export` directory: the numpy reference (othello_net.py) on model.safetensors and
onnxruntime on model.onnx must reproduce the Rust outputs stored in examples.npz, to 1e-4.

    python3 python/check_export.py EXPORT_DIR [--no-onnx]

Prints the largest difference per output and exits 1 on a mismatch.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import othello_net  # noqa: E402

OUTPUTS = ["policy", "value", "margin", "ownership"]
TOLERANCE = 1e-4


def compare(label, got, examples):
    worst = 0.0
    for name, values in zip(OUTPUTS, got):
        diff = float(np.max(np.abs(np.asarray(values, dtype=np.float64) - examples[name])))
        print(f"{label:12} {name:10} max |difference| {diff:.2e}")
        worst = max(worst, diff)
    return worst


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__)
        return 2
    directory = args[0]
    examples = np.load(os.path.join(directory, "examples.npz"))
    planes = examples["planes"]
    worst = compare("numpy", othello_net.forward(othello_net.load(os.path.join(directory, "model.safetensors")), planes), examples)
    if "--no-onnx" not in sys.argv:
        import onnxruntime

        session = onnxruntime.InferenceSession(os.path.join(directory, "model.onnx"), providers=["CPUExecutionProvider"])
        outputs = session.run(OUTPUTS, {"planes": planes.astype(np.float32)})
        worst = max(worst, compare("onnxruntime", outputs, examples))
    if worst > TOLERANCE:
        print(f"MISMATCH: {worst:.2e} > {TOLERANCE}")
        return 1
    print(f"all outputs agree to {TOLERANCE} on {len(planes)} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
