#!/usr/bin/env bash
# Does a large rewrite stall other requests? The load target (layer on a
# 2-worker runtime) is run twice: with the default offload threshold and
# with offloading off (`never`). Each time 8 clients keep asking
# `/big?format=toon` (~8 MiB of JSON rewritten per request) while wrk
# measures the latency of `/small`; the server's peak RSS (VmHWM) is read at
# the end. Prints both runs side by side.
#
#   bash tests/load/offload.sh               # 20 s per run
#   DURATION=10 bash tests/load/offload.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-20}
BIG_CLIENTS=${BIG_CLIENTS:-8}
SMALL_CONNECTIONS=${SMALL_CONNECTIONS:-4}

# shellcheck source=tests/load/common.sh
source tests/load/common.sh
ensure_wrk

cargo build --release -q -p terse-tests --bin load_target
BIN="${CARGO_TARGET_DIR:-target}/release/load_target"

WORK=$(mktemp -d)
PID=""
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# wrk prints latencies as 812.00us, 3.45ms or 1.20s; this gives milliseconds.
to_ms() {
    awk -v t="$1" 'BEGIN {
        if (t ~ /us$/) printf "%.2f", t / 1000
        else if (t ~ /ms$/) printf "%.2f", t + 0
        else if (t ~ /m$/) printf "%.2f", t * 60000
        else printf "%.2f", t * 1000
    }'
}

# One run: starts the server with "$@", loads it, and appends a result line
# "name p50 p99 small_rps big_requests hwm_mib" to $WORK/results.
run() {
    local name="$1"
    shift
    "$BIN" --port 0 "$@" >"$WORK/server-$name.log" 2>&1 &
    PID=$!
    local url=""
    for _ in $(seq 300); do
        url=$(sed -n 's/^listening on //p' "$WORK/server-$name.log")
        [ -n "$url" ] && break
        sleep 0.1
    done
    [ -n "$url" ] || { echo "server did not start: $(cat "$WORK/server-$name.log")" >&2; exit 1; }
    local type
    type=$(curl -s -o /dev/null -w '%{content_type}' "$url/big?format=toon")
    echo "== $name: $url, /big?format=toon answers $type"

    wrk -t1 -c"$BIG_CLIENTS" -d"$((DURATION + 2))s" --timeout 30s "$url/big?format=toon" \
        >"$WORK/big-$name" 2>&1 &
    local big=$!
    sleep 1
    wrk -t1 -c"$SMALL_CONNECTIONS" -d"${DURATION}s" --timeout 30s --latency "$url/small" \
        >"$WORK/small-$name" 2>&1
    wait "$big"
    local hwm
    hwm=$(awk '/^VmHWM:/ {printf "%.0f", $2 / 1024}' "/proc/$PID/status")
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    PID=""

    local p50 p99 rps bigs
    p50=$(to_ms "$(awk '$1 == "50%" {print $2}' "$WORK/small-$name")")
    p99=$(to_ms "$(awk '$1 == "99%" {print $2}' "$WORK/small-$name")")
    rps=$(awk '/^Requests\/sec:/ {printf "%.0f", $2}' "$WORK/small-$name")
    bigs=$(awk '/requests in/ {print $1}' "$WORK/big-$name")
    echo "$name $p50 $p99 $rps $bigs $hwm" >>"$WORK/results"
}

echo "load: $BIG_CLIENTS clients on /big?format=toon, wrk -c$SMALL_CONNECTIONS --latency on /small, ${DURATION}s per run"
run default
run never --offload-threshold never

echo
awk 'BEGIN { printf "%-22s %14s %14s\n", "", "default", "never" }
{ for (i = 2; i <= NF; i++) v[NR, i] = $i }
END {
    split("/small p50 (ms),/small p99 (ms),/small req/s,/big requests,peak RSS (MiB)", label, ",")
    for (i = 2; i <= 6; i++) printf "%-22s %14s %14s\n", label[i - 1], v[1, i], v[2, i]
}' "$WORK/results"
