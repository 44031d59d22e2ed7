#!/usr/bin/env bash
# Peak RSS of `terse gateway` (release build) under the memory budget's
# hostile load: max_buffered_bytes = 256 MiB, 128 clients asking a 3.6 MB
# body as TOON for a while. Prints the budget, the gateway's RSS before the
# load (its baseline), its peak RSS (VmHWM), its steady RSS (the median of
# the second half of the load, sampled every 100 ms) and what it holds
# after the load; with RESULTS=FILE, writes them as the row SETUP of that
# Markdown table (replacing the row of the same setup).
#
#   benches/load/soak_rss.sh
#   CONNECTIONS=64 DURATION=30s benches/load/soak_rss.sh
#   SETUP="MALLOC_ARENA_MAX=2" MALLOC_ARENA_MAX=2 RESULTS=benches/load/rss_results.md benches/load/soak_rss.sh
#
# Not run in CI: it loads the host for its duration.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
duration="${DURATION:-20s}"
connections="${CONNECTIONS:-128}"
setup="${SETUP:-default}"
budget=268435456
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
max_buffered_bytes = $budget
TOML
"$terse" gateway --config "$work/terse.toml" \
  --upstream "http://127.0.0.1:$upstream" --listen "127.0.0.1:$gateway" 2>"$work/gateway.log" >/dev/null &
pid=$!
echo $pid >"$work/gateway.pid"
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$gateway/large.json?format=toon" >/dev/null && break
  sleep 0.1
done
if ! curl -sf -o /dev/null "http://127.0.0.1:$upstream/large.json"; then
  echo "the upstream does not answer:" >&2; cat "$work/error.log" >&2; exit 1
fi
rss_kb() { awk '/VmRSS/ { print $2 }' "/proc/$pid/status"; }
baseline_kb="$(rss_kb)"
echo "body: $(stat -c %s "$work/docs/large.json") bytes; budget: $budget bytes; setup: $setup"

# RSS every 100 ms while the load runs, one sample per line.
(while kill -0 "$pid" 2>/dev/null; do rss_kb; sleep 0.1; done) >"$work/rss.samples" &
echo $! >"$work/sampler.pid"
wrk -t2 -c"$connections" -d"$duration" --timeout 30s "http://127.0.0.1:$gateway/large.json?format=toon" |
  grep -E "Requests/sec|requests in|Non-2xx"
kill "$(cat "$work/sampler.pid")"
peak_kb="$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")"
samples="$(wc -l <"$work/rss.samples")"
steady_kb="$(tail -n "$((samples / 2))" "$work/rss.samples" | sort -n | awk '{ s[NR] = $1 } END { print s[int((NR + 1) / 2)] }')"
sleep 2
after_kb="$(rss_kb)"
mib() { echo $(($1 / 1024)); }
refused="$(grep -c "memory budget of" "$work/gateway.log" || true)"
echo "baseline RSS: $(mib "$baseline_kb") MiB; peak RSS: $(mib "$peak_kb") MiB; steady RSS: $(mib "$steady_kb") MiB; after the load: $(mib "$after_kb") MiB; budget refusal lines logged: $refused"

if [ -n "${RESULTS:-}" ]; then
  header="| setup | budget | baseline RSS | peak RSS | steady RSS | after the load |"
  row="| $setup | $((budget >> 20)) MiB | $(mib "$baseline_kb") MiB | $(mib "$peak_kb") MiB | $(mib "$steady_kb") MiB | $(mib "$after_kb") MiB |"
  if [ ! -s "$RESULTS" ]; then
    printf '%s\n|---|---|---|---|---|---|\n' "$header" >"$RESULTS"
  fi
  # The row of this setup replaced, the others kept in their order.
  awk -v setup="| $setup |" -v row="$row" '
    index($0, setup) == 1 { print row; done = 1; next }
    { print }
    END { if (!done) print row }' "$RESULTS" >"$work/results" && cp "$work/results" "$RESULTS"
  echo "wrote the row \"$setup\" of $RESULTS"
fi
