# The bench's gateway on loopback, for the scripts that drive it request by
# request (bench/instructions, bench/pgo-train): sourced with BUILD_DIR as $1.
# Sets MODELGW, TMP (removed at exit with every process in PIDS), GW_PORT,
# a config in $TMP/modelgw.yaml with the bench's settings (API key, PII
# flag, usage in SQLite, access log), the tenants "plain" (PLAIN_KEY) and
# "money" (MONEY_KEY: two budgets, credit, rate limits), that store kept as
# $TMP/pristine.db, and the mock upstream, started; and defines
# wait_healthy and drive.
BUILD="$(cd "${1:-build/release}" && pwd)"
N="${2:-1000}"
MODELGW="$BUILD/bin/modelgw"
MOCK="$BUILD/bench/bench_mock_upstream"
for f in "$MODELGW" "$MOCK" "$BUILD/plugins/mgw_storage_sqlite.so"; do
  [ -e "$f" ] || { echo "missing $f: build the ${BUILD_HINT:-release} preset first" >&2; exit 1; }
done

TMP="$(mktemp -d)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
MOCK_PORT="$(free_port)"
GW_PORT="$(free_port)"

cat >"$TMP/modelgw.yaml" <<EOF
server: { listen: "127.0.0.1:$GW_PORT" }
storage: { plugin: sqlite, options: { path: "$TMP/modelgw.db" } }
usage: { journal_path: "$TMP/usage.journal" }
plugins: { dir: "$BUILD/plugins" }
logging: { level: warn }
pii: { default_mode: flag }
providers:
  openai: { plugin: openai, base_url: "http://127.0.0.1:$MOCK_PORT/v1", api_key: "bench-key" }
  openai_native: { plugin: openai, base_url: "http://127.0.0.1:$MOCK_PORT/v1", api_key: "bench-key", native_operations: [responses] }
  anthropic: { plugin: anthropic, base_url: "http://127.0.0.1:$MOCK_PORT/v1", api_key: "bench-key" }
catalog:
  gpt-4o-mini: { provider: openai, model: "gpt-4o-mini", context_window: 128000, prices: { input: 0.15, output: 0.60 } }
  gpt-4o-mini-native: { provider: openai_native, model: "gpt-4o-mini", context_window: 128000, prices: { input: 0.15, output: 0.60 } }
  claude-bench: { provider: anthropic, model: "claude-sonnet-4-5", context_window: 200000, prices: { input: 3.00, output: 15.00 } }
EOF

cli() { "$MODELGW" "$@" --config "$TMP/modelgw.yaml"; }
cli tenants create plain >/dev/null
PLAIN_KEY="$(cli keys create --tenant plain 2>/dev/null)"
cli tenants create money >/dev/null
cli budgets create --tenant money --window month --limit 1000000 >/dev/null
cli budgets create --tenant money --window day --limit 1000000 --feature search >/dev/null
cli credits top-up --tenant money --amount 1000000 >/dev/null
cli tenants settings money --set '{"rate_limits": {"tenant_requests_per_minute": 100000000,
  "tenant_tokens_per_minute": 1000000000, "key_requests_per_minute": 100000000,
  "key_tokens_per_minute": 1000000000}}' >/dev/null
MONEY_KEY="$(cli keys create --tenant money 2>/dev/null)"
# Each path starts from this store, so none pays for another's records.
cp "$TMP/modelgw.db" "$TMP/pristine.db"

"$MOCK" --port "$MOCK_PORT" >"$TMP/mock.log" 2>&1 &
PIDS+=($!)

# Waits until the gateway started as PID (its output in $TMP/gw.log) answers
# /healthz, at most 60 s (under callgrind it starts slowly); fails with its
# log if it exits or does not answer. wait_healthy PID
wait_healthy() {
  for _ in $(seq 300); do
    curl -s -o /dev/null "http://127.0.0.1:$GW_PORT/healthz" && return 0
    kill -0 "$1" 2>/dev/null || break
    sleep 0.2
  done
  echo "the gateway did not start; its log:" >&2
  tail "$TMP/gw.log" >&2
  return 1
}

# Sends COUNT sequential requests of one kind on one keep-alive connection,
# texts numbered from FIRST with DISTINCT, streamed with STREAM=1 (chat and
# responses); fails unless every one is answered 200. drive KIND KEY COUNT [FIRST]
drive() {
  python3 - "$GW_PORT" "$1" "$2" "$3" "${DISTINCT:-0}" "${4:-0}" "${STREAM:-0}" <<'PY'
import http.client, json, sys
port, kind, key, count = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
distinct, first = sys.argv[5] == "1", int(sys.argv[6])
stream = {"stream": True} if sys.argv[7] == "1" else {}
base = "The quick brown fox jumps over the lazy dog while the gateway relays it. " * 13
def body_of(text):
    if kind == "responses":
        return {"model": "gpt-4o-mini-native", "input": text, "store": False, **stream}
    if kind == "messages":
        return {"model": "claude-bench", "max_tokens": 256, "messages": [{"role": "user", "content": text}]}
    return {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}], **stream}
path = {"responses": "/v1/responses", "messages": "/v1/messages"}.get(kind, "/v1/chat/completions")
headers = {"Content-Type": "application/json", "Authorization": "Bearer " + key}
if kind == "messages":
    headers = {"Content-Type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01"}
if kind not in ("plain", "keyed"):
    headers["X-Feature"] = "search"  # the money path's feature budget
same = json.dumps(body_of(base))
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
for i in range(count):
    # The same length either way: "%08d" in place of the last 8 characters.
    data = json.dumps(body_of(base[:-8] + "%08d" % (first + i))) if distinct else same
    if kind == "keyed":  # a key of its own, never sent before (FIRST differs per drive)
        headers["Idempotency-Key"] = "bench-key-%08d" % (first + i)
    conn.request("POST", path, data, headers)
    r = conn.getresponse()
    r.read()
    if r.status != 200:
        sys.exit("%s request %d: status %d" % (kind, i, r.status))
PY
}

