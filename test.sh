#!/usr/bin/env bash
# The test command (README, .ci/run): installs what the tests need, then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")"
# The replay-shard test loads shards with numpy, as a Python user would.
python3 -c "import numpy" 2>/dev/null || python3 -m pip install --quiet numpy
cargo test --workspace "$@"
