#!/usr/bin/env bash
# Builds egaroucid-web-gtp: Egaroucid's web engine (its embedded evaluation and opening book) behind a GTP front, for
# the arena (docs/BENCHMARKS.md). Egaroucid's console build needs its evaluation file, a download beyond the package
# registries; the web engine carries its own. Egaroucid is GPL-3.0-or-later, and so is the program this builds.
# Usage: peers/egaroucid/build.sh EGAROUCID_CHECKOUT [OUT]   (github.com/Nyanyan/Egaroucid; tried at 8a98e5a)
# Then: othello-zero arena ... --agents 'engine:cmd="OUT LEVEL",protocol=gtp'   (LEVEL 1-60, 10 when left out)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
checkout="${1:?usage: build.sh EGAROUCID_CHECKOUT [OUT]}"
out="${2:-egaroucid-web-gtp}"
# The web engine is written for wasm: the compat header and <algorithm> make it build with g++ for x86-64.
g++ -O2 -std=c++20 -march=x86-64-v3 -pthread -include "$here/compat.hpp" -I"$checkout/src" \
  "$here/gtp_web.cpp" -o "$out"
echo "built $out"
