#!/usr/bin/env bash
# Installs what the build needs, builds everything with AddressSanitizer and
# UBSan (Debug), and runs every test. Exit status 0 only if all pass.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CHIPKG_TEST_BUILD_DIR:-$root/build-test}"
"$root/tools/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCHIPKG_SANITIZE=ON -DCHIPKG_TESTS=ON >/dev/null
cmake --build "$build" -- -j"$(nproc)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 300
