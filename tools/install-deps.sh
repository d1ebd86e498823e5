#!/usr/bin/env bash
# Installs the Debian 12 packages chipkg builds and tests with. Idempotent: a
# package already installed is left alone, and apt is not touched at all when
# everything is present. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  librocksdb-dev        # storage
  tao-pegtl-dev         # query grammar
  nlohmann-json3-dev    # JSON Lines export/import, manifests, JSON output
  libcurl4-openssl-dev  # fetching
  googletest libgtest-dev  # tests
  libedit-dev           # REPL line editing and history
  libsqlite3-dev        # the SQLite baseline in the benchmark
  libmimalloc-dev       # the programs' allocator (README.md, "Dependencies")
  python3               # the benchmark corpus generator
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
