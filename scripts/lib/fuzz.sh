# Shared by scripts/fuzz and scripts/test: the libFuzzer targets of tests/fuzz
# (tests/fuzz/README.md), built with the `fuzz` preset (clang, AddressSanitizer,
# UndefinedBehaviorSanitizer) in build/fuzz and run against their checked-in
# seeds. Sourced after common.sh.

# clang and its runtimes (libFuzzer, the sanitizers) from Debian 12.
MODELGW_FUZZ_DEB_PACKAGES=(clang libclang-rt-14-dev)
MODELGW_FUZZ_BIN="$MODELGW_ROOT/build/fuzz/fuzz"
MODELGW_FUZZ_SEEDS="$MODELGW_ROOT/tests/fuzz/corpus"
# What a run finds goes under build/, never into the repository's seeds.
MODELGW_FUZZ_WORK="$MODELGW_ROOT/build/fuzz/corpus"
MODELGW_FUZZ_ARTIFACTS="$MODELGW_ROOT/build/fuzz/artifacts"

install_fuzz_packages() {
  local missing=()
  for pkg in "${MODELGW_FUZZ_DEB_PACKAGES[@]}"; do
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

# The targets built, by name (openai_stream, chat_body, ...).
fuzz_target_names() {
  local bin
  for bin in "$MODELGW_FUZZ_BIN"/*_fuzz; do
    if [ -x "$bin" ]; then basename "$bin" _fuzz; fi
  done
}

# run_fuzz_target TARGET SECONDS: one run; prints one summary line and, for a
# finding, the report and the input that caused it. Fails on a finding.
run_fuzz_target() {
  local target="$1" seconds="$2"
  local bin="$MODELGW_FUZZ_BIN/${target}_fuzz"
  local work="$MODELGW_FUZZ_WORK/$target"
  local log="$MODELGW_FUZZ_ARTIFACTS/$target.log"
  [ -x "$bin" ] || { echo "fuzz: no target '$target' (have: $(fuzz_target_names | tr '\n' ' '))" >&2; return 2; }
  mkdir -p "$work" "$MODELGW_FUZZ_ARTIFACTS"
  local seeds=()
  if [ -d "$MODELGW_FUZZ_SEEDS/$target" ]; then seeds=("$MODELGW_FUZZ_SEEDS/$target"); fi
  # -timeout: one input running 10 s is a finding (the code under test is
  # meant to be linear); the outer timeout bounds a run that would not stop.
  local status=0
  timeout --kill-after=30 $((seconds + 120)) "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$MODELGW_FUZZ_ARTIFACTS/$target-" "$work" "${seeds[@]}" \
    >"$log" 2>&1 || status=$?
  local execs secs
  execs="$(awk '/^stat::number_of_executed_units/ {print $NF}' "$log" | tail -1)"
  secs="$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)"
  if [ "$status" -eq 0 ]; then
    printf '%-20s ok     %10s executions in %s s (%s inputs in its corpus)\n' "$target" "${execs:-?}" \
      "${secs:-?}" "$(find "$work" -type f | wc -l)"
    return 0
  fi
  if grep -qE '^#[0-9]+[[:space:]]+INITED' "$log"; then
    printf '%-20s FAILED (exit %s) after %s executions\n' "$target" "$status" \
      "$(sed -n 's/^#\([0-9]*\)[^0-9].*/\1/p' "$log" | tail -1)"
  else
    printf '%-20s FAILED (exit %s) on an input of its corpus\n' "$target" "$status"
  fi
  grep -m1 -E 'FUZZ FINDING|ERROR: (AddressSanitizer|libFuzzer|UndefinedBehaviorSanitizer)|runtime error|uncaught' \
    "$log" | sed 's/^/    /' || true
  grep -E '^(Test unit written to|artifact_prefix)' "$log" | sed 's/^/    /' || true
  echo "    full report: $log"
  return 1
}

# run_fuzz_targets SECONDS TARGET...: each target for SECONDS, as many at a
# time as there are cores (MODELGW_FUZZ_JOBS overrides). Fails when one does.
run_fuzz_targets() {
  local seconds="$1"; shift
  local jobs="${MODELGW_FUZZ_JOBS:-$(nproc)}"
  local results
  results="$(mktemp -d)"
  local target
  for target in "$@"; do
    # Bounded: at most `jobs` runs at a time, each bounded by its timeout.
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    (
      status=0
      run_fuzz_target "$target" "$seconds" >"$results/$target" 2>&1 || status=$?
      echo "$status" >"$results/$target.status"
    ) &
  done
  wait
  local failed=0
  for target in "$@"; do
    cat "$results/$target"
    [ "$(cat "$results/$target.status" 2>/dev/null)" = "0" ] || failed=1
  done
  rm -rf "$results"
  return "$failed"
}

# build_fuzz_targets: configure (once) and build every fuzz target.
build_fuzz_targets() {
  install_fuzz_packages
  build_preset fuzz fuzz_targets
}

# The bounded run CI makes after the test suites (build_fuzz_targets first):
# every target for MODELGW_FUZZ_SECONDS (8) seconds against its seeds: with
# 23 targets on 2 cores that is under two minutes, less than 17 targets at 20 s took.
run_fuzz_bounded() {
  local seconds="${MODELGW_FUZZ_SECONDS:-8}"
  echo "==> fuzzing (${seconds} s per target)"
  local targets
  mapfile -t targets < <(fuzz_target_names)
  [ ${#targets[@]} -gt 0 ] || { echo "fuzz: no targets were built" >&2; return 1; }
  run_fuzz_targets "$seconds" "${targets[@]}"
}
