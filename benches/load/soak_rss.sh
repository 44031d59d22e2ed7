#!/usr/bin/env bash
# Peak RSS of `terse gateway` (release build) under the memory budget's
# hostile load: max_buffered_bytes = 256 MiB, 128 clients asking a 3.6 MB
# body as TOON for a while. Prints the budget and the gateway's peak RSS
# (VmHWM). Run it with MALLOC_ARENA_MAX or another build to compare.
#
#   benches/load/soak_rss.sh
#   CONNECTIONS=64 DURATION=30s benches/load/soak_rss.sh
#
# Not run in CI: it loads the host for its duration.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
duration="${DURATION:-20s}"
connections="${CONNECTIONS:-128}"
work="$(mktemp -d)"
# nginx's workers (www-data) read the documents.
chmod 755 "$work"

# shellcheck source=tests/load/common.sh
source "$root/tests/load/common.sh"
ensure_wrk
trap 'kill $(cat "$work"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
command -v nginx >/dev/null || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }
# TERSE: a binary to measure instead of a fresh release build.
terse="${TERSE:-$root/target/release/terse}"
[ -n "${TERSE:-}" ] || (cd "$root" && cargo build --release -q -p terse-bin)
mkdir -p "$work/docs"
python3 - "$work/docs/large.json" <<'PY'
import json, sys
rows = [{"id": i, "name": f"user {i:08d}", "email": f"u{i}@example.com",
         "active": i % 2 == 0, "score": i * 7 % 1000, "city": "Lisbon"}
        for i in range(36000)]
open(sys.argv[1], "w").write(json.dumps(rows, separators=(",", ":")))
PY

upstream=$((20000 + RANDOM % 5000)) gateway=$((25000 + RANDOM % 5000))
cat >"$work/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  default_type application/json;
  types { application/json json; }
  server { listen 127.0.0.1:$upstream; root $work/docs; }
}
NGINX
nginx -c "$work/nginx.conf" -p "$work"
cat >"$work/terse.toml" <<TOML
[gateway]
max_buffered_bytes = 268435456
TOML
"$terse" gateway --config "$work/terse.toml" \
  --upstream "http://127.0.0.1:$upstream" --listen "127.0.0.1:$gateway" 2>"$work/gateway.log" &
pid=$!
echo $pid >"$work/gateway.pid"
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$gateway/large.json" >/dev/null && break
  sleep 0.1
done
if ! curl -sf -o /dev/null "http://127.0.0.1:$upstream/$(ls "$work/docs" | head -1)"; then
  echo "the upstream does not answer:" >&2; cat "$work/error.log" >&2; exit 1
fi
echo "body: $(stat -c %s "$work/docs/large.json") bytes; budget: 268435456 bytes; MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-unset}"
wrk -t2 -c"$connections" -d"$duration" --timeout 30s "http://127.0.0.1:$gateway/large.json?format=toon" |
  grep -E "Requests/sec|requests in"
peak_kb="$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")"
now_kb="$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")"
echo "peak RSS: $((peak_kb / 1024)) MiB; after the load: $((now_kb / 1024)) MiB"
