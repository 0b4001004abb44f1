#!/usr/bin/env bash
# Builds the release preset (profile-guided) and runs the gateway benchmark;
# arguments are passed to gateway_bench (try --help; --quick for a short
# smoke run).
set -euo pipefail
cd "$(dirname "$0")/.."

# The nginx baseline is Debian's nginx (nginx-light); installed when missing
# and this is root (the bench runs modelgw alone, without ratios, otherwise).
packages=(nginx-light)
if [ ! -x /usr/sbin/nginx ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null ||
      { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null; }
  else
    echo "run.sh: /usr/sbin/nginx is missing; install ${packages[*]} for the baseline" >&2
  fi
fi

# The figures are those of the binary that ships: the profile-guided build
# (README.md, "The profile-guided release build"), trained first when no
# profile is there yet.
if ! compgen -G "build/pgo-profile/*.gcda" >/dev/null; then
  scripts/train-profile
fi
cmake --preset release
cmake --build --preset release --target gateway_bench bench_mock_upstream
exec build/release/bench/gateway_bench "$@"
