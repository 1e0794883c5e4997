#!/usr/bin/env bash
# Fuzzes every target for SECONDS (default 600) each, seeding the corpora from the repository's data/.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); RUSTC_BOOTSTRAP=1 lets the stable toolchain build it.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
data=../data
mkdir -p corpus/board_string corpus/transcript corpus/ggf corpus/wthor corpus/nboard_lines corpus/gtp_lines
grep -v '^#' "$data/ffo-40-59.txt" | awk '{print $1" "$2}' | split -l 1 - corpus/board_string/ffo-
printf 'f5d6c3d3c4f4f6f3e6e7\n' > corpus/transcript/opening
printf 'e6 f4 e3 d6 c5 f6 e7 f5 g5\n' > corpus/transcript/shortest
printf '(;GM[Othello]PB[a]PW[b]RE[+64.000]TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[e6//0.01]W[f4/-1.27/0.01]B[e3]W[d6]B[c5]W[f6]B[e7]W[f5]B[g5];)\n' > corpus/ggf/sample
cp "$data/wthor/WTH_1977.wtb" corpus/wthor/ 2>/dev/null || true
printf 'nboard 2\nset depth 8\nset game (;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5];)\nmove d6/0.5/1\ngo\nping 3\n' > corpus/nboard_lines/session
printf '1 boardsize 8\nclear_board\nplay b d3\n2 genmove w\nundo\nshowboard\nquit\n' > corpus/gtp_lines/session
for target in board_string transcript ggf wthor nboard_lines gtp_lines; do
  RUSTC_BOOTSTRAP=1 cargo fuzz run --release "$target" "corpus/$target" -- -max_total_time="$seconds" -max_len=8192 2>&1 \
    | tee "fuzz-$target.log" | grep -E 'Done|ERROR|panicked|SUMMARY' || true
done
