#!/usr/bin/env bash
# Installs what the build needs, builds chipkg (Release) and starts it: with no
# arguments the REPL on the default store, which is filled from the bundled
# datasets/ on first start. Arguments are passed to chipkg.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHIPKG_TESTS=OFF >/dev/null
cmake --build "$root/build" --target chipkg -- -j"$(nproc)" >&2
exec "$root/build/chipkg" "$@"
