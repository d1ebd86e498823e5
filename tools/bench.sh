#!/usr/bin/env bash
# The peer benchmark in one command: installs what the build needs, builds
# chipkg (Release), generates the corpus of N chips once (tools/bench/gen.py)
# and runs chipkg-peer-bench: chipkg against SQLite on the same corpus, the
# five queries with their row counts checked, and the table of ratios.
#
#   tools/bench.sh [N]          N chips, default 100000 (4.14M facts, ~1.8 GB of corpus)
#
# From N = 20000 on, a corpus of N/10 chips is also loaded into chipkg and
# queried by turns with the large one, for the cost growth between the two
# (per fact loaded, per row answered) in the same run.
#
# The corpus and the two stores go to $CHIPKG_BENCH_DIR (default
# /var/tmp/chipkg-bench); extra arguments after N go to chipkg-peer-bench
# (e.g. --runs 9, --json FILE).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${1:-100000}"
shift || true
base="${CHIPKG_BENCH_DIR:-/var/tmp/chipkg-bench}"
"$root/tools/install-deps.sh"
# The sqlite3 command line, for the whole-process baseline (Q1 as `sqlite3 FILE SQL`).
if ! command -v sqlite3 >/dev/null; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends sqlite3
fi
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHIPKG_TESTS=OFF >/dev/null
cmake --build "$root/build" --target chipkg chipkg-peer-bench chipkg-query-loop -- -j"$(nproc)" >&2
mkdir -p "$base"
growth=()
if [ "$n" -ge 20000 ]; then
  small=$((n / 10))
  growth=(--growth-corpus "$base/n$small" --growth-n "$small" --growth-work "$base/n$small-growth")
fi
exec "$root/build/chipkg-peer-bench" --corpus "$base/n$n" --n "$n" --work "$base/n$n-work" "${growth[@]}" "$@"
