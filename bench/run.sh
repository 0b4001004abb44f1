#!/usr/bin/env bash
# Builds the release preset and runs the gateway benchmark; arguments are
# passed to gateway_bench (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release
cmake --build --preset release --target gateway_bench
exec build/release/bench/gateway_bench "$@"
