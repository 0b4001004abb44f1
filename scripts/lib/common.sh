# Shared by scripts/run and scripts/test: the Debian packages the build needs,
# installed only when missing (with sudo when not root), and the build itself.

MODELGW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Everything comes from Debian 12's archive; nothing is downloaded otherwise.
MODELGW_DEB_PACKAGES=(
  build-essential cmake ninja-build pkg-config ca-certificates curl
  libpoco-dev libboost-dev nlohmann-json3-dev libspdlog-dev libyaml-cpp-dev
  libssl-dev libsqlite3-dev libgtest-dev libgmock-dev
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_missing_packages() {
  local missing=()
  for pkg in "${MODELGW_DEB_PACKAGES[@]}"; do
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

# build_preset PRESET [TARGET...]: configure (once) and build.
build_preset() {
  local preset="$1"; shift
  (cd "$MODELGW_ROOT" && cmake --preset "$preset" >/dev/null)
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  (cd "$MODELGW_ROOT" && cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}")
}
