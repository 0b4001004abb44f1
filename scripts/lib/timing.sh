# Stage timings for scripts/test, sourced after common.sh. `stage NAME CMD...`
# runs one stage and notes its seconds; at exit (also when a stage failed) the
# table of stages and the slowest tests of every ctest run are printed, so a
# CI log shows where the time went and what got slower.

MODELGW_TIMING_DIR="$MODELGW_ROOT/build/timings"
MODELGW_TIMING_STARTED=$SECONDS
rm -rf "$MODELGW_TIMING_DIR"
mkdir -p "$MODELGW_TIMING_DIR"
: >"$MODELGW_TIMING_DIR/stages"

# stage NAME CMD...: runs CMD, noting NAME, its seconds and whether it passed.
# CMD runs in a subshell with errexit on: `CMD || status=$?` would turn
# errexit off inside every function CMD calls, and a failed step would go on.
# (So `stage` itself must not be called where errexit is ignored: after
# `if`, `!`, `&&` or `||`.)
stage() {
  local name="$1"; shift
  local started=$SECONDS status=0
  echo "==> $name"
  set +e
  (set -e; "$@")
  status=$?
  set -e
  printf '%s\t%s\t%s\n' "$name" "$((SECONDS - started))" "$status" >>"$MODELGW_TIMING_DIR/stages"
  return "$status"
}

# stage_in_background NAME CMD...: starts a stage beside the ones that follow
# (its output goes to build/timings/NAME.log and is printed when it is
# waited for). stage_wait NAME waits for it and fails if it failed.
declare -A MODELGW_BACKGROUND_STAGES=()
stage_in_background() {
  local name="$1"; shift
  ( stage "$name" "$@" ) >"$MODELGW_TIMING_DIR/$name.log" 2>&1 &
  MODELGW_BACKGROUND_STAGES[$name]=$!
}
stage_wait() {
  local name="$1" status=0
  wait "${MODELGW_BACKGROUND_STAGES[$name]}" || status=$?
  unset "MODELGW_BACKGROUND_STAGES[$name]"
  cat "$MODELGW_TIMING_DIR/$name.log"
  return "$status"
}

# The JUnit file a ctest run of stage NAME writes (ctest --output-junit).
junit_file() { echo "$MODELGW_TIMING_DIR/$1.junit.xml"; }

# kill_tree PID: PID and every process under it (ctest, its tests, their
# servers), children first.
kill_tree() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$child"; done
  kill -TERM "$1" 2>/dev/null || true
}

timing_report() {
  local status=$?
  # A stage still running in the background when another failed is stopped.
  local pid
  for pid in "${MODELGW_BACKGROUND_STAGES[@]}"; do kill_tree "$pid"; done
  echo
  echo "==> where the time went"
  python3 "$MODELGW_ROOT/scripts/lib/timing_report.py" "$MODELGW_TIMING_DIR" \
    "$((SECONDS - MODELGW_TIMING_STARTED))" || true
  return "$status"
}
trap timing_report EXIT
