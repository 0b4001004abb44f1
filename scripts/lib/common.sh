# Shared by scripts/run and scripts/test: the Debian packages the build needs,
# installed only when missing (with sudo when not root), and the build itself.

MODELGW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Everything comes from Debian 12's archive; nothing is downloaded otherwise.
MODELGW_DEB_PACKAGES=(
  build-essential cmake ninja-build lld pkg-config ca-certificates curl
  libpoco-dev libboost-dev nlohmann-json3-dev libspdlog-dev libyaml-cpp-dev
  libssl-dev libsqlite3-dev libgtest-dev libgmock-dev libpcre2-dev libre2-dev
  libicu-dev libsimdjson-dev libjemalloc-dev
  libpqxx-dev libpq-dev
  python3
)

# The PostgreSQL server the tests start a throw-away cluster of (initdb and
# pg_ctl from /usr/lib/postgresql/*/bin); scripts/run does not need it.
MODELGW_TEST_DEB_PACKAGES=(postgresql)
# The browser the console's test drives headless (/usr/bin/chromium): the
# largest download, so scripts/test installs it while the release tree builds.
MODELGW_BROWSER_DEB_PACKAGES=(chromium)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# install_missing_packages [EXTRA_PACKAGE...]
install_missing_packages() {
  local missing=()
  for pkg in "${MODELGW_DEB_PACKAGES[@]}" "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "==> installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# The tokenizer's rank tables come from an npm package (package.json), which
# the build converts; npm ci installs exactly the locked version.
install_node_modules() {
  if ! command -v npm >/dev/null 2>&1; then
    echo "==> installing Debian packages: nodejs npm"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm
  fi
  if [ ! -f "$MODELGW_ROOT/node_modules/.package-lock.json" ] ||
     [ "$MODELGW_ROOT/package-lock.json" -nt "$MODELGW_ROOT/node_modules/.package-lock.json" ]; then
    echo "==> npm ci"
    (cd "$MODELGW_ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# train_profile: the profile the release build compiles with (README.md,
# "The profile-guided release build"): the pgo-train preset's instrumented
# gateway, driven through the request paths by bench/pgo-train, writes it to
# build/pgo-profile. An earlier profile is removed first: counters of older
# code would only add to the new ones.
train_profile() {
  rm -rf "$MODELGW_ROOT/build/pgo-profile"
  build_preset pgo-train
  "$MODELGW_ROOT/bench/pgo-train" "$MODELGW_ROOT/build/pgo-train"
}

# build_preset PRESET [TARGET...]: configure (once) and build, at the
# priority MODELGW_BUILD_NICE (a nice increment, 0 by default) when set.
build_preset() {
  local preset="$1"; shift
  local cache="$MODELGW_ROOT/build/$preset/CMakeCache.txt"
  # A tree configured before the presets chose Ninja cannot change generator.
  if [ -f "$cache" ] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$cache"; then
    echo "==> build/$preset was configured with another generator: configuring it again"
    rm -rf "$cache" "$MODELGW_ROOT/build/$preset/CMakeFiles"
  fi
  (cd "$MODELGW_ROOT" && cmake --preset "$preset" >/dev/null)
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  (cd "$MODELGW_ROOT" &&
    nice -n "${MODELGW_BUILD_NICE:-0}" cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}")
}
