#!/usr/bin/env bash
# Soak: examples/agent-api under mixed agent traffic (soak.lua: JSON, TOON,
# compact, fields, the preference headers, a 404, HEAD) from 64 connections
# for SOAK_SECONDS. Prints the requests, the statuses, socket errors and the
# server's RSS every second, with the mean RSS of the first and the last
# 10 s (a leak shows as growth between the two). Fails on any 5xx or socket
# error.
#
#   bash tests/load/soak.sh                 # 60 s
#   SOAK_SECONDS=600 bash tests/load/soak.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

SOAK_SECONDS=${SOAK_SECONDS:-60}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}

# shellcheck source=tests/load/common.sh
source tests/load/common.sh
ensure_wrk

cargo build --release -q -p agent-api
BIN="${CARGO_TARGET_DIR:-target}/release/agent-api"

WORK=$(mktemp -d)
PID=""
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# Its own database, created and seeded on start, on a free loopback port.
"$BIN" --db "$WORK/agent-api.db" --addr 127.0.0.1:0 >"$WORK/server.log" 2>&1 &
PID=$!
URL=""
for _ in $(seq 100); do
    URL=$(sed -n 's/^agent-api listening on \(http:[^ ]*\).*/\1/p' "$WORK/server.log")
    [ -n "$URL" ] && break
    sleep 0.1
done
if [ -z "$URL" ]; then
    echo "server did not start: $(cat "$WORK/server.log")" >&2
    exit 1
fi
echo "agent-api at $URL (pid $PID); wrk -t$THREADS -c$CONNECTIONS -d${SOAK_SECONDS}s, mixed traffic"

# VmRSS in KiB, once a second, until the server exits or the sampler is stopped.
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$PID/status" 2>/dev/null; }
( while kill -0 "$PID" 2>/dev/null; do rss; sleep 1; done ) >"$WORK/rss" &
SAMPLER=$!

# HEAD requests beside wrk (which cannot parse HEAD answers), on one
# keep-alive connection per curl call: one status line per answer in
# head.status, one line per failed call (a socket error) in head.errors.
head_loop() {
    local end=$((SECONDS + SOAK_SECONDS)) urls=()
    for _ in $(seq 10); do
        urls+=("$URL/api/v1/events?limit=20&format=toon" "$URL/api/v1/diary?limit=5" \
            "$URL/api/v1/notes/999999999")
    done
    while [ "$SECONDS" -lt "$end" ]; do
        curl -s -I --max-time 10 "${urls[@]}" | awk '/^HTTP\// {print $2}' >>"$WORK/head.status" \
            || echo failed >>"$WORK/head.errors"
    done
}
touch "$WORK/head.status" "$WORK/head.errors"
head_loop &
HEADS=$!

status=0
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SOAK_SECONDS}s" --timeout 10s \
    -s tests/load/soak.lua "$URL" | tee "$WORK/wrk" || status=$?
wait "$HEADS" || true
kill "$SAMPLER" 2>/dev/null || true
wait "$SAMPLER" 2>/dev/null || true

echo "HEAD (curl): $(wc -l <"$WORK/head.status") requests, $(wc -l <"$WORK/head.errors") failed calls"
sort "$WORK/head.status" | uniq -c | awk '{printf "HEAD status %s: %d\n", $2, $1}'

echo "server RSS (KiB), one sample a second:"
paste -sd' ' "$WORK/rss"
awk '{ v[NR] = $1 }
END {
    n = NR < 10 ? NR : 10
    for (i = 1; i <= n; i++) first += v[i]
    for (i = NR - n + 1; i <= NR; i++) last += v[i]
    printf "RSS mean: first %ds %.1f MiB, last %ds %.1f MiB, peak %.1f MiB\n", n, first / n / 1024, n, last / n / 1024, max(v) / 1024
}
function max(a,   m, k) { for (k in a) if (a[k] > m) m = a[k]; return m }' "$WORK/rss"

if ! kill -0 "$PID" 2>/dev/null; then
    echo "error: the server exited: $(tail -n 20 "$WORK/server.log")" >&2
    exit 1
fi
fivexx=$(awk '/^5xx:/ {print $2}' "$WORK/wrk")
fivexx=$((${fivexx:-1} + $(grep -c '^5' "$WORK/head.status" || true)))
socket=$(awk '/^socket errors:/ {print $4 + $6 + $8 + $10}' "$WORK/wrk")
socket=$((${socket:-1} + $(wc -l <"$WORK/head.errors")))
if [ "$status" -ne 0 ] || [ "$fivexx" -ne 0 ] || [ "$socket" -ne 0 ]; then
    echo "error: wrk exit $status, $fivexx 5xx, $socket socket errors (GET and HEAD)" >&2
    exit 1
fi
echo "soak passed: no 5xx, no socket errors"
